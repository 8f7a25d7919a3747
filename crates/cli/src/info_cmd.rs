//! `amdsim info FILE.co [--kernel NAME]`: what a code object holds — target,
//! code object version, symbols, and for every kernel its decoded descriptor
//! (every field), metadata and arguments.

use amdgpu_codeobj::{
    CodeObject, ComputePgmRsrc1, ComputePgmRsrc2, ComputePgmRsrc3, Kernel, KernelDescriptor,
    KernelMetadata, SymbolKind, WorkitemIdLayout, rmpv,
};
use std::fmt::Write as _;

/// Arguments of `amdsim info`.
#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    /// The code object.
    file: String,
    /// Show only this kernel.
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
}

/// Runs `amdsim info`.
pub fn run(a: InfoArgs) -> Result<(), crate::Failure> {
    let file = a.file;
    let bytes = crate::read_file(&file, amdgpu_sim::dispatch::MAX_CODE_OBJECT)?;
    let co = CodeObject::parse(&bytes).map_err(|e| format!("{file}: {e}"))?;
    if let Some(name) = &a.kernel
        && co.kernel(name).is_none()
    {
        let names: Vec<&str> = co.kernels().iter().map(|k| k.name.as_str()).collect();
        return Err(format!("{file}: no kernel `{name}` (kernels: {})", names.join(", ")).into());
    }
    print!("{}", render(&file, &co, a.kernel.as_deref()));
    Ok(())
}

/// The whole report as text.
pub fn render(file: &str, co: &CodeObject<'_>, only: Option<&str>) -> String {
    let mut o = String::new();
    let t = co.target();
    let _ = writeln!(o, "file: {file}");
    let _ = writeln!(o, "target: {}", t.target_id());
    let _ = writeln!(
        o,
        "  processor {} ({:?}), xnack {}, sramecc {}",
        t.gpu,
        t.family(),
        t.xnack,
        t.sramecc
    );
    let _ = writeln!(
        o,
        "  code object version {} (e_flags {:#x})",
        t.code_object_version, t.e_flags
    );
    if let Some(md) = co.metadata() {
        if let Some((major, minor)) = md.version {
            let _ = writeln!(o, "  amdhsa.version {major}.{minor}");
        }
        if let Some(target) = &md.target {
            let _ = writeln!(o, "  amdhsa.target {target}");
        }
        for (k, v) in &md.other {
            let _ = writeln!(o, "  {k} {v}");
        }
    } else {
        let _ = writeln!(o, "  no NT_AMDGPU_METADATA note");
    }
    let text = co.text();
    let _ = writeln!(
        o,
        ".text: {:#x}..{:#x} ({} bytes)",
        text.address,
        text.end_address(),
        text.bytes.len()
    );
    let debug: Vec<&str> = co.debug_section_names().collect();
    if !debug.is_empty() {
        let _ = writeln!(o, "debug sections: {}", debug.join(" "));
    }
    let _ = writeln!(o, "symbols:");
    for s in co.symbols() {
        let kind = match s.kind {
            SymbolKind::Kernel => "kernel",
            SymbolKind::Function => "function",
            SymbolKind::KernelDescriptor => "descriptor",
            SymbolKind::Object => "object",
            SymbolKind::Other => continue,
        };
        let _ = writeln!(
            o,
            "  {:#010x}..{:#010x} {:<10} {}{}",
            s.address,
            s.address.saturating_add(s.size),
            kind,
            s.name,
            if s.global { "" } else { " (local)" }
        );
    }
    let _ = writeln!(o, "kernels: {}", co.kernels().len());
    for k in co.kernels() {
        if only.is_some_and(|n| n != k.name) {
            continue;
        }
        kernel(&mut o, k);
    }
    o
}

fn yes(b: bool) -> u8 {
    u8::from(b)
}

/// One kernel: its descriptor's summary, every field of the descriptor, and the
/// metadata.
fn kernel(o: &mut String, k: &Kernel) {
    let d = &k.descriptor;
    let _ = writeln!(o, "\nkernel {}", k.name);
    kernel_summary(o, k);
    let _ = writeln!(o, "  descriptor fields:");
    descriptor_fields(o, d);
    rsrc1_fields(o, &d.compute_pgm_rsrc1);
    rsrc2_fields(o, &d.compute_pgm_rsrc2);
    rsrc3_fields(o, &d.compute_pgm_rsrc3);
    code_properties_fields(o, d);
    match &k.metadata {
        Some(md) => metadata(o, md),
        None => {
            let _ = writeln!(o, "  no metadata");
        }
    }
}

/// A descriptor field's line: its name, then its value.
fn field(o: &mut String, name: &str, v: impl std::fmt::Display) {
    let _ = writeln!(o, "    {name:<48} {v}");
}

/// The kernel's descriptor and entry, register counts, and initial SGPRs and VGPRs.
fn kernel_summary(o: &mut String, k: &Kernel) {
    let d = &k.descriptor;
    let _ = writeln!(
        o,
        "  descriptor {} at {:#x}; entry {:#x} (kernel_code_entry_byte_offset {:+#x}){}",
        k.descriptor_symbol,
        k.descriptor_address,
        k.entry_address,
        d.kernel_code_entry_byte_offset,
        k.code_size
            .map(|s| format!(", code {s} bytes"))
            .unwrap_or_default()
    );
    let _ = writeln!(
        o,
        "  wavefront size {}, vgprs {} (granule {}), sgprs {}{}",
        d.wavefront_size(),
        d.vgpr_count(),
        d.vgpr_granule(),
        d.sgpr_count(),
        d.accum_offset()
            .map(|a| format!(", accum_offset {a}"))
            .unwrap_or_default()
    );
    let sgprs: Vec<String> = d
        .initial_sgprs()
        .iter()
        .map(|a| {
            let regs = if a.count == 1 {
                format!("s{}", a.first)
            } else {
                format!("s[{}:{}]", a.first, a.first + a.count - 1)
            };
            format!("{regs} {:?}", a.what)
        })
        .collect();
    let _ = writeln!(o, "  initial SGPRs: {}", sgprs.join(", "));
    let ids = ["X", "Y", "Z"];
    let layout = d.workitem_id_layout();
    let text = match layout {
        WorkitemIdLayout::Separate { dims } => ids
            .iter()
            .take(dims as usize)
            .enumerate()
            .map(|(i, id)| format!("v{i} WorkitemId{id}"))
            .collect::<Vec<_>>()
            .join(", "),
        WorkitemIdLayout::Packed { dims } => format!(
            "v0 WorkitemId{} packed (10 bits each from bit 0)",
            ids.iter().take(dims as usize).copied().collect::<String>()
        ),
    };
    let _ = writeln!(o, "  initial VGPRs: {text}");
}

/// The descriptor's segment sizes, entry offset and nonzero reserved bytes.
fn descriptor_fields(o: &mut String, d: &KernelDescriptor) {
    field(o, "group_segment_fixed_size", d.group_segment_fixed_size);
    field(
        o,
        "private_segment_fixed_size",
        d.private_segment_fixed_size,
    );
    field(o, "kernarg_size", d.kernarg_size);
    field(
        o,
        "kernel_code_entry_byte_offset",
        d.kernel_code_entry_byte_offset,
    );
    if d.reserved0 != [0; 4] || d.reserved1 != [0; 20] || d.reserved3 != [0; 4] {
        field(
            o,
            "reserved bytes (nonzero!)",
            format!(
                "{:02x?} {:02x?} {:02x?}",
                d.reserved0, d.reserved1, d.reserved3
            ),
        );
    }
}

/// COMPUTE_PGM_RSRC1, field by field.
fn rsrc1_fields(o: &mut String, r1: &ComputePgmRsrc1) {
    field(o, "compute_pgm_rsrc1", format!("{:#010x}", r1.to_bits()));
    field(
        o,
        "  granulated_workitem_vgpr_count",
        r1.granulated_workitem_vgpr_count,
    );
    field(
        o,
        "  granulated_wavefront_sgpr_count",
        r1.granulated_wavefront_sgpr_count,
    );
    field(o, "  priority", r1.priority);
    field(o, "  float_round_mode_32", r1.float_round_mode_32);
    field(o, "  float_round_mode_16_64", r1.float_round_mode_16_64);
    field(o, "  float_denorm_mode_32", r1.float_denorm_mode_32);
    field(o, "  float_denorm_mode_16_64", r1.float_denorm_mode_16_64);
    field(o, "  priv", yes(r1.priv_));
    field(o, "  enable_dx10_clamp", yes(r1.enable_dx10_clamp));
    field(o, "  debug_mode", yes(r1.debug_mode));
    field(o, "  enable_ieee_mode", yes(r1.enable_ieee_mode));
    field(o, "  bulky", yes(r1.bulky));
    field(o, "  cdbg_user", yes(r1.cdbg_user));
    field(o, "  fp16_ovfl", yes(r1.fp16_ovfl));
    field(o, "  reserved (bits 28:27)", r1.reserved);
    field(o, "  wgp_mode", yes(r1.wgp_mode));
    field(o, "  mem_ordered", yes(r1.mem_ordered));
    field(o, "  fwd_progress", yes(r1.fwd_progress));
}

/// COMPUTE_PGM_RSRC2, field by field.
fn rsrc2_fields(o: &mut String, r2: &ComputePgmRsrc2) {
    field(o, "compute_pgm_rsrc2", format!("{:#010x}", r2.to_bits()));
    field(
        o,
        "  enable_private_segment",
        yes(r2.enable_private_segment),
    );
    field(o, "  user_sgpr_count", r2.user_sgpr_count);
    field(o, "  enable_trap_handler", yes(r2.enable_trap_handler));
    field(
        o,
        "  enable_sgpr_workgroup_id_x",
        yes(r2.enable_sgpr_workgroup_id_x),
    );
    field(
        o,
        "  enable_sgpr_workgroup_id_y",
        yes(r2.enable_sgpr_workgroup_id_y),
    );
    field(
        o,
        "  enable_sgpr_workgroup_id_z",
        yes(r2.enable_sgpr_workgroup_id_z),
    );
    field(
        o,
        "  enable_sgpr_workgroup_info",
        yes(r2.enable_sgpr_workgroup_info),
    );
    field(o, "  enable_vgpr_workitem_id", r2.enable_vgpr_workitem_id);
    field(
        o,
        "  enable_exception_address_watch",
        yes(r2.enable_exception_address_watch),
    );
    field(
        o,
        "  enable_exception_memory",
        yes(r2.enable_exception_memory),
    );
    field(o, "  granulated_lds_size", r2.granulated_lds_size);
    field(
        o,
        "  enable_exception_ieee_754_fp_invalid_operation",
        yes(r2.enable_exception_ieee_754_fp_invalid_operation),
    );
    field(
        o,
        "  enable_exception_fp_denormal_source",
        yes(r2.enable_exception_fp_denormal_source),
    );
    field(
        o,
        "  enable_exception_ieee_754_fp_division_by_zero",
        yes(r2.enable_exception_ieee_754_fp_division_by_zero),
    );
    field(
        o,
        "  enable_exception_ieee_754_fp_overflow",
        yes(r2.enable_exception_ieee_754_fp_overflow),
    );
    field(
        o,
        "  enable_exception_ieee_754_fp_underflow",
        yes(r2.enable_exception_ieee_754_fp_underflow),
    );
    field(
        o,
        "  enable_exception_ieee_754_fp_inexact",
        yes(r2.enable_exception_ieee_754_fp_inexact),
    );
    field(
        o,
        "  enable_exception_int_divide_by_zero",
        yes(r2.enable_exception_int_divide_by_zero),
    );
    field(o, "  reserved (bit 31)", yes(r2.reserved));
}

/// COMPUTE_PGM_RSRC3 (its layout depends on the processor), field by field.
fn rsrc3_fields(o: &mut String, r3: &ComputePgmRsrc3) {
    field(o, "compute_pgm_rsrc3", format!("{:#010x}", r3.to_bits()));
    match *r3 {
        ComputePgmRsrc3::Gfx9 { reserved } => field(o, "  reserved", reserved),
        ComputePgmRsrc3::Gfx90a {
            accum_offset,
            reserved0,
            tg_split,
            reserved1,
        } => {
            field(o, "  accum_offset", accum_offset);
            field(o, "  reserved (bits 15:6)", reserved0);
            field(o, "  tg_split", yes(tg_split));
            field(o, "  reserved (bits 31:17)", reserved1);
        }
        ComputePgmRsrc3::Gfx10 {
            shared_vgpr_count,
            reserved,
        } => {
            field(o, "  shared_vgpr_count", shared_vgpr_count);
            field(o, "  reserved (bits 31:4)", reserved);
        }
    }
}

/// The kernel code properties and the kernel argument preload, field by field.
fn code_properties_fields(o: &mut String, d: &KernelDescriptor) {
    let p = &d.kernel_code_properties;
    field(o, "kernel_code_properties", format!("{:#06x}", p.to_bits()));
    field(
        o,
        "  enable_sgpr_private_segment_buffer",
        yes(p.enable_sgpr_private_segment_buffer),
    );
    field(
        o,
        "  enable_sgpr_dispatch_ptr",
        yes(p.enable_sgpr_dispatch_ptr),
    );
    field(o, "  enable_sgpr_queue_ptr", yes(p.enable_sgpr_queue_ptr));
    field(
        o,
        "  enable_sgpr_kernarg_segment_ptr",
        yes(p.enable_sgpr_kernarg_segment_ptr),
    );
    field(
        o,
        "  enable_sgpr_dispatch_id",
        yes(p.enable_sgpr_dispatch_id),
    );
    field(
        o,
        "  enable_sgpr_flat_scratch_init",
        yes(p.enable_sgpr_flat_scratch_init),
    );
    field(
        o,
        "  enable_sgpr_private_segment_size",
        yes(p.enable_sgpr_private_segment_size),
    );
    field(o, "  reserved (bits 9:7)", p.reserved0);
    field(
        o,
        "  enable_wavefront_size32",
        yes(p.enable_wavefront_size32),
    );
    field(o, "  uses_dynamic_stack", yes(p.uses_dynamic_stack));
    field(o, "  reserved (bits 15:12)", p.reserved1);
    field(
        o,
        "kernarg_preload",
        format!("{:#06x}", d.kernarg_preload.to_bits()),
    );
    field(o, "  length", d.kernarg_preload.length);
    field(o, "  offset", d.kernarg_preload.offset);
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map(T::to_string)
        .unwrap_or_else(|| "-".to_string())
}

fn value(v: &rmpv::Value) -> String {
    v.to_string()
}

fn metadata(o: &mut String, md: &KernelMetadata) {
    let _ = writeln!(o, "  metadata:");
    let mut f = |name: &str, v: String| {
        let _ = writeln!(o, "    {name:<30} {v}");
    };
    f(".symbol", md.symbol.clone());
    f(
        ".group_segment_fixed_size",
        opt(&md.group_segment_fixed_size),
    );
    f(
        ".private_segment_fixed_size",
        opt(&md.private_segment_fixed_size),
    );
    f(".kernarg_segment_size", opt(&md.kernarg_segment_size));
    f(".kernarg_segment_align", opt(&md.kernarg_segment_align));
    f(".wavefront_size", opt(&md.wavefront_size));
    f(".sgpr_count", opt(&md.sgpr_count));
    f(".vgpr_count", opt(&md.vgpr_count));
    f(".agpr_count", opt(&md.agpr_count));
    f(".max_flat_workgroup_size", opt(&md.max_flat_workgroup_size));
    f(".sgpr_spill_count", opt(&md.sgpr_spill_count));
    f(".vgpr_spill_count", opt(&md.vgpr_spill_count));
    f(".uses_dynamic_stack", opt(&md.uses_dynamic_stack));
    f(".language", opt(&md.language));
    if let Some([x, y, z]) = md.reqd_workgroup_size {
        f(".reqd_workgroup_size", format!("{x} {y} {z}"));
    }
    for (k, v) in &md.other {
        f(k, value(v));
    }
    let _ = writeln!(o, "  arguments: {}", md.args.len());
    for (i, a) in md.args.iter().enumerate() {
        let mut line = format!(
            "    [{i}] offset {:>3} size {:>2} {}",
            a.offset, a.size, a.value_kind
        );
        if let Some(s) = &a.address_space {
            let _ = write!(line, " {s}");
        }
        if let Some(t) = &a.type_name {
            let _ = write!(line, " type `{t}`");
        }
        if let Some(n) = &a.name {
            let _ = write!(line, " name `{n}`");
        }
        if let Some(al) = a.pointee_align {
            let _ = write!(line, " pointee_align {al}");
        }
        if let Some(acc) = &a.access {
            let _ = write!(line, " access {acc}");
        }
        if let Some(acc) = &a.actual_access {
            let _ = write!(line, " actual_access {acc}");
        }
        for (flag, on) in [
            ("const", a.is_const),
            ("restrict", a.is_restrict),
            ("volatile", a.is_volatile),
            ("pipe", a.is_pipe),
        ] {
            if on {
                let _ = write!(line, " {flag}");
            }
        }
        for (k, v) in &a.other {
            let _ = write!(line, " {k}={}", value(v));
        }
        let _ = writeln!(o, "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(file: &str, kernel: Option<&str>) -> String {
        let a = InfoArgs {
            file: file.to_string(),
            kernel: kernel.map(str::to_string),
        };
        match run(a) {
            Err(crate::Failure::Failed(m)) => m,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn bad_files_are_errors() {
        let missing = message("/nonexistent/x.co", None);
        assert!(missing.starts_with("/nonexistent/x.co: "), "{missing}");
        // Not a code object: the loader's typed error reaches the message.
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let err = message(manifest, None);
        assert!(err.contains("not an ELF file"), "{err}");
        let co = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../kernels/bin/gfx900/vector_add.co"
        );
        let err = message(co, Some("nope"));
        assert!(err.contains("kernels: vector_add"), "{err}");
        // Not a regular file: refused without reading.
        let err = message("/dev/zero", None);
        assert!(err.contains("not a regular file"), "{err}");
    }

    /// Renders every committed code object and checks that the report names
    /// the target id, every kernel with its descriptor values and every
    /// argument.
    #[test]
    fn renders_committed_kernels() {
        // AMDSIM_KERNELS_DIR may name another corpus root with the same layout.
        let root = match std::env::var_os("AMDSIM_KERNELS_DIR") {
            Some(d) => std::path::PathBuf::from(d).join("bin"),
            None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels/bin"),
        };
        let mut files = Vec::new();
        for dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if f.path().extension().is_some_and(|e| e == "co") {
                    files.push(f.path());
                }
            }
        }
        assert!(
            !files.is_empty(),
            "no code objects under {}: build them with kernels/build.sh",
            root.display()
        );
        for path in files {
            let bytes = std::fs::read(&path).unwrap();
            let co = CodeObject::parse(&bytes).unwrap();
            let text = render("x.co", &co, None);
            assert!(
                text.contains(&format!("target: {}", co.target().target_id())),
                "{}",
                path.display()
            );
            for k in co.kernels() {
                assert!(text.contains(&format!("\nkernel {}\n", k.name)));
                assert!(text.contains(&format!(
                    "kernarg_size{}{}",
                    " ".repeat(48 - "kernarg_size".len() + 1),
                    k.descriptor.kernarg_size
                )));
                if let Some(md) = &k.metadata {
                    assert!(text.contains(&format!("  arguments: {}\n", md.args.len())));
                    for (i, a) in md.args.iter().enumerate() {
                        assert!(text.contains(&format!(
                            "    [{i}] offset {:>3} size {:>2} {}",
                            a.offset, a.size, a.value_kind
                        )));
                    }
                }
            }
            let only = co.kernels().first().map(|k| k.name.clone());
            if let Some(name) = only {
                let one = render("x.co", &co, Some(&name));
                assert_eq!(one.matches("\nkernel ").count(), 1);
            }
        }
    }
}

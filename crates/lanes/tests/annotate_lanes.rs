//! Lane positions written as DWARF by `annotate` and read back through `lane_pc` agree
//! with the reconstruction, at every instruction of every wave of work-group 0 of every
//! committed kernel (optimised, `-O2 -g` and `-O0 -g` builds, every target), in both
//! encodings: the element of every lane (its PC for active and divergent lanes,
//! undefined for lanes that finished or were not entered), and the active mask
//! (DW_AT_LLVM_active_lane where the reconstruction's conceptual mask is not EXEC).
//!
//! Where the reconstruction cannot classify a PC, the annotation writes no entry; where a
//! mask lives in VCC (no DWARF register number), neither: both are counted apart.
//!
//! A second test runs `llvm-dwarfdump-19 --verify` on annotated code objects when the
//! tool is installed: no error but those about the vendor operations it cannot decode.

use amdgpu_codeobj::{CodeObject, ValueKind};
use amdgpu_lanes::annotate::{
    AnnotateOptions, AnnotateReport, LaneEncoding, SkipReason, annotate_with_report,
};
use amdgpu_lanes::lane_pc::{LanePcIndex, MaskSource, Positions, UnwindEnd};
use amdgpu_lanes::regions::{ActiveMask, LaneModel};
use amdgpu_lanes::service::{LaneService, LaneState, work_items};
use amdgpu_sim::debug::{Session, Stop};
use amdgpu_sim::{ArgValue, Device, LaunchConfig, WaveStatus};
use amdsim_sim_tests::{ScratchDir, TARGETS, read_kernel};

/// The committed OpenCL kernels a 1-D launch with buffers and counts can run (those of
/// the reconstruction test).
const KERNELS: [&str; 23] = [
    "divergence",
    "private_array",
    "reduce_sum",
    "atomics",
    "bitops64",
    "int_sat",
    "vector_add",
    "saxpy",
    "cf_call",
    "cf_do_while",
    "cf_early_return",
    "cf_else_if",
    "cf_if",
    "cf_if_else",
    "cf_loop_break",
    "cf_loop_call",
    "cf_loop_if",
    "cf_nested_if",
    "cf_nested_loops",
    "cf_switch",
    "cf_ternary",
    "cf_uniform",
    "cf_while",
];

#[derive(Default, Debug, Clone, Copy)]
struct Figures {
    steps: u64,
    lanes: u64,
    divergent: u64,
    active_attr: u64,
    unknown: u64,
    vcc: u64,
    /// Lanes placed from a caller's frame (through the CFI).
    caller: u64,
}

impl std::ops::AddAssign for Figures {
    fn add_assign(&mut self, o: Self) {
        self.steps += o.steps;
        self.lanes += o.lanes;
        self.divergent += o.divergent;
        self.active_attr += o.active_attr;
        self.unknown += o.unknown;
        self.vcc += o.vcc;
        self.caller += o.caller;
    }
}

/// The launch of the reconstruction test: a grid of 160 work-items in groups of 64,
/// pseudo-random bytes in every buffer, the first count small and the others near the
/// grid size. `None` for a kernel this launcher cannot feed.
fn launch(dev: &Device, bytes: &[u8]) -> Result<Option<(amdgpu_sim::Launch, u64)>, String> {
    let co = CodeObject::parse(bytes).map_err(|e| e.to_string())?;
    let Some(kmeta) = co.kernels().first().cloned() else {
        return Ok(None);
    };
    let Some(md) = kmeta.metadata.clone() else {
        return Ok(None);
    };
    let m = dev.load(bytes).map_err(|e| e.to_string())?;
    let (group, grid) = (64u32, 160u32);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut args = Vec::new();
    for a in md.explicit_args() {
        match a.value_kind {
            ValueKind::GlobalBuffer => {
                let data: Vec<u8> = (0..grid as usize * 64)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed >> 24) as u8 & 0x3f
                    })
                    .collect();
                args.push(ArgValue::Ptr(
                    dev.alloc_bytes(&data).map_err(|e| e.to_string())?,
                ));
            }
            ValueKind::ByValue if a.size == 4 => {
                let first = !args.iter().any(|x| matches!(x, ArgValue::U32(_)));
                args.push(ArgValue::U32(if first { 37 } else { grid - 7 }));
            }
            ValueKind::ByValue if a.size == 8 => args.push(ArgValue::U64(grid as u64 - 7)),
            _ => return Ok(None),
        }
    }
    let cfg = LaunchConfig::new_1d(grid, group, args);
    let l = dev
        .launch(&m, &kmeta.name, cfg)
        .map_err(|e| e.to_string())?;
    Ok(Some((l, m.load_bias)))
}

/// Annotates `file`, runs work-group 0 instruction by instruction and compares, before
/// every instruction of every wave, the lanes read from the annotated DWARF with the
/// reconstruction's.
fn check(target: &str, file: &str, encoding: LaneEncoding) -> Result<Figures, String> {
    let original = read_kernel(target, file)?;
    let (bytes, report) = annotate_with_report(
        &original,
        &AnnotateOptions {
            encoding,
            ..AnnotateOptions::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let co = CodeObject::parse(&bytes).map_err(|e| e.to_string())?;
    let index = LanePcIndex::new(&co, &Default::default()).map_err(|e| e.to_string())?;
    let service = LaneService::new(&co, None).map_err(|e| e.to_string())?;
    let dev = Device::new();
    let Some((l, bias)) = launch(&dev, &bytes)? else {
        return Ok(Figures::default());
    };
    let entry = co.kernels().first().ok_or("no kernel")?.entry_address + bias;
    let mut session = Session::new(&dev, l);
    let mut fig = Figures::default();
    // Stop wave 0 of work-group 0 at the kernel's entry, so that every instruction is
    // checked; then every wave runs until it ends or waits at a barrier, in wave order,
    // until the group is done.
    session.add_breakpoint(entry);
    match session.resume().map_err(|e| e.to_string())? {
        Stop::Breakpoint {
            group: [0, 0, 0], ..
        } => {}
        other => return Err(format!("expected to stop at the entry, {other:?}")),
    }
    session.remove_breakpoint(entry);
    let in_group = |s: &Session<'_>| s.group().is_some_and(|g| g.id == [0, 0, 0]);
    while in_group(&session) {
        let nw = session.group().map_or(0, |g| g.waves.len() as u32);
        let mut progressed = false;
        for w in 0..nw {
            while in_group(&session)
                && session
                    .wave(w)
                    .is_some_and(|x| x.status == WaveStatus::Running)
            {
                compare(&session, &dev, &index, &service, &report, w, bias, &mut fig)
                    .map_err(|e| format!("wave {w}: {e}"))?;
                match session.step(w).map_err(|e| e.to_string())? {
                    Stop::Stepped { .. } => {
                        fig.steps += 1;
                        progressed = true;
                    }
                    _ => break,
                }
            }
        }
        if in_group(&session) && !progressed {
            // Every unfinished wave waits at the barrier: open it, as the scheduler does
            // (`Workgroup::release_barrier`), before the next round.
            let mut opened = false;
            for w in 0..nw {
                if let Some(wave) = session.wave_mut(w)
                    && wave.status == WaveStatus::Barrier
                {
                    wave.status = WaveStatus::Running;
                    opened = true;
                }
            }
            if !opened {
                return Err("no wave can run (deadlock)".into());
            }
        }
    }
    Ok(fig)
}

#[allow(clippy::too_many_arguments)]
fn compare(
    session: &Session<'_>,
    dev: &Device,
    index: &LanePcIndex<'_>,
    service: &LaneService<'_, '_>,
    report: &AnnotateReport,
    w: u32,
    bias: u64,
    fig: &mut Figures,
) -> Result<(), String> {
    let wave = session.wave(w).ok_or("no wave")?;
    let pc = wave.pc - bias;
    let unwound = index
        .wave_unwound(session, dev, w, bias)
        .map_err(|e| format!("at {pc:#x}: {e}"))?;
    let dw = &unwound.innermost;
    let items = work_items(session.launch(), [0, 0, 0], w);
    let rec = service.wave_lanes(wave, bias, items);
    let model = service.function_at(pc).and_then(|f| f.at(pc));
    if let Some(s) = report.skipped_at(pc) {
        if !matches!(dw.positions, Positions::NotAtPc | Positions::NoAttribute) {
            return Err(format!(
                "at {pc:#x}: a range without an entry ({:?}) has positions",
                s.reason
            ));
        }
        match s.reason {
            SkipReason::Unknown(_) => {
                fig.unknown += 1;
                if !rec
                    .lanes
                    .iter()
                    .any(|l| matches!(l.state, LaneState::Unknown(_)))
                    && rec.active != wave.exec.0 & wave.full_mask()
                {
                    return Err(format!("at {pc:#x}: unknown, yet classified"));
                }
            }
            SkipReason::NoDwarfLocation(_) => fig.vcc += 1,
        }
        return Ok(());
    }
    let Some(LaneModel::Known { active, .. }) = model else {
        return Err(format!("at {pc:#x}: an entry where the model is {model:?}"));
    };
    let Positions::Lanes(pos) = &dw.positions else {
        return Err(format!("at {pc:#x}: no positions ({:?})", dw.positions));
    };
    if dw.active != rec.active {
        return Err(format!(
            "at {pc:#x}: active mask {:#x} from DWARF, {:#x} reconstructed",
            dw.active, rec.active
        ));
    }
    let attr = dw.active_source == MaskSource::Attribute;
    if attr != (*active != ActiveMask::Exec) {
        return Err(format!(
            "at {pc:#x}: active mask from {:?}, model {active:?}",
            dw.active_source
        ));
    }
    fig.active_attr += u64::from(attr);
    for l in &rec.lanes {
        // Lanes undefined in this frame are looked up in the callers' frames through the
        // CFI the annotation writes: the result is the frame's element, and the lanes
        // undefined in every frame are those that finished (the walk ended at the kernel),
        // were not entered, or have no work-item.
        let want = match l.state {
            LaneState::Active | LaneState::Divergent => l.pc,
            LaneState::Finished if unwound.end != UnwindEnd::Outermost => {
                return Err(format!(
                    "at {pc:#x}: lane {} finished, but the walk ended {:?}",
                    l.lane, unwound.end
                ));
            }
            LaneState::Finished | LaneState::NotEntered | LaneState::Outside => None,
            LaneState::Unknown(ref why) => return Err(format!("at {pc:#x}: unknown: {why}")),
        };
        let at = unwound.lanes.get(l.lane as usize).copied().flatten();
        let got = at.map(|(_, p)| p);
        if got != want {
            return Err(format!(
                "at {pc:#x}: lane {} is {:?} ({:?}) reconstructed, {:?} from DWARF (walk: {:?})",
                l.lane,
                want.map(|p| format!("{p:#x}")),
                l.state,
                at.map(|(f, p)| format!("frame {f} {p:#x}")),
                unwound.end
            ));
        }
        if let Some((f, _)) = at {
            let inner = pos.get(l.lane as usize).copied().flatten();
            if (f == 0) != inner.is_some() {
                return Err(format!(
                    "at {pc:#x}: lane {} frame {f} vs {inner:?}",
                    l.lane
                ));
            }
            fig.caller += u64::from(f > 0);
        }
        fig.lanes += 1;
        fig.divergent += u64::from(l.state == LaneState::Divergent);
    }
    Ok(())
}

/// The kernels whose `-O0 -g` builds `cargo test` checks on its sample targets, one of
/// each kind (divergent branches, loops, calls, an early return, a switch, private
/// memory, LDS and barriers, atomics, 64-bit values); the sweeps check the others there
/// (the `-O0 -g` builds take most of the time).
const O0G_SAMPLE: [&str; 10] = [
    "divergence",
    "private_array",
    "reduce_sum",
    "atomics",
    "bitops64",
    "cf_call",
    "cf_early_return",
    "cf_loop_break",
    "cf_nested_if",
    "cf_switch",
];

/// [`KERNELS`] without [`O0G_SAMPLE`].
fn o0g_rest() -> Vec<&'static str> {
    KERNELS
        .into_iter()
        .filter(|k| !O0G_SAMPLE.contains(k))
        .collect()
}

fn run(encoding: LaneEncoding, builds: &[&str], targets: &[&str], kernels: &[&str]) {
    let only = std::env::var("ONLY").unwrap_or_default();
    let mut failures = Vec::new();
    for build in builds {
        let mut total = Figures::default();
        for &t in targets {
            for k in kernels {
                let file = format!("{k}.{build}");
                if !only.is_empty() && !format!("{t}/{file}").contains(&only) {
                    continue;
                }
                match check(t, &file, encoding) {
                    Ok(f) => total += f,
                    Err(e) => failures.push(format!("{t}/{file}: {e}")),
                }
            }
        }
        println!(
            "{encoding:?} *.{build}: {} wave instructions, {} lane positions compared \
             ({} divergent, {} from a caller's frame), {} steps with DW_AT_LLVM_active_lane, \
             {} steps unknown, {} steps with a mask in VCC",
            total.steps,
            total.lanes,
            total.divergent,
            total.caller,
            total.active_attr,
            total.unknown,
            total.vcc
        );
        if only.is_empty() {
            assert!(total.lanes > 1000, "too few lanes compared for {build}");
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The caller-frame walk needs the CFI the annotation writes: stopped at the entry of
/// `classify` (cf_call, -O2 -g, gfx900), the lanes that did not call it are found in
/// `cf_call`'s frame; with clang-19's own `.debug_frame` (FDEs without rules) in place of
/// the annotation's, the walk stops with a reason and those lanes stay unplaced, while
/// the lanes of the frame itself are the same.
#[test]
fn the_caller_walk_uses_the_annotated_cfi_and_says_why_it_stops() {
    let original = read_kernel("gfx900", "cf_call.O2g.co").unwrap();
    let bytes = amdgpu_lanes::annotate::annotate(&original, &AnnotateOptions::default()).unwrap();
    let co = CodeObject::parse(&bytes).unwrap();
    let orig_co = CodeObject::parse(&original).unwrap();
    let with_cfi = LanePcIndex::new(&co, &Default::default()).unwrap();
    let without_cfi = LanePcIndex::from_sections(
        |name| {
            if name == ".debug_frame" {
                orig_co.section_data(name)
            } else {
                co.section_data(name)
            }
        },
        &Default::default(),
    )
    .unwrap();
    let classify = co
        .symbols()
        .iter()
        .find(|s| s.name == "classify")
        .expect("classify")
        .address;
    let dev = Device::new();
    let (l, bias) = launch(&dev, &bytes).unwrap().expect("launches");
    let mut session = Session::new(&dev, l);
    session.add_breakpoint(classify + bias);
    let wave = match session.resume().unwrap() {
        Stop::Breakpoint { wave, .. } => wave,
        other => panic!("expected to stop in classify, {other:?}"),
    };
    let full = with_cfi.wave_unwound(&session, &dev, wave, bias).unwrap();
    let bare = without_cfi
        .wave_unwound(&session, &dev, wave, bias)
        .unwrap();
    let in_caller = full.lanes.iter().flatten().filter(|(f, _)| *f == 1).count();
    assert!(in_caller > 0, "no lane found in the caller: {full:?}");
    assert_eq!(full.frames.len(), 2, "{:?}", full.frames);
    assert_eq!(full.frames[1].function.as_deref(), Some("cf_call"));
    assert!(
        matches!(&bare.end, UnwindEnd::Stopped(why) if why.contains("CFA") || why.contains("call frame")),
        "{:?}",
        bare.end
    );
    for (a, b) in full.lanes.iter().zip(&bare.lanes) {
        match a {
            Some((0, _)) => assert_eq!(a, b),
            _ => assert_eq!(*b, None),
        }
    }
}

/// Every build of one wave64 target, the `-O0 -g` ones of the kernels of [`O0G_SAMPLE`]
/// (the others, and every other target, in `..._on_every_target`, which `.ci/run` runs).
#[test]
fn annotated_lane_positions_agree_with_the_reconstruction() {
    let current = LaneEncoding::Current;
    run(current, &["co", "O2g.co"], &["gfx900"], &KERNELS);
    run(current, &["O0g.co"], &["gfx900"], &O0G_SAMPLE);
}

#[test]
#[ignore = "the full sweep (about two minutes): run by .ci/run with --ignored"]
fn annotated_lane_positions_agree_with_the_reconstruction_on_every_target() {
    let current = LaneEncoding::Current;
    let rest: Vec<&str> = TARGETS.iter().copied().filter(|t| *t != "gfx900").collect();
    run(current, &["co", "O2g.co", "O0g.co"], &rest, &KERNELS);
    run(current, &["O0g.co"], &["gfx900"], &o0g_rest());
}

/// The optimised builds of a wave32 target and the -O0 builds (spills to VGPR lanes
/// and scratch, whole-wave regions) of another, in ROCgdb's encoding (of the kernels of
/// [`O0G_SAMPLE`]; the others in `..._on_every_target`).
#[test]
fn annotated_lane_positions_agree_in_the_rocgdb_encoding() {
    run(
        LaneEncoding::Rocgdb,
        &["co", "O2g.co"],
        &["gfx1030"],
        &KERNELS,
    );
    run(LaneEncoding::Rocgdb, &["O0g.co"], &["gfx1010"], &O0G_SAMPLE);
}

#[test]
#[ignore = "the full sweep: run by .ci/run with --ignored"]
fn annotated_lane_positions_agree_in_the_rocgdb_encoding_on_every_target() {
    let rest: Vec<&str> = TARGETS
        .iter()
        .copied()
        .filter(|t| *t != "gfx1030")
        .collect();
    let rocgdb = LaneEncoding::Rocgdb;
    run(rocgdb, &["co", "O2g.co"], &rest, &KERNELS);
    run(rocgdb, &["O0g.co"], &["gfx900", "gfx1030"], &KERNELS);
    run(rocgdb, &["O0g.co"], &["gfx1010"], &o0g_rest());
}

/// The errors `llvm-dwarfdump-19 --verify` reports for expressions it cannot decode (the
/// DW_OP_LLVM_* operations: LLVM 19 prints them as `<decoding error>`), which are not
/// structural errors.
fn vendor_op_complaint(line: &str) -> bool {
    line.contains("DIE contains invalid DWARF expression")
        || line.contains("Invalid DWARF expressions occurred")
        || line.contains("Aggregated error counts")
}

#[test]
fn annotated_code_objects_pass_dwarfdump_verify() {
    let tool = "llvm-dwarfdump-19";
    let present = std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        assert!(
            std::env::var_os("AMDSIM_REQUIRE_DWARFDUMP").is_none(),
            "{tool} is required (AMDSIM_REQUIRE_DWARFDUMP is set) but not installed"
        );
        println!("{tool} is not installed: skipped");
        return;
    }
    let dir = ScratchDir::new("amdsim-annotate-verify-");
    let mut checked = 0;
    let mut failures = Vec::new();
    for t in ["gfx900", "gfx90a", "gfx1030", "gfx1010-w64"] {
        for k in [
            "cf_nested_if",
            "cf_loop_call",
            "cf_early_return",
            "private_array",
        ] {
            for build in ["co", "O2g.co", "O0g.co"] {
                for encoding in [LaneEncoding::Current, LaneEncoding::Rocgdb] {
                    let file = format!("{k}.{build}");
                    let original = read_kernel(t, &file).expect("kernel");
                    let out = annotate_with_report(
                        &original,
                        &AnnotateOptions {
                            encoding,
                            ..AnnotateOptions::default()
                        },
                    )
                    .expect("annotates")
                    .0;
                    let path = dir.join(format!("{t}-{file}-{encoding:?}.co"));
                    std::fs::write(&path, &out).expect("writes");
                    let o = std::process::Command::new(tool)
                        .arg("--verify")
                        .arg(&path)
                        .output()
                        .expect("runs");
                    let text = String::from_utf8_lossy(&o.stdout).into_owned()
                        + &String::from_utf8_lossy(&o.stderr);
                    let bad: Vec<&str> = text
                        .lines()
                        .filter(|l| l.starts_with("error:") || l.starts_with("warning:"))
                        .filter(|l| !vendor_op_complaint(l))
                        .collect();
                    if !bad.is_empty() {
                        failures.push(format!("{t}/{file} {encoding:?}: {}", bad.join("; ")));
                    }
                    checked += 1;
                }
            }
        }
    }
    println!("{checked} annotated code objects verified");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Every byte a program header loads is where it was, and the program headers are too.
#[test]
fn annotation_leaves_every_loaded_byte_in_place() {
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as usize;
    let u64_at = |b: &[u8], o: usize| {
        let mut x = [0u8; 8];
        x.copy_from_slice(&b[o..o + 8]);
        u64::from_le_bytes(x) as usize
    };
    for t in ["gfx900", "gfx1030"] {
        for file in [
            "cf_if.co",
            "cf_if.O2g.co",
            "cf_call.O0g.co",
            "vector_add.cov4.co",
        ] {
            let original = read_kernel(t, file).expect("kernel");
            let out = annotate_with_report(&original, &AnnotateOptions::default())
                .expect("annotates")
                .0;
            let (phoff, phnum) = (u64_at(&original, 0x20), u16_at(&original, 0x38));
            assert!(
                original[phoff..phoff + phnum * 56] == out[phoff..phoff + phnum * 56],
                "{t}/{file}: program headers changed"
            );
            // The result is a code object again, and annotating it again is refused
            // cleanly (gimli cannot convert the lane attributes it carries).
            assert!(CodeObject::parse(&out).is_ok(), "{t}/{file}");
            assert!(annotate_with_report(&out, &AnnotateOptions::default()).is_err());
            // The ELF header's e_shoff and e_shnum (in the first segment, unused when
            // loading) are the only bytes that may change.
            let mut out = out;
            out[0x28..0x30].copy_from_slice(&original[0x28..0x30]);
            out[0x3c..0x3e].copy_from_slice(&original[0x3c..0x3e]);
            for i in 0..phnum {
                let ph = phoff + i * 56;
                let (off, size) = (u64_at(&original, ph + 8), u64_at(&original, ph + 32));
                assert!(
                    original[off..off + size] == out[off..off + size],
                    "{t}/{file}: segment {i} changed"
                );
            }
        }
    }
}

/// Malformed input is an error, never a panic.
#[test]
fn malformed_code_objects_are_errors() {
    let original = read_kernel("gfx900", "cf_if.O2g.co").expect("kernel");
    assert!(annotate_with_report(&[], &AnnotateOptions::default()).is_err());
    for cut in (0..original.len()).step_by(97) {
        let _ = annotate_with_report(&original[..cut], &AnnotateOptions::default());
    }
    // Section header table moved beyond the end; section names out of range.
    let mut bad = original.clone();
    bad[0x28..0x30].copy_from_slice(&(original.len() as u64).to_le_bytes());
    assert!(annotate_with_report(&bad, &AnnotateOptions::default()).is_err());
    // Corrupt the DWARF: garbage in .debug_info keeps the ELF valid.
    let co = CodeObject::parse(&original).expect("parses");
    let info = co.section_data(".debug_info").expect("has DWARF");
    let at = info.as_ptr() as usize - original.as_ptr() as usize;
    let mut bad = original.clone();
    for b in &mut bad[at + 4..at + info.len()] {
        *b = 0xff;
    }
    assert!(annotate_with_report(&bad, &AnnotateOptions::default()).is_err());
}

//! Instruction-set coverage: for a GPU, every operation its decoder can
//! produce, and whether the executor executes it.
//!
//! The operations come from the decoder's own opcode tables
//! ([`amdgpu_isa::alu::table_operations`], [`amdgpu_isa::mem::table_operations`]),
//! so only what that GPU's decoder can produce is listed. Whether an operation
//! executes comes from the executor's own operation tables (the lookup that
//! [`crate::exec::step`] does for every instruction): an operation they map to
//! a handler is [`Status::Executed`]; any other yields
//! [`SimError::Unimplemented`](crate::SimError::Unimplemented) when it runs.
//! Those are split by [`Status::Graphics`] (image sampling, export,
//! interpolation: graphics-pipeline work a compute simulator has no use for)
//! and [`Status::NotImplemented`] (compute operations the simulator could
//! execute but does not, each with its reason).
//!
//! An executed operation can still be refused for particular operands or
//! modifiers ([`SimError::Unsupported`](crate::SimError::Unsupported)); this
//! report is about operations. The set of operations does not depend on the
//! wave size (it changes only the widths of wave-mask operands).

use crate::exec::{Kind, MemKind, tables};
use amdgpu_isa::alu::{self, AluForm, AluOp};
use amdgpu_isa::mem::{self, MemOp};
use amdgpu_isa::{Encoding, Gpu, Op};
use std::fmt;

/// Whether the simulator executes an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The executor has a handler for it.
    Executed,
    /// A graphics-only operation (image sampling, export, interpolation);
    /// the reason says which.
    Graphics(&'static str),
    /// A compute operation the simulator does not execute; the reason says
    /// why or what it would need.
    NotImplemented(&'static str),
}

impl Status {
    /// `executed`, `graphics-only` or `not implemented`.
    pub fn label(self) -> &'static str {
        match self {
            Status::Executed => "executed",
            Status::Graphics(_) => "graphics-only",
            Status::NotImplemented(_) => "not implemented",
        }
    }

    /// Why the operation is not executed (`None` when it is).
    pub fn reason(self) -> Option<&'static str> {
        match self {
            Status::Executed => None,
            Status::Graphics(r) | Status::NotImplemented(r) => Some(r),
        }
    }
}

/// One operation of a GPU's instruction set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The operation.
    pub op: Op,
    /// Its canonical mnemonic (`v_add_f32`, `global_load_dword`).
    pub name: &'static str,
    /// The encodings that carry it on this GPU (`VOP2`, `VOP3`, `SDWA`, `DPP`,
    /// `FLAT`, ...), in table order.
    pub encodings: Vec<&'static str>,
    /// Whether it executes.
    pub status: Status,
}

/// Operation counts of a [`Report`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Operations the simulator executes.
    pub executed: usize,
    /// Graphics-only operations.
    pub graphics: usize,
    /// Compute operations not executed.
    pub not_implemented: usize,
}

impl Counts {
    /// Every operation.
    pub fn total(&self) -> usize {
        self.executed + self.graphics + self.not_implemented
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} operations: {} executed, {} graphics-only, {} not implemented",
            self.total(),
            self.executed,
            self.graphics,
            self.not_implemented
        )
    }
}

/// The coverage of one GPU's instruction set.
#[derive(Clone, Debug)]
pub struct Report {
    /// The GPU.
    pub gpu: Gpu,
    /// Every operation its decoder can produce: ALU operations first, then
    /// memory, image and export operations, each group sorted by name.
    pub entries: Vec<Entry>,
}

impl Report {
    /// The coverage of `gpu`'s instruction set.
    pub fn new(gpu: Gpu) -> Report {
        let t = tables();
        let mut entries: Vec<Entry> = Vec::new();
        let mut alu_entries: Vec<Entry> = Vec::new();
        for (op, form) in alu::table_operations(gpu) {
            let enc = form.name();
            if let Some(e) = alu_entries.iter_mut().find(|e| e.op == Op::Alu(op)) {
                if !e.encodings.contains(&enc) {
                    e.encodings.push(enc);
                }
                continue;
            }
            let kind = t.alu.get(op.0 as usize).copied();
            alu_entries.push(Entry {
                op: Op::Alu(op),
                name: op.name(),
                encodings: vec![enc],
                status: alu_status(op, form, kind),
            });
        }
        alu_entries.sort_by_key(|e| e.name);
        let mut mem_entries: Vec<Entry> = mem::table_operations(gpu)
            .into_iter()
            .map(|(op, enc)| {
                let kind = t.mem.get(op.0 as usize).copied();
                Entry {
                    op: Op::Mem(op),
                    name: op.name(),
                    encodings: vec![mem_encoding_name(op, enc)],
                    status: mem_status(op, enc, kind),
                }
            })
            .collect();
        mem_entries.sort_by_key(|e| e.name);
        entries.extend(alu_entries);
        entries.extend(mem_entries);
        Report { gpu, entries }
    }

    /// The operation counts.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for e in &self.entries {
            match e.status {
                Status::Executed => c.executed += 1,
                Status::Graphics(_) => c.graphics += 1,
                Status::NotImplemented(_) => c.not_implemented += 1,
            }
        }
        c
    }

    /// The entry of the operation named `name`, if this GPU has it.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The compute operations not executed.
    pub fn not_implemented(&self) -> impl Iterator<Item = &Entry> {
        self.entries
            .iter()
            .filter(|e| matches!(e.status, Status::NotImplemented(_)))
    }
}

/// The name of a memory encoding, FLAT split by its segment as the mnemonic
/// shows it (`FLAT`, `GLOBAL`, `SCRATCH`).
fn mem_encoding_name(op: MemOp, enc: Encoding) -> &'static str {
    match enc {
        Encoding::Smem => "SMEM",
        Encoding::Ds => "DS",
        Encoding::Flat if op.name().starts_with("global_") => "GLOBAL",
        Encoding::Flat if op.name().starts_with("scratch_") => "SCRATCH",
        Encoding::Flat => "FLAT",
        Encoding::Mubuf => "MUBUF",
        Encoding::Mtbuf => "MTBUF",
        Encoding::Mimg => "MIMG",
        Encoding::Exp => "EXP",
        _ => "?",
    }
}

fn alu_status(op: AluOp, form: AluForm, kind: Option<Kind>) -> Status {
    let name = op.name();
    if form == AluForm::Vintrp || name.starts_with("v_interp_") {
        return Status::Graphics("interpolation of pixel-shader attributes");
    }
    if name == "s_endpgm_ordered_ps_done" {
        return Status::Graphics("end of a pixel shader in primitive order");
    }
    if name == "v_screen_partition_4se_b32" {
        return Status::Graphics("screen partition of primitives over shader engines");
    }
    match kind {
        Some(k) if k != Kind::Unimplemented => Status::Executed,
        _ => Status::NotImplemented(alu_reason(name)),
    }
}

fn mem_status(op: MemOp, enc: Encoding, kind: Option<MemKind>) -> Status {
    let name = op.name();
    if enc == Encoding::Exp {
        return Status::Graphics("export of shader outputs to the graphics pipeline");
    }
    if enc == Encoding::Mimg && graphics_image(name) && !point_sampled(name) {
        return Status::Graphics(
            "image sampling: texture filtering, gathers, LOD, MSAA, ray tests",
        );
    }
    match kind {
        Some(k) if k != MemKind::Unimplemented => Status::Executed,
        _ => Status::NotImplemented(mem_reason(enc)),
    }
}

/// Image operations that go through the sampler or exist for graphics only:
/// the others (`image_load*`, `image_store*`, `image_atomic_*`,
/// `image_get_resinfo`) read and write image memory by integer coordinates,
/// as OpenCL's image built-ins do.
fn graphics_image(name: &str) -> bool {
    [
        "image_sample",
        "image_gather4",
        "image_get_lod",
        "image_msaa_load",
        "image_bvh",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// The sampling operations that execute with point filtering of single-level images
/// (exec/image.rs; bilinear filtering and mip chains are reported as unsupported).
fn point_sampled(name: &str) -> bool {
    matches!(name, "image_sample" | "image_sample_lz" | "image_sample_l")
}

/// Why a compute ALU operation is not executed.
fn alu_reason(name: &str) -> &'static str {
    match name {
        "s_subvector_loop_begin" | "s_subvector_loop_end" => {
            "GFX10 wave64 sub-vector loops: no source documents how they change EXEC or where they branch (the RDNA guide says only \"Begin/End execution of a subvector block of code\"), and no compiler emits them"
        }
        _ => "not implemented",
    }
}

/// Why a compute memory operation is not executed.
fn mem_reason(enc: Encoding) -> &'static str {
    if enc == Encoding::Mimg {
        return "image operation with no handler";
    }
    "not implemented"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_lists_operations_and_known_ones() {
        for gpu in Gpu::ALL {
            let r = Report::new(gpu);
            assert!(r.entries.len() > 500, "{gpu}: {}", r.entries.len());
            let add = r.get("v_add_f32").expect("v_add_f32");
            assert_eq!(add.status, Status::Executed);
            assert!(add.encodings.contains(&"VOP2") && add.encodings.contains(&"VOP3"));
            // Point sampling executes; filtered and biased sampling is graphics-only
            // (where the target has them: CDNA's image set is smaller).
            if let Some(e) = r.get("image_sample_b") {
                assert_eq!(e.status.label(), "graphics-only", "{gpu}");
            }
            if let Some(e) = r.get("image_sample_lz") {
                assert_eq!(e.status, Status::Executed, "{gpu}");
            }
            if gpu == Gpu::Gfx900 || gpu == Gpu::Gfx1030 {
                assert!(r.get("image_sample_b").is_some() && r.get("image_sample_lz").is_some());
            }
            assert_eq!(r.counts().total(), r.entries.len());
            // Image memory by integer coordinates executes (exec/image.rs).
            for name in [
                "image_load",
                "image_load_mip",
                "image_load_pck_sgn",
                "image_store",
                "image_store_mip_pck",
                "image_atomic_cmpswap",
                "image_atomic_dec",
                "image_get_resinfo",
            ] {
                assert_eq!(
                    r.get(name).unwrap().status,
                    Status::Executed,
                    "{gpu} {name}"
                );
            }
            // Rare operations with no pseudo-code in the GFX9/GFX10 guides
            // execute (by the newer guides' pseudo-code, CLRX's, or the
            // load-to-LDS addressing mirrored), where the decoder has them.
            let gfx9 = gpu.generation() == amdgpu_isa::Gen::Gfx9;
            for (name, here) in [
                ("ds_condxchg32_rtn_b64", true),
                ("buffer_store_lds_dword", gfx9),
                ("v_exp_legacy_f32", gfx9),
                ("v_log_legacy_f32", gfx9),
                ("v_mullit_f32", !gfx9),
            ] {
                assert_eq!(
                    r.get(name).map(|e| e.status),
                    here.then_some(Status::Executed),
                    "{gpu} {name}"
                );
            }
            assert!(
                r.entries
                    .iter()
                    .filter(|e| e.encodings.contains(&"MIMG"))
                    .all(|e| e.status != Status::NotImplemented(mem_reason(Encoding::Mimg))),
                "{gpu}: every image operation executes or is graphics-only"
            );
        }
        // Only the GPUs whose decoder has them.
        assert!(
            Report::new(Gpu::Gfx900)
                .get("v_mfma_f32_4x4x1f32")
                .is_none()
        );
        assert!(
            Report::new(Gpu::Gfx908)
                .get("v_mfma_f32_4x4x1f32")
                .is_some()
        );
        assert!(Report::new(Gpu::Gfx90a).get("exp").is_none());
        assert!(Report::new(Gpu::Gfx1030).get("exp").is_some());
    }
}

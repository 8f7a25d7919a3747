//! The executor: one step of one wave over the pre-decoded program.
//!
//! Every operation identity ([`AluOp`], [`MemOp`]) is mapped once to a
//! [`Kind`] / [`MemKind`] in tables built on first use, by matching on the
//! generated identities; the step function indexes those tables and never
//! looks at strings or bytes.

mod dot;
mod fast;
mod image;
mod kinds;
mod mem;
mod mfma;
mod operand;
mod salu;
mod special_control;
mod tbuffer;
mod valu;

pub use fast::Prepared;
pub use kinds::{Cmp, CmpTy, Kind, MemKind};

use crate::error::{Location, MemFault, SimError};
use crate::memory::{Bytes, GlobalMemory};
use crate::wave::{Wave, WaveStatus};
use amdgpu_isa::alu::AluOp;
use amdgpu_isa::mem::MemOp;
use amdgpu_isa::{Encoding, Gen, Gpu, Inst, Op, Program};
use mem::smem_store;
use std::sync::OnceLock;

/// An error inside an instruction, before it is attributed to a wave and PC.
#[derive(Debug)]
pub(crate) enum E {
    /// A memory fault by a lane.
    Fault(MemFault, u32),
    /// Not implemented.
    Unimpl,
    /// An operand or field the simulator does not model.
    Unsupported(String),
    /// `s_trap` with this trap id (there is no trap handler).
    Trap(u8),
    /// `s_sethalt 1`: the wave halts.
    Halt,
    /// An illegal-instruction exception (`v_illegal`).
    Illegal,
}

impl From<MemFault> for E {
    fn from(f: MemFault) -> Self {
        E::Fault(f, 0)
    }
}

pub(crate) type R = Result<(), E>;

pub(crate) fn unsupported<T>(what: impl Into<String>) -> Result<T, E> {
    Err(E::Unsupported(what.into()))
}

/// The handler tables, indexed by operation id.
pub(crate) struct Tables {
    pub alu: Vec<Kind>,
    pub mem: Vec<MemKind>,
}

/// The tables, built once from the operation identities.
pub(crate) fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let alu = (0..AluOp::count())
            .map(|i| {
                let op = AluOp(i as u16);
                Kind::of(op)
                    .or_else(|| Cmp::of(op).map(Kind::VCmp))
                    .unwrap_or(Kind::Unimplemented)
            })
            .collect();
        let mem = (0..4096u16)
            .map(|i| MemKind::of(MemOp(i)).unwrap_or(MemKind::Unimplemented))
            .collect();
        Tables { alu, mem }
    })
}

/// What one wave needs from its surroundings to execute.
pub struct Ctx<'a> {
    /// The decoded code.
    pub program: &'a Program,
    /// Global memory.
    pub mem: &'a GlobalMemory,
    /// The GPU (selects GFX9 or GFX10 behaviour).
    pub gpu: Gpu,
    /// Work-group id, for error locations.
    pub group: [u32; 3],
    /// The per-wave instruction cap.
    pub max_instructions: u64,
}

impl Ctx<'_> {
    pub(crate) fn gfx10(&self) -> bool {
        self.gpu.generation() == Gen::Gfx10
    }
}

fn location(ctx: &Ctx, w: &Wave, pc: u64, inst: Option<&Inst>) -> Box<Location> {
    Box::new(Location {
        group: ctx.group,
        wave: w.id,
        pc,
        inst: inst.map(|i| i.to_string()).unwrap_or_default(),
    })
}

/// Executes the instruction at the wave's PC. A wave that is not running is
/// left unchanged.
pub fn step(w: &mut Wave, lds: &mut Bytes, ctx: &Ctx) -> Result<(), SimError> {
    step_general(w, lds, ctx)
}

/// [`step`] with the program's pre-resolved handlers ([`Prepared::new`] of
/// `ctx.program`): the instructions that have one run through it, the others
/// through the general executor. The results are those of [`step`].
pub fn step_with(
    w: &mut Wave,
    lds: &mut Bytes,
    ctx: &Ctx,
    prepared: Option<&Prepared>,
) -> Result<(), SimError> {
    if let Some(p) = prepared
        && w.status == WaveStatus::Running
        && w.executed < ctx.max_instructions
        && fast::step(p, w, lds, ctx.mem)
    {
        return Ok(());
    }
    step_general(w, lds, ctx)
}

/// One instruction through the general executor (kept out of line: its
/// frame is large, and the fast path above should not pay for it).
#[inline(never)]
fn step_general(w: &mut Wave, lds: &mut Bytes, ctx: &Ctx) -> Result<(), SimError> {
    if w.status != WaveStatus::Running {
        return Ok(());
    }
    let pc = w.pc;
    let Some(inst) = ctx.program.at(pc) else {
        return Err(SimError::BadPc {
            pc,
            group: ctx.group,
            wave: w.id,
        });
    };
    if w.executed >= ctx.max_instructions {
        return Err(SimError::InstructionLimit {
            limit: ctx.max_instructions,
            at: location(ctx, w, pc, Some(inst)),
        });
    }
    w.executed += 1;
    if !matches!(
        inst.encoding,
        Encoding::Sop1
            | Encoding::Sop2
            | Encoding::Sopk
            | Encoding::Sopc
            | Encoding::Sopp
            | Encoding::Smem
    ) {
        w.lane_ops += w.exec.count() as u64;
    }
    let next = pc.wrapping_add(inst.size as u64);
    w.pc = next;
    let t = tables();
    let r = match inst.op {
        Op::Invalid => {
            return Err(SimError::InvalidInstruction {
                at: location(ctx, w, pc, Some(inst)),
            });
        }
        Op::Alu(op) => {
            let k = t
                .alu
                .get(op.0 as usize)
                .copied()
                .unwrap_or(Kind::Unimplemented);
            exec_alu(k, w, inst, pc, ctx)
        }
        Op::Mem(op) => {
            let k = t
                .mem
                .get(op.0 as usize)
                .copied()
                .unwrap_or(MemKind::Unimplemented);
            if smem_store::handles(k, inst) {
                smem_store::exec(k, w, inst, ctx)
            } else if image::handles(k) {
                image::exec(k, w, inst, ctx)
            } else if tbuffer::handles(k) {
                tbuffer::exec(k, w, inst, lds, ctx)
            } else {
                mem::exec(k, w, inst, lds, ctx)
            }
        }
    };
    r.map_err(|e| {
        // Leave the PC on the faulting instruction so the state can be inspected.
        w.pc = pc;
        let at = location(ctx, w, pc, Some(inst));
        if let Some((register, allocated)) = beyond_allocation(w, inst) {
            return SimError::RegisterBeyondAllocation {
                register,
                allocated,
                at,
            };
        }
        match e {
            E::Fault(fault, lane) => SimError::Fault { fault, lane, at },
            E::Unimpl => SimError::Unimplemented {
                name: match inst.op {
                    Op::Alu(o) => o.name().to_string(),
                    Op::Mem(o) => o.name().to_string(),
                    Op::Invalid => String::new(),
                },
                at,
            },
            E::Unsupported(what) => SimError::Unsupported { what, at },
            E::Trap(id) => SimError::Trap { id, at },
            E::Halt => SimError::Halted { at },
            E::Illegal => SimError::IllegalInstruction { at },
        }
    })?;
    // A jump to an address that is no instruction is reported at the jump,
    // not at the (unknown) target.
    if w.pc != next && w.status == WaveStatus::Running && ctx.program.at(w.pc).is_none() {
        let target = w.pc;
        w.pc = pc;
        return Err(SimError::BadBranch {
            target,
            at: location(ctx, w, pc, Some(inst)),
        });
    }
    Ok(())
}

/// The first vector register `inst` names beyond the wave's allocation (the
/// kernel descriptor's VGPR count), with that count. Asked only on the error
/// path, so that such an error says what it is.
fn beyond_allocation(w: &Wave, inst: &Inst) -> Option<(String, u32)> {
    use amdgpu_isa::Operand;
    let allocated = w.vgpr.len() as u32;
    inst.dst
        .iter()
        .chain(inst.src.iter())
        .find_map(|op| match *op {
            Operand::Vgpr { index, count } if index as u32 + count.max(1) as u32 > allocated => {
                Some((op.to_string(), allocated))
            }
            _ => None,
        })
}

fn exec_alu(k: Kind, w: &mut Wave, i: &Inst, pc: u64, ctx: &Ctx) -> R {
    use amdgpu_isa::alu::AluForm;
    if special_control::handles(k) {
        return special_control::exec(k, w, i, pc);
    }
    match i.alu.form {
        AluForm::Sop1 | AluForm::Sop2 | AluForm::Sopk | AluForm::Sopc | AluForm::Sopp => {
            salu::exec(k, w, i, pc, ctx)
        }
        // GFX9 VGPR indexing: the operands M0 selects are renumbered first.
        _ if !ctx.gfx10() && operand::gpr_index_on(w) => {
            let j = operand::gpr_indexed(w, i)?;
            exec_vector(k, w, &j, ctx)
        }
        _ => exec_vector(k, w, i, ctx),
    }
}

fn exec_vector(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    use amdgpu_isa::alu::AluForm;
    match i.alu.form {
        AluForm::Vintrp => Err(E::Unimpl),
        AluForm::SdwaVop1 | AluForm::SdwaVop2 | AluForm::SdwaVopc => valu::exec_sdwa(k, w, i, ctx),
        AluForm::DppVop1 | AluForm::DppVop2 => valu::exec_dpp(k, w, i, ctx, false),
        AluForm::Dpp8Vop1 | AluForm::Dpp8Vop2 => valu::exec_dpp(k, w, i, ctx, true),
        _ => valu::exec(k, w, i, ctx),
    }
}

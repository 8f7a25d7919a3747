//! Control operations outside ordinary branching: GFX9's branch stack
//! (`s_cbranch_i_fork`, `s_cbranch_g_fork`, `s_cbranch_join`), the returns
//! from an exception handler (`s_rfe_b64`, `s_rfe_restore_b64`),
//! `s_endpgm_saved`, and GFX10's `v_illegal`.
//!
//! The branch stack follows the Vega ISA pseudo-code: a fork that leaves
//! lanes on both sides runs the side with fewer lanes first (the taken side
//! on a tie) and pushes the other side's PC and lanes to four SGPRs at
//! `SGPR[CSP * 4]`, CSP being MODE bits 31:29; a join whose saved CSP is not
//! the current one pops that entry and continues there. An entry holds the
//! lanes in its first two SGPRs and the PC in the other two (the pseudo-code
//! writes `{ PC, mask }`, high part first); only a program that reads the
//! stack's SGPRs itself can tell the order.

use super::{E, R, unsupported};
use crate::wave::{HW_REG_MODE, Mask, Wave, WaveStatus};
use amdgpu_isa::{Inst, Operand};

use super::Kind;

/// MODE.CSP: the branch-stack pointer, bits 31:29.
const CSP_SHIFT: u32 = 29;

/// Whether `k` is executed here.
pub(crate) fn handles(k: Kind) -> bool {
    matches!(
        k,
        Kind::SCbranchIFork
            | Kind::SCbranchGFork
            | Kind::SCbranchJoin
            | Kind::SRfeB64
            | Kind::SRfeRestoreB64
            | Kind::SEndpgmSaved
            | Kind::VIllegal
    )
}

fn sgpr64(w: &Wave, op: &Operand) -> Result<u64, E> {
    if let Some(m) = w.read_mask(op) {
        return Ok(m);
    }
    super::operand::s64(w, op)
}

fn csp(w: &Wave) -> u32 {
    w.hwreg[HW_REG_MODE] >> CSP_SHIFT
}

fn set_csp(w: &mut Wave, v: u32) {
    let mode = &mut w.hwreg[HW_REG_MODE];
    *mode = (*mode & !(7 << CSP_SHIFT)) | (v & 7) << CSP_SHIFT;
}

/// Pushes `{pc, lanes}` at SGPR[CSP * 4] and increments CSP.
fn push(w: &mut Wave, pc: u64, lanes: u64) -> R {
    let c = csp(w);
    if c >= 7 {
        return unsupported(format!(
            "a fork with the branch stack full (MODE.CSP = {c}; it has 3 bits)"
        ));
    }
    let at = c as usize * 4;
    w.sgpr[at] = lanes as u32;
    w.sgpr[at + 1] = (lanes >> 32) as u32;
    w.sgpr[at + 2] = pc as u32;
    w.sgpr[at + 3] = (pc >> 32) as u32;
    set_csp(w, c + 1);
    Ok(())
}

/// A fork: `cond` selects the lanes that go to `target`; `next` is the
/// instruction after the fork.
fn fork(w: &mut Wave, cond: u64, target: u64, next: u64) -> R {
    let exec = w.exec.0;
    let pass = cond & exec;
    let fail = !cond & exec;
    if pass == exec {
        w.pc = target;
    } else if fail == exec {
        w.pc = next;
    } else if fail.count_ones() < pass.count_ones() {
        push(w, target, pass)?;
        w.exec = Mask(fail);
        w.pc = next;
    } else {
        push(w, next, fail)?;
        w.exec = Mask(pass);
        w.pc = target;
    }
    Ok(())
}

/// Executes a control operation of [`handles`]; `w.pc` is already the next
/// instruction's address.
pub(crate) fn exec(k: Kind, w: &mut Wave, i: &Inst, pc: u64) -> R {
    let next = w.pc;
    match k {
        Kind::SCbranchIFork => {
            let Operand::Imm(simm) = i.src[0] else {
                return unsupported("s_cbranch_i_fork without its branch offset");
            };
            let cond = sgpr64(w, &i.dst[0])?;
            let target = pc
                .wrapping_add(4)
                .wrapping_add_signed(simm as i16 as i64 * 4);
            fork(w, cond, target, next)
        }
        Kind::SCbranchGFork => {
            let cond = sgpr64(w, &i.src[0])?;
            let target = super::operand::s64(w, &i.src[1])?;
            fork(w, cond, target, next)
        }
        Kind::SCbranchJoin => {
            let saved = super::operand::s32(w, &i.src[0])?;
            let c = csp(w);
            if c != saved & 7 {
                if c == 0 {
                    return unsupported(format!(
                        "s_cbranch_join with saved CSP {saved} and an empty branch stack"
                    ));
                }
                let c = c - 1;
                set_csp(w, c);
                let at = c as usize * 4;
                let lanes = w.sgpr[at] as u64 | (w.sgpr[at + 1] as u64) << 32;
                let pc = w.sgpr[at + 2] as u64 | (w.sgpr[at + 3] as u64) << 32;
                w.exec = Mask(lanes & w.full_mask());
                w.pc = pc;
            }
            Ok(())
        }
        // Vega/RDNA ISA: PRIV = 0; PC = S0.u64 (and, for the restoring form,
        // INST_ATC = S1.u32[0], the instruction-fetch translation mode,
        // which has no effect on this memory model). Outside a trap
        // handler these are jumps.
        Kind::SRfeB64 | Kind::SRfeRestoreB64 => {
            w.pc = super::operand::s64(w, &i.src[0])?;
            Ok(())
        }
        // The end of a wave whose state a context-switch handler saved.
        Kind::SEndpgmSaved => {
            w.status = WaveStatus::Done;
            Ok(())
        }
        Kind::VIllegal => Err(E::Illegal),
        _ => Err(E::Unimpl),
    }
}

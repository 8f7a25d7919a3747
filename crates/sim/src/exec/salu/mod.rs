//! Scalar ALU and program control: SOP1, SOP2, SOPK, SOPC, SOPP
//! (Vega ISA §4-5, RDNA ISA §4-5).

use super::operand::{s32, s64, set32, set64};
use super::{Ctx, E, Kind, R, unsupported};
use crate::wave::{Mask, Wave, WaveStatus};
use amdgpu_isa::{Inst, Operand};

mod control;
mod hwreg;
mod sop1;
mod sop2;
mod sopc;
mod sopk;

use hwreg::*;

fn imm16(i: &Inst) -> i32 {
    match i.src[0] {
        Operand::Imm(v) => v as i16 as i32,
        _ => 0,
    }
}

/// The branch target of a SOPP branch at `pc`: PC + 4 + simm16 * 4.
fn target(i: &Inst, pc: u64) -> u64 {
    pc.wrapping_add(4).wrapping_add_signed(imm16(i) as i64 * 4)
}

fn bfe32(v: u32, ctl: u32, signed: bool) -> u32 {
    let off = ctl & 31;
    let width = (ctl >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let sh = v >> off;
    if width >= 32 {
        return sh;
    }
    let m = sh & ((1u32 << width) - 1);
    if signed && (m >> (width - 1)) & 1 == 1 {
        m | !((1u32 << width) - 1)
    } else {
        m
    }
}

fn bfe64(v: u64, ctl: u32, signed: bool) -> u64 {
    let off = ctl & 63;
    let width = (ctl >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let sh = v >> off;
    if width >= 64 {
        return sh;
    }
    let m = sh & ((1u64 << width) - 1);
    if signed && (m >> (width - 1)) & 1 == 1 {
        m | !((1u64 << width) - 1)
    } else {
        m
    }
}

/// Executes a scalar instruction through the module of its class
/// ([`class`]); the class functions are inlined here, so that this compiles
/// as the one function it was before the split.
pub(crate) fn exec(k: Kind, w: &mut Wave, i: &Inst, pc: u64, ctx: &Ctx) -> R {
    match class(k) {
        Some(Class::Control) => control::exec(k, w, i, pc),
        Some(Class::Sop1) => sop1::exec(k, w, i, pc),
        Some(Class::Sop2) => sop2::exec(k, w, i),
        Some(Class::Sopc) => sopc::exec(k, w, i),
        Some(Class::Sopk) => sopk::exec(k, w, i, pc, ctx),
        None => super::valu::exec(k, w, i, ctx),
    }
}

/// The class of an operation: which module executes it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    /// [`control::exec`].
    Control,
    /// [`sop1::exec`].
    Sop1,
    /// [`sop2::exec`].
    Sop2,
    /// [`sopc::exec`].
    Sopc,
    /// [`sopk::exec`].
    Sopk,
}

/// The class of `k`, `None` for the operations executed elsewhere.
fn class(k: Kind) -> Option<Class> {
    use Kind::*;
    Some(match k {
        SNop | SWait | SCodeEnd | SEndpgm | SSethalt | SSetkill | SSetvskip | SSendmsg
        | SSendmsghalt | STrap | SBarrier | SBranch | SCbranchCdbg | SRoundMode | SDenormMode
        | SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz
        | SCbranchExecnz => Class::Control,
        SMovB32 | SMovB64 | SCmovB32 | SCmovB64 | SNotB32 | SNotB64 | SBrevB32 | SBrevB64
        | SBcnt0B32 | SBcnt1B32 | SBcnt0B64 | SBcnt1B64 | SFf0B32 | SFf1B32 | SFf0B64 | SFf1B64
        | SFlbitB32 | SFlbitB64 | SFlbitI32 | SFlbitI64 | SSextI8 | SSextI16 | SAbsI32
        | SBitset0B32 | SBitset1B32 | SBitset0B64 | SBitset1B64 | SQuadmaskB32 | SQuadmaskB64
        | SWqmB32 | SWqmB64 | SBitreplicate | SMovrelsB32 | SMovrelsB64 | SMovreldB32
        | SMovreldB64 | SMovrelsd2B32 | SGetpc | SSetpc | SSwappc | SAndSaveexec | SOrSaveexec
        | SXorSaveexec | SAndn2Saveexec | SOrn2Saveexec | SNandSaveexec | SNorSaveexec
        | SXnorSaveexec | SAndn1Saveexec | SOrn1Saveexec | SAndn1Wrexec | SAndn2Wrexec => {
            Class::Sop1
        }
        SAddU32 | SSubU32 | SAddcU32 | SSubbU32 | SAddI32 | SSubI32 | SMinI32 | SMaxI32
        | SMinU32 | SMaxU32 | SCselectB32 | SCselectB64 | SAndB32 | SOrB32 | SXorB32
        | SAndn2B32 | SOrn2B32 | SNandB32 | SNorB32 | SXnorB32 | SAndB64 | SOrB64 | SXorB64
        | SAndn2B64 | SOrn2B64 | SNandB64 | SNorB64 | SXnorB64 | SLshlB32 | SLshrB32 | SAshrI32
        | SLshlB64 | SLshrB64 | SAshrI64 | SBfmB32 | SBfmB64 | SMulI32 | SMulHiU32 | SMulHiI32
        | SBfeU32 | SBfeI32 | SBfeU64 | SBfeI64 | SAbsdiffI32 | SLshl1Add | SLshl2Add
        | SLshl3Add | SLshl4Add | SPackLl | SPackLh | SPackHh => Class::Sop2,
        SCmpEqU32 | SCmpLgU32 | SCmpGtI32 | SCmpGeI32 | SCmpLtI32 | SCmpLeI32 | SCmpGtU32
        | SCmpGeU32 | SCmpLtU32 | SCmpLeU32 | SCmpEqU64 | SCmpLgU64 | SBitcmp0B32 | SBitcmp1B32
        | SBitcmp0B64 | SBitcmp1B64 => Class::Sopc,
        SMovkI32 | SCmovkI32 | SAddkI32 | SMulkI32 | SCmpkEqI32 | SCmpkLgI32 | SCmpkGtI32
        | SCmpkGeI32 | SCmpkLtI32 | SCmpkLeI32 | SCmpkEqU32 | SCmpkLgU32 | SCmpkGtU32
        | SCmpkGeU32 | SCmpkLtU32 | SCmpkLeU32 | SGetreg | SSetreg | SSetregImm | SCall
        | SSetGprIdxOn | SSetGprIdxOff | SSetGprIdxIdx | SSetGprIdxMode => Class::Sopk,
        _ => return None,
    })
}

fn tz(v: u64, bits: u32) -> i32 {
    let t = v.trailing_zeros();
    if t >= bits { -1 } else { t as i32 }
}

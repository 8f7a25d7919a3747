//! What each memory operation does: its [`Shape`] (load, store or atomic,
//! with size and extension), its atomic operation, its 16-bit half.

use super::*;

/// Bytes moved and how sub-dword loads extend.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    Load(usize, Ext),
    Store(usize),
    Atomic(At, bool),
    Nop,
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Ext {
    Zero,
    Sign,
}

#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum At {
    Add,
    Sub,
    Rsub,
    Smin,
    Umin,
    Smax,
    Umax,
    And,
    Or,
    Xor,
    Inc,
    Dec,
    Swap,
    Cmpswap,
    Csub,
    /// f32 add, denormals kept (`ds_add_f32`: "handles NaN/INF/denormal values").
    FaddF32,
    /// f32 add with MODE's f32 denormal handling: input denormals kept when
    /// the first flag is set, output denormals when the second is
    /// (`ds_add_f32` under a flushing MODE; LLVM `SIISelLowering.cpp`
    /// `shouldExpandAtomicRMWInIR`: "DS F32 FP atomics do respect the
    /// denormal mode, but the rounding mode is fixed to round-to-nearest-even").
    FaddF32Mode(bool, bool),
    /// f32 add with denormal inputs and results flushed to zero, whatever
    /// MODE says (the global FP atomic units of gfx908/gfx90a, as LLVM's
    /// `fpModeMatchesGlobalFPAtomicMode` assumes).
    FaddF32Ftz,
    /// f64 add, denormals kept.
    FaddF64,
    /// `ds_mskor`: `(old & !data0) | data1`.
    Mskor,
    /// f32 minimum ([`crate::alu::min_f32`]: IEEE `minNum`, -0 < +0),
    /// denormals kept.
    FminF32,
    /// f32 maximum ([`crate::alu::max_f32`]).
    FmaxF32,
    /// f64 minimum ([`crate::alu::min_f64`]).
    FminF64,
    /// f64 maximum ([`crate::alu::max_f64`]).
    FmaxF64,
    /// f32 compare-and-swap: stores `src` when `old == cmp` as floats (a NaN
    /// never matches, -0 matches +0).
    FcmpswapF32,
    /// f64 compare-and-swap, as [`At::FcmpswapF32`].
    FcmpswapF64,
    /// Two f16 adds on the halves of a dword, rounded to nearest even,
    /// denormals kept.
    PkAddF16,
    /// `ds_wrap_rtn_b32`: `old >= data0 ? old - data0 : old + data1`.
    Wrap,
}

pub(crate) fn shape(k: MemKind) -> Option<Shape> {
    use MemKind::*;
    Some(match k {
        GLoadU8 | DsReadU8 | GLoadU8D16 | GLoadU8D16Hi => Shape::Load(1, Ext::Zero),
        GLoadI8 | DsReadI8 | GLoadI8D16 | GLoadI8D16Hi => Shape::Load(1, Ext::Sign),
        GLoadU16 | DsReadU16 | GLoadU16D16 | GLoadU16D16Hi => Shape::Load(2, Ext::Zero),
        GLoadI16 | DsReadI16 => Shape::Load(2, Ext::Sign),
        GLoad4 | DsRead4 => Shape::Load(4, Ext::Zero),
        GLoad8 | DsRead8 => Shape::Load(8, Ext::Zero),
        GLoad12 | DsRead12 => Shape::Load(12, Ext::Zero),
        GLoad16 | DsRead16 => Shape::Load(16, Ext::Zero),
        GStore1 | DsWrite1 | GStoreB8D16Hi => Shape::Store(1),
        GStore2 | DsWrite2 | GStoreB16D16Hi => Shape::Store(2),
        GStore4 | DsWrite4 => Shape::Store(4),
        GStore8 | DsWrite8 => Shape::Store(8),
        GStore12 | DsWrite12 => Shape::Store(12),
        GStore16 | DsWrite16 => Shape::Store(16),
        AtAdd | DsAdd => Shape::Atomic(At::Add, false),
        AtSub | DsSub => Shape::Atomic(At::Sub, false),
        DsRsub => Shape::Atomic(At::Rsub, false),
        AtSmin | DsMinI => Shape::Atomic(At::Smin, false),
        AtUmin | DsMinU => Shape::Atomic(At::Umin, false),
        AtSmax | DsMaxI => Shape::Atomic(At::Smax, false),
        AtUmax | DsMaxU => Shape::Atomic(At::Umax, false),
        AtAnd | DsAnd => Shape::Atomic(At::And, false),
        AtOr | DsOr => Shape::Atomic(At::Or, false),
        AtXor | DsXor => Shape::Atomic(At::Xor, false),
        AtInc | DsInc => Shape::Atomic(At::Inc, false),
        AtDec | DsDec => Shape::Atomic(At::Dec, false),
        AtSwap | DsSwap => Shape::Atomic(At::Swap, false),
        AtCmpswap | DsCmpst => Shape::Atomic(At::Cmpswap, false),
        AtCsub => Shape::Atomic(At::Csub, false),
        DsAddF32 => Shape::Atomic(At::FaddF32, false),
        AtAddF32 => Shape::Atomic(At::FaddF32Ftz, false),
        DsAddF64 | AtAddF64 => Shape::Atomic(At::FaddF64, true),
        AtAdd64 => Shape::Atomic(At::Add, true),
        AtSwap64 => Shape::Atomic(At::Swap, true),
        AtCmpswap64 => Shape::Atomic(At::Cmpswap, true),
        AtSub64 => Shape::Atomic(At::Sub, true),
        AtSmin64 => Shape::Atomic(At::Smin, true),
        AtUmin64 => Shape::Atomic(At::Umin, true),
        AtSmax64 => Shape::Atomic(At::Smax, true),
        AtUmax64 => Shape::Atomic(At::Umax, true),
        AtAnd64 => Shape::Atomic(At::And, true),
        AtOr64 => Shape::Atomic(At::Or, true),
        AtXor64 => Shape::Atomic(At::Xor, true),
        AtInc64 => Shape::Atomic(At::Inc, true),
        AtDec64 => Shape::Atomic(At::Dec, true),
        DsAdd64 => Shape::Atomic(At::Add, true),
        DsSub64 => Shape::Atomic(At::Sub, true),
        DsRsub64 => Shape::Atomic(At::Rsub, true),
        DsInc64 => Shape::Atomic(At::Inc, true),
        DsDec64 => Shape::Atomic(At::Dec, true),
        DsMinI64 => Shape::Atomic(At::Smin, true),
        DsMaxI64 => Shape::Atomic(At::Smax, true),
        DsMinU64 => Shape::Atomic(At::Umin, true),
        DsMaxU64 => Shape::Atomic(At::Umax, true),
        DsAnd64 => Shape::Atomic(At::And, true),
        DsOr64 => Shape::Atomic(At::Or, true),
        DsXor64 => Shape::Atomic(At::Xor, true),
        DsSwap64 => Shape::Atomic(At::Swap, true),
        DsCmpst64 => Shape::Atomic(At::Cmpswap, true),
        DsMskor => Shape::Atomic(At::Mskor, false),
        DsMskor64 => Shape::Atomic(At::Mskor, true),
        DsMinF32 | AtFminF32 => Shape::Atomic(At::FminF32, false),
        DsMaxF32 | AtFmaxF32 => Shape::Atomic(At::FmaxF32, false),
        DsMinF64 | AtFminF64 => Shape::Atomic(At::FminF64, true),
        DsMaxF64 | AtFmaxF64 => Shape::Atomic(At::FmaxF64, true),
        DsCmpstF32 | AtFcmpswapF32 => Shape::Atomic(At::FcmpswapF32, false),
        DsCmpstF64 | AtFcmpswapF64 => Shape::Atomic(At::FcmpswapF64, true),
        AtPkAddF16 => Shape::Atomic(At::PkAddF16, false),
        DsWrap => Shape::Atomic(At::Wrap, false),
        BufCacheNop | DsNop => Shape::Nop,
        _ => return None,
    })
}

/// For a FLAT/GLOBAL/SCRATCH/MUBUF `*_d16` load, which half of the
/// destination register it writes: `Some(false)` the low half, `Some(true)`
/// the high half (`*_d16_hi`). `None` for other kinds.
pub(super) fn d16_load(k: MemKind) -> Option<bool> {
    use MemKind::*;
    match k {
        GLoadU8D16 | GLoadI8D16 | GLoadU16D16 => Some(false),
        GLoadU8D16Hi | GLoadI8D16Hi | GLoadU16D16Hi => Some(true),
        _ => None,
    }
}

//! Memory instructions: SMEM, DS, FLAT/GLOBAL/SCRATCH and MUBUF, with
//! per-lane address classification and faults attributed to the lane.

use super::operand::{Ty, v32, v64};
use super::operand::{s32, s64};
use super::{Ctx, E, MemKind, R, unsupported};
use crate::memory::PageCursor;
use crate::memory::{APERTURE_SIZE, Bytes, FlatTarget, SCRATCH_BACKING, classify_flat};
use crate::wave::Wave;
use amdgpu_isa::mem::{Segment, flags};
use amdgpu_isa::{Encoding, Inst, Operand};

/// Where one lane's access goes.
#[derive(Clone, Copy, Debug)]
enum Target {
    Global(u64),
    Lds(u64),
    /// Lane-relative private address (swizzled on access).
    Private(u32),
    /// Raw offset in the wave's swizzled scratch backing store.
    Backing(u64),
    /// Outside a buffer's NUM_RECORDS: loads read 0, stores are dropped
    /// (Vega ISA §9.1.8 "Buffer range checking").
    OutOfRange,
}

fn lane_err(lane: usize) -> impl Fn(crate::error::MemFault) -> E {
    move |f| E::Fault(f, lane as u32)
}

fn read(
    t: Target,
    lane: usize,
    out: &mut [u8],
    w: &Wave,
    lds: &Bytes,
    cur: &mut PageCursor,
) -> Result<(), E> {
    match t {
        Target::Global(a) => cur.read(a, out),
        Target::Lds(a) => lds.read(a, out),
        Target::Private(a) => w.scratch.read_lane(lane as u32, a, out),
        Target::Backing(a) => w.scratch.read_backing(a, out),
        Target::OutOfRange => {
            out.fill(0);
            Ok(())
        }
    }
    .map_err(lane_err(lane))
}

fn write(
    t: Target,
    lane: usize,
    data: &[u8],
    w: &mut Wave,
    lds: &mut Bytes,
    cur: &mut PageCursor,
) -> Result<(), E> {
    match t {
        Target::Global(a) => cur.write(a, data),
        Target::Lds(a) => lds.write(a, data),
        Target::Private(a) => w.scratch.write_lane(lane as u32, a, data),
        Target::Backing(a) => w.scratch.write_backing(a, data),
        Target::OutOfRange => Ok(()),
    }
    .map_err(lane_err(lane))
}

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
fn d16_load(k: MemKind) -> Option<bool> {
    use MemKind::*;
    match k {
        GLoadU8D16 | GLoadI8D16 | GLoadU16D16 => Some(false),
        GLoadU8D16Hi | GLoadI8D16Hi | GLoadU16D16Hi => Some(true),
        _ => None,
    }
}

/// The new memory value of an atomic (Vega ISA §12.13 "FLAT atomics";
/// `cmp` is the second data operand of compare-and-swap).
pub(crate) fn atomic_op(op: At, old: u64, src: u64, cmp: u64, wide: bool) -> u64 {
    let (so, ss) = if wide {
        (old as i64, src as i64)
    } else {
        (old as u32 as i32 as i64, src as u32 as i32 as i64)
    };
    let r = match op {
        At::Add => old.wrapping_add(src),
        At::Sub => old.wrapping_sub(src),
        At::Rsub => src.wrapping_sub(old),
        At::Smin => so.min(ss) as u64,
        At::Smax => so.max(ss) as u64,
        At::Umin => old.min(src),
        At::Umax => old.max(src),
        At::And => old & src,
        At::Or => old | src,
        At::Xor => old ^ src,
        At::Inc => {
            if old >= src {
                0
            } else {
                old + 1
            }
        }
        At::Dec => {
            if old == 0 || old > src {
                src
            } else {
                old - 1
            }
        }
        At::Swap => src,
        At::Cmpswap => {
            if old == cmp {
                src
            } else {
                old
            }
        }
        At::Mskor => (old & !cmp) | src,
        // Subtract, clamped at 0 (RDNA2 `*_atomic_csub`).
        At::Csub => old.saturating_sub(src),
        // Floating-point adds, rounded to nearest even.
        At::FaddF32 => (f32::from_bits(old as u32) + f32::from_bits(src as u32)).to_bits() as u64,
        At::FaddF32Mode(keep_in, keep_out) => {
            let ftz = |x: f32, keep: bool| if keep { x } else { crate::alu::ftz_f32(x) };
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(src as u32));
            ftz(ftz(a, keep_in) + ftz(b, keep_in), keep_out).to_bits() as u64
        }
        At::FaddF32Ftz => {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(src as u32));
            let ftz = crate::alu::ftz_f32;
            ftz(ftz(a) + ftz(b)).to_bits() as u64
        }
        At::FaddF64 => (f64::from_bits(old) + f64::from_bits(src)).to_bits(),
        At::FminF32 | At::FmaxF32 => {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(src as u32));
            let r = if op == At::FminF32 {
                crate::alu::min_f32(a, b)
            } else {
                crate::alu::max_f32(a, b)
            };
            r.to_bits() as u64
        }
        At::FminF64 | At::FmaxF64 => {
            let (a, b) = (f64::from_bits(old), f64::from_bits(src));
            let r = if op == At::FminF64 {
                crate::alu::min_f64(a, b)
            } else {
                crate::alu::max_f64(a, b)
            };
            r.to_bits()
        }
        At::FcmpswapF32 => {
            if f32::from_bits(old as u32) == f32::from_bits(cmp as u32) {
                src
            } else {
                old
            }
        }
        At::FcmpswapF64 => {
            if f64::from_bits(old) == f64::from_bits(cmp) {
                src
            } else {
                old
            }
        }
        At::Wrap => {
            if old >= cmp {
                old.wrapping_sub(cmp)
            } else {
                old.wrapping_add(src)
            }
        }
        At::PkAddF16 => {
            // Each half sum is exact in f64, so it is rounded once.
            let half = |x: u64, k: u32| crate::alu::f16_to_f32((x >> k) as u16) as f64;
            let sum = |k: u32| crate::alu::f64_to_f16(half(old, k) + half(src, k)) as u64;
            sum(0) | sum(16) << 16
        }
    };
    if wide { r } else { r & 0xffff_ffff }
}

/// Reads `count` dwords of vector data registers for every lane.
fn data_lanes(w: &Wave, op: &Operand) -> Result<Vec<[u32; 64]>, E> {
    let (index, count, agpr) = match *op {
        Operand::Vgpr { index, count } => (index, count, false),
        Operand::Agpr { index, count } => (index, count, true),
        _ => return unsupported(format!("data operand {op}")),
    };
    (0..count)
        .map(|k| {
            let r = index as usize + k as usize;
            let file = if agpr { &w.agpr } else { &w.vgpr };
            file.get(r)
                .copied()
                .or(if agpr { Some([0; 64]) } else { None })
                .ok_or_else(|| E::Unsupported(format!("data operand {op}")))
        })
        .collect()
}

fn write_lanes(w: &mut Wave, op: &Operand, vals: &[[u32; 4]], nd: usize, exec: u64) -> R {
    let base = match *op {
        Operand::Vgpr { .. } | Operand::Agpr { .. } => *op,
        _ => return unsupported(format!("destination {op}")),
    };
    for k in 0..nd {
        let mut lanes = [0u32; 64];
        if let Operand::Vgpr { index, .. } = base {
            lanes = w.vgpr.get(index as usize + k).copied().unwrap_or(lanes);
        }
        for (l, v) in vals.iter().enumerate() {
            if (exec >> l) & 1 != 0 {
                lanes[l] = v[k.min(3)];
            }
        }
        let one = match base {
            Operand::Vgpr { index, .. } => Operand::Vgpr {
                index: index.wrapping_add(k as u8),
                count: 1,
            },
            Operand::Agpr { index, .. } => Operand::Agpr {
                index: index.wrapping_add(k as u8),
                count: 1,
            },
            o => o,
        };
        super::operand::wv32(w, &one, &lanes, exec)?;
    }
    Ok(())
}

/// Executes a memory instruction.
pub(crate) fn exec(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes, ctx: &Ctx) -> R {
    use MemKind::*;
    if i.encoding != Encoding::Smem && !ctx.gfx10() && super::operand::gpr_index_on(w) {
        return unsupported("a vector memory instruction while VGPR indexing is enabled");
    }
    match k {
        SCacheNop => return Ok(()),
        SMemtime => {
            let t = w.executed;
            super::operand::set64(w, &i.dst[0], t)?;
            return Ok(());
        }
        SGetWaveId => {
            let id = w.id;
            return super::operand::set32(w, &i.dst[0], id);
        }
        SLoad1 | SLoad2 | SLoad4 | SLoad8 | SLoad16 | SBufLoad1 | SBufLoad2 | SBufLoad4
        | SBufLoad8 | SBufLoad16 => return smem(k, w, i, ctx),
        SScratchLoad1 | SScratchLoad2 | SScratchLoad4 | SScratchStore1 | SScratchStore2
        | SScratchStore4 => return smem_scratch(k, w, i),
        DsBpermute | DsPermute => return permute(k, w, i),
        DsSwizzle => return swizzle(w, i),
        _ => {}
    }
    if i.encoding == Encoding::Ds && i.mem.has(flags::GDS) {
        return unsupported("GDS (the global data share)");
    }
    match k {
        DsRead2B32 | DsRead2B64 | DsRead2St64B32 | DsRead2St64B64 | DsWrite2B32 | DsWrite2B64
        | DsWrite2St64B32 | DsWrite2St64B64 | DsWrxchg2B32 | DsWrxchg2B64 | DsWrxchg2St64B32
        | DsWrxchg2St64B64 => return ds2(k, w, i, lds),
        DsReadU8D16 | DsReadU8D16Hi | DsReadI8D16 | DsReadI8D16Hi | DsReadU16D16
        | DsReadU16D16Hi | DsWriteB8D16Hi | DsWriteB16D16Hi => return ds_d16(k, w, i, lds),
        DsAppend | DsConsume => return ds_append(k, w, i, lds),
        DsReadAddtid | DsWriteAddtid => return ds_addtid(k, w, i, lds),
        GLoadAddtid | GStoreAddtid => return global_addtid(k, w, i, ctx),
        _ => {}
    }
    if let Some((op, wide)) = src2(k) {
        return ds_src2(op, wide, w, i, lds);
    }
    let Some(sh) = shape(k) else {
        return Err(E::Unimpl);
    };
    if let Shape::Nop = sh {
        return Ok(());
    }
    if i.mem.has(flags::LDS) {
        return unsupported("load to LDS");
    }
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    // Per-lane targets.
    let mut targets = [Target::Global(0); 64];
    let (data_op, pairs) = match i.encoding {
        Encoding::Ds => {
            let a = v32(w, &i.src[0], Ty::I)?;
            for l in 0..n {
                targets[l] = Target::Lds(a[l].wrapping_add(i.mem.offset as u32 & 0xffff) as u64);
            }
            (i.src[1], i.src[2])
        }
        Encoding::Flat => {
            flat_targets(w, i, &mut targets)?;
            (i.src[1], Operand::None)
        }
        Encoding::Mubuf => {
            buffer_targets(w, i, &mut targets)?;
            (i.dst[0], Operand::None)
        }
        _ => return Err(E::Unimpl),
    };
    match sh {
        Shape::Load(size, ext) => {
            let mut vals = vec![[0u32; 4]; n];
            let page = one_page(&targets, exec, n, size).is_some_and(|base| {
                global_load_page(ctx, base, &targets, exec, n, size, ext, &mut vals)
            });
            if !page {
                if let Some(off) = lds_offsets(&targets, exec, n, size, lds.len()) {
                    load_lanes(lds.as_slice(), &off, exec, n, size, ext, &mut vals);
                } else {
                    let mut cur = PageCursor::new(ctx.mem);
                    for l in 0..n {
                        if (exec >> l) & 1 == 0 {
                            continue;
                        }
                        let mut b = [0u8; 16];
                        read(targets[l], l, &mut b[..size], w, lds, &mut cur)?;
                        vals[l] = loaded_dwords(&b, size, ext);
                    }
                }
            }
            if let Some(hi) = d16_load(k) {
                // The loaded 16 bits replace one half of the register; the
                // other half keeps its value.
                let old = data_lanes(w, &i.dst[0])?;
                for (l, v) in vals.iter_mut().enumerate() {
                    let (x, o) = (v[0] & 0xffff, old[0][l]);
                    v[0] = if hi {
                        (o & 0xffff) | x << 16
                    } else {
                        (o & 0xffff_0000) | x
                    };
                }
            }
            write_lanes(w, &i.dst[0], &vals, size.div_ceil(4), exec)?;
        }
        Shape::Store(size) => {
            let mut data = data_lanes(w, &data_op)?;
            if matches!(k, MemKind::GStoreB8D16Hi | MemKind::GStoreB16D16Hi) {
                // `*_d16_hi` stores write from the high half of the register.
                for v in data[0].iter_mut() {
                    *v >>= 16;
                }
            }
            if let Some(base) = one_page(&targets, exec, n, size)
                && global_store_page(ctx, base, &targets, exec, n, size, &data)
            {
                return Ok(());
            }
            if let Some(off) = lds_offsets(&targets, exec, n, size, lds.len()) {
                store_lanes(lds.as_mut_slice(), &off, exec, n, size, &data);
                return Ok(());
            }
            let mut cur = PageCursor::new(ctx.mem);
            for l in 0..n {
                if (exec >> l) & 1 == 0 {
                    continue;
                }
                let mut b = [0u8; 16];
                for (k2, d) in data.iter().enumerate().take(4) {
                    b[k2 * 4..k2 * 4 + 4].copy_from_slice(&d[l].to_le_bytes());
                }
                write(targets[l], l, &b[..size], w, lds, &mut cur)?;
            }
        }
        Shape::Atomic(op, wide) => {
            // The LDS f32 add follows MODE's f32 denormal bits.
            let op = match (op, super::operand::denorms(w, false)) {
                (At::FaddF32, (keep_in, keep_out)) if !(keep_in && keep_out) => {
                    At::FaddF32Mode(keep_in, keep_out)
                }
                _ => op,
            };
            let data = data_lanes(w, &data_op)?;
            // DS compare-and-swap keeps the compare value in data0 and the new
            // value in data1 (`ds_cmpst`), FLAT/MUBUF in data[1] / data[0].
            let ds_cmp = if pairs.is_some() {
                Some(data_lanes(w, &pairs)?)
            } else {
                None
            };
            let words = if wide { 2 } else { 1 };
            let get =
                |d: &Vec<[u32; 64]>, k2: usize, l: usize| d.get(k2).map_or(0u64, |r| r[l] as u64);
            let mut vals = vec![[0u32; 4]; n];
            for l in 0..n {
                if (exec >> l) & 1 == 0 {
                    continue;
                }
                let (src, cmp) = match (&ds_cmp, wide) {
                    (Some(d1), true) => (
                        get(d1, 0, l) | get(d1, 1, l) << 32,
                        get(&data, 0, l) | get(&data, 1, l) << 32,
                    ),
                    (Some(d1), false) => (get(d1, 0, l), get(&data, 0, l)),
                    (None, false) => (get(&data, 0, l), get(&data, 1, l)),
                    (None, true) => (
                        get(&data, 0, l) | get(&data, 1, l) << 32,
                        get(&data, 2, l) | get(&data, 3, l) << 32,
                    ),
                };
                let old = match targets[l] {
                    Target::Global(a) if wide => u64::from_le_bytes(
                        ctx.mem
                            .atomic::<8>(a, |o| {
                                atomic_op(op, u64::from_le_bytes(o), src, cmp, true).to_le_bytes()
                            })
                            .map_err(lane_err(l))?,
                    ),
                    Target::Global(a) => u32::from_le_bytes(
                        ctx.mem
                            .atomic::<4>(a, |o| {
                                (atomic_op(op, u32::from_le_bytes(o) as u64, src, cmp, false)
                                    as u32)
                                    .to_le_bytes()
                            })
                            .map_err(lane_err(l))?,
                    ) as u64,
                    t => {
                        // Not global memory: LDS or private, owned by this
                        // work-group, so a plain read-modify-write is atomic.
                        let mut cur = PageCursor::new(ctx.mem);
                        let mut b = [0u8; 8];
                        read(t, l, &mut b[..words * 4], w, lds, &mut cur)?;
                        let old = u64::from_le_bytes(b);
                        let new = atomic_op(op, old, src, cmp, wide);
                        write(t, l, &new.to_le_bytes()[..words * 4], w, lds, &mut cur)?;
                        old
                    }
                };
                vals[l] = [old as u32, (old >> 32) as u32, 0, 0];
            }
            // Only the returning forms have a destination.
            let dst = i.dst[0];
            let returns = match i.encoding {
                Encoding::Mubuf => i.mem.has(flags::RETURN),
                _ => true,
            };
            if returns && dst.is_some() {
                write_lanes(w, &dst, &vals, words, exec)?;
            }
        }
        Shape::Nop => {}
    }
    Ok(())
}

/// The page (its first address) that holds all `size` bytes of every active
/// lane's access, when they are all global and fall in one page.
fn one_page(targets: &[Target; 64], exec: u64, n: usize, size: usize) -> Option<u64> {
    let page = crate::memory::PAGE;
    let mut base = None;
    for (l, t) in targets.iter().enumerate().take(n) {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let Target::Global(a) = *t else {
            return None;
        };
        let b = a & !(page - 1);
        if a - b + size as u64 > page || base.is_some_and(|x| x != b) {
            return None;
        }
        base = Some(b);
    }
    base
}

/// The lanes' offsets in the page at `base`, when every active lane's
/// `size` bytes lie inside the allocation (`valid` bytes of the page).
#[inline]
fn offsets_in(
    targets: &[Target; 64],
    exec: u64,
    n: usize,
    size: usize,
    base: u64,
    valid: usize,
) -> Option<[usize; 64]> {
    let mut off = [0usize; 64];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let Target::Global(a) = targets[l] else {
            return None;
        };
        let o = (a - base) as usize;
        if o + size > valid {
            return None;
        }
        off[l] = o;
    }
    Some(off)
}

/// The lanes' LDS offsets, when every active lane's access is to LDS and
/// inside it (`len` bytes).
fn lds_offsets(
    targets: &[Target; 64],
    exec: u64,
    n: usize,
    size: usize,
    len: usize,
) -> Option<[usize; 64]> {
    let mut off = [0usize; 64];
    let mut any = false;
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let Target::Lds(a) = targets[l] else {
            return None;
        };
        let a = usize::try_from(a).ok()?;
        if a.checked_add(size)? > len {
            return None;
        }
        off[l] = a;
        any = true;
    }
    any.then_some(off)
}

/// Reads each active lane's `size` bytes at its offset in `bytes` (checked
/// by the caller), extended as the per-lane path extends them.
#[inline]
fn load_lanes(
    bytes: &[u8],
    off: &[usize; 64],
    exec: u64,
    n: usize,
    size: usize,
    ext: Ext,
    vals: &mut [[u32; 4]],
) {
    if size == 4 {
        // The common dword: no byte staging.
        for l in 0..n {
            if (exec >> l) & 1 != 0 {
                let o = off[l];
                let v = u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
                vals[l] = [v, 0, 0, 0];
            }
        }
        return;
    }
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let mut b = [0u8; 16];
        b[..size].copy_from_slice(&bytes[off[l]..off[l] + size]);
        vals[l] = loaded_dwords(&b, size, ext);
    }
}

/// Writes each active lane's `size` bytes of `data` at its offset in
/// `bytes` (checked by the caller), in lane order (a later lane's bytes
/// win, as on the per-lane path).
#[inline]
fn store_lanes(
    bytes: &mut [u8],
    off: &[usize; 64],
    exec: u64,
    n: usize,
    size: usize,
    data: &[[u32; 64]],
) {
    if size == 4
        && let Some(d) = data.first()
    {
        for l in 0..n {
            if (exec >> l) & 1 != 0 {
                bytes[off[l]..off[l] + 4].copy_from_slice(&d[l].to_le_bytes());
            }
        }
        return;
    }
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let mut b = [0u8; 16];
        for (k2, d) in data.iter().enumerate().take(4) {
            b[k2 * 4..k2 * 4 + 4].copy_from_slice(&d[l].to_le_bytes());
        }
        bytes[off[l]..off[l] + size].copy_from_slice(&b[..size]);
    }
}

/// A global load whose active lanes all read one page: the page locked
/// once, the lanes read in a tight loop. `false` (nothing read) when some
/// lane would fault: the per-lane path then reports it.
#[allow(clippy::too_many_arguments)]
fn global_load_page(
    ctx: &Ctx,
    base: u64,
    targets: &[Target; 64],
    exec: u64,
    n: usize,
    size: usize,
    ext: Ext,
    vals: &mut [[u32; 4]],
) -> bool {
    ctx.mem
        .with_page(base, |bytes, valid| {
            let Some(off) = offsets_in(targets, exec, n, size, base, valid) else {
                return false;
            };
            load_lanes(bytes, &off, exec, n, size, ext, vals);
            true
        })
        .unwrap_or(false)
}

/// A global store whose active lanes all write one page, in lane order.
/// `false` (nothing written) when some lane would fault.
#[allow(clippy::too_many_arguments)]
fn global_store_page(
    ctx: &Ctx,
    base: u64,
    targets: &[Target; 64],
    exec: u64,
    n: usize,
    size: usize,
    data: &[[u32; 64]],
) -> bool {
    ctx.mem
        .with_page(base, |bytes, valid| {
            let Some(off) = offsets_in(targets, exec, n, size, base, valid) else {
                return false;
            };
            store_lanes(bytes, &off, exec, n, size, data);
            true
        })
        .unwrap_or(false)
}

/// FLAT, GLOBAL and SCRATCH addresses, classified per lane.
fn flat_targets(w: &Wave, i: &Inst, t: &mut [Target; 64]) -> R {
    let n = w.size as usize;
    let off = i.mem.offset as i64;
    match i.mem.seg {
        Segment::Flat => {
            let a = v64(w, &i.src[0], Ty::I)?;
            for l in 0..n {
                let addr = a[l].wrapping_add_signed(off);
                t[l] = match classify_flat(addr) {
                    FlatTarget::Global(g) => Target::Global(g),
                    FlatTarget::Lds(x) => Target::Lds(x as u64),
                    FlatTarget::Private(p) => Target::Private(p),
                };
            }
        }
        Segment::Global => {
            if i.mem.has(flags::SADDR_OFF) {
                let a = v64(w, &i.src[0], Ty::I)?;
                for l in 0..n {
                    t[l] = Target::Global(a[l].wrapping_add_signed(off));
                }
            } else {
                let base = s64(w, &i.src[2])?;
                let v = if i.src[0].is_some() {
                    v32(w, &i.src[0], Ty::I)?
                } else {
                    [0; 64]
                };
                for l in 0..n {
                    t[l] = Target::Global(base.wrapping_add(v[l] as u64).wrapping_add_signed(off));
                }
            }
        }
        Segment::Scratch => {
            let v = if i.src[0].is_some() && !i.mem.has(flags::VADDR_OFF) {
                v32(w, &i.src[0], Ty::I)?
            } else {
                [0; 64]
            };
            let s = if i.src[2].is_some() && !i.mem.has(flags::SADDR_OFF) {
                s32(w, &i.src[2])?
            } else {
                0
            };
            for l in 0..n {
                t[l] = Target::Private(v[l].wrapping_add(s).wrapping_add(off as u32));
            }
        }
        Segment::None => return unsupported("FLAT instruction without a segment"),
    }
    Ok(())
}

/// MUBUF addressing through a buffer resource (V#), with the swizzled
/// (ADD_TID_ENABLE) layout the private segment buffer uses (Vega ISA §9.1.5
/// "Buffer addressing", "Swizzled buffer addressing").
fn buffer_targets(w: &Wave, i: &Inst, t: &mut [Target; 64]) -> R {
    let n = w.size as usize;
    let rs: Vec<u32> = (0..4)
        .map(|k| w.read_sdword(&i.src[1], k).unwrap_or(0))
        .collect();
    let (w0, w1, w2, w3) = (rs[0], rs[1], rs[2], rs[3]);
    let num_records = w2 as u64;
    let base = w0 as u64 | ((w1 & 0xffff) as u64) << 32;
    let stride = ((w1 >> 16) & 0x3fff) as u64;
    let swizzle = (w1 >> 31) & 1 != 0 || (w3 >> 23) & 1 != 0;
    let add_tid = (w3 >> 23) & 1 != 0;
    let index_stride = [8u64, 16, 32, 64][((w3 >> 21) & 3) as usize];
    let elem = 4u64;
    let soffset = if i.src[2].is_some() {
        s32(w, &i.src[2])? as u64
    } else {
        0
    };
    let offen = i.mem.has(flags::OFFEN);
    let idxen = i.mem.has(flags::IDXEN);
    let (vidx, voff) = match (idxen, offen) {
        (true, true) => {
            let a = v64(w, &i.src[0], Ty::I)?;
            (a.map(|x| x as u32), a.map(|x| (x >> 32) as u32))
        }
        (true, false) => (v32(w, &i.src[0], Ty::I)?, [0; 64]),
        (false, true) => ([0; 64], v32(w, &i.src[0], Ty::I)?),
        _ => ([0; 64], [0; 64]),
    };
    for l in 0..n {
        let index = vidx[l] as u64 + if add_tid { l as u64 } else { 0 };
        let offset = voff[l] as u64 + (i.mem.offset as u32 & 0xfff) as u64;
        let boff = if swizzle {
            let (im, il) = (index / index_stride, index % index_stride);
            let (om, ol) = (offset / elem, offset % elem);
            (im * stride + om * elem) * index_stride + il * elem + ol
        } else {
            index * stride + offset
        };
        let addr = base.wrapping_add(soffset).wrapping_add(boff);
        // Range checking of linear (unswizzled) buffers: by byte offset when
        // the stride is 0, else by record index.
        let out_of_range = !swizzle
            && if stride == 0 {
                offset >= num_records
            } else {
                index >= num_records
            };
        t[l] = if out_of_range {
            Target::OutOfRange
        } else if (SCRATCH_BACKING..SCRATCH_BACKING + APERTURE_SIZE).contains(&addr) {
            Target::Backing(addr - SCRATCH_BACKING)
        } else {
            Target::Global(addr)
        };
    }
    Ok(())
}

fn smem(k: MemKind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    let Some((dwords, buffer)) = k.scalar_load() else {
        return unsupported(format!("{k:?} is not a scalar load"));
    };
    let dwords = dwords as usize;
    let addr = super::smem_store::scalar_address(w, i, buffer)?;
    let mut b = vec![0u8; dwords * 4];
    if buffer {
        // Dwords outside the buffer read 0 (range checking, see
        // `smem_store::buffer_dwords`).
        let inside = super::smem_store::buffer_dwords(w, i, dwords)?;
        for (k2, c) in b.chunks_exact_mut(4).enumerate() {
            if (inside >> k2) & 1 != 0 {
                ctx.mem
                    .read(addr.wrapping_add(4 * k2 as u64), c)
                    .map_err(|f| E::Fault(f, 0))?;
            }
        }
    } else {
        ctx.mem.read(addr, &mut b).map_err(|f| E::Fault(f, 0))?;
    }
    for (k2, c) in b.chunks_exact(4).enumerate() {
        let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        if !w.write_sdword(&i.dst[0], k2 as u8, v) {
            return unsupported(format!("scalar destination {}", i.dst[0]));
        }
    }
    Ok(())
}

/// `ds_read2*`, `ds_write2*` and `ds_wrxchg2*_rtn`: two accesses at
/// `ADDR + offset0 * size` and `ADDR + offset1 * size` (`* 64` more for the
/// `st64` forms), the sum wrapping at 32 bits like the single-address forms.
/// The exchange reads both elements, then writes `data0` and `data1`, and
/// returns the two old values (Vega ISA, DS_WRXCHG2_RTN_B32).
fn ds2(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    use MemKind::*;
    #[derive(PartialEq)]
    enum Dir {
        Read,
        Write,
        Exchange,
    }
    let (size, st64, dir) = match k {
        DsRead2B32 => (4u32, 1u32, Dir::Read),
        DsRead2B64 => (8, 1, Dir::Read),
        DsRead2St64B32 => (4, 64, Dir::Read),
        DsRead2St64B64 => (8, 64, Dir::Read),
        DsWrite2B32 => (4, 1, Dir::Write),
        DsWrite2B64 => (8, 1, Dir::Write),
        DsWrite2St64B32 => (4, 64, Dir::Write),
        DsWrite2St64B64 => (8, 64, Dir::Write),
        DsWrxchg2B32 => (4, 1, Dir::Exchange),
        DsWrxchg2B64 => (8, 1, Dir::Exchange),
        DsWrxchg2St64B32 => (4, 64, Dir::Exchange),
        _ => (8, 64, Dir::Exchange),
    };
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let a = v32(w, &i.src[0], Ty::I)?;
    let o0 = i.mem.offset0 as u32 * size * st64;
    let o1 = i.mem.offset1 as u32 * size * st64;
    let sz = size as usize;
    let (d0, d1) = if dir == Dir::Read {
        (Vec::new(), Vec::new())
    } else {
        (data_lanes(w, &i.src[1])?, data_lanes(w, &i.src[2])?)
    };
    let mut vals = vec![[0u32; 4]; n];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let addr = [a[l].wrapping_add(o0) as u64, a[l].wrapping_add(o1) as u64];
        if dir != Dir::Write {
            let mut b = [0u8; 16];
            lds.read(addr[0], &mut b[..sz]).map_err(lane_err(l))?;
            lds.read(addr[1], &mut b[sz..2 * sz]).map_err(lane_err(l))?;
            for (k2, c) in b.chunks_exact(4).enumerate() {
                vals[l][k2] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        if dir != Dir::Read {
            for (at, d) in addr.into_iter().zip([&d0, &d1]) {
                let mut b = [0u8; 8];
                for (k2, r) in d.iter().enumerate().take(2) {
                    b[k2 * 4..k2 * 4 + 4].copy_from_slice(&r[l].to_le_bytes());
                }
                lds.write(at, &b[..sz]).map_err(lane_err(l))?;
            }
        }
    }
    if dir != Dir::Write {
        write_lanes(w, &i.dst[0], &vals, 2 * sz / 4, exec)?;
    }
    Ok(())
}

/// The GFX9 D16 forms: `ds_read_{u8,i8,u16}_d16` load into the low half of
/// the destination and `_hi` into its high half, the other half kept (the
/// byte forms zero- or sign-extend to 16 bits); `ds_write_b{8,16}_d16_hi`
/// store from the high half of the data register.
fn ds_d16(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    use MemKind::*;
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let a = v32(w, &i.src[0], Ty::I)?;
    let off = i.mem.offset as u32 & 0xffff;
    if matches!(k, DsWriteB8D16Hi | DsWriteB16D16Hi) {
        let d = v32(w, &i.src[1], Ty::I)?;
        let size = if k == DsWriteB8D16Hi { 1 } else { 2 };
        for l in 0..n {
            if (exec >> l) & 1 != 0 {
                let b = (d[l] >> 16).to_le_bytes();
                lds.write(a[l].wrapping_add(off) as u64, &b[..size])
                    .map_err(lane_err(l))?;
            }
        }
        return Ok(());
    }
    let (size, signed, hi) = match k {
        DsReadU8D16 => (1, false, false),
        DsReadU8D16Hi => (1, false, true),
        DsReadI8D16 => (1, true, false),
        DsReadI8D16Hi => (1, true, true),
        DsReadU16D16 => (2, false, false),
        _ => (2, false, true),
    };
    let old = v32(w, &i.dst[0], Ty::I)?;
    let mut r = old;
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let mut b = [0u8; 2];
        lds.read(a[l].wrapping_add(off) as u64, &mut b[..size])
            .map_err(lane_err(l))?;
        let v = match (size, signed) {
            (1, true) => b[0] as i8 as i16 as u16,
            (1, false) => b[0] as u16,
            _ => u16::from_le_bytes(b),
        } as u32;
        r[l] = if hi {
            (old[l] & 0xffff) | v << 16
        } else {
            (old[l] & 0xffff_0000) | v
        };
    }
    super::operand::wv32(w, &i.dst[0], &r, exec)
}

/// `ds_bpermute_b32` (each lane reads lane `addr / 4`) and `ds_permute_b32`
/// (each lane writes lane `addr / 4`); no LDS memory is touched. Lane indices
/// wrap at the wave size. Reads from lanes outside EXEC return their register
/// value.
fn permute(k: MemKind, w: &mut Wave, i: &Inst) -> R {
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let a = v32(w, &i.src[0], Ty::I)?;
    let d = v32(w, &i.src[1], Ty::I)?;
    let off = i.mem.offset as u32 & 0xffff;
    let mut r = [0u32; 64];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let t = ((a[l].wrapping_add(off) / 4) as usize) % n;
        if k == MemKind::DsBpermute {
            r[l] = d[t];
        } else {
            r[t] = d[l];
        }
    }
    super::operand::wv32(w, &i.dst[0], &r, exec)
}

/// `ds_swizzle_b32` (Vega ISA §12.12 / RDNA ISA §13.11 "DS"): each lane reads
/// the ADDR register of another lane chosen by the 16-bit offset, and no LDS
/// memory is touched. Offset bit 15 set, bits 14:8 clear: quad mode, lane `i`
/// reads lane `(i & !3) + offset[2(i&3)+1 : 2(i&3)]`. Bit 15 clear: bit-mask
/// mode within each group of 32 lanes, lane `i` reads lane
/// `((i & and) | or) ^ xor` with and = offset[4:0], or = offset[9:5],
/// xor = offset[14:10]. Other offsets (modes LLVM-19 does not name for these
/// targets) are reported as unsupported. As for `ds_bpermute_b32`, a read from
/// a lane outside EXEC returns its register value.
fn swizzle(w: &mut Wave, i: &Inst) -> R {
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let d = v32(w, &i.src[0], Ty::I)?;
    let off = i.mem.offset as usize & 0xffff;
    let quad = off & 0x8000 != 0;
    if quad && off & 0x7f00 != 0 {
        return unsupported(format!("ds_swizzle_b32 offset {off:#06x} (no such mode)"));
    }
    let (and, or, xor) = (off & 0x1f, (off >> 5) & 0x1f, (off >> 10) & 0x1f);
    let mut r = [0u32; 64];
    for (l, v) in r.iter_mut().enumerate().take(n) {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let t = if quad {
            (l & !3) + ((off >> (2 * (l & 3))) & 3)
        } else {
            (l & !0x1f) | (((l & and) | or) ^ xor)
        };
        *v = d[t];
    }
    super::operand::wv32(w, &i.dst[0], &r, exec)
}

/// The dwords a lane's load of `size` bytes (`b`, zero-padded to 16) puts in its VGPRs:
/// little-endian, a sub-dword load sign-extended when `ext` says so (zero-extended by the
/// padding otherwise).
fn loaded_dwords(b: &[u8; 16], size: usize, ext: Ext) -> [u32; 4] {
    let mut v = [0u32; 4];
    for (k, c) in b.chunks_exact(4).enumerate() {
        v[k] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    if ext == Ext::Sign {
        v[0] = match size {
            1 => v[0] as u8 as i8 as i32 as u32,
            _ => v[0] as u16 as i16 as i32 as u32,
        };
    }
    v
}

/// For a `ds_*_src2_*` operation: the atomic it applies and whether it is
/// 64-bit. `None` for other kinds.
fn src2(k: MemKind) -> Option<(At, bool)> {
    use MemKind::*;
    Some(match k {
        DsSrc2AddU32 => (At::Add, false),
        DsSrc2SubU32 => (At::Sub, false),
        DsSrc2RsubU32 => (At::Rsub, false),
        DsSrc2IncU32 => (At::Inc, false),
        DsSrc2DecU32 => (At::Dec, false),
        DsSrc2MinI32 => (At::Smin, false),
        DsSrc2MaxI32 => (At::Smax, false),
        DsSrc2MinU32 => (At::Umin, false),
        DsSrc2MaxU32 => (At::Umax, false),
        DsSrc2AndB32 => (At::And, false),
        DsSrc2OrB32 => (At::Or, false),
        DsSrc2XorB32 => (At::Xor, false),
        DsSrc2WriteB32 => (At::Swap, false),
        DsSrc2MinF32 => (At::FminF32, false),
        DsSrc2MaxF32 => (At::FmaxF32, false),
        DsSrc2AddF32 => (At::FaddF32, false),
        DsSrc2AddU64 => (At::Add, true),
        DsSrc2SubU64 => (At::Sub, true),
        DsSrc2RsubU64 => (At::Rsub, true),
        DsSrc2IncU64 => (At::Inc, true),
        DsSrc2DecU64 => (At::Dec, true),
        DsSrc2MinI64 => (At::Smin, true),
        DsSrc2MaxI64 => (At::Smax, true),
        DsSrc2MinU64 => (At::Umin, true),
        DsSrc2MaxU64 => (At::Umax, true),
        DsSrc2AndB64 => (At::And, true),
        DsSrc2OrB64 => (At::Or, true),
        DsSrc2XorB64 => (At::Xor, true),
        DsSrc2WriteB64 => (At::Swap, true),
        DsSrc2MinF64 => (At::FminF64, true),
        DsSrc2MaxF64 => (At::FmaxF64, true),
        _ => return None,
    })
}

/// The two LDS addresses `(A, B)` of a `ds_*_src2_*` lane (Vega ISA,
/// DS_ADD_SRC2_U32: `A = ADDR_BASE; B = A + 4 * (offset1[7] ?
/// {A[31], A[31:17]} : {offset1[6], offset1[6:0], offset0})`): the 16-bit
/// dword stride is the instruction's 15-bit offset, sign-extended, or, when
/// offset bit 15 is set, the address's bits 31:17 sign-extended by bit 31,
/// and then A is the address's low 17 bits. The sum wraps at 32 bits like
/// the other DS addresses (a negative result is out of range).
pub(crate) fn src2_addresses(addr: u32, offset: u16) -> (u32, u32) {
    let (a, stride) = if offset & 0x8000 != 0 {
        (
            addr & 0x1_ffff,
            ((addr >> 17) & 0x7fff) as u16 | ((addr >> 16) & 0x8000) as u16,
        )
    } else {
        (addr, (offset & 0x7fff) | ((offset << 1) & 0x8000))
    };
    (a, a.wrapping_add((stride as i16 as i32 * 4) as u32))
}

/// `ds_*_src2_*`: `MEM[A] = op(MEM[A], MEM[B])` for each active lane in lane
/// order ([`src2_addresses`]); no data registers, no return.
fn ds_src2(op: At, wide: bool, w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    // `ds_add_src2_f32` uses the LDS f32 adder, which follows MODE's f32
    // denormal bits like `ds_add_f32`.
    let op = match (op, super::operand::denorms(w, false)) {
        (At::FaddF32, (keep_in, keep_out)) if !(keep_in && keep_out) => {
            At::FaddF32Mode(keep_in, keep_out)
        }
        _ => op,
    };
    let exec = w.exec.0 & w.full_mask();
    let a = v32(w, &i.src[0], Ty::I)?;
    let size = if wide { 8 } else { 4 };
    for (l, &addr) in a.iter().enumerate().take(w.size as usize) {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let (ra, rb) = src2_addresses(addr, i.mem.offset as u16);
        let (mut x, mut y) = ([0u8; 8], [0u8; 8]);
        lds.read(ra as u64, &mut x[..size]).map_err(lane_err(l))?;
        lds.read(rb as u64, &mut y[..size]).map_err(lane_err(l))?;
        let new = atomic_op(op, u64::from_le_bytes(x), u64::from_le_bytes(y), 0, wide);
        lds.write(ra as u64, &new.to_le_bytes()[..size])
            .map_err(lane_err(l))?;
    }
    Ok(())
}

/// `ds_append` / `ds_consume` on LDS (Vega ISA: "Add (count_bits(exec_mask))
/// to the value stored in DS memory at (M0.base + instr_offset). Return the
/// pre-operation value to VGPRs"): one read-modify-write of the dword at
/// `M0[15:0] + offset` for the whole wave (consume subtracts), wrapping at
/// 32 bits, and every active lane receives the value before it.
fn ds_append(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    let exec = w.exec.0 & w.full_mask();
    let addr = (w.m0 & 0xffff) as u64 + (i.mem.offset as u32 & 0xffff) as u64;
    let mut b = [0u8; 4];
    lds.read(addr, &mut b)?;
    let old = u32::from_le_bytes(b);
    let n = exec.count_ones();
    let new = if k == MemKind::DsAppend {
        old.wrapping_add(n)
    } else {
        old.wrapping_sub(n)
    };
    lds.write(addr, &new.to_le_bytes())?;
    super::operand::wv32(w, &i.dst[0], &[old; 64], exec)
}

/// `ds_read_addtid_b32` / `ds_write_addtid_b32`: lane `l` reads or writes
/// the dword at `M0[15:0] + offset + 4 * l` (no address register).
fn ds_addtid(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    let exec = w.exec.0 & w.full_mask();
    let base = (w.m0 & 0xffff) as u64 + (i.mem.offset as u32 & 0xffff) as u64;
    if k == MemKind::DsWriteAddtid {
        let d = v32(w, &i.src[1], Ty::I)?;
        for (l, x) in d.iter().enumerate().take(w.size as usize) {
            if (exec >> l) & 1 != 0 {
                lds.write(base + 4 * l as u64, &x.to_le_bytes())
                    .map_err(lane_err(l))?;
            }
        }
        return Ok(());
    }
    let mut r = [0u32; 64];
    for (l, x) in r.iter_mut().enumerate().take(w.size as usize) {
        if (exec >> l) & 1 != 0 {
            let mut b = [0u8; 4];
            lds.read(base + 4 * l as u64, &mut b).map_err(lane_err(l))?;
            *x = u32::from_le_bytes(b);
        }
    }
    super::operand::wv32(w, &i.dst[0], &r, exec)
}

/// `global_load_dword_addtid` / `global_store_dword_addtid` (RDNA2): lane
/// `l` accesses the dword at `SADDR + offset + 4 * l` (SADDR `off`: 0).
fn global_addtid(k: MemKind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    let exec = w.exec.0 & w.full_mask();
    let base = if i.mem.has(flags::SADDR_OFF) {
        0
    } else {
        s64(w, &i.src[2])?
    }
    .wrapping_add_signed(i.mem.offset as i64);
    let mut cur = PageCursor::new(ctx.mem);
    if k == MemKind::GStoreAddtid {
        let d = v32(w, &i.src[1], Ty::I)?;
        for (l, x) in d.iter().enumerate().take(w.size as usize) {
            if (exec >> l) & 1 != 0 {
                cur.write(base.wrapping_add(4 * l as u64), &x.to_le_bytes())
                    .map_err(lane_err(l))?;
            }
        }
        return Ok(());
    }
    let mut r = [0u32; 64];
    for (l, x) in r.iter_mut().enumerate().take(w.size as usize) {
        if (exec >> l) & 1 != 0 {
            let mut b = [0u8; 4];
            cur.read(base.wrapping_add(4 * l as u64), &mut b)
                .map_err(lane_err(l))?;
            *x = u32::from_le_bytes(b);
        }
    }
    super::operand::wv32(w, &i.dst[0], &r, exec)
}

/// `s_scratch_load_dword*` / `s_scratch_store_dword*` (GFX9, gfx1010): the
/// wave's own scratch, unswizzled, at `SBASE + (offset & !3) +
/// (SOFFSET & !3) * 64` (Vega ISA "Scalar memory": the SGPR offset is scaled
/// by 64; CLRX's GCN notes give the same formula). SBASE normally holds
/// FLAT_SCRATCH, the base of the wave's scratch backing store; an address
/// outside that store is reported as unsupported.
fn smem_scratch(k: MemKind, w: &mut Wave, i: &Inst) -> R {
    use MemKind::*;
    let (dwords, store) = match k {
        SScratchLoad1 => (1u8, false),
        SScratchLoad2 => (2, false),
        SScratchLoad4 => (4, false),
        SScratchStore1 => (1, true),
        SScratchStore2 => (2, true),
        _ => (4, true),
    };
    let mut addr = s64(w, &i.src[0])?;
    if i.mem.has(flags::IMM) {
        addr = addr.wrapping_add((i.mem.offset as i64 as u64) & !3);
    }
    if i.mem.has(flags::SOE) && i.src[1].is_some() {
        addr = addr.wrapping_add(((s32(w, &i.src[1])? & !3) as u64) * 64);
    }
    if !(SCRATCH_BACKING..SCRATCH_BACKING + APERTURE_SIZE).contains(&addr) {
        return unsupported(format!(
            "scalar scratch address {addr:#x} outside the wave's scratch"
        ));
    }
    let off = addr - SCRATCH_BACKING;
    let mut b = vec![0u8; 4 * dwords as usize];
    if store {
        for (d, c) in b.chunks_exact_mut(4).enumerate() {
            let v = w
                .read_sdword(&i.dst[0], d as u8)
                .ok_or_else(|| E::Unsupported(format!("scalar data operand {}", i.dst[0])))?;
            c.copy_from_slice(&v.to_le_bytes());
        }
        return w.scratch.write_backing(off, &b).map_err(|f| E::Fault(f, 0));
    }
    w.scratch
        .read_backing(off, &mut b)
        .map_err(|f| E::Fault(f, 0))?;
    for (d, c) in b.chunks_exact(4).enumerate() {
        let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        if !w.write_sdword(&i.dst[0], d as u8, v) {
            return unsupported(format!("scalar destination {}", i.dst[0]));
        }
    }
    Ok(())
}

/// One buffer access of `size` bytes per active lane through the MUBUF /
/// MTBUF addressing of `i` ([`buffer_targets`], range checking included):
/// with `data` (dwords per lane) a store, else a load returning each lane's
/// dwords.
pub(crate) fn buffer_access(
    w: &mut Wave,
    i: &Inst,
    lds: &mut Bytes,
    ctx: &Ctx,
    size: usize,
    data: Option<&[[u32; 64]]>,
) -> Result<Vec<[u32; 4]>, E> {
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let mut targets = [Target::Global(0); 64];
    buffer_targets(w, i, &mut targets)?;
    let mut cur = PageCursor::new(ctx.mem);
    let mut vals = vec![[0u32; 4]; n];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let mut b = [0u8; 16];
        if let Some(d) = data {
            for (k, r) in d.iter().enumerate().take(4) {
                b[4 * k..4 * k + 4].copy_from_slice(&r[l].to_le_bytes());
            }
            write(targets[l], l, &b[..size], w, lds, &mut cur)?;
        } else {
            read(targets[l], l, &mut b[..size], w, lds, &mut cur)?;
            vals[l] = loaded_dwords(&b, size, Ext::Zero);
        }
    }
    Ok(vals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn src2_strides_from_the_offset_or_the_address() {
        // Offset 2: B two dwords on.
        assert_eq!(src2_addresses(0x100, 2), (0x100, 0x108));
        // 15-bit offset 0x7ffe is -2 dwords.
        assert_eq!(src2_addresses(0x100, 0x7ffe), (0x100, 0xf8));
        // Offset bit 15: the stride is address bits 31:17 and A its low 17 bits.
        assert_eq!(src2_addresses(0x40 | 5 << 17, 0x8000), (0x40, 0x54));
        assert_eq!(src2_addresses(0x40 | 0xfffe_0000, 0x8000), (0x40, 0x3c));
    }

    #[test]
    fn float_atomics_follow_min_max_num_and_float_equality() {
        let f = |x: f32| x.to_bits() as u64;
        assert_eq!(atomic_op(At::FminF32, f(-0.0), f(0.0), 0, false), f(-0.0));
        assert_eq!(atomic_op(At::FmaxF32, f(-0.0), f(0.0), 0, false), f(0.0));
        assert_eq!(
            atomic_op(At::FminF32, f(f32::NAN), f(2.0), 0, false),
            f(2.0)
        );
        // Compare-swap: +0 matches -0, NaN matches nothing.
        assert_eq!(
            atomic_op(At::FcmpswapF32, f(0.0), f(7.0), f(-0.0), false),
            f(7.0)
        );
        let nan = f(f32::NAN);
        assert_eq!(atomic_op(At::FcmpswapF32, nan, f(7.0), nan, false), nan);
        // 1 + 2 = 3 and 2048 + 1 ties to 2048, in the two halves.
        assert_eq!(
            atomic_op(At::PkAddF16, 0x6800_3c00, 0x3c00_4000, 0, false),
            0x6800_4200
        );
        // Wrap: subtract when at least data0, else add data1.
        assert_eq!(atomic_op(At::Wrap, 10, 100, 4, false), 6);
        assert_eq!(atomic_op(At::Wrap, 3, 100, 4, false), 103);
    }
}

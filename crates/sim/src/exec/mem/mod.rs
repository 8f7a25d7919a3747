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

mod atomic;
mod buffer;
mod gds;
mod global;
mod lds;
mod shape;
mod smem;
pub(super) mod smem_store;

pub(crate) use atomic::atomic_op;
pub(crate) use buffer::buffer_access;
pub(crate) use shape::{At, Shape, shape};

use atomic::*;
use buffer::*;
use gds::*;
use global::*;
use lds::*;
use shape::*;
use smem::*;

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

/// The thread-id forms (`ds_*_addtid_b32`, `global_*_dword_addtid`): each
/// active lane `l` stores its data dword to, or loads its destination dword
/// from, `at(4 * l)`.
fn addtid(
    store: bool,
    w: &mut Wave,
    i: &Inst,
    lds: &mut Bytes,
    ctx: &Ctx,
    at: impl Fn(u64) -> Target,
) -> R {
    let exec = w.exec.0 & w.full_mask();
    let mut cur = PageCursor::new(ctx.mem);
    let lanes = (0..w.size as usize).filter(|l| (exec >> l) & 1 != 0);
    if store {
        let d = v32(w, &i.src[1], Ty::I)?;
        for l in lanes {
            write(at(4 * l as u64), l, &d[l].to_le_bytes(), w, lds, &mut cur)?;
        }
        return Ok(());
    }
    let mut r = [0u32; 64];
    for l in lanes {
        let mut b = [0u8; 4];
        read(at(4 * l as u64), l, &mut b, w, lds, &mut cur)?;
        r[l] = u32::from_le_bytes(b);
    }
    super::operand::wv32(w, &i.dst[0], &r, exec)
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
        return exec_gds(k, w, i, ctx);
    }
    exec_ds(k, w, i, lds, ctx)
}

/// The rest of [`exec`]: LDS operations in `lds` (GDS memory for the `gds`
/// forms), and the vector memory operations.
fn exec_ds(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes, ctx: &Ctx) -> R {
    use MemKind::*;
    match k {
        DsRead2B32 | DsRead2B64 | DsRead2St64B32 | DsRead2St64B64 | DsWrite2B32 | DsWrite2B64
        | DsWrite2St64B32 | DsWrite2St64B64 | DsWrxchg2B32 | DsWrxchg2B64 | DsWrxchg2St64B32
        | DsWrxchg2St64B64 => return ds2(k, w, i, lds),
        DsReadU8D16 | DsReadU8D16Hi | DsReadI8D16 | DsReadI8D16Hi | DsReadU16D16
        | DsReadU16D16Hi | DsWriteB8D16Hi | DsWriteB16D16Hi => return ds_d16(k, w, i, lds),
        DsAppend | DsConsume => return ds_append(k, w, i, lds),
        DsCondxchg32 => return ds_condxchg32(w, i, lds),
        BStoreLds => return store_from_lds(w, i, lds, ctx),
        DsReadAddtid | DsWriteAddtid => return ds_addtid(k, w, i, lds, ctx),
        GLoadAddtid | GStoreAddtid => return global_addtid(k, w, i, lds, ctx),
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
        return load_to_lds(sh, w, i, lds, ctx);
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
            atomic(op, wide, w, i, lds, ctx, &targets, data_op, pairs, exec, n)?
        }
        Shape::Nop => {}
    }
    Ok(())
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

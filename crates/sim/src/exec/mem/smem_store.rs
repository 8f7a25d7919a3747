//! Scalar memory writes: `s_store_dword{,x2,x4}`, `s_buffer_store_dword{,x2,x4}`
//! and the scalar atomics `s_atomic_*` / `s_buffer_atomic_*` (GFX9 and
//! gfx1010; gfx1030 has none of them).
//!
//! The address is formed as for scalar loads (Vega ISA, "Scalar Memory
//! Operations"): `sbase` (an address pair, or for the buffer forms the base
//! address in bits 47:0 of the descriptor), plus the immediate offset, plus
//! `soffset`, with the two low bits ignored. As for `s_buffer_load_*`, the
//! buffer forms are range-checked (see [`buffer_dwords`]): a dword outside
//! the buffer is not written, and an atomic outside it is reported.
//!
//! Atomics (Vega ISA, "SMEM Instructions", `S_ATOMIC_*`): the 32- or 64-bit
//! memory value is replaced by the same function the vector atomics use
//! (`mem::atomic_op`); compare-and-swap takes the new value from `sdata[0]`
//! (`sdata[0:1]`) and the compared value from the next dword (pair). With
//! `glc` the value before the operation is returned to `sdata`.

use super::super::operand::{s32, s64};
use super::{At, Ctx, E, MemKind, R, Shape, atomic_op, shape, unsupported};
use crate::wave::Wave;
use amdgpu_isa::mem::{MemOp, flags};
use amdgpu_isa::{Encoding, Inst, Op};
use std::sync::OnceLock;

/// Whether `k`, decoded from SMEM instruction `i`, is a scalar store or
/// atomic executed here.
pub(crate) fn handles(k: MemKind, i: &Inst) -> bool {
    use MemKind::*;
    i.encoding == Encoding::Smem
        && (matches!(
            k,
            SStore1 | SStore2 | SStore4 | SBufStore1 | SBufStore2 | SBufStore4
        ) || matches!(shape(k), Some(Shape::Atomic(..))))
}

/// Whether memory operation `op` is a buffer form (`s_buffer_*`): its
/// `sbase` is a buffer descriptor. From the names, once.
fn is_buffer(op: MemOp) -> bool {
    static T: OnceLock<Vec<bool>> = OnceLock::new();
    T.get_or_init(|| {
        (0..4096u16)
            .map(|i| MemOp(i).name().starts_with("s_buffer_"))
            .collect()
    })
    .get(op.0 as usize)
    .copied()
    .unwrap_or(false)
}

/// The dword-aligned address of scalar memory instruction `i`.
fn address(w: &Wave, i: &Inst) -> Result<u64, E> {
    scalar_address(w, i, matches!(i.op, Op::Mem(op) if is_buffer(op)))
}

/// The dword-aligned address of scalar memory instruction `i` (loads, stores and
/// atomics): the 64-bit base in `src[0]` (with `buffer`, the base address field of
/// the buffer descriptor there) plus the immediate and the SGPR offset. The two low
/// address bits are ignored (Vega ISA, "Scalar memory").
pub(crate) fn scalar_address(w: &Wave, i: &Inst, buffer: bool) -> Result<u64, E> {
    let base = if buffer {
        descriptor(w, i, 0)? as u64 | (descriptor(w, i, 1)? as u64 & 0xffff) << 32
    } else {
        s64(w, &i.src[0])?
    };
    Ok(base.wrapping_add(scalar_offset(w, i)?) & !3)
}

/// Dword `k` of the buffer descriptor in `src[0]`.
fn descriptor(w: &Wave, i: &Inst, k: u8) -> Result<u32, E> {
    w.read_sdword(&i.src[0], k)
        .ok_or_else(|| E::Unsupported(format!("buffer descriptor {}", i.src[0])))
}

/// The byte offset of scalar memory instruction `i`: the immediate plus the
/// SGPR offset.
fn scalar_offset(w: &Wave, i: &Inst) -> Result<u64, E> {
    let mut off: u64 = 0;
    if i.mem.has(flags::IMM) {
        off = off.wrapping_add(i.mem.offset as i64 as u64);
    }
    if i.mem.has(flags::SOE) && i.src[1].is_some() {
        off = off.wrapping_add(s32(w, &i.src[1])? as u64);
    }
    Ok(off)
}

/// Which of the `dwords` dwords of buffer instruction `i` (`s_buffer_*`) lie
/// inside its buffer, as a bit mask. Dword `k` is at byte offset
/// `(offset & !3) + 4k` of a buffer of `(stride == 0 ? 1 : stride) *
/// num_records` bytes (RDNA3 ISA, "Scalar memory" buffer addressing, `m_size`;
/// the GCN, Vega and RDNA2 guides misprint it as `(m_stride == 0) ? 1 :
/// m_num_records`). "If the memory address is out-of-range, the operation is
/// not performed for any dwords that are out-of-range" (ISA, "Address and GPR
/// range checking", as quoted in LLVM pull request 117997): a load reads 0
/// there, a store writes nothing. A dword straddling the end is reported.
pub(crate) fn buffer_dwords(w: &Wave, i: &Inst, dwords: usize) -> Result<u32, E> {
    let stride = ((descriptor(w, i, 1)? >> 16) & 0x3fff) as u64;
    let size = stride.max(1) * descriptor(w, i, 2)? as u64;
    let start = scalar_offset(w, i)? & !3;
    let mut inside = 0;
    for k in 0..dwords {
        let o = start.wrapping_add(4 * k as u64);
        if o.checked_add(4).is_some_and(|end| end <= size) {
            inside |= 1 << k;
        } else if o < size {
            return unsupported(format!(
                "scalar buffer dword at offset {o:#x} straddling the end of a {size}-byte buffer"
            ));
        }
    }
    Ok(inside)
}

/// Dword `k` of the data operand.
fn data(w: &Wave, i: &Inst, k: u8) -> Result<u32, E> {
    w.read_sdword(&i.dst[0], k)
        .ok_or_else(|| E::Unsupported(format!("scalar data operand {}", i.dst[0])))
}

/// Executes scalar store or atomic `k` (one of [`handles`]).
pub(crate) fn exec(k: MemKind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    use MemKind::*;
    let addr = address(w, i)?;
    let buffer = matches!(i.op, Op::Mem(op) if is_buffer(op));
    let dwords = match k {
        SStore1 | SBufStore1 => 1,
        SStore2 | SBufStore2 => 2,
        SStore4 | SBufStore4 => 4,
        _ => {
            let Some(Shape::Atomic(op, wide)) = shape(k) else {
                return Err(E::Unimpl);
            };
            let n = if wide { 2 } else { 1 };
            if buffer && buffer_dwords(w, i, n)? != (1 << n) - 1 {
                return unsupported("a scalar buffer atomic outside its buffer (NUM_RECORDS)");
            }
            return atomic(op, wide, w, i, ctx, addr);
        }
    };
    let inside = if buffer {
        buffer_dwords(w, i, dwords)?
    } else {
        u32::MAX
    };
    for d in 0..dwords {
        if (inside >> d) & 1 != 0 {
            let bytes = data(w, i, d as u8)?.to_le_bytes();
            ctx.mem
                .write(addr.wrapping_add(4 * d as u64), &bytes)
                .map_err(|f| E::Fault(f, 0))?;
        }
    }
    Ok(())
}

fn atomic(op: At, wide: bool, w: &mut Wave, i: &Inst, ctx: &Ctx, addr: u64) -> R {
    let n = if wide { 2 } else { 1 };
    let value = |first: u8| -> Result<u64, E> {
        let lo = data(w, i, first)? as u64;
        Ok(if wide {
            lo | (data(w, i, first + 1)? as u64) << 32
        } else {
            lo
        })
    };
    let src = value(0)?;
    let cmp = if op == At::Cmpswap { value(n)? } else { 0 };
    let old = if wide {
        let old = ctx
            .mem
            .atomic::<8>(addr, |o| {
                atomic_op(op, u64::from_le_bytes(o), src, cmp, true).to_le_bytes()
            })
            .map_err(|f| E::Fault(f, 0))?;
        u64::from_le_bytes(old)
    } else {
        let old = ctx
            .mem
            .atomic::<4>(addr, |o| {
                (atomic_op(op, u32::from_le_bytes(o) as u64, src, cmp, false) as u32).to_le_bytes()
            })
            .map_err(|f| E::Fault(f, 0))?;
        u32::from_le_bytes(old) as u64
    };
    if i.mem.has(flags::GLC) {
        for d in 0..n {
            if !w.write_sdword(&i.dst[0], d, (old >> (32 * d)) as u32) {
                return unsupported(format!("scalar destination {}", i.dst[0]));
            }
        }
    }
    Ok(())
}

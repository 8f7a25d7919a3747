//! Scalar memory writes: `s_store_dword{,x2,x4}`, `s_buffer_store_dword{,x2,x4}`
//! and the scalar atomics `s_atomic_*` / `s_buffer_atomic_*` (GFX9 and
//! gfx1010; gfx1030 has none of them).
//!
//! The address is formed as for scalar loads (Vega ISA, "Scalar Memory
//! Operations"): `sbase` (an address pair, or for the buffer forms the base
//! address in bits 47:0 of the descriptor), plus the immediate offset, plus
//! `soffset`, with the two low bits ignored. As for `s_buffer_load_*`, the
//! descriptor's stride and record count are not applied.
//!
//! Atomics (Vega ISA, "SMEM Instructions", `S_ATOMIC_*`): the 32- or 64-bit
//! memory value is replaced by the same function the vector atomics use
//! (`mem::atomic_op`); compare-and-swap takes the new value from `sdata[0]`
//! (`sdata[0:1]`) and the compared value from the next dword (pair). With
//! `glc` the value before the operation is returned to `sdata`.

use super::mem::{At, Shape, atomic_op, shape};
use super::salu::{s32, s64};
use super::{Ctx, E, MemKind, R, unsupported};
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
        let dword = |k| {
            w.read_sdword(&i.src[0], k)
                .ok_or_else(|| E::Unsupported(format!("buffer descriptor {}", i.src[0])))
        };
        dword(0)? as u64 | (dword(1)? as u64 & 0xffff) << 32
    } else {
        s64(w, &i.src[0])?
    };
    let mut off: u64 = 0;
    if i.mem.has(flags::IMM) {
        off = off.wrapping_add(i.mem.offset as i64 as u64);
    }
    if i.mem.has(flags::SOE) && i.src[1].is_some() {
        off = off.wrapping_add(s32(w, &i.src[1])? as u64);
    }
    Ok(base.wrapping_add(off) & !3)
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
    let dwords = match k {
        SStore1 | SBufStore1 => 1,
        SStore2 | SBufStore2 => 2,
        SStore4 | SBufStore4 => 4,
        _ => {
            let Some(Shape::Atomic(op, wide)) = shape(k) else {
                return Err(E::Unimpl);
            };
            return atomic(op, wide, w, i, ctx, addr);
        }
    };
    let mut bytes = Vec::with_capacity(4 * dwords);
    for d in 0..dwords {
        bytes.extend_from_slice(&data(w, i, d as u8)?.to_le_bytes());
    }
    ctx.mem.write(addr, &bytes).map_err(|f| E::Fault(f, 0))
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

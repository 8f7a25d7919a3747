//! DS instructions on the global data share (`gds`): GWS operations, the
//! ordered count, and the ordinary DS operations on GDS memory (see
//! [`crate::memory::gds`] for the model).

use super::*;
use crate::memory::gds::{GwsOp, Wait};
use crate::wave::{OrderedTurn, WaveStatus};

/// The value a GWS or ordered-count operation takes: the operand of the first
/// active lane (lane 0 when EXEC is zero; RDNA3 guide §13.4.2).
fn first_lane(w: &Wave, op: &Operand) -> Result<u32, E> {
    if !op.is_some() {
        return Ok(0);
    }
    let v = v32(w, op, Ty::I)?;
    let exec = w.exec.0 & w.full_mask();
    Ok(v[if exec == 0 {
        0
    } else {
        exec.trailing_zeros() as usize
    }])
}

/// Executes a DS instruction with the `gds` bit.
pub(super) fn exec_gds(k: MemKind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    use MemKind::*;
    let gws = match k {
        DsGwsInit => Some(GwsOp::Init),
        DsGwsSemaV => Some(GwsOp::SemaV),
        DsGwsSemaBr => Some(GwsOp::SemaBr),
        DsGwsSemaP => Some(GwsOp::SemaP),
        DsGwsSemaReleaseAll => Some(GwsOp::SemaReleaseAll),
        DsGwsBarrier => Some(GwsOp::Barrier),
        _ => None,
    };
    if let Some(op) = gws {
        // (M0[21:16] + offset0[5:0]) % 64.
        let rid = (((w.m0 >> 16) & 0x3f) + (i.mem.offset0 as u32 & 0x3f)) % 64;
        let value = first_lane(w, &i.src[0])?;
        if let Some(wait) = ctx.mem.gds().gws(op, rid as u8, value) {
            w.wait = Some(wait);
            w.status = WaveStatus::Waiting;
        }
        return Ok(());
    }
    if k == DsOrderedCount {
        return ordered_count(w, i, ctx);
    }
    let mut st = ctx.mem.gds().lock();
    exec_ds(k, w, i, &mut st.mem, ctx)
}

/// `ds_ordered_count`: waits (PC at the instruction) until the wave's turn,
/// then adds to or swaps the GDS dword at `M0[15:0] + offset0`.
fn ordered_count(w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    if w.ordered != OrderedTurn::Granted {
        // Not its turn: undo the issue and wait for it.
        w.pc = w.pc.wrapping_sub(i.size as u64);
        w.executed = w.executed.saturating_sub(1);
        w.lane_ops = w.lane_ops.saturating_sub(w.exec.count() as u64);
        w.wait = Some(Wait::Ordered);
        w.status = WaveStatus::Waiting;
        return Ok(());
    }
    let o1 = i.mem.offset1 as u32;
    let release = o1 & 1 != 0;
    let op = (o1 >> 4) & 3;
    if ctx.gfx10() && (o1 >> 6) & 3 != 0 {
        return unsupported(format!(
            "ds_ordered_count of {} dwords (only one is modelled)",
            ((o1 >> 6) & 3) + 1
        ));
    }
    if op > 1 {
        return unsupported(format!(
            "ds_ordered_count operation {op} (add and swap are modelled)"
        ));
    }
    let value = first_lane(w, &i.src[0])?;
    let addr = (w.m0 & 0xffff) as u64 + i.mem.offset0 as u64;
    let old = {
        let mut st = ctx.mem.gds().lock();
        let mut b = [0u8; 4];
        st.mem.read(addr, &mut b)?;
        let old = u32::from_le_bytes(b);
        let new = if op == 0 {
            old.wrapping_add(value)
        } else {
            value
        };
        st.mem.write(addr, &new.to_le_bytes())?;
        old
    };
    w.ordered = if release {
        OrderedTurn::Released
    } else {
        OrderedTurn::Before
    };
    let exec = w.exec.0 & w.full_mask();
    super::super::operand::wv32(w, &i.dst[0], &[old; 64], exec)
}

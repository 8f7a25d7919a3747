//! Hardware registers (`s_getreg` / `s_setreg`) and MODE.GPR_IDX_EN.

use super::*;

/// Sets or clears MODE.GPR_IDX_EN.
pub(super) fn set_gpr_idx_en(w: &mut Wave, on: bool) {
    if let Some(m) = w.hwreg.get_mut(crate::wave::HW_REG_MODE) {
        let bit = 1 << super::super::operand::MODE_GPR_IDX_EN;
        *m = if on { *m | bit } else { *m & !bit };
    }
}

/// `s_getreg_b32` / `s_setreg_b32` / `s_setreg_imm32_b32`: hardware register
/// `id` (simm16 bits 5:0), bit offset (10:6), size - 1 (15:11). The flat
/// scratch registers of GFX10 (ids 20, 21) map onto FLAT_SCRATCH; the others
/// are kept as plain storage.
pub(super) fn hwreg(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    let s = imm16(i) as u32 & 0xffff;
    let id = (s & 0x3f) as usize;
    let off = (s >> 6) & 0x1f;
    let size = ((s >> 11) & 0x1f) + 1;
    let mask = if size >= 32 {
        u32::MAX
    } else {
        ((1u32 << size) - 1) << off
    };
    let read = |w: &Wave| -> u32 {
        match id {
            20 if ctx.gfx10() => w.flat_scratch as u32,
            21 if ctx.gfx10() => (w.flat_scratch >> 32) as u32,
            _ => w.hwreg.get(id).copied().unwrap_or(0),
        }
    };
    if k == Kind::SGetreg {
        let v = (read(w) & mask) >> off;
        return set32(w, &i.dst[0], v);
    }
    let src = if k == Kind::SSetregImm {
        match i.src.iter().skip(1).find(|o| o.is_some()) {
            Some(o) => s32(w, o)?,
            None => return unsupported("s_setreg_imm32_b32 without a literal"),
        }
    } else {
        // The SOPK "sdst" field is the source of s_setreg.
        s32(w, &i.dst[0])?
    };
    let new = (read(w) & !mask) | ((src << off) & mask);
    match id {
        20 if ctx.gfx10() => w.flat_scratch = (w.flat_scratch & !0xffff_ffff) | new as u64,
        21 if ctx.gfx10() => w.flat_scratch = (w.flat_scratch & 0xffff_ffff) | (new as u64) << 32,
        _ => {
            if let Some(r) = w.hwreg.get_mut(id) {
                *r = new;
            }
        }
    }
    Ok(())
}

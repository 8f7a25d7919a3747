//! Operands of the ALU executors: scalar sources and destinations, vector
//! sources fetched into lane arrays (scalars and constants broadcast) and
//! written back under EXEC, the SDWA source override, float input modifiers
//! and MODE's denormal and rounding controls, the 16-bit sources and results
//! (`op_sel` halves, the GFX10 rule that keeps the high half of the
//! destination), and GFX9 VGPR indexing. Scalar and vector execution both
//! take their operands from here.

use super::{Ctx, E, R, unsupported};
use crate::alu::*;
use crate::wave::{HW_REG_MODE, MODE_DEFAULT, Wave};
use amdgpu_isa::operand::inline_float_bits;
use amdgpu_isa::{Inst, Operand, SpecialReg};

/// Reads a 32-bit scalar source.
pub(crate) fn s32(w: &Wave, op: &Operand) -> Result<u32, E> {
    Ok(match *op {
        Operand::InlineInt(v) => v as i32 as u32,
        Operand::InlineFloat(c) => inline_float_bits(c, 32).unwrap_or(0) as u32,
        Operand::Literal(v) => v,
        Operand::Imm(v) => v as u32,
        _ => match w.read_sdword(op, 0) {
            Some(v) => v,
            None => return unsupported(format!("scalar source {op}")),
        },
    })
}

/// Reads a 64-bit scalar source (a register pair, or a constant extended
/// to 64 bits: inline integers sign-extend, inline floats are f64 patterns,
/// literals zero-extend).
pub(crate) fn s64(w: &Wave, op: &Operand) -> Result<u64, E> {
    Ok(match *op {
        Operand::InlineInt(v) => v as i64 as u64,
        Operand::InlineFloat(c) => inline_float_bits(c, 64).unwrap_or(0),
        Operand::Literal(v) => v as u64,
        Operand::Imm(v) => v as i64 as u64,
        Operand::Special { count: 1, .. } | Operand::Sgpr { count: 1, .. } => s32(w, op)? as u64,
        _ => {
            let lo = w.read_sdword(op, 0);
            let hi = w.read_sdword(op, 1);
            match (lo, hi) {
                (Some(lo), Some(hi)) => lo as u64 | (hi as u64) << 32,
                _ => return unsupported(format!("64-bit scalar source {op}")),
            }
        }
    })
}

pub(crate) fn set32(w: &mut Wave, op: &Operand, v: u32) -> R {
    if w.write_sdword(op, 0, v) {
        Ok(())
    } else {
        unsupported(format!("scalar destination {op}"))
    }
}

pub(crate) fn set64(w: &mut Wave, op: &Operand, v: u64) -> R {
    if w.write_sdword(op, 0, v as u32) && w.write_sdword(op, 1, (v >> 32) as u32) {
        Ok(())
    } else {
        unsupported(format!("64-bit scalar destination {op}"))
    }
}

pub(crate) type L32 = [u32; 64];
pub(crate) type L64 = [u64; 64];

/// How an operand's inline float constants and literals are typed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    /// Integer (inline floats as f32 patterns, literals as is).
    I,
    /// f16.
    H,
    /// f32.
    F,
    /// f64 (a literal is the high dword).
    D,
}

pub(crate) fn vreg(w: &Wave, index: u8, agpr: bool) -> Result<&L32, E> {
    let file = if agpr { &w.agpr } else { &w.vgpr };
    match file.get(index as usize) {
        Some(r) => Ok(r),
        None if agpr => Ok(&ZERO),
        None => unsupported(format!("v{index}")),
    }
}

static ZERO: L32 = [0; 64];

/// Fetches a 32-bit source into lanes.
pub(crate) fn v32(w: &Wave, op: &Operand, ty: Ty) -> Result<L32, E> {
    Ok(match *op {
        Operand::Vgpr { index, .. } => *vreg(w, index, false)?,
        Operand::Agpr { index, .. } => *vreg(w, index, true)?,
        Operand::InlineFloat(c) => {
            let bits = match ty {
                Ty::H => 16,
                _ => 32,
            };
            [inline_float_bits(c, bits).unwrap_or(0) as u32; 64]
        }
        _ => [s32(w, op)?; 64],
    })
}

/// Fetches a 64-bit source into lanes.
pub(crate) fn v64(w: &Wave, op: &Operand, ty: Ty) -> Result<L64, E> {
    let mut out = [0u64; 64];
    match *op {
        Operand::Vgpr { index, .. } | Operand::Agpr { index, .. } => {
            let agpr = matches!(op, Operand::Agpr { .. });
            let lo = vreg(w, index, agpr)?;
            let hi = vreg(w, index.wrapping_add(1), agpr)?;
            for l in 0..64 {
                out[l] = lo[l] as u64 | (hi[l] as u64) << 32;
            }
        }
        Operand::Literal(v) if ty == Ty::D => out = [(v as u64) << 32; 64],
        Operand::InlineFloat(c) => out = [inline_float_bits(c, 64).unwrap_or(0); 64],
        _ => out = [s64(w, op)?; 64],
    }
    Ok(out)
}

pub(crate) fn vdst<'a>(w: &'a mut Wave, op: &Operand, part: u8) -> Result<&'a mut L32, E> {
    let (index, agpr) = match *op {
        Operand::Vgpr { index, .. } => (index, false),
        Operand::Agpr { index, .. } => (index, true),
        _ => return unsupported(format!("vector destination {op}")),
    };
    let r = index as usize + part as usize;
    if agpr && w.agpr.is_empty() {
        w.agpr = vec![[0; 64]; crate::wave::NUM_VGPRS];
    }
    let file = if agpr { &mut w.agpr } else { &mut w.vgpr };
    match file.get_mut(r) {
        Some(v) => Ok(v),
        None => unsupported(format!("vector destination {op}")),
    }
}

/// Writes a 32-bit result to the lanes in `exec`.
pub(crate) fn wv32(w: &mut Wave, op: &Operand, r: &L32, exec: u64) -> R {
    let d = vdst(w, op, 0)?;
    for l in 0..64 {
        // A branch-free select, so the loop vectorises.
        let m = 0u32.wrapping_sub(((exec >> l) & 1) as u32);
        d[l] = (r[l] & m) | (d[l] & !m);
    }
    Ok(())
}

/// Writes a 64-bit result to the lanes in `exec`.
pub(crate) fn wv64(w: &mut Wave, op: &Operand, r: &L64, exec: u64) -> R {
    {
        let d = vdst(w, op, 0)?;
        for l in 0..64 {
            if (exec >> l) & 1 != 0 {
                d[l] = r[l] as u32;
            }
        }
    }
    let d = vdst(w, op, 1)?;
    for l in 0..64 {
        if (exec >> l) & 1 != 0 {
            d[l] = (r[l] >> 32) as u32;
        }
    }
    Ok(())
}

pub(crate) fn write_mask_dst(w: &mut Wave, op: &Operand, m: u64) -> R {
    match op {
        Operand::None
        | Operand::Special {
            reg: SpecialReg::Null,
            ..
        } => Ok(()),
        _ => {
            if w.write_mask(op, m) {
                Ok(())
            } else {
                unsupported(format!("mask destination {op}"))
            }
        }
    }
}

pub(crate) fn read_mask_src(w: &Wave, op: &Operand) -> Result<u64, E> {
    match w.read_mask(op) {
        Some(m) => Ok(m),
        None => Ok(s64(w, op)?),
    }
}

pub(crate) fn mode(w: &Wave) -> u32 {
    w.hwreg.get(HW_REG_MODE).copied().unwrap_or(MODE_DEFAULT)
}

/// Whether f32 (`wide` false) or f64/f16 (`wide` true) denormals are kept
/// on input and on output (MODE.FP_DENORM: bit 0 allows input denormals,
/// bit 1 output denormals).
pub(crate) fn denorms(w: &Wave, wide: bool) -> (bool, bool) {
    let m = (mode(w) >> if wide { 6 } else { 4 }) & 3;
    (m & 1 != 0, m & 2 != 0)
}

/// Only round-to-nearest-even is modelled.
pub(crate) fn check_round(w: &Wave) -> R {
    if mode(w) & 0xf != 0 {
        return unsupported(format!("MODE.FP_ROUND {:#x}", mode(w) & 0xf));
    }
    Ok(())
}

pub(crate) fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

pub(crate) fn ftz64(x: f64) -> f64 {
    if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// Per-lane float sources with VOP3 abs/neg applied (and input denormals
/// flushed when MODE says so).
pub(crate) fn f32_src(w: &Wave, ov: Ov, i: &Inst, k: usize) -> Result<[f32; 64], E> {
    check_round(w)?;
    let v = src32(w, ov, i, k, Ty::F)?;
    let (abs, neg) = ((i.alu.abs >> k) & 1 != 0, (i.alu.neg >> k) & 1 != 0);
    let keep = denorms(w, false).0;
    Ok(v.map(|b| {
        let x = f32::from_bits(f32_src_mods(b, abs, neg));
        if keep { x } else { ftz32(x) }
    }))
}

pub(crate) fn f64_src(w: &Wave, _ov: Ov, i: &Inst, k: usize) -> Result<[f64; 64], E> {
    check_round(w)?;
    let v = v64(w, i.src.get(k).unwrap_or(&Operand::None), Ty::D)?;
    let (abs, neg) = ((i.alu.abs >> k) & 1 != 0, (i.alu.neg >> k) & 1 != 0);
    let keep = denorms(w, true).0;
    Ok(v.map(|b| {
        let x = f64::from_bits(f64_src_mods(b, abs, neg));
        if keep { x } else { ftz64(x) }
    }))
}

pub(crate) fn u32_src(w: &Wave, ov: Ov, i: &Inst, k: usize) -> Result<L32, E> {
    src32(w, ov, i, k, Ty::I)
}

/// Sources already selected by an SDWA form (sources 0 and 1).
pub(crate) type Ov<'a> = Option<&'a [L32; 2]>;

/// Source `k` as 32-bit lanes, from the SDWA override when there is one.
pub(crate) fn src32(w: &Wave, ov: Ov, i: &Inst, k: usize, ty: Ty) -> Result<L32, E> {
    if let Some(v) = ov.and_then(|o| o.get(k)) {
        return Ok(*v);
    }
    v32(w, i.src.get(k).unwrap_or(&Operand::None), ty)
}

pub(crate) fn u64_src(w: &Wave, _ov: Ov, i: &Inst, k: usize) -> Result<L64, E> {
    v64(w, i.src.get(k).unwrap_or(&Operand::None), Ty::I)
}

/// Whether MODE keeps f16 (and f64) denormals on input and output and rounds
/// to nearest even: the only mode the 16-bit operations below model.
pub(crate) fn check_half_mode(w: &Wave) -> R {
    check_round(w)?;
    if denorms(w, true) != (true, true) {
        return unsupported("f16 denormal flushing (MODE.FP_DENORM)");
    }
    Ok(())
}

/// 16-bit float source `k`: the half chosen by `op_sel` (VOP3), then `abs`
/// and `neg`.
pub(crate) fn half_src(w: &Wave, ov: Ov, i: &Inst, k: usize) -> Result<[u16; 64], E> {
    let v = src32(w, ov, i, k, Ty::H)?;
    let hi = (i.alu.op_sel >> k) & 1 != 0;
    let (abs, neg) = ((i.alu.abs >> k) & 1 != 0, (i.alu.neg >> k) & 1 != 0);
    Ok(v.map(|x| {
        let h = if hi { (x >> 16) as u16 } else { x as u16 };
        let h = if abs { h & 0x7fff } else { h };
        if neg { h ^ 0x8000 } else { h }
    }))
}

/// Output modifiers of a 16-bit float result: `omod` scales the rounded
/// result, which must stay exactly representable (then scaling before or
/// after the rounding gives the same value); `clamp` limits to [0, 1], NaN
/// to +0.
pub(crate) fn half_out(h: u16, omod: u8, clamp: bool) -> Result<u16, E> {
    let mut h = h;
    if omod != 0 && !f16_is_nan(h) {
        let v = f16_to_f32(h) as f64 * [1.0, 2.0, 4.0, 0.5][omod as usize & 3];
        let r = f64_to_f16(v);
        if f16_to_f32(r) as f64 != v {
            return unsupported("an output modifier that rounds an f16 result");
        }
        h = r;
    }
    if clamp {
        let v = f16_to_f32(h);
        h = if v.is_nan() || v <= 0.0 {
            0
        } else if v >= 1.0 {
            0x3c00
        } else {
            h
        };
    }
    Ok(h)
}

/// Writes 16-bit results: into the low half, the high half zeroed on GFX9 and
/// kept on GFX10 (LLVM's `zeroesHigh16BitsOfDest`, "derived from
/// experimentation"); with VOP3 `op_sel[3]` into the high half on GFX10.
pub(crate) fn half_write(w: &mut Wave, i: &Inst, ctx: &Ctx, exec: u64, r: &[u16; 64]) -> R {
    let d = i.dst[0];
    let old = *vdst(w, &d, 0)?;
    let hi = (i.alu.op_sel >> 3) & 1 != 0;
    if hi && !ctx.gfx10() {
        return unsupported("op_sel on the destination of a GFX9 16-bit operation");
    }
    let v: L32 = std::array::from_fn(|l| {
        let x = r[l] as u32;
        match (hi, ctx.gfx10()) {
            (true, _) => (old[l] & 0xffff) | x << 16,
            (false, true) => (old[l] & 0xffff_0000) | x,
            (false, false) => x,
        }
    });
    wv32(w, &d, &v, exec)
}

/// The bit of MODE that enables VGPR indexing (GFX9 `GPR_IDX_EN`).
pub(crate) const MODE_GPR_IDX_EN: u32 = 27;

/// Whether `s_set_gpr_idx_on` has enabled VGPR indexing.
pub(crate) fn gpr_index_on(w: &Wave) -> bool {
    (mode(w) >> MODE_GPR_IDX_EN) & 1 != 0
}

/// The instruction with the VGPR operands that M0[15:12] selects (src0,
/// src1, src2, dst) moved up by M0[7:0] (Vega ISA §4.6 "GPR indexing").
/// An index beyond the wave's VGPRs, or an indexed AGPR, is reported.
pub(crate) fn gpr_indexed(w: &Wave, i: &Inst) -> Result<Inst, E> {
    let idx = w.m0 & 0xff;
    let enabled = (w.m0 >> 12) & 0xf;
    let n = w.vgpr.len() as u32;
    let shift = |op: &mut Operand, bit: u32| -> R {
        if (enabled >> bit) & 1 == 0 {
            return Ok(());
        }
        match *op {
            Operand::Vgpr { index, count } => {
                let r = index as u32 + idx;
                if r + count as u32 > n {
                    return unsupported(format!(
                        "VGPR index v{index} + {idx} beyond the {n} allocated VGPRs"
                    ));
                }
                *op = Operand::Vgpr {
                    index: r as u8,
                    count,
                };
            }
            Operand::Agpr { .. } => return unsupported("VGPR indexing of an AGPR operand"),
            _ => {}
        }
        Ok(())
    };
    let mut j = *i;
    shift(&mut j.src[0], 0)?;
    shift(&mut j.src[1], 1)?;
    shift(&mut j.src[2], 2)?;
    shift(&mut j.dst[0], 3)?;
    Ok(j)
}

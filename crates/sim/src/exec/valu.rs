//! Vector ALU: VOP1, VOP2, VOPC, VOP3 (and VOP3b), and the VOP3P operations
//! the corpus uses. Sources are fetched once into lane arrays (scalars and
//! constants broadcast), the per-lane semantics are pure functions, and EXEC
//! is applied when the result is written back.

use super::operand::*;
use super::{Ctx, E, Kind, R, kinds::CmpTy, unsupported};
use crate::alu::*;
use crate::wave::{Mask, Wave};
use amdgpu_isa::{Encoding, Inst, Operand};

/// Executes a vector instruction.
pub(crate) fn exec(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    exec_with(k, w, i, ctx, None)
}

/// Executes an SDWA-form instruction (Vega ISA §6.4 / RDNA ISA §6.3
/// "SDWA"): byte or word sources are selected (and sign- or zero-extended)
/// before the operation, and the result is placed into the selected field of
/// the destination, the other bits padded with zeros, sign-extended, or
/// preserved.
pub(crate) fn exec_sdwa(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    let sel = |v: u32, s: u8, sext: bool| -> u32 {
        match s {
            0..=3 => {
                let b = (v >> (8 * s)) & 0xff;
                if sext { b as u8 as i8 as i32 as u32 } else { b }
            }
            4 | 5 => {
                let h = (v >> (16 * (s - 4))) & 0xffff;
                if sext {
                    h as u16 as i16 as i32 as u32
                } else {
                    h
                }
            }
            _ => v,
        }
    };
    let mut ov = [[0u32; 64]; 2];
    for (k2, o) in ov.iter_mut().enumerate() {
        let op = i.src.get(k2).copied().unwrap_or_default();
        if op.is_some() {
            let v = v32(w, &op, Ty::I)?;
            let s = i.alu.sdwa_src_sel(k2);
            let sx = (i.alu.sext >> k2) & 1 != 0;
            *o = v.map(|x| sel(x, s, sx));
        }
    }
    let d = i.dst[0];
    let is_vdst = matches!(d, Operand::Vgpr { .. });
    let old = if is_vdst { *vdst(w, &d, 0)? } else { [0; 64] };
    exec_with(k, w, i, ctx, Some(&ov))?;
    let ds = i.alu.sdwa_dst_sel();
    if is_vdst && ds < 6 {
        let unused = i.alu.sdwa_dst_unused();
        let exec = w.exec.0 & w.full_mask();
        let (shift, width) = if ds < 4 {
            (8 * ds as u32, 8)
        } else {
            (16 * (ds as u32 - 4), 16)
        };
        let fmask = ((1u64 << width) - 1) as u32;
        let r = vdst(w, &d, 0)?;
        for l in 0..64 {
            if (exec >> l) & 1 == 0 {
                continue;
            }
            let f = r[l] & fmask;
            let placed = f << shift;
            let field = fmask << shift;
            r[l] = match unused {
                2 => (old[l] & !field) | placed,
                1 => {
                    let above = if shift + width >= 32 {
                        0
                    } else {
                        u32::MAX << (shift + width)
                    };
                    if (f >> (width - 1)) & 1 != 0 {
                        placed | above
                    } else {
                        placed
                    }
                }
                _ => placed,
            };
        }
    }
    Ok(())
}

/// Executes a DPP (GFX9 DPP, GFX10 DPP16) or DPP8 form (Vega ISA §6.5,
/// RDNA ISA §6.4 "Data Parallel Processing"): source 0 is read from another
/// lane of the same row (or group of eight); lanes whose row or bank is
/// masked off are not written; a lane whose source lane is out of range or
/// inactive reads 0 when `bound_ctrl` is set and is not written otherwise.
/// With GFX10's `fi` (fetch inactive) an inactive source lane is read like
/// an active one; DPP8 without `fi` reading an inactive lane is reported
/// (what it reads is not modelled).
#[allow(clippy::needless_range_loop)]
pub(crate) fn exec_dpp(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, dpp8: bool) -> R {
    let n = w.size as usize;
    let exec = w.exec.0 & w.full_mask();
    let src0 = v32(w, &i.src[0], Ty::I)?;
    let src1 = if i.src[1].is_some() {
        v32(w, &i.src[1], Ty::I)?
    } else {
        [0; 64]
    };
    let ctrl = i.alu.dpp_ctrl() as usize;
    let gfx10 = ctx.gfx10();
    let fi = i.alu.dpp_fi();
    let mut moved = [0u32; 64];
    let mut write = 0u64;
    for l in 0..n {
        let row = l & !15;
        let r = l & 15;
        let src: Option<usize> = if dpp8 {
            Some((l & !7) + i.alu.dpp8_sel(l) as usize)
        } else {
            match ctrl {
                0x000..=0x0ff => Some((l & !3) + ((ctrl >> (2 * (l & 3))) & 3)),
                0x101..=0x10f => {
                    let s = ctrl & 15;
                    (r + s < 16).then_some(l + s)
                }
                0x111..=0x11f => {
                    let s = ctrl & 15;
                    (r >= s).then(|| l - s)
                }
                0x121..=0x12f => Some(row + (r + 16 - (ctrl & 15)) % 16),
                0x130 if !gfx10 => (l + 1 < n).then_some(l + 1),
                0x134 if !gfx10 => Some((l + 1) % n),
                0x138 if !gfx10 => l.checked_sub(1),
                0x13c if !gfx10 => Some((l + n - 1) % n),
                0x140 => Some(row + 15 - r),
                0x141 => Some((l & !7) + 7 - (l & 7)),
                0x142 if !gfx10 => (row >= 16).then(|| row - 1),
                0x143 if !gfx10 => (row >= 32).then_some(31),
                0x150..=0x15f => Some(row + (ctrl & 15)),
                0x160..=0x16f if gfx10 => Some(row + (r ^ (ctrl & 15))),
                _ => return unsupported(format!("DPP control {ctrl:#x}")),
            }
        };
        let enabled = dpp8
            || ((i.alu.dpp_row_mask() >> (l / 16)) & 1 != 0
                && (i.alu.dpp_bank_mask() >> ((l & 15) / 4)) & 1 != 0);
        if !enabled {
            continue;
        }
        if let Some(s) = src.filter(|&s| dpp8 && !fi && s < n && (exec >> s) & 1 == 0) {
            return unsupported(format!("DPP8 without fi reading inactive lane {s}"));
        }
        match src.filter(|&s| s < n && (dpp8 || fi || (exec >> s) & 1 != 0)) {
            Some(s) => {
                moved[l] = src0[s];
                write |= 1 << l;
            }
            None if i.alu.dpp_bound_ctrl() => {
                moved[l] = 0;
                write |= 1 << l;
            }
            None => {}
        }
    }
    let saved = w.exec;
    w.exec = Mask(saved.0 & write);
    let r = exec_with(k, w, i, ctx, Some(&[moved, src1]));
    w.exec = saved;
    r
}

#[allow(clippy::redundant_closure_call)]
fn exec_with(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
    use Kind::*;
    let exec = w.exec.0 & w.full_mask();
    let d = i.dst[0];
    let (omod, clamp) = (i.alu.omod, i.alu.clamp);
    // Output denormals of f32 and f64 results (MODE.FP_DENORM).
    let (keep32, keep64) = (denorms(w, false).1, denorms(w, true).1);
    let f32_out = |v: f32, omod: u8, clamp: bool| {
        let r = crate::alu::f32_out(v, omod, clamp);
        if keep32 { r } else { ftz32(r) }
    };
    let f64_out = |v: f64, omod: u8, clamp: bool| {
        let r = crate::alu::f64_out(v, omod, clamp);
        if keep64 { r } else { ftz64(r) }
    };

    macro_rules! u1 {
        ($f:expr) => {{
            let a = u32_src(w, ov, i, 0)?;
            let f: fn(u32) -> u32 = $f;
            wv32(w, &d, &a.map(f), exec)?;
        }};
    }
    macro_rules! u2 {
        ($f:expr) => {{
            let (a, b) = (u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let f: fn(u32, u32) -> u32 = $f;
            let r: L32 = std::array::from_fn(|l| f(a[l], b[l]));
            wv32(w, &d, &r, exec)?;
        }};
    }
    macro_rules! u3 {
        ($f:expr) => {{
            let (a, b, c) = (
                u32_src(w, ov, i, 0)?,
                u32_src(w, ov, i, 1)?,
                u32_src(w, ov, i, 2)?,
            );
            let f: fn(u32, u32, u32) -> u32 = $f;
            let r: L32 = std::array::from_fn(|l| f(a[l], b[l], c[l]));
            wv32(w, &d, &r, exec)?;
        }};
    }
    // 16-bit integer ops: low halves in, low half out.
    macro_rules! h2 {
        ($f:expr) => {{
            if i.alu.op_sel != 0 {
                return unsupported("op_sel on a 16-bit operation");
            }
            let (a, b) = (u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let f: fn(u16, u16) -> u16 = $f;
            let old = *vdst(w, &d, 0)?;
            let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
            let r: L32 =
                std::array::from_fn(|l| (old[l] & keep) | f(a[l] as u16, b[l] as u16) as u32);
            wv32(w, &d, &r, exec)?;
        }};
    }
    macro_rules! f1 {
        ($f:expr) => {{
            let a = f32_src(w, ov, i, 0)?;
            let f: fn(f32) -> f32 = $f;
            let r: L32 = a.map(|x| f32_out(f(x), omod, clamp).to_bits());
            wv32(w, &d, &r, exec)?;
        }};
    }
    macro_rules! f2 {
        ($f:expr) => {{
            let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
            let f: fn(f32, f32) -> f32 = $f;
            let r: L32 = std::array::from_fn(|l| f32_out(f(a[l], b[l]), omod, clamp).to_bits());
            wv32(w, &d, &r, exec)?;
        }};
    }
    macro_rules! f3 {
        ($f:expr) => {{
            let (a, b, c) = (
                f32_src(w, ov, i, 0)?,
                f32_src(w, ov, i, 1)?,
                f32_src(w, ov, i, 2)?,
            );
            let f: fn(f32, f32, f32) -> f32 = $f;
            let r: L32 =
                std::array::from_fn(|l| f32_out(f(a[l], b[l], c[l]), omod, clamp).to_bits());
            wv32(w, &d, &r, exec)?;
        }};
    }
    macro_rules! d1 {
        ($f:expr) => {{
            let a = f64_src(w, ov, i, 0)?;
            let f: fn(f64) -> f64 = $f;
            let r: L64 = a.map(|x| f64_out(f(x), omod, clamp).to_bits());
            wv64(w, &d, &r, exec)?;
        }};
    }
    macro_rules! d2 {
        ($f:expr) => {{
            let (a, b) = (f64_src(w, ov, i, 0)?, f64_src(w, ov, i, 1)?);
            let f: fn(f64, f64) -> f64 = $f;
            let r: L64 = std::array::from_fn(|l| f64_out(f(a[l], b[l]), omod, clamp).to_bits());
            wv64(w, &d, &r, exec)?;
        }};
    }
    macro_rules! d3 {
        ($f:expr) => {{
            let (a, b, c) = (
                f64_src(w, ov, i, 0)?,
                f64_src(w, ov, i, 1)?,
                f64_src(w, ov, i, 2)?,
            );
            let f: fn(f64, f64, f64) -> f64 = $f;
            let r: L64 =
                std::array::from_fn(|l| f64_out(f(a[l], b[l], c[l]), omod, clamp).to_bits());
            wv64(w, &d, &r, exec)?;
        }};
    }

    if clamp && !int_clamp_modelled(k) {
        return unsupported("clamp (saturation) on this integer operation");
    }
    match k {
        VNop => {}
        VMovB32 => {
            let a = src32(w, ov, i, 0, Ty::I)?;
            // VOP3 float modifiers on a move act on the bit pattern.
            let r = if i.encoding == Encoding::Vop3 && (i.alu.abs | i.alu.neg) != 0 {
                a.map(|b| f32_src_mods(b, i.alu.abs & 1 != 0, i.alu.neg & 1 != 0))
            } else {
                a
            };
            wv32(w, &d, &r, exec)?;
        }
        VReadfirstlane => {
            let a = u32_src(w, ov, i, 0)?;
            let lane = if exec == 0 {
                0
            } else {
                exec.trailing_zeros() as usize
            };
            let v = a.get(lane).copied().unwrap_or(0);
            super::operand::set32(w, &d, v)?;
        }
        VReadlane => {
            let a = u32_src(w, ov, i, 0)?;
            let lane = (s32(w, &i.src[1])? & (w.size - 1)) as usize;
            let v = a.get(lane).copied().unwrap_or(0);
            super::operand::set32(w, &d, v)?;
        }
        VWritelane => {
            let v = s32(w, &i.src[0])?;
            let lane = (s32(w, &i.src[1])? & (w.size - 1)) as usize;
            let r = vdst(w, &d, 0)?;
            if let Some(x) = r.get_mut(lane) {
                *x = v;
            }
        }
        VNotB32 => u1!(|a| !a),
        VBfrevB32 => u1!(|a| a.reverse_bits()),
        VFfbhU32 => u1!(ffbh_u32),
        VFfblB32 => u1!(ffbl_b32),
        VFfbhI32 => u1!(ffbh_i32),
        VCvtF32U32 | VCvtF32I32 | VCvtF32Ubyte0 | VCvtF32Ubyte1 | VCvtF32Ubyte2 | VCvtF32Ubyte3 => {
            let a = u32_src(w, ov, i, 0)?;
            let cvt = |x: u32| -> f32 {
                match k {
                    VCvtF32U32 => x as f32,
                    VCvtF32I32 => x as i32 as f32,
                    VCvtF32Ubyte0 => (x & 0xff) as f32,
                    VCvtF32Ubyte1 => ((x >> 8) & 0xff) as f32,
                    VCvtF32Ubyte2 => ((x >> 16) & 0xff) as f32,
                    _ => (x >> 24) as f32,
                }
            };
            let r: L32 = a.map(|x| f32_out(cvt(x), omod, clamp).to_bits());
            wv32(w, &d, &r, exec)?;
        }
        VCvtU32F32 => {
            let a = f32_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(cvt_u32_f32), exec)?;
        }
        VCvtI32F32 => {
            let a = f32_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| cvt_i32_f32(x) as u32), exec)?;
        }
        VCvtI32F64 => {
            let a = f64_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| cvt_i32_f64(x) as u32), exec)?;
        }
        VCvtU32F64 => {
            let a = f64_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| x as u32), exec)?;
        }
        VCvtF64F32 => {
            let a = f32_src(w, ov, i, 0)?;
            let r: L64 = a.map(|x| f64_out(x as f64, omod, clamp).to_bits());
            wv64(w, &d, &r, exec)?;
        }
        VCvtF32F64 => {
            let a = f64_src(w, ov, i, 0)?;
            let r: L32 = a.map(|x| f32_out(x as f32, omod, clamp).to_bits());
            wv32(w, &d, &r, exec)?;
        }
        VCvtF64I32 | VCvtF64U32 => {
            let a = u32_src(w, ov, i, 0)?;
            let r: L64 = if k == VCvtF64I32 {
                a.map(|x| f64_out(x as i32 as f64, omod, clamp).to_bits())
            } else {
                a.map(|x| f64_out(x as f64, omod, clamp).to_bits())
            };
            wv64(w, &d, &r, exec)?;
        }
        VCvtF16F32 => {
            let a = f32_src(w, ov, i, 0)?;
            let old = *vdst(w, &d, 0)?;
            let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
            let r: L32 = std::array::from_fn(|l| {
                (old[l] & keep) | f32_to_f16(f32_out(a[l], omod, clamp)) as u32
            });
            wv32(w, &d, &r, exec)?;
        }
        VCvtF32F16 => {
            let a = src32(w, ov, i, 0, Ty::H)?;
            let (abs, neg) = (i.alu.abs & 1 != 0, i.alu.neg & 1 != 0);
            let r: L32 = a.map(|b| {
                let mut h = b as u16;
                if abs {
                    h &= 0x7fff;
                }
                if neg {
                    h ^= 0x8000;
                }
                f32_out(f16_to_f32(h), omod, clamp).to_bits()
            });
            wv32(w, &d, &r, exec)?;
        }
        VRcpF32 => f1!(|x| 1.0 / x),
        VRsqF32 => f1!(|x| 1.0 / x.sqrt()),
        VSqrtF32 => f1!(|x| x.sqrt()),
        VTruncF32 => f1!(|x| x.trunc()),
        VCeilF32 => f1!(|x| x.ceil()),
        VFloorF32 => f1!(|x| x.floor()),
        VRndneF32 => f1!(|x| x.round_ties_even()),
        VFractF32 => f1!(fract_f32),
        VExpF32 => f1!(|x| x.exp2()),
        VLogF32 => f1!(|x| x.log2()),
        VSinF32 | VCosF32 => {
            let a = f32_src(w, ov, i, 0)?;
            let mut r = [0u32; 64];
            for l in 0..64 {
                if (exec >> l) & 1 == 0 {
                    continue;
                }
                let v = if k == VSinF32 {
                    sin_f32(a[l])
                } else {
                    cos_f32(a[l])
                };
                let Some(v) = v else {
                    return unsupported(format!(
                        "v_{}_f32 of {:e} (outside [-256, 256], or an exact zero of \
                         unspecified sign)",
                        if k == VSinF32 { "sin" } else { "cos" },
                        a[l]
                    ));
                };
                r[l] = f32_out(v, omod, clamp).to_bits();
            }
            wv32(w, &d, &r, exec)?;
        }
        VFrexpMantF32 => f1!(frexp_mant_f32),
        VFrexpExpF32 => {
            let a = f32_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| frexp_exp_f32(x) as u32), exec)?;
        }
        VRcpF64 => d1!(|x| 1.0 / x),
        VRsqF64 => d1!(|x| 1.0 / x.sqrt()),
        VSqrtF64 => d1!(|x| x.sqrt()),
        VTruncF64 => d1!(|x| x.trunc()),
        VCeilF64 => d1!(|x| x.ceil()),
        VFloorF64 => d1!(|x| x.floor()),
        VRndneF64 => d1!(|x| x.round_ties_even()),
        VFractF64 => d1!(fract_f64),
        VFrexpMantF64 => d1!(|x| frexp64(x).0),
        VFrexpExpF64 => {
            let a = f64_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| frexp64(x).1 as u32), exec)?;
        }
        // ------------------------------------------------------ integer VOP2/VOP3
        // `clamp` on integer add/sub saturates (Vega ISA §6.3, RDNA ISA §6.2).
        VAddU32 if clamp => u2!(|a, b| a.saturating_add(b)),
        VSubU32 if clamp => u2!(|a, b| a.saturating_sub(b)),
        VSubrevU32 if clamp => u2!(|a, b| b.saturating_sub(a)),
        VAddI32 if clamp => u2!(|a, b| (a as i32).saturating_add(b as i32) as u32),
        VSubI32 if clamp => u2!(|a, b| (a as i32).saturating_sub(b as i32) as u32),
        VAddU32 => u2!(|a, b| a.wrapping_add(b)),
        VSubU32 => u2!(|a, b| a.wrapping_sub(b)),
        VSubrevU32 => u2!(|a, b| b.wrapping_sub(a)),
        VAddI32 => u2!(|a, b| a.wrapping_add(b)),
        VSubI32 => u2!(|a, b| a.wrapping_sub(b)),
        VAndB32 => u2!(|a, b| a & b),
        VOrB32 => u2!(|a, b| a | b),
        VXorB32 => u2!(|a, b| a ^ b),
        VXnorB32 => u2!(|a, b| !(a ^ b)),
        VLshlrevB32 => u2!(|a, b| b << (a & 31)),
        VLshrrevB32 => u2!(|a, b| b >> (a & 31)),
        VAshrrevI32 => u2!(|a, b| ((b as i32) >> (a & 31)) as u32),
        VMinU32 => u2!(|a, b| a.min(b)),
        VMaxU32 => u2!(|a, b| a.max(b)),
        VMinI32 => u2!(|a, b| (a as i32).min(b as i32) as u32),
        VMaxI32 => u2!(|a, b| (a as i32).max(b as i32) as u32),
        VMulU32U24 => u2!(|a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        VMulHiU32U24 => {
            u2!(|a, b| (((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) >> 32) as u32)
        }
        VMulI32I24 => u2!(|a, b| (sext24(a) as i64 * sext24(b) as i64) as u32),
        VMulLoU32 => u2!(|a, b| a.wrapping_mul(b)),
        VMulHiU32 => u2!(|a, b| ((a as u64 * b as u64) >> 32) as u32),
        VMulHiI32 => u2!(|a, b| ((a as i32 as i64 * b as i32 as i64) >> 32) as u32),
        VBfmB32 => u2!(|a, b| (1u32.checked_shl(a & 31).map_or(0, |v| v - 1)) << (b & 31)),
        VBcntU32 => u2!(|a, b| a.count_ones().wrapping_add(b)),
        VMadU32U24 if clamp => u3!(|a, b, c| {
            let v = (a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64 + c as u64;
            v.min(u32::MAX as u64) as u32
        }),
        VMadI32I24 if clamp => u3!(|a, b, c| {
            let v = sext24(a) as i64 * sext24(b) as i64 + c as i32 as i64;
            v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
        }),
        VMadU32U24 => u3!(|a, b, c| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c)),
        VMadI32I24 => u3!(|a, b, c| (sext24(a).wrapping_mul(sext24(b)) as u32).wrapping_add(c)),
        VLshlAddU32 => u3!(|a, b, c| (a << (b & 31)).wrapping_add(c)),
        VAddLshlU32 => u3!(|a, b, c| a.wrapping_add(b) << (c & 31)),
        VLshlOrB32 => u3!(|a, b, c| (a << (b & 31)) | c),
        VAndOrB32 => u3!(|a, b, c| (a & b) | c),
        VOr3B32 => u3!(|a, b, c| a | b | c),
        VXor3B32 => u3!(|a, b, c| a ^ b ^ c),
        VAdd3U32 => u3!(|a, b, c| a.wrapping_add(b).wrapping_add(c)),
        VAlignbitB32 => u3!(|a, b, c| (((a as u64) << 32 | b as u64) >> (c & 31)) as u32),
        VAlignbyteB32 => u3!(|a, b, c| (((a as u64) << 32 | b as u64) >> ((c & 3) * 8)) as u32),
        VBfeU32 => u3!(|a, b, c| {
            let wd = c & 31;
            if wd == 0 {
                0
            } else {
                (a >> (b & 31)) & ((1u32 << wd) - 1)
            }
        }),
        VBfeI32 => u3!(|a, b, c| {
            let wd = c & 31;
            if wd == 0 {
                0
            } else {
                (((a >> (b & 31)) << (32 - wd)) as i32 >> (32 - wd)) as u32
            }
        }),
        VBfiB32 => u3!(|a, b, c| (a & b) | (!a & c)),
        VMin3U32 => u3!(|a, b, c| a.min(b).min(c)),
        VMax3U32 => u3!(|a, b, c| a.max(b).max(c)),
        VMin3I32 => u3!(|a, b, c| (a as i32).min(b as i32).min(c as i32) as u32),
        VMax3I32 => u3!(|a, b, c| (a as i32).max(b as i32).max(c as i32) as u32),
        VMed3U32 => u3!(|a, b, c| a.max(b).min(a.min(b).max(c))),
        VMed3I32 => u3!(|a, b, c| {
            let (a, b, c) = (a as i32, b as i32, c as i32);
            a.max(b).min(a.min(b).max(c)) as u32
        }),
        VMulLoU16 => h2!(|a, b| a.wrapping_mul(b)),
        VAddU16 if clamp => h2!(|a, b| a.saturating_add(b)),
        VSubU16 if clamp => h2!(|a, b| a.saturating_sub(b)),
        VSubrevU16 if clamp => h2!(|a, b| b.saturating_sub(a)),
        VAddI16 if clamp => h2!(|a, b| (a as i16).saturating_add(b as i16) as u16),
        VSubI16 if clamp => h2!(|a, b| (a as i16).saturating_sub(b as i16) as u16),
        VAddU16 | VAddI16 => h2!(|a, b| a.wrapping_add(b)),
        VSubU16 | VSubI16 => h2!(|a, b| a.wrapping_sub(b)),
        VSubrevU16 => h2!(|a, b| b.wrapping_sub(a)),
        VLshlrevB16 => h2!(|a, b| b << (a & 15)),
        VLshrrevB16 => h2!(|a, b| b >> (a & 15)),
        VMadU16 => {
            if i.alu.op_sel != 0 {
                return unsupported("op_sel on a 16-bit operation");
            }
            let (a, b, c) = (
                u32_src(w, ov, i, 0)?,
                u32_src(w, ov, i, 1)?,
                u32_src(w, ov, i, 2)?,
            );
            let old = *vdst(w, &d, 0)?;
            let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
            let r: L32 = std::array::from_fn(|l| {
                let v = (a[l] & 0xffff) * (b[l] & 0xffff) + (c[l] & 0xffff);
                let v = if clamp { v.min(0xffff) } else { v & 0xffff };
                (old[l] & keep) | v
            });
            wv32(w, &d, &r, exec)?;
        }
        // 16-bit multiply-adds (Vega ISA §12.7 VOP3): clamp saturates.
        VMadI16 | VMadU32U16 | VMadI32I16 => {
            if i.alu.op_sel != 0 {
                return unsupported("op_sel on a 16-bit operation");
            }
            let (a, b, c) = (
                u32_src(w, ov, i, 0)?,
                u32_src(w, ov, i, 1)?,
                u32_src(w, ov, i, 2)?,
            );
            let old = *vdst(w, &d, 0)?;
            let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
            let r: L32 = std::array::from_fn(|l| {
                let (a, b, c) = (a[l], b[l], c[l]);
                match k {
                    // D.i16 = S0.i16 * S1.i16 + S2.i16
                    VMadI16 => {
                        let v = a as i16 as i32 * b as i16 as i32 + c as i16 as i32;
                        let v = if clamp { v.clamp(-0x8000, 0x7fff) } else { v };
                        (old[l] & keep) | v as u16 as u32
                    }
                    // D.u32 = S0.u16 * S1.u16 + S2.u32
                    VMadU32U16 => {
                        let v = (a & 0xffff) as u64 * (b & 0xffff) as u64 + c as u64;
                        if clamp {
                            v.min(u32::MAX as u64) as u32
                        } else {
                            v as u32
                        }
                    }
                    // D.i32 = S0.i16 * S1.i16 + S2.i32
                    _ => {
                        let v = a as i16 as i64 * b as i16 as i64 + c as i32 as i64;
                        if clamp {
                            v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
                        } else {
                            v as u32
                        }
                    }
                }
            });
            wv32(w, &d, &r, exec)?;
        }
        // Sums of absolute differences (Vega ISA §12.7 VOP3): bytes or
        // halves of S0 and S1, accumulated onto S2.
        VSadU8 => u3!(|a, b, c| sad_u8(a, b, false).wrapping_add(c)),
        VSadHiU8 => u3!(|a, b, c| (sad_u8(a, b, false) << 16).wrapping_add(c)),
        VMsadU8 => u3!(|a, b, c| sad_u8(a, b, true).wrapping_add(c)),
        // Four (masked) byte SADs of S1 against the windows S0[8j+31:8j] of
        // the 64-bit S0, each accumulated onto field j of S2: 16-bit fields
        // (wrapping) for the `_pk_u16` forms, 32-bit for `v_mqsad_u32_u8`.
        VQsadPkU16U8 | VMqsadPkU16U8 | VMqsadU32U8 => {
            let (a, b) = (u64_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let masked = k != VQsadPkU16U8;
            let wide = k == VMqsadU32U8;
            let acc: Vec<L32> = match i.src[2] {
                Operand::Vgpr { index, .. } => (0..if wide { 4 } else { 2 })
                    .map(|p| vreg(w, index.wrapping_add(p), false).copied())
                    .collect::<Result<_, _>>()?,
                _ if !wide => {
                    let c = u64_src(w, ov, i, 2)?;
                    vec![c.map(|x| x as u32), c.map(|x| (x >> 32) as u32)]
                }
                o => return unsupported(format!("v_mqsad_u32_u8 accumulator {o}")),
            };
            let mut out = vec![[0u32; 64]; acc.len()];
            for l in 0..64 {
                for j in 0..4 {
                    let win = (a[l] >> (8 * j)) as u32;
                    let sad = sad_u8(win, b[l], masked);
                    if wide {
                        out[j][l] = sad.wrapping_add(acc[j][l]);
                    } else {
                        let c = (acc[j / 2][l] >> (16 * (j % 2))) & 0xffff;
                        out[j / 2][l] |= (sad.wrapping_add(c) & 0xffff) << (16 * (j % 2));
                    }
                }
            }
            for (p, r) in out.iter().enumerate() {
                let dst = vdst(w, &d, p as u8)?;
                for l in 0..64 {
                    if (exec >> l) & 1 != 0 {
                        dst[l] = r[l];
                    }
                }
            }
        }
        VSadU16 => u3!(|a, b, c| {
            let d = (a as u16).abs_diff(b as u16) as u32
                + ((a >> 16) as u16).abs_diff((b >> 16) as u16) as u32;
            d.wrapping_add(c)
        }),
        // Per byte: (S0 + S1 + the rounding bit S2[8k]) >> 1.
        VLerpU8 => u3!(|a, b, c| {
            let mut r = 0u32;
            for k in 0..4 {
                let v = ((a >> (8 * k)) & 0xff) + ((b >> (8 * k)) & 0xff) + ((c >> (8 * k)) & 1);
                r |= (v >> 1) << (8 * k);
            }
            r
        }),
        // The signed 4-bit S0[3:0] over 16: 0, 0.0625, ..., 0.4375, -0.5, ..., -0.0625.
        VCvtOffF32I4 => {
            let a = u32_src(w, ov, i, 0)?;
            let r: L32 = a.map(|x| {
                let n = ((x as i32) << 28) >> 28;
                f32_out(n as f32 / 16.0, omod, clamp).to_bits()
            });
            wv32(w, &d, &r, exec)?;
        }
        // D = {16'b0, sat8(S0[31:16]), sat8(S0[15:0])}: signed halves to unsigned bytes.
        VSatPkU8I16 => u1!(|a| {
            let sat = |h: u32| (h as u16 as i16).clamp(0, 255) as u32;
            sat(a) | sat(a >> 16) << 8
        }),
        // "Legacy" multiplies: 0 times anything (also an infinity or a NaN) is +0.
        VMadLegacyF32 => f3!(|a, b, c| {
            let (a, b) = (ftz_f32(a), ftz_f32(b));
            if a == 0.0 || b == 0.0 {
                ftz_f32(0.0 + ftz_f32(c))
            } else {
                mad_f32(a, b, c)
            }
        }),
        VFmaLegacyF32 => f3!(|a, b, c| if a == 0.0 || b == 0.0 {
            0.0 + c
        } else {
            a.mul_add(b, c)
        }),
        VMacLegacyF32 | VFmacLegacyF32 => {
            let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
            let c = *vdst(w, &d, 0)?;
            let r: L32 = std::array::from_fn(|l| {
                let (a, b, c) = (a[l], b[l], f32::from_bits(c[l]));
                let v = if k == VMacLegacyF32 {
                    let (a, b) = (ftz_f32(a), ftz_f32(b));
                    if a == 0.0 || b == 0.0 {
                        ftz_f32(0.0 + ftz_f32(c))
                    } else {
                        mad_f32(a, b, c)
                    }
                } else if a == 0.0 || b == 0.0 {
                    0.0 + c
                } else {
                    a.mul_add(b, c)
                };
                f32_out(v, omod, clamp).to_bits()
            });
            wv32(w, &d, &r, exec)?;
        }
        VMbcntLo | VMbcntHi => {
            let (a, b) = (u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let hi = k == VMbcntHi;
            let r: L32 = std::array::from_fn(|l| {
                let below: u32 = if hi {
                    if l >= 32 {
                        ((1u64 << (l - 32)) - 1) as u32
                    } else {
                        0
                    }
                } else if l >= 32 {
                    u32::MAX
                } else {
                    ((1u64 << l) - 1) as u32
                };
                (a[l] & below).count_ones().wrapping_add(b[l])
            });
            wv32(w, &d, &r, exec)?;
        }
        VCndmaskB32 => {
            let (a, b) = (u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let m = read_mask_src(w, &i.src[2])?;
            let (abs, neg) = (i.alu.abs, i.alu.neg);
            let md = |x: u32, k: u8| f32_src_mods(x, (abs >> k) & 1 != 0, (neg >> k) & 1 != 0);
            let r: L32 = std::array::from_fn(|l| {
                if (m >> l) & 1 != 0 {
                    md(b[l], 1)
                } else {
                    md(a[l], 0)
                }
            });
            wv32(w, &d, &r, exec)?;
        }
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 | VAddcCoU32 | VSubbCoU32 | VSubbrevCoU32 => {
            let (a, b) = (u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let cin = match k {
                VAddcCoU32 | VSubbCoU32 | VSubbrevCoU32 => read_mask_src(w, &i.src[2])?,
                _ => 0,
            };
            let mut carry = 0u64;
            let mut r = [0u32; 64];
            for l in 0..64 {
                let c = (cin >> l) & 1;
                let (x, y) = match k {
                    VSubrevCoU32 | VSubbrevCoU32 => (b[l] as u64, a[l] as u64),
                    _ => (a[l] as u64, b[l] as u64),
                };
                let (v, co) = match k {
                    VAddCoU32 | VAddcCoU32 => {
                        let s = x + y + c;
                        (s as u32, s >> 32 != 0)
                    }
                    _ => (x.wrapping_sub(y + c) as u32, y + c > x),
                };
                let add = matches!(k, VAddCoU32 | VAddcCoU32);
                // With clamp an overflowing sum saturates to all ones and an
                // underflowing difference to zero; the carry-out is unchanged.
                r[l] = match (clamp && co, add) {
                    (true, true) => u32::MAX,
                    (true, false) => 0,
                    _ => v,
                };
                if co {
                    carry |= 1 << l;
                }
            }
            wv32(w, &d, &r, exec)?;
            write_mask_dst(w, &i.dst[1], carry & exec)?;
        }
        VMadU64U32 | VMadI64I32 => {
            let (a, b, c) = (
                u32_src(w, ov, i, 0)?,
                u32_src(w, ov, i, 1)?,
                u64_src(w, ov, i, 2)?,
            );
            let mut carry = 0u64;
            let r: L64 = std::array::from_fn(|l| {
                if k == VMadU64U32 {
                    let p = a[l] as u128 * b[l] as u128 + c[l] as u128;
                    if p >> 64 != 0 {
                        carry |= 1 << l;
                    }
                    if clamp {
                        p.min(u64::MAX as u128) as u64
                    } else {
                        p as u64
                    }
                } else {
                    let p = a[l] as i32 as i128 * b[l] as i32 as i128 + c[l] as i64 as i128;
                    if p > i64::MAX as i128 || p < i64::MIN as i128 {
                        carry |= 1 << l;
                    }
                    if clamp {
                        p.clamp(i64::MIN as i128, i64::MAX as i128) as u64
                    } else {
                        p as u64
                    }
                }
            });
            wv64(w, &d, &r, exec)?;
            write_mask_dst(w, &i.dst[1], carry & exec)?;
        }
        VLshlrevB64 | VLshrrevB64 | VAshrrevI64 => {
            let (a, b) = (u32_src(w, ov, i, 0)?, u64_src(w, ov, i, 1)?);
            let r: L64 = std::array::from_fn(|l| {
                let s = a[l] & 63;
                match k {
                    VLshlrevB64 => b[l] << s,
                    VLshrrevB64 => b[l] >> s,
                    _ => ((b[l] as i64) >> s) as u64,
                }
            });
            wv64(w, &d, &r, exec)?;
        }
        // ------------------------------------------------------ float
        VAddF32 => f2!(|a, b| a + b),
        VSubF32 => f2!(|a, b| a - b),
        VSubrevF32 => f2!(|a, b| b - a),
        VMulF32 => f2!(|a, b| a * b),
        VMinF32 => f2!(min_f32),
        VMaxF32 => f2!(max_f32),
        VLdexpF32 => {
            let a = f32_src(w, ov, i, 0)?;
            let b = u32_src(w, ov, i, 1)?;
            let r: L32 =
                std::array::from_fn(|l| f32_out(ldexp32(a[l], b[l] as i32), omod, clamp).to_bits());
            wv32(w, &d, &r, exec)?;
        }
        VLdexpF64 => {
            let a = f64_src(w, ov, i, 0)?;
            let b = u32_src(w, ov, i, 1)?;
            let r: L64 =
                std::array::from_fn(|l| f64_out(ldexp64(a[l], b[l] as i32), omod, clamp).to_bits());
            wv64(w, &d, &r, exec)?;
        }
        VFmaF32 => f3!(|a, b, c| a.mul_add(b, c)),
        VFmacF32 | VMacF32 => {
            let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
            let c = *vdst(w, &d, 0)?;
            let f: fn(f32, f32, f32) -> f32 = if k == VMacF32 { mad_f32 } else { f32::mul_add };
            let r: L32 = std::array::from_fn(|l| {
                f32_out(f(a[l], b[l], f32::from_bits(c[l])), omod, clamp).to_bits()
            });
            wv32(w, &d, &r, exec)?;
        }
        VFmamkF32 | VFmaakF32 | VMadmkF32 | VMadakF32 => {
            let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
            let kk = match i.src[3] {
                Operand::Literal(v) => f32::from_bits(v),
                _ => return unsupported("madmk/madak without a literal"),
            };
            let f: fn(f32, f32, f32) -> f32 = if matches!(k, VMadmkF32 | VMadakF32) {
                mad_f32
            } else {
                f32::mul_add
            };
            let r: L32 = std::array::from_fn(|l| {
                let v = if matches!(k, VFmamkF32 | VMadmkF32) {
                    f(a[l], kk, b[l])
                } else {
                    f(a[l], b[l], kk)
                };
                f32_out(v, 0, false).to_bits()
            });
            wv32(w, &d, &r, exec)?;
        }
        // Unfused, denormals flushed (`llvm.amdgcn.fmad.ftz`).
        VMadF32 => f3!(mad_f32),
        VFmacF64 => {
            let (a, b) = (f64_src(w, ov, i, 0)?, f64_src(w, ov, i, 1)?);
            let c = v64(w, &d, Ty::D)?;
            let r: L64 = std::array::from_fn(|l| {
                f64_out(a[l].mul_add(b[l], f64::from_bits(c[l])), omod, clamp).to_bits()
            });
            wv64(w, &d, &r, exec)?;
        }
        VAddF64 => d2!(|a, b| a + b),
        VMulF64 => d2!(|a, b| a * b),
        VMinF64 => d2!(min_f64),
        VMaxF64 => d2!(max_f64),
        VFmaF64 => d3!(|a, b, c| a.mul_add(b, c)),
        VDivFixupF32 => {
            let (a, b, c) = (
                f32_src(w, ov, i, 0)?,
                f32_src(w, ov, i, 1)?,
                f32_src(w, ov, i, 2)?,
            );
            let mut r = [0u32; 64];
            for l in 0..64 {
                if (exec >> l) & 1 != 0 {
                    let v = div_fixup_f32(a[l], b[l], c[l]);
                    r[l] = f32_out(v, omod, clamp).to_bits();
                }
            }
            wv32(w, &d, &r, exec)?;
        }
        VDivFixupF64 => {
            let (a, b, c) = (
                f64_src(w, ov, i, 0)?,
                f64_src(w, ov, i, 1)?,
                f64_src(w, ov, i, 2)?,
            );
            let mut r = [0u64; 64];
            for l in 0..64 {
                if (exec >> l) & 1 != 0 {
                    let v = div_fixup_f64(a[l], b[l], c[l]);
                    r[l] = f64_out(v, omod, clamp).to_bits();
                }
            }
            wv64(w, &d, &r, exec)?;
        }
        VDivScaleF32 => {
            let (a, b, c) = (
                f32_src(w, ov, i, 0)?,
                f32_src(w, ov, i, 1)?,
                f32_src(w, ov, i, 2)?,
            );
            let mut vcc = 0u64;
            let r: L32 = std::array::from_fn(|l| {
                let (v, f) = div_scale_f32(a[l], b[l], c[l]);
                if f {
                    vcc |= 1 << l;
                }
                v.to_bits()
            });
            wv32(w, &d, &r, exec)?;
            write_mask_dst(w, &i.dst[1], vcc & exec)?;
        }
        VDivScaleF64 => {
            let (a, b, c) = (
                f64_src(w, ov, i, 0)?,
                f64_src(w, ov, i, 1)?,
                f64_src(w, ov, i, 2)?,
            );
            let mut vcc = 0u64;
            let r: L64 = std::array::from_fn(|l| {
                let (v, f) = div_scale_f64(a[l], b[l], c[l]);
                if f {
                    vcc |= 1 << l;
                }
                v.to_bits()
            });
            wv64(w, &d, &r, exec)?;
            write_mask_dst(w, &i.dst[1], vcc & exec)?;
        }
        VDivFmasF32 => {
            let (a, b, c) = (
                f32_src(w, ov, i, 0)?,
                f32_src(w, ov, i, 1)?,
                f32_src(w, ov, i, 2)?,
            );
            let vcc = w.vcc.0;
            let r: L32 = std::array::from_fn(|l| {
                let v = if (vcc >> l) & 1 != 0 {
                    fma_scaled_f32(a[l], b[l], c[l], div_fmas_scale_f32(c[l]))
                } else {
                    a[l].mul_add(b[l], c[l])
                };
                f32_out(v, omod, clamp).to_bits()
            });
            wv32(w, &d, &r, exec)?;
        }
        VDivFmasF64 => {
            let (a, b, c) = (
                f64_src(w, ov, i, 0)?,
                f64_src(w, ov, i, 1)?,
                f64_src(w, ov, i, 2)?,
            );
            let vcc = w.vcc.0;
            let r: L64 = std::array::from_fn(|l| {
                let v = if (vcc >> l) & 1 != 0 {
                    fma_scaled_f64(a[l], b[l], c[l], div_fmas_scale_f64(c[l]))
                } else {
                    a[l].mul_add(b[l], c[l])
                };
                f64_out(v, omod, clamp).to_bits()
            });
            wv64(w, &d, &r, exec)?;
        }
        VCvtPkrtz => {
            let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
            let rtz = |x: f32| {
                // Round toward zero: truncate the f32 before rounding to nearest
                // cannot round up in magnitude.
                let h = f32_to_f16(x);
                if f16_to_f32(h).abs() > x.abs() && x.is_finite() {
                    h - 1
                } else {
                    h
                }
            };
            let r: L32 = std::array::from_fn(|l| rtz(a[l]) as u32 | (rtz(b[l]) as u32) << 16);
            wv32(w, &d, &r, exec)?;
        }
        VCubeidF32 => f3!(|x, y, z| cube(x, y, z).0),
        VCubemaF32 => f3!(|x, y, z| 2.0 * cube(x, y, z).1),
        VCubescF32 => f3!(|x, y, z| cube(x, y, z).2),
        VCubetcF32 => f3!(|x, y, z| cube(x, y, z).3),
        // D = {sat_i16(S1), sat_i16(S0)}.
        VCvtPkI16I32 => u2!(|a, b| sat_i16(a as i32) as u32 | (sat_i16(b as i32) as u32) << 16),
        VCvtPknormI16F32 | VCvtPknormU16F32 => {
            if omod != 0 {
                return unsupported("an output modifier on an integer conversion");
            }
            let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
            let norm = |x: f32| -> u32 {
                let v = if k == VCvtPknormI16F32 {
                    f32_to_norm(x, 32767.0, -32767.0, 32767.0)
                } else {
                    f32_to_norm(x, 65535.0, 0.0, 65535.0)
                };
                v as u32 & 0xffff
            };
            let r: L32 = std::array::from_fn(|l| norm(a[l]) | norm(b[l]) << 16);
            wv32(w, &d, &r, exec)?;
        }
        VCvtPknormI16F16 | VCvtPknormU16F16 | VCvtNormI16F16 | VCvtNormU16F16 => {
            if omod != 0 || i.alu.op_sel & !3 != 0 {
                return unsupported("an output modifier or op_sel on a 16-bit destination");
            }
            let signed = matches!(k, VCvtPknormI16F16 | VCvtNormI16F16);
            let norm = |h: u16| -> u32 {
                let x = f16_to_f32(h);
                let v = if signed {
                    f32_to_norm(x, 32767.0, -32767.0, 32767.0)
                } else {
                    f32_to_norm(x, 65535.0, 0.0, 65535.0)
                };
                v as u32 & 0xffff
            };
            let a = half_src(w, ov, i, 0)?;
            let r: L32 = if matches!(k, VCvtPknormI16F16 | VCvtPknormU16F16) {
                let b = half_src(w, ov, i, 1)?;
                std::array::from_fn(|l| norm(a[l]) | norm(b[l]) << 16)
            } else {
                // A 16-bit result: the high half zeroed on GFX9, kept on GFX10.
                let old = *vdst(w, &d, 0)?;
                let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
                std::array::from_fn(|l| (old[l] & keep) | norm(a[l]))
            };
            wv32(w, &d, &r, exec)?;
        }
        // D = S2 with byte S1[1:0] replaced by flt32_to_uint8(S0); the
        // accumulating form replaces that byte of D itself.
        VCvtPkU8F32 | VCvtPkaccumU8F32 => {
            if omod != 0 {
                return unsupported("an output modifier on an integer conversion");
            }
            let (a, b) = (f32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let c = if k == VCvtPkU8F32 {
                u32_src(w, ov, i, 2)?
            } else {
                *vdst(w, &d, 0)?
            };
            let r: L32 = std::array::from_fn(|l| {
                let sh = 8 * (b[l] & 3);
                (c[l] & !(0xff << sh)) | f32_to_u8(a[l]) << sh
            });
            wv32(w, &d, &r, exec)?;
        }
        VMovrelsd2 | VSwaprel => {
            // RDNA ISA: the source register is offset by M0[9:0], the
            // destination by M0[25:16]; v_swaprel_b32 exchanges the two.
            let (si, di) = match (i.src[0], d) {
                (Operand::Vgpr { index: s, .. }, Operand::Vgpr { index: t, .. }) => {
                    (s as usize, t as usize)
                }
                _ => return unsupported("relative move operands"),
            };
            let (src_reg, dst_reg) = (
                si + (w.m0 & 0x3ff) as usize,
                di + ((w.m0 >> 16) & 0x3ff) as usize,
            );
            let n = w.vgpr.len();
            if src_reg >= n || dst_reg >= n {
                return unsupported(format!(
                    "a relative move beyond the {n} allocated VGPRs (M0 = {:#x})",
                    w.m0
                ));
            }
            let (sv, dv) = (w.vgpr[src_reg], w.vgpr[dst_reg]);
            let one = |r: usize| Operand::Vgpr {
                index: r as u8,
                count: 1,
            };
            wv32(w, &one(dst_reg), &sv, exec)?;
            if k == VSwaprel {
                wv32(w, &one(src_reg), &dv, exec)?;
            }
        }
        VMovrels | VMovreld | VMovrelsd => {
            // Relative addressing with M0 (Vega ISA §6.6.2 "VGPR indexing").
            let m0 = w.m0 as usize;
            let (si, di) = match (i.src[0], d) {
                (Operand::Vgpr { index: s, .. }, Operand::Vgpr { index: t, .. }) => {
                    (s as usize, t as usize)
                }
                (_, Operand::Vgpr { index: t, .. }) if k == VMovreld => (0, t as usize),
                _ => return unsupported("v_movrel operands"),
            };
            let src_reg = if k == VMovreld { si } else { si + m0 };
            let dst_reg = if k == VMovrels { di } else { di + m0 };
            let n = w.vgpr.len();
            if dst_reg >= n || (k != VMovreld && src_reg >= n) {
                return unsupported(format!(
                    "v_movrel beyond the {n} allocated VGPRs (M0 = {m0})"
                ));
            }
            let v = if k == VMovreld {
                v32(w, &i.src[0], Ty::I)?
            } else {
                w.vgpr[src_reg]
            };
            let one = Operand::Vgpr {
                index: dst_reg as u8,
                count: 1,
            };
            wv32(w, &one, &v, exec)?;
        }
        VSwapB32 => {
            // Both operands are VGPRs (VOP1 `vdst, vsrc`): each active lane's values
            // are exchanged (GFX9/GFX10 ISA "V_SWAP_B32": tmp = D; D = S0; S0 = tmp).
            let (a, b) = (v32(w, &d, Ty::I)?, v32(w, &i.src[0], Ty::I)?);
            if !matches!(i.src[0], Operand::Vgpr { .. }) {
                return unsupported("v_swap_b32 with a source that is not a VGPR");
            }
            wv32(w, &d, &b, exec)?;
            wv32(w, &i.src[0], &a, exec)?;
        }
        VPermB32 => u3!(|a, b, sel| {
            let x = (a as u64) << 32 | b as u64;
            let mut r = 0u32;
            for k in 0..4 {
                let s = (sel >> (8 * k)) & 0xff;
                let byte = match s {
                    0..=7 => (x >> (8 * s)) as u8,
                    8..=11 => {
                        if (x >> (16 * (s - 8) + 15)) & 1 != 0 {
                            0xff
                        } else {
                            0
                        }
                    }
                    12 => 0,
                    _ => 0xff,
                };
                r |= (byte as u32) << (8 * k);
            }
            r
        }),
        VMax3F32 => f3!(|a, b, c| max_f32(max_f32(a, b), c)),
        VMin3F32 => f3!(|a, b, c| min_f32(min_f32(a, b), c)),
        VMed3F32 => f3!(|a, b, c| {
            if a.is_nan() || b.is_nan() || c.is_nan() {
                min_f32(min_f32(a, b), c)
            } else {
                max_f32(min_f32(a, b), min_f32(max_f32(a, b), c))
            }
        }),
        VMulLegacyF32 => f2!(|a, b| if a == 0.0 || b == 0.0 { 0.0 } else { a * b }),
        VCvtFlrI32F32 => {
            let a = f32_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| x.floor() as i32 as u32), exec)?;
        }
        VCvtRpiI32F32 => {
            let a = f32_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| (x + 0.5).floor() as i32 as u32), exec)?;
        }
        VSadU32 => u3!(|a, b, c| a.abs_diff(b).wrapping_add(c)),
        VMulHiI32I24 => u2!(|a, b| ((sext24(a) as i64 * sext24(b) as i64) >> 32) as u32),
        VCvtPkU16U32 => u2!(|a, b| (a & 0xffff) | (b & 0xffff) << 16),
        VMaxU16 => h2!(|a, b| a.max(b)),
        VMinU16 => h2!(|a, b| a.min(b)),
        VMaxI16 => h2!(|a, b| (a as i16).max(b as i16) as u16),
        VMinI16 => h2!(|a, b| (a as i16).min(b as i16) as u16),
        VAshrrevI16 => h2!(|a, b| ((b as i16) >> (a & 15)) as u16),
        VAddF16 | VSubF16 | VSubrevF16 | VMulF16 | VMaxF16 | VMinF16 | VFmaF16 | VFmacF16 => {
            if i.alu.op_sel != 0 {
                return unsupported("op_sel on a 16-bit operation");
            }
            let h = |v: L32, k: usize| -> [f64; 64] {
                let (abs, neg) = ((i.alu.abs >> k) & 1 != 0, (i.alu.neg >> k) & 1 != 0);
                v.map(|x| {
                    let mut b = x as u16;
                    if abs {
                        b &= 0x7fff;
                    }
                    if neg {
                        b ^= 0x8000;
                    }
                    f16_to_f32(b) as f64
                })
            };
            let a = h(src32(w, ov, i, 0, Ty::H)?, 0);
            let b = h(src32(w, ov, i, 1, Ty::H)?, 1);
            let old = *vdst(w, &d, 0)?;
            let c = match k {
                VFmaF16 => h(src32(w, ov, i, 2, Ty::H)?, 2),
                VFmacF16 => h(old, 2),
                _ => [0.0; 64],
            };
            let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
            let r: L32 = std::array::from_fn(|l| {
                let v = match k {
                    VAddF16 => a[l] + b[l],
                    VSubF16 => a[l] - b[l],
                    VSubrevF16 => b[l] - a[l],
                    VMulF16 => a[l] * b[l],
                    VMaxF16 => max_f32(a[l] as f32, b[l] as f32) as f64,
                    VMinF16 => min_f32(a[l] as f32, b[l] as f32) as f64,
                    _ => a[l].mul_add(b[l], c[l]),
                };
                (old[l] & keep) | f64_to_f16(f64_out(v, omod, clamp)) as u32
            });
            wv32(w, &d, &r, exec)?;
        }
        VCvtF16U16 | VCvtF16I16 | VCvtU16F16 | VCvtI16F16 => {
            let a = src32(w, ov, i, 0, Ty::H)?;
            let old = *vdst(w, &d, 0)?;
            let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
            let r: L32 = std::array::from_fn(|l| {
                let x = a[l] as u16;
                let v: u16 = match k {
                    VCvtF16U16 => f64_to_f16(f64_out(x as f64, omod, clamp)),
                    VCvtF16I16 => f64_to_f16(f64_out(x as i16 as f64, omod, clamp)),
                    VCvtU16F16 => f16_to_f32(x) as u16,
                    _ => f16_to_f32(x) as i16 as u16,
                };
                (old[l] & keep) | v as u32
            });
            wv32(w, &d, &r, exec)?;
        }
        VPkMovB32 | VPkAddF32 | VPkMulF32 | VPkFmaF32 => pk(k, w, i, exec)?,
        VPkAddU16 | VPkSubU16 | VPkAddI16 | VPkSubI16 | VPkMulLoU16 | VPkLshlrevB16
        | VPkLshrrevB16 | VPkAshrrevI16 | VPkMaxU16 | VPkMinU16 | VPkMaxI16 | VPkMinI16
        | VPkMadU16 | VPkMadI16 | VPkAddF16 | VPkMulF16 | VPkFmaF16 | VPkMaxF16 | VPkMinF16 => {
            pk16(k, w, i, exec)?
        }
        // VOP2: D.f16[h] = fma(S0.f16[h], S1.f16[h], D.f16[h]) for both halves.
        VPkFmacF16 => {
            if i.encoding != Encoding::Vop2 {
                return unsupported("v_pk_fmac_f16 outside its VOP2 form");
            }
            let (a, b) = (src32(w, ov, i, 0, Ty::H)?, src32(w, ov, i, 1, Ty::H)?);
            let c = *vdst(w, &d, 0)?;
            let r: L32 = std::array::from_fn(|l| {
                let f = |v: u32, h: u32| f16_to_f32((v >> (16 * h)) as u16) as f64;
                let half = |h: u32| f64_to_f16(f(a[l], h).mul_add(f(b[l], h), f(c[l], h))) as u32;
                half(0) | half(1) << 16
            });
            wv32(w, &d, &r, exec)?;
        }
        VCmp(c) => cmp(c, w, ov, i, exec)?,
        VCmpClassF32 | VCmpxClassF32 | VCmpClassF64 | VCmpxClassF64 => {
            let m = u32_src(w, ov, i, 1)?;
            let cls: L32 = if matches!(k, VCmpClassF32 | VCmpxClassF32) {
                let a = f32_src(w, ov, i, 0)?;
                a.map(fp_class_f32)
            } else {
                let a = f64_src(w, ov, i, 0)?;
                a.map(fp_class_f64)
            };
            let mut r = 0u64;
            for l in 0..64 {
                if (m[l] >> cls[l]) & 1 != 0 {
                    r |= 1 << l;
                }
            }
            r &= exec;
            write_cmp(w, i, r, matches!(k, VCmpxClassF32 | VCmpxClassF64))?;
        }
        VXadU32 => u3!(xad_u32),
        VSqrtF16 | VRcpF16 | VRsqF16 | VExpF16 | VLogF16 | VSinF16 | VCosF16 | VFractF16
        | VFloorF16 | VCeilF16 | VTruncF16 | VRndneF16 | VFrexpMantF16 | VFrexpExpF16
        | VLdexpF16 | VDivFixupF16 | VPackB32F16 => half(k, w, ov, i, ctx, exec)?,
        VFmaMixF32 | VFmaMixloF16 | VFmaMixhiF16 | VMadMixF32 | VMadMixloF16 | VMadMixhiF16 => {
            mix(k, w, i, exec)?
        }
        VTrigPreopF64 => {
            let a = f64_src(w, ov, i, 0)?;
            let seg = u32_src(w, ov, i, 1)?;
            let mut r = [0u64; 64];
            for l in 0..64 {
                if (exec >> l) & 1 == 0 {
                    continue;
                }
                let Some(v) = trig_preop_f64(a[l], seg[l]) else {
                    return unsupported(format!(
                        "v_trig_preop_f64 of {:#018x} segment {} (a rounded or \
                         disputed result)",
                        a[l].to_bits(),
                        seg[l] & 31
                    ));
                };
                r[l] = f64_out(v, omod, clamp).to_bits();
            }
            wv64(w, &d, &r, exec)?;
        }
        VPermlane16 | VPermlanex16 => permlane(k, w, i, exec)?,
        VMadF16 | VMacF16 | VMadmkF16 | VMadakF16 | VFmamkF16 | VFmaakF16 => {
            mad16(k, w, ov, i, ctx, exec)?
        }
        VMax3F16 | VMin3F16 | VMed3F16 | VMax3I16 | VMin3I16 | VMed3I16 | VMax3U16 | VMin3U16
        | VMed3U16 => three16(k, w, ov, i, ctx, exec)?,
        VCmpClassF16 | VCmpxClassF16 => {
            check_half_mode(w)?;
            let (a, m) = (half_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let mut r = 0u64;
            for l in 0..64 {
                if (m[l] >> fp_class_f16(a[l])) & 1 != 0 {
                    r |= 1 << l;
                }
            }
            write_cmp(w, i, r & exec, k == VCmpxClassF16)?;
        }
        _ if super::dot::handles(k) => super::dot::exec(k, w, i, ov, exec)?,
        VMfma => super::mfma::exec(w, i, ctx.gpu == amdgpu_isa::Gpu::Gfx90a)?,
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

/// Whether the executor models the `clamp` bit of `k`: every float result
/// (clamped to [0, 1]) and the integer adds, subtracts and multiply-adds that
/// saturate. For the other integer operations a set clamp bit is reported as
/// unsupported rather than ignored.
fn int_clamp_modelled(k: Kind) -> bool {
    use Kind::*;
    !matches!(
        k,
        VMulLoU16
            | VMulU32U24
            | VMulI32I24
            | VMulHiU32U24
            | VMulHiI32I24
            | VMulLoU32
            | VMulHiU32
            | VMulHiI32
            | VAdd3U32
            | VLshlAddU32
            | VAddLshlU32
            | VSadU32
            | VBcntU32
            | VMbcntLo
            | VMbcntHi
            | VCvtPkU16U32
            | VMin3U32
            | VMax3U32
            | VMin3I32
            | VMax3I32
            | VMed3U32
            | VMed3I32
            | VXadU32
            | VPermlane16
            | VPermlanex16
            | VPackB32F16
            | VFrexpExpF16
            | VMax3I16
            | VMin3I16
            | VMed3I16
            | VMax3U16
            | VMin3U16
            | VMed3U16
            | VSadU8
            | VQsadPkU16U8
            | VMqsadPkU16U8
            | VMqsadU32U8
            | VSadHiU8
            | VSadU16
            | VMsadU8
            | VLerpU8
            | VSatPkU8I16
            | VCvtPkI16I32
            | VCvtPkU8F32
            | VCvtPkaccumU8F32
            | VCvtPknormI16F32
            | VCvtPknormU16F32
            | VCvtPknormI16F16
            | VCvtPknormU16F16
            | VCvtNormI16F16
            | VCvtNormU16F16
            | VMovrelsd2
            | VSwaprel
    )
}

/// The sum of the absolute differences of the four bytes of `a` and `b`;
/// `masked` skips the bytes where `b` is 0 (`v_msad_u8`).
fn sad_u8(a: u32, b: u32, masked: bool) -> u32 {
    (0..4)
        .map(|k| {
            let (x, y) = ((a >> (8 * k)) as u8, (b >> (8 * k)) as u8);
            if masked && y == 0 {
                0
            } else {
                x.abs_diff(y) as u32
            }
        })
        .sum()
}

fn sext24(a: u32) -> i32 {
    ((a << 8) as i32) >> 8
}

fn write_cmp(w: &mut Wave, i: &Inst, r: u64, x: bool) -> R {
    let d = i.dst[0];
    if d.is_some() {
        write_mask_dst(w, &d, r)?;
    } else if !x {
        // VOPC without an explicit destination writes VCC.
        w.vcc = Mask(r);
    }
    if x {
        w.exec = Mask(r);
    }
    Ok(())
}

fn cmp(c: super::kinds::Cmp, w: &mut Wave, ov: Ov, i: &Inst, exec: u64) -> R {
    // Masks of lanes comparing less, equal, greater; unordered is the rest.
    let (mut lt, mut eq, mut gt) = (0u64, 0u64, 0u64);
    macro_rules! masks {
        ($a:expr, $b:expr) => {{
            let (a, b) = ($a, $b);
            for l in 0..64 {
                lt |= ((a[l] < b[l]) as u64) << l;
                eq |= ((a[l] == b[l]) as u64) << l;
                gt |= ((a[l] > b[l]) as u64) << l;
            }
        }};
    }
    let (abs, neg) = (i.alu.abs, i.alu.neg);
    match c.ty {
        CmpTy::F32 => masks!(f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?),
        CmpTy::F64 => masks!(f64_src(w, ov, i, 0)?, f64_src(w, ov, i, 1)?),
        CmpTy::F16 => {
            let h = |x: u32, k: u8| {
                let mut v = x as u16;
                if (abs >> k) & 1 != 0 {
                    v &= 0x7fff;
                }
                if (neg >> k) & 1 != 0 {
                    v ^= 0x8000;
                }
                f16_to_f32(v)
            };
            let a = src32(w, ov, i, 0, Ty::H)?.map(|x| h(x, 0));
            let b = src32(w, ov, i, 1, Ty::H)?.map(|x| h(x, 1));
            masks!(a, b)
        }
        CmpTy::I32 => masks!(
            u32_src(w, ov, i, 0)?.map(|x| x as i32),
            u32_src(w, ov, i, 1)?.map(|x| x as i32)
        ),
        CmpTy::U32 => masks!(u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?),
        CmpTy::I16 => masks!(
            u32_src(w, ov, i, 0)?.map(|x| x as i16),
            u32_src(w, ov, i, 1)?.map(|x| x as i16)
        ),
        CmpTy::U16 => masks!(
            u32_src(w, ov, i, 0)?.map(|x| x as u16),
            u32_src(w, ov, i, 1)?.map(|x| x as u16)
        ),
        CmpTy::I64 => masks!(
            u64_src(w, ov, i, 0)?.map(|x| x as i64),
            u64_src(w, ov, i, 1)?.map(|x| x as i64)
        ),
        CmpTy::U64 => masks!(u64_src(w, ov, i, 0)?, u64_src(w, ov, i, 1)?),
    }
    let un = !(lt | eq | gt);
    let r = c.eval_masks(lt, eq, gt, un);
    write_cmp(w, i, r & exec, c.x)
}

/// Packed 16-bit VOP3P operations (Vega ISA §6.7 "Packed math"): the low
/// half of the result takes the source halves chosen by `op_sel`, the high
/// half those chosen by `op_sel_hi`; `neg_lo`/`neg_hi` negate f16 sources.
/// Integer results wrap, or with `clamp` saturate per half for add, sub and
/// multiply-add as in the VOP3 forms (Vega ISA §6.3 "clamp ... for integer
/// operations, saturate"; the multiply-add saturates its exact result); `clamp`
/// on the other integer operations is reported as unsupported.
fn pk16(k: Kind, w: &mut Wave, i: &Inst, exec: u64) -> R {
    use Kind::*;
    let a = &i.alu;
    let float = matches!(k, VPkAddF16 | VPkMulF16 | VPkFmaF16 | VPkMaxF16 | VPkMinF16);
    let int_clamp = matches!(
        k,
        VPkAddU16 | VPkSubU16 | VPkAddI16 | VPkSubI16 | VPkMadU16 | VPkMadI16
    );
    if a.clamp && !float && !int_clamp {
        return unsupported("clamp on a packed integer operation");
    }
    let sat = a.clamp && int_clamp;
    let three = matches!(k, VPkMadU16 | VPkMadI16 | VPkFmaF16);
    let ty = if float { Ty::H } else { Ty::I };
    let srcs = [
        v32(w, &i.src[0], ty)?,
        v32(w, &i.src[1], ty)?,
        if three {
            v32(w, &i.src[2], ty)?
        } else {
            [0; 64]
        },
    ];
    let r: L32 = std::array::from_fn(|l| {
        let half = |hi: bool| -> u16 {
            let get = |s: usize| -> u16 {
                let sel = if hi { a.op_sel_hi } else { a.op_sel };
                let v = srcs[s][l];
                let x = if (sel >> s) & 1 != 0 {
                    (v >> 16) as u16
                } else {
                    v as u16
                };
                let neg = if hi { a.neg_hi } else { a.neg };
                if float && (neg >> s) & 1 != 0 {
                    x ^ 0x8000
                } else {
                    x
                }
            };
            let (x, y, z) = (get(0), get(1), get(2));
            let f = |v: u16| f16_to_f32(v) as f64;
            let fo = |v: f64| {
                let v = if a.clamp { clamp_unit_f64(v) } else { v };
                f64_to_f16(v)
            };
            match k {
                VPkAddU16 if sat => x.saturating_add(y),
                VPkSubU16 if sat => x.saturating_sub(y),
                VPkAddI16 if sat => (x as i16).saturating_add(y as i16) as u16,
                VPkSubI16 if sat => (x as i16).saturating_sub(y as i16) as u16,
                VPkMadU16 if sat => (x as u32 * y as u32 + z as u32).min(0xffff) as u16,
                VPkMadI16 if sat => (x as i16 as i32 * y as i16 as i32 + z as i16 as i32)
                    .clamp(-0x8000, 0x7fff) as u16,
                VPkAddU16 | VPkAddI16 => x.wrapping_add(y),
                VPkSubU16 | VPkSubI16 => x.wrapping_sub(y),
                VPkMulLoU16 => x.wrapping_mul(y),
                VPkLshlrevB16 => y << (x & 15),
                VPkLshrrevB16 => y >> (x & 15),
                VPkAshrrevI16 => ((y as i16) >> (x & 15)) as u16,
                VPkMaxU16 => x.max(y),
                VPkMinU16 => x.min(y),
                VPkMaxI16 => (x as i16).max(y as i16) as u16,
                VPkMinI16 => (x as i16).min(y as i16) as u16,
                // The low 16 bits of the product do not depend on the signedness.
                VPkMadU16 | VPkMadI16 => x.wrapping_mul(y).wrapping_add(z),
                VPkAddF16 => fo(f(x) + f(y)),
                VPkMulF16 => fo(f(x) * f(y)),
                VPkFmaF16 => fo(f(x).mul_add(f(y), f(z))),
                VPkMaxF16 => fo(max_f32(f(x) as f32, f(y) as f32) as f64),
                _ => fo(min_f32(f(x) as f32, f(y) as f32) as f64),
            }
        };
        half(false) as u32 | (half(true) as u32) << 16
    });
    wv32(w, &i.dst[0], &r, exec)
}

/// gfx90a packed FP32 (VOP3P): each half of the 64-bit result takes the
/// source dwords chosen by `op_sel` (low half) and `op_sel_hi` (high half).
fn pk(k: Kind, w: &mut Wave, i: &Inst, exec: u64) -> R {
    let ov = None;
    let srcs = [
        u64_src(w, ov, i, 0)?,
        u64_src(w, ov, i, 1)?,
        if k == Kind::VPkFmaF32 {
            u64_src(w, ov, i, 2)?
        } else {
            [0; 64]
        },
    ];
    let a = &i.alu;
    let pick = |s: usize, l: usize, hi_half: bool| -> u32 {
        let sel = if hi_half {
            (a.op_sel_hi >> s) & 1
        } else {
            (a.op_sel >> s) & 1
        };
        let v = srcs[s][l];
        let x = if sel != 0 { (v >> 32) as u32 } else { v as u32 };
        let neg = if hi_half {
            (a.neg_hi >> s) & 1
        } else {
            (a.neg >> s) & 1
        };
        if neg != 0 && k != Kind::VPkMovB32 {
            x ^ 0x8000_0000
        } else {
            x
        }
    };
    let r: L64 = std::array::from_fn(|l| {
        let half = |h: bool| -> u32 {
            let f = |s| f32::from_bits(pick(s, l, h));
            match k {
                Kind::VPkMovB32 => {
                    // lo = src0 (selected by op_sel[0]), hi = src1 (by op_sel[1]).
                    let s = if h { 1 } else { 0 };
                    let sel = (a.op_sel >> s) & 1;
                    let v = srcs[s][l];
                    if sel != 0 { (v >> 32) as u32 } else { v as u32 }
                }
                Kind::VPkAddF32 => f32_out(f(0) + f(1), 0, a.clamp).to_bits(),
                Kind::VPkMulF32 => f32_out(f(0) * f(1), 0, a.clamp).to_bits(),
                _ => f32_out(f(0).mul_add(f(1), f(2)), 0, a.clamp).to_bits(),
            }
        };
        half(false) as u64 | (half(true) as u64) << 32
    });
    wv64(w, &i.dst[0], &r, exec)
}

/// The f16 operations (VOP1/VOP2/VOP3) and `v_pack_b32_f16`, lane by lane
/// through the pure functions of [`crate::alu`].
fn half(k: Kind, w: &mut Wave, ov: Ov, i: &Inst, ctx: &Ctx, exec: u64) -> R {
    use Kind::*;
    check_half_mode(w)?;
    let (omod, clamp) = (i.alu.omod, i.alu.clamp);
    let a = half_src(w, ov, i, 0)?;
    let mut r = [0u16; 64];
    match k {
        VPackB32F16 => {
            if omod != 0 || (i.alu.op_sel >> 3) & 1 != 0 {
                return unsupported("output modifiers on v_pack_b32_f16");
            }
            let b = half_src(w, ov, i, 1)?;
            let mut v = [0u32; 64];
            for l in 0..64 {
                if (exec >> l) & 1 == 0 {
                    continue;
                }
                match pack_b32_f16(a[l], b[l]) {
                    Some(x) => v[l] = x,
                    None => return unsupported("v_pack_b32_f16 of a signalling NaN"),
                }
            }
            return wv32(w, &i.dst[0], &v, exec);
        }
        VLdexpF16 => {
            if (i.alu.op_sel >> 1) & 1 != 0 {
                return unsupported("op_sel on the exponent of v_ldexp_f16");
            }
            let e = src32(w, ov, i, 1, Ty::I)?;
            for l in 0..64 {
                if (exec >> l) & 1 == 0 {
                    continue;
                }
                let Some(x) = ldexp_f16(a[l], e[l]) else {
                    return unsupported(format!(
                        "v_ldexp_f16 exponent {:#x} (16-bit and 32-bit readings differ)",
                        e[l]
                    ));
                };
                r[l] = half_out(x, omod, clamp)?;
            }
        }
        VDivFixupF16 => {
            let (b, c) = (half_src(w, ov, i, 1)?, half_src(w, ov, i, 2)?);
            for l in 0..64 {
                if (exec >> l) & 1 != 0 {
                    r[l] = half_out(div_fixup_f16(a[l], b[l], c[l]), omod, clamp)?;
                }
            }
        }
        VFrexpExpF16 => {
            if omod != 0 {
                return unsupported("an output modifier on v_frexp_exp_i16_f16");
            }
            for l in 0..64 {
                r[l] = frexp_exp_f16(a[l]) as u16;
            }
        }
        _ => {
            for l in 0..64 {
                if (exec >> l) & 1 == 0 {
                    continue;
                }
                let x = a[l];
                let v = match k {
                    VSqrtF16 => sqrt_f16(x),
                    VRcpF16 => rcp_f16(x),
                    VRsqF16 => rsq_f16(x),
                    VExpF16 => exp_f16(x),
                    VLogF16 => log_f16(x),
                    VFractF16 => fract_f16(x),
                    VFloorF16 => round_int_f16(x, 0),
                    VCeilF16 => round_int_f16(x, 1),
                    VTruncF16 => round_int_f16(x, 2),
                    VRndneF16 => round_int_f16(x, 3),
                    VFrexpMantF16 => frexp_mant_f16(x),
                    VSinF16 | VCosF16 => {
                        let v = if k == VSinF16 { sin_f16(x) } else { cos_f16(x) };
                        match v {
                            Some(v) => v,
                            None => {
                                return unsupported(format!(
                                    "{} of {x:#06x} (outside [-256, 256], or an exact \
                                     zero of unspecified sign)",
                                    if k == VSinF16 {
                                        "v_sin_f16"
                                    } else {
                                        "v_cos_f16"
                                    }
                                ));
                            }
                        }
                    }
                    _ => return Err(E::Unimpl),
                };
                r[l] = half_out(v, omod, clamp)?;
            }
        }
    }
    half_write(w, i, ctx, exec, &r)
}

/// `v_fma_mix*` (gfx906+, GFX10) and `v_mad_mix*` (gfx900), VOP3P: each
/// source is an f32, or (its `op_sel_hi` bit set) the f16 half chosen by its
/// `op_sel` bit, converted exactly; `neg_hi` is `abs` (decoded as `abs`),
/// `neg_lo` negates. `_mixlo`/`_mixhi` write an f16 result into one half and
/// keep the other.
///
/// The FMA forms round once; where rounding once to f16 and rounding
/// through f32 (the guides' pseudo-code) differ, the result is reported as
/// unsupported. The MAD forms are unfused (the product rounded to f32 first,
/// as the compiler's `fmad` patterns assume) and flush denormals; a denormal
/// anywhere in them, or an f16 result that rounding through f32 would change,
/// is reported as unsupported.
fn mix(k: Kind, w: &mut Wave, i: &Inst, exec: u64) -> R {
    use Kind::*;
    check_round(w)?;
    let fma = matches!(k, VFmaMixF32 | VFmaMixloF16 | VFmaMixhiF16);
    if fma && (denorms(w, true) != (true, true) || denorms(w, false) != (true, true)) {
        return unsupported("denormal flushing (MODE.FP_DENORM) in a mixed-precision FMA");
    }
    let a = &i.alu;
    if a.omod != 0 {
        return unsupported("an output modifier on a mixed-precision operation");
    }
    let mut srcs = [[0f32; 64]; 3];
    // Lanes with an f16 denormal source (the MAD forms flush them).
    let mut denormal = 0u64;
    for (s, out) in srcs.iter_mut().enumerate() {
        let half = (a.op_sel_hi >> s) & 1 != 0;
        let v = v32(w, &i.src[s], if half { Ty::H } else { Ty::F })?;
        let (hi, abs, neg) = (
            (a.op_sel >> s) & 1 != 0,
            (a.abs >> s) & 1 != 0,
            (a.neg >> s) & 1 != 0,
        );
        for (l, &x) in v.iter().enumerate() {
            let h = if hi { (x >> 16) as u16 } else { x as u16 };
            if half && f16_is_denormal(h) {
                denormal |= 1 << l;
            }
        }
        *out = v.map(|x| {
            let f = if !half {
                f32::from_bits(x)
            } else if hi {
                f16_to_f32((x >> 16) as u16)
            } else {
                f16_to_f32(x as u16)
            };
            let f = if abs { f.abs() } else { f };
            if neg { -f } else { f }
        });
    }
    let d = i.dst[0];
    let old = *vdst(w, &d, 0)?;
    let mut r = [0u32; 64];
    for l in 0..64 {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let (x, y, z) = (srcs[0][l], srcs[1][l], srcs[2][l]);
        let wide = matches!(k, VFmaMixF32 | VMadMixF32);
        let nans: Vec<f32> = [x, y, z].into_iter().filter(|v| v.is_nan()).collect();
        let h = if let Some(&nan) = nans.first() {
            // A NaN operand propagates, quietened; of several, the first, as
            // `v_fma_f16` and the other operations here choose (which one
            // the hardware returns is not documented).
            let q = f32::from_bits(nan.to_bits() | 0x0040_0000);
            if wide {
                r[l] = f32_out(q, 0, a.clamp).to_bits();
                continue;
            }
            f32_to_f16(q)
        } else if fma {
            if wide {
                r[l] = f32_out(x.mul_add(y, z), 0, a.clamp).to_bits();
                continue;
            }
            let once = fma_f32_to_f16(x, y, z);
            if once != f32_to_f16(x.mul_add(y, z)) {
                return unsupported(
                    "a mixed-precision FMA whose f16 result depends on rounding through f32",
                );
            }
            once
        } else {
            let p = x * y;
            let s = p + z;
            if (denormal >> l) & 1 != 0 || [x, y, z, p, s].iter().any(|v| v.is_subnormal()) {
                return unsupported(
                    "a denormal in a mixed-precision MAD (flushed by the hardware)",
                );
            }
            if wide {
                r[l] = f32_out(s, 0, a.clamp).to_bits();
                continue;
            }
            let through = f32_to_f16(s);
            if through != fma_f32_to_f16(p, 1.0, z) || f16_is_denormal(through) {
                return unsupported(
                    "a mixed-precision MAD whose f16 result depends on rounding through f32",
                );
            }
            through
        };
        let h = half_out(h, 0, a.clamp)?;
        r[l] = if matches!(k, VFmaMixhiF16 | VMadMixhiF16) {
            (old[l] & 0xffff) | (h as u32) << 16
        } else {
            (old[l] & 0xffff_0000) | h as u32
        };
    }
    wv32(w, &d, &r, exec)
}

/// GFX10 `v_permlane16_b32` / `v_permlanex16_b32` (RDNA ISA, VOP3): lane
/// `i` of each row of 16 reads lane `sel[i]` (4 bits of the 64-bit
/// `{S2, S1}`) of its own row, or for `x16` of the other row of the pair
/// (0 and 1, 2 and 3). `op_sel[0]` is DPP `fi`: source lanes outside EXEC are
/// read too; without it such a lane gives 0 with `op_sel[1]` (`bound_ctrl`)
/// and leaves the destination unchanged otherwise.
#[allow(clippy::needless_range_loop)]
fn permlane(k: Kind, w: &mut Wave, i: &Inst, exec: u64) -> R {
    let src = match i.src[0] {
        Operand::Vgpr { index, .. } => *vreg(w, index, false)?,
        _ => return unsupported("v_permlane with a source other than a VGPR"),
    };
    if i.alu.abs | i.alu.neg != 0 || i.alu.omod != 0 || (i.alu.op_sel & !3) != 0 {
        return unsupported("modifiers on v_permlane");
    }
    let sel = s32(w, &i.src[1])? as u64 | (s32(w, &i.src[2])? as u64) << 32;
    let (fi, bound) = (i.alu.op_sel & 1 != 0, i.alu.op_sel & 2 != 0);
    let d = i.dst[0];
    let mut r = *vdst(w, &d, 0)?;
    let mut write = 0u64;
    for l in 0..w.size as usize {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let row = if k == Kind::VPermlanex16 {
            (l / 16) ^ 1
        } else {
            l / 16
        };
        let s = row * 16 + ((sel >> (4 * (l % 16))) & 15) as usize;
        if fi || (exec >> s) & 1 != 0 {
            r[l] = src[s];
        } else if bound {
            r[l] = 0;
        } else {
            continue;
        }
        write |= 1 << l;
    }
    wv32(w, &d, &r, write)
}

/// `v_mad_f16` and the two-operand and literal forms `v_mac_f16`,
/// `v_madmk_f16`, `v_madak_f16` (unfused, denormals flushed, as
/// [`mad_f16`]), and GFX10's `v_fmamk_f16` / `v_fmaak_f16` (fused). The
/// 16-bit result goes to the low half; the high half is kept, except by
/// `v_mad_f16` on GFX9, which zeroes it (LLVM's `zeroesHigh16BitsOfDest`:
/// "In gfx9 ... some instructions changed to preserving the high bits").
fn mad16(k: Kind, w: &mut Wave, ov: Ov, i: &Inst, ctx: &Ctx, exec: u64) -> R {
    use Kind::*;
    check_round(w)?;
    let a = half_src(w, ov, i, 0)?;
    let b = half_src(w, ov, i, 1)?;
    let kk = match (k, i.src[3]) {
        (VMadmkF16 | VMadakF16 | VFmamkF16 | VFmaakF16, Operand::Literal(v)) => v as u16,
        (VMadmkF16 | VMadakF16 | VFmamkF16 | VFmaakF16, _) => {
            return unsupported("madmk/madak without a literal");
        }
        _ => 0,
    };
    let d = i.dst[0];
    let old = *vdst(w, &d, 0)?;
    let c = match k {
        VMadF16 => half_src(w, ov, i, 2)?,
        VMacF16 => {
            let (abs, neg) = ((i.alu.abs >> 2) & 1 != 0, (i.alu.neg >> 2) & 1 != 0);
            old.map(|x| {
                let h = if abs { x as u16 & 0x7fff } else { x as u16 };
                if neg { h ^ 0x8000 } else { h }
            })
        }
        _ => [kk; 64],
    };
    let mut r = [0u16; 64];
    for l in 0..64 {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let v = match k {
            VMadF16 | VMacF16 | VMadakF16 => mad_f16(a[l], b[l], c[l]),
            VMadmkF16 => mad_f16(a[l], kk, b[l]),
            VFmamkF16 => fma_f16(a[l], kk, b[l]),
            _ => fma_f16(a[l], b[l], kk),
        };
        r[l] = half_out(v, i.alu.omod, i.alu.clamp)?;
    }
    if k == VMadF16 {
        return half_write(w, i, ctx, exec, &r);
    }
    if (i.alu.op_sel >> 3) & 1 != 0 {
        return unsupported("op_sel on the destination of a 16-bit multiply-add");
    }
    let v: L32 = std::array::from_fn(|l| (old[l] & 0xffff_0000) | r[l] as u32);
    wv32(w, &d, &v, exec)
}

/// The GFX9+ 16-bit three-operand minimum, maximum and median (VOP3,
/// `op_sel` choosing source halves): f16 with the `minNum`/`maxNum` rules of
/// the f32 forms (a median with a NaN operand is the minimum of the three, as
/// `v_med3_f32`), signed and unsigned 16-bit integers. The result is written
/// like the other 16-bit VOP3 operations of the class (`v_mad_u16`,
/// `v_fma_f16`): GFX9 zeroes the high half, GFX10 keeps it.
fn three16(k: Kind, w: &mut Wave, ov: Ov, i: &Inst, ctx: &Ctx, exec: u64) -> R {
    use Kind::*;
    let float = matches!(k, VMax3F16 | VMin3F16 | VMed3F16);
    let srcs = if float {
        check_half_mode(w)?;
        [
            half_src(w, ov, i, 0)?,
            half_src(w, ov, i, 1)?,
            half_src(w, ov, i, 2)?,
        ]
    } else {
        if i.alu.omod != 0 {
            return unsupported("an output modifier on a 16-bit integer operation");
        }
        let pick = |k2: usize| -> Result<[u16; 64], E> {
            let v = src32(w, ov, i, k2, Ty::I)?;
            let hi = (i.alu.op_sel >> k2) & 1 != 0;
            Ok(v.map(|x| if hi { (x >> 16) as u16 } else { x as u16 }))
        };
        [pick(0)?, pick(1)?, pick(2)?]
    };
    let mut r = [0u16; 64];
    for l in 0..64 {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let (a, b, c) = (srcs[0][l], srcs[1][l], srcs[2][l]);
        let med = |lt: &dyn Fn(u16, u16) -> bool| {
            let mx = |x: u16, y: u16| if lt(x, y) { y } else { x };
            let mn = |x: u16, y: u16| if lt(x, y) { x } else { y };
            mx(mn(a, b), mn(mx(a, b), c))
        };
        r[l] = match k {
            VMax3I16 => (a as i16).max(b as i16).max(c as i16) as u16,
            VMin3I16 => (a as i16).min(b as i16).min(c as i16) as u16,
            VMed3I16 => med(&|x, y| (x as i16) < (y as i16)),
            VMax3U16 => a.max(b).max(c),
            VMin3U16 => a.min(b).min(c),
            VMed3U16 => med(&|x, y| x < y),
            _ => {
                let (x, y, z) = (f16_to_f32(a), f16_to_f32(b), f16_to_f32(c));
                let v = match k {
                    VMax3F16 => max_f32(max_f32(x, y), z),
                    VMin3F16 => min_f32(min_f32(x, y), z),
                    _ if x.is_nan() || y.is_nan() || z.is_nan() => min_f32(min_f32(x, y), z),
                    _ => max_f32(min_f32(x, y), min_f32(max_f32(x, y), z)),
                };
                half_out(f32_to_f16(v), i.alu.omod, i.alu.clamp)?
            }
        };
    }
    half_write(w, i, ctx, exec, &r)
}

//! Conversions between integer, f16, f32 and f64, and the packing and
//! normalising conversions.

use super::*;

/// Executes the operations of class [`Class::Conv`], one helper per family.
/// The helpers are inlined here (`#[inline(always)]`), as the class
/// functions are into [`super::exec_with`].
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
    use Kind::*;
    match k {
        VCvtF32U32 | VCvtF32I32 | VCvtF32Ubyte0 | VCvtF32Ubyte1 | VCvtF32Ubyte2 | VCvtF32Ubyte3
        | VCvtOffF32I4 => int_to_f32(k, w, i, ov),
        VCvtU32F32 | VCvtI32F32 | VCvtI32F64 | VCvtU32F64 | VCvtFlrI32F32 | VCvtRpiI32F32 => {
            float_to_int(k, w, i, ov)
        }
        VCvtF64F32 | VCvtF32F64 | VCvtF64I32 | VCvtF64U32 => to_from_f64(k, w, i, ov),
        VCvtF16F32 | VCvtF32F16 => f16_f32(k, w, i, ctx, ov),
        VCvtF16U16 | VCvtF16I16 | VCvtU16F16 | VCvtI16F16 => f16_int(k, w, i, ctx, ov),
        VCvtPkrtz => pkrtz(w, i, ov),
        VCvtPknormI16F32 | VCvtPknormU16F32 => pknorm_f32(k, w, i, ov),
        VCvtPknormI16F16 | VCvtPknormU16F16 | VCvtNormI16F16 | VCvtNormU16F16 => {
            norm_f16(k, w, i, ctx, ov)
        }
        VCvtPkU8F32 | VCvtPkaccumU8F32 => pk_u8(k, w, i, ov),
        _ => Err(E::Unimpl),
    }
}

/// The lanes of EXEC (within the wave's size).
#[inline(always)]
fn active(w: &Wave) -> u64 {
    w.exec.0 & w.full_mask()
}

/// An f32 result with the output modifier, clamp and, unless `keep`, output
/// denormals flushed (MODE.FP_DENORM).
#[inline(always)]
fn out32(v: f32, omod: u8, clamp: bool, keep: bool) -> f32 {
    let r = crate::alu::f32_out(v, omod, clamp);
    if keep { r } else { ftz32(r) }
}

/// An f64 result, as [`out32`].
#[inline(always)]
fn out64(v: f64, omod: u8, clamp: bool, keep: bool) -> f64 {
    let r = crate::alu::f64_out(v, omod, clamp);
    if keep { r } else { ftz64(r) }
}

/// Integers (32-bit, one byte, or a signed 4-bit fraction) to f32.
#[inline(always)]
fn int_to_f32(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = active(w);
    let (omod, clamp, keep) = (i.alu.omod, i.alu.clamp, denorms(w, false).1);
    let a = u32_src(w, ov, i, 0)?;
    let cvt = |x: u32| -> f32 {
        match k {
            VCvtF32U32 => x as f32,
            VCvtF32I32 => x as i32 as f32,
            VCvtF32Ubyte0 => (x & 0xff) as f32,
            VCvtF32Ubyte1 => ((x >> 8) & 0xff) as f32,
            VCvtF32Ubyte2 => ((x >> 16) & 0xff) as f32,
            VCvtF32Ubyte3 => (x >> 24) as f32,
            // The signed 4-bit S0[3:0] over 16: 0, 0.0625, ..., 0.4375, -0.5, ..., -0.0625.
            _ => (((x as i32) << 28) >> 28) as f32 / 16.0,
        }
    };
    let r: L32 = a.map(|x| out32(cvt(x), omod, clamp, keep).to_bits());
    wv32(w, &i.dst[0], &r, exec)
}

/// f32 and f64 to 32-bit integers (rounding toward zero, down, or to the
/// nearest with halves up).
#[inline(always)]
fn float_to_int(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = active(w);
    let d = i.dst[0];
    match k {
        VCvtU32F32 => {
            let a = f32_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(cvt_u32_f32), exec)
        }
        VCvtI32F32 => {
            let a = f32_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| cvt_i32_f32(x) as u32), exec)
        }
        VCvtI32F64 => {
            let a = f64_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| cvt_i32_f64(x) as u32), exec)
        }
        VCvtU32F64 => {
            let a = f64_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| x as u32), exec)
        }
        VCvtFlrI32F32 => {
            let a = f32_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| x.floor() as i32 as u32), exec)
        }
        VCvtRpiI32F32 => {
            let a = f32_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| (x + 0.5).floor() as i32 as u32), exec)
        }
        _ => Err(E::Unimpl),
    }
}

/// f32 to f64 and back, and 32-bit integers to f64.
#[inline(always)]
fn to_from_f64(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = active(w);
    let d = i.dst[0];
    let (omod, clamp) = (i.alu.omod, i.alu.clamp);
    let (keep32, keep64) = (denorms(w, false).1, denorms(w, true).1);
    match k {
        VCvtF64F32 => {
            let a = f32_src(w, ov, i, 0)?;
            let r: L64 = a.map(|x| out64(x as f64, omod, clamp, keep64).to_bits());
            wv64(w, &d, &r, exec)
        }
        VCvtF32F64 => {
            let a = f64_src(w, ov, i, 0)?;
            let r: L32 = a.map(|x| out32(x as f32, omod, clamp, keep32).to_bits());
            wv32(w, &d, &r, exec)
        }
        VCvtF64I32 | VCvtF64U32 => {
            let a = u32_src(w, ov, i, 0)?;
            let r: L64 = if k == VCvtF64I32 {
                a.map(|x| out64(x as i32 as f64, omod, clamp, keep64).to_bits())
            } else {
                a.map(|x| out64(x as f64, omod, clamp, keep64).to_bits())
            };
            wv64(w, &d, &r, exec)
        }
        _ => Err(E::Unimpl),
    }
}

/// f32 to f16 (the high half zeroed on GFX9, kept on GFX10) and f16 (with
/// the VOP3 abs and neg of source 0) to f32.
#[inline(always)]
fn f16_f32(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
    let exec = active(w);
    let d = i.dst[0];
    let (omod, clamp, keep32) = (i.alu.omod, i.alu.clamp, denorms(w, false).1);
    if k == Kind::VCvtF16F32 {
        let a = f32_src(w, ov, i, 0)?;
        let old = *vdst(w, &d, 0)?;
        let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
        let r: L32 = std::array::from_fn(|l| {
            (old[l] & keep) | f32_to_f16(out32(a[l], omod, clamp, keep32)) as u32
        });
        wv32(w, &d, &r, exec)
    } else {
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
            out32(f16_to_f32(h), omod, clamp, keep32).to_bits()
        });
        wv32(w, &d, &r, exec)
    }
}

/// 16-bit integers to f16 and back (a 16-bit result: the high half zeroed
/// on GFX9, kept on GFX10).
#[inline(always)]
fn f16_int(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
    use Kind::*;
    let exec = active(w);
    let d = i.dst[0];
    let (omod, clamp, keep64) = (i.alu.omod, i.alu.clamp, denorms(w, true).1);
    let a = src32(w, ov, i, 0, Ty::H)?;
    let old = *vdst(w, &d, 0)?;
    let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
    let r: L32 = std::array::from_fn(|l| {
        let x = a[l] as u16;
        let v: u16 = match k {
            VCvtF16U16 => f64_to_f16(out64(x as f64, omod, clamp, keep64)),
            VCvtF16I16 => f64_to_f16(out64(x as i16 as f64, omod, clamp, keep64)),
            VCvtU16F16 => f16_to_f32(x) as u16,
            _ => f16_to_f32(x) as i16 as u16,
        };
        (old[l] & keep) | v as u32
    });
    wv32(w, &d, &r, exec)
}

/// `v_cvt_pkrtz_f16_f32`: two f32 to two f16, rounding toward zero.
#[inline(always)]
fn pkrtz(w: &mut Wave, i: &Inst, ov: Ov) -> R {
    let exec = active(w);
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
    wv32(w, &i.dst[0], &r, exec)
}

/// `v_cvt_pknorm_{i16,u16}_f32`: two f32 to two normalised 16-bit integers.
#[inline(always)]
fn pknorm_f32(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    if i.alu.omod != 0 {
        return unsupported("an output modifier on an integer conversion");
    }
    let exec = active(w);
    let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
    let norm = |x: f32| -> u32 {
        let v = if k == Kind::VCvtPknormI16F32 {
            f32_to_norm(x, 32767.0, -32767.0, 32767.0)
        } else {
            f32_to_norm(x, 65535.0, 0.0, 65535.0)
        };
        v as u32 & 0xffff
    };
    let r: L32 = std::array::from_fn(|l| norm(a[l]) | norm(b[l]) << 16);
    wv32(w, &i.dst[0], &r, exec)
}

/// f16 to normalised 16-bit integers: two packed (`pknorm`), or one (the
/// high half zeroed on GFX9, kept on GFX10).
#[inline(always)]
fn norm_f16(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
    use Kind::*;
    if i.alu.omod != 0 || i.alu.op_sel & !3 != 0 {
        return unsupported("an output modifier or op_sel on a 16-bit destination");
    }
    let exec = active(w);
    let d = i.dst[0];
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
        let old = *vdst(w, &d, 0)?;
        let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
        std::array::from_fn(|l| (old[l] & keep) | norm(a[l]))
    };
    wv32(w, &d, &r, exec)
}

/// D = S2 with byte S1[1:0] replaced by flt32_to_uint8(S0); the
/// accumulating form replaces that byte of D itself.
#[inline(always)]
fn pk_u8(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    if i.alu.omod != 0 {
        return unsupported("an output modifier on an integer conversion");
    }
    let exec = active(w);
    let d = i.dst[0];
    let (a, b) = (f32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
    let c = if k == Kind::VCvtPkU8F32 {
        u32_src(w, ov, i, 2)?
    } else {
        *vdst(w, &d, 0)?
    };
    let r: L32 = std::array::from_fn(|l| {
        let sh = 8 * (b[l] & 3);
        (c[l] & !(0xff << sh)) | f32_to_u8(a[l]) << sh
    });
    wv32(w, &d, &r, exec)
}

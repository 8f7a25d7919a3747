//! f32 operations (VOP1/VOP2/VOP3), the f32 parts of division, and the
//! legacy and cube-map operations.

use super::*;

/// Executes the operations of class [`Class::F32`]: one line per operation,
/// the operations with more than a lane function in helpers. The helpers are
/// inlined here (`#[inline(always)]`), as the class functions are into
/// [`super::exec_with`] (so that the NaN a host operation returns does not
/// change).
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    match k {
        VRcpF32 => un::<f32>(w, i, ov, |x| 1.0 / x)?,
        VRsqF32 => un::<f32>(w, i, ov, |x| 1.0 / x.sqrt())?,
        VSqrtF32 => un::<f32>(w, i, ov, |x| x.sqrt())?,
        VTruncF32 => un::<f32>(w, i, ov, |x| x.trunc())?,
        VCeilF32 => un::<f32>(w, i, ov, |x| x.ceil())?,
        VFloorF32 => un::<f32>(w, i, ov, |x| x.floor())?,
        VRndneF32 => un::<f32>(w, i, ov, |x| x.round_ties_even())?,
        VFractF32 => un::<f32>(w, i, ov, fract_f32)?,
        VExpF32 => un::<f32>(w, i, ov, |x| x.exp2())?,
        VLogF32 => un::<f32>(w, i, ov, |x| x.log2())?,
        VSinF32 | VCosF32 => sin_cos(k, w, i, ov)?,
        VFrexpMantF32 => un::<f32>(w, i, ov, frexp_mant_f32)?,
        VFrexpExpF32 => frexp_exp(w, i, ov)?,
        // "Legacy" multiplies: 0 times anything (also an infinity or a NaN) is +0.
        VMadLegacyF32 => tern::<f32>(w, i, ov, mad_legacy)?,
        VFmaLegacyF32 => tern::<f32>(w, i, ov, fma_legacy)?,
        VMacLegacyF32 | VFmacLegacyF32 => mac_legacy(k, w, i, ov)?,
        // ------------------------------------------------------ float
        VAddF32 => bin::<f32>(w, i, ov, |a, b| nan_first32(a + b, [a, b]))?,
        VSubF32 => bin::<f32>(w, i, ov, |a, b| nan_first32(a - b, [a, b]))?,
        VSubrevF32 => bin::<f32>(w, i, ov, |a, b| nan_first32(b - a, [a, b]))?,
        VMulF32 => bin::<f32>(w, i, ov, |a, b| nan_first32(a * b, [a, b]))?,
        VMinF32 => bin::<f32>(w, i, ov, min_f32)?,
        VMaxF32 => bin::<f32>(w, i, ov, max_f32)?,
        VLdexpF32 => ldexp(w, i, ov)?,
        VFmaF32 => tern::<f32>(w, i, ov, fma_f32)?,
        VFmacF32 | VMacF32 => mac(k, w, i, ov)?,
        VFmamkF32 | VFmaakF32 | VMadmkF32 | VMadakF32 => mac_literal(k, w, i, ov)?,
        // Unfused, denormals flushed (`llvm.amdgcn.fmad.ftz`).
        VMadF32 => tern::<f32>(w, i, ov, mad_f32)?,
        VDivFixupF32 => tern::<f32>(w, i, ov, div_fixup_f32)?,
        VDivScaleF32 => div_scale::<f32>(w, i, ov, div_scale_f32)?,
        VDivFmasF32 => div_fmas(w, i, ov)?,
        VCubeidF32 => tern::<f32>(w, i, ov, |x, y, z| cube(x, y, z).0)?,
        VCubemaF32 => tern::<f32>(w, i, ov, |x, y, z| 2.0 * cube(x, y, z).1)?,
        VCubescF32 => tern::<f32>(w, i, ov, |x, y, z| cube(x, y, z).2)?,
        VCubetcF32 => tern::<f32>(w, i, ov, |x, y, z| cube(x, y, z).3)?,
        VMax3F32 => tern::<f32>(w, i, ov, |a, b, c| max_f32(max_f32(a, b), c))?,
        VMin3F32 => tern::<f32>(w, i, ov, |a, b, c| min_f32(min_f32(a, b), c))?,
        VMed3F32 => tern::<f32>(w, i, ov, med3_f32)?,
        VMulLegacyF32 => bin::<f32>(
            w,
            i,
            ov,
            |a, b| if a == 0.0 || b == 0.0 { 0.0 } else { a * b },
        )?,
        // No AMD pseudo-code exists for these three: CLRX's reverse-engineered
        // rules (see the functions), the VOP3 input and output modifiers as
        // for the other f32 operations.
        VExpLegacyF32 => un::<f32>(w, i, ov, exp_legacy_f32)?,
        VLogLegacyF32 => un::<f32>(w, i, ov, log_legacy_f32)?,
        VMullitF32 => tern::<f32>(w, i, ov, mullit_f32)?,
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

/// An f32 result as bits, with the output modifier, clamp and MODE's output
/// denormals (`keep`).
#[inline(always)]
fn out(v: f32, omod: u8, clamp: bool, keep: bool) -> u32 {
    f32::finish(v, omod, clamp, keep) as u32
}

/// `v_sin_f32` and `v_cos_f32` (of turns); an argument outside the modelled
/// range is reported.
#[inline(always)]
fn sin_cos(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    let exec = w.exec.0 & w.full_mask();
    let (omod, clamp, keep) = (i.alu.omod, i.alu.clamp, f32::keep(w));
    let a = f32_src(w, ov, i, 0)?;
    let mut r = [0u32; 64];
    for l in 0..64 {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let v = if k == Kind::VSinF32 {
            sin_f32(a[l])
        } else {
            cos_f32(a[l])
        };
        let Some(v) = v else {
            return unsupported(format!(
                "v_{}_f32 of {:e} (outside [-256, 256], or an exact zero of \
                 unspecified sign)",
                if k == Kind::VSinF32 { "sin" } else { "cos" },
                a[l]
            ));
        };
        r[l] = out(v, omod, clamp, keep);
    }
    wv32(w, &i.dst[0], &r, exec)
}

/// `v_frexp_exp_i32_f32`: the exponent, as an integer.
#[inline(always)]
fn frexp_exp(w: &mut Wave, i: &Inst, ov: Ov) -> R {
    let exec = w.exec.0 & w.full_mask();
    let a = f32_src(w, ov, i, 0)?;
    wv32(w, &i.dst[0], &a.map(|x| frexp_exp_f32(x) as u32), exec)
}

/// `v_mad_legacy_f32`: unfused, denormal sources flushed; 0 times anything
/// is +0.
#[inline(always)]
fn mad_legacy(a: f32, b: f32, c: f32) -> f32 {
    let (a, b) = (ftz_f32(a), ftz_f32(b));
    if a == 0.0 || b == 0.0 {
        ftz_f32(0.0 + ftz_f32(c))
    } else {
        mad_f32(a, b, c)
    }
}

/// `v_fma_legacy_f32`: fused; 0 times anything is +0.
#[inline(always)]
fn fma_legacy(a: f32, b: f32, c: f32) -> f32 {
    if a == 0.0 || b == 0.0 {
        0.0 + c
    } else {
        a.mul_add(b, c)
    }
}

/// `v_mac_legacy_f32` and `v_fmac_legacy_f32`: [`mad_legacy`] and
/// [`fma_legacy`] accumulating onto D.
#[inline(always)]
fn mac_legacy(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    let exec = w.exec.0 & w.full_mask();
    let d = i.dst[0];
    let (omod, clamp, keep) = (i.alu.omod, i.alu.clamp, f32::keep(w));
    let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
    let c = *vdst(w, &d, 0)?;
    let r: L32 = std::array::from_fn(|l| {
        let (a, b, c) = (a[l], b[l], f32::from_bits(c[l]));
        let v = if k == Kind::VMacLegacyF32 {
            mad_legacy(a, b, c)
        } else {
            fma_legacy(a, b, c)
        };
        out(v, omod, clamp, keep)
    });
    wv32(w, &d, &r, exec)
}

/// `v_ldexp_f32`: S0 times 2 to the integer S1.
#[inline(always)]
fn ldexp(w: &mut Wave, i: &Inst, ov: Ov) -> R {
    let exec = w.exec.0 & w.full_mask();
    let (omod, clamp, keep) = (i.alu.omod, i.alu.clamp, f32::keep(w));
    let a = f32_src(w, ov, i, 0)?;
    let b = u32_src(w, ov, i, 1)?;
    let r: L32 = std::array::from_fn(|l| out(ldexp32(a[l], b[l] as i32), omod, clamp, keep));
    wv32(w, &i.dst[0], &r, exec)
}

/// `v_mac_f32` (unfused) and `v_fmac_f32`: S0 * S1 + D.
#[inline(always)]
fn mac(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    let exec = w.exec.0 & w.full_mask();
    let d = i.dst[0];
    let (omod, clamp, keep) = (i.alu.omod, i.alu.clamp, f32::keep(w));
    let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
    let c = *vdst(w, &d, 0)?;
    let f: fn(f32, f32, f32) -> f32 = if k == Kind::VMacF32 { mad_f32 } else { fma_f32 };
    let r: L32 =
        std::array::from_fn(|l| out(f(a[l], b[l], f32::from_bits(c[l])), omod, clamp, keep));
    wv32(w, &d, &r, exec)
}

/// The VOP2 forms with a literal constant K in the fourth source slot:
/// `madmk`/`fmamk` are S0 * K + S1, `madak`/`fmaak` S0 * S1 + K (the `mad`
/// forms unfused).
#[inline(always)]
fn mac_literal(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = w.exec.0 & w.full_mask();
    let keep = f32::keep(w);
    let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
    let kk = match i.src[3] {
        Operand::Literal(v) => f32::from_bits(v),
        _ => return unsupported("madmk/madak without a literal"),
    };
    let f: fn(f32, f32, f32) -> f32 = if matches!(k, VMadmkF32 | VMadakF32) {
        mad_f32
    } else {
        fma_f32
    };
    let r: L32 = std::array::from_fn(|l| {
        let v = if matches!(k, VFmamkF32 | VMadmkF32) {
            f(a[l], kk, b[l])
        } else {
            f(a[l], b[l], kk)
        };
        out(v, 0, false, keep)
    });
    wv32(w, &i.dst[0], &r, exec)
}

/// `v_div_fmas_f32`: a fused multiply-add, scaled in the lanes of VCC.
#[inline(always)]
fn div_fmas(w: &mut Wave, i: &Inst, ov: Ov) -> R {
    let vcc = w.vcc.0;
    lanes::<f32, 3>(w, i, ov, |l, [a, b, c]| {
        if (vcc >> l) & 1 != 0 {
            let v = fma_scaled_f32(a, b, c, div_fmas_scale_f32(c));
            nan_first32(v, [a, b, c])
        } else {
            fma_f32(a, b, c)
        }
    })
}

/// `v_med3_f32`: the median, or the minimum when a source is a NaN.
#[inline(always)]
fn med3_f32(a: f32, b: f32, c: f32) -> f32 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        min_f32(min_f32(a, b), c)
    } else {
        max_f32(min_f32(a, b), min_f32(max_f32(a, b), c))
    }
}

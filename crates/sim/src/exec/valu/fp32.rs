//! f32 operations (VOP1/VOP2/VOP3), the f32 parts of division, and the
//! legacy and cube-map operations.

use super::*;

/// Executes the operations of class [`Class::F32`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = w.exec.0 & w.full_mask();
    let d = i.dst[0];
    let (omod, clamp) = (i.alu.omod, i.alu.clamp);
    // Output denormals of f32 results (MODE.FP_DENORM).
    let keep32 = denorms(w, false).1;
    let f32_out = |v: f32, omod: u8, clamp: bool| {
        let r = crate::alu::f32_out(v, omod, clamp);
        if keep32 { r } else { ftz32(r) }
    };
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
    match k {
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
        // ------------------------------------------------------ float
        VAddF32 => f2!(|a, b| nan_first32(a + b, [a, b])),
        VSubF32 => f2!(|a, b| nan_first32(a - b, [a, b])),
        VSubrevF32 => f2!(|a, b| nan_first32(b - a, [a, b])),
        VMulF32 => f2!(|a, b| nan_first32(a * b, [a, b])),
        VMinF32 => f2!(min_f32),
        VMaxF32 => f2!(max_f32),
        VLdexpF32 => {
            let a = f32_src(w, ov, i, 0)?;
            let b = u32_src(w, ov, i, 1)?;
            let r: L32 =
                std::array::from_fn(|l| f32_out(ldexp32(a[l], b[l] as i32), omod, clamp).to_bits());
            wv32(w, &d, &r, exec)?;
        }
        VFmaF32 => f3!(fma_f32),
        VFmacF32 | VMacF32 => {
            let (a, b) = (f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?);
            let c = *vdst(w, &d, 0)?;
            let f: fn(f32, f32, f32) -> f32 = if k == VMacF32 { mad_f32 } else { fma_f32 };
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
                fma_f32
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
        VDivFmasF32 => {
            let (a, b, c) = (
                f32_src(w, ov, i, 0)?,
                f32_src(w, ov, i, 1)?,
                f32_src(w, ov, i, 2)?,
            );
            let vcc = w.vcc.0;
            let r: L32 = std::array::from_fn(|l| {
                let v = if (vcc >> l) & 1 != 0 {
                    let v = fma_scaled_f32(a[l], b[l], c[l], div_fmas_scale_f32(c[l]));
                    nan_first32(v, [a[l], b[l], c[l]])
                } else {
                    fma_f32(a[l], b[l], c[l])
                };
                f32_out(v, omod, clamp).to_bits()
            });
            wv32(w, &d, &r, exec)?;
        }
        VCubeidF32 => f3!(|x, y, z| cube(x, y, z).0),
        VCubemaF32 => f3!(|x, y, z| 2.0 * cube(x, y, z).1),
        VCubescF32 => f3!(|x, y, z| cube(x, y, z).2),
        VCubetcF32 => f3!(|x, y, z| cube(x, y, z).3),
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
        // No AMD pseudo-code exists for these three: CLRX's reverse-engineered
        // rules (see the functions), the VOP3 input and output modifiers as
        // for the other f32 operations.
        VExpLegacyF32 => f1!(exp_legacy_f32),
        VLogLegacyF32 => f1!(log_legacy_f32),
        VMullitF32 => f3!(mullit_f32),
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

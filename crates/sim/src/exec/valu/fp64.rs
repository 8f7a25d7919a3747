//! f64 operations, the f64 parts of division, `v_trig_preop_f64`.

use super::*;

/// Executes the operations of class [`Class::F64`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = w.exec.0 & w.full_mask();
    let d = i.dst[0];
    let (omod, clamp) = (i.alu.omod, i.alu.clamp);
    // Output denormals of f64 results (MODE.FP_DENORM).
    let keep64 = denorms(w, true).1;
    let f64_out = |v: f64, omod: u8, clamp: bool| {
        let r = crate::alu::f64_out(v, omod, clamp);
        if keep64 { r } else { ftz64(r) }
    };
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
    match k {
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
        VLdexpF64 => {
            let a = f64_src(w, ov, i, 0)?;
            let b = u32_src(w, ov, i, 1)?;
            let r: L64 =
                std::array::from_fn(|l| f64_out(ldexp64(a[l], b[l] as i32), omod, clamp).to_bits());
            wv64(w, &d, &r, exec)?;
        }
        VFmacF64 => {
            let (a, b) = (f64_src(w, ov, i, 0)?, f64_src(w, ov, i, 1)?);
            let c = v64(w, &d, Ty::D)?;
            let r: L64 = std::array::from_fn(|l| {
                f64_out(fma_f64(a[l], b[l], f64::from_bits(c[l])), omod, clamp).to_bits()
            });
            wv64(w, &d, &r, exec)?;
        }
        VAddF64 => d2!(|a, b| nan_first64(a + b, [a, b])),
        VMulF64 => d2!(|a, b| nan_first64(a * b, [a, b])),
        VMinF64 => d2!(min_f64),
        VMaxF64 => d2!(max_f64),
        VFmaF64 => d3!(fma_f64),
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
        VDivFmasF64 => {
            let (a, b, c) = (
                f64_src(w, ov, i, 0)?,
                f64_src(w, ov, i, 1)?,
                f64_src(w, ov, i, 2)?,
            );
            let vcc = w.vcc.0;
            let r: L64 = std::array::from_fn(|l| {
                let v = if (vcc >> l) & 1 != 0 {
                    let v = fma_scaled_f64(a[l], b[l], c[l], div_fmas_scale_f64(c[l]));
                    nan_first64(v, [a[l], b[l], c[l]])
                } else {
                    fma_f64(a[l], b[l], c[l])
                };
                f64_out(v, omod, clamp).to_bits()
            });
            wv64(w, &d, &r, exec)?;
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
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

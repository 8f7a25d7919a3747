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
    // A result with the output modifier, clamp and MODE's output denormals.
    let keep = f64::keep(w);
    let f64_out = |v: f64, omod: u8, clamp: bool| f64::finish(v, omod, clamp, keep);
    match k {
        VRcpF64 => un::<f64>(w, i, ov, |x| 1.0 / x)?,
        VRsqF64 => un::<f64>(w, i, ov, |x| 1.0 / x.sqrt())?,
        VSqrtF64 => un::<f64>(w, i, ov, |x| x.sqrt())?,
        VTruncF64 => un::<f64>(w, i, ov, |x| x.trunc())?,
        VCeilF64 => un::<f64>(w, i, ov, |x| x.ceil())?,
        VFloorF64 => un::<f64>(w, i, ov, |x| x.floor())?,
        VRndneF64 => un::<f64>(w, i, ov, |x| x.round_ties_even())?,
        VFractF64 => un::<f64>(w, i, ov, fract_f64)?,
        VFrexpMantF64 => un::<f64>(w, i, ov, |x| frexp64(x).0)?,
        VFrexpExpF64 => {
            let a = f64_src(w, ov, i, 0)?;
            wv32(w, &d, &a.map(|x| frexp64(x).1 as u32), exec)?;
        }
        VLdexpF64 => {
            let a = f64_src(w, ov, i, 0)?;
            let b = u32_src(w, ov, i, 1)?;
            let r: L64 = std::array::from_fn(|l| f64_out(ldexp64(a[l], b[l] as i32), omod, clamp));
            wv64(w, &d, &r, exec)?;
        }
        VFmacF64 => {
            let (a, b) = (f64_src(w, ov, i, 0)?, f64_src(w, ov, i, 1)?);
            let c = v64(w, &d, Ty::D)?;
            let r: L64 = std::array::from_fn(|l| {
                f64_out(fma_f64(a[l], b[l], f64::from_bits(c[l])), omod, clamp)
            });
            wv64(w, &d, &r, exec)?;
        }
        VAddF64 => bin::<f64>(w, i, ov, |a, b| nan_first64(a + b, [a, b]))?,
        VMulF64 => bin::<f64>(w, i, ov, |a, b| nan_first64(a * b, [a, b]))?,
        VMinF64 => bin::<f64>(w, i, ov, min_f64)?,
        VMaxF64 => bin::<f64>(w, i, ov, max_f64)?,
        VFmaF64 => tern::<f64>(w, i, ov, fma_f64)?,
        VDivFixupF64 => tern::<f64>(w, i, ov, div_fixup_f64)?,
        VDivScaleF64 => div_scale::<f64>(w, i, ov, div_scale_f64)?,
        VDivFmasF64 => {
            let vcc = w.vcc.0;
            lanes::<f64, 3>(w, i, ov, |l, [a, b, c]| {
                if (vcc >> l) & 1 != 0 {
                    let v = fma_scaled_f64(a, b, c, div_fmas_scale_f64(c));
                    nan_first64(v, [a, b, c])
                } else {
                    fma_f64(a, b, c)
                }
            })?
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
                r[l] = f64_out(v, omod, clamp);
            }
            wv64(w, &d, &r, exec)?;
        }
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

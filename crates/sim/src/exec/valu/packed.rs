//! Packed (VOP3P) operations: two 16-bit or two 32-bit lanes per register,
//! and the mixed-precision `v_fma_mix*` / `v_mad_mix*`.

use super::*;

/// Executes the operations of class [`Class::Packed`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = w.exec.0 & w.full_mask();
    let d = i.dst[0];
    match k {
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
                let half = |h: u32| f64_to_f16(fma_f64(f(a[l], h), f(b[l], h), f(c[l], h))) as u32;
                half(0) | half(1) << 16
            });
            wv32(w, &d, &r, exec)?;
        }
        VFmaMixF32 | VFmaMixloF16 | VFmaMixhiF16 | VMadMixF32 | VMadMixloF16 | VMadMixhiF16 => {
            mix(k, w, i, exec)?
        }
        _ => return Err(E::Unimpl),
    }
    Ok(())
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
                VPkAddF16 => fo(nan_first64(f(x) + f(y), [f(x), f(y)])),
                VPkMulF16 => fo(nan_first64(f(x) * f(y), [f(x), f(y)])),
                VPkFmaF16 => fo(fma_f64(f(x), f(y), f(z))),
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
                Kind::VPkAddF32 => {
                    f32_out(nan_first32(f(0) + f(1), [f(0), f(1)]), 0, a.clamp).to_bits()
                }
                Kind::VPkMulF32 => {
                    f32_out(nan_first32(f(0) * f(1), [f(0), f(1)]), 0, a.clamp).to_bits()
                }
                _ => f32_out(fma_f32(f(0), f(1), f(2)), 0, a.clamp).to_bits(),
            }
        };
        half(false) as u64 | (half(true) as u64) << 32
    });
    wv64(w, &i.dst[0], &r, exec)
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

//! f16 operations, the 16-bit multiply-adds and the 16-bit three-operand
//! minimum, maximum and median.

use super::*;

/// Executes the operations of class [`Class::F16`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
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
    match k {
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
                let (x, y, z) = (a[l], b[l], c[l]);
                let v = match k {
                    VAddF16 => nan_first64(x + y, [x, y]),
                    VSubF16 => nan_first64(x - y, [x, y]),
                    VSubrevF16 => nan_first64(y - x, [x, y]),
                    VMulF16 => nan_first64(x * y, [x, y]),
                    VMaxF16 => max_f32(x as f32, y as f32) as f64,
                    VMinF16 => min_f32(x as f32, y as f32) as f64,
                    _ => fma_f64(x, y, z),
                };
                (old[l] & keep) | f64_to_f16(f64_out(v, omod, clamp)) as u32
            });
            wv32(w, &d, &r, exec)?;
        }
        VSqrtF16 | VRcpF16 | VRsqF16 | VExpF16 | VLogF16 | VSinF16 | VCosF16 | VFractF16
        | VFloorF16 | VCeilF16 | VTruncF16 | VRndneF16 | VFrexpMantF16 | VFrexpExpF16
        | VLdexpF16 | VDivFixupF16 | VPackB32F16 => half(k, w, ov, i, ctx, exec)?,
        VMadF16 | VMacF16 | VMadmkF16 | VMadakF16 | VFmamkF16 | VFmaakF16 => {
            mad16(k, w, ov, i, ctx, exec)?
        }
        VMax3F16 | VMin3F16 | VMed3F16 | VMax3I16 | VMin3I16 | VMed3I16 | VMax3U16 | VMin3U16
        | VMed3U16 => three16(k, w, ov, i, ctx, exec)?,
        _ => return Err(E::Unimpl),
    }
    Ok(())
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

//! Integer operations: 32-bit, 24-bit, 16-bit (low halves) and 64-bit
//! arithmetic, logic and shifts, bit fields, sums of absolute differences,
//! carries, and the integer packing operations.

use super::*;

/// Executes the operations of class [`Class::Int`], one helper per family.
/// The helpers are inlined here (`#[inline(always)]`), as the class
/// functions are into [`super::exec_with`].
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
    use Kind::*;
    match k {
        VNotB32 | VBfrevB32 | VFfbhU32 | VFfblB32 | VFfbhI32 | VAndB32 | VOrB32 | VXorB32
        | VXnorB32 | VLshlrevB32 | VLshrrevB32 | VAshrrevI32 | VMinU32 | VMaxU32 | VMinI32
        | VMaxI32 | VBfmB32 | VBcntU32 => logic32(k, w, i, ov),
        VAddU32 | VSubU32 | VSubrevU32 | VAddI32 | VSubI32 | VMulU32U24 | VMulHiU32U24
        | VMulI32I24 | VMulHiI32I24 | VMulLoU32 | VMulHiU32 | VMulHiI32 | VMadU32U24
        | VMadI32I24 => arith32(k, w, i, ov),
        VLshlAddU32 | VAddLshlU32 | VLshlOrB32 | VAndOrB32 | VOr3B32 | VXor3B32 | VAdd3U32
        | VAlignbitB32 | VAlignbyteB32 | VBfeU32 | VBfeI32 | VBfiB32 | VMin3U32 | VMax3U32
        | VMin3I32 | VMax3I32 | VMed3U32 | VMed3I32 | VPermB32 | VXadU32 => three32(k, w, i, ov),
        VMulLoU16 | VAddU16 | VSubU16 | VSubrevU16 | VAddI16 | VSubI16 | VLshlrevB16
        | VLshrrevB16 | VMaxU16 | VMinU16 | VMaxI16 | VMinI16 | VAshrrevI16 => {
            half16(k, w, i, ctx, ov)
        }
        VMadU16 | VMadI16 | VMadU32U16 | VMadI32I16 => mad16(k, w, i, ctx, ov),
        VSadU8 | VSadHiU8 | VMsadU8 | VSadU16 | VSadU32 | VLerpU8 => sad(k, w, i, ov),
        VQsadPkU16U8 | VMqsadPkU16U8 | VMqsadU32U8 => qsad(k, w, i, ov),
        VSatPkU8I16 | VCvtPkI16I32 | VCvtPkU16U32 => pack(k, w, i, ov),
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 | VAddcCoU32 | VSubbCoU32 | VSubbrevCoU32 => {
            carry32(k, w, i, ov)
        }
        VMadU64U32 | VMadI64I32 => mad64(k, w, i, ov),
        VLshlrevB64 | VLshrrevB64 | VAshrrevI64 => shift64(k, w, i, ov),
        _ => Err(E::Unimpl),
    }
}

/// The lanes of EXEC (within the wave's size).
#[inline(always)]
fn active(w: &Wave) -> u64 {
    w.exec.0 & w.full_mask()
}

/// `D = f(S0)` on 32-bit lanes.
#[inline(always)]
fn u1(w: &mut Wave, i: &Inst, ov: Ov, f: impl Fn(u32) -> u32) -> R {
    let exec = active(w);
    let a = u32_src(w, ov, i, 0)?;
    wv32(w, &i.dst[0], &a.map(f), exec)
}

/// `D = f(S0, S1)` on 32-bit lanes.
#[inline(always)]
fn u2(w: &mut Wave, i: &Inst, ov: Ov, f: impl Fn(u32, u32) -> u32) -> R {
    let exec = active(w);
    let (a, b) = (u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
    let r: L32 = std::array::from_fn(|l| f(a[l], b[l]));
    wv32(w, &i.dst[0], &r, exec)
}

/// `D = f(S0, S1, S2)` on 32-bit lanes.
#[inline(always)]
fn u3(w: &mut Wave, i: &Inst, ov: Ov, f: impl Fn(u32, u32, u32) -> u32) -> R {
    let exec = active(w);
    let (a, b, c) = (
        u32_src(w, ov, i, 0)?,
        u32_src(w, ov, i, 1)?,
        u32_src(w, ov, i, 2)?,
    );
    let r: L32 = std::array::from_fn(|l| f(a[l], b[l], c[l]));
    wv32(w, &i.dst[0], &r, exec)
}

/// A 16-bit operation `D.u16 = f(S0.u16, S1.u16)`: low halves in, low half
/// out (the high half zeroed on GFX9, kept on GFX10).
#[inline(always)]
fn h2(w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov, f: impl Fn(u16, u16) -> u16) -> R {
    if i.alu.op_sel != 0 {
        return unsupported("op_sel on a 16-bit operation");
    }
    let exec = active(w);
    let d = i.dst[0];
    let (a, b) = (u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
    let old = *vdst(w, &d, 0)?;
    let keep = if ctx.gfx10() { 0xffff_0000 } else { 0 };
    let r: L32 = std::array::from_fn(|l| (old[l] & keep) | f(a[l] as u16, b[l] as u16) as u32);
    wv32(w, &d, &r, exec)
}

/// Bit operations, logic, shifts, minimum and maximum on 32 bits.
#[inline(always)]
fn logic32(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    match k {
        VNotB32 => u1(w, i, ov, |a| !a),
        VBfrevB32 => u1(w, i, ov, |a| a.reverse_bits()),
        VFfbhU32 => u1(w, i, ov, ffbh_u32),
        VFfblB32 => u1(w, i, ov, ffbl_b32),
        VFfbhI32 => u1(w, i, ov, ffbh_i32),
        VAndB32 => u2(w, i, ov, |a, b| a & b),
        VOrB32 => u2(w, i, ov, |a, b| a | b),
        VXorB32 => u2(w, i, ov, |a, b| a ^ b),
        VXnorB32 => u2(w, i, ov, |a, b| !(a ^ b)),
        VLshlrevB32 => u2(w, i, ov, |a, b| b << (a & 31)),
        VLshrrevB32 => u2(w, i, ov, |a, b| b >> (a & 31)),
        VAshrrevI32 => u2(w, i, ov, |a, b| ((b as i32) >> (a & 31)) as u32),
        VMinU32 => u2(w, i, ov, |a, b| a.min(b)),
        VMaxU32 => u2(w, i, ov, |a, b| a.max(b)),
        VMinI32 => u2(w, i, ov, |a, b| (a as i32).min(b as i32) as u32),
        VMaxI32 => u2(w, i, ov, |a, b| (a as i32).max(b as i32) as u32),
        VBfmB32 => u2(w, i, ov, |a, b| {
            (1u32.checked_shl(a & 31).map_or(0, |v| v - 1)) << (b & 31)
        }),
        VBcntU32 => u2(w, i, ov, |a, b| a.count_ones().wrapping_add(b)),
        _ => Err(E::Unimpl),
    }
}

/// Adds, subtracts (`clamp` saturates: Vega ISA §6.3, RDNA ISA §6.2),
/// multiplies and 24-bit multiply-adds on 32 bits.
#[inline(always)]
fn arith32(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let clamp = i.alu.clamp;
    match k {
        VAddU32 if clamp => u2(w, i, ov, |a, b| a.saturating_add(b)),
        VSubU32 if clamp => u2(w, i, ov, |a, b| a.saturating_sub(b)),
        VSubrevU32 if clamp => u2(w, i, ov, |a, b| b.saturating_sub(a)),
        VAddI32 if clamp => u2(w, i, ov, |a, b| (a as i32).saturating_add(b as i32) as u32),
        VSubI32 if clamp => u2(w, i, ov, |a, b| (a as i32).saturating_sub(b as i32) as u32),
        VAddU32 => u2(w, i, ov, |a, b| a.wrapping_add(b)),
        VSubU32 => u2(w, i, ov, |a, b| a.wrapping_sub(b)),
        VSubrevU32 => u2(w, i, ov, |a, b| b.wrapping_sub(a)),
        VAddI32 => u2(w, i, ov, |a, b| a.wrapping_add(b)),
        VSubI32 => u2(w, i, ov, |a, b| a.wrapping_sub(b)),
        VMulU32U24 => u2(w, i, ov, |a, b| (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff)),
        VMulHiU32U24 => u2(w, i, ov, |a, b| {
            (((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64) >> 32) as u32
        }),
        VMulI32I24 => u2(w, i, ov, |a, b| {
            (sext24(a) as i64 * sext24(b) as i64) as u32
        }),
        VMulHiI32I24 => u2(w, i, ov, |a, b| {
            ((sext24(a) as i64 * sext24(b) as i64) >> 32) as u32
        }),
        VMulLoU32 => u2(w, i, ov, |a, b| a.wrapping_mul(b)),
        VMulHiU32 => u2(w, i, ov, |a, b| ((a as u64 * b as u64) >> 32) as u32),
        VMulHiI32 => u2(w, i, ov, |a, b| {
            ((a as i32 as i64 * b as i32 as i64) >> 32) as u32
        }),
        VMadU32U24 if clamp => u3(w, i, ov, |a, b, c| {
            let v = (a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64 + c as u64;
            v.min(u32::MAX as u64) as u32
        }),
        VMadI32I24 if clamp => u3(w, i, ov, |a, b, c| {
            let v = sext24(a) as i64 * sext24(b) as i64 + c as i32 as i64;
            v.clamp(i32::MIN as i64, i32::MAX as i64) as u32
        }),
        VMadU32U24 => u3(w, i, ov, |a, b, c| {
            (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff).wrapping_add(c)
        }),
        VMadI32I24 => u3(w, i, ov, |a, b, c| {
            (sext24(a).wrapping_mul(sext24(b)) as u32).wrapping_add(c)
        }),
        _ => Err(E::Unimpl),
    }
}

/// The three-source 32-bit operations: shift-and-add/or, three-way logic and
/// sums, funnel shifts, bit fields, three-way minimum, maximum and median,
/// byte permutes and `v_xad_u32`.
#[inline(always)]
fn three32(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    match k {
        VLshlAddU32 => u3(w, i, ov, |a, b, c| (a << (b & 31)).wrapping_add(c)),
        VAddLshlU32 => u3(w, i, ov, |a, b, c| a.wrapping_add(b) << (c & 31)),
        VLshlOrB32 => u3(w, i, ov, |a, b, c| (a << (b & 31)) | c),
        VAndOrB32 => u3(w, i, ov, |a, b, c| (a & b) | c),
        VOr3B32 => u3(w, i, ov, |a, b, c| a | b | c),
        VXor3B32 => u3(w, i, ov, |a, b, c| a ^ b ^ c),
        VAdd3U32 => u3(w, i, ov, |a, b, c| a.wrapping_add(b).wrapping_add(c)),
        VAlignbitB32 => u3(w, i, ov, |a, b, c| {
            (((a as u64) << 32 | b as u64) >> (c & 31)) as u32
        }),
        VAlignbyteB32 => u3(w, i, ov, |a, b, c| {
            (((a as u64) << 32 | b as u64) >> ((c & 3) * 8)) as u32
        }),
        VBfeU32 => u3(w, i, ov, |a, b, c| {
            let wd = c & 31;
            if wd == 0 {
                0
            } else {
                (a >> (b & 31)) & ((1u32 << wd) - 1)
            }
        }),
        VBfeI32 => u3(w, i, ov, |a, b, c| {
            let wd = c & 31;
            if wd == 0 {
                0
            } else {
                (((a >> (b & 31)) << (32 - wd)) as i32 >> (32 - wd)) as u32
            }
        }),
        VBfiB32 => u3(w, i, ov, |a, b, c| (a & b) | (!a & c)),
        VMin3U32 => u3(w, i, ov, |a, b, c| a.min(b).min(c)),
        VMax3U32 => u3(w, i, ov, |a, b, c| a.max(b).max(c)),
        VMin3I32 => u3(w, i, ov, |a, b, c| {
            (a as i32).min(b as i32).min(c as i32) as u32
        }),
        VMax3I32 => u3(w, i, ov, |a, b, c| {
            (a as i32).max(b as i32).max(c as i32) as u32
        }),
        VMed3U32 => u3(w, i, ov, |a, b, c| a.max(b).min(a.min(b).max(c))),
        VMed3I32 => u3(w, i, ov, |a, b, c| {
            let (a, b, c) = (a as i32, b as i32, c as i32);
            a.max(b).min(a.min(b).max(c)) as u32
        }),
        VPermB32 => u3(w, i, ov, perm_b32),
        VXadU32 => u3(w, i, ov, xad_u32),
        _ => Err(E::Unimpl),
    }
}

/// `v_perm_b32`: each byte of the result selected by the byte of `sel` from
/// the eight bytes of {S0, S1}, a sign (0x00/0xff) of one of their halves, 0
/// or 0xff.
#[inline(always)]
fn perm_b32(a: u32, b: u32, sel: u32) -> u32 {
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
}

/// The 16-bit operations on low halves ([`h2`]); `clamp` saturates the
/// adds and subtracts.
#[inline(always)]
fn half16(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
    use Kind::*;
    let clamp = i.alu.clamp;
    match k {
        VMulLoU16 => h2(w, i, ctx, ov, |a, b| a.wrapping_mul(b)),
        VAddU16 if clamp => h2(w, i, ctx, ov, |a, b| a.saturating_add(b)),
        VSubU16 if clamp => h2(w, i, ctx, ov, |a, b| a.saturating_sub(b)),
        VSubrevU16 if clamp => h2(w, i, ctx, ov, |a, b| b.saturating_sub(a)),
        VAddI16 if clamp => h2(w, i, ctx, ov, |a, b| {
            (a as i16).saturating_add(b as i16) as u16
        }),
        VSubI16 if clamp => h2(w, i, ctx, ov, |a, b| {
            (a as i16).saturating_sub(b as i16) as u16
        }),
        VAddU16 | VAddI16 => h2(w, i, ctx, ov, |a, b| a.wrapping_add(b)),
        VSubU16 | VSubI16 => h2(w, i, ctx, ov, |a, b| a.wrapping_sub(b)),
        VSubrevU16 => h2(w, i, ctx, ov, |a, b| b.wrapping_sub(a)),
        VLshlrevB16 => h2(w, i, ctx, ov, |a, b| b << (a & 15)),
        VLshrrevB16 => h2(w, i, ctx, ov, |a, b| b >> (a & 15)),
        VMaxU16 => h2(w, i, ctx, ov, |a, b| a.max(b)),
        VMinU16 => h2(w, i, ctx, ov, |a, b| a.min(b)),
        VMaxI16 => h2(w, i, ctx, ov, |a, b| (a as i16).max(b as i16) as u16),
        VMinI16 => h2(w, i, ctx, ov, |a, b| (a as i16).min(b as i16) as u16),
        VAshrrevI16 => h2(w, i, ctx, ov, |a, b| ((b as i16) >> (a & 15)) as u16),
        _ => Err(E::Unimpl),
    }
}

/// The 16-bit multiply-adds (Vega ISA §12.7 VOP3): clamp saturates.
#[inline(always)]
fn mad16(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
    use Kind::*;
    if i.alu.op_sel != 0 {
        return unsupported("op_sel on a 16-bit operation");
    }
    let exec = active(w);
    let d = i.dst[0];
    let clamp = i.alu.clamp;
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
            // D.u16 = S0.u16 * S1.u16 + S2.u16
            VMadU16 => {
                let v = (a & 0xffff) * (b & 0xffff) + (c & 0xffff);
                let v = if clamp { v.min(0xffff) } else { v & 0xffff };
                (old[l] & keep) | v
            }
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
    wv32(w, &d, &r, exec)
}

/// Sums of absolute differences (Vega ISA §12.7 VOP3): bytes or halves of
/// S0 and S1 accumulated onto S2; and `v_lerp_u8`.
#[inline(always)]
fn sad(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    match k {
        VSadU8 => u3(w, i, ov, |a, b, c| sad_u8(a, b, false).wrapping_add(c)),
        VSadHiU8 => u3(w, i, ov, |a, b, c| {
            (sad_u8(a, b, false) << 16).wrapping_add(c)
        }),
        VMsadU8 => u3(w, i, ov, |a, b, c| sad_u8(a, b, true).wrapping_add(c)),
        VSadU16 => u3(w, i, ov, |a, b, c| {
            let d = (a as u16).abs_diff(b as u16) as u32
                + ((a >> 16) as u16).abs_diff((b >> 16) as u16) as u32;
            d.wrapping_add(c)
        }),
        VSadU32 => u3(w, i, ov, |a, b, c| a.abs_diff(b).wrapping_add(c)),
        // Per byte: (S0 + S1 + the rounding bit S2[8k]) >> 1.
        VLerpU8 => u3(w, i, ov, |a, b, c| {
            let mut r = 0u32;
            for k in 0..4 {
                let v = ((a >> (8 * k)) & 0xff) + ((b >> (8 * k)) & 0xff) + ((c >> (8 * k)) & 1);
                r |= (v >> 1) << (8 * k);
            }
            r
        }),
        _ => Err(E::Unimpl),
    }
}

/// Four (masked) byte SADs of S1 against the windows S0[8j+31:8j] of the
/// 64-bit S0, each accumulated onto field j of S2: 16-bit fields (wrapping)
/// for the `_pk_u16` forms, 32-bit for `v_mqsad_u32_u8`.
#[inline(always)]
fn qsad(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = active(w);
    let d = i.dst[0];
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
    Ok(())
}

/// The integer packing operations.
#[inline(always)]
fn pack(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    match k {
        // D = {16'b0, sat8(S0[31:16]), sat8(S0[15:0])}: signed halves to unsigned bytes.
        VSatPkU8I16 => u1(w, i, ov, |a| {
            let sat = |h: u32| (h as u16 as i16).clamp(0, 255) as u32;
            sat(a) | sat(a >> 16) << 8
        }),
        // D = {sat_i16(S1), sat_i16(S0)}.
        VCvtPkI16I32 => u2(w, i, ov, |a, b| {
            sat_i16(a as i32) as u32 | (sat_i16(b as i32) as u32) << 16
        }),
        VCvtPkU16U32 => u2(w, i, ov, |a, b| (a & 0xffff) | (b & 0xffff) << 16),
        _ => Err(E::Unimpl),
    }
}

/// The adds and subtracts with a carry-out (and carry-in) lane mask; with
/// clamp an overflowing sum saturates to all ones and an underflowing
/// difference to zero, the carry-out unchanged.
#[inline(always)]
fn carry32(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = active(w);
    let clamp = i.alu.clamp;
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
        r[l] = match (clamp && co, add) {
            (true, true) => u32::MAX,
            (true, false) => 0,
            _ => v,
        };
        if co {
            carry |= 1 << l;
        }
    }
    wv32(w, &i.dst[0], &r, exec)?;
    write_mask_dst(w, &i.dst[1], carry & exec)
}

/// `v_mad_u64_u32` and `v_mad_i64_i32`: 64-bit results, the lanes that
/// overflow in the mask destination; clamp saturates.
#[inline(always)]
fn mad64(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    let exec = active(w);
    let clamp = i.alu.clamp;
    let (a, b, c) = (
        u32_src(w, ov, i, 0)?,
        u32_src(w, ov, i, 1)?,
        u64_src(w, ov, i, 2)?,
    );
    let mut carry = 0u64;
    let r: L64 = std::array::from_fn(|l| {
        if k == Kind::VMadU64U32 {
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
    wv64(w, &i.dst[0], &r, exec)?;
    write_mask_dst(w, &i.dst[1], carry & exec)
}

/// The 64-bit shifts: S1 shifted by S0[5:0].
#[inline(always)]
fn shift64(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = active(w);
    let (a, b) = (u32_src(w, ov, i, 0)?, u64_src(w, ov, i, 1)?);
    let r: L64 = std::array::from_fn(|l| {
        let s = a[l] & 63;
        match k {
            VLshlrevB64 => b[l] << s,
            VLshrrevB64 => b[l] >> s,
            _ => ((b[l] as i64) >> s) as u64,
        }
    });
    wv64(w, &i.dst[0], &r, exec)
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

//! Vector integer operations and compares: clamp, bit scans, SAD, lerp, MAD16,
//! quad SADs, `v_xad` (`exec/valu/int.rs`, `exec/valu/cmp.rs`).

use super::common::*;

#[test]
fn gfx9_cmpx_writes_exec_and_the_mask_destination() {
    let code: Vec<u8> = [
        &[0x85, 0x00, 0xb8, 0x7d][..], // v_cmpx_gt_u32_e32 vcc, 5, v0
        &[0x02, 0x00, 0xdc, 0xd0, 0x85, 0x00, 0x02, 0x00], // v_cmpx_gt_u32_e64 s[2:3], 5, v0
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        w.exec = Mask(0xffff_0000_0000_00f5);
        for l in 0..64 {
            w.vgpr[0][l] = (l % 8) as u32;
        }
    })
    .expect("runs");
    // Lanes with v0 < 5 among the active ones: 0, 2, 4 of the low byte, and
    // in the high half the lanes with l % 8 < 5.
    let mut want = 0u64;
    for l in 0..64 {
        if (0xffff_0000_0000_00f5u64 >> l) & 1 == 1 && l % 8 < 5 {
            want |= 1 << l;
        }
    }
    assert_eq!(w.vcc.0, want);
    assert_eq!(w.exec.0, want);
    assert_eq!(w.sgpr[2] as u64 | (w.sgpr[3] as u64) << 32, want);
}

/// Operand pairs at every saturation edge, one per lane (lanes beyond the
/// list take mixed values).
fn sat_operands(l: usize) -> (u32, u32) {
    const E: [u32; 8] = [
        0,
        1,
        0x7fff,
        0x8000,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fff0,
    ];
    (E[l % 8], E[(l / 8) % 8] ^ if l >= 32 { 0x20 } else { 0 })
}

/// `clamp` on integer add/sub saturates (Vega ISA §6.3: "clamp ... for
/// integer operations, saturate"), in every width and signedness, in VOP3,
/// VOP3b and SDWA forms; the bit scans and fract follow the ISA pseudo-code.
/// (Before: the clamp bit was ignored — `add_sat(0xfffffff0u, 0x20u)` gave
/// 0x10 — `v_ffbh_i32(0xffff)` gave 15, and `v_fract_f32(NaN)` 0.99999994.)
#[test]
fn gfx9_integer_clamp_bit_scans_and_fract() {
    let code: Vec<u8> = [
        &[0x02, 0x80, 0x34, 0xd1, 0x00, 0x03, 0x02, 0x00][..], // v_add_u32_e64 v2, v0, v1 clamp
        &[0x03, 0x80, 0x35, 0xd1, 0x00, 0x03, 0x02, 0x00],     // v_sub_u32_e64 v3, v0, v1 clamp
        &[0x04, 0x80, 0x36, 0xd1, 0x00, 0x03, 0x02, 0x00],     // v_subrev_u32_e64 v4, v0, v1 clamp
        &[0x05, 0x80, 0x9c, 0xd2, 0x00, 0x03, 0x02, 0x00],     // v_add_i32 v5, v0, v1 clamp
        &[0x06, 0x80, 0x9d, 0xd2, 0x00, 0x03, 0x02, 0x00],     // v_sub_i32 v6, v0, v1 clamp
        &[0x07, 0x80, 0x26, 0xd1, 0x00, 0x03, 0x02, 0x00],     // v_add_u16_e64 v7, v0, v1 clamp
        &[0x08, 0x80, 0x27, 0xd1, 0x00, 0x03, 0x02, 0x00],     // v_sub_u16_e64 v8, v0, v1 clamp
        &[0x09, 0x80, 0x9e, 0xd2, 0x00, 0x03, 0x02, 0x00],     // v_add_i16 v9, v0, v1 clamp
        &[0x0a, 0x80, 0x9f, 0xd2, 0x00, 0x03, 0x02, 0x00],     // v_sub_i16 v10, v0, v1 clamp
        &[0x0b, 0x82, 0x19, 0xd1, 0x00, 0x03, 0x02, 0x00], // v_add_co_u32_e64 v11, s[2:3], v0, v1 clamp
        // v_add_u16_sdwa v12, v0, v1 clamp dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0
        &[0xf9, 0x02, 0x18, 0x4c, 0x00, 0x35, 0x05, 0x04],
        &[0x00, 0x5f, 0x1a, 0x7e], // v_ffbh_i32_e32 v13, v0
        &[0x00, 0x37, 0x1c, 0x7e], // v_fract_f32_e32 v14, v0
        &[0x0f, 0x80, 0x28, 0xd1, 0x00, 0x03, 0x02, 0x00], // v_subrev_u16_e64 v15, v0, v1 clamp
        &[0x00, 0x03, 0x20, 0x68], // v_add_u32_e32 v16, v0, v1
        &[0x11, 0x80, 0xc3, 0xd1, 0x00, 0x03, 0x02, 0x04], // v_mad_u32_u24 v17, v0, v1, v0 clamp
        &[0x00, 0x14, 0x84, 0xbe], // s_flbit_i32 s4, s0
        &[0x00, 0x15, 0x85, 0xbe], // s_flbit_i32_i64 s5, s[0:1]
        &[0x12, 0x80, 0x45, 0xd1, 0x00, 0x01, 0x00, 0x00], // v_cvt_f32_i32_e64 v18, v0 clamp
        &[0x00, 0x00, 0x81, 0xbf], // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        w.sgpr[0] = 0x0000_ffff;
        w.sgpr[1] = 0xffff_ffff;
        for l in 0..64 {
            let (a, b) = sat_operands(l);
            w.vgpr[0][l] = a;
            w.vgpr[1][l] = b;
            w.vgpr[12][l] = 0x1234_5678;
        }
        w.vgpr[0][63] = 0x7fc0_0000; // a quiet NaN for v_fract_f32
        w.vgpr[0][62] = 0xff80_0000; // -infinity
    })
    .expect("runs");
    for l in 0..64 {
        let (a, b) = (w.vgpr[0][l], w.vgpr[1][l]);
        let (ai, bi) = (a as i32, b as i32);
        let (ah, bh) = (a as u16, b as u16);
        let want = [
            (2, a.saturating_add(b), "v_add_u32 clamp"),
            (3, a.saturating_sub(b), "v_sub_u32 clamp"),
            (4, b.saturating_sub(a), "v_subrev_u32 clamp"),
            (5, ai.saturating_add(bi) as u32, "v_add_i32 clamp"),
            (6, ai.saturating_sub(bi) as u32, "v_sub_i32 clamp"),
            (7, ah.saturating_add(bh) as u32, "v_add_u16 clamp"),
            (8, ah.saturating_sub(bh) as u32, "v_sub_u16 clamp"),
            (
                9,
                (ah as i16).saturating_add(bh as i16) as u16 as u32,
                "v_add_i16 clamp",
            ),
            (
                10,
                (ah as i16).saturating_sub(bh as i16) as u16 as u32,
                "v_sub_i16 clamp",
            ),
            (11, a.saturating_add(b), "v_add_co_u32 clamp"),
            (
                12,
                (((a >> 16) as u16).saturating_add(bh) as u32) << 16 | 0x5678,
                "v_add_u16_sdwa clamp",
            ),
            (15, bh.saturating_sub(ah) as u32, "v_subrev_u16 clamp"),
            (16, a.wrapping_add(b), "v_add_u32 without clamp wraps"),
            (
                17,
                ((a & 0xff_ffff) as u64 * (b & 0xff_ffff) as u64 + a as u64).min(u32::MAX as u64)
                    as u32,
                "v_mad_u32_u24 clamp",
            ),
        ];
        for (reg, v, what) in want {
            assert_eq!(w.vgpr[reg][l], v, "{what}: lane {l}, {a:#x}, {b:#x}");
        }
        let carry = (w.sgpr[2] as u64 | (w.sgpr[3] as u64) << 32) >> l & 1 == 1;
        assert_eq!(carry, a.checked_add(b).is_none(), "carry-out lane {l}");
        // V_FFBH_I32: the first bit, from the MSB, that differs from the sign.
        let v = if ai < 0 { !a } else { a };
        let ffbh = if v == 0 { u32::MAX } else { v.leading_zeros() };
        assert_eq!(w.vgpr[13][l], ffbh, "v_ffbh_i32 lane {l} of {a:#x}");
        let cvt = (ai as f32).clamp(0.0, 1.0);
        assert_eq!(w.vgpr[18][l], cvt.to_bits(), "v_cvt_f32_i32 clamp lane {l}");
    }
    assert_eq!(w.vgpr[13][2], 17, "v_ffbh_i32(0x7fff)");
    assert_eq!(w.vgpr[13][4], 16, "v_ffbh_i32(0xffff)");
    assert!(f32::from_bits(w.vgpr[14][63]).is_nan(), "fract(NaN) is NaN");
    assert!(
        f32::from_bits(w.vgpr[14][62]).is_nan(),
        "fract(-inf) is NaN"
    );
    assert!(
        f32::from_bits(w.vgpr[14][5]).is_nan(),
        "fract of 0x7fffffff (a NaN)"
    );
    assert_eq!(w.vgpr[14][0], 0, "fract(0.0)");
    assert_eq!(
        w.vgpr[14][2], 0x7fff,
        "fract of a positive denormal (kept) is itself"
    );
    assert_eq!(w.sgpr[4], 16, "s_flbit_i32(0xffff)");
    assert_eq!(
        w.sgpr[5], 32,
        "s_flbit_i32_i64 of 0xffffffff_0000ffff: bit 31 is the first 0"
    );
}

/// The GFX10 `_nc_` integer forms with clamp, v_ffbh_i32 and v_fract of NaN.
#[test]
fn gfx10_integer_clamp_bit_scans_and_fract() {
    let code: Vec<u8> = [
        &[0x02, 0x80, 0x25, 0xd5, 0x00, 0x03, 0x02, 0x00][..], // v_add_nc_u32_e64 v2, v0, v1 clamp
        &[0x03, 0x80, 0x26, 0xd5, 0x00, 0x03, 0x02, 0x00],     // v_sub_nc_u32_e64 v3, v0, v1 clamp
        &[0x04, 0x80, 0x27, 0xd5, 0x00, 0x03, 0x02, 0x00], // v_subrev_nc_u32_e64 v4, v0, v1 clamp
        &[0x05, 0x80, 0x7f, 0xd7, 0x00, 0x03, 0x02, 0x00], // v_add_nc_i32 v5, v0, v1 clamp
        &[0x06, 0x80, 0x76, 0xd7, 0x00, 0x03, 0x02, 0x00], // v_sub_nc_i32 v6, v0, v1 clamp
        &[0x07, 0x80, 0x03, 0xd7, 0x00, 0x03, 0x02, 0x00], // v_add_nc_u16 v7, v0, v1 clamp
        &[0x08, 0x80, 0x04, 0xd7, 0x00, 0x03, 0x02, 0x00], // v_sub_nc_u16 v8, v0, v1 clamp
        &[0x09, 0x80, 0x0d, 0xd7, 0x00, 0x03, 0x02, 0x00], // v_add_nc_i16 v9, v0, v1 clamp
        &[0x0a, 0x80, 0x0e, 0xd7, 0x00, 0x03, 0x02, 0x00], // v_sub_nc_i16 v10, v0, v1 clamp
        &[0x00, 0x77, 0x1a, 0x7e],                         // v_ffbh_i32_e32 v13, v0
        &[0x00, 0x41, 0x1c, 0x7e],                         // v_fract_f32_e32 v14, v0
        &[0x16, 0x7d, 0x28, 0x7e],                         // v_fract_f64_e32 v[20:21], v[22:23]
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    for size in [32, 64] {
        let w = run(Gpu::Gfx1030, size, &code, |w| {
            for l in 0..64 {
                let (a, b) = sat_operands(l);
                w.vgpr[0][l] = a;
                w.vgpr[1][l] = b;
                // The 16-bit forms keep the high half of the destination.
                for r in 7..=10 {
                    w.vgpr[r][l] = 0xabcd_0000;
                }
                w.vgpr[22][l] = 0;
                w.vgpr[23][l] = 0x7ff8_0000 | l as u32; // quiet NaNs
            }
            w.vgpr[0][1] = 0x7f80_0001; // a signalling NaN
        })
        .expect("runs");
        for l in 0..size as usize {
            let (a, b) = (w.vgpr[0][l], w.vgpr[1][l]);
            let (ai, bi) = (a as i32, b as i32);
            let (ah, bh) = (a as u16, b as u16);
            let want = [
                (2, a.saturating_add(b)),
                (3, a.saturating_sub(b)),
                (4, b.saturating_sub(a)),
                (5, ai.saturating_add(bi) as u32),
                (6, ai.saturating_sub(bi) as u32),
                (7, 0xabcd_0000 | ah.saturating_add(bh) as u32),
                (8, 0xabcd_0000 | ah.saturating_sub(bh) as u32),
                (
                    9,
                    0xabcd_0000 | (ah as i16).saturating_add(bh as i16) as u16 as u32,
                ),
                (
                    10,
                    0xabcd_0000 | (ah as i16).saturating_sub(bh as i16) as u16 as u32,
                ),
            ];
            for (reg, v) in want {
                assert_eq!(
                    w.vgpr[reg][l], v,
                    "wave{size} v{reg} lane {l}: {a:#x}, {b:#x}"
                );
            }
            let v = if ai < 0 { !a } else { a };
            let ffbh = if v == 0 { u32::MAX } else { v.leading_zeros() };
            assert_eq!(w.vgpr[13][l], ffbh, "v_ffbh_i32 lane {l}");
            let d = f64::from_bits(w.vgpr[20][l] as u64 | (w.vgpr[21][l] as u64) << 32);
            assert!(d.is_nan(), "v_fract_f64(NaN) lane {l}");
        }
        assert_eq!(
            w.vgpr[14][1], 0x7fc0_0001,
            "fract(sNaN) is that NaN, quietened"
        );
    }
}

/// `v_xad_u32` (`(S0 ^ S1) + S2`, wrapping) and `v_pack_b32_f16` (`D =
/// {S1.f16, S0.f16}`, halves chosen by `op_sel`, `neg`/`abs` on the sign
/// bits, NaN and denormal bits passed through). (Before: unimplemented.)
fn xad_and_pack(gpu: Gpu, size: u32, code: &[u8]) {
    let exec = (if size == 64 { u64::MAX } else { 0xffff_ffff }) & !(1 << 6);
    let w = run(gpu, size, code, |w| {
        w.exec = Mask(exec);
        for l in 0..64 {
            w.vgpr[0][l] = 0x9e37_79b9u32.wrapping_mul(l as u32 + 1);
            w.vgpr[1][l] = 0xffff_0000 ^ l as u32;
            w.vgpr[2][l] = u32::MAX - l as u32;
            w.vgpr[3][l] = HALVES[l % 32] as u32 | (HALVES[(l + 5) % 32] as u32) << 16;
            w.vgpr[4][l] = HALVES[(l + 11) % 32] as u32 | (HALVES[(l + 2) % 32] as u32) << 16;
            for r in 5..9 {
                w.vgpr[r][l] = 0x5555_0000 + r as u32;
            }
        }
        // Signalling NaNs are reported, not packed: keep them out.
        for l in 0..64 {
            for r in [3, 4] {
                let v = w.vgpr[r][l];
                let fix = |h: u32| {
                    if h & 0x7e00 == 0x7c00 && h & 0x1ff != 0 {
                        0x7e00
                    } else {
                        h
                    }
                };
                w.vgpr[r][l] = fix(v & 0xffff) | fix(v >> 16) << 16;
            }
        }
    })
    .expect("runs");
    for l in 0..size as usize {
        let v = |r: usize| w.vgpr[r][l];
        if (exec >> l) & 1 == 0 {
            for r in 5..9 {
                assert_eq!(v(r), 0x5555_0000 + r as u32, "inactive lane {l}");
            }
            continue;
        }
        assert_eq!(v(5), (v(0) ^ v(1)).wrapping_add(v(2)), "{gpu} xad lane {l}");
        let (lo3, hi3, lo4, hi4) = (v(3) & 0xffff, v(3) >> 16, v(4) & 0xffff, v(4) >> 16);
        assert_eq!(v(6), lo3 | lo4 << 16, "{gpu} pack lane {l}");
        assert_eq!(
            v(7),
            (hi3 ^ 0x8000) | (lo4 & 0x7fff) << 16,
            "{gpu} pack -hi, |lo| lane {l}"
        );
        assert_eq!(v(8), lo3 | hi4 << 16, "{gpu} pack lo, hi lane {l}");
    }
}

#[test]
fn xad_and_pack_b32_f16() {
    let gfx9: Vec<u8> = [
        &[0x05, 0x00, 0xf3, 0xd1, 0x00, 0x03, 0x0a, 0x04][..], // v_xad_u32 v5, v0, v1, v2
        &[0x06, 0x00, 0xa0, 0xd2, 0x03, 0x09, 0x02, 0x00],     // v_pack_b32_f16 v6, v3, v4
        &[0x07, 0x0a, 0xa0, 0xd2, 0x03, 0x09, 0x02, 0x20], // v_pack_b32_f16 v7, -v3, |v4| op_sel:[1,0,0]
        &[0x08, 0x10, 0xa0, 0xd2, 0x03, 0x09, 0x02, 0x00], // v_pack_b32_f16 v8, v3, v4 op_sel:[0,1,0]
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x05, 0x00, 0x45, 0xd7, 0x00, 0x03, 0x0a, 0x04][..], // v_xad_u32 v5, v0, v1, v2
        &[0x06, 0x00, 0x11, 0xd7, 0x03, 0x09, 0x02, 0x00],     // v_pack_b32_f16 v6, v3, v4
        &[0x07, 0x0a, 0x11, 0xd7, 0x03, 0x09, 0x02, 0x20], // v_pack_b32_f16 v7, -v3, |v4| op_sel:[1,0,0]
        &[0x08, 0x10, 0x11, 0xd7, 0x03, 0x09, 0x02, 0x00], // v_pack_b32_f16 v8, v3, v4 op_sel:[0,1,0]
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    xad_and_pack(Gpu::Gfx900, 64, &gfx9);
    xad_and_pack(Gpu::Gfx1030, 32, &gfx10);
    xad_and_pack(Gpu::Gfx1030, 64, &gfx10);
    // A signalling NaN is not packed silently.
    let err = run(Gpu::Gfx900, 64, &gfx9[8..], |w| {
        for l in 0..64 {
            w.vgpr[3][l] = 0x7d00;
        }
    })
    .unwrap_err();
    assert!(matches!(err, SimError::Unsupported { .. }), "{err}");
}

/// Reference byte SAD of the ISA's pseudo-code: per byte |S0 - S1|, bytes of
/// S1 that are 0 skipped when `masked` (V_MSAD_U8).
fn ref_sad8(a: u32, b: u32, masked: bool) -> u32 {
    let mut s = 0;
    for k in 0..4 {
        let (x, y) = ((a >> (8 * k)) & 0xff, (b >> (8 * k)) & 0xff);
        if !(masked && y == 0) {
            s += x.abs_diff(y);
        }
    }
    s
}

#[test]
fn gfx9_sad_lerp_mad16_and_scalar_quad_operations() {
    let code: Vec<u8> = [
        &[0x0a, 0x00, 0x05, 0xd2, 0x00, 0x03, 0x0a, 0x04][..], // v_mad_i16 v10, v0, v1, v2
        &[0x0b, 0x80, 0x05, 0xd2, 0x00, 0x03, 0x0a, 0x04],     // v_mad_i16 v11, v0, v1, v2 clamp
        &[0x0c, 0x00, 0xf1, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_mad_u32_u16 v12, v0, v1, v2
        &[0x0d, 0x00, 0xf2, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_mad_i32_i16 v13, v0, v1, v2
        &[0x0e, 0x00, 0xd9, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_sad_u8 v14, v0, v1, v2
        &[0x0f, 0x00, 0xda, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_sad_hi_u8 v15, v0, v1, v2
        &[0x10, 0x00, 0xdb, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_sad_u16 v16, v0, v1, v2
        &[0x11, 0x00, 0xe4, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_msad_u8 v17, v0, v1, v2
        &[0x12, 0x00, 0xcd, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_lerp_u8 v18, v0, v1, v2
        &[0x00, 0x1d, 0x26, 0x7e],                             // v_cvt_off_f32_i4_e32 v19, v0
        &[0x00, 0x9f, 0x28, 0x7e],                             // v_sat_pk_u8_i16_e32 v20, v0
        &[0x15, 0x00, 0xc0, 0xd1, 0x03, 0x09, 0x16, 0x04],     // v_mad_legacy_f32 v21, v3, v4, v5
        &[0x16, 0x40, 0x80, 0xd3, 0x00, 0x03, 0x0a, 0x1c],     // v_pk_mad_i16 v22, v0, v1, v2
        &[0xa8, 0x1b, 0x8a, 0xbe],                             // s_bitset1_b64 s[10:11], 40
        &[0x02, 0x19, 0x8c, 0xbe],                             // s_bitset0_b64 s[12:13], s2
        &[0x03, 0x28, 0x8e, 0xbe],                             // s_quadmask_b32 s14, s3
        &[0x04, 0x29, 0x90, 0xbe],                             // s_quadmask_b64 s[16:17], s[4:5]
        &[0x03, 0x06, 0x92, 0xbe],                             // s_wqm_b32 s18, s3
        &[0x04, 0x07, 0x94, 0xbe],                             // s_wqm_b64 s[20:21], s[4:5]
        &[0x03, 0x37, 0x96, 0xbe], // s_bitreplicate_b64_b32 s[22:23], s3
        &[0x01, 0x00, 0x97, 0xbf], // s_cbranch_cdbgsys 1
        &[0x87, 0x00, 0x98, 0xbe], // s_mov_b32 s24, 7
        &[0x01, 0x00, 0x94, 0xbf], // s_incperflevel 1
        &[0x00, 0x00, 0x81, 0xbf], // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx900, 64, &code, sad_lerp_mad16_setup).expect("runs");
    sad_lerp_mad16_lane0_by_hand(&w);
    for l in 0..64 {
        sad_lerp_mad16_lane(&w, l);
    }
    scalar_quad_operations(&w);
}

/// The registers before the SAD, lerp and MAD16 program: lanes 0 and 1
/// chosen by hand, the others from [`lane_value`].
fn sad_lerp_mad16_setup(w: &mut Wave) {
    for l in 0..64 {
        w.vgpr[0][l] = lane_value(l, 1);
        w.vgpr[1][l] = lane_value(l, 2);
        w.vgpr[2][l] = lane_value(l, 3);
        w.vgpr[3][l] = 1.5f32.to_bits();
        w.vgpr[4][l] = 2.0f32.to_bits();
        w.vgpr[5][l] = 0.25f32.to_bits();
        w.vgpr[10][l] = 0xdead_beef;
    }
    // Lane 0 by hand: bytes 0x0a 0x14 0x1e 0x28 and 0x00 0x14 0x0a 0x32.
    w.vgpr[0][0] = 0x0a14_1e28;
    w.vgpr[1][0] = 0x0014_0a32;
    w.vgpr[2][0] = 100;
    // Legacy multiplies: 0 * inf and -0 * NaN are 0.
    w.vgpr[3][0] = 0.0f32.to_bits();
    w.vgpr[4][0] = f32::INFINITY.to_bits();
    w.vgpr[5][0] = 2.5f32.to_bits();
    w.vgpr[3][1] = (-0.0f32).to_bits();
    w.vgpr[4][1] = f32::NAN.to_bits();
    w.vgpr[5][1] = 1.0f32.to_bits();
    w.sgpr[2] = 33;
    w.sgpr[3] = 0xf012;
    w.sgpr[4] = 0x10;
    w.sgpr[5] = 0x8000_0000;
    w.sgpr[12] = u32::MAX;
    w.sgpr[13] = u32::MAX;
}

/// Lane 0, worked by hand from the pseudo-code.
fn sad_lerp_mad16_lane0_by_hand(w: &Wave) {
    assert_eq!(
        w.vgpr[10][0], 0x7434,
        "v_mad_i16: 7720 * 2610 + 100 = 20149300, low 16 bits"
    );
    assert_eq!(w.vgpr[11][0], 0x7fff, "v_mad_i16 clamp");
    assert_eq!(w.vgpr[12][0], 20_149_300, "v_mad_u32_u16");
    assert_eq!(w.vgpr[13][0], 20_149_300, "v_mad_i32_i16");
    assert_eq!(w.vgpr[14][0], 140, "v_sad_u8: 10 + 0 + 20 + 10 + 100");
    assert_eq!(w.vgpr[15][0], (40 << 16) + 100, "v_sad_hi_u8");
    assert_eq!(w.vgpr[16][0], 2560 + 5110 + 100, "v_sad_u16");
    assert_eq!(w.vgpr[17][0], 130, "v_msad_u8 skips the byte where S1 is 0");
    assert_eq!(w.vgpr[18][0], 0x0514_142d, "v_lerp_u8");
    assert_eq!(f32::from_bits(w.vgpr[19][0]), -0.5, "v_cvt_off_f32_i4 of 8");
    assert_eq!(
        w.vgpr[20][0], 0xffff,
        "v_sat_pk_u8_i16 saturates 2580 and 7720"
    );
    assert_eq!(
        f32::from_bits(w.vgpr[21][0]),
        2.5,
        "v_mad_legacy_f32: 0 * inf = 0"
    );
    assert_eq!(
        f32::from_bits(w.vgpr[21][1]),
        1.0,
        "v_mad_legacy_f32: -0 * NaN = 0"
    );
    assert_eq!(f32::from_bits(w.vgpr[21][2]), 3.25);
}

/// Lane `l` against the pseudo-code.
fn sad_lerp_mad16_lane(w: &Wave, l: usize) {
    let (a, b, c) = (w.vgpr[0][l], w.vgpr[1][l], w.vgpr[2][l]);
    let (a16, b16) = (a as i16 as i32, b as i16 as i32);
    let p = a16 * b16 + c as i16 as i32;
    assert_eq!(w.vgpr[10][l], p as u16 as u32, "v_mad_i16 lane {l}");
    assert_eq!(
        w.vgpr[11][l],
        p.clamp(-32768, 32767) as u16 as u32,
        "clamp lane {l}"
    );
    let pu = (a & 0xffff) * (b & 0xffff);
    assert_eq!(w.vgpr[12][l], pu.wrapping_add(c), "v_mad_u32_u16 lane {l}");
    assert_eq!(
        w.vgpr[13][l],
        (a16 * b16).wrapping_add(c as i32) as u32,
        "lane {l}"
    );
    assert_eq!(
        w.vgpr[14][l],
        ref_sad8(a, b, false).wrapping_add(c),
        "sad lane {l}"
    );
    assert_eq!(w.vgpr[15][l], (ref_sad8(a, b, false) << 16).wrapping_add(c));
    assert_eq!(
        w.vgpr[17][l],
        ref_sad8(a, b, true).wrapping_add(c),
        "msad lane {l}"
    );
    let d16 = |x: u32, y: u32| (x as i32 - y as i32).unsigned_abs();
    let sad16 = d16(a & 0xffff, b & 0xffff) + d16(a >> 16, b >> 16);
    assert_eq!(w.vgpr[16][l], sad16.wrapping_add(c), "sad_u16 lane {l}");
    let mut lerp = 0;
    for k in 0..4 {
        let byte = |v: u32| (v >> (8 * k)) & 0xff;
        lerp |= ((byte(a) + byte(b) + ((c >> (8 * k)) & 1)) >> 1) << (8 * k);
    }
    assert_eq!(w.vgpr[18][l], lerp, "v_lerp_u8 lane {l}");
    let off = [
        0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, -0.5, -0.4375, -0.375, -0.3125,
        -0.25, -0.1875, -0.125, -0.0625,
    ][(a & 15) as usize];
    assert_eq!(
        f32::from_bits(w.vgpr[19][l]),
        off,
        "v_cvt_off_f32_i4 lane {l}"
    );
    let sat = |h: u32| (h as u16 as i16).clamp(0, 255) as u32;
    assert_eq!(
        w.vgpr[20][l],
        sat(a) | sat(a >> 16) << 8,
        "v_sat_pk_u8_i16 {l}"
    );
    let lo = (a as u16).wrapping_mul(b as u16).wrapping_add(c as u16) as u32;
    let hi = ((a >> 16) as u16)
        .wrapping_mul((b >> 16) as u16)
        .wrapping_add((c >> 16) as u16) as u32;
    assert_eq!(w.vgpr[22][l], lo | hi << 16, "v_pk_mad_i16 lane {l}");
}

/// The scalar bit, quad-mask, WQM and replicate operations of the program.
fn scalar_quad_operations(w: &Wave) {
    assert_eq!((w.sgpr[10], w.sgpr[11]), (0, 0x100), "s_bitset1_b64 bit 40");
    assert_eq!(
        (w.sgpr[12], w.sgpr[13]),
        (u32::MAX, !2),
        "s_bitset0_b64 bit 33"
    );
    assert_eq!(w.sgpr[14], 0b1011, "s_quadmask_b32 of 0xf012");
    assert_eq!((w.sgpr[16], w.sgpr[17]), (0x8002, 0), "s_quadmask_b64");
    assert_eq!(w.sgpr[18], 0xf0ff, "s_wqm_b32 of 0xf012");
    assert_eq!((w.sgpr[20], w.sgpr[21]), (0xf0, 0xf000_0000), "s_wqm_b64");
    assert!(w.scc, "s_wqm_b64 sets SCC for a non-zero result");
    assert_eq!(
        (w.sgpr[22], w.sgpr[23]),
        (0xff00_030c, 0),
        "s_bitreplicate_b64_b32"
    );
    assert_eq!(w.sgpr[24], 7, "s_cbranch_cdbgsys is not taken");
}

#[test]
fn gfx9_quad_sads() {
    let code: Vec<u8> = [
        &[0x0a, 0x00, 0xe5, 0xd1, 0x00, 0x05, 0x12, 0x04][..], // v_qsad_pk_u16_u8 v[10:11], v[0:1], v2, v[4:5]
        &[0x0c, 0x00, 0xe6, 0xd1, 0x00, 0x05, 0x12, 0x04], // v_mqsad_pk_u16_u8 v[12:13], v[0:1], v2, v[4:5]
        &[0x10, 0x00, 0xe7, 0xd1, 0x00, 0x05, 0x52, 0x04], // v_mqsad_u32_u8 v[16:19], v[0:1], v2, v[20:23]
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        for l in 0..64 {
            for r in [0, 1, 2, 4, 5, 20, 21, 22, 23] {
                w.vgpr[r][l] = lane_value(l, r as u32);
            }
        }
        // Lanes 0 and 1: S0 bytes 1..8, S1 bytes 2, 3, 0, 5.
        for l in 0..2 {
            w.vgpr[0][l] = 0x0403_0201;
            w.vgpr[1][l] = 0x0807_0605;
            w.vgpr[2][l] = 0x0500_0302;
        }
        (w.vgpr[4][0], w.vgpr[5][0]) = (0x0002_0001, 0x0004_0003);
        (w.vgpr[4][1], w.vgpr[5][1]) = (u32::MAX, u32::MAX);
        for (r, v) in [100, 200, 300, 400].into_iter().enumerate() {
            w.vgpr[20 + r][0] = v;
        }
    })
    .expect("runs");
    let d64 = |lo: usize, l: usize| w.vgpr[lo][l] as u64 | (w.vgpr[lo + 1][l] as u64) << 32;
    // By hand: SADs 6, 4, 8, 12 of the four windows; masked 3, 0, 3, 6.
    assert_eq!(d64(10, 0), 0x0010_000b_0006_0007, "v_qsad_pk_u16_u8");
    assert_eq!(d64(12, 0), 0x000a_0006_0002_0004, "v_mqsad_pk_u16_u8");
    assert_eq!(d64(10, 1), 0x000b_0007_0003_0005, "16-bit fields wrap");
    let quad: Vec<u32> = (16..20).map(|r| w.vgpr[r][0]).collect();
    assert_eq!(quad, [103, 200, 303, 406], "v_mqsad_u32_u8");
    for l in 0..64 {
        let (s0, s1) = (
            w.vgpr[0][l] as u64 | (w.vgpr[1][l] as u64) << 32,
            w.vgpr[2][l],
        );
        let acc = w.vgpr[4][l] as u64 | (w.vgpr[5][l] as u64) << 32;
        let (mut q, mut mq) = (0u64, 0u64);
        for j in 0..4 {
            let win = (s0 >> (8 * j)) as u32;
            let c = ((acc >> (16 * j)) & 0xffff) as u32;
            q |= ((ref_sad8(win, s1, false) + c) as u64 & 0xffff) << (16 * j);
            mq |= ((ref_sad8(win, s1, true) + c) as u64 & 0xffff) << (16 * j);
            assert_eq!(
                w.vgpr[16 + j][l],
                ref_sad8(win, s1, true).wrapping_add(w.vgpr[20 + j][l]),
                "v_mqsad_u32_u8 lane {l} field {j}"
            );
        }
        assert_eq!(
            w.vgpr[10][l] as u64 | (w.vgpr[11][l] as u64) << 32,
            q,
            "qsad {l}"
        );
        assert_eq!(
            w.vgpr[12][l] as u64 | (w.vgpr[13][l] as u64) << 32,
            mq,
            "mqsad {l}"
        );
    }
}

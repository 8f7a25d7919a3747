//! f32 arithmetic: the MAD forms, `v_div_fixup`, sin and cos, NaN operands, and
//! the legacy exp, log, mullit and FMA forms (`exec/valu/fp32.rs`).

use super::common::*;

/// f32 denormals flushed to zero of the same sign.
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// The MAD forms (`v_mad_f32`, `v_mac_f32`, `v_madak_f32`, `v_madmk_f32`,
/// `v_mad_f16`, `v_mac_f16`, `v_madak_f16`, `v_madmk_f16`) are unfused: the
/// product is rounded, then the sum, denormals flushed (LLVM's
/// `llvm.amdgcn.fmad.ftz`, which the compiler selects for `fmad` when
/// denormals are off, e.g. `-cl-denorms-are-zero`); the FMA forms round once.
/// `v_mac_f16`/`v_madak_f16`/`v_madmk_f16` keep the high half of the
/// destination on GFX9. (Before: the MAD forms were computed fused and
/// without flushing, and `v_mac_f16` zeroed the high half on GFX9.)
#[test]
fn mad_forms_round_the_product() {
    let k1 = f32::from_bits(0x3f80_0001); // 1 + 2^-23
    let setup = |w: &mut Wave| {
        for l in 0..64 {
            let (m, n) = (2 * l as u32 + 1, 3 * l as u32 + 7);
            w.vgpr[0][l] = 0x3f80_0000 + m;
            w.vgpr[1][l] = 0x3f80_0000 + n;
            w.vgpr[2][l] = (-1.0f32).to_bits();
            w.vgpr[5][l] = (-1.0f32).to_bits();
            w.vgpr[3][l] = 0x3c00 + (l as u32 % 32) + 1;
            w.vgpr[4][l] = 0x3c00 + (l as u32 * 5 % 64) + 3;
            w.vgpr[10][l] = 0xabcd_bc00; // -1.0 in the low half
            w.vgpr[12][l] = 0x1234_0000;
            w.vgpr[13][l] = 0x5678_0000;
        }
        // A denormal operand: flushed by the MAD forms, not by FMA.
        w.vgpr[0][63] = 0x0000_0400; // 2^-136
        w.vgpr[1][63] = 0x4e80_0000; // 2^30
        w.vgpr[2][63] = 0;
        w.vgpr[5][63] = 0;
    };
    let h = |x: u32| amdgpu_sim::alu::f16_to_f32(x as u16) as f64;
    let r16 = |x: f64| amdgpu_sim::alu::f64_to_f16(x) as u32;
    let code9: Vec<u8> = [
        &[0x00, 0x03, 0x0a, 0x2c][..], // v_mac_f32_e32 v5, v0, v1
        &[0x06, 0x00, 0xc1, 0xd1, 0x00, 0x03, 0x0a, 0x04], // v_mad_f32 v6, v0, v1, v2
        &[0x00, 0x03, 0x0e, 0x30, 0x00, 0x00, 0x80, 0xbf], // v_madak_f32 v7, v0, v1, 0xbf800000
        &[0x00, 0x05, 0x10, 0x2e, 0x01, 0x00, 0x80, 0x3f], // v_madmk_f32 v8, v0, 0x3f800001, v2
        &[0x09, 0x00, 0xcb, 0xd1, 0x00, 0x03, 0x0a, 0x04], // v_fma_f32 v9, v0, v1, v2
        &[0x03, 0x09, 0x14, 0x46],     // v_mac_f16_e32 v10, v3, v4
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
        // Not executed before (unimplemented): run as a second program.
        &[0x0b, 0x00, 0x03, 0xd2, 0x03, 0x09, 0x2a, 0x04], // v_mad_f16 v11, v3, v4, v10
        &[0x03, 0x09, 0x18, 0x4a, 0x00, 0xbc, 0x00, 0x00], // v_madak_f16 v12, v3, v4, 0xbc00
        &[0x03, 0x09, 0x1a, 0x48, 0x01, 0x3c, 0x00, 0x00], // v_madmk_f16 v13, v3, 0x3c01, v4
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let code10: Vec<u8> = [
        &[0x00, 0x03, 0x0a, 0x3e][..], // v_mac_f32_e32 v5, v0, v1
        &[0x06, 0x00, 0x41, 0xd5, 0x00, 0x03, 0x0a, 0x04], // v_mad_f32 v6, v0, v1, v2
        &[0x00, 0x03, 0x0e, 0x42, 0x00, 0x00, 0x80, 0xbf], // v_madak_f32 v7, v0, v1, 0xbf800000
        &[0x00, 0x05, 0x10, 0x40, 0x01, 0x00, 0x80, 0x3f], // v_madmk_f32 v8, v0, 0x3f800001, v2
        &[0x09, 0x00, 0x4b, 0xd5, 0x00, 0x03, 0x0a, 0x04], // v_fma_f32 v9, v0, v1, v2
        &[0x03, 0x09, 0x14, 0x6c],     // v_fmac_f16_e32 v10, v3, v4
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
        &[0x03, 0x09, 0x18, 0x70, 0x00, 0xbc, 0x00, 0x00], // v_fmaak_f16 v12, v3, v4, 0xbc00
        &[0x03, 0x09, 0x1a, 0x6e, 0x01, 0x3c, 0x00, 0x00], // v_fmamk_f16 v13, v3, 0x3c01, v4
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    // The first program is 40 bytes and an s_endpgm; the second
    // starts there, on the registers the first left.
    for (gpu, size, code, split) in [
        (Gpu::Gfx900, 64, &code9, 40),
        (Gpu::Gfx1010, 32, &code10, 40),
    ] {
        let gfx9 = gpu == Gpu::Gfx900;
        let first = run(gpu, size, &code[..split + 4], setup).expect("runs");
        let mad16 = |p: f64, z: f64| r16(h(r16(p)) + z);
        for l in 0..size as usize {
            let v = |r: usize| first.vgpr[r][l];
            let (a, b) = (f32::from_bits(v(0)), f32::from_bits(v(1)));
            let c = if l == 63 { 0.0 } else { -1.0 };
            let mad = |x: f32, y: f32, z: f32| ftz(ftz(ftz(x) * ftz(y)) + ftz(z));
            assert_eq!(v(5), mad(a, b, c).to_bits(), "{gpu} v_mac_f32 lane {l}");
            assert_eq!(v(6), mad(a, b, c).to_bits(), "{gpu} v_mad_f32 lane {l}");
            assert_eq!(
                v(7),
                mad(a, b, -1.0).to_bits(),
                "{gpu} v_madak_f32 lane {l}"
            );
            assert_eq!(v(8), mad(a, k1, c).to_bits(), "{gpu} v_madmk_f32 lane {l}");
            assert_eq!(v(9), a.mul_add(b, c).to_bits(), "{gpu} v_fma_f32 lane {l}");
            if l < 63 {
                assert_ne!(v(6), v(9), "{gpu} lane {l}: fused and unfused differ here");
            }
            let (x, y) = (h(v(3)), h(v(4)));
            let want = if gfx9 {
                mad16(x * y, -1.0)
            } else {
                r16(x.mul_add(y, -1.0))
            };
            assert_eq!(
                v(10),
                0xabcd_0000 | want,
                "{gpu} v_mac/fmac_f16 keep the high half, lane {l}"
            );
        }
        let w = run(gpu, size, &code[split + 4..], |w| {
            w.vgpr = first.vgpr.clone();
        })
        .expect("runs");
        for l in 0..size as usize {
            let v = |r: usize| w.vgpr[r][l];
            let (x, y) = (h(v(3)), h(v(4)));
            if gfx9 {
                assert_eq!(
                    v(11),
                    mad16(x * y, h(v(10))),
                    "v_mad_f16 zeroes it, lane {l}"
                );
                assert_eq!(
                    v(12),
                    0x1234_0000 | mad16(x * y, -1.0),
                    "v_madak_f16 lane {l}"
                );
                assert_eq!(
                    v(13),
                    0x5678_0000 | mad16(x * h(0x3c01), y),
                    "v_madmk_f16 lane {l}"
                );
            } else {
                assert_eq!(
                    v(12),
                    0x1234_0000 | r16(x.mul_add(y, -1.0)),
                    "v_fmaak_f16 lane {l}"
                );
                assert_eq!(
                    v(13),
                    0x5678_0000 | r16(x.mul_add(h(0x3c01), y)),
                    "v_fmamk_f16 lane {l}"
                );
            }
        }
    }
}

/// `v_div_fixup_f32/f64` in the order of the guide's pseudo-code: a NaN
/// numerator (S2) before a NaN denominator (S1), quietened; 0/0 and inf/inf
/// give the negative quiet NaN (0xffc00000, 0xfff8000000000000); an
/// underflowing quotient, whose result the guides do not give, is reported.
/// (Before: a NaN denominator won over a NaN numerator, signalling NaNs came
/// back unquietened, and 0/0 gave the positive NaN.)
#[test]
fn div_fixup_nan_order_and_default_nan() {
    let gfx9: Vec<u8> = [
        &[0x03, 0x00, 0xde, 0xd1, 0x00, 0x03, 0x0a, 0x04][..], // v_div_fixup_f32 v3, v0, v1, v2
        &[0x0a, 0x00, 0xdf, 0xd1, 0x04, 0x0d, 0x22, 0x04], // v_div_fixup_f64 v[10:11], v[4:5], v[6:7], v[8:9]
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x03, 0x00, 0x5f, 0xd5, 0x00, 0x03, 0x0a, 0x04][..], // v_div_fixup_f32 v3, v0, v1, v2
        &[0x0a, 0x00, 0x60, 0xd5, 0x04, 0x0d, 0x22, 0x04], // v_div_fixup_f64 v[10:11], v[4:5], v[6:7], v[8:9]
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    // (quotient, denominator, numerator) as f64 bit patterns; each f32 lane
    // uses the same cases narrowed.
    let nan = |payload: u64, neg: bool| (neg as u64) << 63 | 0x7ff0_0000_0000_0000 | payload;
    let cases: [(u64, u64, u64); 8] = [
        (
            0x3ff0_0000_0000_0000,
            nan(0x1_0000_0000_0000, false),
            nan(0x2_0000_0000_0000, true),
        ),
        (
            0x3ff0_0000_0000_0000,
            nan(0x4_0000_0000_0000, false),
            2f64.to_bits(),
        ),
        (0x3ff0_0000_0000_0000, 0, 0x8000_0000_0000_0000),
        (
            0x3ff0_0000_0000_0000,
            f64::INFINITY.to_bits(),
            f64::NEG_INFINITY.to_bits(),
        ),
        (0x3ff0_0000_0000_0000, 0x8000_0000_0000_0000, 3f64.to_bits()),
        (
            0x3ff0_0000_0000_0000,
            2f64.to_bits(),
            f64::NEG_INFINITY.to_bits(),
        ),
        ((-0.75f64).to_bits(), (-2f64).to_bits(), 1.5f64.to_bits()),
        (0.75f64.to_bits(), (-2f64).to_bits(), 1.5f64.to_bits()),
    ];
    // The expected values, from the pseudo-code, for f64 and for f32.
    let want64 = [
        nan(0xa_0000_0000_0000, true),
        nan(0xc_0000_0000_0000, false),
        0xfff8_0000_0000_0000,
        0xfff8_0000_0000_0000,
        f64::NEG_INFINITY.to_bits(),
        0xfff0_0000_0000_0000,
        (-0.75f64).to_bits(),
        (-0.75f64).to_bits(),
    ];
    let narrow = |b: u64| -> u32 {
        let x = f64::from_bits(b);
        if x.is_nan() {
            (b >> 32) as u32 & 0x8000_0000 | 0x7f80_0000 | ((b >> 29) as u32 & 0x7f_ffff)
        } else {
            (x as f32).to_bits()
        }
    };
    for (gpu, size, code) in [(Gpu::Gfx900, 64, &gfx9), (Gpu::Gfx1030, 32, &gfx10)] {
        let w = run(gpu, size, code, |w| {
            for l in 0..64 {
                let (q, d, n) = cases[l % 8];
                for (r, v) in [(0, q), (1, d), (2, n)] {
                    w.vgpr[r][l] = narrow(v);
                }
                for (r, v) in [(4, q), (6, d), (8, n)] {
                    w.vgpr[r][l] = v as u32;
                    w.vgpr[r + 1][l] = (v >> 32) as u32;
                }
            }
        })
        .expect("runs");
        for l in 0..size as usize {
            let d = w.vgpr[10][l] as u64 | (w.vgpr[11][l] as u64) << 32;
            assert_eq!(d, want64[l % 8], "{gpu} f64 case {} lane {l}", l % 8);
            assert_eq!(
                w.vgpr[3][l],
                narrow(want64[l % 8]),
                "{gpu} f32 case {} lane {l}",
                l % 8
            );
        }
    }
    // 2^-100 / -2^60 (f32) and 2^-1000 / 2^100 (f64): the guide's underflow
    // case, a quotient below half the smallest denormal, which rounds to a
    // zero of the quotient's sign (round to nearest even, the default mode).
    let w = run(Gpu::Gfx900, 64, &gfx9, |w| {
        for l in 0..64 {
            w.vgpr[0][l] = 0x3f80_0000;
            w.vgpr[1][l] = (-f32::powi(2.0, 60)).to_bits();
            w.vgpr[2][l] = f32::powi(2.0, -100).to_bits();
            let (q, d, n) = (1.0f64, f64::powi(2.0, 100), -f64::powi(2.0, -1000));
            for (r, v) in [(4, q), (6, d), (8, n)] {
                w.vgpr[r][l] = v.to_bits() as u32;
                w.vgpr[r + 1][l] = (v.to_bits() >> 32) as u32;
            }
        }
    })
    .expect("runs");
    for l in 0..64 {
        assert_eq!(w.vgpr[3][l], 0x8000_0000, "f32 lane {l}: -0");
        let d = w.vgpr[10][l] as u64 | (w.vgpr[11][l] as u64) << 32;
        assert_eq!(d, 0x8000_0000_0000_0000, "f64 lane {l}: -0");
    }
}

/// `v_sin_f32` / `v_cos_f32` compute `sin(S0 * 2 * PI)` with the argument
/// reduced exactly (`S0 - round(S0)` is exact), so large inputs keep their
/// accuracy; inputs outside the valid domain [-256, 256] (Vega ISA, VOP1) and
/// exact zeros of unspecified sign are reported. (Before: `S0 * 2 * PI` was
/// rounded to f32 first, so `v_sin_f32(200.1)` was off by about 4e-5, and
/// inputs outside the domain gave a value.)
#[test]
fn sin_cos_f32_reduce_exactly() {
    let gfx9: Vec<u8> = [
        &[0x00, 0x53, 0x02, 0x7e][..], // v_sin_f32_e32 v1, v0
        &[0x00, 0x55, 0x04, 0x7e],     // v_cos_f32_e32 v2, v0
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x00, 0x6b, 0x02, 0x7e][..], // v_sin_f32_e32 v1, v0
        &[0x00, 0x6d, 0x04, 0x7e],     // v_cos_f32_e32 v2, v0
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    let x = |l: usize| -> f32 {
        match l {
            0 => 0.0,
            1 => -0.0,
            2 => f32::NAN,
            3 => 200.1,
            4 => -255.9,
            _ => (l as f32 * 3.77 - 100.0) * 1.013,
        }
    };
    for (gpu, size, code) in [(Gpu::Gfx900, 64, &gfx9), (Gpu::Gfx1030, 32, &gfx10)] {
        let w = run(gpu, size, code, |w| {
            for l in 0..64 {
                w.vgpr[0][l] = x(l).to_bits();
            }
        })
        .expect("runs");
        for l in 0..size as usize {
            let v = x(l) as f64;
            // 2 pi (v - round(v)): the reduction is exact in f64.
            let t = std::f64::consts::TAU * (v - v.round());
            let (s, c) = (t.sin() as f32, t.cos() as f32);
            let (gs, gc) = (f32::from_bits(w.vgpr[1][l]), f32::from_bits(w.vgpr[2][l]));
            if v.is_nan() {
                assert!(gs.is_nan() && gc.is_nan(), "{gpu} NaN");
                continue;
            }
            assert_eq!(
                gs.to_bits(),
                if v == 0.0 {
                    x(l).to_bits()
                } else {
                    s.to_bits()
                },
                "{gpu} sin({v})"
            );
            assert_eq!(gc, c, "{gpu} cos({v})");
        }
        let naive = (200.1f32 * std::f32::consts::TAU).sin();
        assert!((f32::from_bits(w.vgpr[1][3]) - naive).abs() > 1e-5);
        for bad in [256.5f32, f32::INFINITY, 0.5] {
            let err = run(gpu, size, code, |w| {
                for l in 0..64 {
                    w.vgpr[0][l] = if l == 7 { bad.to_bits() } else { 0 };
                }
            })
            .unwrap_err();
            assert!(
                matches!(err, SimError::Unsupported { .. }),
                "{gpu} {bad}: {err}"
            );
        }
    }
}

#[test]
fn gfx10_legacy_fma_packed_fmac_and_mode_setting() {
    let code: Vec<u8> = [
        &[0x0a, 0x00, 0x5e, 0xd7, 0x00, 0x03, 0x0a, 0x04][..], // v_mad_i16 v10, v0, v1, v2
        &[0x0d, 0x80, 0x75, 0xd7, 0x00, 0x03, 0x0a, 0x04], // v_mad_i32_i16 v13, v0, v1, v2 clamp
        &[0x15, 0x00, 0x40, 0xd5, 0x03, 0x09, 0x16, 0x04], // v_fma_legacy_f32 v21, v3, v4, v5
        &[0x03, 0x09, 0x0a, 0x0c],                         // v_fmac_legacy_f32_e32 v5, v3, v4
        &[0x07, 0x11, 0x0c, 0x78],                         // v_pk_fmac_f16 v6, v7, v8
        &[0x0f, 0x00, 0xa5, 0xbf],                         // s_denorm_mode 15
        &[0x01, 0x19, 0x19, 0xb9], // s_getreg_b32 s25, hwreg(HW_REG_MODE, 4, 4)
        &[0x03, 0x00, 0xa4, 0xbf], // s_round_mode 0x3
        &[0x01, 0x18, 0x1a, 0xb9], // s_getreg_b32 s26, hwreg(HW_REG_MODE, 0, 4)
        &[0x00, 0x00, 0xa4, 0xbf], // s_round_mode 0x0
        &[0x01, 0x00, 0x98, 0xbf], // s_cbranch_cdbguser 1
        &[0x87, 0x03, 0x98, 0xbe], // s_mov_b32 s24, 7
        &[0x00, 0x00, 0x81, 0xbf], // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx1030, 32, &code, |w| {
        for l in 0..32 {
            w.vgpr[0][l] = lane_value(l, 4);
            w.vgpr[1][l] = lane_value(l, 5);
            w.vgpr[2][l] = lane_value(l, 6);
            w.vgpr[3][l] = 1.5f32.to_bits();
            w.vgpr[4][l] = 2.0f32.to_bits();
            w.vgpr[5][l] = 0.25f32.to_bits();
            w.vgpr[10][l] = 0xdead_beef;
            // (2.0, 1.5) * (0.5, 3.0) + (1.0, -1.0)
            w.vgpr[7][l] = 0x4000_3e00;
            w.vgpr[8][l] = 0x3800_4200;
            w.vgpr[6][l] = 0x3c00_bc00;
        }
        w.vgpr[3][0] = 0.0f32.to_bits();
        w.vgpr[4][0] = f32::INFINITY.to_bits();
        w.vgpr[5][0] = 2.5f32.to_bits();
        w.vgpr[3][1] = (-0.0f32).to_bits();
        w.vgpr[4][1] = f32::NAN.to_bits();
        w.vgpr[5][1] = 1.0f32.to_bits();
        w.vgpr[0][2] = 0x8000; // -32768 * -32768 + c saturates
        w.vgpr[1][2] = 0x8000;
        w.vgpr[2][2] = 0x7fff_ffff;
    })
    .expect("runs");
    for l in 0..32 {
        let (a, b, c) = (w.vgpr[0][l], w.vgpr[1][l], w.vgpr[2][l]);
        let p = a as i16 as i32 * b as i16 as i32 + c as i16 as i32;
        // GFX10 keeps the high half of a 16-bit result's register.
        assert_eq!(
            w.vgpr[10][l],
            0xdead_0000 | p as u16 as u32,
            "v_mad_i16 lane {l}"
        );
        let q = a as i16 as i64 * b as i16 as i64 + c as i32 as i64;
        let q = q.clamp(i32::MIN as i64, i32::MAX as i64) as u32;
        assert_eq!(w.vgpr[13][l], q, "v_mad_i32_i16 clamp lane {l}");
        let want = match l {
            0 => 2.5,
            1 => 1.0,
            _ => 3.25,
        };
        assert_eq!(
            f32::from_bits(w.vgpr[21][l]),
            want,
            "v_fma_legacy_f32 lane {l}"
        );
        assert_eq!(
            f32::from_bits(w.vgpr[5][l]),
            want,
            "v_fmac_legacy_f32 lane {l}"
        );
        assert_eq!(w.vgpr[6][l], 0x4000_4300, "v_pk_fmac_f16: (2.0, 3.5)");
    }
    assert_eq!(w.vgpr[13][2], i32::MAX as u32);
    assert_eq!(w.sgpr[25], 0xf, "s_denorm_mode sets MODE.FP_DENORM");
    assert_eq!(w.sgpr[26], 0x3, "s_round_mode sets MODE.FP_ROUND");
    assert_eq!(w.sgpr[24], 7, "s_cbranch_cdbguser is not taken");
}

/// With NaN operands, f32, f64 and f16 arithmetic returns the first NaN in
/// source order, quietened, and an invalid operation on numbers the
/// default NaN (`0xffc00000`), in the general executor and the
/// pre-resolved handlers alike (the host's own choice among several NaNs
/// depends on how its compiler ordered the operands).
#[test]
fn nan_operands_give_the_first_nan_quietened() {
    let gfx9: Vec<u8> = [
        &[0x00, 0x03, 0x04, 0x02][..], // v_add_f32_e32 v2, v0, v1
        &[0x01, 0x01, 0x06, 0x0a],     // v_mul_f32_e32 v3, v1, v0
        &[0x04, 0x00, 0xcb, 0xd1, 0x01, 0x01, 0x02, 0x04], // v_fma_f32 v4, v1, v0, v0
        &[0x06, 0x0f, 0x0a, 0x04],     // v_sub_f32_e32 v5, v6, v7
        &[0x08, 0x00, 0x80, 0xd2, 0x0a, 0x19, 0x02, 0x00], // v_add_f64 v[8:9], v[10:11], v[12:13]
        &[0x0f, 0x21, 0x1c, 0x3e],     // v_add_f16_e32 v14, v15, v16
        &[0x01, 0x01, 0x22, 0x06],     // v_subrev_f32_e32 v17, v1, v0
        &[0x12, 0x40, 0x8f, 0xd3, 0x0f, 0x21, 0x02, 0x18], // v_pk_add_f16 v18, v15, v16
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x00, 0x03, 0x04, 0x06][..],
        &[0x01, 0x01, 0x06, 0x10],
        &[0x04, 0x00, 0x4b, 0xd5, 0x01, 0x01, 0x02, 0x04],
        &[0x06, 0x0f, 0x0a, 0x08],
        &[0x08, 0x00, 0x64, 0xd5, 0x0a, 0x19, 0x02, 0x00],
        &[0x0f, 0x21, 0x1c, 0x64],
        &[0x01, 0x01, 0x22, 0x0a],
        &[0x12, 0x40, 0x0f, 0xcc, 0x0f, 0x21, 0x02, 0x18],
        &[0x00, 0x00, 0x81, 0xbf],
    ]
    .concat();
    let (a, b) = (0x7f80_0001u32, 0xffa0_0002u32); // two signaling NaNs
    let (qa, qb) = (a | 0x0040_0000, b | 0x0040_0000);
    let (one, two) = (1.0f32.to_bits(), 2.0f32.to_bits());
    for (gpu, size, code) in [(Gpu::Gfx900, 64, &gfx9), (Gpu::Gfx1030, 32, &gfx10)] {
        let w = run(gpu, size, code, |w| {
            for l in 0..64 {
                let (x, y) = [(a, b), (one, b), (a, two), (one, two)][l % 4];
                w.vgpr[0][l] = x;
                w.vgpr[1][l] = y;
                w.vgpr[6][l] = f32::INFINITY.to_bits();
                w.vgpr[7][l] = f32::INFINITY.to_bits();
                w.vgpr[10][l] = 1;
                w.vgpr[11][l] = 0x7ff0_0000;
                w.vgpr[12][l] = 2;
                w.vgpr[13][l] = 0xfff4_0000;
                w.vgpr[14][l] = 0xabcd_0000;
                w.vgpr[15][l] = 0x3c00_7c01; // 1.0 : sNaN
                w.vgpr[16][l] = 0xfd03_fd02; // sNaN : sNaN
            }
        })
        .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for l in 0..size as usize {
            let (add, mul, fma, subrev) = match l % 4 {
                0 => (qa, qb, qb, qb),
                1 => (qb, qb, qb, qb),
                2 => (qa, qa, qa, qa),
                _ => (
                    3.0f32.to_bits(),
                    2.0f32.to_bits(),
                    3.0f32.to_bits(),
                    (-1.0f32).to_bits(),
                ),
            };
            assert_eq!(w.vgpr[2][l], add, "{gpu} v_add_f32 lane {l}");
            assert_eq!(w.vgpr[3][l], mul, "{gpu} v_mul_f32 lane {l}");
            assert_eq!(w.vgpr[4][l], fma, "{gpu} v_fma_f32 lane {l}");
            assert_eq!(w.vgpr[17][l], subrev, "{gpu} v_subrev_f32 lane {l}");
            assert_eq!(w.vgpr[5][l], 0xffc0_0000, "{gpu} inf - inf");
            assert_eq!(
                (w.vgpr[8][l], w.vgpr[9][l]),
                (1, 0x7ff8_0000),
                "{gpu} v_add_f64"
            );
            let high = if gpu == Gpu::Gfx1030 { 0xabcd_0000 } else { 0 };
            assert_eq!(w.vgpr[14][l], high | 0x7e01, "{gpu} v_add_f16");
            assert_eq!(w.vgpr[18][l], 0xff03_7e01, "{gpu} v_pk_add_f16");
        }
    }
}

/// CLRX's V_EXP_LEGACY_F32 (`doc/GcnInstrsVop1.md`, reverse-engineered from
/// the hardware; no AMD guide has pseudo-code for it): "for values smaller
/// than -126.0 always returns 0 regardless floatmode",
/// `if (SRC0 >= -126.0) VDST = APPROX_POW2(SRC0) else VDST = 0.0`. CLRX's
/// description speaks of values below -126 only, so a NaN gives a NaN, as
/// `v_exp_f32` does; the power is the host's `exp2`, as for `v_exp_f32`.
fn exp_legacy_ref(x: f32) -> f32 {
    if x >= -126.0 || x.is_nan() {
        x.exp2()
    } else {
        0.0
    }
}

/// CLRX's V_LOG_LEGACY_F32: "If SRC0 is negative then store -NaN to VDST.
/// This instruction doesn't handle denormalized values regardless FLOAT MODE
/// register setup", `if (F==1.0) VDST = 0.0f; if (F<0.0) VDST = -NaN else
/// VDST = APPROX_LOG2(F)`; a denormal read as the zero of its sign, -NaN the
/// quiet `0xffc00000`, the logarithm the host's `log2` as for `v_log_f32`.
fn log_legacy_ref(x: f32) -> f32 {
    let f = if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    };
    if f == 1.0 {
        0.0
    } else if f < 0.0 {
        f32::from_bits(0xffc0_0000)
    } else {
        f.log2()
    }
}

/// `v_exp_legacy_f32` and `v_log_legacy_f32` (GFX9 VOP1, VOP3 with input
/// and output modifiers, SDWA with clamp, DPP) by CLRX's rules
/// ([`exp_legacy_ref`], [`log_legacy_ref`]), next to `v_exp_f32` and
/// `v_log_f32` where they differ (MODE keeps denormals here): -126.5 and
/// -149 give +0 instead of a denormal, a denormal input gives -inf instead
/// of its logarithm.
#[test]
fn gfx9_exp_and_log_legacy_follow_clrx() {
    let code: Vec<u8> = [
        &[0x00, 0x97, 0x02, 0x7e][..], // v_exp_legacy_f32_e32 v1, v0
        &[0x00, 0x99, 0x04, 0x7e],     // v_log_legacy_f32_e32 v2, v0
        &[0x03, 0x00, 0x8b, 0xd1, 0x00, 0x01, 0x00, 0x28], // v_exp_legacy_f32_e64 v3, -v0 mul:2
        &[0x04, 0x01, 0x8c, 0xd1, 0x00, 0x01, 0x00, 0x18], // v_log_legacy_f32_e64 v4, |v0| div:2
        &[0xf9, 0x96, 0x0a, 0x7e, 0x00, 0x26, 0x06, 0x00], // v_exp_legacy_f32_sdwa v5, v0 clamp dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD
        &[0xfa, 0x98, 0x0c, 0x7e, 0x00, 0xb1, 0x00, 0xff], // v_log_legacy_f32_dpp v6, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
        &[0x00, 0x41, 0x0e, 0x7e],                         // v_exp_f32_e32 v7, v0
        &[0x00, 0x43, 0x10, 0x7e],                         // v_log_f32_e32 v8, v0
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let neg_nan = 0xffc0_0000u32;
    let nan = f32::NAN.to_bits();
    let inf = f32::INFINITY.to_bits();
    let ninf = f32::NEG_INFINITY.to_bits();
    let b = |x: f32| x.to_bits();
    // (input, v_exp_legacy_f32, v_log_legacy_f32), from CLRX's rules.
    let table: [(u32, u32, u32); 17] = [
        (b(4.0), b(16.0), b(2.0)),
        (b(1.0), b(2.0), 0),                        // log(1) = +0
        (b(0.0), b(1.0), ninf),                     // log2(+0)
        (b(-0.0), b(1.0), ninf),                    // -0 is not below 0
        (b(-1.0), b(0.5), neg_nan),                 // negative: -NaN
        (b(8.0), b(256.0), b(3.0)),                 //
        (b(-126.0), b(f32::MIN_POSITIVE), neg_nan), // -126 is not below -126
        (b(-126.5), 0, neg_nan),                    // below -126: +0
        (b(-149.0), 0, neg_nan),                    // below -126: +0
        (ninf, 0, neg_nan),                         //
        (inf, inf, inf),                            //
        (nan, nan, nan),                            // NaN as v_exp_f32 / v_log_f32
        (b(128.0), inf, b(7.0)),                    // 2^128 overflows
        (1, b(1.0), ninf),                          // denormal 2^-149: read as +0
        (0x8000_0001, b(1.0), ninf),                // -2^-149: read as -0
        (b(f32::MIN_POSITIVE), b(1.0), b(-126.0)),  //
        (b(-125.0), b(f32::powi(2.0, -125)), neg_nan),
    ];
    let x = |l: usize| table[l % table.len()].0;
    for &(x, e, g) in &table {
        let (xf, ef, gf) = (f32::from_bits(x), f32::from_bits(e), f32::from_bits(g));
        assert!(same_f32(exp_legacy_ref(xf).to_bits(), ef), "exp ref {xf}");
        assert!(same_f32(log_legacy_ref(xf).to_bits(), gf), "log ref {xf}");
    }
    for gpu in [Gpu::Gfx900, Gpu::Gfx90a] {
        let exec: u64 = !(1 << 5 | 1 << 33);
        let w = run(gpu, 64, &code, |w| {
            w.exec = Mask(exec);
            for l in 0..64 {
                w.vgpr[0][l] = x(l);
                for r in 1..=8 {
                    w.vgpr[r][l] = 0xdead_0000 + r as u32;
                }
            }
        })
        .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for l in 0..64 {
            let keep = |r: usize| 0xdead_0000 + r as u32;
            if (exec >> l) & 1 == 0 {
                for r in 1..=8 {
                    assert_eq!(w.vgpr[r][l], keep(r), "{gpu} inactive lane {l} v{r}");
                }
                continue;
            }
            let (_, e, g) = table[l % table.len()];
            let xf = f32::from_bits(x(l));
            let ctx = format!("{gpu} lane {l} x = {xf:e} ({:#x})", x(l));
            assert!(
                same_f32(w.vgpr[1][l], f32::from_bits(e)),
                "v_exp_legacy_f32 {ctx}: {:#x}",
                w.vgpr[1][l]
            );
            assert!(
                same_f32(w.vgpr[2][l], f32::from_bits(g)),
                "v_log_legacy_f32 {ctx}: {:#x}",
                w.vgpr[2][l]
            );
            // VOP3: -x in, result times 2; |x| in, result halved.
            assert!(
                same_f32(w.vgpr[3][l], 2.0 * exp_legacy_ref(-xf)),
                "v_exp_legacy_f32 -x mul:2 {ctx}"
            );
            assert!(
                same_f32(w.vgpr[4][l], 0.5 * log_legacy_ref(xf.abs())),
                "v_log_legacy_f32 |x| div:2 {ctx}"
            );
            // SDWA clamp: to [0, 1], a NaN to 0.
            let e = exp_legacy_ref(xf);
            let clamped = if e.is_nan() { 0.0 } else { e.clamp(0.0, 1.0) };
            assert_eq!(w.vgpr[5][l], clamped.to_bits(), "sdwa clamp {ctx}");
            // DPP: lane l reads lane l ^ 1; from an inactive lane, no write.
            let s = l ^ 1;
            if (exec >> s) & 1 == 0 {
                assert_eq!(w.vgpr[6][l], keep(6), "dpp {ctx}");
            } else {
                assert!(
                    same_f32(w.vgpr[6][l], log_legacy_ref(f32::from_bits(x(s)))),
                    "dpp {ctx}"
                );
            }
        }
        // Where v_exp_f32 / v_log_f32 differ (MODE keeps f32 denormals).
        let lane = |v: u32| {
            (0..64)
                .find(|&l| x(l) == v && (exec >> l) & 1 != 0)
                .unwrap()
        };
        let l = lane(b(-126.5));
        assert!(
            w.vgpr[7][l] != 0 && f32::from_bits(w.vgpr[7][l]).is_subnormal(),
            "{gpu}: v_exp_f32(-126.5) is a denormal"
        );
        assert_eq!(w.vgpr[7][lane(b(-149.0))], 1, "{gpu}: v_exp_f32(-149)");
        assert_eq!(
            f32::from_bits(w.vgpr[8][lane(1)]),
            -149.0,
            "{gpu}: v_log_f32(2^-149)"
        );
    }
}

/// CLRX's V_MULLIT_F32 (`doc/GcnInstrsVop3.md`, reverse-engineered; the
/// RDNA guide says only "0.0 * x = 0.0 and alternate INF, NAN, overflow rules
/// apply", and the alternate rules are documented nowhere), as written there:
///
/// ```text
/// VDST = -MAX_FLOAT
/// if (SRC2 > 0.0 && !ISNAN(SRC2)) { VDST = 0.0; if (SRC0 != 0.0 && SRC1 != 0.0) VDST = SRC0 * SRC1 }
/// ```
fn mullit_ref(s0: f32, s1: f32, s2: f32) -> f32 {
    let mut vdst = -f32::MAX;
    if s2 > 0.0 && !s2.is_nan() {
        vdst = 0.0;
        if s0 != 0.0 && s1 != 0.0 {
            vdst = s0 * s1;
        }
    }
    vdst
}

/// `v_mullit_f32` (GFX10 VOP3) by CLRX's pseudo-code ([`mullit_ref`]), with
/// the VOP3 input modifiers, omod and clamp, and MODE's f32 input denormal
/// flushing.
#[test]
fn gfx10_mullit_follows_clrx() {
    let code: Vec<u8> = [
        &[0x03, 0x00, 0x50, 0xd5, 0x00, 0x03, 0x0a, 0x04][..], // v_mullit_f32 v3, v0, v1, v2
        &[0x04, 0x02, 0x50, 0xd5, 0x00, 0x03, 0x0a, 0x2c], // v_mullit_f32 v4, -v0, |v1|, v2 mul:2
        &[0x05, 0x80, 0x50, 0xd5, 0x00, 0x03, 0x0a, 0x84], // v_mullit_f32 v5, v0, v1, -v2 clamp
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let max = -f32::MAX;
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let snan = f32::from_bits(0x7fa0_0000);
    let tiny = f32::from_bits(1);
    // (src0, src1, src2, v_mullit_f32 from the pseudo-code).
    let table: [(f32, f32, f32, f32); 17] = [
        (2.0, 3.0, 1.0, 6.0),
        (2.0, 3.0, 0.0, max),                          // src2 not above 0
        (2.0, 3.0, -0.0, max),                         //
        (2.0, 3.0, -1.0, max),                         //
        (2.0, 3.0, nan, max),                          // a NaN src2
        (2.0, 3.0, inf, 6.0),                          //
        (0.0, inf, 1.0, 0.0),                          // 0 * inf = +0
        (nan, 0.0, 1.0, 0.0),                          // NaN * 0 = +0
        (-0.0, 5.0, 1.0, 0.0),                         // -0 * 5 = +0
        (inf, 2.0, 1.0, inf),                          //
        (snan, 2.0, 1.0, f32::from_bits(0x7fe0_0000)), // the NaN, quietened
        (-3.0, 4.0, 0.5, -12.0),
        (f32::MAX, 2.0, 1.0, inf), // overflow: IEEE (the alternate rule is unknown)
        (-2.0, 3.0, tiny, -6.0),   // a denormal src2 is above 0 (denormals kept)
        (1.5, -0.5, f32::NEG_INFINITY, max),
        (tiny, 0.5, 1.0, 0.0), // 2^-150 rounds to +0 (ties to even)
        (-1.0, 0.25, 2.0, -0.25),
    ];
    for &(a, b, c, want) in &table {
        assert!(
            same_f32(mullit_ref(a, b, c).to_bits(), want),
            "ref {a} {b} {c}"
        );
    }
    let get = |l: usize| table[l % table.len()];
    for (gpu, size, flush) in [
        (Gpu::Gfx1030, 32, false),
        (Gpu::Gfx1010, 64, false),
        (Gpu::Gfx1030, 32, true),
    ] {
        let exec: u64 = if size == 64 { !(1 << 9) } else { 0xffff_fdff };
        let w = run(gpu, size, &code, |w| {
            w.exec = Mask(exec);
            if flush {
                // MODE.FP_DENORM: f32 denormals flushed.
                w.hwreg[1] &= !0x30;
            }
            for l in 0..64 {
                let (a, b, c, _) = get(l);
                w.vgpr[0][l] = a.to_bits();
                w.vgpr[1][l] = b.to_bits();
                w.vgpr[2][l] = c.to_bits();
                for r in 3..=5 {
                    w.vgpr[r][l] = 0xdead_0000 + r as u32;
                }
            }
        })
        .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for l in 0..size as usize {
            if (exec >> l) & 1 == 0 {
                for r in 3..=5 {
                    assert_eq!(w.vgpr[r][l], 0xdead_0000 + r as u32, "{gpu} lane {l}");
                }
                continue;
            }
            let (a, b, c, want) = get(l);
            let ctx = format!("{gpu} flush {flush} lane {l}: {a:e} {b:e} {c:e}");
            let ftz = |x: f32| {
                if flush && x.is_subnormal() {
                    0.0f32.copysign(x)
                } else {
                    x
                }
            };
            let want = if flush {
                mullit_ref(ftz(a), ftz(b), ftz(c))
            } else {
                want
            };
            assert!(
                same_f32(w.vgpr[3][l], want),
                "v3 {ctx}: {:#x}",
                w.vgpr[3][l]
            );
            let m = 2.0 * mullit_ref(ftz(-a), ftz(b.abs()), ftz(c));
            assert!(same_f32(w.vgpr[4][l], m), "v4 {ctx}: {:#x}", w.vgpr[4][l]);
            let v = mullit_ref(ftz(a), ftz(b), ftz(-c));
            let clamped = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
            assert_eq!(w.vgpr[5][l], clamped.to_bits(), "v5 {ctx}");
        }
        if flush {
            // The denormal src2 is read as +0: not above 0.
            assert_eq!(f32::from_bits(w.vgpr[3][13]), -f32::MAX, "{gpu}");
        }
    }
}

//! Conversions, packing and cube-map coordinates (`exec/valu/conv.rs`).

use super::common::*;

/// f32 inputs of [`conversions_and_cube`]: signs, zeros, ties at .5, the
/// clamping limits, NaN, infinities and a denormal.
const CVT_F32: [f32; 20] = [
    0.5,
    -0.5,
    1.0,
    -1.0,
    2.0,
    -3.0,
    0.0,
    -0.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    127.5,
    128.5,
    254.5,
    255.5,
    300.0,
    1e-40,
    0.999_999_94,
    2.5,
    -0.25,
];

/// f16 inputs (bit patterns).
const CVT_F16: [u16; 10] = [
    0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0x7e00, 0x7c00, 0x0001, 0x8000, 0x3bff,
];

/// Rounds to the nearest integer, ties to even, written out with floor.
fn rne(v: f64) -> f64 {
    let f = v.floor();
    let frac = v - f;
    if frac > 0.5 || (frac == 0.5 && f % 2.0 != 0.0) {
        f + 1.0
    } else {
        f
    }
}

/// CLRX's reading of the normalising conversions: `round(S * scale)` with
/// the product in f32, clamped to [lo, hi], NaN 0.
fn norm_ref(x: f32, scale: f32, lo: f64, hi: f64) -> u32 {
    let p = x * scale;
    if p.is_nan() {
        return 0;
    }
    let v = rne(p as f64);
    (v.max(lo).min(hi) as i64 as u32) & 0xffff
}

/// The cube-map pseudo-code of the ISA guides: `(id, ma, sc, tc)`.
fn cube_ref(x: f32, y: f32, z: f32) -> [f32; 4] {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if az >= ax && az >= ay {
        let neg = z < 0.0;
        [
            if neg { 5.0 } else { 4.0 },
            2.0 * z,
            if neg { -x } else { x },
            -y,
        ]
    } else if ay >= ax {
        let neg = y < 0.0;
        [
            if neg { 3.0 } else { 2.0 },
            2.0 * y,
            x,
            if neg { -z } else { z },
        ]
    } else {
        let neg = x < 0.0;
        [
            if neg { 1.0 } else { 0.0 },
            2.0 * x,
            if neg { z } else { -z },
            -y,
        ]
    }
}

fn conversions_and_cube(gpu: Gpu, size: u32, code: &[u8]) -> Wave {
    let n = size as usize;
    let w = run(gpu, size, code, |w| {
        w.vgpr.resize(64, [0; 64]);
        w.m0 = 1 | 4 << 16;
        for l in 0..64 {
            let i32s = [
                0,
                1,
                -1,
                32767,
                32768,
                -32768,
                -32769,
                i32::MAX,
                i32::MIN,
                12345,
            ];
            w.vgpr[1][l] = i32s[l % 10] as u32;
            w.vgpr[2][l] = i32s[(l + 3) % 10] as u32;
            w.vgpr[3][l] = CVT_F32[l % 20].to_bits();
            w.vgpr[4][l] = (l as u32 * 7) | (0xffff_fff0 * (l as u32 & 1));
            w.vgpr[5][l] = 0x1122_3344 ^ l as u32;
            w.vgpr[6][l] = CVT_F32[(l * 7 + 3) % 20].to_bits();
            // High halves that must be ignored.
            w.vgpr[7][l] = 0xabcd_0000 | CVT_F16[l % 10] as u32;
            w.vgpr[8][l] = 0x1234_0000 | CVT_F16[(l + 4) % 10] as u32;
            w.vgpr[9][l] = CVT_F32[(l * 3 + 1) % 20].to_bits();
            w.vgpr[12][l] = 0xa5a5_a5a5 ^ l as u32;
            w.vgpr[17][l] = 0x7777_0000;
            w.vgpr[18][l] = 0x8888_0000;
            for r in 30..46 {
                w.vgpr[r][l] = 0x100 * r as u32 + l as u32;
            }
        }
    })
    .expect("runs");
    let gfx10 = gpu.generation() == amdgpu_isa::Gen::Gfx10;
    for l in 0..n {
        let (s0, s1) = (w.vgpr[1][l] as i32, w.vgpr[2][l] as i32);
        let sat = |v: i32| v.clamp(-32768, 32767) as u32 & 0xffff;
        assert_eq!(
            w.vgpr[10][l],
            sat(s0) | sat(s1) << 16,
            "{gpu} v_cvt_pk_i16_i32 lane {l}"
        );
        let x = f32::from_bits(w.vgpr[3][l]);
        let sh = 8 * (w.vgpr[4][l] & 3);
        let u8v = norm_ref(x, 1.0, 0.0, 255.0);
        assert_eq!(
            w.vgpr[11][l],
            (w.vgpr[5][l] & !(0xff << sh)) | u8v << sh,
            "{gpu} v_cvt_pk_u8_f32 lane {l} ({x})"
        );
        if !gfx10 {
            let old = 0xa5a5_a5a5 ^ l as u32;
            assert_eq!(
                w.vgpr[12][l],
                (old & !(0xff << sh)) | u8v << sh,
                "pkaccum lane {l}"
            );
        }
        let y = f32::from_bits(w.vgpr[6][l]);
        let sn = |v: f32| norm_ref(v, 32767.0, -32767.0, 32767.0);
        let un = |v: f32| norm_ref(v, 65535.0, 0.0, 65535.0);
        assert_eq!(
            w.vgpr[13][l],
            sn(x) | sn(y) << 16,
            "{gpu} pknorm_i16_f32 lane {l}"
        );
        assert_eq!(
            w.vgpr[14][l],
            un(x) | un(y) << 16,
            "{gpu} pknorm_u16_f32 lane {l}"
        );
        let (h0, h1) = (
            amdgpu_sim::alu::f16_to_f32(w.vgpr[7][l] as u16),
            amdgpu_sim::alu::f16_to_f32(w.vgpr[8][l] as u16),
        );
        assert_eq!(
            w.vgpr[15][l],
            sn(h0) | sn(h1) << 16,
            "{gpu} pknorm_i16_f16 lane {l}"
        );
        assert_eq!(
            w.vgpr[16][l],
            un(h0) | un(h1) << 16,
            "{gpu} pknorm_u16_f16 lane {l}"
        );
        let hi = |v: u32| if gfx10 { v } else { 0 };
        assert_eq!(
            w.vgpr[17][l],
            hi(0x7777_0000) | sn(h0),
            "{gpu} norm_i16_f16 lane {l}"
        );
        assert_eq!(
            w.vgpr[18][l],
            hi(0x8888_0000) | un(h1),
            "{gpu} norm_u16_f16 lane {l}"
        );
        let z = f32::from_bits(w.vgpr[9][l]);
        let c = cube_ref(x, y, z);
        for (k, r) in (19..23).enumerate() {
            let got = f32::from_bits(w.vgpr[r][l]);
            // The wave's MODE keeps f32 denormals.
            let want = c[k];
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{gpu} v_cube* {k} lane {l}: ({x}, {y}, {z}) gave {got}, want {want}"
            );
        }
        if gfx10 {
            // M0[9:0] = 1 offsets the source, M0[25:16] = 4 the destination.
            assert_eq!(w.vgpr[34][l], 0x100 * 32 + l as u32, "v_movrelsd_2_b32");
            assert_eq!(
                w.vgpr[44][l],
                0x100 * 42 + l as u32,
                "v_swaprel_b32 destination"
            );
            assert_eq!(w.vgpr[42][l], 0x100 * 44 + l as u32, "v_swaprel_b32 source");
            assert_eq!(w.vgpr[30][l], 0x100 * 30 + l as u32);
        }
    }
    w
}

#[test]
fn packing_normalising_conversions_and_cube_map_coordinates() {
    let gfx9: Vec<u8> = [
        &[0x0a, 0x00, 0x98, 0xd2, 0x01, 0x05, 0x02, 0x00][..], // v_cvt_pk_i16_i32 v10, v1, v2
        &[0x0b, 0x00, 0xdd, 0xd1, 0x03, 0x09, 0x16, 0x04],     // v_cvt_pk_u8_f32 v11, v3, v4, v5
        &[0x0d, 0x00, 0x94, 0xd2, 0x03, 0x0d, 0x02, 0x00],     // v_cvt_pknorm_i16_f32 v13, v3, v6
        &[0x0e, 0x00, 0x95, 0xd2, 0x03, 0x0d, 0x02, 0x00],     // v_cvt_pknorm_u16_f32 v14, v3, v6
        &[0x0f, 0x00, 0x99, 0xd2, 0x07, 0x11, 0x02, 0x00],     // v_cvt_pknorm_i16_f16 v15, v7, v8
        &[0x10, 0x00, 0x9a, 0xd2, 0x07, 0x11, 0x02, 0x00],     // v_cvt_pknorm_u16_f16 v16, v7, v8
        &[0x07, 0x9b, 0x22, 0x7e],                             // v_cvt_norm_i16_f16_e32 v17, v7
        &[0x08, 0x9d, 0x24, 0x7e],                             // v_cvt_norm_u16_f16_e32 v18, v8
        &[0x13, 0x00, 0xc4, 0xd1, 0x03, 0x0d, 0x26, 0x04],     // v_cubeid_f32 v19, v3, v6, v9
        &[0x14, 0x00, 0xc7, 0xd1, 0x03, 0x0d, 0x26, 0x04],     // v_cubema_f32 v20, v3, v6, v9
        &[0x15, 0x00, 0xc5, 0xd1, 0x03, 0x0d, 0x26, 0x04],     // v_cubesc_f32 v21, v3, v6, v9
        &[0x16, 0x00, 0xc6, 0xd1, 0x03, 0x0d, 0x26, 0x04],     // v_cubetc_f32 v22, v3, v6, v9
        &[0x0c, 0x00, 0xf0, 0xd1, 0x03, 0x09, 0x02, 0x00],     // v_cvt_pkaccum_u8_f32 v12, v3, v4
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x0a, 0x00, 0x6b, 0xd7, 0x01, 0x05, 0x02, 0x00][..], // v_cvt_pk_i16_i32 v10, v1, v2
        &[0x0b, 0x00, 0x5e, 0xd5, 0x03, 0x09, 0x16, 0x04],     // v_cvt_pk_u8_f32 v11, v3, v4, v5
        &[0x0d, 0x00, 0x68, 0xd7, 0x03, 0x0d, 0x02, 0x00],     // v_cvt_pknorm_i16_f32 v13, v3, v6
        &[0x0e, 0x00, 0x69, 0xd7, 0x03, 0x0d, 0x02, 0x00],     // v_cvt_pknorm_u16_f32 v14, v3, v6
        &[0x0f, 0x00, 0x12, 0xd7, 0x07, 0x11, 0x02, 0x00],     // v_cvt_pknorm_i16_f16 v15, v7, v8
        &[0x10, 0x00, 0x13, 0xd7, 0x07, 0x11, 0x02, 0x00],     // v_cvt_pknorm_u16_f16 v16, v7, v8
        &[0x07, 0xc7, 0x22, 0x7e],                             // v_cvt_norm_i16_f16_e32 v17, v7
        &[0x08, 0xc9, 0x24, 0x7e],                             // v_cvt_norm_u16_f16_e32 v18, v8
        &[0x13, 0x00, 0x44, 0xd5, 0x03, 0x0d, 0x26, 0x04],     // v_cubeid_f32 v19, v3, v6, v9
        &[0x14, 0x00, 0x47, 0xd5, 0x03, 0x0d, 0x26, 0x04],     // v_cubema_f32 v20, v3, v6, v9
        &[0x15, 0x00, 0x45, 0xd5, 0x03, 0x0d, 0x26, 0x04],     // v_cubesc_f32 v21, v3, v6, v9
        &[0x16, 0x00, 0x46, 0xd5, 0x03, 0x0d, 0x26, 0x04],     // v_cubetc_f32 v22, v3, v6, v9
        &[0x1f, 0x91, 0x3c, 0x7e],                             // v_movrelsd_2_b32_e32 v30, v31
        &[0x29, 0xd1, 0x50, 0x7e],                             // v_swaprel_b32 v40, v41
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let w = conversions_and_cube(Gpu::Gfx900, 64, &gfx9);
    // Worked by hand: 0.5 * 32767 = 16383.5 ties to 16384, 0.5 * 65535 to
    // 32768; -1.0 gives -32767 (0x8001); 127.5 and 128.5 both give 128 as a
    // byte; 255.5 clamps to 255; NaN gives 0.
    assert_eq!(w.vgpr[13][0] & 0xffff, 16384);
    assert_eq!(w.vgpr[14][0] & 0xffff, 32768);
    assert_eq!(w.vgpr[13][3] & 0xffff, 0x8001);
    for (l, byte) in [
        (11, 128),
        (12, 128),
        (13, 254),
        (14, 255),
        (8, 0),
        (1, 0),
        (18, 2),
    ] {
        let sh = 8 * (w.vgpr[4][l] & 3);
        assert_eq!((w.vgpr[11][l] >> sh) & 0xff, byte, "byte of lane {l}");
    }
    // (1.0 at x; y, z from the table) and a z-major direction.
    assert_eq!(cube_ref(1.0, -5.0, 2.0), [3.0, -10.0, 1.0, -2.0]);
    conversions_and_cube(Gpu::Gfx1030, 32, &gfx10);
    conversions_and_cube(Gpu::Gfx1010, 64, &gfx10);
}

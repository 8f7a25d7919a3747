//! Dot products, plain and accumulating (`exec/dot.rs`).

use super::common::*;

/// A small f16 value k / 4 (k in -12..=12) and its bits: products and sums of
/// a few of them are exact in f32.
fn quarter16(lane: usize, salt: u32) -> (f64, u16) {
    let k = (mix(lane, salt) % 25) as i32 - 12;
    let v = k as f64 / 4.0;
    (v, amdgpu_sim::alu::f32_to_f16(v as f32))
}

/// The exact dot product of the `32 / bits` packed elements of `a` and `b`
/// plus `c`, from the ISA pseudo-code `S0[0] * S1[0] + ... + S2`.
fn dot_ref(a: u32, b: u32, c: u32, bits: u32, signed: bool) -> i64 {
    let mut sum = if signed { c as i32 as i64 } else { c as i64 };
    for k in 0..32 / bits {
        let field = |v: u32| -> i64 {
            let x = (v >> (k * bits)) & ((1u64 << bits) - 1) as u32;
            if signed && x >= 1 << (bits - 1) {
                x as i64 - (1i64 << bits)
            } else {
                x as i64
            }
        };
        sum += field(a) * field(b);
    }
    sum
}

fn saturate(v: i64, signed: bool) -> u32 {
    if signed {
        v.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
    } else {
        v.clamp(0, u32::MAX as i64) as u32
    }
}

/// Dot product inputs: v1/v2 packed f16 pairs, v3 an f32 accumulator;
/// v16/v17 random packed integers, v18 an accumulator that is near the 32-bit
/// limits in some lanes (so that clamping matters).
fn dot_inputs(w: &mut Wave) {
    for l in 0..64 {
        let (lo1, hi1) = (quarter16(l, 1).1, quarter16(l, 2).1);
        let (lo2, hi2) = (quarter16(l, 3).1, quarter16(l, 4).1);
        w.vgpr[1][l] = lo1 as u32 | (hi1 as u32) << 16;
        w.vgpr[2][l] = lo2 as u32 | (hi2 as u32) << 16;
        w.vgpr[3][l] = ((mix(l, 5) % 17) as f32 - 8.0).to_bits();
        w.vgpr[16][l] = mix(l, 6);
        w.vgpr[17][l] = mix(l, 7);
        w.vgpr[18][l] = match l % 4 {
            0 => i32::MAX as u32 - (mix(l, 8) & 0xffff),
            1 => i32::MIN as u32 + (mix(l, 8) & 0xffff),
            2 => u32::MAX - (mix(l, 8) & 0xffff),
            _ => mix(l, 8),
        };
    }
    // Lane 5: a NaN in the f16 dot product (clamped to +0), lane 6 an infinity.
    w.vgpr[1][5] = 0x7e00;
    w.vgpr[1][6] = 0x7c00;
}

fn f32_dot_ref(w: &Wave, l: usize, sel: [[bool; 2]; 2], neg: [[bool; 2]; 2]) -> f64 {
    let half = |r: usize, hi: bool, neg: bool| {
        let v = w.vgpr[r][l];
        let h = if hi { (v >> 16) as u16 } else { v as u16 };
        let x = hv(h);
        if neg { -x } else { x }
    };
    let e = |s: usize, n: usize| half(1 + s, sel[s][n], neg[s][n]);
    e(0, 0) * e(1, 0) + e(0, 1) * e(1, 1) + f32::from_bits(w.vgpr[3][l]) as f64
}

fn clamp_unit(v: f64) -> f64 {
    if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
}

fn check_vop3p_dots(gpu: Gpu, size: u32, code: &[u8]) {
    let mut input = None;
    let w = run(gpu, size, code, |w| {
        dot_inputs(w);
        input = Some(w.clone());
    })
    .unwrap_or_else(|e| panic!("{gpu}: {e}"));
    let i = input.expect("set up");
    for l in 0..size as usize {
        let plain = [[false, true], [false, true]];
        let none = [[false; 2]; 2];
        let f = f32_dot_ref(&i, l, plain, none);
        let got = |r: usize| f32::from_bits(w.vgpr[r][l]);
        if f.is_nan() {
            assert!(got(4).is_nan(), "{gpu} v_dot2_f32_f16 lane {l}: NaN");
        } else {
            assert_eq!(got(4) as f64, f, "{gpu} v_dot2_f32_f16 lane {l}");
        }
        assert_eq!(
            got(5) as f64,
            clamp_unit(f),
            "{gpu} v_dot2_f32_f16 clamp lane {l}"
        );
        // op_sel:[1,0,0] op_sel_hi:[0,1,1]: element 0 of src0 is its high
        // half, element 1 its low half; neg_lo:[1,0,0] neg_hi:[0,1,0].
        let f = f32_dot_ref(
            &i,
            l,
            [[true, false], [false, true]],
            [[true, false], [false, true]],
        );
        if !f.is_nan() {
            assert_eq!(got(6) as f64, f, "{gpu} v_dot2_f32_f16 op_sel/neg lane {l}");
        }
        let (a, b, c) = (i.vgpr[16][l], i.vgpr[17][l], i.vgpr[18][l]);
        let cases: [(usize, u32, bool, bool, &str); 12] = [
            (7, 16, true, false, "v_dot2_i32_i16"),
            (8, 16, true, true, "v_dot2_i32_i16 clamp"),
            (9, 16, false, true, "v_dot2_u32_u16 clamp"),
            (19, 16, false, false, "v_dot2_u32_u16"),
            (10, 8, true, true, "v_dot4_i32_i8 clamp"),
            (15, 8, true, false, "v_dot4_i32_i8"),
            (11, 8, false, false, "v_dot4_u32_u8"),
            (20, 8, false, true, "v_dot4_u32_u8 clamp"),
            (12, 4, true, false, "v_dot8_i32_i4"),
            (21, 4, true, true, "v_dot8_i32_i4 clamp"),
            (22, 4, false, false, "v_dot8_u32_u4"),
            (13, 4, false, true, "v_dot8_u32_u4 clamp"),
        ];
        for (r, bits, signed, clamp, what) in cases {
            let v = dot_ref(a, b, c, bits, signed);
            let want = if clamp { saturate(v, signed) } else { v as u32 };
            assert_eq!(w.vgpr[r][l], want, "{gpu} {what} lane {l}");
        }
        // op_sel:[0,1,0] op_sel_hi:[1,0,1]: src0 elements (lo, hi) read
        // (lo, hi); src1 elements read (hi, lo).
        let b_swapped = b.rotate_left(16);
        assert_eq!(
            w.vgpr[14][l],
            dot_ref(a, b_swapped, c, 16, true) as u32,
            "{gpu} v_dot2_i32_i16 op_sel lane {l}"
        );
    }
}

#[test]
fn vop3p_dot_products() {
    // Identical encodings on gfx906, gfx908 and gfx90a.
    let gfx9: Vec<u8> = [
        &[0x04, 0x40, 0xa3, 0xd3, 0x01, 0x05, 0x0e, 0x1c][..], // v_dot2_f32_f16 v4, v1, v2, v3
        &[0x05, 0xc0, 0xa3, 0xd3, 0x01, 0x05, 0x0e, 0x1c], // v_dot2_f32_f16 v5, v1, v2, v3 clamp
        &[0x06, 0x4a, 0xa3, 0xd3, 0x01, 0x05, 0x0e, 0x34], // v_dot2_f32_f16 v6, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,0] neg_hi:[0,1,0]
        &[0x07, 0x40, 0xa6, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot2_i32_i16 v7, v16, v17, v18
        &[0x08, 0xc0, 0xa6, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot2_i32_i16 v8, v16, v17, v18 clamp
        &[0x09, 0xc0, 0xa7, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot2_u32_u16 v9, v16, v17, v18 clamp
        &[0x0a, 0xc0, 0xa8, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot4_i32_i8 v10, v16, v17, v18 clamp
        &[0x0b, 0x40, 0xa9, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot4_u32_u8 v11, v16, v17, v18
        &[0x0c, 0x40, 0xaa, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot8_i32_i4 v12, v16, v17, v18
        &[0x0d, 0xc0, 0xab, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot8_u32_u4 v13, v16, v17, v18 clamp
        &[0x0e, 0x50, 0xa6, 0xd3, 0x10, 0x23, 0x4a, 0x0c], // v_dot2_i32_i16 v14, v16, v17, v18 op_sel:[0,1,0] op_sel_hi:[1,0,1]
        &[0x0f, 0x40, 0xa8, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot4_i32_i8 v15, v16, v17, v18
        &[0x13, 0x40, 0xa7, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot2_u32_u16 v19, v16, v17, v18
        &[0x14, 0xc0, 0xa9, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot4_u32_u8 v20, v16, v17, v18 clamp
        &[0x15, 0xc0, 0xaa, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot8_i32_i4 v21, v16, v17, v18 clamp
        &[0x16, 0x40, 0xab, 0xd3, 0x10, 0x23, 0x4a, 0x1c], // v_dot8_u32_u4 v22, v16, v17, v18
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    for gpu in [Gpu::Gfx906, Gpu::Gfx908, Gpu::Gfx90a] {
        check_vop3p_dots(gpu, 64, &gfx9);
    }
    let gfx1030: Vec<u8> = [
        &[0x04, 0x40, 0x13, 0xcc, 0x01, 0x05, 0x0e, 0x1c][..], // v_dot2_f32_f16 v4, v1, v2, v3
        &[0x05, 0xc0, 0x13, 0xcc, 0x01, 0x05, 0x0e, 0x1c], // v_dot2_f32_f16 v5, v1, v2, v3 clamp
        &[0x06, 0x4a, 0x13, 0xcc, 0x01, 0x05, 0x0e, 0x34], // v_dot2_f32_f16 v6, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,0] neg_hi:[0,1,0]
        &[0x07, 0x40, 0x14, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot2_i32_i16 v7, v16, v17, v18
        &[0x08, 0xc0, 0x14, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot2_i32_i16 v8, v16, v17, v18 clamp
        &[0x09, 0xc0, 0x15, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot2_u32_u16 v9, v16, v17, v18 clamp
        &[0x0a, 0xc0, 0x16, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot4_i32_i8 v10, v16, v17, v18 clamp
        &[0x0b, 0x40, 0x17, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot4_u32_u8 v11, v16, v17, v18
        &[0x0c, 0x40, 0x18, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot8_i32_i4 v12, v16, v17, v18
        &[0x0d, 0xc0, 0x19, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot8_u32_u4 v13, v16, v17, v18 clamp
        &[0x0e, 0x50, 0x14, 0xcc, 0x10, 0x23, 0x4a, 0x0c], // v_dot2_i32_i16 v14, v16, v17, v18 op_sel:[0,1,0] op_sel_hi:[1,0,1]
        &[0x0f, 0x40, 0x16, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot4_i32_i8 v15, v16, v17, v18
        &[0x13, 0x40, 0x15, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot2_u32_u16 v19, v16, v17, v18
        &[0x14, 0xc0, 0x17, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot4_u32_u8 v20, v16, v17, v18 clamp
        &[0x15, 0xc0, 0x18, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot8_i32_i4 v21, v16, v17, v18 clamp
        &[0x16, 0x40, 0x19, 0xcc, 0x10, 0x23, 0x4a, 0x1c], // v_dot8_u32_u4 v22, v16, v17, v18
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    check_vop3p_dots(Gpu::Gfx1030, 32, &gfx1030);
    check_vop3p_dots(Gpu::Gfx1030, 64, &gfx1030);
    // gfx900 and gfx1010 have no dot products: the words do not decode.
    let err = run(Gpu::Gfx900, 64, &gfx9, dot_inputs).unwrap_err();
    assert!(matches!(err, SimError::InvalidInstruction { .. }), "{err}");
    let err = run(Gpu::Gfx1010, 32, &gfx1030, dot_inputs).unwrap_err();
    assert!(matches!(err, SimError::InvalidInstruction { .. }), "{err}");
}

/// The accumulating forms `v_dot2c_f32_f16`, `v_dot4c_i32_i8` (VOP2, DPP)
/// on gfx908, gfx90a and gfx1030, and on GFX9 `v_dot2c_i32_i16`,
/// `v_dot8c_i32_i4` and the VOP3 forms with clamp.
#[test]
fn accumulating_dot_products() {
    let common = |gpu: Gpu, size: u32, code: &[u8], gfx9: bool| {
        let mut input = None;
        let w = run(gpu, size, code, |w| {
            dot_inputs(w);
            for l in 0..64 {
                // Accumulators: f32 in v4, v5, v6; integers in v7, v10..v13.
                for r in [4, 5, 6] {
                    w.vgpr[r][l] = ((mix(l, 9 + r as u32) % 9) as f32 - 4.0).to_bits();
                }
                for r in [7, 10, 11, 12, 13] {
                    w.vgpr[r][l] = w.vgpr[18][l].wrapping_add(r as u32);
                }
            }
            input = Some(w.clone());
        })
        .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        let i = input.expect("set up");
        let n = size as usize;
        for l in 0..n {
            let f16dot = |src: usize, acc: usize| {
                let (a, b) = (i.vgpr[1][src], i.vgpr[2][l]);
                let h = |v: u32, k: u32| hv((v >> (16 * k)) as u16);
                h(a, 0) * h(b, 0) + h(a, 1) * h(b, 1) + f32::from_bits(i.vgpr[acc][l]) as f64
            };
            let got = |r: usize| f32::from_bits(w.vgpr[r][l]) as f64;
            let f = f16dot(l, 4);
            if f.is_nan() {
                assert!(got(4).is_nan(), "{gpu} v_dot2c_f32_f16 lane {l}");
            } else {
                assert_eq!(got(4), f, "{gpu} v_dot2c_f32_f16 lane {l}");
            }
            // quad_perm:[1,0,3,2]: src0 from the neighbouring lane.
            let f = f16dot(l ^ 1, 5);
            if !f.is_nan() {
                assert_eq!(got(5), f, "{gpu} v_dot2c_f32_f16_dpp lane {l}");
            }
            let (a, b) = (i.vgpr[16][l], i.vgpr[17][l]);
            let wrap = |a, acc: usize, bits| dot_ref(a, b, i.vgpr[acc][l], bits, true) as u32;
            assert_eq!(
                w.vgpr[10][l],
                wrap(a, 10, 8),
                "{gpu} v_dot4c_i32_i8 lane {l}"
            );
            // row_shr:1: lane 0 of each row has no source and is not written.
            let want = if l % 16 == 0 {
                i.vgpr[11][l]
            } else {
                wrap(i.vgpr[16][l - 1], 11, 8)
            };
            assert_eq!(w.vgpr[11][l], want, "{gpu} v_dot4c_i32_i8_dpp lane {l}");
            if gfx9 {
                assert_eq!(
                    w.vgpr[12][l],
                    wrap(a, 12, 4),
                    "{gpu} v_dot8c_i32_i4 lane {l}"
                );
                assert_eq!(
                    w.vgpr[7][l],
                    wrap(a, 7, 16),
                    "{gpu} v_dot2c_i32_i16 lane {l}"
                );
                let f = f16dot(l, 6);
                assert_eq!(
                    got(6),
                    clamp_unit(f),
                    "{gpu} v_dot2c_f32_f16_e64 clamp lane {l}"
                );
                let v = dot_ref(a, b, i.vgpr[13][l], 8, true);
                assert_eq!(
                    w.vgpr[13][l],
                    saturate(v, true),
                    "{gpu} v_dot4c_i32_i8_e64 clamp lane {l}"
                );
            }
        }
    };
    let gfx9: Vec<u8> = [
        &[0x01, 0x05, 0x08, 0x6e][..], // v_dot2c_f32_f16_e32 v4, v1, v2
        &[0x10, 0x23, 0x14, 0x72],     // v_dot4c_i32_i8_e32 v10, v16, v17
        &[0xfa, 0x04, 0x0a, 0x6e, 0x01, 0xb1, 0x00, 0xff], // v_dot2c_f32_f16_dpp v5, v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
        &[0xfa, 0x22, 0x16, 0x72, 0x10, 0x11, 0x01, 0xff], // v_dot4c_i32_i8_dpp v11, v16, v17 row_shr:1 row_mask:0xf bank_mask:0xf
        &[0x10, 0x23, 0x18, 0x74],                         // v_dot8c_i32_i4_e32 v12, v16, v17
        &[0x10, 0x23, 0x0e, 0x70],                         // v_dot2c_i32_i16_e32 v7, v16, v17
        &[0x06, 0x80, 0x37, 0xd1, 0x01, 0x05, 0x02, 0x00], // v_dot2c_f32_f16_e64 v6, v1, v2 clamp
        &[0x0d, 0x80, 0x39, 0xd1, 0x10, 0x23, 0x02, 0x00], // v_dot4c_i32_i8_e64 v13, v16, v17 clamp
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    common(Gpu::Gfx908, 64, &gfx9, true);
    common(Gpu::Gfx90a, 64, &gfx9, true);
    let gfx1030: Vec<u8> = [
        &[0x01, 0x05, 0x08, 0x04][..], // v_dot2c_f32_f16 v4, v1, v2
        &[0x10, 0x23, 0x14, 0x1a],     // v_dot4c_i32_i8 v10, v16, v17
        &[0xfa, 0x04, 0x0a, 0x04, 0x01, 0xb1, 0x00, 0xff], // v_dot2c_f32_f16_dpp v5, v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
        &[0xfa, 0x22, 0x16, 0x1a, 0x10, 0x11, 0x01, 0xff], // v_dot4c_i32_i8_dpp v11, v16, v17 row_shr:1 row_mask:0xf bank_mask:0xf
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    common(Gpu::Gfx1030, 32, &gfx1030, false);
    common(Gpu::Gfx1030, 64, &gfx1030, false);
    // VOP3 negation of a packed source has no pseudo-code: reported.
    let code = [
        0x00, 0x00, 0x37, 0xd1, 0x01, 0x05, 0x02, 0x20, // v_dot2c_f32_f16_e64 v0, -v1, v2
        0x00, 0x00, 0x81, 0xbf,
    ];
    let err = run(Gpu::Gfx908, 64, &code, |_| {}).unwrap_err();
    assert!(
        matches!(&err, SimError::Unsupported { what, .. } if what.contains("v_dot")),
        "{err}"
    );
}

//! f16 arithmetic and its limits (`exec/valu/fp16.rs`).

use super::common::*;

/// Rounds to f16; a NaN produced from non-NaN inputs is 0xfe00 (the value
/// the guides give V_DIV_FIXUP_F16 for 0/0).
fn rnd16(v: f64) -> u16 {
    if v.is_nan() {
        0xfe00
    } else {
        amdgpu_sim::alu::f64_to_f16(v)
    }
}

/// frexp by halving and doubling: x = m * 2^e with |m| in [0.5, 1).
fn frexp_ref(x: f64) -> (f64, i32) {
    let (mut m, mut e) = (x, 0);
    while m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    (m, e)
}

/// The Vega ISA pseudo-code of the f16 VOP1/VOP2/VOP3 operations, in f64
/// (exact, or one rounding from a value within 2^-50 of the exact one).
fn half_ref(op: &str, h: u16, s1: u32, s2: u16) -> u16 {
    if is_nan16(h) && !matches!(op, "frexp_mant" | "frexp_exp" | "div_fixup") {
        return h | 0x200;
    }
    let x = hv(h);
    let tau = std::f64::consts::TAU;
    match op {
        "sqrt" => rnd16(x.sqrt()),
        "rcp" => rnd16(1.0 / x),
        "rsq" => rnd16(1.0 / x.sqrt()),
        "exp" => rnd16(x.exp2()),
        "log" => rnd16(x.log2()),
        "fract" => {
            if x.is_infinite() {
                return 0xfe00;
            }
            rnd16(x - x.floor()).min(0x3bff)
        }
        "floor" => rnd16(x.floor()),
        "ceil" => rnd16(x.ceil()),
        "trunc" => rnd16(x.trunc()),
        "rndne" => rnd16(x.round_ties_even()),
        "frexp_mant" | "frexp_exp" => {
            let special = !x.is_finite() || x == 0.0;
            match (op, special) {
                ("frexp_mant", true) => h,
                ("frexp_exp", true) => 0,
                ("frexp_mant", false) => rnd16(frexp_ref(x).0),
                _ => frexp_ref(x).1 as i16 as u16,
            }
        }
        "ldexp" => rnd16(x * f64::powi(2.0, s1 as u16 as i16 as i32)),
        "sin" => rnd16((tau * x).sin()),
        "cos" => rnd16((tau * x).cos()),
        // V_DIV_FIXUP_F16 with S0 = h (quotient), S1 = s1, S2 = s2.
        _ => {
            let (d, n) = (s1 as u16, s2);
            let sign = (d ^ n) & 0x8000;
            let (dv, nv) = (hv(d), hv(n));
            if is_nan16(n) {
                n | 0x200
            } else if is_nan16(d) {
                d | 0x200
            } else if dv == 0.0 && nv == 0.0 || dv.is_infinite() && nv.is_infinite() {
                0xfe00
            } else if dv == 0.0 || nv.is_infinite() {
                sign | 0x7c00
            } else if dv.is_infinite() || nv == 0.0 {
                sign
            } else {
                sign | (h & 0x7fff)
            }
        }
    }
}

/// The f16 operations (VOP1, VOP2, VOP3 with modifiers, SDWA), on every
/// interesting input including NaNs, infinities, denormals and -0, checked
/// against [`half_ref`]; GFX9 zeroes the high half of the destination, GFX10
/// keeps it (LLVM's `zeroesHigh16BitsOfDest`); inactive lanes keep their
/// registers. (Before: all reported as unimplemented.)
fn half_ops(gpu: Gpu, size: u32, code: &[u8]) {
    let gfx10 = gpu.generation() == amdgpu_isa::Gen::Gfx10;
    let exec = if size == 64 {
        !(1u64 << 9 | 1 << 45)
    } else {
        !(1u64 << 9) & 0xffff_ffff
    };
    // sin/cos inputs in [-1, 1] away from the zeros of the result.
    let trig = |l: usize| -> u16 {
        let x = ((l % 32) as f64 * 0.061 - 0.97) * if l % 2 == 0 { 1.0 } else { -1.0 };
        let h = amdgpu_sim::alu::f64_to_f16(x);
        if (4.0 * hv(h)).fract() == 0.0 {
            0x2e66
        } else {
            h
        }
    };
    let w = run(gpu, size, code, |w| {
        w.exec = Mask(exec);
        for l in 0..64 {
            let h = HALVES[l % 32];
            w.vgpr[0][l] = h as u32 | (HALVES[(l + 7) % 32] as u32) << 16;
            w.vgpr[1][l] = ((l as i32 % 41) - 20) as u32;
            w.vgpr[2][l] = trig(l) as u32;
            w.vgpr[3][l] = HALVES[(l + 3) % 32] as u32;
            w.vgpr[4][l] = HALVES[(l * 5 + 1) % 32] as u32;
            w.vgpr[5][l] = [0x4400, 0x4080, 0x3400, 0x0010, 0x7c00, 0][l % 6];
            for r in 10..30 {
                w.vgpr[r][l] = 0xabcd_0000 | r as u32;
            }
        }
    })
    .expect("runs");
    let ops = [
        (10, "sqrt"),
        (11, "rcp"),
        (12, "rsq"),
        (13, "exp"),
        (14, "log"),
        (15, "fract"),
        (16, "floor"),
        (17, "ceil"),
        (18, "trunc"),
        (19, "rndne"),
        (20, "frexp_mant"),
        (21, "frexp_exp"),
        (22, "ldexp"),
        (23, "sin"),
        (24, "cos"),
        (25, "div_fixup"),
    ];
    for l in 0..size as usize {
        let high = if gfx10 { 0xabcd_0000 } else { 0 };
        let active = (exec >> l) & 1 != 0;
        let x = w.vgpr[0][l] as u16;
        for (r, op) in ops {
            let want = if !active {
                0xabcd_0000 | r as u32
            } else {
                let v = match op {
                    "ldexp" => half_ref(op, x, w.vgpr[1][l], 0),
                    "sin" | "cos" => half_ref(op, w.vgpr[2][l] as u16, 0, 0),
                    "div_fixup" => half_ref(op, w.vgpr[3][l] as u16, w.vgpr[4][l], x),
                    _ => half_ref(op, x, 0, 0),
                };
                high | v as u32
            };
            assert_eq!(
                w.vgpr[r][l], want,
                "{gpu} wave{size} lane {l} v_{op}_f16({x:#06x})"
            );
        }
        if !active {
            continue;
        }
        // sqrt(v5) * 2 (the square roots are exact).
        let s = w.vgpr[5][l] as u16;
        assert_eq!(
            w.vgpr[26][l],
            high | rnd16(2.0 * hv(s).sqrt()) as u32,
            "mul:2 lane {l}"
        );
        // rcp(-|x|): the modifiers act on the sign bit, of a NaN too.
        let nx = x & 0x7fff | 0x8000;
        assert_eq!(
            w.vgpr[27][l],
            high | half_ref("rcp", nx, 0, 0) as u32,
            "-|x| lane {l}"
        );
        // fract(x) clamped to [0, 1]: a NaN becomes 0.
        let f = half_ref("fract", x, 0, 0);
        let c = if is_nan16(f) { 0 } else { f };
        assert_eq!(w.vgpr[28][l], high | c as u32, "clamp lane {l}");
        // SDWA: sqrt of the high half into the high half, the low half kept.
        let hi = (w.vgpr[0][l] >> 16) as u16;
        assert_eq!(
            w.vgpr[29][l],
            (half_ref("sqrt", hi, 0, 0) as u32) << 16 | 29,
            "sdwa lane {l}"
        );
    }
}

#[test]
fn gfx9_half_precision_operations() {
    let code: Vec<u8> = [
        &[0x00, 0x7d, 0x14, 0x7e][..], // v_sqrt_f16_e32 v10, v0
        &[0x00, 0x7b, 0x16, 0x7e],     // v_rcp_f16_e32 v11, v0
        &[0x00, 0x7f, 0x18, 0x7e],     // v_rsq_f16_e32 v12, v0
        &[0x00, 0x83, 0x1a, 0x7e],     // v_exp_f16_e32 v13, v0
        &[0x00, 0x81, 0x1c, 0x7e],     // v_log_f16_e32 v14, v0
        &[0x00, 0x91, 0x1e, 0x7e],     // v_fract_f16_e32 v15, v0
        &[0x00, 0x89, 0x20, 0x7e],     // v_floor_f16_e32 v16, v0
        &[0x00, 0x8b, 0x22, 0x7e],     // v_ceil_f16_e32 v17, v0
        &[0x00, 0x8d, 0x24, 0x7e],     // v_trunc_f16_e32 v18, v0
        &[0x00, 0x8f, 0x26, 0x7e],     // v_rndne_f16_e32 v19, v0
        &[0x00, 0x85, 0x28, 0x7e],     // v_frexp_mant_f16_e32 v20, v0
        &[0x00, 0x87, 0x2a, 0x7e],     // v_frexp_exp_i16_f16_e32 v21, v0
        &[0x00, 0x03, 0x2c, 0x66],     // v_ldexp_f16_e32 v22, v0, v1
        &[0x02, 0x93, 0x2e, 0x7e],     // v_sin_f16_e32 v23, v2
        &[0x02, 0x95, 0x30, 0x7e],     // v_cos_f16_e32 v24, v2
        &[0x19, 0x00, 0x07, 0xd2, 0x03, 0x09, 0x02, 0x04], // v_div_fixup_f16 v25, v3, v4, v0
        &[0x1a, 0x00, 0x7e, 0xd1, 0x05, 0x01, 0x00, 0x08], // v_sqrt_f16_e64 v26, v5 mul:2
        &[0x1b, 0x01, 0x7d, 0xd1, 0x00, 0x01, 0x00, 0x20], // v_rcp_f16_e64 v27, -|v0|
        &[0x1c, 0x80, 0x88, 0xd1, 0x00, 0x01, 0x00, 0x00], // v_fract_f16_e64 v28, v0 clamp
        &[0xf9, 0x7c, 0x3a, 0x7e, 0x00, 0x15, 0x05, 0x00], // v_sqrt_f16_sdwa v29, v0 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    half_ops(Gpu::Gfx900, 64, &code);
}

#[test]
fn gfx10_half_precision_operations() {
    let code: Vec<u8> = [
        &[0x00, 0xab, 0x14, 0x7e][..], // v_sqrt_f16_e32 v10, v0
        &[0x00, 0xa9, 0x16, 0x7e],     // v_rcp_f16_e32 v11, v0
        &[0x00, 0xad, 0x18, 0x7e],     // v_rsq_f16_e32 v12, v0
        &[0x00, 0xb1, 0x1a, 0x7e],     // v_exp_f16_e32 v13, v0
        &[0x00, 0xaf, 0x1c, 0x7e],     // v_log_f16_e32 v14, v0
        &[0x00, 0xbf, 0x1e, 0x7e],     // v_fract_f16_e32 v15, v0
        &[0x00, 0xb7, 0x20, 0x7e],     // v_floor_f16_e32 v16, v0
        &[0x00, 0xb9, 0x22, 0x7e],     // v_ceil_f16_e32 v17, v0
        &[0x00, 0xbb, 0x24, 0x7e],     // v_trunc_f16_e32 v18, v0
        &[0x00, 0xbd, 0x26, 0x7e],     // v_rndne_f16_e32 v19, v0
        &[0x00, 0xb3, 0x28, 0x7e],     // v_frexp_mant_f16_e32 v20, v0
        &[0x00, 0xb5, 0x2a, 0x7e],     // v_frexp_exp_i16_f16_e32 v21, v0
        &[0x00, 0x03, 0x2c, 0x76],     // v_ldexp_f16_e32 v22, v0, v1
        &[0x02, 0xc1, 0x2e, 0x7e],     // v_sin_f16_e32 v23, v2
        &[0x02, 0xc3, 0x30, 0x7e],     // v_cos_f16_e32 v24, v2
        &[0x19, 0x00, 0x5f, 0xd7, 0x03, 0x09, 0x02, 0x04], // v_div_fixup_f16 v25, v3, v4, v0
        &[0x1a, 0x00, 0xd5, 0xd5, 0x05, 0x01, 0x00, 0x08], // v_sqrt_f16_e64 v26, v5 mul:2
        &[0x1b, 0x01, 0xd4, 0xd5, 0x00, 0x01, 0x00, 0x20], // v_rcp_f16_e64 v27, -|v0|
        &[0x1c, 0x80, 0xdf, 0xd5, 0x00, 0x01, 0x00, 0x00], // v_fract_f16_e64 v28, v0 clamp
        &[0xf9, 0xaa, 0x3a, 0x7e, 0x00, 0x15, 0x05, 0x00], // v_sqrt_f16_sdwa v29, v0 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    half_ops(Gpu::Gfx1030, 32, &code);
    half_ops(Gpu::Gfx1030, 64, &code);
}

/// What the f16 operations do not model is reported: `v_sin_f16` outside
/// [-256, 256] and on an exact zero of unspecified sign, an output modifier
/// that would round (2^15.5 * 2 overflows), and f16 denormal flushing in
/// MODE.
#[test]
fn half_precision_limits_are_reported() {
    let unsupported = |code: &[u8], x: u16| {
        let err = run(Gpu::Gfx900, 64, code, |w| {
            for l in 0..64 {
                w.vgpr[0][l] = 0x3000;
                w.vgpr[2][l] = 0x3000;
            }
            w.vgpr[0][17] = x as u32;
            w.vgpr[2][17] = x as u32;
        })
        .unwrap_err();
        match err {
            SimError::Unsupported { what, at } => (what, at.pc),
            other => panic!("{other}"),
        }
    };
    let sin: Vec<u8> = [
        &[0x02, 0x93, 0x2e, 0x7e][..], // v_sin_f16_e32 v23, v2
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    assert!(
        unsupported(&sin, 0x5c04).0.contains("v_sin_f16"),
        "sin(257.0)"
    );
    assert!(unsupported(&sin, 0x3800).0.contains("v_sin_f16"), "sin(pi)");
    let omod: Vec<u8> = [
        &[0x1b, 0x00, 0x81, 0xd1, 0x00, 0x01, 0x00, 0x08][..], // v_exp_f16_e64 v27, v0 mul:2
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    assert!(
        unsupported(&omod, 0x4bc0).0.contains("output modifier"),
        "2^15.5 * 2"
    );
    let mode: Vec<u8> = [
        &[0x81, 0x09, 0x00, 0xba, 0x00, 0x00, 0x00, 0x00][..], // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 6, 2), 0
        &[0x00, 0x7d, 0x14, 0x7e],                             // v_sqrt_f16_e32 v10, v0
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let (what, pc) = unsupported(&mode, 0x3c00);
    assert!(what.contains("FP_DENORM"), "{what}");
    assert_eq!(pc, BASE + 8);
}

/// The 16-bit three-operand forms (`v_max3/min3/med3` for f16, i16, u16,
/// `op_sel` choosing source halves) and `v_cmp_class_f16` (f16 denormals
/// classed as denormals). (Before: unimplemented.)
#[test]
fn three_operand_16_bit_and_class_f16() {
    let gfx9: Vec<u8> = [
        &[0x05, 0x00, 0xf7, 0xd1, 0x00, 0x03, 0x0a, 0x04][..], // v_max3_f16 v5, v0, v1, v2
        &[0x06, 0x00, 0xf4, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_min3_f16 v6, v0, v1, v2
        &[0x07, 0x00, 0xfa, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_med3_f16 v7, v0, v1, v2
        &[0x08, 0x00, 0xf8, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_max3_i16 v8, v0, v1, v2
        &[0x09, 0x00, 0xf6, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_min3_u16 v9, v0, v1, v2
        &[0x0a, 0x00, 0xfb, 0xd1, 0x00, 0x03, 0x0a, 0x04],     // v_med3_i16 v10, v0, v1, v2
        &[0x0b, 0x28, 0xfc, 0xd1, 0x00, 0x03, 0x0a, 0x04], // v_med3_u16 v11, v0, v1, v2 op_sel:[1,0,1,0]
        &[0x00, 0x07, 0x28, 0x7c],                         // v_cmp_class_f16_e32 vcc, v0, v3
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x05, 0x00, 0x54, 0xd7, 0x00, 0x03, 0x0a, 0x04][..], // v_max3_f16 v5, v0, v1, v2
        &[0x06, 0x00, 0x51, 0xd7, 0x00, 0x03, 0x0a, 0x04],     // v_min3_f16 v6, v0, v1, v2
        &[0x07, 0x00, 0x57, 0xd7, 0x00, 0x03, 0x0a, 0x04],     // v_med3_f16 v7, v0, v1, v2
        &[0x08, 0x00, 0x55, 0xd7, 0x00, 0x03, 0x0a, 0x04],     // v_max3_i16 v8, v0, v1, v2
        &[0x09, 0x00, 0x53, 0xd7, 0x00, 0x03, 0x0a, 0x04],     // v_min3_u16 v9, v0, v1, v2
        &[0x0a, 0x00, 0x58, 0xd7, 0x00, 0x03, 0x0a, 0x04],     // v_med3_i16 v10, v0, v1, v2
        &[0x0b, 0x28, 0x59, 0xd7, 0x00, 0x03, 0x0a, 0x04], // v_med3_u16 v11, v0, v1, v2 op_sel:[1,0,1,0]
        &[0x00, 0x07, 0x1e, 0x7d],                         // v_cmp_class_f16_e32 vcc_lo, v0, v3
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let f = |h: u32| amdgpu_sim::alu::f16_to_f32(h as u16);
    // IEEE minNum/maxNum: a NaN operand gives the other one.
    let maxn = |a: f32, b: f32| {
        if a.is_nan() {
            b
        } else if b.is_nan() || a > b || a == b && b.is_sign_negative() {
            a
        } else {
            b
        }
    };
    let minn = |a: f32, b: f32| {
        if a.is_nan() {
            b
        } else if b.is_nan() || a < b || a == b && a.is_sign_negative() {
            a
        } else {
            b
        }
    };
    let h = |x: f32| amdgpu_sim::alu::f32_to_f16(x) as u32;
    for (gpu, size, code) in [(Gpu::Gfx900, 64, &gfx9), (Gpu::Gfx1030, 32, &gfx10)] {
        let high = if gpu == Gpu::Gfx900 { 0 } else { 0xeeee_0000 };
        let w = run(gpu, size, code, |w| {
            for l in 0..64 {
                let n = |k: usize| {
                    let v = HALVES[k % 32] as u32;
                    if is_nan16(v as u16) { 0xc500 } else { v }
                };
                w.vgpr[0][l] = HALVES[l % 32] as u32 | n(l + 7) << 16;
                w.vgpr[1][l] = n(l + 3) | n(l + 11) << 16;
                w.vgpr[2][l] = n(l * 7 + 1) | (HALVES[l % 32] as u32) << 16;
                w.vgpr[3][l] = 1 << (l % 10) | 1 << ((l + 3) % 10);
                for r in 5..12 {
                    w.vgpr[r][l] = 0xeeee_0000 + r as u32;
                }
            }
        })
        .expect("runs");
        let mut vcc = 0u64;
        for l in 0..size as usize {
            let v = |r: usize| w.vgpr[r][l];
            let (a, b, c) = (v(0) & 0xffff, v(1) & 0xffff, v(2) & 0xffff);
            let (x, y, z) = (f(a), f(b), f(c));
            let q = |r: f32| {
                let r = h(r);
                if is_nan16(r as u16) { r | 0x200 } else { r }
            };
            assert_eq!(
                v(5),
                high | q(maxn(maxn(x, y), z)),
                "{gpu} max3_f16 lane {l}"
            );
            assert_eq!(
                v(6),
                high | q(minn(minn(x, y), z)),
                "{gpu} min3_f16 lane {l}"
            );
            let med = if x.is_nan() || y.is_nan() || z.is_nan() {
                minn(minn(x, y), z)
            } else {
                maxn(minn(x, y), minn(maxn(x, y), z))
            };
            assert_eq!(v(7), high | q(med), "{gpu} med3_f16 lane {l}");
            let (ai, bi, ci) = (a as i16, b as i16, c as i16);
            assert_eq!(
                v(8),
                high | ai.max(bi).max(ci) as u16 as u32,
                "{gpu} max3_i16 lane {l}"
            );
            assert_eq!(v(9), high | a.min(b).min(c), "{gpu} min3_u16 lane {l}");
            let mut s = [ai, bi, ci];
            s.sort();
            assert_eq!(v(10), high | s[1] as u16 as u32, "{gpu} med3_i16 lane {l}");
            let mut u = [v(0) >> 16, b, v(2) >> 16];
            u.sort();
            assert_eq!(v(11), high | u[1], "{gpu} med3_u16 op_sel lane {l}");
            // Class of a: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0,
            // 6 +0, 7 +denormal, 8 +normal, 9 +inf.
            let class = if is_nan16(a as u16) {
                (a & 0x200 != 0) as u32
            } else {
                let mag = a & 0x7fff;
                let c = if mag == 0x7c00 {
                    9
                } else if mag == 0 {
                    6
                } else if mag < 0x400 {
                    7
                } else {
                    8
                };
                if a & 0x8000 != 0 { 11 - c } else { c }
            };
            if (v(3) >> class) & 1 != 0 {
                vcc |= 1 << l;
            }
        }
        assert_eq!(w.vcc.0 & w.full_mask(), vcc, "{gpu} v_cmp_class_f16");
    }
}

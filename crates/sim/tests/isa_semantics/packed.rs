//! Packed 16-bit (VOP3P) math and the mixed-precision FMA and MAD forms
//! (`exec/valu/packed.rs`).

use super::common::*;

#[test]
fn gfx9_packed_16_bit_math() {
    use amdgpu_sim::alu::{f16_to_f32, f32_to_f16, f64_to_f16};
    let code: Vec<u8> = [
        &[0x01, 0x40, 0x8a, 0xd3, 0x02, 0x07, 0x02, 0x18][..], // v_pk_add_u16 v1, v2, v3
        // v_pk_add_f16 v4, v2, v3 op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[0,1]
        &[0x04, 0x48, 0x8f, 0xd3, 0x02, 0x07, 0x02, 0x50],
        &[0x05, 0x40, 0x8e, 0xd3, 0x02, 0x07, 0x0a, 0x1c], // v_pk_fma_f16 v5, v2, v3, v2
        &[0x00, 0x00, 0x81, 0xbf],
    ]
    .concat();
    let h = |x: f32| f32_to_f16(x) as u32;
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        for l in 0..64 {
            w.vgpr[2][l] = h(l as f32 * 0.5) | h(-3.25) << 16;
            w.vgpr[3][l] = h(1.5) | h(l as f32) << 16;
        }
    })
    .expect("runs");
    for l in 0..64usize {
        let (a, b) = (w.vgpr[2][l], w.vgpr[3][l]);
        let lo = |v: u32| v as u16;
        let hi = |v: u32| (v >> 16) as u16;
        let add = (lo(a).wrapping_add(lo(b))) as u32 | (hi(a).wrapping_add(hi(b)) as u32) << 16;
        assert_eq!(w.vgpr[1][l], add, "v_pk_add_u16 lane {l}");
        let f = |v: u16| f16_to_f32(v) as f64;
        // Low half: hi(a) + -lo(b); high half: lo(a) + hi(b).
        let want =
            f64_to_f16(f(hi(a)) - f(lo(b))) as u32 | (f64_to_f16(f(lo(a)) + f(hi(b))) as u32) << 16;
        assert_eq!(w.vgpr[4][l], want, "v_pk_add_f16 lane {l}");
        let fma = f64_to_f16(f(lo(a)).mul_add(f(lo(b)), f(lo(a)))) as u32
            | (f64_to_f16(f(hi(a)).mul_add(f(hi(b)), f(hi(a)))) as u32) << 16;
        assert_eq!(w.vgpr[5][l], fma, "v_pk_fma_f16 lane {l}");
    }
}

/// `clamp` on packed 16-bit integer add, sub and multiply-add saturates each
/// half, as in the VOP3 forms (Vega ISA §6.3 "clamp ... for integer operations,
/// saturate"); clang-19 emits `v_pk_sub_i16 ... clamp` for `sub_sat` on `short2`
/// and wider vectors (`kernels/src/vec_int.cl`). (Before: refused as
/// unsupported.)
#[test]
fn gfx9_packed_integer_clamp_saturates() {
    let code: Vec<u8> = [
        &[0x02, 0xc0, 0x8a, 0xd3, 0x00, 0x03, 0x02, 0x18][..], // v_pk_add_u16 v2, v0, v1 clamp
        &[0x03, 0xc0, 0x8b, 0xd3, 0x00, 0x03, 0x02, 0x18],     // v_pk_sub_u16 v3, v0, v1 clamp
        &[0x04, 0xc0, 0x82, 0xd3, 0x00, 0x03, 0x02, 0x18],     // v_pk_add_i16 v4, v0, v1 clamp
        // v_pk_sub_i16 v5, v0, v1 op_sel:[0,1] op_sel_hi:[1,0] clamp
        &[0x05, 0xd0, 0x83, 0xd3, 0x00, 0x03, 0x02, 0x08],
        &[0x06, 0xc0, 0x89, 0xd3, 0x00, 0x03, 0x02, 0x1c], // v_pk_mad_u16 v6, v0, v1, v0 clamp
        &[0x07, 0xc0, 0x80, 0xd3, 0x00, 0x03, 0x02, 0x1c], // v_pk_mad_i16 v7, v0, v1, v0 clamp
        &[0x08, 0x40, 0x8a, 0xd3, 0x00, 0x03, 0x02, 0x18], // v_pk_add_u16 v8, v0, v1
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    const E: [u16; 8] = [0, 1, 0x7fff, 0x8000, 0xffff, 0x7ffe, 0x8001, 0x00ff];
    let op = |l: usize| -> (u32, u32) {
        let a = E[l % 8] as u32 | (E[(l / 8) % 8] as u32) << 16;
        let b = E[(l / 8) % 8] as u32 | (E[(l + 3) % 8] as u32) << 16;
        (a, b)
    };
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        for l in 0..64 {
            let (a, b) = op(l);
            w.vgpr[0][l] = a;
            w.vgpr[1][l] = b;
        }
    })
    .expect("runs");
    let lo = |v: u32| v as u16;
    let hi = |v: u32| (v >> 16) as u16;
    let pack = |l: u16, h: u16| l as u32 | (h as u32) << 16;
    let mad_u = |x: u16, y: u16, z: u16| (x as u32 * y as u32 + z as u32).min(0xffff) as u16;
    let mad_i = |x: u16, y: u16, z: u16| {
        (x as i16 as i32 * y as i16 as i32 + z as i16 as i32).clamp(-0x8000, 0x7fff) as u16
    };
    for l in 0..64 {
        let (a, b) = op(l);
        let (al, ah, bl, bh) = (lo(a), hi(a), lo(b), hi(b));
        let want = [
            (
                2,
                pack(al.saturating_add(bl), ah.saturating_add(bh)),
                "v_pk_add_u16 clamp",
            ),
            (
                3,
                pack(al.saturating_sub(bl), ah.saturating_sub(bh)),
                "v_pk_sub_u16 clamp",
            ),
            (
                4,
                pack(
                    (al as i16).saturating_add(bl as i16) as u16,
                    (ah as i16).saturating_add(bh as i16) as u16,
                ),
                "v_pk_add_i16 clamp",
            ),
            // low half: lo(a) - hi(b); high half: hi(a) - lo(b)
            (
                5,
                pack(
                    (al as i16).saturating_sub(bh as i16) as u16,
                    (ah as i16).saturating_sub(bl as i16) as u16,
                ),
                "v_pk_sub_i16 op_sel clamp",
            ),
            (
                6,
                pack(mad_u(al, bl, al), mad_u(ah, bh, ah)),
                "v_pk_mad_u16 clamp",
            ),
            (
                7,
                pack(mad_i(al, bl, al), mad_i(ah, bh, ah)),
                "v_pk_mad_i16 clamp",
            ),
            (
                8,
                pack(al.wrapping_add(bl), ah.wrapping_add(bh)),
                "v_pk_add_u16 (wraps)",
            ),
        ];
        for (r, v, what) in want {
            assert_eq!(w.vgpr[r][l], v, "{what} lane {l}: {a:#010x}, {b:#010x}");
        }
    }
}

/// An f32 with at most 12 significant bits and a small exponent, so sums of
/// products of them are exact in f64.
fn short_f32(l: usize, salt: u32) -> f32 {
    let m = (l as u32).wrapping_mul(2654435761).wrapping_add(salt) >> 20; // 12 bits
    let e = ((l as i32 * 7 + salt as i32) % 13) - 6;
    let v = (m | 0x800) as f32 * f32::powi(2.0, e - 11);
    if (l + salt as usize) % 3 == 0 { -v } else { v }
}

fn f16v(h: u32) -> f32 {
    amdgpu_sim::alu::f16_to_f32(h as u16)
}

/// `v_fma_mix_f32`, `v_fma_mixlo_f16`, `v_fma_mixhi_f16` (VOP3P): sources
/// are f32, or with `op_sel_hi` the f16 half chosen by `op_sel`; `neg_hi` is
/// `abs`; one rounding (the exact `a * b + c` rounded to f32, or once to f16
/// into one half of the destination, the other half kept); `clamp`.
/// (Before: unimplemented.)
fn fma_mix(gpu: Gpu, size: u32, code: &[u8]) {
    let exec = (if size == 64 { u64::MAX } else { 0xffff_ffff }) & !(1 << 2);
    let w = run(gpu, size, code, |w| {
        w.exec = Mask(exec);
        for l in 0..64 {
            // NaNs only in v0: which of two NaNs propagates is not modelled.
            let h = |k: usize| HALVES[k % 32] as u32;
            let n = |k: usize| if is_nan16(h(k) as u16) { 0x3c00 } else { h(k) };
            w.vgpr[0][l] = h(l) | h(l + 9) << 16;
            w.vgpr[1][l] = n(l + 3) | n(l + 17) << 16;
            w.vgpr[2][l] = n(l + 5) | n(l + 1) << 16;
            for (r, salt) in [(3, 1), (4, 2), (5, 3)] {
                w.vgpr[r][l] = short_f32(l, salt).to_bits();
            }
            for r in 10..15 {
                w.vgpr[r][l] = 0x1234_5678;
            }
        }
    })
    .expect("runs");
    for l in 0..size as usize {
        let v = |r: usize| w.vgpr[r][l];
        if (exec >> l) & 1 == 0 {
            assert!((10..15).all(|r| v(r) == 0x1234_5678), "inactive lane {l}");
            continue;
        }
        let (lo, hi) = (|x: u32| f16v(x & 0xffff), |x: u32| f16v(x >> 16));
        let f = f32::from_bits;
        let want10 = lo(v(0)).mul_add(lo(v(1)), lo(v(2)));
        assert!(
            same_f32(v(10), want10),
            "{gpu} mix_f32 lane {l}: {:#x}",
            v(10)
        );
        let want11 = f(v(3)).mul_add(hi(v(1)), f(v(4)));
        assert!(same_f32(v(11), want11), "{gpu} mix_f32 hi lane {l}");
        // Exact in f64, rounded once to f16.
        let once = |x: f32, y: f32, z: f32| {
            let e = x as f64 * y as f64 + z as f64;
            if e.is_nan() {
                0xfe00u32
            } else {
                amdgpu_sim::alu::f64_to_f16(e) as u32
            }
        };
        let want12 = once(f(v(3)), f(v(4)), f(v(5)));
        assert_eq!(v(12), 0x1234_0000 | want12, "{gpu} mixlo lane {l}");
        let r13 = once(-lo(v(0)), lo(v(1)).abs(), lo(v(2)));
        let c13 = match f16v(r13) {
            x if x.is_nan() || x <= 0.0 => 0,
            x if x >= 1.0 => 0x3c00,
            _ => r13,
        };
        assert_eq!(v(13), c13 << 16 | 0x5678, "{gpu} mixhi clamp lane {l}");
        if !hi(v(0)).is_nan() {
            let want14 = once(f(v(3)), hi(v(0)), f(v(4)));
            assert_eq!(v(14), 0x1234_0000 | want14, "{gpu} mixlo f16 hi lane {l}");
        }
    }
}

#[test]
fn fma_mix_forms() {
    let gfx9: Vec<u8> = [
        &[0x0a, 0x40, 0xa0, 0xd3, 0x00, 0x03, 0x0a, 0x1c][..], // v_fma_mix_f32 v10, v0, v1, v2 op_sel_hi:[1,1,1]
        &[0x0b, 0x10, 0xa0, 0xd3, 0x03, 0x03, 0x12, 0x14], // v_fma_mix_f32 v11, v3, v1, v4 op_sel:[0,1,0] op_sel_hi:[0,1,0]
        &[0x0c, 0x00, 0xa1, 0xd3, 0x03, 0x09, 0x16, 0x04], // v_fma_mixlo_f16 v12, v3, v4, v5
        &[0x0d, 0xc2, 0xa2, 0xd3, 0x00, 0x03, 0x0a, 0x3c], // v_fma_mixhi_f16 v13, -v0, |v1|, v2 op_sel_hi:[1,1,1] clamp
        &[0x0e, 0x10, 0xa1, 0xd3, 0x03, 0x01, 0x12, 0x14], // v_fma_mixlo_f16 v14, v3, v0, v4 op_sel:[0,1,0] op_sel_hi:[0,1,0]
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x0a, 0x40, 0x20, 0xcc, 0x00, 0x03, 0x0a, 0x1c][..], // v_fma_mix_f32 v10, v0, v1, v2 op_sel_hi:[1,1,1]
        &[0x0b, 0x10, 0x20, 0xcc, 0x03, 0x03, 0x12, 0x14], // v_fma_mix_f32 v11, v3, v1, v4 op_sel:[0,1,0] op_sel_hi:[0,1,0]
        &[0x0c, 0x00, 0x21, 0xcc, 0x03, 0x09, 0x16, 0x04], // v_fma_mixlo_f16 v12, v3, v4, v5
        &[0x0d, 0xc2, 0x22, 0xcc, 0x00, 0x03, 0x0a, 0x3c], // v_fma_mixhi_f16 v13, -v0, |v1|, v2 op_sel_hi:[1,1,1] clamp
        &[0x0e, 0x10, 0x21, 0xcc, 0x03, 0x01, 0x12, 0x14], // v_fma_mixlo_f16 v14, v3, v0, v4 op_sel:[0,1,0] op_sel_hi:[0,1,0]
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    fma_mix(Gpu::Gfx906, 64, &gfx9);
    fma_mix(Gpu::Gfx90a, 64, &gfx9);
    fma_mix(Gpu::Gfx1030, 32, &gfx10);
    // A lane whose f16 result would differ when rounded through f32 first
    // (1 + 2^-11 + 2^-30) is reported rather than guessed.
    let err = run(Gpu::Gfx906, 64, &gfx9[16..24], |w| {
        w.vgpr[3][0] = (1.0 + f32::powi(2.0, -11)).to_bits();
        w.vgpr[4][0] = 1.0f32.to_bits();
        w.vgpr[5][0] = f32::powi(2.0, -30).to_bits();
    })
    .unwrap_err();
    assert!(matches!(err, SimError::Unsupported { .. }), "{err}");
    // Several NaN operands: the first propagates, quietened, as `v_fma_f16` chooses
    // (clang's f16 division reaches `v_fma_mixlo_f16` with NaN / NaN).
    let endpgm = [0x00, 0x00, 0x81, 0xbf];
    let code = [&gfx9[0..8], &gfx9[16..24], &endpgm[..]].concat();
    let w = run(Gpu::Gfx906, 64, &code, |w| {
        for l in 0..3 {
            w.vgpr[12][l] = 0xabcd_0000;
        }
        // v_fma_mix_f32 v10, v0, v1, v2 (f16 sources): a signalling then a quiet NaN.
        w.vgpr[0][0] = 0x7d00;
        w.vgpr[1][0] = 0x7e01;
        w.vgpr[2][0] = 0x3c00;
        // v_fma_mixlo_f16 v12, v3, v4, v5 (f32 sources).
        w.vgpr[3][1] = 0x7f80_0001;
        w.vgpr[4][1] = 0xffc0_0002;
        w.vgpr[5][1] = 1.0f32.to_bits();
        w.vgpr[3][2] = 1.0f32.to_bits();
        w.vgpr[4][2] = 0xffc0_0002;
        w.vgpr[5][2] = 0x7f80_0003;
    })
    .expect("two NaN operands run");
    // f16 0x7d00 is f32 0x7fa00000; quietened 0x7fe00000.
    assert_eq!(w.vgpr[10][0], 0x7fe0_0000);
    // f32 0x7f800001 quietened is 0x7fc00001; as f16 0x7e00 (the payload's top bits).
    assert_eq!(w.vgpr[12][1], 0xabcd_7e00);
    assert_eq!(w.vgpr[12][2], 0xabcd_fe00);
}

/// gfx900 `v_mad_mix_f32` / `v_mad_mixlo_f16` / `v_mad_mixhi_f16`: unfused
/// (the product rounded to f32 before the add), as the compiler's `fmad`
/// patterns for them assume; denormals are reported (the hardware flushes
/// them). (Before: unimplemented.)
#[test]
fn gfx900_mad_mix_forms() {
    let code: Vec<u8> = [
        &[0x0a, 0x40, 0xa0, 0xd3, 0x00, 0x03, 0x0a, 0x1c][..], // v_mad_mix_f32 v10, v0, v1, v2 op_sel_hi:[1,1,1]
        &[0x0b, 0x10, 0xa0, 0xd3, 0x03, 0x03, 0x12, 0x14], // v_mad_mix_f32 v11, v3, v1, v4 op_sel:[0,1,0] op_sel_hi:[0,1,0]
        &[0x0c, 0x00, 0xa1, 0xd3, 0x03, 0x09, 0x16, 0x04], // v_mad_mixlo_f16 v12, v3, v4, v5
        &[0x0d, 0xc2, 0xa2, 0xd3, 0x00, 0x03, 0x0a, 0x3c], // v_mad_mixhi_f16 v13, -v0, |v1|, v2 op_sel_hi:[1,1,1] clamp
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    const H: [u16; 8] = [
        0x3c00, 0x3800, 0x3400, 0x4100, 0x4200, 0x3e00, 0x4540, 0x4b00,
    ];
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        for l in 0..64 {
            let h = |k: usize| H[k % 8] as u32;
            w.vgpr[0][l] = h(l) | h(l / 8) << 16;
            w.vgpr[1][l] = h(l + 3) | h(l + 5) << 16;
            w.vgpr[2][l] = h(l / 3) | h(l + 1) << 16;
            // f32 operands whose product does not fit 24 bits.
            let (m, n) = (l as f32 * 37.0 + 1.0, l as f32 * 11.0 + 3.0);
            w.vgpr[3][l] = (1.0f32 + m * f32::powi(2.0, -20)).to_bits();
            w.vgpr[4][l] = (1.5f32 + n * f32::powi(2.0, -19)).to_bits();
            w.vgpr[5][l] = (0.75f32 + l as f32).to_bits();
            for r in 10..14 {
                w.vgpr[r][l] = 0x1234_5678;
            }
        }
    })
    .expect("runs");
    let mut rounded = 0;
    for l in 0..64 {
        let v = |r: usize| w.vgpr[r][l];
        let (lo, hi) = (|x: u32| f16v(x & 0xffff), |x: u32| f16v(x >> 16));
        let f = f32::from_bits;
        // The separately rounded operations.
        let mad = |x: f32, y: f32, z: f32| (x * y) + z;
        assert_eq!(
            v(10),
            mad(lo(v(0)), lo(v(1)), lo(v(2))).to_bits(),
            "lane {l}"
        );
        assert_eq!(v(11), mad(f(v(3)), hi(v(1)), f(v(4))).to_bits(), "lane {l}");
        let p = f(v(3)) * f(v(4));
        rounded += (p as f64 != f(v(3)) as f64 * f(v(4)) as f64) as u32;
        let want12 = amdgpu_sim::alu::f64_to_f16(p as f64 + f(v(5)) as f64) as u32;
        assert_eq!(v(12), 0x1234_0000 | want12, "mixlo lane {l}");
        let s = mad(-lo(v(0)), lo(v(1)).abs(), lo(v(2)));
        let c = amdgpu_sim::alu::f32_to_f16(s.clamp(0.0, 1.0)) as u32;
        assert_eq!(v(13), c << 16 | 0x5678, "mixhi clamp lane {l}");
    }
    assert!(
        rounded > 48,
        "most products need rounding to f32: {rounded}"
    );
    let err = run(Gpu::Gfx900, 64, &code, |w| w.vgpr[0][5] = 0x0001).unwrap_err();
    assert!(
        matches!(&err, SimError::Unsupported { what, .. } if what.contains("denormal")),
        "{err}"
    );
}

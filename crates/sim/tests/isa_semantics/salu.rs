//! Scalar ALU programs with exec masks, carries and the MODE register
//! (`exec/salu`).

use super::common::*;

#[test]
fn gfx9_scalar_vector_and_control() {
    let code: Vec<u8> = [
        &[0x00, 0x01, 0x02, 0x80][..], // s_add_u32 s2, s0, s1
        &[0x80, 0x80, 0x03, 0x82],     // s_addc_u32 s3, 0, 0
        &[0x05, 0xff, 0x84, 0x92, 0x08, 0x00, 0x04, 0x00], // s_bfe_u32 s4, s5, 0x40008
        &[0x08, 0x11, 0x86, 0xbe],     // s_ff1_i32_b64 s6, s[8:9]
        &[0x02, 0x0a, 0xe8, 0xd1, 0x00, 0x03, 0x12, 0x04], // v_mad_u64_u32 v[2:3], s[10:11], v0, v1, v[4:5]
        &[0x85, 0x00, 0x98, 0x7d],                         // v_cmp_gt_u32_e32 vcc, 5, v0
        &[0x6a, 0x20, 0x8c, 0xbe],                         // s_and_saveexec_b64 s[12:13], vcc
        &[0x87, 0x02, 0x0c, 0x7e],                         // v_mov_b32_e32 v6, 7
        &[0x7e, 0x0c, 0xfe, 0x87],                         // s_or_b64 exec, exec, s[12:13]
        &[0xf9, 0x02, 0x0e, 0x68, 0x00, 0x15, 0x00, 0x01], // v_add_u32_sdwa v7, v0, v1 (WORD_1, PRESERVE, BYTE_0, BYTE_1)
        &[0x80, 0x00, 0x8e, 0xbe],                         // s_mov_b32 s14, 0
        &[0x0e, 0x81, 0x0e, 0x80],                         // s_add_u32 s14, s14, 1
        &[0x0e, 0x8a, 0x0a, 0xbf],                         // s_cmp_lt_u32 s14, 10
        &[0xfd, 0xff, 0x85, 0xbf],                         // s_cbranch_scc1 -3
        &[0x09, 0x15, 0x10, 0x7e],                         // v_cvt_f16_f32_e32 v8, v9
        &[0x0a, 0x82, 0xcb, 0xd1, 0x09, 0x13, 0xca, 0x23], // v_fma_f32 v10, -v9, |v9|, 1.0 clamp
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        w.sgpr[0] = 0xffff_ffff;
        w.sgpr[1] = 2;
        w.sgpr[5] = 0xabcd;
        w.sgpr[8] = 0;
        w.sgpr[9] = 1;
        for l in 0..64 {
            w.vgpr[0][l] = l as u32 * 0x0101 + 0x8000_0000;
            w.vgpr[1][l] = 0x1_0000 * l as u32 + 0x0300;
            w.vgpr[4][l] = u32::MAX;
            w.vgpr[5][l] = if l == 1 { u32::MAX } else { 0 };
            w.vgpr[6][l] = 1;
            w.vgpr[7][l] = 0x1234_5678;
            w.vgpr[9][l] = (-(l as f32) * 0.25).to_bits();
        }
        // v0 < 5 for lanes 0..5 only after masking the high bit away: use raw ids.
        for l in 0..64 {
            if l < 3 {
                w.vgpr[0][l] = l as u32;
            }
        }
    })
    .expect("runs");
    assert_eq!(w.sgpr[2], 1, "s_add_u32 wraps");
    assert_eq!(w.sgpr[3], 1, "s_addc_u32 takes the carry");
    assert_eq!(w.sgpr[4], 0xb, "s_bfe_u32 offset 8 width 4");
    assert_eq!(w.sgpr[6], 32, "s_ff1_i32_b64");
    assert_eq!(w.sgpr[14], 10, "the scalar loop ran ten times");
    assert!(!w.scc);
    for l in 0..64usize {
        let (v0, v1) = (w.vgpr[0][l] as u64, w.vgpr[1][l] as u64);
        let c = w.vgpr[4][l] as u64 | (w.vgpr[5][l] as u64) << 32;
        let full = v0 as u128 * v1 as u128 + c as u128;
        let r = w.vgpr[2][l] as u64 | (w.vgpr[3][l] as u64) << 32;
        assert_eq!(r, full as u64, "v_mad_u64_u32 lane {l}");
        let carry = (w.sgpr[10] as u64 | (w.sgpr[11] as u64) << 32) >> l & 1 == 1;
        assert_eq!(carry, full >> 64 != 0, "carry-out lane {l}");
        // Only lanes with v0 < 5 (lanes 0..3) took the branch of the if.
        assert_eq!(
            w.vgpr[6][l],
            if l < 3 { 7 } else { 1 },
            "masked move lane {l}"
        );
        // SDWA: byte 0 of v0 + byte 1 of v1 into the high word, low word kept.
        let sum = (w.vgpr[0][l] & 0xff) + ((w.vgpr[1][l] >> 8) & 0xff);
        assert_eq!(w.vgpr[7][l], (sum & 0xffff) << 16 | 0x5678, "sdwa lane {l}");
        let x = f32::from_bits(w.vgpr[9][l]);
        assert_eq!(
            w.vgpr[8][l],
            amdgpu_sim::alu::f32_to_f16(x) as u32,
            "v_cvt_f16_f32 zeroes the high half on GFX9"
        );
        let fma = (-x).mul_add(x.abs(), 1.0).clamp(0.0, 1.0);
        assert_eq!(
            f32::from_bits(w.vgpr[10][l]),
            fma,
            "v_fma_f32 modifiers lane {l}"
        );
    }
    assert_eq!(w.exec.0, u64::MAX, "EXEC restored");
}

#[test]
fn gfx10_wave32_masks_and_carries() {
    let code: Vec<u8> = [
        &[0x85, 0x00, 0x88, 0x7d][..], // v_cmp_gt_u32_e32 vcc_lo, 5, v0
        &[0x6a, 0x3c, 0x8c, 0xbe],     // s_and_saveexec_b32 s12, vcc_lo
        &[0x87, 0x02, 0x0c, 0x7e],     // v_mov_b32_e32 v6, 7
        &[0x7e, 0x0c, 0x7e, 0x88],     // s_or_b32 exec_lo, exec_lo, s12
        &[0x02, 0x00, 0x0f, 0xd7, 0x00, 0x03, 0x02, 0x00], // v_add_co_u32 v2, s0, v0, v1
        &[0x80, 0x08, 0x06, 0x50],     // v_add_co_ci_u32_e32 v3, vcc_lo, 0, v4, vcc_lo
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx1030, 32, &code, |w| {
        w.exec = Mask(0x7fff_ffff); // lane 31 inactive
        for l in 0..32 {
            w.vgpr[0][l] = l as u32;
            w.vgpr[1][l] = if l % 2 == 0 { u32::MAX } else { 0 };
            w.vgpr[4][l] = 100;
            w.vgpr[6][l] = 1;
        }
    })
    .expect("runs");
    assert_eq!(w.sgpr[12], 0x7fff_ffff, "saved EXEC");
    assert_eq!(w.exec.0, 0x7fff_ffff, "restored EXEC");
    // Carry-out of v0 + v1 is set in even lanes > 0 (l + 0xffffffff overflows).
    let carries: u32 = (1..31).filter(|l| l % 2 == 0).map(|l| 1u32 << l).sum();
    assert_eq!(w.sgpr[0], carries);
    for l in 0..32usize {
        assert_eq!(w.vgpr[6][l], if l < 5 { 7 } else { 1 }, "lane {l}");
        if l == 31 {
            assert_eq!(w.vgpr[3][l], 0, "inactive lane untouched");
            continue;
        }
        // The carry-in is VCC from the compare (lanes 0..5), not s0.
        let c = (l < 5) as u32;
        assert_eq!(w.vgpr[3][l], 100 + c, "carry-in lane {l}");
    }
    // VCC was overwritten by the carry of the second add (no carries out of 100 + c).
    assert_eq!(w.vcc.0 & 0xffff_ffff, 0);
}

#[test]
fn mode_register_controls_denormals_and_rounding() {
    let code: Vec<u8> = [
        &[0x02, 0x07, 0x02, 0x02][..], // v_add_f32_e32 v1, v2, v3
        &[0x01, 0x19, 0x00, 0xba, 0x00, 0x00, 0x00, 0x00], // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0
        &[0x02, 0x07, 0x08, 0x02],                         // v_add_f32_e32 v4, v2, v3
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let tiny = f32::from_bits(1);
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        for l in 0..64 {
            w.vgpr[2][l] = tiny.to_bits();
            w.vgpr[3][l] = if l % 2 == 0 {
                0
            } else {
                (2.0 * tiny).to_bits()
            };
        }
    })
    .expect("runs");
    for l in 0..64 {
        let exact = if l % 2 == 0 { tiny } else { 3.0 * tiny };
        assert_eq!(
            f32::from_bits(w.vgpr[1][l]),
            exact,
            "denormals kept, lane {l}"
        );
        assert_eq!(w.vgpr[4][l], 0, "denormals flushed, lane {l}");
    }
    assert_eq!(w.hwreg[1] & 0xf0, 0);
    // A rounding mode other than nearest-even is reported, not ignored.
    let code: Vec<u8> = [
        &[0x01, 0x18, 0x00, 0xba, 0x01, 0x00, 0x00, 0x00][..], // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 1
        &[0x02, 0x07, 0x0a, 0x02],                             // v_add_f32_e32 v5, v2, v3
        &[0x00, 0x00, 0x81, 0xbf],
    ]
    .concat();
    let err = run(Gpu::Gfx900, 64, &code, |_| {}).unwrap_err();
    assert!(
        matches!(&err, SimError::Unsupported { what, .. } if what.contains("FP_ROUND")),
        "{err}"
    );
}

#[test]
fn gfx10_scalar_relative_move_with_two_offsets() {
    let code: Vec<u8> = [
        &[0x14, 0x49, 0x8a, 0xbe][..], // s_movrelsd_2_b32 s10, s20
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    for gpu in [Gpu::Gfx1010, Gpu::Gfx1030] {
        // M0[9:0] = 3 offsets the source (s23), M0[25:16] = 5 the destination
        // (s15); the bits between are ignored.
        let w = run(gpu, 32, &code, |w| {
            w.m0 = 3 | 0xfc00 | 5 << 16;
            for r in 0..40 {
                w.sgpr[r] = 0x5000 + r as u32;
            }
        })
        .expect("runs");
        assert_eq!(w.sgpr[15], 0x5000 + 23, "{gpu}");
        assert_eq!(w.sgpr[10], 0x5000 + 10, "{gpu}");
        // Beyond the SGPRs: reported.
        let err = run(gpu, 32, &code, |w| w.m0 = 0x3ff).unwrap_err();
        assert!(matches!(err, SimError::Unsupported { .. }), "{err:?}");
    }
}

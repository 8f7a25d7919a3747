//! Lane movement: DPP, permlane, `v_swap`, VGPR indexing and relative
//! addressing (`exec/valu/lane.rs`).

use super::common::*;

#[test]
fn gfx9_dpp_lane_movement() {
    let code: Vec<u8> = [
        &[0xfa, 0x02, 0x02, 0x7e, 0x00, 0x1b, 0x00, 0xff][..], // v_mov_b32_dpp v1, v0 quad_perm:[3,2,1,0]
        &[0xfa, 0x00, 0x04, 0x68, 0x00, 0x11, 0x09, 0xff], // v_add_u32_dpp v2, v0, v0 row_shr:1 bound_ctrl:0
        &[0xfa, 0x02, 0x06, 0x7e, 0x00, 0x42, 0x01, 0xaf], // v_mov_b32_dpp v3, v0 row_bcast:15 row_mask:0xa
        &[0xfa, 0x02, 0x08, 0x7e, 0x00, 0x01, 0x01, 0xf1], // v_mov_b32_dpp v4, v0 row_shl:1 bank_mask:0x1
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        for l in 0..64 {
            w.vgpr[0][l] = 1000 + l as u32;
            for r in 1..5 {
                w.vgpr[r][l] = 7;
            }
        }
    })
    .expect("runs");
    for l in 0..64usize {
        let v = |s: usize| 1000 + s as u32;
        assert_eq!(
            w.vgpr[1][l],
            v((l & !3) + 3 - (l & 3)),
            "quad_perm lane {l}"
        );
        // row_shr:1 with bound_ctrl: the first lane of each row reads 0.
        let shr = if l % 16 == 0 { 0 } else { v(l - 1) };
        assert_eq!(w.vgpr[2][l], shr + v(l), "row_shr lane {l}");
        // row_bcast:15 writes rows 1 and 3 (row_mask 0xa) from lane 15 of the row before.
        let row = l / 16;
        let bcast = if row == 1 || row == 3 {
            v(row * 16 - 1)
        } else {
            7
        };
        assert_eq!(w.vgpr[3][l], bcast, "row_bcast lane {l}");
        // row_shl:1 with bank_mask 1 writes lanes 0..4 of each row only.
        let shl = if l % 16 < 4 { v(l + 1) } else { 7 };
        assert_eq!(w.vgpr[4][l], shl, "row_shl lane {l}");
    }
}

#[test]
fn gfx10_dpp16_and_dpp8() {
    let code: Vec<u8> = [
        &[0xfa, 0x02, 0x02, 0x7e, 0x00, 0x61, 0x01, 0xff][..], // v_mov_b32_dpp v1, v0 row_xmask:1
        &[0xe9, 0x02, 0x04, 0x7e, 0x00, 0x77, 0x39, 0x05], // v_mov_b32_dpp v2, v0 dpp8:[7,6,5,4,3,2,1,0]
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx1030, 32, &code, |w| {
        for l in 0..32 {
            w.vgpr[0][l] = 500 + l as u32;
        }
    })
    .expect("runs");
    for l in 0..32usize {
        assert_eq!(w.vgpr[1][l], 500 + (l ^ 1) as u32, "row_xmask lane {l}");
        assert_eq!(
            w.vgpr[2][l],
            500 + ((l & !7) + 7 - (l & 7)) as u32,
            "dpp8 lane {l}"
        );
    }
}

#[test]
fn gfx10_relative_addressing_and_byte_permute() {
    let code: Vec<u8> = [
        &[0x82, 0x03, 0xfc, 0xbe][..],                     // s_mov_b32 m0, 2
        &[0x04, 0x87, 0x02, 0x7e],                         // v_movrels_b32_e32 v1, v4  (v1 = v6)
        &[0x02, 0x85, 0x14, 0x7e],                         // v_movreld_b32_e32 v10, v2 (v12 = v2)
        &[0x04, 0x2e, 0x81, 0xbe],                         // s_movrels_b32 s1, s4      (s1 = s6)
        &[0x03, 0x00, 0x44, 0xd7, 0x04, 0x0b, 0x1a, 0x04], // v_perm_b32 v3, v4, v5, v6
        &[0x00, 0x00, 0x81, 0xbf],
    ]
    .concat();
    let w = run(Gpu::Gfx1030, 32, &code, |w| {
        w.sgpr[6] = 0x5151;
        for l in 0..32 {
            w.vgpr[2][l] = 20 + l as u32;
            w.vgpr[4][l] = 0x8899_aabb;
            w.vgpr[5][l] = 0x1122_3344;
            // Selectors: byte 7 (0x88), byte 0 (0x44), sign of byte 5 (0xff), 0x00.
            w.vgpr[6][l] = 0x0c_0a_00_07 + if l % 2 == 1 { 0x0100_0000 } else { 0 };
        }
    })
    .expect("runs");
    assert_eq!(w.sgpr[1], 0x5151);
    for l in 0..32usize {
        assert_eq!(w.vgpr[1][l], w.vgpr[6][l], "v_movrels lane {l}");
        assert_eq!(w.vgpr[12][l], 20 + l as u32, "v_movreld lane {l}");
        let top = if l % 2 == 1 { 0xff } else { 0x00 }; // selector 13 or 12
        assert_eq!(w.vgpr[3][l], top << 24 | 0xff_44_88, "v_perm_b32 lane {l}");
    }
}

/// `v_swap_b32` (clang-19 emits it at -O2 for gfx90a): the two VGPRs exchange
/// their values in the active lanes only; inactive lanes keep both.
#[test]
fn v_swap_b32_exchanges_active_lanes() {
    for (gpu, size, enc) in [
        (Gpu::Gfx900, 64, [0x01, 0xa3, 0x00, 0x7e]), // v_swap_b32 v0, v1
        (Gpu::Gfx90a, 64, [0x01, 0xa3, 0x00, 0x7e]),
        (Gpu::Gfx1030, 32, [0x01, 0xcb, 0x00, 0x7e]),
    ] {
        let code: Vec<u8> = [&enc[..], &[0x00, 0x00, 0x81, 0xbf]].concat();
        let w = run(gpu, size, &code, |w| {
            w.exec = Mask(0x5555_5555_5555_5555 & w.exec.0);
            for l in 0..size as usize {
                w.vgpr[0][l] = 100 + l as u32;
                w.vgpr[1][l] = 200 + l as u32;
            }
        })
        .expect("runs");
        for l in 0..size as usize {
            let (a, b) = if l % 2 == 0 { (200, 100) } else { (100, 200) };
            assert_eq!(w.vgpr[0][l], a + l as u32, "{gpu:?} v0 lane {l}");
            assert_eq!(w.vgpr[1][l], b + l as u32, "{gpu:?} v1 lane {l}");
        }
    }
}

/// GFX10 `v_permlane16_b32` / `v_permlanex16_b32` (RDNA ISA pseudo-code:
/// `lanesel = {S2, S1}; D.lane[row * 16 + i] = S0.lane[row' * 16 +
/// lanesel[4i + 3 : 4i]]` with `row' = row` or the other row of its pair),
/// `op_sel[0]` = fetch inactive, `op_sel[1]` = bound_ctrl, in wave32 and
/// wave64, with inactive lanes. (Before: unimplemented.)
#[test]
fn gfx10_permlane16_and_permlanex16() {
    let code: Vec<u8> = [
        &[0x01, 0x00, 0x77, 0xd7, 0x00, 0x01, 0x04, 0x00][..], // v_permlane16_b32 v1, v0, s0, s1
        &[0x02, 0x00, 0x78, 0xd7, 0x00, 0x01, 0x04, 0x00],     // v_permlanex16_b32 v2, v0, s0, s1
        &[0x03, 0x08, 0x77, 0xd7, 0x00, 0x05, 0x0c, 0x00], // v_permlane16_b32 v3, v0, s2, s3 op_sel:[1,0]
        &[0x04, 0x10, 0x77, 0xd7, 0x00, 0x05, 0x0c, 0x00], // v_permlane16_b32 v4, v0, s2, s3 op_sel:[0,1]
        &[0x05, 0x00, 0x78, 0xd7, 0x00, 0x05, 0x0c, 0x00], // v_permlanex16_b32 v5, v0, s2, s3
        // v_permlanex16_b32 v6, v0, 0x76543210, s3 op_sel:[1,1]
        &[
            0x06, 0x18, 0x78, 0xd7, 0x00, 0xff, 0x0d, 0x00, 0x10, 0x32, 0x54, 0x76,
        ],
        &[0x00, 0x00, 0x81, 0xbf], // s_endpgm
    ]
    .concat();
    for size in [32u32, 64] {
        // Lanes 3, 17 and 40 are inactive.
        let exec =
            (if size == 64 { u64::MAX } else { 0xffff_ffff }) & !(1 << 3 | 1 << 17 | 1 << 40);
        let sel = [
            (0xfedc_ba98u32, 0x7654_3210u32),
            (0x0123_3333, 0x1111_1113), // lanes 1 and 3 sources, 3 inactive
        ];
        let w = run(Gpu::Gfx1030, size, &code, |w| {
            w.exec = Mask(exec);
            w.sgpr[0] = sel[0].1;
            w.sgpr[1] = sel[0].0;
            w.sgpr[2] = sel[1].1;
            w.sgpr[3] = sel[1].0;
            for l in 0..64 {
                w.vgpr[0][l] = 1000 + l as u32;
                for r in 1..7 {
                    w.vgpr[r][l] = 0x7000 + r as u32;
                }
            }
        })
        .expect("runs");
        let active = |l: usize| (exec >> l) & 1 != 0;
        for l in 0..size as usize {
            let pick = |lo: u32, hi: u32, cross: bool| -> usize {
                let s = (hi as u64) << 32 | lo as u64;
                let row = if cross { (l / 16) ^ 1 } else { l / 16 };
                row * 16 + ((s >> (4 * (l % 16))) & 15) as usize
            };
            // (register, selects, cross rows, fetch inactive, bound_ctrl)
            let cases = [
                (1, sel[0], false, false, false),
                (2, sel[0], true, false, false),
                (3, sel[1], false, true, false),
                (4, sel[1], false, false, true),
                (5, sel[1], true, false, false),
                (6, (sel[1].0, 0x7654_3210), true, true, true),
            ];
            for (r, (hi, lo), cross, fi, bound) in cases {
                let s = pick(lo, hi, cross);
                let want = if !active(l) {
                    0x7000 + r
                } else if fi || active(s) {
                    1000 + s as u32
                } else if bound {
                    0
                } else {
                    0x7000 + r
                };
                assert_eq!(
                    w.vgpr[r as usize][l], want,
                    "wave{size} v{r} lane {l} from {s}"
                );
            }
        }
    }
}

/// GFX9 VGPR indexing (Vega ISA §4.6): `s_set_gpr_idx_on` sets M0[7:0] (the
/// index) and M0[15:12] (which of src0, src1, src2, dst it applies to) and
/// MODE.GPR_IDX_EN; the VALU operands it selects are moved up by the index
/// until `s_set_gpr_idx_off`. (Before: all four instructions unimplemented.)
#[test]
fn gfx9_vgpr_indexing() {
    let code: Vec<u8> = [
        &[0xff, 0x00, 0xfc, 0xbe, 0x00, 0x00, 0xcd, 0xab][..], // s_mov_b32 m0, 0xabcd0000
        &[0x00, 0x01, 0x11, 0xbf],                             // s_set_gpr_idx_on s0, gpr_idx(SRC0)
        &[0x02, 0x03, 0x02, 0x7e],                             // v_mov_b32_e32 v1, v2
        &[0xc1, 0x06, 0x86, 0xb8], // s_getreg_b32 s6, hwreg(HW_REG_MODE, 27, 1)
        &[0x00, 0x00, 0x9c, 0xbf], // s_set_gpr_idx_off
        &[0x00, 0x08, 0x11, 0xbf], // s_set_gpr_idx_on s0, gpr_idx(DST)
        &[0x02, 0x03, 0x02, 0x7e], // v_mov_b32_e32 v1, v2
        &[0x01, 0x32, 0x80, 0xbe], // s_set_gpr_idx_idx s1
        &[0x02, 0x07, 0x02, 0x68], // v_add_u32_e32 v1, v2, v3
        &[0x0b, 0x00, 0x9d, 0xbf], // s_set_gpr_idx_mode gpr_idx(SRC0,SRC1,DST)
        &[0x0b, 0x19, 0x14, 0x68], // v_add_u32_e32 v10, v11, v12
        &[0x14, 0x00, 0xcc, 0xd1, 0x1e, 0x41, 0x8a, 0x04], // v_fma_f64 v[20:21], v[30:31], v[32:33], v[34:35]
        &[0x7c, 0x00, 0x87, 0xbe],                         // s_mov_b32 s7, m0
        &[0x00, 0x00, 0x9c, 0xbf],                         // s_set_gpr_idx_off
        &[0x02, 0x03, 0x50, 0x7e],                         // v_mov_b32_e32 v40, v2
        &[0xc1, 0x06, 0x85, 0xb8], // s_getreg_b32 s5, hwreg(HW_REG_MODE, 27, 1)
        &[0x00, 0x00, 0x81, 0xbf], // s_endpgm
    ]
    .concat();
    let exec = !(1u64 << 12);
    let init = |r: usize, l: usize| (r as u32) << 16 | l as u32;
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        w.vgpr.resize(48, [0; 64]);
        w.exec = Mask(exec);
        w.sgpr[0] = 3;
        w.sgpr[1] = 0x102; // only bits 7:0 are the index
        for l in 0..64 {
            for r in 0..48 {
                w.vgpr[r][l] = init(r, l);
            }
            let d = |v: f64| v.to_bits();
            for (r, v) in [(32, 1.5 + l as f64), (34, -0.25 * l as f64)] {
                w.vgpr[r][l] = d(v) as u32;
                w.vgpr[r + 1][l] = (d(v) >> 32) as u32;
            }
        }
    })
    .expect("runs");
    assert_eq!(w.sgpr[6], 1, "MODE.GPR_IDX_EN while on");
    assert_eq!(w.sgpr[5], 0, "and off again");
    assert_eq!(
        w.sgpr[7], 0xabcd_b002,
        "M0[7:0] index, M0[15:12] mode, the rest kept"
    );
    for l in 0..64 {
        let v = |r: usize| w.vgpr[r][l];
        if (exec >> l) & 1 == 0 {
            for r in [1, 4, 3, 12, 22, 40] {
                assert_eq!(v(r), init(r, l), "inactive lane {l} v{r}");
            }
            continue;
        }
        assert_eq!(v(1), init(5, l), "src0 indexed: v1 = v[2 + 3]");
        assert_eq!(v(4), init(2, l), "dst indexed: v[1 + 3] = v2");
        assert_eq!(
            v(3),
            init(2, l).wrapping_add(init(3, l)),
            "v[1 + 2] = v2 + v3"
        );
        assert_eq!(
            v(12),
            init(13, l).wrapping_add(init(14, l)),
            "v12 = v13 + v14"
        );
        let (a, b) = (1.5 + l as f64, -0.25 * l as f64);
        let f = a.mul_add(b, b).to_bits();
        assert_eq!(
            (v(22), v(23)),
            (f as u32, (f >> 32) as u32),
            "src2 not indexed"
        );
        assert_eq!(v(20), init(20, l), "v20 not written");
        assert_eq!(v(40), init(2, l), "no indexing after s_set_gpr_idx_off");
    }
    // An index past the allocated VGPRs, and a memory instruction while
    // indexing is on, are reported.
    let past: Vec<u8> = [
        &[0x00, 0x01, 0x11, 0xbf][..], // s_set_gpr_idx_on s0, gpr_idx(SRC0)
        &[0x1e, 0x03, 0x02, 0x7e],     // v_mov_b32_e32 v1, v30
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    let err = run(Gpu::Gfx900, 64, &past, |w| w.sgpr[0] = 2).unwrap_err();
    assert!(
        matches!(&err, SimError::Unsupported { what, .. } if what.contains("beyond")),
        "{err}"
    );
    let mem: Vec<u8> = [
        &[0x00, 0x08, 0x11, 0xbf][..], // s_set_gpr_idx_on s0, gpr_idx(DST)
        &[0x00, 0x80, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x01], // global_load_dword v1, v[2:3], off
        &[0x00, 0x00, 0x81, 0xbf],     // s_endpgm
    ]
    .concat();
    let err = run(Gpu::Gfx900, 64, &mem, |_| {}).unwrap_err();
    assert!(matches!(err, SimError::Unsupported { .. }), "{err}");
}

/// GFX10 DPP16 `fi:1` reads inactive source lanes (LLVM's modifier syntax:
/// "fetch pre-exist values from inactive lanes"); without it an inactive
/// source gives 0 with `bound_ctrl:1` and leaves the lane unwritten
/// otherwise. DPP8 `fi:1` reads them too; DPP8 without `fi` reading an
/// inactive lane is reported. (Before: `fi` was ignored, so an inactive
/// source lane was treated as invalid.)
#[test]
fn gfx10_dpp_fetch_inactive() {
    let code: Vec<u8> = [
        &[0xfa, 0x02, 0x02, 0x7e, 0x00, 0x11, 0x05, 0xff][..], // v_mov_b32_dpp v1, v0 row_shr:1 row_mask:0xf bank_mask:0xf fi:1
        &[0xfa, 0x02, 0x04, 0x7e, 0x00, 0x11, 0x01, 0xff], // v_mov_b32_dpp v2, v0 row_shr:1 row_mask:0xf bank_mask:0xf
        &[0xfa, 0x02, 0x06, 0x7e, 0x00, 0x11, 0x09, 0xff], // v_mov_b32_dpp v3, v0 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
        &[0xea, 0x02, 0x08, 0x7e, 0x00, 0xc1, 0x54, 0xde], // v_mov_b32_dpp v4, v0 dpp8:[1,0,3,2,5,4,7,6] fi:1
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    for size in [32u32, 64] {
        // Every fourth lane inactive.
        let exec = (if size == 64 { u64::MAX } else { 0xffff_ffff }) & !0x8888_8888_8888_8888u64;
        let w = run(Gpu::Gfx1030, size, &code, |w| {
            w.exec = Mask(exec);
            for l in 0..64 {
                w.vgpr[0][l] = 100 + l as u32;
                for r in 1..5 {
                    w.vgpr[r][l] = 7;
                }
            }
        })
        .expect("runs");
        for l in 0..size as usize {
            let active = |s: usize| (exec >> s) & 1 != 0;
            // row_shr:1: lane l reads l - 1 within its row of 16.
            let src = (l % 16 != 0).then(|| l - 1);
            let (fi, plain, bound) = match src {
                _ if !active(l) => (7, 7, 7),
                None => (7, 7, 0),
                Some(s) if active(s) => (100 + s as u32, 100 + s as u32, 100 + s as u32),
                Some(s) => (100 + s as u32, 7, 0),
            };
            assert_eq!(w.vgpr[1][l], fi, "wave{size} fi:1 lane {l}");
            assert_eq!(w.vgpr[2][l], plain, "wave{size} lane {l}");
            assert_eq!(w.vgpr[3][l], bound, "wave{size} bound_ctrl lane {l}");
            let s8 = l ^ 1;
            let want = if active(l) { 100 + s8 as u32 } else { 7 };
            assert_eq!(w.vgpr[4][l], want, "wave{size} dpp8 fi:1 lane {l}");
        }
    }
    let dpp8: Vec<u8> = [
        &[0xe9, 0x02, 0x0a, 0x7e, 0x00, 0xc1, 0x54, 0xde][..], // v_mov_b32_dpp v5, v0 dpp8:[1,0,3,2,5,4,7,6]
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let err = run(Gpu::Gfx1030, 32, &dpp8, |w| w.exec = Mask(0xffff_fffe)).unwrap_err();
    assert!(
        matches!(&err, SimError::Unsupported { what, .. } if what.contains("DPP8")),
        "{err}"
    );
}

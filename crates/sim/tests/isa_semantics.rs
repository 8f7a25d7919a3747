//! Instruction semantics on small programs (encodings from
//! `llvm-mc-19 -show-encoding`, written here as bytes so the tests need no
//! LLVM), executed on a bare wave.
#![allow(clippy::needless_range_loop)]

use amdgpu_isa::{Decoder, Gpu};
use amdgpu_sim::exec::{Ctx, step};
use amdgpu_sim::memory::{Bytes, GlobalMemory, Scratch};
use amdgpu_sim::{Mask, SimError, Space, Wave, WaveStatus};

const BASE: u64 = 0x1000;

fn run(gpu: Gpu, size: u32, code: &[u8], setup: impl FnOnce(&mut Wave)) -> Result<Wave, SimError> {
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(0, Space::Lds);
    run_in(gpu, size, code, &mem, &mut lds, 0, setup)
}

fn run_in(
    gpu: Gpu,
    size: u32,
    code: &[u8],
    mem: &GlobalMemory,
    lds: &mut Bytes,
    private: u32,
    setup: impl FnOnce(&mut Wave),
) -> Result<Wave, SimError> {
    let program = Decoder::new(gpu, size == 64).decode_program(code, BASE);
    let mut w = Wave::new(size, BASE, Scratch::new(private, size), 0, 32);
    w.exec = Mask(if size == 64 { u64::MAX } else { 0xffff_ffff });
    setup(&mut w);
    let ctx = Ctx {
        program: &program,
        mem,
        gpu,
        group: [0; 3],
        max_instructions: 1000,
    };
    while w.status == WaveStatus::Running {
        step(&mut w, lds, &ctx)?;
    }
    Ok(w)
}

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
fn errors_name_the_instruction() {
    // v_interp_p1_f32 v0, v1, attr0.x: decoded, not executed.
    let code = [0x01, 0x00, 0x00, 0xd4, 0x00, 0x00, 0x81, 0xbf];
    let err = run(Gpu::Gfx900, 64, &code, |_| {}).unwrap_err();
    match err {
        SimError::Unimplemented { name, at } => {
            assert_eq!(name, "v_interp_p1_f32");
            assert_eq!(at.pc, BASE);
        }
        other => panic!("unexpected {other}"),
    }
    // An invalid word.
    let err = run(Gpu::Gfx900, 64, &[0xff, 0xff, 0xff, 0xff], |_| {}).unwrap_err();
    assert!(matches!(err, SimError::InvalidInstruction { .. }), "{err}");
    // Running off the end of the code.
    let err = run(Gpu::Gfx900, 64, &[0x00, 0x00, 0x80, 0xbf], |_| {}).unwrap_err();
    assert!(
        matches!(err, SimError::BadPc { pc, .. } if pc == BASE + 4),
        "{err}"
    );
}

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
fn flat_addresses_are_classified_per_lane() {
    use amdgpu_sim::memory::{PRIVATE_BASE, SHARED_BASE};
    let code: Vec<u8> = [
        &[0x00, 0x00, 0x50, 0xdc, 0x02, 0x00, 0x00, 0x01][..], // flat_load_dword v1, v[2:3]
        &[0x00, 0x00, 0x70, 0xdc, 0x04, 0x06, 0x00, 0x00],     // flat_store_dword v[4:5], v6
        &[0x00, 0x00, 0x09, 0xdd, 0x04, 0x06, 0x00, 0x07],     // flat_atomic_add v7, v[4:5], v6 glc
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let mut mem = GlobalMemory::new();
    let g = mem.allocate(4096).unwrap();
    for k in 0..64u64 {
        mem.write(g + 4 * k, &(9000 + k as u32).to_le_bytes())
            .unwrap();
    }
    let mut lds = Bytes::new(256, Space::Lds);
    for k in 0..64u64 {
        lds.write(4 * k, &(100 + k as u32).to_le_bytes()).unwrap();
    }
    // Lane l: l % 3 == 0 LDS, 1 private, 2 global; each at dword l % 16.
    let addr = |l: usize| -> u64 {
        let off = 4 * (l as u64 % 16);
        match l % 3 {
            0 => SHARED_BASE + off,
            1 => PRIVATE_BASE + off,
            _ => g + off,
        }
    };
    let w = run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 256, |w| {
        for l in 0..64 {
            w.scratch
                .write_lane(
                    l as u32,
                    4 * (l as u32 % 16),
                    &(5000 + l as u32).to_le_bytes(),
                )
                .unwrap();
            let a = addr(l);
            w.vgpr[2][l] = a as u32;
            w.vgpr[3][l] = (a >> 32) as u32;
            // Stores and atomics go to dword 32 + l of each space.
            let b = a + 128 - 4 * (l as u64 % 16) + 4 * (l as u64 % 16);
            w.vgpr[4][l] = b as u32;
            w.vgpr[5][l] = (b >> 32) as u32;
            w.vgpr[6][l] = l as u32;
        }
    })
    .expect("runs");
    for l in 0..64usize {
        let want = match l % 3 {
            0 => 100 + (l % 16) as u32,
            1 => 5000 + l as u32,
            _ => 9000 + (l % 16) as u32,
        };
        assert_eq!(w.vgpr[1][l], want, "load lane {l}");
    }
    // Private stores stay per lane; the atomic then doubled every value. For
    // LDS and global, lanes sharing an address each stored then added.
    for l in (1..64usize).step_by(3) {
        let mut b = [0u8; 4];
        w.scratch
            .read_lane(l as u32, 128 + 4 * (l as u32 % 16), &mut b)
            .unwrap();
        assert_eq!(u32::from_le_bytes(b), 2 * l as u32, "private lane {l}");
        assert_eq!(w.vgpr[7][l], l as u32, "atomic returns the stored value");
    }
    let mut b = [0u8; 4];
    mem.read(g + 128 + 4 * 2, &mut b).unwrap();
    // Global dword 2 is stored by lanes 2, 50 (l % 16 == 2, l % 3 == 2):
    // the last store (lane 50) wins, then both add their lane number.
    assert_eq!(u32::from_le_bytes(b), 50 + 2 + 50);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// Arbitrary instruction words never panic the executor: every outcome is
    /// a normal end or a typed error.
    #[test]
    fn random_code_never_panics(
        words in proptest::collection::vec(proptest::prelude::any::<u32>(), 1..24),
        gfx10 in proptest::prelude::any::<bool>(),
        wave64 in proptest::prelude::any::<bool>(),
    ) {
        let mut code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        code.extend_from_slice(&[0x00, 0x00, 0x81, 0xbf]);
        let (gpu, size) = match (gfx10, wave64) {
            (false, _) => (Gpu::Gfx90a, 64),
            (true, false) => (Gpu::Gfx1030, 32),
            (true, true) => (Gpu::Gfx1010, 64),
        };
        let mut mem = GlobalMemory::new();
        let g = mem.allocate(8192).unwrap();
        let mut lds = Bytes::new(1024, Space::Lds);
        let _ = run_in(gpu, size, &code, &mem, &mut lds, 64, |w| {
            for l in 0..64 {
                for r in 0..32 {
                    w.vgpr[r][l] = (l as u32).wrapping_mul(0x9e37_79b9) ^ r as u32;
                }
            }
            w.sgpr[0] = g as u32;
            w.sgpr[1] = (g >> 32) as u32;
        });
    }
}

#[test]
fn gfx9_wide_atomics_and_half_arithmetic() {
    use amdgpu_sim::alu::{f16_to_f32, f32_to_f16};
    let code: Vec<u8> = [
        &[0x00, 0x80, 0x9d, 0xdd, 0x00, 0x02, 0x7f, 0x04][..], // global_atomic_umax_x2 v[4:5], v[0:1], v[2:3], off glc
        &[0x07, 0x11, 0x0c, 0x3e],                             // v_add_f16_e32 v6, v7, v8
        &[0x09, 0x00, 0x06, 0xd2, 0x07, 0x11, 0x1e, 0x84],     // v_fma_f16 v9, v7, v8, -v7
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let mut mem = GlobalMemory::new();
    let g = mem.allocate(64 * 8).unwrap();
    for l in 0..64u64 {
        mem.write(g + 8 * l, &(l << 40 | 5).to_le_bytes()).unwrap();
    }
    let mut lds = Bytes::new(0, Space::Lds);
    let w = run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 0, |w| {
        for l in 0..64usize {
            let a = g + 8 * l as u64;
            w.vgpr[0][l] = a as u32;
            w.vgpr[1][l] = (a >> 32) as u32;
            // Even lanes offer a larger value.
            let v: u64 = if l % 2 == 0 { (l as u64) << 40 | 9 } else { 1 };
            w.vgpr[2][l] = v as u32;
            w.vgpr[3][l] = (v >> 32) as u32;
            w.vgpr[7][l] = f32_to_f16(l as f32 * 0.75 - 3.0) as u32;
            w.vgpr[8][l] = f32_to_f16(1.0 / (l as f32 + 1.0)) as u32;
        }
    })
    .expect("runs");
    for l in 0..64usize {
        let mut b = [0u8; 8];
        mem.read(g + 8 * l as u64, &mut b).unwrap();
        let want = if l % 2 == 0 {
            (l as u64) << 40 | 9
        } else {
            (l as u64) << 40 | 5
        };
        assert_eq!(u64::from_le_bytes(b), want, "memory lane {l}");
        let old = w.vgpr[4][l] as u64 | (w.vgpr[5][l] as u64) << 32;
        assert_eq!(old, (l as u64) << 40 | 5, "returned old value lane {l}");
        let a = f16_to_f32(w.vgpr[7][l] as u16) as f64;
        let b = f16_to_f32(w.vgpr[8][l] as u16) as f64;
        assert_eq!(
            w.vgpr[6][l],
            amdgpu_sim::alu::f64_to_f16(a + b) as u32,
            "add lane {l}"
        );
        assert_eq!(
            w.vgpr[9][l],
            amdgpu_sim::alu::f64_to_f16(a.mul_add(b, -a)) as u32,
            "fma lane {l}"
        );
    }
}

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

/// `scratch_*` instructions address the lane's private memory with the
/// same swizzled layout the MUBUF private segment buffer uses.
#[test]
fn scratch_instructions_use_per_lane_private_memory() {
    let gfx9: Vec<u8> = [
        &[0x08, 0x40, 0x70, 0xdc, 0x01, 0x02, 0x7f, 0x00][..], // scratch_store_dword v1, v2, off offset:8
        &[0x08, 0x40, 0x50, 0xdc, 0x01, 0x00, 0x7f, 0x03], // scratch_load_dword v3, v1, off offset:8
        &[0x04, 0x40, 0x50, 0xdc, 0x00, 0x00, 0x00, 0x04], // scratch_load_dword v4, off, s0 offset:4
        &[0x00, 0x00, 0x81, 0xbf],
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x08, 0x40, 0x70, 0xdc, 0x01, 0x02, 0x7d, 0x00][..],
        &[0x08, 0x40, 0x30, 0xdc, 0x01, 0x00, 0x7d, 0x03],
        &[0x04, 0x40, 0x30, 0xdc, 0x00, 0x00, 0x00, 0x04],
        &[0x00, 0x00, 0x81, 0xbf],
    ]
    .concat();
    for (gpu, size, code) in [(Gpu::Gfx900, 64u32, gfx9), (Gpu::Gfx1030, 32, gfx10)] {
        let mem = GlobalMemory::new();
        let mut lds = Bytes::new(0, Space::Lds);
        let w = run_in(gpu, size, &code, &mem, &mut lds, 64, |w| {
            for l in 0..size as usize {
                w.vgpr[1][l] = 4 * (l as u32 % 4); // private address 8 + 0..12
                w.vgpr[2][l] = 700 + l as u32;
            }
            w.sgpr[0] = 8; // offset 4 + 8 = 12
        })
        .expect("runs");
        for l in 0..size as usize {
            assert_eq!(w.vgpr[3][l], 700 + l as u32, "{gpu} read back lane {l}");
            // Private dword 3 (byte 12) was written only by lanes with l % 4 == 1.
            let want = if l % 4 == 1 { 700 + l as u32 } else { 0 };
            assert_eq!(w.vgpr[4][l], want, "{gpu} sgpr-addressed lane {l}");
            // The swizzled backing store puts dword k of lane l at (k * size + l) * 4.
            let mut b = [0u8; 4];
            let k = 2 + l as u64 % 4;
            w.scratch
                .read_backing((k * size as u64 + l as u64) * 4, &mut b)
                .unwrap();
            assert_eq!(
                u32::from_le_bytes(b),
                700 + l as u32,
                "{gpu} swizzle lane {l}"
            );
        }
    }
}

#[test]
fn buffer_accesses_are_range_checked() {
    let code: Vec<u8> = [
        &[0x00, 0x10, 0x70, 0xe0, 0x00, 0x02, 0x00, 0x80][..], // buffer_store_dword v2, v0, s[0:3], 0 offen
        &[0x04, 0x10, 0x50, 0xe0, 0x00, 0x01, 0x00, 0x80], // buffer_load_dword v1, v0, s[0:3], 0 offen offset:4
        &[0x00, 0x00, 0x81, 0xbf],
    ]
    .concat();
    let mut mem = GlobalMemory::new();
    let g = mem.allocate(4096).unwrap();
    mem.fill(g, 4096, 0xee).unwrap();
    let mut lds = Bytes::new(0, Space::Lds);
    let w = run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 0, |w| {
        // A linear buffer of 16 bytes: base g, stride 0, NUM_RECORDS 16.
        w.sgpr[0] = g as u32;
        w.sgpr[1] = (g >> 32) as u32 & 0xffff;
        w.sgpr[2] = 16;
        w.sgpr[3] = 0;
        for l in 0..64 {
            w.vgpr[0][l] = 4 * l as u32;
            w.vgpr[2][l] = 300 + l as u32;
        }
    })
    .expect("runs");
    let mut b = vec![0u8; 32];
    mem.read(g, &mut b).unwrap();
    for k in 0..8usize {
        let v = u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]);
        let want = if k < 4 { 300 + k as u32 } else { 0xeeee_eeee };
        assert_eq!(v, want, "dword {k}: stores past NUM_RECORDS are dropped");
    }
    for l in 0..64usize {
        let want = if l < 3 { 301 + l as u32 } else { 0 };
        assert_eq!(
            w.vgpr[1][l], want,
            "lane {l}: loads past NUM_RECORDS read 0"
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

#[test]
fn traps_bad_branches_and_unallocated_registers_say_what_they_are() {
    // s_trap 2
    let err = run(Gpu::Gfx900, 64, &[0x02, 0x00, 0x92, 0xbf], |_| {}).unwrap_err();
    match &err {
        SimError::Trap { id, at } => {
            assert_eq!(*id, 2);
            assert_eq!(at.pc, BASE);
            assert!(at.inst.starts_with("s_trap"), "{}", at.inst);
        }
        other => panic!("expected a trap, got {other}"),
    }
    // s_branch 1 lands inside the 8-byte s_bfe_u32 that follows.
    let code = [
        &[0x01, 0x00, 0x82, 0xbf][..],
        &[0x05, 0xff, 0x84, 0x92, 0x08, 0x00, 0x04, 0x00],
        &[0x00, 0x00, 0x81, 0xbf],
    ]
    .concat();
    let err = run(Gpu::Gfx900, 64, &code, |_| {}).unwrap_err();
    match &err {
        SimError::BadBranch { target, at } => {
            assert_eq!(*target, BASE + 8);
            assert_eq!(at.pc, BASE, "reported at the branch");
            assert!(at.inst.starts_with("s_branch"), "{}", at.inst);
        }
        other => panic!("expected a bad branch, got {other}"),
    }
    // v_mov_b32 v40, 7 in a wave with 32 VGPRs.
    let code = [0x87, 0x02, 0x50, 0x7e, 0x00, 0x00, 0x81, 0xbf];
    let err = run(Gpu::Gfx900, 64, &code, |_| {}).unwrap_err();
    match &err {
        SimError::RegisterBeyondAllocation {
            register,
            allocated,
            ..
        } => {
            assert_eq!(register, "v40");
            assert_eq!(*allocated, 32);
        }
        other => panic!("expected a register beyond the allocation, got {other}"),
    }
}

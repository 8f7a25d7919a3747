//! Instruction semantics on small programs (encodings from
//! `llvm-mc-19 -show-encoding`, written here as bytes so the tests need no
//! LLVM), executed on a bare wave.
#![allow(clippy::needless_range_loop)]

use amdgpu_isa::Gpu;
use amdgpu_sim::memory::{Bytes, GlobalMemory};
use amdgpu_sim::{Mask, OrderedTurn, SimError, Space, Wait, Wave, WaveStatus};

mod support;
use support::BASE;

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
    support::run_paths(gpu, size, code, mem, lds, private, 1000, setup)
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

/// GWS and GDS encodings (llvm-mc-19 -show-encoding) for gfx900 and gfx1030:
/// the DS opcode sits one bit higher on GFX10, and `s_mov_b32` differs.
fn gds_code(gpu: Gpu, insts: &[&str]) -> Vec<u8> {
    let g10 = gpu == Gpu::Gfx1030;
    let enc = |s: &str| -> Vec<u8> {
        let (g9, g10e): (&[u8], &[u8]) = match s {
            "s_mov_b32 m0, 0x50000" => (
                &[0xff, 0x00, 0xfc, 0xbe, 0x00, 0x00, 0x05, 0x00],
                &[0xff, 0x03, 0xfc, 0xbe, 0x00, 0x00, 0x05, 0x00],
            ),
            "s_mov_b32 m0, 0" => (&[0x80, 0x00, 0xfc, 0xbe], &[0x80, 0x03, 0xfc, 0xbe]),
            "s_mov_b32 m0, 0x100" => (
                &[0xff, 0x00, 0xfc, 0xbe, 0x00, 0x01, 0x00, 0x00],
                &[0xff, 0x03, 0xfc, 0xbe, 0x00, 0x01, 0x00, 0x00],
            ),
            "ds_gws_init v0 offset:2 gds" => (
                &[0x02, 0x00, 0x33, 0xd9, 0x00, 0x00, 0x00, 0x00],
                &[0x02, 0x00, 0x66, 0xd8, 0x00, 0x00, 0x00, 0x00],
            ),
            "ds_gws_init v0 offset:21 gds" => (
                &[0x15, 0x00, 0x33, 0xd9, 0x00, 0x00, 0x00, 0x00],
                &[0x15, 0x00, 0x66, 0xd8, 0x00, 0x00, 0x00, 0x00],
            ),
            "ds_gws_sema_v offset:2 gds" => (
                &[0x02, 0x00, 0x35, 0xd9, 0x00, 0x00, 0x00, 0x00],
                &[0x02, 0x00, 0x6a, 0xd8, 0x00, 0x00, 0x00, 0x00],
            ),
            "ds_gws_sema_br v1 offset:2 gds" => (
                &[0x02, 0x00, 0x37, 0xd9, 0x01, 0x00, 0x00, 0x00],
                &[0x02, 0x00, 0x6e, 0xd8, 0x01, 0x00, 0x00, 0x00],
            ),
            "ds_gws_sema_p offset:2 gds" => (
                &[0x02, 0x00, 0x39, 0xd9, 0x00, 0x00, 0x00, 0x00],
                &[0x02, 0x00, 0x72, 0xd8, 0x00, 0x00, 0x00, 0x00],
            ),
            "ds_gws_sema_p offset:20 gds" => (
                &[0x14, 0x00, 0x39, 0xd9, 0x00, 0x00, 0x00, 0x00],
                &[0x14, 0x00, 0x72, 0xd8, 0x00, 0x00, 0x00, 0x00],
            ),
            "ds_gws_sema_release_all offset:9 gds" => (
                &[0x09, 0x00, 0x31, 0xd9, 0x00, 0x00, 0x00, 0x00],
                &[0x09, 0x00, 0x62, 0xd8, 0x00, 0x00, 0x00, 0x00],
            ),
            "ds_gws_barrier v0 offset:12 gds" => (
                &[0x0c, 0x00, 0x3b, 0xd9, 0x00, 0x00, 0x00, 0x00],
                &[0x0c, 0x00, 0x76, 0xd8, 0x00, 0x00, 0x00, 0x00],
            ),
            "ds_gws_barrier v0 offset:21 gds" => (
                &[0x15, 0x00, 0x3b, 0xd9, 0x00, 0x00, 0x00, 0x00],
                &[0x15, 0x00, 0x76, 0xd8, 0x00, 0x00, 0x00, 0x00],
            ),
            "ds_add_u32 v2, v3 gds" => (
                &[0x00, 0x00, 0x01, 0xd8, 0x02, 0x03, 0x00, 0x00],
                &[0x00, 0x00, 0x02, 0xd8, 0x02, 0x03, 0x00, 0x00],
            ),
            "ds_append v4 offset:16 gds" => (
                &[0x10, 0x00, 0x7d, 0xd9, 0x00, 0x00, 0x00, 0x04],
                &[0x10, 0x00, 0xfa, 0xd8, 0x00, 0x00, 0x00, 0x04],
            ),
            "ds_read_b32 v5, v2 gds" => (
                &[0x00, 0x00, 0x6d, 0xd8, 0x02, 0x00, 0x00, 0x05],
                &[0x00, 0x00, 0xda, 0xd8, 0x02, 0x00, 0x00, 0x05],
            ),
            "ds_ordered_count v6, v1 offset:772 gds" => (
                &[0x04, 0x03, 0x7f, 0xd9, 0x01, 0x00, 0x00, 0x06],
                &[0x04, 0x03, 0xfe, 0xd8, 0x01, 0x00, 0x00, 0x06],
            ),
            "s_endpgm" => (&[0x00, 0x00, 0x81, 0xbf], &[0x00, 0x00, 0x81, 0xbf]),
            other => panic!("no encoding for {other}"),
        };
        if g10 { g10e } else { g9 }.to_vec()
    };
    insts.iter().flat_map(|s| enc(s)).collect()
}

fn gds_setup(w: &mut Wave) {
    // Lanes 0..2 inactive: the first active lane is 3.
    w.exec = Mask(w.full_mask() & !0b111);
    for l in 0..64 {
        w.vgpr[0][l] = 100 + l as u32;
        w.vgpr[1][l] = 10 + l as u32;
        w.vgpr[2][l] = 4 * (l as u32 % 4);
        w.vgpr[3][l] = l as u32 + 1;
    }
}

#[test]
fn gws_semaphores_barriers_and_gds_memory() {
    for (gpu, size) in [(Gpu::Gfx900, 64u32), (Gpu::Gfx1030, 32)] {
        let code = gds_code(
            gpu,
            &[
                "s_mov_b32 m0, 0x50000",
                // Resource (M0[21:16] + offset0) % 64 = 7; values from lane 3.
                "ds_gws_init v0 offset:2 gds",
                "ds_gws_sema_v offset:2 gds",
                "ds_gws_sema_br v1 offset:2 gds",
                "ds_gws_sema_p offset:2 gds",
                "s_mov_b32 m0, 0",
                // Counter 0: this wave is the barrier's last arrival; it
                // flips the flag, re-arms the counter with its value and goes on.
                "ds_gws_barrier v0 offset:12 gds",
                "ds_gws_sema_release_all offset:9 gds",
                "ds_add_u32 v2, v3 gds",
                "ds_read_b32 v5, v2 gds",
                "s_mov_b32 m0, 0x100",
                "ds_append v4 offset:16 gds",
                "s_endpgm",
            ],
        );
        let mem = GlobalMemory::new();
        let mut lds = Bytes::new(0, Space::Lds);
        let w = run_in(gpu, size, &code, &mem, &mut lds, 0, gds_setup).expect("runs");
        assert_eq!(w.status, WaveStatus::Done, "{gpu}");
        let st = mem.gds().lock();
        let r7 = st.gws[7];
        // init 103, +1, +13 (lane 3's v1), -1.
        assert_eq!((r7.counter, r7.flag, r7.queued), (116, false, 0), "{gpu}");
        let r12 = st.gws[12];
        assert_eq!((r12.counter, r12.flag, r12.queued), (103, true, 0), "{gpu}");
        assert_eq!(st.gws[9].counter, 0, "{gpu}: release_all with no waiter");
        let active: Vec<usize> = (3..size as usize).collect();
        for k in 0..4usize {
            let want: u32 = active
                .iter()
                .filter(|&&l| l % 4 == k)
                .map(|&l| l as u32 + 1)
                .sum();
            let mut b = [0u8; 4];
            st.mem.read(4 * k as u64, &mut b).unwrap();
            assert_eq!(u32::from_le_bytes(b), want, "{gpu}: GDS dword {k}");
            for &l in active.iter().filter(|&&l| l % 4 == k) {
                assert_eq!(w.vgpr[5][l], want, "{gpu}: ds_read_b32 gds lane {l}");
            }
        }
        // ds_append: M0[15:0] + offset = 0x110 counts the 61 (29) active lanes.
        let mut b = [0u8; 4];
        st.mem.read(0x110, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), size - 3, "{gpu}");
        assert!(active.iter().all(|&l| w.vgpr[4][l] == 0), "{gpu}");
    }
}

#[test]
fn gws_waits_leave_the_wave_waiting() {
    for (gpu, size) in [(Gpu::Gfx900, 64u32), (Gpu::Gfx1030, 32)] {
        // A semaphore at 0: the wave waits, its PC after the instruction.
        let code = gds_code(
            gpu,
            &["s_mov_b32 m0, 0", "ds_gws_sema_p offset:20 gds", "s_endpgm"],
        );
        let mem = GlobalMemory::new();
        let mut lds = Bytes::new(0, Space::Lds);
        let w = run_in(gpu, size, &code, &mem, &mut lds, 0, gds_setup).expect("runs");
        assert_eq!(w.status, WaveStatus::Waiting, "{gpu}");
        assert_eq!(w.wait, Some(Wait::Semaphore { resource: 20 }), "{gpu}");
        assert_eq!(w.pc, BASE + 12, "{gpu}");
        assert!(
            !mem.gds().poll(Wait::Semaphore { resource: 20 }),
            "{gpu}: nothing released it"
        );
        assert_eq!(mem.gds().lock().gws[20].queued, 1);
        // A barrier of two waves (initialised with 1): the first arrival waits.
        let code = gds_code(
            gpu,
            &[
                "s_mov_b32 m0, 0",
                "ds_gws_init v0 offset:21 gds",
                "ds_gws_barrier v0 offset:21 gds",
                "s_endpgm",
            ],
        );
        let mem = GlobalMemory::new();
        let w = run_in(gpu, size, &code, &mem, &mut lds, 0, |w| {
            w.exec = Mask(w.full_mask());
            for l in 0..64 {
                w.vgpr[0][l] = 1;
            }
        })
        .expect("runs");
        assert_eq!(w.status, WaveStatus::Waiting, "{gpu}");
        assert_eq!(
            w.wait,
            Some(Wait::Barrier {
                resource: 21,
                flag: false
            }),
            "{gpu}"
        );
        let r = mem.gds().lock().gws[21];
        assert_eq!((r.counter, r.flag, r.queued), (0, false, 1), "{gpu}");
    }
}

#[test]
fn ordered_count_waits_for_its_turn_then_adds() {
    for (gpu, size) in [(Gpu::Gfx900, 64u32), (Gpu::Gfx1030, 32)] {
        let code = gds_code(
            gpu,
            &[
                "s_mov_b32 m0, 0x100",
                "ds_ordered_count v6, v1 offset:772 gds",
                "s_endpgm",
            ],
        );
        let ordered_at = BASE + 8;
        // Not its turn: it waits with its PC at the instruction, not counted.
        let mem = GlobalMemory::new();
        let mut lds = Bytes::new(0, Space::Lds);
        let w = run_in(gpu, size, &code, &mem, &mut lds, 0, gds_setup).expect("runs");
        assert_eq!(w.status, WaveStatus::Waiting, "{gpu}");
        assert_eq!(
            (w.wait, w.pc, w.executed),
            (Some(Wait::Ordered), ordered_at, 1)
        );
        // Its turn: GDS[M0 + offset0] = GDS[0x104] += lane 3's v1, every
        // active lane gets the value before, and the turn is released.
        let mem = GlobalMemory::new();
        mem.gds()
            .lock()
            .mem
            .write(0x104, &40u32.to_le_bytes())
            .unwrap();
        let w = run_in(gpu, size, &code, &mem, &mut lds, 0, |w| {
            gds_setup(w);
            w.ordered = OrderedTurn::Granted;
        })
        .expect("runs");
        assert_eq!(w.status, WaveStatus::Done, "{gpu}");
        assert_eq!(w.ordered, OrderedTurn::Released, "{gpu}");
        assert!((3..size as usize).all(|l| w.vgpr[6][l] == 40), "{gpu}");
        assert!(
            (0..3).all(|l| w.vgpr[6][l] == 0),
            "{gpu}: inactive lanes kept"
        );
        let mut b = [0u8; 4];
        mem.gds().lock().mem.read(0x104, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 53, "{gpu}");
    }
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
    let mem = GlobalMemory::new();
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
        let mem = GlobalMemory::new();
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
    let mem = GlobalMemory::new();
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
    let mem = GlobalMemory::new();
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

/// Reads `N` little-endian bytes of `m` at `a` as a u64.
fn le(m: &[u8], a: usize, n: usize) -> u64 {
    let mut v = 0u64;
    for k in (0..n).rev() {
        v = v << 8 | m[a + k] as u64;
    }
    v
}

/// Writes the low `n` bytes of `v` to `m` at `a`, little-endian.
fn set_le(m: &mut [u8], a: usize, n: usize, v: u64) {
    for k in 0..n {
        m[a + k] = (v >> (8 * k)) as u8;
    }
}

/// The two-address LDS forms, the 64-bit LDS atomics, `ds_mskor`,
/// `ds_wrxchg2*` and the D16 forms, checked against the Vega ISA
/// pseudo-code (`tmp = MEM[ADDR]; MEM[ADDR] = op(tmp, DATA, DATA2); RETURN_DATA
/// = tmp`) run on a copy of LDS. (Before: every one of them was reported as
/// unimplemented; the `ds_read2`/`ds_write2` code was unreachable.)
fn ds_forms(gpu: Gpu, size: u32, code: &[u8]) {
    const PRESET: [usize; 17] = [
        4, 5, 10, 11, 12, 13, 15, 16, 18, 19, 20, 21, 22, 23, 26, 27, 28,
    ];
    let preset = |r: usize| {
        if PRESET.contains(&r) {
            0xdead_0000 + r as u32
        } else {
            0
        }
    };
    let n = size as usize;
    // Two lanes stay inactive: their registers and LDS must not change.
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        0xffff_ffdf
    };
    let mut lds = Bytes::new(32768, Space::Lds);
    let mut init = vec![0u8; 32768];
    for (k, b) in init.iter_mut().enumerate() {
        *b = (k as u32).wrapping_mul(0x9e37_79b1).rotate_right(13) as u8;
    }
    lds.write(0, &init).unwrap();
    let c64 = |l: usize| -> u64 {
        // Operands for the 64-bit atomics: negative, small, huge, zero.
        match l % 4 {
            0 => (-(l as i64) * 0x1_0000_0001) as u64,
            1 => l as u64,
            2 => 0xfedc_ba98_7654_3210 ^ l as u64,
            _ => 0,
        }
    };
    let a64 = |l: usize| 0x0123_4567_89ab_cdef_u64.wrapping_mul(l as u64 + 1);
    let b64 = |l: usize| !a64(l) ^ 0x5555;
    let mem = GlobalMemory::new();
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.exec = Mask(exec);
        w.vgpr.resize(64, [0; 64]);
        for l in 0..64 {
            let base = 256 * l as u32;
            let set64 = |w: &mut Wave, r: usize, v: u64| {
                w.vgpr[r][l] = v as u32;
                w.vgpr[r + 1][l] = (v >> 32) as u32;
            };
            w.vgpr[1][l] = base;
            w.vgpr[2][l] = 0x1000_0000 + l as u32;
            w.vgpr[3][l] = 0x2000_0000 + 3 * l as u32;
            set64(w, 6, a64(l));
            set64(w, 8, b64(l));
            w.vgpr[14][l] = 16384 + 4 * l as u32;
            w.vgpr[17][l] = 20480 + 8 * l as u32;
            w.vgpr[44][l] = 24576 + 8 * l as u32;
            set64(w, 24, c64(l));
            // Even lanes compare equal to what LDS holds at base + 88.
            let cmp = if l % 2 == 0 {
                le(&init, base as usize + 88, 8)
            } else {
                0x1111
            };
            set64(w, 30, cmp);
            set64(w, 32, 0xaaaa_bbbb_cccc_dddd ^ l as u64);
            for r in PRESET {
                w.vgpr[r][l] = 0xdead_0000 + r as u32;
            }
            w.vgpr[45][l] = 0x4321_8765;
            w.vgpr[46][l] = 0x4321_8765;
            w.vgpr[47][l] = 0xa1b2_c3d4;
            w.vgpr[54][l] = 0xdead_0036;
        }
    })
    .expect("runs");
    // The model: each instruction's pseudo-code, lane by lane, on a copy.
    let mut m = init.clone();
    let mut got = vec![[0u64; 64]; 64];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let a = 256 * l;
        let (v2, v3) = (0x1000_0000 + l as u64, 0x2000_0000 + 3 * l as u64);
        let (a6, b8, c) = (a64(l), b64(l), c64(l));
        let cmp = if l % 2 == 0 {
            le(&init, a + 88, 8)
        } else {
            0x1111
        };
        let new = 0xaaaa_bbbb_cccc_dddd ^ l as u64;
        let g = &mut got[l];
        set_le(&mut m, a + 4, 4, v2);
        set_le(&mut m, a + 12, 4, v3);
        g[4] = le(&m, a + 12, 4);
        g[5] = le(&m, a + 4, 4);
        set_le(&mut m, a + 32, 8, a6);
        set_le(&mut m, a + 48, 8, b8);
        g[10] = le(&m, a + 48, 8);
        g[12] = le(&m, a + 32, 8);
        let s = 16384 + 4 * l;
        set_le(&mut m, s + 256, 4, v2);
        set_le(&mut m, s + 512, 4, v3);
        g[15] = le(&m, s + 512, 4);
        g[16] = le(&m, s + 256, 4);
        let s = 20480 + 8 * l;
        set_le(&mut m, s + 512, 8, a6);
        set_le(&mut m, s + 1536, 8, b8);
        g[18] = le(&m, s + 1536, 8);
        g[20] = le(&m, s + 512, 8);
        // Atomics: (register, offset, new value from old).
        type Update<'a> = &'a dyn Fn(u64) -> u64;
        let atomics: [(usize, usize, Update); 14] = [
            (22, 64, &|o: u64| o.wrapping_add(c)),
            (26, 72, &|o: u64| (o as i64).max(c as i64) as u64),
            (48, 80, &|o: u64| if o == 0 || o > c { c } else { o - 1 }),
            (28, 88, &|o: u64| if o == cmp { new } else { o }),
            (34, 96, &|o: u64| (o & !cmp) | new),
            (36, 112, &|_| c),
            (0, 128, &|o: u64| o ^ c),
            (0, 136, &|o: u64| o.wrapping_sub(c)),
            (0, 144, &|o: u64| c.wrapping_sub(o)),
            (0, 152, &|o: u64| if o >= c { 0 } else { o + 1 }),
            (0, 160, &|o: u64| o.min(c)),
            (50, 168, &|o: u64| (o as i64).min(c as i64) as u64),
            (0, 176, &|o: u64| if o == cmp { new } else { o }),
            (52, 184, &|o: u64| o & c),
        ];
        for (r, off, f) in atomics {
            let old = le(&m, a + off, 8);
            set_le(&mut m, a + off, 8, f(old));
            g[r] = old;
        }
        let old = le(&m, a + 104, 4);
        set_le(&mut m, a + 104, 4, (old & !v2) | v3);
        let old = le(&m, a + 192, 8);
        set_le(&mut m, a + 192, 8, old | c);
        let old = le(&m, a + 200, 8);
        set_le(&mut m, a + 200, 8, old.max(c));
        let old = le(&m, a + 208, 4);
        set_le(&mut m, a + 208, 4, (old & !v2) | v3);
        g[54] = old;
        // ds_wrxchg2_rtn_b32: both old values, then both writes.
        g[38] = le(&m, a + 120, 4);
        g[39] = le(&m, a + 124, 4);
        set_le(&mut m, a + 120, 4, v2);
        set_le(&mut m, a + 124, 4, v3);
        let s = 24576 + 8 * l;
        g[40] = le(&m, s + 512, 8);
        g[42] = le(&m, s + 1024, 8);
        set_le(&mut m, s + 512, 8, a6);
        set_le(&mut m, s + 1024, 8, b8);
        // D16: the loaded half replaces one half of the register.
        g[45] = (le(&m, a + 4, 2) << 16) | 0x8765;
        g[46] = 0x4321_0000 | (le(&m, a + 13, 1) as u8 as i8 as i16 as u16 as u64);
        set_le(&mut m, a + 216, 2, 0xa1b2);
        set_le(&mut m, a + 220, 1, 0xb2);
    }
    let mut after = vec![0u8; 32768];
    lds.read(0, &mut after).unwrap();
    for (k, (x, y)) in after.iter().zip(&m).enumerate() {
        assert_eq!(x, y, "{gpu}: LDS byte {k:#x}");
    }
    let wide = [10, 12, 18, 20, 22, 26, 28, 34, 36, 40, 42, 48, 50, 52];
    for l in 0..n {
        let active = (exec >> l) & 1 != 0;
        for r in [4, 5, 15, 16, 38, 39, 45, 46, 54] {
            let want = if active {
                got[l][r] as u32
            } else {
                match r {
                    45 | 46 => 0x4321_8765,
                    54 => 0xdead_0036,
                    _ => preset(r),
                }
            };
            assert_eq!(w.vgpr[r][l], want, "{gpu} lane {l} v{r}");
        }
        for r in wide {
            let v = w.vgpr[r][l] as u64 | (w.vgpr[r + 1][l] as u64) << 32;
            let want = if active {
                got[l][r]
            } else {
                preset(r) as u64 | (preset(r + 1) as u64) << 32
            };
            assert_eq!(v, want, "{gpu} lane {l} v[{r}:{}]", r + 1);
        }
    }
}

#[test]
fn gfx9_ds_two_address_wide_atomics_and_d16() {
    let code: Vec<u8> = [
        &[0x01, 0x03, 0x1c, 0xd8, 0x01, 0x02, 0x03, 0x00][..], // ds_write2_b32 v1, v2, v3 offset0:1 offset1:3
        &[0x03, 0x01, 0x6e, 0xd8, 0x01, 0x00, 0x00, 0x04], // ds_read2_b32 v[4:5], v1 offset0:3 offset1:1
        &[0x04, 0x06, 0x9c, 0xd8, 0x01, 0x06, 0x08, 0x00], // ds_write2_b64 v1, v[6:7], v[8:9] offset0:4 offset1:6
        &[0x06, 0x04, 0xee, 0xd8, 0x01, 0x00, 0x00, 0x0a], // ds_read2_b64 v[10:13], v1 offset0:6 offset1:4
        &[0x01, 0x02, 0x1e, 0xd8, 0x0e, 0x02, 0x03, 0x00], // ds_write2st64_b32 v14, v2, v3 offset0:1 offset1:2
        &[0x02, 0x01, 0x70, 0xd8, 0x0e, 0x00, 0x00, 0x0f], // ds_read2st64_b32 v[15:16], v14 offset0:2 offset1:1
        &[0x01, 0x03, 0x9e, 0xd8, 0x11, 0x06, 0x08, 0x00], // ds_write2st64_b64 v17, v[6:7], v[8:9] offset0:1 offset1:3
        &[0x03, 0x01, 0xf0, 0xd8, 0x11, 0x00, 0x00, 0x12], // ds_read2st64_b64 v[18:21], v17 offset0:3 offset1:1
        &[0x40, 0x00, 0xc0, 0xd8, 0x01, 0x18, 0x00, 0x16], // ds_add_rtn_u64 v[22:23], v1, v[24:25] offset:64
        &[0x48, 0x00, 0xcc, 0xd8, 0x01, 0x18, 0x00, 0x1a], // ds_max_rtn_i64 v[26:27], v1, v[24:25] offset:72
        &[0x50, 0x00, 0xc8, 0xd8, 0x01, 0x18, 0x00, 0x30], // ds_dec_rtn_u64 v[48:49], v1, v[24:25] offset:80
        &[0x58, 0x00, 0xe0, 0xd8, 0x01, 0x1e, 0x20, 0x1c], // ds_cmpst_rtn_b64 v[28:29], v1, v[30:31], v[32:33] offset:88
        &[0x60, 0x00, 0xd8, 0xd8, 0x01, 0x1e, 0x20, 0x22], // ds_mskor_rtn_b64 v[34:35], v1, v[30:31], v[32:33] offset:96
        &[0x68, 0x00, 0x18, 0xd8, 0x01, 0x02, 0x03, 0x00], // ds_mskor_b32 v1, v2, v3 offset:104
        &[0x70, 0x00, 0xda, 0xd8, 0x01, 0x18, 0x00, 0x24], // ds_wrxchg_rtn_b64 v[36:37], v1, v[24:25] offset:112
        &[0x1e, 0x1f, 0x5c, 0xd8, 0x01, 0x02, 0x03, 0x26], // ds_wrxchg2_rtn_b32 v[38:39], v1, v2, v3 offset0:30 offset1:31
        &[0x01, 0x02, 0xde, 0xd8, 0x2c, 0x06, 0x08, 0x28], // ds_wrxchg2st64_rtn_b64 v[40:43], v44, v[6:7], v[8:9] offset0:1 offset1:2
        &[0x80, 0x00, 0x96, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_xor_b64 v1, v[24:25] offset:128
        &[0x88, 0x00, 0x82, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_sub_u64 v1, v[24:25] offset:136
        &[0x90, 0x00, 0x84, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_rsub_u64 v1, v[24:25] offset:144
        &[0x98, 0x00, 0x86, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_inc_u64 v1, v[24:25] offset:152
        &[0xa0, 0x00, 0x8e, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_min_u64 v1, v[24:25] offset:160
        &[0xa8, 0x00, 0xca, 0xd8, 0x01, 0x18, 0x00, 0x32], // ds_min_rtn_i64 v[50:51], v1, v[24:25] offset:168
        &[0xb0, 0x00, 0xa0, 0xd8, 0x01, 0x1e, 0x20, 0x00], // ds_cmpst_b64 v1, v[30:31], v[32:33] offset:176
        &[0xb8, 0x00, 0xd2, 0xd8, 0x01, 0x18, 0x00, 0x34], // ds_and_rtn_b64 v[52:53], v1, v[24:25] offset:184
        &[0xc0, 0x00, 0x94, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_or_b64 v1, v[24:25] offset:192
        &[0xc8, 0x00, 0x90, 0xd8, 0x01, 0x18, 0x00, 0x00], // ds_max_u64 v1, v[24:25] offset:200
        &[0xd0, 0x00, 0x58, 0xd8, 0x01, 0x02, 0x03, 0x36], // ds_mskor_rtn_b32 v54, v1, v2, v3 offset:208
        &[0x04, 0x00, 0xb6, 0xd8, 0x01, 0x00, 0x00, 0x2d], // ds_read_u16_d16_hi v45, v1 offset:4
        &[0x0d, 0x00, 0xb0, 0xd8, 0x01, 0x00, 0x00, 0x2e], // ds_read_i8_d16 v46, v1 offset:13
        &[0xd8, 0x00, 0xaa, 0xd8, 0x01, 0x2f, 0x00, 0x00], // ds_write_b16_d16_hi v1, v47 offset:216
        &[0xdc, 0x00, 0xa8, 0xd8, 0x01, 0x2f, 0x00, 0x00], // ds_write_b8_d16_hi v1, v47 offset:220
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    ds_forms(Gpu::Gfx900, 64, &code);
}

#[test]
fn gfx10_ds_two_address_wide_atomics_and_d16() {
    let code: Vec<u8> = [
        &[0x01, 0x03, 0x38, 0xd8, 0x01, 0x02, 0x03, 0x00][..], // ds_write2_b32 v1, v2, v3 offset0:1 offset1:3
        &[0x03, 0x01, 0xdc, 0xd8, 0x01, 0x00, 0x00, 0x04], // ds_read2_b32 v[4:5], v1 offset0:3 offset1:1
        &[0x04, 0x06, 0x38, 0xd9, 0x01, 0x06, 0x08, 0x00], // ds_write2_b64 v1, v[6:7], v[8:9] offset0:4 offset1:6
        &[0x06, 0x04, 0xdc, 0xd9, 0x01, 0x00, 0x00, 0x0a], // ds_read2_b64 v[10:13], v1 offset0:6 offset1:4
        &[0x01, 0x02, 0x3c, 0xd8, 0x0e, 0x02, 0x03, 0x00], // ds_write2st64_b32 v14, v2, v3 offset0:1 offset1:2
        &[0x02, 0x01, 0xe0, 0xd8, 0x0e, 0x00, 0x00, 0x0f], // ds_read2st64_b32 v[15:16], v14 offset0:2 offset1:1
        &[0x01, 0x03, 0x3c, 0xd9, 0x11, 0x06, 0x08, 0x00], // ds_write2st64_b64 v17, v[6:7], v[8:9] offset0:1 offset1:3
        &[0x03, 0x01, 0xe0, 0xd9, 0x11, 0x00, 0x00, 0x12], // ds_read2st64_b64 v[18:21], v17 offset0:3 offset1:1
        &[0x40, 0x00, 0x80, 0xd9, 0x01, 0x18, 0x00, 0x16], // ds_add_rtn_u64 v[22:23], v1, v[24:25] offset:64
        &[0x48, 0x00, 0x98, 0xd9, 0x01, 0x18, 0x00, 0x1a], // ds_max_rtn_i64 v[26:27], v1, v[24:25] offset:72
        &[0x50, 0x00, 0x90, 0xd9, 0x01, 0x18, 0x00, 0x30], // ds_dec_rtn_u64 v[48:49], v1, v[24:25] offset:80
        &[0x58, 0x00, 0xc0, 0xd9, 0x01, 0x1e, 0x20, 0x1c], // ds_cmpst_rtn_b64 v[28:29], v1, v[30:31], v[32:33] offset:88
        &[0x60, 0x00, 0xb0, 0xd9, 0x01, 0x1e, 0x20, 0x22], // ds_mskor_rtn_b64 v[34:35], v1, v[30:31], v[32:33] offset:96
        &[0x68, 0x00, 0x30, 0xd8, 0x01, 0x02, 0x03, 0x00], // ds_mskor_b32 v1, v2, v3 offset:104
        &[0x70, 0x00, 0xb4, 0xd9, 0x01, 0x18, 0x00, 0x24], // ds_wrxchg_rtn_b64 v[36:37], v1, v[24:25] offset:112
        &[0x1e, 0x1f, 0xb8, 0xd8, 0x01, 0x02, 0x03, 0x26], // ds_wrxchg2_rtn_b32 v[38:39], v1, v2, v3 offset0:30 offset1:31
        &[0x01, 0x02, 0xbc, 0xd9, 0x2c, 0x06, 0x08, 0x28], // ds_wrxchg2st64_rtn_b64 v[40:43], v44, v[6:7], v[8:9] offset0:1 offset1:2
        &[0x80, 0x00, 0x2c, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_xor_b64 v1, v[24:25] offset:128
        &[0x88, 0x00, 0x04, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_sub_u64 v1, v[24:25] offset:136
        &[0x90, 0x00, 0x08, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_rsub_u64 v1, v[24:25] offset:144
        &[0x98, 0x00, 0x0c, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_inc_u64 v1, v[24:25] offset:152
        &[0xa0, 0x00, 0x1c, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_min_u64 v1, v[24:25] offset:160
        &[0xa8, 0x00, 0x94, 0xd9, 0x01, 0x18, 0x00, 0x32], // ds_min_rtn_i64 v[50:51], v1, v[24:25] offset:168
        &[0xb0, 0x00, 0x40, 0xd9, 0x01, 0x1e, 0x20, 0x00], // ds_cmpst_b64 v1, v[30:31], v[32:33] offset:176
        &[0xb8, 0x00, 0xa4, 0xd9, 0x01, 0x18, 0x00, 0x34], // ds_and_rtn_b64 v[52:53], v1, v[24:25] offset:184
        &[0xc0, 0x00, 0x28, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_or_b64 v1, v[24:25] offset:192
        &[0xc8, 0x00, 0x20, 0xd9, 0x01, 0x18, 0x00, 0x00], // ds_max_u64 v1, v[24:25] offset:200
        &[0xd0, 0x00, 0xb0, 0xd8, 0x01, 0x02, 0x03, 0x36], // ds_mskor_rtn_b32 v54, v1, v2, v3 offset:208
        &[0x04, 0x00, 0x9c, 0xda, 0x01, 0x00, 0x00, 0x2d], // ds_read_u16_d16_hi v45, v1 offset:4
        &[0x0d, 0x00, 0x90, 0xda, 0x01, 0x00, 0x00, 0x2e], // ds_read_i8_d16 v46, v1 offset:13
        &[0xd8, 0x00, 0x84, 0xda, 0x01, 0x2f, 0x00, 0x00], // ds_write_b16_d16_hi v1, v47 offset:216
        &[0xdc, 0x00, 0x80, 0xda, 0x01, 0x2f, 0x00, 0x00], // ds_write_b8_d16_hi v1, v47 offset:220
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    ds_forms(Gpu::Gfx1030, 32, &code);
}

/// The second address of a two-address form is bounds-checked like every
/// LDS access: past the end is a fault naming the lane; nothing of a
/// faulting store is half-done for lanes after it. GDS is reported.
#[test]
fn ds_two_address_bounds_and_gds() {
    let expect_fault = |gpu: Gpu, size: u32, code: &[u8], lane: u32, base: u32, addr: u64| {
        let mem = GlobalMemory::new();
        let mut lds = Bytes::new(1024, Space::Lds);
        let err = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
            for l in 0..64 {
                w.vgpr[1][l] = if l as u32 == lane { base } else { 0 };
                w.vgpr[4][l] = 0x1111_1111;
                w.vgpr[6][l] = 0x2222_2222;
            }
        })
        .unwrap_err();
        match err {
            SimError::Fault { fault, lane: l, .. } => {
                assert_eq!(l, lane, "{gpu}");
                assert_eq!(fault.addr, addr, "{gpu}");
                assert_eq!(fault.space, Space::Lds);
            }
            other => panic!("{gpu}: {other}"),
        }
        lds
    };
    // 4 + 255 * 4 = 1024: the first byte past a 1024-byte LDS.
    let read9: Vec<u8> = [
        &[0x00, 0xff, 0x6e, 0xd8, 0x01, 0x00, 0x00, 0x04][..], // ds_read2_b32 v[4:5], v1 offset1:255
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let read10: Vec<u8> = [
        &[0x00, 0xff, 0xdc, 0xd8, 0x01, 0x00, 0x00, 0x04][..], // ds_read2_b32 v[4:5], v1 offset1:255
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    expect_fault(Gpu::Gfx900, 64, &read9, 7, 4, 1024);
    expect_fault(Gpu::Gfx1030, 32, &read10, 7, 4, 1024);
    // Lane 3: 516 + 64 * 8 = 1028. Lanes 0..3 wrote both elements (at 0
    // and 512, the last lane's values winning), lane 3 its first one.
    let write9: Vec<u8> = [
        &[0x00, 0x01, 0x9e, 0xd8, 0x01, 0x04, 0x06, 0x00][..], // ds_write2st64_b64 v1, v[4:5], v[6:7] offset1:1
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let lds = expect_fault(Gpu::Gfx900, 64, &write9, 3, 516, 1028);
    let word = |a: u64| {
        let mut b = [0u8; 4];
        lds.read(a, &mut b).unwrap();
        u32::from_le_bytes(b)
    };
    assert_eq!(word(0), 0x1111_1111, "first element of lanes 0..2");
    assert_eq!(word(512), 0x2222_2222, "second element of lanes 0..2");
    assert_eq!(word(516), 0x1111_1111, "lane 3's first element");
    assert_eq!(word(1020), 0, "nothing past lane 3's fault");
    // The gds form works on GDS memory: ds_add_u64 at v2 + 16 = 16 for
    // every lane adds 64 times v[4:5] there, and LDS is not touched.
    let gds: Vec<u8> = [
        &[0x10, 0x00, 0x81, 0xd8, 0x02, 0x04, 0x00, 0x00][..], // ds_add_u64 v2, v[4:5] offset:16 gds
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(256, Space::Lds);
    run_in(Gpu::Gfx900, 64, &gds, &mem, &mut lds, 0, |w| {
        for l in 0..64 {
            w.vgpr[4][l] = 0x8000_0001;
            w.vgpr[5][l] = 1;
        }
    })
    .expect("runs");
    let mut b = [0u8; 8];
    mem.gds().lock().mem.read(16, &mut b).unwrap();
    assert_eq!(u64::from_le_bytes(b), 64 * 0x1_8000_0001);
    assert!(lds.as_slice().iter().all(|&b| b == 0), "LDS untouched");
}

/// The gds bit of a DS instruction selects the global data share (GDS
/// memory), not LDS. (Once `ds_add_u32 ... gds` silently added into LDS.)
/// An access past the 64 KiB of GDS is a fault in the GDS space.
#[test]
fn ds_gds_bit_selects_gds_memory() {
    let gds32: Vec<u8> = [
        &[0x00, 0x00, 0x01, 0xd8, 0x02, 0x03, 0x00, 0x00][..], // ds_add_u32 v2, v3 gds
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(256, Space::Lds);
    run_in(Gpu::Gfx900, 64, &gds32, &mem, &mut lds, 0, |w| {
        for l in 0..64 {
            w.vgpr[2][l] = 4 * (l as u32 % 2);
            w.vgpr[3][l] = 5;
        }
    })
    .expect("runs");
    assert!(lds.as_slice().iter().all(|&b| b == 0), "LDS untouched");
    let st = mem.gds().lock();
    let word = |a: u64| {
        let mut b = [0u8; 4];
        st.mem.read(a, &mut b).unwrap();
        u32::from_le_bytes(b)
    };
    assert_eq!((word(0), word(4), word(8)), (160, 160, 0));
    drop(st);
    let err = run_in(Gpu::Gfx900, 64, &gds32, &mem, &mut lds, 0, |w| {
        for l in 0..64 {
            w.vgpr[2][l] = 0x1_0000 - 4 + 4 * (l as u32 / 63);
        }
    })
    .unwrap_err();
    assert!(
        matches!(&err, SimError::Fault { fault, lane: 63, .. } if fault.space == Space::Gds),
        "{err}"
    );
}

/// Interesting f16 inputs: zeros, denormals, the largest finite value,
/// infinities, quiet and signalling NaNs, halves, negatives.
const HALVES: [u16; 32] = [
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3400, 0x0001, 0x03ff, 0x8200, 0x7bff, 0xfbff, 0x7c00,
    0xfc00, 0x7e00, 0x7d01, 0xfe33, 0x4100, 0xc100, 0x2e66, 0x4200, 0x5640, 0xb800, 0x4b00, 0x0400,
    0x4c00, 0xcc00, 0xce40, 0x3555, 0x4e00, 0xd400, 0x3bff, 0x2001,
];

fn hv(h: u16) -> f64 {
    amdgpu_sim::alu::f16_to_f32(h) as f64
}

/// Rounds to f16; a NaN produced from non-NaN inputs is 0xfe00 (the value
/// the guides give V_DIV_FIXUP_F16 for 0/0).
fn rnd16(v: f64) -> u16 {
    if v.is_nan() {
        0xfe00
    } else {
        amdgpu_sim::alu::f64_to_f16(v)
    }
}

fn is_nan16(h: u16) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
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

fn same_f32(a: u32, b: f32) -> bool {
    a == b.to_bits() || f32::from_bits(a).is_nan() && b.is_nan()
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

/// `v_trig_preop_f64`: segment `s` of 2/PI is the 53 bits starting at bit
/// 53s; large inputs move the window by `exponent - 1077` bits and from
/// exponent 1968 scale the result by 2^128. Checked against the segments of
/// 1.0 themselves (bits reassembled with integer shifts), against
/// `FRAC_2_PI`, and for NaN. (Before: unimplemented.)
fn trig_preop(gpu: Gpu, size: u32, code: &[u8]) {
    let x60 = f64::powi(2.0, 60);
    let x950 = f64::powi(2.0, 950);
    let input = |l: usize| -> (f64, u32) {
        match l {
            0..=19 => (1.0, l as u32),
            20 => (-1.0, 0),
            21 => (x60, 0),
            22 => (x950, 0),
            23 => (f64::from_bits(0x7ff0_0000_0000_0005), 0),
            24 => (1.0, 32 + 3), // S1[4:0]
            _ => (0.5 * l as f64, (l % 4) as u32),
        }
    };
    let w = run(gpu, size, code, |w| {
        for l in 0..64 {
            let (x, s) = input(l);
            w.vgpr[0][l] = x.to_bits() as u32;
            w.vgpr[1][l] = (x.to_bits() >> 32) as u32;
            w.vgpr[2][l] = s;
        }
    })
    .expect("runs");
    let get =
        |r: usize, l: usize| f64::from_bits(w.vgpr[r][l] as u64 | (w.vgpr[r + 1][l] as u64) << 32);
    // Segment k of 1.0 as a 53-bit integer.
    let seg = |k: usize| -> u128 {
        let m = get(4, k) * f64::powi(2.0, 53 * (k as i32 + 1));
        assert!(
            m.fract() == 0.0 && m < f64::powi(2.0, 53),
            "segment {k} is 53 bits"
        );
        m as u128
    };
    assert_eq!(
        get(4, 0).to_bits(),
        std::f64::consts::FRAC_2_PI.to_bits() - 1
    );
    // Bits b..b+53 of 2/PI from the segments of 1.0.
    let window = |b: usize| -> f64 {
        let (k, o) = (b / 53, b % 53);
        let both = seg(k) << 53 | seg(k + 1);
        ((both >> (53 - o)) & ((1 << 53) - 1)) as f64
    };
    for l in 0..size as usize {
        let (x, s) = input(l);
        let r = get(4, l);
        let want = match l {
            20 | 24 => get(4, (s & 31) as usize),
            21 => window(6) * f64::powi(2.0, -59),
            22 => window(896) * f64::powi(2.0, -53 - 896) * f64::powi(2.0, 128),
            23 => f64::from_bits(0x7ff8_0000_0000_0005),
            l if l < 20 => r,
            _ => get(4, s as usize),
        };
        assert_eq!(
            r.to_bits(),
            want.to_bits(),
            "{gpu} lane {l}: x = {x:e}, segment {s}"
        );
        // -|x| with segment 1 (inline constant): the sign does not matter.
        let want6 = if l == 23 {
            f64::from_bits(0xfff8_0000_0000_0005)
        } else if x.abs() < x60 {
            get(4, 1)
        } else {
            continue;
        };
        assert_eq!(get(6, l).to_bits(), want6.to_bits(), "{gpu} lane {l} -|x|");
    }
}

#[test]
fn trig_preop_f64_segments() {
    let gfx9: Vec<u8> = [
        &[0x04, 0x00, 0x92, 0xd2, 0x00, 0x05, 0x02, 0x00][..], // v_trig_preop_f64 v[4:5], v[0:1], v2
        &[0x06, 0x01, 0x92, 0xd2, 0x00, 0x03, 0x01, 0x20], // v_trig_preop_f64 v[6:7], -|v[0:1]|, 1
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x04, 0x00, 0x74, 0xd5, 0x00, 0x05, 0x02, 0x00][..], // v_trig_preop_f64 v[4:5], v[0:1], v2
        &[0x06, 0x01, 0x74, 0xd5, 0x00, 0x03, 0x01, 0x20], // v_trig_preop_f64 v[6:7], -|v[0:1]|, 1
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    trig_preop(Gpu::Gfx900, 64, &gfx9);
    trig_preop(Gpu::Gfx1030, 32, &gfx10);
    // Segment 20 of 1.0 is a denormal that would round: reported.
    let err = run(Gpu::Gfx900, 64, &gfx9, |w| {
        for l in 0..64 {
            w.vgpr[1][l] = 0x3ff0_0000;
            w.vgpr[2][l] = 20;
        }
    })
    .unwrap_err();
    assert!(matches!(err, SimError::Unsupported { .. }), "{err}");
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

/// A deterministic pseudo-random dword for `lane` and `salt`.
fn mix(lane: usize, salt: u32) -> u32 {
    let mut x = (lane as u64) << 32 | salt as u64;
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (x ^ (x >> 31)) as u32
}

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

/// Element type of an MFMA test case.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum MfmaTy {
    F32,
    F16,
    Bf16,
    I8,
    F64,
}

/// A register operand of an MFMA test case: (AGPR file, first register).
type RegAt = (bool, usize);

/// One MFMA instruction under test: its encoding, its geometry, where its
/// operands are, and its modifiers (as encoded).
struct MfmaCase {
    text: &'static str,
    code: [u8; 8],
    m: usize,
    k: usize,
    blocks: usize,
    ty: MfmaTy,
    a: RegAt,
    b: RegAt,
    /// The accumulator registers, or an inline constant.
    c: Result<RegAt, f64>,
    d: RegAt,
    cbsz: u32,
    abid: u32,
    blgp: u32,
}

impl MfmaCase {
    /// K elements of A per lane.
    fn per_lane(&self) -> usize {
        self.m * self.k * self.blocks / 64
    }

    /// Where A[x][k] (B[k][x]) of `block` is: (register, bit shift, lane),
    /// as tabulated in the MI100/MI200 ISA "Matrix fused multiply add"
    /// sections: lane `x + M * block + M * blocks * (k / E)`, element
    /// `k % E` of the lane packed lowest first.
    fn src_loc(&self, x: usize, k: usize, block: usize) -> (usize, u32, usize) {
        let e = self.per_lane();
        let lane = x + self.m * block + self.m * self.blocks * (k / e);
        let p = k % e;
        match self.ty {
            MfmaTy::F32 | MfmaTy::F64 => (0, 0, lane),
            MfmaTy::F16 | MfmaTy::Bf16 => (p / 2, 16 * (p as u32 % 2), lane),
            MfmaTy::I8 => (0, 8 * p as u32, lane),
        }
    }

    /// Where C[i][j] / D[i][j] of `block` is: (first dword, lane).
    fn acc_loc(&self, i: usize, j: usize, block: usize) -> (usize, usize) {
        match (self.ty, self.m) {
            (MfmaTy::F64, 16) => (2 * (i / 4), 16 * (i % 4) + j),
            (MfmaTy::F64, _) => (0, 16 * i + 4 * block + j),
            (_, 32) => (16 * block + 4 * (i / 8) + i % 4, 32 * ((i / 4) % 2) + j),
            (_, 16) => (4 * block + i % 4, 16 * (i / 4) + j),
            _ => (i, 4 * block + j),
        }
    }
}

fn file(w: &Wave, agpr: bool) -> &Vec<[u32; 64]> {
    if agpr { &w.agpr } else { &w.vgpr }
}

fn file_mut(w: &mut Wave, agpr: bool) -> &mut Vec<[u32; 64]> {
    if agpr { &mut w.agpr } else { &mut w.vgpr }
}

/// A value for an input element: small numbers, so that the products and
/// sums of the float types are exact; any byte for i8.
fn mfma_value(ty: MfmaTy, salt: u32, n: usize) -> f64 {
    let r = mix(n, salt);
    match ty {
        MfmaTy::I8 => r as u8 as i8 as f64,
        MfmaTy::F16 => ((r % 33) as f64 - 16.0) / 4.0,
        _ => (r % 9) as f64 - 4.0,
    }
}

/// Writes `v` of type `ty` at (register, shift) of `lane` in `regs` from `base`.
fn put(w: &mut Wave, at: RegAt, ty: MfmaTy, (reg, shift, lane): (usize, u32, usize), v: f64) {
    let f = file_mut(w, at.0);
    let r = at.1 + reg;
    match ty {
        MfmaTy::F32 => f[r][lane] = (v as f32).to_bits(),
        MfmaTy::F64 => {
            f[r][lane] = v.to_bits() as u32;
            f[r + 1][lane] = (v.to_bits() >> 32) as u32;
        }
        MfmaTy::I8 | MfmaTy::F16 | MfmaTy::Bf16 => {
            let (bits, width) = match ty {
                MfmaTy::I8 => (v as i8 as u8 as u32, 8),
                MfmaTy::F16 => (amdgpu_sim::alu::f32_to_f16(v as f32) as u32, 16),
                _ => ((v as f32).to_bits() >> 16, 16),
            };
            let mask = ((1u32 << width) - 1) << shift;
            f[r][lane] = (f[r][lane] & !mask) | bits << shift;
        }
    }
}

/// Reads the element of type `ty` at (register, shift) of `lane`.
fn get(w: &Wave, at: RegAt, ty: MfmaTy, (reg, shift, lane): (usize, u32, usize)) -> f64 {
    let f = file(w, at.0);
    let r = at.1 + reg;
    let d = f[r][lane];
    match ty {
        MfmaTy::F32 => f32::from_bits(d) as f64,
        MfmaTy::F64 => f64::from_bits(d as u64 | (f[r + 1][lane] as u64) << 32),
        MfmaTy::I8 => (d >> shift) as u8 as i8 as f64,
        MfmaTy::F16 => hv((d >> shift) as u16),
        MfmaTy::Bf16 => f32::from_bits((d >> shift) << 16) as f64,
    }
}

/// The lane B is read from under `blgp` (MI100 ISA, "BLGP"): 1 broadcasts
/// lanes 0-31 to 32-63, 2 lanes 32-63 to 0-31, 3 rotates the lanes down by
/// 16, 4-7 broadcast lanes 0-15, 16-31, 32-47 or 48-63 to every group.
fn blgp_source(lane: usize, blgp: u32) -> usize {
    match blgp {
        1 if lane >= 32 => lane - 32,
        2 if lane < 32 => lane + 32,
        3 => (lane + 16) % 64,
        4..=7 => 16 * (blgp as usize - 4) + lane % 16,
        _ => lane,
    }
}

/// Runs one MFMA on `gpu` with inputs placed element by element, and checks
/// every element of D against a host matrix product of the same elements.
fn check_mfma(gpu: Gpu, c: &MfmaCase) {
    let code = [&c.code[..], &[0x00, 0x00, 0x81, 0xbf]].concat();
    let acc_ty = if c.ty == MfmaTy::F64 {
        MfmaTy::F64
    } else if c.ty == MfmaTy::I8 {
        MfmaTy::I8
    } else {
        MfmaTy::F32
    };
    let mut input = None;
    let w = run(gpu, 64, &code, |w| {
        w.vgpr.resize(64, [0; 64]);
        w.agpr = vec![[0; 64]; 256];
        let mut n = 0;
        for b in 0..c.blocks {
            for x in 0..c.m {
                for k in 0..c.k {
                    n += 1;
                    put(w, c.a, c.ty, c.src_loc(x, k, b), mfma_value(c.ty, 1, n));
                    put(w, c.b, c.ty, c.src_loc(x, k, b), mfma_value(c.ty, 2, n));
                }
            }
            if let Ok(at) = c.c {
                for i in 0..c.m {
                    for j in 0..c.m {
                        n += 1;
                        let (reg, lane) = c.acc_loc(i, j, b);
                        let v = if c.ty == MfmaTy::I8 {
                            mix(n, 3) as i32 as f64
                        } else {
                            (mix(n, 3) % 101) as f64 - 50.0
                        };
                        if acc_ty == MfmaTy::I8 {
                            file_mut(w, at.0)[at.1 + reg][lane] = v as i32 as u32;
                        } else {
                            put(w, at, acc_ty, (reg, 0, lane), v);
                        }
                    }
                }
            }
        }
        input = Some(w.clone());
    })
    .unwrap_or_else(|e| panic!("{gpu} {}: {e}", c.text));
    let i0 = input.expect("set up");
    for b in 0..c.blocks {
        // cbsz/abid: block b reads A from block abid of its group of 2^cbsz.
        let ab = b - b % (1 << c.cbsz) + c.abid as usize;
        for i in 0..c.m {
            for j in 0..c.m {
                let (reg, lane) = c.acc_loc(i, j, b);
                let a_el = |k| get(&i0, c.a, c.ty, c.src_loc(i, k, ab));
                let b_el = |k| {
                    let (r, s, l) = c.src_loc(j, k, b);
                    get(&i0, c.b, c.ty, (r, s, blgp_source(l, c.blgp)))
                };
                let what = format!(
                    "{gpu} {} D[{i}][{j}] block {b} (v/a{reg} lane {lane})",
                    c.text
                );
                let out = file(&w, c.d.0);
                match acc_ty {
                    MfmaTy::I8 => {
                        let acc = match c.c {
                            Ok(at) => file(&i0, at.0)[at.1 + reg][lane] as i32,
                            Err(v) => v as i32,
                        };
                        let want =
                            (0..c.k).fold(acc, |s, k| s.wrapping_add((a_el(k) * b_el(k)) as i32));
                        assert_eq!(out[c.d.1 + reg][lane] as i32, want, "{what}");
                    }
                    _ => {
                        let acc = match c.c {
                            Ok(at) => get(&i0, at, acc_ty, (reg, 0, lane)),
                            Err(v) => v,
                        };
                        let want = (0..c.k).map(|k| a_el(k) * b_el(k)).sum::<f64>() + acc;
                        let got = get(&w, c.d, acc_ty, (reg, 0, lane));
                        assert_eq!(got, want, "{what}");
                    }
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn mfma(
    text: &'static str,
    code: [u8; 8],
    (m, k, blocks): (usize, usize, usize),
    ty: MfmaTy,
    a: RegAt,
    b: RegAt,
    c: Result<RegAt, f64>,
    d: RegAt,
    (cbsz, abid, blgp): (u32, u32, u32),
) -> MfmaCase {
    MfmaCase {
        text,
        code,
        m,
        k,
        blocks,
        ty,
        a,
        b,
        c,
        d,
        cbsz,
        abid,
        blgp,
    }
}

const V: bool = false;
const A: bool = true;

/// Every gfx908 MFMA shape, A and B in VGPRs, C and D in AGPRs, with and
/// without the broadcast modifiers; the results are host matrix products of
/// the elements placed where the ISA guides put them.
#[test]
fn mfma_gfx908_shapes_and_broadcasts() {
    use MfmaTy::*;
    let none = (0, 0, 0);
    let mut cases = [
        mfma(
            "v_mfma_f32_32x32x1f32 a[32:63], v0, v2, a[0:31]",
            [0x20, 0x00, 0xc0, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 1, 2),
            F32,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[0:15]",
            [0x20, 0x00, 0xc1, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (16, 1, 4),
            F32,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_4x4x1f32 a[0:3], v0, v2, a[0:3]",
            [0x00, 0x00, 0xc2, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (4, 1, 16),
            F32,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 0),
            none,
        ),
        mfma(
            "v_mfma_f32_32x32x2f32 a[32:47], v0, v2, a[0:15]",
            [0x20, 0x00, 0xc4, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 2, 1),
            F32,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x4f32 a[0:3], v0, v2, a[0:3]",
            [0x00, 0x00, 0xc5, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (16, 4, 1),
            F32,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 0),
            none,
        ),
        mfma(
            "v_mfma_f32_32x32x4f16 a[32:63], v[0:1], v[2:3], a[0:31]",
            [0x20, 0x00, 0xc8, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 4, 2),
            F16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x4f16 a[32:47], v[0:1], v[2:3], a[0:15]",
            [0x20, 0x00, 0xc9, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (16, 4, 4),
            F16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_4x4x4f16 a[32:35], v[0:1], v[2:3], a[0:3]",
            [0x20, 0x00, 0xca, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (4, 4, 16),
            F16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_32x32x8f16 a[32:47], v[0:1], v[2:3], a[0:15]",
            [0x20, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 8, 1),
            F16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]",
            [0x00, 0x00, 0xcd, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (16, 16, 1),
            F16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 0),
            none,
        ),
        mfma(
            "v_mfma_i32_32x32x4i8 a[32:63], v0, v2, a[0:31]",
            [0x20, 0x00, 0xd0, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 4, 2),
            I8,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_i32_16x16x4i8 a[32:47], v0, v2, a[0:15]",
            [0x20, 0x00, 0xd1, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (16, 4, 4),
            I8,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_i32_4x4x4i8 a[32:35], v0, v2, a[0:3]",
            [0x20, 0x00, 0xd2, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (4, 4, 16),
            I8,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_i32_32x32x8i8 a[32:47], v0, v2, a[0:15]",
            [0x20, 0x00, 0xd4, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 8, 1),
            I8,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_i32_16x16x16i8 a[0:3], v0, v2, a[0:3]",
            [0x00, 0x00, 0xd5, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (16, 16, 1),
            I8,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 0),
            none,
        ),
        mfma(
            "v_mfma_f32_32x32x2bf16 a[32:63], v0, v2, a[0:31]",
            [0x20, 0x00, 0xe8, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 2, 2),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x2bf16 a[32:47], v0, v2, a[0:15]",
            [0x20, 0x00, 0xe9, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (16, 2, 4),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_4x4x2bf16 a[32:35], v0, v2, a[0:3]",
            [0x20, 0x00, 0xeb, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (4, 2, 16),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_32x32x4bf16 a[32:47], v0, v2, a[0:15]",
            [0x20, 0x00, 0xec, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 4, 1),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x8bf16 a[0:3], v0, v2, a[0:3]",
            [0x00, 0x00, 0xed, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (16, 8, 1),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 0),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[0:15] cbsz:2 abid:1 blgp:3",
            [0x20, 0x0a, 0xc1, 0xd3, 0x00, 0x05, 0x02, 0x64],
            (16, 1, 4),
            F32,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            (2, 1, 3),
        ),
        mfma(
            "v_mfma_f32_32x32x1f32 a[32:63], v0, v2, a[0:31] cbsz:1 abid:1 blgp:2",
            [0x20, 0x09, 0xc0, 0xd3, 0x00, 0x05, 0x02, 0x44],
            (32, 1, 2),
            F32,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            (1, 1, 2),
        ),
        mfma(
            "v_mfma_f32_4x4x4f16 a[32:35], v[0:1], v[2:3], a[0:3] cbsz:4 abid:9 blgp:6",
            [0x20, 0x4c, 0xca, 0xd3, 0x00, 0x05, 0x02, 0xc4],
            (4, 4, 16),
            F16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            (4, 9, 6),
        ),
        mfma(
            "v_mfma_i32_4x4x4i8 a[32:35], v0, v2, a[0:3] cbsz:3 abid:5 blgp:1",
            [0x20, 0x2b, 0xd2, 0xd3, 0x00, 0x05, 0x02, 0x24],
            (4, 4, 16),
            I8,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            (3, 5, 1),
        ),
        mfma(
            "v_mfma_f32_32x32x4bf16 a[32:47], v0, v2, a[0:15] blgp:7",
            [0x20, 0x00, 0xec, 0xd3, 0x00, 0x05, 0x02, 0xe4],
            (32, 4, 1),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            (0, 0, 7),
        ),
        mfma(
            "v_mfma_f32_16x16x4f32 a[0:3], v0, v2, a[0:3] blgp:4",
            [0x00, 0x00, 0xc5, 0xd3, 0x00, 0x05, 0x02, 0x84],
            (16, 4, 1),
            F32,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 0),
            (0, 0, 4),
        ),
        mfma(
            "v_mfma_f32_16x16x4f16 a[32:47], v[0:1], v[2:3], a[0:15] cbsz:1 blgp:5",
            [0x20, 0x01, 0xc9, 0xd3, 0x00, 0x05, 0x02, 0xa4],
            (16, 4, 4),
            F16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            (1, 0, 5),
        ),
    ];
    for c in &mut cases {
        check_mfma(Gpu::Gfx908, c);
        // gfx90a: the same words with acc_cd set (bit 15) keep C and D in
        // AGPRs (clear, they would name VGPRs overlapping A and B).
        c.code[1] |= 0x80;
        check_mfma(Gpu::Gfx90a, c);
    }
}

/// gfx90a additions: f64 and `_1k` bf16 shapes, C and D in VGPRs, A or B
/// in AGPRs, and an inline constant as C.
#[test]
fn mfma_gfx90a_f64_bf16_1k_and_vgpr_operands() {
    use MfmaTy::*;
    let none = (0, 0, 0);
    let cases = [
        mfma(
            "v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]",
            [0x00, 0x00, 0xee, 0xd3, 0x08, 0x15, 0x02, 0x04],
            (16, 4, 1),
            F64,
            (V, 8),
            (V, 10),
            Ok((V, 0)),
            (V, 0),
            none,
        ),
        mfma(
            "v_mfma_f64_4x4x4f64 v[12:13], v[8:9], v[10:11], v[0:1]",
            [0x0c, 0x00, 0xef, 0xd3, 0x08, 0x15, 0x02, 0x04],
            (4, 4, 4),
            F64,
            (V, 8),
            (V, 10),
            Ok((V, 0)),
            (V, 12),
            none,
        ),
        mfma(
            "v_mfma_f32_32x32x4bf16_1k a[32:63], v[0:1], v[2:3], a[0:31]",
            [0x20, 0x80, 0xe3, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 4, 2),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x4bf16_1k a[32:47], v[0:1], v[2:3], a[0:15]",
            [0x20, 0x80, 0xe4, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (16, 4, 4),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_4x4x4bf16_1k a[32:35], v[0:1], v[2:3], a[0:3]",
            [0x20, 0x80, 0xe5, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (4, 4, 16),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_32x32x8bf16_1k a[32:47], v[0:1], v[2:3], a[0:15]",
            [0x20, 0x80, 0xe6, 0xd3, 0x00, 0x05, 0x02, 0x04],
            (32, 8, 1),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x16bf16_1k v[4:7], v[0:1], v[2:3], v[4:7]",
            [0x04, 0x00, 0xe7, 0xd3, 0x00, 0x05, 0x12, 0x04],
            (16, 16, 1),
            Bf16,
            (V, 0),
            (V, 2),
            Ok((V, 4)),
            (V, 4),
            none,
        ),
        mfma(
            "v_mfma_f32_32x32x1f32 v[32:63], a0, v2, 0",
            [0x20, 0x00, 0xc0, 0xd3, 0x00, 0x05, 0x02, 0x0a],
            (32, 1, 2),
            F32,
            (A, 0),
            (V, 2),
            Err(0.0),
            (V, 32),
            none,
        ),
        mfma(
            "v_mfma_f32_4x4x1f32 a[0:3], v0, a2, 1.0",
            [0x00, 0x80, 0xc2, 0xd3, 0x00, 0x05, 0xca, 0x13],
            (4, 1, 16),
            F32,
            (V, 0),
            (A, 2),
            Err(1.0),
            (A, 0),
            none,
        ),
        mfma(
            "v_mfma_f32_16x16x4f32 v[4:7], v0, v2, v[4:7]",
            [0x04, 0x00, 0xc5, 0xd3, 0x00, 0x05, 0x12, 0x04],
            (16, 4, 1),
            F32,
            (V, 0),
            (V, 2),
            Ok((V, 4)),
            (V, 4),
            none,
        ),
    ];
    for c in &cases {
        check_mfma(Gpu::Gfx90a, c);
    }
}

/// What an MFMA cannot do here is reported, not approximated.
#[test]
fn mfma_limits_are_reported() {
    let end = [0x00, 0x00, 0x81, 0xbf];
    let unsupported = |gpu, code: &[u8], exec: u64, needle: &str| {
        let code = [code, &end[..]].concat();
        let err = run(gpu, 64, &code, |w| {
            w.vgpr.resize(64, [0; 64]);
            w.exec = Mask(exec);
        })
        .unwrap_err();
        assert!(
            matches!(&err, SimError::Unsupported { what, .. } if what.contains(needle)),
            "{needle}: {err}"
        );
    };
    // v_mfma_f32_4x4x1f32 a[0:3], v0, v2, a[0:3] with lane 63 inactive.
    let code = [0x00, 0x00, 0xc2, 0xd3, 0x00, 0x05, 0x02, 0x04];
    unsupported(Gpu::Gfx908, &code, u64::MAX >> 1, "EXEC");
    // cbsz:1 on the single-block v_mfma_f32_32x32x2f32 (bits set by hand).
    let code = [0x20, 0x01, 0xc4, 0xd3, 0x00, 0x05, 0x02, 0x04];
    unsupported(Gpu::Gfx908, &code, u64::MAX, "cbsz");
    // abid:2 with cbsz:1 names a block outside the group.
    let code = [0x20, 0x11, 0xc1, 0xd3, 0x00, 0x05, 0x02, 0x04];
    unsupported(Gpu::Gfx908, &code, u64::MAX, "abid");
    // blgp:1 on v_mfma_f64_16x16x4f64 (negation in later generations).
    let code = [0x00, 0x00, 0xee, 0xd3, 0x08, 0x15, 0x02, 0x24];
    unsupported(Gpu::Gfx90a, &code, u64::MAX, "f64");
    // The instruction still runs with the full wave.
    let code = [
        &[0x00, 0x00, 0xc2, 0xd3, 0x00, 0x05, 0x02, 0x04][..],
        &end[..],
    ]
    .concat();
    run(Gpu::Gfx908, 64, &code, |_| {}).expect("full EXEC runs");
}

fn scalar_writes(gpu: Gpu, size: u32, code: &[u8]) {
    let mem = GlobalMemory::new();
    let g = mem.allocate(4096).unwrap();
    mem.fill(g, 4096, 0xee).unwrap();
    let put32 = |off: u64, v: u32| mem.write(g + off, &v.to_le_bytes()).unwrap();
    let put64 = |off: u64, v: u64| mem.write(g + off, &v.to_le_bytes()).unwrap();
    put32(0x40, 100);
    put32(0x44, 50);
    put32(0x48, 10);
    put64(0x50, 0xffff_ffff);
    put32(0x58, 77);
    put64(0x60, 0x1234_5678_9abc_def0);
    put32(0x68, 9);
    put32(0x6c, 0);
    put32(256 + 0x40, 0xf0f0);
    put64(256 + 0x48, 0xaaaa);
    let mut lds = Bytes::new(0, Space::Lds);
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.sgpr[2] = g as u32;
        w.sgpr[3] = (g >> 32) as u32;
        // A buffer at g + 256 (stride 0, 4096 records).
        let b = g + 256;
        w.sgpr[4] = b as u32;
        w.sgpr[5] = (b >> 32) as u32 & 0xffff;
        w.sgpr[6] = 4096;
        w.sgpr[7] = 0;
        w.sgpr[10] = 0x1111_1111;
        w.sgpr[12] = 0x2222_0000;
        w.sgpr[13] = 0x2222_0001;
        for k in 0..4 {
            w.sgpr[16 + k] = 0x4444_0000 + k as u32;
        }
        w.sgpr[20] = 0x20;
        w.sgpr[21] = 5;
        w.sgpr[22] = 7;
        w.sgpr[23] = -3i32 as u32;
        w.sgpr[24] = 0;
        w.sgpr[25] = 1;
        w.sgpr[26] = 88;
        w.sgpr[27] = 77;
        w.sgpr[28] = 1;
        w.sgpr[29] = 0;
        w.sgpr[30] = 2;
        w.sgpr[31] = 0;
        w.sgpr[32] = 9;
        w.sgpr[33] = 5;
        w.sgpr[34] = 0x0ff0;
        w.sgpr[36] = 0x1111;
        w.sgpr[37] = 0x5555_0000;
    })
    .unwrap_or_else(|e| panic!("{gpu}: {e}"));
    let get32 = |off: u64| mem.read_u32(g + off).unwrap();
    let get64 = |off: u64| get32(off) as u64 | (get32(off + 4) as u64) << 32;
    // Stores.
    assert_eq!(get32(0x10), 0x1111_1111, "{gpu} s_store_dword");
    assert_eq!(get64(0x18), 0x2222_0001_2222_0000, "{gpu} s_store_dwordx2");
    for k in 0..4u64 {
        assert_eq!(
            get32(0x20 + 4 * k),
            0x4444_0000 + k as u32,
            "{gpu} s_store_dwordx4 (soffset)"
        );
        assert_eq!(
            get32(256 + 0x10 + 4 * k),
            0x4444_0000 + k as u32,
            "{gpu} s_buffer_store_dwordx4"
        );
    }
    assert_eq!(get32(0x14), 0xeeee_eeee, "{gpu} nothing else written");
    assert_eq!(get32(256 + 4), 0x1111_1111, "{gpu} s_buffer_store_dword");
    assert_eq!(
        get64(256 + 8),
        0x2222_0001_2222_0000,
        "{gpu} s_buffer_store_dwordx2"
    );
    assert_eq!(w.sgpr[40], 0x1111_1111, "{gpu} loaded back");
    // Atomics: memory after, and the value before where glc asks for it.
    assert_eq!(
        (get32(0x40), w.sgpr[21]),
        (105, 100),
        "{gpu} s_atomic_add glc"
    );
    assert_eq!(
        (get32(0x44), w.sgpr[22]),
        (43, 7),
        "{gpu} s_atomic_sub (no return)"
    );
    assert_eq!(
        (get32(0x48), w.sgpr[23]),
        (-3i32 as u32, 10),
        "{gpu} s_atomic_smin"
    );
    assert_eq!(
        get64(0x50),
        1 << 32,
        "{gpu} s_atomic_umax_x2 compares 64 bits"
    );
    assert_eq!(
        (w.sgpr[24], w.sgpr[25]),
        (0xffff_ffff, 0),
        "{gpu} s_atomic_umax_x2 returns"
    );
    assert_eq!(
        (get32(0x58), w.sgpr[26], w.sgpr[27]),
        (88, 77, 77),
        "{gpu} s_atomic_cmpswap equal"
    );
    assert_eq!(
        get64(0x60),
        0x1234_5678_9abc_def0,
        "{gpu} s_atomic_cmpswap_x2 different"
    );
    assert_eq!(
        (w.sgpr[28], w.sgpr[29]),
        (0x9abc_def0, 0x1234_5678),
        "{gpu} s_atomic_cmpswap_x2 returns"
    );
    assert_eq!(
        (w.sgpr[30], w.sgpr[31]),
        (2, 0),
        "{gpu} only the returned pair is written"
    );
    assert_eq!(
        (get32(0x68), w.sgpr[32]),
        (0, 9),
        "{gpu} s_atomic_inc wraps at the operand"
    );
    assert_eq!(
        (get32(0x6c), w.sgpr[33]),
        (5, 0),
        "{gpu} s_atomic_dec from 0"
    );
    assert_eq!(
        (get32(256 + 0x40), w.sgpr[34]),
        (0xff00, 0xf0f0),
        "{gpu} s_buffer_atomic_xor"
    );
    assert_eq!(
        get64(256 + 0x48),
        0x5555_0000_0000_1111,
        "{gpu} s_buffer_atomic_swap_x2"
    );
    assert_eq!(
        (w.sgpr[36], w.sgpr[37]),
        (0xaaaa, 0),
        "{gpu} s_buffer_atomic_swap_x2 returns"
    );
}

#[test]
fn scalar_stores_and_atomics() {
    let gfx9: Vec<u8> = [
        &[0x81, 0x02, 0x42, 0xc0, 0x10, 0x00, 0x00, 0x00][..], // s_store_dword s10, s[2:3], 0x10
        &[0x01, 0x03, 0x46, 0xc0, 0x18, 0x00, 0x00, 0x00], // s_store_dwordx2 s[12:13], s[2:3], 0x18
        &[0x01, 0x04, 0x48, 0xc0, 0x14, 0x00, 0x00, 0x00], // s_store_dwordx4 s[16:19], s[2:3], s20
        &[0x82, 0x02, 0x62, 0xc0, 0x04, 0x00, 0x00, 0x00], // s_buffer_store_dword s10, s[4:7], 0x4
        &[0x02, 0x03, 0x66, 0xc0, 0x08, 0x00, 0x00, 0x00], // s_buffer_store_dwordx2 s[12:13], s[4:7], 0x8
        &[0x02, 0x04, 0x6a, 0xc0, 0x10, 0x00, 0x00, 0x00], // s_buffer_store_dwordx4 s[16:19], s[4:7], 0x10
        &[0x41, 0x05, 0x0b, 0xc2, 0x40, 0x00, 0x00, 0x00], // s_atomic_add s21, s[2:3], 0x40 glc
        &[0x81, 0x05, 0x0e, 0xc2, 0x44, 0x00, 0x00, 0x00], // s_atomic_sub s22, s[2:3], 0x44
        &[0xc1, 0x05, 0x13, 0xc2, 0x48, 0x00, 0x00, 0x00], // s_atomic_smin s23, s[2:3], 0x48 glc
        &[0x01, 0x06, 0x9f, 0xc2, 0x50, 0x00, 0x00, 0x00], // s_atomic_umax_x2 s[24:25], s[2:3], 0x50 glc
        &[0x81, 0x06, 0x07, 0xc2, 0x58, 0x00, 0x00, 0x00], // s_atomic_cmpswap s[26:27], s[2:3], 0x58 glc
        &[0x01, 0x07, 0x87, 0xc2, 0x60, 0x00, 0x00, 0x00], // s_atomic_cmpswap_x2 s[28:31], s[2:3], 0x60 glc
        &[0x01, 0x08, 0x2f, 0xc2, 0x68, 0x00, 0x00, 0x00], // s_atomic_inc s32, s[2:3], 0x68 glc
        &[0x41, 0x08, 0x33, 0xc2, 0x6c, 0x00, 0x00, 0x00], // s_atomic_dec s33, s[2:3], 0x6c glc
        &[0x82, 0x08, 0x2b, 0xc1, 0x40, 0x00, 0x00, 0x00], // s_buffer_atomic_xor s34, s[4:7], 0x40 glc
        &[0x02, 0x09, 0x83, 0xc1, 0x48, 0x00, 0x00, 0x00], // s_buffer_atomic_swap_x2 s[36:37], s[4:7], 0x48 glc
        &[0x00, 0x00, 0x84, 0xc0, 0x00, 0x00, 0x00, 0x00], // s_dcache_wb
        &[0x7f, 0xc0, 0x8c, 0xbf],                         // s_waitcnt lgkmcnt(0)
        &[0x01, 0x0a, 0x02, 0xc0, 0x10, 0x00, 0x00, 0x00], // s_load_dword s40, s[2:3], 0x10
        &[0x7f, 0xc0, 0x8c, 0xbf],                         // s_waitcnt lgkmcnt(0)
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    for gpu in [Gpu::Gfx900, Gpu::Gfx906, Gpu::Gfx908, Gpu::Gfx90a] {
        scalar_writes(gpu, 64, &gfx9);
    }
    let gfx1010: Vec<u8> = [
        &[0x81, 0x02, 0x40, 0xf4, 0x10, 0x00, 0x00, 0xfa][..], // s_store_dword s10, s[2:3], 0x10
        &[0x01, 0x03, 0x44, 0xf4, 0x18, 0x00, 0x00, 0xfa], // s_store_dwordx2 s[12:13], s[2:3], 0x18
        &[0x01, 0x04, 0x48, 0xf4, 0x00, 0x00, 0x00, 0x28], // s_store_dwordx4 s[16:19], s[2:3], s20
        &[0x82, 0x02, 0x60, 0xf4, 0x04, 0x00, 0x00, 0xfa], // s_buffer_store_dword s10, s[4:7], 0x4
        &[0x02, 0x03, 0x64, 0xf4, 0x08, 0x00, 0x00, 0xfa], // s_buffer_store_dwordx2 s[12:13], s[4:7], 0x8
        &[0x02, 0x04, 0x68, 0xf4, 0x10, 0x00, 0x00, 0xfa], // s_buffer_store_dwordx4 s[16:19], s[4:7], 0x10
        &[0x41, 0x05, 0x09, 0xf6, 0x40, 0x00, 0x00, 0xfa], // s_atomic_add s21, s[2:3], 0x40 glc
        &[0x81, 0x05, 0x0c, 0xf6, 0x44, 0x00, 0x00, 0xfa], // s_atomic_sub s22, s[2:3], 0x44
        &[0xc1, 0x05, 0x11, 0xf6, 0x48, 0x00, 0x00, 0xfa], // s_atomic_smin s23, s[2:3], 0x48 glc
        &[0x01, 0x06, 0x9d, 0xf6, 0x50, 0x00, 0x00, 0xfa], // s_atomic_umax_x2 s[24:25], s[2:3], 0x50 glc
        &[0x81, 0x06, 0x05, 0xf6, 0x58, 0x00, 0x00, 0xfa], // s_atomic_cmpswap s[26:27], s[2:3], 0x58 glc
        &[0x01, 0x07, 0x85, 0xf6, 0x60, 0x00, 0x00, 0xfa], // s_atomic_cmpswap_x2 s[28:31], s[2:3], 0x60 glc
        &[0x01, 0x08, 0x2d, 0xf6, 0x68, 0x00, 0x00, 0xfa], // s_atomic_inc s32, s[2:3], 0x68 glc
        &[0x41, 0x08, 0x31, 0xf6, 0x6c, 0x00, 0x00, 0xfa], // s_atomic_dec s33, s[2:3], 0x6c glc
        &[0x82, 0x08, 0x29, 0xf5, 0x40, 0x00, 0x00, 0xfa], // s_buffer_atomic_xor s34, s[4:7], 0x40 glc
        &[0x02, 0x09, 0x81, 0xf5, 0x48, 0x00, 0x00, 0xfa], // s_buffer_atomic_swap_x2 s[36:37], s[4:7], 0x48 glc
        &[0x00, 0x00, 0x84, 0xf4, 0x00, 0x00, 0x00, 0x00], // s_dcache_wb
        &[0x7f, 0xc0, 0x8c, 0xbf],                         // s_waitcnt lgkmcnt(0)
        &[0x01, 0x0a, 0x00, 0xf4, 0x10, 0x00, 0x00, 0xfa], // s_load_dword s40, s[2:3], 0x10
        &[0x7f, 0xc0, 0x8c, 0xbf],                         // s_waitcnt lgkmcnt(0)
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    scalar_writes(Gpu::Gfx1010, 32, &gfx1010);
    scalar_writes(Gpu::Gfx1010, 64, &gfx1010);
    // gfx1030 has no scalar stores: the first word does not decode.
    let err = run(Gpu::Gfx1030, 32, &gfx1010, |_| {}).unwrap_err();
    assert!(matches!(err, SimError::InvalidInstruction { .. }), "{err}");
    // A store to unmapped memory is a fault at the store.
    let err = run(Gpu::Gfx900, 64, &gfx9, |w| w.sgpr[3] = 0x7fff).unwrap_err();
    match &err {
        SimError::Fault { at, .. } => assert_eq!(at.pc, BASE, "{err}"),
        other => panic!("expected a fault, got {other}"),
    }
}

fn typed_buffer(gpu: Gpu, size: u32, code: &[u8]) {
    let mem = GlobalMemory::new();
    let g = mem.allocate(4096).unwrap();
    mem.fill(g, 4096, 0xee).unwrap();
    let mut lds = Bytes::new(0, Space::Lds);
    let mut input = None;
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        // A linear buffer of 4096 bytes at g.
        w.sgpr[0] = g as u32;
        w.sgpr[1] = (g >> 32) as u32 & 0xffff;
        w.sgpr[2] = 4096;
        w.sgpr[3] = 0;
        for l in 0..64 {
            w.vgpr[0][l] = 16 * l as u32;
            w.vgpr[1][l] = (l as f32 * 1.5 - 7.0).to_bits();
            for r in 2..=5 {
                w.vgpr[r][l] = mix(l, r as u32);
            }
            for r in 12..=16 {
                w.vgpr[r][l] = mix(l, r as u32);
            }
        }
        input = Some(w.clone());
    })
    .unwrap_or_else(|e| panic!("{gpu}: {e}"));
    let i = input.expect("set up");
    let get = |off: u64| mem.read_u32(g + off).unwrap();
    for l in 0..size as usize {
        let at = 16 * l as u64;
        assert_eq!(
            get(at),
            i.vgpr[1][l],
            "{gpu} tbuffer_store_format_x 32 FLOAT lane {l}"
        );
        for k in 0..4 {
            assert_eq!(
                get(1024 + at + 4 * k as u64),
                i.vgpr[2 + k][l],
                "{gpu} xyzw lane {l}"
            );
        }
        for k in 0..2 {
            assert_eq!(
                w.vgpr[6 + k][l],
                i.vgpr[2 + k][l],
                "{gpu} tbuffer_load_format_xy lane {l}"
            );
            assert_eq!(
                get(2048 + at + 4 * k as u64),
                i.vgpr[12 + k][l],
                "{gpu} store xy lane {l}"
            );
        }
        for k in 0..3 {
            assert_eq!(
                w.vgpr[8 + k][l],
                i.vgpr[2 + k][l],
                "{gpu} tbuffer_load_format_xyz lane {l}"
            );
            assert_eq!(
                get(3072 + at + 4 * k as u64),
                i.vgpr[14 + k][l],
                "{gpu} store xyz lane {l}"
            );
        }
        assert_eq!(
            w.vgpr[11][l], i.vgpr[1][l],
            "{gpu} tbuffer_load_format_x lane {l}"
        );
    }
    // Lanes beyond a wave32 store nothing.
    if size == 32 {
        assert_eq!(get(16 * 40), 0xeeee_eeee, "{gpu} lane 40 of a wave32");
    }
}

/// MTBUF with formats of 32-bit UINT, SINT and FLOAT components: the same
/// dwords as the untyped accesses; other formats are reported.
#[test]
fn typed_buffer_loads_and_stores() {
    let gfx9: Vec<u8> = [
        &[0x00, 0x10, 0xa2, 0xeb, 0x00, 0x01, 0x00, 0x80][..], // tbuffer_store_format_x v1, v0, s[0:3], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offen
        &[0x00, 0x94, 0x73, 0xea, 0x00, 0x02, 0x00, 0x80], // tbuffer_store_format_xyzw v[2:5], v0, s[0:3], 0 format:[BUF_DATA_FORMAT_32_32_32_32,BUF_NUM_FORMAT_UINT] offen offset:1024
        &[0x00, 0x94, 0xd8, 0xea, 0x00, 0x06, 0x00, 0x80], // tbuffer_load_format_xy v[6:7], v0, s[0:3], 0 format:[BUF_DATA_FORMAT_32_32,BUF_NUM_FORMAT_SINT] offen offset:1024
        &[0x00, 0x14, 0xe9, 0xeb, 0x00, 0x08, 0x00, 0x80], // tbuffer_load_format_xyz v[8:10], v0, s[0:3], 0 format:[BUF_DATA_FORMAT_32_32_32,BUF_NUM_FORMAT_FLOAT] offen offset:1024
        &[0x00, 0x10, 0x20, 0xea, 0x00, 0x0b, 0x00, 0x80], // tbuffer_load_format_x v11, v0, s[0:3], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_UINT] offen
        &[0x00, 0x98, 0xda, 0xeb, 0x00, 0x0c, 0x00, 0x80], // tbuffer_store_format_xy v[12:13], v0, s[0:3], 0 format:[BUF_DATA_FORMAT_32_32,BUF_NUM_FORMAT_FLOAT] offen offset:2048
        &[0x00, 0x1c, 0xeb, 0xea, 0x00, 0x0e, 0x00, 0x80], // tbuffer_store_format_xyz v[14:16], v0, s[0:3], 0 format:[BUF_DATA_FORMAT_32_32_32,BUF_NUM_FORMAT_SINT] offen offset:3072
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    for gpu in [Gpu::Gfx900, Gpu::Gfx906, Gpu::Gfx908, Gpu::Gfx90a] {
        typed_buffer(gpu, 64, &gfx9);
    }
    let gfx10: Vec<u8> = [
        &[0x00, 0x10, 0xb4, 0xe8, 0x00, 0x01, 0x00, 0x80][..], // tbuffer_store_format_x v1, v0, s[0:3], 0 format:[BUF_FMT_32_FLOAT] offen
        &[0x00, 0x14, 0x5f, 0xea, 0x00, 0x02, 0x00, 0x80], // tbuffer_store_format_xyzw v[2:5], v0, s[0:3], 0 format:[BUF_FMT_32_32_32_32_UINT] offen offset:1024
        &[0x00, 0x14, 0xf9, 0xe9, 0x00, 0x06, 0x00, 0x80], // tbuffer_load_format_xy v[6:7], v0, s[0:3], 0 format:[BUF_FMT_32_32_SINT] offen offset:1024
        &[0x00, 0x14, 0x52, 0xea, 0x00, 0x08, 0x00, 0x80], // tbuffer_load_format_xyz v[8:10], v0, s[0:3], 0 format:[BUF_FMT_32_32_32_FLOAT] offen offset:1024
        &[0x00, 0x10, 0xa0, 0xe8, 0x00, 0x0b, 0x00, 0x80], // tbuffer_load_format_x v11, v0, s[0:3], 0 format:[BUF_FMT_32_UINT] offen
        &[0x00, 0x18, 0x05, 0xea, 0x00, 0x0c, 0x00, 0x80], // tbuffer_store_format_xy v[12:13], v0, s[0:3], 0 format:[BUF_FMT_32_32_FLOAT] offen offset:2048
        &[0x00, 0x1c, 0x4e, 0xea, 0x00, 0x0e, 0x00, 0x80], // tbuffer_store_format_xyz v[14:16], v0, s[0:3], 0 format:[BUF_FMT_32_32_32_SINT] offen offset:3072
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    for gpu in [Gpu::Gfx1010, Gpu::Gfx1030] {
        typed_buffer(gpu, 32, &gfx10);
        typed_buffer(gpu, 64, &gfx10);
    }
    let end = [0x00, 0x00, 0x81, 0xbf];
    let refused = |gpu, word: [u8; 8], needle: &str| {
        let code = [&word[..], &end[..]].concat();
        let mem = GlobalMemory::new();
        let g = mem.allocate(4096).unwrap();
        let mut lds = Bytes::new(0, Space::Lds);
        let err = run_in(gpu, 64, &code, &mem, &mut lds, 0, |w| {
            w.sgpr[0] = g as u32;
            w.sgpr[1] = (g >> 32) as u32 & 0xffff;
            w.sgpr[2] = 4096;
        })
        .unwrap_err();
        assert!(
            matches!(&err, SimError::Unsupported { what, .. } if what.contains(needle)),
            "{gpu} {needle}: {err}"
        );
    };
    // tbuffer_load_format_x v11, v0, s[0:3], 0 format:[BUF_DATA_FORMAT_8_8_8_8] offen
    refused(
        Gpu::Gfx900,
        [0x00, 0x10, 0x50, 0xe8, 0x00, 0x0b, 0x00, 0x80],
        "dfmt 10 nfmt 0",
    );
    // tbuffer_load_format_x v11, v0, s[0:3], 0 format:[BUF_FMT_8_8_8_8_UNORM] offen
    refused(
        Gpu::Gfx1030,
        [0x00, 0x10, 0xc0, 0xe9, 0x00, 0x0b, 0x00, 0x80],
        "format 56",
    );
    // tbuffer_load_format_xy v[6:7], v0, s[0:3], 0 format:[BUF_FMT_32_FLOAT] offen: one
    // component in memory, two named.
    refused(
        Gpu::Gfx1010,
        [0x00, 0x10, 0xb1, 0xe8, 0x00, 0x06, 0x00, 0x80],
        "2 component",
    );
}

/// `s_sethalt 0` (and any even immediate) lets the wave run on; `s_sethalt 1`
/// halts it, which is reported at the instruction, not taken for the end of
/// the wave.
#[test]
fn sethalt_is_reported() {
    let code = [
        0x00, 0x00, 0x8d, 0xbf, // s_sethalt 0
        0x02, 0x00, 0x8d, 0xbf, // s_sethalt 2
        0x87, 0x02, 0x00, 0x7e, // v_mov_b32_e32 v0, 7
        0x01, 0x00, 0x8d, 0xbf, // s_sethalt 1
        0x88, 0x02, 0x00, 0x7e, // v_mov_b32_e32 v0, 8
        0x00, 0x00, 0x81, 0xbf, // s_endpgm
    ];
    for (gpu, size) in [(Gpu::Gfx900, 64), (Gpu::Gfx1030, 32)] {
        let err = run(gpu, size, &code, |_| {}).unwrap_err();
        match &err {
            SimError::Halted { at } => {
                assert_eq!(at.pc, BASE + 12, "{gpu}");
                assert!(at.inst.starts_with("s_sethalt 1"), "{}", at.inst);
            }
            other => panic!("{gpu}: expected a halt, got {other}"),
        }
        // Without the halt the same program runs to its end.
        let w = run(gpu, size, &[&code[..12], &code[16..]].concat(), |_| {}).expect("runs");
        assert_eq!(w.vgpr[0][0], 8, "{gpu}");
    }
}

/// Random MFMA, dot product, scalar store/atomic and typed buffer words
/// (random operands, modifiers, register contents and EXEC; half of them with
/// the modifiers compilers emit, and with addresses inside a buffer): every
/// outcome is a result or a typed error, and both executors agree (the
/// harness checks that).
#[test]
fn random_matrix_dot_and_scalar_write_words() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 16) as u32
    };
    let end = [0x00, 0x00, 0x81, 0xbf];
    let mem = GlobalMemory::new();
    let g = mem.allocate(4096).unwrap();
    let mut ran = [0u32; 4];
    for n in 0..3000 {
        let (gpu, size) = match n % 5 {
            0 => (Gpu::Gfx908, 64),
            1 => (Gpu::Gfx90a, 64),
            2 => (Gpu::Gfx906, 64),
            3 => (Gpu::Gfx1030, if n % 2 == 0 { 32 } else { 64 }),
            _ => (Gpu::Gfx1010, 32),
        };
        let gfx10 = matches!(gpu, Gpu::Gfx1030 | Gpu::Gfx1010);
        let plain = n % 2 == 0;
        let (r0, r1) = (next(), next());
        // VOP3P sources: mostly v0..v39, sometimes an SGPR or an inline constant.
        let src = |r: u32| match r % 8 {
            0 => r >> 3 & 15,
            1 => 128 + (r >> 3) % 70,
            _ => 256 + (r >> 3) % 40,
        };
        let srcs = |r: u32| src(r) | src(r >> 9) << 9 | src(r >> 18) << 18;
        let class = (n / 5) % 4;
        let (w0, w1) = match class {
            // MFMA opcodes 0x40.. (GFX9), destination v/a0..31, C and D in
            // AGPRs (bit 15) when plain.
            0 if !gfx10 => {
                let mods = if plain { 0x8000 } else { r0 & 0xff00 };
                let top = if plain { 0 } else { r1 & 0xf800_0000 };
                let w0 = 0xd380_0000 | (0x40 + r0 % 0x30) << 16 | mods | ((r0 >> 16) % 32);
                (w0, srcs(r1) | top)
            }
            0 | 1 => {
                let op = if gfx10 { 0x13 + r0 % 7 } else { 0x23 + r0 % 9 };
                let base = if gfx10 { 0xcc00_0000 } else { 0xd380_0000 };
                let mods = if plain {
                    0x4000 | (r0 & 0x8000)
                } else {
                    r0 & 0xff00
                };
                let top = if plain { 0x1800_0000 } else { r1 & 0xf800_0000 };
                (base | op << 16 | mods | ((r0 >> 16) % 32), srcs(r1) | top)
            }
            // SMEM stores and atomics (opcodes 0x10..0x1a, 0x40..0xac), sbase
            // s[0:1] or s[0:3] (the buffer), an immediate offset below 256.
            2 => {
                let op = if r0 % 3 == 0 {
                    0x10 + r0 % 11
                } else {
                    0x40 + r0 % 0x6d
                };
                let sdata = (r0 >> 8) % 16 * 2;
                let base = if gfx10 { 0xf400_0000 } else { 0xc002_0000 };
                let soff = if gfx10 { 0xfa00_0000 } else { 0 };
                (base | op << 18 | sdata << 6, soff | (r1 & 0xf8))
            }
            // MTBUF, v0 as the offset, s[0:3] the buffer: when plain a
            // 32_32_32_32 format with tbuffer_load/store_format_xyzw (op 3,
            // 7), otherwise any operation, format and tfe.
            _ if plain => {
                let op = if r0 & 1 == 0 { 3 } else { 7 };
                let w0 = if gfx10 {
                    0xe800_1000 | op << 16 | 77 << 19
                } else {
                    0xe800_1000 | op << 15 | (14 | 4 << 4) << 19
                };
                (w0, ((r1 >> 8) % 32) << 8 | 0x80 << 24)
            }
            _ => {
                let w0 = 0xe800_1000 | (r0 & 0x07ff_8000);
                (w0, ((r1 >> 8) % 32) << 8 | (r1 & 0x0080_0000) | 0x80 << 24)
            }
        };
        let code = [&w0.to_le_bytes()[..], &w1.to_le_bytes(), &end].concat();
        let exec = if plain {
            u64::MAX
        } else {
            u64::from(next()) << 32 | u64::from(next())
        };
        let fill = next();
        let mut lds = Bytes::new(0, Space::Lds);
        let r = run_in(gpu, size, &code, &mem, &mut lds, 0, |w| {
            w.vgpr.resize(64, [0; 64]);
            w.exec = Mask(exec & w.full_mask());
            for (r, reg) in w.vgpr.iter_mut().enumerate() {
                for (l, v) in reg.iter_mut().enumerate() {
                    *v = mix(l, fill ^ r as u32);
                }
            }
            for (k, s) in w.sgpr.iter_mut().enumerate() {
                *s = mix(k, fill);
            }
            // s[0:3]: an address and a buffer descriptor for g; v0 an offset in it.
            w.sgpr[0] = g as u32;
            w.sgpr[1] = (g >> 32) as u32 & 0xffff;
            w.sgpr[2] = 4096;
            w.sgpr[3] = 0;
            for l in 0..64 {
                w.vgpr[0][l] = 16 * l as u32;
            }
        });
        if r.is_ok() {
            ran[class as usize] += 1;
        }
    }
    // Enough of each class ran to the end to mean something.
    assert!(ran.iter().all(|&k| k > 20), "{ran:?}");
}

/// Lane values for the operation tests: lane 0 is chosen by hand, the others
/// vary every byte and sign.
fn lane_value(l: usize, salt: u32) -> u32 {
    let x = (l as u32 + 1).wrapping_mul(0x9e37_79b9) ^ salt;
    x ^ (x >> 15).wrapping_mul(0x85eb_ca6b)
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
    let w = run(Gpu::Gfx900, 64, &code, |w| {
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
    })
    .expect("runs");
    // Lane 0, worked by hand from the pseudo-code.
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
    // Every lane against the pseudo-code.
    for l in 0..64 {
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
            0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, -0.5, -0.4375, -0.375,
            -0.3125, -0.25, -0.1875, -0.125, -0.0625,
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

#[test]
fn gfx9_d16_memory_wide_buffer_atomics_and_swizzle() {
    let code: Vec<u8> = [
        &[0x00, 0x80, 0x90, 0xdc, 0x00, 0x00, 0x7f, 0x0a][..], // global_load_short_d16 v10, v[0:1], off
        &[0x02, 0x80, 0x94, 0xdc, 0x00, 0x00, 0x7f, 0x0b], // global_load_short_d16_hi v11, v[0:1], off offset:2
        &[0x03, 0x80, 0x80, 0xdc, 0x00, 0x00, 0x7f, 0x0c], // global_load_ubyte_d16 v12, v[0:1], off offset:3
        &[0x03, 0x80, 0x8c, 0xdc, 0x00, 0x00, 0x7f, 0x0d], // global_load_sbyte_d16_hi v13, v[0:1], off offset:3
        &[0x01, 0x80, 0x88, 0xdc, 0x00, 0x00, 0x7f, 0x0e], // global_load_sbyte_d16 v14, v[0:1], off offset:1
        &[0x01, 0x80, 0x84, 0xdc, 0x00, 0x00, 0x7f, 0x0f], // global_load_ubyte_d16_hi v15, v[0:1], off offset:1
        &[0x00, 0x80, 0x6c, 0xdc, 0x02, 0x10, 0x7f, 0x00], // global_store_short_d16_hi v[2:3], v16, off
        &[0x02, 0x80, 0x64, 0xdc, 0x02, 0x10, 0x7f, 0x00], // global_store_byte_d16_hi v[2:3], v16, off offset:2
        &[0x00, 0x50, 0x88, 0xe1, 0x04, 0x14, 0x00, 0x80], // buffer_atomic_add_x2 v[20:21], v4, s[0:3], 0 offen glc
        &[0x08, 0x50, 0x84, 0xe1, 0x04, 0x16, 0x00, 0x80], // buffer_atomic_cmpswap_x2 v[22:25], v4, s[0:3], 0 offen offset:8 glc
        &[0x10, 0x10, 0x80, 0xe1, 0x04, 0x1a, 0x00, 0x80], // buffer_atomic_swap_x2 v[26:27], v4, s[0:3], 0 offen offset:16
        &[0x18, 0x10, 0x94, 0xe0, 0x04, 0x11, 0x00, 0x80], // buffer_load_short_d16_hi v17, v4, s[0:3], 0 offen offset:24
        &[0xb1, 0x80, 0x7a, 0xd8, 0x05, 0x00, 0x00, 0x1e], // ds_swizzle_b32 v30, v5 offset:swizzle(QUAD_PERM,1,0,3,2)
        &[0x06, 0x09, 0x7a, 0xd8, 0x05, 0x00, 0x00, 0x1f], // ds_swizzle_b32 v31, v5 offset:swizzle(BITMASK_PERM,"01pi0")
        &[0x1f, 0x1c, 0x7a, 0xd8, 0x05, 0x00, 0x00, 0x1c], // ds_swizzle_b32 v28, v5 offset:swizzle(REVERSE,8)
        &[0x00, 0x00, 0x28, 0xd8, 0x00, 0x00, 0x00, 0x00], // ds_nop
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let mem = GlobalMemory::new();
    let g = mem.allocate(256).unwrap();
    let h = mem.allocate(256).unwrap();
    let b = mem.allocate(2048).unwrap();
    for l in 0..64u64 {
        mem.write(g + 4 * l, &(0xc433_8211u32 + l as u32).to_le_bytes())
            .unwrap();
        mem.write(b + 32 * l, &(1000 + l).to_le_bytes()).unwrap();
        mem.write(b + 32 * l + 8, &l.to_le_bytes()).unwrap();
        mem.write(b + 32 * l + 16, &u64::MAX.to_le_bytes()).unwrap();
        mem.write(b + 32 * l + 24, &0xabcdu16.to_le_bytes())
            .unwrap();
    }
    let mut lds = Bytes::new(0, Space::Lds);
    let w = run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 0, |w| {
        w.sgpr[0] = b as u32;
        w.sgpr[1] = (b >> 32) as u32 & 0xffff;
        w.sgpr[2] = 2048;
        w.sgpr[3] = 0;
        for l in 0..64usize {
            let (a, s) = (g + 4 * l as u64, h + 4 * l as u64);
            w.vgpr[0][l] = a as u32;
            w.vgpr[1][l] = (a >> 32) as u32;
            w.vgpr[2][l] = s as u32;
            w.vgpr[3][l] = (s >> 32) as u32;
            w.vgpr[4][l] = 32 * l as u32;
            w.vgpr[5][l] = 100 + l as u32;
            for r in 10..16 {
                w.vgpr[r][l] = 0xdead_beef;
            }
            w.vgpr[16][l] = (0x1200 + l as u32) << 16 | 0x5678;
            w.vgpr[17][l] = 0x1111;
            // add_x2 adds 2^32 + l; cmpswap_x2 offers 0x7777 << 32 | l and
            // compares with l (even lanes: equal) or l + 1 (odd lanes).
            w.vgpr[20][l] = l as u32;
            w.vgpr[21][l] = 1;
            w.vgpr[22][l] = l as u32;
            w.vgpr[23][l] = 0x7777;
            w.vgpr[24][l] = (l + l % 2) as u32;
            w.vgpr[25][l] = 0;
            w.vgpr[26][l] = l as u32;
            w.vgpr[27][l] = 0x5555_0000;
        }
    })
    .expect("runs");
    for l in 0..64usize {
        let lu = l as u32;
        // Memory dword: bytes 0x11 + l, 0x82, 0x33, 0xc4. The other half keeps 0xdead / 0xbeef.
        assert_eq!(
            w.vgpr[10][l],
            0xdead_8211 + lu,
            "global_load_short_d16 lane {l}"
        );
        assert_eq!(
            w.vgpr[11][l], 0xc433_beef,
            "global_load_short_d16_hi lane {l}"
        );
        assert_eq!(w.vgpr[12][l], 0xdead_00c4, "global_load_ubyte_d16 lane {l}");
        assert_eq!(
            w.vgpr[13][l], 0xffc4_beef,
            "global_load_sbyte_d16_hi lane {l}"
        );
        assert_eq!(w.vgpr[14][l], 0xdead_ff82, "global_load_sbyte_d16 lane {l}");
        assert_eq!(
            w.vgpr[15][l], 0x0082_beef,
            "global_load_ubyte_d16_hi lane {l}"
        );
        let mut d = [0u8; 4];
        mem.read(h + 4 * l as u64, &mut d).unwrap();
        assert_eq!(d, [lu as u8, 0x12, lu as u8, 0], "d16_hi stores lane {l}");
        let rd = |a: u64| {
            let mut x = [0u8; 8];
            mem.read(a, &mut x).unwrap();
            u64::from_le_bytes(x)
        };
        let (old_add, old_cmp) = (1000 + l as u64, l as u64);
        assert_eq!(
            rd(b + 32 * l as u64),
            old_add + (1 << 32) + l as u64,
            "add_x2"
        );
        assert_eq!(
            w.vgpr[20][l] as u64 | (w.vgpr[21][l] as u64) << 32,
            old_add,
            "add_x2 returns the old value"
        );
        let swapped = 0x7777u64 << 32 | l as u64;
        let want = if l % 2 == 0 { swapped } else { old_cmp };
        assert_eq!(rd(b + 32 * l as u64 + 8), want, "cmpswap_x2 lane {l}");
        assert_eq!(w.vgpr[22][l] as u64 | (w.vgpr[23][l] as u64) << 32, old_cmp);
        assert_eq!(rd(b + 32 * l as u64 + 16), 0x5555_0000u64 << 32 | l as u64);
        assert_eq!(
            (w.vgpr[26][l], w.vgpr[27][l]),
            (lu, 0x5555_0000),
            "no return"
        );
        assert_eq!(
            w.vgpr[17][l], 0xabcd_1111,
            "buffer_load_short_d16_hi lane {l}"
        );
        // Swizzles of v5 = 100 + lane.
        let quad = (l & !3) + [1, 0, 3, 2][l & 3];
        assert_eq!(w.vgpr[30][l], 100 + quad as u32, "QUAD_PERM lane {l}");
        // "01pi0", bit 4 first: 0, 1, preserve, invert, 0.
        let perm = (l & 32) | 8 | (l & 4) | (!l & 2);
        assert_eq!(w.vgpr[31][l], 100 + perm as u32, "BITMASK_PERM lane {l}");
        assert_eq!(w.vgpr[28][l], 100 + (l ^ 7) as u32, "REVERSE,8 lane {l}");
    }
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

#[test]
fn gfx10_clamped_subtract_atomic_wave_id_and_cache_hints() {
    // gfx1030: global_atomic_csub subtracts and stops at 0, returning the old value.
    let code: Vec<u8> = [
        &[0x00, 0x80, 0xd1, 0xdc, 0x00, 0x02, 0x7d, 0x03][..], // global_atomic_csub v3, v[0:1], v2, off glc
        &[0x00, 0x00, 0xc8, 0xe1, 0x00, 0x00, 0x00, 0x00],     // buffer_gl1_inv
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let mem = GlobalMemory::new();
    let g = mem.allocate(128).unwrap();
    for l in 0..32u64 {
        mem.write(g + 4 * l, &(10 * l as u32).to_le_bytes())
            .unwrap();
    }
    let mut lds = Bytes::new(0, Space::Lds);
    let w = run_in(Gpu::Gfx1030, 32, &code, &mem, &mut lds, 0, |w| {
        for l in 0..32 {
            let a = g + 4 * l as u64;
            w.vgpr[0][l] = a as u32;
            w.vgpr[1][l] = (a >> 32) as u32;
            w.vgpr[2][l] = 155;
        }
    })
    .expect("runs");
    for l in 0..32u32 {
        let mut b = [0u8; 4];
        mem.read(g + 4 * l as u64, &mut b).unwrap();
        let want = (10 * l).saturating_sub(155);
        assert_eq!(u32::from_le_bytes(b), want, "csub lane {l}");
        assert_eq!(w.vgpr[3][l as usize], 10 * l, "returned old value lane {l}");
    }
    // gfx1010: s_get_waveid_in_workgroup returns the wave's number in its group.
    let code: Vec<u8> = [
        &[0x00, 0x01, 0xa8, 0xf4, 0x00, 0x00, 0x00, 0x00][..], // s_get_waveid_in_workgroup s4
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let w = run(Gpu::Gfx1010, 32, &code, |w| w.id = 3).expect("runs");
    assert_eq!(w.sgpr[4], 3);
    // gfx90a: buffer_wbl2 is a cache hint, without effect on the (in-order) memory.
    let code: Vec<u8> = [
        &[0x00, 0x00, 0xa0, 0xe0, 0x00, 0x00, 0x00, 0x00][..], // buffer_wbl2
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    run(Gpu::Gfx90a, 64, &code, |_| {}).expect("runs");
}

#[test]
fn gfx90a_floating_point_add_atomics() {
    let code: Vec<u8> = [
        &[0x00, 0x00, 0x6a, 0xd8, 0x00, 0x01, 0x00, 0x03][..], // ds_add_rtn_f32 v3, v0, v1
        &[0x00, 0x02, 0x2a, 0xd8, 0x00, 0x01, 0x00, 0x00],     // ds_add_f32 v0, v1 offset:512
        &[0x00, 0x04, 0xf8, 0xd8, 0x00, 0x06, 0x00, 0x04], // ds_add_rtn_f64 v[4:5], v0, v[6:7] offset:1024
        &[0x00, 0x80, 0x34, 0xdd, 0x08, 0x01, 0x7f, 0x00], // global_atomic_add_f32 v[8:9], v1, off
        &[0x00, 0x80, 0x3d, 0xdd, 0x0c, 0x06, 0x7f, 0x0a], // global_atomic_add_f64 v[10:11], v[12:13], v[6:7], off glc
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let den32 = 1e-40f32; // an f32 denormal
    let (den64, small64) = (5e-310f64, 1e-310f64); // f64 denormals
    assert!(den32.is_subnormal() && den64.is_subnormal() && small64.is_subnormal());
    let mem = GlobalMemory::new();
    let g = mem.allocate(256).unwrap();
    let h = mem.allocate(512).unwrap();
    let mut lds = Bytes::new(2048, Space::Lds);
    for l in 0..64u64 {
        mem.write(g + 4 * l, &den32.to_le_bytes()).unwrap();
        mem.write(h + 8 * l, &den64.to_le_bytes()).unwrap();
        lds.write(8 * l, &1.5f32.to_le_bytes()).unwrap();
        lds.write(512 + 8 * l, &den32.to_le_bytes()).unwrap();
        lds.write(1024 + 8 * l, &den64.to_le_bytes()).unwrap();
    }
    let add = |l: usize| if l == 0 { 0.0f32 } else { l as f32 * 0.25 };
    let w = run_in(Gpu::Gfx90a, 64, &code, &mem, &mut lds, 0, |w| {
        for l in 0..64 {
            w.vgpr[0][l] = 8 * l as u32;
            w.vgpr[1][l] = add(l).to_bits();
            w.vgpr[6][l] = small64.to_bits() as u32;
            w.vgpr[7][l] = (small64.to_bits() >> 32) as u32;
            let (a, b) = (g + 4 * l as u64, h + 8 * l as u64);
            (w.vgpr[8][l], w.vgpr[9][l]) = (a as u32, (a >> 32) as u32);
            (w.vgpr[12][l], w.vgpr[13][l]) = (b as u32, (b >> 32) as u32);
        }
    })
    .expect("runs");
    let f32_at = |b: &[u8]| f32::from_le_bytes(b[..4].try_into().unwrap());
    let f64_at = |b: &[u8]| f64::from_le_bytes(b[..8].try_into().unwrap());
    for l in 0..64usize {
        let mut b = [0u8; 8];
        lds.read(8 * l as u64, &mut b).unwrap();
        assert_eq!(f32_at(&b), 1.5 + add(l), "ds_add_rtn_f32 memory lane {l}");
        assert_eq!(
            f32::from_bits(w.vgpr[3][l]),
            1.5,
            "ds_add_rtn_f32 returns the old value"
        );
        lds.read(512 + 8 * l as u64, &mut b).unwrap();
        // LDS float atomics keep denormals: lane 0 adds 0 to a denormal.
        assert_eq!(f32_at(&b), den32 + add(l), "ds_add_f32 lane {l}");
        lds.read(1024 + 8 * l as u64, &mut b).unwrap();
        assert_eq!(f64_at(&b), den64 + small64, "ds_add_rtn_f64 lane {l}");
        let old = w.vgpr[4][l] as u64 | (w.vgpr[5][l] as u64) << 32;
        assert_eq!(f64::from_bits(old), den64);
        // The global f32 atomic flushes denormals: lane 0's sum is +0.
        mem.read(g + 4 * l as u64, &mut b[..4]).unwrap();
        let want = if l == 0 { 0.0 } else { add(l) };
        assert_eq!(
            f32_at(&b).to_bits(),
            want.to_bits(),
            "global_atomic_add_f32 lane {l}"
        );
        mem.read(h + 8 * l as u64, &mut b).unwrap();
        assert_eq!(
            f64_at(&b),
            den64 + small64,
            "global_atomic_add_f64 lane {l}"
        );
        let old = w.vgpr[10][l] as u64 | (w.vgpr[11][l] as u64) << 32;
        assert_eq!(
            f64::from_bits(old),
            den64,
            "global_atomic_add_f64 returns lane {l}"
        );
    }
}

/// `buffer_load_format_xy` and `buffer_store_format_x` on `gpu` with the
/// descriptor word 3 `w3_load` / `w3_store` (the same buffer otherwise).
fn buffer_format_run(gpu: Gpu, w3_load: u32, w3_store: u32) -> (Result<Wave, SimError>, Vec<u8>) {
    let code: Vec<u8> = [
        &[0x00, 0x10, 0x04, 0xe0, 0x00, 0x02, 0x00, 0x80][..], // buffer_load_format_xy v[2:3], v0, s[0:3], 0 offen
        &[0x08, 0x10, 0x10, 0xe0, 0x00, 0x04, 0x01, 0x80], // buffer_store_format_x v4, v0, s[4:7], 0 offen offset:8
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let mem = GlobalMemory::new();
    let g = mem.allocate(1024).unwrap();
    for k in 0..256u32 {
        mem.write(g + 4 * k as u64, &(0x1000 + k).to_le_bytes())
            .unwrap();
    }
    let mut lds = Bytes::new(0, Space::Lds);
    let r = run_in(gpu, 64, &code, &mem, &mut lds, 0, |w| {
        for (q, w3) in [(0, w3_load), (4, w3_store)] {
            w.sgpr[q] = g as u32;
            w.sgpr[q + 1] = (g >> 32) as u32 & 0xffff;
            w.sgpr[q + 2] = 1024;
            w.sgpr[q + 3] = w3;
        }
        for l in 0..64 {
            w.vgpr[0][l] = 16 * l as u32;
            w.vgpr[4][l] = 0xabc0 + l as u32;
        }
    });
    let mut bytes = vec![0u8; 1024];
    mem.read(g, &mut bytes).unwrap();
    (r, bytes)
}

#[test]
fn buffer_format_accesses_use_the_descriptor_format() {
    // DST_SEL X, Y, Z, W in order.
    let sel = 4 | 5 << 3 | 6 << 6 | 7 << 9;
    let gfx9 = |dfmt: u32, nfmt: u32| sel | nfmt << 12 | dfmt << 15;
    let gfx10 = |fmt: u32| sel | fmt << 12;
    for (gpu, load, store) in [
        // 32_32 FLOAT and 32 UINT.
        (Gpu::Gfx900, gfx9(11, 7), gfx9(4, 4)),
        (Gpu::Gfx1030, gfx10(64), gfx10(20)),
    ] {
        let (r, bytes) = buffer_format_run(gpu, load, store);
        let w = r.expect("runs");
        for l in 0..64usize {
            // Lane l reads dwords 4l and 4l + 1 and writes dword 4l + 2.
            assert_eq!(
                (w.vgpr[2][l], w.vgpr[3][l]),
                (0x1000 + 4 * l as u32, 0x1001 + 4 * l as u32)
            );
            let d = u32::from_le_bytes(bytes[16 * l + 8..16 * l + 12].try_into().unwrap());
            assert_eq!(d, 0xabc0 + l as u32, "{gpu} lane {l}");
        }
        // Another format (GFX9 dfmt 3 = 8_8 UNORM; GFX10 unified format 14, not
        // one of 32-bit components), or components in another order, are refused
        // rather than read as 32-bit components.
        let other = if gpu == Gpu::Gfx900 {
            gfx9(3, 0)
        } else {
            gfx10(14)
        };
        let err = buffer_format_run(gpu, other, store).0.unwrap_err();
        assert!(matches!(err, SimError::Unsupported { .. }), "{err:?}");
        let swapped = (load & !0xfff) | 5 | 4 << 3 | 6 << 6 | 7 << 9;
        let err = buffer_format_run(gpu, swapped, store).0.unwrap_err();
        assert!(matches!(err, SimError::Unsupported { .. }), "{err:?}");
    }
}

/// `ds_add_f32` follows MODE's f32 denormal bits (LLVM `SIISelLowering.cpp`,
/// `shouldExpandAtomicRMWInIR`: "DS F32 FP atomics do respect the denormal
/// mode"): with FP_DENORM flushing, denormal inputs count as zero and a
/// denormal sum is stored as zero; the returned old value is the memory's.
#[test]
fn ds_add_f32_follows_mode_denormals() {
    let code: Vec<u8> = [
        &[0x01, 0x09, 0x00, 0xba, 0x00, 0x00, 0x00, 0x00][..], // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0
        &[0x00, 0x00, 0x6a, 0xd8, 0x00, 0x01, 0x00, 0x03],     // ds_add_rtn_f32 v3, v0, v1
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let den = 1e-40f32;
    let min = f32::MIN_POSITIVE;
    // Even lanes: denormal + 0; odd lanes: 1.5 * min - min, a denormal sum.
    let old = |l: usize| if l % 2 == 0 { den } else { 1.5 * min };
    let add = |l: usize| if l % 2 == 0 { 0.0f32 } else { -min };
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(512, Space::Lds);
    for l in 0..64usize {
        lds.write(8 * l as u64, &old(l).to_le_bytes()).unwrap();
    }
    let w = run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 0, |w| {
        for l in 0..64 {
            w.vgpr[0][l] = 8 * l as u32;
            w.vgpr[1][l] = add(l).to_bits();
        }
    })
    .expect("runs");
    for l in 0..64usize {
        let mut b = [0u8; 4];
        lds.read(8 * l as u64, &mut b).unwrap();
        assert_eq!(u32::from_le_bytes(b), 0, "flushed sum, lane {l}");
        assert_eq!(w.vgpr[3][l], old(l).to_bits(), "old value, lane {l}");
    }
}

/// On gfx90a the f16 and bf16 MFMAs flush denormal inputs and results to
/// zero (ROCm MIOpen, "MI200 matrix fused multiply-add (MFMA) behavior
/// specifics": "On the MI200, MFMA_F16, MFMA_BF16, and MFMA_BF16_1K flush
/// subnormal input/output data to zero"); gfx908 keeps them.
#[test]
fn gfx90a_half_mfma_flushes_denormals() {
    for (gpu, code) in [
        (
            Gpu::Gfx908,
            [
                [0x00, 0x00, 0xca, 0xd3, 0x00, 0x05, 0x02, 0x04], // v_mfma_f32_4x4x4f16 a[0:3], v[0:1], v[2:3], a[0:3]
                [0x04, 0x00, 0xeb, 0xd3, 0x04, 0x0b, 0x12, 0x04], // v_mfma_f32_4x4x2bf16 a[4:7], v4, v5, a[4:7]
            ],
        ),
        (
            Gpu::Gfx90a,
            [
                [0x00, 0x80, 0xca, 0xd3, 0x00, 0x05, 0x02, 0x04], // v_mfma_f32_4x4x4f16 a[0:3], v[0:1], v[2:3], a[0:3]
                [0x04, 0x80, 0xeb, 0xd3, 0x04, 0x0b, 0x12, 0x04], // v_mfma_f32_4x4x2bf16 a[4:7], v4, v5, a[4:7]
            ],
        ),
    ] {
        let code: Vec<u8> = [&code[0][..], &code[1], &[0x00, 0x00, 0x81, 0xbf]].concat();
        let w = run(gpu, 64, &code, |w| {
            w.agpr = vec![[0; 64]; 256];
            for l in 0..64 {
                // A: every f16 the smallest denormal 2^-24; B: 1.0.
                (w.vgpr[0][l], w.vgpr[1][l]) = (0x0001_0001, 0x0001_0001);
                (w.vgpr[2][l], w.vgpr[3][l]) = (0x3c00_3c00, 0x3c00_3c00);
                // bf16 2^-70 (normal) squared: products of 2^-140, an f32 denormal.
                (w.vgpr[4][l], w.vgpr[5][l]) = (0x1c80_1c80, 0x1c80_1c80);
            }
        })
        .expect("runs");
        let flush = gpu == Gpu::Gfx90a;
        for l in 0..64 {
            for r in 0..4 {
                // 4 x 2^-24 (f16), 2 x 2^-140 (bf16).
                let f16_sum = if flush { 0.0 } else { f32::powi(2.0, -22) };
                let bf16_sum = if flush { 0.0 } else { f32::from_bits(1 << 10) };
                assert_eq!(
                    f32::from_bits(w.agpr[r][l]),
                    f16_sum,
                    "{gpu} f16 a{r} lane {l}"
                );
                assert_eq!(
                    f32::from_bits(w.agpr[4 + r][l]),
                    bf16_sum,
                    "{gpu} bf16 a{} lane {l}",
                    4 + r
                );
            }
        }
    }
}

/// `s_buffer_load_*` / `s_buffer_store_*` are range-checked against the
/// descriptor's `(stride == 0 ? 1 : stride) * num_records` bytes, dword by
/// dword: outside, loads read 0 and stores write nothing (RDNA3 ISA, scalar
/// memory buffer addressing `m_size`; "If the memory address is out-of-range,
/// the operation is not performed for any dwords that are out-of-range").
#[test]
fn scalar_buffer_accesses_are_range_checked() {
    let gfx9: Vec<u8> = [
        &[0x00, 0x02, 0x2a, 0xc0, 0x08, 0x00, 0x00, 0x00][..], // s_buffer_load_dwordx4 s[8:11], s[0:3], 0x8
        &[0x00, 0x03, 0x20, 0xc0, 0x04, 0x00, 0x00, 0x00], // s_buffer_load_dword s12, s[0:3], s4
        &[0x80, 0x03, 0x66, 0xc0, 0x0c, 0x00, 0x00, 0x00], // s_buffer_store_dwordx2 s[14:15], s[0:3], 0xc
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x00, 0x02, 0x28, 0xf4, 0x08, 0x00, 0x00, 0xfa][..], // s_buffer_load_dwordx4 s[8:11], s[0:3], 0x8
        &[0x00, 0x03, 0x20, 0xf4, 0x00, 0x00, 0x00, 0x08], // s_buffer_load_dword s12, s[0:3], s4
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let go = |gpu: Gpu, code: &[u8], stride: u32, records: u32| {
        let mem = GlobalMemory::new();
        let g = mem.allocate(64).unwrap();
        for k in 0..16u32 {
            mem.write(g + 4 * k as u64, &(0x100 + k).to_le_bytes())
                .unwrap();
        }
        let mut lds = Bytes::new(0, Space::Lds);
        let size = if gpu == Gpu::Gfx900 { 64 } else { 32 };
        let r = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
            w.sgpr[0] = g as u32;
            w.sgpr[1] = (g >> 32) as u32 & 0xffff | stride << 16;
            w.sgpr[2] = records;
            w.sgpr[3] = 0;
            w.sgpr[4] = 16;
            (w.sgpr[14], w.sgpr[15]) = (0xaaaa, 0xbbbb);
        });
        let mut bytes = vec![0u8; 64];
        mem.read(g, &mut bytes).unwrap();
        let d = |k: usize| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap());
        (r, (0..16).map(d).collect::<Vec<_>>())
    };
    for (gpu, code) in [(Gpu::Gfx900, &gfx9), (Gpu::Gfx1030, &gfx10)] {
        // A 16-byte raw buffer: bytes 8..16 inside, 16.. outside.
        let (r, m) = go(gpu, code, 0, 16);
        let w = r.expect("runs");
        assert_eq!(w.sgpr[8..13], [0x102, 0x103, 0, 0, 0], "{gpu}");
        if gpu == Gpu::Gfx900 {
            assert_eq!((m[3], m[4]), (0xaaaa, 0x104), "store: dword 4 dropped");
        }
        // Stride 8 and 2 records: the same 16 bytes.
        let (r, _) = go(gpu, code, 8, 2);
        assert_eq!(r.expect("runs").sgpr[8..13], [0x102, 0x103, 0, 0, 0]);
        // Stride 8 and 4 records: 32 bytes, all inside.
        let (r, _) = go(gpu, code, 8, 4);
        assert_eq!(
            r.expect("runs").sgpr[8..13],
            [0x102, 0x103, 0x104, 0x105, 0x104]
        );
        // A dword straddling the end (14 bytes) is reported.
        let err = go(gpu, code, 0, 14).0.unwrap_err();
        assert!(
            matches!(&err, SimError::Unsupported { what, .. } if what.contains("straddling")),
            "{err}"
        );
    }
}

/// Where a floating-point atomic of [`float_atomics`] acts: LDS, global
/// memory or a buffer, with 32-bit slots at `16 * lane` and 64-bit slots at
/// `2048 + 32 * lane` (global f64: `32 * lane` of its own allocation).
#[derive(Clone, Copy, PartialEq)]
enum Region {
    Lds32,
    Lds64,
    G32,
    G64,
    B32,
    B64,
}

/// The operation a [`float_atomics`] slot sees.
#[derive(Clone, Copy, PartialEq)]
enum FOp {
    Min32,
    Max32,
    Cas32,
    Min64,
    Max64,
    Cas64,
    PkAdd16,
}

/// Any quiet NaN is expected (the payload of a NaN produced from two NaN
/// operands is not pinned down).
const ANY_NAN: u64 = u64::MAX;

/// f32 cases `(old, src, cmp, minNum, maxNum, compare-swap)`, the last three
/// worked out by hand from the ISA pseudo-code: `min`/`max` as IEEE
/// minNum/maxNum (a NaN operand yields the other one, -0 < +0, denormals
/// kept), compare-swap `MEM = (MEM == cmp) ? src : MEM` compared as floats.
const F32_CASES: [[u32; 6]; 10] = [
    [
        0x3f80_0000,
        0x4000_0000,
        0x3f80_0000,
        0x3f80_0000,
        0x4000_0000,
        0x4000_0000,
    ],
    [
        0x4000_0000,
        0xbf80_0000,
        0x4040_0000,
        0xbf80_0000,
        0x4000_0000,
        0x4000_0000,
    ],
    // A quiet NaN in memory: min and max give the operand; NaN never equals.
    [
        0x7fc0_0000,
        0x3f80_0000,
        0x7fc0_0000,
        0x3f80_0000,
        0x3f80_0000,
        0x7fc0_0000,
    ],
    // A NaN operand: memory keeps its number; equal compare stores the NaN.
    [
        0x3f80_0000,
        0x7fc0_0001,
        0x3f80_0000,
        0x3f80_0000,
        0x3f80_0000,
        0x7fc0_0001,
    ],
    // Signed zeros: -0 < +0, and +0 == -0 for the compare.
    [
        0x0000_0000,
        0x8000_0000,
        0x8000_0000,
        0x8000_0000,
        0x0000_0000,
        0x8000_0000,
    ],
    [
        0x8000_0000,
        0x0000_0000,
        0x0000_0000,
        0x8000_0000,
        0x0000_0000,
        0x0000_0000,
    ],
    [
        0x7f80_0000,
        0xff80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7f80_0000,
        0xff80_0000,
    ],
    // Denormals are not flushed: the smallest denormal is not 0.
    [
        0x0000_0001,
        0x8000_0002,
        0x0000_0000,
        0x8000_0002,
        0x0000_0001,
        0x0000_0001,
    ],
    // Two signalling NaNs: a quiet NaN; the compare fails.
    [
        0x7f80_0001,
        0x7f80_0002,
        0x7f80_0001,
        u32::MAX,
        u32::MAX,
        0x7f80_0001,
    ],
    [
        0x4040_0000,
        0x4040_0000,
        0x4040_0000,
        0x4040_0000,
        0x4040_0000,
        0x4040_0000,
    ],
];

/// The f64 counterparts of [`F32_CASES`].
const F64_CASES: [[u64; 6]; 10] = [
    [
        0x3ff0 << 48,
        0x4000 << 48,
        0x3ff0 << 48,
        0x3ff0 << 48,
        0x4000 << 48,
        0x4000 << 48,
    ],
    [
        0x4000 << 48,
        0xbff0 << 48,
        0x4008 << 48,
        0xbff0 << 48,
        0x4000 << 48,
        0x4000 << 48,
    ],
    [
        0x7ff8 << 48,
        0x3ff0 << 48,
        0x7ff8 << 48,
        0x3ff0 << 48,
        0x3ff0 << 48,
        0x7ff8 << 48,
    ],
    [
        0x3ff0 << 48,
        0x7ff8 << 48 | 1,
        0x3ff0 << 48,
        0x3ff0 << 48,
        0x3ff0 << 48,
        0x7ff8 << 48 | 1,
    ],
    [0, 1 << 63, 1 << 63, 1 << 63, 0, 1 << 63],
    [1 << 63, 0, 0, 1 << 63, 0, 0],
    [
        0x7ff0 << 48,
        0xfff0 << 48,
        0x7ff0 << 48,
        0xfff0 << 48,
        0x7ff0 << 48,
        0xfff0 << 48,
    ],
    [1, 1 << 63 | 2, 0, 1 << 63 | 2, 1, 1],
    [
        0x7ff0 << 48 | 1,
        0x7ff0 << 48 | 2,
        0x7ff0 << 48 | 1,
        ANY_NAN,
        ANY_NAN,
        0x7ff0 << 48 | 1,
    ],
    [
        0x4008 << 48,
        0x4008 << 48,
        0x4008 << 48,
        0x4008 << 48,
        0x4008 << 48,
        0x4008 << 48,
    ],
];

/// Packed f16 add cases `(old, src, sum)`, halves rounded to nearest even by
/// hand (`0x7e00` in a sum: any NaN).
const PK16_CASES: [[u32; 3]; 5] = [
    // 1 + 2 = 3; 2048 + 1 = 2049, a tie, to even 2048.
    [0x6800_3c00, 0x3c00_4000, 0x6800_4200],
    // 1 + 2^-24 rounds to 1; denormals add exactly.
    [0x0001_3c00, 0x0001_0001, 0x0002_3c00],
    // 65504 + 16 ties to even, which overflows; 2050 + 1 ties up to 2052.
    [0x6801_7bff, 0x3c00_4c00, 0x6802_7c00],
    // -0 + -0 = -0; +0 + -0 = +0.
    [0x0000_8000, 0x8000_8000, 0x0000_8000],
    // inf - inf and a NaN operand: NaN.
    [0x7e00_7c00, 0x3c00_fc00, 0x7e00_7e00],
];

fn f16_nan(h: u32) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}

/// Runs `code` (floating-point atomics on the slots `ops` lists, each with
/// the vector register its returning form writes) with lane 5 (and 33)
/// inactive, and checks memory and returned values against the tables.
fn float_atomics(gpu: Gpu, size: u32, code: &[u8], ops: &[(Region, u64, FOp, Option<usize>)]) {
    use Region::*;
    let n = size as usize;
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        !(1 << 5) & 0xffff_ffff
    };
    let mem = GlobalMemory::new();
    let g32 = mem.allocate(1024).unwrap();
    let g64 = mem.allocate(2048).unwrap();
    let b32 = mem.allocate(1024).unwrap();
    let b64 = mem.allocate(4096).unwrap();
    let mut lds = Bytes::new(4096, Space::Lds);
    let addr = |r: Region, l: usize, off: u64| -> u64 {
        let l = l as u64;
        match r {
            Lds32 => 16 * l + off,
            Lds64 => 2048 + 32 * l + off,
            G32 => g32 + 16 * l + off,
            G64 => g64 + 32 * l + off,
            B32 => b32 + 16 * l + off,
            B64 => b64 + 2048 + 32 * l + off,
        }
    };
    let old = |op: FOp, l: usize| -> u64 {
        match op {
            FOp::Min32 | FOp::Max32 | FOp::Cas32 => F32_CASES[l % 10][0] as u64,
            FOp::PkAdd16 => PK16_CASES[l % 5][0] as u64,
            _ => F64_CASES[l % 10][0],
        }
    };
    let marker = |l: usize| 0x5a5a_0000_u64 + l as u64;
    let wide = |op: FOp| matches!(op, FOp::Min64 | FOp::Max64 | FOp::Cas64);
    // Every slot starts with a marker; the slots an operation acts on with
    // the case's old value.
    for l in 0..64 {
        for r in [Lds32, Lds64, G32, G64, B32, B64] {
            for off in (0..32).step_by(4) {
                let v = (marker(l) as u32).to_le_bytes();
                if matches!(r, Lds32 | G32 | B32) && off >= 16 {
                    continue;
                }
                if matches!(r, Lds32 | Lds64) {
                    lds.write(addr(r, l, off), &v).unwrap();
                } else {
                    mem.write(addr(r, l, off), &v).unwrap();
                }
            }
        }
        for &(r, off, op, _) in ops {
            let b = old(op, l).to_le_bytes();
            let k = if wide(op) { 8 } else { 4 };
            if matches!(r, Lds32 | Lds64) {
                lds.write(addr(r, l, off), &b[..k]).unwrap();
            } else {
                mem.write(addr(r, l, off), &b[..k]).unwrap();
            }
        }
    }
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.exec = Mask(exec);
        w.vgpr.resize(64, [0; 64]);
        for (q, base) in [(0, b32), (4, b64)] {
            w.sgpr[q] = base as u32;
            w.sgpr[q + 1] = (base >> 32) as u32 & 0xffff;
            w.sgpr[q + 2] = 4096;
            w.sgpr[q + 3] = 0;
        }
        for l in 0..64 {
            let (c32, c64, pk) = (F32_CASES[l % 10], F64_CASES[l % 10], PK16_CASES[l % 5]);
            for r in 0..64 {
                w.vgpr[r][l] = 0xdead_0000 + r as u32;
            }
            w.vgpr[0][l] = 16 * l as u32;
            w.vgpr[1][l] = c32[1];
            w.vgpr[2][l] = c32[2];
            w.vgpr[3][l] = 2048 + 32 * l as u32;
            (w.vgpr[4][l], w.vgpr[5][l]) = (c64[1] as u32, (c64[1] >> 32) as u32);
            (w.vgpr[6][l], w.vgpr[7][l]) = (c64[2] as u32, (c64[2] >> 32) as u32);
            let (a, b) = (g32 + 16 * l as u64, g64 + 32 * l as u64);
            (w.vgpr[20][l], w.vgpr[21][l]) = (a as u32, (a >> 32) as u32);
            (w.vgpr[26][l], w.vgpr[27][l]) = (b as u32, (b >> 32) as u32);
            // Buffer atomics take their data in the register they return to.
            (w.vgpr[34][l], w.vgpr[35][l]) = (c32[1], c32[1]);
            (w.vgpr[36][l], w.vgpr[37][l]) = (c32[1], c32[2]);
            (w.vgpr[38][l], w.vgpr[39][l]) = (c64[1] as u32, (c64[1] >> 32) as u32);
            (w.vgpr[44][l], w.vgpr[45][l]) = (c64[1] as u32, (c64[1] >> 32) as u32);
            (w.vgpr[40][l], w.vgpr[41][l]) = (c64[1] as u32, (c64[1] >> 32) as u32);
            (w.vgpr[42][l], w.vgpr[43][l]) = (c64[2] as u32, (c64[2] >> 32) as u32);
            w.vgpr[47][l] = pk[1];
            w.vgpr[48][l] = pk[1];
        }
    })
    .expect("runs");
    let same = |got: u64, want: u64, wide: bool| {
        if want == ANY_NAN || (!wide && want == u32::MAX as u64) {
            if wide {
                let f = f64::from_bits(got);
                f.is_nan() && got & (1 << 51) != 0
            } else {
                let f = f32::from_bits(got as u32);
                f.is_nan() && got & (1 << 22) != 0
            }
        } else {
            got == want
        }
    };
    for l in 0..n {
        let active = (exec >> l) & 1 == 1;
        for &(r, off, op, ret) in ops {
            let k = if wide(op) { 8 } else { 4 };
            let mut b = [0u8; 8];
            if matches!(r, Lds32 | Lds64) {
                lds.read(addr(r, l, off), &mut b[..k]).unwrap();
            } else {
                mem.read(addr(r, l, off), &mut b[..k]).unwrap();
            }
            let got = u64::from_le_bytes(b);
            let o = old(op, l);
            let want = if !active {
                o
            } else {
                match op {
                    FOp::Min32 => F32_CASES[l % 10][3] as u64,
                    FOp::Max32 => F32_CASES[l % 10][4] as u64,
                    FOp::Cas32 => F32_CASES[l % 10][5] as u64,
                    FOp::Min64 => F64_CASES[l % 10][3],
                    FOp::Max64 => F64_CASES[l % 10][4],
                    FOp::Cas64 => F64_CASES[l % 10][5],
                    FOp::PkAdd16 => PK16_CASES[l % 5][2] as u64,
                }
            };
            if op == FOp::PkAdd16 {
                for s in [0, 16] {
                    let (g, x) = ((got >> s) as u32 & 0xffff, (want >> s) as u32 & 0xffff);
                    let ok = if x == 0x7e00 { f16_nan(g) } else { g == x };
                    assert!(
                        ok,
                        "{gpu} pk_add_f16 lane {l} slot {off}: {got:#x}, want {want:#x}"
                    );
                }
            } else {
                assert!(
                    same(got, want, wide(op)),
                    "{gpu} lane {l} slot {off}: memory {got:#x}, want {want:#x}"
                );
            }
            if let Some(v) = ret {
                let mut back = w.vgpr[v][l] as u64;
                if wide(op) {
                    back |= (w.vgpr[v + 1][l] as u64) << 32;
                }
                let want = if active {
                    o
                } else if v >= 34 && v != 46 {
                    // An inactive lane keeps the data in its register.
                    back
                } else if wide(op) {
                    (0xdead_0000 + v as u64) | (0xdead_0001 + v as u64) << 32
                } else {
                    0xdead_0000 + v as u64
                };
                assert_eq!(back, want, "{gpu} lane {l} slot {off}: returned");
            }
        }
        // The slots no operation names keep their marker; the
        // non-returning buffer forms keep their data registers.
        let mut b = [0u8; 4];
        mem.read(addr(G64, l, 16), &mut b).unwrap();
        if !ops.iter().any(|&(r, off, _, _)| r == G64 && off == 16) {
            assert_eq!(
                u32::from_le_bytes(b) as u64,
                marker(l),
                "{gpu} untouched slot"
            );
        }
        assert_eq!(w.vgpr[1][l], F32_CASES[l % 10][1], "{gpu} v1 lane {l}");
        assert_eq!(
            w.vgpr[4][l],
            F64_CASES[l % 10][1] as u32,
            "{gpu} v4 lane {l}"
        );
    }
}

#[test]
fn gfx10_floating_point_min_max_and_compare_swap_atomics() {
    use FOp::*;
    use Region::*;
    let code: Vec<u8> = [
        &[0x00, 0x00, 0xc8, 0xd8, 0x00, 0x01, 0x00, 0x0a][..], // ds_min_rtn_f32 v10, v0, v1
        &[0x04, 0x00, 0xcc, 0xd8, 0x00, 0x01, 0x00, 0x0b], // ds_max_rtn_f32 v11, v0, v1 offset:4
        &[0x08, 0x00, 0xc4, 0xd8, 0x00, 0x02, 0x01, 0x0c], // ds_cmpst_rtn_f32 v12, v0, v2, v1 offset:8
        &[0x0c, 0x00, 0x48, 0xd8, 0x00, 0x01, 0x00, 0x00], // ds_min_f32 v0, v1 offset:12
        &[0x00, 0x00, 0xc8, 0xd9, 0x03, 0x04, 0x00, 0x0e], // ds_min_rtn_f64 v[14:15], v3, v[4:5]
        &[0x08, 0x00, 0xcc, 0xd9, 0x03, 0x04, 0x00, 0x10], // ds_max_rtn_f64 v[16:17], v3, v[4:5] offset:8
        &[0x10, 0x00, 0xc4, 0xd9, 0x03, 0x06, 0x04, 0x12], // ds_cmpst_rtn_f64 v[18:19], v3, v[6:7], v[4:5] offset:16
        &[0x18, 0x00, 0x4c, 0xd9, 0x03, 0x04, 0x00, 0x00], // ds_max_f64 v3, v[4:5] offset:24
        &[0x00, 0x80, 0xfd, 0xdc, 0x14, 0x01, 0x7d, 0x16], // global_atomic_fmin v22, v[20:21], v1, off glc
        &[0x04, 0x80, 0x01, 0xdd, 0x14, 0x01, 0x7d, 0x17], // global_atomic_fmax v23, v[20:21], v1, off offset:4 glc
        &[0x08, 0x80, 0xf9, 0xdc, 0x14, 0x01, 0x7d, 0x18], // global_atomic_fcmpswap v24, v[20:21], v[1:2], off offset:8 glc
        &[0x0c, 0x00, 0xfc, 0xdc, 0x14, 0x01, 0x7d, 0x00], // flat_atomic_fmin v[20:21], v1 offset:12
        &[0x00, 0x80, 0x7d, 0xdd, 0x1a, 0x04, 0x7d, 0x1c], // global_atomic_fmin_x2 v[28:29], v[26:27], v[4:5], off glc
        &[0x08, 0x80, 0x81, 0xdd, 0x1a, 0x04, 0x7d, 0x1e], // global_atomic_fmax_x2 v[30:31], v[26:27], v[4:5], off offset:8 glc
        &[0x10, 0x80, 0x79, 0xdd, 0x1a, 0x04, 0x7d, 0x20], // global_atomic_fcmpswap_x2 v[32:33], v[26:27], v[4:7], off offset:16 glc
        &[0x18, 0x00, 0x80, 0xdd, 0x1a, 0x04, 0x7d, 0x00], // flat_atomic_fmax_x2 v[26:27], v[4:5] offset:24
        &[0x00, 0x50, 0xfc, 0xe0, 0x00, 0x22, 0x00, 0x80], // buffer_atomic_fmin v34, v0, s[0:3], 0 offen glc
        &[0x04, 0x50, 0x00, 0xe1, 0x00, 0x23, 0x00, 0x80], // buffer_atomic_fmax v35, v0, s[0:3], 0 offen offset:4 glc
        &[0x08, 0x50, 0xf8, 0xe0, 0x00, 0x24, 0x00, 0x80], // buffer_atomic_fcmpswap v[36:37], v0, s[0:3], 0 offen offset:8 glc
        &[0x0c, 0x10, 0x00, 0xe1, 0x00, 0x01, 0x00, 0x80], // buffer_atomic_fmax v1, v0, s[0:3], 0 offen offset:12
        &[0x00, 0x50, 0x7c, 0xe1, 0x03, 0x26, 0x01, 0x80], // buffer_atomic_fmin_x2 v[38:39], v3, s[4:7], 0 offen glc
        &[0x08, 0x50, 0x80, 0xe1, 0x03, 0x2c, 0x01, 0x80], // buffer_atomic_fmax_x2 v[44:45], v3, s[4:7], 0 offen offset:8 glc
        &[0x10, 0x50, 0x78, 0xe1, 0x03, 0x28, 0x01, 0x80], // buffer_atomic_fcmpswap_x2 v[40:43], v3, s[4:7], 0 offen offset:16 glc
        &[0x18, 0x10, 0x7c, 0xe1, 0x03, 0x04, 0x01, 0x80], // buffer_atomic_fmin_x2 v[4:5], v3, s[4:7], 0 offen offset:24
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let ops = [
        (Lds32, 0, Min32, Some(10)),
        (Lds32, 4, Max32, Some(11)),
        (Lds32, 8, Cas32, Some(12)),
        (Lds32, 12, Min32, None),
        (Lds64, 0, Min64, Some(14)),
        (Lds64, 8, Max64, Some(16)),
        (Lds64, 16, Cas64, Some(18)),
        (Lds64, 24, Max64, None),
        (G32, 0, Min32, Some(22)),
        (G32, 4, Max32, Some(23)),
        (G32, 8, Cas32, Some(24)),
        (G32, 12, Min32, None),
        (G64, 0, Min64, Some(28)),
        (G64, 8, Max64, Some(30)),
        (G64, 16, Cas64, Some(32)),
        (G64, 24, Max64, None),
        (B32, 0, Min32, Some(34)),
        (B32, 4, Max32, Some(35)),
        (B32, 8, Cas32, Some(36)),
        (B32, 12, Max32, None),
        (B64, 0, Min64, Some(38)),
        (B64, 8, Max64, Some(44)),
        (B64, 16, Cas64, Some(40)),
        (B64, 24, Min64, None),
    ];
    float_atomics(Gpu::Gfx1030, 32, &code, &ops);
    float_atomics(Gpu::Gfx1010, 64, &code, &ops);
}

#[test]
fn gfx90a_lds_float_atomics_f64_min_max_and_packed_f16_add() {
    use FOp::*;
    use Region::*;
    let code: Vec<u8> = [
        &[0x00, 0x00, 0x64, 0xd8, 0x00, 0x01, 0x00, 0x0a][..], // ds_min_rtn_f32 v10, v0, v1
        &[0x04, 0x00, 0x66, 0xd8, 0x00, 0x01, 0x00, 0x0b], // ds_max_rtn_f32 v11, v0, v1 offset:4
        &[0x08, 0x00, 0x62, 0xd8, 0x00, 0x02, 0x01, 0x0c], // ds_cmpst_rtn_f32 v12, v0, v2, v1 offset:8
        &[0x0c, 0x00, 0x24, 0xd8, 0x00, 0x01, 0x00, 0x00], // ds_min_f32 v0, v1 offset:12
        &[0x00, 0x00, 0xe4, 0xd8, 0x03, 0x04, 0x00, 0x0e], // ds_min_rtn_f64 v[14:15], v3, v[4:5]
        &[0x08, 0x00, 0xe6, 0xd8, 0x03, 0x04, 0x00, 0x10], // ds_max_rtn_f64 v[16:17], v3, v[4:5] offset:8
        &[0x10, 0x00, 0xe2, 0xd8, 0x03, 0x06, 0x04, 0x12], // ds_cmpst_rtn_f64 v[18:19], v3, v[6:7], v[4:5] offset:16
        &[0x18, 0x00, 0xa6, 0xd8, 0x03, 0x04, 0x00, 0x00], // ds_max_f64 v3, v[4:5] offset:24
        &[0x00, 0x80, 0x41, 0xdd, 0x1a, 0x04, 0x7f, 0x1c], // global_atomic_min_f64 v[28:29], v[26:27], v[4:5], off glc
        &[0x08, 0x80, 0x45, 0xdd, 0x1a, 0x04, 0x7f, 0x1e], // global_atomic_max_f64 v[30:31], v[26:27], v[4:5], off offset:8 glc
        &[0x18, 0x00, 0x44, 0xdd, 0x1a, 0x04, 0x00, 0x00], // flat_atomic_max_f64 v[26:27], v[4:5] offset:24
        &[0x10, 0x10, 0x40, 0xe1, 0x03, 0x04, 0x01, 0x80], // buffer_atomic_min_f64 v[4:5], v3, s[4:7], 0 offen offset:16
        &[0x00, 0x80, 0x39, 0xdd, 0x14, 0x2f, 0x7f, 0x2e], // global_atomic_pk_add_f16 v46, v[20:21], v47, off glc
        &[0x04, 0x50, 0x38, 0xe1, 0x00, 0x30, 0x00, 0x80], // buffer_atomic_pk_add_f16 v48, v0, s[0:3], 0 offen offset:4 glc
        &[0x08, 0x80, 0x38, 0xdd, 0x14, 0x2f, 0x7f, 0x00], // global_atomic_pk_add_f16 v[20:21], v47, off offset:8
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let ops = [
        (Lds32, 0, Min32, Some(10)),
        (Lds32, 4, Max32, Some(11)),
        (Lds32, 8, Cas32, Some(12)),
        (Lds32, 12, Min32, None),
        (Lds64, 0, Min64, Some(14)),
        (Lds64, 8, Max64, Some(16)),
        (Lds64, 16, Cas64, Some(18)),
        (Lds64, 24, Max64, None),
        (G64, 0, Min64, Some(28)),
        (G64, 8, Max64, Some(30)),
        (G64, 24, Max64, None),
        (B64, 16, Min64, None),
        (G32, 0, PkAdd16, Some(46)),
        (B32, 4, PkAdd16, Some(48)),
        (G32, 8, PkAdd16, None),
    ];
    float_atomics(Gpu::Gfx90a, 64, &code, &ops);
    // gfx908's packed f16 adds have no returning form.
    let code: Vec<u8> = [
        &[0x04, 0x10, 0x38, 0xe1, 0x00, 0x30, 0x00, 0x80][..], // buffer_atomic_pk_add_f16 v48, v0, s[0:3], 0 offen offset:4
        &[0x08, 0x80, 0x38, 0xdd, 0x14, 0x2f, 0x7f, 0x00], // global_atomic_pk_add_f16 v[20:21], v47, off offset:8
        &[0x08, 0x00, 0x62, 0xd8, 0x00, 0x02, 0x01, 0x0c], // ds_cmpst_rtn_f32 v12, v0, v2, v1 offset:8
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let ops = [
        (B32, 4, PkAdd16, None),
        (G32, 8, PkAdd16, None),
        (Lds32, 8, Cas32, Some(12)),
    ];
    float_atomics(Gpu::Gfx908, 64, &code, &ops);
}
const SRC2_GFX900: &[&[u8]] = &[
    &[0x02, 0x00, 0x00, 0xd9, 0x0a, 0x00, 0x00, 0x00], // ds_add_src2_u32 v10 offset:2
    &[0xf8, 0x7f, 0x02, 0xd9, 0x0b, 0x00, 0x00, 0x00], // ds_sub_src2_u32 v11 offset:32760
    &[0x00, 0x80, 0x04, 0xd9, 0x0c, 0x00, 0x00, 0x00], // ds_rsub_src2_u32 v12 offset:32768
    &[0x01, 0x00, 0x06, 0xd9, 0x0d, 0x00, 0x00, 0x00], // ds_inc_src2_u32 v13 offset:1
    &[0x01, 0x00, 0x08, 0xd9, 0x0e, 0x00, 0x00, 0x00], // ds_dec_src2_u32 v14 offset:1
    &[0x01, 0x00, 0x0a, 0xd9, 0x0f, 0x00, 0x00, 0x00], // ds_min_src2_i32 v15 offset:1
    &[0x01, 0x00, 0x0c, 0xd9, 0x10, 0x00, 0x00, 0x00], // ds_max_src2_i32 v16 offset:1
    &[0x01, 0x00, 0x0e, 0xd9, 0x11, 0x00, 0x00, 0x00], // ds_min_src2_u32 v17 offset:1
    &[0x01, 0x00, 0x10, 0xd9, 0x12, 0x00, 0x00, 0x00], // ds_max_src2_u32 v18 offset:1
    &[0x01, 0x00, 0x12, 0xd9, 0x13, 0x00, 0x00, 0x00], // ds_and_src2_b32 v19 offset:1
    &[0x01, 0x00, 0x14, 0xd9, 0x14, 0x00, 0x00, 0x00], // ds_or_src2_b32 v20 offset:1
    &[0x01, 0x00, 0x16, 0xd9, 0x15, 0x00, 0x00, 0x00], // ds_xor_src2_b32 v21 offset:1
    &[0x00, 0x80, 0x1a, 0xd9, 0x16, 0x00, 0x00, 0x00], // ds_write_src2_b32 v22 offset:32768
    &[0x01, 0x00, 0x24, 0xd9, 0x17, 0x00, 0x00, 0x00], // ds_min_src2_f32 v23 offset:1
    &[0x01, 0x00, 0x26, 0xd9, 0x18, 0x00, 0x00, 0x00], // ds_max_src2_f32 v24 offset:1
    &[0x01, 0x00, 0x2a, 0xd9, 0x19, 0x00, 0x00, 0x00], // ds_add_src2_f32 v25 offset:1
    &[0x02, 0x00, 0x80, 0xd9, 0x1a, 0x00, 0x00, 0x00], // ds_add_src2_u64 v26 offset:2
    &[0x04, 0x00, 0x82, 0xd9, 0x1b, 0x00, 0x00, 0x00], // ds_sub_src2_u64 v27 offset:4
    &[0x02, 0x00, 0x84, 0xd9, 0x1c, 0x00, 0x00, 0x00], // ds_rsub_src2_u64 v28 offset:2
    &[0x02, 0x00, 0x86, 0xd9, 0x1d, 0x00, 0x00, 0x00], // ds_inc_src2_u64 v29 offset:2
    &[0x02, 0x00, 0x88, 0xd9, 0x1e, 0x00, 0x00, 0x00], // ds_dec_src2_u64 v30 offset:2
    &[0x02, 0x00, 0x8a, 0xd9, 0x1f, 0x00, 0x00, 0x00], // ds_min_src2_i64 v31 offset:2
    &[0x02, 0x00, 0x8c, 0xd9, 0x20, 0x00, 0x00, 0x00], // ds_max_src2_i64 v32 offset:2
    &[0x02, 0x00, 0x8e, 0xd9, 0x21, 0x00, 0x00, 0x00], // ds_min_src2_u64 v33 offset:2
    &[0x02, 0x00, 0x90, 0xd9, 0x22, 0x00, 0x00, 0x00], // ds_max_src2_u64 v34 offset:2
    &[0x02, 0x00, 0x92, 0xd9, 0x23, 0x00, 0x00, 0x00], // ds_and_src2_b64 v35 offset:2
    &[0x02, 0x00, 0x94, 0xd9, 0x24, 0x00, 0x00, 0x00], // ds_or_src2_b64 v36 offset:2
    &[0x02, 0x00, 0x96, 0xd9, 0x25, 0x00, 0x00, 0x00], // ds_xor_src2_b64 v37 offset:2
    &[0xfe, 0x7f, 0x9a, 0xd9, 0x26, 0x00, 0x00, 0x00], // ds_write_src2_b64 v38 offset:32766
    &[0x02, 0x00, 0xa4, 0xd9, 0x27, 0x00, 0x00, 0x00], // ds_min_src2_f64 v39 offset:2
    &[0x02, 0x00, 0xa6, 0xd9, 0x28, 0x00, 0x00, 0x00], // ds_max_src2_f64 v40 offset:2
    &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
];

const SRC2_GFX1010: &[&[u8]] = &[
    &[0x02, 0x00, 0x00, 0xda, 0x0a, 0x00, 0x00, 0x00], // ds_add_src2_u32 v10 offset:2
    &[0xf8, 0x7f, 0x04, 0xda, 0x0b, 0x00, 0x00, 0x00], // ds_sub_src2_u32 v11 offset:32760
    &[0x00, 0x80, 0x08, 0xda, 0x0c, 0x00, 0x00, 0x00], // ds_rsub_src2_u32 v12 offset:32768
    &[0x01, 0x00, 0x0c, 0xda, 0x0d, 0x00, 0x00, 0x00], // ds_inc_src2_u32 v13 offset:1
    &[0x01, 0x00, 0x10, 0xda, 0x0e, 0x00, 0x00, 0x00], // ds_dec_src2_u32 v14 offset:1
    &[0x01, 0x00, 0x14, 0xda, 0x0f, 0x00, 0x00, 0x00], // ds_min_src2_i32 v15 offset:1
    &[0x01, 0x00, 0x18, 0xda, 0x10, 0x00, 0x00, 0x00], // ds_max_src2_i32 v16 offset:1
    &[0x01, 0x00, 0x1c, 0xda, 0x11, 0x00, 0x00, 0x00], // ds_min_src2_u32 v17 offset:1
    &[0x01, 0x00, 0x20, 0xda, 0x12, 0x00, 0x00, 0x00], // ds_max_src2_u32 v18 offset:1
    &[0x01, 0x00, 0x24, 0xda, 0x13, 0x00, 0x00, 0x00], // ds_and_src2_b32 v19 offset:1
    &[0x01, 0x00, 0x28, 0xda, 0x14, 0x00, 0x00, 0x00], // ds_or_src2_b32 v20 offset:1
    &[0x01, 0x00, 0x2c, 0xda, 0x15, 0x00, 0x00, 0x00], // ds_xor_src2_b32 v21 offset:1
    &[0x00, 0x80, 0x34, 0xda, 0x16, 0x00, 0x00, 0x00], // ds_write_src2_b32 v22 offset:32768
    &[0x01, 0x00, 0x48, 0xda, 0x17, 0x00, 0x00, 0x00], // ds_min_src2_f32 v23 offset:1
    &[0x01, 0x00, 0x4c, 0xda, 0x18, 0x00, 0x00, 0x00], // ds_max_src2_f32 v24 offset:1
    &[0x01, 0x00, 0x54, 0xda, 0x19, 0x00, 0x00, 0x00], // ds_add_src2_f32 v25 offset:1
    &[0x02, 0x00, 0x00, 0xdb, 0x1a, 0x00, 0x00, 0x00], // ds_add_src2_u64 v26 offset:2
    &[0x04, 0x00, 0x04, 0xdb, 0x1b, 0x00, 0x00, 0x00], // ds_sub_src2_u64 v27 offset:4
    &[0x02, 0x00, 0x08, 0xdb, 0x1c, 0x00, 0x00, 0x00], // ds_rsub_src2_u64 v28 offset:2
    &[0x02, 0x00, 0x0c, 0xdb, 0x1d, 0x00, 0x00, 0x00], // ds_inc_src2_u64 v29 offset:2
    &[0x02, 0x00, 0x10, 0xdb, 0x1e, 0x00, 0x00, 0x00], // ds_dec_src2_u64 v30 offset:2
    &[0x02, 0x00, 0x14, 0xdb, 0x1f, 0x00, 0x00, 0x00], // ds_min_src2_i64 v31 offset:2
    &[0x02, 0x00, 0x18, 0xdb, 0x20, 0x00, 0x00, 0x00], // ds_max_src2_i64 v32 offset:2
    &[0x02, 0x00, 0x1c, 0xdb, 0x21, 0x00, 0x00, 0x00], // ds_min_src2_u64 v33 offset:2
    &[0x02, 0x00, 0x20, 0xdb, 0x22, 0x00, 0x00, 0x00], // ds_max_src2_u64 v34 offset:2
    &[0x02, 0x00, 0x24, 0xdb, 0x23, 0x00, 0x00, 0x00], // ds_and_src2_b64 v35 offset:2
    &[0x02, 0x00, 0x28, 0xdb, 0x24, 0x00, 0x00, 0x00], // ds_or_src2_b64 v36 offset:2
    &[0x02, 0x00, 0x2c, 0xdb, 0x25, 0x00, 0x00, 0x00], // ds_xor_src2_b64 v37 offset:2
    &[0xfe, 0x7f, 0x34, 0xdb, 0x26, 0x00, 0x00, 0x00], // ds_write_src2_b64 v38 offset:32766
    &[0x02, 0x00, 0x48, 0xdb, 0x27, 0x00, 0x00, 0x00], // ds_min_src2_f64 v39 offset:2
    &[0x02, 0x00, 0x4c, 0xdb, 0x28, 0x00, 0x00, 0x00], // ds_max_src2_f64 v40 offset:2
    &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
];

/// The `ds_*_src2_*` operations of `SRC2_GFX900` / `SRC2_GFX1010`, in
/// program order: name, 64-bit, offset field.
const SRC2_OPS: [(&str, bool, u16); 31] = [
    ("add_u32", false, 2),
    ("sub_u32", false, 32760),
    ("rsub_u32", false, 32768),
    ("inc_u32", false, 1),
    ("dec_u32", false, 1),
    ("min_i32", false, 1),
    ("max_i32", false, 1),
    ("min_u32", false, 1),
    ("max_u32", false, 1),
    ("and_b32", false, 1),
    ("or_b32", false, 1),
    ("xor_b32", false, 1),
    ("write_b32", false, 32768),
    ("min_f32", false, 1),
    ("max_f32", false, 1),
    ("add_f32", false, 1),
    ("add_u64", true, 2),
    ("sub_u64", true, 4),
    ("rsub_u64", true, 2),
    ("inc_u64", true, 2),
    ("dec_u64", true, 2),
    ("min_i64", true, 2),
    ("max_i64", true, 2),
    ("min_u64", true, 2),
    ("max_u64", true, 2),
    ("and_b64", true, 2),
    ("or_b64", true, 2),
    ("xor_b64", true, 2),
    ("write_b64", true, 32766),
    ("min_f64", true, 2),
    ("max_f64", true, 2),
];

/// IEEE minNum / maxNum on values neither of which is a NaN-NaN pair: a NaN
/// yields the other operand, -0 counts below +0.
fn min_max_num(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    let key = |x: f64| (x, x.is_sign_positive());
    let (ka, kb) = (key(a), key(b));
    let a_less = ka.0 < kb.0 || (ka.0 == kb.0 && !ka.1 && kb.1);
    if a_less != max { a } else { b }
}

/// `MEM[A] = op(MEM[A], MEM[B])` of `ds_<name>_src2_*` (Vega ISA), on raw
/// values of `bits` bits.
fn src2_ref(name: &str, a: u64, b: u64, bits: u32) -> u64 {
    let mask = if bits == 64 { u64::MAX } else { 0xffff_ffff };
    let sx = |x: u64| {
        if bits == 64 {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let fl = |x: u64| {
        if bits == 64 {
            f64::from_bits(x)
        } else {
            f32::from_bits(x as u32) as f64
        }
    };
    let back = |x: f64| {
        if bits == 64 {
            x.to_bits()
        } else {
            (x as f32).to_bits() as u64
        }
    };
    let op = name.split('_').next().unwrap();
    let float = name.ends_with("f32") || name.ends_with("f64");
    (match (op, float) {
        ("add", false) => a.wrapping_add(b),
        ("sub", _) => a.wrapping_sub(b),
        ("rsub", _) => b.wrapping_sub(a),
        ("inc", _) => {
            if a >= b {
                0
            } else {
                a + 1
            }
        }
        ("dec", _) => {
            if a == 0 || a > b {
                b
            } else {
                a - 1
            }
        }
        ("min", false) if name.contains("_i") => sx(a).min(sx(b)) as u64,
        ("max", false) if name.contains("_i") => sx(a).max(sx(b)) as u64,
        ("min", false) => a.min(b),
        ("max", false) => a.max(b),
        ("and", _) => a & b,
        ("or", _) => a | b,
        ("xor", _) => a ^ b,
        ("write", _) => b,
        ("min", true) => back(min_max_num(fl(a), fl(b), false)),
        ("max", true) => back(min_max_num(fl(a), fl(b), true)),
        ("add", true) => {
            if bits == 64 {
                (fl(a) + fl(b)).to_bits()
            } else {
                (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits() as u64
            }
        }
        _ => unreachable!("{name}"),
    }) & mask
}

/// Runs the `ds_*_src2_*` program (one 1 KiB LDS region per lane, one
/// 32-byte slot per operation, lanes 5 and 33 inactive) and compares LDS with
/// the pseudo-code run in program and lane order on a copy: A is the address
/// register, B = A + 4 * (the offset's low 15 bits, sign-extended), or with
/// offset bit 15 set, A = the address's low 17 bits and the stride its bits
/// 31:17, sign-extended.
fn ds_src2(gpu: Gpu, size: u32, code: &[u8]) {
    let n = size as usize;
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        0xffff_ffdf
    };
    let mut init = vec![0u8; 65536];
    for (k, b) in init.iter_mut().enumerate() {
        *b = (k as u32).wrapping_mul(0x9e37_79b1).rotate_right(11) as u8;
    }
    // (vaddr, A, B) of operation k in lane l.
    let addrs = |k: usize, l: usize| -> (u32, usize, usize) {
        let a = 1024 * l + 32 * k;
        let (_, _, off) = SRC2_OPS[k];
        match k {
            // Flag mode: stride 3, and stride -1 with bit 31 set.
            2 => ((a as u32) | 3 << 17, a, a + 12),
            12 => ((a as u32) | 0xfffe_0000, a, a - 4),
            _ => {
                let s = if off & 0x4000 != 0 {
                    off as i64 - 0x8000
                } else {
                    off as i64
                };
                (a as u32, a, (a as i64 + 4 * s) as usize)
            }
        }
    };
    let f32s: [(f32, f32); 6] = [
        (1.5, -2.0),
        (f32::NAN, 3.0),
        (-0.0, 0.0),
        (0.0, -0.0),
        (f32::from_bits(1), f32::from_bits(3)),
        (f32::INFINITY, 2.0),
    ];
    for l in 0..64 {
        for (k, &(name, wide, _)) in SRC2_OPS.iter().enumerate() {
            let (_, a, b) = addrs(k, l);
            let bytes = if wide { 8 } else { 4 };
            if name.starts_with("inc") || name.starts_with("dec") {
                // Memory at A equal to, above, below B's value, or zero.
                let bv = le(&init, b, bytes);
                let av = [bv, bv.wrapping_add(1), bv.wrapping_sub(1), 0][l % 4];
                set_le(&mut init, a, bytes, av);
            }
            if name.ends_with("f32") {
                let (x, y) = f32s[l % 6];
                set_le(&mut init, a, 4, x.to_bits() as u64);
                set_le(&mut init, b, 4, y.to_bits() as u64);
            }
            if name.ends_with("f64") {
                let (x, y) = f32s[l % 6];
                let (x, y) = if l % 6 == 4 {
                    (f64::from_bits(1), f64::from_bits(3))
                } else {
                    (x as f64, y as f64)
                };
                set_le(&mut init, a, 8, x.to_bits());
                set_le(&mut init, b, 8, y.to_bits());
            }
        }
    }
    let mut want = init.clone();
    for (k, &(name, wide, _)) in SRC2_OPS.iter().enumerate() {
        let bytes = if wide { 8 } else { 4 };
        for l in 0..n {
            if (exec >> l) & 1 == 0 {
                continue;
            }
            let (_, a, b) = addrs(k, l);
            let r = src2_ref(
                name,
                le(&want, a, bytes),
                le(&want, b, bytes),
                8 * bytes as u32,
            );
            set_le(&mut want, a, bytes, r);
        }
    }
    let mut lds = Bytes::new(65536, Space::Lds);
    lds.write(0, &init).unwrap();
    let mem = GlobalMemory::new();
    run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.exec = Mask(exec);
        w.vgpr.resize(64, [0; 64]);
        for l in 0..64 {
            for k in 0..SRC2_OPS.len() {
                w.vgpr[10 + k][l] = addrs(k, l).0;
            }
        }
    })
    .expect("runs");
    let mut got = vec![0u8; 65536];
    lds.read(0, &mut got).unwrap();
    for l in 0..64 {
        for (k, &(name, wide, _)) in SRC2_OPS.iter().enumerate() {
            let bytes = if wide { 8 } else { 4 };
            let (_, a, _) = addrs(k, l);
            let (g, x) = (le(&got, a, bytes), le(&want, a, bytes));
            let nan = |v: u64| {
                if wide {
                    f64::from_bits(v).is_nan()
                } else {
                    f32::from_bits(v as u32).is_nan()
                }
            };
            let float = name.ends_with("f32") || name.ends_with("f64");
            assert!(
                g == x || (float && nan(g) && nan(x)),
                "{gpu} ds_{name}_src2 lane {l}: {g:#x}, want {x:#x}"
            );
        }
    }
    assert!(got == want, "{gpu}: other LDS bytes changed");
}

#[test]
fn lds_src2_reductions() {
    ds_src2(Gpu::Gfx900, 64, &SRC2_GFX900.concat());
    ds_src2(Gpu::Gfx1010, 32, &SRC2_GFX1010.concat());
    ds_src2(Gpu::Gfx1010, 64, &SRC2_GFX1010.concat());
    // B below address 0 is out of range, and so reported, not wrapped.
    let code: Vec<u8> = [
        &[0xf8, 0x7f, 0x02, 0xd9, 0x0b, 0x00, 0x00, 0x00][..], // ds_sub_src2_u32 v11 offset:32760
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(65536, Space::Lds);
    let err = run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 0, |w| {
        for l in 0..64 {
            w.vgpr[11][l] = 64 * l as u32;
        }
    })
    .unwrap_err();
    assert!(matches!(err, SimError::Fault { lane: 0, .. }), "{err:?}");
}

/// `ds_append`, `ds_consume`, `ds_write_addtid_b32`, `ds_read_addtid_b32`
/// and `ds_wrap_rtn_b32` with M0 = 0xabcd_0100 (LDS base 0x100 in its low
/// half) and lanes 5 (and 33) inactive.
fn ds_counters_addtid_wrap(gpu: Gpu, size: u32, code: &[u8]) {
    let n = size as usize;
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        0xffff_ffdf
    };
    let active = exec.count_ones();
    let mut lds = Bytes::new(8192, Space::Lds);
    let mut init = vec![0u8; 8192];
    for (k, b) in init.iter_mut().enumerate() {
        *b = (k as u32).wrapping_mul(0x85eb_ca6b).rotate_right(7) as u8;
    }
    // Append counter 0x108 near the top of 32 bits (it wraps), consume counter
    // 0x10c below the active count (it wraps below 0).
    set_le(&mut init, 0x108, 4, 0xffff_fffe);
    set_le(&mut init, 0x10c, 4, 3);
    // Wrap: memory above, below or equal to data0.
    let wrap_addr = |l: usize| 0x1000 + 8 * l + 4;
    let data0 = |l: usize| 1000 + l as u32;
    for l in 0..64 {
        let old = [data0(l) + 7, data0(l) - 9, data0(l)][l % 3];
        set_le(&mut init, wrap_addr(l), 4, old as u64);
    }
    lds.write(0, &init).unwrap();
    let mem = GlobalMemory::new();
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.exec = Mask(exec);
        w.m0 = 0xabcd_0100;
        for l in 0..64 {
            for r in [1, 2, 4, 5] {
                w.vgpr[r][l] = 0xdead_0000 + r as u32;
            }
            w.vgpr[3][l] = 0x3000_0000 + l as u32;
            w.vgpr[6][l] = (wrap_addr(l) - 4) as u32;
            w.vgpr[7][l] = data0(l);
            w.vgpr[8][l] = 0x100 * l as u32;
        }
    })
    .expect("runs");
    let mut got = vec![0u8; 8192];
    lds.read(0, &mut got).unwrap();
    let mut want = init.clone();
    set_le(
        &mut want,
        0x108,
        4,
        (0xffff_fffe_u32.wrapping_add(active)) as u64,
    );
    set_le(&mut want, 0x10c, 4, (3u32.wrapping_sub(active)) as u64);
    for l in 0..n {
        let on = (exec >> l) & 1 == 1;
        let keep = |r: usize| 0xdead_0000 + r as u32;
        // Every active lane gets the counter's value before the operation.
        assert_eq!(
            w.vgpr[1][l],
            if on { 0xffff_fffe } else { keep(1) },
            "{gpu} append lane {l}"
        );
        assert_eq!(
            w.vgpr[2][l],
            if on { 3 } else { keep(2) },
            "{gpu} consume lane {l}"
        );
        if on {
            set_le(&mut want, 0x110 + 4 * l, 4, 0x3000_0000 + l as u64);
        }
        let read = le(&init, 0x310 + 4 * l, 4) as u32;
        // ds_read_addtid reads after the write: 0x310 + 4l lies beyond it.
        assert_eq!(
            w.vgpr[4][l],
            if on { read } else { keep(4) },
            "{gpu} read_addtid lane {l}"
        );
        let old = le(&init, wrap_addr(l), 4) as u32;
        if on {
            let new = if old >= data0(l) {
                old - data0(l)
            } else {
                old + 0x100 * l as u32
            };
            set_le(&mut want, wrap_addr(l), 4, new as u64);
        }
        assert_eq!(
            w.vgpr[5][l],
            if on { old } else { keep(5) },
            "{gpu} wrap lane {l}"
        );
    }
    assert!(got == want, "{gpu}: LDS");
}

#[test]
fn lds_append_consume_addtid_and_wrap() {
    let gfx9: Vec<u8> = [
        &[0x08, 0x00, 0x7c, 0xd9, 0x00, 0x00, 0x00, 0x01][..], // ds_append v1 offset:8
        &[0x0c, 0x00, 0x7a, 0xd9, 0x00, 0x00, 0x00, 0x02],     // ds_consume v2 offset:12
        &[0x10, 0x00, 0x3a, 0xd8, 0x00, 0x03, 0x00, 0x00],     // ds_write_addtid_b32 v3 offset:16
        &[0x10, 0x02, 0x6c, 0xd9, 0x00, 0x00, 0x00, 0x04],     // ds_read_addtid_b32 v4 offset:528
        &[0x04, 0x00, 0x68, 0xd8, 0x06, 0x07, 0x08, 0x05], // ds_wrap_rtn_b32 v5, v6, v7, v8 offset:4
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x08, 0x00, 0xf8, 0xd8, 0x00, 0x00, 0x00, 0x01][..], // ds_append v1 offset:8
        &[0x0c, 0x00, 0xf4, 0xd8, 0x00, 0x00, 0x00, 0x02],     // ds_consume v2 offset:12
        &[0x10, 0x00, 0xc0, 0xda, 0x00, 0x03, 0x00, 0x00],     // ds_write_addtid_b32 v3 offset:16
        &[0x10, 0x02, 0xc4, 0xda, 0x00, 0x00, 0x00, 0x04],     // ds_read_addtid_b32 v4 offset:528
        &[0x04, 0x00, 0xd0, 0xd8, 0x06, 0x07, 0x08, 0x05], // ds_wrap_rtn_b32 v5, v6, v7, v8 offset:4
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    ds_counters_addtid_wrap(Gpu::Gfx900, 64, &gfx9);
    ds_counters_addtid_wrap(Gpu::Gfx90a, 64, &gfx9);
    ds_counters_addtid_wrap(Gpu::Gfx1030, 32, &gfx10);
    ds_counters_addtid_wrap(Gpu::Gfx1010, 64, &gfx10);
    // An M0 base whose lanes run past the end of LDS is reported.
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(8192, Space::Lds);
    let err = run_in(Gpu::Gfx900, 64, &gfx9[16..24], &mem, &mut lds, 0, |w| {
        w.m0 = 8192 - 16 - 64;
    })
    .unwrap_err();
    assert!(matches!(err, SimError::Fault { lane: 16, .. }), "{err:?}");
}

#[test]
fn gfx1030_global_addtid_loads_and_stores() {
    let code: Vec<u8> = [
        &[0xf0, 0x8f, 0x58, 0xdc, 0x00, 0x00, 0x02, 0x01][..], // global_load_dword_addtid v1, s[2:3] offset:-16
        &[0x00, 0x81, 0x5c, 0xdc, 0x00, 0x04, 0x02, 0x00], // global_store_dword_addtid v4, s[2:3] offset:256
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    for size in [32u32, 64] {
        let mem = GlobalMemory::new();
        let g = mem.allocate(1024).unwrap();
        for k in 0..256u64 {
            mem.write(g + 4 * k, &(0x7000 + k as u32).to_le_bytes())
                .unwrap();
        }
        let mut lds = Bytes::new(0, Space::Lds);
        let exec: u64 = if size == 64 {
            !(1 << 5 | 1 << 33)
        } else {
            0xffff_ffdf
        };
        let base = g + 16;
        let w = run_in(Gpu::Gfx1030, size, &code, &mem, &mut lds, 0, |w| {
            w.exec = Mask(exec);
            (w.sgpr[2], w.sgpr[3]) = (base as u32, (base >> 32) as u32);
            for l in 0..64 {
                w.vgpr[1][l] = 0xdead;
                w.vgpr[4][l] = 0x4000 + l as u32;
            }
        })
        .expect("runs");
        for l in 0..size as usize {
            let on = (exec >> l) & 1 == 1;
            // Lane l loads dword l of g (base - 16 + 4l).
            assert_eq!(w.vgpr[1][l], if on { 0x7000 + l as u32 } else { 0xdead });
            let mut b = [0u8; 4];
            mem.read(base + 256 + 4 * l as u64, &mut b).unwrap();
            let stored = u32::from_le_bytes(b);
            let kept = 0x7000 + 4 + 64 + l as u32;
            assert_eq!(
                stored,
                if on { 0x4000 + l as u32 } else { kept },
                "lane {l}"
            );
        }
    }
    // With SADDR off the base is 0: unallocated, so a fault.
    let code: Vec<u8> = [
        &[0xfc, 0x87, 0x58, 0xdc, 0x00, 0x00, 0x7d, 0x02][..], // global_load_dword_addtid v2, off offset:2044
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let err = run(Gpu::Gfx1030, 32, &code, |_| {}).unwrap_err();
    assert!(matches!(err, SimError::Fault { lane: 0, .. }), "{err:?}");
}

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

/// The scalar scratch accesses (at SBASE + offset + SOFFSET * 64 in the
/// wave's unswizzled scratch, SBASE = FLAT_SCRATCH), the cache and
/// translation hints that have no effect here, `s_setkill 0`, `s_setvskip`
/// of a clear bit and the messages a compute wave may send without effect.
fn scalar_scratch_and_hints(gpu: Gpu, size: u32, code: &[u8]) {
    use amdgpu_sim::memory::SCRATCH_BACKING;
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(0, Space::Lds);
    let init: Vec<u8> = (0..32 * size).map(|k| (k * 37 + 11) as u8).collect();
    let word = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let w = run_in(gpu, size, code, &mem, &mut lds, 32, |w| {
        w.scratch.write_backing(0, &init).unwrap();
        (w.sgpr[2], w.sgpr[3]) = (SCRATCH_BACKING as u32, (SCRATCH_BACKING >> 32) as u32);
        // SGPR offsets are dword-aligned (low bits ignored), then scaled by 64.
        w.sgpr[4] = 7;
        w.sgpr[6] = 8;
        for r in 8..12 {
            w.sgpr[r] = 0xa000 + r as u32;
        }
        w.sgpr[15] = 0xe15;
        (w.sgpr[16], w.sgpr[17]) = (0xf16, 0xf17);
        (w.sgpr[20], w.sgpr[21]) = (0b1010, 0);
    })
    .expect("runs");
    let mut b = vec![0u8; 32 * size as usize];
    w.scratch.read_backing(0, &mut b).unwrap();
    // The x4 store went to 0x20 + (7 & !3) * 64 = 288.
    for k in 0..4 {
        assert_eq!(
            word(&b, 288 + 4 * k),
            0xa008 + k as u32,
            "{gpu} store dword {k}"
        );
    }
    assert_eq!(
        (w.sgpr[12], w.sgpr[13]),
        (word(&init, 100), word(&init, 104)),
        "{gpu} load x2 at 100"
    );
    assert_eq!(w.sgpr[14], word(&init, 512), "{gpu} load at 8 * 64");
    let want = [word(&init, 0), 0xe15, 0xf16, 0xf17];
    assert_eq!(&w.sgpr[24..28], &want, "{gpu} load x4 after the stores");
    for (o, v) in [(0, word(&init, 0)), (4, 0xe15), (8, 0xf16), (12, 0xf17)] {
        assert_eq!(word(&b, o), v, "{gpu} scratch dword at {o}");
    }
    assert_eq!(w.status, WaveStatus::Done);
}

#[test]
fn scalar_scratch_cache_hints_and_messages() {
    let gfx9: Vec<u8> = [
        &[0x01, 0x42, 0x5e, 0xc0, 0x20, 0x00, 0x00, 0x08][..], // s_scratch_store_dwordx4 s[8:11], s[2:3], s4 offset:0x20
        &[0x01, 0x03, 0x1a, 0xc0, 0x64, 0x00, 0x00, 0x00], // s_scratch_load_dwordx2 s[12:13], s[2:3], 0x64
        &[0x81, 0x03, 0x14, 0xc0, 0x06, 0x00, 0x00, 0x00], // s_scratch_load_dword s14, s[2:3], s6
        &[0xc1, 0x03, 0x56, 0xc0, 0x04, 0x00, 0x00, 0x00], // s_scratch_store_dword s15, s[2:3], 0x4
        &[0x01, 0x04, 0x5a, 0xc0, 0x08, 0x00, 0x00, 0x00], // s_scratch_store_dwordx2 s[16:17], s[2:3], 0x8
        &[0x01, 0x06, 0x1e, 0xc0, 0x00, 0x00, 0x00, 0x00], // s_scratch_load_dwordx4 s[24:27], s[2:3], 0x0
        &[0x01, 0x00, 0xa0, 0xc0, 0x04, 0x00, 0x00, 0x00], // s_dcache_discard s[2:3], s4
        &[0x01, 0x00, 0xa6, 0xc0, 0x40, 0x00, 0x00, 0x00], // s_dcache_discard_x2 s[2:3], 0x40
        &[0xc1, 0x01, 0x9a, 0xc0, 0x64, 0x00, 0x00, 0x00], // s_atc_probe 7, s[2:3], 0x64
        &[0xc4, 0x01, 0x9e, 0xc0, 0x64, 0x00, 0x00, 0x00], // s_atc_probe_buffer 7, s[8:11], 0x64
        &[0x00, 0x00, 0x8b, 0xbf],                         // s_setkill 0
        &[0x14, 0x15, 0x10, 0xbf],                         // s_setvskip s20, s21
        &[0x04, 0x00, 0x90, 0xbf],                         // s_sendmsg sendmsg(MSG_SAVEWAVE)
        &[0x05, 0x00, 0x90, 0xbf],                         // s_sendmsg sendmsg(MSG_STALL_WAVE_GEN)
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x01, 0x02, 0x5c, 0xf4, 0x20, 0x00, 0x00, 0x08][..], // s_scratch_store_dwordx4 s[8:11], s[2:3], s4 offset:0x20
        &[0x01, 0x03, 0x18, 0xf4, 0x64, 0x00, 0x00, 0xfa], // s_scratch_load_dwordx2 s[12:13], s[2:3], 0x64
        &[0x81, 0x03, 0x14, 0xf4, 0x00, 0x00, 0x00, 0x0c], // s_scratch_load_dword s14, s[2:3], s6
        &[0xc1, 0x03, 0x54, 0xf4, 0x04, 0x00, 0x00, 0xfa], // s_scratch_store_dword s15, s[2:3], 0x4
        &[0x01, 0x04, 0x58, 0xf4, 0x08, 0x00, 0x00, 0xfa], // s_scratch_store_dwordx2 s[16:17], s[2:3], 0x8
        &[0x01, 0x06, 0x1c, 0xf4, 0x00, 0x00, 0x00, 0xfa], // s_scratch_load_dwordx4 s[24:27], s[2:3], 0x0
        &[0x01, 0x00, 0xa0, 0xf4, 0x00, 0x00, 0x00, 0x08], // s_dcache_discard s[2:3], s4
        &[0x01, 0x00, 0xa4, 0xf4, 0x40, 0x00, 0x00, 0xfa], // s_dcache_discard_x2 s[2:3], 0x40
        &[0xc1, 0x01, 0x98, 0xf4, 0x64, 0x00, 0x00, 0xfa], // s_atc_probe 7, s[2:3], 0x64
        &[0xc4, 0x01, 0x9c, 0xf4, 0x64, 0x00, 0x00, 0xfa], // s_atc_probe_buffer 7, s[8:11], 0x64
        &[0x00, 0x00, 0x8b, 0xbf],                         // s_setkill 0
        &[0x04, 0x00, 0x90, 0xbf],                         // s_sendmsg sendmsg(MSG_SAVEWAVE)
        &[0x05, 0x00, 0x90, 0xbf],                         // s_sendmsg sendmsg(MSG_STALL_WAVE_GEN)
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    scalar_scratch_and_hints(Gpu::Gfx900, 64, &gfx9);
    scalar_scratch_and_hints(Gpu::Gfx90a, 64, &gfx9);
    scalar_scratch_and_hints(Gpu::Gfx1010, 32, &gfx10);
    // What cannot be modelled is reported, not ignored.
    let unsupported = |gpu: Gpu, code: &[u8], setup: &dyn Fn(&mut Wave)| {
        let err = run(gpu, 64, code, setup).unwrap_err();
        assert!(matches!(err, SimError::Unsupported { .. }), "{err:?}");
    };
    let end: &[u8] = &[0x00, 0x00, 0x81, 0xbf];
    unsupported(
        Gpu::Gfx900,
        &[&[0x01, 0x00, 0x8b, 0xbf][..], end].concat(),
        &|_| {},
    ); // s_setkill 1
    unsupported(
        Gpu::Gfx1030,
        &[&[0x01, 0x00, 0x90, 0xbf][..], end].concat(),
        &|_| {},
    ); // s_sendmsg sendmsg(MSG_INTERRUPT)
    unsupported(
        Gpu::Gfx1030,
        &[&[0x03, 0x00, 0x90, 0xbf][..], end].concat(),
        &|_| {},
    ); // s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_NOP)
    // s_setvskip s20, s21 with bit 3 of s20 selected and set.
    unsupported(Gpu::Gfx900, &gfx9[84..92], &|w| {
        (w.sgpr[20], w.sgpr[21]) = (0b1010, 3);
    });
    // A scalar scratch address that is not the wave's scratch.
    unsupported(Gpu::Gfx900, &[&gfx9[8..16], end].concat(), &|_| {});
    // s_sendmsghalt of a harmless message halts the wave.
    let err = run(
        Gpu::Gfx900,
        64,
        &[&[0x04, 0x00, 0x91, 0xbf][..], end].concat(),
        |_| {},
    )
    .unwrap_err();
    assert!(matches!(err, SimError::Halted { .. }), "{err:?}");
    // Beyond the scratch allocation: a fault.
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(0, Space::Lds);
    let err = run_in(
        Gpu::Gfx900,
        64,
        &[&gfx9[8..16], end].concat(),
        &mem,
        &mut lds,
        16,
        |w| {
            // 16 bytes per lane: 1024 bytes; the load x2 at +0x64 reads 1024..1032.
            let base = amdgpu_sim::memory::SCRATCH_BACKING + 1024 - 0x64;
            (w.sgpr[2], w.sgpr[3]) = (base as u32, (base >> 32) as u32);
        },
    )
    .unwrap_err();
    assert!(matches!(err, SimError::Fault { .. }), "{err:?}");
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

const D16_GFX9: &[&[u8]] = &[
    &[0x00, 0x10, 0x20, 0xe0, 0x00, 0x01, 0x00, 0x80], // buffer_load_format_d16_x v1, v0, s[0:3], 0 offen
    &[0x04, 0x10, 0x98, 0xe0, 0x00, 0x02, 0x00, 0x80], // buffer_load_format_d16_hi_x v2, v0, s[0:3], 0 offen offset:4
    &[0x08, 0x10, 0x24, 0xe0, 0x00, 0x03, 0x01, 0x80], // buffer_load_format_d16_xy v3, v0, s[4:7], 0 offen offset:8
    &[0x10, 0x10, 0x28, 0xe0, 0x00, 0x04, 0x02, 0x80], // buffer_load_format_d16_xyz v[4:5], v0, s[8:11], 0 offen offset:16
    &[0x20, 0x10, 0x2c, 0xe0, 0x00, 0x06, 0x03, 0x80], // buffer_load_format_d16_xyzw v[6:7], v0, s[12:15], 0 offen offset:32
    &[0x40, 0x10, 0x30, 0xe0, 0x00, 0x0a, 0x00, 0x80], // buffer_store_format_d16_x v10, v0, s[0:3], 0 offen offset:64
    &[0x44, 0x10, 0x9c, 0xe0, 0x00, 0x0a, 0x00, 0x80], // buffer_store_format_d16_hi_x v10, v0, s[0:3], 0 offen offset:68
    &[0x48, 0x10, 0x34, 0xe0, 0x00, 0x0b, 0x01, 0x80], // buffer_store_format_d16_xy v11, v0, s[4:7], 0 offen offset:72
    &[0x50, 0x10, 0x38, 0xe0, 0x00, 0x0c, 0x02, 0x80], // buffer_store_format_d16_xyz v[12:13], v0, s[8:11], 0 offen offset:80
    &[0x60, 0x10, 0x3c, 0xe0, 0x00, 0x0e, 0x03, 0x80], // buffer_store_format_d16_xyzw v[14:15], v0, s[12:15], 0 offen offset:96
    &[0x08, 0x90, 0xdc, 0xeb, 0x00, 0x14, 0x01, 0x80], // tbuffer_load_format_d16_xy v20, v0, s[4:7], 0 format:[BUF_DATA_FORMAT_32_32,BUF_NUM_FORMAT_FLOAT] offen offset:8
    &[0x70, 0x10, 0xef, 0xeb, 0x00, 0x0c, 0x02, 0x80], // tbuffer_store_format_d16_xyz v[12:13], v0, s[8:11], 0 format:[BUF_DATA_FORMAT_32_32_32,BUF_NUM_FORMAT_FLOAT] offen offset:112
    &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
];

const D16_GFX10: &[&[u8]] = &[
    &[0x00, 0x10, 0x00, 0xe2, 0x00, 0x01, 0x00, 0x80], // buffer_load_format_d16_x v1, v0, s[0:3], 0 offen
    &[0x04, 0x10, 0x98, 0xe0, 0x00, 0x02, 0x00, 0x80], // buffer_load_format_d16_hi_x v2, v0, s[0:3], 0 offen offset:4
    &[0x08, 0x10, 0x04, 0xe2, 0x00, 0x03, 0x01, 0x80], // buffer_load_format_d16_xy v3, v0, s[4:7], 0 offen offset:8
    &[0x10, 0x10, 0x08, 0xe2, 0x00, 0x04, 0x02, 0x80], // buffer_load_format_d16_xyz v[4:5], v0, s[8:11], 0 offen offset:16
    &[0x20, 0x10, 0x0c, 0xe2, 0x00, 0x06, 0x03, 0x80], // buffer_load_format_d16_xyzw v[6:7], v0, s[12:15], 0 offen offset:32
    &[0x40, 0x10, 0x10, 0xe2, 0x00, 0x0a, 0x00, 0x80], // buffer_store_format_d16_x v10, v0, s[0:3], 0 offen offset:64
    &[0x44, 0x10, 0x9c, 0xe0, 0x00, 0x0a, 0x00, 0x80], // buffer_store_format_d16_hi_x v10, v0, s[0:3], 0 offen offset:68
    &[0x48, 0x10, 0x14, 0xe2, 0x00, 0x0b, 0x01, 0x80], // buffer_store_format_d16_xy v11, v0, s[4:7], 0 offen offset:72
    &[0x50, 0x10, 0x18, 0xe2, 0x00, 0x0c, 0x02, 0x80], // buffer_store_format_d16_xyz v[12:13], v0, s[8:11], 0 offen offset:80
    &[0x60, 0x10, 0x1c, 0xe2, 0x00, 0x0e, 0x03, 0x80], // buffer_store_format_d16_xyzw v[14:15], v0, s[12:15], 0 offen offset:96
    &[0x08, 0x10, 0x01, 0xea, 0x00, 0x14, 0x21, 0x80], // tbuffer_load_format_d16_xy v20, v0, s[4:7], 0 format:[BUF_FMT_32_32_FLOAT] offen offset:8
    &[0x70, 0x10, 0x56, 0xea, 0x00, 0x0c, 0x22, 0x80], // tbuffer_store_format_d16_xyz v[12:13], v0, s[8:11], 0 format:[BUF_FMT_32_32_32_FLOAT] offen offset:112
    &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
];

/// f32 values in memory and the f16 each rounds to (to nearest even), by
/// hand: overflow and ties at the top, ties between integers, the smallest
/// denormal and a tie between denormals, an underflow to 0, -0, NaN.
const D16_LOADS: [(u32, u16); 13] = [
    (0x3f80_0000, 0x3c00), // 1.0
    (0xc020_0000, 0xc100), // -2.5
    (0x477f_e000, 0x7bff), // 65504
    (0x477f_f000, 0x7c00), // 65520: a tie, to even, overflows
    (0x4500_1000, 0x6800), // 2049: a tie, to even 2048
    (0x4500_3000, 0x6802), // 2051: a tie, to even 2052
    (0x2edb_e6ff, 0x0000), // 1e-10
    (0x8000_0000, 0x8000), // -0
    (0x7f61_b1e6, 0x7c00), // 3e38
    (0x3dcc_cccd, 0x2e66), // 0.1
    (0x3380_0000, 0x0001), // 2^-24
    (0x33c0_0000, 0x0002), // 1.5 * 2^-24: a tie, to even
    (0x7fc0_0000, 0x7e00), // NaN
];

/// f16 halves stored through a d16 form and the f32 each widens to.
const D16_STORES: [(u16, u32); 8] = [
    (0x3c00, 0x3f80_0000),
    (0xc100, 0xc020_0000),
    (0x7bff, 0x477f_e000),
    (0x7c00, 0x7f80_0000),
    (0x8000, 0x8000_0000),
    (0x0001, 0x3380_0000),
    (0x2e66, 0x3dcc_c000),
    (0xfc00, 0xff80_0000),
];

/// Runs the d16 program (loads at byte offsets 0, 4, 8, 16, 32 and stores at
/// 64, 68, 72, 80, 96 and 112 of each lane's 128 bytes) with descriptors of
/// 1 to 4 32-bit components of numeric format `num` (0 UINT, 1 SINT, 2
/// FLOAT); the loads only when `num` is FLOAT.
fn d16_format(gpu: Gpu, size: u32, code: &[u8], num: u32) -> Wave {
    let gfx10 = gpu.generation() == amdgpu_isa::Gen::Gfx10;
    let sel = 4 | 5 << 3 | 6 << 6 | 7 << 9;
    let fmt = |comps: u32| -> u32 {
        if gfx10 {
            sel | ([20, 62, 72, 75][comps as usize - 1] + num) << 12
        } else {
            let nfmt = [4, 5, 7][num as usize];
            sel | nfmt << 12 | [4, 11, 13, 14][comps as usize - 1] << 15
        }
    };
    let mem = GlobalMemory::new();
    let g = mem.allocate(8192).unwrap();
    mem.fill(g, 8192, 0xee).unwrap();
    for l in 0..64u64 {
        for k in 0..12u64 {
            let (v, _) = D16_LOADS[((l + k) % 13) as usize];
            mem.write(g + 128 * l + 4 * k, &v.to_le_bytes()).unwrap();
        }
    }
    let mut lds = Bytes::new(0, Space::Lds);
    let h = |l: usize, k: usize| D16_STORES[(l + k) % 8].0 as u32;
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.vgpr.resize(32, [0; 64]);
        for (q, comps) in [(0, 1), (4, 2), (8, 3), (12, 4)] {
            w.sgpr[q] = g as u32;
            w.sgpr[q + 1] = (g >> 32) as u32 & 0xffff;
            w.sgpr[q + 2] = 8192;
            w.sgpr[q + 3] = fmt(comps);
        }
        for l in 0..64 {
            w.vgpr[0][l] = 128 * l as u32;
            for r in 1..8 {
                w.vgpr[r][l] = 0xbeef_0000 | r as u32;
            }
            w.vgpr[20][l] = 0xbeef_0014;
            for r in 10..16 {
                w.vgpr[r][l] = h(l, 2 * r) | h(l, 2 * r + 1) << 16;
            }
        }
    })
    .unwrap_or_else(|e| panic!("{gpu} num {num}: {e}"));
    let word = |off: u64| mem.read_u32(g + off).unwrap();
    let widen = |x: u32| -> u32 {
        match num {
            0 => x,
            1 => x as u16 as i16 as i32 as u32,
            _ => D16_STORES.iter().find(|s| s.0 as u32 == x).unwrap().1,
        }
    };
    let n = size as usize;
    for l in 0..n {
        let at = 128 * l as u64;
        let st = |r: usize, hi: bool| {
            widen(if hi {
                w.vgpr[r][l] >> 16
            } else {
                w.vgpr[r][l] & 0xffff
            })
        };
        // x from v10's low half, hi_x from its high half, xy from v11,
        // xyz from v12 and v13's low half, xyzw from v14 and v15.
        let want = [
            (64, st(10, false)),
            (68, st(10, true)),
            (72, st(11, false)),
            (76, st(11, true)),
            (80, st(12, false)),
            (84, st(12, true)),
            (88, st(13, false)),
            (92, 0xeeee_eeee),
            (96, st(14, false)),
            (100, st(14, true)),
            (104, st(15, false)),
            (108, st(15, true)),
        ];
        for (o, v) in want {
            assert_eq!(word(at + o), v, "{gpu} num {num} lane {l} store at {o}");
        }
        if num == 2 {
            for (o, v) in [
                (112, st(12, false)),
                (116, st(12, true)),
                (120, st(13, false)),
            ] {
                assert_eq!(word(at + o), v, "{gpu} tbuffer store lane {l} at {o}");
            }
            let f16_at = |k: usize| D16_LOADS[(l + k) % 13].1 as u32;
            // Loads: x keeps v1's high half, hi_x v2's low half, xyz v5's
            // high half.
            assert_eq!(
                w.vgpr[1][l],
                0xbeef_0000 | f16_at(0),
                "{gpu} d16_x lane {l}"
            );
            assert_eq!(
                w.vgpr[2][l],
                0x0002 | f16_at(1) << 16,
                "{gpu} d16_hi_x lane {l}"
            );
            assert_eq!(
                w.vgpr[3][l],
                f16_at(2) | f16_at(3) << 16,
                "{gpu} d16_xy lane {l}"
            );
            assert_eq!(
                w.vgpr[4][l],
                f16_at(4) | f16_at(5) << 16,
                "{gpu} d16_xyz lane {l}"
            );
            assert_eq!(
                w.vgpr[5][l],
                0xbeef_0000 | f16_at(6),
                "{gpu} d16_xyz lane {l}"
            );
            assert_eq!(
                w.vgpr[6][l],
                f16_at(8) | f16_at(9) << 16,
                "{gpu} d16_xyzw lane {l}"
            );
            assert_eq!(
                w.vgpr[7][l],
                f16_at(10) | f16_at(11) << 16,
                "{gpu} d16_xyzw lane {l}"
            );
            assert_eq!(
                w.vgpr[20][l],
                f16_at(2) | f16_at(3) << 16,
                "{gpu} tbuffer d16_xy lane {l}"
            );
        }
    }
    w
}

#[test]
fn buffer_d16_format_loads_and_stores() {
    for (gpu, size, code) in [
        (Gpu::Gfx900, 64, D16_GFX9.concat()),
        (Gpu::Gfx90a, 64, D16_GFX9.concat()),
        (Gpu::Gfx1030, 32, D16_GFX10.concat()),
        (Gpu::Gfx1010, 64, D16_GFX10.concat()),
    ] {
        d16_format(gpu, size, &code, 2);
        // UINT and SINT components: the stores only (bytes 40..80 of the code).
        let stores = [&code[40..80], &code[96..]].concat();
        d16_format(gpu, size, &stores, 0);
        d16_format(gpu, size, &stores, 1);
        // Narrowing a 32-bit integer component on load is reported.
        let mem = GlobalMemory::new();
        let g = mem.allocate(64).unwrap();
        let mut lds = Bytes::new(0, Space::Lds);
        // 32 UINT: GFX10 format 20; GFX9 dfmt 4, nfmt 4.
        let sel = 4 | 5 << 3 | 6 << 6 | 7 << 9;
        let w3 = if gpu.generation() == amdgpu_isa::Gen::Gfx10 {
            sel | 20 << 12
        } else {
            sel | 4 << 12 | 4 << 15
        };
        let err = run_in(
            gpu,
            size,
            &[&code[..8], &code[96..]].concat(),
            &mem,
            &mut lds,
            0,
            |w| {
                (w.sgpr[0], w.sgpr[1], w.sgpr[2], w.sgpr[3]) = (g as u32, (g >> 32) as u32, 64, w3);
            },
        )
        .unwrap_err();
        assert!(
            matches!(err, SimError::Unsupported { .. }),
            "{gpu}: {err:?}"
        );
    }
}

/// `ds_add_src2_f32` uses the LDS f32 adder: like `ds_add_f32` it follows
/// MODE's f32 denormal bits (flushing: a denormal input counts as zero and a
/// denormal sum is stored as zero).
#[test]
fn ds_add_src2_f32_follows_mode_denormals() {
    let code: Vec<u8> = [
        &[0x01, 0x09, 0x00, 0xba, 0x00, 0x00, 0x00, 0x00][..], // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0
        SRC2_GFX900[15],                                       // ds_add_src2_f32 v25 offset:1
        &[0x00, 0x00, 0x81, 0xbf],                             // s_endpgm
    ]
    .concat();
    let (den, min) = (1e-40f32, f32::MIN_POSITIVE);
    let a = |l: usize| if l % 2 == 0 { den } else { 1.5 * min };
    let b = |l: usize| if l % 2 == 0 { 0.0f32 } else { -min };
    let mem = GlobalMemory::new();
    let mut lds = Bytes::new(1024, Space::Lds);
    for l in 0..64usize {
        lds.write(16 * l as u64, &a(l).to_le_bytes()).unwrap();
        lds.write(16 * l as u64 + 4, &b(l).to_le_bytes()).unwrap();
    }
    run_in(Gpu::Gfx900, 64, &code, &mem, &mut lds, 0, |w| {
        w.vgpr.resize(32, [0; 64]);
        for l in 0..64 {
            w.vgpr[25][l] = 16 * l as u32;
        }
    })
    .expect("runs");
    for l in 0..64usize {
        let mut x = [0u8; 4];
        lds.read(16 * l as u64, &mut x).unwrap();
        assert_eq!(u32::from_le_bytes(x), 0, "flushed sum, lane {l}");
    }
}

/// GFX9's branch stack, by the Vega ISA pseudo-code of `s_cbranch_i_fork`,
/// `s_cbranch_g_fork` and `s_cbranch_join`: a fork that splits the lanes
/// runs the side with fewer lanes first (the taken side on a tie), pushing
/// the other side's `{PC, lanes}` to SGPR[CSP * 4] (MODE.CSP, bits 31:29);
/// the first join pops it, the second falls through.
#[test]
fn fork_and_join_follow_the_branch_stack() {
    let body: [&[u8]; 5] = [
        &[0x81, 0x02, 0x02, 0x7e], // 0x1008 v_mov_b32_e32 v1, 1
        &[0x01, 0x00, 0x82, 0xbf], // 0x100c s_branch 1 (to the join)
        &[0x82, 0x02, 0x02, 0x7e], // 0x1010 v_mov_b32_e32 v1, 2
        &[0x0c, 0x2e, 0x80, 0xbe], // 0x1014 s_cbranch_join s12
        &[0x00, 0x00, 0x81, 0xbf], // 0x1018 s_endpgm
    ];
    let getreg: &[u8] = &[0x41, 0x17, 0x8c, 0xb8]; // s_getreg_b32 s12, hwreg(HW_REG_MODE, 29, 3)
    let i_fork: &[u8] = &[0x02, 0x00, 0x0a, 0xb8]; // s_cbranch_i_fork s[10:11], 2 (to 0x1010)
    let g_fork: &[u8] = &[0x0a, 0x14, 0x80, 0x94]; // s_cbranch_g_fork s[10:11], s[20:21]
    let all = u64::MAX;
    for fork in [i_fork, g_fork] {
        let code = [&[getreg, fork][..], &body[..]].concat().concat();
        // (taken lanes, what runs first, the entry pushed: lanes and PC)
        let low40 = (1u64 << 40) - 1;
        let low10 = (1u64 << 10) - 1;
        for (cond, pushed) in [
            // 40 lanes taken, 24 not: the 24 first, the taken lanes pushed
            // with the target; the side run last leaves its EXEC.
            (low40, Some((low40, 0x1010u64))),
            // 10 taken: those first, the others pushed with the
            // fall-through PC.
            (low10, Some((!low10, 0x1008))),
            // A tie: the taken side first.
            (u32::MAX as u64, Some((!(u32::MAX as u64), 0x1008))),
            (all, None),
            (0, None),
        ] {
            let w = run(Gpu::Gfx900, 64, &code, |w| {
                w.sgpr[10] = cond as u32;
                w.sgpr[11] = (cond >> 32) as u32;
                w.sgpr[20] = 0x1010;
                w.sgpr[21] = 0;
                for l in 0..64 {
                    w.vgpr[1][l] = 0xdead;
                }
            })
            .unwrap();
            for l in 0..64 {
                let want = if cond >> l & 1 != 0 { 2 } else { 1 };
                assert_eq!(w.vgpr[1][l], want, "cond {cond:#x} lane {l}");
            }
            assert_eq!(w.hwreg[1] >> 29, 0, "CSP back to its saved value");
            match pushed {
                Some((lanes, pc)) => {
                    assert_eq!(w.sgpr[0] as u64 | (w.sgpr[1] as u64) << 32, lanes);
                    assert_eq!(w.sgpr[2] as u64 | (w.sgpr[3] as u64) << 32, pc);
                    // The second join continues with the lanes of the side
                    // popped last.
                    assert_eq!(w.exec.0, lanes, "cond {cond:#x}");
                }
                None => {
                    assert_eq!(w.sgpr[..4], [0; 4], "nothing pushed for {cond:#x}");
                    assert_eq!(w.exec.0, all);
                }
            }
        }
    }
    // A split with the stack full (CSP 7: three bits) and a join that finds
    // the stack empty are reported, not executed.
    let code = [&[getreg, i_fork][..], &body[..]].concat().concat();
    let err = run(Gpu::Gfx900, 64, &code, |w| {
        w.sgpr[10] = 1;
        w.hwreg[1] |= 7 << 29;
    })
    .unwrap_err();
    assert!(err.to_string().contains("branch stack full"), "{err}");
    let join: &[u8] = &[0x0c, 0x2e, 0x80, 0xbe]; // s_cbranch_join s12
    let err = run(Gpu::Gfx900, 64, join, |w| w.sgpr[12] = 3).unwrap_err();
    assert!(err.to_string().contains("empty branch stack"), "{err}");
}

/// `s_rfe_b64` and `s_rfe_restore_b64` set the PC from S0 (Vega ISA: PRIV =
/// 0; PC = S0.u64), `s_endpgm_saved` ends the wave, and GFX10's `v_illegal`
/// raises the illegal-instruction exception, reported as such.
#[test]
fn exception_returns_end_saved_and_illegal() {
    let trap: &[u8] = &[0x01, 0x00, 0x92, 0xbf]; // s_trap 1
    let code = [
        &[0x14, 0x1f, 0x80, 0xbe][..], // 0x1000 s_rfe_b64 s[20:21] (to 0x1008)
        trap,                          // 0x1004
        &[0x16, 0x18, 0x80, 0x95],     // 0x1008 s_rfe_restore_b64 s[22:23], s24 (to 0x1010)
        trap,                          // 0x100c
        &[0x00, 0x00, 0x9b, 0xbf],     // 0x1010 s_endpgm_saved
        trap,                          // 0x1014
    ]
    .concat();
    let w = run(Gpu::Gfx900, 64, &code, |w| {
        w.sgpr[20] = 0x1008;
        w.sgpr[22] = 0x1010;
        w.sgpr[24] = 1;
    })
    .unwrap();
    assert_eq!(w.status, WaveStatus::Done);
    assert_eq!(w.pc, 0x1014);
    assert_eq!(w.executed, 3);
    // v_illegal is the all-zero word on GFX10.
    let err = run(Gpu::Gfx1030, 32, &[0, 0, 0, 0], |_| {}).unwrap_err();
    match &err {
        SimError::IllegalInstruction { at } => {
            assert_eq!(at.pc, BASE);
            assert!(at.inst.starts_with("v_illegal"), "{}", at.inst);
        }
        other => panic!("expected an illegal-instruction exception, got {other}"),
    }
}

/// MUBUF loads with the LDS bit (LDS DMA) write each active lane's dword to
/// LDS at `M0[15:0] + inst_offset + 4 * lane` (Vega ISA "LDS_ADDR = LDSbase +
/// LDS_offset + inst_offset + TIDinWave * 4"), reading the buffer as an
/// ordinary load does: out-of-range lanes give 0, inactive lanes write
/// nothing, and a lane whose LDS address is outside the group's LDS faults
/// before anything is written.
#[test]
fn buffer_loads_to_lds() {
    let end: &[u8] = &[0x00, 0x00, 0x81, 0xbf]; // s_endpgm
    for (gpu, size, load) in [
        // buffer_load_dword v1, s[4:7], s8 offen offset:8 lds
        (
            Gpu::Gfx900,
            64,
            [0x08, 0x10, 0x51, 0xe0, 0x01, 0x00, 0x01, 0x08],
        ),
        (
            Gpu::Gfx90a,
            64,
            [0x08, 0x10, 0x51, 0xe0, 0x01, 0x00, 0x01, 0x08],
        ),
        (
            Gpu::Gfx1030,
            32,
            [0x08, 0x10, 0x31, 0xe0, 0x01, 0x00, 0x01, 0x08],
        ),
    ] {
        let code = [&load[..], end].concat();
        let mem = GlobalMemory::new();
        let g = mem.allocate(8192).unwrap();
        for k in 0..2048u64 {
            mem.write(g + 4 * k, &(0x5000_0000 + k as u32).to_le_bytes())
                .unwrap();
        }
        let setup = |m0: u32| {
            move |w: &mut Wave| {
                w.m0 = m0;
                w.sgpr[4] = g as u32;
                w.sgpr[5] = (g >> 32) as u32 & 0xffff;
                w.sgpr[6] = 4096; // NUM_RECORDS (bytes: stride 0)
                w.sgpr[7] = if gpu == Gpu::Gfx1030 {
                    0x3101_6fac
                } else {
                    0x0002_7fac
                };
                w.sgpr[8] = 16;
                w.exec = Mask(w.full_mask() & !(1 << 7));
                for l in 0..64 {
                    w.vgpr[1][l] = 12 * l as u32;
                }
                w.vgpr[1][5] = 5000; // beyond NUM_RECORDS
            }
        };
        let mut lds = Bytes::new(1024, Space::Lds);
        let fill = [0xaa_u8; 1024];
        lds.write(0, &fill).unwrap();
        // M0's bits above 15 are not part of the LDS offset.
        run_in(gpu, size, &code, &mem, &mut lds, 0, setup(0x1_0040))
            .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for l in 0..size as usize {
            let mut b = [0u8; 4];
            lds.read(72 + 4 * l as u64, &mut b).unwrap();
            let want = match l {
                5 => 0,
                7 => 0xaaaa_aaaa,
                _ => 0x5000_0000 + (16 + 12 * l as u32 + 8) / 4,
            };
            assert_eq!(u32::from_le_bytes(b), want, "{gpu} lane {l}");
        }
        let mut head = [0u8; 72];
        lds.read(0, &mut head).unwrap();
        assert!(head.iter().all(|&b| b == 0xaa), "{gpu}: below M0 untouched");
        // Lanes past the end of LDS: a fault, and LDS unchanged.
        let before = lds.clone();
        let err = run_in(gpu, size, &code, &mem, &mut lds, 0, setup(1000)).unwrap_err();
        match &err {
            SimError::Fault { lane, .. } => assert_eq!(*lane, 4, "{gpu}: {err}"),
            other => panic!("{gpu}: expected a fault, got {other}"),
        }
        assert_eq!(format!("{lds:?}"), format!("{before:?}"), "{gpu}");
    }
    // The sub-dword forms are refused: buffer_load_ubyte v1, s[4:7], s8 offen offset:8 lds
    let code = [&[0x08, 0x10, 0x41, 0xe0, 0x01, 0x00, 0x01, 0x08][..], end].concat();
    let err = run(Gpu::Gfx900, 64, &code, |_| {}).unwrap_err();
    assert!(
        err.to_string().contains("1-byte buffer load to LDS"),
        "{err}"
    );
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

/// `ds_condxchg32_rtn_b64`, as the pseudo-code of AMD's RDNA3 and CDNA4
/// ISA guides says, run on a copy of LDS in lane order:
///
/// ```text
/// ADDR0 = (ADDR + {OFFSET1,OFFSET0}) & 0xfff8; ADDR1 = ADDR0 + 4;
/// RETURN_DATA[0] = LDS[ADDR0]; if (DATA[31]) LDS[ADDR0] = {1'0, DATA[30:0]};
/// RETURN_DATA[1] = LDS[ADDR1]; if (DATA[63]) LDS[ADDR1] = {1'0, DATA[62:32]};
/// ```
fn ds_condxchg32(gpu: Gpu, size: u32, code: &[u8]) {
    let n = size as usize;
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        0xffff_ffdf
    };
    let mut lds = Bytes::new(4096, Space::Lds);
    let mut init = vec![0u8; 4096];
    for (k, b) in init.iter_mut().enumerate() {
        *b = (k as u32).wrapping_mul(0x9e37_79b1).rotate_right(11) as u8;
    }
    lds.write(0, &init).unwrap();
    // ADDR: a qword of its own per lane, the low three bits ignored; lane 9
    // on lane 8's qword (it sees lane 8's writes); lane 10's address wraps
    // at 64 KiB by the mask.
    let addr = |l: usize| match l {
        9 => 24 * 8,
        10 => 0xffff_0000 + 24 * 10,
        _ => 24 * l as u32 + (l as u32 % 8),
    };
    let data = |l: usize| -> (u32, u32) {
        let lo = (0x1234_0000 + l as u32) | if l % 4 < 2 { 1 << 31 } else { 0 };
        let hi = (0x5678_0000 + l as u32) | if l % 2 == 0 { 1 << 31 } else { 0 };
        (lo, hi)
    };
    let mem = GlobalMemory::new();
    let w = run_in(gpu, size, code, &mem, &mut lds, 0, |w| {
        w.exec = Mask(exec);
        for l in 0..64 {
            w.vgpr[1][l] = addr(l);
            (w.vgpr[4][l], w.vgpr[5][l]) = data(l);
            w.vgpr[2][l] = 0xdead_0002;
            w.vgpr[3][l] = 0xdead_0003;
        }
    })
    .unwrap_or_else(|e| panic!("{gpu}: {e}"));
    let mut want = init.clone();
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            assert_eq!(
                (w.vgpr[2][l], w.vgpr[3][l]),
                (0xdead_0002, 0xdead_0003),
                "{gpu} inactive lane {l}"
            );
            continue;
        }
        let addr0 = (addr(l).wrapping_add(16) & 0xfff8) as usize;
        let addr1 = addr0 + 4;
        let (lo, hi) = data(l);
        let ret0 = le(&want, addr0, 4) as u32;
        if lo >> 31 != 0 {
            set_le(&mut want, addr0, 4, (lo & 0x7fff_ffff) as u64);
        }
        let ret1 = le(&want, addr1, 4) as u32;
        if hi >> 31 != 0 {
            set_le(&mut want, addr1, 4, (hi & 0x7fff_ffff) as u64);
        }
        assert_eq!(
            (w.vgpr[2][l], w.vgpr[3][l]),
            (ret0, ret1),
            "{gpu} lane {l} return"
        );
    }
    let mut got = vec![0u8; 4096];
    lds.read(0, &mut got).unwrap();
    assert!(got == want, "{gpu}: LDS");
    // Spot checks: lane 0 writes both halves, with bit 31 cleared; lane 3
    // neither; lane 9 reads what lane 8 wrote; lane 10 (0xffff00f0 + 16)
    // writes the high half of qword 256 and keeps the low one.
    assert_eq!(le(&got, 16, 8), 0x5678_0000_1234_0000, "{gpu}");
    assert_eq!(le(&got, 24 * 3 + 16, 8), le(&init, 24 * 3 + 16, 8), "{gpu}");
    assert_eq!(
        (w.vgpr[2][9], w.vgpr[3][9]),
        (0x1234_0008, 0x5678_0008),
        "{gpu}"
    );
    assert_eq!(le(&got, 260, 4), 0x5678_000a, "{gpu}: lane 10");
    assert_eq!(le(&got, 256, 4), le(&init, 256, 4), "{gpu}: lane 10");
    // An address beyond the group's LDS: the typed LDS fault of the lane.
    let mut small = Bytes::new(1024, Space::Lds);
    let err = run_in(gpu, size, code, &mem, &mut small, 0, |w| {
        for l in 0..64 {
            w.vgpr[1][l] = if l == 2 { 2000 } else { 8 * l as u32 };
        }
    })
    .unwrap_err();
    match &err {
        SimError::Fault { fault, lane, .. } => {
            assert_eq!(
                (*lane, fault.space, fault.addr),
                (2, Space::Lds, 2016),
                "{gpu}"
            );
        }
        other => panic!("{gpu}: expected a fault, got {other}"),
    }
}

#[test]
fn ds_condxchg32_writes_the_halves_whose_top_bit_is_set() {
    // ds_condxchg32_rtn_b64 v[2:3], v1, v[4:5] offset:16
    let gfx9: Vec<u8> = [
        &[0x10, 0x00, 0xfc, 0xd8, 0x01, 0x04, 0x00, 0x02][..],
        &[0x00, 0x00, 0x81, 0xbf], // s_endpgm
    ]
    .concat();
    let gfx10: Vec<u8> = [
        &[0x10, 0x00, 0xf8, 0xd9, 0x01, 0x04, 0x00, 0x02][..],
        &[0x00, 0x00, 0x81, 0xbf], // s_endpgm
    ]
    .concat();
    ds_condxchg32(Gpu::Gfx900, 64, &gfx9);
    ds_condxchg32(Gpu::Gfx90a, 64, &gfx9);
    ds_condxchg32(Gpu::Gfx1030, 32, &gfx10);
    ds_condxchg32(Gpu::Gfx1010, 64, &gfx10);
}

/// `buffer_store_lds_dword` (GFX9), the mirror of the LDS DMA load (no AMD
/// pseudo-code exists for the store form): lane `l` reads the LDS dword at
/// `M0[15:0] + inst_offset + 4 * l` and stores it where the MUBUF addressing
/// with no address VGPR puts the lane: `base + soffset + inst_offset`, plus
/// the lane's index through the swizzled layout when the V# has
/// ADD_TID_ENABLE; range checked when it does not. LDS is filled by
/// `ds_write_b32` first.
#[test]
fn buffer_store_lds_dword_stores_lds_dwords() {
    let code: Vec<u8> = [
        &[0xff, 0x00, 0xfc, 0xbe, 0x40, 0x00, 0x01, 0x00][..], // s_mov_b32 m0, 0x10040
        &[0x00, 0x00, 0x1a, 0xd8, 0x01, 0x02, 0x00, 0x00],     // ds_write_b32 v1, v2
        &[0x08, 0x00, 0xf5, 0xe0, 0x00, 0x00, 0x01, 0x08], // buffer_store_lds_dword s[4:7], s8 offset:8 lds
        &[0x00, 0x00, 0x81, 0xbf],                         // s_endpgm
    ]
    .concat();
    for gpu in [Gpu::Gfx900, Gpu::Gfx90a] {
        let mem = GlobalMemory::new();
        let g = mem.allocate(4096).unwrap();
        for k in 0..1024u64 {
            mem.write(g + 4 * k, &(0x5000_0000 + k as u32).to_le_bytes())
                .unwrap();
        }
        let fill = |lds: &mut Bytes| lds.write(0, &[0xaa_u8; 1024]).unwrap();
        // V#: stride 4, NUM_RECORDS `records`, ADD_TID_ENABLE (w3 bit 23)
        // with index stride 8 (bits 22:21 = 0) when `tid`; soffset 16.
        let setup = |tid: bool, records: u32| {
            move |w: &mut Wave| {
                w.sgpr[4] = g as u32;
                w.sgpr[5] = (g >> 32) as u32 & 0xffff | if tid { 4 << 16 } else { 0 };
                w.sgpr[6] = records;
                w.sgpr[7] = 0x0002_7fac | if tid { 1 << 23 } else { 0 };
                w.sgpr[8] = 16;
                w.exec = Mask(!(1 << 7));
                for l in 0..64 {
                    // Lane l writes LDS dword 0x48 + 4 * (63 - l).
                    w.vgpr[1][l] = 0x48 + 4 * (63 - l as u32);
                    w.vgpr[2][l] = 0x7000_0000 + l as u32;
                }
            }
        };
        let word = |mem: &GlobalMemory, a: u64| {
            let mut b = [0u8; 4];
            mem.read(a, &mut b).unwrap();
            u32::from_le_bytes(b)
        };
        // What lane l reads from LDS at M0[15:0] (0x40) + 8 + 4l: lane 63 - l's
        // data, or the fill where that lane (7) was inactive.
        let from_lds = |l: usize| {
            if 63 - l == 7 {
                0xaaaa_aaaa
            } else {
                0x7000_0000 + 63 - l as u32
            }
        };
        // ADD_TID_ENABLE: swizzled, element 4 bytes, index stride 8, stride 4:
        // lane l (index l) at offset 8 is at (l / 8 * 4 + 8 / 4 * 4) * 8 +
        // (l % 8) * 4 = 64 + 4l past base + soffset.
        let mut lds = Bytes::new(1024, Space::Lds);
        fill(&mut lds);
        run_in(gpu, 64, &code, &mem, &mut lds, 0, setup(true, 0))
            .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for l in 0..64 {
            let a = g + 16 + 64 + 4 * l as u64;
            let want = if l == 7 {
                0x5000_0000 + (a - g) as u32 / 4
            } else {
                from_lds(l)
            };
            assert_eq!(word(&mem, a), want, "{gpu} lane {l}");
        }
        for k in (0..80).step_by(4) {
            assert_eq!(word(&mem, g + k), 0x5000_0000 + k as u32 / 4, "{gpu} below");
        }
        // No ADD_TID_ENABLE: every lane at base + soffset + 8, in lane order,
        // so the highest active lane's dword stays.
        let mem2 = GlobalMemory::new();
        let g2 = mem2.allocate(4096).unwrap();
        assert_eq!(g2, g, "same allocation address");
        mem2.write(g, &[0u8; 64]).unwrap();
        let mut lds = Bytes::new(1024, Space::Lds);
        fill(&mut lds);
        run_in(gpu, 64, &code, &mem2, &mut lds, 0, setup(false, 4096))
            .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        assert_eq!(word(&mem2, g + 24), from_lds(63), "{gpu} one address");
        assert_eq!(word(&mem2, g + 20), 0, "{gpu}");
        assert_eq!(word(&mem2, g + 28), 0, "{gpu}");
        // Range checked: offset 8 is not below NUM_RECORDS 8, nothing stored.
        let mem3 = GlobalMemory::new();
        mem3.allocate(4096).unwrap();
        mem3.write(g, &[0u8; 64]).unwrap();
        let before = format!("{mem3:?}");
        let mut lds = Bytes::new(1024, Space::Lds);
        run_in(gpu, 64, &code, &mem3, &mut lds, 0, setup(false, 8))
            .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        assert_eq!(format!("{mem3:?}"), before, "{gpu}: out of range");
        // LDS addresses past the group's LDS (M0 = 1000: lane 4 reads at
        // 1024): the typed LDS fault, and memory unchanged.
        let before = format!("{mem:?}");
        let mut lds = Bytes::new(1024, Space::Lds);
        let err = run_in(gpu, 64, &code[8..], &mem, &mut lds, 0, |w| {
            setup(true, 0)(w);
            w.m0 = 1000;
        })
        .unwrap_err();
        match &err {
            SimError::Fault { fault, lane, .. } => {
                assert_eq!(
                    (*lane, fault.space, fault.addr),
                    (4, Space::Lds, 1024),
                    "{gpu}"
                );
            }
            other => panic!("{gpu}: expected a fault, got {other}"),
        }
        assert_eq!(format!("{mem:?}"), before, "{gpu}: memory unchanged");
    }
}

/// `s_getreg_b32 hwreg(HW_REG_SH_MEM_BASES)` gives the apertures that flat
/// addresses are classified by: code object v4 kernels on GFX9+ build their
/// flat pointers to private and LDS memory from it (hipcc's `-O2` code for a
/// private array passed to a non-inlined function does). Read as 0, such a
/// pointer lands at a small global address and faults. (Before: 0.)
#[test]
fn sh_mem_bases_gives_the_apertures() {
    use amdgpu_sim::memory::{PRIVATE_BASE, SHARED_BASE};
    for (gpu, size, code) in [
        (
            Gpu::Gfx900,
            64,
            [[0x0f, 0x78, 0x84, 0xb8], [0x0f, 0x7c, 0x85, 0xb8]],
        ),
        (
            Gpu::Gfx1030,
            32,
            [[0x0f, 0x78, 0x04, 0xb9], [0x0f, 0x7c, 0x05, 0xb9]],
        ),
    ] {
        // s_getreg_b32 s4, hwreg(HW_REG_SH_MEM_BASES, 0, 16)
        // s_getreg_b32 s5, hwreg(HW_REG_SH_MEM_BASES, 16, 16)
        let mut bytes: Vec<u8> = code.concat();
        bytes.extend_from_slice(&[0x00, 0x00, 0x81, 0xbf]); // s_endpgm
        let w = run(gpu, size, &bytes, |_| {}).unwrap();
        assert_eq!((w.sgpr[4] as u64) << 48, PRIVATE_BASE, "{gpu:?} private");
        assert_eq!((w.sgpr[5] as u64) << 48, SHARED_BASE, "{gpu:?} shared");
    }
}

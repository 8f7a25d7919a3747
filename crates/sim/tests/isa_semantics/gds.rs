//! GWS semaphores and barriers, GDS memory and ordered counts
//! (`exec/mem/gds.rs`).

use super::common::*;

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

//! Scalar memory: stores, atomics, buffer range checks, scratch, cache hints
//! and messages (`exec/mem/smem.rs`, `exec/smem_store.rs`).

use super::common::*;

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

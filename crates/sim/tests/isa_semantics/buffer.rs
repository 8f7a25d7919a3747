//! MUBUF and MTBUF accesses: range checks, formats, D16, LDS DMA
//! (`exec/mem/buffer.rs`, `exec/tbuffer.rs`).

use super::common::*;

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

//! Flat, global and scratch accesses and the apertures
//! (`exec/mem/global.rs`).

use super::common::*;

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

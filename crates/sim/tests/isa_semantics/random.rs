//! Random instruction words: every outcome is a normal end or a typed error,
//! and every execution path agrees.

use super::common::*;

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

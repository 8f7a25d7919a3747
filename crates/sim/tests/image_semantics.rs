//! Image instructions by integer coordinates (`image_load*`, `image_store*`,
//! `image_atomic_*`, `image_get_resinfo`) on a bare wave, with image
//! resource descriptors (T#) built here in SGPRs and image data in global
//! memory, on GFX9 and GFX10 encodings. Each program is listed with the text
//! it was assembled from (`llvm-mc-19 -show-encoding`); when llvm-mc-19 is
//! installed, `encodings_are_llvm_mc_s` assembles the text again and checks
//! the bytes. Expected values are derived from the formats' definitions
//! (UNORM `x / 255` correctly rounded, with a few values written out).
#![allow(clippy::needless_range_loop)]

use amdgpu_isa::Gpu;
use amdgpu_sim::memory::{Bytes, GlobalMemory};
use amdgpu_sim::{Mask, SimError, Space, Wave};

use crate::support;

/// Instructions: (llvm-mc text, encoding).
type Prog = &'static [(&'static str, &'static [u8])];

include!("image/programs.rs");

fn code(p: Prog) -> Vec<u8> {
    p.iter().flat_map(|(_, b)| b.iter().copied()).collect()
}

/// Runs `p` from `setup` through every execution path (they must agree).
fn run(
    gpu: Gpu,
    p: Prog,
    mem: &GlobalMemory,
    setup: impl FnOnce(&mut Wave),
) -> Result<Wave, SimError> {
    let size = if matches!(gpu, Gpu::Gfx1010 | Gpu::Gfx1030) {
        32
    } else {
        64
    };
    let mut lds = Bytes::new(0, Space::Lds);
    support::run_paths(gpu, size, &code(p), mem, &mut lds, 0, 100, setup)
}

/// Resource types (T# TYPE).
const T_1D: u32 = 8;
const T_2D: u32 = 9;
const T_3D: u32 = 10;
const T_2D_ARRAY: u32 = 13;
/// Destination selects X, Y, Z, W in order.
const XYZW: u32 = 4 | 5 << 3 | 6 << 6 | 7 << 9;

/// What a test image descriptor says.
#[derive(Clone, Copy)]
struct Img {
    base: u64,
    /// GFX9 (DATA_FORMAT, NUM_FORMAT).
    fmt9: (u32, u32),
    /// GFX10 unified format.
    fmt10: u32,
    width: u32,
    height: u32,
    /// DEPTH: depth - 1, or the last array slice.
    depth: u32,
    /// Row pitch in texels (GFX9 PITCH, gfx1030 1-D/2-D pitch).
    pitch: u32,
    ty: u32,
    base_level: u32,
    last_level: u32,
    base_array: u32,
    dst_sel: u32,
    sw_mode: u32,
}

impl Img {
    fn new(base: u64, fmt9: (u32, u32), fmt10: u32, width: u32, height: u32, pitch: u32) -> Img {
        Img {
            base,
            fmt9,
            fmt10,
            width,
            height,
            depth: 0,
            pitch,
            ty: T_2D,
            base_level: 0,
            last_level: 0,
            base_array: 0,
            dst_sel: XYZW,
            sw_mode: 0,
        }
    }

    /// The 8-dword T# for `gpu` (field positions: Mesa `sid.h`, ROCr
    /// `resource_nv.h`).
    fn tsharp(&self, gpu: Gpu) -> [u32; 8] {
        let mut d = [0u32; 8];
        d[0] = (self.base >> 8) as u32;
        let hi = ((self.base >> 40) & 0xff) as u32;
        let w3 = self.dst_sel
            | self.base_level << 12
            | self.last_level << 16
            | self.sw_mode << 20
            | self.ty << 28;
        d[3] = w3;
        if matches!(gpu, Gpu::Gfx1010 | Gpu::Gfx1030) {
            d[1] = hi | self.fmt10 << 20 | ((self.width - 1) & 3) << 30;
            d[2] = (self.width - 1) >> 2 | (self.height - 1) << 14;
            let flat = matches!(self.ty, T_1D | T_2D);
            d[4] = if gpu == Gpu::Gfx1030 && flat {
                self.pitch - 1
            } else {
                self.depth | self.base_array << 16
            };
        } else {
            d[1] = hi | self.fmt9.0 << 20 | self.fmt9.1 << 26;
            d[2] = (self.width - 1) | (self.height - 1) << 14;
            d[4] = self.depth | (self.pitch - 1) << 13;
            d[5] = self.base_array;
        }
        d
    }
}

fn set_tsharp(w: &mut Wave, first: usize, t: [u32; 8]) {
    w.sgpr[first..first + 8].copy_from_slice(&t);
}

/// gfx1010's row pitch of a linear image: the width rounded up to 256 bytes;
/// gfx1030's for 3-D and array images likewise.
fn aligned_pitch(width: u32, bytes: u32) -> u32 {
    width.next_multiple_of(256 / bytes)
}

fn unorm8(b: u8) -> u32 {
    // Correctly rounded: an f64 quotient of small integers is never an f32
    // halfway point, so rounding it again is exact.
    ((b as f64 / 255.0) as f32).to_bits()
}

/// RGBA8 UNORM 2-D loads: all components, a dmask subset, d16, the raw
/// `_pck_sgn` form, destination selects and out-of-range coordinates.
#[test]
fn load_rgba8_unorm() {
    for (gpu, prog) in [
        (Gpu::Gfx900, LOAD_GFX9),
        (Gpu::Gfx1030, LOAD_GFX10),
        (Gpu::Gfx1010, LOAD_GFX10),
    ] {
        let (width, height) = (5u32, 3u32);
        let pitch = if gpu == Gpu::Gfx1010 {
            aligned_pitch(width, 4)
        } else {
            8
        };
        let mem = GlobalMemory::new();
        let size = (pitch * height * 4) as u64;
        let base = mem.allocate(size).unwrap();
        // Padding bytes 0xee: a wrong pitch reads them.
        mem.fill(base, size, 0xee).unwrap();
        let texel = |x: u32, y: u32| -> [u8; 4] {
            if (x, y) == (1, 1) {
                [1, 128, 255, 0]
            } else {
                let t = (y * width + x) as u8;
                [t * 17, t * 17 + 3, 200 - t, 0x80 | t]
            }
        };
        for y in 0..height {
            for x in 0..width {
                mem.write(base + ((y * pitch + x) * 4) as u64, &texel(x, y))
                    .unwrap();
            }
        }
        let mut img = Img::new(base, (10, 0), 56, width, height, pitch);
        let g10 = gpu != Gpu::Gfx900;
        if g10 {
            // X <- Z, Y <- Y, Z <- X, W <- 1.
            img.dst_sel = 6 | 5 << 3 | 4 << 6 | 1 << 9;
        }
        let coord = |l: usize| ((l % 7) as u32, ((l / 7) % 4) as u32);
        let w = run(gpu, prog, &mem, |w| {
            set_tsharp(w, 0, img.tsharp(gpu));
            for l in 0..w.size as usize {
                let (x, y) = coord(l);
                w.vgpr[0][l] = x;
                w.vgpr[1][l] = y;
            }
        })
        .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for l in 0..w.size as usize {
            let (x, y) = coord(l);
            let inside = x < width && y < height;
            let raw = if inside { texel(x, y) } else { [0; 4] };
            let f = raw.map(unorm8);
            // Register components after the destination selects.
            let c = if g10 {
                [f[2], f[1], f[0], 1.0f32.to_bits()]
            } else {
                f
            };
            let at = format!("{gpu} lane {l} ({x}, {y})");
            assert_eq!(
                [w.vgpr[2][l], w.vgpr[3][l], w.vgpr[4][l], w.vgpr[5][l]],
                c,
                "{at}"
            );
            assert_eq!([w.vgpr[6][l], w.vgpr[7][l]], [c[0], c[2]], "dmask 0x5 {at}");
            let h = c.map(|v| amdgpu_sim::alu::f32_to_f16(f32::from_bits(v)) as u32);
            assert_eq!(
                [w.vgpr[8][l], w.vgpr[9][l]],
                [h[0] | h[1] << 16, h[2] | h[3] << 16],
                "d16 {at}"
            );
            let s = raw.map(|b| b as i8 as i32 as u32);
            let sel = if g10 { [s[2], s[1]] } else { [s[0], s[1]] };
            assert_eq!([w.vgpr[10][l], w.vgpr[11][l]], sel, "pck_sgn {at}");
        }
        // Texel (1, 1) = (1, 128, 255, 0), lane 8: the values written out.
        let want = if g10 {
            [0x3f80_0000, 0x3f00_8081, 0x3b80_8081, 0x3f80_0000]
        } else {
            [0x3b80_8081, 0x3f00_8081, 0x3f80_0000, 0]
        };
        assert_eq!(
            [w.vgpr[2][8], w.vgpr[3][8], w.vgpr[4][8], w.vgpr[5][8]],
            want,
            "{gpu}"
        );
        // f16: 1/255 = 0x1c04, 128/255 = 0x3804, 1 = 0x3c00.
        let want16 = if g10 {
            [0x3804_3c00, 0x3c00_1c04]
        } else {
            [0x3804_1c04, 0x0000_3c00]
        };
        assert_eq!([w.vgpr[8][8], w.vgpr[9][8]], want16, "{gpu} d16");
    }
}

/// Stores with conversion (clamping, rounding to nearest even), a dmask
/// subset keeping the other components, a d16 store to an f16 image, and
/// out-of-range lanes dropped.
#[test]
fn store_rgba8_unorm_and_f16() {
    for (gpu, prog) in [(Gpu::Gfx900, STORE_GFX9), (Gpu::Gfx1030, STORE_GFX10)] {
        let (width, height, pitch) = (4u32, 2u32, 6u32);
        let mem = GlobalMemory::new();
        let size = (pitch * height * 4) as u64;
        let base = mem.allocate(size).unwrap();
        let base16 = mem.allocate(size).unwrap();
        mem.fill(base, size, 0xee).unwrap();
        mem.fill(base16, size, 0xee).unwrap();
        let img = Img::new(base, (10, 0), 56, width, height, pitch);
        // R16 FLOAT: GFX9 DATA_FORMAT 2 NUM_FORMAT 7, GFX10 format 13.
        let img16 = Img::new(base16, (2, 7), 13, width, height, pitch);
        let lanes = 15usize;
        let coord = |l: usize| ((l % 5) as u32, (l / 5) as u32);
        let red = |l: usize| l as f32 / 14.0;
        let w = run(gpu, prog, &mem, |w| {
            w.exec = Mask((1 << lanes) - 1);
            set_tsharp(w, 0, img.tsharp(gpu));
            set_tsharp(w, 8, img16.tsharp(gpu));
            for l in 0..lanes {
                let (x, y) = coord(l);
                w.vgpr[0][l] = x;
                w.vgpr[1][l] = y;
                w.vgpr[2][l] = red(l).to_bits();
                w.vgpr[3][l] = (-0.5f32).to_bits();
                w.vgpr[4][l] = 2.0f32.to_bits();
                w.vgpr[5][l] = 0.5f32.to_bits();
                w.vgpr[6][l] = 0.25f32.to_bits();
                w.vgpr[7][l] = 0xdead_0000 | 0x3c00 | l as u32;
            }
        })
        .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        let _ = w;
        let mut got = vec![0u8; size as usize];
        let mut got16 = vec![0u8; size as usize];
        mem.read(base, &mut got).unwrap();
        mem.read(base16, &mut got16).unwrap();
        let mut want = vec![0xeeu8; size as usize];
        let mut want16 = vec![0xeeu8; size as usize];
        for l in 0..lanes {
            let (x, y) = coord(l);
            if x >= width || y >= height {
                continue;
            }
            let o = ((y * pitch + x) * 4) as usize;
            // R: round-to-nearest-even of l / 14 * 255; G: the second
            // store's 0.25 * 255 = 63.75 -> 64; B: 2.0 clamps to 255;
            // A: 0.5 * 255 = 127.5 ties to 128.
            let r = (red(l) as f64 * 255.0).round_ties_even() as u8;
            want[o..o + 4].copy_from_slice(&[r, 64, 255, 128]);
            let o16 = ((y * pitch + x) * 2) as usize;
            want16[o16..o16 + 2].copy_from_slice(&(0x3c00u16 | l as u16).to_le_bytes());
        }
        // Lane 7: 0.5 * 255 = 127.5 ties to 128 (texel (2, 1)).
        assert_eq!(want[((pitch + 2) * 4) as usize], 128);
        assert_eq!(got, want, "{gpu} RGBA8");
        assert_eq!(got16, want16, "{gpu} R16F");
    }
}

/// Integer atomics on an R32 UINT image: add and compare-swap returning the
/// previous value, smin without return; out-of-range lanes return 0.
#[test]
fn atomics_r32_uint() {
    for (gpu, prog) in [(Gpu::Gfx900, ATOMIC_GFX9), (Gpu::Gfx1030, ATOMIC_GFX10)] {
        let (width, height) = (4u32, 4u32);
        let mem = GlobalMemory::new();
        let base = mem.allocate((width * height * 4) as u64).unwrap();
        let init = |t: u32| 100 + 3 * t;
        for t in 0..width * height {
            mem.write(base + 4 * t as u64, &init(t).to_le_bytes())
                .unwrap();
        }
        // R32 UINT: GFX9 DATA_FORMAT 4 NUM_FORMAT 4, GFX10 format 20.
        let img = Img::new(base, (4, 4), 20, width, height, width);
        let lanes = 18usize;
        let coord = |l: usize| ((l % 4) as u32, (l / 4) as u32);
        let texel = |l: usize| coord(l).1 * width + coord(l).0;
        let smin_src = |l: usize| if l % 3 == 0 { -(l as i32) } else { 5000 };
        let w = run(gpu, prog, &mem, |w| {
            w.exec = Mask((1 << lanes) - 1);
            set_tsharp(w, 0, img.tsharp(gpu));
            for l in 0..lanes {
                let (x, y) = coord(l);
                w.vgpr[0][l] = x;
                w.vgpr[1][l] = y;
                w.vgpr[2][l] = l as u32;
                w.vgpr[3][l] = 1000 + l as u32;
                // Even lanes compare with the value after the add.
                w.vgpr[4][l] = if l % 2 == 0 {
                    init(texel(l)) + l as u32
                } else {
                    0
                };
                w.vgpr[5][l] = smin_src(l) as u32;
            }
        })
        .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for l in 0..lanes {
            let inside = l < 16;
            let t = texel(l);
            let at = format!("{gpu} lane {l}");
            assert_eq!(w.vgpr[2][l], if inside { init(t) } else { 0 }, "add {at}");
            assert_eq!(
                w.vgpr[3][l],
                if inside { init(t) + l as u32 } else { 0 },
                "cmpswap {at}"
            );
            assert_eq!(w.vgpr[5][l], smin_src(l) as u32, "no return {at}");
        }
        for t in 0..16usize {
            let after_add = init(t as u32) + t as u32;
            let after_cas = if t % 2 == 0 {
                1000 + t as u32
            } else {
                after_add
            };
            let want = (after_cas as i32).min(smin_src(t)) as u32;
            let got = mem.read_u32(base + 4 * t as u64).unwrap();
            assert_eq!(got, want, "{gpu} texel {t}");
        }
    }
}

/// 64-bit atomics on a two-component 32-bit format (R32G32 UINT, dmask 0x3;
/// compare-swap 0xf): add and compare-swap returning the previous value.
#[test]
fn atomics_64_bit_on_r32g32_uint() {
    for (gpu, prog) in [(Gpu::Gfx900, ATOMIC64_GFX9), (Gpu::Gfx1030, ATOMIC64_GFX10)] {
        let mem = GlobalMemory::new();
        let base = mem.allocate(8 * 8).unwrap();
        let init = |t: u64| 0xffff_fff0 + (t << 33);
        for t in 0..8u64 {
            mem.write(base + 8 * t, &init(t).to_le_bytes()).unwrap();
        }
        // GFX9 DATA_FORMAT 11 (32_32) NUM_FORMAT 4, GFX10 format 62.
        let img = Img::new(base, (11, 4), 62, 8, 1, 8);
        let add = |l: u64| 0x20 + l;
        let w = run(gpu, prog, &mem, |w| {
            w.exec = Mask(0x3ff);
            set_tsharp(w, 0, img.tsharp(gpu));
            for l in 0..10usize {
                let t = l as u64;
                w.vgpr[0][l] = l as u32;
                w.vgpr[1][l] = 0;
                w.vgpr[2][l] = add(t) as u32;
                w.vgpr[3][l] = (add(t) >> 32) as u32;
                // New value, then the compare value: lanes 0-3 match.
                let new = 0x1234_5678_9abc_def0u64 + t;
                let cmp = if l < 4 { init(t) + add(t) } else { 7 };
                w.vgpr[4][l] = new as u32;
                w.vgpr[5][l] = (new >> 32) as u32;
                w.vgpr[6][l] = cmp as u32;
                w.vgpr[7][l] = (cmp >> 32) as u32;
            }
        })
        .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for l in 0..10usize {
            let t = l as u64;
            let r = |a: usize| w.vgpr[a][l] as u64 | (w.vgpr[a + 1][l] as u64) << 32;
            let inside = l < 8;
            // The add carries from the low dword into the high one.
            assert_eq!(r(2), if inside { init(t) } else { 0 }, "{gpu} add lane {l}");
            assert_eq!(
                r(4),
                if inside { init(t) + add(t) } else { 0 },
                "{gpu} cmpswap lane {l}"
            );
            if inside {
                let mut b = [0u8; 8];
                mem.read(base + 8 * t, &mut b).unwrap();
                let want = if l < 4 {
                    0x1234_5678_9abc_def0 + t
                } else {
                    init(t) + add(t)
                };
                assert_eq!(u64::from_le_bytes(b), want, "{gpu} texel {l}");
            }
        }
    }
}

/// gfx1030's float atomic: fmax on an R32 FLOAT image, returning the old value.
#[test]
fn atomic_fmax_r32_float() {
    let gpu = Gpu::Gfx1030;
    let mem = GlobalMemory::new();
    let base = mem.allocate(64).unwrap();
    for t in 0..8u32 {
        mem.write(
            base + 4 * t as u64,
            &(t as f32 - 2.0).to_bits().to_le_bytes(),
        )
        .unwrap();
    }
    let img = Img::new(base, (4, 7), 22, 8, 1, 8);
    let w = run(gpu, FMAX_GFX10, &mem, |w| {
        w.exec = Mask(0xff);
        set_tsharp(w, 0, img.tsharp(gpu));
        for l in 0..8 {
            w.vgpr[0][l] = l as u32;
            w.vgpr[1][l] = 0;
            w.vgpr[2][l] = if l % 2 == 0 { 1.5f32 } else { -0.0 }.to_bits();
        }
    })
    .unwrap();
    for l in 0..8 {
        let old = l as f32 - 2.0;
        assert_eq!(w.vgpr[2][l], old.to_bits(), "lane {l}");
        let new = if l % 2 == 0 {
            old.max(1.5)
        } else {
            old.max(-0.0)
        };
        // Odd lanes: max(-1, -0) = -0 (lane 1).
        let got = f32::from_bits(mem.read_u32(base + 4 * l as u64).unwrap());
        assert_eq!(got.to_bits(), new.to_bits(), "texel {l}");
    }
}

/// A 2-D array (slices from BASE_ARRAY), a 3-D image, get_resinfo per mip
/// level, and image_load_mip at level 0 and past LAST_LEVEL.
#[test]
fn array_3d_resinfo_and_mip() {
    for (gpu, prog) in [(Gpu::Gfx900, LAYOUT_GFX9), (Gpu::Gfx1030, LAYOUT_GFX10)] {
        let g10 = gpu == Gpu::Gfx1030;
        let mem = GlobalMemory::new();
        // 2-D array, R32 UINT, 3 x 2, slices 1..=3 of 4 visible.
        let pa = if g10 { aligned_pitch(3, 4) } else { 4 };
        let arr = mem.allocate((pa * 2 * 4 * 4) as u64).unwrap();
        for s in 0..4u32 {
            for y in 0..2u32 {
                for x in 0..3u32 {
                    let v = s * 1000 + y * 10 + x;
                    let o = ((s * 2 + y) * pa + x) * 4;
                    mem.write(arr + o as u64, &v.to_le_bytes()).unwrap();
                }
            }
        }
        let mut a = Img::new(arr, (4, 4), 20, 3, 2, pa);
        a.ty = T_2D_ARRAY;
        a.base_array = 1;
        a.depth = 3;
        // 3-D, R8 UINT (GFX9 DATA_FORMAT 1 NUM_FORMAT 4, GFX10 format 5), 3 x 2 x 2.
        let p3 = if g10 { aligned_pitch(3, 1) } else { 3 };
        let vol = mem.allocate((p3 * 2 * 2) as u64).unwrap();
        for z in 0..2u32 {
            for y in 0..2u32 {
                for x in 0..3u32 {
                    let o = (z * 2 + y) * p3 + x;
                    mem.write(vol + o as u64, &[(16 * z + 4 * y + x + 1) as u8])
                        .unwrap();
                }
            }
        }
        let mut v3 = Img::new(vol, (1, 4), 5, 3, 2, p3);
        v3.ty = T_3D;
        v3.depth = 1;
        // 2-D, R32 UINT, 20 x 10 with levels 0..=3.
        let mipped = mem.allocate(20 * 10 * 4).unwrap();
        for t in 0..200u32 {
            mem.write(mipped + 4 * t as u64, &(7000 + t).to_le_bytes())
                .unwrap();
        }
        let mut m = Img::new(mipped, (4, 4), 20, 20, 10, 20);
        m.last_level = 3;
        let coord = |l: usize| ((l % 3) as u32, ((l / 3) % 2) as u32, ((l / 6) % 4) as u32);
        let mip = |l: usize| if l % 2 == 0 { 0 } else { 4 + l as u32 };
        let w = run(gpu, prog, &mem, |w| {
            set_tsharp(w, 0, a.tsharp(gpu));
            set_tsharp(w, 8, v3.tsharp(gpu));
            set_tsharp(w, 16, m.tsharp(gpu));
            for l in 0..w.size as usize {
                let (x, y, s) = coord(l);
                w.vgpr[0][l] = x;
                w.vgpr[1][l] = y;
                w.vgpr[2][l] = s;
                w.vgpr[7][l] = (l % 5) as u32;
                w.vgpr[14][l] = l as u32 % 20;
                w.vgpr[15][l] = 9;
                w.vgpr[16][l] = mip(l);
            }
        })
        .unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for l in 0..w.size as usize {
            let (x, y, s) = coord(l);
            let at = format!("{gpu} lane {l}");
            // Slice s is slice 1 + s of memory; past DEPTH (3) out of range.
            let want = if s < 3 {
                (1 + s) * 1000 + y * 10 + x
            } else {
                0
            };
            assert_eq!(w.vgpr[3][l], want, "array {at}");
            let want = if s < 2 { 16 * s + 4 * y + x + 1 } else { 0 };
            assert_eq!(w.vgpr[6][l], want, "3-D {at}");
            let lv = (l % 5) as u32;
            let info = [(20 >> lv).max(1), (10 >> lv).max(1), 1, 4];
            assert_eq!(
                [w.vgpr[8][l], w.vgpr[9][l], w.vgpr[10][l], w.vgpr[11][l]],
                info,
                "resinfo {at}"
            );
            assert_eq!(w.vgpr[12][l], 1, "resinfo dmask 0x4 {at}");
            let want = if mip(l) == 0 {
                7000 + 9 * 20 + l as u32 % 20
            } else {
                0
            };
            assert_eq!(w.vgpr[13][l], want, "mip {at}");
        }
        // Level 2 of 20 x 10 is 5 x 2 (lane 2).
        assert_eq!([w.vgpr[8][2], w.vgpr[9][2]], [5, 2]);
    }
}

/// GFX10: a 2D_ARRAY `dim` on a 2-D resource addresses it with the slice
/// coordinate ignored (ROCclr's blit kernels access 2-D images so, with
/// ROCr's 2-D T#); a `dim` of another shape is refused.
#[test]
fn array_dim_on_a_2d_resource() {
    let gpu = Gpu::Gfx1030;
    let mem = GlobalMemory::new();
    let pitch = aligned_pitch(3, 4);
    let base = mem.allocate((pitch * 2 * 4) as u64).unwrap();
    for y in 0..2u32 {
        for x in 0..3u32 {
            let o = (y * pitch + x) * 4;
            mem.write(base + o as u64, &(100 + y * 10 + x).to_le_bytes())
                .unwrap();
        }
    }
    let img = Img::new(base, (4, 4), 20, 3, 2, pitch);
    let coord = |l: usize| ((l % 3) as u32, ((l / 3) % 2) as u32, (l / 6) as u32);
    let w = run(gpu, ARRAY_DIM_GFX10, &mem, |w| {
        set_tsharp(w, 0, img.tsharp(gpu));
        for l in 0..w.size as usize {
            let (x, y, s) = coord(l);
            w.vgpr[0][l] = x;
            w.vgpr[1][l] = y;
            w.vgpr[2][l] = s;
            w.vgpr[4][l] = 5000 + y * 10 + x;
        }
    })
    .unwrap();
    for l in 0..w.size as usize {
        let (x, y, _) = coord(l);
        assert_eq!(w.vgpr[3][l], 100 + y * 10 + x, "lane {l} reads slice 0");
    }
    // Every lane stored to its (x, y) whatever its slice, and nothing landed
    // past the 2-D image's rows.
    for y in 0..2u32 {
        for x in 0..3u32 {
            let got = mem.read_u32(base + ((y * pitch + x) * 4) as u64).unwrap();
            assert_eq!(got, 5000 + y * 10 + x, "texel ({x}, {y})");
        }
    }
    let Err(e) = run(gpu, WRONG_DIM_GFX10, &mem, |w| {
        set_tsharp(w, 0, img.tsharp(gpu))
    }) else {
        panic!("a 3-D dim on a 2-D resource is refused")
    };
    assert!(e.to_string().contains("image dim"), "{e}");
}

/// An S# (ROCr's `PopulateSamplerSrd` fields): clamp mode on x, y and z, unnormalized
/// coordinates or not, XY filters (0 point, 1 bilinear).
fn ssharp(clamp: u32, unnormalized: bool, filter: u32) -> [u32; 4] {
    [
        clamp | clamp << 3 | clamp << 6 | u32::from(unnormalized) << 15,
        4095 << 12,
        filter << 20 | filter << 22,
        0,
    ]
}

/// `image_sample_lz` with point filtering on a 5 x 3 R32 UINT image (texel (x, y) holds
/// 10 * y + x): normalized coordinates at texel centres, wrap and clamp outside [0, 1),
/// the border (0), FORCE_UNNORMALIZED, a coordinate an ulp below a texel edge selecting
/// the texel that starts there (the hardware's fixed-point rounding, which HIP's `tex2D`
/// relies on), and the refusals: between 1/1024 and 1/512 texel from an edge, bilinear
/// filtering.
#[test]
fn point_sampling() {
    for (gpu, prog) in [(Gpu::Gfx900, SAMPLE_GFX9), (Gpu::Gfx1030, SAMPLE_GFX10)] {
        let mem = GlobalMemory::new();
        let pitch = if gpu == Gpu::Gfx1030 {
            aligned_pitch(5, 4)
        } else {
            5
        };
        let base = mem.allocate((pitch * 3 * 4) as u64).unwrap();
        for y in 0..3u32 {
            for x in 0..5u32 {
                mem.write(
                    base + ((y * pitch + x) * 4) as u64,
                    &(10 * y + x).to_le_bytes(),
                )
                .unwrap();
            }
        }
        let img = Img::new(base, (4, 4), 20, 5, 3, pitch);
        let sample = |s: [u32; 4], coords: &[(f32, f32)]| {
            run(gpu, prog, &mem, |w| {
                set_tsharp(w, 0, img.tsharp(gpu));
                w.sgpr[8..12].copy_from_slice(&s);
                for (l, (u, v)) in coords.iter().enumerate() {
                    w.vgpr[0][l] = u.to_bits();
                    w.vgpr[1][l] = v.to_bits();
                }
                w.exec = amdgpu_sim::Mask((1u64 << coords.len()) - 1);
            })
            .map(|w| {
                (0..coords.len())
                    .map(|l| w.vgpr[3][l])
                    .collect::<Vec<u32>>()
            })
        };
        let at = |x: f32, y: f32| ((x + 0.5) / 5.0, (y + 0.5) / 3.0);
        // Wrap (clamp mode 0): centres, one period right, one period down.
        let wrap = sample(
            ssharp(0, false, 0),
            &[at(0.0, 0.0), at(4.0, 2.0), at(6.0, 1.0), at(1.0, -2.0)],
        )
        .unwrap();
        assert_eq!(wrap, [0, 24, 11, 11], "{gpu} wrap");
        // Clamp to the last texel (2) and the border (6).
        let far = [at(-3.0, 1.0), at(9.0, 5.0), at(2.0, 1.0)];
        assert_eq!(
            sample(ssharp(2, false, 0), &far).unwrap(),
            [10, 24, 12],
            "{gpu}"
        );
        assert_eq!(
            sample(ssharp(6, false, 0), &far).unwrap(),
            [0, 0, 12],
            "{gpu}"
        );
        // Unnormalized: texel units.
        let unnorm = sample(ssharp(2, true, 0), &[(3.5, 2.5), (0.25, 1.75)]).unwrap();
        assert_eq!(unnorm, [23, 10], "{gpu} unnormalized");
        // An ulp below the edge of texel 2 (x = 2 * (1/5) in floats): texel 2.
        let edge = (2.0f32 * (1.0f32 / 5.0), 0.5f32 / 3.0);
        assert!(edge.0 * 5.0 < 2.0 + 1e-6);
        assert_eq!(
            sample(ssharp(2, false, 0), &[edge]).unwrap(),
            [2],
            "{gpu} edge"
        );
        let below = (2.0f32 - 0.0015) / 5.0;
        let e = sample(ssharp(2, false, 0), &[(below, 0.5)]).unwrap_err();
        assert!(e.to_string().contains("1/1024"), "{gpu}: {e}");
        let e = sample(ssharp(2, false, 1), &[at(1.0, 1.0)]).unwrap_err();
        assert!(e.to_string().contains("XY_MAG_FILTER 1"), "{gpu}: {e}");
    }
}

/// A GFX10 NSA form: the y coordinate from a register apart from x.
#[test]
fn nsa_addresses() {
    let gpu = Gpu::Gfx1030;
    let mem = GlobalMemory::new();
    let base = mem.allocate(4 * 4 * 4).unwrap();
    for t in 0..16u32 {
        mem.write(base + 4 * t as u64, &(t * t).to_le_bytes())
            .unwrap();
    }
    let img = Img::new(base, (4, 4), 20, 4, 4, 4);
    let w = run(gpu, NSA_GFX10, &mem, |w| {
        set_tsharp(w, 0, img.tsharp(gpu));
        for l in 0..32 {
            w.vgpr[0][l] = l as u32 % 4;
            w.vgpr[1][l] = 99;
            w.vgpr[5][l] = (l as u32 / 4) % 4;
        }
    })
    .unwrap();
    for l in 0..32 {
        let t = (l as u32 / 4) % 4 * 4 + l as u32 % 4;
        assert_eq!(w.vgpr[2][l], t * t, "lane {l}");
    }
}

fn unsupported_text(r: Result<Wave, SimError>) -> String {
    match r {
        Err(SimError::Unsupported { what, .. }) => what,
        other => panic!("expected an unsupported error, got {other:?}"),
    }
}

/// Tiled images, unmodelled formats, mip levels past 0 and bad addresses
/// are errors naming the field and value, not results.
#[test]
fn unsupported_descriptors_and_faults() {
    for (gpu, one, mip) in [
        (Gpu::Gfx900, ONE_GFX9, MIP_GFX9),
        (Gpu::Gfx1030, ONE_GFX10, MIP_GFX10),
    ] {
        let mem = GlobalMemory::new();
        let base = mem.allocate(4096).unwrap();
        let ok = Img::new(base, (4, 4), 20, 4, 4, 4);
        let with = |img: Img, p: Prog, v: [u32; 3]| {
            run(gpu, p, &mem, |w| {
                set_tsharp(w, 0, img.tsharp(gpu));
                for l in 0..w.size as usize {
                    for k in 0..3 {
                        w.vgpr[k][l] = v[k];
                    }
                }
            })
        };
        assert!(with(ok, one, [0; 3]).is_ok(), "{gpu}");
        // Swizzle mode 9 (64 KiB, S): tiled.
        let tiled = Img { sw_mode: 9, ..ok };
        let e = unsupported_text(with(tiled, one, [0; 3]));
        assert!(e.contains("SW_MODE 9"), "{gpu}: {e}");
        // A 10_11_11 format (GFX9 DATA_FORMAT 6, GFX10 30).
        let packed = Img {
            fmt9: (6, 7),
            fmt10: 30,
            ..ok
        };
        let e = unsupported_text(with(packed, one, [0; 3]));
        let field = if gpu == Gpu::Gfx900 {
            "DATA_FORMAT 6"
        } else {
            "FORMAT 30"
        };
        assert!(e.contains(field), "{gpu}: {e}");
        // Mip level 1 of a chain 0..=2.
        let chain = Img {
            last_level: 2,
            ..ok
        };
        let e = unsupported_text(with(chain, mip, [0, 0, 1]));
        assert!(e.contains("mip level 1"), "{gpu}: {e}");
        // MSAA resource type.
        let msaa = Img { ty: 14, ..ok };
        let e = unsupported_text(with(msaa, one, [0; 3]));
        assert!(e.contains("TYPE 14"), "{gpu}: {e}");
        // An image in unmapped memory faults at the lane's texel.
        let gone = Img {
            base: base + 0x10_0000,
            ..ok
        };
        match with(gone, one, [1, 0, 0]) {
            Err(SimError::Fault { lane: 0, fault, .. }) => {
                assert_eq!(fault.addr, base + 0x10_0000 + 4, "{gpu}")
            }
            other => panic!("{gpu}: expected a fault, got {other:?}"),
        }
    }
}

/// The listed bytes are what llvm-mc-19 makes of the listed text (skipped
/// when llvm-mc-19 is not installed).
#[test]
fn encodings_are_llvm_mc_s() {
    let progs: [(&str, Prog); 21] = [
        ("gfx900", SAMPLE_GFX9),
        ("gfx1030", SAMPLE_GFX10),
        ("gfx1030", ARRAY_DIM_GFX10),
        ("gfx1030", WRONG_DIM_GFX10),
        ("gfx900", ATOMIC64_GFX9),
        ("gfx1030", ATOMIC64_GFX10),
        ("gfx900", LOAD_GFX9),
        ("gfx1030", LOAD_GFX10),
        ("gfx900", STORE_GFX9),
        ("gfx1030", STORE_GFX10),
        ("gfx900", ATOMIC_GFX9),
        ("gfx1030", ATOMIC_GFX10),
        ("gfx900", LAYOUT_GFX9),
        ("gfx1030", LAYOUT_GFX10),
        ("gfx900", ONE_GFX9),
        ("gfx1030", ONE_GFX10),
        ("gfx900", MIP_GFX9),
        ("gfx1030", MIP_GFX10),
        ("gfx1030", FMAX_GFX10),
        ("gfx1030", NSA_GFX10),
        ("gfx1010", LOAD_GFX10),
    ];
    for (cpu, p) in progs {
        let text: String = p.iter().map(|(t, _)| format!("{t}\n")).collect();
        let Ok(mut child) = std::process::Command::new("llvm-mc-19")
            .args([
                "-arch=amdgcn",
                &format!("-mcpu={cpu}"),
                "-filetype=obj",
                "-o",
                "-",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
        else {
            eprintln!("llvm-mc-19 not found: encodings not re-checked");
            return;
        };
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{cpu}: {text}");
        let want = code(p);
        assert!(
            out.stdout.windows(want.len()).any(|w| w == want.as_slice()),
            "{cpu}: the object's .text is not the listed bytes:\n{text}"
        );
    }
}

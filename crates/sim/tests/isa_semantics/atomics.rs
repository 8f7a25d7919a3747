//! Floating-point atomics in LDS, global, buffer and flat memory
//! (`exec/mem/atomic.rs`).

use super::common::*;

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

/// The memory of a [`float_atomics`] run: its global and buffer areas, and
/// LDS.
struct AtomicSlots {
    mem: GlobalMemory,
    lds: Bytes,
    g32: u64,
    g64: u64,
    b32: u64,
    b64: u64,
}

impl AtomicSlots {
    fn new() -> Self {
        let mem = GlobalMemory::new();
        let g32 = mem.allocate(1024).unwrap();
        let g64 = mem.allocate(2048).unwrap();
        let b32 = mem.allocate(1024).unwrap();
        let b64 = mem.allocate(4096).unwrap();
        let lds = Bytes::new(4096, Space::Lds);
        AtomicSlots {
            mem,
            lds,
            g32,
            g64,
            b32,
            b64,
        }
    }

    /// The address of slot `off` of lane `l` in region `r`.
    fn addr(&self, r: Region, l: usize, off: u64) -> u64 {
        let l = l as u64;
        match r {
            Region::Lds32 => 16 * l + off,
            Region::Lds64 => 2048 + 32 * l + off,
            Region::G32 => self.g32 + 16 * l + off,
            Region::G64 => self.g64 + 32 * l + off,
            Region::B32 => self.b32 + 16 * l + off,
            Region::B64 => self.b64 + 2048 + 32 * l + off,
        }
    }

    fn write(&mut self, r: Region, l: usize, off: u64, bytes: &[u8]) {
        let a = self.addr(r, l, off);
        if matches!(r, Region::Lds32 | Region::Lds64) {
            self.lds.write(a, bytes).unwrap();
        } else {
            self.mem.write(a, bytes).unwrap();
        }
    }

    fn read(&self, r: Region, l: usize, off: u64, k: usize) -> u64 {
        let a = self.addr(r, l, off);
        let mut b = [0u8; 8];
        if matches!(r, Region::Lds32 | Region::Lds64) {
            self.lds.read(a, &mut b[..k]).unwrap();
        } else {
            self.mem.read(a, &mut b[..k]).unwrap();
        }
        u64::from_le_bytes(b)
    }

    /// Every slot starts with a marker; the slots an operation acts on with
    /// the case's old value.
    fn fill(&mut self, ops: &[(Region, u64, FOp, Option<usize>)]) {
        use Region::*;
        for l in 0..64 {
            for r in [Lds32, Lds64, G32, G64, B32, B64] {
                for off in (0..32).step_by(4) {
                    if matches!(r, Lds32 | G32 | B32) && off >= 16 {
                        continue;
                    }
                    self.write(r, l, off, &(fa_marker(l) as u32).to_le_bytes());
                }
            }
            for &(r, off, op, _) in ops {
                let b = fa_old(op, l).to_le_bytes();
                self.write(r, l, off, &b[..fa_width(op)]);
            }
        }
    }
}

/// The value a slot of `op` holds before the program in lane `l`.
fn fa_old(op: FOp, l: usize) -> u64 {
    match op {
        FOp::Min32 | FOp::Max32 | FOp::Cas32 => F32_CASES[l % 10][0] as u64,
        FOp::PkAdd16 => PK16_CASES[l % 5][0] as u64,
        _ => F64_CASES[l % 10][0],
    }
}

/// The value an active lane `l` leaves in a slot of `op`.
fn fa_new(op: FOp, l: usize) -> u64 {
    match op {
        FOp::Min32 => F32_CASES[l % 10][3] as u64,
        FOp::Max32 => F32_CASES[l % 10][4] as u64,
        FOp::Cas32 => F32_CASES[l % 10][5] as u64,
        FOp::Min64 => F64_CASES[l % 10][3],
        FOp::Max64 => F64_CASES[l % 10][4],
        FOp::Cas64 => F64_CASES[l % 10][5],
        FOp::PkAdd16 => PK16_CASES[l % 5][2] as u64,
    }
}

fn fa_marker(l: usize) -> u64 {
    0x5a5a_0000_u64 + l as u64
}

fn fa_wide(op: FOp) -> bool {
    matches!(op, FOp::Min64 | FOp::Max64 | FOp::Cas64)
}

/// Bytes of a slot of `op`.
fn fa_width(op: FOp) -> usize {
    if fa_wide(op) { 8 } else { 4 }
}

/// `got` is `want`, or a quiet NaN where any is expected.
fn fa_same(got: u64, want: u64, wide: bool) -> bool {
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
}

/// The registers before a [`float_atomics`] program: buffer descriptors in
/// s[0:3] and s[4:7], per lane addresses and data.
fn fa_setup(w: &mut Wave, s: &AtomicSlots, exec: u64) {
    w.exec = Mask(exec);
    w.vgpr.resize(64, [0; 64]);
    for (q, base) in [(0, s.b32), (4, s.b64)] {
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
        let (a, b) = (s.g32 + 16 * l as u64, s.g64 + 32 * l as u64);
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
}

/// Checks slot `off` of `op` in lane `l` after the program: memory, and the
/// register the old value returns to.
fn fa_check_slot(
    gpu: Gpu,
    s: &AtomicSlots,
    w: &Wave,
    l: usize,
    active: bool,
    (r, off, op, ret): (Region, u64, FOp, Option<usize>),
) {
    let got = s.read(r, l, off, fa_width(op));
    let o = fa_old(op, l);
    let want = if active { fa_new(op, l) } else { o };
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
            fa_same(got, want, fa_wide(op)),
            "{gpu} lane {l} slot {off}: memory {got:#x}, want {want:#x}"
        );
    }
    if let Some(v) = ret {
        let mut back = w.vgpr[v][l] as u64;
        if fa_wide(op) {
            back |= (w.vgpr[v + 1][l] as u64) << 32;
        }
        let want = if active {
            o
        } else if v >= 34 && v != 46 {
            // An inactive lane keeps the data in its register.
            back
        } else if fa_wide(op) {
            (0xdead_0000 + v as u64) | (0xdead_0001 + v as u64) << 32
        } else {
            0xdead_0000 + v as u64
        };
        assert_eq!(back, want, "{gpu} lane {l} slot {off}: returned");
    }
}

/// Runs `code` (floating-point atomics on the slots `ops` lists, each with
/// the vector register its returning form writes) with lane 5 (and 33)
/// inactive, and checks memory and returned values against the tables.
fn float_atomics(gpu: Gpu, size: u32, code: &[u8], ops: &[(Region, u64, FOp, Option<usize>)]) {
    let n = size as usize;
    let exec: u64 = if size == 64 {
        !(1 << 5 | 1 << 33)
    } else {
        !(1 << 5) & 0xffff_ffff
    };
    let mut s = AtomicSlots::new();
    s.fill(ops);
    let mut lds = s.lds.clone();
    let w = run_in(gpu, size, code, &s.mem, &mut lds, 0, |w| {
        fa_setup(w, &s, exec)
    })
    .expect("runs");
    s.lds = lds;
    for l in 0..n {
        let active = (exec >> l) & 1 == 1;
        for &slot in ops {
            fa_check_slot(gpu, &s, &w, l, active, slot);
        }
        // The slots no operation names keep their marker; the
        // non-returning buffer forms keep their data registers.
        if !ops
            .iter()
            .any(|&(r, off, _, _)| r == Region::G64 && off == 16)
        {
            assert_eq!(
                s.read(Region::G64, l, 16, 4),
                fa_marker(l),
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

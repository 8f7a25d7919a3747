//! Matrix fused multiply-add (`exec/mfma.rs`).

use super::common::*;

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

/// No broadcast modifiers: (cbsz, abid, blgp) all zero.
const NONE: (u32, u32, u32) = (0, 0, 0);

/// The gfx908 cases, A in v0 (v[0:1]), B in v2 (v[2:3]), C from a0: (text,
/// encoding, (M, K, blocks), element type, first AGPR of D, (cbsz, abid, blgp)).
type Gfx908Case = (
    &'static str,
    [u8; 8],
    (usize, usize, usize),
    MfmaTy,
    usize,
    (u32, u32, u32),
);

#[rustfmt::skip]
const GFX908_CASES: [Gfx908Case; 27] = {
    use MfmaTy::*;
    [
        ("v_mfma_f32_32x32x1f32 a[32:63], v0, v2, a[0:31]", [0x20, 0x00, 0xc0, 0xd3, 0x00, 0x05, 0x02, 0x04], (32, 1, 2), F32, 32, NONE),
        ("v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[0:15]", [0x20, 0x00, 0xc1, 0xd3, 0x00, 0x05, 0x02, 0x04], (16, 1, 4), F32, 32, NONE),
        ("v_mfma_f32_4x4x1f32 a[0:3], v0, v2, a[0:3]", [0x00, 0x00, 0xc2, 0xd3, 0x00, 0x05, 0x02, 0x04], (4, 1, 16), F32, 0, NONE),
        ("v_mfma_f32_32x32x2f32 a[32:47], v0, v2, a[0:15]", [0x20, 0x00, 0xc4, 0xd3, 0x00, 0x05, 0x02, 0x04], (32, 2, 1), F32, 32, NONE),
        ("v_mfma_f32_16x16x4f32 a[0:3], v0, v2, a[0:3]", [0x00, 0x00, 0xc5, 0xd3, 0x00, 0x05, 0x02, 0x04], (16, 4, 1), F32, 0, NONE),
        ("v_mfma_f32_32x32x4f16 a[32:63], v[0:1], v[2:3], a[0:31]", [0x20, 0x00, 0xc8, 0xd3, 0x00, 0x05, 0x02, 0x04], (32, 4, 2), F16, 32, NONE),
        ("v_mfma_f32_16x16x4f16 a[32:47], v[0:1], v[2:3], a[0:15]", [0x20, 0x00, 0xc9, 0xd3, 0x00, 0x05, 0x02, 0x04], (16, 4, 4), F16, 32, NONE),
        ("v_mfma_f32_4x4x4f16 a[32:35], v[0:1], v[2:3], a[0:3]", [0x20, 0x00, 0xca, 0xd3, 0x00, 0x05, 0x02, 0x04], (4, 4, 16), F16, 32, NONE),
        ("v_mfma_f32_32x32x8f16 a[32:47], v[0:1], v[2:3], a[0:15]", [0x20, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x04], (32, 8, 1), F16, 32, NONE),
        ("v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]", [0x00, 0x00, 0xcd, 0xd3, 0x00, 0x05, 0x02, 0x04], (16, 16, 1), F16, 0, NONE),
        ("v_mfma_i32_32x32x4i8 a[32:63], v0, v2, a[0:31]", [0x20, 0x00, 0xd0, 0xd3, 0x00, 0x05, 0x02, 0x04], (32, 4, 2), I8, 32, NONE),
        ("v_mfma_i32_16x16x4i8 a[32:47], v0, v2, a[0:15]", [0x20, 0x00, 0xd1, 0xd3, 0x00, 0x05, 0x02, 0x04], (16, 4, 4), I8, 32, NONE),
        ("v_mfma_i32_4x4x4i8 a[32:35], v0, v2, a[0:3]", [0x20, 0x00, 0xd2, 0xd3, 0x00, 0x05, 0x02, 0x04], (4, 4, 16), I8, 32, NONE),
        ("v_mfma_i32_32x32x8i8 a[32:47], v0, v2, a[0:15]", [0x20, 0x00, 0xd4, 0xd3, 0x00, 0x05, 0x02, 0x04], (32, 8, 1), I8, 32, NONE),
        ("v_mfma_i32_16x16x16i8 a[0:3], v0, v2, a[0:3]", [0x00, 0x00, 0xd5, 0xd3, 0x00, 0x05, 0x02, 0x04], (16, 16, 1), I8, 0, NONE),
        ("v_mfma_f32_32x32x2bf16 a[32:63], v0, v2, a[0:31]", [0x20, 0x00, 0xe8, 0xd3, 0x00, 0x05, 0x02, 0x04], (32, 2, 2), Bf16, 32, NONE),
        ("v_mfma_f32_16x16x2bf16 a[32:47], v0, v2, a[0:15]", [0x20, 0x00, 0xe9, 0xd3, 0x00, 0x05, 0x02, 0x04], (16, 2, 4), Bf16, 32, NONE),
        ("v_mfma_f32_4x4x2bf16 a[32:35], v0, v2, a[0:3]", [0x20, 0x00, 0xeb, 0xd3, 0x00, 0x05, 0x02, 0x04], (4, 2, 16), Bf16, 32, NONE),
        ("v_mfma_f32_32x32x4bf16 a[32:47], v0, v2, a[0:15]", [0x20, 0x00, 0xec, 0xd3, 0x00, 0x05, 0x02, 0x04], (32, 4, 1), Bf16, 32, NONE),
        ("v_mfma_f32_16x16x8bf16 a[0:3], v0, v2, a[0:3]", [0x00, 0x00, 0xed, 0xd3, 0x00, 0x05, 0x02, 0x04], (16, 8, 1), Bf16, 0, NONE),
        ("v_mfma_f32_16x16x1f32 a[32:47], v0, v2, a[0:15] cbsz:2 abid:1 blgp:3", [0x20, 0x0a, 0xc1, 0xd3, 0x00, 0x05, 0x02, 0x64], (16, 1, 4), F32, 32, (2, 1, 3)),
        ("v_mfma_f32_32x32x1f32 a[32:63], v0, v2, a[0:31] cbsz:1 abid:1 blgp:2", [0x20, 0x09, 0xc0, 0xd3, 0x00, 0x05, 0x02, 0x44], (32, 1, 2), F32, 32, (1, 1, 2)),
        ("v_mfma_f32_4x4x4f16 a[32:35], v[0:1], v[2:3], a[0:3] cbsz:4 abid:9 blgp:6", [0x20, 0x4c, 0xca, 0xd3, 0x00, 0x05, 0x02, 0xc4], (4, 4, 16), F16, 32, (4, 9, 6)),
        ("v_mfma_i32_4x4x4i8 a[32:35], v0, v2, a[0:3] cbsz:3 abid:5 blgp:1", [0x20, 0x2b, 0xd2, 0xd3, 0x00, 0x05, 0x02, 0x24], (4, 4, 16), I8, 32, (3, 5, 1)),
        ("v_mfma_f32_32x32x4bf16 a[32:47], v0, v2, a[0:15] blgp:7", [0x20, 0x00, 0xec, 0xd3, 0x00, 0x05, 0x02, 0xe4], (32, 4, 1), Bf16, 32, (0, 0, 7)),
        ("v_mfma_f32_16x16x4f32 a[0:3], v0, v2, a[0:3] blgp:4", [0x00, 0x00, 0xc5, 0xd3, 0x00, 0x05, 0x02, 0x84], (16, 4, 1), F32, 0, (0, 0, 4)),
        ("v_mfma_f32_16x16x4f16 a[32:47], v[0:1], v[2:3], a[0:15] cbsz:1 blgp:5", [0x20, 0x01, 0xc9, 0xd3, 0x00, 0x05, 0x02, 0xa4], (16, 4, 4), F16, 32, (1, 0, 5)),
    ]
};

/// Every gfx908 MFMA shape, A and B in VGPRs, C and D in AGPRs, with and
/// without the broadcast modifiers; the results are host matrix products of
/// the elements placed where the ISA guides put them.
#[test]
fn mfma_gfx908_shapes_and_broadcasts() {
    for (text, code, shape, ty, d, mods) in GFX908_CASES {
        let mut c = mfma(
            text,
            code,
            shape,
            ty,
            (V, 0),
            (V, 2),
            Ok((A, 0)),
            (A, d),
            mods,
        );
        check_mfma(Gpu::Gfx908, &c);
        // gfx90a: the same words with acc_cd set (bit 15) keep C and D in
        // AGPRs (clear, they would name VGPRs overlapping A and B).
        c.code[1] |= 0x80;
        check_mfma(Gpu::Gfx90a, &c);
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

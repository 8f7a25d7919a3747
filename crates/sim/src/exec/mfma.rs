//! Matrix fused multiply-add, `v_mfma_*` (gfx908 and gfx90a, wave64):
//! `D = A x B + C` for `blocks` independent M x N x K products whose
//! elements are spread over the lanes and registers of the sources.
//!
//! The placement of every element follows the MI100 / MI200 ISA guides'
//! section "Matrix fused multiply add" (as tabulated by AMD's matrix
//! instruction calculator):
//!
//! - A (src0) and B (src1): lane `l` holds row `i = l % M` of A (column
//!   `j = l % N` of B); the lane group `g = l / M` is block `g % blocks`
//!   and K group `g / blocks`; each lane holds `E` consecutive K elements of
//!   its group, packed lowest first (two per dword for f16 and bf16, four
//!   for i8, one dword per f32, a register pair per f64).
//! - C (src2) and D (vdst), f32 and i32 results: for M = 32 register `r` is
//!   row `8 * (r % 16 / 4) + 4 * (l / 32) + r % 4`, column `l % 32`, block
//!   `r / 16`; for M = 16 row `4 * (l / 16) + r % 4`, column `l % 16`,
//!   block `r / 4`; for M = 4 row `r`, column `l % 4`, block `l / 4`.
//! - f64 results (gfx90a): in 16x16x4 register pair `p` is row
//!   `4 * p + l / 16`, column `l % 16`; in 4x4x4 (one pair) row `l / 16`,
//!   column `l % 4`, block `(l / 4) % 4`.
//!
//! Modifiers: `cbsz`/`abid` make block `b` read A from block
//! `(b >> cbsz << cbsz) + abid`; `blgp` makes lane `l` read B from another
//! lane (broadcast of a half or a quarter of the wave, or a rotation by 16).
//! On the f64 forms the same field means negation in later generations and
//! is reported as unsupported here, as is `cbsz`/`abid` on single-block
//! shapes (the guides leave them undefined).
//!
//! Arithmetic: products of f16, bf16 and f32 elements are exact in f64; each
//! result is `C + sum of products` summed in f64 and rounded once to f32 (the
//! guides do not give the hardware's internal order or precision; results
//! agree whenever the sum is exact in f64). f64 results accumulate with one
//! fused multiply-add per K step in K order. Denormals are kept, except by
//! the f16 and bf16 forms on gfx90a, which flush denormal inputs and
//! results to zero whatever MODE says (ROCm MIOpen, "MI200 matrix fused
//! multiply-add (MFMA) behavior specifics": "On the MI200, MFMA_F16,
//! MFMA_BF16, and MFMA_BF16_1K flush subnormal input/output data to zero").
//! Integer results wrap. MFMA reads every lane of its sources: it is executed only
//! with EXEC covering the whole wave (anything else is reported).

use super::operand::{L32, wv32};
use super::{E, R, unsupported};
use crate::alu::{bf16_to_f32, f16_to_f32};
use crate::wave::Wave;
use amdgpu_isa::alu::{AluOp, ops as alu};
use amdgpu_isa::operand::inline_float_bits;
use amdgpu_isa::{Inst, Op, Operand};

/// The element type of A and B (and so of C and D).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    /// f32 in, f32 out.
    F32,
    /// f16 in, f32 out.
    F16,
    /// bf16 in, f32 out.
    Bf16,
    /// i8 in, i32 out.
    I8,
    /// f64 in, f64 out (gfx90a).
    F64,
}

/// The geometry of one MFMA operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Rows of A and D (equal to the columns of B and D).
    pub m: usize,
    /// The inner dimension of one block.
    pub k: usize,
    /// Independent products computed at once.
    pub blocks: usize,
    /// The element type.
    pub elem: Elem,
}

impl Shape {
    /// The shape of `v_mfma_<out>_<M>x<N>x<K><in>[_1k]`, parsed from the
    /// operation's name; `None` for a name that is not an MFMA. The tests
    /// check [`Shape::of`] against it.
    #[cfg(test)]
    pub(crate) fn from_name(name: &str) -> Option<Shape> {
        let rest = name.strip_prefix("v_mfma_")?;
        let rest = rest.strip_suffix("_1k").unwrap_or(rest);
        let (_, dims) = rest.split_once('_')?;
        let mut it = dims.splitn(3, 'x');
        let m: usize = it.next()?.parse().ok()?;
        let n: usize = it.next()?.parse().ok()?;
        let tail = it.next()?;
        let split = tail.find(|c: char| !c.is_ascii_digit())?;
        let k: usize = tail[..split].parse().ok()?;
        let elem = match &tail[split..] {
            "f32" => Elem::F32,
            "f16" => Elem::F16,
            "bf16" => Elem::Bf16,
            "i8" => Elem::I8,
            "f64" => Elem::F64,
            _ => return None,
        };
        if m != n || !matches!(m, 4 | 16 | 32) || k == 0 {
            return None;
        }
        // A holds M x K x blocks elements in 64 lanes of `per_lane` each.
        let per_lane = match elem {
            Elem::F32 | Elem::F64 => 1,
            Elem::Bf16 if !name.ends_with("_1k") => 2,
            _ => 4,
        };
        let blocks = 64 * per_lane / (m * k);
        (blocks >= 1 && m * k * blocks == 64 * per_lane).then_some(Shape { m, k, blocks, elem })
    }

    /// The shape of operation `op` (M, K, blocks and element type of
    /// `v_mfma_<out>_<M>x<N>x<K><in>[_1k]`), by identity.
    pub(crate) fn of(op: AluOp) -> Option<Shape> {
        let (m, k, blocks, elem) = match op {
            alu::V_MFMA_F32_16X16X16BF16_1K => (16, 16, 1, Elem::Bf16),
            alu::V_MFMA_F32_16X16X16F16 => (16, 16, 1, Elem::F16),
            alu::V_MFMA_F32_16X16X1F32 => (16, 1, 4, Elem::F32),
            alu::V_MFMA_F32_16X16X2BF16 => (16, 2, 4, Elem::Bf16),
            alu::V_MFMA_F32_16X16X4BF16_1K => (16, 4, 4, Elem::Bf16),
            alu::V_MFMA_F32_16X16X4F16 => (16, 4, 4, Elem::F16),
            alu::V_MFMA_F32_16X16X4F32 => (16, 4, 1, Elem::F32),
            alu::V_MFMA_F32_16X16X8BF16 => (16, 8, 1, Elem::Bf16),
            alu::V_MFMA_F32_32X32X1F32 => (32, 1, 2, Elem::F32),
            alu::V_MFMA_F32_32X32X2BF16 => (32, 2, 2, Elem::Bf16),
            alu::V_MFMA_F32_32X32X2F32 => (32, 2, 1, Elem::F32),
            alu::V_MFMA_F32_32X32X4BF16 => (32, 4, 1, Elem::Bf16),
            alu::V_MFMA_F32_32X32X4BF16_1K => (32, 4, 2, Elem::Bf16),
            alu::V_MFMA_F32_32X32X4F16 => (32, 4, 2, Elem::F16),
            alu::V_MFMA_F32_32X32X8BF16_1K => (32, 8, 1, Elem::Bf16),
            alu::V_MFMA_F32_32X32X8F16 => (32, 8, 1, Elem::F16),
            alu::V_MFMA_F32_4X4X1F32 => (4, 1, 16, Elem::F32),
            alu::V_MFMA_F32_4X4X2BF16 => (4, 2, 16, Elem::Bf16),
            alu::V_MFMA_F32_4X4X4BF16_1K => (4, 4, 16, Elem::Bf16),
            alu::V_MFMA_F32_4X4X4F16 => (4, 4, 16, Elem::F16),
            alu::V_MFMA_F64_16X16X4F64 => (16, 4, 1, Elem::F64),
            alu::V_MFMA_F64_4X4X4F64 => (4, 4, 4, Elem::F64),
            alu::V_MFMA_I32_16X16X16I8 => (16, 16, 1, Elem::I8),
            alu::V_MFMA_I32_16X16X4I8 => (16, 4, 4, Elem::I8),
            alu::V_MFMA_I32_32X32X4I8 => (32, 4, 2, Elem::I8),
            alu::V_MFMA_I32_32X32X8I8 => (32, 8, 1, Elem::I8),
            alu::V_MFMA_I32_4X4X4I8 => (4, 4, 16, Elem::I8),
            _ => return None,
        };
        Some(Shape { m, k, blocks, elem })
    }

    /// K elements each lane holds of A (and of B).
    pub(crate) fn per_lane(&self) -> usize {
        self.m * self.k * self.blocks / 64
    }

    /// Dwords of A (and of B) per lane.
    pub(crate) fn src_dwords(&self) -> usize {
        let bits = match self.elem {
            Elem::F32 => 32,
            Elem::F16 | Elem::Bf16 => 16,
            Elem::I8 => 8,
            Elem::F64 => 64,
        };
        (self.per_lane() * bits).div_ceil(32)
    }

    /// Dwords of C (and of D) per lane.
    pub(crate) fn acc_dwords(&self) -> usize {
        let per_block = self.m * self.m * self.blocks / 64;
        if self.elem == Elem::F64 {
            2 * per_block
        } else {
            per_block
        }
    }

    /// Where lane `lane`'s element `e` (of [`Shape::per_lane`]) of A sits:
    /// (block, row, k). For B the row is the column.
    pub(crate) fn src_pos(&self, lane: usize, e: usize) -> (usize, usize, usize) {
        let g = lane / self.m;
        (
            g % self.blocks,
            lane % self.m,
            g / self.blocks * self.per_lane() + e,
        )
    }

    /// Where result `r` of lane `lane` sits: (block, row, column). `r`
    /// counts dwords for 32-bit results and register pairs for f64.
    pub(crate) fn acc_pos(&self, lane: usize, r: usize) -> (usize, usize, usize) {
        let col = lane % self.m;
        match (self.elem, self.m) {
            (Elem::F64, 16) => (0, 4 * r + lane / 16, col),
            (Elem::F64, _) => ((lane / 4) % 4, lane / 16, col),
            (_, 32) => (r / 16, 8 * (r % 16 / 4) + 4 * (lane / 32) + r % 4, col),
            (_, 16) => (r / 4, 4 * (lane / 16) + r % 4, col),
            _ => (lane / 4, r % 4, col),
        }
    }
}

/// The lane whose B elements lane `lane` uses under `blgp` (MI100 ISA,
/// "BLGP"): 1 and 2 broadcast the low or high 32 lanes, 3 rotates down by
/// 16, 4 to 7 broadcast one group of 16 lanes.
pub(crate) fn blgp_lane(lane: usize, blgp: u8) -> usize {
    match blgp {
        1 => lane % 32,
        2 => lane % 32 + 32,
        3 => (lane + 16) % 64,
        4..=7 => lane % 16 + 16 * (blgp as usize - 4),
        _ => lane,
    }
}

/// The register file and first index of a vector operand.
fn vector_base(op: &Operand, what: &str) -> Result<(bool, usize), E> {
    match *op {
        Operand::Vgpr { index, .. } => Ok((false, index as usize)),
        Operand::Agpr { index, .. } => Ok((true, index as usize)),
        _ => unsupported(format!("MFMA {what} operand {op}")),
    }
}

/// `count` consecutive registers of the file from `base`, lane-major
/// copies. An AGPR file never written reads as zero.
fn read_regs(w: &Wave, (agpr, base): (bool, usize), count: usize) -> Result<Vec<L32>, E> {
    let file = if agpr { &w.agpr } else { &w.vgpr };
    (base..base + count)
        .map(|r| match file.get(r) {
            Some(v) => Ok(*v),
            None if agpr && file.is_empty() && r < crate::wave::NUM_VGPRS => Ok([0; 64]),
            None => unsupported(format!(
                "{}{r} (beyond the register file)",
                if agpr { "a" } else { "v" }
            )),
        })
        .collect()
}

/// The accumulator C as `acc_dwords` registers: a register range, or an
/// inline constant (gfx90a) repeated in every element.
fn read_acc(w: &Wave, op: &Operand, s: &Shape) -> Result<Vec<L32>, E> {
    let n = s.acc_dwords();
    let f64 = s.elem == Elem::F64;
    let constant: Option<u64> = match *op {
        Operand::InlineInt(v) => Some(if f64 {
            (v as f64).to_bits()
        } else if s.elem == Elem::I8 {
            v as i32 as u32 as u64
        } else {
            (v as f32).to_bits() as u64
        }),
        Operand::InlineFloat(c) if s.elem != Elem::I8 => {
            inline_float_bits(c, if f64 { 64 } else { 32 })
        }
        _ => None,
    };
    match constant {
        Some(bits) => Ok((0..n)
            .map(|r| {
                let d = if f64 && r % 2 == 1 { bits >> 32 } else { bits };
                [d as u32; 64]
            })
            .collect()),
        None => read_regs(w, vector_base(op, "accumulator")?, n),
    }
}

/// Executes `v_mfma_*` `i`; `flush_half` on gfx90a (f16 and bf16 denormal
/// inputs and results flushed, see the module notes).
pub(crate) fn exec(w: &mut Wave, i: &Inst, flush_half: bool) -> R {
    let Op::Alu(op) = i.op else {
        return Err(E::Unimpl);
    };
    let Some(s) = Shape::of(op) else {
        return Err(E::Unimpl);
    };
    if w.size != 64 {
        return unsupported("MFMA in a wave32 wave");
    }
    if w.exec.0 != u64::MAX {
        return unsupported(format!(
            "MFMA with EXEC {:#018x} (only a full wave is modelled)",
            w.exec.0
        ));
    }
    let a = &i.alu;
    if a.clamp || a.neg != 0 || a.neg_hi != 0 || a.abs != 0 {
        return unsupported("clamp or negation modifiers on an MFMA");
    }
    let (cbsz, abid, blgp) = (a.mfma_cbsz(), a.mfma_abid(), a.mfma_blgp());
    if s.elem == Elem::F64 && (cbsz | abid | blgp) != 0 {
        return unsupported(format!(
            "cbsz:{cbsz} abid:{abid} blgp:{blgp} on an f64 MFMA (negation bits in later ISAs)"
        ));
    }
    if cbsz != 0 || abid != 0 {
        let max = s.blocks.trailing_zeros().min(4) as u8;
        if cbsz > max || abid as u32 >= 1u32 << cbsz {
            return unsupported(format!(
                "cbsz:{cbsz} abid:{abid} on an MFMA of {} block(s)",
                s.blocks
            ));
        }
    }
    let dw = s.src_dwords();
    let ra = read_regs(w, vector_base(&i.src[0], "A")?, dw)?;
    let rb = read_regs(w, vector_base(&i.src[1], "B")?, dw)?;
    let rc = read_acc(w, &i.src[2], &s)?;
    let (dst_agpr, dst_base) = vector_base(&i.dst[0], "destination")?;

    // The elements of A and B as f64 (exact for every input type), indexed
    // [block][row or column][k].
    let (m, kk, nb) = (s.m, s.k, s.blocks);
    let idx = |b: usize, x: usize, k: usize| (b * m + x) * kk + k;
    let mut am = vec![0f64; nb * m * kk];
    let mut bm = vec![0f64; nb * m * kk];
    for lane in 0..64 {
        let lb = blgp_lane(lane, blgp);
        for e in 0..s.per_lane() {
            let (b, x, k) = s.src_pos(lane, e);
            am[idx(b, x, k)] = element(&ra, lane, e, s.elem);
            bm[idx(b, x, k)] = element(&rb, lb, e, s.elem);
        }
    }
    let flush = flush_half && matches!(s.elem, Elem::F16 | Elem::Bf16);
    if flush {
        // The elements are exact in f64; a denormal f16 or bf16 is one below
        // the type's smallest normal (2^-14, or f32's 2^-126 for bf16).
        let min = if s.elem == Elem::F16 {
            f64::powi(2.0, -14)
        } else {
            f32::MIN_POSITIVE as f64
        };
        for x in am.iter_mut().chain(bm.iter_mut()) {
            if x.abs() < min {
                *x = 0.0f64.copysign(*x);
            }
        }
    }
    let a_block = |b: usize| (b >> cbsz << cbsz) + abid as usize;

    let results = if s.elem == Elem::F64 {
        rc.len() / 2
    } else {
        rc.len()
    };
    let mut out: Vec<L32> = vec![[0; 64]; rc.len()];
    for lane in 0..64 {
        for r in 0..results {
            let (b, row, col) = s.acc_pos(lane, r);
            let ab = a_block(b);
            let arow = |k: usize| am[idx(ab, row, k)];
            let bcol = |k: usize| bm[idx(b, col, k)];
            match s.elem {
                Elem::F64 => {
                    let c = rc[2 * r][lane] as u64 | (rc[2 * r + 1][lane] as u64) << 32;
                    let v = (0..kk).fold(f64::from_bits(c), |acc, k| arow(k).mul_add(bcol(k), acc));
                    out[2 * r][lane] = v.to_bits() as u32;
                    out[2 * r + 1][lane] = (v.to_bits() >> 32) as u32;
                }
                Elem::I8 => {
                    let sum = (0..kk).fold(rc[r][lane] as i32, |acc, k| {
                        acc.wrapping_add((arow(k) * bcol(k)) as i32)
                    });
                    out[r][lane] = sum as u32;
                }
                _ => {
                    let sum: f64 = (0..kk).map(|k| arow(k) * bcol(k)).sum();
                    let mut v = (sum + f32::from_bits(rc[r][lane]) as f64) as f32;
                    if flush && v.is_subnormal() {
                        v = 0.0f32.copysign(v);
                    }
                    out[r][lane] = v.to_bits();
                }
            }
        }
    }
    for (r, v) in out.iter().enumerate() {
        let index = u8::try_from(dst_base + r).map_err(|_| {
            E::Unsupported(format!(
                "MFMA destination beyond register 255 ({})",
                i.dst[0]
            ))
        })?;
        let d = if dst_agpr {
            Operand::Agpr { index, count: 1 }
        } else {
            Operand::Vgpr { index, count: 1 }
        };
        wv32(w, &d, v, u64::MAX)?;
    }
    Ok(())
}

/// Element `e` of lane `lane` of a source held in `regs`, as f64 (exact).
fn element(regs: &[L32], lane: usize, e: usize, elem: Elem) -> f64 {
    let dword = |r: usize| regs.get(r).map_or(0, |v| v[lane]);
    match elem {
        Elem::F32 => f32::from_bits(dword(e)) as f64,
        Elem::F64 => f64::from_bits(dword(2 * e) as u64 | (dword(2 * e + 1) as u64) << 32),
        Elem::F16 | Elem::Bf16 => {
            let h = (dword(e / 2) >> (16 * (e % 2))) as u16;
            if elem == Elem::F16 {
                f16_to_f32(h) as f64
            } else {
                bf16_to_f32(h) as f64
            }
        }
        Elem::I8 => (dword(e / 4) >> (8 * (e % 4))) as u8 as i8 as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_decoded_mfma_has_a_consistent_shape() {
        let mut n = 0;
        for i in 0..AluOp::count() {
            let op = AluOp(i as u16);
            if !op.is_mfma() {
                continue;
            }
            let s = Shape::of(op).unwrap_or_else(|| panic!("no shape for {}", op.name()));
            n += 1;
            // Every (block, row, k) of A is held by exactly one lane element.
            let mut seen = vec![0u8; s.blocks * s.m * s.k];
            for lane in 0..64 {
                for e in 0..s.per_lane() {
                    let (b, x, k) = s.src_pos(lane, e);
                    seen[(b * s.m + x) * s.k + k] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{} sources", op.name());
            // Every (block, row, column) of D is held by exactly one result.
            let results = if s.elem == Elem::F64 {
                s.acc_dwords() / 2
            } else {
                s.acc_dwords()
            };
            let mut seen = vec![0u8; s.blocks * s.m * s.m];
            for lane in 0..64 {
                for r in 0..results {
                    let (b, row, col) = s.acc_pos(lane, r);
                    seen[(b * s.m + row) * s.m + col] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{} results", op.name());
        }
        assert_eq!(n, 27, "MFMA operations in the decoder tables");
    }

    #[test]
    fn shapes_by_identity_are_the_parsed_names() {
        for i in 0..AluOp::count() {
            let op = AluOp(i as u16);
            assert_eq!(Shape::of(op), Shape::from_name(op.name()), "{}", op.name());
        }
    }

    #[test]
    fn shapes_parse_from_names() {
        let s = Shape::from_name("v_mfma_f32_32x32x1f32").unwrap();
        assert_eq!(
            (s.m, s.k, s.blocks, s.src_dwords(), s.acc_dwords()),
            (32, 1, 2, 1, 32)
        );
        let s = Shape::from_name("v_mfma_f32_16x16x16bf16_1k").unwrap();
        assert_eq!(
            (s.m, s.k, s.blocks, s.src_dwords(), s.acc_dwords()),
            (16, 16, 1, 2, 4)
        );
        let s = Shape::from_name("v_mfma_f32_4x4x2bf16").unwrap();
        assert_eq!(
            (s.m, s.k, s.blocks, s.src_dwords(), s.acc_dwords()),
            (4, 2, 16, 1, 4)
        );
        let s = Shape::from_name("v_mfma_f64_4x4x4f64").unwrap();
        assert_eq!(
            (s.m, s.k, s.blocks, s.src_dwords(), s.acc_dwords()),
            (4, 4, 4, 2, 2)
        );
        let s = Shape::from_name("v_mfma_i32_32x32x8i8").unwrap();
        assert_eq!(
            (s.m, s.k, s.blocks, s.src_dwords(), s.acc_dwords()),
            (32, 8, 1, 1, 16)
        );
        assert_eq!(Shape::from_name("v_mfma_f32_32x32x1xf32"), None);
        assert_eq!(Shape::from_name("v_add_f32"), None);
    }

    #[test]
    fn blgp_patterns() {
        let lanes = |b| (0..64).map(|l| blgp_lane(l, b)).collect::<Vec<_>>();
        assert_eq!(lanes(0), (0..64).collect::<Vec<_>>());
        assert_eq!(lanes(1)[40], 8);
        assert_eq!(lanes(2)[8], 40);
        assert_eq!(lanes(3)[50], 2);
        assert_eq!(lanes(5)[3], 19);
        assert_eq!(lanes(7)[20], 52);
    }
}

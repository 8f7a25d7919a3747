//! Pre-resolved handlers for the common vector ALU instructions.
//!
//! [`Prepared::new`] looks at every instruction of a program once and, for
//! the modifier-free common cases (VOP1, VOP2 and VOP3 forms without abs,
//! omod, clamp or op_sel, 32-bit operands in VGPRs, SGPRs or constants), keeps
//! a [`Fast`] handler with its operands resolved: register numbers and
//! constant values, the operation chosen once. [`run`] executes such a
//! handler on a wave: sources are read straight from the register file, the
//! lane loop runs over the wave's 32 or 64 lanes only, and the result is
//! written in place under EXEC.
//!
//! A handler computes exactly what the general executor computes for the
//! same instruction; where that depends on run-time state it does not model
//! (a MODE other than round-to-nearest-even with denormals kept, GFX9 VGPR
//! indexing, a register beyond the wave's allocation, a scalar source it
//! cannot read), [`run`] declines before changing anything and the general
//! executor runs the instruction instead (and reports what is wrong).
//!
//! f32 fused multiply-adds use the host's FMA instruction when the CPU has
//! one (run-time detection), with the same results as the portable
//! [`f32::mul_add`]: both are the exactly rounded `a * b + c`; a lane whose
//! result is a NaN is recomputed with `f32::mul_add`, so that even the NaN
//! payloads are those of the general executor.

use super::kinds::{Cmp, CmpTy, Kind};
use super::operand::s32;
use crate::memory::{Bytes, GlobalMemory, PAGE};
use crate::wave::{HW_REG_MODE, Wave};
use amdgpu_isa::alu::AluForm;
use amdgpu_isa::operand::inline_float_bits;
use amdgpu_isa::{Inst, Op, Operand, Program, SpecialReg};

mod handlers;
mod lanes;
mod memory;
mod pages;
mod resolve;
mod scalar;
mod vector;

use handlers::*;
use lanes::*;
use memory::*;
use pages::*;
use resolve::*;
use scalar::*;
use vector::*;

/// One entry per dword of a program: the resolved instruction starting
/// there, if it has one, with the highest VGPR it names.
#[derive(Clone, Copy, Debug)]
struct Entry {
    fast: Fast,
    /// The highest VGPR named (0 for scalar instructions).
    vmax: u8,
    /// The instruction's size in bytes.
    size: u8,
    /// A vector instruction (its lanes counted in [`Wave::lane_ops`], and
    /// run only in the MODE the handlers model).
    vector: bool,
    /// A memory instruction ([`run_mem`]).
    mem: bool,
}

/// A program prepared for execution: the `Fast` handlers of its
/// instructions, by address.
#[derive(Clone, Debug, Default)]
pub struct Prepared {
    base: u64,
    slots: Vec<Option<Entry>>,
    /// Run the handlers compiled for AVX2 and FMA (x86-64 hosts that have
    /// them).
    avx2: bool,
}

impl Prepared {
    /// Resolves every instruction of `program` that has a fast handler.
    pub fn new(program: &Program) -> Prepared {
        let base = program.base();
        let mut slots: Vec<Option<Entry>> = Vec::new();
        for (addr, inst) in program.iter() {
            let Some(off) = addr.checked_sub(base).map(|o| (o / 4) as usize) else {
                continue;
            };
            let resolved = resolve(inst)
                .or_else(|| resolve_scalar(inst, addr, program))
                .or_else(|| resolve_mem(inst));
            let Some(mut e) = resolved else {
                continue;
            };
            e.size = inst.size;
            if slots.len() <= off {
                slots.resize(off + 1, None);
            }
            slots[off] = Some(e);
        }
        Prepared {
            base,
            slots,
            avx2: host_has_avx2_fma(),
        }
    }

    /// The same handlers compiled for the baseline target only (`false`),
    /// or for AVX2 and FMA when the host has them (`true`, the default of
    /// [`Prepared::new`]). The results are the same; tests run both.
    pub fn with_simd(mut self, on: bool) -> Prepared {
        self.avx2 = on && host_has_avx2_fma();
        self
    }

    /// Whether the handlers run compiled for AVX2 and FMA.
    pub fn simd(&self) -> bool {
        self.avx2
    }

    /// Number of instructions with a fast handler.
    pub fn handled(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// Whether the instruction at `pc` has a fast handler.
    pub fn is_handled(&self, pc: u64) -> bool {
        self.at(pc).is_some()
    }

    #[inline]
    fn at(&self, pc: u64) -> Option<&Entry> {
        let off = pc.wrapping_sub(self.base);
        if off % 4 != 0 {
            return None;
        }
        self.slots.get(usize::try_from(off / 4).ok()?)?.as_ref()
    }
}

/// MODE bits a fast handler depends on: FP_ROUND and FP_DENORM (bits 7:0)
/// and GFX9's GPR_IDX_EN (bit 27).
const MODE_CHECKED: u32 = 0xff | 1 << 27;
/// Their value for the fast handlers: round to nearest even, denormals kept
/// in and out, no VGPR indexing.
const MODE_FAST: u32 = 0xf0;

/// Executes the wave's next instruction through its fast handler, if it
/// has one and the wave's state lets it: the instruction counts, lane
/// operations and PC move on as the general executor moves them. Returns
/// `false`, with the wave unchanged, when the general executor must run the
/// instruction. (The caller has checked that the wave runs and is below its
/// instruction cap.)
#[inline]
pub(crate) fn step(p: &Prepared, w: &mut Wave, lds: &mut Bytes, mem: &GlobalMemory) -> bool {
    let pc = w.pc;
    let Some(e) = p.at(pc) else {
        return false;
    };
    if e.mem {
        return step_mem(e, w, lds, mem);
    } else if e.vector {
        if w.hwreg[HW_REG_MODE] & MODE_CHECKED != MODE_FAST || e.vmax as usize >= w.vgpr.len() {
            return false;
        }
        let lanes = w.exec.count() as u64;
        #[cfg(target_arch = "x86_64")]
        let done = if p.avx2 {
            // SAFETY: `avx2` is set only when the CPU has AVX2 and FMA.
            unsafe { run_avx2(&e.fast, w) }
        } else {
            run_sized(&e.fast, w)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let done = run_sized(&e.fast, w);
        if !done {
            return false;
        }
        w.lane_ops += lanes;
        w.pc = pc.wrapping_add(e.size as u64);
    } else {
        let next = pc.wrapping_add(e.size as u64);
        match run_scalar(&e.fast, w) {
            Some(Some(target)) => w.pc = target,
            Some(None) => w.pc = next,
            None => return false,
        }
    }
    w.executed += 1;
    true
}

#[inline(always)]
fn run_sized(f: &Fast, w: &mut Wave) -> bool {
    match w.size {
        64 => run_n::<64>(f, w),
        32 => run_n::<32>(f, w),
        _ => false,
    }
}

/// The handlers compiled for AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_avx2(f: &Fast, w: &mut Wave) -> bool {
    run_sized(f, w)
}

/// Whether the host has AVX2 and FMA (x86-64 only).
fn host_has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f32 bit patterns that exercise the corners of fma: zeros, denormals,
    /// the normal extremes, infinities, quiet and signalling NaNs with
    /// payloads, both signs; then pseudo-random patterns.
    fn patterns() -> Vec<u32> {
        let special = [
            0x0000_0000,
            0x0000_0001,
            0x0000_0100,
            0x007f_ffff,
            0x0080_0000,
            0x0080_0001,
            0x3f80_0000,
            0x3f80_0001,
            0x3fff_ffff,
            0x4b80_0000,
            0x7f7f_ffff,
            0x7f80_0000,
            0x7fc0_0000,
            0x7fc0_1234,
            0x7f80_0001,
            0x7fa0_5678,
            0x3380_0000,
            0x3400_0000,
            0x2000_0000,
            0x5f00_0000,
        ];
        let mut v: Vec<u32> = special.iter().flat_map(|&b| [b, b | 0x8000_0000]).collect();
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push((x >> 16) as u32);
        }
        v
    }

    /// The FMA-instruction path and the portable path agree bit for bit
    /// (the host may lack FMA: then both are the portable path).
    #[test]
    fn fma_paths_are_bit_identical() {
        let p = patterns();
        let n = p.len();
        let mut checked = 0;
        for (i, &a) in p.iter().enumerate() {
            let a = [a; 64];
            let b: [u32; 64] = std::array::from_fn(|l| p[(i * 7 + l * 13) % n]);
            let c: [u32; 64] = std::array::from_fn(|l| p[(i * 11 + l * 5 + 3) % n]);
            let want = fma_lanes_portable::<64>(&a, &b, &c);
            assert_eq!(fma_lanes::<64>(&a, &b, &c), want, "wave64, pattern {i}");
            let (a32, b32, c32): ([u32; 32], [u32; 32], [u32; 32]) = (
                std::array::from_fn(|l| a[l]),
                std::array::from_fn(|l| b[l]),
                std::array::from_fn(|l| c[l]),
            );
            let want32 = fma_lanes_portable::<32>(&a32, &b32, &c32);
            assert_eq!(fma_lanes::<32>(&a32, &b32, &c32), want32, "wave32");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU has AVX and FMA.
                let hw = unsafe { fma_lanes_x86::<64>(&a, &b, &c) };
                assert_eq!(hw, want, "the FMA instruction, pattern {i}");
                checked += 1;
            }
        }
        eprintln!("{checked} wave64 fma vectors checked through the FMA instruction");
    }

    /// Every fast handler kind is resolved from the instruction it stands for
    /// and declines modifiers it does not model.
    #[test]
    fn modifiers_are_left_to_the_general_executor() {
        use amdgpu_isa::{Decoder, Gpu};
        // v_fma_f32 v3, v3, s0, v5 / with clamp / with |v3| (gfx900).
        let plain = [0x03, 0x00, 0xcb, 0xd1, 0x03, 0x01, 0x14, 0x04];
        let clamp = [0x03, 0x80, 0xcb, 0xd1, 0x03, 0x01, 0x14, 0x04];
        let abs = [0x03, 0x01, 0xcb, 0xd1, 0x03, 0x01, 0x14, 0x04];
        let dec = Decoder::new(Gpu::Gfx900, true);
        let one = |bytes: &[u8]| Prepared::new(&dec.decode_program(bytes, 0x1000)).handled();
        assert_eq!(one(&plain), 1);
        assert_eq!(one(&clamp), 0);
        assert_eq!(one(&abs), 0);
    }
}

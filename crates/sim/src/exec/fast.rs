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

/// A 32-bit source, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Src {
    /// VGPR `n`.
    V(u8),
    /// SGPR `n` (below [`crate::wave::NUM_SGPRS`]).
    S(u8),
    /// A constant (inline or literal), as the general executor reads it.
    K(u32),
    /// Another scalar operand (special registers, trap temporaries), read
    /// as the general executor reads it.
    Other(Operand),
}

/// A 64-bit source, resolved as the general executor reads it for
/// integer operations (`v64` with `Ty::I`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Src64 {
    /// VGPRs `n` (low dword) and `n + 1`.
    V(u8),
    /// A constant.
    K(u64),
    /// A scalar operand (SGPR pair, special register), read with `s64`.
    Other(Operand),
}

/// 64-bit shifts by a 32-bit amount (`v_lshlrev_b64` and friends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sh64 {
    Lshl,
    Lshr,
    Ashr,
}

/// Unary 32-bit integer operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum U1 {
    Mov,
    Not,
}

/// Binary 32-bit integer operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum U2 {
    Add,
    Sub,
    Subrev,
    And,
    Or,
    Xor,
    Xnor,
    Lshlrev,
    Lshrrev,
    Ashrrev,
    MinU,
    MaxU,
    MinI,
    MaxI,
    MulLo,
    MulHiU,
    MulHiI,
    MulU24,
}

/// Ternary 32-bit integer operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum U3 {
    Add3,
    LshlAdd,
    AddLshl,
    LshlOr,
    AndOr,
    Or3,
    MadU24,
    Bfi,
    Alignbit,
}

/// Binary f32 operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum F2 {
    Add,
    Sub,
    Subrev,
    Mul,
}

/// Scalar 32-bit operations: the result and the new SCC (`None`: SCC
/// unchanged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum S2 {
    AddU,
    SubU,
    /// `s_addc_u32`: with SCC as carry in and out.
    AddC,
    /// `s_subb_u32`: with SCC as borrow in and out.
    SubB,
    /// `s_cselect_b32`: SCC ? a : b (SCC unchanged).
    Cselect,
    AddI,
    SubI,
    And,
    Or,
    Xor,
    Lshl,
    Lshr,
    Ashr,
    MulI,
}

/// Scalar 32-bit compares (SCC = the predicate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SCmp {
    Eq,
    Lg,
    GtI,
    GeI,
    LtI,
    LeI,
    GtU,
    GeU,
    LtU,
    LeU,
}

/// Carry operations: `v_add_co_u32`, `v_sub_co_u32`, `v_subrev_co_u32` and
/// their carry-in forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Carry {
    Add,
    Sub,
    Subrev,
    Addc,
    Subb,
    Subbrev,
}

/// Scalar 64-bit bitwise operations (`s_and_b64` ...; `Mov` is
/// `s_mov_b64`, which leaves SCC alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum L64 {
    Mov,
    And,
    Or,
    Xor,
    Andn2,
    Orn2,
    Lshl,
    Lshr,
    Ashr,
    /// `s_cselect_b64`: SCC ? a : b (SCC unchanged).
    Cselect,
}

/// The EXEC functions of `s_*_saveexec`: EXEC = f(source, EXEC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SaveExec {
    And,
    Or,
    Xor,
    Andn2,
    Orn2,
}

/// Conditions of SOPP branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cond {
    Always,
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

/// A resolved instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Fast {
    /// `d = op(a)`.
    U1 { op: U1, d: u8, a: Src },
    /// `d = op(a, b)`.
    U2 { op: U2, d: u8, a: Src, b: Src },
    /// `d = op(a, b, c)`.
    U3 {
        op: U3,
        d: u8,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `d = op(a, b)` on f32, `neg` negating sources (bit k: source k).
    F2 {
        op: F2,
        d: u8,
        a: Src,
        b: Src,
        neg: u8,
    },
    /// `d = fma(a, b, c)` on f32 (`v_fma_f32`).
    Fma {
        d: u8,
        a: Src,
        b: Src,
        c: Src,
        neg: u8,
    },
    /// `d = fma(a, b, d)` on f32 (`v_fmac_f32`).
    Fmac { d: u8, a: Src, b: Src, neg: u8 },
    /// A 32-bit integer or f32 compare (`v_cmp_*`, `v_cmpx_*`): the lanes
    /// in EXEC where it holds go to `d` (VCC when absent; nothing for
    /// `null`), and to EXEC for `v_cmpx`.
    Cmp {
        c: Cmp,
        a: Src,
        b: Src,
        neg: u8,
        d: Operand,
    },
    /// `d = mask[l] ? b : a` (`v_cndmask_b32`), `neg` flipping signs.
    Cndmask {
        d: u8,
        a: Src,
        b: Src,
        mask: Operand,
        neg: u8,
    },
    /// `d = a ± b (± carry-in)`, the carry-out lanes (in EXEC) to `cout`.
    Carry {
        op: Carry,
        d: u8,
        a: Src,
        b: Src,
        cin: Operand,
        cout: Operand,
    },
    /// A 64-bit integer compare, as [`Fast::Cmp`].
    Cmp64 {
        c: Cmp,
        a: Src64,
        b: Src64,
        d: Operand,
    },
    /// VGPRs `d`, `d + 1` = `b` shifted by `a & 63`.
    Shift64 { op: Sh64, d: u8, a: Src, b: Src64 },
    /// VGPRs `d`, `d + 1` = `a * b + c` (`v_mad_u64_u32`), the carry-out
    /// lanes (in EXEC) to `cout`.
    MadU64 {
        d: u8,
        a: Src,
        b: Src,
        c: Src64,
        cout: Operand,
    },
    /// Scalar `d = op(a, b)` on 64 bits, SCC = result != 0 (not for `Mov`).
    S64 {
        op: L64,
        d: Operand,
        a: Operand,
        b: Operand,
    },
    /// `d = EXEC; EXEC = op(s, EXEC)`, SCC = EXEC != 0.
    Saveexec {
        op: SaveExec,
        d: Operand,
        s: Operand,
    },
    /// Nothing (`s_nop`, `s_waitcnt` and the other waits).
    Nop,
    /// SGPR `d = a` (`s_mov_b32`).
    SMov { d: u8, a: Src },
    /// SGPR `d = op(a, b)`, setting SCC as the operation does.
    S2 { op: S2, d: u8, a: Src, b: Src },
    /// SCC = `op(a, b)`.
    SCmp { op: SCmp, a: Src, b: Src },
    /// A branch to `target` (an instruction start) when `cond` holds.
    Branch { cond: Cond, target: u64 },
    /// `s_endpgm`.
    Endpgm,
    /// `s_barrier`.
    Barrier,
    /// `s_load_dword*` (`buffer`: `s_buffer_load_dword*`, the base being the
    /// 48-bit base of the V# in SGPRs `b..b + 2`): `n` dwords at
    /// `(base + off + soff) & !3` into SGPRs `d..d + n`, base from SGPRs `b`,
    /// `b + 1`.
    SLoad {
        d: u8,
        n: u8,
        b: u8,
        buffer: bool,
        off: u64,
        soff: Option<Src>,
    },
    /// `global_load_dword`: VGPR `d` = the dword at each lane's address.
    GLoad { d: u8, addr: GAddr },
    /// `global_store_dword`: VGPR `data` to each lane's address, in lane order.
    GStore { data: u8, addr: GAddr },
    /// `ds_read_b32` (`two`: `ds_read2_b32` / `ds_read2st64_b32`, into VGPRs
    /// `d`, `d + 1`): the dwords at LDS `a + off0` (and `a + off1`).
    DsRead {
        d: u8,
        a: u8,
        off0: u32,
        off1: u32,
        two: bool,
    },
    /// `ds_write_b32` (`two`: `ds_write2_b32` / `ds_write2st64_b32`, with
    /// `data1` to `a + off1`): `data0` to LDS `a + off0`, in lane order.
    DsWrite {
        a: u8,
        data0: u8,
        data1: u8,
        off0: u32,
        off1: u32,
        two: bool,
    },
}

/// The address of a lane's global access, resolved: `V64`: VGPRs `v`, `v + 1`
/// plus `off`; `S`: SGPRs `s`, `s + 1` plus VGPR `v` (when present) plus `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GAddr {
    V64 { v: u8, off: i64 },
    S { s: u8, v: Option<u8>, off: i64 },
}

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

/// A program prepared for execution: the [`Fast`] handlers of its
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

/// The vector destination register of `op`, if it is one VGPR.
fn vdst(op: &Operand) -> Option<u8> {
    match *op {
        Operand::Vgpr { index, .. } => Some(index),
        _ => None,
    }
}

/// A 32-bit source as the general executor reads it for integer and f32
/// operations (`v32` with `Ty::I` / `Ty::F`).
fn src(op: &Operand) -> Option<Src> {
    Some(match *op {
        Operand::Vgpr { index, .. } => Src::V(index),
        Operand::Sgpr { index, .. } if (index as usize) < crate::wave::NUM_SGPRS => Src::S(index),
        Operand::InlineFloat(c) => Src::K(inline_float_bits(c, 32).unwrap_or(0) as u32),
        Operand::InlineInt(v) => Src::K(v as i32 as u32),
        Operand::Literal(v) => Src::K(v),
        Operand::Special { .. } | Operand::Ttmp { .. } | Operand::Sgpr { .. } => Src::Other(*op),
        _ => return None,
    })
}

fn resolve(i: &Inst) -> Option<Entry> {
    use Kind::*;
    let Op::Alu(op) = i.op else {
        return None;
    };
    let m = &i.alu;
    if !matches!(
        m.form,
        AluForm::Vop1 | AluForm::Vop2 | AluForm::Vop3 | AluForm::Vopc
    ) {
        return None;
    }
    if m.abs != 0 || m.omod != 0 || m.clamp || m.op_sel != 0 {
        return None;
    }
    let k = *super::tables().alu.get(op.0 as usize)?;
    if let Some(e) = resolve_masked(i, k) {
        return Some(e);
    }
    if i.dst[1].is_some() {
        return None;
    }
    let d = vdst(&i.dst[0])?;
    let s = |n: usize| src(&i.src[n]);
    let int_only = m.neg == 0;
    let fast = match k {
        VMovB32 if int_only => Fast::U1 {
            op: U1::Mov,
            d,
            a: s(0)?,
        },
        VNotB32 if int_only => Fast::U1 {
            op: U1::Not,
            d,
            a: s(0)?,
        },
        VAddU32 | VSubU32 | VSubrevU32 | VAddI32 | VSubI32 | VAndB32 | VOrB32 | VXorB32
        | VXnorB32 | VLshlrevB32 | VLshrrevB32 | VAshrrevI32 | VMinU32 | VMaxU32 | VMinI32
        | VMaxI32 | VMulLoU32 | VMulHiU32 | VMulHiI32 | VMulU32U24
            if int_only =>
        {
            let op = match k {
                VAddU32 | VAddI32 => U2::Add,
                VSubU32 | VSubI32 => U2::Sub,
                VSubrevU32 => U2::Subrev,
                VAndB32 => U2::And,
                VOrB32 => U2::Or,
                VXorB32 => U2::Xor,
                VXnorB32 => U2::Xnor,
                VLshlrevB32 => U2::Lshlrev,
                VLshrrevB32 => U2::Lshrrev,
                VAshrrevI32 => U2::Ashrrev,
                VMinU32 => U2::MinU,
                VMaxU32 => U2::MaxU,
                VMinI32 => U2::MinI,
                VMaxI32 => U2::MaxI,
                VMulLoU32 => U2::MulLo,
                VMulHiU32 => U2::MulHiU,
                VMulHiI32 => U2::MulHiI,
                _ => U2::MulU24,
            };
            Fast::U2 {
                op,
                d,
                a: s(0)?,
                b: s(1)?,
            }
        }
        VAdd3U32 | VLshlAddU32 | VAddLshlU32 | VLshlOrB32 | VAndOrB32 | VOr3B32 | VMadU32U24
        | VBfiB32 | VAlignbitB32
            if int_only =>
        {
            let op = match k {
                VAdd3U32 => U3::Add3,
                VLshlAddU32 => U3::LshlAdd,
                VAddLshlU32 => U3::AddLshl,
                VLshlOrB32 => U3::LshlOr,
                VAndOrB32 => U3::AndOr,
                VOr3B32 => U3::Or3,
                VMadU32U24 => U3::MadU24,
                VBfiB32 => U3::Bfi,
                _ => U3::Alignbit,
            };
            Fast::U3 {
                op,
                d,
                a: s(0)?,
                b: s(1)?,
                c: s(2)?,
            }
        }
        VAddF32 | VSubF32 | VSubrevF32 | VMulF32 => Fast::F2 {
            op: match k {
                VAddF32 => F2::Add,
                VSubF32 => F2::Sub,
                VSubrevF32 => F2::Subrev,
                _ => F2::Mul,
            },
            d,
            a: s(0)?,
            b: s(1)?,
            neg: m.neg & 3,
        },
        VFmaF32 => Fast::Fma {
            d,
            a: s(0)?,
            b: s(1)?,
            c: s(2)?,
            neg: m.neg & 7,
        },
        // VOP2 with a literal constant K in the fourth source slot:
        // `fmamk` is a * K + b, `fmaak` a * b + K.
        VFmamkF32 | VFmaakF32 if m.neg == 0 && !i.src[2].is_some() => {
            let Operand::Literal(kk) = i.src[3] else {
                return None;
            };
            let (a, b) = (s(0)?, s(1)?);
            let fast = if k == VFmamkF32 {
                Fast::Fma {
                    d,
                    a,
                    b: Src::K(kk),
                    c: b,
                    neg: 0,
                }
            } else {
                Fast::Fma {
                    d,
                    a,
                    b,
                    c: Src::K(kk),
                    neg: 0,
                }
            };
            return Some(Entry {
                fast,
                vmax: vmax(i, 2),
                size: i.size,
                vector: true,
                mem: false,
            });
        }
        VFmacF32 => Fast::Fmac {
            d,
            a: s(0)?,
            b: s(1)?,
            neg: m.neg & 3,
        },
        _ => return None,
    };
    // Sources beyond those the operation reads must be absent (nothing is
    // silently ignored).
    let used = match fast {
        Fast::U1 { .. } => 1,
        Fast::U2 { .. } | Fast::F2 { .. } | Fast::Fmac { .. } => 2,
        Fast::U3 { .. } | Fast::Fma { .. } => 3,
        _ => return None,
    };
    if i.src[used..].iter().any(|o| o.is_some()) {
        return None;
    }
    Some(Entry {
        fast,
        vmax: vmax(i, used),
        size: i.size,
        vector: true,
        mem: false,
    })
}

/// A scalar source (`s32`'s reading).
fn ssrc(op: &Operand) -> Option<Src> {
    match *op {
        Operand::Vgpr { .. } => None,
        Operand::Imm(v) => Some(Src::K(v as u32)),
        _ => src(op),
    }
}

/// A 64-bit scalar destination that `set64` / `set32` write without fail:
/// an SGPR pair in the file, VCC or EXEC.
fn sdst64(op: &Operand) -> Option<Operand> {
    match *op {
        Operand::Sgpr { index, .. } if (index as usize) + 2 <= crate::wave::NUM_SGPRS => Some(*op),
        Operand::Special {
            reg: SpecialReg::Vcc | SpecialReg::Exec,
            ..
        } => Some(*op),
        _ => None,
    }
}

/// A 64-bit scalar source (read with `s64`, or `read_mask` for saveexec).
fn ssrc64(op: &Operand) -> Option<Operand> {
    match *op {
        Operand::Vgpr { .. } | Operand::Agpr { .. } | Operand::None => None,
        _ => Some(*op),
    }
}

/// Writes 64 bits to a scalar destination as `set64` does (checked by
/// [`sdst64`], so it cannot fail).
#[inline(always)]
fn set64(w: &mut Wave, d: &Operand, v: u64) {
    let ok = w.write_sdword(d, 0, v as u32) && w.write_sdword(d, 1, (v >> 32) as u32);
    debug_assert!(ok, "64-bit scalar destination {d}");
}

fn resolve_scalar(i: &Inst, pc: u64, program: &Program) -> Option<Entry> {
    use Kind::*;
    let Op::Alu(op) = i.op else {
        return None;
    };
    let m = &i.alu;
    let k = *super::tables().alu.get(op.0 as usize)?;
    let sgpr_dst = || match i.dst[0] {
        Operand::Sgpr { index, .. } if (index as usize) < crate::wave::NUM_SGPRS => Some(index),
        _ => None,
    };
    let fast = match (m.form, k) {
        (AluForm::Sopp, SNop | SWait) => Fast::Nop,
        (AluForm::Sopp, SEndpgm) => Fast::Endpgm,
        (AluForm::Sopp, SBarrier) => Fast::Barrier,
        (AluForm::Sopk, SMovkI32) => {
            let Operand::Imm(v) = i.src[0] else {
                return None;
            };
            Fast::SMov {
                d: sgpr_dst()?,
                a: Src::K(v as i16 as i32 as u32),
            }
        }
        (
            AluForm::Sopp,
            SBranch | SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz
            | SCbranchExecnz,
        ) => {
            let Operand::Imm(v) = i.src[0] else {
                return None;
            };
            let target = pc.wrapping_add(4).wrapping_add_signed(v as i16 as i64 * 4);
            // A branch to no instruction is reported by the general executor.
            program.at(target)?;
            let cond = match k {
                SBranch => Cond::Always,
                SCbranchScc0 => Cond::Scc0,
                SCbranchScc1 => Cond::Scc1,
                SCbranchVccz => Cond::Vccz,
                SCbranchVccnz => Cond::Vccnz,
                SCbranchExecz => Cond::Execz,
                _ => Cond::Execnz,
            };
            Fast::Branch { cond, target }
        }
        (AluForm::Sop1, SMovB64) => Fast::S64 {
            op: L64::Mov,
            d: sdst64(&i.dst[0])?,
            a: ssrc64(&i.src[0])?,
            b: Operand::None,
        },
        (
            AluForm::Sop2,
            SAndB64 | SOrB64 | SXorB64 | SAndn2B64 | SOrn2B64 | SLshlB64 | SLshrB64 | SAshrI64
            | SCselectB64,
        ) => Fast::S64 {
            op: match k {
                SAndB64 => L64::And,
                SOrB64 => L64::Or,
                SXorB64 => L64::Xor,
                SAndn2B64 => L64::Andn2,
                SLshlB64 => L64::Lshl,
                SLshrB64 => L64::Lshr,
                SAshrI64 => L64::Ashr,
                SCselectB64 => L64::Cselect,
                _ => L64::Orn2,
            },
            d: sdst64(&i.dst[0])?,
            a: ssrc64(&i.src[0])?,
            b: ssrc64(&i.src[1])?,
        },
        (
            AluForm::Sop1,
            SAndSaveexec | SOrSaveexec | SXorSaveexec | SAndn2Saveexec | SOrn2Saveexec,
        ) => Fast::Saveexec {
            op: match k {
                SAndSaveexec => SaveExec::And,
                SOrSaveexec => SaveExec::Or,
                SXorSaveexec => SaveExec::Xor,
                SAndn2Saveexec => SaveExec::Andn2,
                _ => SaveExec::Orn2,
            },
            d: sdst64(&i.dst[0])?,
            s: ssrc64(&i.src[0])?,
        },
        (AluForm::Sop1, SMovB32) => Fast::SMov {
            d: sgpr_dst()?,
            a: ssrc(&i.src[0])?,
        },
        (
            AluForm::Sop2,
            SAddU32 | SSubU32 | SAddcU32 | SSubbU32 | SCselectB32 | SAddI32 | SSubI32 | SAndB32
            | SOrB32 | SXorB32 | SLshlB32 | SLshrB32 | SAshrI32 | SMulI32,
        ) => Fast::S2 {
            op: match k {
                SAddU32 => S2::AddU,
                SSubU32 => S2::SubU,
                SAddcU32 => S2::AddC,
                SSubbU32 => S2::SubB,
                SCselectB32 => S2::Cselect,
                SAddI32 => S2::AddI,
                SSubI32 => S2::SubI,
                SAndB32 => S2::And,
                SOrB32 => S2::Or,
                SXorB32 => S2::Xor,
                SLshlB32 => S2::Lshl,
                SLshrB32 => S2::Lshr,
                SAshrI32 => S2::Ashr,
                _ => S2::MulI,
            },
            d: sgpr_dst()?,
            a: ssrc(&i.src[0])?,
            b: ssrc(&i.src[1])?,
        },
        (
            AluForm::Sopc,
            SCmpEqU32 | SCmpLgU32 | SCmpGtI32 | SCmpGeI32 | SCmpLtI32 | SCmpLeI32 | SCmpGtU32
            | SCmpGeU32 | SCmpLtU32 | SCmpLeU32,
        ) => Fast::SCmp {
            op: match k {
                SCmpEqU32 => SCmp::Eq,
                SCmpLgU32 => SCmp::Lg,
                SCmpGtI32 => SCmp::GtI,
                SCmpGeI32 => SCmp::GeI,
                SCmpLtI32 => SCmp::LtI,
                SCmpLeI32 => SCmp::LeI,
                SCmpGtU32 => SCmp::GtU,
                SCmpGeU32 => SCmp::GeU,
                SCmpLtU32 => SCmp::LtU,
                _ => SCmp::LeU,
            },
            a: ssrc(&i.src[0])?,
            b: ssrc(&i.src[1])?,
        },
        _ => return None,
    };
    Some(Entry {
        fast,
        vmax: 0,
        size: i.size,
        vector: false,
        mem: false,
    })
}

/// A lane-mask destination the general executor writes without fail:
/// none, `null`, VCC, or SGPRs within the file.
fn mask_dst(op: &Operand) -> Option<Operand> {
    match *op {
        Operand::None
        | Operand::Special {
            reg: SpecialReg::Null | SpecialReg::Vcc,
            ..
        } => Some(*op),
        Operand::Sgpr { index, count }
            if index as usize + (count.max(1) as usize) <= crate::wave::NUM_SGPRS =>
        {
            Some(*op)
        }
        _ => None,
    }
}

/// Writes a lane mask as `write_mask_dst` of the general executor does
/// (the operand checked by [`mask_dst`]).
#[inline(always)]
fn write_mask(w: &mut Wave, op: &Operand, m: u64) {
    match op {
        Operand::None
        | Operand::Special {
            reg: SpecialReg::Null,
            ..
        } => {}
        _ => {
            let written = w.write_mask(op, m);
            debug_assert!(written, "mask destination {op}");
        }
    }
}

/// A lane-mask source (read with `Wave::read_mask`).
fn mask_src(op: &Operand) -> Option<Operand> {
    match *op {
        Operand::Sgpr { .. } | Operand::Special { .. } | Operand::Ttmp { .. } => Some(*op),
        _ => None,
    }
}

/// Compares, `v_cndmask_b32` and the carry operations: the instructions
/// that read or write lane masks.
fn resolve_masked(i: &Inst, k: Kind) -> Option<Entry> {
    use Kind::*;
    let m = &i.alu;
    let s = |n: usize| src(&i.src[n]);
    let (fast, used) = match k {
        VCmp(c) if matches!(c.ty, CmpTy::I32 | CmpTy::U32 | CmpTy::F32) => {
            if i.dst[1].is_some() || (c.ty != CmpTy::F32 && m.neg != 0) {
                return None;
            }
            let fast = Fast::Cmp {
                c,
                a: s(0)?,
                b: s(1)?,
                neg: m.neg & 3,
                d: mask_dst(&i.dst[0])?,
            };
            (fast, 2)
        }
        VCmp(c) if matches!(c.ty, CmpTy::I64 | CmpTy::U64) => {
            if i.dst[1].is_some() || m.neg != 0 {
                return None;
            }
            let fast = Fast::Cmp64 {
                c,
                a: src64(&i.src[0])?,
                b: src64(&i.src[1])?,
                d: mask_dst(&i.dst[0])?,
            };
            if i.src[2..].iter().any(|o| o.is_some()) {
                return None;
            }
            return Some(Entry {
                fast,
                vmax: vmax64(i),
                size: i.size,
                vector: true,
                mem: false,
            });
        }
        VLshlrevB64 | VLshrrevB64 | VAshrrevI64 if m.neg == 0 && !i.dst[1].is_some() => {
            let d = vdst(&i.dst[0])?;
            if d == u8::MAX {
                return None;
            }
            let fast = Fast::Shift64 {
                op: match k {
                    VLshlrevB64 => Sh64::Lshl,
                    VLshrrevB64 => Sh64::Lshr,
                    _ => Sh64::Ashr,
                },
                d,
                a: s(0)?,
                b: src64(&i.src[1])?,
            };
            if i.src[2..].iter().any(|o| o.is_some()) {
                return None;
            }
            return Some(Entry {
                fast,
                vmax: vmax64(i).max(d + 1),
                size: i.size,
                vector: true,
                mem: false,
            });
        }
        VMadU64U32 if m.neg == 0 => {
            let d = vdst(&i.dst[0])?;
            if d == u8::MAX {
                return None;
            }
            let fast = Fast::MadU64 {
                d,
                a: s(0)?,
                b: s(1)?,
                c: src64(&i.src[2])?,
                cout: mask_dst(&i.dst[1])?,
            };
            if i.src[3].is_some() {
                return None;
            }
            let c_hi = match i.src[2] {
                Operand::Vgpr { index, .. } => index.checked_add(1)?,
                _ => 0,
            };
            return Some(Entry {
                fast,
                vmax: vmax(i, 2).max(d + 1).max(c_hi),
                size: i.size,
                vector: true,
                mem: false,
            });
        }
        VCndmaskB32 if !i.dst[1].is_some() => {
            let fast = Fast::Cndmask {
                d: vdst(&i.dst[0])?,
                a: s(0)?,
                b: s(1)?,
                mask: mask_src(&i.src[2])?,
                neg: m.neg & 3,
            };
            (fast, 3)
        }
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 | VAddcCoU32 | VSubbCoU32 | VSubbrevCoU32
            if m.neg == 0 =>
        {
            let op = match k {
                VAddCoU32 => Carry::Add,
                VSubCoU32 => Carry::Sub,
                VSubrevCoU32 => Carry::Subrev,
                VAddcCoU32 => Carry::Addc,
                VSubbCoU32 => Carry::Subb,
                _ => Carry::Subbrev,
            };
            let with_cin = matches!(op, Carry::Addc | Carry::Subb | Carry::Subbrev);
            let cin = if with_cin {
                mask_src(&i.src[2])?
            } else {
                Operand::None
            };
            let fast = Fast::Carry {
                op,
                d: vdst(&i.dst[0])?,
                a: s(0)?,
                b: s(1)?,
                cin,
                cout: mask_dst(&i.dst[1])?,
            };
            (fast, if with_cin { 3 } else { 2 })
        }
        _ => return None,
    };
    if i.src[used..].iter().any(|o| o.is_some()) {
        return None;
    }
    Some(Entry {
        fast,
        vmax: vmax(i, used.min(2)),
        size: i.size,
        vector: true,
        mem: false,
    })
}

/// A 64-bit integer source as `v64` reads it (`Ty::I`).
fn src64(op: &Operand) -> Option<Src64> {
    Some(match *op {
        Operand::Vgpr { index, .. } if index < u8::MAX => Src64::V(index),
        Operand::InlineFloat(c) => Src64::K(inline_float_bits(c, 64).unwrap_or(0)),
        Operand::InlineInt(v) => Src64::K(v as i64 as u64),
        Operand::Literal(v) => Src64::K(v as u64),
        Operand::Sgpr { .. } | Operand::Special { .. } | Operand::Ttmp { .. } => Src64::Other(*op),
        _ => return None,
    })
}

/// The highest VGPR a 64-bit compare or shift names: the second dword of
/// each VGPR pair source, and the first two sources' and the destination's
/// registers.
fn vmax64(i: &Inst) -> u8 {
    i.src[..2]
        .iter()
        .chain(std::iter::once(&i.dst[0]))
        .filter_map(|o| match *o {
            Operand::Vgpr { index, count } if count >= 2 => index.checked_add(1),
            Operand::Vgpr { index, .. } => Some(index),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// The highest VGPR among the destination and the first `used` sources.
fn vmax(i: &Inst, used: usize) -> u8 {
    i.src[..used]
        .iter()
        .chain(std::iter::once(&i.dst[0]))
        .filter_map(|o| match *o {
            Operand::Vgpr { index, .. } => Some(index),
            _ => None,
        })
        .max()
        .unwrap_or(0)
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

/// A scalar handler: `Some(Some(target))` for a branch taken,
/// `Some(None)` to go on, `None` when the general executor must run it
/// (the wave unchanged).
#[inline(always)]
fn run_scalar(f: &Fast, w: &mut Wave) -> Option<Option<u64>> {
    let read = |w: &Wave, s: &Src| -> Option<u32> {
        match *s {
            Src::S(r) => w.sgpr.get(r as usize).copied(),
            Src::K(k) => Some(k),
            Src::Other(op) => s32(w, &op).ok(),
            Src::V(_) => None,
        }
    };
    match *f {
        Fast::Nop => {}
        Fast::SMov { d, a } => {
            let v = read(w, &a)?;
            *w.sgpr.get_mut(d as usize)? = v;
        }
        Fast::S2 { op, d, a, b } => {
            let (a, b) = (read(w, &a)?, read(w, &b)?);
            let (r, scc) = match op {
                S2::AddU => {
                    let (r, c) = a.overflowing_add(b);
                    (r, Some(c))
                }
                S2::SubU => {
                    let (r, c) = a.overflowing_sub(b);
                    (r, Some(c))
                }
                S2::AddC => {
                    let r = u64::from(a) + u64::from(b) + u64::from(w.scc);
                    (r as u32, Some(r >> 32 != 0))
                }
                S2::SubB => {
                    let bb = u64::from(b) + u64::from(w.scc);
                    (
                        u64::from(a).wrapping_sub(bb) as u32,
                        Some(bb > u64::from(a)),
                    )
                }
                S2::Cselect => {
                    *w.sgpr.get_mut(d as usize)? = if w.scc { a } else { b };
                    return Some(None);
                }
                S2::AddI => {
                    let (r, o) = (a as i32).overflowing_add(b as i32);
                    (r as u32, Some(o))
                }
                S2::SubI => {
                    let (r, o) = (a as i32).overflowing_sub(b as i32);
                    (r as u32, Some(o))
                }
                S2::And => (a & b, None),
                S2::Or => (a | b, None),
                S2::Xor => (a ^ b, None),
                S2::Lshl => (a << (b & 31), None),
                S2::Lshr => (a >> (b & 31), None),
                S2::Ashr => (((a as i32) >> (b & 31)) as u32, None),
                S2::MulI => {
                    *w.sgpr.get_mut(d as usize)? = a.wrapping_mul(b);
                    return Some(None);
                }
            };
            *w.sgpr.get_mut(d as usize)? = r;
            // The logical and shift operations set SCC to "result != 0".
            w.scc = scc.unwrap_or(r != 0);
        }
        Fast::SCmp { op, a, b } => {
            let (a, b) = (read(w, &a)?, read(w, &b)?);
            let (ia, ib) = (a as i32, b as i32);
            w.scc = match op {
                SCmp::Eq => a == b,
                SCmp::Lg => a != b,
                SCmp::GtI => ia > ib,
                SCmp::GeI => ia >= ib,
                SCmp::LtI => ia < ib,
                SCmp::LeI => ia <= ib,
                SCmp::GtU => a > b,
                SCmp::GeU => a >= b,
                SCmp::LtU => a < b,
                SCmp::LeU => a <= b,
            };
        }
        Fast::S64 { op, d, a, b } => {
            let a = super::operand::s64(w, &a).ok()?;
            if op == L64::Mov {
                set64(w, &d, a);
                return Some(None);
            }
            let b = super::operand::s64(w, &b).ok()?;
            let r = match op {
                L64::And => a & b,
                L64::Or => a | b,
                L64::Xor => a ^ b,
                L64::Andn2 => a & !b,
                L64::Lshl => a << (b & 63),
                L64::Lshr => a >> (b & 63),
                L64::Ashr => ((a as i64) >> (b & 63)) as u64,
                L64::Cselect => {
                    set64(w, &d, if w.scc { a } else { b });
                    return Some(None);
                }
                _ => a | !b,
            };
            set64(w, &d, r);
            w.scc = r != 0;
        }
        Fast::Saveexec { op, d, s } => {
            let src = match w.read_mask(&s) {
                Some(m) => m,
                None => super::operand::s64(w, &s).ok()?,
            };
            let old = w.exec.0;
            let new = match op {
                SaveExec::And => src & old,
                SaveExec::Or => src | old,
                SaveExec::Xor => src ^ old,
                SaveExec::Andn2 => src & !old,
                SaveExec::Orn2 => src | !old,
            } & w.full_mask();
            if w.size == 64 {
                set64(w, &d, old);
            } else {
                let ok = w.write_sdword(&d, 0, old as u32);
                debug_assert!(ok, "scalar destination {d}");
            }
            w.exec = crate::wave::Mask(new);
            w.scc = new != 0;
        }
        Fast::Endpgm => w.status = crate::wave::WaveStatus::Done,
        Fast::Barrier => w.status = crate::wave::WaveStatus::Barrier,
        Fast::Branch { cond, target } => {
            let full = w.full_mask();
            let take = match cond {
                Cond::Always => true,
                Cond::Scc0 => !w.scc,
                Cond::Scc1 => w.scc,
                Cond::Vccz => w.vcc.0 & full == 0,
                Cond::Vccnz => w.vcc.0 & full != 0,
                Cond::Execz => w.exec.0 & full == 0,
                Cond::Execnz => w.exec.0 & full != 0,
            };
            return Some(take.then_some(target));
        }
        _ => return None,
    }
    Some(None)
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

/// The mask of a wave's `N` lanes.
#[inline(always)]
fn full<const N: usize>() -> u64 {
    if N == 64 { u64::MAX } else { (1u64 << N) - 1 }
}

/// Masks of the lanes where `a < b`, `a == b`, `a > b`.
#[inline(always)]
fn masks<const N: usize, T: PartialOrd + Copy>(a: &[T; N], b: &[T; N]) -> (u64, u64, u64) {
    let (mut lt, mut eq, mut gt) = (0u64, 0u64, 0u64);
    for l in 0..N {
        lt |= ((a[l] < b[l]) as u64) << l;
        eq |= ((a[l] == b[l]) as u64) << l;
        gt |= ((a[l] > b[l]) as u64) << l;
    }
    (lt, eq, gt)
}

/// Source lanes: a VGPR's first `N` lanes, or a scalar broadcast.
#[inline(always)]
fn fetch<const N: usize>(w: &Wave, s: &Src) -> Option<[u32; N]> {
    let mut out = [0u32; N];
    fetch_into(w, s, &mut out).then_some(out)
}

/// [`fetch`] into `out` (no array moved through a return value); `false`
/// when the source cannot be read here.
#[inline(always)]
fn fetch_into<const N: usize>(w: &Wave, s: &Src, out: &mut [u32; N]) -> bool {
    match *s {
        Src::V(r) => match w.vgpr.get(r as usize) {
            Some(row) => {
                out.copy_from_slice(&row[..N]);
                true
            }
            None => false,
        },
        Src::S(r) => match w.sgpr.get(r as usize) {
            Some(&v) => {
                out.fill(v);
                true
            }
            None => false,
        },
        Src::K(k) => {
            out.fill(k);
            true
        }
        Src::Other(op) => match s32(w, &op) {
            Ok(v) => {
                out.fill(v);
                true
            }
            Err(_) => false,
        },
    }
}

/// 64-bit source lanes into `out`; `false` when the source cannot be read
/// here.
#[inline(always)]
fn fetch64_into<const N: usize>(w: &Wave, s: &Src64, out: &mut [u64; N]) -> bool {
    match *s {
        Src64::V(r) => match (w.vgpr.get(r as usize), w.vgpr.get(r as usize + 1)) {
            (Some(lo), Some(hi)) => {
                for l in 0..N {
                    out[l] = lo[l] as u64 | (hi[l] as u64) << 32;
                }
                true
            }
            _ => false,
        },
        Src64::K(k) => {
            out.fill(k);
            true
        }
        Src64::Other(op) => match super::operand::s64(w, &op) {
            Ok(v) => {
                out.fill(v);
                true
            }
            Err(_) => false,
        },
    }
}

/// [`fetch_into`] with `neg` (bit `k`) applied as a sign flip.
#[inline(always)]
fn fetch_f_into<const N: usize>(w: &Wave, s: &Src, neg: u8, k: u8, out: &mut [u32; N]) -> bool {
    if !fetch_into(w, s, out) {
        return false;
    }
    if (neg >> k) & 1 != 0 {
        for x in out.iter_mut() {
            *x ^= 0x8000_0000;
        }
    }
    true
}

/// Writes `f(l)` to lane `l` of VGPR `d` for the lanes in EXEC.
#[inline(always)]
fn write<const N: usize>(w: &mut Wave, d: u8, f: impl Fn(usize) -> u32) -> bool {
    let exec = w.exec.0;
    let Some(dst) = w.vgpr.get_mut(d as usize) else {
        return false;
    };
    let dst = &mut dst[..N];
    let full = if N == 64 { u64::MAX } else { (1u64 << N) - 1 };
    if exec & full == full {
        for (l, x) in dst.iter_mut().enumerate() {
            *x = f(l);
        }
    } else {
        for (l, x) in dst.iter_mut().enumerate() {
            // A branch-free select, so the loop vectorises.
            let m = 0u32.wrapping_sub(((exec >> l) & 1) as u32);
            *x = (f(l) & m) | (*x & !m);
        }
    }
    true
}

#[inline(always)]
fn u2<const N: usize>(w: &mut Wave, d: u8, a: &Src, b: &Src, f: impl Fn(u32, u32) -> u32) -> bool {
    let (mut x, mut y) = ([0u32; N], [0u32; N]);
    if !(fetch_into(w, a, &mut x) && fetch_into(w, b, &mut y)) {
        return false;
    }
    write::<N>(w, d, |l| f(x[l], y[l]))
}

#[inline(always)]
fn u3<const N: usize>(
    w: &mut Wave,
    d: u8,
    (a, b, c): (&Src, &Src, &Src),
    f: impl Fn(u32, u32, u32) -> u32,
) -> bool {
    let (mut x, mut y, mut z) = ([0u32; N], [0u32; N], [0u32; N]);
    if !(fetch_into(w, a, &mut x) && fetch_into(w, b, &mut y) && fetch_into(w, c, &mut z)) {
        return false;
    }
    write::<N>(w, d, |l| f(x[l], y[l], z[l]))
}

/// f32 source lanes with `neg` (bit `k`) applied as a sign flip.
#[inline(always)]
fn fetch_f<const N: usize>(w: &Wave, s: &Src, neg: u8, k: u8) -> Option<[u32; N]> {
    let mut out = [0u32; N];
    fetch_f_into(w, s, neg, k, &mut out).then_some(out)
}

#[inline(always)]
fn f2<const N: usize>(
    w: &mut Wave,
    d: u8,
    (a, b, neg): (&Src, &Src, u8),
    f: impl Fn(f32, f32) -> f32,
) -> bool {
    let (mut x, mut y) = ([0u32; N], [0u32; N]);
    if !(fetch_f_into(w, a, neg, 0, &mut x) && fetch_f_into(w, b, neg, 1, &mut y)) {
        return false;
    }
    write::<N>(w, d, |l| {
        f(f32::from_bits(x[l]), f32::from_bits(y[l])).to_bits()
    })
}

#[inline(always)]
fn run_n<const N: usize>(f: &Fast, w: &mut Wave) -> bool {
    match *f {
        Fast::U1 { op, d, a } => {
            let Some(a) = fetch::<N>(w, &a) else {
                return false;
            };
            match op {
                U1::Mov => write::<N>(w, d, |l| a[l]),
                U1::Not => write::<N>(w, d, |l| !a[l]),
            }
        }
        Fast::U2 { op, d, a, b } => {
            let (a, b) = (&a, &b);
            match op {
                U2::Add => u2::<N>(w, d, a, b, u32::wrapping_add),
                U2::Sub => u2::<N>(w, d, a, b, u32::wrapping_sub),
                U2::Subrev => u2::<N>(w, d, a, b, |x, y| y.wrapping_sub(x)),
                U2::And => u2::<N>(w, d, a, b, |x, y| x & y),
                U2::Or => u2::<N>(w, d, a, b, |x, y| x | y),
                U2::Xor => u2::<N>(w, d, a, b, |x, y| x ^ y),
                U2::Xnor => u2::<N>(w, d, a, b, |x, y| !(x ^ y)),
                U2::Lshlrev => u2::<N>(w, d, a, b, |x, y| y << (x & 31)),
                U2::Lshrrev => u2::<N>(w, d, a, b, |x, y| y >> (x & 31)),
                U2::Ashrrev => u2::<N>(w, d, a, b, |x, y| ((y as i32) >> (x & 31)) as u32),
                U2::MinU => u2::<N>(w, d, a, b, |x, y| x.min(y)),
                U2::MaxU => u2::<N>(w, d, a, b, |x, y| x.max(y)),
                U2::MinI => u2::<N>(w, d, a, b, |x, y| (x as i32).min(y as i32) as u32),
                U2::MaxI => u2::<N>(w, d, a, b, |x, y| (x as i32).max(y as i32) as u32),
                U2::MulLo => u2::<N>(w, d, a, b, u32::wrapping_mul),
                U2::MulHiU => u2::<N>(w, d, a, b, |x, y| ((x as u64 * y as u64) >> 32) as u32),
                U2::MulHiI => u2::<N>(w, d, a, b, |x, y| {
                    ((x as i32 as i64 * y as i32 as i64) >> 32) as u32
                }),
                U2::MulU24 => u2::<N>(w, d, a, b, |x, y| {
                    (x & 0xff_ffff).wrapping_mul(y & 0xff_ffff)
                }),
            }
        }
        Fast::U3 { op, d, a, b, c } => {
            let s = (&a, &b, &c);
            match op {
                U3::Add3 => u3::<N>(w, d, s, |x, y, z| x.wrapping_add(y).wrapping_add(z)),
                U3::LshlAdd => u3::<N>(w, d, s, |x, y, z| (x << (y & 31)).wrapping_add(z)),
                U3::AddLshl => u3::<N>(w, d, s, |x, y, z| x.wrapping_add(y) << (z & 31)),
                U3::LshlOr => u3::<N>(w, d, s, |x, y, z| (x << (y & 31)) | z),
                U3::AndOr => u3::<N>(w, d, s, |x, y, z| (x & y) | z),
                U3::Or3 => u3::<N>(w, d, s, |x, y, z| x | y | z),
                U3::MadU24 => u3::<N>(w, d, s, |x, y, z| {
                    (x & 0xff_ffff).wrapping_mul(y & 0xff_ffff).wrapping_add(z)
                }),
                U3::Bfi => u3::<N>(w, d, s, |x, y, z| (x & y) | (!x & z)),
                U3::Alignbit => u3::<N>(w, d, s, |x, y, z| {
                    (((x as u64) << 32 | y as u64) >> (z & 31)) as u32
                }),
            }
        }
        Fast::F2 { op, d, a, b, neg } => {
            let s = (&a, &b, neg);
            match op {
                F2::Add => f2::<N>(w, d, s, |x, y| x + y),
                F2::Sub => f2::<N>(w, d, s, |x, y| x - y),
                F2::Subrev => f2::<N>(w, d, s, |x, y| y - x),
                F2::Mul => f2::<N>(w, d, s, |x, y| x * y),
            }
        }
        Fast::Fma { d, a, b, c, neg } => {
            let (Some(a), Some(b), Some(c)) = (
                fetch_f::<N>(w, &a, neg, 0),
                fetch_f::<N>(w, &b, neg, 1),
                fetch_f::<N>(w, &c, neg, 2),
            ) else {
                return false;
            };
            let r = fma_lanes::<N>(&a, &b, &c);
            write::<N>(w, d, |l| r[l])
        }
        Fast::Fmac { d, a, b, neg } => {
            let (Some(a), Some(b), Some(c)) = (
                fetch_f::<N>(w, &a, neg, 0),
                fetch_f::<N>(w, &b, neg, 1),
                fetch::<N>(w, &Src::V(d)),
            ) else {
                return false;
            };
            let r = fma_lanes::<N>(&a, &b, &c);
            write::<N>(w, d, |l| r[l])
        }
        Fast::Cmp { c, a, b, neg, d } => {
            let exec = w.exec.0 & full::<N>();
            let (Some(a), Some(b)) = (fetch::<N>(w, &a), fetch::<N>(w, &b)) else {
                return false;
            };
            let (lt, eq, gt) = match c.ty {
                CmpTy::U32 => masks::<N, u32>(&a, &b),
                CmpTy::I32 => masks::<N, i32>(&a.map(|x| x as i32), &b.map(|x| x as i32)),
                _ => {
                    let fl = |v: &[u32; N], k: u8| -> [f32; N] {
                        let flip = if (neg >> k) & 1 != 0 { 0x8000_0000 } else { 0 };
                        v.map(|x| f32::from_bits(x ^ flip))
                    };
                    masks::<N, f32>(&fl(&a, 0), &fl(&b, 1))
                }
            };
            let r = c.eval_masks(lt, eq, gt, !(lt | eq | gt)) & exec;
            if d.is_some() {
                write_mask(w, &d, r);
            } else if !c.x {
                w.vcc = crate::wave::Mask(r);
            }
            if c.x {
                w.exec = crate::wave::Mask(r);
            }
            true
        }
        Fast::Cndmask { d, a, b, mask, neg } => {
            let (Some(a), Some(b), Some(m)) = (
                fetch_f::<N>(w, &a, neg, 0),
                fetch_f::<N>(w, &b, neg, 1),
                w.read_mask(&mask),
            ) else {
                return false;
            };
            write::<N>(w, d, |l| if (m >> l) & 1 != 0 { b[l] } else { a[l] })
        }
        Fast::Carry {
            op,
            d,
            a,
            b,
            cin,
            cout,
        } => {
            let exec = w.exec.0 & full::<N>();
            let cin = if cin.is_some() {
                match w.read_mask(&cin) {
                    Some(m) => m,
                    None => return false,
                }
            } else {
                0
            };
            let (Some(a), Some(b)) = (fetch::<N>(w, &a), fetch::<N>(w, &b)) else {
                return false;
            };
            let (x, y) = match op {
                Carry::Subrev | Carry::Subbrev => (&b, &a),
                _ => (&a, &b),
            };
            let add = matches!(op, Carry::Add | Carry::Addc);
            let mut carry = 0u64;
            let mut r = [0u32; N];
            for l in 0..N {
                let c = (cin >> l) & 1;
                let (xv, yv) = (x[l] as u64, y[l] as u64);
                let (v, co) = if add {
                    let s = xv + yv + c;
                    (s as u32, s >> 32 != 0)
                } else {
                    (xv.wrapping_sub(yv + c) as u32, yv + c > xv)
                };
                r[l] = v;
                carry |= (co as u64) << l;
            }
            write::<N>(w, d, |l| r[l]);
            write_mask(w, &cout, carry & exec);
            true
        }
        Fast::Cmp64 { c, a, b, d } => {
            let exec = w.exec.0 & full::<N>();
            let (mut x, mut y) = ([0u64; N], [0u64; N]);
            if !(fetch64_into(w, &a, &mut x) && fetch64_into(w, &b, &mut y)) {
                return false;
            }
            let (lt, eq, gt) = if c.ty == CmpTy::I64 {
                masks::<N, i64>(&x.map(|v| v as i64), &y.map(|v| v as i64))
            } else {
                masks::<N, u64>(&x, &y)
            };
            let r = c.eval_masks(lt, eq, gt, !(lt | eq | gt)) & exec;
            if d.is_some() {
                write_mask(w, &d, r);
            } else if !c.x {
                w.vcc = crate::wave::Mask(r);
            }
            if c.x {
                w.exec = crate::wave::Mask(r);
            }
            true
        }
        Fast::Shift64 { op, d, a, b } => {
            let (mut x, mut y) = ([0u32; N], [0u64; N]);
            if !(fetch_into(w, &a, &mut x) && fetch64_into(w, &b, &mut y)) {
                return false;
            }
            let r: [u64; N] = match op {
                Sh64::Lshl => std::array::from_fn(|l| y[l] << (x[l] & 63)),
                Sh64::Lshr => std::array::from_fn(|l| y[l] >> (x[l] & 63)),
                Sh64::Ashr => std::array::from_fn(|l| ((y[l] as i64) >> (x[l] & 63)) as u64),
            };
            write::<N>(w, d, |l| r[l] as u32) && write::<N>(w, d + 1, |l| (r[l] >> 32) as u32)
        }
        Fast::MadU64 { d, a, b, c, cout } => {
            let exec = w.exec.0 & full::<N>();
            let (mut x, mut y, mut z) = ([0u32; N], [0u32; N], [0u64; N]);
            if !(fetch_into(w, &a, &mut x)
                && fetch_into(w, &b, &mut y)
                && fetch64_into(w, &c, &mut z))
            {
                return false;
            }
            let mut carry = 0u64;
            let mut r = [0u64; N];
            for l in 0..N {
                let p = x[l] as u128 * y[l] as u128 + z[l] as u128;
                carry |= ((p >> 64 != 0) as u64) << l;
                r[l] = p as u64;
            }
            let done =
                write::<N>(w, d, |l| r[l] as u32) && write::<N>(w, d + 1, |l| (r[l] >> 32) as u32);
            write_mask(w, &cout, carry & exec);
            done
        }
        Fast::S64 { .. } | Fast::Saveexec { .. } => false,
        Fast::Nop
        | Fast::SMov { .. }
        | Fast::S2 { .. }
        | Fast::SCmp { .. }
        | Fast::Branch { .. }
        | Fast::Endpgm
        | Fast::Barrier => false,
        Fast::SLoad { .. }
        | Fast::GLoad { .. }
        | Fast::GStore { .. }
        | Fast::DsRead { .. }
        | Fast::DsWrite { .. } => false,
    }
}

/// `a * b + c` exactly rounded, lane by lane, on f32 bit patterns: through
/// the host's FMA instruction when it has one, [`f32::mul_add`] otherwise
/// (and for every lane whose result is a NaN).
#[inline(always)]
pub(crate) fn fma_lanes<const N: usize>(a: &[u32; N], b: &[u32; N], c: &[u32; N]) -> [u32; N] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has the FMA instructions the function is compiled for.
            return unsafe { fma_lanes_x86::<N>(a, b, c) };
        }
    }
    fma_lanes_portable::<N>(a, b, c)
}

/// [`fma_lanes`] through [`f32::mul_add`] alone (the reference).
#[inline(always)]
pub(crate) fn fma_lanes_portable<const N: usize>(
    a: &[u32; N],
    b: &[u32; N],
    c: &[u32; N],
) -> [u32; N] {
    std::array::from_fn(|l| {
        f32::from_bits(a[l])
            .mul_add(f32::from_bits(b[l]), f32::from_bits(c[l]))
            .to_bits()
    })
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
fn fma_lanes_x86<const N: usize>(a: &[u32; N], b: &[u32; N], c: &[u32; N]) -> [u32; N] {
    let mut r = [0u32; N];
    let mut nan = false;
    for l in 0..N {
        let v = f32::from_bits(a[l]).mul_add(f32::from_bits(b[l]), f32::from_bits(c[l]));
        nan |= v.is_nan();
        r[l] = v.to_bits();
    }
    if nan {
        // NaN payloads as the portable f32::mul_add gives them.
        for l in 0..N {
            if f32::from_bits(r[l]).is_nan() {
                r[l] = fma_portable(a[l], b[l], c[l]);
            }
        }
    }
    r
}

/// One [`f32::mul_add`] compiled for the baseline target: never inlined into
/// a function compiled with FMA (where it would become the instruction).
#[inline(never)]
fn fma_portable(a: u32, b: u32, c: u32) -> u32 {
    f32::from_bits(a)
        .mul_add(f32::from_bits(b), f32::from_bits(c))
        .to_bits()
}

/// The common memory instructions: `s_load_dword*` and `s_buffer_load_dword*`
/// with an SGPR base, `global_load_dword` / `global_store_dword` and the
/// 32-bit `ds_read*` / `ds_write*` forms. Their handlers run when every
/// active lane's access is in range (one page of global memory, or inside
/// the LDS); anything else (a fault to report, an access across pages, no
/// active lane) goes to the general executor.
fn resolve_mem(i: &Inst) -> Option<Entry> {
    use super::MemKind::*;
    use amdgpu_isa::Encoding;
    use amdgpu_isa::mem::{Segment, flags};
    let Op::Mem(op) = i.op else {
        return None;
    };
    let k = *super::tables().mem.get(op.0 as usize)?;
    let vgpr = |o: &Operand| match *o {
        Operand::Vgpr { index, .. } => Some(index),
        _ => None,
    };
    let (fast, vmax, vector) = match (i.encoding, k) {
        (
            Encoding::Smem,
            SLoad1 | SLoad2 | SLoad4 | SLoad8 | SLoad16 | SBufLoad1 | SBufLoad2 | SBufLoad4
            | SBufLoad8 | SBufLoad16,
        ) => {
            let (n, buffer) = k.scalar_load()?;
            let d = match i.dst[0] {
                Operand::Sgpr { index, .. }
                    if index as usize + n as usize <= crate::wave::NUM_SGPRS =>
                {
                    index
                }
                _ => return None,
            };
            // A pair (or the V#'s quad): `s64` reads one SGPR alone as 32 bits.
            let b = match i.src[0] {
                Operand::Sgpr { index, count }
                    if count >= 2 && index as usize + 2 <= crate::wave::NUM_SGPRS =>
                {
                    index
                }
                _ => return None,
            };
            let off = if i.mem.has(flags::IMM) {
                i.mem.offset as i64 as u64
            } else {
                0
            };
            let soff = if i.mem.has(flags::SOE) && i.src[1].is_some() {
                Some(ssrc(&i.src[1])?)
            } else {
                None
            };
            let fast = Fast::SLoad {
                d,
                n,
                b,
                buffer,
                off,
                soff,
            };
            (fast, 0, false)
        }
        (Encoding::Flat, GLoad4 | GStore4)
            if i.mem.seg == Segment::Global && !i.mem.has(flags::LDS) =>
        {
            let off = i.mem.offset as i64;
            let (addr, amax) = if i.mem.has(flags::SADDR_OFF) {
                let v = vgpr(&i.src[0])?;
                (GAddr::V64 { v, off }, v.checked_add(1)?)
            } else {
                let s = match i.src[2] {
                    Operand::Sgpr { index, count }
                        if count >= 2 && index as usize + 2 <= crate::wave::NUM_SGPRS =>
                    {
                        index
                    }
                    _ => return None,
                };
                let v = if i.src[0].is_some() {
                    Some(vgpr(&i.src[0])?)
                } else {
                    None
                };
                (GAddr::S { s, v, off }, v.unwrap_or(0))
            };
            if k == GLoad4 {
                let d = vgpr(&i.dst[0])?;
                (Fast::GLoad { d, addr }, amax.max(d), true)
            } else {
                let data = vgpr(&i.src[1])?;
                (Fast::GStore { data, addr }, amax.max(data), true)
            }
        }
        (
            Encoding::Ds,
            DsRead4 | DsWrite4 | DsRead2B32 | DsRead2St64B32 | DsWrite2B32 | DsWrite2St64B32,
        ) if !i.mem.has(flags::GDS) && !i.mem.has(flags::LDS) => {
            let a = vgpr(&i.src[0])?;
            let (off0, off1, two) = match k {
                DsRead4 | DsWrite4 => (i.mem.offset as u32 & 0xffff, 0, false),
                DsRead2B32 | DsWrite2B32 => {
                    (i.mem.offset0 as u32 * 4, i.mem.offset1 as u32 * 4, true)
                }
                _ => (
                    i.mem.offset0 as u32 * 4 * 64,
                    i.mem.offset1 as u32 * 4 * 64,
                    true,
                ),
            };
            if matches!(k, DsRead4 | DsRead2B32 | DsRead2St64B32) {
                let d = vgpr(&i.dst[0])?;
                let top = if two { d.checked_add(1)? } else { d };
                let fast = Fast::DsRead {
                    d,
                    a,
                    off0,
                    off1,
                    two,
                };
                (fast, top.max(a), true)
            } else {
                let data0 = vgpr(&i.src[1])?;
                let data1 = if two { vgpr(&i.src[2])? } else { data0 };
                let fast = Fast::DsWrite {
                    a,
                    data0,
                    data1,
                    off0,
                    off1,
                    two,
                };
                (fast, a.max(data0).max(data1), true)
            }
        }
        _ => return None,
    };
    Some(Entry {
        fast,
        vmax,
        size: i.size,
        vector,
        mem: true,
    })
}

/// GFX9's MODE.GPR_IDX_EN: vector memory instructions then go to the
/// general executor (which reports them).
const MODE_GPR_IDX: u32 = 1 << 27;

/// [`step`] for a memory instruction.
#[inline(never)]
fn step_mem(e: &Entry, w: &mut Wave, lds: &mut Bytes, mem: &GlobalMemory) -> bool {
    if e.vector && (w.hwreg[HW_REG_MODE] & MODE_GPR_IDX != 0 || e.vmax as usize >= w.vgpr.len()) {
        return false;
    }
    let lanes = w.exec.count() as u64;
    if !run_mem(&e.fast, w, lds, mem) {
        return false;
    }
    if e.vector {
        w.lane_ops += lanes;
    }
    w.pc = w.pc.wrapping_add(e.size as u64);
    w.executed += 1;
    true
}

/// Each active lane's global address. (The registers named exist: the
/// caller has checked them against the allocation.)
#[inline(always)]
fn global_addrs(w: &Wave, a: &GAddr, out: &mut [u64; 64]) -> bool {
    match *a {
        GAddr::V64 { v, off } => {
            let (Some(lo), Some(hi)) = (w.vgpr.get(v as usize), w.vgpr.get(v as usize + 1)) else {
                return false;
            };
            for l in 0..64 {
                out[l] = (lo[l] as u64 | (hi[l] as u64) << 32).wrapping_add_signed(off);
            }
        }
        GAddr::S { s, v, off } => {
            let base = w.sgpr[s as usize] as u64 | (w.sgpr[s as usize + 1] as u64) << 32;
            let base = base.wrapping_add_signed(off);
            match v {
                Some(v) => {
                    let Some(r) = w.vgpr.get(v as usize) else {
                        return false;
                    };
                    for l in 0..64 {
                        out[l] = base.wrapping_add(r[l] as u64);
                    }
                }
                None => out.fill(base),
            }
        }
    }
    true
}

/// The lanes whose dword directly follows the previous lane's in the same
/// page, both lanes active: bit `l` set when lane `l` continues lane
/// `l - 1`'s run.
#[inline(always)]
fn links(a: &[u64; 64], exec: u64) -> u64 {
    let mut m = 0u64;
    for l in 1..64 {
        let next = a[l] == a[l - 1].wrapping_add(4) && a[l] & (PAGE - 1) != 0;
        m |= (next as u64) << l;
    }
    m & exec & (exec << 1)
}

/// The runs of the active lanes (`exec`): consecutive lanes reading
/// consecutive dwords in one page. Calls `f(lo, hi)` for each, in lane order,
/// and stops at the first `false`.
#[inline(always)]
fn runs(a: &[u64; 64], exec: u64, mut f: impl FnMut(usize, usize) -> bool) -> bool {
    let link = links(a, exec);
    let mut rem = exec;
    while rem != 0 {
        let lo = rem.trailing_zeros() as usize;
        // The run ends before the first higher lane that does not continue it.
        let above = if lo == 63 {
            0
        } else {
            !link & (u64::MAX << (lo + 1))
        };
        let hi = if above == 0 {
            63
        } else {
            above.trailing_zeros() as usize - 1
        };
        if !f(lo, hi) {
            return false;
        }
        rem &= if hi == 63 { 0 } else { u64::MAX << (hi + 1) };
    }
    true
}

/// The page of a run of lanes `lo..=hi` and the run's first byte in it,
/// when the run's dwords lie in one page (the caller checks the allocation).
#[inline(always)]
fn run_page(a: &[u64; 64], lo: usize, hi: usize) -> Option<(u64, usize)> {
    let page = a[lo] & !(PAGE - 1);
    let o = (a[lo] - page) as usize;
    (o + 4 * (hi - lo + 1) <= PAGE as usize).then_some((page, o))
}

/// A locked page's bytes.
type Locked<'a> = std::sync::MutexGuard<'a, Box<[u8]>>;

/// A global dword load: each active lane's dword, read run by run
/// ([`runs`]; one page lock per run, kept while the next run is in the same
/// page). `false` (nothing read) when some lane's dword is not wholly inside
/// an allocation: the general executor reports it.
fn load_dwords(mem: &GlobalMemory, a: &[u64; 64], exec: u64, vals: &mut [u32; 64]) -> bool {
    let mut cur: Option<(u64, usize, Locked<'_>)> = None;
    runs(a, exec, |lo, hi| {
        let Some((page, o)) = run_page(a, lo, hi) else {
            return false;
        };
        if cur.as_ref().is_none_or(|c| c.0 != page) {
            // Release the old page before locking the next.
            drop(cur.take());
            let Some((bytes, valid)) = mem.page_at(page) else {
                return false;
            };
            cur = Some((page, valid, crate::memory::lock_bytes(bytes)));
        }
        let Some((_, valid, bytes)) = cur.as_ref() else {
            return false;
        };
        let end = o + 4 * (hi - lo + 1);
        if end > *valid {
            return false;
        }
        for (v, c) in vals[lo..=hi].iter_mut().zip(bytes[o..end].chunks_exact(4)) {
            *v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        true
    })
}

/// A global dword store: every active lane's dword checked first (nothing
/// is written when one would fault: the general executor then reports it),
/// then written run by run in lane order.
fn store_dwords(mem: &GlobalMemory, a: &[u64; 64], exec: u64, src: &[u32; 64]) -> bool {
    type Data = std::sync::Mutex<Box<[u8]>>;
    // The pages of the first runs, so that the second pass finds them again
    // without a lookup.
    let mut seen: [(u64, Option<&Data>); 4] = [(0, None); 4];
    let mut n = 0;
    let mut last: Option<(u64, &Data, usize)> = None;
    let ok = runs(a, exec, |lo, hi| {
        let Some((page, o)) = run_page(a, lo, hi) else {
            return false;
        };
        if last.is_none_or(|c| c.0 != page) {
            let Some((bytes, valid)) = mem.page_at(page) else {
                return false;
            };
            last = Some((page, bytes, valid));
            if n < seen.len() {
                seen[n] = (page, Some(bytes));
                n += 1;
            }
        }
        last.is_some_and(|(_, _, valid)| o + 4 * (hi - lo + 1) <= valid)
    });
    if !ok {
        return false;
    }
    let mut cur: Option<(u64, Locked<'_>)> = None;
    runs(a, exec, |lo, hi| {
        let Some((page, o)) = run_page(a, lo, hi) else {
            return false;
        };
        if cur.as_ref().is_none_or(|c| c.0 != page) {
            // Release the old page before locking the next.
            drop(cur.take());
            let data = match seen[..n].iter().find(|s| s.0 == page) {
                Some(&(_, d)) => d,
                None => mem.page_at(page).map(|p| p.0),
            };
            let Some(data) = data else {
                return false;
            };
            cur = Some((page, crate::memory::lock_bytes(data)));
        }
        if let Some((_, bytes)) = cur.as_mut() {
            for (c, v) in bytes[o..o + 4 * (hi - lo + 1)]
                .chunks_exact_mut(4)
                .zip(&src[lo..=hi])
            {
                c.copy_from_slice(&v.to_le_bytes());
            }
        }
        true
    })
}

/// Executes a memory handler; `false`, with the wave, the LDS and memory
/// unchanged, when the general executor must run the instruction.
#[inline(always)]
fn run_mem(f: &Fast, w: &mut Wave, lds: &mut Bytes, mem: &GlobalMemory) -> bool {
    let exec = w.exec.0 & w.full_mask();
    match *f {
        Fast::SLoad {
            d,
            n,
            b,
            buffer,
            off,
            soff,
        } => {
            let (w0, w1) = (w.sgpr[b as usize] as u64, w.sgpr[b as usize + 1] as u64);
            let base = if buffer {
                w0 | (w1 & 0xffff) << 32
            } else {
                w0 | w1 << 32
            };
            let mut o = off;
            if let Some(sv) = soff {
                let v = match sv {
                    Src::S(r) => w.sgpr.get(r as usize).copied(),
                    Src::K(k) => Some(k),
                    Src::Other(op) => s32(w, &op).ok(),
                    Src::V(_) => None,
                };
                let Some(v) = v else {
                    return false;
                };
                o = o.wrapping_add(v as u64);
            }
            let addr = base.wrapping_add(o) & !3;
            let len = n as u64 * 4;
            // A buffer load reaching past the buffer's end (range checking,
            // `smem_store::buffer_dwords`) goes to the general executor.
            if buffer {
                let Some(&records) = w.sgpr.get(b as usize + 2) else {
                    return false;
                };
                let size = ((w1 >> 16) & 0x3fff).max(1) * records as u64;
                if (o & !3).checked_add(len).is_none_or(|end| end > size) {
                    return false;
                }
            }
            let page = addr & !(PAGE - 1);
            if addr - page + len > PAGE {
                return false;
            }
            let start = (addr - page) as usize;
            let mut vals = [0u32; 16];
            let ok = mem.with_page(page, |bytes, valid| {
                if start + len as usize > valid {
                    return false;
                }
                for (k, c) in bytes[start..start + len as usize]
                    .chunks_exact(4)
                    .enumerate()
                {
                    vals[k] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                }
                true
            });
            if ok != Some(true) {
                return false;
            }
            w.sgpr[d as usize..d as usize + n as usize].copy_from_slice(&vals[..n as usize]);
        }
        Fast::GLoad { d, addr } => {
            let mut a = [0u64; 64];
            let mut vals = [0u32; 64];
            if exec == 0
                || !global_addrs(w, &addr, &mut a)
                || !load_dwords(mem, &a, exec, &mut vals)
            {
                return false;
            }
            masked_write(&mut w.vgpr[d as usize], &vals, exec);
        }
        Fast::GStore { data, addr } => {
            let mut a = [0u64; 64];
            if exec == 0
                || !global_addrs(w, &addr, &mut a)
                || !store_dwords(mem, &a, exec, &w.vgpr[data as usize])
            {
                return false;
            }
        }
        Fast::DsRead {
            d,
            a,
            off0,
            off1,
            two,
        } => {
            if exec == 0 {
                return false;
            }
            let bytes = lds.as_slice();
            let addr = &w.vgpr[a as usize];
            let (mut v0, mut v1) = ([0u32; 64], [0u32; 64]);
            let mut m = exec;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let Some(x) = lds_dword(bytes, addr[l].wrapping_add(off0)) else {
                    return false;
                };
                v0[l] = x;
                if two {
                    let Some(y) = lds_dword(bytes, addr[l].wrapping_add(off1)) else {
                        return false;
                    };
                    v1[l] = y;
                }
            }
            masked_write(&mut w.vgpr[d as usize], &v0, exec);
            if two {
                masked_write(&mut w.vgpr[d as usize + 1], &v1, exec);
            }
        }
        Fast::DsWrite {
            a,
            data0,
            data1,
            off0,
            off1,
            two,
        } => {
            if exec == 0 {
                return false;
            }
            let len = lds.len() as u64;
            let addr = &w.vgpr[a as usize];
            // Every access in range first: a fault must leave the LDS as it was.
            let mut bad = false;
            for (l, &x) in addr.iter().enumerate() {
                let on = (exec >> l) & 1 != 0;
                bad |= on && x.wrapping_add(off0) as u64 + 4 > len;
                bad |= on && two && x.wrapping_add(off1) as u64 + 4 > len;
            }
            if bad {
                return false;
            }
            let bytes = lds.as_mut_slice();
            let (d0, d1) = (&w.vgpr[data0 as usize], &w.vgpr[data1 as usize]);
            let mut m = exec;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let o = addr[l].wrapping_add(off0) as usize;
                bytes[o..o + 4].copy_from_slice(&d0[l].to_le_bytes());
                if two {
                    let o = addr[l].wrapping_add(off1) as usize;
                    bytes[o..o + 4].copy_from_slice(&d1[l].to_le_bytes());
                }
            }
        }
        _ => return false,
    }
    true
}

/// The LDS dword at `a`, if it lies inside.
#[inline(always)]
fn lds_dword(bytes: &[u8], a: u32) -> Option<u32> {
    let a = a as usize;
    let b = bytes.get(a..a.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// `dst[l] = vals[l]` for the lanes in `exec`.
#[inline(always)]
fn masked_write(dst: &mut [u32; 64], vals: &[u32; 64], exec: u64) {
    for l in 0..64 {
        let m = 0u32.wrapping_sub(((exec >> l) & 1) as u32);
        dst[l] = (vals[l] & m) | (dst[l] & !m);
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

//! The resolved handlers: [`Fast`] and the operand forms it names, each
//! fixed when the program is prepared.

use super::*;

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
    /// `s_sleep`: nothing, but the wave's turn ends ([`Wave::slept`]).
    Sleep,
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

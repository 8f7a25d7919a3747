//! Vector compares: predicate, operand type and EXEC writing, by operation
//! identity.

use amdgpu_isa::alu::{AluOp, ops as alu};

/// Operand type of a vector compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum CmpTy {
    F16,
    F32,
    F64,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

/// A vector compare: the predicate, the operand type, and whether it writes EXEC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cmp {
    /// The predicate (`lt`, `eq`, `nge`, ...), as an index into [`Cmp::PREDICATES`].
    pub pred: u8,
    /// The operand type.
    pub ty: CmpTy,
    /// `v_cmpx_*`: the result is also written to EXEC.
    pub x: bool,
}

impl Cmp {
    /// Predicates of VOPC (Vega ISA §12.8 "VOPC"; `lg` and `ne` are the same
    /// predicate on integers, `t`/`tru` are always true).
    pub const PREDICATES: [&'static str; 18] = [
        "f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq",
        "nlt", "tru", "ne", "t",
    ];

    /// Parses `v_cmp_<pred>_<type>` / `v_cmpx_<pred>_<type>`.
    pub fn parse(name: &str) -> Option<Cmp> {
        let (x, rest) = if let Some(r) = name.strip_prefix("v_cmpx_") {
            (true, r)
        } else {
            (false, name.strip_prefix("v_cmp_")?)
        };
        let (pred, ty) = rest.split_once('_')?;
        let ty = match ty {
            "f16" => CmpTy::F16,
            "f32" => CmpTy::F32,
            "f64" => CmpTy::F64,
            "i16" => CmpTy::I16,
            "u16" => CmpTy::U16,
            "i32" => CmpTy::I32,
            "u32" => CmpTy::U32,
            "i64" => CmpTy::I64,
            "u64" => CmpTy::U64,
            _ => return None,
        };
        let pred = Self::PREDICATES.iter().position(|p| *p == pred)? as u8;
        Some(Cmp { pred, ty, x })
    }

    /// Evaluates the predicate for a whole wave at once from the masks of
    /// lanes whose operands compare less, equal, greater, or unordered.
    #[inline]
    pub fn eval_masks(self, lt: u64, eq: u64, gt: u64, un: u64) -> u64 {
        match self.pred {
            0 => 0,
            15 | 17 => u64::MAX,
            1 => lt,
            2 => eq,
            3 => lt | eq,
            4 => gt,
            5 | 16 => lt | gt,
            6 => gt | eq,
            7 => !un,
            8 => un,
            9 => lt | un,
            10 => eq | un,
            11 => !gt,
            12 => gt | un,
            13 => !eq,
            14 => !lt,
            _ => 0,
        }
    }

    /// Evaluates the predicate on an ordering (`None` when unordered, i.e. a NaN).
    #[inline]
    pub fn eval(self, ord: Option<std::cmp::Ordering>) -> bool {
        use std::cmp::Ordering::*;
        match (self.pred, ord) {
            (0, _) => false,
            (15 | 17, _) => true,
            (7, o) => o.is_some(),
            (8, o) => o.is_none(),
            (1, Some(Less)) | (2, Some(Equal)) | (4, Some(Greater)) => true,
            (3, Some(Less | Equal)) | (6, Some(Greater | Equal)) => true,
            (5 | 16, Some(Less | Greater)) => true,
            (1..=6 | 16, _) => false,
            // Negated predicates are true when unordered.
            (9, o) => o != Some(Greater) && o != Some(Equal),
            (10, o) => o != Some(Less) && o != Some(Greater),
            (11, o) => o != Some(Greater),
            (12, o) => o != Some(Less) && o != Some(Equal),
            (13, o) => o != Some(Equal),
            (14, o) => o != Some(Less),
            _ => false,
        }
    }
}

// Predicate indices into [`Cmp::PREDICATES`].
const F: u8 = 0;
const LT: u8 = 1;
const EQ: u8 = 2;
const LE: u8 = 3;
const GT: u8 = 4;
const LG: u8 = 5;
const GE: u8 = 6;
const O: u8 = 7;
const U: u8 = 8;
const NGE: u8 = 9;
const NLG: u8 = 10;
const NGT: u8 = 11;
const NLE: u8 = 12;
const NEQ: u8 = 13;
const NLT: u8 = 14;
const TRU: u8 = 15;
const NE: u8 = 16;
const T: u8 = 17;

impl Cmp {
    /// The compare `op` is (`v_cmp_<pred>_<type>`, `v_cmpx_<pred>_<type>`),
    /// by identity: [`Cmp::parse`] of its name, without the parsing.
    pub fn of(op: AluOp) -> Option<Cmp> {
        if let Some((pred, ty)) = compare(op) {
            return Some(Cmp { pred, ty, x: false });
        }
        compare_exec(op).map(|(pred, ty)| Cmp { pred, ty, x: true })
    }
}

/// The predicate and type of a `v_cmp_<pred>_<type>` (one arm per operation).
fn compare(op: AluOp) -> Option<(u8, CmpTy)> {
    use CmpTy::*;
    Some(match op {
        alu::V_CMP_EQ_F16 => (EQ, F16),
        alu::V_CMP_EQ_F32 => (EQ, F32),
        alu::V_CMP_EQ_F64 => (EQ, F64),
        alu::V_CMP_EQ_I16 => (EQ, I16),
        alu::V_CMP_EQ_I32 => (EQ, I32),
        alu::V_CMP_EQ_I64 => (EQ, I64),
        alu::V_CMP_EQ_U16 => (EQ, U16),
        alu::V_CMP_EQ_U32 => (EQ, U32),
        alu::V_CMP_EQ_U64 => (EQ, U64),
        alu::V_CMP_F_F16 => (F, F16),
        alu::V_CMP_F_F32 => (F, F32),
        alu::V_CMP_F_F64 => (F, F64),
        alu::V_CMP_F_I16 => (F, I16),
        alu::V_CMP_F_I32 => (F, I32),
        alu::V_CMP_F_I64 => (F, I64),
        alu::V_CMP_F_U16 => (F, U16),
        alu::V_CMP_F_U32 => (F, U32),
        alu::V_CMP_F_U64 => (F, U64),
        alu::V_CMP_GE_F16 => (GE, F16),
        alu::V_CMP_GE_F32 => (GE, F32),
        alu::V_CMP_GE_F64 => (GE, F64),
        alu::V_CMP_GE_I16 => (GE, I16),
        alu::V_CMP_GE_I32 => (GE, I32),
        alu::V_CMP_GE_I64 => (GE, I64),
        alu::V_CMP_GE_U16 => (GE, U16),
        alu::V_CMP_GE_U32 => (GE, U32),
        alu::V_CMP_GE_U64 => (GE, U64),
        alu::V_CMP_GT_F16 => (GT, F16),
        alu::V_CMP_GT_F32 => (GT, F32),
        alu::V_CMP_GT_F64 => (GT, F64),
        alu::V_CMP_GT_I16 => (GT, I16),
        alu::V_CMP_GT_I32 => (GT, I32),
        alu::V_CMP_GT_I64 => (GT, I64),
        alu::V_CMP_GT_U16 => (GT, U16),
        alu::V_CMP_GT_U32 => (GT, U32),
        alu::V_CMP_GT_U64 => (GT, U64),
        alu::V_CMP_LE_F16 => (LE, F16),
        alu::V_CMP_LE_F32 => (LE, F32),
        alu::V_CMP_LE_F64 => (LE, F64),
        alu::V_CMP_LE_I16 => (LE, I16),
        alu::V_CMP_LE_I32 => (LE, I32),
        alu::V_CMP_LE_I64 => (LE, I64),
        alu::V_CMP_LE_U16 => (LE, U16),
        alu::V_CMP_LE_U32 => (LE, U32),
        alu::V_CMP_LE_U64 => (LE, U64),
        alu::V_CMP_LG_F16 => (LG, F16),
        alu::V_CMP_LG_F32 => (LG, F32),
        alu::V_CMP_LG_F64 => (LG, F64),
        alu::V_CMP_LT_F16 => (LT, F16),
        alu::V_CMP_LT_F32 => (LT, F32),
        alu::V_CMP_LT_F64 => (LT, F64),
        alu::V_CMP_LT_I16 => (LT, I16),
        alu::V_CMP_LT_I32 => (LT, I32),
        alu::V_CMP_LT_I64 => (LT, I64),
        alu::V_CMP_LT_U16 => (LT, U16),
        alu::V_CMP_LT_U32 => (LT, U32),
        alu::V_CMP_LT_U64 => (LT, U64),
        alu::V_CMP_NE_I16 => (NE, I16),
        alu::V_CMP_NE_I32 => (NE, I32),
        alu::V_CMP_NE_I64 => (NE, I64),
        alu::V_CMP_NE_U16 => (NE, U16),
        alu::V_CMP_NE_U32 => (NE, U32),
        alu::V_CMP_NE_U64 => (NE, U64),
        alu::V_CMP_NEQ_F16 => (NEQ, F16),
        alu::V_CMP_NEQ_F32 => (NEQ, F32),
        alu::V_CMP_NEQ_F64 => (NEQ, F64),
        alu::V_CMP_NGE_F16 => (NGE, F16),
        alu::V_CMP_NGE_F32 => (NGE, F32),
        alu::V_CMP_NGE_F64 => (NGE, F64),
        alu::V_CMP_NGT_F16 => (NGT, F16),
        alu::V_CMP_NGT_F32 => (NGT, F32),
        alu::V_CMP_NGT_F64 => (NGT, F64),
        alu::V_CMP_NLE_F16 => (NLE, F16),
        alu::V_CMP_NLE_F32 => (NLE, F32),
        alu::V_CMP_NLE_F64 => (NLE, F64),
        alu::V_CMP_NLG_F16 => (NLG, F16),
        alu::V_CMP_NLG_F32 => (NLG, F32),
        alu::V_CMP_NLG_F64 => (NLG, F64),
        alu::V_CMP_NLT_F16 => (NLT, F16),
        alu::V_CMP_NLT_F32 => (NLT, F32),
        alu::V_CMP_NLT_F64 => (NLT, F64),
        alu::V_CMP_O_F16 => (O, F16),
        alu::V_CMP_O_F32 => (O, F32),
        alu::V_CMP_O_F64 => (O, F64),
        alu::V_CMP_T_I16 => (T, I16),
        alu::V_CMP_T_I32 => (T, I32),
        alu::V_CMP_T_I64 => (T, I64),
        alu::V_CMP_T_U16 => (T, U16),
        alu::V_CMP_T_U32 => (T, U32),
        alu::V_CMP_T_U64 => (T, U64),
        alu::V_CMP_TRU_F16 => (TRU, F16),
        alu::V_CMP_TRU_F32 => (TRU, F32),
        alu::V_CMP_TRU_F64 => (TRU, F64),
        alu::V_CMP_U_F16 => (U, F16),
        alu::V_CMP_U_F32 => (U, F32),
        alu::V_CMP_U_F64 => (U, F64),
        _ => return None,
    })
}

/// The predicate and type of a `v_cmpx_<pred>_<type>`, which also writes EXEC (one arm
/// per operation).
fn compare_exec(op: AluOp) -> Option<(u8, CmpTy)> {
    use CmpTy::*;
    Some(match op {
        alu::V_CMPX_EQ_F16 => (EQ, F16),
        alu::V_CMPX_EQ_F32 => (EQ, F32),
        alu::V_CMPX_EQ_F64 => (EQ, F64),
        alu::V_CMPX_EQ_I16 => (EQ, I16),
        alu::V_CMPX_EQ_I32 => (EQ, I32),
        alu::V_CMPX_EQ_I64 => (EQ, I64),
        alu::V_CMPX_EQ_U16 => (EQ, U16),
        alu::V_CMPX_EQ_U32 => (EQ, U32),
        alu::V_CMPX_EQ_U64 => (EQ, U64),
        alu::V_CMPX_F_F16 => (F, F16),
        alu::V_CMPX_F_F32 => (F, F32),
        alu::V_CMPX_F_F64 => (F, F64),
        alu::V_CMPX_F_I16 => (F, I16),
        alu::V_CMPX_F_I32 => (F, I32),
        alu::V_CMPX_F_I64 => (F, I64),
        alu::V_CMPX_F_U16 => (F, U16),
        alu::V_CMPX_F_U32 => (F, U32),
        alu::V_CMPX_F_U64 => (F, U64),
        alu::V_CMPX_GE_F16 => (GE, F16),
        alu::V_CMPX_GE_F32 => (GE, F32),
        alu::V_CMPX_GE_F64 => (GE, F64),
        alu::V_CMPX_GE_I16 => (GE, I16),
        alu::V_CMPX_GE_I32 => (GE, I32),
        alu::V_CMPX_GE_I64 => (GE, I64),
        alu::V_CMPX_GE_U16 => (GE, U16),
        alu::V_CMPX_GE_U32 => (GE, U32),
        alu::V_CMPX_GE_U64 => (GE, U64),
        alu::V_CMPX_GT_F16 => (GT, F16),
        alu::V_CMPX_GT_F32 => (GT, F32),
        alu::V_CMPX_GT_F64 => (GT, F64),
        alu::V_CMPX_GT_I16 => (GT, I16),
        alu::V_CMPX_GT_I32 => (GT, I32),
        alu::V_CMPX_GT_I64 => (GT, I64),
        alu::V_CMPX_GT_U16 => (GT, U16),
        alu::V_CMPX_GT_U32 => (GT, U32),
        alu::V_CMPX_GT_U64 => (GT, U64),
        alu::V_CMPX_LE_F16 => (LE, F16),
        alu::V_CMPX_LE_F32 => (LE, F32),
        alu::V_CMPX_LE_F64 => (LE, F64),
        alu::V_CMPX_LE_I16 => (LE, I16),
        alu::V_CMPX_LE_I32 => (LE, I32),
        alu::V_CMPX_LE_I64 => (LE, I64),
        alu::V_CMPX_LE_U16 => (LE, U16),
        alu::V_CMPX_LE_U32 => (LE, U32),
        alu::V_CMPX_LE_U64 => (LE, U64),
        alu::V_CMPX_LG_F16 => (LG, F16),
        alu::V_CMPX_LG_F32 => (LG, F32),
        alu::V_CMPX_LG_F64 => (LG, F64),
        alu::V_CMPX_LT_F16 => (LT, F16),
        alu::V_CMPX_LT_F32 => (LT, F32),
        alu::V_CMPX_LT_F64 => (LT, F64),
        alu::V_CMPX_LT_I16 => (LT, I16),
        alu::V_CMPX_LT_I32 => (LT, I32),
        alu::V_CMPX_LT_I64 => (LT, I64),
        alu::V_CMPX_LT_U16 => (LT, U16),
        alu::V_CMPX_LT_U32 => (LT, U32),
        alu::V_CMPX_LT_U64 => (LT, U64),
        alu::V_CMPX_NE_I16 => (NE, I16),
        alu::V_CMPX_NE_I32 => (NE, I32),
        alu::V_CMPX_NE_I64 => (NE, I64),
        alu::V_CMPX_NE_U16 => (NE, U16),
        alu::V_CMPX_NE_U32 => (NE, U32),
        alu::V_CMPX_NE_U64 => (NE, U64),
        alu::V_CMPX_NEQ_F16 => (NEQ, F16),
        alu::V_CMPX_NEQ_F32 => (NEQ, F32),
        alu::V_CMPX_NEQ_F64 => (NEQ, F64),
        alu::V_CMPX_NGE_F16 => (NGE, F16),
        alu::V_CMPX_NGE_F32 => (NGE, F32),
        alu::V_CMPX_NGE_F64 => (NGE, F64),
        alu::V_CMPX_NGT_F16 => (NGT, F16),
        alu::V_CMPX_NGT_F32 => (NGT, F32),
        alu::V_CMPX_NGT_F64 => (NGT, F64),
        alu::V_CMPX_NLE_F16 => (NLE, F16),
        alu::V_CMPX_NLE_F32 => (NLE, F32),
        alu::V_CMPX_NLE_F64 => (NLE, F64),
        alu::V_CMPX_NLG_F16 => (NLG, F16),
        alu::V_CMPX_NLG_F32 => (NLG, F32),
        alu::V_CMPX_NLG_F64 => (NLG, F64),
        alu::V_CMPX_NLT_F16 => (NLT, F16),
        alu::V_CMPX_NLT_F32 => (NLT, F32),
        alu::V_CMPX_NLT_F64 => (NLT, F64),
        alu::V_CMPX_O_F16 => (O, F16),
        alu::V_CMPX_O_F32 => (O, F32),
        alu::V_CMPX_O_F64 => (O, F64),
        alu::V_CMPX_T_I16 => (T, I16),
        alu::V_CMPX_T_I32 => (T, I32),
        alu::V_CMPX_T_I64 => (T, I64),
        alu::V_CMPX_T_U16 => (T, U16),
        alu::V_CMPX_T_U32 => (T, U32),
        alu::V_CMPX_T_U64 => (T, U64),
        alu::V_CMPX_TRU_F16 => (TRU, F16),
        alu::V_CMPX_TRU_F32 => (TRU, F32),
        alu::V_CMPX_TRU_F64 => (TRU, F64),
        alu::V_CMPX_U_F16 => (U, F16),
        alu::V_CMPX_U_F32 => (U, F32),
        alu::V_CMPX_U_F64 => (U, F64),
        _ => return None,
    })
}

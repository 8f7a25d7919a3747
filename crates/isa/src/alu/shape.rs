//! The row types of the generated opcode tables (`tables.rs`).
//!
//! Each (GPU, encoding, opcode number) maps to an [`Entry`]: the operation, the
//! mnemonic as printed, the operand [`Slot`]s in print order, and the bits that
//! must keep fixed values for the word to be a valid instruction.

/// Where a printed operand comes from. (The generator's vocabulary; the
/// decoder reads some of these only through the precomputed [`kind`].)
#[allow(dead_code)]
pub(crate) mod field {
    /// The main destination field (vdst / sdst of the encoding).
    pub const DST: u8 = 1;
    /// VOP3b's scalar destination (`[14:8]`, carry-out).
    pub const SDST: u8 = 2;
    /// First source.
    pub const SRC0: u8 = 3;
    /// Second source.
    pub const SRC1: u8 = 4;
    /// Third source.
    pub const SRC2: u8 = 5;
    /// Implicit `vcc` (`vcc_lo` in wave32).
    pub const VCC: u8 = 6;
    /// The literal constant that follows the instruction (`v_madmk_f32` K).
    pub const LIT: u8 = 7;
    /// The 16-bit immediate of SOPP/SOPK.
    pub const SIMM: u8 = 8;
    /// A fixed operand text.
    pub const TEXT: u8 = 9;
    /// Implicit `exec` (`exec_lo` in wave32).
    pub const EXEC: u8 = 10;
    /// An interpolation attribute (`attr5.y`).
    pub const ATTR: u8 = 11;
    /// An interpolation parameter (`p10`, `p20`, `p0`).
    pub const PARAM: u8 = 12;
    /// A whole operand list printed by a hand-written rule (SOPP, SOPK).
    pub const RAW: u8 = 15;
}

/// Register files of register slots.
#[allow(dead_code)]
pub(crate) mod file {
    /// Scalar registers.
    pub const S: u8 = 1;
    /// Vector registers.
    pub const V: u8 = 2;
    /// Accumulation registers.
    pub const A: u8 = 3;
}

/// How constants print in a source slot (LLVM's operand types).
pub(crate) mod ty {
    /// 32-bit integer or float (the default; printed by value).
    pub const B32: u8 = 0;
    /// 16-bit float: literals keep their low half.
    pub const F16: u8 = 1;
    /// 16-bit integer: inline floats are half patterns.
    pub const I16: u8 = 2;
    /// 64-bit integer: the literal is zero-extended.
    pub const B64: u8 = 3;
    /// 64-bit float: the literal is the high half.
    pub const F64: u8 = 4;
    /// Packed 16-bit pair: the literal is printed whole unless it is a
    /// half-precision inline value.
    pub const P16: u8 = 5;
}

/// One printed operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    /// A [`field`] id.
    pub field: u8,
    /// A [`file`] id for register slots; the text index for [`field::TEXT`].
    pub file: u8,
    /// Width in dwords (0: a wave mask, one dword in wave32, two in wave64).
    pub width: u8,
    /// A [`ty`] id for sources.
    pub ty: u8,
    /// Register class LLVM names when a scalar register sits here (`TEXTS`
    /// index, 0 for none): the operand does not accept one.
    pub ann_s: u8,
    /// The same for a vector register.
    pub ann_v: u8,
    /// The same for `src_lds_direct`.
    pub ann_lds: u8,
    /// [`flag`] bits.
    pub flags: u8,
    /// The [`kind`] of extraction: which bits, decoded how.
    pub kind: u8,
    /// Where the operand is stored: 0-1 `dst[0..2]`, 2-5 `src[0..4]`, 7 nowhere.
    pub target: u8,
}

/// Source slot flags.
pub(crate) mod flag {
    /// Constants print with LLVM's "Invalid immediate" annotation.
    pub const IMM_BAD: u8 = 1;
    /// `src_lds_direct` makes the word invalid.
    pub const LDS_BAD: u8 = 2;
    /// The neg bit of this (integer) source means sign extension: `sext(x)`.
    pub const SEXT: u8 = 4;
}

/// Operand extractors, chosen by the generator from the encoding and field.
pub(crate) mod kind {
    /// Not decoded into an operand (printed by rule).
    pub const SKIP: u8 = 0;
    /// Scalar destination in `[22:16]` (SOP1, SOP2, SOPK).
    pub const SDST16: u8 = 1;
    /// Vector destination in `[24:17]` (VOP1, VOP2, SDWA, DPP).
    pub const VDST17: u8 = 2;
    /// Scalar destination in `[24:17]` (`v_readfirstlane_b32`).
    pub const SDST17: u8 = 3;
    /// Vector destination in `[7:0]` (VOP3, VOP3P).
    pub const VDST0: u8 = 4;
    /// Scalar destination in `[7:0]` (VOP3 compares, `v_readlane_b32`).
    pub const SDST0: u8 = 5;
    /// Vector destination in `[25:18]` (VINTRP).
    pub const VDST18: u8 = 6;
    /// VOP3b scalar carry-out in `[14:8]`.
    pub const SDST8: u8 = 7;
    /// Source 0 (from the encoding's source field).
    pub const SRC0: u8 = 8;
    /// Source 1.
    pub const SRC1: u8 = 9;
    /// Source 2.
    pub const SRC2: u8 = 10;
    /// The literal constant.
    pub const LIT: u8 = 11;
    /// Implicit `vcc`.
    pub const VCC: u8 = 12;
    /// SDWA VOPC destination: `vcc`, or the `sdst` field when `sd` is set.
    pub const VCC_SDWA: u8 = 13;
    /// Implicit `exec`.
    pub const EXEC: u8 = 14;
    /// `s_set_gpr_idx_on` mode bits in the src1 field.
    pub const SIMM_SOPC: u8 = 15;
}

impl Slot {
    /// The whole operand list is printed by a hand-written rule.
    pub const RAW: Slot = Slot::new([field::RAW, 0, 0, 0, 0, 0, 0, 0, kind::SKIP, 7]);

    /// A table slot from its fields in declaration order.
    pub const fn new(v: [u8; 10]) -> Slot {
        Slot {
            field: v[0],
            file: v[1],
            width: v[2],
            ty: v[3],
            ann_s: v[4],
            ann_v: v[5],
            ann_lds: v[6],
            flags: v[7],
            kind: v[8],
            target: v[9],
        }
    }
}

/// Entry flags.
pub(crate) mod eflag {
    /// The instruction always carries a literal (`v_madmk_f32`, `s_setreg_imm32_b32`).
    pub const LIT: u8 = 1;
    /// Mixed-precision FMA (`v_fma_mix*`): `neg_hi` bits are `abs`, and
    /// `op_sel_hi` defaults to zero.
    pub const MIX: u8 = 2;
    /// VOP3 interpolation: bit 8 of the attribute operand prints as `high`.
    pub const HIGH: u8 = 4;
    /// VOP3b: bits `[14:8]` are a scalar destination, not abs/op_sel.
    pub const VOP3B: u8 = 8;
    /// The shape has a [`super::field::DST`] operand.
    #[allow(dead_code)]
    pub const HAS_DST: u8 = 16;
    /// An interpolation: the shape has a [`super::field::ATTR`] operand.
    pub const INTERP: u8 = 32;
}

/// One opcode of one encoding on one GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The operation (`AluOp` index).
    pub op: u16,
    /// The printed mnemonic (`MNEMONICS` index).
    pub mnem: u16,
    /// The operand shape (`SHAPES` index).
    pub shape: u16,
    /// Bits (of the first two dwords) that must equal `fixed_val`.
    pub fixed_mask: u64,
    /// Required values of the `fixed_mask` bits.
    pub fixed_val: u64,
    /// Bits whose value shows in the printed text (modifiers the operation has).
    pub shown: u64,
    /// [`eflag`] bits.
    pub flags: u8,
    /// Number of entries LLVM prints in `op_sel:[...]` (0 without op_sel).
    pub opsel: u8,
}

impl Entry {
    /// The entry of every invalid opcode.
    pub const INVALID: Entry = Entry {
        op: 0,
        mnem: 0,
        shape: 0,
        fixed_mask: 0,
        fixed_val: 0,
        shown: 0,
        flags: 0,
        opsel: 0,
    };

    /// A table row.
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        op: u16,
        mnem: u16,
        shape: u16,
        fixed_mask: u64,
        fixed_val: u64,
        shown: u64,
        flags: u8,
        opsel: u8,
    ) -> Entry {
        Entry {
            op,
            mnem,
            shape,
            fixed_mask,
            fixed_val,
            shown,
            flags,
            opsel,
        }
    }
}

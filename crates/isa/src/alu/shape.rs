//! The row types of the generated opcode tables (`tables.rs`).
//!
//! Each (GPU, encoding, opcode number) maps to an [`Entry`]: the operation, the
//! mnemonic as printed, the operand [`Slot`]s in print order, and the bits that
//! must keep fixed values for the word to be a valid instruction.

/// Where a printed operand comes from.
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
    #[allow(dead_code)]
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
    /// Width in dwords.
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

impl Slot {
    /// The whole operand list is printed by a hand-written rule.
    pub const RAW: Slot = Slot::fixed(field::RAW);

    /// An operand read from an instruction field.
    #[allow(clippy::too_many_arguments)]
    pub const fn src(
        field: u8,
        file: u8,
        width: u8,
        ty: u8,
        ann_s: u8,
        ann_v: u8,
        ann_lds: u8,
        flags: u8,
    ) -> Slot {
        Slot {
            field,
            file,
            width,
            ty,
            ann_s,
            ann_v,
            ann_lds,
            flags,
        }
    }

    /// A fixed operand text (index into `TEXTS`); the generator emits it for
    /// operand texts that come from no instruction field.
    #[allow(dead_code)]
    pub const fn text(index: u8) -> Slot {
        Slot::src(field::TEXT, index, 0, 0, 0, 0, 0, 0)
    }

    /// An implicit operand (`vcc`, `exec`, the literal K, an immediate).
    pub const fn fixed(field: u8) -> Slot {
        Slot::src(field, 0, 1, 0, 0, 0, 0, 0)
    }
}

/// Entry flags.
pub(crate) mod eflag {
    /// The instruction always carries a literal (`v_madmk_f32`, `s_setreg_imm32_b32`).
    pub const LIT: u8 = 1;
    /// Mixed-precision FMA (`v_fma_mix*`): `neg_hi` bits are `abs`, and
    /// `op_sel_hi` defaults to zero.
    pub const MIX: u8 = 2;
    /// The destination op_sel bit prints as `high` (`v_interp_p2_f16`).
    pub const HIGH: u8 = 4;
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

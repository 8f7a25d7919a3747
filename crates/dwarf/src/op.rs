//! DWARF expression operations: the typed operation set, and its decoding from bytes in
//! every encoding that shipped (DWARF 5 section 7.7.1; AMDGPU extension operations in the
//! dialects described in REFERENCE.md).
//!
//! Decoding happens once: an [`Expr`] holds the decoded operations with their byte
//! offsets, and branch targets already resolved to operation indices, so that evaluation
//! never re-parses bytes.

use crate::error::{Error, ErrorKind, Result};
use gimli::{EndianSlice, LittleEndian, Reader};

/// Which numeric codes mean which DW_OP_LLVM_* operation.
///
/// The AMDGPU operations shipped in several encodings; which one a unit uses is chosen
/// from the unit (augmentation string, producer) or by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// Generation C (current LLVM): `DW_OP_LLVM_user` (0xe9) followed by a ULEB128
    /// sub-operation. The default.
    #[default]
    User,
    /// Generation A (ROCgdb, libdwarf, LLVM until 2023): single bytes 0xe1..0xec, marked by
    /// the augmentation string `[llvm:v0.0]` or `[amd:v0.0]`.
    SingleByte,
    /// The table of the seed document (`llvm-amdgpu-usage.txt`, "AMDGPU DWARF Expression
    /// Operation Encodings"): form_aspace_address 0xe7, offset 0xe9, push_lane 0xea; the
    /// other operations are "TBD" there and so are not encodable in this dialect.
    SeedTable,
}

/// Operations whose codes are unassigned (DWARF 6 names still "TBA", and the two DWARF
/// issue proposals). A caller opts in by giving each one a code in [`Extensions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExtOp {
    /// DW_OP_push_simd_lane (DWARF issue 211206.1).
    PushSimdLane,
    /// DW_OP_object_map (DWARF issue 230712.4): one operand, a 4- or 8-byte DIE offset.
    ObjectMap,
    /// DWARF 6 DW_OP_push_lane.
    PushLane,
    /// DWARF 6 DW_OP_offset.
    Offset,
    /// DWARF 6 DW_OP_bit_offset.
    BitOffset,
    /// DWARF 6 DW_OP_undefined.
    Undefined,
    /// DWARF 6 DW_OP_composite (replaces DW_OP_LLVM_piece_end).
    Composite,
    /// DWARF 6 DW_OP_overlay.
    Overlay,
    /// DWARF 6 DW_OP_bit_overlay.
    BitOverlay,
}

/// Opt-in codes for operations whose codes are not assigned by any standard.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extensions {
    /// (opcode byte, operation) pairs; checked before the standard table, so a caller can
    /// place an extension anywhere in the vendor range.
    pub codes: Vec<(u8, ExtOp)>,
}

impl Extensions {
    /// The code table used by this crate's tests and CLI when `--proposals` is given:
    /// DW_OP_push_simd_lane at 0xf8 and DW_OP_object_map at 0xf9 (both unassigned by DWARF
    /// and LLVM; they collide with GNU vendor operations this crate does not decode).
    pub fn proposals() -> Self {
        Extensions {
            codes: vec![(0xf8, ExtOp::PushSimdLane), (0xf9, ExtOp::ObjectMap)],
        }
    }
}

/// How to decode an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Size of a target address in the default address space (8 for amdgcn).
    pub address_size: u8,
    /// Size of a section offset: 4 in 32-bit DWARF, 8 in 64-bit DWARF.
    pub offset_size: u8,
    /// The encoding of DW_OP_LLVM_* operations.
    pub dialect: Dialect,
    /// Opt-in codes for unassigned operations.
    pub extensions: Extensions,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            address_size: 8,
            offset_size: 4,
            dialect: Dialect::User,
            extensions: Extensions::default(),
        }
    }
}

/// How an operation was (or is to be) encoded; needed to print it as llvm-dwarfdump does
/// and to encode it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    /// A DWARF 5 operation (or GNU DW_OP_GNU_push_tls_address).
    Standard,
    /// A generation-A single-byte LLVM operation.
    SingleByte,
    /// A DW_OP_LLVM_user sub-operation.
    User,
    /// A code of the seed document's table.
    SeedTable,
    /// An opt-in extension code.
    Extension(u8),
    /// Named only (DWARF 6 operations with no code yet): printable, not encodable.
    Named,
}

/// A DWARF expression operation with its operands.
///
/// Variant documentation cites the defining text: DWARF 5 section 2.5/2.6, or the
/// AMDGPU extension (`llvm-amdgpu-usage.txt`, "Expressions").
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)] // operand fields are named after the specification's letters
pub enum Op {
    // ---- literals and constants (2.5.1.1) ----
    /// DW_OP_addr A.
    Addr(u64),
    /// DW_OP_lit0..31.
    Lit(u8),
    /// DW_OP_const1u/2u/4u/8u (size in bytes, value).
    ConstU(u8, u64),
    /// DW_OP_const1s/2s/4s/8s (size in bytes, value).
    ConstS(u8, i64),
    /// DW_OP_constu.
    Constu(u64),
    /// DW_OP_consts.
    Consts(i64),
    /// DW_OP_addrx index.
    Addrx(u64),
    /// DW_OP_constx index.
    Constx(u64),
    /// DW_OP_const_type: base type DIE (unit offset), value bytes.
    ConstType {
        die: u64,
        bytes: Box<[u8]>,
    },
    // ---- register values (2.5.1.2) ----
    /// DW_OP_fbreg D.
    Fbreg(i64),
    /// DW_OP_breg0..31 / DW_OP_bregx: register, displacement. `short` is true for `DW_OP_breg<n>`.
    Breg {
        reg: u64,
        disp: i64,
        short: bool,
    },
    /// DW_OP_regval_type register, base type DIE.
    RegvalType {
        reg: u64,
        die: u64,
    },
    // ---- stack operations (2.5.1.3) ----
    Dup,
    Drop,
    Over,
    /// DW_OP_pick I.
    Pick(u8),
    Swap,
    Rot,
    /// DW_OP_deref.
    Deref,
    /// DW_OP_deref_size S.
    DerefSize(u8),
    /// DW_OP_deref_type S, base type DIE.
    DerefType {
        size: u8,
        die: u64,
    },
    /// DW_OP_xderef.
    Xderef,
    /// DW_OP_xderef_size S.
    XderefSize(u8),
    /// DW_OP_xderef_type S, base type DIE.
    XderefType {
        size: u8,
        die: u64,
    },
    PushObjectAddress,
    /// DW_OP_form_tls_address (`gnu`: encoded as DW_OP_GNU_push_tls_address 0xe0).
    FormTlsAddress {
        gnu: bool,
    },
    CallFrameCfa,
    // ---- arithmetic and logic (2.5.1.4) ----
    Abs,
    And,
    Div,
    Minus,
    Mod,
    Mul,
    Neg,
    Not,
    Or,
    Plus,
    /// DW_OP_plus_uconst.
    PlusUconst(u64),
    Shl,
    Shr,
    Shra,
    Xor,
    // ---- control flow (2.5.1.5) ----
    Eq,
    Ge,
    Gt,
    Le,
    Lt,
    Ne,
    /// DW_OP_skip: encoded displacement, and the resolved target operation index.
    Skip {
        disp: i16,
        target: usize,
    },
    /// DW_OP_bra: encoded displacement, and the resolved target operation index.
    Bra {
        disp: i16,
        target: usize,
    },
    /// DW_OP_call2 (unit-relative DIE offset).
    Call2(u16),
    /// DW_OP_call4 (unit-relative DIE offset).
    Call4(u32),
    /// DW_OP_call_ref (.debug_info offset).
    CallRef(u64),
    // ---- type conversions (2.5.1.6) ----
    /// DW_OP_convert to base type DIE (0: generic type).
    Convert(u64),
    /// DW_OP_reinterpret as base type DIE (0: generic type).
    Reinterpret(u64),
    // ---- special (2.5.1.7) ----
    Nop,
    /// DW_OP_entry_value: the sub-expression's bytes.
    EntryValue(Box<[u8]>),
    // ---- location descriptions (2.6) ----
    /// DW_OP_reg0..31 / DW_OP_regx. `short` is true for `DW_OP_reg<n>`.
    Reg {
        reg: u64,
        short: bool,
    },
    /// DW_OP_implicit_value bytes (shared, so pushing the implicit storage copies nothing).
    ImplicitValue(std::sync::Arc<[u8]>),
    StackValue,
    /// DW_OP_implicit_pointer: .debug_info offset of the DIE, byte displacement.
    ImplicitPointer {
        die: u64,
        disp: i64,
    },
    /// DW_OP_piece S (bytes).
    Piece(u64),
    /// DW_OP_bit_piece S (bits), D (bit displacement).
    BitPiece {
        size: u64,
        offset: u64,
    },
    // ---- AMDGPU extension operations ----
    /// DW_OP_LLVM_form_aspace_address.
    FormAspaceAddress,
    /// DW_OP_LLVM_push_lane (DWARF 6: DW_OP_push_lane).
    PushLane,
    /// DW_OP_LLVM_offset (DWARF 6: DW_OP_offset).
    Offset,
    /// DW_OP_LLVM_offset_uconst D.
    OffsetUconst(u64),
    /// DW_OP_LLVM_bit_offset (DWARF 6: DW_OP_bit_offset).
    BitOffset,
    /// DW_OP_LLVM_call_frame_entry_reg R.
    CallFrameEntryReg(u64),
    /// DW_OP_LLVM_undefined (DWARF 6: DW_OP_undefined).
    Undefined,
    /// DW_OP_LLVM_aspace_bregx R, D.
    AspaceBregx {
        reg: u64,
        disp: i64,
    },
    /// DW_OP_LLVM_aspace_implicit_pointer: .debug_info DIE offset, displacement.
    AspaceImplicitPointer {
        die: u64,
        disp: i64,
    },
    /// DW_OP_LLVM_piece_end (DWARF 6: DW_OP_composite).
    PieceEnd,
    /// DW_OP_LLVM_extend S (element bits), C (count).
    Extend {
        bits: u64,
        count: u64,
    },
    /// DW_OP_LLVM_select_bit_piece S (element bits), C (count).
    SelectBitPiece {
        bits: u64,
        count: u64,
    },
    /// DW_OP_LLVM_user DW_OP_LLVM_nop.
    LlvmNop,
    /// DWARF 6 DW_OP_overlay (byte offset and size popped from the stack).
    Overlay,
    /// DWARF 6 DW_OP_bit_overlay (bit offset and size popped from the stack).
    BitOverlay,
    // ---- opt-in proposals ----
    /// DW_OP_push_simd_lane (DWARF issue 211206.1).
    PushSimdLane,
    /// DW_OP_object_map: .debug_info offset of a DW_TAG_object_map DIE (issue 230712.4).
    ObjectMap(u64),
}

impl Op {
    /// The DWARF name of the operation (without operands), in the spelling of its form.
    pub fn name(&self, form: Form) -> &'static str {
        use Op::*;
        let dwarf6 = matches!(form, Form::Named | Form::Extension(_));
        match self {
            Addr(_) => "DW_OP_addr",
            Lit(n) => LIT_NAMES
                .get(usize::from(*n))
                .copied()
                .unwrap_or("DW_OP_lit?"),
            ConstU(1, _) => "DW_OP_const1u",
            ConstU(2, _) => "DW_OP_const2u",
            ConstU(4, _) => "DW_OP_const4u",
            ConstU(..) => "DW_OP_const8u",
            ConstS(1, _) => "DW_OP_const1s",
            ConstS(2, _) => "DW_OP_const2s",
            ConstS(4, _) => "DW_OP_const4s",
            ConstS(..) => "DW_OP_const8s",
            Constu(_) => "DW_OP_constu",
            Consts(_) => "DW_OP_consts",
            Addrx(_) => "DW_OP_addrx",
            Constx(_) => "DW_OP_constx",
            ConstType { .. } => "DW_OP_const_type",
            Fbreg(_) => "DW_OP_fbreg",
            Breg {
                reg, short: true, ..
            } => BREG_NAMES
                .get(*reg as usize)
                .copied()
                .unwrap_or("DW_OP_breg?"),
            Breg { .. } => "DW_OP_bregx",
            RegvalType { .. } => "DW_OP_regval_type",
            Dup => "DW_OP_dup",
            Drop => "DW_OP_drop",
            Over => "DW_OP_over",
            Pick(_) => "DW_OP_pick",
            Swap => "DW_OP_swap",
            Rot => "DW_OP_rot",
            Deref => "DW_OP_deref",
            DerefSize(_) => "DW_OP_deref_size",
            DerefType { .. } => "DW_OP_deref_type",
            Xderef => "DW_OP_xderef",
            XderefSize(_) => "DW_OP_xderef_size",
            XderefType { .. } => "DW_OP_xderef_type",
            PushObjectAddress => "DW_OP_push_object_address",
            FormTlsAddress { gnu: true } => "DW_OP_GNU_push_tls_address",
            FormTlsAddress { gnu: false } => "DW_OP_form_tls_address",
            CallFrameCfa => "DW_OP_call_frame_cfa",
            Abs => "DW_OP_abs",
            And => "DW_OP_and",
            Div => "DW_OP_div",
            Minus => "DW_OP_minus",
            Mod => "DW_OP_mod",
            Mul => "DW_OP_mul",
            Neg => "DW_OP_neg",
            Not => "DW_OP_not",
            Or => "DW_OP_or",
            Plus => "DW_OP_plus",
            PlusUconst(_) => "DW_OP_plus_uconst",
            Shl => "DW_OP_shl",
            Shr => "DW_OP_shr",
            Shra => "DW_OP_shra",
            Xor => "DW_OP_xor",
            Eq => "DW_OP_eq",
            Ge => "DW_OP_ge",
            Gt => "DW_OP_gt",
            Le => "DW_OP_le",
            Lt => "DW_OP_lt",
            Ne => "DW_OP_ne",
            Skip { .. } => "DW_OP_skip",
            Bra { .. } => "DW_OP_bra",
            Call2(_) => "DW_OP_call2",
            Call4(_) => "DW_OP_call4",
            CallRef(_) => "DW_OP_call_ref",
            Convert(_) => "DW_OP_convert",
            Reinterpret(_) => "DW_OP_reinterpret",
            Nop => "DW_OP_nop",
            EntryValue(_) => "DW_OP_entry_value",
            Reg { reg, short: true } => REG_NAMES
                .get(*reg as usize)
                .copied()
                .unwrap_or("DW_OP_reg?"),
            Reg { .. } => "DW_OP_regx",
            ImplicitValue(_) => "DW_OP_implicit_value",
            StackValue => "DW_OP_stack_value",
            ImplicitPointer { .. } => "DW_OP_implicit_pointer",
            Piece(_) => "DW_OP_piece",
            BitPiece { .. } => "DW_OP_bit_piece",
            FormAspaceAddress => "DW_OP_LLVM_form_aspace_address",
            PushLane if dwarf6 => "DW_OP_push_lane",
            PushLane => "DW_OP_LLVM_push_lane",
            Offset if dwarf6 => "DW_OP_offset",
            Offset => "DW_OP_LLVM_offset",
            OffsetUconst(_) => "DW_OP_LLVM_offset_uconst",
            BitOffset if dwarf6 => "DW_OP_bit_offset",
            BitOffset => "DW_OP_LLVM_bit_offset",
            CallFrameEntryReg(_) => "DW_OP_LLVM_call_frame_entry_reg",
            Undefined if dwarf6 => "DW_OP_undefined",
            Undefined => "DW_OP_LLVM_undefined",
            AspaceBregx { .. } => "DW_OP_LLVM_aspace_bregx",
            AspaceImplicitPointer { .. } => "DW_OP_LLVM_aspace_implicit_pointer",
            PieceEnd if dwarf6 => "DW_OP_composite",
            PieceEnd => "DW_OP_LLVM_piece_end",
            Extend { .. } => "DW_OP_LLVM_extend",
            SelectBitPiece { .. } => "DW_OP_LLVM_select_bit_piece",
            LlvmNop => "DW_OP_LLVM_nop",
            Overlay => "DW_OP_overlay",
            BitOverlay => "DW_OP_bit_overlay",
            PushSimdLane => "DW_OP_push_simd_lane",
            ObjectMap(_) => "DW_OP_object_map",
        }
    }
}

macro_rules! numbered {
    ($prefix:literal) => {
        [
            concat!($prefix, "0"),
            concat!($prefix, "1"),
            concat!($prefix, "2"),
            concat!($prefix, "3"),
            concat!($prefix, "4"),
            concat!($prefix, "5"),
            concat!($prefix, "6"),
            concat!($prefix, "7"),
            concat!($prefix, "8"),
            concat!($prefix, "9"),
            concat!($prefix, "10"),
            concat!($prefix, "11"),
            concat!($prefix, "12"),
            concat!($prefix, "13"),
            concat!($prefix, "14"),
            concat!($prefix, "15"),
            concat!($prefix, "16"),
            concat!($prefix, "17"),
            concat!($prefix, "18"),
            concat!($prefix, "19"),
            concat!($prefix, "20"),
            concat!($prefix, "21"),
            concat!($prefix, "22"),
            concat!($prefix, "23"),
            concat!($prefix, "24"),
            concat!($prefix, "25"),
            concat!($prefix, "26"),
            concat!($prefix, "27"),
            concat!($prefix, "28"),
            concat!($prefix, "29"),
            concat!($prefix, "30"),
            concat!($prefix, "31"),
        ]
    };
}

static LIT_NAMES: [&str; 32] = numbered!("DW_OP_lit");
static REG_NAMES: [&str; 32] = numbered!("DW_OP_reg");
static BREG_NAMES: [&str; 32] = numbered!("DW_OP_breg");

/// One decoded operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// Byte offset of the opcode within the expression.
    pub offset: usize,
    /// The operation.
    pub op: Op,
    /// How it was encoded.
    pub form: Form,
}

/// A decoded expression: operations in order, with branch targets resolved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expr {
    /// The operations.
    pub ops: Vec<Decoded>,
    /// Length of the encoded expression in bytes.
    pub len: usize,
    /// Whether every operation is one the evaluator's generic-value fast path handles.
    fast: bool,
}

/// Whether the evaluator's fast path (generic values only, no location descriptions on
/// the stack) handles `op`.
fn fast_op(op: &Op) -> bool {
    use Op::*;
    matches!(
        op,
        Addr(_)
            | Lit(_)
            | ConstU(..)
            | ConstS(..)
            | Constu(_)
            | Consts(_)
            | Fbreg(_)
            | Breg { .. }
            | Dup
            | Drop
            | Over
            | Pick(_)
            | Swap
            | Rot
            | Deref
            | DerefSize(_)
            | Abs
            | And
            | Div
            | Minus
            | Mod
            | Mul
            | Neg
            | Not
            | Or
            | Plus
            | PlusUconst(_)
            | Shl
            | Shr
            | Shra
            | Xor
            | Eq
            | Ge
            | Gt
            | Le
            | Lt
            | Ne
            | Skip { .. }
            | Bra { .. }
            | Nop
            | Reg { .. }
            | StackValue
            | ImplicitValue(_)
            | Piece(_)
            | BitPiece { .. }
    )
}

/// LLVM single-byte codes (generation A).
const A_FIRST: u8 = 0xe1;
const A_LAST: u8 = 0xec;
/// DW_OP_LLVM_user.
pub const DW_OP_LLVM_USER: u8 = 0xe9;

fn trunc(name: &'static str) -> impl Fn(gimli::Error) -> ErrorKind {
    move |_| ErrorKind::Truncated(name)
}

type Rd<'a> = EndianSlice<'a, LittleEndian>;

fn read_sized(r: &mut Rd<'_>, size: u8, name: &'static str) -> std::result::Result<u64, ErrorKind> {
    let t = trunc(name);
    Ok(match size {
        1 => u64::from(r.read_u8().map_err(&t)?),
        2 => u64::from(r.read_u16().map_err(&t)?),
        4 => u64::from(r.read_u32().map_err(&t)?),
        8 => r.read_u64().map_err(&t)?,
        _ => {
            return Err(ErrorKind::OperandRange {
                op: name,
                what: "address or offset size must be 1, 2, 4 or 8",
            });
        }
    })
}

fn read_block(
    r: &mut Rd<'_>,
    len: u64,
    name: &'static str,
) -> std::result::Result<Box<[u8]>, ErrorKind> {
    let len = usize::try_from(len).map_err(|_| ErrorKind::Truncated(name))?;
    if len > r.len() {
        return Err(ErrorKind::Truncated(name));
    }
    let b = r.split(len).map_err(trunc(name))?;
    Ok(b.slice().into())
}

fn llvm_by_index(
    idx: u8,
    r: &mut Rd<'_>,
    opts: &DecodeOptions,
) -> std::result::Result<Op, ErrorKind> {
    // idx: generation-A code minus 0xe1, i.e. form_aspace_address = 0 ... select_bit_piece = 11.
    let uleb = |r: &mut Rd<'_>, n: &'static str| r.read_uleb128().map_err(trunc(n));
    let sleb = |r: &mut Rd<'_>, n: &'static str| r.read_sleb128().map_err(trunc(n));
    Ok(match idx {
        0 => Op::FormAspaceAddress,
        1 => Op::PushLane,
        2 => Op::Offset,
        3 => Op::OffsetUconst(uleb(r, "DW_OP_LLVM_offset_uconst")?),
        4 => Op::BitOffset,
        5 => Op::CallFrameEntryReg(uleb(r, "DW_OP_LLVM_call_frame_entry_reg")?),
        6 => Op::Undefined,
        7 => {
            let n = "DW_OP_LLVM_aspace_bregx";
            let reg = uleb(r, n)?;
            Op::AspaceBregx {
                reg,
                disp: sleb(r, n)?,
            }
        }
        8 => {
            let n = "DW_OP_LLVM_aspace_implicit_pointer";
            let die = read_sized(r, opts.offset_size, n)?;
            Op::AspaceImplicitPointer {
                die,
                disp: sleb(r, n)?,
            }
        }
        9 => Op::PieceEnd,
        10 => {
            let n = "DW_OP_LLVM_extend";
            let bits = uleb(r, n)?;
            Op::Extend {
                bits,
                count: uleb(r, n)?,
            }
        }
        _ => {
            let n = "DW_OP_LLVM_select_bit_piece";
            let bits = uleb(r, n)?;
            Op::SelectBitPiece {
                bits,
                count: uleb(r, n)?,
            }
        }
    })
}

fn decode_ext(
    ext: ExtOp,
    r: &mut Rd<'_>,
    opts: &DecodeOptions,
) -> std::result::Result<Op, ErrorKind> {
    Ok(match ext {
        ExtOp::PushSimdLane => Op::PushSimdLane,
        ExtOp::ObjectMap => Op::ObjectMap(read_sized(r, opts.offset_size, "DW_OP_object_map")?),
        ExtOp::PushLane => Op::PushLane,
        ExtOp::Offset => Op::Offset,
        ExtOp::BitOffset => Op::BitOffset,
        ExtOp::Undefined => Op::Undefined,
        ExtOp::Composite => Op::PieceEnd,
        ExtOp::Overlay => Op::Overlay,
        ExtOp::BitOverlay => Op::BitOverlay,
    })
}

/// Decodes one operation at the reader's position, with the form it was encoded in and
/// a branch's displacement. One arm per code: the operations without operands build
/// their value, those with operands read them (the longer readings are helpers).
fn decode_one(
    r: &mut Rd<'_>,
    opts: &DecodeOptions,
) -> std::result::Result<(Op, Form, Option<i16>), ErrorKind> {
    use Op::*;
    let code = r.read_u8().map_err(trunc("opcode"))?;
    if let Some(&(_, ext)) = opts.extensions.codes.iter().find(|(c, _)| *c == code) {
        return Ok((decode_ext(ext, r, opts)?, Form::Extension(code), None));
    }
    let seed = opts.dialect == Dialect::SeedTable;
    let std = |op: Op| Ok((op, Form::Standard, None));
    match code {
        0x03 => std(Addr(read_sized(r, opts.address_size, "DW_OP_addr")?)),
        0x06 => std(Deref),
        0x08..=0x0f => std(decode_const(code, r)?),
        0x10 => std(Constu(uleb(r, "DW_OP_constu")?)),
        0x11 => std(Consts(sleb(r, "DW_OP_consts")?)),
        0x12 => std(Dup),
        0x13 => std(Drop),
        0x14 => std(Over),
        0x15 => std(Pick(byte(r, "DW_OP_pick")?)),
        0x16 => std(Swap),
        0x17 => std(Rot),
        0x18 => std(Xderef),
        0x19 => std(Abs),
        0x1a => std(And),
        0x1b => std(Div),
        0x1c => std(Minus),
        0x1d => std(Mod),
        0x1e => std(Mul),
        0x1f => std(Neg),
        0x20 => std(Not),
        0x21 => std(Or),
        0x22 => std(Plus),
        0x23 => std(PlusUconst(uleb(r, "DW_OP_plus_uconst")?)),
        0x24 => std(Shl),
        0x25 => std(Shr),
        0x26 => std(Shra),
        0x27 => std(Xor),
        0x28 | 0x2f => decode_branch(code, r),
        0x29 => std(Eq),
        0x2a => std(Ge),
        0x2b => std(Gt),
        0x2c => std(Le),
        0x2d => std(Lt),
        0x2e => std(Ne),
        0x30..=0x4f => std(Lit(code - 0x30)),
        0x50..=0x6f => std(decode_reg(code, r)?),
        0x70..=0x8f => std(decode_breg(code, r)?),
        0x90 => std(decode_reg(code, r)?),
        0x92 => std(decode_breg(code, r)?),
        0x91 => std(Fbreg(sleb(r, "DW_OP_fbreg")?)),
        0x93 => std(Piece(uleb(r, "DW_OP_piece")?)),
        0x94 => std(DerefSize(byte(r, "DW_OP_deref_size")?)),
        0x95 => std(XderefSize(byte(r, "DW_OP_xderef_size")?)),
        0x96 => std(Nop),
        0x97 => std(PushObjectAddress),
        0x98 => std(Call2(r.read_u16().map_err(trunc("DW_OP_call2"))?)),
        0x99 => std(Call4(r.read_u32().map_err(trunc("DW_OP_call4"))?)),
        0x9a => std(CallRef(read_sized(r, opts.offset_size, "DW_OP_call_ref")?)),
        0x9b => std(FormTlsAddress { gnu: false }),
        0x9c => std(CallFrameCfa),
        0x9d => std(decode_bit_piece(r)?),
        0x9e => std(ImplicitValue(uleb_block(r, "DW_OP_implicit_value")?.into())),
        0x9f => std(StackValue),
        0xa0 => std(decode_implicit_pointer(r, opts)?),
        0xa1 => std(Addrx(uleb(r, "DW_OP_addrx")?)),
        0xa2 => std(Constx(uleb(r, "DW_OP_constx")?)),
        0xa3 => std(EntryValue(uleb_block(r, "DW_OP_entry_value")?)),
        0xa4..=0xa7 => std(decode_typed(code, r)?),
        0xa8 => std(Convert(uleb(r, "DW_OP_convert")?)),
        0xa9 => std(Reinterpret(uleb(r, "DW_OP_reinterpret")?)),
        0xe0 => std(FormTlsAddress { gnu: true }),
        DW_OP_LLVM_USER if opts.dialect == Dialect::User => decode_user(r, opts),
        A_FIRST..=A_LAST if opts.dialect == Dialect::SingleByte => Ok((
            llvm_by_index(code - A_FIRST, r, opts)?,
            Form::SingleByte,
            None,
        )),
        0xe7 if seed => Ok((FormAspaceAddress, Form::SeedTable, None)),
        0xe9 if seed => Ok((Offset, Form::SeedTable, None)),
        0xea if seed => Ok((PushLane, Form::SeedTable, None)),
        _ => Err(ErrorKind::UnknownOpcode(code)),
    }
}

/// An unsigned LEB128 operand of the operation `n`.
#[inline(always)]
fn uleb(r: &mut Rd<'_>, n: &'static str) -> std::result::Result<u64, ErrorKind> {
    r.read_uleb128().map_err(trunc(n))
}

/// A signed LEB128 operand of the operation `n`.
#[inline(always)]
fn sleb(r: &mut Rd<'_>, n: &'static str) -> std::result::Result<i64, ErrorKind> {
    r.read_sleb128().map_err(trunc(n))
}

/// A one-byte operand of the operation `n`.
#[inline(always)]
fn byte(r: &mut Rd<'_>, n: &'static str) -> std::result::Result<u8, ErrorKind> {
    r.read_u8().map_err(trunc(n))
}

/// A block operand of the operation `n`: its length as unsigned LEB128, its bytes.
#[inline(always)]
fn uleb_block(r: &mut Rd<'_>, n: &'static str) -> std::result::Result<Box<[u8]>, ErrorKind> {
    let len = uleb(r, n)?;
    read_block(r, len, n)
}

/// `DW_OP_bra` (0x28) and `DW_OP_skip` (0x2f), with their displacement.
#[inline(always)]
fn decode_branch(
    code: u8,
    r: &mut Rd<'_>,
) -> std::result::Result<(Op, Form, Option<i16>), ErrorKind> {
    if code == 0x28 {
        let d = r.read_i16().map_err(trunc("DW_OP_bra"))?;
        Ok((Op::Bra { disp: d, target: 0 }, Form::Standard, Some(d)))
    } else {
        let d = r.read_i16().map_err(trunc("DW_OP_skip"))?;
        Ok((Op::Skip { disp: d, target: 0 }, Form::Standard, Some(d)))
    }
}

/// A `DW_OP_LLVM_user` operation: its sub-operation and operands.
fn decode_user(
    r: &mut Rd<'_>,
    opts: &DecodeOptions,
) -> std::result::Result<(Op, Form, Option<i16>), ErrorKind> {
    let sub = uleb(r, "DW_OP_LLVM_user")?;
    let op = match sub {
        0x01 => Op::LlvmNop,
        0x02..=0x09 => llvm_by_index((sub - 0x02) as u8, r, opts)?,
        // 0x0a..0x0c: piece_end, extend, select_bit_piece (aspace_implicit_pointer
        // has no sub-op).
        0x0a..=0x0c => llvm_by_index((sub - 0x0a + 9) as u8, r, opts)?,
        _ => return Err(ErrorKind::UnknownUserOp(sub)),
    };
    Ok((op, Form::User, None))
}

/// The constant operations `DW_OP_const1u` (0x08) to `DW_OP_const8s` (0x0f).
#[inline(always)]
fn decode_const(code: u8, r: &mut Rd<'_>) -> std::result::Result<Op, ErrorKind> {
    use Op::*;
    Ok(match code {
        0x08 => ConstU(1, u64::from(byte(r, "DW_OP_const1u")?)),
        0x09 => ConstS(1, i64::from(r.read_i8().map_err(trunc("DW_OP_const1s"))?)),
        0x0a => ConstU(2, u64::from(r.read_u16().map_err(trunc("DW_OP_const2u"))?)),
        0x0b => ConstS(2, i64::from(r.read_i16().map_err(trunc("DW_OP_const2s"))?)),
        0x0c => ConstU(4, u64::from(r.read_u32().map_err(trunc("DW_OP_const4u"))?)),
        0x0d => ConstS(4, i64::from(r.read_i32().map_err(trunc("DW_OP_const4s"))?)),
        0x0e => ConstU(8, r.read_u64().map_err(trunc("DW_OP_const8u"))?),
        _ => ConstS(8, r.read_i64().map_err(trunc("DW_OP_const8s"))?),
    })
}

/// `DW_OP_reg<n>` (0x50 to 0x6f) and `DW_OP_regx` (0x90).
#[inline(always)]
fn decode_reg(code: u8, r: &mut Rd<'_>) -> std::result::Result<Op, ErrorKind> {
    Ok(if code == 0x90 {
        Op::Reg {
            reg: uleb(r, "DW_OP_regx")?,
            short: false,
        }
    } else {
        Op::Reg {
            reg: u64::from(code - 0x50),
            short: true,
        }
    })
}

/// `DW_OP_breg<n>` (0x70 to 0x8f) and `DW_OP_bregx` (0x92).
#[inline(always)]
fn decode_breg(code: u8, r: &mut Rd<'_>) -> std::result::Result<Op, ErrorKind> {
    Ok(if code == 0x92 {
        let reg = uleb(r, "DW_OP_bregx")?;
        Op::Breg {
            reg,
            disp: sleb(r, "DW_OP_bregx")?,
            short: false,
        }
    } else {
        Op::Breg {
            reg: u64::from(code - 0x70),
            disp: sleb(r, "DW_OP_breg")?,
            short: true,
        }
    })
}

/// `DW_OP_bit_piece`: size and offset in bits.
#[inline(always)]
fn decode_bit_piece(r: &mut Rd<'_>) -> std::result::Result<Op, ErrorKind> {
    let size = uleb(r, "DW_OP_bit_piece")?;
    Ok(Op::BitPiece {
        size,
        offset: uleb(r, "DW_OP_bit_piece")?,
    })
}

/// `DW_OP_implicit_pointer`: the DIE's offset and a displacement.
#[inline(always)]
fn decode_implicit_pointer(
    r: &mut Rd<'_>,
    opts: &DecodeOptions,
) -> std::result::Result<Op, ErrorKind> {
    let n = "DW_OP_implicit_pointer";
    let die = read_sized(r, opts.offset_size, n)?;
    Ok(Op::ImplicitPointer {
        die,
        disp: sleb(r, n)?,
    })
}

/// The typed operations with two operands: `DW_OP_const_type` (0xa4),
/// `DW_OP_regval_type`, `DW_OP_deref_type` and `DW_OP_xderef_type` (0xa7).
fn decode_typed(code: u8, r: &mut Rd<'_>) -> std::result::Result<Op, ErrorKind> {
    use Op::*;
    Ok(match code {
        0xa4 => {
            let n = "DW_OP_const_type";
            let die = uleb(r, n)?;
            let len = byte(r, n)?;
            ConstType {
                die,
                bytes: read_block(r, u64::from(len), n)?,
            }
        }
        0xa5 => {
            let reg = uleb(r, "DW_OP_regval_type")?;
            RegvalType {
                reg,
                die: uleb(r, "DW_OP_regval_type")?,
            }
        }
        0xa6 => {
            let size = byte(r, "DW_OP_deref_type")?;
            DerefType {
                size,
                die: uleb(r, "DW_OP_deref_type")?,
            }
        }
        _ => {
            let size = byte(r, "DW_OP_xderef_type")?;
            XderefType {
                size,
                die: uleb(r, "DW_OP_xderef_type")?,
            }
        }
    })
}

impl Expr {
    /// Decodes `bytes` completely. Errors carry the offset of the offending operation.
    pub fn decode(bytes: &[u8], opts: &DecodeOptions) -> Result<Expr> {
        let mut r = Rd::new(bytes, LittleEndian);
        // Every operation takes at least one byte: reserving for the common short
        // expressions up front avoids regrowing the vector while decoding.
        let mut ops = Vec::with_capacity(bytes.len().min(32));
        let mut branches = Vec::new();
        while !r.is_empty() {
            let offset = bytes.len() - r.len();
            let (op, form, disp) = decode_one(&mut r, opts).map_err(|k| Error::new(offset, k))?;
            if let Some(d) = disp {
                let end = bytes.len() - r.len();
                branches.push((ops.len(), offset, end as i64 + i64::from(d)));
            }
            ops.push(Decoded { offset, op, form });
        }
        // Resolve branch targets to operation indices (DWARF 5 2.5.1.5: the displacement
        // counts from the end of the branch operation; it must land on an operation or at
        // the end of the expression).
        for (idx, offset, to) in branches {
            let target = if to == bytes.len() as i64 {
                Some(ops.len())
            } else if to >= 0 {
                ops.binary_search_by_key(&(to as usize), |d| d.offset).ok()
            } else {
                None
            };
            let Some(target) = target else {
                let name = ops.get(idx).map(|d| d.op.name(d.form)).unwrap_or("branch");
                return Err(Error::new(offset, ErrorKind::BadBranchTarget(name)));
            };
            if let Some(d) = ops.get_mut(idx) {
                match &mut d.op {
                    Op::Bra { target: t, .. } | Op::Skip { target: t, .. } => *t = target,
                    _ => {}
                }
            }
        }
        let fast = ops.iter().all(|d| fast_op(&d.op));
        Ok(Expr {
            ops,
            len: bytes.len(),
            fast,
        })
    }

    /// An expression from operations built in memory (e.g. parsed DWARF 6 names that have no
    /// encoding yet). Branch operations must carry resolved `target` indices; `len` is the
    /// byte length errors at the end of the expression are reported at.
    pub fn from_ops(ops: Vec<Decoded>, len: usize) -> Expr {
        let fast = ops.iter().all(|d| fast_op(&d.op));
        Expr { ops, len, fast }
    }

    /// Whether the evaluator's fast path applies (all operations act on generic values).
    pub fn is_fast(&self) -> bool {
        self.fast
    }

    /// Decodes operations one by one and stops at the first error, returning what was
    /// decoded so far and the error (used by printers that show partial expressions).
    pub fn decode_partial(bytes: &[u8], opts: &DecodeOptions) -> (Vec<Decoded>, Option<Error>) {
        let mut r = Rd::new(bytes, LittleEndian);
        let mut ops = Vec::new();
        while !r.is_empty() {
            let offset = bytes.len() - r.len();
            match decode_one(&mut r, opts) {
                Ok((op, form, _)) => ops.push(Decoded { offset, op, form }),
                Err(k) => return (ops, Some(Error::new(offset, k))),
            }
        }
        (ops, None)
    }
}

// ---------------------------------------------------------------------------------------
// Encoding

fn push_uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn push_sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0);
        if done {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn push_sized(out: &mut Vec<u8>, v: u64, size: u8) {
    out.extend_from_slice(&v.to_le_bytes()[..usize::from(size.min(8))]);
}

/// Why an operation cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The dialect has no code for this operation.
    #[error("{0} has no code in the chosen dialect")]
    NoCode(&'static str),
    /// A branch displacement does not fit 16 bits.
    #[error("branch displacement out of range")]
    BranchRange,
}

/// The generation-A index (0 = form_aspace_address ... 11 = select_bit_piece) of an LLVM
/// operation, and its DW_OP_LLVM_user sub-op.
fn llvm_index(op: &Op) -> Option<(u8, Option<u8>)> {
    Some(match op {
        Op::FormAspaceAddress => (0, Some(0x02)),
        Op::PushLane => (1, Some(0x03)),
        Op::Offset => (2, Some(0x04)),
        Op::OffsetUconst(_) => (3, Some(0x05)),
        Op::BitOffset => (4, Some(0x06)),
        Op::CallFrameEntryReg(_) => (5, Some(0x07)),
        Op::Undefined => (6, Some(0x08)),
        Op::AspaceBregx { .. } => (7, Some(0x09)),
        Op::AspaceImplicitPointer { .. } => (8, None),
        Op::PieceEnd => (9, Some(0x0a)),
        Op::Extend { .. } => (10, Some(0x0b)),
        Op::SelectBitPiece { .. } => (11, Some(0x0c)),
        _ => return None,
    })
}

fn ext_for(op: &Op, ext: &Extensions) -> Option<u8> {
    let want = match op {
        Op::PushSimdLane => ExtOp::PushSimdLane,
        Op::ObjectMap(_) => ExtOp::ObjectMap,
        Op::Overlay => ExtOp::Overlay,
        Op::BitOverlay => ExtOp::BitOverlay,
        _ => return None,
    };
    ext.codes.iter().find(|(_, e)| *e == want).map(|(c, _)| *c)
}

fn encode_llvm_operands(op: &Op, out: &mut Vec<u8>, opts: &DecodeOptions) {
    match op {
        Op::OffsetUconst(v) | Op::CallFrameEntryReg(v) => push_uleb(out, *v),
        Op::AspaceBregx { reg, disp } => {
            push_uleb(out, *reg);
            push_sleb(out, *disp);
        }
        Op::AspaceImplicitPointer { die, disp } => {
            push_sized(out, *die, opts.offset_size);
            push_sleb(out, *disp);
        }
        Op::Extend { bits, count } | Op::SelectBitPiece { bits, count } => {
            push_uleb(out, *bits);
            push_uleb(out, *count);
        }
        Op::ObjectMap(die) => push_sized(out, *die, opts.offset_size),
        _ => {}
    }
}

/// Encodes operations into bytes using the dialect of `opts`. Branch operations use their
/// `disp` field as given (the `target` index is ignored), so decoding and re-encoding is
/// byte-identical.
pub fn encode(ops: &[Op], opts: &DecodeOptions) -> std::result::Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    for op in ops {
        encode_op(op, &mut out, opts)?;
    }
    Ok(out)
}

/// Encodes one operation: an extension code of `opts`, an AMDGPU operation in the
/// dialect of `opts`, or a standard operation (its code, then its operands).
fn encode_op(
    op: &Op,
    out: &mut Vec<u8>,
    opts: &DecodeOptions,
) -> std::result::Result<(), EncodeError> {
    use Op::*;
    if let Some(code) = ext_for(op, &opts.extensions) {
        out.push(code);
        encode_llvm_operands(op, out, opts);
        return Ok(());
    }
    if let Some((idx, user)) = llvm_index(op) {
        return encode_llvm(op, idx, user, out, opts);
    }
    if let Some(code) = operand_free_code(op) {
        out.push(code);
        return Ok(());
    }
    let (asize, osize) = (opts.address_size, opts.offset_size);
    match op {
        Addr(a) => op_sized(out, 0x03, *a, asize),
        ConstU(size, v) => op_sized(out, const_code(*size, 0x08), *v, (*size).clamp(1, 8)),
        ConstS(size, v) => op_sized(out, const_code(*size, 0x09), *v as u64, (*size).clamp(1, 8)),
        Constu(v) => op_uleb(out, 0x10, *v),
        Consts(v) => op_sleb(out, 0x11, *v),
        Pick(i) => out.extend_from_slice(&[0x15, *i]),
        PlusUconst(v) => op_uleb(out, 0x23, *v),
        Bra { disp, .. } => op_bytes(out, 0x28, &disp.to_le_bytes()),
        Skip { disp, .. } => op_bytes(out, 0x2f, &disp.to_le_bytes()),
        Reg { reg, .. } => op_uleb(out, 0x90, *reg),
        Breg {
            reg,
            disp,
            short: true,
        } if *reg < 32 => op_sleb(out, 0x70 + *reg as u8, *disp),
        Breg { reg, disp, .. } => {
            op_uleb(out, 0x92, *reg);
            push_sleb(out, *disp);
        }
        Fbreg(d) => op_sleb(out, 0x91, *d),
        Piece(s) => op_uleb(out, 0x93, *s),
        DerefSize(s) => out.extend_from_slice(&[0x94, *s]),
        XderefSize(s) => out.extend_from_slice(&[0x95, *s]),
        Call2(o) => op_bytes(out, 0x98, &o.to_le_bytes()),
        Call4(o) => op_bytes(out, 0x99, &o.to_le_bytes()),
        CallRef(o) => op_sized(out, 0x9a, *o, osize),
        BitPiece { size, offset } => {
            op_uleb(out, 0x9d, *size);
            push_uleb(out, *offset);
        }
        ImplicitValue(b) => op_block(out, 0x9e, b),
        ImplicitPointer { die, disp } => {
            op_sized(out, 0xa0, *die, osize);
            push_sleb(out, *disp);
        }
        Addrx(i) => op_uleb(out, 0xa1, *i),
        Constx(i) => op_uleb(out, 0xa2, *i),
        EntryValue(b) => op_block(out, 0xa3, b),
        ConstType { die, bytes } => {
            op_uleb(out, 0xa4, *die);
            out.push(bytes.len().min(255) as u8);
            out.extend_from_slice(&bytes[..bytes.len().min(255)]);
        }
        RegvalType { reg, die } => {
            op_uleb(out, 0xa5, *reg);
            push_uleb(out, *die);
        }
        DerefType { size, die } => {
            out.extend_from_slice(&[0xa6, *size]);
            push_uleb(out, *die);
        }
        XderefType { size, die } => {
            out.extend_from_slice(&[0xa7, *size]);
            push_uleb(out, *die);
        }
        Convert(d) => op_uleb(out, 0xa8, *d),
        Reinterpret(d) => op_uleb(out, 0xa9, *d),
        LlvmNop if opts.dialect == Dialect::User => out.extend_from_slice(&[DW_OP_LLVM_USER, 0x01]),
        LlvmNop => return Err(EncodeError::NoCode("DW_OP_LLVM_nop")),
        other => return Err(EncodeError::NoCode(other.name(Form::Named))),
    }
    Ok(())
}

/// An AMDGPU operation of generation-A index `idx` (and `DW_OP_LLVM_user`
/// sub-operation `user`) in the dialect of `opts`, with its operands.
fn encode_llvm(
    op: &Op,
    idx: u8,
    user: Option<u8>,
    out: &mut Vec<u8>,
    opts: &DecodeOptions,
) -> std::result::Result<(), EncodeError> {
    match opts.dialect {
        Dialect::SingleByte => out.push(A_FIRST + idx),
        Dialect::User => {
            let Some(sub) = user else {
                return Err(EncodeError::NoCode(op.name(Form::User)));
            };
            out.push(DW_OP_LLVM_USER);
            out.push(sub);
        }
        Dialect::SeedTable => match op {
            Op::FormAspaceAddress => out.push(0xe7),
            Op::Offset => out.push(0xe9),
            Op::PushLane => out.push(0xea),
            _ => return Err(EncodeError::NoCode(op.name(Form::SeedTable))),
        },
    }
    encode_llvm_operands(op, out, opts);
    Ok(())
}

/// The code of a standard operation without operands (a table; [`decode_one`] maps
/// the codes back); `None` for the others.
fn operand_free_code(op: &Op) -> Option<u8> {
    use Op::*;
    Some(match op {
        Deref => 0x06,
        Dup => 0x12,
        Drop => 0x13,
        Over => 0x14,
        Swap => 0x16,
        Rot => 0x17,
        Xderef => 0x18,
        Abs => 0x19,
        And => 0x1a,
        Div => 0x1b,
        Minus => 0x1c,
        Mod => 0x1d,
        Mul => 0x1e,
        Neg => 0x1f,
        Not => 0x20,
        Or => 0x21,
        Plus => 0x22,
        Shl => 0x24,
        Shr => 0x25,
        Shra => 0x26,
        Xor => 0x27,
        Eq => 0x29,
        Ge => 0x2a,
        Gt => 0x2b,
        Le => 0x2c,
        Lt => 0x2d,
        Ne => 0x2e,
        Lit(n) => 0x30 + (n & 31),
        Reg { reg, short: true } if *reg < 32 => 0x50 + *reg as u8,
        Nop => 0x96,
        PushObjectAddress => 0x97,
        FormTlsAddress { gnu } => {
            if *gnu {
                0xe0
            } else {
                0x9b
            }
        }
        CallFrameCfa => 0x9c,
        StackValue => 0x9f,
        _ => return None,
    })
}

/// The code of `DW_OP_const<size>u` (`base` 0x08) or `DW_OP_const<size>s` (0x09).
fn const_code(size: u8, base: u8) -> u8 {
    match size {
        1 => base,
        2 => base + 2,
        4 => base + 4,
        _ => base + 6,
    }
}

/// `code`, then `v` in `size` bytes.
fn op_sized(out: &mut Vec<u8>, code: u8, v: u64, size: u8) {
    out.push(code);
    push_sized(out, v, size);
}

/// `code`, then `v` as unsigned LEB128.
fn op_uleb(out: &mut Vec<u8>, code: u8, v: u64) {
    out.push(code);
    push_uleb(out, v);
}

/// `code`, then `v` as signed LEB128.
fn op_sleb(out: &mut Vec<u8>, code: u8, v: i64) {
    out.push(code);
    push_sleb(out, v);
}

/// `code`, then the bytes `b`.
fn op_bytes(out: &mut Vec<u8>, code: u8, b: &[u8]) {
    out.push(code);
    out.extend_from_slice(b);
}

/// `code`, then the block `b`: its length as unsigned LEB128 and its bytes.
fn op_block(out: &mut Vec<u8>, code: u8, b: &[u8]) {
    out.push(code);
    push_uleb(out, b.len() as u64);
    out.extend_from_slice(b);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(d: Dialect) -> DecodeOptions {
        DecodeOptions {
            dialect: d,
            ..Default::default()
        }
    }

    #[test]
    fn llvm_ops_in_all_dialects() {
        let ops = vec![
            Op::Reg {
                reg: 2560,
                short: false,
            },
            Op::PushLane,
            Op::Lit(4),
            Op::Mul,
            Op::Offset,
            Op::OffsetUconst(20),
            Op::BitOffset,
            Op::CallFrameEntryReg(17),
            Op::Undefined,
            Op::AspaceBregx { reg: 33, disp: -16 },
            Op::PieceEnd,
            Op::Extend {
                bits: 64,
                count: 64,
            },
            Op::SelectBitPiece {
                bits: 64,
                count: 64,
            },
        ];
        for d in [Dialect::User, Dialect::SingleByte] {
            let bytes = encode(&ops, &opts(d)).expect("encodable");
            let e = Expr::decode(&bytes, &opts(d)).expect("decodes");
            let back: Vec<Op> = e.ops.iter().map(|d| d.op.clone()).collect();
            assert_eq!(back, ops, "{d:?}");
        }
        // Generation A and C differ in bytes.
        let a = encode(&[Op::PushLane], &opts(Dialect::SingleByte)).unwrap();
        let c = encode(&[Op::PushLane], &opts(Dialect::User)).unwrap();
        assert_eq!(a, vec![0xe2]);
        assert_eq!(c, vec![0xe9, 0x03]);
        let s = encode(&[Op::PushLane], &opts(Dialect::SeedTable)).unwrap();
        assert_eq!(s, vec![0xea]);
        assert!(encode(&[Op::Undefined], &opts(Dialect::SeedTable)).is_err());
        // Generation A only: aspace_implicit_pointer.
        let ip = [Op::AspaceImplicitPointer {
            die: 0x1234,
            disp: 3,
        }];
        assert!(encode(&ip, &opts(Dialect::User)).is_err());
        let b = encode(&ip, &opts(Dialect::SingleByte)).unwrap();
        assert_eq!(
            Expr::decode(&b, &opts(Dialect::SingleByte)).unwrap().ops[0].op,
            ip[0]
        );
    }

    #[test]
    fn user_sub_op_zero_is_reserved() {
        let e = Expr::decode(&[0xe9, 0x00], &opts(Dialect::User)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnknownUserOp(0));
        assert_eq!(e.offset, 0);
    }

    #[test]
    fn every_truncated_prefix_is_a_clean_error() {
        let ops = vec![
            Op::Addr(0x1122334455667788),
            Op::ConstU(8, 5),
            Op::Consts(-300),
            Op::Breg {
                reg: 1100,
                disp: -7,
                short: false,
            },
            Op::ImplicitValue(vec![1, 2, 3, 4].into()),
            Op::EntryValue(vec![0x50].into()),
            Op::ConstType {
                die: 0x40,
                bytes: vec![1, 0, 0, 0].into(),
            },
            Op::RegvalType { reg: 17, die: 0x40 },
            Op::Extend {
                bits: 64,
                count: 64,
            },
            Op::AspaceBregx {
                reg: 33,
                disp: 1 << 40,
            },
            Op::CallRef(0x1234),
            Op::Skip { disp: 0, target: 0 },
        ];
        let o = opts(Dialect::User);
        let bytes = encode(&ops, &o).unwrap();
        assert!(Expr::decode(&bytes, &o).is_ok());
        let full = Expr::decode(&bytes, &o).unwrap();
        let boundaries: Vec<usize> = full.ops.iter().map(|d| d.offset).collect();
        for cut in 0..bytes.len() {
            let r = Expr::decode(&bytes[..cut], &o);
            if boundaries.contains(&cut) {
                // A cut on an operation boundary decodes (the skip may then be dangling).
                if let Err(e) = r {
                    assert!(
                        matches!(e.kind, ErrorKind::BadBranchTarget(_)),
                        "{cut}: {e}"
                    );
                }
            } else {
                let e = r.expect_err("truncated");
                assert!(matches!(e.kind, ErrorKind::Truncated(_)), "{cut}: {e}");
            }
        }
    }

    #[test]
    fn branch_targets_resolve() {
        // lit1; bra +1 (over lit2); lit2; lit3
        let bytes = [0x31, 0x28, 0x01, 0x00, 0x32, 0x33];
        let e = Expr::decode(&bytes, &DecodeOptions::default()).unwrap();
        assert_eq!(e.ops[1].op, Op::Bra { disp: 1, target: 3 });
        // Into the middle of an operation: error.
        let bad = [0x2f, 0x01, 0x00, 0x10, 0x80, 0x01];
        let err = Expr::decode(&bad, &DecodeOptions::default()).unwrap_err();
        assert!(matches!(err.kind, ErrorKind::BadBranchTarget(_)));
    }

    #[test]
    fn extensions_opt_in() {
        let plain = DecodeOptions::default();
        assert!(Expr::decode(&[0xf8], &plain).is_err());
        let with = DecodeOptions {
            extensions: Extensions::proposals(),
            ..Default::default()
        };
        let e = Expr::decode(&[0xf8, 0xf9, 1, 0, 0, 0], &with).unwrap();
        assert_eq!(e.ops[0].op, Op::PushSimdLane);
        assert_eq!(e.ops[1].op, Op::ObjectMap(1));
    }
}

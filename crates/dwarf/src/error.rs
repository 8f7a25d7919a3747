//! Typed errors of decoding and evaluation.
//!
//! Every error names the byte offset of the operation (within its expression) and the
//! rule that was broken, so that a debugger can point at the culprit. Where the rule
//! comes from the DWARF 5 specification or from the AMDGPU extension text, the variant
//! documentation says which section.

use thiserror::Error;

/// A decoding or evaluation error, with the byte offset of the operation that caused it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("at offset {offset:#x}: {kind}")]
pub struct Error {
    /// Byte offset of the operation within the expression being decoded or evaluated
    /// (for errors raised inside a called procedure: the offset within that procedure).
    pub offset: usize,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl Error {
    /// Builds an error at `offset`.
    pub fn new(offset: usize, kind: ErrorKind) -> Self {
        Error { offset, kind }
    }
}

/// Result type of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// The rule broken, or the resource missing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ErrorKind {
    // ---- decoding (DWARF 5 section 2.5, 7.7.1) ----
    /// The expression ends in the middle of an operation's operands.
    #[error("truncated operation {0}")]
    Truncated(&'static str),
    /// The opcode byte is not assigned in the chosen dialect.
    #[error("unknown opcode {0:#04x}")]
    UnknownOpcode(u8),
    /// The DW_OP_LLVM_user sub-opcode is not assigned (sub-op 0 is reserved).
    #[error("unknown DW_OP_LLVM_user sub-operation {0:#x}")]
    UnknownUserOp(u64),
    /// An operand does not fit the range the operation allows.
    #[error("operand out of range in {op}: {what}")]
    OperandRange {
        /// Operation name.
        op: &'static str,
        /// Which operand and why.
        what: &'static str,
    },
    /// A branch target is not the start of an operation (DWARF 5 section 2.5.1.5).
    #[error("branch of {0} does not land on an operation boundary")]
    BadBranchTarget(&'static str),

    // ---- stack machine ----
    /// An operation needed more stack entries than there are.
    #[error("stack underflow in {0}")]
    StackUnderflow(&'static str),
    /// The stack depth cap was exceeded.
    #[error("stack depth limit {0} exceeded")]
    StackOverflow(usize),
    /// The iteration cap was exceeded (e.g. an infinite loop built with DW_OP_skip).
    #[error("iteration limit {0} exceeded")]
    IterationLimit(u64),
    /// The DWARF procedure call depth cap was exceeded.
    #[error("call depth limit {0} exceeded")]
    CallDepth(usize),
    /// The nesting cap of evaluations on separate stacks was exceeded.
    #[error("nesting limit {0} of separate-stack evaluations exceeded")]
    NestingLimit(usize),
    /// A stack entry has the wrong kind (value vs location description) and no implicit
    /// conversion applies (AMDGPU extension, "Expressions").
    #[error("{op}: {what}")]
    WrongKind {
        /// Operation name.
        op: &'static str,
        /// What was required.
        what: &'static str,
    },
    /// A stack operation touched an incomplete composite location description, which the
    /// extension text makes ill-formed ("Stack Operations").
    #[error("{0} accesses an incomplete composite location description")]
    IncompleteComposite(&'static str),
    /// Operands of a binary operation do not have the same base type (DWARF 5 section 2.5.1.4).
    #[error("{0}: operand types differ")]
    TypeMismatch(&'static str),
    /// The operation needs an integral base type.
    #[error("{0}: integral type required")]
    IntegralRequired(&'static str),
    /// The operation is not defined for this base type.
    #[error("{0}: unsupported for this base type")]
    UnsupportedType(&'static str),
    /// Division or remainder by zero.
    #[error("{0}: division by zero")]
    DivisionByZero(&'static str),
    /// A shift by a negative amount.
    #[error("{0}: negative shift amount")]
    NegativeShift(&'static str),
    /// A base type the evaluator cannot represent (encoding, size).
    #[error("unsupported base type: encoding {encoding:#x}, {byte_size} bytes")]
    BadBaseType {
        /// DW_ATE_* encoding.
        encoding: u8,
        /// Byte size.
        byte_size: u64,
    },
    /// Reinterpret between types of different size (DWARF 5 section 2.5.1.6).
    #[error("DW_OP_reinterpret between types of different size")]
    ReinterpretSize,

    // ---- location descriptions (AMDGPU extension, "Location Description Operations") ----
    /// A bit offset went below zero or past the end of the storage.
    #[error("{op}: bit offset {offset} outside storage of {size} bits")]
    OffsetOutOfRange {
        /// Operation name.
        op: &'static str,
        /// The offending bit offset (may be negative).
        offset: i128,
        /// Storage size in bits.
        size: u128,
    },
    /// Reading undefined storage (DW_OP_deref* rules).
    #[error("read of undefined storage")]
    ReadUndefined,
    /// Reading or writing past the end of a storage.
    #[error("access of {bits} bits at bit {offset} past the end of storage of {size} bits")]
    AccessOutOfRange {
        /// Bit offset of the access.
        offset: u128,
        /// Bits accessed.
        bits: u128,
        /// Storage size in bits.
        size: u128,
    },
    /// Writing implicit or undefined storage.
    #[error("storage is read-only ({0})")]
    ReadOnly(&'static str),
    /// An implicit pointer storage accessed in a way other than the permitted ones
    /// (AMDGPU extension, DW_OP_implicit_pointer).
    #[error("implicit pointer storage accessed in a way the rules do not allow")]
    ImplicitPointerAccess,
    /// Unknown DWARF address space for this target (AMDGPU "Address Space Mapping").
    #[error("unknown address space {0:#x}")]
    UnknownAddressSpace(u64),
    /// Unknown DWARF register number for this target (AMDGPU "Register Mapping").
    #[error("unknown register {0}")]
    UnknownRegister(u64),
    /// DW_OP_extend / DW_OP_select_bit_piece with a zero size or count, or a mask too
    /// narrow (AMDGPU extension).
    #[error("{op}: {what}")]
    BadComposite {
        /// Operation name.
        op: &'static str,
        /// The rule broken.
        what: &'static str,
    },
    /// DW_OP_piece_end without an incomplete composite on top of the stack.
    #[error("DW_OP_piece_end without an incomplete composite")]
    NoIncompleteComposite,
    /// A composite would be larger than the largest address space.
    #[error("composite larger than the largest address space")]
    CompositeTooLarge,
    /// A composite would stand for more parts than the cap (counted through nested
    /// composites), or have more pieces.
    #[error("composite of {parts} parts (at most {max})")]
    TooManyParts {
        /// The parts it would stand for.
        parts: u64,
        /// [`crate::location::MAX_COMPOSITE_PARTS`].
        max: u64,
    },
    /// A read through a location asks for more bytes than the cap.
    #[error("read of {bytes} bytes (at most {max})")]
    ReadTooLarge {
        /// Bytes asked for.
        bytes: u64,
        /// [`crate::eval::MAX_READ_BYTES`].
        max: u64,
    },
    /// Vector composites nested deeper than the cap.
    #[error("composites nested deeper than {0}")]
    CompositeTooDeep(u16),
    /// Too many single location descriptions in one location description.
    #[error("too many alternative locations ({0})")]
    TooManyLocations(usize),

    // ---- results ----
    /// The expression's result is not of the kind required by the context.
    #[error("result: {0}")]
    BadResult(&'static str),

    // ---- context and target ----
    /// The evaluation needs something the caller did not provide.
    #[error("{op} needs {what}, which is not available")]
    Unavailable {
        /// Operation name.
        op: &'static str,
        /// What is missing.
        what: &'static str,
    },
    /// The target failed to read or write state.
    #[error("target: {0}")]
    Target(String),
    /// The program data (DIEs, loclists, CFI) could not be read.
    #[error("program data: {0}")]
    Program(String),
    /// The value cannot be known from this expression under the compatibility reading in
    /// force (e.g. clang-19's private-address suffix in a form the producer does not emit,
    /// or an entry value a kernel cannot recover): reported instead of a guess.
    #[error("{op}: the value is not known ({why})")]
    ValueNotKnown {
        /// Operation name.
        op: &'static str,
        /// Why.
        why: &'static str,
    },
    /// An operation this crate decodes but whose semantics depend on a proposal that is
    /// not enabled.
    #[error("{0} is not enabled")]
    NotEnabled(&'static str),
}

impl From<crate::target::TargetError> for ErrorKind {
    fn from(e: crate::target::TargetError) -> Self {
        ErrorKind::Target(e.to_string())
    }
}

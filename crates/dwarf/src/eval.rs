//! The stack machine (AMDGPU extension, "Expressions"): a stack of values and location
//! descriptions, implicit conversions between them, and every operation's semantics.
//!
//! Evaluation reads live state through a [`Target`] and program data (DWARF procedures,
//! base types, frame base, CFI, .debug_addr) through a [`Context`]. It is bounded by an
//! iteration cap, a stack-depth cap and a call-depth cap; an ill-formed expression gives
//! an [`Error`] with the offset of the operation and the rule broken.

use crate::error::{Error, ErrorKind, Result};
use crate::location::{Loc, Part, ReadBits, Single, Storage, composite, push_part, read_bits};
use crate::op::{DecodeOptions, Expr, Op};
use crate::target::{AddressSpace, Target, register_size};
use crate::value::{BaseType, ImplicitPtr, Value, ValueType};
use bitvec::prelude::*;
use std::sync::Arc;

mod clang19;

/// A reference to a debugging information entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DieRef {
    /// Offset relative to the current unit (DW_OP_call2, DW_OP_call4, base types).
    Unit(u64),
    /// Offset in .debug_info (DW_OP_call_ref, DW_OP_implicit_pointer).
    Info(u64),
}

/// What a DW_OP_call* names (DWARF 5 section 2.5.1.5 as generalised by the extension).
#[derive(Debug, Clone)]
pub struct Callee {
    /// The expressions of the callee's DW_AT_location selected for the current PC (empty
    /// when the DIE has none; several when location-list entries overlap).
    pub exprs: Arc<[Arc<Expr>]>,
    /// Whether the DIE is a DW_TAG_dwarf_procedure (its expression then runs on the
    /// caller's stack).
    pub procedure: bool,
}

/// What DW_OP_implicit_pointer points to.
#[derive(Debug, Clone)]
pub enum PointerTarget {
    /// The DIE's DW_AT_location expression(s) for the current PC.
    Location(Vec<Arc<Expr>>),
    /// The DIE's DW_AT_const_value bytes.
    Const(Arc<[u8]>),
}

/// A DW_TAG_object_map entry (DWARF issue 230712.4), with its attribute expressions.
#[derive(Debug, Clone)]
pub struct ObjectMap {
    /// DW_AT_mem_location: the array's memory location.
    pub mem_location: Arc<Expr>,
    /// DW_AT_cntl_ordinal: the ordinal of the chunk currently in registers (0: none).
    pub chunk: Arc<Expr>,
    /// DW_AT_vec_location: the vector register(s) holding the chunk.
    pub vec_location: Arc<Expr>,
    /// DW_AT_element_size in bytes.
    pub element_size: u64,
    /// DW_AT_element_count per chunk.
    pub element_count: u64,
}

/// The default answer of [`Context`]'s methods: `what`, which `op` needs, is not there.
fn unavailable<T>(op: &'static str, what: &'static str) -> std::result::Result<T, ErrorKind> {
    Err(ErrorKind::Unavailable { op, what })
}

/// Program data an evaluation may need. Every method has a default that reports the
/// data as unavailable, so a caller implements only what its expressions use.
pub trait Context {
    /// The callee of DW_OP_call2/call4/call_ref.
    fn callee(&self, die: DieRef) -> std::result::Result<Callee, ErrorKind> {
        let _ = die;
        unavailable("DW_OP_call*", "DWARF procedures")
    }
    /// The callee of DW_OP_call2/call4/call_ref when the context holds it and can lend
    /// it for the evaluator's lifetime (saves reference counting on every call).
    /// Default: `None`, and [`Context::callee`] is asked.
    fn callee_ref(&self, die: DieRef) -> Option<&Callee> {
        let _ = die;
        None
    }
    /// The base type at a unit offset (DW_OP_const_type, regval_type, deref_type, convert,
    /// reinterpret).
    fn base_type(&self, die: u64) -> std::result::Result<BaseType, ErrorKind> {
        let _ = die;
        unavailable("typed operation", "base types")
    }
    /// The current function's DW_AT_frame_base expression when the context holds it and
    /// can lend it for the evaluator's lifetime. Default: `None`, and
    /// [`Context::frame_base`] is asked.
    fn frame_base_ref(&self) -> Option<&Expr> {
        None
    }
    /// The current function's DW_AT_frame_base expression for the current PC.
    fn frame_base(&self) -> std::result::Result<Arc<Expr>, ErrorKind> {
        unavailable("DW_OP_fbreg", "a frame base")
    }
    /// The CFA of the current frame (from CFI).
    fn call_frame_cfa(&self) -> std::result::Result<Loc, ErrorKind> {
        unavailable("DW_OP_call_frame_cfa", "call frame information")
    }
    /// Where register `reg` was on entry to the current subprogram (from CFI): an
    /// undefined location for the undefined rule, the register itself for same-value.
    fn entry_register(&self, reg: u64) -> std::result::Result<Loc, ErrorKind> {
        let _ = reg;
        unavailable("DW_OP_LLVM_call_frame_entry_reg", "call frame information")
    }
    /// Entry `index` of .debug_addr from the unit's DW_AT_addr_base (DW_OP_addrx,
    /// DW_OP_constx), relocated.
    fn address(&self, index: u64) -> std::result::Result<u64, ErrorKind> {
        let _ = index;
        unavailable("DW_OP_addrx", ".debug_addr")
    }
    /// Relocates a DW_OP_addr operand (code object load bias). Default: unchanged.
    fn relocate(&self, addr: u64) -> u64 {
        addr
    }
    /// What an implicit pointer's DIE holds.
    fn pointer_target(&self, die: u64) -> std::result::Result<PointerTarget, ErrorKind> {
        let _ = die;
        unavailable("implicit pointer", "DIEs")
    }
    /// DW_OP_object_map's DIE.
    fn object_map(&self, die: u64) -> std::result::Result<ObjectMap, ErrorKind> {
        let _ = die;
        unavailable("DW_OP_object_map", "DW_TAG_object_map entries")
    }
    /// Evaluates `expr` as if at entry to the current subprogram (DW_OP_entry_value of a
    /// non-register expression). Default: unavailable.
    fn entry_value(&self, expr: &Expr) -> std::result::Result<Value, ErrorKind> {
        let _ = expr;
        unavailable("DW_OP_entry_value", "entry state")
    }
}

/// The register `DW_AT_frame_base` names when it is a single `DW_OP_regx` (the frame
/// register); `None` when there is no frame base or it is another expression.
fn frame_register<C: Context + ?Sized>(ctx: &C) -> std::result::Result<Option<u64>, ErrorKind> {
    let reg = |e: &Expr| match e.ops.as_slice() {
        [d] => match d.op {
            Op::Reg { reg, .. } => Some(reg),
            _ => None,
        },
        _ => None,
    };
    if let Some(e) = ctx.frame_base_ref() {
        return Ok(reg(e));
    }
    match ctx.frame_base() {
        Ok(e) => Ok(reg(&e)),
        Err(ErrorKind::Unavailable { .. }) => Ok(None),
        Err(k) => Err(k),
    }
}

/// A context with no program data.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoContext;
impl Context for NoContext {}

/// Behaviours where other consumers differ from the extension's text. The defaults follow
/// the text; each flag selects another consumer's behaviour explicitly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Compat {
    /// DWARF 5 / gimli: DW_OP_regval_type, DW_OP_breg* and the frame-base register rule
    /// read a register narrower than the generic type zero-extended (the text would make
    /// reading 8 bytes from a 4-byte SGPR ill-formed). On by default in
    /// [`EvalOptions::default`], because clang-19 describes frame bases that way.
    pub narrow_register_reads: bool,
    /// Treat a trailing `DW_OP_xderef` as naming memory in the address space rather than
    /// reading it (how clang-19 -O0 output is meant by its producer). Off by default.
    pub xderef_forms_location: bool,
    /// Allow stack operations (dup, pick, over, swap, rot, drop) on incomplete composites
    /// (copies share nothing: each copy owns its parts). Off: the text makes it ill-formed.
    pub stack_ops_on_incomplete: bool,
    /// Read the address space operand of DW_OP_xderef* in clang's numbering (its
    /// `getDWARFAddressSpace`: 1 = private, 2 = local) instead of the seed's DW_ASPACE_*
    /// table (where 1 is generic and 2 is region). clang-19 emits
    /// `DW_OP_lit1, DW_OP_swap, DW_OP_xderef` for private and `DW_OP_lit2, ...` for LDS.
    pub clang_address_spaces: bool,
    /// The frame-base register holds a wave-scaled private offset (MUBUF scratch on
    /// GFX9/GFX10: the lane address times the wave size); divide it by the wave size.
    pub frame_base_wave_scaled: bool,
    /// DW_OP_breg*/DW_OP_bregx of a vector register reads the focused lane's dword (how
    /// clang-19 -O2 output computes per-lane values from VGPRs without
    /// DW_OP_LLVM_push_lane). The text reads the register's leading bytes (lanes 0, 1).
    pub vector_breg_per_lane: bool,
    /// Read clang's private-address suffix after a register or a computed value as
    /// clang-19 `-O2` means it: the variable is the register or the value, not private
    /// memory at that address. Off by default (the text reads the register's value as an
    /// address in DW_ASPACE_AMDGPU_generic and dereferences it).
    ///
    /// clang-19 gives every OpenCL variable of the private address space the suffix
    /// `DW_OP_lit1, DW_OP_swap, DW_OP_xderef` (1 is private in clang's numbering). At
    /// `-O0` it follows `DW_OP_fbreg N` and names the lane's private memory at frame
    /// offset `N` (see [`Compat::xderef_forms_location`]). At `-O2` the variable is
    /// promoted to a register and the suffix stays after the register's value. Per piece
    /// (the operations before each `DW_OP_piece` / `DW_OP_bit_piece`, or the whole
    /// expression), with `R` a register and `+ suffix` the three operations:
    ///
    /// | clang-19 emits | read as |
    /// |---|---|
    /// | `DW_OP_fbreg N` + suffix | private memory at frame offset `N` (unchanged) |
    /// | `DW_OP_breg* F+N` + suffix, `F` the register of `DW_AT_frame_base` = `DW_OP_regx F` | as `DW_OP_fbreg N` |
    /// | `DW_OP_bregx R+0` + suffix, `DW_OP_regx R` + suffix | register `R` |
    /// | `DW_OP_bregx R+D` + suffix | the value of `R` plus `D` (an implicit value) |
    /// | value operations + suffix + `DW_OP_stack_value` | the value the operations compute |
    ///
    /// A vector register (VGPR, AGPR) stands for the focused lane's 4-byte element, as
    /// `DW_OP_regx R, DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, DW_OP_LLVM_offset`
    /// would name it (clang-19 writes no lane operation), also where a `DW_OP_breg*`
    /// of it appears among value operations. A register's result is bounded to its
    /// element (4 bytes for a vector register, the register's size otherwise): a wider
    /// piece is refused, and reading past it is an access error, never the next lane's
    /// bytes. Register locations are writable; values are not.
    ///
    /// Anything else that carries the suffix is refused with
    /// [`ErrorKind::ValueNotKnown`] rather than read one way or the other: more
    /// operations around a register, a constant without `DW_OP_stack_value`, a value
    /// computed from the frame base or frame register, `DW_OP_entry_value`,
    /// `DW_OP_regval_type` or `DW_OP_LLVM_aspace_bregx` (which name no lane), a memory
    /// read before the suffix, the suffix twice in a piece, and control flow.
    pub private_suffix_on_values: bool,
    /// A location that is a vector register with no lane operation (a piece that is
    /// exactly `DW_OP_regx VGPRn`, or an AGPR) is the focused lane's 4-byte element, as
    /// `DW_OP_regx R, DW_OP_LLVM_push_lane, DW_OP_lit4, DW_OP_mul, DW_OP_LLVM_offset`
    /// would name it, bounded to that element. clang (hipcc's clang-15 and clang-19)
    /// describes HIP variables promoted to VGPRs at `-O2` so (generic address space,
    /// hence no private-address suffix): the text's reading, the register's leading
    /// bytes, would show lane 0's value for every lane. A 64-bit variable comes as two
    /// such pieces of 4 bytes each; a wider piece of one register is an access error
    /// when read. Off by default.
    pub vector_register_per_lane: bool,
    /// DW_OP_entry_value is not known: a kernel has no caller, and clang-19's CFI for
    /// AMDGPU does not say where a register's value on entry went, so reading the current
    /// register (the same-value default) could give a later value. Refused with
    /// [`ErrorKind::ValueNotKnown`].
    pub entry_values_unknown: bool,
}

impl Compat {
    /// The reading of clang-19 output: narrow register reads, DW_OP_xderef naming memory
    /// in clang's address-space numbering, (for MUBUF scratch targets) a wave-scaled
    /// frame base, registers and values under the private-address suffix read as the
    /// variable's value (-O2), and no entry values.
    pub fn clang19(wave_scaled_frame_base: bool) -> Self {
        Compat {
            narrow_register_reads: true,
            xderef_forms_location: true,
            stack_ops_on_incomplete: false,
            clang_address_spaces: true,
            frame_base_wave_scaled: wave_scaled_frame_base,
            vector_breg_per_lane: true,
            private_suffix_on_values: true,
            vector_register_per_lane: true,
            entry_values_unknown: true,
        }
    }
}

/// Limits and configuration of an evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalOptions {
    /// Maximum operations executed (all calls included).
    pub max_iterations: u64,
    /// Maximum stack depth.
    pub max_stack: usize,
    /// Maximum DWARF procedure call depth (procedures share the caller's stack and run on
    /// an explicit frame stack).
    pub max_call_depth: usize,
    /// Maximum nesting of evaluations on separate stacks (a call of a non-procedure DIE,
    /// the frame base, an implicit pointer's target, an object map's expressions). Each
    /// level uses native stack, so this cap is smaller.
    pub max_nesting: usize,
    /// Maximum number of single location descriptions in one location.
    pub max_alternatives: usize,
    /// Decoding options (for DW_OP_entry_value sub-expressions; address size).
    pub decode: DecodeOptions,
    /// Whether the proposals (DW_OP_push_simd_lane, DW_OP_object_map) may execute.
    pub proposals: bool,
    /// Compatibility choices.
    pub compat: Compat,
    /// Run expressions of generic values only on the fast path (same results; off to
    /// compare against the general evaluator).
    pub fast_path: bool,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            max_iterations: 1_000_000,
            max_stack: 1024,
            max_call_depth: 64,
            max_nesting: 16,
            max_alternatives: 64,
            decode: DecodeOptions::default(),
            proposals: false,
            compat: Compat {
                narrow_register_reads: true,
                ..Compat::default()
            },
            fast_path: true,
        }
    }
}

/// A stack entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// A typed value.
    Value(Value),
    /// A location description.
    Loc(Loc),
    /// An incomplete composite location description (DW_OP_piece under way).
    Incomplete(Vec<Part>),
    /// A DW_OP_LLVM_extend result, a composite location description built when first
    /// used other than by DW_OP_LLVM_select_bit_piece (which selects from its element
    /// directly).
    Extended(crate::location::Extended),
}

/// The kind of result the context of an expression requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultKind {
    /// A value (e.g. DW_AT_upper_bound, DW_AT_LLVM_active_lane).
    Value,
    /// A location description (DW_AT_location, DW_AT_LLVM_lane_pc, ...).
    Location,
}

/// The result of an evaluation.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A value.
    Value(Value),
    /// A location description.
    Location(Loc),
}

/// The evaluator. Reuse one across evaluations to reuse its stack allocation.
pub struct Evaluator<'a, T: Target + ?Sized, C: Context + ?Sized> {
    target: &'a T,
    ctx: &'a C,
    opts: EvalOptions,
    mask: u64,
    addr_size: u8,
    stack: Vec<Entry>,
    iterations: u64,
    object: Option<Loc>,
    depth: usize,
    nesting: usize,
    spare: Vec<Vec<Entry>>,
    frames: Vec<(Option<Code<'a>>, usize)>,
    fault: Option<usize>,
    pending: Option<Code<'a>>,
    /// The pieces of a variable's location read right where the fast path built them
    /// (see [`Evaluator::call_deref`]); kept for its allocation.
    part_buf: Vec<Part>,
    /// Whether `part_buf` holds the pieces of the last [`Evaluator::fast_inline`] of kind
    /// `KEEP`.
    parts_kept: bool,
}

/// A location operation's result on the fast path, waiting for the piece that consumes
/// it: held compactly, the single location description formed where it is stored.
#[derive(Clone, Copy)]
enum Pend<'e> {
    /// DW_OP_reg*.
    Reg(u32),
    /// DW_OP_stack_value of a generic value.
    Stack(u64),
    /// DW_OP_implicit_value.
    Implicit(&'e Arc<[u8]>),
}

impl<'e> Pend<'e> {
    #[inline(always)]
    fn single(self, addr_size: u8) -> Single {
        match self {
            Pend::Reg(r) => Single::register(r),
            Pend::Stack(v) => Single::implicit(crate::location::ImplicitBytes::from_le_u64(
                v,
                usize::from(addr_size),
            )),
            Pend::Implicit(b) => Single::implicit(b),
        }
    }

    /// The pending location of `DW_OP_reg*`, `DW_OP_stack_value` (popping the value)
    /// or `DW_OP_implicit_value`; `None` for an unknown register or an empty stack.
    #[inline(always)]
    fn of(op: &'e Op, s: &mut FastStack) -> Option<Self> {
        Some(match op {
            Op::Reg { reg, .. } => {
                register_size(*reg)?;
                Pend::Reg(*reg as u32)
            }
            Op::StackValue => Pend::Stack(s.pop()?),
            Op::ImplicitValue(b) => Pend::Implicit(b),
            _ => return None,
        })
    }
}

/// The fast path's stack of generic values, on a fixed array. An incomplete composite
/// sits at depth `floor`: the values below it are out of reach. Each operation gives
/// `None` where the general evaluator must run instead (too deep, or out of reach).
/// The array is borrowed, so that the other fields can live in registers.
struct FastStack<'s> {
    st: &'s mut [u64; FAST_DEPTH],
    sp: usize,
    floor: usize,
}

/// The deepest stack the fast path holds.
const FAST_DEPTH: usize = 16;

impl<'s> FastStack<'s> {
    /// An empty stack on `st`.
    #[inline(always)]
    fn new(st: &'s mut [u64; FAST_DEPTH]) -> Self {
        FastStack {
            st,
            sp: 0,
            floor: 0,
        }
    }

    /// Pops the top value.
    #[inline(always)]
    fn pop(&mut self) -> Option<u64> {
        if self.sp <= self.floor {
            return None;
        }
        self.sp -= 1;
        Some(self.st[self.sp])
    }

    /// Pushes `v`.
    #[inline(always)]
    fn push(&mut self, v: u64) -> Option<()> {
        *self.st.get_mut(self.sp)? = v;
        self.sp += 1;
        Some(())
    }

    /// The value `i` entries below the top.
    #[inline(always)]
    fn peek(&self, i: usize) -> Option<u64> {
        let i = self.sp.checked_sub(1 + i)?;
        if i < self.floor {
            return None;
        }
        Some(self.st[i])
    }

    /// `DW_OP_drop`.
    #[inline(always)]
    fn drop(&mut self) -> Option<()> {
        self.pop().map(|_| ())
    }

    /// `DW_OP_swap`.
    #[inline(always)]
    fn swap(&mut self) -> Option<()> {
        if self.sp < self.floor + 2 {
            return None;
        }
        self.st.swap(self.sp - 1, self.sp - 2);
        Some(())
    }

    /// `DW_OP_rot`.
    #[inline(always)]
    fn rot(&mut self) -> Option<()> {
        if self.sp < self.floor + 3 {
            return None;
        }
        self.st[self.sp - 3..self.sp].rotate_right(1);
        Some(())
    }

    /// Replaces the top value `a` with `f(a)`.
    #[inline(always)]
    fn unary(&mut self, f: impl FnOnce(u64) -> u64) -> Option<()> {
        let a = self.pop()?;
        self.push(f(a))
    }

    /// Replaces the top two values `a`, `b` (top) with `f(a, b)`.
    #[inline(always)]
    fn binary(&mut self, f: impl FnOnce(u64, u64) -> u64) -> Option<()> {
        let b = self.pop()?;
        let a = self.pop()?;
        self.push(f(a, b))
    }

    /// A [`Value`] operation of the top value, with the generic type's mask `m`;
    /// `None` when it fails or does not give a generic value.
    #[inline(always)]
    fn value_unary(
        &mut self,
        m: u64,
        f: impl FnOnce(&Value, u64) -> std::result::Result<Value, ErrorKind>,
    ) -> Option<()> {
        let a = Value::Generic(self.pop()?);
        match f(&a, m).ok()? {
            Value::Generic(v) => self.push(v),
            _ => None,
        }
    }

    /// A [`Value`] operation of the top two values, as [`FastStack::value_unary`].
    #[inline(always)]
    fn value_binary(
        &mut self,
        m: u64,
        f: impl FnOnce(&Value, &Value, u64) -> std::result::Result<Value, ErrorKind>,
    ) -> Option<()> {
        let b = self.pop()?;
        let a = self.pop()?;
        match f(&Value::Generic(a), &Value::Generic(b), m).ok()? {
            Value::Generic(v) => self.push(v),
            _ => None,
        }
    }

    /// A comparison of the top two values as signed generic values of the mask `m`:
    /// 1 when `f` of their ordering holds, else 0.
    #[inline(always)]
    fn compare(&mut self, m: u64, f: impl FnOnce(std::cmp::Ordering) -> bool) -> Option<()> {
        let b = self.pop()?;
        let a = self.pop()?;
        let sx = |x: u64| {
            let sign = (m >> 1) + 1;
            ((x & m) ^ sign).wrapping_sub(sign) as i64
        };
        self.push(u64::from(f(sx(a).cmp(&sx(b)))))
    }
}

/// The expression a DWARF procedure frame runs: lent by the context, or shared.
enum Code<'a> {
    Borrowed(&'a Expr),
    Owned(Arc<Expr>),
}

impl Code<'_> {
    fn ops(&self) -> &[crate::op::Decoded] {
        match self {
            Code::Borrowed(e) => &e.ops,
            Code::Owned(e) => &e.ops,
        }
    }
}

/// Results inside the evaluator: the error boxed, so that results are a register or two
/// wide (the error kind is large; errors are rare).
type R<T> = std::result::Result<T, Box<ErrorKind>>;

/// An error result of the evaluator.
#[cold]
fn fail<T>(k: ErrorKind) -> R<T> {
    Err(Box::new(k))
}

impl<'a, T: Target + ?Sized, C: Context + ?Sized> Evaluator<'a, T, C> {
    /// A new evaluator over a target and program data.
    pub fn new(target: &'a T, ctx: &'a C, opts: EvalOptions) -> Self {
        let addr_size = opts.decode.address_size.clamp(1, 8);
        let mask = if addr_size >= 8 {
            u64::MAX
        } else {
            (1u64 << (u64::from(addr_size) * 8)) - 1
        };
        Evaluator {
            target,
            ctx,
            opts,
            mask,
            addr_size,
            stack: Vec::with_capacity(16),
            iterations: 0,
            object: None,
            depth: 0,
            nesting: 0,
            spare: Vec::new(),
            frames: Vec::new(),
            fault: None,
            pending: None,
            part_buf: Vec::new(),
            parts_kept: false,
        }
    }

    /// Sets the location DW_OP_push_object_address pushes.
    pub fn set_object(&mut self, object: Option<Loc>) {
        self.object = object;
    }

    /// The options.
    pub fn options(&self) -> &EvalOptions {
        &self.opts
    }

    /// Evaluates `expr` for a location description.
    pub fn location(&mut self, expr: &Expr) -> Result<Loc> {
        // The fast path inlined here, its result returned directly (so it is built where
        // it is returned).
        if let Some(o) = self.fast_path(expr, ResultKind::Location, &[]) {
            return match o {
                Outcome::Location(l) => Ok(l),
                Outcome::Value(_) => {
                    Err(Error::new(expr.len, ErrorKind::BadResult("not a location")))
                }
            };
        }
        match self.general(expr, ResultKind::Location, &[])? {
            Outcome::Location(l) => Ok(l),
            Outcome::Value(_) => Err(Error::new(expr.len, ErrorKind::BadResult("not a location"))),
        }
    }

    /// Evaluates `expr` for a value.
    pub fn value(&mut self, expr: &Expr) -> Result<Value> {
        if let Some(o) = self.fast_path(expr, ResultKind::Value, &[]) {
            return match o {
                Outcome::Value(v) => Ok(v),
                Outcome::Location(_) => {
                    Err(Error::new(expr.len, ErrorKind::BadResult("not a value")))
                }
            };
        }
        match self.general(expr, ResultKind::Value, &[])? {
            Outcome::Value(v) => Ok(v),
            Outcome::Location(_) => Err(Error::new(expr.len, ErrorKind::BadResult("not a value"))),
        }
    }

    /// The fast path when it applies (no initial stack, an expression of generic values).
    #[inline(always)]
    fn fast_path(&mut self, expr: &Expr, kind: ResultKind, initial: &[Entry]) -> Option<Outcome> {
        if initial.is_empty()
            && self.opts.fast_path
            && expr.is_fast()
            && !(self.opts.compat.vector_register_per_lane && clang19::has_bare_vector(expr))
        {
            self.fast_inline::<false>(expr, kind, 0)
        } else {
            None
        }
    }

    /// Evaluates `expr` with an initial stack, for a result of `kind`.
    pub fn evaluate(
        &mut self,
        expr: &Expr,
        kind: ResultKind,
        initial: &[Entry],
    ) -> Result<Outcome> {
        if let Some(o) = self.fast_path(expr, kind, initial) {
            return Ok(o);
        }
        self.general(expr, kind, initial)
    }

    /// The general evaluator (after clang-19's private-address suffix is read as its
    /// producer means it, when [`Compat::private_suffix_on_values`] asks for it).
    fn general(&mut self, expr: &Expr, kind: ResultKind, initial: &[Entry]) -> Result<Outcome> {
        if self.opts.compat.private_suffix_on_values {
            let ctx: &'a C = self.ctx;
            let mut frame_register = || frame_register(ctx);
            if let Some(e) = clang19::rewrite(expr, &self.opts.compat, &mut frame_register)? {
                return self.general_run(&e, kind, initial);
            }
        }
        self.general_run(expr, kind, initial)
    }

    fn general_run(&mut self, expr: &Expr, kind: ResultKind, initial: &[Entry]) -> Result<Outcome> {
        self.stack.clear();
        self.stack.extend_from_slice(initial);
        self.iterations = 0;
        self.fault = None;
        self.depth = 0;
        self.nesting = 0;
        self.pending = None;
        if let Err(k) = self.run_depth(expr, 0) {
            return Err(Error::new(self.fault.take().unwrap_or(0), *k));
        }
        let end = expr.len;
        self.finish(kind).map_err(|k| Error::new(end, *k))
    }

    /// The fast path: expressions of generic values only, on a fixed array. Returns `None`
    /// whenever anything is out of the ordinary (an error, a stack deeper than the array,
    /// a location operation before the end); the general evaluator then runs and gives
    /// the exact result or error.
    /// The address the frame base `fb` gives on the fast path (a register holding it, as
    /// the AMDGPU extension's DW_AT_frame_base rule reads it, or a memory location in the
    /// default address space). A plain address is returned, so nothing large is copied.
    #[inline(never)]
    fn fast_frame_base(&mut self, fb: &Expr, depth: u32) -> Option<u64> {
        match self.fast_inline::<false>(fb, ResultKind::Location, depth)? {
            Outcome::Location(Loc::One(Single {
                storage: Storage::Register(r),
                offset: 0,
            })) => {
                let mut v = self
                    .read_reg_uint(u64::from(r), self.addr_size, "DW_OP_fbreg")
                    .ok()?;
                if self.opts.compat.frame_base_wave_scaled {
                    v /= u64::from(self.target.wave_size().max(1));
                }
                Some(v)
            }
            Outcome::Location(Loc::One(s)) => s.as_default_address(),
            _ => None,
        }
    }

    #[inline(never)]
    fn fast(&mut self, expr: &Expr, kind: ResultKind, depth: u32) -> Option<Outcome> {
        self.fast_inline::<false>(expr, kind, depth)
    }

    /// [`Evaluator::fast`], inlined where the result is used (so it is built in place).
    /// With `KEEP`, a composite result's pieces are left in `part_buf` (`parts_kept` set,
    /// the outcome then an undefined placeholder) instead of being built.
    #[inline(always)]
    fn fast_inline<const KEEP: bool>(
        &mut self,
        expr: &Expr,
        kind: ResultKind,
        depth: u32,
    ) -> Option<Outcome> {
        use Op::*;
        let m = self.mask;
        let bits = u64::from(64 - m.leading_zeros());
        let mut st = [0u64; FAST_DEPTH];
        let mut s = FastStack::new(&mut st);
        // Pieces: the incomplete composite sits at stack depth `s.floor` (values pushed
        // before the first piece stay below it, out of reach: touching them is ill-formed).
        let mut parts: Option<Vec<Part>> = None;
        // A location operation's result, waiting for the piece that consumes it.
        let mut pending: Option<Pend<'_>> = None;
        let mut pc = 0usize;
        let mut iters = 0u64;
        let last = expr.ops.len().checked_sub(1);
        while let Some(d) = expr.ops.get(pc) {
            iters += 1;
            if iters > self.opts.max_iterations {
                return None;
            }
            if pending.is_some() && !matches!(d.op, Piece(_) | BitPiece { .. }) {
                return None;
            }
            match &d.op {
                Lit(n) => s.push(u64::from(*n))?,
                ConstU(_, v) | Constu(v) => s.push(v & m)?,
                ConstS(_, v) | Consts(v) => s.push(*v as u64 & m)?,
                Addr(a) => s.push(self.ctx.relocate(*a) & m)?,
                Breg { reg, disp, .. } => s.push(self.fast_breg(*reg, *disp)?)?,
                Fbreg(disp) => s.push(self.fast_fbreg(*disp, depth)?)?,
                Dup => s.push(s.peek(0)?)?,
                Drop => s.drop()?,
                Over => s.push(s.peek(1)?)?,
                Pick(i) => s.push(s.peek(usize::from(*i))?)?,
                Swap => s.swap()?,
                Rot => s.rot()?,
                Deref => self.fast_deref(&mut s, self.addr_size)?,
                DerefSize(n) if *n >= 1 && *n <= self.addr_size => self.fast_deref(&mut s, *n)?,
                Abs => s.value_unary(m, Value::abs)?,
                Neg => s.value_unary(m, Value::neg)?,
                Not => s.value_unary(m, Value::not)?,
                PlusUconst(c) => s.unary(|a| a.wrapping_add(*c) & m)?,
                Plus => s.binary(|a, b| a.wrapping_add(b) & m)?,
                Minus => s.binary(|a, b| a.wrapping_sub(b) & m)?,
                Mul => s.binary(|a, b| a.wrapping_mul(b) & m)?,
                And => s.binary(|a, b| a & b & m)?,
                Or => s.binary(|a, b| (a | b) & m)?,
                Xor => s.binary(|a, b| (a ^ b) & m)?,
                Shl => s.binary(|a, b| if b >= bits { 0 } else { ((a & m) << b) & m })?,
                Shr => s.binary(|a, b| if b >= bits { 0 } else { (a & m) >> b })?,
                Div => s.value_binary(m, Value::div)?,
                Mod => s.value_binary(m, Value::rem)?,
                Shra => s.value_binary(m, Value::shra)?,
                Eq => s.compare(m, std::cmp::Ordering::is_eq)?,
                Ge => s.compare(m, std::cmp::Ordering::is_ge)?,
                Gt => s.compare(m, std::cmp::Ordering::is_gt)?,
                Le => s.compare(m, std::cmp::Ordering::is_le)?,
                Lt => s.compare(m, std::cmp::Ordering::is_lt)?,
                Ne => s.compare(m, std::cmp::Ordering::is_ne)?,
                Skip { target, .. } => {
                    pc = *target;
                    continue;
                }
                Bra { target, .. } => {
                    if s.pop()? != 0 {
                        pc = *target;
                        continue;
                    }
                }
                Nop => {}
                // Location operations: as the final operation (the result), or right before
                // a piece.
                Reg { .. } | StackValue | ImplicitValue(_) => {
                    let p = Pend::of(&d.op, &mut s)?;
                    if Some(pc) == last && parts.is_none() && kind == ResultKind::Location {
                        return Some(Outcome::Location(Loc::One(p.single(self.addr_size))));
                    }
                    pending = Some(p);
                }
                Piece(_) | BitPiece { .. } => {
                    self.fast_piece::<KEEP>(&d.op, &mut s, &mut parts, pending.take())?
                }
                _ => return None,
            }
            pc += 1;
        }
        if pending.is_some() {
            return None;
        }
        self.fast_result::<KEEP>(kind, &s, parts)
    }

    /// `DW_OP_breg<n>`/`DW_OP_bregx` on the fast path: register `reg` plus `disp`.
    #[inline(always)]
    fn fast_breg(&self, reg: u64, disp: i64) -> Option<u64> {
        let v = self.read_reg_uint(reg, self.addr_size, "DW_OP_breg").ok()?;
        Some(v.wrapping_add(disp as u64) & self.mask)
    }

    /// `DW_OP_fbreg` on the fast path (outside DWARF procedures only): the frame base,
    /// itself evaluated on the fast path, plus `disp`.
    #[inline]
    fn fast_fbreg(&mut self, disp: i64, depth: u32) -> Option<u64> {
        if depth > 0 {
            return None;
        }
        let ctx: &'a C = self.ctx;
        let owned;
        let fb: &Expr = match ctx.frame_base_ref() {
            Some(e) => e,
            None => {
                owned = self.ctx.frame_base().ok()?;
                &owned
            }
        };
        if !fb.is_fast() {
            return None;
        }
        let base = self.fast_frame_base(fb, depth + 1)?;
        // As DW_OP_LLVM_offset: no wrapping, the result must stay in the space.
        let a = i128::from(base) + i128::from(disp);
        if a < 0 || a > i128::from(self.mask) {
            return None;
        }
        Some(a as u64)
    }

    /// `DW_OP_deref` and `DW_OP_deref_size` on the fast path: `size` bytes read at the
    /// popped address of the default address space, zero-extended.
    #[inline(always)]
    fn fast_deref(&self, s: &mut FastStack, size: u8) -> Option<()> {
        let a = s.pop()?;
        let mut b = [0u8; 8];
        crate::target::read_aspace(
            self.target,
            AddressSpace::Global,
            a,
            &mut b[..usize::from(size)],
        )
        .ok()?;
        s.push(u64::from_le_bytes(b))
    }

    /// `DW_OP_piece` and `DW_OP_bit_piece` (without a bit offset) on the fast path: the
    /// pending location, the address on top, or nothing (undefined) becomes the next
    /// part of the one composite the fast path holds.
    #[inline(always)]
    fn fast_piece<const KEEP: bool>(
        &mut self,
        op: &Op,
        s: &mut FastStack,
        parts: &mut Option<Vec<Part>>,
        pending: Option<Pend<'_>>,
    ) -> Option<()> {
        let (nbits, off) = match op {
            Op::Piece(n) => (n.checked_mul(8)?, 0),
            Op::BitPiece { size, offset } => (*size, *offset),
            _ => return None,
        };
        if off != 0 {
            // A bit offset into the piece's location: the general path.
            return None;
        }
        let pl = match pending {
            Some(p) => p.single(self.addr_size),
            None if s.sp > s.floor => Single::memory(AddressSpace::Global, s.pop()? & self.mask),
            None => Single::undefined(),
        };
        if parts.is_none() {
            s.floor = s.sp;
        } else if s.sp > s.floor {
            // A value lies between the incomplete composite and this piece: the
            // piece starts a second composite, which only the general path holds.
            return None;
        }
        let p = parts.get_or_insert_with(|| {
            if KEEP {
                let mut v = std::mem::take(&mut self.part_buf);
                v.clear();
                v
            } else {
                Vec::with_capacity(4)
            }
        });
        crate::location::push_single(p, pl, nbits).ok()
    }

    /// The fast path's result of kind `kind` from its final stack and pieces (with
    /// `KEEP`, a composite's pieces left in `part_buf`).
    #[inline(always)]
    fn fast_result<const KEEP: bool>(
        &mut self,
        kind: ResultKind,
        s: &FastStack,
        parts: Option<Vec<Part>>,
    ) -> Option<Outcome> {
        Some(match (kind, s.sp > s.floor, parts) {
            (ResultKind::Location, false, Some(p)) if KEEP => {
                self.part_buf = p;
                self.parts_kept = true;
                Outcome::Location(Loc::One(Single::undefined()))
            }
            (ResultKind::Location, false, Some(p)) => Outcome::Location(Loc::One(composite(p))),
            (ResultKind::Location, false, None) => Outcome::Location(Loc::One(Single::undefined())),
            (ResultKind::Location, true, _) => Outcome::Location(Loc::One(Single::memory(
                AddressSpace::Global,
                s.st[s.sp - 1] & self.mask,
            ))),
            (ResultKind::Value, true, _) => Outcome::Value(Value::Generic(s.st[s.sp - 1])),
            (ResultKind::Value, false, _) => return None,
        })
    }

    fn finish(&mut self, kind: ResultKind) -> R<Outcome> {
        let top = self.stack.pop();
        self.stack.clear();
        match kind {
            ResultKind::Location => Ok(Outcome::Location(match top {
                None => Loc::One(Single::undefined()),
                Some(Entry::Incomplete(parts)) => Loc::One(composite(parts)),
                Some(e) => self.loc_of(e, "result")?,
            })),
            ResultKind::Value => match top {
                Some(e @ (Entry::Value(_) | Entry::Loc(_) | Entry::Extended(_))) => {
                    Ok(Outcome::Value(self.to_value(e, "result")?))
                }
                Some(Entry::Incomplete(_)) => fail(ErrorKind::BadResult(
                    "an incomplete composite is not a value",
                )),
                None => fail(ErrorKind::BadResult("empty stack has no value")),
            },
        }
    }

    // ---- stack helpers ----

    #[inline(always)]
    fn push(&mut self, e: Entry) -> R<()> {
        if self.stack.len() >= self.opts.max_stack {
            return fail(ErrorKind::StackOverflow(self.opts.max_stack));
        }
        // `Vec::push` is not inlined here, and its copy of the entry (built just before
        // with narrow stores, read back with wide loads) stalled on store forwarding;
        // written in place, the entry is built where it lands.
        if self.stack.len() == self.stack.capacity() {
            self.stack.reserve(16);
        }
        let len = self.stack.len();
        if let Some(slot) = self.stack.spare_capacity_mut().first_mut() {
            slot.write(e);
            // SAFETY: the element at `len`, the first of the spare capacity, was
            // initialised just above, and `len + 1` is within the capacity.
            unsafe { self.stack.set_len(len + 1) };
        }
        Ok(())
    }

    fn pop(&mut self, op: &'static str) -> R<Entry> {
        match self.stack.pop() {
            Some(e) => Ok(e),
            None => fail(ErrorKind::StackUnderflow(op)),
        }
    }

    fn pop_value(&mut self, op: &'static str) -> R<Value> {
        let e = self.pop(op)?;
        self.to_value(e, op)
    }

    #[inline(always)]
    fn pop_loc(&mut self, op: &'static str) -> R<Loc> {
        // The usual case inline (the location moves straight from its stack slot to
        // where it is used); conversions and errors out of line.
        match self.stack.pop() {
            Some(Entry::Loc(l)) => Ok(l),
            e => self.pop_loc_slow(e, op),
        }
    }

    #[cold]
    #[inline(never)]
    fn pop_loc_slow(&mut self, e: Option<Entry>, op: &'static str) -> R<Loc> {
        match e {
            Some(e) => self.loc_of(e, op),
            None => fail(ErrorKind::StackUnderflow(op)),
        }
    }

    /// Pops an operand of DW_OP_LLVM_select_bit_piece (an unbuilt extend stays so).
    #[inline(always)]
    fn pop_operand(&mut self, op: &'static str) -> R<crate::location::VecOperand> {
        match self.stack.pop() {
            Some(Entry::Extended(x)) => Ok(crate::location::VecOperand::Extended(x)),
            Some(Entry::Loc(l)) => Ok(crate::location::VecOperand::Loc(l)),
            e => Ok(crate::location::VecOperand::Loc(self.pop_loc_slow(e, op)?)),
        }
    }

    #[inline(always)]
    fn pop_integral(&mut self, op: &'static str) -> R<Value> {
        match self.stack.pop() {
            Some(Entry::Value(v)) if v.is_integral() => Ok(v),
            e => self.pop_integral_slow(e, op),
        }
    }

    #[cold]
    #[inline(never)]
    fn pop_integral_slow(&mut self, e: Option<Entry>, op: &'static str) -> R<Value> {
        let v = match e {
            Some(e) => self.to_value(e, op)?,
            None => return fail(ErrorKind::StackUnderflow(op)),
        };
        if !v.is_integral() {
            return fail(ErrorKind::IntegralRequired(op));
        }
        Ok(v)
    }

    /// Implicit conversion to a value: a memory location in the default address space at a
    /// whole byte becomes a generic value.
    fn to_value(&self, e: Entry, op: &'static str) -> R<Value> {
        match e {
            Entry::Value(v) => Ok(v),
            Entry::Loc(Loc::One(s)) => match s.as_default_address() {
                Some(a) => Ok(Value::Generic(a)),
                None => fail(ErrorKind::WrongKind {
                    op,
                    what: "a value is required",
                }),
            },
            Entry::Loc(Loc::Many(_)) | Entry::Extended(_) => fail(ErrorKind::WrongKind {
                op,
                what: "a value is required",
            }),
            Entry::Incomplete(_) => fail(ErrorKind::IncompleteComposite(op)),
        }
    }

    /// Implicit conversion to a location: a generic value becomes a memory location in
    /// the default address space; an implicit pointer value of the default address space
    /// becomes the location it points to.
    fn loc_of(&mut self, e: Entry, op: &'static str) -> R<Loc> {
        match e {
            Entry::Loc(l) => Ok(l),
            Entry::Extended(x) => Ok(Loc::One(x.build()?)),
            Entry::Value(Value::Generic(a)) => Ok(Loc::One(Single::memory(
                AddressSpace::Global,
                a & self.mask,
            ))),
            Entry::Value(Value::ImplicitPointer(p)) if p.space == 0 => self.resolve_pointer(*p, op),
            Entry::Value(_) => fail(ErrorKind::WrongKind {
                op,
                what: "a location description is required (only generic values convert)",
            }),
            Entry::Incomplete(_) => fail(ErrorKind::IncompleteComposite(op)),
        }
    }

    fn check_complete(&self, depth: usize, op: &'static str) -> R<()> {
        if self.opts.compat.stack_ops_on_incomplete {
            return Ok(());
        }
        let n = self.stack.len();
        for e in self.stack.iter().skip(n.saturating_sub(depth)) {
            if let Entry::Incomplete(_) = e {
                return fail(ErrorKind::IncompleteComposite(op));
            }
        }
        Ok(())
    }

    /// Counts `n` iterations at once (vector operations count one per element).
    fn tick_n(&mut self, n: u64) -> R<()> {
        self.iterations = self.iterations.saturating_add(n);
        if self.iterations > self.opts.max_iterations {
            return fail(ErrorKind::IterationLimit(self.opts.max_iterations));
        }
        Ok(())
    }

    fn tick(&mut self) -> R<()> {
        self.iterations += 1;
        if self.iterations > self.opts.max_iterations {
            return fail(ErrorKind::IterationLimit(self.opts.max_iterations));
        }
        Ok(())
    }

    fn value_type(&self, die: u64) -> R<ValueType> {
        if die == 0 {
            return Ok(ValueType::Generic);
        }
        let bt = self.ctx.base_type(die)?;
        Ok(ValueType::of(&bt))
    }

    fn signed_of(&self, v: &Value, op: &'static str) -> R<i128> {
        Ok(match v {
            Value::Generic(x) => {
                let x = x & self.mask;
                let sign = (self.mask >> 1) + 1;
                i128::from(((x ^ sign).wrapping_sub(sign)) as i64)
            }
            Value::I8(x) => i128::from(*x),
            Value::I16(x) => i128::from(*x),
            Value::I32(x) => i128::from(*x),
            Value::I64(x) => i128::from(*x),
            v => i128::from(v.to_u64(self.mask, op)?),
        })
    }

    // ---- reads ----

    /// Reads a register's leading bytes as an unsigned integer. With the compatibility
    /// flag, a register narrower than `size` is zero-extended.
    fn read_reg_uint(&self, reg: u64, size: u8, op: &'static str) -> R<u64> {
        let rsize = register_size(reg).ok_or(ErrorKind::UnknownRegister(reg))?;
        if self.opts.compat.vector_breg_per_lane
            && matches!(
                crate::target::Register::from_dwarf(reg),
                Some(crate::target::Register::Vgpr { .. } | crate::target::Register::Agpr { .. })
            )
        {
            let mut b = [0u8; 4];
            let lane = u64::from(self.target.lane());
            self.target
                .read_register(reg as u32, lane * 4, &mut b)
                .map_err(ErrorKind::from)?;
            return Ok(u64::from(u32::from_le_bytes(b)));
        }
        let n = if rsize < u64::from(size) {
            if !self.opts.compat.narrow_register_reads {
                return fail(ErrorKind::AccessOutOfRange {
                    offset: 0,
                    bits: u128::from(size) * 8,
                    size: u128::from(rsize) * 8,
                });
            }
            rsize as usize
        } else {
            usize::from(size)
        };
        let mut b = [0u8; 8];
        let _ = op;
        self.target
            .read_register(reg as u32, 0, &mut b[..n.min(8)])
            .map_err(ErrorKind::from)?;
        Ok(u64::from_le_bytes(b))
    }

    fn read_value(&mut self, loc: &Loc, ty: ValueType, size: u64, op: &'static str) -> R<Value> {
        let s = loc.first();
        // Implicit pointer rules (AMDGPU extension, DW_OP_implicit_pointer).
        if let Some(p) = implicit_pointer_at(s, size * 8) {
            return Ok(Value::ImplicitPointer(Box::new(p)));
        }
        let nbits =
            usize::try_from(size * 8).map_err(|_| ErrorKind::OperandRange { op, what: "size" })?;
        if nbits <= 64 {
            let mut buf = [0u8; 8];
            if let Some(r) = crate::location::read_bytes(self.target, s, &mut buf[..nbits / 8]) {
                r?;
                return Ok(Value::from_bytes(ty, &buf[..nbits / 8]));
            }
            let mut buf = [0u8; 8];
            read_bits(
                self.target,
                s,
                0,
                &mut buf.view_bits_mut::<Lsb0>()[..nbits],
                None,
            )?;
            Ok(Value::from_bytes(ty, &buf[..nbits / 8]))
        } else {
            let mut v = bitvec![u8, Lsb0; 0; nbits];
            read_bits(self.target, s, 0, &mut v, None)?;
            Ok(Value::from_bytes(ty, v.as_raw_slice()))
        }
    }

    fn resolve_pointer(&mut self, p: ImplicitPtr, op: &'static str) -> R<Loc> {
        let target = self.ctx.pointer_target(p.die)?;
        let loc = match target {
            PointerTarget::Const(bytes) => Loc::One(Single::implicit(bytes)),
            PointerTarget::Location(exprs) => self.sub_locations(&exprs, op)?,
        };
        Ok(loc.map(|s| s.offset_by(i128::from(p.disp) * 8, op))?)
    }

    /// Evaluates expressions on separate stacks for locations; combines them.
    fn sub_locations(&mut self, exprs: &[Arc<Expr>], op: &'static str) -> R<Loc> {
        if let [e] = exprs {
            return self.sub_location(e, op);
        }
        let mut singles = Vec::new();
        for e in exprs {
            let l = self.sub_location(e, op)?;
            singles.extend_from_slice(l.singles());
        }
        if singles.len() > self.opts.max_alternatives {
            return fail(ErrorKind::TooManyLocations(singles.len()));
        }
        Ok(Loc::from_singles(singles))
    }

    fn sub_location(&mut self, e: &Expr, _op: &'static str) -> R<Loc> {
        if self.nesting >= self.opts.max_nesting {
            return fail(ErrorKind::NestingLimit(self.opts.max_nesting));
        }
        if self.opts.fast_path
            && e.is_fast()
            && let Some(Outcome::Location(l)) = self.fast(e, ResultKind::Location, 0)
        {
            return Ok(l);
        }
        self.nesting += 1;
        let fresh = self.spare.pop().unwrap_or_default();
        let saved = std::mem::replace(&mut self.stack, fresh);
        let r = self.run_depth(e, self.depth + 1);
        self.nesting -= 1;
        let out = match r {
            Ok(()) => match self.finish(ResultKind::Location) {
                Ok(Outcome::Location(l)) => Ok(l),
                Ok(Outcome::Value(_)) => fail(ErrorKind::BadResult("not a location")),
                Err(k) => Err(k),
            },
            Err(k) => Err(k),
        };
        let mut used = std::mem::replace(&mut self.stack, saved);
        used.clear();
        self.spare.push(used);
        out
    }
}

/// Whether reading `bits` at `s` reads exactly an implicit pointer storage (the two cases
/// the extension allows).
fn implicit_pointer_at(s: &Single, bits: u64) -> Option<ImplicitPtr> {
    match &s.storage {
        Storage::ImplicitPointer(p) if s.offset == 0 && p.bits == bits => Some(**p),
        Storage::Composite(c) => {
            let (start, pbits, ps, add) = c.part_ref(s.offset).ok()?;
            match &ps.storage {
                Storage::ImplicitPointer(p)
                    if start == s.offset
                        && pbits == bits
                        && ps.offset + add == 0
                        && p.bits == bits =>
                {
                    Some(**p)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

impl<'a, T: Target + ?Sized, C: Context + ?Sized> Evaluator<'a, T, C> {
    /// Runs `expr` on the current stack at call depth `depth`.
    fn run_depth(&mut self, expr: &Expr, depth: usize) -> R<()> {
        if depth > self.opts.max_call_depth {
            return fail(ErrorKind::CallDepth(self.opts.max_call_depth));
        }
        let saved_depth = std::mem::replace(&mut self.depth, depth);
        // DWARF procedure calls run on an explicit frame stack (not the Rust stack), so
        // deep call chains are bounded by the call-depth cap only.
        let mut frames = std::mem::take(&mut self.frames);
        let base = frames.len();
        let mut cur: Option<Code<'a>> = None;
        let mut pc = 0usize;
        // The outer loop switches frames; the inner one runs the operations of one frame
        // until it ends or calls, with its operation slice looked up once.
        let r = 'frames: loop {
            let ops = match &cur {
                Some(a) => a.ops(),
                None => &expr.ops[..],
            };
            let called = loop {
                let Some(d) = ops.get(pc) else {
                    break None;
                };
                let offset = d.offset;
                if let Err(k) = self.tick() {
                    self.fault.get_or_insert(offset);
                    break 'frames Err(k);
                }
                let stepped = match &d.op {
                    Op::Call2(_) | Op::Call4(_) | Op::CallRef(_) => match ops.get(pc + 1) {
                        Some(nd)
                            if matches!(
                                nd.op,
                                Op::Deref | Op::DerefSize(_) | Op::DerefType { .. }
                            ) =>
                        {
                            self.call_deref(&d.op, &nd.op, pc)
                        }
                        _ => self.step(&d.op, pc),
                    },
                    op => self.step(op, pc),
                };
                match stepped {
                    Ok(next) => {
                        pc = next;
                        if let Some(callee) = self.pending.take() {
                            if self.depth + 1 > self.opts.max_call_depth {
                                self.fault.get_or_insert(offset);
                                break 'frames fail(ErrorKind::CallDepth(self.opts.max_call_depth));
                            }
                            break Some(callee);
                        }
                    }
                    Err(k) => {
                        self.fault.get_or_insert(offset);
                        break 'frames Err(k);
                    }
                }
            };
            match called {
                Some(callee) => {
                    frames.push((cur.take(), pc));
                    cur = Some(callee);
                    pc = 0;
                    self.depth += 1;
                }
                None => match (frames.len() > base).then(|| frames.pop()).flatten() {
                    Some((c, p)) => {
                        cur = c;
                        pc = p;
                        self.depth -= 1;
                    }
                    None => break Ok(()),
                },
            }
        };
        self.depth = saved_depth;
        frames.truncate(base);
        self.frames = frames;
        r
    }

    #[inline(always)]
    fn push_value(&mut self, v: Value) -> R<()> {
        self.push(Entry::Value(v))
    }

    #[inline(always)]
    fn push_loc(&mut self, s: Single) -> R<()> {
        self.push(Entry::Loc(Loc::One(s)))
    }

    fn generic(&self, v: u64) -> Value {
        Value::Generic(v & self.mask)
    }

    fn binary(
        &mut self,
        op: &'static str,
        f: fn(&Value, &Value, u64) -> std::result::Result<Value, ErrorKind>,
    ) -> R<()> {
        let b = self.pop_value(op)?;
        let a = self.pop_value(op)?;
        let r = f(&a, &b, self.mask)?;
        self.push_value(r)
    }

    fn compare(&mut self, op: &'static str, f: fn(std::cmp::Ordering) -> bool) -> R<()> {
        let b = self.pop_value(op)?;
        let a = self.pop_value(op)?;
        let r = a.compare(&b, self.mask, op, f)?;
        self.push_value(r)
    }

    fn aspace(&self, v: &Value, op: &'static str) -> R<AddressSpace> {
        let n = v.to_u64(self.mask, op)?;
        match AddressSpace::from_dwarf(n) {
            Some(a) => Ok(a),
            None => fail(ErrorKind::UnknownAddressSpace(n)),
        }
    }

    fn form_aspace(&mut self, op: &'static str) -> R<Single> {
        let as_v = self.pop_integral(op)?;
        let space = self.aspace(&as_v, op)?;
        let a = self.pop(op)?;
        let a = match a {
            Entry::Value(Value::ImplicitPointer(p)) if p.space == space.dwarf() => {
                let l = self.resolve_pointer(*p, op)?;
                return Ok(l.first().clone());
            }
            e => self.to_value(e, op)?,
        };
        if !a.is_integral() {
            return fail(ErrorKind::IntegralRequired(op));
        }
        let addr = a.to_u64(u64::MAX, op)? & space.address_mask();
        Ok(Single::memory(space, addr))
    }

    fn deref(&mut self, loc: Loc, ty: ValueType, size: u64, op: &'static str) -> R<()> {
        let v = self.read_value(&loc, ty, size, op)?;
        self.push_value(v)
    }

    fn piece(&mut self, bits: u64, bit_offset: Option<u64>, op: &'static str) -> R<()> {
        let pl = match self.stack.last() {
            None | Some(Entry::Incomplete(_)) => Loc::One(Single::undefined()),
            Some(_) => {
                let e = self.pop(op)?;
                self.loc_of(e, op)?
            }
        };
        let pl = match bit_offset {
            Some(d) if d != 0 => pl.map(|s| s.offset_by(i128::from(d), op))?,
            _ => pl,
        };
        if let Some(Entry::Incomplete(parts)) = self.stack.last_mut() {
            return Ok(push_part(parts, pl, bits)?);
        }
        let mut parts = Vec::new();
        push_part(&mut parts, pl, bits)?;
        self.push(Entry::Incomplete(parts))
    }

    /// Executes one operation; returns the index of the next one. Each arm calls its
    /// operation's handler; the handlers follow by class: literals and addresses,
    /// register reads, stack operations, memory reads, arithmetic, control flow,
    /// location descriptions, and the AMDGPU extensions.
    fn step(&mut self, op: &Op, pc: usize) -> R<usize> {
        use Op::*;
        match op {
            // Literals, constants and addresses (DWARF 5 2.5.1.1).
            Addr(a) => self.addr(*a)?,
            Addrx(i) => self.addrx(*i)?,
            Constx(i) => self.constx(*i)?,
            Lit(n) => self.push_value(Value::Generic(u64::from(*n)))?,
            ConstU(_, v) | Constu(v) => self.push_generic(*v)?,
            ConstS(_, v) | Consts(v) => self.push_generic(*v as u64)?,
            ConstType { die, bytes } => self.const_type(*die, bytes)?,
            // Register values (2.5.1.2).
            Fbreg(d) => self.fbreg(*d)?,
            Breg { reg, disp, .. } => self.breg(*reg, *disp)?,
            RegvalType { reg, die } => self.regval_type(*reg, *die)?,
            // Stack operations (2.5.1.3).
            Dup => self.dup()?,
            Drop => self.drop_top()?,
            Over => self.pick(1, "DW_OP_over")?,
            Pick(i) => self.pick(usize::from(*i), "DW_OP_pick")?,
            Swap => self.swap()?,
            Rot => self.rot()?,
            Deref => self.deref_generic()?,
            DerefSize(s) => self.deref_size(*s)?,
            DerefType { size, die } => self.deref_type(*size, *die)?,
            Xderef | XderefSize(_) | XderefType { .. } => self.xderef(op)?,
            PushObjectAddress => self.push_object_address()?,
            FormTlsAddress { .. } => self.form_tls_address()?,
            CallFrameCfa => self.call_frame_cfa()?,
            // Arithmetic and logical operations (2.5.1.4).
            Abs => self.unary("DW_OP_abs", Value::abs)?,
            Neg => self.unary("DW_OP_neg", Value::neg)?,
            Not => self.unary("DW_OP_not", Value::not)?,
            And => self.binary("DW_OP_and", Value::and)?,
            Or => self.binary("DW_OP_or", Value::or)?,
            Xor => self.binary("DW_OP_xor", Value::xor)?,
            Plus => self.binary("DW_OP_plus", Value::add)?,
            Minus => self.binary("DW_OP_minus", Value::sub)?,
            Mul => self.binary("DW_OP_mul", Value::mul)?,
            Div => self.binary("DW_OP_div", Value::div)?,
            Mod => self.binary("DW_OP_mod", Value::rem)?,
            Shl => self.binary("DW_OP_shl", Value::shl)?,
            Shr => self.binary("DW_OP_shr", Value::shr)?,
            Shra => self.binary("DW_OP_shra", Value::shra)?,
            PlusUconst(c) => self.plus_uconst(*c)?,
            // Control flow (2.5.1.5).
            Eq => self.compare("DW_OP_eq", |o| o.is_eq())?,
            Ge => self.compare("DW_OP_ge", |o| o.is_ge())?,
            Gt => self.compare("DW_OP_gt", |o| o.is_gt())?,
            Le => self.compare("DW_OP_le", |o| o.is_le())?,
            Lt => self.compare("DW_OP_lt", |o| o.is_lt())?,
            Ne => self.compare("DW_OP_ne", |o| o.is_ne())?,
            Skip { target, .. } => return Ok(*target),
            Bra { target, .. } => return self.bra(*target, pc + 1),
            Call2(o) => self.call(DieRef::Unit(u64::from(*o)), "DW_OP_call2")?,
            Call4(o) => self.call(DieRef::Unit(u64::from(*o)), "DW_OP_call4")?,
            CallRef(o) => self.call(DieRef::Info(*o), "DW_OP_call_ref")?,
            // Type conversions (2.5.1.6) and special operations (2.5.1.7).
            Convert(die) => self.convert(*die)?,
            Reinterpret(die) => self.reinterpret(*die)?,
            Nop | LlvmNop => {}
            EntryValue(bytes) => self.entry_value(bytes)?,
            // Location descriptions (2.6).
            Reg { reg, .. } => self.reg(*reg)?,
            ImplicitValue(b) => self.push_loc(Single::implicit(b.clone()))?,
            StackValue => self.stack_value()?,
            ImplicitPointer { die, disp } => self.implicit_pointer(*die, *disp)?,
            Piece(s) => self.byte_piece(*s)?,
            BitPiece { size, offset } => self.piece(*size, Some(*offset), "DW_OP_bit_piece")?,
            // The AMDGPU extensions (DW_OP_LLVM_*) and the proposals' operations.
            AspaceImplicitPointer { die, disp } => self.aspace_implicit_pointer(*die, *disp)?,
            PieceEnd => self.piece_end()?,
            FormAspaceAddress => self.form_aspace_address()?,
            PushLane => self.push_value(Value::Generic(u64::from(self.target.lane())))?,
            Offset | BitOffset => {
                self.offset(matches!(op, Offset), op.name(crate::op::Form::User))?
            }
            OffsetUconst(d) => self.offset_uconst(*d)?,
            CallFrameEntryReg(r) => self.call_frame_entry_reg(*r)?,
            Undefined => self.push_loc(Single::undefined())?,
            AspaceBregx { reg, disp } => self.aspace_bregx(*reg, *disp)?,
            Extend { bits, count } => self.extend(*bits, *count)?,
            SelectBitPiece { bits, count } => self.select_bit_piece(*bits, *count)?,
            Overlay | BitOverlay => self.overlay(matches!(op, Overlay))?,
            PushSimdLane => self.push_simd_lane()?,
            ObjectMap(die) => self.object_map(*die)?,
        }
        Ok(pc + 1)
    }

    // ---- literals, constants and addresses ----

    /// `DW_OP_addr`: the relocated address, a memory location in the global space.
    fn addr(&mut self, a: u64) -> R<()> {
        let a = self.ctx.relocate(a) & self.mask;
        self.push_loc(Single::memory(AddressSpace::Global, a))
    }

    /// `DW_OP_addrx`: the address at index `i` of .debug_addr, as a memory location.
    fn addrx(&mut self, i: u64) -> R<()> {
        let a = self.ctx.address(i)? & self.mask;
        self.push_loc(Single::memory(AddressSpace::Global, a))
    }

    /// `DW_OP_constx`: the value at index `i` of .debug_addr.
    fn constx(&mut self, i: u64) -> R<()> {
        let a = self.ctx.address(i)?;
        let v = self.generic(a);
        self.push_value(v)
    }

    /// The constant operations: `v` as a generic value (masked to the address size).
    fn push_generic(&mut self, v: u64) -> R<()> {
        let v = self.generic(v);
        self.push_value(v)
    }

    /// `DW_OP_const_type`: `bytes` as a value of the base type `die`.
    fn const_type(&mut self, die: u64, bytes: &[u8]) -> R<()> {
        let bt = self.ctx.base_type(die)?;
        if bt.total_size() != bytes.len() as u64 {
            return fail(ErrorKind::OperandRange {
                op: "DW_OP_const_type",
                what: "constant size differs from the base type's size",
            });
        }
        self.push_value(Value::from_bytes(ValueType::of(&bt), bytes))
    }

    // ---- register values ----

    /// `DW_OP_fbreg`: the frame base offset by `d` bytes.
    fn fbreg(&mut self, d: i64) -> R<()> {
        let fb = self.frame_base()?;
        let l = fb.map(|s| s.offset_by(i128::from(d) * 8, "DW_OP_fbreg"))?;
        self.push(Entry::Loc(l))
    }

    /// `DW_OP_breg<n>`/`DW_OP_bregx`: register `reg` plus `disp`, a memory location.
    fn breg(&mut self, reg: u64, disp: i64) -> R<()> {
        let v = self.read_reg_uint(reg, self.addr_size, "DW_OP_breg")?;
        let a = v.wrapping_add(disp as u64) & self.mask;
        self.push_loc(Single::memory(AddressSpace::Global, a))
    }

    /// `DW_OP_regval_type`: the contents of register `reg` as a value of type `die`.
    fn regval_type(&mut self, reg: u64, die: u64) -> R<()> {
        let ty = self.value_type(die)?;
        let v = if ty == ValueType::Generic {
            Value::Generic(self.read_reg_uint(reg, self.addr_size, "DW_OP_regval_type")?)
        } else {
            let size = ty.size(self.addr_size);
            let rsize = register_size(reg).ok_or(ErrorKind::UnknownRegister(reg))?;
            if size > rsize {
                return fail(ErrorKind::AccessOutOfRange {
                    offset: 0,
                    bits: u128::from(size) * 8,
                    size: u128::from(rsize) * 8,
                });
            }
            // Registers are at most 256 bytes (a wave64 vector register), and
            // `size` is at most the register's size: a buffer on the stack.
            let mut buf = [0u8; 256];
            let buf = buf
                .get_mut(..size as usize)
                .ok_or(ErrorKind::AccessOutOfRange {
                    offset: 0,
                    bits: u128::from(size) * 8,
                    size: 256 * 8,
                })?;
            self.target
                .read_register(reg as u32, 0, buf)
                .map_err(ErrorKind::from)?;
            Value::from_bytes(ty, buf)
        };
        self.push_value(v)
    }

    // ---- stack operations ----

    /// `DW_OP_dup`: pushes a copy of the top entry.
    fn dup(&mut self) -> R<()> {
        self.check_complete(1, "DW_OP_dup")?;
        let top = self
            .stack
            .last()
            .cloned()
            .ok_or(ErrorKind::StackUnderflow("DW_OP_dup"))?;
        self.push(top)
    }

    /// `DW_OP_drop`: pops the top entry.
    fn drop_top(&mut self) -> R<()> {
        self.check_complete(1, "DW_OP_drop")?;
        self.pop("DW_OP_drop")?;
        Ok(())
    }

    /// `DW_OP_swap`: exchanges the top two entries.
    fn swap(&mut self) -> R<()> {
        self.check_complete(2, "DW_OP_swap")?;
        let n = self.stack.len();
        if n < 2 {
            return fail(ErrorKind::StackUnderflow("DW_OP_swap"));
        }
        self.stack.swap(n - 1, n - 2);
        Ok(())
    }

    /// `DW_OP_rot`: rotates the top three entries (the top goes third).
    fn rot(&mut self) -> R<()> {
        self.check_complete(3, "DW_OP_rot")?;
        let n = self.stack.len();
        if n < 3 {
            return fail(ErrorKind::StackUnderflow("DW_OP_rot"));
        }
        // [.., c, b, a(top)] -> [.., a, c, b]
        self.stack[n - 3..].rotate_right(1);
        Ok(())
    }

    // ---- memory reads ----

    /// `DW_OP_deref`: reads a generic value at the popped location.
    fn deref_generic(&mut self) -> R<()> {
        let l = self.pop_loc("DW_OP_deref")?;
        let size = u64::from(self.addr_size);
        self.deref(l, ValueType::Generic, size, "DW_OP_deref")
    }

    /// `DW_OP_deref_size`: reads `s` bytes at the popped location, zero-extended.
    fn deref_size(&mut self, s: u8) -> R<()> {
        if s == 0 || s > self.addr_size {
            return fail(ErrorKind::OperandRange {
                op: "DW_OP_deref_size",
                what: "size must be 1 to the generic type's size",
            });
        }
        let l = self.pop_loc("DW_OP_deref_size")?;
        self.deref_zext(l, s, "DW_OP_deref_size")
    }

    /// `DW_OP_deref_type`: reads a value of type `die` at the popped location.
    fn deref_type(&mut self, size: u8, die: u64) -> R<()> {
        let ty = self.typed_size(size, die, "DW_OP_deref_type")?;
        let l = self.pop_loc("DW_OP_deref_type")?;
        self.deref(l, ty, u64::from(size), "DW_OP_deref_type")
    }

    /// `DW_OP_xderef`, `DW_OP_xderef_size` and `DW_OP_xderef_type`: pops an address
    /// and an address space, then reads as the matching `deref` operation does.
    fn xderef(&mut self, op: &Op) -> R<()> {
        let name = op.name(crate::op::Form::Standard);
        // Pops A, then AS; equivalent to swap; form_aspace_address; deref*.
        let n = self.stack.len();
        if n < 2 {
            return fail(ErrorKind::StackUnderflow(name));
        }
        self.check_complete(2, name)?;
        self.stack.swap(n - 1, n - 2);
        if self.opts.compat.clang_address_spaces {
            let v = self.pop_integral(name)?.to_u64(self.mask, name)?;
            let space = match v {
                1 => AddressSpace::PrivateLane.dwarf(),
                2 => AddressSpace::Local.dwarf(),
                0 => 0,
                other => return fail(ErrorKind::UnknownAddressSpace(other)),
            };
            self.push_value(Value::Generic(space))?;
        }
        let s = self.form_aspace(name)?;
        if self.opts.compat.xderef_forms_location {
            return self.push_loc(s);
        }
        let l = Loc::One(s);
        match op {
            Op::Xderef => self.deref(l, ValueType::Generic, u64::from(self.addr_size), name)?,
            Op::XderefSize(sz) => {
                if *sz == 0 || *sz > self.addr_size {
                    return fail(ErrorKind::OperandRange {
                        op: name,
                        what: "size must be 1 to the generic type's size",
                    });
                }
                self.deref_zext(l, *sz, name)?
            }
            Op::XderefType { size, die } => {
                let ty = self.typed_size(*size, *die, name)?;
                self.deref(l, ty, u64::from(*size), name)?
            }
            _ => {}
        }
        Ok(())
    }

    /// `DW_OP_push_object_address`: the object being evaluated for.
    fn push_object_address(&mut self) -> R<()> {
        let o = self.object.clone().ok_or(ErrorKind::Unavailable {
            op: "DW_OP_push_object_address",
            what: "an object",
        })?;
        self.push(Entry::Loc(o))
    }

    /// `DW_OP_form_tls_address`: the thread-local storage address of the popped offset.
    fn form_tls_address(&mut self) -> R<()> {
        let v = self.pop_integral("DW_OP_form_tls_address")?;
        let off = v.to_u64(self.mask, "DW_OP_form_tls_address")?;
        let a = self.target.tls_address(off).ok_or(ErrorKind::Unavailable {
            op: "DW_OP_form_tls_address",
            what: "thread-local storage",
        })?;
        self.push_loc(Single::memory(AddressSpace::Global, a))
    }

    /// `DW_OP_call_frame_cfa`: the canonical frame address from the CFI.
    fn call_frame_cfa(&mut self) -> R<()> {
        let l = self.ctx.call_frame_cfa()?;
        self.push(Entry::Loc(l))
    }

    // ---- arithmetic and control flow ----

    /// `DW_OP_abs`, `DW_OP_neg` and `DW_OP_not`: `f` of the popped value.
    fn unary(
        &mut self,
        op: &'static str,
        f: fn(&Value, u64) -> std::result::Result<Value, ErrorKind>,
    ) -> R<()> {
        let v = self.pop_value(op)?;
        let r = f(&v, self.mask)?;
        self.push_value(r)
    }

    /// `DW_OP_plus_uconst`: adds `c`, interpreted as the popped value's type (DWARF 5
    /// 2.5.1.4).
    fn plus_uconst(&mut self, c: u64) -> R<()> {
        let v = self.pop_value("DW_OP_plus_uconst")?;
        let rhs = Value::from_u64(v.value_type(), c);
        let r = v.add(&rhs, self.mask)?;
        self.push_value(r)
    }

    /// `DW_OP_bra`: `target` when the popped value is not zero, else `next`.
    fn bra(&mut self, target: usize, next: usize) -> R<usize> {
        let v = self.pop_integral("DW_OP_bra")?;
        if v.to_u64(self.mask, "DW_OP_bra")? != 0 {
            return Ok(target);
        }
        Ok(next)
    }

    /// `DW_OP_convert`: the popped value converted to the type `die`.
    fn convert(&mut self, die: u64) -> R<()> {
        let ty = self.value_type(die)?;
        let v = self.pop_value("DW_OP_convert")?;
        let r = v.convert(ty, self.mask)?;
        self.push_value(r)
    }

    /// `DW_OP_reinterpret`: the popped value's bits as the type `die`.
    fn reinterpret(&mut self, die: u64) -> R<()> {
        let ty = self.value_type(die)?;
        let v = self.pop_value("DW_OP_reinterpret")?;
        let r = v.reinterpret(ty, self.addr_size)?;
        self.push_value(r)
    }

    // ---- location descriptions ----

    /// `DW_OP_reg<n>`/`DW_OP_regx`: the register `reg`.
    fn reg(&mut self, reg: u64) -> R<()> {
        if register_size(reg).is_none() {
            return fail(ErrorKind::UnknownRegister(reg));
        }
        self.push_loc(Single::register(reg as u32))
    }

    /// `DW_OP_stack_value`: the popped value as an implicit location (an implicit
    /// pointer value stays an implicit pointer).
    fn stack_value(&mut self) -> R<()> {
        let v = self.pop_value("DW_OP_stack_value")?;
        let s = match v {
            Value::ImplicitPointer(p) => Single {
                storage: Storage::ImplicitPointer(p),
                offset: 0,
            },
            v => {
                let mut buf = [0u8; 16];
                match v.write_small(self.addr_size, &mut buf) {
                    Some(n) => Single::implicit(&buf[..n]),
                    None => Single::implicit(v.to_bytes(self.addr_size)),
                }
            }
        };
        self.push_loc(s)
    }

    /// `DW_OP_implicit_pointer`: a pointer to the object `die`, `disp` bytes in.
    fn implicit_pointer(&mut self, die: u64, disp: i64) -> R<()> {
        let p = ImplicitPtr {
            die,
            disp,
            space: 0,
            bits: u64::from(self.addr_size) * 8,
        };
        self.push_loc(Single {
            storage: Storage::ImplicitPointer(Box::new(p)),
            offset: 0,
        })
    }

    /// `DW_OP_piece`: a piece of `s` bytes.
    fn byte_piece(&mut self, s: u64) -> R<()> {
        let bits = s.checked_mul(8).ok_or(ErrorKind::CompositeTooLarge)?;
        self.piece(bits, None, "DW_OP_piece")
    }

    // ---- the AMDGPU extensions ----

    /// `DW_OP_LLVM_aspace_implicit_pointer`: an implicit pointer in the popped space.
    fn aspace_implicit_pointer(&mut self, die: u64, disp: i64) -> R<()> {
        let name = "DW_OP_LLVM_aspace_implicit_pointer";
        let v = self.pop_integral(name)?;
        let space = self.aspace(&v, name)?;
        let bits = u64::from(space.address_size()) * 8;
        let p = ImplicitPtr {
            die,
            disp,
            space: space.dwarf(),
            bits,
        };
        self.push_loc(Single {
            storage: Storage::ImplicitPointer(Box::new(p)),
            offset: 0,
        })
    }

    /// `DW_OP_LLVM_piece_end`: the incomplete composite on top becomes a location.
    fn piece_end(&mut self) -> R<()> {
        match self.stack.pop() {
            Some(Entry::Incomplete(parts)) => self.push_loc(composite(parts)),
            Some(other) => {
                self.stack.push(other);
                fail(ErrorKind::NoIncompleteComposite)
            }
            None => fail(ErrorKind::NoIncompleteComposite),
        }
    }

    /// `DW_OP_LLVM_form_aspace_address`: a memory location from an address and a space.
    fn form_aspace_address(&mut self) -> R<()> {
        let s = self.form_aspace("DW_OP_LLVM_form_aspace_address")?;
        self.push_loc(s)
    }

    /// `DW_OP_LLVM_offset` (`bytes`) and `DW_OP_LLVM_bit_offset`: the location below
    /// offset by the popped value.
    fn offset(&mut self, bytes: bool, name: &'static str) -> R<()> {
        let d = self.pop_integral(name)?;
        let d = self.signed_of(&d, name)?;
        let d = if bytes { d * 8 } else { d };
        let l = self.pop_loc(name)?;
        let l = l.map(|s| s.offset_by(d, name))?;
        self.push(Entry::Loc(l))
    }

    /// `DW_OP_LLVM_offset_uconst`: the popped location offset by `d` bytes.
    fn offset_uconst(&mut self, d: u64) -> R<()> {
        let name = "DW_OP_LLVM_offset_uconst";
        let l = self.pop_loc(name)?;
        let l = l.map(|s| s.offset_by(i128::from(d) * 8, name))?;
        self.push(Entry::Loc(l))
    }

    /// `DW_OP_LLVM_call_frame_entry_reg`: register `r` as it was on entry to the frame.
    fn call_frame_entry_reg(&mut self, r: u64) -> R<()> {
        let l = self.ctx.entry_register(r)?;
        self.push(Entry::Loc(l))
    }

    /// `DW_OP_LLVM_aspace_bregx`: register `reg` plus `disp` in the popped space.
    fn aspace_bregx(&mut self, reg: u64, disp: i64) -> R<()> {
        let name = "DW_OP_LLVM_aspace_bregx";
        let v = self.pop_integral(name)?;
        let space = self.aspace(&v, name)?;
        let r = self.read_reg_uint(reg, space.address_size(), name)?;
        let a = r.wrapping_add(disp as u64) & space.address_mask();
        self.push_loc(Single::memory(space, a))
    }

    /// `DW_OP_LLVM_extend`: the location on top repeated `count` times as elements of
    /// `bits` bits.
    fn extend(&mut self, bits: u64, count: u64) -> R<()> {
        let name = "DW_OP_LLVM_extend";
        if bits == 0 || count == 0 {
            return fail(ErrorKind::BadComposite {
                op: name,
                what: "element size and count must not be 0",
            });
        }
        if u128::from(bits) * u128::from(count) > crate::location::MAX_COMPOSITE_BITS {
            return fail(ErrorKind::CompositeTooLarge);
        }
        if let Some(Entry::Loc(pl)) = self.stack.last() {
            crate::location::check_parts(crate::location::leaf_parts(pl), count)?;
        }
        if matches!(self.stack.last(), Some(Entry::Loc(_))) {
            // The usual case, a location on top: extended where it lies.
            self.tick_n(count)?;
            if let Some(top) = self.stack.last_mut()
                && let Entry::Loc(pl) = top
            {
                crate::location::Extended::check(pl, bits)?;
                let pl = std::mem::replace(pl, Loc::One(Single::undefined()));
                *top = Entry::Extended(crate::location::Extended::checked(pl, bits, count));
            }
            Ok(())
        } else {
            let pl = self.pop_loc(name)?;
            crate::location::check_parts(crate::location::leaf_parts(&pl), count)?;
            self.tick_n(count)?;
            crate::location::Extended::check(&pl, bits)?;
            self.push(Entry::Extended(crate::location::Extended::checked(
                pl, bits, count,
            )))
        }
    }

    /// `DW_OP_LLVM_select_bit_piece`: `count` elements of `bits` bits, each from the
    /// second location where the popped mask's bit is set and from the first elsewhere.
    fn select_bit_piece(&mut self, bits: u64, count: u64) -> R<()> {
        let name = "DW_OP_LLVM_select_bit_piece";
        if bits == 0 || count == 0 {
            return fail(ErrorKind::BadComposite {
                op: name,
                what: "element size and count must not be 0",
            });
        }
        if u128::from(bits) * u128::from(count) > crate::location::MAX_COMPOSITE_BITS {
            return fail(ErrorKind::CompositeTooLarge);
        }
        let m = self.pop_integral(name)?;
        let mbits = m.value_type().size(self.addr_size) * 8;
        if mbits < count {
            return fail(ErrorKind::BadComposite {
                op: name,
                what: "the mask has fewer bits than the count",
            });
        }
        let mask = match m {
            Value::Bytes(b) => crate::location::Mask::Big(b.bytes.to_vec().into()),
            m => crate::location::Mask::Small(m.to_u64(u64::MAX, name)?),
        };
        let l1 = self.pop_operand(name)?;
        let l0 = self.pop_operand(name)?;
        self.tick_n(count)?;
        let c = crate::location::select_with(l0, l1, mask, bits, count)?;
        self.push_loc(Single {
            storage: Storage::Composite(c),
            offset: 0,
        })
    }

    /// `DW_OP_push_simd_lane` (a proposal, when enabled): the current lane.
    fn push_simd_lane(&mut self) -> R<()> {
        if !self.opts.proposals {
            return fail(ErrorKind::NotEnabled("DW_OP_push_simd_lane"));
        }
        self.push_value(Value::Generic(u64::from(self.target.lane())))
    }

    fn typed_size(&self, size: u8, die: u64, op: &'static str) -> R<ValueType> {
        let ty = self.value_type(die)?;
        if ty.size(self.addr_size) != u64::from(size) {
            return fail(ErrorKind::OperandRange {
                op,
                what: "size differs from the base type's size",
            });
        }
        Ok(ty)
    }

    fn deref_zext(&mut self, l: Loc, size: u8, op: &'static str) -> R<()> {
        if let Some(p) = implicit_pointer_at(l.first(), u64::from(size) * 8) {
            return self.push_value(Value::ImplicitPointer(Box::new(p)));
        }
        let mut buf = [0u8; 8];
        let n = usize::from(size.min(8));
        match crate::location::read_bytes(self.target, l.first(), &mut buf[..n]) {
            Some(r) => r?,
            None => read_bits(
                self.target,
                l.first(),
                0,
                &mut buf.view_bits_mut::<Lsb0>()[..n * 8],
                None,
            )?,
        }
        let _ = op;
        self.push_value(Value::Generic(u64::from_le_bytes(buf)))
    }

    fn pick(&mut self, i: usize, op: &'static str) -> R<()> {
        let n = self.stack.len();
        if i >= n {
            return fail(ErrorKind::StackUnderflow(op));
        }
        let e = self.stack[n - 1 - i].clone();
        if matches!(e, Entry::Incomplete(_)) && !self.opts.compat.stack_ops_on_incomplete {
            return fail(ErrorKind::IncompleteComposite(op));
        }
        self.push(e)
    }

    fn frame_base(&mut self) -> R<Loc> {
        let ctx: &'a C = self.ctx;
        let l = match ctx.frame_base_ref() {
            Some(fb) => self.sub_location(fb, "DW_OP_fbreg")?,
            None => {
                let fb = self.ctx.frame_base()?;
                self.sub_location(&fb, "DW_OP_fbreg")?
            }
        };
        // AMDGPU extension, DW_AT_frame_base: a register result is dereferenced to a
        // memory location in the default address space.
        match &l {
            Loc::One(Single {
                storage: Storage::Register(r),
                offset: 0,
            }) => {
                let mut v = self.read_reg_uint(u64::from(*r), self.addr_size, "DW_OP_fbreg")?;
                if self.opts.compat.frame_base_wave_scaled {
                    v /= u64::from(self.target.wave_size().max(1));
                }
                Ok(Loc::One(Single::memory(
                    AddressSpace::Global,
                    v & self.mask,
                )))
            }
            l if l
                .singles()
                .iter()
                .all(|s| matches!(s.storage, Storage::Memory(_))) =>
            {
                Ok(l.clone())
            }
            _ => fail(ErrorKind::BadResult(
                "the frame base is not a memory location",
            )),
        }
    }

    /// DW_OP_call* (`op`) directly followed by DW_OP_deref, DW_OP_deref_size or
    /// DW_OP_deref_type (`next`):
    /// when the callee is a variable whose location the fast path evaluates to a composite
    /// of whole-byte pieces, reads the value straight from the pieces without building the
    /// composite (the call pushes the variable's location description, DWARF 5 section
    /// 2.5.1.5 as the AMDGPU extension reads it; the dereference pops it and reads from
    /// it, section 2.5.1.3). Both operations count as iterations. In
    /// every other case (and on any failure) the operations run one by one, so results and
    /// errors are the same.
    fn call_deref(&mut self, op: &Op, next: &Op, pc: usize) -> R<usize> {
        let die = match op {
            Op::Call2(o) => DieRef::Unit(u64::from(*o)),
            Op::Call4(o) => DieRef::Unit(u64::from(*o)),
            Op::CallRef(o) => DieRef::Info(*o),
            _ => return self.step(op, pc),
        };
        if !self.opts.fast_path
            || self.nesting >= self.opts.max_nesting
            || self.iterations >= self.opts.max_iterations
        {
            return self.step(op, pc);
        }
        let ctx: &'a C = self.ctx;
        let e = match ctx.callee_ref(die) {
            Some(c) if !c.procedure => match &c.exprs[..] {
                [e] if e.is_fast() => e,
                _ => return self.step(op, pc),
            },
            _ => return self.step(op, pc),
        };
        let (ty, size) = match next {
            Op::Deref => (ValueType::Generic, usize::from(self.addr_size)),
            // Zero-extended to the generic type, as DW_OP_deref_size reads.
            Op::DerefSize(s) if *s >= 1 && *s <= self.addr_size => {
                (ValueType::Generic, usize::from(*s))
            }
            Op::DerefType { size, die } if *size <= 8 => {
                match self.typed_size(*size, *die, "DW_OP_deref_type") {
                    Ok(ty) => (ty, usize::from(*size)),
                    Err(_) => return self.step(op, pc),
                }
            }
            _ => return self.step(op, pc),
        };
        self.parts_kept = false;
        let l = match self.fast_inline::<true>(e, ResultKind::Location, 0) {
            Some(Outcome::Location(l)) => l,
            _ => return self.step(op, pc),
        };
        if !std::mem::take(&mut self.parts_kept) {
            // Not a composite of pieces: the call's result, as DW_OP_call* pushes it.
            self.push(Entry::Loc(l))?;
            return Ok(pc + 1);
        }
        let mut buf = [0u8; 8];
        let out = buf.get_mut(..size).unwrap_or_default();
        if crate::location::read_parts_bytes(self.target, &self.part_buf, out).is_some() {
            // The dereference's iteration (the call's was counted; the check above left room).
            self.iterations += 1;
            self.push_value(Value::from_bytes(ty, out))?;
            return Ok(pc + 2);
        }
        let parts = std::mem::take(&mut self.part_buf);
        self.push_loc(composite(parts))?;
        Ok(pc + 1)
    }

    fn call(&mut self, die: DieRef, op: &'static str) -> R<()> {
        let ctx: &'a C = self.ctx;
        if let Some(callee) = ctx.callee_ref(die) {
            if callee.procedure {
                // Same stack: parameters and results by agreement.
                self.pending = callee.exprs.first().map(|e| Code::Borrowed(e));
                return Ok(());
            }
            let l = if callee.exprs.is_empty() {
                Loc::One(Single::undefined())
            } else {
                self.sub_locations(&callee.exprs, op)?
            };
            return self.push(Entry::Loc(l));
        }
        let callee = self.ctx.callee(die)?;
        if callee.procedure {
            // Same stack: parameters and results by agreement.
            self.pending = callee.exprs.first().cloned().map(Code::Owned);
            return Ok(());
        }
        let l = if callee.exprs.is_empty() {
            Loc::One(Single::undefined())
        } else {
            self.sub_locations(&callee.exprs, op)?
        };
        self.push(Entry::Loc(l))
    }

    fn entry_value(&mut self, bytes: &[u8]) -> R<()> {
        let name = "DW_OP_entry_value";
        if self.opts.compat.entry_values_unknown {
            return fail(ErrorKind::ValueNotKnown {
                op: name,
                why: "the value on entry is not recorded (no caller, no CFI rule for it)",
            });
        }
        let e = Expr::decode(bytes, &self.opts.decode).map_err(|e| e.kind)?;
        if let [d] = e.ops.as_slice()
            && let Op::Reg { reg, .. } = d.op
        {
            let l = self.ctx.entry_register(reg)?;
            let s = l.first();
            if let Storage::Undefined = s.storage {
                return fail(ErrorKind::ReadUndefined);
            }
            let size = register_size(reg).ok_or(ErrorKind::UnknownRegister(reg))?;
            let ty = if size <= u64::from(self.addr_size) {
                ValueType::Generic
            } else {
                ValueType::Other(BaseType::scalar(crate::value::ate::UNSIGNED, size))
            };
            let v = self.read_value(&l, ty, size, name)?;
            return self.push_value(v);
        }
        let v = self.ctx.entry_value(&e)?;
        self.push_value(v)
    }

    fn overlay(&mut self, bytes: bool) -> R<()> {
        let name = if bytes {
            "DW_OP_overlay"
        } else {
            "DW_OP_bit_overlay"
        };
        let scale = if bytes { 8u128 } else { 1 };
        let size = self.pop_integral(name)?.to_u64(self.mask, name)?;
        let off = self.pop_integral(name)?.to_u64(self.mask, name)?;
        let ol = self.pop_loc(name)?;
        let bl = self.pop_loc(name)?;
        let size = u128::from(size) * scale;
        let off = u128::from(off) * scale;
        let base = bl.first();
        let base_bits = base
            .storage_bits()
            .map(|s| s.saturating_sub(base.offset))
            .unwrap_or(off + size);
        let total = base_bits.max(off + size);
        let mut parts = Vec::new();
        let fits = |b: u128| u64::try_from(b).map_err(|_| ErrorKind::CompositeTooLarge);
        // DW_OP_overlay (DWARF 6 proposal, as LLVM's DW_OP_LLVM_overlay): the result is the
        // base location BL with bytes [O, O+S) replaced by the overlay OL; if O lies past BL's
        // storage the gap is undefined.
        // [0, off): base (undefined beyond its end).
        let head = off.min(base_bits);
        push_part(&mut parts, bl.clone(), fits(head)?)?;
        if off > base_bits {
            push_part(
                &mut parts,
                Loc::One(Single::undefined()),
                fits(off - base_bits)?,
            )?;
        }
        push_part(&mut parts, ol, fits(size)?)?;
        if off + size < total {
            let rest = bl.map(|s| s.offset_by((off + size) as i128, name))?;
            // A memory base runs to the end of its address space: the tail is capped at the
            // largest part size (2^64 - 1 bits), beyond any object a debugger reads.
            let tail = (total - off - size).min(u128::from(u64::MAX));
            push_part(&mut parts, rest, fits(tail)?)?;
        }
        self.push_loc(composite(parts))
    }

    /// `DW_OP_object_map` (a proposal, when enabled): the popped index's element of
    /// the object map `die`.
    fn object_map(&mut self, die: u64) -> R<()> {
        if !self.opts.proposals {
            return fail(ErrorKind::NotEnabled("DW_OP_object_map"));
        }
        let name = "DW_OP_object_map";
        let index = self.pop_integral(name)?.to_u64(self.mask, name)?;
        let map = self.ctx.object_map(die)?;
        // Issue 230712.4: C = current chunk ordinal; offset = index * element size;
        // Q, R = offset divmod chunk size; in registers iff C != 0 and Q == C.
        if self.nesting >= self.opts.max_nesting {
            return fail(ErrorKind::NestingLimit(self.opts.max_nesting));
        }
        let saved = std::mem::take(&mut self.stack);
        let c = self.run_depth(&map.chunk, self.depth + 1).and_then(|()| {
            match self.finish(ResultKind::Value)? {
                Outcome::Value(v) => Ok(v.to_u64(self.mask, name)?),
                Outcome::Location(_) => fail(ErrorKind::BadResult("chunk ordinal is not a value")),
            }
        });
        self.stack = saved;
        let c = c?;
        let offset = index
            .checked_mul(map.element_size)
            .ok_or(ErrorKind::OperandRange {
                op: name,
                what: "index",
            })?;
        let chunk = map.element_size.saturating_mul(map.element_count);
        let (q, r) = match (offset.checked_div(chunk), offset.checked_rem(chunk)) {
            (Some(q), Some(r)) => (q, r),
            _ => (u64::MAX, 0),
        };
        let l = if c != 0 && q == c {
            let v = self.sub_location(&map.vec_location, name)?;
            v.map(|s| s.offset_by(i128::from(r) * 8, name))?
        } else {
            let m = self.sub_location(&map.mem_location, name)?;
            m.map(|s| s.offset_by(i128::from(offset) * 8, name))?
        };
        self.push(Entry::Loc(l))
    }
}

/// The most bytes [`read_through`] reads at once.
pub const MAX_READ_BYTES: usize = 1 << 24;

/// Reads `nbytes` of an object through a location (undefined bytes recorded, not an error;
/// at most [`MAX_READ_BYTES`]).
pub fn read_through<T: Target + ?Sized>(t: &T, loc: &Loc, nbytes: usize) -> Result<ReadBits> {
    if nbytes > MAX_READ_BYTES {
        return Err(Error::new(
            0,
            ErrorKind::ReadTooLarge {
                bytes: nbytes as u64,
                max: MAX_READ_BYTES as u64,
            },
        ));
    }
    crate::location::read_object(t, loc, nbytes * 8).map_err(|k| Error::new(0, k))
}

/// A fast, non-cryptographic hasher for small integer keys (DIE offsets): the maps of a
/// [`MapContext`] are looked up on every call and typed operation.
#[derive(Debug, Clone, Copy, Default)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 =
                (self.0.rotate_left(5) ^ u64::from(*b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    // Enum discriminants (of `DieRef`) are hashed as `isize`: one step, not eight.
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn write_isize(&mut self, v: isize) {
        self.write_u64(v as u64);
    }
}

/// Hash maps keyed by DIE offsets.
pub type FastMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

/// A [`Context`] backed by maps: the program data of tests, of the CLI's `eval` command,
/// and of hand-built scenarios.
#[derive(Debug, Clone, Default)]
pub struct MapContext {
    /// DW_OP_call* callees.
    pub callees: FastMap<DieRef, Callee>,
    /// Base types by unit offset.
    pub base_types: FastMap<u64, BaseType>,
    /// DW_AT_frame_base of the current function.
    pub frame_base: Option<Arc<Expr>>,
    /// The CFA.
    pub cfa: Option<Loc>,
    /// Register locations on entry to the subprogram.
    pub entry_registers: FastMap<u64, Loc>,
    /// .debug_addr entries of the unit.
    pub addresses: Vec<u64>,
    /// Implicit pointer targets by .debug_info offset.
    pub pointers: FastMap<u64, PointerTarget>,
    /// Object maps by .debug_info offset.
    pub object_maps: FastMap<u64, ObjectMap>,
    /// Load bias added to DW_OP_addr operands.
    pub load_bias: u64,
}

impl MapContext {
    /// Registers a DW_TAG_dwarf_procedure at a .debug_info offset.
    pub fn procedure(&mut self, die: u64, expr: Expr) {
        self.callees.insert(
            DieRef::Info(die),
            Callee {
                exprs: vec![Arc::new(expr)].into(),
                procedure: true,
            },
        );
    }

    /// Registers a variable (a non-procedure DIE with DW_AT_location) at a .debug_info offset.
    pub fn variable(&mut self, die: u64, expr: Expr) {
        self.callees.insert(
            DieRef::Info(die),
            Callee {
                exprs: vec![Arc::new(expr)].into(),
                procedure: false,
            },
        );
    }
}

/// The error of a [`MapContext`] lookup that found nothing.
fn missing<T>(
    found: Option<T>,
    op: &'static str,
    what: &'static str,
) -> std::result::Result<T, ErrorKind> {
    found.ok_or(ErrorKind::Unavailable { op, what })
}

impl Context for MapContext {
    fn callee_ref(&self, die: DieRef) -> Option<&Callee> {
        self.callees.get(&die)
    }
    fn frame_base_ref(&self) -> Option<&Expr> {
        self.frame_base.as_deref()
    }
    fn callee(&self, die: DieRef) -> std::result::Result<Callee, ErrorKind> {
        missing(
            self.callees.get(&die).cloned(),
            "DW_OP_call*",
            "the called DIE",
        )
    }
    fn base_type(&self, die: u64) -> std::result::Result<BaseType, ErrorKind> {
        missing(
            self.base_types.get(&die).copied(),
            "typed operation",
            "the base type DIE",
        )
    }
    fn frame_base(&self) -> std::result::Result<Arc<Expr>, ErrorKind> {
        missing(self.frame_base.clone(), "DW_OP_fbreg", "a frame base")
    }
    fn call_frame_cfa(&self) -> std::result::Result<Loc, ErrorKind> {
        missing(
            self.cfa.clone(),
            "DW_OP_call_frame_cfa",
            "call frame information",
        )
    }
    fn entry_register(&self, reg: u64) -> std::result::Result<Loc, ErrorKind> {
        missing(
            self.entry_registers.get(&reg).cloned(),
            "DW_OP_LLVM_call_frame_entry_reg",
            "the register's entry rule",
        )
    }
    fn address(&self, index: u64) -> std::result::Result<u64, ErrorKind> {
        let entry = usize::try_from(index)
            .ok()
            .and_then(|i| self.addresses.get(i));
        missing(
            entry.map(|a| a.wrapping_add(self.load_bias)),
            "DW_OP_addrx",
            "the .debug_addr entry",
        )
    }
    fn relocate(&self, addr: u64) -> u64 {
        addr.wrapping_add(self.load_bias)
    }
    fn pointer_target(&self, die: u64) -> std::result::Result<PointerTarget, ErrorKind> {
        missing(
            self.pointers.get(&die).cloned(),
            "implicit pointer",
            "the pointed-to DIE",
        )
    }
    fn object_map(&self, die: u64) -> std::result::Result<ObjectMap, ErrorKind> {
        missing(
            self.object_maps.get(&die).cloned(),
            "DW_OP_object_map",
            "the object map DIE",
        )
    }
}

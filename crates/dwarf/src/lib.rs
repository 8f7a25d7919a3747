//! amdgpu-dwarf: a DWARF 5 expression evaluator with the AMDGPU heterogeneous debugging
//! extensions (location descriptions on the stack, address spaces, lanes), reading live
//! state through the [`Target`] trait.
//!
//! Layers, each usable alone:
//! - [`op`]: the operation set and its decoding in every shipped encoding ([`Dialect`]:
//!   `DW_OP_LLVM_user` sub-operations, the older single-byte codes, the seed document's
//!   table), plus opt-in codes for the DWARF 6 names and the two DWARF-issue proposals;
//! - [`text`]: printing in the syntax of `llvm-dwarfdump-19`, and parsing it back;
//! - [`value`], [`location`], [`eval`]: the stack machine of values and location
//!   descriptions (undefined, memory per address space, register, implicit, implicit
//!   pointer, composite; several places at once), with iteration, stack-depth, call-depth
//!   and nesting caps and typed errors carrying the operation's offset;
//! - [`target`]: the live-state trait, the AMDGPU target model (DWARF register numbers
//!   and sizes, address spaces, the private-lane swizzle) and an in-memory target;
//! - [`state`]: wave states described in RON (registers, memory, program data);
//! - [`program`]: units, DIEs, location lists, frame bases, base types, lane attributes
//!   and line programs read with gimli; [`cfi`]: call frame information, including
//!   DW_CFA_LLVM_def_aspace_cfa(_sf).
//!
//! Where other consumers differ from the extension's text, the text decides and the
//! other behaviour is an explicit option ([`eval::Compat`]).
//!
//! The crate owns DWARF: expressions, location descriptions, the AMDGPU target model and
//! the reading of program data. It knows nothing of the simulator (a live wave is only a
//! [`Target`]) and depends on no other crate of the workspace; the adapter that lets a
//! stopped wave answer the trait lives with the lane service (`amdgpu-lanes`).
#![deny(missing_docs)]

pub mod cfi;
pub mod error;
pub mod eval;
pub mod location;
pub mod op;
pub mod program;
pub mod state;
pub mod target;
pub mod text;
pub mod value;

pub use error::{Error, ErrorKind, Result};
pub use eval::{
    Callee, Compat, Context, DieRef, Entry, EvalOptions, Evaluator, MapContext, NoContext, Outcome,
    ResultKind,
};
pub use location::{Loc, Single, Storage};
pub use op::{DecodeOptions, Dialect, Expr, Extensions, Op};
pub use target::{AddressSpace, MemTarget, MemorySpace, Register, Target, TargetError};
pub use value::{BaseType, Value};

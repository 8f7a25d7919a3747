//! amdgpu-dwarf: a DWARF 5 expression evaluator with the AMDGPU heterogeneous debugging
//! extensions (location descriptions on the stack, address spaces, lanes), reading live
//! state through the [`Target`] trait.
//!
//! Layers, each usable alone:
//! - [`op`]: the operation set and its decoding in every shipped encoding ([`Dialect`]);
//! - [`text`]: printing in `llvm-dwarfdump` syntax, and parsing that syntax back;
//! - [`value`], [`location`], [`eval`]: the stack machine;
//! - [`target`]: the live-state trait and the AMDGPU target model;
//! - [`program`]: units, DIEs, location lists, frame bases, CFI and line programs (gimli).
#![deny(missing_docs)]

pub mod cfi;
pub mod error;
pub mod eval;
pub mod location;
pub mod op;
pub mod program;
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

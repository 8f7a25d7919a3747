//! Expressions over the DWARF of the kernel, for the focused lane: parsing
//! ([`parse`]), types ([`types`]), evaluation ([`eval`]) and gdb's value syntax ([`show`]).

pub(crate) mod eval;
pub(crate) mod parse;
pub(crate) mod show;
pub(crate) mod types;

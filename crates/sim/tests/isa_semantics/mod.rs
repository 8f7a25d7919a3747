//! Instruction semantics on small programs (encodings from
//! `llvm-mc-19 -show-encoding`, written here as bytes so the tests need no
//! LLVM), executed on a bare wave. One module per instruction class, named
//! after the part of `crates/sim/src/exec/` that executes it.
#![allow(clippy::needless_range_loop)]

mod common;

mod atomics;
mod buffer;
mod control;
mod conv;
mod dot;
mod ds;
mod flat;
mod fp16;
mod fp32;
mod fp64;
mod gds;
mod lane;
mod mfma;
mod packed;
mod random;
mod salu;
mod smem;
mod valu_int;

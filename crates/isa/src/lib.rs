//! Decoder and disassembler for AMDGPU GFX9 (gfx900, gfx906, gfx908, gfx90a) and
//! GFX10 (gfx1010, gfx1030; wave32 and wave64) machine code.
//!
//! A code object's `.text` is decoded once into a [`Program`] of typed [`Inst`]s
//! indexed by address; the interpreter executes those without ever looking at
//! bytes again. Every instruction prints in the text syntax of `llvm-objdump-19`
//! / `llvm-mc-19 --disassemble`, so listings can be compared line by line with
//! LLVM's.
//!
//! Decoding never panics: a word that is not a valid instruction decodes to an
//! [`Inst`] whose [`Op`] is [`Op::Invalid`] and that keeps its raw bits, and input
//! that ends inside an instruction is a [`DecodeError::Truncated`].
//!
//! # What the crate owns, and how it is layered
//!
//! The instruction model, its decoders and its text, and the one table of processors.
//! Types come first and the code that uses them after; no module uses one above it:
//!
//! 1. [`processor`]: the processors ([`Processor`], [`Gpu`], [`Gen`]);
//! 2. [`operand`]: operands and registers;
//! 3. [`inst`]: the instruction ([`Inst`], [`Op`], [`Encoding`]) with its ALU part
//!    ([`alu::AluOp`], [`alu::AluForm`], [`alu::AluMods`]) and memory part
//!    ([`mem::MemOp`], [`mem::MemFields`]);
//! 4. `family`: the encoding families of a first dword and what their decoders share;
//! 5. [`alu`] and [`mem`]: the decoders of the ALU and memory encodings, their generated
//!    opcode tables, operation names ([`alu::ops`], [`mem::ops`]) and printers;
//! 6. `decode`: the [`Decoder`], which dispatches to them; [`Program`], a decoded code
//!    region;
//! 7. `text` (the `Display` of an instruction) and [`flow`] (where execution goes after
//!    an instruction), which read decoded instructions.
//!
//! It knows nothing of execution, of code objects or of DWARF, and depends on no other
//! crate of the workspace.
#![deny(missing_docs)]

pub mod alu;
mod decode;
mod family;
pub mod flow;
pub mod inst;
pub mod mem;
pub mod operand;
pub mod processor;
mod program;
mod text;

pub use decode::{DecodeError, Decoder};
pub use flow::Flow;
pub use inst::{Encoding, Inst, Op};
pub use operand::{Operand, SpecialReg};
pub use processor::{Gen, Gpu, Processor, UnknownGpu};
pub use program::Program;

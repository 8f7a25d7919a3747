//! The text of an instruction: `Display` for [`Inst`], in the syntax of
//! `llvm-mc-19 --disassemble`, from the ALU and memory printers.

use crate::inst::{Inst, Op};
use std::fmt;

impl fmt::Display for Inst {
    /// The instruction in `llvm-mc-19 --disassemble` syntax (mnemonic, operands,
    /// modifiers), without a trailing comment. Invalid words print as
    /// `<invalid 0xXXXXXXXX>`; branch targets print as the raw signed offset in
    /// dwords, as llvm-mc does (see [`crate::Program`] for the listing form).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Op::Invalid => write!(f, "<invalid 0x{:08x}>", self.words[0]),
            Op::Alu(_) => crate::alu::fmt_inst(self, f),
            Op::Mem(_) => crate::mem::fmt_inst(self, f),
        }
    }
}

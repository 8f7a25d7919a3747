//! Scalar and vector ALU encodings: SOP1, SOP2, SOPK, SOPC, SOPP, VOP1, VOP2,
//! VOPC, VOP3 (and VOP3b), VOP3P (with MFMA), SDWA, DPP, DPP8 and VINTRP.

use crate::decode::Family;
use crate::{DecodeError, Decoder, Inst};
use std::fmt;

/// Identity of an ALU operation, shared by every encoding that carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct AluOp(pub u16);

/// ALU modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct AluMods {}

/// Decodes an ALU-family instruction.
pub(crate) fn decode(_dec: &Decoder, _family: Family, bytes: &[u8]) -> Result<Inst, DecodeError> {
    let w0 = crate::decode::dword(bytes, 0)?;
    Ok(Inst::invalid(w0))
}

/// Prints an ALU instruction in llvm-mc syntax.
pub(crate) fn fmt_inst(inst: &Inst, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "<alu 0x{:08x}>", inst.words[0])
}

//! Memory, image and export encodings: SMEM, DS, MUBUF, MTBUF, FLAT/GLOBAL/SCRATCH,
//! MIMG and EXP.

use crate::decode::Family;
use crate::{DecodeError, Decoder, Inst};
use std::fmt;

/// Identity of a memory operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MemOp(pub u16);

/// Memory instruction fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MemFields {}

/// Decodes a memory-family instruction.
pub(crate) fn decode(_dec: &Decoder, _family: Family, bytes: &[u8]) -> Result<Inst, DecodeError> {
    let w0 = crate::decode::dword(bytes, 0)?;
    Ok(Inst::invalid(w0))
}

/// Prints a memory instruction in llvm-mc syntax.
pub(crate) fn fmt_inst(inst: &Inst, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "<mem 0x{:08x}>", inst.words[0])
}

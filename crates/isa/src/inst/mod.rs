//! The typed instruction the decoder produces and the interpreter executes: the
//! types every other part of the crate is built on (the decoders fill them, the
//! printers and the flow analysis read them). Its text is in `text`.

pub(crate) mod alu;
pub(crate) mod mem;

use crate::operand::Operand;
use alu::{AluMods, AluOp};
use mem::{MemFields, MemOp};

/// The encoding (instruction format) an instruction was decoded from.
/// (ISA guides, chapter "Microcode Formats".)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// Not a valid instruction.
    #[default]
    Invalid,
    /// Scalar ALU, two sources.
    Sop2,
    /// Scalar ALU with a 16-bit immediate.
    Sopk,
    /// Scalar ALU, one source.
    Sop1,
    /// Scalar compare.
    Sopc,
    /// Scalar program control (branches, waits, `s_endpgm`).
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector ALU, one source (32-bit form, `_e32`).
    Vop1,
    /// Vector ALU, two sources (32-bit form, `_e32`).
    Vop2,
    /// Vector compare (32-bit form, writes VCC).
    Vopc,
    /// Vector ALU, 64-bit form (`_e64`), including VOP3b (with a scalar destination).
    Vop3,
    /// Packed vector ALU (VOP3P), including MFMA.
    Vop3p,
    /// Sub-dword addressing extension of VOP1/VOP2/VOPC.
    Sdwa,
    /// Data-parallel primitives extension (GFX9 DPP, GFX10 DPP16).
    Dpp,
    /// GFX10 DPP8.
    Dpp8,
    /// Vector parameter interpolation.
    Vintrp,
    /// LDS/GDS.
    Ds,
    /// Untyped buffer memory.
    Mubuf,
    /// Typed buffer memory.
    Mtbuf,
    /// Flat, global and scratch memory.
    Flat,
    /// Image memory.
    Mimg,
    /// Export.
    Exp,
}

/// The operation an instruction performs. One identity is shared by every
/// encoding that carries the same operation (`v_add_f32` in VOP2, VOP3, SDWA and
/// DPP forms are all the same [`AluOp`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Op {
    /// Not a valid instruction; the raw bits are in [`Inst::words`].
    #[default]
    Invalid,
    /// A scalar or vector ALU operation (SOP*, VOP*, SDWA, DPP, VINTRP).
    Alu(AluOp),
    /// A memory, export or image operation (SMEM, DS, MUBUF, MTBUF, FLAT, MIMG, EXP).
    Mem(MemOp),
}

/// One decoded instruction.
///
/// Operands are resolved: register indices, inline constants and literals are in
/// [`Operand`]s, modifiers in [`Inst::alu`] and memory fields in [`Inst::mem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Inst {
    /// The operation.
    pub op: Op,
    /// The encoding it was decoded from.
    pub encoding: Encoding,
    /// Size in bytes: 4, 8, or more with a literal constant or NSA addresses.
    pub size: u8,
    /// The raw instruction words (the first `size / 4`, at most three, are meaningful).
    pub words: [u32; 3],
    /// Destinations (vdst/sdst first; a second for VOP3b carry-out or similar).
    pub dst: [Operand; 2],
    /// Sources in encoding order (src0, src1, src2, and a fourth where needed).
    pub src: [Operand; 4],
    /// ALU modifiers (abs/neg/clamp/omod/op_sel, SDWA and DPP controls).
    pub alu: AluMods,
    /// Memory fields (offsets, cache policy bits, address mode).
    pub mem: MemFields,
}

impl Inst {
    /// [`Inst::default`] as a constant: storage filled from it is written
    /// with immediate stores (or copied from read-only data), never through
    /// a value assembled on the stack first.
    pub(crate) const DEFAULT: Inst = Inst {
        op: Op::Invalid,
        encoding: Encoding::Invalid,
        size: 0,
        words: [0; 3],
        dst: [Operand::None; 2],
        src: [Operand::None; 4],
        alu: AluMods::DEFAULT,
        mem: MemFields::DEFAULT,
    };

    /// An invalid 4-byte instruction holding `word`.
    pub fn invalid(word: u32) -> Inst {
        Inst {
            size: 4,
            words: [word, 0, 0],
            ..Inst::DEFAULT
        }
    }

    /// Whether the instruction failed to decode.
    pub fn is_invalid(&self) -> bool {
        self.op == Op::Invalid
    }

    /// Size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.size as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Programs hold one `Inst` per instruction: its size is what decoding a
    /// program writes per instruction, so it must not grow unnoticed.
    #[test]
    fn the_default_constant_is_the_default() {
        assert_eq!(Inst::DEFAULT, Inst::default());
        assert_eq!(AluMods::DEFAULT, AluMods::default());
        assert_eq!(MemFields::DEFAULT, MemFields::default());
    }

    #[test]
    fn inst_stays_small() {
        assert!(
            std::mem::size_of::<Inst>() <= 112,
            "{}",
            std::mem::size_of::<Inst>()
        );
        assert!(std::mem::size_of::<AluMods>() <= 16);
    }
}

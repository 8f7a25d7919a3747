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
#![deny(missing_docs)]

pub mod alu;
mod decode;
pub mod flow;
pub mod inst;
pub mod mem;
pub mod operand;
pub mod processor;
mod program;

pub use flow::Flow;
pub use inst::{Encoding, Inst, Op};
pub use operand::{Operand, SpecialReg};
pub use processor::{Gen, Gpu, Processor, UnknownGpu};
pub use program::Program;

use std::fmt;

/// Why bytes could not be decoded at all. An invalid *word* is not an error (it
/// decodes to [`Op::Invalid`]); only input that ends too early is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ends inside an instruction: `needed` bytes are required, `available` remain.
    #[error("truncated instruction: {needed} bytes needed, {available} available")]
    Truncated {
        /// Bytes the instruction needs (including any literal constant).
        needed: usize,
        /// Bytes that were left in the input.
        available: usize,
    },
}

/// Decodes instructions for one GPU and wave size.
#[derive(Clone, Copy)]
pub struct Decoder {
    gpu: Gpu,
    wave64: bool,
    /// What the family decoders read of the GPU and wave size (found once,
    /// here, rather than for every instruction).
    info: &'static alu::GpuInfo,
    /// The family decoders of the GPU, by the top nine bits of the first
    /// dword.
    dispatch: &'static decode::Dispatch,
}

impl fmt::Debug for Decoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder")
            .field("gpu", &self.gpu)
            .field("wave64", &self.wave64)
            .finish()
    }
}

impl PartialEq for Decoder {
    fn eq(&self, other: &Decoder) -> bool {
        // `info` follows from the other two.
        (self.gpu, self.wave64) == (other.gpu, other.wave64)
    }
}

impl Eq for Decoder {}

impl Decoder {
    /// A decoder for `gpu` in wave64 (`true`) or wave32 (`false`) mode. GFX9 is
    /// always wave64, so `wave64` is forced on there. The wave size changes how
    /// wave-mask operands are named (`vcc` in wave64, `vcc_lo` in wave32).
    pub fn new(gpu: Gpu, wave64: bool) -> Self {
        let wave64 = wave64 || !gpu.supports_wave32();
        Decoder {
            gpu,
            wave64,
            info: alu::GpuInfo::of(gpu, wave64),
            dispatch: decode::dispatch(gpu),
        }
    }

    /// The GPU this decoder decodes for.
    pub fn gpu(&self) -> Gpu {
        self.gpu
    }

    /// Whether the decoder names operands for wave64.
    pub fn wave64(&self) -> bool {
        self.wave64
    }

    /// What the family decoders read of the GPU and wave size.
    pub(crate) fn info(&self) -> &'static alu::GpuInfo {
        self.info
    }

    /// The family decoders of the GPU.
    pub(crate) fn dispatch(&self) -> &'static decode::Dispatch {
        self.dispatch
    }

    /// Decodes the instruction at the start of `bytes`. Returns an [`Inst`] whose
    /// [`Inst::size_bytes`] says how many bytes it took (4, 8 or 12 for a literal
    /// constant or an NSA image address). Invalid encodings give an invalid `Inst`
    /// of 4 bytes; only too-short input is an error.
    #[inline]
    pub fn decode(&self, bytes: &[u8]) -> Result<Inst, DecodeError> {
        let mut inst = Inst::DEFAULT;
        let size = decode::decode_into(self, bytes, &mut inst)?;
        // The size the decoder wrote, stored again from the register it came
        // back in: a caller stepping on by `size_bytes()` then need not wait
        // for the decoder's store to reach its load.
        inst.size = size as u8;
        Ok(inst)
    }

    /// Like [`Decoder::decode`], but writes the instruction into `out` (which is
    /// overwritten whole on success and left unspecified on error) instead of
    /// returning it, for decoding into existing storage.
    #[inline]
    pub fn decode_into(&self, bytes: &[u8], out: &mut Inst) -> Result<(), DecodeError> {
        *out = Inst::DEFAULT;
        decode::decode_into(self, bytes, out).map(|_| ())
    }

    /// Decodes a whole code region starting at `address` into a [`Program`].
    /// Decoding continues past invalid words; truncated trailing bytes become a
    /// final invalid entry, so nothing decoded before them is lost.
    pub fn decode_program(&self, bytes: &[u8], address: u64) -> Program {
        Program::decode(self, bytes, address)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The family decoders write only what differs from `Inst::DEFAULT`:
    /// `decode_into` must give the same result whatever `out` held before
    /// (here another instruction with operands, modifiers, memory fields and
    /// a literal in every slot that could leak).
    #[test]
    fn decode_into_overwrites_what_out_held() {
        let words: [&[u32]; 8] = [
            &[0xbf81_0000],              // s_endpgm (SOPP)
            &[0xbe8a_0001],              // s_mov_b32 (SOP1)
            &[0x7e02_0200],              // v_mov_b32_e32 (VOP1)
            &[0xe050_1000, 0x8003_0201], // buffer_load_dword (MUBUF)
            &[0xd1fe_0000, 0x0002_0101], // VOP3
            &[0xc002_0000, 0x0000_0010], // s_load_dword (SMEM)
            &[0xdc50_8000, 0x017f_0002], // global_load_dword (FLAT)
            &[0xffff_ffff, 0xffff_ffff], // invalid
        ];
        // Dirty destinations (GFX10): `v_fma_f32 v5, -|v1|, 0x12345678, v3
        // clamp` and a MUBUF load with a literal soffset.
        let dirty_words: [&[u32]; 2] = [
            &[0xd54b_8105, 0x240d_ff01, 0x1234_5678],
            &[0xe030_5000, 0xff01_0102, 0x0000_0040],
        ];
        let bytes = |w: &[u32]| w.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
        for gpu in [Gpu::Gfx900, Gpu::Gfx1030] {
            for wave64 in [false, true] {
                let d = Decoder::new(gpu, wave64);
                let g10 = Decoder::new(Gpu::Gfx1030, false);
                for w in words {
                    let want = d.decode(&bytes(w));
                    for dw in dirty_words {
                        let mut out = g10.decode(&bytes(dw)).expect("dirty instruction");
                        assert!(!out.is_invalid(), "{dw:x?}");
                        let got = d.decode_into(&bytes(w), &mut out).map(|()| out);
                        assert_eq!(got, want, "{gpu} {w:x?} into {dw:x?}");
                    }
                }
            }
        }
    }

    #[test]
    fn gfx9_is_always_wave64() {
        assert!(Decoder::new(Gpu::Gfx900, false).wave64());
        assert!(!Decoder::new(Gpu::Gfx1030, false).wave64());
    }
}

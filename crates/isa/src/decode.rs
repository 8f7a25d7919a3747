//! Top-level decoding: the [`Decoder`] of a GPU and wave size classifies the first
//! dword of an instruction into its encoding family (see `family` for the prefixes)
//! with one lookup, then hands over to the family's decoder (`alu`, `mem`).

use crate::family::{Decoded, Family, GpuInfo, classify_slow};
use crate::inst::Inst;
use crate::processor::Gpu;
use std::fmt;

/// Why bytes could not be decoded at all. An invalid *word* is not an error (it
/// decodes to [`Op::Invalid`](crate::Op::Invalid)); only input that ends too early is.
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
    info: &'static GpuInfo,
    /// The family decoders of the GPU, by the top nine bits of the first
    /// dword.
    dispatch: &'static Dispatch,
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
            info: GpuInfo::of(gpu, wave64),
            dispatch: dispatch(gpu),
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
    pub(crate) fn info(&self) -> &'static GpuInfo {
        self.info
    }

    /// The family decoders of the GPU.
    pub(crate) fn dispatch(&self) -> &'static Dispatch {
        self.dispatch
    }

    /// Decodes the instruction at the start of `bytes`. Returns an [`Inst`] whose
    /// [`Inst::size_bytes`] says how many bytes it took (4, 8 or 12 for a literal
    /// constant or an NSA image address). Invalid encodings give an invalid `Inst`
    /// of 4 bytes; only too-short input is an error.
    #[inline]
    pub fn decode(&self, bytes: &[u8]) -> Result<Inst, DecodeError> {
        let mut inst = Inst::DEFAULT;
        let size = decode_into(self, bytes, &mut inst)?;
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
        decode_into(self, bytes, out).map(|_| ())
    }
}

/// Reads the little-endian dword at `index` (in dwords) of `bytes` (as one
/// 4-byte chunk: the compiler then emits one load, where a value assembled
/// from four indexed bytes may become several narrower loads).
pub(crate) fn dword(bytes: &[u8], index: usize) -> Result<u32, DecodeError> {
    let start = index * 4;
    match bytes.get(start..).and_then(|b| b.first_chunk::<4>()) {
        Some(b) => Ok(u32::from_le_bytes(*b)),
        None => Err(DecodeError::Truncated {
            needed: start + 4,
            available: bytes.len(),
        }),
    }
}

/// A decoder for one family (or for a prefix no family uses): the
/// decoder's per-GPU constant, the first dword `w0`, the bytes from the
/// instruction's start, and the destination.
type Handler = fn(&GpuInfo, u32, &[u8], &mut Inst) -> Decoded;

/// The handler of `family` (`None`: a prefix no family uses) on GPU number
/// `gpu` (the order of [`crate::Gpu::ALL`]). Each ALU family has a decoder
/// compiled per GPU (its opcode tables are then constants), as have the
/// frequent memory families (SMEM, DS, FLAT, MUBUF: their GPU tests fold
/// away); the rare ones (MTBUF, MIMG, EXP) have one per family.
const fn handler(family: Option<Family>, gpu: usize) -> Handler {
    use crate::alu::AluForm;
    use Family::*;
    let Some(family) = family else {
        return decode_invalid;
    };
    match family {
        Sop1 => alu::<{ AluForm::Sop1 as u8 }>(gpu),
        Sopc => alu::<{ AluForm::Sopc as u8 }>(gpu),
        Sopp => alu::<{ AluForm::Sopp as u8 }>(gpu),
        Sopk => alu::<{ AluForm::Sopk as u8 }>(gpu),
        Sop2 => alu::<{ AluForm::Sop2 as u8 }>(gpu),
        Vop2 => alu::<{ AluForm::Vop2 as u8 }>(gpu),
        Vop1 => alu::<{ AluForm::Vop1 as u8 }>(gpu),
        Vopc => alu::<{ AluForm::Vopc as u8 }>(gpu),
        Vop3 => alu::<{ AluForm::Vop3 as u8 }>(gpu),
        Vop3p => alu::<{ AluForm::Vop3p as u8 }>(gpu),
        Vintrp => alu::<{ AluForm::Vintrp as u8 }>(gpu),
        Smem => mem::<{ Smem as u8 }>(gpu),
        Ds => mem::<{ Ds as u8 }>(gpu),
        Flat => mem::<{ Flat as u8 }>(gpu),
        Mubuf => mem::<{ Mubuf as u8 }>(gpu),
        Mtbuf => crate::mem::decode_family::<{ Mtbuf as u8 }>,
        Mimg => crate::mem::decode_family::<{ Mimg as u8 }>,
        Exp => crate::mem::decode_family::<{ Exp as u8 }>,
    }
}

/// The decoder of ALU plain form `FORM` compiled for GPU number `gpu`.
const fn alu<const FORM: u8>(gpu: usize) -> Handler {
    use crate::alu::decode_plain;
    match gpu {
        0 => decode_plain::<FORM, 0>,
        1 => decode_plain::<FORM, 1>,
        2 => decode_plain::<FORM, 2>,
        3 => decode_plain::<FORM, 3>,
        4 => decode_plain::<FORM, 4>,
        _ => decode_plain::<FORM, 5>,
    }
}

/// The decoder of memory family `FAMILY` compiled for GPU number `gpu`.
const fn mem<const FAMILY: u8>(gpu: usize) -> Handler {
    use crate::mem::decode_family_gpu;
    match gpu {
        0 => decode_family_gpu::<FAMILY, 0>,
        1 => decode_family_gpu::<FAMILY, 1>,
        2 => decode_family_gpu::<FAMILY, 2>,
        3 => decode_family_gpu::<FAMILY, 3>,
        4 => decode_family_gpu::<FAMILY, 4>,
        _ => decode_family_gpu::<FAMILY, 5>,
    }
}

/// The decoder of each 9-bit prefix, per GPU (the order of
/// [`crate::Gpu::ALL`]; [`classify_slow`] for its generation, then
/// [`handler`]): one lookup and one call per instruction.
static DISPATCH: [[Handler; 512]; 6] = {
    let mut t: [[Handler; 512]; 6] = [[decode_invalid as Handler; 512]; 6];
    let mut g = 0;
    while g < 6 {
        let gpu = Gpu::ALL[g];
        assert!(gpu as usize == g, "Gpu::ALL is indexed by number");
        let mut p = 0;
        while p < 512 {
            t[g][p] = handler(classify_slow(gpu.generation(), (p as u32) << 23), g);
            p += 1;
        }
        g += 1;
    }
    t
};

/// The family decoders of one GPU, by the top nine bits of the first dword.
pub(crate) type Dispatch = [Handler; 512];

/// The family decoders of `gpu`.
pub(crate) fn dispatch(gpu: Gpu) -> &'static Dispatch {
    &DISPATCH[gpu as usize % 6]
}

/// The handler of a prefix no family uses: an invalid 4-byte instruction.
fn decode_invalid(_: &GpuInfo, w0: u32, _: &[u8], out: &mut Inst) -> Decoded {
    *out = Inst::invalid(w0);
    Ok(4)
}

/// Decodes the instruction at the start of `bytes` into `out`, which must
/// hold [`Inst::DEFAULT`] on entry: the family decoders write only the fields
/// that differ from it (an invalid word overwrites `out` whole). Both callers
/// start from that value anyway ([`Decoder::decode`] and
/// [`crate::Program`]'s new element), and [`Decoder::decode_into`] resets
/// its argument first. Writing in place spares the copies of the large
/// [`Inst`] that returning it by value (inside a `Result`) costs. Returns the
/// instruction's size in bytes (see [`Decoded`]).
#[inline]
pub(crate) fn decode_into(
    dec: &Decoder,
    bytes: &[u8],
    out: &mut Inst,
) -> Result<usize, DecodeError> {
    let w0 = dword(bytes, 0)?;
    // `w0 >> 23` is below 512: the lookup cannot miss.
    let r = match dec.dispatch().get((w0 >> 23) as usize) {
        Some(h) => h(dec.info(), w0, bytes, out),
        None => decode_invalid(dec.info(), w0, bytes, out),
    };
    match r {
        Ok(size) => {
            // Checked by every test build: callers step on by this value.
            debug_assert_eq!(size as usize, out.size_bytes(), "returned size");
            Ok(size as usize)
        }
        Err(needed) => Err(DecodeError::Truncated {
            needed: needed as usize,
            available: bytes.len(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_dword_is_an_error() {
        assert_eq!(
            dword(&[1, 2, 3], 0),
            Err(DecodeError::Truncated {
                needed: 4,
                available: 3
            })
        );
    }

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

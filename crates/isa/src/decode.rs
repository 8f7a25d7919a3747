//! Top-level decoding: classify the first dword into an encoding family by its
//! fixed prefix bits, then hand over to the family's decoder.
//!
//! Prefixes (ISA guides, "Microcode Formats"; GFX9 = Vega, GFX10 = RDNA):
//!
//! | family | GFX9 prefix            | GFX10 prefix           | size |
//! |--------|------------------------|------------------------|------|
//! | SOP1   | `[31:23] = 0x17d`      | same                   | 4    |
//! | SOPC   | `[31:23] = 0x17e`      | same                   | 4    |
//! | SOPP   | `[31:23] = 0x17f`      | same                   | 4    |
//! | SOPK   | `[31:28] = 0xb`        | same                   | 4    |
//! | SOP2   | `[31:30] = 0b10`       | same                   | 4    |
//! | SMEM   | `[31:26] = 0x30`       | `[31:26] = 0x3d`       | 8    |
//! | VOP2   | `[31] = 0` (not VOP1/C) | same                   | 4    |
//! | VOP1   | `[31:25] = 0x3f`       | same                   | 4    |
//! | VOPC   | `[31:25] = 0x3e`       | same                   | 4    |
//! | VOP3   | `[31:26] = 0x34`       | `[31:26] = 0x35`       | 8    |
//! | VOP3P  | `[31:23] = 0x1a7`      | `[31:26] = 0x33`       | 8    |
//! | VINTRP | `[31:26] = 0x35`       | `[31:26] = 0x32`       | 4    |
//! | DS     | `[31:26] = 0x36`       | same                   | 8    |
//! | FLAT   | `[31:26] = 0x37`       | same                   | 8    |
//! | MUBUF  | `[31:26] = 0x38`       | same                   | 8    |
//! | MTBUF  | `[31:26] = 0x3a`       | same                   | 8    |
//! | MIMG   | `[31:26] = 0x3c`       | same                   | 8+   |
//! | EXP    | `[31:26] = 0x31`       | `[31:26] = 0x3e`       | 8    |
//!
//! Any 4-byte source field equal to 255 adds a 4-byte literal; VOP1/VOP2/VOPC
//! with src0 = 0xf9 are SDWA, 0xfa DPP (and on GFX10 0xe9/0xea DPP8); those are
//! handled by the ALU decoder.

use crate::alu::GpuInfo;
use crate::{DecodeError, Decoder, Gen, Inst};

/// An encoding family recognised from the prefix of the first dword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    Sop1,
    Sopc,
    Sopp,
    Sopk,
    Sop2,
    Smem,
    Vop2,
    Vop1,
    Vopc,
    Vop3,
    Vop3p,
    Vintrp,
    Ds,
    Flat,
    Mubuf,
    Mtbuf,
    Mimg,
    Exp,
}

impl Family {
    /// Every family, by number (`Family as u8`).
    const ALL: [Family; 18] = {
        use Family::*;
        let t = [
            Sop1, Sopc, Sopp, Sopk, Sop2, Smem, Vop2, Vop1, Vopc, Vop3, Vop3p, Vintrp, Ds, Flat,
            Mubuf, Mtbuf, Mimg, Exp,
        ];
        let mut i = 0;
        while i < t.len() {
            assert!(t[i] as usize == i, "Family::ALL is indexed by number");
            i += 1;
        }
        t
    };

    /// The family numbered `n` (`Family as u8`); numbers are checked when the
    /// per-family decoders are compiled, so this never sees another value.
    pub(crate) const fn from_number(n: u8) -> Family {
        Family::ALL[n as usize % 18]
    }
}

/// Classifies `word` for `gen`; `None` for a prefix no family uses. Every
/// prefix in the table above lies within the top nine bits, so this is one
/// lookup in a table built at compile time by [`classify_slow`].
#[cfg(test)]
pub(crate) fn classify(generation: Gen, word: u32) -> Option<Family> {
    let table = match generation {
        Gen::Gfx9 => &CLASSIFY[0],
        Gen::Gfx10 => &CLASSIFY[1],
    };
    // `word >> 23` is below 512: the lookup cannot miss.
    table.get((word >> 23) as usize).copied().flatten()
}

/// [`classify`]'s table: the family of each 9-bit prefix, per generation.
#[cfg(test)]
static CLASSIFY: [[Option<Family>; 512]; 2] = {
    let mut t = [[None; 512]; 2];
    let mut p = 0;
    while p < 512 {
        t[0][p] = classify_slow(Gen::Gfx9, (p as u32) << 23);
        t[1][p] = classify_slow(Gen::Gfx10, (p as u32) << 23);
        p += 1;
    }
    t
};

/// Classifies `word` by testing the prefixes one after another (the
/// definition the lookup table is built from).
const fn classify_slow(generation: Gen, word: u32) -> Option<Family> {
    use Family::*;
    match word >> 25 {
        0x3f => return Some(Vop1),
        0x3e => return Some(Vopc),
        _ if word >> 31 == 0 => return Some(Vop2),
        _ => {}
    }
    match word >> 23 {
        0x17d => return Some(Sop1),
        0x17e => return Some(Sopc),
        0x17f => return Some(Sopp),
        _ => {}
    }
    if word >> 28 == 0xb {
        return Some(Sopk);
    }
    if word >> 30 == 0b10 {
        return Some(Sop2);
    }
    let p6 = word >> 26;
    match generation {
        Gen::Gfx9 => {
            if word >> 23 == 0x1a7 {
                return Some(Vop3p);
            }
            match p6 {
                0x30 => Some(Smem),
                0x31 => Some(Exp),
                0x34 => Some(Vop3),
                0x35 => Some(Vintrp),
                0x36 => Some(Ds),
                0x37 => Some(Flat),
                0x38 => Some(Mubuf),
                0x3a => Some(Mtbuf),
                0x3c => Some(Mimg),
                _ => None,
            }
        }
        Gen::Gfx10 => match p6 {
            0x3d => Some(Smem),
            0x3e => Some(Exp),
            0x35 => Some(Vop3),
            0x33 => Some(Vop3p),
            0x32 => Some(Vintrp),
            0x36 => Some(Ds),
            0x37 => Some(Flat),
            0x38 => Some(Mubuf),
            0x3a => Some(Mtbuf),
            0x3c => Some(Mimg),
            _ => None,
        },
    }
}

/// What the decoders of the families return: `Ok(size)`, the size in bytes
/// of the instruction written (the same as its [`Inst::size`], handed back
/// in a register so that a caller stepping to the next instruction need not
/// read it back from memory), or `Err(needed)` when the input ends inside
/// the instruction, `needed` being the bytes it takes. [`decode_into`]
/// makes that a [`DecodeError::Truncated`] (whose `available` is always the
/// length of the input): registers rather than a 24-byte result in memory,
/// so a decoder that ends by calling another one jumps to it.
pub(crate) type Decoded = Result<u32, u32>;

/// [`dword`] for the family decoders: the error is the bytes needed (see
/// [`Decoded`]).
#[inline(always)]
pub(crate) fn word(bytes: &[u8], index: usize) -> Result<u32, u32> {
    let start = index * 4;
    match bytes.get(start..).and_then(|b| b.first_chunk::<4>()) {
        Some(b) => Ok(u32::from_le_bytes(*b)),
        None => Err((start + 4) as u32),
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
        let gpu = crate::Gpu::ALL[g];
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
pub(crate) fn dispatch(gpu: crate::Gpu) -> &'static Dispatch {
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
    fn classifies_known_prefixes() {
        // v_mov_b32_e32 v1, s0
        assert_eq!(classify(Gen::Gfx9, 0x7e02_0200), Some(Family::Vop1));
        // s_mov_b32 s10, s1
        assert_eq!(classify(Gen::Gfx9, 0xbe8a_0001), Some(Family::Sop1));
        // s_endpgm
        assert_eq!(classify(Gen::Gfx10, 0xbf81_0000), Some(Family::Sopp));
        assert_eq!(classify(Gen::Gfx9, 0xc002_0000), Some(Family::Smem));
        assert_eq!(classify(Gen::Gfx10, 0xf400_0000), Some(Family::Smem));
        assert_eq!(classify(Gen::Gfx9, 0xd1fe_0000), Some(Family::Vop3));
        assert_eq!(classify(Gen::Gfx10, 0xd700_0000), Some(Family::Vop3));
        assert_eq!(classify(Gen::Gfx9, 0xd380_0000), Some(Family::Vop3p));
        assert_eq!(classify(Gen::Gfx10, 0xcc00_0000), Some(Family::Vop3p));
    }

    #[test]
    fn table_agrees_with_the_prefix_tests() {
        // Low bits vary too: the prefixes must not depend on them.
        for generation in [Gen::Gfx9, Gen::Gfx10] {
            for p in 0..512u32 {
                for low in [0, 0x1ff, 0x7f_ffff, 0x55_aa55] {
                    let w = p << 23 | low;
                    assert_eq!(
                        classify(generation, w),
                        classify_slow(generation, w),
                        "{w:#x}"
                    );
                }
            }
        }
    }

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
}

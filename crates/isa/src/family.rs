//! Encoding families: the classification of an instruction's first dword by its fixed
//! prefix bits, and what every family decoder shares (its result type, the dword
//! reader, the per-GPU facts it reads). The decoders (`alu`, `mem`) and the top-level
//! dispatch (`decode`) are built on these.
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

use crate::operand::Operand;
use crate::processor::{Gen, Gpu};

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
pub(crate) const fn classify_slow(generation: Gen, word: u32) -> Option<Family> {
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

/// What the decoders need to know of the [`crate::Decoder`], and what
/// follows from it, one constant per GPU and wave size (the ALU decoder's `GPU_INFO`): the
/// family and shape decoders take it in place of the decoder and read these
/// fields instead of deriving them.
pub(crate) struct GpuInfo {
    /// The GPU.
    pub(crate) gpu: Gpu,
    /// Its generation.
    pub(crate) generation: Gen,
    /// Whether operands are named for wave64.
    pub(crate) wave64: bool,
    /// The ALU modifier flags of the GPU (`inst::alu::mods_bit`).
    pub(crate) mods_bits: u8,
    /// The scalar operands of the generation (the ALU decoder's `SCALAR`).
    pub(crate) scalars: &'static [[Operand; 256]; 5],
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
}

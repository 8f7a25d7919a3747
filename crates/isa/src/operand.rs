//! Instruction operands with register indices and constants resolved at decode time.
//!
//! Register naming follows LLVM's AMDGPU assembler syntax ("Syntax of GFX9/GFX10
//! Instructions"): `s5`, `s[4:5]`, `v[0:3]`, `a1`, `ttmp[4:5]`, `vcc`/`vcc_lo`,
//! `exec`/`exec_lo`, `m0`, `null` ...

use std::fmt;

/// A named special register or hardware constant reachable through the scalar
/// operand field (ISA guides, "Scalar operand encoding" / SSRC table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `vcc` (64-bit), or `vcc_lo`/`vcc_hi` with a dword index.
    Vcc,
    /// `exec` (64-bit), or `exec_lo`/`exec_hi`.
    Exec,
    /// `flat_scratch` (GFX9 only as an SGPR pair; 102-103).
    FlatScratch,
    /// `xnack_mask` (GFX9, 104-105).
    XnackMask,
    /// `m0` (124).
    M0,
    /// `null` (GFX10, 125): reads zero, writes are discarded.
    Null,
    /// `src_shared_base` (235): the LDS aperture base.
    SharedBase,
    /// `src_shared_limit` (236).
    SharedLimit,
    /// `src_private_base` (237): the scratch aperture base.
    PrivateBase,
    /// `src_private_limit` (238).
    PrivateLimit,
    /// `src_pops_exiting_wave_id` (239).
    PopsExitingWaveId,
    /// `src_vccz` (251).
    Vccz,
    /// `src_execz` (252).
    Execz,
    /// `src_scc` (253).
    Scc,
    /// `src_lds_direct` (254).
    LdsDirect,
}

/// One operand of a decoded instruction.
///
/// Register operands carry their first index and their size in dwords, so the
/// executor needs no further lookup. `Special` registers carry a `part`: 0 for
/// the whole register or its low dword, 1 for the high dword (`vcc_hi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Operand {
    /// No operand in this slot.
    #[default]
    None,
    /// Scalar registers `s[index .. index+count]`.
    Sgpr {
        /// First register.
        index: u8,
        /// Number of dwords.
        count: u8,
    },
    /// Trap temporaries `ttmp[index .. index+count]`.
    Ttmp {
        /// First register.
        index: u8,
        /// Number of dwords.
        count: u8,
    },
    /// Vector registers `v[index .. index+count]`.
    Vgpr {
        /// First register.
        index: u8,
        /// Number of dwords.
        count: u8,
    },
    /// Accumulation registers `a[index .. index+count]` (gfx908, gfx90a).
    Agpr {
        /// First register.
        index: u8,
        /// Number of dwords.
        count: u8,
    },
    /// A special register.
    Special {
        /// Which register.
        reg: SpecialReg,
        /// Number of dwords accessed (1 or 2; `vcc_lo` is `part 0, count 1`).
        count: u8,
        /// 0 for the low dword (or the whole register), 1 for the high dword.
        part: u8,
    },
    /// An inline integer constant, -16..=64 (operand codes 128..=208).
    InlineInt(i8),
    /// An inline floating-point constant, by its operand code (240..=248:
    /// 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2*pi)). Its bit pattern
    /// depends on the operand's type; see [`inline_float_bits`].
    InlineFloat(u8),
    /// A 32-bit literal constant that followed the instruction (operand code 255).
    Literal(u32),
    /// An immediate field of the instruction (SOPK simm16, offsets, ...).
    Imm(i32),
}

impl Operand {
    /// Whether the operand reads or writes a register.
    pub fn is_register(&self) -> bool {
        matches!(
            self,
            Operand::Sgpr { .. }
                | Operand::Ttmp { .. }
                | Operand::Vgpr { .. }
                | Operand::Agpr { .. }
                | Operand::Special { .. }
        )
    }

    /// Whether this slot holds an operand.
    pub fn is_some(&self) -> bool {
        !matches!(self, Operand::None)
    }

    /// The same register operand widened or narrowed to `count` dwords. Other
    /// operands are returned unchanged.
    pub fn with_count(self, count: u8) -> Operand {
        match self {
            Operand::Sgpr { index, .. } => Operand::Sgpr { index, count },
            Operand::Ttmp { index, .. } => Operand::Ttmp { index, count },
            Operand::Vgpr { index, .. } => Operand::Vgpr { index, count },
            Operand::Agpr { index, .. } => Operand::Agpr { index, count },
            Operand::Special { reg, part, .. } => Operand::Special { reg, count, part },
            other => other,
        }
    }
}

/// The bit pattern of inline float constant `code` (240..=248) for an operand of
/// `bits` width (16, 32 or 64). Returns `None` for other codes.
pub fn inline_float_bits(code: u8, bits: u32) -> Option<u64> {
    let v: f64 = match code {
        240 => 0.5,
        241 => -0.5,
        242 => 1.0,
        243 => -1.0,
        244 => 2.0,
        245 => -2.0,
        246 => 4.0,
        247 => -4.0,
        248 => {
            // 1/(2*pi): the hardware uses fixed patterns rather than a rounding of the value.
            return match bits {
                16 => Some(0x3118),
                32 => Some(0x3e22_f983),
                64 => Some(0x3fc4_5f30_6dc9_c882),
                _ => None,
            };
        }
        _ => return None,
    };
    match bits {
        16 => Some(f32_to_f16_bits(v as f32) as u64),
        32 => Some((v as f32).to_bits() as u64),
        64 => Some(v.to_bits()),
        _ => None,
    }
}

/// Decodes a 9-bit source operand code (or an 8-bit scalar one, which is the
/// same code space below 256) into an [`Operand`] of `count` dwords, for `gpu`.
///
/// Codes (ISA guides, "SSRC/SRC operand encoding"): 0..=101 (GFX9) or 0..=105
/// (GFX10) SGPRs; 102/104 `flat_scratch`/`xnack_mask` on GFX9; 106 `vcc`;
/// 108..=123 `ttmp0..15`; 124 `m0`; 125 `null` (GFX10); 126 `exec`; 128..=208
/// inline integers 0..64 and -1..-16; 235..=239 aperture and POPS constants;
/// 240..=248 inline floats; 251..=254 `src_vccz`, `src_execz`, `src_scc`,
/// `src_lds_direct`; 256..=511 VGPRs. Code 255 (a literal) and the SDWA/DPP
/// markers 249/250 are the caller's business and give `None` here, as do
/// reserved codes.
pub fn decode_src(gpu: crate::Gpu, code: u16, count: u8) -> Option<Operand> {
    use crate::Gen;
    let gfx9 = gpu.generation() == Gen::Gfx9;
    let special = |reg: SpecialReg, part: u8| Operand::Special { reg, count, part };
    Some(match code {
        0..=101 => Operand::Sgpr {
            index: code as u8,
            count,
        },
        102..=105 if !gfx9 => Operand::Sgpr {
            index: code as u8,
            count,
        },
        102 | 103 => special(SpecialReg::FlatScratch, (code - 102) as u8),
        104 | 105 => special(SpecialReg::XnackMask, (code - 104) as u8),
        106 | 107 => special(SpecialReg::Vcc, (code - 106) as u8),
        108..=123 => Operand::Ttmp {
            index: (code - 108) as u8,
            count,
        },
        124 => special(SpecialReg::M0, 0),
        125 if !gfx9 => special(SpecialReg::Null, 0),
        126 | 127 => special(SpecialReg::Exec, (code - 126) as u8),
        128..=192 => Operand::InlineInt((code - 128) as i8),
        193..=208 => Operand::InlineInt(-((code - 192) as i16) as i8),
        235 => special(SpecialReg::SharedBase, 0),
        236 => special(SpecialReg::SharedLimit, 0),
        237 => special(SpecialReg::PrivateBase, 0),
        238 => special(SpecialReg::PrivateLimit, 0),
        239 => special(SpecialReg::PopsExitingWaveId, 0),
        240..=248 => Operand::InlineFloat(code as u8),
        251 => special(SpecialReg::Vccz, 0),
        252 => special(SpecialReg::Execz, 0),
        253 => special(SpecialReg::Scc, 0),
        254 => special(SpecialReg::LdsDirect, 0),
        256..=511 => Operand::Vgpr {
            index: (code - 256) as u8,
            count,
        },
        _ => return None,
    })
}

/// Exact conversion for the small powers of two used by inline constants.
fn f32_to_f16_bits(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mant = ((bits >> 13) & 0x3ff) as u16;
    if v == 0.0 {
        sign
    } else {
        sign | ((exp as u16) << 10) | mant
    }
}

fn write_range(f: &mut fmt::Formatter<'_>, prefix: &str, index: u32, count: u8) -> fmt::Result {
    if count <= 1 {
        write!(f, "{prefix}{index}")
    } else {
        write!(f, "{prefix}[{index}:{}]", index + count as u32 - 1)
    }
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SpecialReg::Vcc => "vcc",
            SpecialReg::Exec => "exec",
            SpecialReg::FlatScratch => "flat_scratch",
            SpecialReg::XnackMask => "xnack_mask",
            SpecialReg::M0 => "m0",
            SpecialReg::Null => "null",
            SpecialReg::SharedBase => "src_shared_base",
            SpecialReg::SharedLimit => "src_shared_limit",
            SpecialReg::PrivateBase => "src_private_base",
            SpecialReg::PrivateLimit => "src_private_limit",
            SpecialReg::PopsExitingWaveId => "src_pops_exiting_wave_id",
            SpecialReg::Vccz => "src_vccz",
            SpecialReg::Execz => "src_execz",
            SpecialReg::Scc => "src_scc",
            SpecialReg::LdsDirect => "src_lds_direct",
        })
    }
}

impl fmt::Display for Operand {
    /// Prints registers and integer constants the way LLVM does. Inline float
    /// constants print as their value; literals print in hex. (Operand printing
    /// that depends on the instruction's operand type is done by the instruction
    /// printer, which knows the type.)
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Operand::None => Ok(()),
            Operand::Sgpr { index, count } => write_range(f, "s", index as u32, count),
            Operand::Ttmp { index, count } => write_range(f, "ttmp", index as u32, count),
            Operand::Vgpr { index, count } => write_range(f, "v", index as u32, count),
            Operand::Agpr { index, count } => write_range(f, "a", index as u32, count),
            Operand::Special { reg, count, part } => {
                let pairable = matches!(
                    reg,
                    SpecialReg::Vcc
                        | SpecialReg::Exec
                        | SpecialReg::FlatScratch
                        | SpecialReg::XnackMask
                );
                if pairable && count == 1 {
                    write!(f, "{reg}{}", if part == 0 { "_lo" } else { "_hi" })
                } else {
                    write!(f, "{reg}")
                }
            }
            Operand::InlineInt(v) => write!(f, "{v}"),
            Operand::InlineFloat(code) => f.write_str(match code {
                240 => "0.5",
                241 => "-0.5",
                242 => "1.0",
                243 => "-1.0",
                244 => "2.0",
                245 => "-2.0",
                246 => "4.0",
                247 => "-4.0",
                _ => "0.15915494",
            }),
            Operand::Literal(v) => write!(f, "0x{v:x}"),
            Operand::Imm(v) => write!(f, "{v}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_names() {
        assert_eq!(Operand::Sgpr { index: 5, count: 1 }.to_string(), "s5");
        assert_eq!(Operand::Vgpr { index: 4, count: 2 }.to_string(), "v[4:5]");
        assert_eq!(
            Operand::Ttmp { index: 4, count: 4 }.to_string(),
            "ttmp[4:7]"
        );
        let vcc_hi = Operand::Special {
            reg: SpecialReg::Vcc,
            count: 1,
            part: 1,
        };
        assert_eq!(vcc_hi.to_string(), "vcc_hi");
        let exec = Operand::Special {
            reg: SpecialReg::Exec,
            count: 2,
            part: 0,
        };
        assert_eq!(exec.to_string(), "exec");
    }

    #[test]
    fn source_codes() {
        use crate::Gpu;
        assert_eq!(
            decode_src(Gpu::Gfx900, 5, 1),
            Some(Operand::Sgpr { index: 5, count: 1 })
        );
        assert_eq!(
            decode_src(Gpu::Gfx1030, 105, 1),
            Some(Operand::Sgpr {
                index: 105,
                count: 1
            })
        );
        assert_eq!(
            decode_src(Gpu::Gfx900, 128 + 64, 1),
            Some(Operand::InlineInt(64))
        );
        assert_eq!(
            decode_src(Gpu::Gfx900, 208, 1),
            Some(Operand::InlineInt(-16))
        );
        assert_eq!(decode_src(Gpu::Gfx900, 125, 1), None);
        assert_eq!(decode_src(Gpu::Gfx900, 255, 1), None);
        assert_eq!(
            decode_src(Gpu::Gfx900, 300, 2),
            Some(Operand::Vgpr {
                index: 44,
                count: 2
            })
        );
        assert_eq!(
            decode_src(Gpu::Gfx900, 106, 2).map(|o| o.to_string()),
            Some("vcc".into())
        );
    }

    #[test]
    fn inline_float_patterns() {
        assert_eq!(inline_float_bits(242, 32), Some(0x3f80_0000));
        assert_eq!(inline_float_bits(241, 16), Some(0xb800));
        assert_eq!(inline_float_bits(246, 64), Some(0x4010_0000_0000_0000));
        assert_eq!(inline_float_bits(200, 32), None);
    }
}

//! The target a code object was built for: processor, target features and
//! code object version, decoded from the ELF header.
//!
//! Source: AMDGPU usage guide, "ELF Code Object" → "Header" (tables
//! "AMDGPU ELF Header", "AMDGPU ELF Header Enumeration Values",
//! "AMDGPU EF_AMDGPU_MACH Values") and "Target ID".

use crate::Error;
use std::fmt;

/// `e_ident[EI_OSABI]` of an HSA code object.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `e_machine` of every AMDGPU code object.
pub const EM_AMDGPU: u16 = 224;
/// Mask of the processor field of `e_flags`.
pub const EF_AMDGPU_MACH: u32 = 0x0ff;
/// Code object v3: the `xnack` feature is enabled.
pub const EF_AMDGPU_FEATURE_XNACK_V3: u32 = 0x100;
/// Code object v3: the `sramecc` feature is enabled.
pub const EF_AMDGPU_FEATURE_SRAMECC_V3: u32 = 0x200;
/// Code object v4+: mask of the two-bit `xnack` setting.
pub const EF_AMDGPU_FEATURE_XNACK_V4: u32 = 0x300;
/// Code object v4+: mask of the two-bit `sramecc` setting.
pub const EF_AMDGPU_FEATURE_SRAMECC_V4: u32 = 0xc00;

/// Register generation of a processor: which instruction encodings, kernel
/// descriptor layout (COMPUTE_PGM_RSRC3) and register granularities apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// GFX9 ("Vega", CDNA1/CDNA2): wave64 only.
    Gfx9,
    /// GFX10 (RDNA1/RDNA2): wave32 or wave64 per kernel.
    Gfx10,
}

macro_rules! gpus {
    ($($variant:ident = $mach:literal, $name:literal, $family:ident, $xnack:literal, $sramecc:literal;)*) => {
        /// A processor this loader understands, named as LLVM names it.
        ///
        /// The discriminants are the `EF_AMDGPU_MACH_AMDGCN_*` values of
        /// `e_flags` (AMDGPU usage guide, "AMDGPU EF_AMDGPU_MACH Values").
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Gpu {
            $($variant = $mach,)*
        }

        impl Gpu {
            /// Every supported processor.
            pub const ALL: &'static [Gpu] = &[$(Gpu::$variant,)*];

            /// The processor of an `EF_AMDGPU_MACH` value, if supported.
            pub fn from_mach(mach: u32) -> Option<Gpu> {
                match mach {
                    $($mach => Some(Gpu::$variant),)*
                    _ => None,
                }
            }

            /// The processor with LLVM's name (`gfx90a`), if supported.
            pub fn from_name(name: &str) -> Option<Gpu> {
                match name {
                    $($name => Some(Gpu::$variant),)*
                    _ => None,
                }
            }

            /// LLVM's name of the processor, e.g. `gfx90a`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Gpu::$variant => $name,)*
                }
            }

            /// The register generation.
            pub fn family(self) -> Family {
                match self {
                    $(Gpu::$variant => Family::$family,)*
                }
            }

            /// Whether the processor has the `xnack` target feature at all
            /// (AMDGPU usage guide, "AMDGPU Processors", column "Target Features Supported").
            pub fn supports_xnack(self) -> bool {
                match self {
                    $(Gpu::$variant => $xnack,)*
                }
            }

            /// Whether the processor has the `sramecc` target feature at all.
            pub fn supports_sramecc(self) -> bool {
                match self {
                    $(Gpu::$variant => $sramecc,)*
                }
            }
        }
    };
}

gpus! {
    Gfx900 = 0x02c, "gfx900", Gfx9, true, false;
    Gfx902 = 0x02d, "gfx902", Gfx9, true, false;
    Gfx904 = 0x02e, "gfx904", Gfx9, true, false;
    Gfx906 = 0x02f, "gfx906", Gfx9, true, true;
    Gfx908 = 0x030, "gfx908", Gfx9, true, true;
    Gfx909 = 0x031, "gfx909", Gfx9, true, false;
    Gfx90c = 0x032, "gfx90c", Gfx9, true, false;
    Gfx90a = 0x03f, "gfx90a", Gfx9, true, true;
    Gfx1010 = 0x033, "gfx1010", Gfx10, true, false;
    Gfx1011 = 0x034, "gfx1011", Gfx10, true, false;
    Gfx1012 = 0x035, "gfx1012", Gfx10, true, false;
    Gfx1013 = 0x042, "gfx1013", Gfx10, true, false;
    Gfx1030 = 0x036, "gfx1030", Gfx10, false, false;
    Gfx1031 = 0x037, "gfx1031", Gfx10, false, false;
    Gfx1032 = 0x038, "gfx1032", Gfx10, false, false;
    Gfx1033 = 0x039, "gfx1033", Gfx10, false, false;
    Gfx1034 = 0x03e, "gfx1034", Gfx10, false, false;
    Gfx1035 = 0x03d, "gfx1035", Gfx10, false, false;
    Gfx1036 = 0x045, "gfx1036", Gfx10, false, false;
}

impl Gpu {
    /// Whether the processor has the gfx90a extensions relevant to code
    /// objects: a unified VGPR/AGPR file (VGPR granule 8) and the
    /// COMPUTE_PGM_RSRC3 `ACCUM_OFFSET` / `TG_SPLIT` fields.
    pub fn has_gfx90a_insts(self) -> bool {
        self == Gpu::Gfx90a
    }

    /// Whether the hardware packs the work-item ids of a lane into v0 at
    /// wave launch (X bits 9:0, Y 19:10, Z 29:20) instead of v0, v1, v2:
    /// gfx90a (LLVM's `FeaturePackedTID`; the seed guide predates it). The
    /// code clang-19 emits for gfx90a unpacks v0 accordingly.
    pub fn has_packed_workitem_ids(self) -> bool {
        self == Gpu::Gfx90a
    }

    /// Whether the processor has accumulation registers (AGPRs): gfx908, gfx90a.
    pub fn has_agprs(self) -> bool {
        matches!(self, Gpu::Gfx908 | Gpu::Gfx90a)
    }
}

impl fmt::Display for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Names of `EF_AMDGPU_MACH` values that are assigned but not supported, for
/// error messages.
pub(crate) fn unsupported_mach_name(mach: u32) -> Option<&'static str> {
    Some(match mach {
        0x020 => "gfx600",
        0x021 => "gfx601",
        0x022 => "gfx700",
        0x023 => "gfx701",
        0x024 => "gfx702",
        0x025 => "gfx703",
        0x026 => "gfx704",
        0x028 => "gfx801",
        0x029 => "gfx802",
        0x02a => "gfx803",
        0x02b => "gfx810",
        0x03a => "gfx602",
        0x03b => "gfx705",
        0x03c => "gfx805",
        0x040 => "gfx940",
        0x041 => "gfx1100",
        0x043 => "gfx1150",
        0x044 => "gfx1103",
        0x046 => "gfx1101",
        0x047 => "gfx1102",
        0x048 => "gfx1200",
        0x04a => "gfx1151",
        0x04b => "gfx941",
        0x04c => "gfx942",
        0x04e => "gfx1201",
        0x051 => "gfx9-generic",
        0x052 => "gfx10-1-generic",
        0x053 => "gfx10-3-generic",
        0x054 => "gfx11-generic",
        _ => return None,
    })
}

/// The setting of an on/off target feature (`xnack`, `sramecc`).
///
/// AMDGPU usage guide, "Target Features" and the code object v4
/// `EF_AMDGPU_FEATURE_*_V4` encodings: `0` unsupported, `1` any, `2` off, `3` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeatureSetting {
    /// The processor does not have the feature.
    Unsupported,
    /// The code runs with the feature either on or off.
    Any,
    /// The code requires the feature off (`feature-` in the target id).
    Off,
    /// The code requires the feature on (`feature+` in the target id).
    On,
}

impl FeatureSetting {
    /// Decodes the two-bit v4+ field (already shifted down).
    fn from_v4(bits: u32) -> FeatureSetting {
        match bits & 3 {
            0 => FeatureSetting::Unsupported,
            1 => FeatureSetting::Any,
            2 => FeatureSetting::Off,
            _ => FeatureSetting::On,
        }
    }

    /// The suffix the target id uses (`+`, `-`), or `None` when the feature is
    /// not mentioned (any, unsupported).
    pub fn target_id_suffix(self) -> Option<char> {
        match self {
            FeatureSetting::On => Some('+'),
            FeatureSetting::Off => Some('-'),
            FeatureSetting::Any | FeatureSetting::Unsupported => None,
        }
    }
}

impl fmt::Display for FeatureSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FeatureSetting::Unsupported => "unsupported",
            FeatureSetting::Any => "any",
            FeatureSetting::Off => "off",
            FeatureSetting::On => "on",
        })
    }
}

/// What a code object was built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    /// The processor (`EF_AMDGPU_MACH`).
    pub gpu: Gpu,
    /// The `xnack` setting.
    pub xnack: FeatureSetting,
    /// The `sramecc` setting.
    pub sramecc: FeatureSetting,
    /// Code object version (3, 4, 5 or 6), from `e_ident[EI_ABIVERSION]`
    /// (`ELFABIVERSION_AMDGPU_HSA_V3` = 1 ... `_V6` = 4).
    pub code_object_version: u8,
    /// The raw `e_flags`.
    pub e_flags: u32,
}

impl Target {
    /// Decodes the target from `e_ident[EI_ABIVERSION]` and `e_flags`.
    pub fn from_header(abi_version: u8, e_flags: u32) -> Result<Target, Error> {
        let code_object_version = match abi_version {
            1..=4 => abi_version + 2,
            _ => return Err(Error::UnsupportedVersion { abi_version }),
        };
        let mach = e_flags & EF_AMDGPU_MACH;
        let gpu = Gpu::from_mach(mach).ok_or(Error::UnknownGpu {
            mach,
            name: unsupported_mach_name(mach),
        })?;
        let (xnack, sramecc) = if code_object_version == 3 {
            // v3 has one bit per feature: set means on; clear means the
            // feature is off (or unsupported by the processor).
            let v3 = |bit: u32, supported: bool| {
                if e_flags & bit != 0 {
                    FeatureSetting::On
                } else if supported {
                    FeatureSetting::Off
                } else {
                    FeatureSetting::Unsupported
                }
            };
            (
                v3(EF_AMDGPU_FEATURE_XNACK_V3, gpu.supports_xnack()),
                v3(EF_AMDGPU_FEATURE_SRAMECC_V3, gpu.supports_sramecc()),
            )
        } else {
            (
                FeatureSetting::from_v4((e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8),
                FeatureSetting::from_v4((e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10),
            )
        };
        Ok(Target {
            gpu,
            xnack,
            sramecc,
            code_object_version,
            e_flags,
        })
    }

    /// The register generation of the processor.
    pub fn family(&self) -> Family {
        self.gpu.family()
    }

    /// The target id as LLVM prints it (AMDGPU usage guide, "Target ID"):
    /// `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`. Features appear in
    /// alphabetical order and only when set on or off.
    pub fn target_id(&self) -> String {
        let mut s = format!("amdgcn-amd-amdhsa--{}", self.gpu.name());
        for (name, setting) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(c) = setting.target_id_suffix() {
                s.push(':');
                s.push_str(name);
                s.push(c);
            }
        }
        s
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.target_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mach_names_round_trip() {
        for &g in Gpu::ALL {
            assert_eq!(Gpu::from_mach(g as u32), Some(g));
            assert_eq!(Gpu::from_name(g.name()), Some(g));
            assert!(unsupported_mach_name(g as u32).is_none(), "{g}");
        }
    }

    #[test]
    fn v4_feature_bits() {
        // 0xB2F is what clang-19 writes for gfx906:sramecc-:xnack+.
        let t = Target::from_header(2, 0xb2f).unwrap();
        assert_eq!(t.gpu, Gpu::Gfx906);
        assert_eq!(t.xnack, FeatureSetting::On);
        assert_eq!(t.sramecc, FeatureSetting::Off);
        assert_eq!(t.code_object_version, 4);
        assert_eq!(t.target_id(), "amdgcn-amd-amdhsa--gfx906:sramecc-:xnack+");
        // 0x73F: gfx90a, xnack on, sramecc any.
        let t = Target::from_header(3, 0x73f).unwrap();
        assert_eq!(t.target_id(), "amdgcn-amd-amdhsa--gfx90a:xnack+");
        assert_eq!(t.sramecc, FeatureSetting::Any);
        assert_eq!(t.code_object_version, 5);
    }

    #[test]
    fn unknown_machines_and_versions() {
        assert_eq!(
            Target::from_header(2, 0x41),
            Err(Error::UnknownGpu {
                mach: 0x41,
                name: Some("gfx1100")
            })
        );
        assert_eq!(
            Target::from_header(2, 0xff),
            Err(Error::UnknownGpu {
                mach: 0xff,
                name: None
            })
        );
        assert_eq!(
            Target::from_header(0, 0x2c),
            Err(Error::UnsupportedVersion { abi_version: 0 })
        );
        let msg = Target::from_header(2, 0x41).unwrap_err().to_string();
        assert!(msg.contains("gfx1100"), "{msg}");
    }

    #[test]
    fn v3_feature_bits() {
        let t = Target::from_header(1, 0x12f).unwrap();
        assert_eq!(t.xnack, FeatureSetting::On);
        assert_eq!(t.sramecc, FeatureSetting::Off);
        let t = Target::from_header(1, 0x02c).unwrap();
        assert_eq!(t.sramecc, FeatureSetting::Unsupported);
    }
}

//! The target a code object was built for: processor, target features and
//! code object version, decoded from the ELF header. The processors themselves
//! (names, `EF_AMDGPU_MACH` numbers, generations, features) are
//! [`amdgpu_isa::Processor`]'s table.
//!
//! Source: AMDGPU usage guide, "ELF Code Object" → "Header" (tables
//! "AMDGPU ELF Header", "AMDGPU ELF Header Enumeration Values",
//! "AMDGPU EF_AMDGPU_MACH Values") and "Target ID".

use crate::Error;
use amdgpu_isa::{Gen, Processor};
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
    pub gpu: Processor,
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
        let gpu = Processor::from_mach(mach).ok_or(Error::UnknownGpu {
            mach,
            name: Processor::unsupported_name(mach),
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
    pub fn family(&self) -> Gen {
        self.gpu.generation()
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
    fn v4_feature_bits() {
        // 0xB2F is what clang-19 writes for gfx906:sramecc-:xnack+.
        let t = Target::from_header(2, 0xb2f).unwrap();
        assert_eq!(t.gpu, Processor::Gfx906);
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

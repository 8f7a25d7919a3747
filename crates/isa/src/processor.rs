//! The processors: one table of every AMDGPU processor amdsim knows by name, with
//! its `EF_AMDGPU_MACH` number, generation and target features, and the decoder's
//! [`Gpu`] for the six it decodes and executes. The code object reader, the decoder,
//! the simulator and the runtime all answer their questions about a processor from
//! it (AMDGPU usage guide, "AMDGPU Processors", "AMDGPU EF_AMDGPU_MACH Values",
//! "Target Features").

use std::fmt;
use std::str::FromStr;

/// A GPU the decoder knows. Each selects an instruction-set generation and its
/// feature additions (dot products on gfx906, MFMA and AGPRs on gfx908/gfx90a,
/// packed FP32 on gfx90a, the RDNA2 additions on gfx1030). Its name, ELF number
/// and features are those of its [`Processor`] ([`Gpu::processor`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Gpu {
    /// Vega 10 (GFX9).
    Gfx900,
    /// Vega 20 (GFX9 with dot-product and mixed-precision additions).
    Gfx906,
    /// MI100, CDNA1 (GFX9 with MFMA and AGPRs).
    Gfx908,
    /// MI200, CDNA2 (GFX9 with MFMA, unified VGPR/AGPR file, packed FP32, FP64 MFMA).
    Gfx90a,
    /// Navi 10, RDNA1 (GFX10).
    Gfx1010,
    /// Navi 21, RDNA2 (GFX10.3).
    Gfx1030,
}

/// An instruction-set generation: the opcode maps and encodings differ per
/// generation, and so do the kernel descriptor layout (COMPUTE_PGM_RSRC3) and the
/// register granularities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gen {
    /// GFX9 ("Vega" ISA, and its CDNA descendants): wave64 only.
    Gfx9,
    /// GFX10 ("RDNA" ISA, 1.0 and 2.0): wave32 or wave64 per kernel.
    Gfx10,
}

macro_rules! processors {
    ($($variant:ident = $mach:literal, $name:literal, $gen:ident, $xnack:literal, $sramecc:literal, $gpu:expr;)*) => {
        /// A processor whose code objects amdsim reads, named as LLVM names it.
        ///
        /// The discriminants are the `EF_AMDGPU_MACH_AMDGCN_*` values of
        /// `e_flags` (AMDGPU usage guide, "AMDGPU EF_AMDGPU_MACH Values").
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Processor {
            $($variant = $mach,)*
        }

        impl Processor {
            /// Every processor of the table.
            pub const ALL: &'static [Processor] = &[$(Processor::$variant,)*];

            /// The processor of an `EF_AMDGPU_MACH` value, if the table has it.
            pub fn from_mach(mach: u32) -> Option<Processor> {
                match mach {
                    $($mach => Some(Processor::$variant),)*
                    _ => None,
                }
            }

            /// The processor with LLVM's name (`gfx90a`), if the table has it.
            pub fn from_name(name: &str) -> Option<Processor> {
                match name {
                    $($name => Some(Processor::$variant),)*
                    _ => None,
                }
            }

            /// LLVM's name of the processor, e.g. `gfx90a`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Processor::$variant => $name,)*
                }
            }

            /// The instruction-set generation.
            pub const fn generation(self) -> Gen {
                match self {
                    $(Processor::$variant => Gen::$gen,)*
                }
            }

            /// Whether the processor has the `xnack` target feature at all
            /// (AMDGPU usage guide, "AMDGPU Processors", column "Target Features Supported").
            pub const fn supports_xnack(self) -> bool {
                match self {
                    $(Processor::$variant => $xnack,)*
                }
            }

            /// Whether the processor has the `sramecc` target feature at all.
            pub const fn supports_sramecc(self) -> bool {
                match self {
                    $(Processor::$variant => $sramecc,)*
                }
            }

            /// The decoder's GPU for this processor, when amdsim decodes and executes
            /// its code.
            pub const fn gpu(self) -> Option<Gpu> {
                match self {
                    $(Processor::$variant => $gpu,)*
                }
            }
        }
    };
}

processors! {
    Gfx900 = 0x02c, "gfx900", Gfx9, true, false, Some(Gpu::Gfx900);
    Gfx902 = 0x02d, "gfx902", Gfx9, true, false, None;
    Gfx904 = 0x02e, "gfx904", Gfx9, true, false, None;
    Gfx906 = 0x02f, "gfx906", Gfx9, true, true, Some(Gpu::Gfx906);
    Gfx908 = 0x030, "gfx908", Gfx9, true, true, Some(Gpu::Gfx908);
    Gfx909 = 0x031, "gfx909", Gfx9, true, false, None;
    Gfx90c = 0x032, "gfx90c", Gfx9, true, false, None;
    Gfx90a = 0x03f, "gfx90a", Gfx9, true, true, Some(Gpu::Gfx90a);
    Gfx1010 = 0x033, "gfx1010", Gfx10, true, false, Some(Gpu::Gfx1010);
    Gfx1011 = 0x034, "gfx1011", Gfx10, true, false, None;
    Gfx1012 = 0x035, "gfx1012", Gfx10, true, false, None;
    Gfx1013 = 0x042, "gfx1013", Gfx10, true, false, None;
    Gfx1030 = 0x036, "gfx1030", Gfx10, false, false, Some(Gpu::Gfx1030);
    Gfx1031 = 0x037, "gfx1031", Gfx10, false, false, None;
    Gfx1032 = 0x038, "gfx1032", Gfx10, false, false, None;
    Gfx1033 = 0x039, "gfx1033", Gfx10, false, false, None;
    Gfx1034 = 0x03e, "gfx1034", Gfx10, false, false, None;
    Gfx1035 = 0x03d, "gfx1035", Gfx10, false, false, None;
    Gfx1036 = 0x045, "gfx1036", Gfx10, false, false, None;
}

impl Processor {
    /// The `EF_AMDGPU_MACH` value.
    pub const fn mach(self) -> u32 {
        self as u32
    }

    /// Whether the processor can run wave32 (GFX10); wave64 is available everywhere.
    pub const fn supports_wave32(self) -> bool {
        matches!(self.generation(), Gen::Gfx10)
    }

    /// The wave size kernels are built for by default: 32 on GFX10 (what clang and
    /// the HIP runtime choose), 64 on GFX9.
    pub const fn default_wave_size(self) -> u32 {
        if self.supports_wave32() { 32 } else { 64 }
    }

    /// The target features a card of this processor reports with XNACK off, as
    /// the suffix of its target ID: `:sramecc+` where it has `sramecc`, then
    /// `:xnack-` where it has `xnack` (ROCr's target IDs).
    pub const fn features_xnack_off(self) -> &'static str {
        match (self.supports_sramecc(), self.supports_xnack()) {
            (true, true) => ":sramecc+:xnack-",
            (true, false) => ":sramecc+",
            (false, true) => ":xnack-",
            (false, false) => "",
        }
    }

    /// Whether the processor has the gfx90a extensions relevant to code
    /// objects: a unified VGPR/AGPR file (VGPR granule 8) and the
    /// COMPUTE_PGM_RSRC3 `ACCUM_OFFSET` / `TG_SPLIT` fields.
    pub fn has_gfx90a_insts(self) -> bool {
        self == Processor::Gfx90a
    }

    /// Whether the hardware packs the work-item ids of a lane into v0 at
    /// wave launch (X bits 9:0, Y 19:10, Z 29:20) instead of v0, v1, v2:
    /// gfx90a (LLVM's `FeaturePackedTID`; the seed guide predates it). The
    /// code clang-19 emits for gfx90a unpacks v0 accordingly.
    pub fn has_packed_workitem_ids(self) -> bool {
        self == Processor::Gfx90a
    }

    /// Whether the processor has accumulation registers (AGPRs) and MFMA
    /// instructions: gfx908, gfx90a.
    pub fn has_agprs(self) -> bool {
        matches!(self, Processor::Gfx908 | Processor::Gfx90a)
    }

    /// The name of an `EF_AMDGPU_MACH` value that is assigned to a processor
    /// amdsim does not read, for error messages.
    pub fn unsupported_name(mach: u32) -> Option<&'static str> {
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
}

impl fmt::Display for Processor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The processor of each [`Gpu`], by discriminant: the inverse of
/// [`Processor::gpu`], found in the table at compile time (a GPU without a row is a
/// compile error).
const GPU_PROCESSORS: [Processor; Gpu::ALL.len()] = {
    let mut out = [Processor::Gfx900; Gpu::ALL.len()];
    let mut found = [false; Gpu::ALL.len()];
    let mut i = 0;
    while i < Processor::ALL.len() {
        if let Some(g) = Processor::ALL[i].gpu() {
            assert!(!found[g as usize], "two processors decode as one GPU");
            out[g as usize] = Processor::ALL[i];
            found[g as usize] = true;
        }
        i += 1;
    }
    let mut g = 0;
    while g < found.len() {
        assert!(found[g], "a GPU without a processor");
        g += 1;
    }
    out
};

impl Gpu {
    /// Every GPU the decoder supports.
    pub const ALL: [Gpu; 6] = [
        Gpu::Gfx900,
        Gpu::Gfx906,
        Gpu::Gfx908,
        Gpu::Gfx90a,
        Gpu::Gfx1010,
        Gpu::Gfx1030,
    ];

    /// The processor's row of the table.
    pub const fn processor(self) -> Processor {
        GPU_PROCESSORS[self as usize]
    }

    /// The processor name as LLVM spells it (`gfx900`, ...).
    pub const fn name(self) -> &'static str {
        self.processor().name()
    }

    /// The instruction-set generation of this GPU.
    #[inline(always)]
    pub const fn generation(self) -> Gen {
        // The GFX10 GPUs are declared last: one comparison of the discriminant
        // (this sits on the decoder's hot path; a test checks it against the table).
        if (self as u8) >= (Gpu::Gfx1010 as u8) {
            Gen::Gfx10
        } else {
            Gen::Gfx9
        }
    }

    /// Whether this GPU has the accumulation registers (AGPRs) and MFMA instructions.
    pub fn has_mfma(self) -> bool {
        self.processor().has_agprs()
    }

    /// Whether the GPU can run wave32 (GFX10 only); wave64 is available everywhere.
    pub fn supports_wave32(self) -> bool {
        self.processor().supports_wave32()
    }

    /// The highest SGPR index an instruction can name (`s101` on GFX9, `s105` on GFX10).
    #[inline]
    pub fn max_sgpr(self) -> u8 {
        match self.generation() {
            Gen::Gfx9 => 101,
            Gen::Gfx10 => 105,
        }
    }
}

impl fmt::Display for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of naming a GPU that the decoder does not support (a name, or a
/// processor of the table that amdsim reads but does not decode).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unsupported GPU `{0}` (supported: gfx900, gfx906, gfx908, gfx90a, gfx1010, gfx1030)")]
pub struct UnknownGpu(pub String);

impl FromStr for Gpu {
    type Err = UnknownGpu;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Processor::from_name(s)
            .and_then(Processor::gpu)
            .ok_or_else(|| UnknownGpu(s.to_string()))
    }
}

impl TryFrom<Processor> for Gpu {
    type Error = UnknownGpu;
    /// The decoder's GPU for a processor ([`Processor::gpu`]), or the error that
    /// names it.
    fn try_from(p: Processor) -> Result<Gpu, UnknownGpu> {
        p.gpu().ok_or_else(|| UnknownGpu(p.name().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_names_round_trip() {
        for g in Gpu::ALL {
            assert_eq!(g.name().parse::<Gpu>(), Ok(g));
            assert_eq!(Gpu::try_from(g.processor()), Ok(g));
        }
        assert!("gfx1100".parse::<Gpu>().is_err());
        assert!("gfx902".parse::<Gpu>().is_err(), "read, not decoded");
        assert_eq!(
            Gpu::try_from(Processor::Gfx1031),
            Err(UnknownGpu("gfx1031".into()))
        );
    }

    #[test]
    fn generations() {
        let gfx10 = [Gpu::Gfx1010, Gpu::Gfx1030];
        for g in Gpu::ALL {
            let want = if gfx10.contains(&g) {
                Gen::Gfx10
            } else {
                Gen::Gfx9
            };
            assert_eq!(g.generation(), want, "{g}");
            assert_eq!(g.generation(), g.processor().generation(), "{g}");
        }
    }

    #[test]
    fn the_table_is_consistent() {
        for &p in Processor::ALL {
            assert_eq!(Processor::from_mach(p.mach()), Some(p));
            assert_eq!(Processor::from_name(p.name()), Some(p));
            assert_eq!(Processor::unsupported_name(p.mach()), None, "{p}");
            if let Some(g) = p.gpu() {
                assert_eq!(g.processor(), p);
            }
        }
        assert_eq!(Processor::Gfx906.features_xnack_off(), ":sramecc+:xnack-");
        assert_eq!(Processor::Gfx1010.features_xnack_off(), ":xnack-");
        assert_eq!(Processor::Gfx1030.features_xnack_off(), "");
        assert_eq!(Processor::Gfx1030.default_wave_size(), 32);
        assert_eq!(Processor::Gfx90a.default_wave_size(), 64);
    }
}

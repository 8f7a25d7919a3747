//! The agents the runtime reports: the host CPU and one simulated GPU, with
//! the properties a real card of that kind reports through ROCr 5.2 with
//! XNACK off.
//!
//! The figures per card come from the cards' public specifications (compute
//! units, clocks, memory size and width) and from what ROCr reports for them
//! (target IDs with their `sramecc`/`xnack` settings, waves per CU, SIMDs per
//! CU, LDS size, cache sizes).

use amdgpu_isa::Gpu;

/// A card the simulated GPU agent impersonates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    /// The processor the simulator executes (its name, features and default wave
    /// size are the processor table's: [`Card::name`], [`Card::features`],
    /// [`Card::wavefront_size`]).
    pub gpu: Gpu,
    /// The marketing name (`HSA_AMD_AGENT_INFO_PRODUCT_NAME`).
    pub product: &'static str,
    /// PCI device id (`HSA_AMD_AGENT_INFO_CHIP_ID`).
    pub chip_id: u32,
    /// Compute units.
    pub compute_units: u32,
    /// SIMDs per compute unit.
    pub simds_per_cu: u32,
    /// Waves a compute unit holds at once.
    pub max_waves_per_cu: u32,
    /// Shader engines.
    pub shader_engines: u32,
    /// Shader arrays per shader engine.
    pub shader_arrays_per_se: u32,
    /// Engine clock, MHz.
    pub max_clock_mhz: u32,
    /// Memory clock, MHz.
    pub memory_clock_mhz: u32,
    /// Memory bus width, bits.
    pub memory_width: u32,
    /// Device memory, bytes.
    pub memory_bytes: u64,
    /// L1 (vector) cache per CU and L2 cache, bytes.
    pub caches: [u32; 2],
}

const GIB: u64 = 1 << 30;

/// Every card the simulator can stand in for, one per processor.
pub const CARDS: [Card; 6] = [
    Card {
        gpu: Gpu::Gfx900,
        product: "AMD Radeon Instinct MI25",
        chip_id: 0x6860,
        compute_units: 64,
        simds_per_cu: 4,
        max_waves_per_cu: 40,
        shader_engines: 4,
        shader_arrays_per_se: 1,
        max_clock_mhz: 1500,
        memory_clock_mhz: 945,
        memory_width: 2048,
        memory_bytes: 16 * GIB,
        caches: [16 << 10, 4 << 20],
    },
    Card {
        gpu: Gpu::Gfx906,
        product: "AMD Instinct MI50",
        chip_id: 0x66a1,
        compute_units: 60,
        simds_per_cu: 4,
        max_waves_per_cu: 40,
        shader_engines: 4,
        shader_arrays_per_se: 1,
        max_clock_mhz: 1725,
        memory_clock_mhz: 1000,
        memory_width: 4096,
        memory_bytes: 16 * GIB,
        caches: [16 << 10, 4 << 20],
    },
    Card {
        gpu: Gpu::Gfx908,
        product: "AMD Instinct MI100",
        chip_id: 0x738c,
        compute_units: 120,
        simds_per_cu: 4,
        max_waves_per_cu: 40,
        shader_engines: 8,
        shader_arrays_per_se: 1,
        max_clock_mhz: 1502,
        memory_clock_mhz: 1200,
        memory_width: 4096,
        memory_bytes: 32 * GIB,
        caches: [16 << 10, 8 << 20],
    },
    Card {
        gpu: Gpu::Gfx90a,
        product: "AMD Instinct MI210",
        chip_id: 0x740f,
        compute_units: 104,
        simds_per_cu: 4,
        max_waves_per_cu: 32,
        shader_engines: 8,
        shader_arrays_per_se: 1,
        max_clock_mhz: 1700,
        memory_clock_mhz: 1600,
        memory_width: 4096,
        memory_bytes: 64 * GIB,
        caches: [16 << 10, 8 << 20],
    },
    Card {
        gpu: Gpu::Gfx1010,
        product: "AMD Radeon RX 5700 XT",
        chip_id: 0x731f,
        compute_units: 40,
        simds_per_cu: 2,
        max_waves_per_cu: 40,
        shader_engines: 2,
        shader_arrays_per_se: 2,
        max_clock_mhz: 2100,
        memory_clock_mhz: 875,
        memory_width: 256,
        memory_bytes: 8 * GIB,
        caches: [16 << 10, 4 << 20],
    },
    Card {
        gpu: Gpu::Gfx1030,
        product: "AMD Radeon RX 6800 XT",
        chip_id: 0x73bf,
        compute_units: 72,
        simds_per_cu: 2,
        max_waves_per_cu: 32,
        shader_engines: 4,
        shader_arrays_per_se: 2,
        max_clock_mhz: 2250,
        memory_clock_mhz: 1000,
        memory_width: 256,
        memory_bytes: 16 * GIB,
        caches: [16 << 10, 4 << 20],
    },
];

impl Card {
    /// The processor name (`gfx900`), as `HSA_AGENT_INFO_NAME` reports it.
    pub fn name(&self) -> &'static str {
        self.gpu.name()
    }

    /// The target ID's feature suffix with XNACK off (`:xnack-`,
    /// `:sramecc+:xnack-`, or empty for targets without either feature).
    pub fn features(&self) -> &'static str {
        self.gpu.processor().features_xnack_off()
    }

    /// The wave size kernels run with by default.
    pub fn wavefront_size(&self) -> u32 {
        self.gpu.processor().default_wave_size()
    }

    /// The card for a target: a processor name (`gfx90a`) or a full target
    /// ID (`gfx90a:sramecc+:xnack-`, `amdgcn-amd-amdhsa--gfx900:xnack-`).
    /// A target ID whose features differ from what the card reports with
    /// XNACK off is refused (the simulator runs code built for XNACK off
    /// or for any setting).
    pub fn for_target(target: &str) -> Result<&'static Card, String> {
        let t = target.strip_prefix("amdgcn-amd-amdhsa--").unwrap_or(target);
        let (proc_name, feats) = t.split_once(':').map_or((t, ""), |(p, f)| (p, f));
        let card = CARDS
            .iter()
            .find(|c| c.name() == proc_name)
            .ok_or_else(|| {
                format!(
                    "unknown GPU '{target}': amdsim simulates {}",
                    CARDS
                        .iter()
                        .map(|c| c.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
        if !feats.is_empty() {
            let want: Vec<&str> = card
                .features()
                .split(':')
                .filter(|s| !s.is_empty())
                .collect();
            for f in feats.split(':') {
                if !want.contains(&f) {
                    return Err(format!(
                        "target '{target}': amdsim's {} is {} (feature '{f}' is not offered)",
                        card.name(),
                        card.target_id()
                    ));
                }
            }
        }
        Ok(card)
    }

    /// The target ID (`gfx906:sramecc+:xnack-`).
    pub fn target_id(&self) -> String {
        format!("{}{}", self.name(), self.features())
    }

    /// The ISA name ROCr reports (`amdgcn-amd-amdhsa--gfx900:xnack-`).
    pub fn isa_name(&self) -> String {
        format!("amdgcn-amd-amdhsa--{}", self.target_id())
    }

    /// The LDS a work-group can use, bytes.
    pub fn lds_bytes(&self) -> u32 {
        64 << 10
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_by_name_and_full_id() {
        assert_eq!(Card::for_target("gfx900").unwrap().gpu, Gpu::Gfx900);
        let c = Card::for_target("gfx90a:sramecc+:xnack-").unwrap();
        assert_eq!(c.isa_name(), "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
        assert_eq!(
            Card::for_target("amdgcn-amd-amdhsa--gfx1030")
                .unwrap()
                .wavefront_size(),
            32
        );
        assert!(Card::for_target("gfx900:xnack+").is_err());
        let e = Card::for_target("gfx803").unwrap_err();
        assert!(e.contains("gfx900, gfx906"), "{e}");
    }
}

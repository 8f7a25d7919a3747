//! The system, its two agents (the CPU and the simulated GPU), their ISA and
//! memory pools, and the extension tables.

use crate::{
    INFO_BREAK, INVALID_AGENT, INVALID_ARGUMENT, SUCCESS, Status, put, with_rt, write_str,
};
use amdsim_host::agent::Card;
use libc::c_void;

/// The CPU agent's handle.
pub const CPU: u64 = 0x10;
/// The GPU agent's handle.
pub const GPU: u64 = 0x20;
/// The GPU's ISA handle.
pub const ISA: u64 = 0x300;

/// A memory pool: its handle, owner and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool {
    /// `hsa_amd_memory_pool_t` handle.
    pub handle: u64,
    /// The agent it belongs to.
    pub agent: u64,
    /// `hsa_amd_segment_t`.
    pub segment: u32,
    /// `HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_*`.
    pub flags: u32,
    /// Whether the runtime allocates from it.
    pub alloc: bool,
}

/// The pools, as ROCr 5.2 presents a discrete GPU's system
/// (`amd_cpu_agent.cpp`, `amd_gpu_agent.cpp`): system memory, fine-grained,
/// fine-grained with kernarg, and coarse-grained, on the CPU agent; device
/// memory (coarse-grained) and the group segment on the GPU agent.
pub const POOLS: [Pool; 5] = [
    Pool {
        handle: 0x110,
        agent: CPU,
        segment: 0,
        flags: 2,
        alloc: true,
    },
    Pool {
        handle: 0x111,
        agent: CPU,
        segment: 0,
        flags: 1 | 2,
        alloc: true,
    },
    Pool {
        handle: 0x112,
        agent: CPU,
        segment: 0,
        flags: 4,
        alloc: true,
    },
    Pool {
        handle: 0x120,
        agent: GPU,
        segment: 0,
        flags: 4,
        alloc: true,
    },
    Pool {
        handle: 0x121,
        agent: GPU,
        segment: 3,
        flags: 0,
        alloc: false,
    },
];

/// The pool with `handle`.
pub fn pool(handle: u64) -> Option<&'static Pool> {
    POOLS.iter().find(|p| p.handle == handle)
}

/// Index of a pool in [`POOLS`].
pub fn pool_index(handle: u64) -> Option<usize> {
    POOLS.iter().position(|p| p.handle == handle)
}

type AgentCb = unsafe extern "C" fn(u64, *mut c_void) -> Status;

hsa! {
    /// Calls `cb` for the CPU agent, then the GPU agent.
    fn hsa_iterate_agents(cb: Option<AgentCb>, data: *mut c_void) -> Status {
        let Some(cb) = cb else { return INVALID_ARGUMENT };
        with_rt(|_| {
            for a in [CPU, GPU] {
                // SAFETY: the program's callback, called as HSA specifies.
                let s = unsafe { cb(a, data) };
                if s != SUCCESS {
                    return s;
                }
            }
            SUCCESS
        })
    }
}

use amdsim_host::signal::now_ns;

/// The extensions offered, each at major version 1: HSA_EXTENSION_IMAGES
/// (1) and HSA_EXTENSION_AMD_LOADER (0x201).
const OFFERED: [u16; 2] = [1, 0x201];

/// Whether extension `ext` is offered at `major`.
fn offers(ext: u16, major: u16) -> bool {
    OFFERED.contains(&ext) && major == 1
}

/// Sets the bit of each extension the runtime offers in a 128-byte mask.
unsafe fn extension_mask(out: *mut c_void) {
    let mut m = [0u8; 128];
    for ext in OFFERED {
        m[ext as usize / 8] |= 1 << (ext % 8);
    }
    // SAFETY: per the caller's contract (a 128-byte output).
    unsafe { put(out, m) };
}

hsa! {
    /// System attributes.
    fn hsa_system_get_info(attr: u32, out: *mut c_void) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        with_rt(|_| {
            // SAFETY: HSA's contract makes `out` writable for the attribute's type.
            unsafe {
                match attr {
                    0 | 1 => put(out, 1u16),
                    2 => put(out, now_ns()),
                    3 => put(out, 1_000_000_000u64),
                    4 => put(out, u64::MAX),
                    5 => put(out, 0u32),
                    6 => put(out, 1u32),
                    7 => extension_mask(out),
                    0x200 => put(out, c"amdsim".as_ptr()),
                    0x201 | 0x202 => put(out, false),
                    _ => return INVALID_ARGUMENT,
                }
            }
            SUCCESS
        })
    }
}

hsa! {
    /// Whether the system offers an extension at a version.
    fn hsa_system_extension_supported(ext: u16, major: u16, _minor: u16, out: *mut bool) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: checked non-null.
        unsafe { *out = offers(ext, major) };
        SUCCESS
    }
}

hsa! {
    /// Whether the system offers an extension's major version.
    fn hsa_system_major_extension_supported(ext: u16, major: u16, minor: *mut u16, out: *mut bool) -> Status {
        if out.is_null() || minor.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: checked non-null.
        unsafe {
            *out = offers(ext, major);
            *minor = 3;
        }
        SUCCESS
    }
}

hsa! {
    /// Whether an agent offers an extension.
    fn hsa_agent_extension_supported(ext: u16, _agent: u64, major: u16, _minor: u16, out: *mut bool) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: checked non-null.
        unsafe { *out = offers(ext, major) };
        SUCCESS
    }
}

hsa! {
    /// Whether an agent offers an extension's major version.
    fn hsa_agent_major_extension_supported(ext: u16, _agent: u64, major: u16, minor: *mut u16, out: *mut bool) -> Status {
        if out.is_null() || minor.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: checked non-null.
        unsafe {
            *out = offers(ext, major);
            *minor = 3;
        }
        SUCCESS
    }
}

hsa! {
    /// The function table of an extension: only the AMD loader's.
    fn hsa_system_get_major_extension_table(ext: u16, major: u16, size: usize, table: *mut c_void) -> Status {
        if table.is_null() {
            return INVALID_ARGUMENT;
        }
        if ext != 0x201 || major != 1 {
            crate::unsupported::say(&format!("extension table {ext:#x} v{major}"));
            return INVALID_ARGUMENT;
        }
        let t = crate::exec::loader_table();
        let n = size.min(std::mem::size_of_val(&t));
        // SAFETY: the caller gives `size` writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(&t as *const _ as *const u8, table as *mut u8, n) };
        SUCCESS
    }
}

hsa! {
    /// The function table of an extension at an exact version.
    fn hsa_system_get_extension_table(ext: u16, major: u16, _minor: u16, table: *mut c_void) -> Status {
        // SAFETY: forwarded with the size of the loader's 1.00 table.
        unsafe { hsa_system_get_major_extension_table(ext, major, 4 * 8, table) }
    }
}

/// Writes a CPU agent attribute.
unsafe fn cpu_info(attr: u32, out: *mut c_void) -> Status {
    // SAFETY: HSA's contract makes `out` writable for the attribute's type.
    unsafe {
        match attr {
            0 => write_str(out, "amdsim-host-cpu", 64),
            1 => write_str(out, "CPU", 64),
            2 => put(out, 0u32),
            3 => put(out, 1u32),
            4 => put(out, 0u32),
            5 => put(out, 2u32),
            23 => put(out, 3u32),
            6 | 8 | 10 | 11 | 12 | 13 | 14 => put(out, 0u32),
            7 => put(out, [0u16; 3]),
            9 => put(out, [0u32; 3]),
            15 => put(out, 0u32),
            16 => put(out, 0u32),
            17 => put(out, 0u32),
            18 => put(out, [32u32 << 10, 1 << 20, 0, 0]),
            19 => return INVALID_ARGUMENT,
            20 => extension_mask(out),
            21 | 22 => put(out, 1u16),
            0xA000 | 0xA012 | 0xA00F | 0xA006 | 0xA005 => put(out, 0u32),
            0xA001 => put(out, 64u32),
            0xA002 => put(
                out,
                std::thread::available_parallelism().map_or(1, |n| n.get()) as u32,
            ),
            0xA003 => put(out, 3000u32),
            0xA004 => put(out, 0u32),
            0xA009 => write_str(out, "amdsim host CPU", 64),
            0xA011 => write_str(out, "CPU-XX", 21),
            _ => return INVALID_ARGUMENT,
        }
    }
    SUCCESS
}

/// Writes a GPU agent attribute.
unsafe fn gpu_info(c: &Card, attr: u32, out: *mut c_void) -> Status {
    // SAFETY: HSA's contract makes `out` writable for the attribute's type.
    unsafe {
        match attr {
            0 => write_str(out, c.name(), 64),
            1 => write_str(out, "AMD", 64),
            2 => put(out, 1u32),
            3 => put(out, 1u32),
            4 => put(out, 0u32),
            5 => put(out, 2u32),
            23 => put(out, 3u32),
            6 => put(out, c.wavefront_size()),
            7 => put(out, [1024u16; 3]),
            8 => put(out, 1024u32),
            9 => put(out, [u32::MAX; 3]),
            10 => put(out, u32::MAX),
            11 => put(out, 32u32),
            12 => put(out, 128u32),
            13 => put(out, 64u32),
            14 => put(out, 131072u32),
            15 => put(out, 0u32),
            16 => put(out, 1u32),
            17 => put(out, 1u32),
            18 => put(out, [c.caches[0], c.caches[1], 0, 0]),
            19 => put(out, crate::agents::ISA),
            20 => extension_mask(out),
            21 | 22 => put(out, 1u16),
            0xA000 => put(out, c.chip_id),
            0xA001 => put(out, if c.wavefront_size() == 32 { 128u32 } else { 64 }),
            0xA002 => put(out, c.compute_units),
            0xA003 => put(out, c.max_clock_mhz),
            0xA004 => put(out, 1u32),
            0xA005 => put(out, 4u32),
            0xA006 => put(out, 0x0300u32),
            0xA007 => put(out, c.memory_width),
            0xA008 => put(out, c.memory_clock_mhz),
            0xA009 => write_str(out, c.product, 64),
            0xA00A => put(out, c.max_waves_per_cu),
            0xA00B => put(out, c.simds_per_cu),
            0xA00C => put(out, c.shader_engines),
            0xA00D => put(out, c.shader_arrays_per_se),
            0xA00E => put(
                out,
                [
                    crate::memory::hdp_flush_word(),
                    crate::memory::hdp_flush_word(),
                ],
            ),
            0xA00F => put(out, 0u32),
            // Cooperative queues: hipLaunchCooperativeKernel's grid barriers run
            // on the simulator's GWS, with every work-group resident.
            0xA010 => put(out, true),
            0xA011 => write_str(out, "GPU-616d6473696d0001", 21),
            0xA012 => put(out, 1u32),
            0xA013 => put(out, false),
            0xA014 => put(out, c.compute_units),
            0x3000..=0x3008 => return crate::images::max_dim(attr, out),
            // ROCr's read-only and read-write image handles and samplers.
            0x3009 => put(out, 128u32),
            0x300A => put(out, 64u32),
            0x300B => put(out, 16u32),
            0x300C => put(out, amdsim_host::image::ROW_PITCH_ALIGNMENT as u32),
            _ => return INVALID_ARGUMENT,
        }
    }
    SUCCESS
}

hsa! {
    /// An agent attribute.
    fn hsa_agent_get_info(agent: u64, attr: u32, out: *mut c_void) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        with_rt(|rt| match agent {
            // SAFETY: HSA's contract makes `out` writable for the attribute.
            CPU => unsafe { cpu_info(attr, out) },
            // SAFETY: as above.
            GPU => unsafe { gpu_info(rt.card, attr, out) },
            _ => INVALID_AGENT,
        })
    }
}

type IsaCb = unsafe extern "C" fn(u64, *mut c_void) -> Status;

hsa! {
    /// Calls `cb` for the GPU's one ISA.
    fn hsa_agent_iterate_isas(agent: u64, cb: Option<IsaCb>, data: *mut c_void) -> Status {
        let Some(cb) = cb else { return INVALID_ARGUMENT };
        match agent {
            // SAFETY: the program's callback.
            GPU => unsafe { cb(ISA, data) },
            CPU => SUCCESS,
            _ => INVALID_AGENT,
        }
    }
}

/// Writes an ISA attribute.
unsafe fn isa_info(c: &Card, attr: u32, out: *mut c_void) -> Status {
    let name = c.isa_name();
    // SAFETY: HSA's contract makes `out` writable for the attribute's type.
    unsafe {
        match attr {
            0 => put(out, name.len() as u32 + 1),
            1 => write_str(out, &name, name.len() + 1),
            2 => put(out, 1u32),
            3 => put(out, c.wavefront_size()),
            4 => put(out, c.max_waves_per_cu),
            5 => put(out, [false, true]),
            6 => put(out, [true, false]),
            7 | 8 => put(out, [false, true, true]),
            12 => put(out, [1024u16; 3]),
            13 => put(out, 1024u32),
            14 => put(out, [u32::MAX; 3]),
            16 => put(out, u32::MAX),
            17 => put(out, 32u32),
            _ => return INVALID_ARGUMENT,
        }
    }
    SUCCESS
}

hsa! {
    /// An ISA attribute.
    fn hsa_isa_get_info_alt(isa: u64, attr: u32, out: *mut c_void) -> Status {
        if out.is_null() || isa != ISA {
            return INVALID_ARGUMENT;
        }
        // SAFETY: as HSA specifies.
        with_rt(|rt| unsafe { isa_info(rt.card, attr, out) })
    }
}

hsa! {
    /// An ISA attribute (the older form with a call-convention index).
    fn hsa_isa_get_info(isa: u64, attr: u32, _index: u32, out: *mut c_void) -> Status {
        // SAFETY: forwarded.
        unsafe { hsa_isa_get_info_alt(isa, attr, out) }
    }
}

hsa! {
    /// The ISA named `name`.
    fn hsa_isa_from_name(name: *const libc::c_char, isa: *mut u64) -> Status {
        if name.is_null() || isa.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: a NUL-terminated string per HSA's contract.
        let n = unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy().into_owned();
        with_rt(|rt| match Card::for_target(&n) {
            Ok(c) if c.name() == rt.card.name() => {
                // SAFETY: checked non-null.
                unsafe { *isa = ISA };
                SUCCESS
            }
            _ => 0x1017, // HSA_STATUS_ERROR_INVALID_ISA_NAME
        })
    }
}

/// `hsa_amd_memory_pool_link_info_t`.
#[repr(C)]
#[derive(Default)]
struct LinkInfo {
    min_latency: u32,
    max_latency: u32,
    min_bandwidth: u32,
    max_bandwidth: u32,
    atomic32: bool,
    atomic64: bool,
    coherent: bool,
    link_type: u32,
    numa_distance: u32,
}

type PoolCb = unsafe extern "C" fn(u64, *mut c_void) -> Status;

hsa! {
    /// Calls `cb` for each pool of an agent.
    fn hsa_amd_agent_iterate_memory_pools(agent: u64, cb: Option<PoolCb>, data: *mut c_void) -> Status {
        let Some(cb) = cb else { return INVALID_ARGUMENT };
        if agent != CPU && agent != GPU {
            return INVALID_AGENT;
        }
        for p in POOLS.iter().filter(|p| p.agent == agent) {
            // SAFETY: the program's callback.
            let s = unsafe { cb(p.handle, data) };
            if s != SUCCESS {
                return if s == INFO_BREAK { SUCCESS } else { s };
            }
        }
        SUCCESS
    }
}

hsa! {
    /// A pool attribute.
    fn hsa_amd_memory_pool_get_info(pool_h: u64, attr: u32, out: *mut c_void) -> Status {
        let Some(p) = pool(pool_h) else { return crate::INVALID_MEMORY_POOL };
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        with_rt(|rt| {
            let size: usize = match (p.agent, p.segment) {
                (GPU, 3) => rt.card.lds_bytes() as usize,
                (GPU, _) => rt.card.memory_bytes as usize,
                _ => 64usize << 30,
            };
            // SAFETY: HSA's contract makes `out` writable for the attribute.
            unsafe {
                match attr {
                    0 => put(out, p.segment),
                    1 => put(out, p.flags),
                    2 => put(out, size),
                    5 => put(out, p.alloc),
                    6 | 7 => put(out, if p.alloc { 4096usize } else { 0 }),
                    15 => put(out, p.agent == CPU),
                    16 => put(out, if p.alloc { size } else { 0 }),
                    _ => return INVALID_ARGUMENT,
                }
            }
            SUCCESS
        })
    }
}

hsa! {
    /// How an agent may access a pool.
    fn hsa_amd_agent_memory_pool_get_info(agent: u64, pool_h: u64, attr: u32, out: *mut c_void) -> Status {
        let Some(p) = pool(pool_h) else { return crate::INVALID_MEMORY_POOL };
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        if agent != CPU && agent != GPU {
            return INVALID_AGENT;
        }
        // NEVER_ALLOWED 0, ALLOWED_BY_DEFAULT 1, DISALLOWED_BY_DEFAULT 2.
        let access: u32 = match (agent, p.agent, p.flags) {
            (a, b, _) if a == b => 1,
            (CPU, GPU, _) => 0,
            (GPU, CPU, f) if f & 2 != 0 => 1,
            _ => 2,
        };
        let hops: u32 = if agent == p.agent { 0 } else { 1 };
        // SAFETY: HSA's contract makes `out` writable for the attribute.
        unsafe {
            match attr {
                0 => put(out, access),
                1 => put(out, hops),
                2 => {
                    if hops == 1 {
                        put(
                            out,
                            LinkInfo {
                                atomic32: true,
                                atomic64: true,
                                coherent: true,
                                link_type: 0, // PCIe
                                numa_distance: 20,
                                ..LinkInfo::default()
                            },
                        );
                    }
                }
                _ => return INVALID_ARGUMENT,
            }
        }
        SUCCESS
    }
}

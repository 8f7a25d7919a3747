//! The dispatch ABI (AMDGPU usage guide, "Kernel Dispatch", "Initial Kernel Execution
//! State", "Private Segment Buffer", "Flat Scratch", and the code object V5 hidden kernel
//! arguments): the checks of a launch, the kernarg segment, the AQL packet, the printf
//! buffer, and the initial registers of a work-group's waves.

use super::device::Device;
use super::launch::{
    Launch, LaunchConfig, MAX_GROUPS, MAX_KERNARG, MAX_LDS, MAX_PRIVATE, Workgroup,
};
use super::load::{KernelInfo, Module};
use crate::error::{DispatchError, SimError, Space};
use crate::memory::{Bytes, PRIVATE_BASE, SCRATCH_BACKING, SHARED_BASE, Scratch};
use crate::wave::{Mask, Wave};
use amdgpu_codeobj::{InitialSgpr, ValueKind, WorkitemIdLayout};

/// Bytes of the printf buffer a dispatch of a kernel that takes `hidden_printf_buffer`
/// gets (header included), as ROCm's runtime gives by default.
pub const PRINTF_BUFFER_SIZE: u32 = 1 << 20;

/// The initial contents of a printf buffer of `size` bytes: two 32-bit words, the bytes
/// used so far (none) and the buffer's size, header included (what the device library's
/// `__printf_alloc` reads and advances).
pub fn printf_buffer_header(size: u32) -> [u8; 8] {
    let mut h = [0u8; 8];
    h[4..].copy_from_slice(&size.to_le_bytes());
    h
}

impl Device {
    /// Prepares a dispatch of `kernel`: checks the sizes, writes the kernarg
    /// segment, the AQL packet and a zeroed queue into global memory.
    pub fn launch(
        &self,
        module: &Module,
        kernel: &str,
        config: LaunchConfig,
    ) -> Result<Launch, SimError> {
        let k = module
            .kernel(kernel)
            .ok_or_else(|| DispatchError::NoKernel {
                name: kernel.to_string(),
                available: module.kernels.iter().map(|k| k.name.clone()).collect(),
            })?
            .clone();
        let (groups, dims) = check_launch(&k, &config)?;
        let queue = self.alloc(256)?;
        let printf_buffer = self.printf_buffer(&k)?;
        let mut kernarg_bytes = match &config.raw_kernarg {
            Some(raw) if raw.len() as u64 > MAX_KERNARG => {
                return Err(DispatchError::KernargTooLarge {
                    size: raw.len() as u64,
                    max: MAX_KERNARG,
                }
                .into());
            }
            Some(raw) => raw.clone(),
            None => build_kernarg(&k, &config, dims, queue, printf_buffer)?,
        };
        // Scalar loads fetch up to 64 bytes at once and may read past the
        // last argument, as they do on hardware, where the segment is padded.
        kernarg_bytes.resize(kernarg_bytes.len().div_ceil(64) * 64 + 64, 0);
        let kernarg = self.alloc_bytes(&kernarg_bytes)?;
        let packet = self.alloc_bytes(&aql_packet(&k, &config, dims, kernarg))?;
        Ok(Launch {
            wave_size: k.descriptor.wavefront_size(),
            kernel: k,
            gpu: module.gpu,
            program: module.program.clone(),
            prepared: module.prepared.clone(),
            config,
            kernarg,
            packet,
            queue,
            groups,
            printf_buffer,
            printf_formats: module.printf.clone(),
            image: module.image.clone(),
        })
    }

    /// A printf buffer when the kernel takes one (its header: nothing used yet, and
    /// the size).
    fn printf_buffer(&self, k: &KernelInfo) -> Result<Option<u64>, SimError> {
        let takes_one = k.metadata.as_ref().is_some_and(|md| {
            md.hidden_args()
                .any(|a| a.value_kind == ValueKind::HiddenPrintfBuffer)
        });
        if !takes_one {
            return Ok(None);
        }
        let b = self.alloc(u64::from(PRINTF_BUFFER_SIZE))?;
        self.mem
            .write(b, &printf_buffer_header(PRINTF_BUFFER_SIZE))
            .map_err(SimError::Host)?;
        Ok(Some(b))
    }
}

/// Checks a launch of `k` against the hardware's and the simulator's limits; returns
/// the work-groups in each dimension and the work dimension.
fn check_launch(k: &KernelInfo, config: &LaunchConfig) -> Result<([u32; 3], u32), SimError> {
    if (0..3).any(|d| config.group[d] == 0 || config.grid[d] == 0) {
        return Err(DispatchError::ZeroSize {
            grid: config.grid,
            group: config.group,
        }
        .into());
    }
    let items: u64 = config.group.iter().map(|&g| g as u64).product();
    if items > 1024 {
        return Err(DispatchError::GroupTooLarge { items }.into());
    }
    // Hardware limits (Vega/RDNA ISA: 64 KiB of LDS per work-group; the
    // private segment is bounded here to keep host memory in check).
    let lds = k.descriptor.group_segment_fixed_size as u64 + config.dynamic_lds as u64;
    if lds > MAX_LDS {
        return Err(DispatchError::LdsTooLarge {
            bytes: lds,
            max: MAX_LDS,
        }
        .into());
    }
    let private = k.descriptor.private_segment_fixed_size as u64 + config.extra_private as u64;
    if private > MAX_PRIVATE {
        return Err(DispatchError::PrivateTooLarge {
            bytes: private,
            max: MAX_PRIVATE,
        }
        .into());
    }
    let groups: [u32; 3] = std::array::from_fn(|d| config.grid[d].div_ceil(config.group[d]));
    let total = groups.iter().map(|&g| g as u128).product::<u128>();
    if total > MAX_GROUPS as u128 {
        return Err(DispatchError::TooManyGroups {
            groups: total,
            grid: config.grid,
            group: config.group,
            max: MAX_GROUPS,
        }
        .into());
    }
    Ok((groups, dimensions(config)?))
}

/// The work dimension of a launch: the one asked for, or the highest dimension whose
/// grid or work-group size exceeds 1; no dimension past it may exceed 1.
fn dimensions(config: &LaunchConfig) -> Result<u32, SimError> {
    let dims = match config.dimensions {
        Some(d @ 1..=3) => d,
        Some(d) => return Err(DispatchError::BadDimensions(d).into()),
        None if config.grid[2] > 1 || config.group[2] > 1 => 3,
        None if config.grid[1] > 1 || config.group[1] > 1 => 2,
        None => 1,
    };
    for d in dims as usize..3 {
        if config.grid[d] > 1 || config.group[d] > 1 {
            return Err(DispatchError::DimensionMismatch {
                dims,
                grid: config.grid,
                group: config.group,
            }
            .into());
        }
    }
    Ok(dims)
}

/// The AQL kernel dispatch packet (`hsa_kernel_dispatch_packet_t`, 64 bytes) of a
/// launch whose kernarg segment is at `kernarg`.
fn aql_packet(k: &KernelInfo, config: &LaunchConfig, dims: u32, kernarg: u64) -> Vec<u8> {
    let mut p = Vec::with_capacity(64);
    p.extend_from_slice(&2u16.to_le_bytes()); // header: KERNEL_DISPATCH
    p.extend_from_slice(&(dims as u16).to_le_bytes()); // setup: dimensions
    for d in 0..3 {
        p.extend_from_slice(&(config.group[d] as u16).to_le_bytes());
    }
    p.extend_from_slice(&0u16.to_le_bytes());
    for d in 0..3 {
        p.extend_from_slice(&config.grid[d].to_le_bytes());
    }
    let private = k.descriptor.private_segment_fixed_size + config.extra_private;
    let group_seg = k.descriptor.group_segment_fixed_size + config.dynamic_lds;
    p.extend_from_slice(&private.to_le_bytes());
    p.extend_from_slice(&group_seg.to_le_bytes());
    p.extend_from_slice(&0u64.to_le_bytes()); // kernel_object
    p.extend_from_slice(&kernarg.to_le_bytes());
    p.extend_from_slice(&0u64.to_le_bytes()); // reserved
    p.extend_from_slice(&0u64.to_le_bytes()); // completion signal
    p
}

/// Builds the kernarg segment from the metadata: explicit arguments from the
/// caller, hidden arguments computed where possible (see [`HIDDEN_FILLED`]).
fn build_kernarg(
    k: &KernelInfo,
    config: &LaunchConfig,
    dims: u32,
    queue: u64,
    printf_buffer: Option<u64>,
) -> Result<Vec<u8>, SimError> {
    let size = k.descriptor.kernarg_size.max(
        k.metadata
            .as_ref()
            .and_then(|m| m.kernarg_segment_size)
            .unwrap_or(0) as u32,
    );
    if size as u64 > MAX_KERNARG {
        return Err(DispatchError::KernargTooLarge {
            size: size as u64,
            max: MAX_KERNARG,
        }
        .into());
    }
    let mut buf = Kernarg(vec![0u8; size as usize]);
    let Some(md) = &k.metadata else {
        if !config.args.is_empty() {
            return Err(DispatchError::NoMetadata(k.name.clone()).into());
        }
        return Ok(buf.0);
    };
    let explicit: Vec<_> = md.explicit_args().collect();
    if explicit.len() != config.args.len() {
        return Err(DispatchError::ArgumentCount {
            kernel: k.name.clone(),
            expected: explicit.len(),
            given: config.args.len(),
        }
        .into());
    }
    for (index, (a, v)) in explicit.iter().zip(&config.args).enumerate() {
        let b = v.bytes();
        if b.len() as u64 != a.size {
            return Err(DispatchError::ArgumentSize {
                index,
                name: a.name.clone().unwrap_or_default(),
                expected: a.size,
                given: b.len() as u64,
            }
            .into());
        }
        buf.put(a.offset, a.size, &b)?;
    }
    let hidden = Hidden {
        config,
        dims,
        queue,
        printf_buffer,
    };
    for a in md.hidden_args() {
        if let Some(v) = hidden.value(&a.value_kind) {
            buf.put(a.offset, a.size, &v.to_le_bytes())?;
        }
    }
    Ok(buf.0)
}

/// A kernarg segment being built.
struct Kernarg(Vec<u8>);

impl Kernarg {
    /// Puts `bytes` (at most `size` of them) at `off`, growing the segment as needed
    /// (up to [`MAX_KERNARG`]).
    fn put(&mut self, off: u64, size: u64, bytes: &[u8]) -> Result<(), SimError> {
        let end = off
            .checked_add(size)
            .filter(|&e| e <= MAX_KERNARG)
            .ok_or(DispatchError::ArgumentOutsideKernarg { offset: off, size })?;
        if end as usize > self.0.len() {
            self.0.resize(end as usize, 0);
        }
        let n = bytes.len().min(size as usize);
        self.0[off as usize..off as usize + n].copy_from_slice(&bytes[..n]);
        Ok(())
    }
}

/// What the hidden arguments of a launch are computed from.
struct Hidden<'a> {
    config: &'a LaunchConfig,
    dims: u32,
    queue: u64,
    printf_buffer: Option<u64>,
}

impl Hidden<'_> {
    /// The value of a hidden argument of kind `kind`, when the dispatcher computes
    /// it (see [`HIDDEN_FILLED`]).
    ///
    /// Code object V5: `hidden_block_count_*` counts the *full* work-groups
    /// (grid / group, rounded down) and `hidden_remainder_*` the size of the
    /// partial group after them (0 when the grid divides evenly); the device
    /// library derives the local size of the last group and the global size
    /// (`block_count * group_size + remainder`) from the pair.
    fn value(&self, kind: &ValueKind) -> Option<u64> {
        let config = self.config;
        let full = |d: usize| (config.grid[d] / config.group[d]) as u64;
        let rem = |d: usize| (config.grid[d] % config.group[d]) as u64;
        match kind {
            ValueKind::HiddenBlockCountX => Some(full(0)),
            ValueKind::HiddenBlockCountY => Some(full(1)),
            ValueKind::HiddenBlockCountZ => Some(full(2)),
            ValueKind::HiddenGroupSizeX => Some(config.group[0] as u64),
            ValueKind::HiddenGroupSizeY => Some(config.group[1] as u64),
            ValueKind::HiddenGroupSizeZ => Some(config.group[2] as u64),
            ValueKind::HiddenRemainderX => Some(rem(0)),
            ValueKind::HiddenRemainderY => Some(rem(1)),
            ValueKind::HiddenRemainderZ => Some(rem(2)),
            ValueKind::HiddenGlobalOffsetX => Some(config.global_offset[0]),
            ValueKind::HiddenGlobalOffsetY => Some(config.global_offset[1]),
            ValueKind::HiddenGlobalOffsetZ => Some(config.global_offset[2]),
            ValueKind::HiddenGridDims => Some(self.dims as u64),
            ValueKind::HiddenPrivateBase => Some(PRIVATE_BASE >> 32),
            ValueKind::HiddenSharedBase => Some(SHARED_BASE >> 32),
            ValueKind::HiddenQueuePtr => Some(self.queue),
            ValueKind::HiddenPrintfBuffer => self.printf_buffer,
            ValueKind::HiddenDynamicLdsSize => Some(config.dynamic_lds as u64),
            _ => None,
        }
    }
}

/// The hidden kernel arguments the dispatcher computes; every other hidden
/// argument (hostcall buffer, default queue, completion action, multigrid
/// sync, heap) is left zero.
pub const HIDDEN_FILLED: &[&str] = &[
    "hidden_block_count_x/y/z (full work-groups: grid / group rounded down)",
    "hidden_group_size_x/y/z",
    "hidden_remainder_x/y/z",
    "hidden_global_offset_x/y/z (LaunchConfig::global_offset)",
    "hidden_grid_dims",
    "hidden_private_base",
    "hidden_shared_base",
    "hidden_queue_ptr (a zeroed 256-byte block)",
    "hidden_dynamic_lds_size",
    "hidden_printf_buffer (a 1 MiB printf buffer; the host formats its records)",
];

impl Launch {
    /// Creates work-group `id` with its waves in their initial state.
    pub fn workgroup(&self, id: [u32; 3]) -> Result<Workgroup, SimError> {
        let cfg = &self.config;
        let kd = &self.kernel.descriptor;
        if (0..3).any(|d| id[d] >= self.groups[d]) {
            return Err(DispatchError::GroupOutsideGrid {
                id,
                groups: self.groups,
            }
            .into());
        }
        // Work-items of this group (partial groups at the grid's edge).
        let size: [u32; 3] =
            std::array::from_fn(|d| (cfg.grid[d] - id[d] * cfg.group[d]).min(cfg.group[d]));
        let items = size[0] * size[1] * size[2];
        let nwaves = items.div_ceil(self.wave_size);
        let private = kd.private_segment_fixed_size + cfg.extra_private;
        let lds = Bytes::new(
            (kd.group_segment_fixed_size + cfg.dynamic_lds) as usize,
            Space::Lds,
        );
        // What every wave of the group shares, computed once: the id layout,
        // MODE, and the initial SGPRs (the same in every wave).
        let start = GroupStart {
            size,
            items,
            private,
            layout: kd.workitem_id_layout(),
            mode: initial_mode(&kd.compute_pgm_rsrc1),
            sgprs: self.initial_sgprs(id, nwaves, private),
        };
        // Work-item ids in the (possibly partial) group, x fastest.
        let mut next = [0u32; 3];
        let waves = (0..nwaves)
            .map(|wi| self.initial_wave(wi, &start, &mut next))
            .collect();
        Ok(Workgroup { id, waves, lds })
    }

    /// The initial SGPRs of the waves of work-group `id` (`None`: not set), as the
    /// descriptor enables them.
    fn initial_sgprs(
        &self,
        id: [u32; 3],
        nwaves: u32,
        private: u32,
    ) -> [Option<u32>; crate::wave::NUM_SGPRS] {
        let mut sgprs = [None; crate::wave::NUM_SGPRS];
        for a in self.kernel.descriptor.initial_sgprs() {
            let mut vals = [0u32; 4];
            let n = match a.what {
                InitialSgpr::PrivateSegmentBuffer => {
                    vals = private_segment_buffer(self.wave_size);
                    4
                }
                InitialSgpr::DispatchPtr => split(&mut vals, self.packet),
                InitialSgpr::QueuePtr => split(&mut vals, self.queue),
                InitialSgpr::KernargSegmentPtr => split(&mut vals, self.kernarg),
                InitialSgpr::DispatchId => 2,
                InitialSgpr::FlatScratchInit => split(&mut vals, SCRATCH_BACKING),
                InitialSgpr::PrivateSegmentSize => one(&mut vals, private),
                InitialSgpr::WorkgroupIdX => one(&mut vals, id[0]),
                InitialSgpr::WorkgroupIdY => one(&mut vals, id[1]),
                InitialSgpr::WorkgroupIdZ => one(&mut vals, id[2]),
                InitialSgpr::WorkgroupInfo => one(&mut vals, nwaves & 0x3f),
                // Every wave's scratch is its own, so its offset is 0.
                InitialSgpr::PrivateSegmentWavefrontOffset => 1,
            };
            for (k, v) in vals.into_iter().enumerate().take(n.min(a.count as usize)) {
                if let Some(r) = sgprs.get_mut(a.first as usize + k) {
                    *r = Some(v);
                }
            }
        }
        sgprs
    }

    /// Wave `wi` of a work-group in its initial state: the work-item ids of its lanes
    /// from `next` on (advanced past them), EXEC, MODE and the initial SGPRs.
    fn initial_wave(&self, wi: u32, start: &GroupStart, next: &mut [u32; 3]) -> Wave {
        let ws = self.wave_size;
        let mut w = Wave::new(
            ws,
            self.kernel.entry,
            Scratch::new(start.private, ws),
            wi,
            self.kernel.descriptor.vgpr_count() as usize,
        );
        let mut exec = 0u64;
        for lane in 0..ws {
            if wi * ws + lane >= start.items {
                break;
            }
            exec |= 1 << lane;
            let [x, y, z] = *next;
            let lane = lane as usize;
            match start.layout {
                WorkitemIdLayout::Packed { .. } => w.vgpr[0][lane] = x | y << 10 | z << 20,
                WorkitemIdLayout::Separate { dims } => {
                    w.vgpr[0][lane] = x;
                    if dims > 1 {
                        w.vgpr[1][lane] = y;
                    }
                    if dims > 2 {
                        w.vgpr[2][lane] = z;
                    }
                }
            }
            *next = next_id(*next, start.size);
        }
        w.exec = Mask(exec);
        w.hwreg[crate::wave::HW_REG_MODE] = start.mode;
        for (r, v) in w.sgpr.iter_mut().zip(start.sgprs) {
            if let Some(v) = v {
                *r = v;
            }
        }
        // GFX9 kernels that use flat scratch add the wave offset to the
        // FLAT_SCRATCH init value themselves; preset it as well.
        w.flat_scratch = SCRATCH_BACKING;
        w
    }
}

/// What the waves of a work-group start from.
struct GroupStart {
    /// Work-items in each dimension of this (possibly partial) group.
    size: [u32; 3],
    /// Work-items of the group.
    items: u32,
    /// Private bytes per lane.
    private: u32,
    /// How the work-item ids are laid out in v0..v2.
    layout: WorkitemIdLayout,
    /// The initial MODE.
    mode: u32,
    /// The initial SGPRs (`None`: not set).
    sgprs: [Option<u32>; crate::wave::NUM_SGPRS],
}

/// The work-item id after `id` in a group of `size`, x fastest.
fn next_id([x, y, z]: [u32; 3], size: [u32; 3]) -> [u32; 3] {
    if x + 1 < size[0] {
        [x + 1, y, z]
    } else if y + 1 < size[1] {
        [0, y + 1, z]
    } else {
        [0, 0, z + 1]
    }
}

/// The initial MODE of a kernel's waves (FP_ROUND, FP_DENORM, DX10_CLAMP, IEEE) from
/// its COMPUTE_PGM_RSRC1.
fn initial_mode(r1: &amdgpu_codeobj::ComputePgmRsrc1) -> u32 {
    r1.float_round_mode_32 as u32
        | (r1.float_round_mode_16_64 as u32) << 2
        | (r1.float_denorm_mode_32 as u32) << 4
        | (r1.float_denorm_mode_16_64 as u32) << 6
        | (r1.enable_dx10_clamp as u32) << 8
        | (r1.enable_ieee_mode as u32) << 9
}

/// Puts `v` in `out`; returns 1.
fn one(out: &mut [u32; 4], v: u32) -> usize {
    out[0] = v;
    1
}

/// Puts the two dwords of `v` in `out`; returns 2 (their count).
fn split(out: &mut [u32; 4], v: u64) -> usize {
    out[0] = v as u32;
    out[1] = (v >> 32) as u32;
    2
}

/// The private segment buffer V# (usage guide, "Private Segment Buffer"):
/// base at the scratch backing window, swizzled with ADD_TID_ENABLE, element
/// size 4, index stride = the wave size, so that a MUBUF access at offset `o`
/// by lane `l` lands at `(o / 4) * wave_size * 4 + l * 4 + o % 4` of the
/// wave's scratch.
pub fn private_segment_buffer(wave_size: u32) -> [u32; 4] {
    let base = SCRATCH_BACKING;
    let w0 = base as u32;
    // Stride 0; SWIZZLE_ENABLE (bit 31).
    let w1 = ((base >> 32) as u32 & 0xffff) | 1 << 31;
    let w2 = u32::MAX; // NUM_RECORDS
    let index_stride = if wave_size == 32 { 2 } else { 3 };
    // ADD_TID_ENABLE (23), INDEX_STRIDE (22:21), ELEMENT_SIZE 4 bytes (20:19 = 1).
    let w3 = 1 << 23 | index_stride << 21 | 1 << 19;
    [w0, w1, w2, w3]
}

//! Loading code objects and dispatching kernels: the kernarg segment, the
//! AQL packet, initial SGPRs/VGPRs, work-groups and their waves, and the
//! scheduler (work-groups in parallel on rayon, the waves of a group
//! cooperatively up to barriers).
//!
//! ABI: AMDGPU usage guide, "Kernel Dispatch", "Initial Kernel Execution
//! State", "Private Segment Buffer", "Flat Scratch", and the code object V5
//! hidden kernel arguments.

use crate::error::{DispatchError, SimError, Space};
use crate::exec::{self, Ctx, Prepared};
use crate::memory::{
    Bytes, GlobalMemory, MAX_MAPPED, PAGE, PRIVATE_BASE, SCRATCH_BACKING, SHARED_BASE, Scratch,
};
use crate::wave::{Mask, Wave, WaveStatus};
use amdgpu_codeobj::{
    CodeObject, InitialSgpr, KernelDescriptor, KernelMetadata, PrintfFormat, ValueKind,
    WorkitemIdLayout,
};
use amdgpu_isa::{Decoder, Gpu, Program};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The largest loadable image of a code object the simulator maps.
pub const MAX_CODE_OBJECT: u64 = 256 << 20;

/// The largest kernarg segment accepted.
pub const MAX_KERNARG: u64 = 1 << 20;

/// Instructions a wave runs before the next wave of its work-group gets a
/// turn: waves of a work-group run side by side as on hardware, so a wave
/// that spins on a flag another wave of its group sets (with no barrier
/// between them) sees it set. Large enough that waves which do not wait on
/// each other run in the same order as before.
pub const WAVE_QUANTUM: u64 = 1 << 16;

/// The most LDS a work-group can have (64 KiB on GFX9 and GFX10).
pub const MAX_LDS: u64 = 64 << 10;

/// The most private memory per work-item the simulator provides.
pub const MAX_PRIVATE: u64 = 1 << 20;

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

/// The most work-groups one dispatch may have (2^40: far more than a
/// simulated dispatch can run, and small enough to count in a `u64`).
pub const MAX_GROUPS: u64 = 1 << 40;

/// The simulated device: global memory shared by every dispatch.
///
/// Every method takes `&self`: a `Device` is `Sync`, so an `Arc<Device>`
/// serves several threads at once, one running dispatches while another
/// allocates, maps, loads and frees (as an HSA runtime's threads do).
#[derive(Debug)]
pub struct Device {
    /// Global memory.
    pub mem: GlobalMemory,
    /// Where the next code object is loaded.
    next_code_base: std::sync::atomic::AtomicU64,
}

impl Default for Device {
    fn default() -> Self {
        Device::new()
    }
}

/// A kernel of a loaded module.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// The kernel's name.
    pub name: String,
    /// The kernel descriptor.
    pub descriptor: KernelDescriptor,
    /// Guest address of the first instruction.
    pub entry: u64,
    /// The metadata entry, when the code object has one.
    pub metadata: Option<KernelMetadata>,
}

/// A code object loaded into device memory and decoded once.
#[derive(Clone, Debug)]
pub struct Module {
    /// The GPU the code object targets.
    pub gpu: Gpu,
    /// Amount added to every link-time address of the code object.
    pub load_bias: u64,
    /// The decoded `.text`, at its loaded address.
    pub program: Arc<Program>,
    /// `program` prepared for execution (resolved once per code object).
    pub prepared: Arc<Prepared>,
    /// The kernels.
    pub kernels: Vec<KernelInfo>,
    /// The printf formats of the code object (`amdhsa.printf`), for the host to
    /// format the records of a printf buffer with.
    pub printf: Arc<Vec<PrintfFormat>>,
    /// The guest addresses the code object's image occupies.
    pub image: std::ops::Range<u64>,
}

impl Module {
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// A value for one explicit kernel argument, in metadata order.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// A pointer (global buffer, or any 64-bit address).
    Ptr(u64),
    /// A 32-bit integer.
    U32(u32),
    /// A 32-bit signed integer.
    I32(i32),
    /// A 64-bit integer.
    U64(u64),
    /// A 32-bit float.
    F32(f32),
    /// A 64-bit float.
    F64(f64),
    /// Raw bytes (structs by value), copied as given.
    Bytes(Vec<u8>),
}

impl ArgValue {
    fn bytes(&self) -> Vec<u8> {
        match self {
            ArgValue::Ptr(v) | ArgValue::U64(v) => v.to_le_bytes().to_vec(),
            ArgValue::U32(v) => v.to_le_bytes().to_vec(),
            ArgValue::I32(v) => v.to_le_bytes().to_vec(),
            ArgValue::F32(v) => v.to_le_bytes().to_vec(),
            ArgValue::F64(v) => v.to_le_bytes().to_vec(),
            ArgValue::Bytes(b) => b.clone(),
        }
    }
}

/// How to launch a kernel.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// Grid size in work-items (x, y, z), like the AQL packet's `grid_size`.
    pub grid: [u32; 3],
    /// Work-group size in work-items.
    pub group: [u32; 3],
    /// Explicit arguments, in order.
    pub args: Vec<ArgValue>,
    /// Per-wave instruction cap (runaway loops end with an error).
    pub max_instructions: u64,
    /// Private bytes per lane beyond the descriptor's fixed size (the
    /// dynamic stack of kernels that call functions).
    pub extra_private: u32,
    /// Dynamic LDS bytes added to the group segment.
    pub dynamic_lds: u32,
    /// The work dimension (1-3) the kernel sees (`get_work_dim`, the AQL
    /// packet's dimensions); `None`: the highest dimension whose grid or
    /// work-group size exceeds 1.
    pub dimensions: Option<u32>,
    /// The global offset (x, y, z) the kernel sees in its
    /// `hidden_global_offset_*` arguments (`get_global_offset`; added to
    /// `get_global_id`).
    pub global_offset: [u64; 3],
    /// The kernarg segment as given, hidden arguments included (a captured
    /// dispatch replayed), instead of one built from `args` and the metadata.
    pub raw_kernarg: Option<Vec<u8>>,
}

impl LaunchConfig {
    /// A 1-D launch.
    pub fn new_1d(grid: u32, group: u32, args: Vec<ArgValue>) -> Self {
        LaunchConfig {
            grid: [grid, 1, 1],
            group: [group, 1, 1],
            args,
            max_instructions: 50_000_000,
            extra_private: 0,
            dynamic_lds: 0,
            dimensions: None,
            global_offset: [0; 3],
            raw_kernarg: None,
        }
    }
}

/// Figures of a finished dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Work-groups executed.
    pub groups: u64,
    /// Waves executed.
    pub waves: u64,
    /// Instructions executed, summed over waves.
    pub instructions: u64,
    /// Lane operations (vector instructions times the lanes EXEC enabled),
    /// summed over waves.
    pub lane_ops: u64,
}

/// How [`Device::run_with`] runs a dispatch.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Stop every work-group at the first fault (default: run the others on).
    pub stop_on_fault: bool,
    /// The wall-clock limit of the run.
    pub timeout: Option<Duration>,
    /// Set from outside (a Ctrl-C handler) to stop the run promptly.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Incremented each time a work-group completes (for a progress bar).
    pub progress: Option<Arc<AtomicU64>>,
    /// How many faults the report keeps in full (the lowest work-groups);
    /// the rest are only counted.
    pub max_faults: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            stop_on_fault: false,
            timeout: None,
            cancel: None,
            progress: None,
            max_faults: 64,
        }
    }
}

/// Why a run stopped before every work-group finished.
#[derive(Clone, Debug, PartialEq)]
pub enum Stopped {
    /// A wave reached the instruction cap (the error says where).
    InstructionLimit(Box<SimError>),
    /// The wall-clock limit passed.
    Timeout,
    /// The cancel flag was set.
    Cancelled,
    /// A fault stopped the run ([`RunOptions::stop_on_fault`]).
    Fault,
}

/// A work-group's fault.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupFault {
    /// The work-group's linear number (x fastest).
    pub linear: u64,
    /// The work-group.
    pub group: [u32; 3],
    /// What happened, and where.
    pub error: SimError,
}

/// Where an unfinished wave was when a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveAt {
    /// The work-group.
    pub group: [u32; 3],
    /// The wave's number in it.
    pub wave: u32,
    /// Its PC.
    pub pc: u64,
    /// The instruction at the PC (empty when none).
    pub inst: String,
    /// Running or waiting at a barrier.
    pub status: WaveStatus,
    /// Instructions it executed.
    pub executed: u64,
}

/// What [`Device::run_with`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    /// Work-groups completed, and the waves and instructions of every
    /// work-group that started.
    pub stats: Stats,
    /// Work-groups in the grid.
    pub total_groups: u64,
    /// The faults kept in full, in work-group order.
    pub faults: Vec<GroupFault>,
    /// Every fault, kept or not.
    pub fault_count: u64,
    /// Why the run stopped early, if it did.
    pub stopped: Option<Stopped>,
    /// The unfinished waves of the work-groups a stop interrupted.
    pub interrupted: Vec<WaveAt>,
}

impl RunReport {
    /// Whether every work-group ran to its end without a fault.
    pub fn ok(&self) -> bool {
        self.fault_count == 0 && self.stopped.is_none()
    }
}

#[derive(Default)]
struct Collected {
    faults: BTreeMap<u64, GroupFault>,
    count: u64,
    limit: Option<Box<SimError>>,
    waves: Vec<WaveAt>,
}

impl Collected {
    fn fault(&mut self, linear: u64, group: [u32; 3], error: SimError, keep: usize) {
        self.count += 1;
        self.faults.insert(
            linear,
            GroupFault {
                linear,
                group,
                error,
            },
        );
        while self.faults.len() > keep {
            self.faults.pop_last();
        }
    }

    fn interrupted(&mut self, wg: &Workgroup, launch: &Launch) {
        for w in wg.waves.iter().filter(|w| w.status != WaveStatus::Done) {
            self.waves.push(WaveAt {
                group: wg.id,
                wave: w.id,
                pc: w.pc,
                inst: launch
                    .program
                    .at(w.pc)
                    .map(|i| i.to_string())
                    .unwrap_or_default(),
                status: w.status,
                executed: w.executed,
            });
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A prepared dispatch: memory set up, ready to create work-groups. A clone
/// describes the same dispatch (over the same memory).
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel.
    pub kernel: KernelInfo,
    /// The module's GPU.
    pub gpu: Gpu,
    /// The decoded program.
    pub program: Arc<Program>,
    /// The program prepared for execution (the module's).
    pub prepared: Arc<Prepared>,
    /// The configuration.
    pub config: LaunchConfig,
    /// Guest address of the kernarg segment.
    pub kernarg: u64,
    /// Guest address of the AQL dispatch packet.
    pub packet: u64,
    /// Guest address of the (zeroed) queue structure.
    pub queue: u64,
    /// Work-groups in each dimension.
    pub groups: [u32; 3],
    /// Lanes per wave.
    pub wave_size: u32,
    /// Guest address of the printf buffer, when the kernel takes one.
    pub printf_buffer: Option<u64>,
    /// The code object's printf formats.
    pub printf_formats: Arc<Vec<PrintfFormat>>,
    /// The guest addresses the code object's image occupies.
    pub image: std::ops::Range<u64>,
}

/// The state of one work-group: its waves and its LDS.
#[derive(Clone, Debug)]
pub struct Workgroup {
    /// Work-group id.
    pub id: [u32; 3],
    /// The waves, in order.
    pub waves: Vec<Wave>,
    /// The group's LDS.
    pub lds: Bytes,
}

fn gpu_of(co: &CodeObject) -> Result<Gpu, SimError> {
    co.target()
        .gpu
        .name()
        .parse::<Gpu>()
        .map_err(SimError::from)
}

impl Device {
    /// An empty device.
    pub fn new() -> Self {
        Device {
            mem: GlobalMemory::new(),
            next_code_base: std::sync::atomic::AtomicU64::new(0x0000_7f00_0000_0000),
        }
    }

    /// An empty device that maps code objects from `code_base` up (page
    /// aligned) instead of `0x7f00_0000_0000`: a runtime that shares the
    /// address space with a host process puts them in a range it reserved.
    pub fn with_code_base(code_base: u64) -> Self {
        Device {
            mem: GlobalMemory::new(),
            next_code_base: std::sync::atomic::AtomicU64::new(code_base & !(PAGE - 1)),
        }
    }

    /// Where the next code object is mapped (its load bias), from now on:
    /// a replayed dispatch loads its code object where it was captured.
    pub fn set_code_base(&self, code_base: u64) {
        self.next_code_base.store(
            code_base & !(PAGE - 1),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// Allocates `size` zeroed bytes of global memory.
    pub fn alloc(&self, size: u64) -> Result<u64, SimError> {
        let pages = size.max(1).div_ceil(PAGE).saturating_mul(PAGE);
        if self.mem.mapped().saturating_add(pages) > MAX_MAPPED {
            return Err(SimError::Alloc {
                size,
                why: "simulated global memory holds at most 8 GiB (memory::MAX_MAPPED)",
            });
        }
        self.mem.allocate(size).map_err(SimError::Host)
    }

    /// Allocates and fills a buffer.
    pub fn alloc_bytes(&self, data: &[u8]) -> Result<u64, SimError> {
        let a = self.alloc(data.len() as u64)?;
        self.mem.write(a, data).map_err(SimError::Host)?;
        Ok(a)
    }

    /// Frees the allocation or mapping starting at `addr` (from
    /// [`Device::alloc`], [`Device::map_host`] or a fixed mapping), waiting
    /// for accesses to it in progress on other threads; a later access
    /// faults as unmapped.
    pub fn free(&self, addr: u64) -> Result<(), SimError> {
        self.mem.free(addr).map_err(SimError::Host)
    }

    /// Maps the host memory `[addr, addr + len)` of this process into global
    /// memory at the same address, so that kernels and host threads share
    /// it ([`GlobalMemory::map_host`]: page-aligned, below
    /// [`crate::memory::ADDRESS_LIMIT`], overlapping nothing mapped).
    ///
    /// # Safety
    ///
    /// As for [`GlobalMemory::map_host`]: the memory must stay valid for reads
    /// and writes until [`Device::free`]`(addr)` has returned or the device
    /// is dropped, and host threads must access bytes that kernels access at
    /// the same time atomically.
    pub unsafe fn map_host(&self, addr: u64, len: u64) -> Result<(), SimError> {
        // SAFETY: the caller upholds `GlobalMemory::map_host`'s contract.
        unsafe { self.mem.map_host(addr, len) }.map_err(SimError::Host)
    }

    /// Writes host bytes to global memory.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        self.mem.write(addr, data).map_err(SimError::Host)
    }

    /// Reads `len` bytes of global memory.
    pub fn read(&self, addr: u64, len: usize) -> Result<Vec<u8>, SimError> {
        let mut v = vec![0u8; len];
        self.mem.read(addr, &mut v).map_err(SimError::Host)?;
        Ok(v)
    }

    /// Loads a code object: maps its loadable segments at a fresh load bias
    /// (so `s_getpc`-relative data such as `.rodata` is readable) and decodes
    /// `.text` once.
    pub fn load(&self, bytes: &[u8]) -> Result<Module, SimError> {
        let co = CodeObject::parse(bytes)?;
        let gpu = gpu_of(&co)?;
        let mut top = 0u64;
        for seg in co.load_segments() {
            top = top.max(seg.address.saturating_add(seg.mem_size));
        }
        let text = co.text();
        top = top.max(text.end_address());
        if top > MAX_CODE_OBJECT {
            return Err(SimError::ImageTooLarge {
                size: top,
                max: MAX_CODE_OBJECT,
            });
        }
        let size = top.div_ceil(PAGE) * PAGE;
        // A load bias of its own, even when other threads load at the same time.
        let bias = self
            .next_code_base
            .fetch_add(size + 16 * PAGE, std::sync::atomic::Ordering::Relaxed);
        self.mem
            .map_at(bias, size.max(PAGE))
            .map_err(SimError::Host)?;
        for seg in co.load_segments() {
            self.mem
                .write(bias + seg.address, seg.data)
                .map_err(SimError::Host)?;
        }
        self.mem
            .write(bias + text.address, text.bytes)
            .map_err(SimError::Host)?;
        if let Err(e) = self.relocate(&co, bias, size) {
            let _ = self.mem.free(bias);
            return Err(e);
        }
        let wave64_any = co.kernels().iter().any(|k| k.wavefront_size() == 64);
        let wave64 = wave64_any || co.kernels().is_empty();
        let dec = Decoder::new(gpu, wave64);
        let program = Arc::new(dec.decode_program(text.bytes, bias + text.address));
        let kernels = co
            .kernels()
            .iter()
            .map(|k| KernelInfo {
                name: k.name.clone(),
                descriptor: k.descriptor,
                entry: bias + k.entry_address,
                metadata: k.metadata.clone(),
            })
            .collect();
        let prepared = Arc::new(Prepared::new(&program));
        let printf = match co.metadata() {
            Some(md) => md.printf()?,
            None => Vec::new(),
        };
        Ok(Module {
            gpu,
            load_bias: bias,
            program,
            prepared,
            kernels,
            printf: Arc::new(printf),
            image: bias..bias + size,
        })
    }

    /// Applies a code object's dynamic relocations to its image mapped at
    /// `bias` (`size` bytes): `R_AMDGPU_RELATIVE64` (B + A), `R_AMDGPU_ABS64`,
    /// `ABS32`, `ABS32_LO`, `ABS32_HI` (S + A, the symbol's value biased).
    /// Anything else is an error: a wrong address must not be left in data.
    fn relocate(&self, co: &CodeObject<'_>, bias: u64, size: u64) -> Result<(), SimError> {
        use amdgpu_codeobj::reloc::kind;
        for r in co.dynamic_relocations()? {
            let err = |why: &str| SimError::Relocation {
                offset: r.offset,
                kind: r.kind,
                why: why.into(),
            };
            let sym = || match r.symbol {
                Some(_) if r.undefined => Err(err("the symbol is not defined in the code object")),
                Some(v) => Ok(bias.wrapping_add(v)),
                None => Err(err("no symbol")),
            };
            let a = r.addend as u64;
            let (value, width) = match r.kind {
                kind::NONE => continue,
                kind::RELATIVE64 => (bias.wrapping_add(a), 8),
                kind::ABS64 => (sym()?.wrapping_add(a), 8),
                kind::ABS32 | kind::ABS32_LO => (sym()?.wrapping_add(a) & 0xffff_ffff, 4),
                kind::ABS32_HI => (sym()?.wrapping_add(a) >> 32, 4),
                _ => return Err(err("a relocation type the loader does not apply")),
            };
            if r.offset.checked_add(width).is_none_or(|e| e > size) {
                return Err(err("the place is outside the loaded image"));
            }
            self.mem
                .write(bias + r.offset, &value.to_le_bytes()[..width as usize])
                .map_err(SimError::Host)?;
        }
        Ok(())
    }

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
        let wave_size = k.descriptor.wavefront_size();
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
        let queue = self.alloc(256)?;
        // A printf buffer when the kernel takes one (its header: nothing used yet, and
        // the size).
        let printf_buffer = match &k.metadata {
            Some(md)
                if md
                    .hidden_args()
                    .any(|a| a.value_kind == ValueKind::HiddenPrintfBuffer) =>
            {
                let b = self.alloc(u64::from(PRINTF_BUFFER_SIZE))?;
                self.mem
                    .write(b, &printf_buffer_header(PRINTF_BUFFER_SIZE))
                    .map_err(SimError::Host)?;
                Some(b)
            }
            _ => None,
        };
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
        // AQL kernel dispatch packet (hsa_kernel_dispatch_packet_t, 64 bytes).
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
        let packet = self.alloc_bytes(&p)?;
        Ok(Launch {
            kernel: k,
            gpu: module.gpu,
            program: module.program.clone(),
            prepared: module.prepared.clone(),
            config,
            kernarg,
            packet,
            queue,
            groups,
            wave_size,
            printf_buffer,
            printf_formats: module.printf.clone(),
            image: module.image.clone(),
        })
    }

    /// Runs a prepared dispatch to completion, work-groups in parallel. The
    /// first error (in work-group order) is returned; [`Device::run_with`]
    /// reports every one and keeps the results of the other work-groups.
    pub fn run(&self, launch: &Launch) -> Result<Stats, SimError> {
        let report = self.run_with(launch, &RunOptions::default());
        match report.stopped {
            Some(Stopped::InstructionLimit(e)) => return Err(*e),
            Some(Stopped::Fault) | None => {}
            Some(Stopped::Timeout) | Some(Stopped::Cancelled) => {}
        }
        match report.faults.into_iter().next() {
            Some(f) => Err(f.error),
            None => Ok(report.stats),
        }
    }

    /// Runs a prepared dispatch, work-groups in parallel on the current rayon
    /// pool. A work-group that faults stops there; the others run to
    /// completion (or, with [`RunOptions::stop_on_fault`], stop). The
    /// instruction cap of a wave, the deadline and the cancel flag stop every
    /// work-group promptly; the report then says where each unfinished wave
    /// was. Whatever the work-groups wrote stays in memory.
    pub fn run_with(&self, launch: &Launch, opts: &RunOptions) -> RunReport {
        let [gx, gy, gz] = launch.groups;
        let total = gx as u64 * gy as u64 * gz as u64;
        let stop = AtomicBool::new(false);
        let cancel = opts.cancel.as_deref();
        let done = opts.progress.as_deref();
        let finished = AtomicBool::new(false);
        let state = Mutex::new(Collected::default());
        let waves = AtomicU64::new(0);
        let instructions = AtomicU64::new(0);
        let lane_ops = AtomicU64::new(0);
        let groups = AtomicU64::new(0);
        let timed_out = AtomicBool::new(false);
        // Counts a work-group's waves and instructions and files how it
        // ended: completed, interrupted, stopped by the cap, or faulted.
        let account = |wg: &Workgroup, n: u64, r: Result<Option<u32>, SimError>| {
            let id = wg.id;
            waves.fetch_add(wg.waves.len() as u64, Ordering::Relaxed);
            instructions.fetch_add(
                wg.waves.iter().map(|w| w.executed).sum::<u64>(),
                Ordering::Relaxed,
            );
            lane_ops.fetch_add(
                wg.waves.iter().map(|w| w.lane_ops).sum::<u64>(),
                Ordering::Relaxed,
            );
            match r {
                Ok(None) => {
                    groups.fetch_add(1, Ordering::Relaxed);
                    if let Some(d) = done {
                        d.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Ok(Some(_)) => lock(&state).interrupted(wg, launch),
                Err(error @ SimError::InstructionLimit { .. }) => {
                    stop.store(true, Ordering::Relaxed);
                    let mut st = lock(&state);
                    if st.limit.is_none() {
                        st.limit = Some(Box::new(error));
                    }
                    st.interrupted(wg, launch);
                }
                Err(error) => {
                    if opts.stop_on_fault {
                        stop.store(true, Ordering::Relaxed);
                    }
                    lock(&state).fault(n, id, error, opts.max_faults);
                }
            }
        };
        let one_group = |n: u64| -> Result<(), ()> {
            if stop.load(Ordering::Relaxed) {
                return Err(());
            }
            let id = [
                (n % gx as u64) as u32,
                ((n / gx as u64) % gy as u64) as u32,
                (n / (gx as u64 * gy as u64)) as u32,
            ];
            let mut wg = match launch.workgroup(id) {
                Ok(wg) => wg,
                Err(error) => {
                    lock(&state).fault(n, id, error, opts.max_faults);
                    return Ok(());
                }
            };
            // The stop flag is polled every 256 instructions: prompt, and
            // off the per-instruction path.
            let mut polls = 0u32;
            let r = wg.run_until(launch, &self.mem, |_| {
                polls = polls.wrapping_add(1);
                polls % 256 == 0 && stop.load(Ordering::Relaxed)
            });
            account(&wg, n, r);
            Ok(())
        };
        // One work-group runs on this thread: handing it to the pool and
        // waiting would cost two thread wake-ups, most of a small launch.
        let body = || {
            if total == 1 {
                one_group(0)
            } else {
                (0..total).into_par_iter().try_for_each(one_group)
            }
        };
        // A kernel that uses GWS or the ordered count: every work-group
        // resident at once, scheduled round by round on this thread, so that
        // waves of different work-groups can wait on each other.
        let coresident = || {
            let per_group = (launch
                .config
                .group
                .iter()
                .map(|&g| g as u64)
                .product::<u64>())
            .div_ceil(launch.wave_size as u64);
            let nwaves = total.saturating_mul(per_group);
            if nwaves > MAX_CORESIDENT_WAVES {
                let error = DispatchError::TooManyCoresident {
                    waves: nwaves,
                    max: MAX_CORESIDENT_WAVES,
                };
                lock(&state).fault(0, [0; 3], error.into(), opts.max_faults);
                return;
            }
            let mut live = Vec::new();
            for n in 0..total {
                let id = [
                    (n % gx as u64) as u32,
                    ((n / gx as u64) % gy as u64) as u32,
                    (n / (gx as u64 * gy as u64)) as u32,
                ];
                match launch.workgroup(id) {
                    Ok(wg) => live.push((n, wg)),
                    Err(error) => lock(&state).fault(n, id, error, opts.max_faults),
                }
            }
            let gds = self.mem.gds();
            let mut polls = 0u32;
            let mut stopf = |_: &Wave| {
                polls = polls.wrapping_add(1);
                polls % 256 == 0 && stop.load(Ordering::Relaxed)
            };
            while !live.is_empty() {
                let mut progressed = false;
                for (_, g) in live.iter_mut() {
                    for w in g.waves.iter_mut() {
                        if w.status == WaveStatus::Waiting {
                            progressed |= gds.poll(w);
                        }
                    }
                }
                progressed |= crate::gds::grant_ordered(
                    live.iter_mut().flat_map(|(_, g)| g.waves.iter_mut()),
                );
                let mut k = 0;
                while k < live.len() {
                    let r = match live[k].1.round(launch, &self.mem, &mut stopf) {
                        Ok(Round::Blocked { progressed: p }) => {
                            progressed |= p;
                            k += 1;
                            continue;
                        }
                        Ok(Round::Done) => Ok(None),
                        Ok(Round::Stopped(w)) => Ok(Some(w)),
                        Err(e) => Err(e),
                    };
                    let (n, g) = live.remove(k);
                    account(&g, n, r);
                    progressed = true;
                }
                if stop.load(Ordering::Relaxed) {
                    for (n, g) in live.drain(..) {
                        account(&g, n, Ok(Some(0)));
                    }
                } else if !progressed {
                    for (n, g) in live.drain(..) {
                        let what = g.stuck();
                        account(&g, n, Err(SimError::Deadlock { group: g.id, what }));
                    }
                }
            }
        };
        std::thread::scope(|scope| {
            // The watchdog: turns the deadline and the cancel flag into the
            // stop flag the work-groups poll before every instruction.
            let watchdog = (opts.timeout.is_some() || cancel.is_some()).then(|| {
                scope.spawn(|| {
                    let start = Instant::now();
                    while !finished.load(Ordering::Relaxed) {
                        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                            stop.store(true, Ordering::Relaxed);
                            return;
                        }
                        if opts.timeout.is_some_and(|t| start.elapsed() >= t) {
                            timed_out.store(true, Ordering::Relaxed);
                            stop.store(true, Ordering::Relaxed);
                            return;
                        }
                        std::thread::park_timeout(Duration::from_millis(5));
                    }
                })
            });
            if launch.uses_gds_sync() {
                coresident();
            } else {
                let _ = body();
            }
            finished.store(true, Ordering::Relaxed);
            if let Some(w) = watchdog {
                w.thread().unpark();
            }
        });
        let st = state.into_inner().unwrap_or_else(|e| e.into_inner());
        let stopped = if let Some(e) = st.limit {
            Some(Stopped::InstructionLimit(e))
        } else if timed_out.load(Ordering::Relaxed) {
            Some(Stopped::Timeout)
        } else if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) && stop.load(Ordering::Relaxed)
        {
            Some(Stopped::Cancelled)
        } else if stop.load(Ordering::Relaxed) {
            Some(Stopped::Fault)
        } else {
            None
        };
        let mut faults: Vec<GroupFault> = st.faults.into_values().collect();
        faults.sort_by_key(|f| f.linear);
        let mut interrupted = st.waves;
        interrupted.sort_by_key(|w| (w.group[2], w.group[1], w.group[0], w.wave));
        let completed = groups.load(Ordering::Relaxed);
        RunReport {
            stats: Stats {
                groups: completed,
                waves: waves.load(Ordering::Relaxed),
                instructions: instructions.load(Ordering::Relaxed),
                lane_ops: lane_ops.load(Ordering::Relaxed),
            },
            total_groups: total,
            faults,
            fault_count: st.count,
            stopped,
            interrupted,
        }
    }

    /// Prepares and runs a dispatch of `kernel` of `module` ([`Device::launch`]
    /// then [`Device::run`]).
    pub fn dispatch(
        &self,
        module: &Module,
        kernel: &str,
        config: LaunchConfig,
    ) -> Result<Stats, SimError> {
        let l = self.launch(module, kernel, config)?;
        self.run(&l)
    }
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
    let mut buf = vec![0u8; size as usize];
    let Some(md) = &k.metadata else {
        if !config.args.is_empty() {
            return Err(DispatchError::NoMetadata(k.name.clone()).into());
        }
        return Ok(buf);
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
    let mut put = |off: u64, size: u64, bytes: &[u8]| -> Result<(), SimError> {
        let end = off
            .checked_add(size)
            .filter(|&e| e <= MAX_KERNARG)
            .ok_or(DispatchError::ArgumentOutsideKernarg { offset: off, size })?;
        if end as usize > buf.len() {
            buf.resize(end as usize, 0);
        }
        let n = bytes.len().min(size as usize);
        buf[off as usize..off as usize + n].copy_from_slice(&bytes[..n]);
        Ok(())
    };
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
        put(a.offset, a.size, &b)?;
    }
    // Code object V5: `hidden_block_count_*` counts the *full* work-groups
    // (grid / group, rounded down) and `hidden_remainder_*` the size of the
    // partial group after them (0 when the grid divides evenly); the device
    // library derives the local size of the last group and the global size
    // (`block_count * group_size + remainder`) from the pair.
    let full: [u32; 3] = std::array::from_fn(|d| config.grid[d] / config.group[d]);
    for a in md.hidden_args() {
        let v: Option<u64> = match a.value_kind {
            ValueKind::HiddenBlockCountX => Some(full[0] as u64),
            ValueKind::HiddenBlockCountY => Some(full[1] as u64),
            ValueKind::HiddenBlockCountZ => Some(full[2] as u64),
            ValueKind::HiddenGroupSizeX => Some(config.group[0] as u64),
            ValueKind::HiddenGroupSizeY => Some(config.group[1] as u64),
            ValueKind::HiddenGroupSizeZ => Some(config.group[2] as u64),
            ValueKind::HiddenRemainderX => Some((config.grid[0] % config.group[0]) as u64),
            ValueKind::HiddenRemainderY => Some((config.grid[1] % config.group[1]) as u64),
            ValueKind::HiddenRemainderZ => Some((config.grid[2] % config.group[2]) as u64),
            ValueKind::HiddenGlobalOffsetX => Some(config.global_offset[0]),
            ValueKind::HiddenGlobalOffsetY => Some(config.global_offset[1]),
            ValueKind::HiddenGlobalOffsetZ => Some(config.global_offset[2]),
            ValueKind::HiddenGridDims => Some(dims as u64),
            ValueKind::HiddenPrivateBase => Some(PRIVATE_BASE >> 32),
            ValueKind::HiddenSharedBase => Some(SHARED_BASE >> 32),
            ValueKind::HiddenQueuePtr => Some(queue),
            ValueKind::HiddenPrintfBuffer => printf_buffer,
            ValueKind::HiddenDynamicLdsSize => Some(config.dynamic_lds as u64),
            _ => None,
        };
        if let Some(v) = v {
            put(a.offset, a.size, &v.to_le_bytes())?;
        }
    }
    Ok(buf)
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
    /// Whether the kernel's code uses GWS or the ordered count, whose waves
    /// wait on waves of other work-groups (such a dispatch runs with every
    /// work-group resident: see [`crate::gds`]).
    pub fn uses_gds_sync(&self) -> bool {
        use amdgpu_isa::mem::ops as m;
        self.program.insts().any(|i| {
            matches!(i.op, amdgpu_isa::Op::Mem(op) if [
                m::DS_GWS_INIT,
                m::DS_GWS_SEMA_V,
                m::DS_GWS_SEMA_BR,
                m::DS_GWS_SEMA_P,
                m::DS_GWS_SEMA_RELEASE_ALL,
                m::DS_GWS_BARRIER,
                m::DS_ORDERED_COUNT,
            ]
            .contains(&op))
        })
    }

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
        let ws = self.wave_size;
        // Work-items of this group (partial groups at the grid's edge).
        let size: [u32; 3] =
            std::array::from_fn(|d| (cfg.grid[d] - id[d] * cfg.group[d]).min(cfg.group[d]));
        let items = size[0] * size[1] * size[2];
        let nwaves = items.div_ceil(ws);
        let private = kd.private_segment_fixed_size + cfg.extra_private;
        let lds = Bytes::new(
            (kd.group_segment_fixed_size + cfg.dynamic_lds) as usize,
            Space::Lds,
        );
        // What every wave of the group shares, computed once: the id layout,
        // MODE, and the initial SGPRs (the same in every wave).
        let layout = kd.workitem_id_layout();
        let r1 = &kd.compute_pgm_rsrc1;
        let mode = r1.float_round_mode_32 as u32
            | (r1.float_round_mode_16_64 as u32) << 2
            | (r1.float_denorm_mode_32 as u32) << 4
            | (r1.float_denorm_mode_16_64 as u32) << 6
            | (r1.enable_dx10_clamp as u32) << 8
            | (r1.enable_ieee_mode as u32) << 9;
        let mut sgprs = [0u32; crate::wave::NUM_SGPRS];
        let mut set = [false; crate::wave::NUM_SGPRS];
        for a in kd.initial_sgprs() {
            let mut vals = [0u32; 4];
            let n = match a.what {
                InitialSgpr::PrivateSegmentBuffer => {
                    vals = private_segment_buffer(ws);
                    4
                }
                InitialSgpr::DispatchPtr => split(&mut vals, self.packet),
                InitialSgpr::QueuePtr => split(&mut vals, self.queue),
                InitialSgpr::KernargSegmentPtr => split(&mut vals, self.kernarg),
                InitialSgpr::DispatchId => 2,
                InitialSgpr::FlatScratchInit => split(&mut vals, SCRATCH_BACKING),
                InitialSgpr::PrivateSegmentSize => {
                    vals[0] = private;
                    1
                }
                InitialSgpr::WorkgroupIdX => {
                    vals[0] = id[0];
                    1
                }
                InitialSgpr::WorkgroupIdY => {
                    vals[0] = id[1];
                    1
                }
                InitialSgpr::WorkgroupIdZ => {
                    vals[0] = id[2];
                    1
                }
                InitialSgpr::WorkgroupInfo => {
                    vals[0] = nwaves & 0x3f;
                    1
                }
                // Every wave's scratch is its own, so its offset is 0.
                InitialSgpr::PrivateSegmentWavefrontOffset => 1,
            };
            for (k, v) in vals.into_iter().enumerate().take(n.min(a.count as usize)) {
                let r = a.first as usize + k;
                if r < sgprs.len() {
                    sgprs[r] = v;
                    set[r] = true;
                }
            }
        }
        let mut waves = Vec::with_capacity(nwaves as usize);
        // Work-item ids in the (possibly partial) group, x fastest.
        let (mut x, mut y, mut z) = (0u32, 0u32, 0u32);
        for wi in 0..nwaves {
            let mut w = Wave::new(
                ws,
                self.kernel.entry,
                Scratch::new(private, ws),
                wi,
                kd.vgpr_count() as usize,
            );
            let mut exec = 0u64;
            for lane in 0..ws {
                let flat = wi * ws + lane;
                if flat >= items {
                    break;
                }
                exec |= 1 << lane;
                match layout {
                    WorkitemIdLayout::Packed { .. } => {
                        w.vgpr[0][lane as usize] = x | y << 10 | z << 20;
                    }
                    WorkitemIdLayout::Separate { dims } => {
                        w.vgpr[0][lane as usize] = x;
                        if dims > 1 {
                            w.vgpr[1][lane as usize] = y;
                        }
                        if dims > 2 {
                            w.vgpr[2][lane as usize] = z;
                        }
                    }
                }
                x += 1;
                if x == size[0] {
                    x = 0;
                    y += 1;
                    if y == size[1] {
                        y = 0;
                        z += 1;
                    }
                }
            }
            w.exec = Mask(exec);
            w.hwreg[crate::wave::HW_REG_MODE] = mode;
            for (r, v) in w.sgpr.iter_mut().enumerate() {
                if set[r] {
                    *v = sgprs[r];
                }
            }
            // GFX9 kernels that use flat scratch add the wave offset to the
            // FLAT_SCRATCH init value themselves; preset it as well.
            w.flat_scratch = SCRATCH_BACKING;
            waves.push(w);
        }
        Ok(Workgroup { id, waves, lds })
    }
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

/// How a round of a work-group's schedule ended.
enum Round {
    /// `stop` said so, before an instruction of this wave.
    Stopped(u32),
    /// Every wave has ended.
    Done,
    /// Waves wait (at the barrier or on the GDS); `progressed` says whether
    /// anything executed or opened.
    Blocked { progressed: bool },
}

/// The most waves a kernel that uses GWS or the ordered count may have: they
/// all run together (a cooperative launch; MI100's 120 CUs hold 4,800 waves).
pub const MAX_CORESIDENT_WAVES: u64 = 4096;

impl Workgroup {
    /// Runs every wave of the group to completion: each wave runs until it
    /// ends or reaches a barrier, in wave order; when every unfinished wave
    /// waits at the barrier, all are released.
    pub fn run(&mut self, launch: &Launch, mem: &GlobalMemory) -> Result<(), SimError> {
        self.run_until(launch, mem, |_| false).map(|_| ())
    }

    /// The work-group scheduler, shared by [`Device::run`] and the stepping
    /// [`crate::debug::Session`]: runs the waves as [`Workgroup::run`] does,
    /// but asks `stop` before each instruction of a running wave; when it
    /// answers true the run stops there, before that instruction, and the
    /// wave's number is returned (`None`: every wave has ended). Calling it
    /// again continues with the same schedule (waves in order, each until it
    /// ends or reaches a barrier), so a run that is stopped and resumed any
    /// number of times computes exactly what an uninterrupted run computes.
    pub fn run_until(
        &mut self,
        launch: &Launch,
        mem: &GlobalMemory,
        mut stop: impl FnMut(&Wave) -> bool,
    ) -> Result<Option<u32>, SimError> {
        loop {
            match self.round(launch, mem, &mut stop)? {
                Round::Stopped(wave) => return Ok(Some(wave)),
                Round::Done => return Ok(None),
                Round::Blocked { progressed } => {
                    let woken = crate::gds::wake(mem.gds(), &mut self.waves);
                    if !progressed && !woken {
                        return Err(SimError::Deadlock {
                            group: self.id,
                            what: self.stuck(),
                        });
                    }
                }
            }
        }
    }

    /// One round of the schedule: each running wave, in order, runs until it
    /// ends or waits; then the barrier opens if every unfinished wave has
    /// reached it.
    fn round(
        &mut self,
        launch: &Launch,
        mem: &GlobalMemory,
        stop: &mut impl FnMut(&Wave) -> bool,
    ) -> Result<Round, SimError> {
        let ctx = Ctx {
            program: &launch.program,
            mem,
            gpu: launch.gpu,
            group: self.id,
            max_instructions: launch.config.max_instructions,
        };
        let mut progressed = false;
        let mut yielded = false;
        let (mut slept, mut ran) = (0usize, 0usize);
        for w in self.waves.iter_mut() {
            let start = w.executed;
            ran += usize::from(w.status == WaveStatus::Running);
            while w.status == WaveStatus::Running {
                if stop(w) {
                    return Ok(Round::Stopped(w.id));
                }
                exec::step_with(w, &mut self.lds, &ctx, Some(&launch.prepared))?;
                progressed = true;
                if w.slept {
                    // s_sleep: the wave waits; the others take their turns.
                    w.slept = false;
                    slept += 1;
                    yielded = true;
                    break;
                }
                if w.executed - start >= WAVE_QUANTUM {
                    yielded = true;
                    break;
                }
            }
        }
        if self.waves.iter().all(|w| w.status == WaveStatus::Done) {
            return Ok(Round::Done);
        }
        if yielded {
            if slept > 0 && slept == ran {
                // Every wave sleeps, waiting for memory the group may not write (the
                // host, another work-group): let other threads have the core first.
                std::thread::yield_now();
            }
            // A wave used its quantum or slept: another round, before any barrier opens.
            return Ok(Round::Blocked { progressed: true });
        }
        progressed |= self.release_barrier();
        Ok(Round::Blocked { progressed })
    }

    /// What the unfinished waves of a group that can make no progress wait
    /// for.
    pub fn stuck(&self) -> String {
        let gws: Vec<String> = self
            .waves
            .iter()
            .filter_map(|w| w.wait.map(|x| format!("wave {} waits on {x}", w.id)))
            .collect();
        if gws.is_empty() {
            return "waves wait at a barrier that cannot complete".into();
        }
        format!(
            "{} that no wave left running can release{}",
            gws.join(", "),
            if self.waves.iter().any(|w| w.status == WaveStatus::Barrier) {
                " (the others wait at s_barrier)"
            } else {
                ""
            }
        )
    }

    /// Releases the barrier when every unfinished wave waits at it. Returns
    /// whether it did. (Waves that have ended do not hold a barrier back, as
    /// on hardware.)
    pub fn release_barrier(&mut self) -> bool {
        let waiting = self
            .waves
            .iter()
            .filter(|w| w.status == WaveStatus::Barrier)
            .count();
        // A wave that waits on the GDS has not reached the barrier.
        let running = self
            .waves
            .iter()
            .filter(|w| matches!(w.status, WaveStatus::Running | WaveStatus::Waiting))
            .count();
        if waiting > 0 && running == 0 {
            for w in self.waves.iter_mut() {
                if w.status == WaveStatus::Barrier {
                    w.status = WaveStatus::Running;
                }
            }
            true
        } else {
            false
        }
    }
}

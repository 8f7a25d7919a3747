//! The runtime: one simulated GPU agent (and the CPU agent), its memory,
//! signals, queues and executables, shared by every thread of the program.

use crate::agent::Card;
use crate::loader::{Loaded, Symbol, SymbolBody};
use crate::memory::Memory;
use crate::queue::Queue;
use crate::signal::{self, Notifier, Signal};
use amdgpu_sim::dispatch::{Launch, LaunchConfig, Module, RunOptions};
use amdgpu_sim::memory::PAGE;
use amdgpu_sim::{Device, SimError};
use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// Something that runs some dispatches itself: the debugger of
/// `amdsim debug -- PROGRAM`, which stops waves at breakpoints.
pub trait Intercept: Send + Sync {
    /// Runs `launch`, a dispatch of a kernel of `module` (loaded from the code
    /// object `code`) to its end, or returns `None` to leave it to the runtime.
    /// `Some(Err(_))`: the dispatch faulted.
    fn dispatch(
        &self,
        device: &Device,
        module: &Module,
        code: &Arc<Vec<u8>>,
        launch: &Launch,
    ) -> Option<Result<(), SimError>>;
}

/// The settings the runtime starts with (from the environment when it runs
/// under a HIP program).
#[derive(Clone, Debug)]
pub struct Settings {
    /// The card the GPU agent stands for.
    pub card: &'static Card,
    /// Per-wave instruction cap.
    pub max_instructions: u64,
    /// Where to capture every dispatch, if anywhere.
    pub capture: Option<std::path::PathBuf>,
}

impl Settings {
    /// From `AMDSIM_GPU` (default gfx900) and `AMDSIM_MAX_INSTRUCTIONS`.
    pub fn from_env() -> Result<Settings, String> {
        let gpu = std::env::var("AMDSIM_GPU").unwrap_or_else(|_| "gfx900".into());
        let card = Card::for_target(&gpu)?;
        let max_instructions = match std::env::var("AMDSIM_MAX_INSTRUCTIONS") {
            Ok(v) => v
                .parse()
                .map_err(|_| format!("AMDSIM_MAX_INSTRUCTIONS={v} is not a number"))?,
            Err(_) => 1 << 32,
        };
        let capture = std::env::var_os("AMDSIM_CAPTURE")
            .filter(|d| !d.is_empty())
            .map(Into::into);
        Ok(Settings {
            card,
            max_instructions,
            capture,
        })
    }
}

/// An executable (`hsa_executable_t`).
#[derive(Debug, Default)]
pub struct Executable {
    /// Its loaded code objects.
    pub loaded: Vec<Loaded>,
    /// Whether it is frozen.
    pub frozen: bool,
}

/// The runtime.
#[derive(Debug)]
pub struct Runtime {
    /// The card.
    pub card: &'static Card,
    /// The simulated device.
    pub device: Device,
    /// Allocations.
    pub memory: Memory,
    /// Wakes signal waiters.
    pub notifier: Notifier,
    /// Settings.
    pub settings: Settings,
    signals: Mutex<SignalSlab>,
    kernels: Mutex<BTreeMap<u64, Arc<Symbol>>>,
    /// The loaded code objects' bytes, by load bias (for captures).
    codes: Mutex<BTreeMap<u64, Arc<Vec<u8>>>>,
    capture: Option<crate::capture::Capture>,
    queue_ids: AtomicU64,
    warned: Mutex<HashSet<String>>,
    intercept: OnceLock<Box<dyn Intercept>>,
    /// Images and samplers made through the image extension.
    pub(crate) images: crate::image::Images,
}

impl std::fmt::Debug for dyn Intercept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Intercept")
    }
}

#[derive(Debug, Default)]
struct SignalSlab {
    free: Vec<u64>,
    live: HashSet<u64>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// HSA status codes the runtime returns.
pub mod status {
    /// `HSA_STATUS_ERROR`
    pub const ERROR: u32 = 0x1000;
    /// `HSA_STATUS_ERROR_INVALID_ARGUMENT`
    pub const INVALID_ARGUMENT: u32 = 0x1001;
    /// `HSA_STATUS_ERROR_OUT_OF_RESOURCES`
    pub const OUT_OF_RESOURCES: u32 = 0x1008;
    /// `HSA_STATUS_ERROR_INVALID_CODE_OBJECT`
    pub const INVALID_CODE_OBJECT: u32 = 0x1010;
    /// `HSA_STATUS_ERROR_EXCEPTION`
    pub const EXCEPTION: u32 = 0x1016;
    /// `HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION`
    pub const MEMORY_APERTURE_VIOLATION: u32 = 41;
    /// `HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION`
    pub const ILLEGAL_INSTRUCTION: u32 = 42;
}

/// The HSA status ROCr reports for a dispatch that ended with `e`.
fn fault_status(e: &SimError) -> u32 {
    match e {
        SimError::Fault { .. } => status::MEMORY_APERTURE_VIOLATION,
        SimError::InvalidInstruction { .. } | SimError::Unimplemented { .. } => {
            status::ILLEGAL_INSTRUCTION
        }
        _ => status::EXCEPTION,
    }
}

impl Runtime {
    /// Starts a runtime.
    pub fn new(settings: Settings) -> Result<Arc<Runtime>, String> {
        crate::memory::reserve_device_range()?;
        let capture = match &settings.capture {
            Some(d) => Some(crate::capture::Capture::new(d)?),
            None => None,
        };
        Ok(Arc::new(Runtime {
            card: settings.card,
            device: Device::with_code_base(crate::memory::CODE_BASE),
            memory: Memory::default(),
            notifier: Notifier::default(),
            settings,
            signals: Mutex::default(),
            kernels: Mutex::default(),
            codes: Mutex::default(),
            capture,
            queue_ids: AtomicU64::new(0),
            warned: Mutex::default(),
            intercept: OnceLock::new(),
            images: Default::default(),
        }))
    }

    /// Lets `i` run the dispatches it chooses (once; later calls are ignored).
    pub fn set_intercept(&self, i: Box<dyn Intercept>) {
        let _ = self.intercept.set(i);
    }

    /// Prints `msg` once per `key` on stderr.
    pub fn warn_once(&self, key: &str, msg: &str) {
        if lock(&self.warned).insert(key.to_string()) {
            eprintln!("amdsim: {msg}");
        }
    }

    /// A fresh queue id.
    pub fn next_queue_id(&self) -> u64 {
        self.queue_ids.fetch_add(1, Ordering::Relaxed)
    }

    /// Creates a signal with `value`.
    pub fn create_signal(&self, value: i64) -> Result<Signal, crate::memory::MemError> {
        let mut slab = lock(&self.signals);
        if slab.free.is_empty() {
            let page = self.memory.alloc_shared(&self.device, PAGE, None)?;
            for i in (0..PAGE / signal::SIGNAL_BYTES as u64).rev() {
                slab.free.push(page + i * signal::SIGNAL_BYTES as u64);
            }
        }
        let addr = slab.free.pop().unwrap_or_default();
        slab.live.insert(addr);
        // SAFETY: a slot of a page the slab owns, free until now.
        unsafe { signal::init(addr, value) };
        Ok(Signal(addr))
    }

    /// Whether `s` is a live signal of this runtime.
    pub fn is_signal(&self, s: u64) -> bool {
        lock(&self.signals).live.contains(&s)
    }

    /// Destroys a signal.
    pub fn destroy_signal(&self, s: u64) -> bool {
        let mut slab = lock(&self.signals);
        if slab.live.remove(&s) {
            slab.free.push(s);
            true
        } else {
            false
        }
    }

    /// Registers the kernels of a loaded code object by kernel object.
    pub fn register(&self, loaded: &Loaded) {
        let image = &loaded.module.image;
        self.memory
            .note_device(image.start, image.end - image.start);
        lock(&self.codes).insert(loaded.module.load_bias, Arc::new(loaded.bytes.clone()));
        let mut k = lock(&self.kernels);
        for s in &loaded.symbols {
            if let SymbolBody::Kernel(ks) = &s.body {
                k.insert(ks.object, s.clone());
            }
        }
    }

    /// Runs the kernel dispatch packet in `slot` of `queue`; `Err(status)`
    /// when the dispatch failed as it would on a GPU.
    pub fn dispatch(&self, queue: &Queue, slot: u64, p: &[u8; 64]) -> Result<(), u32> {
        let u16_at = |o: usize| u16::from_le_bytes([p[o], p[o + 1]]) as u32;
        let u32_at = |o: usize| u32::from_le_bytes(p[o..o + 4].try_into().unwrap_or_default());
        let u64_at = |o: usize| u64::from_le_bytes(p[o..o + 8].try_into().unwrap_or_default());
        let object = u64_at(32);
        let Some(sym) = lock(&self.kernels).get(&object).cloned() else {
            eprintln!(
                "amdsim: a dispatch names kernel object {object:#x}, which no loaded code object defines"
            );
            return Err(status::INVALID_CODE_OBJECT);
        };
        let SymbolBody::Kernel(k) = &sym.body else {
            return Err(status::INVALID_CODE_OBJECT);
        };
        let dims = u16_at(2) & 3;
        let group = [u16_at(4), u16_at(6), u16_at(8)].map(|g| g.max(1));
        let grid = [u32_at(12), u32_at(16), u32_at(20)].map(|g| g.max(1));
        let config = LaunchConfig {
            grid,
            group,
            args: Vec::new(),
            max_instructions: self.settings.max_instructions,
            extra_private: u32_at(24).saturating_sub(k.private_size),
            dynamic_lds: u32_at(28).saturating_sub(k.group_size),
            dimensions: Some(dims.max(1)),
            global_offset: [0; 3],
            raw_kernarg: None,
        };
        let module = &sym.module;
        let groups: [u32; 3] = std::array::from_fn(|d| grid[d].div_ceil(group[d]));
        let launch = Launch {
            kernel: k.info.clone(),
            gpu: module.gpu,
            program: module.program.clone(),
            prepared: module.prepared.clone(),
            config,
            kernarg: u64_at(40),
            packet: slot,
            queue: queue.addr,
            groups,
            wave_size: k.info.descriptor.wavefront_size(),
            printf_buffer: None,
            printf_formats: module.printf.clone(),
            image: module.image.clone(),
        };
        let pending = self.capture_before(&launch, k);
        let intercepted = self.intercept.get().and_then(|i| {
            let code = lock(&self.codes).get(&module.load_bias).cloned()?;
            i.dispatch(&self.device, module, &code, &launch)
        });
        let capture_after = || {
            if let (Some(c), Some(p)) = (&self.capture, &pending)
                && let Err(e) = c.after(&self.device, p)
            {
                self.warn_once("capture", &e);
            }
        };
        let report = match intercepted {
            Some(r) => {
                capture_after();
                return r.map_err(|e| {
                    eprintln!("amdsim: kernel {} faulted: {e}", k.info.name);
                    fault_status(&e)
                });
            }
            None => self.device.run_with(
                &launch,
                &RunOptions {
                    stop_on_fault: true,
                    ..RunOptions::default()
                },
            ),
        };
        capture_after();
        if let Some(amdgpu_sim::dispatch::Stopped::InstructionLimit(e)) = &report.stopped {
            eprintln!("amdsim: kernel {} stopped: {e}", k.info.name);
            return Err(status::EXCEPTION);
        }
        if let Some(f) = report.faults.first() {
            eprintln!(
                "amdsim: kernel {} faulted in work-group {:?}: {}",
                k.info.name, f.group, f.error
            );
            if let Some(pc) = f.error.pc() {
                let address = pc.wrapping_sub(module.load_bias);
                let code = lock(&self.codes).get(&module.load_bias).cloned();
                let line = code
                    .and_then(|c| source_line(&c, address))
                    .map(|(file, line)| format!(", {file}:{line}"))
                    .unwrap_or_default();
                eprintln!(
                    "amdsim: the faulting instruction is at {address:#x} in the kernel's code object (as llvm-objdump numbers it){line}"
                );
            }
            return Err(fault_status(&f.error));
        }
        Ok(())
    }

    /// Captures a dispatch before it runs, when capturing.
    fn capture_before(
        &self,
        launch: &Launch,
        k: &crate::loader::KernelSymbol,
    ) -> Option<crate::capture::Pending> {
        let c = self.capture.as_ref()?;
        let bias = launch.image.start;
        let code = lock(&self.codes).get(&bias).cloned()?;
        let kernarg = self
            .device
            .read(launch.kernarg, k.kernarg_size as usize)
            .unwrap_or_default();
        let regions = self
            .memory
            .all()
            .iter()
            .map(|a| (a.base, a.size, a.kind == crate::memory::Kind::Device))
            .collect();
        let d = crate::capture::Dispatch {
            kernel: &k.info.name,
            code_object: (&code, bias),
            grid: launch.config.grid,
            group: launch.config.group,
            dims: launch.config.dimensions.unwrap_or(1),
            kernarg,
            dynamic_lds: launch.config.dynamic_lds,
            extra_private: launch.config.extra_private,
            regions,
        };
        match c.before(&self.device, &d) {
            Ok(p) => Some(p),
            Err(e) => {
                self.warn_once("capture", &e);
                None
            }
        }
    }

    /// The symbol of a kernel object.
    pub fn kernel_symbol(&self, object: u64) -> Option<Arc<Symbol>> {
        lock(&self.kernels).get(&object).cloned()
    }
}

/// The source file and line of code-object address `address`, when the code object has a
/// line table that gives one (the file as the line table names it, without `./`).
fn source_line(code: &[u8], address: u64) -> Option<(String, u64)> {
    let lines = line_table(code);
    amdgpu_dwarf::program::source_at(&lines, address).map(|(f, l)| (f.to_string(), l))
}

/// The line table of a code object, for FILE:LINE in reports: empty when it has no DWARF
/// (or the DWARF cannot be read: the reports then give PCs alone).
pub fn line_table(code_object: &[u8]) -> Vec<amdgpu_dwarf::program::LineSequence> {
    let Ok(co) = amdgpu_codeobj::CodeObject::parse(code_object) else {
        return Vec::new();
    };
    if co.section_data(".debug_line").is_none() {
        return Vec::new();
    }
    amdgpu_dwarf::program::Program::load(|n| co.section_data(n), Default::default())
        .and_then(|p| p.line_sequences())
        .unwrap_or_default()
}

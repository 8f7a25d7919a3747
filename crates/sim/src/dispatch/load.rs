//! Loading a code object: its segments mapped at a load bias of their own, its dynamic
//! relocations applied, its `.text` decoded once.

use super::device::Device;
use crate::error::SimError;
use crate::exec::Prepared;
use crate::memory::PAGE;
use amdgpu_codeobj::{CodeObject, KernelDescriptor, KernelMetadata, PrintfFormat};
use amdgpu_isa::{Decoder, Gpu, Program};
use std::sync::Arc;

/// The largest loadable image of a code object the simulator maps.
pub const MAX_CODE_OBJECT: u64 = 256 << 20;

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

impl Device {
    /// Loads a code object: maps its loadable segments at a fresh load bias
    /// (so `s_getpc`-relative data such as `.rodata` is readable) and decodes
    /// `.text` once.
    pub fn load(&self, bytes: &[u8]) -> Result<Module, SimError> {
        let co = CodeObject::parse(bytes)?;
        let gpu = Gpu::try_from(co.target().gpu)?;
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
}

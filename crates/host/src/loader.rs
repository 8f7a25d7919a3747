//! Executables: code objects loaded into the simulated device with the
//! simulator's loader, and their symbols (kernels and variables) as the HSA
//! executable API presents them.

use amdgpu_codeobj::{CodeObject, SymbolKind};
use amdgpu_sim::Device;
use amdgpu_sim::dispatch::{KernelInfo, Module};
use std::sync::Arc;

/// A kernel of a loaded code object.
#[derive(Clone, Debug)]
pub struct KernelSymbol {
    /// Address of the kernel descriptor (the AQL packet's `kernel_object`).
    pub object: u64,
    /// Kernarg segment size, bytes.
    pub kernarg_size: u32,
    /// Kernarg segment alignment, bytes.
    pub kernarg_align: u32,
    /// Fixed group segment size, bytes.
    pub group_size: u32,
    /// Fixed private segment size per work-item, bytes.
    pub private_size: u32,
    /// Whether the kernel's stack is dynamic (calls, recursion).
    pub dynamic_callstack: bool,
    /// The simulator's view of the kernel.
    pub info: KernelInfo,
}

/// A variable of a loaded code object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariableSymbol {
    /// Its address in the device's address space.
    pub address: u64,
    /// Size in bytes.
    pub size: u64,
}

/// What a symbol names.
#[derive(Clone, Debug)]
pub enum SymbolBody {
    /// A kernel.
    Kernel(Box<KernelSymbol>),
    /// A global variable.
    Variable(VariableSymbol),
}

/// A symbol of an executable.
#[derive(Clone, Debug)]
pub struct Symbol {
    /// The name as the code object has it (`vector_add.kd` for a kernel's
    /// descriptor).
    pub name: String,
    /// What it names.
    pub body: SymbolBody,
    /// The loaded code object it belongs to.
    pub module: Arc<Module>,
}

/// A code object loaded for the GPU agent.
#[derive(Debug)]
pub struct Loaded {
    /// The simulator's module.
    pub module: Arc<Module>,
    /// Its symbols.
    pub symbols: Vec<Arc<Symbol>>,
    /// The ELF image as given.
    pub bytes: Vec<u8>,
}

/// Loads a code object into the device and lists its symbols.
pub fn load(dev: &Device, bytes: &[u8]) -> Result<Loaded, String> {
    let co = CodeObject::parse(bytes).map_err(|e| e.to_string())?;
    let module = Arc::new(dev.load(bytes).map_err(|e| e.to_string())?);
    let bias = module.load_bias;
    let mut symbols = Vec::new();
    for k in co.kernels() {
        let Some(info) = module.kernel(&k.name).cloned() else {
            continue;
        };
        let md = k.metadata.as_ref();
        let kd = &k.descriptor;
        symbols.push(Arc::new(Symbol {
            name: k.descriptor_symbol.clone(),
            body: SymbolBody::Kernel(Box::new(KernelSymbol {
                object: bias + k.descriptor_address,
                kernarg_size: md
                    .and_then(|m| m.kernarg_segment_size)
                    .unwrap_or(kd.kernarg_size as u64) as u32,
                kernarg_align: md.and_then(|m| m.kernarg_segment_align).unwrap_or(16) as u32,
                group_size: kd.group_segment_fixed_size,
                private_size: kd.private_segment_fixed_size,
                dynamic_callstack: md.and_then(|m| m.uses_dynamic_stack).unwrap_or(false),
                info,
            })),
            module: module.clone(),
        }));
    }
    for s in co.symbols() {
        if s.kind == SymbolKind::Object && s.global && s.section_index != 0 {
            symbols.push(Arc::new(Symbol {
                name: s.name.to_string(),
                body: SymbolBody::Variable(VariableSymbol {
                    address: bias + s.address,
                    size: s.size,
                }),
                module: module.clone(),
            }));
        }
    }
    Ok(Loaded {
        module,
        symbols,
        bytes: bytes.to_vec(),
    })
}

impl Loaded {
    /// The symbol named `name`; a kernel is also found by its name without
    /// `.kd`.
    pub fn symbol(&self, name: &str) -> Option<&Arc<Symbol>> {
        self.symbols.iter().find(|s| s.name == name).or_else(|| {
            self.symbols.iter().find(|s| {
                matches!(s.body, SymbolBody::Kernel(_)) && s.name.strip_suffix(".kd") == Some(name)
            })
        })
    }
}

//! amdgpu-codeobj: reads AMDGPU ELF code objects as clang-19, ld.lld-19 and
//! llvm-mc-19 produce them (code object v3 to v6, HSA OS ABI).
//!
//! [`CodeObject::parse`] decodes, from one byte slice and without copying it:
//!
//! - the [`Target`]: processor, `xnack`/`sramecc` settings, code object
//!   version and the LLVM target id (AMDGPU usage guide, "ELF Code Object" →
//!   "Header", "Target ID");
//! - every [`Kernel`]: its 64-byte [`KernelDescriptor`] (the `NAME.kd` symbol,
//!   usage guide "Kernel Descriptor") and its entry in the `NT_AMDGPU_METADATA`
//!   note ([`KernelMetadata`], usage guide "Code Object V3 Metadata" and later);
//! - the [`Symbol`]s (functions with their address ranges, kernels, descriptors);
//! - the `.text` bytes with their address ([`Text`]);
//! - every section's bytes by name, e.g. the DWARF sections for gimli
//!   ([`CodeObject::section_data`]).
//!
//! Every offset and size read from the file is checked; malformed input
//! yields a typed [`Error`], never a panic.
//!
//! [`write::rewrite_sections`] writes a code object back with sections replaced,
//! added or emptied (the loaded bytes untouched), for tools that rewrite debug
//! information.
//!
//! The crate owns the ELF container and what the AMDGPU code object puts in it; the
//! processors themselves are `amdgpu_isa`'s table ([`amdgpu_isa::Processor`]), its
//! only dependency in the workspace. It knows nothing of instructions' execution,
//! DWARF semantics, the simulator or the host.
//!
//! ```no_run
//! let bytes = std::fs::read("kernels/bin/gfx90a/vector_add.co").unwrap();
//! let co = amdgpu_codeobj::CodeObject::parse(&bytes).unwrap();
//! println!("{}", co.target().target_id());
//! for k in co.kernels() {
//!     println!("{} at {:#x}", k.name, k.entry_address);
//! }
//! let debug_info = co.section_data(".debug_info");
//! # let _ = debug_info;
//! ```
#![deny(missing_docs)]

pub mod descriptor;
mod error;
pub mod metadata;
pub mod reloc;
pub mod target;
#[cfg(test)]
mod tests;
pub mod write;

pub use descriptor::{
    ComputePgmRsrc1, ComputePgmRsrc2, ComputePgmRsrc3, InitialSgpr, KERNEL_DESCRIPTOR_SIZE,
    KernargPreload, KernelCodeProperties, KernelDescriptor, SgprAssignment, WorkitemIdLayout,
};
pub use error::Error;
pub use metadata::{AddressSpace, KernelArg, KernelMetadata, Metadata, PrintfFormat, ValueKind};
pub use rmpv;
pub use target::{FeatureSetting, Target};

use object::LittleEndian as LE;
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, Sym};

type Header = elf::FileHeader64<LE>;

/// `SHF_COMPRESSED`: the section holds a compression header and compressed bytes.
const SHF_COMPRESSED: u64 = 0x800;

/// One section of the code object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'data> {
    /// Index in the section header table.
    pub index: usize,
    /// Name, e.g. `.text`.
    pub name: &'data str,
    /// `sh_type`.
    pub kind: u32,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_addr`: the virtual address when loaded (0 for non-allocated sections).
    pub address: u64,
    /// `sh_offset`.
    pub offset: u64,
    /// `sh_size` (for `SHT_NOBITS` the size in memory; `data` is then empty).
    pub size: u64,
    /// The section's bytes in the file (empty for `SHT_NOBITS`).
    pub data: &'data [u8],
}

impl Section<'_> {
    /// Whether the section occupies memory when loaded (`SHF_ALLOC`).
    pub fn is_alloc(&self) -> bool {
        self.flags & u64::from(elf::SHF_ALLOC) != 0
    }

    /// Whether the section holds compressed bytes (`SHF_COMPRESSED`).
    pub fn is_compressed(&self) -> bool {
        self.flags & SHF_COMPRESSED != 0
    }
}

/// A `PT_LOAD` segment: what a loader maps at `address`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadSegment<'data> {
    /// `p_vaddr`.
    pub address: u64,
    /// `p_memsz`: bytes in memory; those past `data.len()` are zero.
    pub mem_size: u64,
    /// `p_flags` (`PF_R` 4, `PF_W` 2, `PF_X` 1).
    pub flags: u32,
    /// The `p_filesz` bytes from the file.
    pub data: &'data [u8],
}

/// The `.text` section: the machine code and the address of its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text<'data> {
    /// Virtual address of `bytes[0]`.
    pub address: u64,
    /// The machine code.
    pub bytes: &'data [u8],
}

impl Text<'_> {
    /// One past the last address of the code.
    pub fn end_address(&self) -> u64 {
        self.address.saturating_add(self.bytes.len() as u64)
    }

    /// Whether `address` lies within the code.
    pub fn contains(&self, address: u64) -> bool {
        address >= self.address && address < self.end_address()
    }

    /// The code from `address` to the end of `.text`, if `address` lies within it.
    pub fn bytes_at(&self, address: u64) -> Option<&[u8]> {
        let off = usize::try_from(address.checked_sub(self.address)?).ok()?;
        self.bytes.get(off..)
    }
}

/// What a symbol names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// A kernel's code (an `STT_FUNC` whose `NAME.kd` descriptor exists,
    /// or an `STT_AMDGPU_HSA_KERNEL`).
    Kernel,
    /// Any other function (`STT_FUNC`).
    Function,
    /// A kernel descriptor (`NAME.kd`, `STT_OBJECT`).
    KernelDescriptor,
    /// A data object (`STT_OBJECT`).
    Object,
    /// Anything else (`STT_NOTYPE`, sections, files, undefined symbols ...).
    Other,
}

/// One symbol of `.symtab` (or of `.dynsym` when the file has no `.symtab`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol<'data> {
    /// The name.
    pub name: &'data str,
    /// `st_value`: the address.
    pub address: u64,
    /// `st_size`.
    pub size: u64,
    /// What it names.
    pub kind: SymbolKind,
    /// `STB_GLOBAL`/`STB_WEAK` (true) or `STB_LOCAL` (false).
    pub global: bool,
    /// `st_shndx`: the section it is defined in (0 when undefined).
    pub section_index: u16,
}

impl Symbol<'_> {
    /// Whether `address` lies in `[self.address, self.address + self.size)`.
    pub fn contains(&self, address: u64) -> bool {
        address >= self.address && address - self.address < self.size
    }

    /// Whether the symbol names code.
    pub fn is_code(&self) -> bool {
        matches!(self.kind, SymbolKind::Kernel | SymbolKind::Function)
    }
}

/// A kernel: its descriptor, where its code starts, and its metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    /// The kernel name (the descriptor symbol without `.kd`, or the metadata `.name`).
    pub name: String,
    /// The descriptor symbol, `NAME.kd`.
    pub descriptor_symbol: String,
    /// Address of the descriptor.
    pub descriptor_address: u64,
    /// The decoded descriptor.
    pub descriptor: KernelDescriptor,
    /// Address of the first instruction: descriptor address +
    /// `KERNEL_CODE_ENTRY_BYTE_OFFSET`.
    pub entry_address: u64,
    /// Size of the kernel's code per its `STT_FUNC` symbol, when present.
    pub code_size: Option<u64>,
    /// The kernel's `amdhsa.kernels` entry (absent for assembly without
    /// `.amdgpu_metadata`).
    pub metadata: Option<KernelMetadata>,
}

impl Kernel {
    /// The wavefront size the kernel runs with (from the descriptor).
    pub fn wavefront_size(&self) -> u32 {
        self.descriptor.wavefront_size()
    }
}

/// A parsed code object, borrowing the file's bytes.
#[derive(Debug, Clone)]
pub struct CodeObject<'data> {
    data: &'data [u8],
    target: Target,
    elf_type: u16,
    sections: Vec<Section<'data>>,
    segments: Vec<LoadSegment<'data>>,
    symbols: Vec<Symbol<'data>>,
    text: Text<'data>,
    metadata: Option<Metadata>,
    kernels: Vec<Kernel>,
}

/// Checks that `start..start+len` lies within a file of `file_len` bytes.
fn check_range(
    what: impl FnOnce() -> String,
    start: u64,
    len: u64,
    file_len: usize,
) -> Result<(), Error> {
    let file_len = file_len as u64;
    match start.checked_add(len) {
        Some(end) if end <= file_len => Ok(()),
        end => Err(Error::Truncated {
            what: what(),
            start,
            end: end.unwrap_or(u64::MAX),
            len: file_len,
        }),
    }
}

fn utf8(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

impl<'data> CodeObject<'data> {
    /// Parses a code object.
    ///
    /// Accepts 64-bit little-endian `EM_AMDGPU` shared objects (`ET_DYN`, as
    /// `ld.lld -shared` writes them) and executables of the HSA OS ABI, code
    /// object v3 to v6. Relocatable objects are refused ([`Error::Relocatable`]):
    /// their descriptors' entry offsets are unresolved relocations.
    pub fn parse(data: &'data [u8]) -> Result<CodeObject<'data>, Error> {
        if data.len() < 4 || data[..4] != elf::ELFMAG {
            return Err(Error::NotElf);
        }
        check_range(|| "ELF header".into(), 0, 64, data.len())?;
        let (class, encoding) = (data[4], data[5]);
        if class != elf::ELFCLASS64 || encoding != elf::ELFDATA2LSB {
            return Err(Error::WrongClass {
                class,
                data: encoding,
            });
        }
        let header = Header::parse(data).map_err(|e| Error::elf("ELF header", e))?;
        let endian = LE;
        let machine = header.e_machine(endian);
        if machine != target::EM_AMDGPU {
            return Err(Error::WrongMachine(machine));
        }
        let os_abi = header.e_ident().os_abi;
        if os_abi != target::ELFOSABI_AMDGPU_HSA {
            return Err(Error::WrongOsAbi(os_abi));
        }
        let target = Target::from_header(header.e_ident().abi_version, header.e_flags(endian))?;
        let elf_type = header.e_type(endian);
        match elf_type {
            elf::ET_DYN | elf::ET_EXEC => {}
            elf::ET_REL => return Err(Error::Relocatable),
            other => {
                return Err(Error::Elf {
                    context: "ELF header",
                    message: format!("file type {other} is not a shared object or executable"),
                });
            }
        }

        let sections = Self::read_sections(header, data)?;
        let segments = Self::read_segments(header, data)?;
        let text = sections
            .iter()
            .find(|s| s.name == ".text")
            .map(|s| Text {
                address: s.address,
                bytes: s.data,
            })
            .ok_or(Error::MissingSection(".text"))?;
        let mut symbols = Self::read_symbols(header, data, &sections)?;
        let metadata = Self::read_metadata(header, data)?;
        let kernels = Self::find_kernels(&target, &sections, &mut symbols, metadata.as_ref())?;
        Ok(CodeObject {
            data,
            target,
            elf_type,
            sections,
            segments,
            symbols,
            text,
            metadata,
            kernels,
        })
    }

    fn read_sections(header: &Header, data: &'data [u8]) -> Result<Vec<Section<'data>>, Error> {
        let endian = LE;
        let shoff = header.e_shoff(endian);
        if shoff != 0 {
            let shnum = header
                .shnum(endian, data)
                .map_err(|e| Error::elf("section header count", e))?;
            let entsize = u64::from(header.e_shentsize(endian));
            if shnum != 0 && entsize != 64 {
                return Err(Error::Elf {
                    context: "section header table",
                    message: format!("e_shentsize {entsize} is not 64"),
                });
            }
            check_range(
                || format!("section header table ({shnum} entries)"),
                shoff,
                (shnum as u64).saturating_mul(64),
                data.len(),
            )?;
        }
        let table = header
            .sections(endian, data)
            .map_err(|e| Error::elf("section header table", e))?;
        let mut out = Vec::with_capacity(table.len());
        for (i, sh) in table.iter().enumerate() {
            let name_bytes = table
                .section_name(endian, sh)
                .map_err(|e| Error::BadSection {
                    section: format!("#{i}"),
                    reason: format!("unreadable name: {e}"),
                })?;
            let name = utf8(name_bytes).ok_or_else(|| Error::BadSection {
                section: format!("#{i}"),
                reason: "name is not UTF-8".into(),
            })?;
            let kind = sh.sh_type(endian);
            let offset = sh.sh_offset(endian);
            let size = sh.sh_size(endian);
            let bytes: &'data [u8] = if kind == elf::SHT_NOBITS || kind == elf::SHT_NULL {
                &[]
            } else {
                let end = offset.checked_add(size).filter(|&e| e <= data.len() as u64);
                match end {
                    // Both bounds are <= data.len(), so they fit in usize.
                    Some(end) => data.get(offset as usize..end as usize).unwrap_or(&[]),
                    None => {
                        return Err(Error::BadSection {
                            section: name.to_string(),
                            reason: format!(
                                "bytes {offset:#x}..{:#x} lie outside the file ({:#x} bytes)",
                                offset.saturating_add(size),
                                data.len()
                            ),
                        });
                    }
                }
            };
            out.push(Section {
                index: i,
                name,
                kind,
                flags: sh.sh_flags(endian),
                address: sh.sh_addr(endian),
                offset,
                size,
                data: bytes,
            });
        }
        Ok(out)
    }

    fn read_segments(header: &Header, data: &'data [u8]) -> Result<Vec<LoadSegment<'data>>, Error> {
        let endian = LE;
        let phoff = header.e_phoff(endian);
        if phoff != 0 {
            let phnum = header
                .phnum(endian, data)
                .map_err(|e| Error::elf("program header count", e))?;
            check_range(
                || format!("program header table ({phnum} entries)"),
                phoff,
                (phnum as u64).saturating_mul(56),
                data.len(),
            )?;
        }
        let phdrs = header
            .program_headers(endian, data)
            .map_err(|e| Error::elf("program header table", e))?;
        let mut out = Vec::new();
        for (i, ph) in phdrs.iter().enumerate() {
            if ph.p_type(endian) != elf::PT_LOAD {
                continue;
            }
            let offset = ph.p_offset(endian);
            let filesz = ph.p_filesz(endian);
            let memsz = ph.p_memsz(endian);
            check_range(
                || format!("PT_LOAD segment #{i}"),
                offset,
                filesz,
                data.len(),
            )?;
            if filesz > memsz {
                return Err(Error::Elf {
                    context: "program header table",
                    message: format!(
                        "segment #{i}: p_filesz {filesz:#x} exceeds p_memsz {memsz:#x}"
                    ),
                });
            }
            out.push(LoadSegment {
                address: ph.p_vaddr(endian),
                mem_size: memsz,
                flags: ph.p_flags(endian),
                // Checked above: offset + filesz <= data.len().
                data: data
                    .get(offset as usize..(offset + filesz) as usize)
                    .unwrap_or(&[]),
            });
        }
        Ok(out)
    }

    fn read_symbols(
        header: &Header,
        data: &'data [u8],
        sections: &[Section<'data>],
    ) -> Result<Vec<Symbol<'data>>, Error> {
        let endian = LE;
        let table = header
            .sections(endian, data)
            .map_err(|e| Error::elf("section header table", e))?;
        let kind = if sections.iter().any(|s| s.kind == elf::SHT_SYMTAB) {
            elf::SHT_SYMTAB
        } else {
            elf::SHT_DYNSYM
        };
        let symtab = table
            .symbols(endian, data, kind)
            .map_err(|e| Error::elf("symbol table", e))?;
        let mut out = Vec::new();
        for (i, sym) in symtab.iter().enumerate().skip(1) {
            let name_bytes = symtab
                .symbol_name(endian, sym)
                .map_err(|e| Error::BadSymbol {
                    symbol: format!("#{i}"),
                    reason: format!("unreadable name: {e}"),
                })?;
            let Some(name) = utf8(name_bytes) else {
                return Err(Error::BadSymbol {
                    symbol: format!("#{i}"),
                    reason: "name is not UTF-8".into(),
                });
            };
            if name.is_empty() {
                continue;
            }
            let st_type = sym.st_type();
            let shndx = sym.st_shndx(endian);
            let kind = if shndx == elf::SHN_UNDEF {
                SymbolKind::Other
            } else {
                match st_type {
                    // STT_AMDGPU_HSA_KERNEL (10) was used by code object v2.
                    elf::STT_FUNC | 10 => SymbolKind::Function,
                    elf::STT_OBJECT if name.ends_with(".kd") => SymbolKind::KernelDescriptor,
                    elf::STT_OBJECT => SymbolKind::Object,
                    _ => SymbolKind::Other,
                }
            };
            out.push(Symbol {
                name,
                address: sym.st_value(endian),
                size: sym.st_size(endian),
                kind,
                global: sym.st_bind() != elf::STB_LOCAL,
                section_index: shndx,
            });
        }
        // Functions whose descriptor exists are kernels.
        let kd_names: Vec<&str> = out
            .iter()
            .filter(|s| s.kind == SymbolKind::KernelDescriptor)
            .filter_map(|s| s.name.strip_suffix(".kd"))
            .collect();
        for s in &mut out {
            if s.kind == SymbolKind::Function && kd_names.contains(&s.name) {
                s.kind = SymbolKind::Kernel;
            }
        }
        Ok(out)
    }

    fn read_metadata(header: &Header, data: &'data [u8]) -> Result<Option<Metadata>, Error> {
        let endian = LE;
        let table = header
            .sections(endian, data)
            .map_err(|e| Error::elf("section header table", e))?;
        for sh in table.iter() {
            let Some(mut notes) = sh
                .notes(endian, data)
                .map_err(|e| Error::elf("note section", e))?
            else {
                continue;
            };
            while let Some(note) = notes.next().map_err(|e| Error::elf("note section", e))? {
                if note.name() == metadata::NOTE_OWNER
                    && note.n_type(endian) == metadata::NT_AMDGPU_METADATA
                {
                    return Metadata::parse(note.desc()).map(Some);
                }
            }
        }
        Ok(None)
    }

    /// Reads the 64 bytes of the descriptor `sym`, checked against its section.
    fn descriptor_bytes<'s>(
        sym: &Symbol<'data>,
        sections: &'s [Section<'data>],
    ) -> Result<&'data [u8], Error> {
        let bad = |reason: String| Error::BadDescriptor {
            symbol: sym.name.to_string(),
            reason,
        };
        if sym.size != KERNEL_DESCRIPTOR_SIZE as u64 {
            return Err(bad(format!(
                "symbol size is {} bytes, expected 64",
                sym.size
            )));
        }
        let sec = sections
            .get(usize::from(sym.section_index))
            .ok_or_else(|| {
                bad(format!(
                    "section index {} does not exist",
                    sym.section_index
                ))
            })?;
        let off = sym
            .address
            .checked_sub(sec.address)
            .filter(|off| {
                off.checked_add(64)
                    .is_some_and(|end| end <= sec.data.len() as u64)
            })
            .ok_or_else(|| {
                bad(format!(
                    "address {:#x}..+64 lies outside section {} ({:#x}..{:#x} with contents)",
                    sym.address,
                    sec.name,
                    sec.address,
                    sec.address.saturating_add(sec.data.len() as u64)
                ))
            })?;
        // off + 64 <= sec.data.len() was checked above.
        sec.data
            .get(off as usize..off as usize + 64)
            .ok_or_else(|| bad("descriptor bytes out of range".into()))
    }

    fn find_kernels(
        target: &Target,
        sections: &[Section<'data>],
        symbols: &mut [Symbol<'data>],
        metadata: Option<&Metadata>,
    ) -> Result<Vec<Kernel>, Error> {
        let make = |kd_sym: &Symbol<'data>,
                    name: String,
                    md: Option<KernelMetadata>,
                    symbols: &[Symbol<'data>]| {
            let bytes = Self::descriptor_bytes(kd_sym, sections)?;
            let descriptor = KernelDescriptor::parse(bytes, target.gpu)?;
            let entry_address =
                descriptor
                    .entry_address(kd_sym.address)
                    .ok_or_else(|| Error::BadDescriptor {
                        symbol: kd_sym.name.to_string(),
                        reason: format!(
                            "entry offset {} from {:#x} overflows the address space",
                            descriptor.kernel_code_entry_byte_offset, kd_sym.address
                        ),
                    })?;
            let code_size = symbols
                .iter()
                .find(|s| s.is_code() && s.address == entry_address && s.name == name)
                .map(|s| s.size);
            Ok::<Kernel, Error>(Kernel {
                name,
                descriptor_symbol: kd_sym.name.to_string(),
                descriptor_address: kd_sym.address,
                descriptor,
                entry_address,
                code_size,
                metadata: md,
            })
        };
        let mut kernels = Vec::new();
        let mut used = vec![false; symbols.len()];
        if let Some(md) = metadata {
            for km in &md.kernels {
                let Some((idx, sym)) = symbols
                    .iter()
                    .enumerate()
                    .find(|(_, s)| s.name == km.symbol && s.section_index != elf::SHN_UNDEF)
                else {
                    return Err(Error::MissingDescriptor {
                        kernel: km.name.clone(),
                        symbol: km.symbol.clone(),
                    });
                };
                if let Some(u) = used.get_mut(idx) {
                    *u = true;
                }
                kernels.push(make(sym, km.name.clone(), Some(km.clone()), symbols)?);
            }
        }
        for (idx, s) in symbols.iter().enumerate() {
            if s.kind == SymbolKind::KernelDescriptor && !used.get(idx).copied().unwrap_or(true) {
                let name = s.name.strip_suffix(".kd").unwrap_or(s.name).to_string();
                kernels.push(make(s, name, None, symbols)?);
            }
        }
        // A kernel's code symbol may carry a different name than its
        // descriptor (metadata `.name` vs `.symbol`): mark by entry address.
        for k in &kernels {
            for s in symbols.iter_mut() {
                if s.kind == SymbolKind::Function && s.address == k.entry_address {
                    s.kind = SymbolKind::Kernel;
                }
            }
        }
        Ok(kernels)
    }

    /// The whole file.
    pub fn data(&self) -> &'data [u8] {
        self.data
    }

    /// What the code object was built for.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The code object version (3 to 6).
    pub fn code_object_version(&self) -> u8 {
        self.target.code_object_version
    }

    /// `e_type`: `ET_DYN` (3) or `ET_EXEC` (2).
    pub fn elf_type(&self) -> u16 {
        self.elf_type
    }

    /// Every kernel: first those of the metadata, in its order, then
    /// descriptors without metadata, in symbol order.
    pub fn kernels(&self) -> &[Kernel] {
        &self.kernels
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The symbols (from `.symtab`, or `.dynsym` when stripped), in table order.
    pub fn symbols(&self) -> &[Symbol<'data>] {
        &self.symbols
    }

    /// The function or kernel whose address range contains `address`.
    pub fn function_containing(&self, address: u64) -> Option<&Symbol<'data>> {
        self.symbols
            .iter()
            .find(|s| s.is_code() && s.contains(address))
    }

    /// The `.text` section.
    pub fn text(&self) -> &Text<'data> {
        &self.text
    }

    /// The decoded `NT_AMDGPU_METADATA` note, if the file has one.
    pub fn metadata(&self) -> Option<&Metadata> {
        self.metadata.as_ref()
    }

    /// Every section.
    pub fn sections(&self) -> &[Section<'data>] {
        &self.sections
    }

    /// The `PT_LOAD` segments: the image a loader maps.
    pub fn load_segments(&self) -> &[LoadSegment<'data>] {
        &self.segments
    }

    /// The bytes of the first section named `name` (e.g. `.debug_info`), ready
    /// to wrap in a `gimli::EndianSlice` (little-endian).
    ///
    /// `None` when the section is absent, has no file contents
    /// (`SHT_NOBITS`), or is compressed (`SHF_COMPRESSED`, not supported:
    /// see [`Section::is_compressed`]).
    pub fn section_data(&self, name: &str) -> Option<&'data [u8]> {
        self.sections
            .iter()
            .find(|s| s.name == name)
            .filter(|s| s.kind != elf::SHT_NOBITS && !s.is_compressed())
            .map(|s| s.data)
    }

    /// The names of the DWARF sections present (`.debug_*`).
    pub fn debug_section_names(&self) -> impl Iterator<Item = &'data str> + '_ {
        self.sections
            .iter()
            .filter(|s| s.name.starts_with(".debug_"))
            .map(|s| s.name)
    }

    /// Reads `len` bytes at virtual address `address` from the loaded image
    /// (`PT_LOAD` segments; bytes between file size and memory size are zero).
    /// `None` when the range is not wholly inside one segment.
    pub fn read_memory(&self, address: u64, len: u64) -> Option<Vec<u8>> {
        let seg = self.segments.iter().find(|s| {
            address >= s.address
                && address
                    .checked_add(len)
                    .is_some_and(|end| end <= s.address.saturating_add(s.mem_size))
        })?;
        let start = address - seg.address;
        let mut out = vec![0u8; usize::try_from(len).ok()?];
        let file = seg.data.get(usize::try_from(start).ok()?..).unwrap_or(&[]);
        let n = file.len().min(out.len());
        out.get_mut(..n)?.copy_from_slice(file.get(..n)?);
        Some(out)
    }
}

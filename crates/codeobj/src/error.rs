//! The typed errors of the code object loader.

/// Everything that can be wrong with a code object.
///
/// Every variant says what was wrong and where (offset, section, symbol or
/// metadata path), so a message is actionable without a hex dump.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file does not start with the ELF magic `\x7fELF`.
    #[error("not an ELF file (no \\x7fELF magic)")]
    NotElf,
    /// The ELF file is not 64-bit little-endian, as every AMDGPU code object is.
    #[error("not a 64-bit little-endian ELF file (class {class}, data encoding {data})")]
    WrongClass {
        /// `e_ident[EI_CLASS]`.
        class: u8,
        /// `e_ident[EI_DATA]`.
        data: u8,
    },
    /// `e_machine` is not `EM_AMDGPU` (224).
    #[error("ELF machine {0} is not EM_AMDGPU (224)")]
    WrongMachine(u16),
    /// `e_ident[EI_OSABI]` is not `ELFOSABI_AMDGPU_HSA` (64).
    #[error("ELF OS ABI {0} is not ELFOSABI_AMDGPU_HSA (64); only HSA code objects are supported")]
    WrongOsAbi(u8),
    /// `e_ident[EI_ABIVERSION]` names a code object version this loader does not read.
    #[error(
        "unsupported code object version: ELF ABI version {abi_version} (supported: 1..=4, i.e. code object v3..v6)"
    )]
    UnsupportedVersion {
        /// `e_ident[EI_ABIVERSION]`.
        abi_version: u8,
    },
    /// The `EF_AMDGPU_MACH` field of `e_flags` names no GPU this loader knows.
    #[error("unknown GPU in e_flags: EF_AMDGPU_MACH {mach:#05x}{}", name.map(|n| format!(" ({n}, not supported)")).unwrap_or_default())]
    UnknownGpu {
        /// The `EF_AMDGPU_MACH` value (`e_flags & 0xff`).
        mach: u32,
        /// The processor's name when the value is assigned but not supported here.
        name: Option<&'static str>,
    },
    /// The file is a relocatable object (`ET_REL`); kernel descriptor entry
    /// offsets and addresses are only final after linking.
    #[error("relocatable object (ET_REL): link it first, e.g. `ld.lld-19 -shared x.o -o x.co`")]
    Relocatable,
    /// The file ends before a structure it declares.
    #[error(
        "truncated file: {what} needs bytes {start:#x}..{end:#x} but the file has {len:#x} bytes"
    )]
    Truncated {
        /// The structure that does not fit.
        what: String,
        /// Its first byte offset.
        start: u64,
        /// One past its last byte offset.
        end: u64,
        /// The file length.
        len: u64,
    },
    /// A section header is inconsistent (offset/size out of the file, bad name, ...).
    #[error("bad section {section}: {reason}")]
    BadSection {
        /// The section name, or `#index` when the name itself is unreadable.
        section: String,
        /// What is wrong.
        reason: String,
    },
    /// A required section is absent.
    #[error("missing section {0}")]
    MissingSection(&'static str),
    /// Another ELF structure is malformed (reported by the ELF reader).
    #[error("malformed ELF: {context}: {message}")]
    Elf {
        /// What was being read.
        context: &'static str,
        /// The reader's message.
        message: String,
    },
    /// A symbol is inconsistent (outside its section, bad name, ...).
    #[error("bad symbol {symbol}: {reason}")]
    BadSymbol {
        /// The symbol name, or `#index`.
        symbol: String,
        /// What is wrong.
        reason: String,
    },
    /// A kernel named in the metadata has no `NAME.kd` descriptor symbol.
    #[error("kernel {kernel}: missing kernel descriptor symbol {symbol}")]
    MissingDescriptor {
        /// The kernel name (`.name`).
        kernel: String,
        /// The descriptor symbol looked for (`.symbol`).
        symbol: String,
    },
    /// A `.kd` symbol does not describe exactly 64 bytes inside a section with contents.
    #[error("kernel descriptor {symbol}: {reason}")]
    BadDescriptor {
        /// The descriptor symbol.
        symbol: String,
        /// What is wrong.
        reason: String,
    },
    /// A descriptor's byte slice is not 64 bytes long.
    #[error("kernel descriptor must be 64 bytes, got {0}")]
    DescriptorLength(usize),
    /// The `NT_AMDGPU_METADATA` note is not valid MessagePack.
    #[error("corrupt MessagePack in NT_AMDGPU_METADATA note: {0}")]
    CorruptMetadata(String),
    /// The sections cannot be rewritten ([`crate::write::rewrite_sections`]): the
    /// section header table is not one the writer handles, or relocations apply to a
    /// section to rewrite.
    #[error("ELF section rewrite: {0}")]
    Rewrite(String),
    /// An `amdhsa.printf` string is not `ID:N:S1:...:SN:FORMAT`.
    #[error("amdhsa.printf entry `{0}` is not ID:N:SIZES...:FORMAT")]
    BadPrintf(String),
    /// The metadata decodes but does not have the documented shape.
    #[error("metadata of wrong shape at {path}: {reason}")]
    MetadataShape {
        /// Where in the metadata, e.g. `amdhsa.kernels[1].args[0].offset`.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

impl Error {
    /// Builds an [`Error::Elf`] from the ELF reader's error.
    pub(crate) fn elf(context: &'static str, e: object::read::Error) -> Self {
        Error::Elf {
            context,
            message: e.to_string(),
        }
    }

    /// Builds an [`Error::MetadataShape`].
    pub(crate) fn shape(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::MetadataShape {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

//! Errors of the simulator: memory faults, unimplemented or invalid
//! instructions, the instruction cap, and bad dispatch input.

use std::fmt;

/// The address space an access was made in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global memory (also FLAT addresses outside the apertures).
    Global,
    /// The work-group's local data share.
    Lds,
    /// The wave's private (scratch) memory.
    Private,
    /// The device's global data share (GDS).
    Gds,
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Space::Global => "global",
            Space::Lds => "LDS",
            Space::Private => "private",
            Space::Gds => "GDS",
        })
    }
}

/// Why a memory access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// No allocation covers the address.
    Unmapped,
    /// The address is misaligned for an atomic.
    Misaligned,
    /// The access runs past the end of the LDS or private segment.
    OutOfBounds,
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FaultKind::Unmapped => "unmapped address",
            FaultKind::Misaligned => "misaligned address",
            FaultKind::OutOfBounds => "out of bounds",
        })
    }
}

/// A failed access to simulator memory, before it is attributed to a wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} in {space} memory at 0x{addr:x} ({len} bytes)")]
pub struct MemFault {
    /// What went wrong.
    pub kind: FaultKind,
    /// Where.
    pub space: Space,
    /// The (space-relative) byte address.
    pub addr: u64,
    /// The access size in bytes.
    pub len: u64,
}

/// Where in the dispatch something happened: the wave and the instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Work-group id (x, y, z).
    pub group: [u32; 3],
    /// Wave number inside the work-group.
    pub wave: u32,
    /// Program counter (guest address of the instruction).
    pub pc: u64,
    /// The instruction in disassembler syntax.
    pub inst: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "group ({},{},{}) wave {} pc 0x{:x} `{}`",
            self.group[0], self.group[1], self.group[2], self.wave, self.pc, self.inst
        )
    }
}

/// Every error the simulator reports.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A lane accessed memory it may not.
    #[error("memory fault: {fault}, lane {lane}, at {at}")]
    Fault {
        /// The access.
        fault: MemFault,
        /// The lane that made it.
        lane: u32,
        /// The wave and instruction.
        at: Box<Location>,
    },
    /// The instruction decoded but the simulator does not execute it.
    #[error("unimplemented instruction `{name}` at {at}")]
    Unimplemented {
        /// Canonical mnemonic.
        name: String,
        /// The wave and instruction.
        at: Box<Location>,
    },
    /// The word at the PC is not a valid instruction.
    #[error("invalid instruction at {at}")]
    InvalidInstruction {
        /// The wave and instruction.
        at: Box<Location>,
    },
    /// The PC left the decoded code or points inside an instruction.
    #[error("pc 0x{pc:x} is not the start of a decoded instruction (group {group:?}, wave {wave})")]
    BadPc {
        /// The program counter.
        pc: u64,
        /// Work-group id.
        group: [u32; 3],
        /// Wave number in the group.
        wave: u32,
    },
    /// An instruction's operand or field is outside what the simulator models.
    #[error("unsupported operand or field ({what}) at {at}")]
    Unsupported {
        /// What is unsupported.
        what: String,
        /// The wave and instruction.
        at: Box<Location>,
    },
    /// `s_trap`: the kernel asked for its trap handler (there is none; the
    /// OpenCL `__builtin_trap` and failed device assertions end here).
    #[error("trap {id} (s_trap) at {at}")]
    Trap {
        /// The trap id (`s_trap`'s immediate, bits 7:0).
        id: u8,
        /// The wave and instruction.
        at: Box<Location>,
    },
    /// `s_sethalt` with bit 0 set: the wave stopped issuing instructions
    /// and only a debugger or the host could resume it. Reported rather than
    /// treated as the end of the wave, which would hide the rest of the
    /// kernel's work.
    #[error("wave halted (s_sethalt) at {at}")]
    Halted {
        /// The wave and instruction.
        at: Box<Location>,
    },
    /// An illegal-instruction exception (`v_illegal`): with no trap
    /// handler, the wave stops here.
    #[error("illegal-instruction exception (v_illegal) at {at}")]
    IllegalInstruction {
        /// The wave and instruction.
        at: Box<Location>,
    },
    /// A branch or jump whose target is not the start of an instruction.
    #[error("branch to 0x{target:x}, which is not an instruction, at {at}")]
    BadBranch {
        /// The target address.
        target: u64,
        /// The wave and the branch.
        at: Box<Location>,
    },
    /// An instruction names a vector register beyond the kernel's allocation
    /// (the descriptor's VGPR count), as no wave on hardware could.
    #[error("register {register} is beyond the kernel's {allocated} VGPRs at {at}")]
    RegisterBeyondAllocation {
        /// The register operand.
        register: String,
        /// VGPRs allocated to the wave.
        allocated: u32,
        /// The wave and instruction.
        at: Box<Location>,
    },
    /// A wave ran more instructions than the configured cap.
    #[error("instruction limit of {limit} reached at {at}")]
    InstructionLimit {
        /// The cap.
        limit: u64,
        /// Where the wave was.
        at: Box<Location>,
    },
    /// Every unfinished wave of a work-group waits at a barrier that cannot be
    /// released, or a wave waits while others have ended in a way that leaves it stuck.
    #[error("deadlock in work-group {group:?}: {what}")]
    Deadlock {
        /// Work-group id.
        group: [u32; 3],
        /// Explanation.
        what: String,
    },
    /// A host-side memory operation failed.
    #[error("host access: {0}")]
    Host(MemFault),
    /// Memory could not be allocated.
    #[error("allocation of {size} bytes failed: {why}")]
    Alloc {
        /// Requested size.
        size: u64,
        /// Why.
        why: &'static str,
    },
    /// The code object could not be parsed.
    #[error("code object: {0}")]
    CodeObject(#[from] amdgpu_codeobj::Error),
    /// The code object targets a GPU the decoder does not support.
    #[error("code object: {0}")]
    UnsupportedGpu(#[from] amdgpu_isa::UnknownGpu),
    /// The code object's loadable image is larger than the simulator maps.
    #[error("code object: its loadable image spans {size} bytes (at most {max})")]
    ImageTooLarge {
        /// Bytes from address 0 to the end of the highest segment.
        size: u64,
        /// [`crate::dispatch::MAX_CODE_OBJECT`].
        max: u64,
    },
    /// A dynamic relocation of a code object cannot be applied (a type the
    /// loader does not know, an undefined symbol, or a place outside the
    /// image): loading it anyway would leave a wrong address in its data.
    #[error("code object relocation at {offset:#x} (R_AMDGPU type {kind}): {why}")]
    Relocation {
        /// The link-time address to patch.
        offset: u64,
        /// The relocation type.
        kind: u32,
        /// Why it cannot be applied.
        why: String,
    },
    /// The dispatch request is inconsistent (arguments, sizes, kernel name).
    #[error("dispatch: {0}")]
    Dispatch(#[from] DispatchError),
}

impl SimError {
    /// The instruction's location, when the error names one.
    fn location_mut(&mut self) -> Option<&mut Location> {
        match self {
            SimError::Fault { at, .. }
            | SimError::Unimplemented { at, .. }
            | SimError::InvalidInstruction { at }
            | SimError::Unsupported { at, .. }
            | SimError::Trap { at, .. }
            | SimError::Halted { at }
            | SimError::IllegalInstruction { at, .. }
            | SimError::BadBranch { at, .. }
            | SimError::RegisterBeyondAllocation { at, .. }
            | SimError::InstructionLimit { at, .. } => Some(at),
            _ => None,
        }
    }

    /// The PC the error names, if any (a load address).
    pub fn pc(&self) -> Option<u64> {
        match self {
            SimError::BadPc { pc, .. } => Some(*pc),
            e => e.clone().location_mut().map(|l| l.pc),
        }
    }

    /// The error with its PC given as an address of the code object loaded
    /// at `bias` (what `llvm-objdump` and `amdsim disasm` show) instead of a
    /// load address.
    pub fn rebased(&self, bias: u64) -> SimError {
        let mut e = self.clone();
        if let SimError::BadPc { pc, .. } = &mut e {
            *pc = pc.wrapping_sub(bias);
        } else if let Some(l) = e.location_mut() {
            l.pc = l.pc.wrapping_sub(bias);
        }
        e
    }
}

/// Why a dispatch request cannot be launched.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DispatchError {
    /// The module has no kernel of that name.
    #[error("no kernel `{name}` (kernels: {})", available.join(", "))]
    NoKernel {
        /// The name asked for.
        name: String,
        /// The kernels the module has.
        available: Vec<String>,
    },
    /// A grid or work-group size is zero.
    #[error("zero size in grid {grid:?} or work-group {group:?}")]
    ZeroSize {
        /// The grid, in work-items.
        grid: [u32; 3],
        /// The work-group size.
        group: [u32; 3],
    },
    /// The work-group has more work-items than a work-group can.
    #[error("work-group of {items} work-items (at most 1024)")]
    GroupTooLarge {
        /// Work-items per group.
        items: u64,
    },
    /// The dispatch would run more work-groups than the simulator counts.
    #[error("{groups} work-groups (grid {grid:?} / work-group {group:?}); at most {max}")]
    TooManyGroups {
        /// The number of work-groups.
        groups: u128,
        /// The grid.
        grid: [u32; 3],
        /// The work-group size.
        group: [u32; 3],
        /// The limit.
        max: u64,
    },
    /// The work-group needs more LDS than a work-group has.
    #[error("{bytes} bytes of LDS per work-group (at most {max})")]
    LdsTooLarge {
        /// Fixed plus dynamic LDS.
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// A work-item needs more private memory than the simulator provides.
    #[error("{bytes} private bytes per work-item (at most {max})")]
    PrivateTooLarge {
        /// Fixed plus extra private bytes.
        bytes: u64,
        /// The limit.
        max: u64,
    },
    /// The work dimension is not 1, 2 or 3.
    #[error("{0} dimensions (a dispatch has 1, 2 or 3)")]
    BadDimensions(u32),
    /// The grid or work-group extends beyond the declared work dimension.
    #[error("a {dims}-dimensional dispatch with grid {grid:?} and work-group {group:?}")]
    DimensionMismatch {
        /// The declared work dimension.
        dims: u32,
        /// The grid.
        grid: [u32; 3],
        /// The work-group size.
        group: [u32; 3],
    },
    /// The kernarg segment is larger than the simulator accepts.
    #[error("kernarg segment of {size} bytes (at most {max})")]
    KernargTooLarge {
        /// Its size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// Arguments were given for a kernel without metadata.
    #[error("kernel `{0}` has no metadata: its arguments cannot be placed")]
    NoMetadata(String),
    /// The number of arguments differs from the kernel's.
    #[error("kernel `{kernel}` takes {expected} arguments, {given} given")]
    ArgumentCount {
        /// The kernel.
        kernel: String,
        /// Explicit arguments in its metadata.
        expected: usize,
        /// Values given.
        given: usize,
    },
    /// An argument value has the wrong size.
    #[error("argument {index} (`{name}`) is {expected} bytes, the value given has {given}")]
    ArgumentSize {
        /// Position among the explicit arguments.
        index: usize,
        /// Its name in the metadata (empty when it has none).
        name: String,
        /// Its size in the metadata.
        expected: u64,
        /// The value's size.
        given: u64,
    },
    /// An argument lies outside the kernarg segment.
    #[error("argument at offset {offset} ({size} bytes) outside the kernarg segment")]
    ArgumentOutsideKernarg {
        /// Its offset.
        offset: u64,
        /// Its size.
        size: u64,
    },
    /// A work-group id outside the grid was asked for.
    #[error("work-group {id:?} outside the grid of {groups:?} work-groups")]
    GroupOutsideGrid {
        /// The id asked for.
        id: [u32; 3],
        /// Work-groups per dimension.
        groups: [u32; 3],
    },
    /// A kernel that uses GWS or the ordered count runs with every
    /// work-group resident at once, and the grid has more waves than that
    /// allows.
    #[error(
        "the kernel uses global wave sync or the ordered count, so all its work-groups run together, \
         but the grid has {waves} waves (at most {max})"
    )]
    TooManyCoresident {
        /// Waves of the grid.
        waves: u64,
        /// The most that run together ([`crate::dispatch::MAX_CORESIDENT_WAVES`]).
        max: u64,
    },
    /// A wave number that the work-group does not have.
    #[error("no wave {wave} in work-group {group:?}")]
    NoWave {
        /// The wave number.
        wave: u32,
        /// The work-group.
        group: [u32; 3],
    },
}

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
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Space::Global => "global",
            Space::Lds => "LDS",
            Space::Private => "private",
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
    /// The code object could not be used.
    #[error("code object: {0}")]
    CodeObject(String),
    /// The dispatch request is inconsistent (arguments, sizes, kernel name).
    #[error("dispatch: {0}")]
    Dispatch(String),
}

impl From<amdgpu_codeobj::Error> for SimError {
    fn from(e: amdgpu_codeobj::Error) -> Self {
        SimError::CodeObject(e.to_string())
    }
}

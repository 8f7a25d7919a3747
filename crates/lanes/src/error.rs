//! Errors of the debugger layer.

use crate::target::WaveTargetError;
use amdgpu_dwarf::program::ProgramError;
use amdgpu_sim::SimError;

/// Something the debugger could not do, and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The code object could not be parsed.
    #[error("code object: {0}")]
    CodeObject(String),
    /// The code object has no `.debug_info`.
    #[error("the code object has no DWARF (.debug_info); build it with -g")]
    NoDebugInfo,
    /// The DWARF program data could not be read.
    #[error("{0}")]
    Program(#[from] ProgramError),
    /// The line table could not be read.
    #[error("line table: {0}")]
    Line(String),
    /// No statement of the line table starts at this line.
    #[error("no code for {file}:{line} in the line table")]
    NoCodeForLine {
        /// The file name (suffix) asked for.
        file: String,
        /// The line.
        line: u64,
    },
    /// The simulator reported an error.
    #[error("simulator: {0}")]
    Sim(#[from] SimError),
    /// Nothing is stopped (the dispatch has not started, or has finished).
    #[error("no wave is stopped")]
    NotStopped,
    /// The wave or lane does not exist.
    #[error("{0}")]
    Wave(#[from] WaveTargetError),
    /// No variable of this name is in scope at the stopped PC.
    #[error("no variable `{name}` in scope at pc {pc:#x}")]
    NoVariable {
        /// The name.
        name: String,
        /// Link-time PC.
        pc: u64,
    },
    /// The variable has neither DW_AT_location nor DW_AT_const_value.
    #[error("variable `{0}` has no location")]
    NoLocation(String),
    /// The variable's location list has no entry for the PC (optimised out here).
    #[error("variable `{name}` is not available at pc {pc:#x}")]
    NotAtPc {
        /// The name.
        name: String,
        /// Link-time PC.
        pc: u64,
    },
    /// The variable's type has no DW_AT_byte_size.
    #[error("the size of variable `{0}` is unknown")]
    UnknownSize(String),
    /// A write of the wrong number of bytes.
    #[error("variable `{name}` is {size} bytes, {given} given")]
    SizeMismatch {
        /// The name.
        name: String,
        /// Its size.
        size: u64,
        /// Bytes given.
        given: usize,
    },
    /// Decoding or evaluating the location expression failed.
    #[error("variable `{name}`: {error}")]
    Dwarf {
        /// The name.
        name: String,
        /// The evaluator's error.
        error: amdgpu_dwarf::Error,
    },
    /// Reading or writing through the location failed.
    #[error("variable `{name}`: {error}")]
    Access {
        /// The name.
        name: String,
        /// What went wrong.
        error: amdgpu_dwarf::ErrorKind,
    },
    /// Part of the value lies in undefined storage (DW_OP_piece of nothing).
    #[error("byte {byte} of variable `{name}` is undefined")]
    Undefined {
        /// The name.
        name: String,
        /// The first undefined byte.
        byte: usize,
    },
    /// The code object's functions could not be analysed for lane positions.
    #[error("lane reconstruction: {0}")]
    Reconstruction(String),
    /// A caller's frame could not be reached through the call frame information.
    #[error("frame {frame}: {why}")]
    Frame {
        /// The frame asked for (0: the innermost).
        frame: u32,
        /// Why not.
        why: String,
    },
    /// A write in a caller's frame (its registers are where the callee saved them).
    #[error("variables of a caller's frame (frame {0}) are read-only; select frame 0 to write")]
    CallerFrameWrite(u32),
}

//! Lane service and the bridge between a stopped simulated wave and the DWARF evaluator.
//!
//! `amdgpu-dwarf` knows nothing of the simulator and `amdgpu-sim` nothing of DWARF; this
//! crate is the one place that knows both:
//!
//! - [`target::WaveTarget`] answers the evaluator's [`amdgpu_dwarf::Target`] trait for one
//!   wave of a stopped [`amdgpu_sim::debug::Session`], focused on one lane: registers by
//!   AMDGPU DWARF number, memory by hardware space (global, LDS, the wave's swizzled
//!   scratch), generic addresses classified by the simulator's apertures. Reads and writes.
//! - [`image::Image`] holds a code object's DWARF program data
//!   ([`amdgpu_dwarf::program::Program`]) and finds the addresses of a source line.
//! - [`debugger::Debugger`] runs a dispatch under a session: breakpoints by line or
//!   address, the variables in scope at the stopped PC, their locations evaluated for a
//!   chosen lane, their bytes read and written.
//! - [`service::LaneService`] says where every lane of a stopped wave conceptually is, from
//!   the code object's lane attributes ([`lane_pc`]) or the static reconstruction
//!   ([`regions`]), which [`annotate`] can write back into a code object as DWARF.
//! - [`stepper::Stepper`] is the stepping engine (continue, instruction and line steps of
//!   a focused wave, lane views) that the interactive debugger, the scenario runner
//!   ([`scenario`]) and `amdsim lanes` drive; [`svg`] draws what a recorded wave did.
//!
//! Every module, in the order they build on each other:
//!
//! - [`error`]: the typed [`Error`] of the debugger layer;
//! - [`target`]: a stopped wave as the evaluator's target ([`target::WaveTarget`]);
//! - [`image`]: a code object's DWARF (units, DIEs, line table, CFI) and source lines;
//! - [`frames`]: callers' frames through the call frame information, as targets of their
//!   own;
//! - [`regions`]: the static reconstruction, per function, of the EXEC regions and where
//!   each saved mask lives at every PC;
//! - [`lane_pc`]: lane positions from `DW_AT_LLVM_lane_pc` / `DW_AT_LLVM_active_lane`,
//!   through the callers' frames;
//! - [`service`]: [`service::LaneService`], per lane Active, Divergent, NotEntered, Outside
//!   or Finished, from the DWARF or the reconstruction, both compared when both exist;
//! - [`debugger`]: breakpoints, run and step, variables ([`debugger::Debugger`]);
//! - [`annotate`]: the reconstruction written into a code object as DWARF procedures,
//!   location lists and CFI (`amdsim annotate-lanes`), through the code object writer;
//! - [`stepper`]: the stepping engine;
//! - [`scenario`]: the RON stepping harness over the engine;
//! - [`svg`]: the divergence picture.
//!
//! The crate is the one place that knows both the device (`amdgpu-sim`) and the DWARF
//! evaluator (`amdgpu-dwarf`); it also uses the instruction model (`amdgpu-isa`) and the
//! code-object reader and writer (`amdgpu-codeobj`). It must not depend on the host
//! (`amdsim-host`, `amdsim-hsa`), on the interactive debugger or on the command-line
//! tool: front ends depend on it, not the reverse.
//!
//! # Reading clang-19 output
//!
//! clang-19 at `-O0 -g` describes a private variable as
//! `DW_OP_fbreg N, DW_OP_lit1, DW_OP_swap, DW_OP_xderef` with `DW_AT_frame_base` =
//! `DW_OP_regx SGPR33`. Read by the extension's text this is ill-formed; the producer
//! means: the frame-base SGPR holds a *wave-scaled* scratch offset (MUBUF scratch through
//! the private segment buffer: lane offset times wave size), `N` is a lane offset from it,
//! and `DW_OP_xderef` with address space 1 (clang's numbering, where 1 is private and 2
//! local, unlike the DW_ASPACE table where 1 is generic) *names* the lane's private memory
//! rather than reading it. The evaluator reads it so under
//! [`amdgpu_dwarf::Compat::clang19`]`(wave_scaled)`; [`debugger::Debugger`] selects it with
//! `wave_scaled` = the kernel descriptor's `ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER`. The
//! result is a `DW_ASPACE_AMDGPU_private_lane` location, which the evaluator swizzles into
//! the wave's backing store and this crate reads from the simulated wave's scratch.
//!
//! At `-O2 -g` clang-19 promotes variables to registers but keeps the declaration's
//! private-address suffix after the register: `DW_OP_bregx VGPRn+0, DW_OP_lit1,
//! DW_OP_swap, DW_OP_xderef` (`DW_OP_regx` and SGPRs likewise), and computed values as
//! `<value ops>, DW_OP_lit1, DW_OP_swap, DW_OP_xderef, DW_OP_stack_value`. Read literally,
//! the register's value would become a private address and the variable garbage (or an
//! unmapped read). The producer means the register *is* the variable, so
//! [`amdgpu_dwarf::Compat::clang19`] reads it that way
//! ([`amdgpu_dwarf::eval::Compat::private_suffix_on_values`] has the full rule):
//!
//! - `DW_OP_bregx R+0` or `DW_OP_regx R` + suffix: register `R` itself, for a VGPR (or
//!   AGPR) the focused lane's 4-byte element (clang-19 writes no
//!   `DW_OP_LLVM_push_lane`); readable and writable, bounded to the element;
//! - `DW_OP_bregx R+D` + suffix: the element's value plus `D` (read-only);
//! - value operations + suffix + `DW_OP_stack_value`: the value they compute, a VGPR read
//!   by `DW_OP_breg*` being the focused lane's element;
//! - `DW_OP_fbreg N` + suffix (the `-O0` form above), or `DW_OP_breg*` of the register
//!   `DW_AT_frame_base` names: private memory, exactly as before;
//! - anything else carrying the suffix, and `DW_OP_entry_value` (a kernel has no caller
//!   to recover it from), is refused with [`amdgpu_dwarf::ErrorKind::ValueNotKnown`]
//!   instead of a guessed value.
//!
//! Where clang-19 gives no location for the PC the debugger says so
//! ([`Error::NotAtPc`], [`Error::NoLocation`]); a frame-base location in a kernel without
//! `DW_AT_frame_base` (clang-19 -O2 omits it) is `Unavailable`. The crate's
//! `o2_variables` test reads every variable at every statement of every `-O2 -g` kernel
//! on every target and compares with what the kernel computes.
//!
//! Code addresses are link-time addresses throughout (the DWARF is not relocated): the
//! target reports the simulator's PC minus the module's load bias.
#![deny(missing_docs)]

pub mod annotate;
pub mod debugger;
pub mod error;
pub mod frames;
pub mod image;
pub mod lane_pc;
pub mod regions;
pub mod scenario;
pub mod service;
pub mod stepper;
pub mod svg;
pub mod target;

pub use debugger::{Debugger, Event};
pub use error::Error;
pub use image::{Image, LineRow};
pub use target::{WaveTarget, WaveTargetError};

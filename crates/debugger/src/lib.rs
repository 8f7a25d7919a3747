//! amdsim's interactive debugger: gdb-style commands (`break`, `run`, `continue`,
//! `step`, `next`, `stepi`, `info lanes`, `print`, ...) over the lane-stepping engine
//! ([`amdgpu_lanes::stepper::Stepper`]).
//!
//! One [`Frontend`] serves two situations:
//!
//! - **one dispatch** ([`Mode::Dispatch`], `amdsim debug DISPATCH.ron`): the session
//!   is the dispatch, from its first instruction to its end;
//! - **a program** ([`Mode::Program`], `amdsim debug -- PROGRAM`): the front end lives
//!   inside amdsim's HSA runtime, in the program's process. Breakpoints are set before
//!   any code is loaded ([`Frontend::prelude`]) and resolved against each dispatch's
//!   code object ([`Frontend::dispatch`]); a dispatch where none resolves runs at full
//!   speed, the host part of the program runs freely, and the prompt comes back when a
//!   wave reaches a breakpoint.
//!
//! [`dap`] serves the same front end over the Debug Adapter Protocol (`amdsim dap`), and
//! reaches one inside a HIP program through [`dap::bridge`].
//!
//! Commands come from an [`Input`]: a terminal (with a prompt), a script or standard
//! input (each command echoed after the prompt, so a transcript reads like a session).
//!
//! The crate owns the interactive front end of the stepping engine (commands, their
//! parsing and printing, the DAP server). It sits on `amdgpu-lanes` (the engine),
//! `amdgpu-sim`, `amdgpu-dwarf` and `amdgpu-isa`; it must not depend on the host
//! runtime (which calls it) or on the command-line front end.
#![deny(missing_docs)]

mod breakpoints;
pub mod dap;
mod expr;
mod frames;
mod frontend;
mod help;
mod input;
mod nav;
mod present;
mod print;
mod source;
mod value;
mod wave;

pub use frontend::{Ended, Frontend, HELP, Mode, parse_break};
pub use input::Input;
pub use value::typed_value;

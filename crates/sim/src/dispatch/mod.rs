//! Loading code objects and dispatching kernels: the kernarg segment, the
//! AQL packet, initial SGPRs/VGPRs, work-groups and their waves, and the
//! scheduler (work-groups in parallel on rayon, the waves of a group
//! cooperatively up to barriers).
//!
//! ABI: AMDGPU usage guide, "Kernel Dispatch", "Initial Kernel Execution
//! State", "Private Segment Buffer", "Flat Scratch", and the code object V5
//! hidden kernel arguments.
//!
//! The parts, each using only those before it:
//!
//! - `device`: the [`Device`] and its memory operations;
//! - `load`: code objects loaded and decoded ([`Module`], [`KernelInfo`]);
//! - `launch`: what a dispatch is ([`LaunchConfig`], [`Launch`], [`Workgroup`]) and the
//!   limits it is checked against;
//! - `abi`: [`Device::launch`] (checks, kernarg segment, AQL packet, printf buffer) and
//!   the initial state of a work-group's waves ([`Launch::workgroup`]);
//! - `scheduler`: the waves of a work-group, barriers, and waves released from their
//!   GDS waits ([`Workgroup::run_until`]); every work-group resident at once, for a
//!   kernel whose waves wait on other work-groups' ([`Resident`]);
//! - `report`: what a run reports ([`RunReport`]);
//! - `watchdog`: the deadline and the cancel flag turned into the stop flag;
//! - `run`: the grid ([`Device::run`], [`Device::run_with`]).

mod abi;
mod device;
mod launch;
mod load;
mod report;
mod run;
mod scheduler;
mod watchdog;

pub use abi::{HIDDEN_FILLED, PRINTF_BUFFER_SIZE, printf_buffer_header, private_segment_buffer};
pub use device::Device;
pub use launch::{
    ArgValue, Launch, LaunchConfig, MAX_GROUPS, MAX_KERNARG, MAX_LDS, MAX_PRIVATE, Workgroup,
};
pub use load::{KernelInfo, MAX_CODE_OBJECT, Module};
pub use report::{GroupFault, RunOptions, RunReport, Stats, Stopped, WaveAt};
pub use scheduler::{MAX_CORESIDENT_WAVES, Resident, Turn, WAVE_QUANTUM, grant_ordered, wake};

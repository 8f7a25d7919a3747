//! The host side of amdsim: an HSA runtime over the simulated device.
//!
//! What a GPU runtime does around the device is here: the agents it reports
//! ([`agent`]), the memory it hands out in one address space shared with the
//! device ([`memory`]), signals ([`signal`]) and AQL queues ([`queue`]) laid
//! out as ROCr lays them out, executables ([`loader`]), images and samplers of the HSA
//! image extension ([`image`]) and the runtime that ties them together ([`runtime`]).
//! The C ABI (`libhsa-runtime64.so.1`) that the real HIP runtime links against is a
//! thin layer over this crate, in `crates/hsa`.
//!
//! Beside the HSA model, what a host does around a dispatch of the device:
//! [`dispatch_file`] (a dispatch described in RON, the format of `amdsim run`),
//! [`image_object`] (the image objects of OpenCL image arguments, which the HSA images
//! are made of too), [`printf`] (the text of a kernel's printf buffer) and [`capture`]
//! (a dispatch written down to be replayed).
//!
//! Depends on `amdgpu-sim` (the device), `amdgpu-codeobj`, `amdgpu-isa`, and
//! `amdgpu-dwarf` for one thing only: the line table that puts FILE:LINE in a fault
//! report ([`runtime::line_table`]); must not depend on the lane or CLI crates.
#![deny(missing_docs)]

pub mod agent;
pub mod capture;
pub mod dispatch_file;
pub mod image;
pub mod image_object;
pub mod loader;
pub mod memory;
pub mod printf;
pub mod queue;
pub mod runtime;
pub mod signal;

//! The host side of amdsim: an HSA runtime over the simulated device.
//!
//! What a GPU runtime does around the device is here: the agents it reports
//! ([`agent`]), the memory it hands out in one address space shared with the
//! device ([`memory`]), signals ([`signal`]) and AQL queues ([`queue`]) laid
//! out as ROCr lays them out, executables ([`loader`]), images ([`image`]) and the runtime that
//! ties them together ([`runtime`]). The C ABI (`libhsa-runtime64.so.1`) that
//! the real HIP runtime links against is a thin layer over this crate, in
//! `crates/hsa`.
//!
//! Depends on `amdgpu-sim` (the device), `amdgpu-codeobj` and `amdgpu-isa`;
//! must not depend on the DWARF, lane or CLI crates.
#![deny(missing_docs)]

pub mod agent;
pub mod capture;
pub mod image;
pub mod loader;
pub mod memory;
pub mod queue;
pub mod runtime;
pub mod signal;

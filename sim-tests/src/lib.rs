//! Integration and differential tests of amdsim (see `tests/`), and what the tests share.
//!
//! The library part depends on the device, the decoder and the code object reader only,
//! so that every crate's tests can use it; the tests themselves use whatever crate they
//! test (the host, the lane service, the DWARF evaluator).

use std::path::PathBuf;

/// Every target the committed kernels and vectors are built for (`kernels/bin/<target>`):
/// the six GPUs, and the two GFX10 ones again in wave64.
pub const TARGETS: [&str; 8] = [
    "gfx900",
    "gfx906",
    "gfx908",
    "gfx90a",
    "gfx1010",
    "gfx1030",
    "gfx1010-w64",
    "gfx1030-w64",
];

/// The targets a sweep over [`TARGETS`] runs on in `cargo test`: one wave64
/// and one wave32 GPU of different generations. The other targets run in an
/// `#[ignore]`d test of the same sweep ([`SWEEP_REST`]), which `.ci/run` runs.
pub const SWEEP_SAMPLE: [&str; 2] = ["gfx900", "gfx1030"];

/// [`TARGETS`] without [`SWEEP_SAMPLE`].
pub const SWEEP_REST: [&str; 6] = [
    "gfx906",
    "gfx908",
    "gfx90a",
    "gfx1010",
    "gfx1010-w64",
    "gfx1030-w64",
];

/// A path below the repository root, from its components.
pub fn repo_path(parts: &[&str]) -> PathBuf {
    let mut p: PathBuf = [env!("CARGO_MANIFEST_DIR"), ".."].iter().collect();
    for part in parts {
        p.push(part);
    }
    p
}

/// The bytes of the committed code object `kernels/bin/<target>/<file>`; the error names
/// the path.
pub fn read_kernel(target: &str, file: &str) -> Result<Vec<u8>, String> {
    let p = repo_path(&["kernels", "bin", target, file]);
    std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))
}

pub mod pocl_ref;

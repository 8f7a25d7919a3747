//! Integration and differential tests of amdsim (see `tests/`), and what the tests share.
//!
//! The library part depends on the device, the decoder and the code object reader only,
//! so that every crate's tests can use it; the tests themselves use whatever crate they
//! test (the host, the lane service, the DWARF evaluator).

use std::ops::Deref;
use std::path::{Path, PathBuf};

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

/// A directory for one test's files in the system's temporary directory, removed when
/// it is dropped: a passing test leaves nothing behind. Dropped while the test panics (a
/// failing test), it is kept and its path printed, so that what the test wrote can be
/// inspected.
pub struct ScratchDir(Option<tempfile::TempDir>);

impl ScratchDir {
    /// A fresh directory named `prefix` and random characters.
    pub fn new(prefix: &str) -> ScratchDir {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .expect("a scratch directory in the temporary directory");
        ScratchDir(Some(dir))
    }

    pub fn path(&self) -> &Path {
        self.0.as_ref().expect("not yet dropped").path()
    }
}

impl Deref for ScratchDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<Path> for ScratchDir {
    fn as_ref(&self) -> &Path {
        self.path()
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(dir) = self.0.take()
        {
            eprintln!("kept for inspection: {}", dir.keep().display());
        }
    }
}

pub mod pocl_ref;

#[cfg(test)]
mod tests {
    use super::ScratchDir;

    #[test]
    fn scratch_dirs_go_when_tests_pass_and_stay_when_they_fail() {
        let passed = {
            let d = ScratchDir::new("amdsim-scratch-pass-");
            std::fs::write(d.join("f"), b"x").unwrap();
            d.to_path_buf()
        };
        assert!(!passed.exists(), "{}", passed.display());
        let kept = std::sync::Mutex::new(None);
        let failed = std::panic::catch_unwind(|| {
            let d = ScratchDir::new("amdsim-scratch-fail-");
            *kept.lock().unwrap() = Some(d.to_path_buf());
            panic!("a failing test");
        });
        assert!(failed.is_err());
        let kept = kept.into_inner().unwrap().expect("created");
        assert!(kept.is_dir(), "{}", kept.display());
        std::fs::remove_dir_all(&kept).unwrap();
    }
}

//! Capture: each kernel dispatch written as a dispatch file plus the memory
//! it can reach, so that `amdsim run/lanes/debug DIR/NNNN.ron` replays it
//! offline (`amdsim exec --capture DIR`, or `AMDSIM_CAPTURE=DIR`).
//!
//! For dispatch `NNNN` the folder gets `NNNN.ron` (the dispatch: kernel,
//! grid, the packet's segment sizes, the code object's load bias), `NNNN/
//! kernarg.bin` (the kernarg segment as the runtime wrote it), and for every
//! allocation of the runtime and the code object's loaded image,
//! `NNNN/ADDR.bin` (the bytes before the dispatch) and, for device memory,
//! `NNNN/ADDR.after.bin` (after it). The replay's dispatch file writes its own result of each
//! region to `NNNN/ADDR.replay.bin`, which must equal the `.after.bin`. Code
//! objects are written once each, as `co-BIAS.co`.

use crate::dispatch_file::{Dims, DispatchFile, Region};
use amdgpu_sim::Device;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where captures go and how many were taken.
#[derive(Debug)]
pub struct Capture {
    dir: PathBuf,
    next: AtomicU64,
}

/// What is captured of one dispatch.
#[derive(Debug)]
pub struct Dispatch<'a> {
    /// The kernel's name.
    pub kernel: &'a str,
    /// The code object's bytes and load bias.
    pub code_object: (&'a [u8], u64),
    /// Grid and work-group sizes, and the dimensions.
    pub grid: [u32; 3],
    /// Work-group size.
    pub group: [u32; 3],
    /// Dimensions (1-3).
    pub dims: u32,
    /// The kernarg segment's bytes.
    pub kernarg: Vec<u8>,
    /// Extra LDS and private bytes beyond the descriptor's.
    pub dynamic_lds: u32,
    /// Private bytes per work-item beyond the descriptor's.
    pub extra_private: u32,
    /// Every region the kernel can reach: (address, size, whether only
    /// the device changes it). Host memory (kernel arguments, queues,
    /// signals, pinned buffers) may change under the program's own threads
    /// while the kernel runs, so only device memory has its result kept.
    pub regions: Vec<(u64, u64, bool)>,
}

/// A capture in progress: what to write after the dispatch.
#[derive(Debug)]
pub struct Pending {
    stem: PathBuf,
    regions: Vec<(u64, u64)>,
}

fn io(p: &Path, e: std::io::Error) -> String {
    format!("capture: {}: {e}", p.display())
}

impl Capture {
    /// Captures into `dir` (created if missing).
    pub fn new(dir: impl Into<PathBuf>) -> Result<Capture, String> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
        Ok(Capture {
            dir,
            next: AtomicU64::new(0),
        })
    }

    /// Writes a dispatch before it runs; returns what to complete after it.
    pub fn before(&self, dev: &Device, d: &Dispatch<'_>) -> Result<Pending, String> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let name = format!("{n:04}");
        let data = self.dir.join(&name);
        std::fs::create_dir_all(&data).map_err(|e| io(&data, e))?;
        let (co, bias) = d.code_object;
        let co_name = format!("co-{bias:x}.co");
        let co_path = self.dir.join(&co_name);
        if !co_path.exists() {
            std::fs::write(&co_path, co).map_err(|e| io(&co_path, e))?;
        }
        let write = |file: String, bytes: &[u8]| -> Result<(), String> {
            let p = data.join(file);
            std::fs::write(&p, bytes).map_err(|e| io(&p, e))
        };
        write("kernarg.bin".into(), &d.kernarg)?;
        let mut memory = Vec::new();
        for &(addr, size, device) in &d.regions {
            let bytes = dev
                .read(addr, size as usize)
                .map_err(|e| format!("capture: region {addr:#x}: {e}"))?;
            write(format!("{addr:x}.bin"), &bytes)?;
            memory.push(Region {
                address: addr,
                file: PathBuf::from(format!("{name}/{addr:x}.bin")),
                output: device.then(|| PathBuf::from(format!("{name}/{addr:x}.replay.bin"))),
            });
        }
        let mut f = DispatchFile::new(co_name, d.kernel, d.grid, d.group, Vec::new());
        f.workgroup = Dims(d.group);
        f.dimensions = Some(d.dims);
        f.kernarg = Some(PathBuf::from(format!("{name}/kernarg.bin")));
        f.memory = memory;
        f.load_bias = Some(bias);
        f.dynamic_lds = (d.dynamic_lds > 0).then_some(d.dynamic_lds);
        f.extra_private = (d.extra_private > 0).then_some(d.extra_private);
        let text = ron::ser::to_string_pretty(&f, ron::ser::PrettyConfig::default())
            .map_err(|e| format!("capture: {e}"))?;
        let ron_path = self.dir.join(format!("{name}.ron"));
        std::fs::write(&ron_path, text).map_err(|e| io(&ron_path, e))?;
        Ok(Pending {
            stem: data,
            regions: d
                .regions
                .iter()
                .filter(|r| r.2)
                .map(|&(a, s, _)| (a, s))
                .collect(),
        })
    }

    /// Writes each region's bytes after the dispatch.
    pub fn after(&self, dev: &Device, p: &Pending) -> Result<(), String> {
        for &(addr, size) in &p.regions {
            let bytes = dev
                .read(addr, size as usize)
                .map_err(|e| format!("capture: region {addr:#x}: {e}"))?;
            let path = p.stem.join(format!("{addr:x}.after.bin"));
            std::fs::write(&path, bytes).map_err(|e| io(&path, e))?;
        }
        Ok(())
    }
}

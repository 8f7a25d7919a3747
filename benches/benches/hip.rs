//! HIP programs on amdsim: what a launch costs through the real HIP runtime
//! and amdsim's `libhsa-runtime64.so.1`, against the same kernel dispatched
//! straight on the simulator (the path `amdsim run` and dispatch files take),
//! measured in the same run.
//!
//! - `hip_launch/empty_hip`: an empty kernel launch plus `hipDeviceSynchronize`,
//!   timed inside `kernels/hip/bin/hipcc/bench_launch` (start-up excluded);
//!   reference `hip_launch/empty_direct`: one work-group of `mod_axpy` with
//!   nothing to do, `Device::run` of a launch prepared once.
//! - `hip_vs_direct/axpy_hip` and `axpy_direct`: `mod_axpy` over 2^18 items,
//!   the same code object (`module_api_kernels.gfx900.co`, built by hipcc) on
//!   both paths.
//!
//! Needs Debian's HIP runtime; without it the benchmarks say so and do nothing.

use amdgpu_sim::Device;
use amdgpu_sim::dispatch::{ArgValue, LaunchConfig};
use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const ELEMS: u32 = 1 << 18;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A folder with `libhsa-runtime64.so.1` linking to the library cargo built
/// beside this benchmark.
fn library_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let lib = exe.parent()?.join("libhsa_runtime64.so");
    let lib = lib.canonicalize().ok()?;
    let dir = std::env::temp_dir().join(format!("amdsim-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let link = dir.join("libhsa-runtime64.so.1");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(lib, &link).ok()?;
    Some(dir)
}

/// Runs `bench_launch ARGS` on amdsim; the `ns` figure it prints.
fn hip_ns(lib: &Path, args: &[String]) -> Duration {
    let out = Command::new(root().join("kernels/hip/bin/hipcc/bench_launch"))
        .args(args)
        .env("LD_LIBRARY_PATH", lib)
        .env("AMDSIM_GPU", "gfx900")
        .output()
        .expect("bench_launch runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let ns: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("ns "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "bench_launch {args:?} failed: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    Duration::from_nanos(ns as u64)
}

/// `mod_axpy` over `n` items (HIP's grid: whole blocks of 256), prepared
/// once to be run on the simulator again and again.
fn direct(
    dev: &Device,
    module: &amdgpu_sim::dispatch::Module,
    n: u32,
    out: u64,
    inp: u64,
) -> amdgpu_sim::Launch {
    let grid = n.div_ceil(256).max(1) * 256;
    let mut cfg = LaunchConfig::new_1d(
        grid,
        256,
        vec![
            ArgValue::Ptr(out),
            ArgValue::Ptr(inp),
            ArgValue::I32(3),
            ArgValue::I32(n as i32),
        ],
    );
    cfg.max_instructions = 1 << 32;
    dev.launch(module, "mod_axpy", cfg).unwrap()
}

fn bench_hip(c: &mut Criterion) {
    if !Path::new("/usr/lib/x86_64-linux-gnu/libamdhip64.so.5").exists() {
        eprintln!("hip benchmarks skipped: Debian's HIP runtime (libamdhip64-5) is not installed");
        return;
    }
    let Some(lib) = library_dir() else {
        eprintln!("hip benchmarks skipped: libhsa_runtime64.so was not built beside the benchmark");
        return;
    };
    let co =
        std::fs::read(root().join("kernels/hip/bin/hipcc/module_api_kernels.gfx900.co")).unwrap();
    let dev = Device::new();
    let module = dev.load(&co).unwrap();
    let inp = dev.alloc(ELEMS as u64 * 4).unwrap();
    let out = dev.alloc(ELEMS as u64 * 4).unwrap();

    let mut g = c.benchmark_group("hip_launch");
    g.sample_size(10);
    g.bench_function("empty_hip", |b| {
        b.iter_custom(|iters| hip_ns(&lib, &["empty".into(), iters.max(1).to_string()]))
    });
    let empty = direct(&dev, &module, 0, out, inp);
    g.bench_function("empty_direct", |b| b.iter(|| dev.run(&empty).unwrap()));
    g.finish();

    let mut g = c.benchmark_group("hip_vs_direct");
    g.sample_size(10).sampling_mode(SamplingMode::Flat);
    g.bench_function("axpy_hip", |b| {
        b.iter_custom(|iters| {
            hip_ns(
                &lib,
                &["axpy".into(), iters.max(1).to_string(), ELEMS.to_string()],
            )
        })
    });
    let axpy = direct(&dev, &module, ELEMS, out, inp);
    g.bench_function("axpy_direct", |b| b.iter(|| dev.run(&axpy).unwrap()));
    g.finish();
    let _ = std::fs::remove_dir_all(&lib);
}

criterion_group!(benches, bench_hip);
criterion_main!(benches);

//! Simulator throughput: committed kernels run on the simulator, on one core.
//!
//! - `sim_vector_add`: `vector_add` over 16,384 work-items (gfx900 wave64, gfx1030 wave32),
//!   in work-items per second, with the same additions done natively in Rust as the
//!   reference (how far the simulator is from the host doing the work itself).
//! - `sim_instructions`: several kernels (`vector_add`, `saxpy`, `reduce_sum`, the
//!   divergent `divergence`) in executed wave instructions per second
//!   (`Stats::instructions`), the simulator's instruction rate.
//!
//! - `sim_valu_heavy`: `valu_heavy` (`benches/kernels/valu_heavy.cl`: a per-work-item
//!   loop of f32 FMAs and integer hashing, 1,000 iterations, 16,384 work-items) on gfx900
//!   (wave64) and gfx1030 (wave32), in wave instructions per second, beside PoCL running
//!   the same OpenCL C on one thread (`benches/kernels/pocl_time.c`, built with `cc` and
//!   run as a subprocess with `POCL_MAX_PTHREAD_COUNT=1`; skipped with a note when it
//!   cannot be built or run). A summary line gives both figures and their ratio.
//!
//! Each measurement re-runs one prepared dispatch (`Device::run`), so memory set-up is
//! not timed and the guest memory does not grow. Work-groups run on a one-thread rayon
//! pool: the figures are per core.

use amdgpu_sim::{ArgValue, Device, Launch, LaunchConfig};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const N: u32 = 16_384;

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Inputs: a deterministic spread of values.
fn floats(seed: u32) -> Vec<f32> {
    (0..N)
        .map(|i| ((i.wrapping_mul(2_654_435_761) ^ seed) % 20_000) as f32 / 100.0 - 100.0)
        .collect()
}

/// A device with `file` (under `kernels/bin`) loaded and one dispatch of `kernel`
/// prepared with the arguments `args` builds from the device.
fn prepare(
    file: &str,
    kernel: &str,
    grid: u32,
    group: u32,
    args: impl FnOnce(&mut Device) -> Vec<ArgValue>,
) -> (Device, Launch) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kernels/bin")
        .join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut dev = Device::new();
    let module = dev
        .load(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let args = args(&mut dev);
    let launch = dev
        .launch(&module, kernel, LaunchConfig::new_1d(grid, group, args))
        .unwrap_or_else(|e| panic!("{file} {kernel}: {e}"));
    (dev, launch)
}

fn vector_add(file: &str) -> (Device, Launch) {
    prepare(file, "vector_add", N, 256, |dev| {
        let a = dev.alloc_bytes(&f32s(&floats(1))).expect("alloc");
        let b = dev.alloc_bytes(&f32s(&floats(2))).expect("alloc");
        let c = dev.alloc(u64::from(N) * 4).expect("alloc");
        vec![
            ArgValue::Ptr(a),
            ArgValue::Ptr(b),
            ArgValue::Ptr(c),
            ArgValue::U32(N),
        ]
    })
}

fn saxpy(file: &str) -> (Device, Launch) {
    prepare(file, "saxpy", N, 256, |dev| {
        let x = dev.alloc_bytes(&f32s(&floats(3))).expect("alloc");
        let y = dev.alloc_bytes(&f32s(&floats(4))).expect("alloc");
        let z = dev.alloc(u64::from(N) * 4).expect("alloc");
        vec![
            ArgValue::F32(1.5),
            ArgValue::Ptr(x),
            ArgValue::Ptr(y),
            ArgValue::Ptr(z),
            ArgValue::U32(N),
        ]
    })
}

fn reduce_sum(file: &str) -> (Device, Launch) {
    prepare(file, "reduce_sum", N, 256, |dev| {
        let input: Vec<u32> = (0..N)
            .map(|i| i.wrapping_mul(2_654_435_761) % 1000)
            .collect();
        let p_in = dev.alloc_bytes(&u32s(&input)).expect("alloc");
        let p_out = dev.alloc(u64::from(N / 256) * 4).expect("alloc");
        vec![ArgValue::Ptr(p_in), ArgValue::Ptr(p_out), ArgValue::U32(N)]
    })
}

/// `valu_heavy`'s loop count and the seed of its inputs.
const VALU_ITERS: u32 = 1000;
const VALU_SEED: u32 = 5;

/// A device with the benchmark kernel `file` (under `benches/kernels/bin`) loaded and
/// one dispatch of `valu_heavy` prepared.
fn valu_heavy(file: &str) -> (Device, Launch) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels/bin")
        .join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut dev = Device::new();
    let module = dev
        .load(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let input = dev.alloc_bytes(&f32s(&floats(VALU_SEED))).expect("alloc");
    let out_f = dev.alloc(u64::from(N) * 4).expect("alloc");
    let out_h = dev.alloc(u64::from(N) * 4).expect("alloc");
    let args = vec![
        ArgValue::Ptr(input),
        ArgValue::Ptr(out_f),
        ArgValue::Ptr(out_h),
        ArgValue::U32(VALU_ITERS),
    ];
    let launch = dev
        .launch(&module, "valu_heavy", LaunchConfig::new_1d(N, 256, args))
        .unwrap_or_else(|e| panic!("{file} valu_heavy: {e}"));
    (dev, launch)
}

/// `valu_heavy` computed natively: the float and the hash outputs.
fn valu_heavy_native() -> (Vec<f32>, Vec<u32>) {
    floats(VALU_SEED)
        .into_iter()
        .enumerate()
        .map(|(i, mut x)| {
            let (mut a, mut b) = (0f32, 1f32);
            let mut h = (i as u32).wrapping_mul(2_654_435_761);
            for k in 0..VALU_ITERS {
                a = a.mul_add(0.999, x);
                b = b.mul_add(x, -a);
                x = x.mul_add(-0.5, 1.25);
                h ^= h >> 15;
                h = h.wrapping_mul(0x2c1b_3c6d);
                h ^= h << 7;
                h = h.wrapping_add(k);
            }
            (a + b, h)
        })
        .unzip()
}

/// `pocl_time` built into the benchmark's scratch directory, if `cc` and an
/// OpenCL ICD loader are there.
fn pocl_time() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pocl_time");
    let out = Command::new("cc")
        .args(["-std=c11", "-O2", "-o"])
        .arg(&exe)
        .arg(dir.join("pocl_time.c"))
        .arg("-lOpenCL")
        .output();
    match out {
        Ok(o) if o.status.success() => Some(exe),
        Ok(o) => {
            eprintln!(
                "pocl_time not built (no PoCL figure): {}",
                String::from_utf8_lossy(&o.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!("pocl_time not built (no PoCL figure): cc: {e}");
            None
        }
    }
}

/// Runs `valu_heavy` `reps` times on PoCL on one thread: the fastest run, the
/// total of the runs, and the sum of the hash outputs.
fn pocl_run(exe: &Path, reps: u64) -> Option<(Duration, Duration, u64)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/valu_heavy.cl");
    let out = Command::new(exe)
        .env("POCL_MAX_PTHREAD_COUNT", "1")
        .arg(src)
        .args([N.to_string(), "256".into(), VALU_ITERS.to_string()])
        .arg(reps.to_string())
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "pocl_time failed (no PoCL figure): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut f = text.split_whitespace();
    let best = Duration::from_secs_f64(f.next()?.parse().ok()?);
    let total = Duration::from_secs_f64(f.next()?.parse().ok()?);
    let sum = f.next()?.parse().ok()?;
    Some((best, total, sum))
}

/// The fastest of `n` runs of `launch`.
fn fastest(dev: &Device, launch: &Launch, n: usize) -> Duration {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            dev.run(black_box(launch)).expect("runs");
            t.elapsed()
        })
        .min()
        .expect("n > 0")
}

fn bench_valu_heavy(c: &mut Criterion) {
    let (want_f, want_h) = valu_heavy_native();
    let want_sum: u64 = want_h.iter().map(|&h| u64::from(h)).sum();
    let mut g = c.benchmark_group("sim_valu_heavy");
    g.sample_size(10);
    let mut summary = Vec::new();
    for (name, file) in [
        ("amdsim_gfx900", "gfx900/valu_heavy.co"),
        ("amdsim_gfx1030", "gfx1030/valu_heavy.co"),
    ] {
        let (dev, launch) = valu_heavy(file);
        let stats = dev.run(&launch).expect("runs");
        let [_, ArgValue::Ptr(pf), ArgValue::Ptr(ph), _] = launch.config.args[..] else {
            panic!("valu_heavy takes three pointers and a count");
        };
        let got_f = dev.read(pf, want_f.len() * 4).expect("read");
        let got_h = dev.read(ph, want_h.len() * 4).expect("read");
        assert_eq!(got_f, f32s(&want_f), "{file}: float outputs");
        assert_eq!(got_h, u32s(&want_h), "{file}: hash outputs");
        g.throughput(Throughput::Elements(stats.instructions));
        g.bench_function(name, |b| {
            b.iter(|| dev.run(black_box(&launch)).expect("runs"))
        });
        let t = fastest(&dev, &launch, 5);
        summary.push((name, stats.instructions, t));
    }
    let pocl = pocl_time().and_then(|exe| {
        let first = pocl_run(&exe, 5)?;
        assert_eq!(first.2, want_sum, "PoCL's hash outputs");
        g.throughput(Throughput::Elements(u64::from(N)));
        g.bench_function("pocl_one_thread", |b| {
            b.iter_custom(|reps| pocl_run(&exe, reps).map(|r| r.1).unwrap_or_default())
        });
        Some(first.0)
    });
    g.finish();
    for (name, instructions, t) in summary {
        let rate = instructions as f64 / t.as_secs_f64();
        let vs = pocl.map_or(String::new(), |p| {
            format!(
                "; PoCL one thread {:.4} s, amdsim / PoCL {:.1}x",
                p.as_secs_f64(),
                t.as_secs_f64() / p.as_secs_f64()
            )
        });
        eprintln!(
            "valu_heavy {name}: {instructions} wave instructions in {:.4} s (fastest of 5), \
             {:.2} M wave instructions/s{vs}",
            t.as_secs_f64(),
            rate / 1e6
        );
    }
}

fn divergence(file: &str) -> (Device, Launch) {
    prepare(file, "divergence", N, 256, |dev| {
        let input: Vec<u32> = (0..N).map(|i| 1000 + i).collect();
        let p_in = dev.alloc_bytes(&u32s(&input)).expect("alloc");
        let p_out = dev.alloc(u64::from(N) * 4).expect("alloc");
        vec![ArgValue::Ptr(p_in), ArgValue::Ptr(p_out), ArgValue::U32(N)]
    })
}

fn bench_sim(c: &mut Criterion) {
    // The simulator spreads work-groups over rayon's global pool: one thread makes
    // the figures per core (each run hands its work-groups to that thread).
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global();
    assert!(
        one.is_ok() || rayon::current_num_threads() == 1,
        "the global pool already has {} threads",
        rayon::current_num_threads()
    );
    {
        let mut g = c.benchmark_group("sim_vector_add");
        g.throughput(Throughput::Elements(u64::from(N)));
        for (name, file) in [
            ("amdsim_gfx900", "gfx900/vector_add.co"),
            ("amdsim_gfx1030", "gfx1030/vector_add.co"),
        ] {
            let (dev, launch) = vector_add(file);
            // The result is checked once, so the figure is of a correct run.
            dev.run(&launch).expect("runs");
            let want: Vec<u8> = floats(1)
                .iter()
                .zip(floats(2))
                .flat_map(|(a, b)| (a + b).to_le_bytes())
                .collect();
            let ArgValue::Ptr(out) = launch.config.args[2] else {
                panic!("vector_add's third argument is the output pointer");
            };
            assert_eq!(dev.read(out, want.len()).expect("read"), want, "{file}");
            g.bench_function(name, |b| {
                b.iter(|| dev.run(black_box(&launch)).expect("runs"))
            });
        }
        let (a, bv) = (floats(1), floats(2));
        let mut out = vec![0f32; N as usize];
        g.bench_function("reference_native_rust", |b| {
            b.iter(|| {
                for ((o, x), y) in out.iter_mut().zip(black_box(&a)).zip(black_box(&bv)) {
                    *o = x + y;
                }
                black_box(&out);
            })
        });
        g.finish();

        let mut g = c.benchmark_group("sim_instructions");
        type Prep = fn(&str) -> (Device, Launch);
        let kernels: [(&str, &str, Prep); 8] = [
            ("vector_add_gfx900", "gfx900/vector_add.co", vector_add),
            ("saxpy_gfx900", "gfx900/saxpy.co", saxpy),
            ("reduce_sum_gfx900", "gfx900/reduce_sum.co", reduce_sum),
            ("divergence_gfx900", "gfx900/divergence.co", divergence),
            ("vector_add_gfx1030", "gfx1030/vector_add.co", vector_add),
            ("saxpy_gfx1030", "gfx1030/saxpy.co", saxpy),
            ("reduce_sum_gfx1030", "gfx1030/reduce_sum.co", reduce_sum),
            ("divergence_gfx1030", "gfx1030/divergence.co", divergence),
        ];
        for (name, file, prep) in kernels {
            let (dev, launch) = prep(file);
            let stats = dev.run(&launch).expect("runs");
            eprintln!(
                "{name}: {} work-groups, {} waves, {} wave instructions per run",
                stats.groups, stats.waves, stats.instructions
            );
            g.throughput(Throughput::Elements(stats.instructions));
            g.bench_function(name, |b| {
                b.iter(|| dev.run(black_box(&launch)).expect("runs"))
            });
        }
        g.finish();
    }
    bench_valu_heavy(c);
}

criterion_group!(benches, bench_sim);
criterion_main!(benches);

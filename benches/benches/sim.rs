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
//! - `sim_memory`: the memory-bound `vector_add` and `strided_copy`
//!   (`benches/kernels/strided_copy.cl`, `out[i] = in[(i * 1025) & (n - 1)]`: every
//!   lane of a wave reads another page) over 16 Mi work-items, beside PoCL on one
//!   thread; summary lines give wave instructions/s and work-items/s.
//! - `sim_lds`: `transpose_tiled` (`benches/kernels/transpose_tiled.cl`: a 1,024 x
//!   1,024 matrix through 32 x 32 LDS tiles, one barrier per work-group), beside PoCL.
//! - `sim_scaling`: dispatches of 1,024 to 4,096 work-groups on a rayon pool of one
//!   thread and of two; summary lines give the ratio of the times.
//!
//! The peak resident memory of `vector_add` over 16 Mi work-items is the separate
//! check `benches/peak_memory.rs` (its own process).
//!
//! Each measurement re-runs one prepared dispatch (`Device::run`), so memory set-up is
//! not timed and the guest memory does not grow. Work-groups run on a one-thread rayon
//! pool (`sim_scaling` aside): the figures are per core.

use amdgpu_sim::{ArgValue, Device, Launch, LaunchConfig};
use amdsim_benches::grid;
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
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
    args: impl FnOnce(&Device) -> Vec<ArgValue>,
) -> (Device, Launch) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../kernels/bin")
        .join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dev = Device::new();
    let module = dev
        .load(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let args = args(&dev);
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
    let dev = Device::new();
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

/// Runs `kernel` of the benchmark kernel source `src` (under `benches/kernels`, or
/// `kernels/src` for the committed test kernels) `reps` times on PoCL on one thread,
/// with `params` (see `pocl_time.c`): the fastest run, the total of the runs, and the
/// checksum of the output (the sum of its 32-bit words).
fn pocl_run(
    exe: &Path,
    src: &str,
    kernel: &str,
    params: &[u32],
    reps: u64,
) -> Option<(Duration, Duration, u64)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let out = Command::new(exe)
        .env("POCL_MAX_PTHREAD_COUNT", "1")
        .arg(src)
        .arg(kernel)
        .arg(reps.to_string())
        .args(params.iter().map(|p| p.to_string()))
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
        let params = [N, 256, VALU_ITERS];
        let run = |reps| pocl_run(&exe, "kernels/valu_heavy.cl", "valu_heavy", &params, reps);
        let first = run(5)?;
        assert_eq!(first.2, want_sum, "PoCL's hash outputs");
        g.throughput(Throughput::Elements(u64::from(N)));
        g.bench_function("pocl_one_thread", |b| {
            b.iter_custom(|reps| run(reps).map(|r| r.1).unwrap_or_default())
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

/// Work-items of the memory-bound dispatches (16 Mi, work-groups of 256).
const BIG: u32 = 1 << 24;
/// `strided_copy`'s stride in floats: every lane of a wave reads another page.
const STRIDE: u32 = 1025;
/// `transpose_tiled`'s matrix: rows and columns (1,024 work-groups of 32 x 8).
const TRANSPOSE: (u32, u32) = (1024, 1024);

/// A device with `file` loaded (under `kernels/bin` or, with `bench`, under
/// `benches/kernels/bin`) and one dispatch of `kernel` over `config`, whose
/// arguments `args` builds from the device.
fn prepare_with(
    file: &str,
    bench: bool,
    kernel: &str,
    config: impl FnOnce(Vec<ArgValue>) -> LaunchConfig,
    args: impl FnOnce(&Device) -> Vec<ArgValue>,
) -> (Device, Launch) {
    let dir = if bench {
        "kernels/bin"
    } else {
        "../kernels/bin"
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dev = Device::new();
    let module = dev
        .load(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let args = args(&dev);
    let launch = dev
        .launch(&module, kernel, config(args))
        .unwrap_or_else(|e| panic!("{file} {kernel}: {e}"));
    (dev, launch)
}

/// `vector_add` over `n` work-items: `c = a + b` (inputs seeded 1 and 2).
fn vector_add_n(target: &str, n: u32) -> (Device, Launch) {
    prepare_with(
        &format!("{target}/vector_add.co"),
        false,
        "vector_add",
        |args| LaunchConfig::new_1d(n, 256, args),
        |dev| {
            let a = grid::fill(dev, n, 1);
            let b = grid::fill(dev, n, 2);
            let c = dev.alloc(u64::from(n) * 4).expect("alloc");
            vec![
                ArgValue::Ptr(a),
                ArgValue::Ptr(b),
                ArgValue::Ptr(c),
                ArgValue::U32(n),
            ]
        },
    )
}

/// `strided_copy` over `n` (a power of two) work-items (input seeded 3).
fn strided_copy(target: &str, n: u32) -> (Device, Launch) {
    prepare_with(
        &format!("{target}/strided_copy.co"),
        true,
        "strided_copy",
        |args| LaunchConfig::new_1d(n, 256, args),
        |dev| {
            let input = grid::fill(dev, n, 3);
            let out = dev.alloc(u64::from(n) * 4).expect("alloc");
            vec![
                ArgValue::Ptr(input),
                ArgValue::Ptr(out),
                ArgValue::U32(STRIDE),
                ArgValue::U32(n - 1),
            ]
        },
    )
}

/// `transpose_tiled` of a [`TRANSPOSE`] matrix (input seeded 4).
fn transpose_tiled(target: &str) -> (Device, Launch) {
    let (rows, cols) = TRANSPOSE;
    prepare_with(
        &format!("{target}/transpose_tiled.co"),
        true,
        "transpose_tiled",
        |args| {
            let mut c = LaunchConfig::new_1d(cols, 32, args);
            c.grid = [cols, rows / 4, 1];
            c.group = [32, 8, 1];
            c
        },
        |dev| {
            let input = grid::fill(dev, rows * cols, 4);
            let out = dev.alloc(u64::from(rows * cols) * 4).expect("alloc");
            vec![
                ArgValue::Ptr(input),
                ArgValue::Ptr(out),
                ArgValue::U32(rows),
                ArgValue::U32(cols),
            ]
        },
    )
}

/// The output pointer of a prepared dispatch (argument `k`).
fn ptr_arg(launch: &Launch, k: usize) -> u64 {
    match launch.config.args.get(k) {
        Some(ArgValue::Ptr(p)) => *p,
        a => panic!("argument {k} is not a pointer: {a:?}"),
    }
}

/// One simulator dispatch of a group with a PoCL reference: the name, the
/// prepared dispatch, the work-items, the expected output (pointer argument, words,
/// word `i`).
struct Case {
    name: String,
    dev: Device,
    launch: Launch,
    items: u64,
    out: (usize, u32, fn(u32) -> u32),
}

/// The PoCL reference of a group: source, kernel, parameters.
struct Reference<'a> {
    src: &'a str,
    kernel: &'a str,
    params: Vec<u32>,
}

/// Benchmarks `cases` (each checked once first) and PoCL's `reference` in group
/// `group`, then prints a summary line per case: wave instructions/s, work-items/s
/// (fastest of 3 runs) and the ratio to PoCL on one thread.
fn bench_cases(
    c: &mut Criterion,
    group: &str,
    cases: impl Iterator<Item = Case>,
    reference: Reference,
    pocl: Option<&Path>,
) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.sampling_mode(SamplingMode::Flat);
    let mut summary = Vec::new();
    let mut want_sum = None;
    for case in cases {
        let Case {
            name,
            dev,
            launch,
            items,
            out: (k, words, want),
        } = case;
        let stats = dev.run(&launch).expect("runs");
        let sum = grid::check(&dev, ptr_arg(&launch, k), words, want);
        want_sum = Some(sum);
        g.throughput(Throughput::Elements(stats.instructions));
        g.bench_function(&name, |b| {
            b.iter(|| dev.run(black_box(&launch)).expect("runs"))
        });
        let t = fastest(&dev, &launch, 3);
        summary.push((name, stats, items, t));
    }
    let pocl = pocl.and_then(|exe| {
        let Reference {
            src,
            kernel,
            params,
        } = reference;
        let run = |reps| pocl_run(exe, src, kernel, &params, reps);
        let first = run(3)?;
        if let Some(sum) = want_sum {
            assert_eq!(first.2, sum, "PoCL's {kernel} output");
        }
        g.throughput(Throughput::Elements(summary.first().map_or(0, |s| s.2)));
        g.bench_function(format!("pocl_one_thread_{kernel}"), |b| {
            b.iter_custom(|reps| run(reps).map(|r| r.1).unwrap_or_default())
        });
        Some(first.0)
    });
    g.finish();
    for (name, stats, items, t) in summary {
        let s = t.as_secs_f64();
        let vs = pocl.map_or(String::new(), |p| {
            format!(
                "; PoCL one thread {:.4} s, amdsim / PoCL {:.1}x",
                p.as_secs_f64(),
                s / p.as_secs_f64()
            )
        });
        eprintln!(
            "{group}/{name}: {} work-groups, {} wave instructions in {s:.4} s (fastest of 3), \
             {:.2} M wave instructions/s, {:.2} M work-items/s{vs}",
            stats.groups,
            stats.instructions,
            stats.instructions as f64 / s / 1e6,
            items as f64 / s / 1e6,
        );
    }
}

/// The memory-bound kernels over 16 Mi work-items: `vector_add` and
/// `strided_copy`, beside PoCL on one thread.
fn bench_memory(c: &mut Criterion, pocl: Option<&Path>) {
    fn sum_ab(i: u32) -> u32 {
        (grid::input(i, 1) + grid::input(i, 2)).to_bits()
    }
    fn strided(i: u32) -> u32 {
        grid::input(i.wrapping_mul(STRIDE) & (BIG - 1), 3).to_bits()
    }
    for (kernel, prep, out, want, src, params) in [
        (
            "vector_add",
            vector_add_n as fn(&str, u32) -> (Device, Launch),
            2,
            sum_ab as fn(u32) -> u32,
            "../kernels/src/vector_add.cl",
            vec![BIG, 256],
        ),
        (
            "strided_copy",
            strided_copy,
            1,
            strided,
            "kernels/strided_copy.cl",
            vec![BIG, 256, STRIDE],
        ),
    ] {
        // One device at a time: each holds its buffers (up to 192 MiB).
        let cases = ["gfx900", "gfx1030"].into_iter().map(|t| {
            let (dev, launch) = prep(t, BIG);
            Case {
                name: format!("{kernel}_{t}"),
                dev,
                launch,
                items: u64::from(BIG),
                out: (out, BIG, want),
            }
        });
        let reference = Reference {
            src,
            kernel,
            params,
        };
        bench_cases(c, "sim_memory", cases, reference, pocl);
    }
}

/// LDS and barriers: `transpose_tiled` (a 1,024 x 1,024 matrix through 32 x 32
/// tiles), beside PoCL on one thread (`reduce_sum` is in `sim_instructions`).
fn bench_lds(c: &mut Criterion, pocl: Option<&Path>) {
    fn transposed(i: u32) -> u32 {
        let (rows, cols) = TRANSPOSE;
        // out[r][c] = in[c][r], out being cols x rows.
        let (r, c) = (i / rows, i % rows);
        grid::input(c * cols + r, 4).to_bits()
    }
    let (rows, cols) = TRANSPOSE;
    let cases = ["gfx900", "gfx1030"].into_iter().map(|t| {
        let (dev, launch) = transpose_tiled(t);
        Case {
            name: format!("transpose_tiled_{t}"),
            dev,
            launch,
            items: u64::from(rows * cols / 4),
            out: (1, rows * cols, transposed),
        }
    });
    let reference = Reference {
        src: "kernels/transpose_tiled.cl",
        kernel: "transpose_tiled",
        params: vec![rows, cols],
    };
    bench_cases(c, "sim_lds", cases, reference, pocl);
}

/// Scaling: dispatches of many work-groups on a rayon pool of one thread and of
/// two, and the ratio of their times.
fn bench_scaling(c: &mut Criterion) {
    let pools: Vec<(usize, rayon::ThreadPool)> = [1, 2]
        .into_iter()
        .map(|n| {
            let p = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .expect("a thread pool");
            (n, p)
        })
        .collect();
    let mut g = c.benchmark_group("sim_scaling");
    g.sample_size(10);
    let mut summary = Vec::new();
    let dispatches: [(&str, (Device, Launch)); 3] = [
        ("vector_add_1M_gfx900", vector_add_n("gfx900", 1 << 20)),
        ("vector_add_1M_gfx1030", vector_add_n("gfx1030", 1 << 20)),
        ("transpose_tiled_gfx900", transpose_tiled("gfx900")),
    ];
    for (name, (dev, launch)) in dispatches {
        let stats = dev.run(&launch).expect("runs");
        assert!(stats.groups >= 256, "{name}: {} work-groups", stats.groups);
        g.throughput(Throughput::Elements(stats.instructions));
        let mut times = Vec::new();
        for (n, pool) in &pools {
            g.bench_function(format!("{name}_{n}_threads"), |b| {
                b.iter(|| pool.install(|| dev.run(black_box(&launch)).expect("runs")))
            });
            times.push(pool.install(|| fastest(&dev, &launch, 5)));
        }
        summary.push((name, stats.groups, times));
    }
    g.finish();
    for (name, groups, t) in summary {
        eprintln!(
            "sim_scaling/{name}: {groups} work-groups, 1 thread {:.4} s, 2 threads {:.4} s \
             (fastest of 5), 2 threads / 1 thread {:.2}x",
            t[0].as_secs_f64(),
            t[1].as_secs_f64(),
            t[0].as_secs_f64() / t[1].as_secs_f64()
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

/// The benchmark filter given on the command line (criterion's first positional
/// argument), if any.
fn filter() -> Option<String> {
    // Criterion's options that take a value.
    const VALUED: &[&str] = &[
        "--profile-time",
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--plotting-backend",
        "--output-format",
        "--color",
        "-c",
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    args.iter().enumerate().find_map(|(k, a)| {
        let valued = k > 0 && VALUED.contains(&args[k - 1].as_str());
        (!a.starts_with('-') && !valued).then(|| a.clone())
    })
}

/// Whether the group `group` can match the command line's filter: the set-up and
/// summary runs of groups the filter leaves out are skipped. A filter names groups
/// when it starts with `sim_` or has a `/` (`group/function`); any other filter may
/// match a function of any group.
fn wanted(group: &str) -> bool {
    filter().is_none_or(|f| {
        if !f.starts_with("sim_") && !f.contains('/') {
            return true;
        }
        let head = f.split('/').next().unwrap_or("");
        group.contains(head) || f.contains(group)
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
    if wanted("sim_vector_add") {
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
    }
    if wanted("sim_instructions") {
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
    if wanted("sim_valu_heavy") {
        bench_valu_heavy(c);
    }
    let pocl = (wanted("sim_memory") || wanted("sim_lds"))
        .then(pocl_time)
        .flatten();
    if wanted("sim_memory") {
        bench_memory(c, pocl.as_deref());
    }
    if wanted("sim_lds") {
        bench_lds(c, pocl.as_deref());
    }
    if wanted("sim_scaling") {
        bench_scaling(c);
    }
}

criterion_group!(benches, bench_sim);
criterion_main!(benches);

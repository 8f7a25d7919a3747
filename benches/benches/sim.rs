//! Simulator throughput: committed kernels run on the simulator, on one core.
//!
//! - `sim_vector_add`: `vector_add` over 16,384 work-items (gfx900 wave64, gfx1030 wave32),
//!   in work-items per second, with the same additions done natively in Rust as the
//!   reference (how far the simulator is from the host doing the work itself).
//! - `sim_instructions`: several kernels in executed wave instructions per second
//!   (`Stats::instructions`), the simulator's instruction rate.
//!
//! Each measurement re-runs one prepared dispatch (`Device::run`), so memory set-up is
//! not timed and the guest memory does not grow. Work-groups run on a one-thread rayon
//! pool: the figures are per core.

use amdgpu_sim::{ArgValue, Device, Launch, LaunchConfig};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;

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
        let kernels: [(&str, &str, Prep); 6] = [
            ("vector_add_gfx900", "gfx900/vector_add.co", vector_add),
            ("saxpy_gfx900", "gfx900/saxpy.co", saxpy),
            ("reduce_sum_gfx900", "gfx900/reduce_sum.co", reduce_sum),
            ("vector_add_gfx1030", "gfx1030/vector_add.co", vector_add),
            ("saxpy_gfx1030", "gfx1030/saxpy.co", saxpy),
            ("reduce_sum_gfx1030", "gfx1030/reduce_sum.co", reduce_sum),
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
}

criterion_group!(benches, bench_sim);
criterion_main!(benches);

//! `valu_heavy` (`benches/kernels/valu_heavy.cl`) once over N work-items, for instruction
//! counts that do not depend on the load of the machine:
//! `cargo run --release -p amdsim-benches --example valu_rate -- TARGET N [ITERS]`
//! with TARGET `gfx900` or `gfx1030`; prints the wave instructions executed and the rate.
//! `... --example valu_rate -- KERNEL/TARGET N` runs the committed `vector_add`,
//! `reduce_sum` or `divergence` (`kernels/bin/TARGET/KERNEL.co`) over N work-items instead,
//! and `strided_copy/TARGET N` the memory benchmark's kernel (`benches/kernels/bin`,
//! stride 1,025 floats: every lane of a wave in another page; N a power of two).
//!
//! Run it under `valgrind --tool=callgrind` with two values of N and divide the difference
//! of the instruction totals by the difference of the wave instructions: set-up and
//! start-up cancel.

use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let target = args.get(1).map_or("gfx900", String::as_str);
    let n: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(16_384);
    let iters: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1000);
    // KERNEL/TARGET for a committed kernel, TARGET alone for valu_heavy.
    let (kernel, path) = match target.split_once('/') {
        Some(("strided_copy", t)) => (
            "strided_copy",
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("kernels/bin")
                .join(t)
                .join("strided_copy.co"),
        ),
        Some((k, t)) => (
            k,
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../kernels/bin")
                .join(t)
                .join(format!("{k}.co")),
        ),
        None => (
            "valu_heavy",
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("kernels/bin")
                .join(target)
                .join("valu_heavy.co"),
        ),
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dev = Device::new();
    let module = dev.load(&bytes).expect("loads");
    let input: Vec<u8> = (0..n)
        .flat_map(|i| ((i % 200) as f32 - 100.0).to_le_bytes())
        .collect();
    let p_in = dev.alloc_bytes(&input).expect("alloc");
    let p_in2 = dev.alloc_bytes(&input).expect("alloc");
    let p_out = dev.alloc(u64::from(n) * 4).expect("alloc");
    let p_out2 = dev.alloc(u64::from(n) * 4).expect("alloc");
    let args = match kernel {
        "vector_add" => vec![
            ArgValue::Ptr(p_in),
            ArgValue::Ptr(p_in2),
            ArgValue::Ptr(p_out),
            ArgValue::U32(n),
        ],
        "strided_copy" => vec![
            ArgValue::Ptr(p_in),
            ArgValue::Ptr(p_out),
            ArgValue::U32(1025),
            ArgValue::U32(n.next_power_of_two() - 1),
        ],
        "reduce_sum" | "divergence" => {
            vec![ArgValue::Ptr(p_in), ArgValue::Ptr(p_out), ArgValue::U32(n)]
        }
        _ => vec![
            ArgValue::Ptr(p_in),
            ArgValue::Ptr(p_out),
            ArgValue::Ptr(p_out2),
            ArgValue::U32(iters),
        ],
    };
    let launch = dev
        .launch(&module, kernel, LaunchConfig::new_1d(n, 256.min(n), args))
        .expect("launches");
    let t = Instant::now();
    let stats = dev.run(&launch).expect("runs");
    let s = t.elapsed().as_secs_f64();
    println!(
        "{target}: {} wave instructions in {s:.4} s: {:.2} M/s",
        stats.instructions,
        stats.instructions as f64 / s / 1e6
    );
}

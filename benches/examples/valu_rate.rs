//! `valu_heavy` (`benches/kernels/valu_heavy.cl`) once over N work-items, for instruction
//! counts that do not depend on the load of the machine:
//! `cargo run --release -p amdsim-benches --example valu_rate -- TARGET N [ITERS]`
//! with TARGET `gfx900` or `gfx1030`; prints the wave instructions executed and the rate.
//! `... --example valu_rate -- vector_add/TARGET N` runs the committed `vector_add`
//! (`kernels/bin/TARGET/vector_add.co`) over N work-items instead.
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
    let vector_add = target.strip_prefix("vector_add/");
    let path = match vector_add {
        Some(t) => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../kernels/bin")
            .join(t)
            .join("vector_add.co"),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("kernels/bin")
            .join(target)
            .join("valu_heavy.co"),
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut dev = Device::new();
    let module = dev.load(&bytes).expect("loads");
    let input: Vec<u8> = (0..n)
        .flat_map(|i| ((i % 200) as f32 - 100.0).to_le_bytes())
        .collect();
    let args = vec![
        ArgValue::Ptr(dev.alloc_bytes(&input).expect("alloc")),
        ArgValue::Ptr(dev.alloc_bytes(&input).expect("alloc")),
        ArgValue::Ptr(dev.alloc(u64::from(n) * 4).expect("alloc")),
        ArgValue::U32(if vector_add.is_some() { n } else { iters }),
    ];
    let kernel = if vector_add.is_some() {
        "vector_add"
    } else {
        "valu_heavy"
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

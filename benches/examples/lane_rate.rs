//! Lane positions of N stopped waves, for instruction counts that do not depend on the
//! load of the machine:
//! `cargo run --release -p amdsim-benches --example lane_rate -- MODE TARGET N`
//! with MODE `dwarf` (the annotated DWARF through `LanePcIndex::wave`), `swap` (the swap
//! of the stopped state into the session alone), `reconstruction`
//! (`LaneService::wave_lanes`) or `seed` (the usage guide's lane_pc expression over an
//! in-memory wave64 and its 64 PCs read, as `benches/lanes.rs` measures it), TARGET
//! `gfx900` or `gfx1030`.
//!
//! Run it under `valgrind --tool=callgrind` with two values of N and divide the difference
//! of the instruction totals by the difference of N: set-up and start-up cancel.

use amdgpu_codeobj::CodeObject;
use amdgpu_dwarf::eval::{EvalOptions, Evaluator, read_through};
use amdgpu_lanes::annotate::{AnnotateOptions, annotate};
use amdgpu_lanes::lane_pc::LanePcIndex;
use amdgpu_lanes::service::{LaneService, LaneState, work_items};
use amdgpu_sim::Device;
use amdsim_benches::lanes::{prepare, read, seed_lane_pc, states, stopped};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("dwarf", String::as_str);
    let target = args.get(2).map_or("gfx900", String::as_str);
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let start;
    match mode {
        "seed" => {
            let (ctx, expr, t) = seed_lane_pc();
            let mut ev = Evaluator::new(&t, &ctx, EvalOptions::default());
            start = Instant::now();
            for _ in 0..n {
                let l = ev.location(black_box(&expr)).expect("evaluates");
                black_box(read_through(&t, &l, 64 * 8).expect("reads"));
            }
        }
        _ => {
            let bytes = annotate(
                &read(&format!("{target}/cf_nested_if.co")),
                &AnnotateOptions::default(),
            )
            .expect("annotates");
            let co = CodeObject::parse(&bytes).expect("parses");
            let index = LanePcIndex::new(&co, &Default::default()).expect("indexes");
            let service = LaneService::new(&co, None).expect("analyses");
            let mut snaps = states(&bytes);
            let len = snaps.len();
            let dev = Device::new();
            let (launch, bias, entry) = prepare(&dev, &bytes);
            let mut s = stopped(&dev, launch, entry);
            let items = work_items(s.launch(), [0, 0, 0], 0);
            let divergent = snaps
                .iter()
                .filter(|w| {
                    service
                        .wave_lanes(w, bias, items)
                        .lanes
                        .iter()
                        .any(|l| l.state == LaneState::Divergent)
                })
                .count();
            println!("{len} stopped states, {divergent} with divergent lanes");
            start = Instant::now();
            for i in 0..n {
                let k = i % len;
                match mode {
                    "reconstruction" => {
                        black_box(service.wave_lanes(&snaps[k], bias, items));
                    }
                    _ => {
                        std::mem::swap(s.wave_mut(0).expect("wave"), &mut snaps[k]);
                        if mode == "dwarf" {
                            black_box(index.wave(&s, &dev, 0, bias).expect("evaluates"));
                        } else {
                            black_box(s.wave(0).map(|w| w.pc));
                        }
                        std::mem::swap(s.wave_mut(0).expect("wave"), &mut snaps[k]);
                    }
                }
            }
        }
    }
    let dt = start.elapsed().as_secs_f64();
    println!(
        "{mode} {target}: {n} waves in {dt:.3} s: {:.0} ns per wave",
        dt * 1e9 / n as f64
    );
}

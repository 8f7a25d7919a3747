//! Lane positions of stopped waves: through the DWARF lane attributes and through the
//! reconstruction, against the plain lane_pc expression of the usage guide's example.
//!
//! The waves are every state, before every instruction, of every wave of work-group 0 of
//! `cf_nested_if` (gfx900, wave64; gfx1030, wave32) launched over 1,024 work-items in
//! groups of 256 with pseudo-random inputs, so most states have divergent lanes. The
//! code object is annotated (`amdgpu_lanes::annotate`) first. Each measurement reads the
//! lanes of N such waves (N = 100, 1,000, 10,000, cycling through the states):
//!
//! - `dwarf`: `LanePcIndex::wave` — the subprogram and list entry for the PC found,
//!   DW_AT_LLVM_active_lane and DW_AT_LLVM_lane_pc evaluated through their DWARF
//!   procedures and artificial variables against a `WaveTarget`, and the lane vector read.
//!   The stopped states are swapped into one session's wave slot in turn;
//! - `swap_only`: that swap alone (to subtract);
//! - `reconstruction`: `LaneService::wave_lanes` on the same states;
//! - `seed_lane_pc`: the reference, the DW_AT_LLVM_lane_pc expression of the usage guide's
//!   IF/THEN/ELSE example (`DW_OP_call_ref __divergent_lane_pc_1_then; DW_OP_call_ref
//!   __active_lane_pc`) evaluated over an in-memory wave64 and its 64 PCs read, N times.
//!
//! Throughput is in waves; the time per wave is its inverse. Targets: under 1 us per
//! wave64 through DWARF, the reconstruction no slower than DWARF.

use amdgpu_codeobj::CodeObject;
use amdgpu_dwarf::eval::{EvalOptions, Evaluator, read_through};
use amdgpu_lanes::annotate::{AnnotateOptions, annotate};
use amdgpu_lanes::lane_pc::LanePcIndex;
use amdgpu_lanes::service::{LaneService, work_items};
use amdgpu_sim::Device;
use amdsim_benches::lanes::{self, prepare, read, states, stopped};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn positions(c: &mut Criterion, target: &str, ns: &[usize]) {
    let bytes = annotate(
        &read(&format!("{target}/cf_nested_if.co")),
        &AnnotateOptions::default(),
    )
    .expect("annotates");
    let co = CodeObject::parse(&bytes).expect("parses");
    let index = LanePcIndex::new(&co, &Default::default()).expect("indexes");
    let service = LaneService::new(&co, None).expect("analyses");
    let mut snaps = states(&bytes);
    let dev = Device::new();
    let (launch, bias, entry) = prepare(&dev, &bytes);
    let mut s = stopped(&dev, launch, entry);
    let items = work_items(s.launch(), [0, 0, 0], 0);
    let len = snaps.len();
    let mut g = c.benchmark_group(format!("lane_positions_{target}"));
    for &n in ns {
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("dwarf/{n}"), |b| {
            b.iter(|| {
                for i in 0..n {
                    let k = i % len;
                    std::mem::swap(s.wave_mut(0).expect("wave"), &mut snaps[k]);
                    black_box(index.wave(&s, &dev, 0, bias).expect("evaluates"));
                    std::mem::swap(s.wave_mut(0).expect("wave"), &mut snaps[k]);
                }
            })
        });
        g.bench_function(format!("swap_only/{n}"), |b| {
            b.iter(|| {
                for i in 0..n {
                    let k = i % len;
                    std::mem::swap(s.wave_mut(0).expect("wave"), &mut snaps[k]);
                    black_box(s.wave(0).map(|w| w.pc));
                    std::mem::swap(s.wave_mut(0).expect("wave"), &mut snaps[k]);
                }
            })
        });
        g.bench_function(format!("reconstruction/{n}"), |b| {
            b.iter(|| {
                for i in 0..n {
                    black_box(service.wave_lanes(&snaps[i % len], bias, items));
                }
            })
        });
    }
    g.finish();
}

/// The reference, N times.
fn seed_lane_pc(c: &mut Criterion, ns: &[usize]) {
    let (ctx, expr, t) = lanes::seed_lane_pc();
    let mut g = c.benchmark_group("lane_positions_reference");
    for &n in ns {
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("seed_lane_pc/{n}"), |b| {
            let mut ev = Evaluator::new(&t, &ctx, EvalOptions::default());
            b.iter(|| {
                for _ in 0..n {
                    let l = ev.location(black_box(&expr)).expect("evaluates");
                    black_box(read_through(&t, &l, 64 * 8).expect("reads"));
                }
            })
        });
    }
    g.finish();
}

fn lane_positions(c: &mut Criterion) {
    let ns = [100, 1_000, 10_000];
    seed_lane_pc(c, &ns);
    positions(c, "gfx900", &ns);
    positions(c, "gfx1030", &[10_000]);
}

criterion_group!(benches, lane_positions);
criterion_main!(benches);

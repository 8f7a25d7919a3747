//! Variables of stopped waves read through their DWARF locations, per variable-lane.
//!
//! `cf_nested_if.O0g.co` (clang-19 `-O0 -g`; gfx900, wave64, and gfx1030, wave32) is
//! dispatched as in `lanes.rs` (1,024 work-items in groups of 256, pseudo-random inputs)
//! under a debugger and stopped at the first wave reaching each of the source lines 20
//! (`t = in[...]`, inside the outer IF) and 30 (`out[gid] = r`, after the join). At each
//! stop, every variable and parameter in scope, for every lane of the wave: the location
//! evaluated (`Debugger::location`, the frame base and the location list entry found for
//! the PC, the expression evaluated with the lane in focus) and the variable's bytes read
//! through it (`Debugger::read_location`: swizzled private memory, registers, or the
//! kernel argument segment). Throughput is in variable-lanes.
//!
//! The reference measured in the same run: the same variables' expressions evaluated
//! alone, without reading (`location/...` against `location_and_read/...`).

use amdgpu_lanes::{Debugger, Event, Image};
use amdgpu_sim::Device;
use amdsim_benches::lanes::{prepare_kernel, read};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn variables(c: &mut Criterion, target: &str) {
    let bytes = read(&format!("{target}/cf_nested_if.O0g.co"));
    let image = Image::parse(&bytes).expect("parses");
    let mut g = c.benchmark_group(format!("variables_{target}"));
    for line in [20u64, 30] {
        let dev = Device::new();
        let (module, launch) = prepare_kernel(&dev, &bytes, "cf_nested_if");
        let mut d = Debugger::new(&image, &dev, &module, launch);
        d.break_at_line("cf_nested_if.cl", line)
            .expect("line has code");
        match d.resume().expect("runs") {
            Event::Breakpoint { .. } => {}
            e => panic!("no stop at line {line}: {e:?}"),
        }
        let vars = d.variables().expect("variables");
        let lanes = d.wave_size().expect("wave");
        let sizes: Vec<usize> = vars
            .iter()
            .map(|v| v.byte_size.unwrap_or(4) as usize)
            .collect();
        // Every variable-lane must evaluate and read: the benchmark measures work done.
        for v in &vars {
            for l in 0..lanes {
                d.read_variable(v, l)
                    .unwrap_or_else(|e| panic!("{} lane {l}: {e}", v.name));
            }
        }
        g.throughput(Throughput::Elements(vars.len() as u64 * u64::from(lanes)));
        g.bench_function(format!("location_and_read/line{line}"), |b| {
            b.iter(|| {
                for (v, n) in vars.iter().zip(&sizes) {
                    for l in 0..lanes {
                        let loc = d.location(v, l).expect("evaluates");
                        black_box(d.read_location(&loc, l, *n).expect("reads"));
                    }
                }
            })
        });
        g.bench_function(format!("location/line{line}"), |b| {
            b.iter(|| {
                for v in &vars {
                    for l in 0..lanes {
                        black_box(d.location(v, l).expect("evaluates"));
                    }
                }
            })
        });
    }
    g.finish();
}

fn all(c: &mut Criterion) {
    variables(c, "gfx900");
    variables(c, "gfx1030");
}

criterion_group!(benches, all);
criterion_main!(benches);

//! Peak resident memory of a large dispatch: `vector_add` (gfx900) over 16 Mi
//! work-items (65,536 work-groups of 256, on rayon's default pool), against the size
//! of its three buffers (192 MiB). The inputs are written and the output checked in
//! chunks, so the host holds no copy of a buffer; the process's peak resident set
//! (`VmHWM` of `/proc/self/status`) must stay within twice the buffers. Prints the
//! figures and exits with status 1 when the bound is exceeded (a check, run with the
//! benchmarks: `cargo bench -p amdsim-benches --bench peak_memory`). On hosts without
//! `/proc/self/status` it says so and succeeds.

use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use amdsim_benches::grid;
use std::path::Path;

/// Work-items.
const N: u32 = 1 << 24;

/// A `kB` field of `/proc/self/status`, in bytes.
fn status(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line[field.len()..]
        .trim_start_matches(':')
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

fn mib(b: u64) -> f64 {
    b as f64 / (1 << 20) as f64
}

fn main() {
    let Some(start) = status("VmHWM") else {
        eprintln!("peak_memory: no /proc/self/status on this host; nothing measured");
        return;
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/bin/gfx900/vector_add.co");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dev = Device::new();
    let module = dev.load(&bytes).expect("loads");
    let a = grid::fill(&dev, N, 1);
    let b = grid::fill(&dev, N, 2);
    let c = dev.alloc(u64::from(N) * 4).expect("alloc");
    let args = vec![
        ArgValue::Ptr(a),
        ArgValue::Ptr(b),
        ArgValue::Ptr(c),
        ArgValue::U32(N),
    ];
    let launch = dev
        .launch(&module, "vector_add", LaunchConfig::new_1d(N, 256, args))
        .expect("launches");
    let before_run = status("VmHWM").unwrap_or(0);
    let t = std::time::Instant::now();
    let stats = dev.run(&launch).expect("runs");
    let elapsed = t.elapsed();
    let after_run = status("VmHWM").unwrap_or(0);
    grid::check(&dev, c, N, |i| {
        (grid::input(i, 1) + grid::input(i, 2)).to_bits()
    });
    let peak = status("VmHWM").unwrap_or(0);
    let buffers = 3 * u64::from(N) * 4;
    let ok = peak <= 2 * buffers;
    eprintln!(
        "peak_memory: vector_add gfx900 over {N} work-items ({} work-groups, {} threads, \
         {:.2} s): buffers {:.1} MiB; peak resident {:.1} MiB = {:.2}x the buffers \
         (bound 2x: {}); at start {:.1} MiB, before the dispatch {:.1} MiB, \
         grown during the dispatch {:.1} MiB",
        stats.groups,
        rayon_threads(),
        elapsed.as_secs_f64(),
        mib(buffers),
        mib(peak),
        peak as f64 / buffers as f64,
        if ok { "met" } else { "EXCEEDED" },
        mib(start),
        mib(before_run),
        mib(after_run.saturating_sub(before_run)),
    );
    if !ok {
        std::process::exit(1);
    }
}

/// The threads of rayon's global pool (the dispatch's).
fn rayon_threads() -> usize {
    rayon::current_num_threads()
}

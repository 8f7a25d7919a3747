//! Per-lane source lines at breakpoints equal what the source says for each lane's input.
//!
//! `kernels/src/divergence.cl`, first time a wave reaches line 20 (`acc = acc * 3u + k;`,
//! the then-arm of `if ((k ^ v) & 2u)` in iteration k = 0 of the odd lanes' loop):
//!
//! - `gid >= n`: the work-item returned at line 10 — finished;
//! - even `lid`: the even lanes' arm of `if (lid & 1u)` (line 14) has not run yet (the odd
//!   arm runs first in every build here) — divergent at the IF, line 14;
//! - odd `lid` with `trips = (v + lid) % 13 == 0`: never enters the loop — divergent at
//!   the loop (line 18), waiting for the lanes still in it;
//! - odd `lid`, `trips > 0`, `(0 ^ v) & 2 != 0`: takes the then-arm — active at line 20;
//! - odd `lid`, `trips > 0`, `v & 2 == 0`: has the else-arm still to run — divergent at
//!   the inner IF, line 19;
//! - lanes without a work-item (beyond the grid of 100) — outside.

use amdgpu_lanes::service::{LaneService, LaneState, work_items};
use amdgpu_lanes::{Debugger, Event, Image};
use amdgpu_sim::{ArgValue, Device, LaunchConfig};
use amdsim_sim_tests::read_kernel;

fn expected(gid: u32, n: u32, grid: u32, v: u32) -> (&'static str, Option<u64>) {
    if gid >= grid {
        return ("outside", None);
    }
    if gid >= n {
        return ("finished", None);
    }
    let lid = gid % 64;
    if lid & 1 == 0 {
        return ("divergent", Some(14));
    }
    let trips = v.wrapping_add(lid) % 13;
    if trips == 0 {
        ("divergent", Some(18))
    } else if v & 2 != 0 {
        ("active", Some(20))
    } else {
        ("divergent", Some(19))
    }
}

#[test]
fn divergence_line_20_per_lane() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for t in [
        "gfx900",
        "gfx90a",
        "gfx1030",
        "gfx1030-w64",
        "gfx906",
        "gfx1010",
    ] {
        let file = "divergence.O2g.co";
        let bytes = read_kernel(t, file).unwrap_or_else(|e| panic!("{e}"));
        let image = Image::parse(&bytes).expect("DWARF");
        let svc = LaneService::new(image.code(), Some(&image)).expect("analysis");
        let (grid, n) = (100u32, 90u32);
        let input: Vec<u32> = (0..grid)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
            .collect();
        let dev = Device::new();
        let m = dev.load(&bytes).expect("load");
        let pin = dev
            .alloc_bytes(
                &input
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect::<Vec<u8>>(),
            )
            .expect("alloc");
        let pout = dev.alloc(grid as u64 * 4).expect("alloc");
        let cfg = LaunchConfig::new_1d(
            grid,
            64,
            vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(n)],
        );
        let launch = dev.launch(&m, "divergence", cfg).expect("launch");
        let mut d = Debugger::new(&image, &dev, &m, launch);
        d.break_at_line("divergence.cl", 20)
            .expect("line 20 has code");
        let mut seen = std::collections::BTreeSet::new();
        loop {
            let ev = d.resume().expect("runs");
            let Event::Breakpoint { group, wave, .. } = ev else {
                break;
            };
            if !seen.insert((group, wave)) {
                continue; // only the first hit of each wave
            }
            let bias = d.load_bias();
            let wi = work_items(d.session().launch(), group, wave);
            let w = d.session().wave(wave).expect("stopped wave").clone();
            let lanes = svc.wave_lanes(&w, bias, wi);
            for p in &lanes.lanes {
                let gid = group[0] * 64 + wave * w.size + p.lane;
                let v = input.get(gid as usize).copied().unwrap_or(0);
                let (state, line) = expected(gid, n, grid, v);
                let got_line = p.pc.and_then(|pc| svc.source(pc, p.kind).line).map(|l| l.1);
                checked += 1;
                if p.state.word() != state || got_line != line {
                    failures.push(format!(
                        "{t} group {group:?} wave {wave} lane {} (gid {gid}, v {v:#x}): \
                         got {} at {:?}, expected {state} at {line:?}",
                        p.lane,
                        p.state.word(),
                        got_line
                    ));
                }
                if matches!(p.state, LaneState::Unknown(_)) {
                    failures.push(format!("{t}: lane {} unknown: {:?}", p.lane, p.state));
                }
            }
        }
        if seen.is_empty() {
            failures.push(format!("{t}: line 20 never reached"));
        }
    }
    assert!(checked > 300, "{checked} lanes checked");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

/// `kernels/src/cf_call.cl`, first time a wave reaches line 20 (inside the non-inlined
/// `scale`, called at line 43 by the lanes whose input has bit 3 set):
///
/// - bit 3 set: active in `scale` at line 20;
/// - bit 3 clear: never entered `scale`; in the kernel's frame they skipped the IF of
///   line 42 (no else) — divergent at the IF, line 42 (found through the return
///   address, in the caller's frame);
/// - `gid >= n`: returned at line 39 — finished; no work-item — outside.
#[test]
fn cf_call_lanes_outside_a_called_function_are_in_the_callers_frame() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for t in ["gfx900", "gfx90a", "gfx1030", "gfx1030-w64"] {
        let bytes = read_kernel(t, "cf_call.O2g.co").unwrap_or_else(|e| panic!("{e}"));
        let image = Image::parse(&bytes).expect("DWARF");
        let svc = LaneService::new(image.code(), Some(&image)).expect("analysis");
        let (grid, n) = (100u32, 90u32);
        let input: Vec<u32> = (0..grid)
            .map(|i| i.wrapping_mul(2_654_435_761) >> 9)
            .collect();
        let dev = Device::new();
        let m = dev.load(&bytes).expect("load");
        let pin = dev
            .alloc_bytes(
                &input
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect::<Vec<u8>>(),
            )
            .expect("alloc");
        let pout = dev.alloc(grid as u64 * 4).expect("alloc");
        let cfg = LaunchConfig::new_1d(
            grid,
            64,
            vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(n)],
        );
        let launch = dev.launch(&m, "cf_call", cfg).expect("launch");
        let mut d = Debugger::new(&image, &dev, &m, launch);
        d.break_at_line("cf_call.cl", 20).expect("line 20 has code");
        let mut seen = std::collections::BTreeSet::new();
        loop {
            let ev = d.resume().expect("runs");
            let Event::Breakpoint { group, wave, .. } = ev else {
                break;
            };
            if !seen.insert((group, wave)) {
                continue;
            }
            let bias = d.load_bias();
            let wi = work_items(d.session().launch(), group, wave);
            let w = d.session().wave(wave).expect("stopped wave").clone();
            let lanes = svc.wave_lanes(&w, bias, wi);
            for p in &lanes.lanes {
                let gid = group[0] * 64 + wave * w.size + p.lane;
                let v = input.get(gid as usize).copied().unwrap_or(0);
                let (state, line) = if gid >= grid {
                    ("outside", None)
                } else if gid >= n {
                    ("finished", None)
                } else if v & 8 != 0 {
                    ("active", Some(20))
                } else {
                    ("divergent", Some(42))
                };
                let got = p.pc.and_then(|pc| svc.source(pc, p.kind).line).map(|l| l.1);
                checked += 1;
                if p.state.word() != state || got != line {
                    failures.push(format!(
                        "{t} group {group:?} wave {wave} lane {} (gid {gid}, v {v:#x}): got {} \
                         at {got:?}, expected {state} at {line:?}",
                        p.lane,
                        p.state.word()
                    ));
                }
            }
        }
        if seen.is_empty() {
            failures.push(format!("{t}: line 20 never reached"));
        }
    }
    assert!(checked > 200, "{checked} lanes checked");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

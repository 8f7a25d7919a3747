//! The `gds_sync` corpus kernels (`kernels/src/gds_sync.cl`): work-groups
//! that wait on each other through GWS resources (a grid barrier, a
//! semaphore hand-off) and take turns through the ordered count, on every
//! target and build, checked against the exact host computation. Each kernel
//! runs on a fresh device after `gws_init` dispatches that set the resources
//! it uses, as a runtime does before a cooperative launch.

use amdgpu_sim::{ArgValue, Device, LaunchConfig, Module, SimError, WaveStatus};
use amdsim_sim_tests::{TARGETS, read_kernel};

const BUILDS: [&str; 3] = ["gds_sync.co", "gds_sync.O2g.co", "gds_sync.O0g.co"];

fn e(e: SimError) -> String {
    e.to_string()
}

fn words(dev: &Device, addr: u64, n: usize) -> Result<Vec<u32>, String> {
    let mut b = vec![0u8; 4 * n];
    dev.mem.read(addr, &mut b).map_err(|e| e.to_string())?;
    Ok(b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

fn upload(dev: &Device, v: &[u32]) -> Result<u64, String> {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    dev.alloc_bytes(&bytes).map_err(e)
}

/// A fresh device with the module loaded and GWS resource `r` set to `v`
/// for each `(r, v)` of `init`.
fn device(t: &str, file: &str, init: &[(u32, u32)]) -> Result<(Device, Module), String> {
    let dev = Device::new();
    let m = dev.load(&read_kernel(t, file)?).map_err(e)?;
    for &(r, v) in init {
        let cfg = LaunchConfig::new_1d(1, 1, vec![ArgValue::U32(v), ArgValue::U32(r)]);
        dev.dispatch(&m, "gws_init", cfg).map_err(e)?;
    }
    Ok((dev, m))
}

fn grid_barrier(t: &str, file: &str) -> Result<(), String> {
    let (groups, local, rounds) = (6u32, 64u32, 3u32);
    let (dev, m) = device(t, file, &[(0, groups - 1)])?;
    let n = (groups * local) as usize;
    let buf = dev.alloc(4 * n as u64).map_err(e)?;
    let out = dev.alloc(4 * n as u64).map_err(e)?;
    let cfg = LaunchConfig::new_1d(
        groups * local,
        local,
        vec![
            ArgValue::Ptr(buf),
            ArgValue::Ptr(out),
            ArgValue::U32(rounds),
        ],
    );
    let stats = dev.dispatch(&m, "gws_grid_barrier", cfg).map_err(e)?;
    if stats.groups != groups as u64 {
        return Err(format!("{} work-groups completed", stats.groups));
    }
    let mut want: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
    for r in 0..rounds {
        let prev = want.clone();
        for (i, w) in want.iter_mut().enumerate() {
            *w = prev[(i + (local * (r + 1)) as usize) % n] + r;
        }
    }
    let got = words(&dev, out, n)?;
    if got != want {
        let i = (0..n).find(|&i| got[i] != want[i]).unwrap_or(0);
        return Err(format!("out[{i}] = {}, want {}", got[i], want[i]));
    }
    Ok(())
}

fn handoff(t: &str, file: &str) -> Result<(), String> {
    let (groups, local) = (5u32, 32u32);
    let (dev, m) = device(t, file, &[(1, 0), (2, 0)])?;
    let data = dev.alloc(4 * (local as u64 + 1)).map_err(e)?;
    let out = dev.alloc(4 * ((groups - 1) * local) as u64).map_err(e)?;
    let cfg = LaunchConfig::new_1d(
        groups * local,
        local,
        vec![ArgValue::Ptr(data), ArgValue::Ptr(out)],
    );
    dev.dispatch(&m, "gws_handoff", cfg).map_err(e)?;
    let src: Vec<u32> = (0..local).map(|l| l * 3 + 5).collect();
    let mut want = Vec::new();
    for g in 0..groups - 1 {
        for l in 0..local {
            want.push(src[((l + g) % local) as usize] + g);
        }
    }
    let got = words(&dev, out, want.len())?;
    if got != want {
        return Err(format!("out {got:?}, want {want:?}"));
    }
    let sum = words(&dev, data + 4 * local as u64, 1)?[0];
    let want_sum = want.iter().fold(0u32, |a, &b| a.wrapping_add(b));
    if sum != want_sum {
        return Err(format!(
            "the producer summed {sum}, want {want_sum}: it did not wait for every consumer"
        ));
    }
    // Every permit and signal was taken.
    let st = dev.mem.gds().lock();
    if st.gws[1].counter != 0 || st.gws[2].counter != 0 || st.gws[1].queued != 0 {
        return Err(format!("resources left {:?} {:?}", st.gws[1], st.gws[2]));
    }
    Ok(())
}

fn ordered_compact(t: &str, file: &str) -> Result<(), String> {
    let (groups, local, n) = (4u32, 128u32, 500u32);
    let (dev, m) = device(t, file, &[(3, 0)])?;
    let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    let inp = upload(&dev, &input)?;
    let out = dev.alloc(4 * n as u64).map_err(e)?;
    let count = dev.alloc(4).map_err(e)?;
    let cfg = LaunchConfig::new_1d(
        groups * local,
        local,
        vec![
            ArgValue::Ptr(inp),
            ArgValue::Ptr(out),
            ArgValue::Ptr(count),
            ArgValue::U32(n),
        ],
    );
    dev.dispatch(&m, "ordered_compact", cfg).map_err(e)?;
    let want: Vec<u32> = input.iter().copied().filter(|v| v % 3 != 0).collect();
    let got_n = words(&dev, count, 1)?[0] as usize;
    if got_n != want.len() {
        return Err(format!("count {got_n}, want {}", want.len()));
    }
    let got = words(&dev, out, want.len())?;
    if got != want {
        let i = (0..want.len()).find(|&i| got[i] != want[i]).unwrap_or(0);
        return Err(format!(
            "out[{i}] = {}, want {}: the waves took their offsets out of order",
            got[i], want[i]
        ));
    }
    // The ordered counter (GDS byte M0 + offset0 = 4) holds the total.
    let mut b = [0u8; 4];
    dev.mem
        .gds()
        .lock()
        .mem
        .read(4, &mut b)
        .map_err(|e| e.to_string())?;
    if u32::from_le_bytes(b) as usize != want.len() {
        return Err(format!("GDS counter {}", u32::from_le_bytes(b)));
    }
    Ok(())
}

fn each(f: fn(&str, &str) -> Result<(), String>, skip: &[&str]) {
    let mut failures = Vec::new();
    for t in TARGETS.iter().filter(|t| !skip.contains(t)) {
        for file in BUILDS {
            if let Err(err) = f(t, file) {
                failures.push(format!("{t} {file}: {err}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gws_grid_barrier_matches_the_host() {
    each(grid_barrier, &[]);
}

#[test]
fn gws_semaphores_hand_off_between_work_groups() {
    each(handoff, &[]);
}

#[test]
fn ordered_count_gives_offsets_in_wave_order() {
    // gfx90a has no ordered count (the kernel is not built there).
    each(ordered_compact, &["gfx90a"]);
}

#[test]
fn a_grid_barrier_without_enough_arrivals_is_a_deadlock() {
    // The resource expects one more work-group than the grid has: every wave
    // waits at the first barrier, and the dispatch says so instead of hanging.
    let (dev, m) = device("gfx900", "gds_sync.co", &[(0, 4)]).unwrap();
    let buf = dev.alloc(4 * 256).unwrap();
    let out = dev.alloc(4 * 256).unwrap();
    let cfg = LaunchConfig::new_1d(
        256,
        64,
        vec![ArgValue::Ptr(buf), ArgValue::Ptr(out), ArgValue::U32(1)],
    );
    let err = dev.dispatch(&m, "gws_grid_barrier", cfg).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, SimError::Deadlock { .. }) && text.contains("GWS barrier 0"),
        "{text}"
    );
}

#[test]
fn too_many_waves_for_a_cooperative_dispatch_is_an_error() {
    let (dev, m) = device("gfx900", "gds_sync.co", &[(0, 0)]).unwrap();
    let n = 64 * 5000u32;
    let buf = dev.alloc(4 * n as u64).unwrap();
    let out = dev.alloc(4 * n as u64).unwrap();
    let cfg = LaunchConfig::new_1d(
        n,
        64,
        vec![ArgValue::Ptr(buf), ArgValue::Ptr(out), ArgValue::U32(1)],
    );
    let err = dev.dispatch(&m, "gws_grid_barrier", cfg).unwrap_err();
    assert!(
        err.to_string().contains("5000 waves (at most 4096)"),
        "{err}"
    );
}

/// A grid barrier dispatch of `gws_grid_barrier` (build `file` for `t`): `groups`
/// work-groups of 64 work-items, `rounds` rounds, resource 0 set to `groups - 1`.
/// Returns the device, the launch, the `out` buffer's address, and the addresses of
/// the kernel's `ds_gws_barrier` instructions.
fn barrier_launch(
    t: &str,
    file: &str,
    groups: u32,
    rounds: u32,
) -> Result<(Device, amdgpu_sim::Launch, u64, Vec<u64>), String> {
    let (dev, m) = device(t, file, &[(0, groups - 1)])?;
    let n = 64 * groups as u64;
    let buf = dev.alloc(4 * n).map_err(e)?;
    let out = dev.alloc(4 * n).map_err(e)?;
    let cfg = LaunchConfig::new_1d(
        64 * groups,
        64,
        vec![
            ArgValue::Ptr(buf),
            ArgValue::Ptr(out),
            ArgValue::U32(rounds),
        ],
    );
    let launch = dev.launch(&m, "gws_grid_barrier", cfg).map_err(e)?;
    let barriers = m
        .program
        .iter()
        .filter(|(_, i)| i.to_string().starts_with("ds_gws_barrier"))
        .map(|(a, _)| a)
        .collect();
    Ok((dev, launch, out, barriers))
}

/// A debugging session of a cooperative kernel keeps every work-group resident
/// (`Session::resident`) and schedules them as `Device::run` does: a session
/// stopped at every `ds_gws_barrier` (before the grid barrier) and resumed stops in
/// the order an uninterrupted run of the same schedule (`Resident::turn`, never
/// stopping) reaches them, at every work-group's wave 0 (work-item 0 of each group
/// arrives) twice a round; and the results are `Device::run`'s, word for word. Every
/// third stop, the wave is stepped over the barrier instead: it waits (unless it
/// arrives last), and `run_until_runnable` runs the other work-groups until they
/// have all arrived. On a wave64 target (one wave per group) and a wave32 one (two,
/// the second waiting at the s_barrier around the grid barrier).
#[test]
fn a_session_runs_a_cooperative_dispatch_with_every_group_resident() {
    use amdgpu_sim::debug::{Session, Stop};
    use amdgpu_sim::dispatch::{Resident, Turn};
    let (groups, rounds) = (4u32, 2u32);
    let n = 64 * groups as usize;
    for (t, file) in [
        ("gfx900", "gds_sync.O0g.co"),
        ("gfx1030", "gds_sync.O2g.co"),
    ] {
        // Device::run's results.
        let (dev, launch, out, _) = barrier_launch(t, file, groups, rounds).unwrap();
        dev.run(&launch).unwrap();
        let want = words(&dev, out, n).unwrap();
        // Where the uninterrupted schedule passes the barriers.
        let (dev, launch, _, barriers) = barrier_launch(t, file, groups, rounds).unwrap();
        let mut set = Resident::create(&launch, |_, _, err| panic!("{err}")).unwrap();
        let mut passed = Vec::new();
        while !set.is_empty() {
            let turn = set.turn(&launch, &dev.mem, |g, w| {
                if barriers.contains(&w.pc) {
                    passed.push((g, w.id));
                }
                false
            });
            assert!(!matches!(turn, Turn::Pass { progressed: false }), "{t}");
        }
        assert_eq!(
            passed.len(),
            (groups * rounds * 2) as usize,
            "{t}: {passed:?}"
        );
        // The session.
        let (dev, launch, out, barriers) = barrier_launch(t, file, groups, rounds).unwrap();
        let mut s = Session::new(&dev, launch);
        assert!(s.resident(), "{t}");
        for &b in &barriers {
            s.add_breakpoint(b);
        }
        let mut stops = Vec::new();
        loop {
            match s.resume().unwrap() {
                Stop::Breakpoint { group, wave, pc } => {
                    assert!(barriers.contains(&pc));
                    assert_eq!(s.groups().len(), groups as usize, "{t}: all resident");
                    assert_eq!(s.group().map(|g| g.id), Some(group), "{t}: focused");
                    stops.push((group, wave));
                    if stops.len() % 3 == 0 {
                        assert!(matches!(s.step(wave).unwrap(), Stop::Stepped { .. }));
                        if s.wave(wave).unwrap().status == WaveStatus::Waiting {
                            assert!(s.run_until_runnable(Some(wave)).unwrap(), "{t}");
                        }
                        assert_eq!(s.wave(wave).unwrap().status, WaveStatus::Running);
                        assert_eq!(s.group().map(|g| g.id), Some(group), "{t}");
                    }
                }
                Stop::Finished => break,
                other => panic!("{t}: {other:?}"),
            }
        }
        assert!(s.groups().is_empty() && s.has_ended([3, 0, 0]), "{t}");
        assert_eq!(words(&dev, out, n).unwrap(), want, "{t}");
        // Up to the first step, the session stops where the uninterrupted schedule
        // passes; the other work-groups that run while a stepped wave waits pass the
        // breakpoints without stopping, so later stops are some of those places.
        assert_eq!(stops[..3], passed[..3], "{t}");
        let mut left = passed.clone();
        for stop in &stops {
            let k = left.iter().position(|p| p == stop);
            assert!(k.is_some(), "{t}: stop {stop:?} is not in {passed:?}");
            left.remove(k.unwrap_or_default());
        }
    }
}

/// Resumed without stepping, a session stops exactly where the uninterrupted
/// schedule passes, in the same order.
#[test]
fn a_resumed_session_follows_the_uninterrupted_schedule() {
    use amdgpu_sim::debug::{Session, Stop};
    use amdgpu_sim::dispatch::Resident;
    let (groups, rounds) = (5u32, 3u32);
    let (dev, launch, _, barriers) =
        barrier_launch("gfx1030", "gds_sync.co", groups, rounds).unwrap();
    let mut set = Resident::create(&launch, |_, _, err| panic!("{err}")).unwrap();
    let mut passed = Vec::new();
    while !set.is_empty() {
        set.turn(&launch, &dev.mem, |g, w| {
            if barriers.contains(&w.pc) {
                passed.push((g, w.id, w.pc));
            }
            false
        });
    }
    let (dev, launch, _, barriers) =
        barrier_launch("gfx1030", "gds_sync.co", groups, rounds).unwrap();
    let mut s = Session::new(&dev, launch);
    for &b in &barriers {
        s.add_breakpoint(b);
    }
    let mut stops = Vec::new();
    while let Stop::Breakpoint { group, wave, pc } = s.resume().unwrap() {
        stops.push((group, wave, pc));
    }
    assert_eq!(stops, passed);
}

/// A grid barrier that one work-group too many is expected at is a deadlock for the
/// session too, naming the resource, every time it is resumed; a one-group grid runs
/// as an ordinary kernel's, one work-group at a time (the schedule is the same).
#[test]
fn a_session_reports_a_grid_barrier_deadlock() {
    use amdgpu_sim::debug::Session;
    let (dev, m) = device("gfx900", "gds_sync.co", &[(0, 4)]).unwrap();
    let buf = dev.alloc(4 * 256).unwrap();
    let out = dev.alloc(4 * 256).unwrap();
    let args = vec![ArgValue::Ptr(buf), ArgValue::Ptr(out), ArgValue::U32(1)];
    let cfg = LaunchConfig::new_1d(256, 64, args.clone());
    let launch = dev.launch(&m, "gws_grid_barrier", cfg).unwrap();
    let mut s = Session::new(&dev, launch);
    for _ in 0..2 {
        let err = s.resume().unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, SimError::Deadlock { .. }) && text.contains("waits on GWS barrier 0"),
            "{text}"
        );
    }
    let one = dev
        .launch(
            &m,
            "gws_grid_barrier",
            LaunchConfig::new_1d(64, 64, args.clone()),
        )
        .unwrap();
    assert!(!Session::new(&dev, one).resident());
}

/// At each of the 16 stops at a `ds_gws_barrier` in turn (4 work-groups, 2 barriers a
/// round, 2 rounds), the stopped wave is stepped, instruction by instruction, through
/// the barrier (the others run until it can go on: `run_until_runnable`) and on until it
/// waits at the next one or ends; resumed, the dispatch ends (steps outside the schedule
/// count as progress: no deadlock) with the source's results.
#[test]
fn stepping_the_wave_of_any_stop_keeps_the_results() {
    use amdgpu_sim::debug::{Session, Stop};
    for (t, file) in [("gfx900", "gds_sync.co"), ("gfx1030", "gds_sync.O0g.co")] {
        for k in 0..16 {
            let (dev, launch, out, barriers) = barrier_launch(t, file, 4, 2).unwrap();
            let mut s = Session::new(&dev, launch);
            for &b in &barriers {
                s.add_breakpoint(b);
            }
            let mut stops = 0;
            loop {
                let stop = s.resume().unwrap_or_else(|e| panic!("{t} {file} {k}: {e}"));
                let Stop::Breakpoint { wave, .. } = stop else {
                    break;
                };
                stops += 1;
                if stops != k + 1 {
                    continue;
                }
                let mut steps = 0;
                loop {
                    match s.step(wave).unwrap() {
                        Stop::Stepped { .. } => {}
                        Stop::NotRunnable { status, .. } if status != WaveStatus::Done => {
                            if !s.run_until_runnable(Some(wave)).unwrap() {
                                break;
                            }
                        }
                        _ => break,
                    }
                    let w = s.wave(wave);
                    if w.is_none_or(|w| w.status == WaveStatus::Waiting && steps > 1) {
                        break;
                    }
                    steps += 1;
                    assert!(steps < 100_000, "{t} {file} {k}: no end to the steps");
                }
            }
            let want: Vec<u32> = (0..256).map(|i| 7 * ((i + 192) % 256) + 2).collect();
            assert_eq!(words(&dev, out, 256).unwrap(), want, "{t} {file} {k}");
        }
    }
}

/// The waves of every work-group stepped by hand from the first stop of the dispatch
/// (work-group 0 at the kernel's entry, before anything has run): each focused in turn
/// (`focus_group`) and stepped until it waits at a grid barrier, the last arrival (which
/// goes on) until it waits at the next one. Resumed, the dispatch ends with the
/// source's results.
#[test]
fn every_work_group_can_be_stepped_by_hand() {
    use amdgpu_sim::debug::{Session, Stop};
    let (dev, launch, out, _) = barrier_launch("gfx900", "gds_sync.co", 4, 2).unwrap();
    let entry = launch.kernel.entry;
    let mut s = Session::new(&dev, launch);
    s.add_breakpoint(entry);
    let first = s.resume().unwrap();
    assert!(
        matches!(
            first,
            Stop::Breakpoint {
                group: [0, 0, 0],
                wave: 0,
                ..
            }
        ),
        "{first:?}"
    );
    s.remove_breakpoint(entry);
    for g in 0..4 {
        assert!(s.focus_group([g, 0, 0]).unwrap());
        for _ in 0..100_000 {
            let before = s.wave(0).unwrap().status;
            match s.step(0).unwrap() {
                Stop::Stepped { .. } => {}
                other => panic!("work-group {g}: {other:?}"),
            }
            let now = s.wave(0).unwrap().status;
            if now == WaveStatus::Waiting && before != WaveStatus::Waiting {
                break;
            }
        }
        assert_eq!(
            s.wave(0).unwrap().status,
            WaveStatus::Waiting,
            "work-group {g}"
        );
    }
    assert_eq!(s.resume().unwrap(), Stop::Finished);
    let want: Vec<u32> = (0..256).map(|i| 7 * ((i + 192) % 256) + 2).collect();
    assert_eq!(words(&dev, out, 256).unwrap(), want);
}

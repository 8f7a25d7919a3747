//! Behaviour of the simulator around the kernels: faults, the instruction
//! cap, determinism across thread counts, partial waves, code object v4, and
//! the stepping interface.
#![allow(clippy::needless_range_loop)]

use amdgpu_sim::debug::{Session, Stop};
use amdgpu_sim::{ArgValue, Device, LaunchConfig, Module, SimError, Space, WaveStatus};
use amdsim_sim_tests::read_kernel;

fn load(dev: &Device, target: &str, file: &str) -> Module {
    let bytes = read_kernel(target, file).unwrap_or_else(|e| panic!("{e}"));
    dev.load(&bytes)
        .unwrap_or_else(|e| panic!("{target}/{file}: {e}"))
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn read_f32s(dev: &Device, a: u64, n: usize) -> Vec<f32> {
    dev.read(a, n * 4)
        .expect("read back")
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

struct VecAdd {
    a: Vec<f32>,
    b: Vec<f32>,
    pa: u64,
    pb: u64,
    pc: u64,
}

fn vec_add_setup(dev: &Device, n: usize) -> VecAdd {
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32 * 3.25).collect();
    let pa = dev.alloc_bytes(&f32s(&a)).unwrap();
    let pb = dev.alloc_bytes(&f32s(&b)).unwrap();
    let pc = dev.alloc(n as u64 * 4).unwrap();
    VecAdd { a, b, pa, pb, pc }
}

fn vec_add_args(v: &VecAdd, n: u32) -> Vec<ArgValue> {
    vec![
        ArgValue::Ptr(v.pa),
        ArgValue::Ptr(v.pb),
        ArgValue::Ptr(v.pc),
        ArgValue::U32(n),
    ]
}

#[test]
fn partial_groups_and_waves_mask_exec() {
    for t in ["gfx900", "gfx1030", "gfx1030-w64"] {
        let dev = Device::new();
        let m = load(&dev, t, "vector_add.co");
        // 1000 work-items in groups of 96: the last group has 40 items, and
        // with n = 1000 the bounds check never masks; lanes past the grid
        // must simply not exist.
        let v = vec_add_setup(&dev, 1000);
        let s = dev
            .dispatch(
                &m,
                "vector_add",
                LaunchConfig::new_1d(1000, 96, vec_add_args(&v, 1000)),
            )
            .unwrap();
        assert_eq!(s.groups, 11, "{t}");
        let c = read_f32s(&dev, v.pc, 1000);
        for i in 0..1000 {
            assert_eq!(c[i], v.a[i] + v.b[i], "{t} element {i}");
        }
    }
}

#[test]
fn code_object_v4_hidden_arguments() {
    let dev = Device::new();
    let m = load(&dev, "gfx900", "vector_add.cov4.co");
    let v = vec_add_setup(&dev, 300);
    dev.dispatch(
        &m,
        "vector_add",
        LaunchConfig::new_1d(320, 64, vec_add_args(&v, 300)),
    )
    .unwrap();
    let c = read_f32s(&dev, v.pc, 300);
    for i in 0..300 {
        assert_eq!(c[i], v.a[i] + v.b[i], "element {i}");
    }
}

#[test]
fn bad_pointer_is_a_reported_fault() {
    let dev = Device::new();
    let m = load(&dev, "gfx900", "vector_add.co");
    let mut v = vec_add_setup(&dev, 64);
    v.pc = 0xdead_0000; // never mapped
    let err = dev
        .dispatch(
            &m,
            "vector_add",
            LaunchConfig::new_1d(64, 64, vec_add_args(&v, 64)),
        )
        .unwrap_err();
    match err {
        SimError::Fault { fault, lane, at } => {
            assert_eq!(fault.space, Space::Global);
            assert_eq!(fault.addr, 0xdead_0000, "lane 0 stores at the base");
            assert_eq!(lane, 0);
            assert!(at.inst.starts_with("global_store_dword"), "{}", at.inst);
            assert!(at.pc >= m.program.base());
        }
        other => panic!("expected a fault, got {other}"),
    }
}

#[test]
fn wrong_argument_count_is_rejected() {
    let dev = Device::new();
    let m = load(&dev, "gfx1030", "vector_add.co");
    let err = dev
        .launch(
            &m,
            "vector_add",
            LaunchConfig::new_1d(64, 64, vec![ArgValue::U32(1)]),
        )
        .unwrap_err();
    assert!(matches!(err, SimError::Dispatch(_)), "{err}");
    let err = dev
        .launch(&m, "nope", LaunchConfig::new_1d(64, 64, vec![]))
        .unwrap_err();
    assert!(err.to_string().contains("nope"));
}

#[test]
fn instruction_cap_stops_runaway_loops() {
    let dev = Device::new();
    let m = load(&dev, "gfx1030", "asm_salu_loop.co");
    let out = dev.alloc(64 * 4).unwrap();
    let mut cfg = LaunchConfig::new_1d(64, 64, vec![ArgValue::Ptr(out), ArgValue::U32(u32::MAX)]);
    cfg.max_instructions = 5000;
    let err = dev.dispatch(&m, "asm_salu_loop", cfg).unwrap_err();
    match err {
        SimError::InstructionLimit { limit, at } => {
            assert_eq!(limit, 5000);
            assert!(!at.inst.is_empty());
        }
        other => panic!("expected the instruction limit, got {other}"),
    }
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let run = |threads: usize| -> Vec<u8> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let dev = Device::new();
            let m = load(&dev, "gfx90a", "atomics.co");
            let n = 2000u32;
            let input: Vec<u8> = (0..n)
                .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 7).to_le_bytes())
                .collect();
            let pin = dev.alloc_bytes(&input).unwrap();
            let bins = dev.alloc(64 * 4).unwrap();
            let stats = dev.alloc(8).unwrap();
            let cfg = LaunchConfig::new_1d(
                2048,
                64,
                vec![
                    ArgValue::Ptr(pin),
                    ArgValue::Ptr(bins),
                    ArgValue::Ptr(stats),
                    ArgValue::U32(61),
                    ArgValue::U32(n),
                ],
            );
            dev.dispatch(&m, "atomics", cfg).unwrap();
            let mut r = dev.read(bins, 64 * 4).unwrap();
            r.extend(dev.read(stats, 8).unwrap());
            r
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_ne!(one.iter().map(|&b| b as u32).sum::<u32>(), 0);
}

#[test]
fn breakpoint_step_and_inspect() {
    let dev = Device::new();
    let m = load(&dev, "gfx900", "vector_add.co");
    let v = vec_add_setup(&dev, 100);
    let launch = dev
        .launch(
            &m,
            "vector_add",
            LaunchConfig::new_1d(128, 64, vec_add_args(&v, 100)),
        )
        .unwrap();
    let add_pc = m
        .program
        .iter()
        .find(|(_, i)| i.to_string().starts_with("v_add_f32"))
        .map(|(a, _)| a)
        .expect("v_add_f32 in vector_add");
    let mut s = Session::new(&dev, launch);
    s.add_breakpoint(add_pc);
    // Group 0, wave 0 stops before the add.
    let stop = s.resume().unwrap();
    assert_eq!(
        stop,
        Stop::Breakpoint {
            group: [0, 0, 0],
            wave: 0,
            pc: add_pc
        }
    );
    let w = s.wave(0).unwrap();
    assert_eq!(w.pc, add_pc);
    assert_eq!(w.exec.0, u64::MAX);
    // v_add_f32 v2, v6, v7: v6 = a[i], v7 = b[i].
    for lane in [0usize, 5, 63] {
        assert_eq!(w.vgpr_lane(6, lane), Some(v.a[lane].to_bits()));
        assert_eq!(w.vgpr_lane(7, lane), Some(v.b[lane].to_bits()));
    }
    // One step executes the add.
    let stop = s.step(0).unwrap();
    assert!(matches!(stop, Stop::Stepped { wave: 0, .. }));
    let w = s.wave(0).unwrap();
    assert_eq!(w.vgpr_lane(2, 9), Some((v.a[9] + v.b[9]).to_bits()));
    assert!(w.pc > add_pc);
    // Memory through the session.
    let bytes = s.read_memory(Space::Global, 0, 0, v.pa + 4, 4).unwrap();
    assert_eq!(bytes, v.a[1].to_le_bytes());
    // The second group (lanes 64..100, 36 active) reaches the breakpoint too.
    let stop = s.resume().unwrap();
    assert_eq!(
        stop,
        Stop::Breakpoint {
            group: [1, 0, 0],
            wave: 0,
            pc: add_pc
        }
    );
    assert_eq!(s.wave(0).unwrap().exec.0, (1u64 << 36) - 1);
    assert_eq!(s.resume().unwrap(), Stop::Finished);
    let c = read_f32s(&dev, v.pc, 100);
    for i in 0..100 {
        assert_eq!(c[i], v.a[i] + v.b[i]);
    }
}

#[test]
fn barrier_waits_for_the_group_when_stepping() {
    let dev = Device::new();
    let m = load(&dev, "gfx900", "asm_lanes.co");
    let input: Vec<u8> = (0..128u32).flat_map(|i| i.to_le_bytes()).collect();
    let pin = dev.alloc_bytes(&input).unwrap();
    let pout = dev.alloc(128 * 4).unwrap();
    let launch = dev
        .launch(
            &m,
            "asm_lanes",
            LaunchConfig::new_1d(128, 128, vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout)]),
        )
        .unwrap();
    let mut s = Session::new(&dev, launch);
    // Step wave 0 until it waits at the barrier.
    let mut n = 0;
    loop {
        match s.step(0).unwrap() {
            Stop::Stepped { .. } => n += 1,
            Stop::NotRunnable { status, .. } => {
                assert_eq!(status, WaveStatus::Barrier);
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(n < 1000, "wave 0 never reached the barrier");
    }
    assert_eq!(s.wave(1).unwrap().status, WaveStatus::Running);
    assert_eq!(s.resume().unwrap(), Stop::Finished);
    let out = dev.read(pout, 4).unwrap();
    // out[0] = x[127] + 3 * x[1] + x[0] + (x[1] << 16) with x[i] = i.
    assert_eq!(
        u32::from_le_bytes([out[0], out[1], out[2], out[3]]),
        127 + 3 + (1 << 16)
    );
}

#[test]
fn private_memory_is_readable_per_lane() {
    let dev = Device::new();
    let m = load(&dev, "gfx1030", "private_array.co");
    let input: Vec<u8> = (0..32u32).flat_map(|i| (i * 11).to_le_bytes()).collect();
    let pin = dev.alloc_bytes(&input).unwrap();
    let pout = dev.alloc(32 * 4).unwrap();
    let launch = dev
        .launch(
            &m,
            "private_array",
            LaunchConfig::new_1d(
                32,
                32,
                vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout), ArgValue::U32(32)],
            ),
        )
        .unwrap();
    // Stop at the first scratch load: by then buf[] is in private memory.
    let load_pc = m
        .program
        .iter()
        .find(|(_, i)| i.to_string().starts_with("buffer_load_dword"))
        .map(|(a, _)| a)
        .expect("a scratch load");
    let mut s = Session::new(&dev, launch);
    s.add_breakpoint(load_pc);
    assert!(matches!(s.resume().unwrap(), Stop::Breakpoint { .. }));
    // buf[k] = v * (k + 1) + lid, scattered writes aside: check the words
    // the scatter (k * 7 + v + lid) % 80 for k < 8 cannot have touched.
    for lane in [0u32, 7, 31] {
        let v = lane * 11;
        let touched: Vec<u32> = (0..8).map(|k| (v + k * 7 + lane) % 80).collect();
        for k in 0..80u32 {
            if touched.contains(&k) {
                continue;
            }
            let b = s
                .read_memory(Space::Private, 0, lane, k as u64 * 4, 4)
                .unwrap();
            let got = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            assert_eq!(got, v * (k + 1) + lane, "lane {lane} buf[{k}]");
        }
    }
    assert_eq!(s.resume().unwrap(), Stop::Finished);
}

#[test]
fn a_fault_keeps_the_other_work_groups_results() {
    use amdgpu_sim::RunOptions;
    let dev = Device::new();
    let m = load(&dev, "gfx900", "vector_add.co");
    // Five groups of 64 write c, which holds only the first group's 64 elements.
    let n = 320usize;
    let mut v = vec_add_setup(&dev, n);
    v.pc = dev.alloc(64 * 4).unwrap();
    let launch = dev
        .launch(
            &m,
            "vector_add",
            LaunchConfig::new_1d(n as u32, 64, vec_add_args(&v, n as u32)),
        )
        .unwrap();
    let opts = RunOptions {
        max_faults: 2,
        ..RunOptions::default()
    };
    let report = dev.run_with(&launch, &opts);
    assert!(!report.ok());
    assert_eq!(report.fault_count, 4, "groups 1..5 each fault");
    assert_eq!(report.faults.len(), 2, "the first two are kept in full");
    assert_eq!(report.stats.groups, 1, "group 0 completed");
    assert_eq!(report.faults[0].group, [1, 0, 0]);
    match &report.faults[0].error {
        SimError::Fault { fault, lane, at } => {
            assert_eq!(fault.addr, v.pc + 256, "one byte past the 64 elements");
            assert_eq!(*lane, 0);
            assert_eq!(at.group, [1, 0, 0]);
        }
        other => panic!("expected a fault, got {other}"),
    }
    let c = read_f32s(&dev, v.pc, 64);
    for i in 0..64 {
        assert_eq!(c[i], v.a[i] + v.b[i], "group 0's element {i} is kept");
    }
    // Stopping at the first fault runs fewer groups.
    let stop = RunOptions {
        stop_on_fault: true,
        ..RunOptions::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let report = pool.install(|| dev.run_with(&launch, &stop));
    assert_eq!(report.fault_count, 1, "{report:?}");
    assert!(matches!(report.stopped, Some(amdgpu_sim::Stopped::Fault)));
}

#[test]
fn out_of_bounds_is_exact_to_the_byte() {
    // 64 work-items write a buffer of one element: lane 1 faults, although
    // the rest of the page is mapped.
    let dev = Device::new();
    let m = load(&dev, "gfx1030", "vector_add.co");
    let mut v = vec_add_setup(&dev, 64);
    v.pc = dev.alloc(4).unwrap();
    let err = dev
        .dispatch(
            &m,
            "vector_add",
            LaunchConfig::new_1d(64, 64, vec_add_args(&v, 64)),
        )
        .unwrap_err();
    match err {
        SimError::Fault { fault, lane, .. } => {
            assert_eq!(lane, 1);
            assert_eq!(fault.addr, v.pc + 4);
        }
        other => panic!("expected a fault, got {other}"),
    }
    // The lanes before the faulting one have stored (lane order), although
    // the wave's lanes all fall in one page (whose one-lock path declines
    // such a store and leaves it to the per-lane path).
    assert_eq!(read_f32s(&dev, v.pc, 1), [v.a[0] + v.b[0]]);
}

#[test]
fn runaway_kernels_stop_at_the_deadline_or_on_request() {
    use amdgpu_sim::{RunOptions, Stopped};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};
    let dev = Device::new();
    let m = load(&dev, "gfx1030", "asm_salu_loop.co");
    let out = dev.alloc(256 * 4).unwrap();
    let mut cfg = LaunchConfig::new_1d(256, 64, vec![ArgValue::Ptr(out), ArgValue::U32(u32::MAX)]);
    cfg.max_instructions = u64::MAX;
    let launch = dev.launch(&m, "asm_salu_loop", cfg).unwrap();
    let start = Instant::now();
    let report = dev.run_with(
        &launch,
        &RunOptions {
            timeout: Some(Duration::from_millis(200)),
            ..RunOptions::default()
        },
    );
    assert!(start.elapsed() < Duration::from_secs(10), "prompt");
    assert_eq!(report.stopped, Some(Stopped::Timeout));
    assert!(!report.interrupted.is_empty());
    assert!(report.interrupted.iter().any(|w| w.executed > 1000));
    for w in &report.interrupted {
        assert!(!w.inst.is_empty(), "{w:?}");
        assert!(launch.program.at(w.pc).is_some());
    }
    let cancel = Arc::new(AtomicBool::new(false));
    let c2 = cancel.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        c2.store(true, Ordering::Relaxed);
    });
    let report = dev.run_with(
        &launch,
        &RunOptions {
            cancel: Some(cancel),
            ..RunOptions::default()
        },
    );
    t.join().unwrap();
    assert_eq!(report.stopped, Some(Stopped::Cancelled));
    assert_eq!(report.stats.groups, 0);
}

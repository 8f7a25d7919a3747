//! The runtime without HIP: a code object built by Debian's hipcc (code
//! object v4) is loaded, its kernel dispatched through an AQL queue the way
//! ROCclr does it (write index, packet body, header last, doorbell), and the
//! results and signals checked; barrier packets hold later packets back; a
//! faulting kernel reaches the queue's error callback with ROCr's status.

use amdsim_host::agent::Card;
use amdsim_host::loader::{self, SymbolBody};
use amdsim_host::queue::Queue;
use amdsim_host::runtime::{Runtime, Settings};
use amdsim_host::signal::{Condition, Signal};
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};
use std::time::Duration;

const CO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../kernels/hip/bin/hipcc/module_api_kernels.gfx900.co"
);

fn runtime() -> Arc<Runtime> {
    Runtime::new(Settings {
        card: Card::for_target("gfx900").unwrap(),
        max_instructions: 1 << 24,
        capture: None,
    })
    .unwrap()
}

/// Writes a kernel dispatch packet (or, with `kernel` 0, a barrier-AND
/// packet on `deps`) the way ROCclr does: claim a slot, write the body,
/// publish the header last, ring the doorbell.
#[allow(clippy::too_many_arguments)]
fn submit(
    rt: &Runtime,
    q: &Queue,
    kernel: u64,
    kernarg: u64,
    grid: u32,
    group: u16,
    deps: &[u64],
    completion: u64,
) {
    let index = q.write_index().fetch_add(1, Ordering::AcqRel);
    let slot = q.ring + (index % q.size as u64) * 64;
    let mut p = [0u8; 64];
    let header = if kernel != 0 {
        p[4..6].copy_from_slice(&group.to_le_bytes());
        p[6..8].copy_from_slice(&1u16.to_le_bytes());
        p[8..10].copy_from_slice(&1u16.to_le_bytes());
        p[12..16].copy_from_slice(&grid.to_le_bytes());
        p[16..20].copy_from_slice(&1u32.to_le_bytes());
        p[20..24].copy_from_slice(&1u32.to_le_bytes());
        p[32..40].copy_from_slice(&kernel.to_le_bytes());
        p[40..48].copy_from_slice(&kernarg.to_le_bytes());
        // KERNEL_DISPATCH, barrier, system-scope fences; setup: 1 dimension.
        2 | 1 << 8 | 2 << 9 | 2 << 11 | 1 << 16
    } else {
        for (i, d) in deps.iter().enumerate() {
            p[8 + i * 8..16 + i * 8].copy_from_slice(&d.to_le_bytes());
        }
        3 | 1 << 8 | 2 << 9 | 2 << 11
    };
    p[56..64].copy_from_slice(&completion.to_le_bytes());
    // SAFETY: the slot belongs to this producer until its header is published.
    unsafe {
        std::ptr::copy_nonoverlapping(p[4..].as_ptr(), (slot + 4) as *mut u8, 60);
        let h = std::sync::atomic::AtomicU32::from_ptr(slot as *mut u32);
        h.store(header, Ordering::Release);
    }
    q.doorbell.store(index as i64, &rt.notifier);
}

fn kernel_object(l: &loader::Loaded, name: &str) -> u64 {
    match &l.symbol(name).unwrap().body {
        SymbolBody::Kernel(k) => k.object,
        _ => panic!("{name} is not a kernel"),
    }
}

fn variable(l: &loader::Loaded, name: &str) -> u64 {
    match &l.symbol(name).unwrap().body {
        SymbolBody::Variable(v) => v.address,
        _ => panic!("{name} is not a variable"),
    }
}

/// Writes `args` (little-endian bytes) into fresh host-shared kernarg memory.
fn kernarg(rt: &Runtime, args: &[u8]) -> u64 {
    let k = rt.memory.alloc_shared(&rt.device, 256, None).unwrap();
    // SAFETY: 256 fresh bytes.
    unsafe { std::ptr::copy_nonoverlapping(args.as_ptr(), k as *mut u8, args.len()) };
    k
}

#[test]
fn a_dispatch_packet_runs_the_kernel_and_signals_completion() {
    let rt = runtime();
    let bytes = std::fs::read(CO).unwrap();
    let l = loader::load(&rt.device, &bytes).unwrap();
    rt.register(&l);
    let n = 300usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 7 - 100).collect();
    let inb: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let din = rt
        .memory
        .alloc_device(&rt.device, inb.len() as u64, 3)
        .unwrap();
    let dout = rt
        .memory
        .alloc_device(&rt.device, inb.len() as u64, 3)
        .unwrap();
    // SAFETY: host and device ranges of the right sizes.
    unsafe {
        rt.memory
            .copy(&rt.device, din, inb.as_ptr() as u64, inb.len() as u64)
    }
    .unwrap();
    let a = 3i32;
    let mut args = Vec::new();
    args.extend_from_slice(&dout.to_le_bytes());
    args.extend_from_slice(&din.to_le_bytes());
    args.extend_from_slice(&a.to_le_bytes());
    args.extend_from_slice(&(n as i32).to_le_bytes());
    let ka = kernarg(&rt, &args);
    let q = Queue::create(&rt, 64, 0, None).unwrap();
    let done = rt.create_signal(1).unwrap();
    // HIP's grids are whole blocks (the last one's work-items past n do nothing).
    submit(
        &rt,
        &q,
        kernel_object(&l, "mod_axpy.kd"),
        ka,
        320,
        64,
        &[],
        done.0,
    );
    let v = done.wait(
        Condition::Eq,
        0,
        Some(Duration::from_secs(60)),
        &rt.notifier,
    );
    assert_eq!(v, 0, "the completion signal is decremented once");
    let mut out = vec![0u8; inb.len()];
    // SAFETY: as above.
    unsafe {
        rt.memory
            .copy(&rt.device, out.as_mut_ptr() as u64, dout, out.len() as u64)
    }
    .unwrap();
    // mod_table = {3, 1, 4, 1, 5, 9, 2, 6}, mod_scale = 10 (the source's
    // initialisers), so out[i] = in[i] * a + table[i % 8] * 10.
    let table = [3, 1, 4, 1, 5, 9, 2, 6];
    for i in 0..n {
        let got = i32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!(got, input[i] * a + table[i % 8] * 10, "out[{i}]");
    }
    let counter = rt.device.read(variable(&l, "mod_counter"), 4).unwrap();
    assert_eq!(u32::from_le_bytes(counter.try_into().unwrap()), n as u32);
    assert_eq!(q.read_index().load(Ordering::Acquire), 1);
    let header = AtomicU16::new(0);
    // SAFETY: the ring's first slot, processed.
    header.store(unsafe { *(q.ring as *const u16) }, Ordering::Relaxed);
    assert_eq!(
        header.load(Ordering::Relaxed) & 0xff,
        1,
        "the slot is INVALID again"
    );
    q.stop(&rt.notifier);
}

#[test]
fn a_barrier_packet_holds_later_packets_until_its_signal() {
    let rt = runtime();
    let bytes = std::fs::read(CO).unwrap();
    let l = loader::load(&rt.device, &bytes).unwrap();
    rt.register(&l);
    let dout = rt.memory.alloc_device(&rt.device, 64 * 4, 3).unwrap();
    let din = rt.memory.alloc_device(&rt.device, 64 * 4, 3).unwrap();
    let mut args = Vec::new();
    args.extend_from_slice(&dout.to_le_bytes());
    args.extend_from_slice(&din.to_le_bytes());
    args.extend_from_slice(&1i32.to_le_bytes());
    args.extend_from_slice(&64i32.to_le_bytes());
    let ka = kernarg(&rt, &args);
    let q = Queue::create(&rt, 64, 0, None).unwrap();
    let gate = rt.create_signal(1).unwrap();
    let done = rt.create_signal(1).unwrap();
    submit(&rt, &q, 0, 0, 0, 0, &[gate.0], 0);
    submit(
        &rt,
        &q,
        kernel_object(&l, "mod_axpy.kd"),
        ka,
        64,
        64,
        &[],
        done.0,
    );
    let v = done.wait(
        Condition::Eq,
        0,
        Some(Duration::from_millis(300)),
        &rt.notifier,
    );
    assert_eq!(v, 1, "the dispatch ran before the barrier's signal was 0");
    assert_eq!(q.read_index().load(Ordering::Acquire), 0);
    gate.store(0, &rt.notifier);
    let v = done.wait(
        Condition::Eq,
        0,
        Some(Duration::from_secs(60)),
        &rt.notifier,
    );
    assert_eq!(v, 0);
    assert_eq!(q.read_index().load(Ordering::Acquire), 2);
    q.stop(&rt.notifier);
}

static FAULT_STATUS: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn on_error(status: u32, _q: *mut u8, _data: *mut u8) {
    FAULT_STATUS.store(status, Ordering::SeqCst);
}

#[test]
fn a_faulting_kernel_reaches_the_error_callback_with_rocrs_status() {
    let rt = runtime();
    let bytes = std::fs::read(CO).unwrap();
    let l = loader::load(&rt.device, &bytes).unwrap();
    rt.register(&l);
    let mut args = Vec::new();
    args.extend_from_slice(&0x10u64.to_le_bytes()); // out: a wild pointer
    args.extend_from_slice(&0x20u64.to_le_bytes());
    args.extend_from_slice(&1i32.to_le_bytes());
    args.extend_from_slice(&64i32.to_le_bytes());
    let ka = kernarg(&rt, &args);
    let q = Queue::create(&rt, 64, 0, Some((on_error, 0))).unwrap();
    let done = rt.create_signal(1).unwrap();
    submit(
        &rt,
        &q,
        kernel_object(&l, "mod_axpy.kd"),
        ka,
        64,
        64,
        &[],
        done.0,
    );
    let t = std::time::Instant::now();
    while FAULT_STATUS.load(Ordering::SeqCst) == 0 && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    // HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, as ROCr reports a page fault.
    assert_eq!(FAULT_STATUS.load(Ordering::SeqCst), 41);
    assert_eq!(
        Signal(done.0).load(),
        1,
        "a failed dispatch does not complete"
    );
}

/// A `__device__` pointer initialised with another global's address holds
/// that global's loaded address: the loader applied the code object's
/// `R_AMDGPU_RELATIVE64` relocation (without it, the pointer reads 0).
#[test]
fn pointers_in_global_data_are_relocated() {
    let rt = runtime();
    let bytes = std::fs::read(CO).unwrap();
    let l = loader::load(&rt.device, &bytes).unwrap();
    let ptr = rt.device.read(variable(&l, "mod_ptr"), 8).unwrap();
    let ptr = u64::from_le_bytes(ptr.try_into().unwrap());
    assert_eq!(
        ptr,
        variable(&l, "mod_table") + 8,
        "mod_ptr = &mod_table[2]"
    );
}

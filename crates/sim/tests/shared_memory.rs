//! Global memory shared across threads, as an HSA runtime uses it: mapping and
//! freeing (`&self`) while other threads run dispatches, host memory mapped at
//! its own address ([`Device::map_host`]) that host threads and kernels read,
//! write and update atomically at the same time, and freed pages faulting.

use amdgpu_sim::error::FaultKind;
use amdgpu_sim::memory::{GlobalMemory, PAGE, PageCursor};
use amdgpu_sim::{ArgValue, Device, LaunchConfig, Module, SimError};
use amdsim_sim_tests::read_kernel;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

/// One page of host memory, page aligned, read and written by the host
/// through atomics.
#[repr(C, align(4096))]
struct HostPage([AtomicU32; 1024]);

/// A page-aligned host buffer of dwords.
struct HostBuf(Box<[HostPage]>);

impl HostBuf {
    fn new(words: usize) -> Self {
        let pages = words.div_ceil(1024).max(1);
        HostBuf(
            (0..pages)
                .map(|_| HostPage(std::array::from_fn(|_| AtomicU32::new(0))))
                .collect(),
        )
    }
    fn addr(&self) -> u64 {
        self.0.as_ptr() as u64
    }
    fn word(&self, i: usize) -> &AtomicU32 {
        &self.0[i / 1024].0[i % 1024]
    }
    /// Maps the first `words` dwords into `dev` at their own address.
    fn map(&self, dev: &Device, words: usize) {
        // SAFETY: every test declares its buffers before the device, so the
        // device (and with it the mapping) is dropped first, and frees the
        // mapping before dropping a buffer any earlier; the host touches the
        // buffers only through atomics.
        unsafe { dev.map_host(self.addr(), words as u64 * 4) }.expect("maps host memory");
    }
}

fn load(dev: &Device, target: &str, file: &str) -> Module {
    let bytes = read_kernel(target, file).unwrap_or_else(|e| panic!("{e}"));
    dev.load(&bytes)
        .unwrap_or_else(|e| panic!("{target}/{file}: {e}"))
}

/// Runs `f` on another thread and fails (instead of hanging) when it does not
/// finish within `secs`: a deadlock between mapping and running shows as a
/// failure.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|e| panic!("no result within {secs} s (deadlock?): {e}"))
}

#[test]
fn device_is_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Device>();
    shared::<GlobalMemory>();
}

/// One thread maps, writes, reads and frees buffers (simulator pages and host
/// pages) while another runs vector_add dispatches over buffers of its own,
/// allocated and freed as it goes; the dispatches' results are right and
/// nothing deadlocks.
#[test]
fn mapping_and_freeing_while_a_dispatch_runs() {
    within(300, || {
        let dev = Arc::new(Device::new());
        let m = load(&dev, "gfx900", "vector_add.co");
        let done = Arc::new(AtomicBool::new(false));
        let mapper = {
            let (dev, done) = (dev.clone(), done.clone());
            std::thread::spawn(move || {
                let host = HostBuf::new(3000);
                let mut rounds = 0u32;
                while !done.load(Ordering::Acquire) || rounds < 50 {
                    let size = 1 + (rounds as u64 * 997) % (5 * PAGE);
                    let a = dev.alloc(size).expect("alloc");
                    let data: Vec<u8> = (0..size).map(|i| (i as u32 ^ rounds) as u8).collect();
                    dev.write(a, &data).expect("write");
                    assert_eq!(dev.read(a, data.len()).expect("read"), data);
                    dev.free(a).expect("free");
                    assert!(dev.read(a, 1).is_err(), "freed");
                    host.map(&dev, 3000);
                    dev.write(host.addr() + 4 * 2999, &rounds.to_le_bytes())
                        .expect("write host");
                    assert_eq!(host.word(2999).load(Ordering::Acquire), rounds);
                    dev.free(host.addr()).expect("free host");
                    rounds += 1;
                }
                rounds
            })
        };
        let n = 5000u32;
        for round in 0..4u32 {
            let a: Vec<f32> = (0..n).map(|i| (i + round) as f32).collect();
            let b: Vec<f32> = (0..n).map(|i| (i * 3) as f32 - 7.0).collect();
            let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
            let pa = dev.alloc_bytes(&bytes(&a)).expect("alloc a");
            let pb = dev.alloc_bytes(&bytes(&b)).expect("alloc b");
            let pc = dev.alloc(n as u64 * 4).expect("alloc c");
            let args = vec![
                ArgValue::Ptr(pa),
                ArgValue::Ptr(pb),
                ArgValue::Ptr(pc),
                ArgValue::U32(n),
            ];
            let l = dev
                .launch(&m, "vector_add", LaunchConfig::new_1d(n, 64, args))
                .expect("launch");
            dev.run(&l).expect("runs");
            let c = dev.read(pc, n as usize * 4).expect("read c");
            for (i, w) in c.chunks_exact(4).enumerate() {
                let got = f32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                assert_eq!(got, a[i] + b[i], "round {round}, c[{i}]");
            }
            for p in [pa, pb, pc] {
                dev.free(p).expect("free");
            }
        }
        done.store(true, Ordering::Release);
        let rounds = mapper.join().expect("the mapping thread");
        assert!(rounds >= 50);
    });
}

/// A kernel reads host memory the host wrote (through the host's own
/// pointer, no copy) and the host reads what the kernel wrote, on both a
/// wave64 and a wave32 target.
#[test]
fn host_memory_is_seen_by_kernels_and_host() {
    for target in ["gfx900", "gfx1030"] {
        let n = 3000usize;
        let (a, b, c) = (HostBuf::new(n), HostBuf::new(n), HostBuf::new(n));
        let dev = Device::new();
        let m = load(&dev, target, "vector_add.co");
        for buf in [&a, &b, &c] {
            buf.map(&dev, n);
        }
        for round in 0..2u32 {
            for i in 0..n {
                a.word(i)
                    .store((i as f32 * 0.5 + round as f32).to_bits(), Ordering::Release);
                b.word(i)
                    .store((1000.0 - i as f32).to_bits(), Ordering::Release);
            }
            let args = vec![
                ArgValue::Ptr(a.addr()),
                ArgValue::Ptr(b.addr()),
                ArgValue::Ptr(c.addr()),
                ArgValue::U32(n as u32),
            ];
            dev.dispatch(&m, "vector_add", LaunchConfig::new_1d(n as u32, 256, args))
                .unwrap_or_else(|e| panic!("{target}: {e}"));
            for i in 0..n {
                let got = f32::from_bits(c.word(i).load(Ordering::Acquire));
                let want = (i as f32 * 0.5 + round as f32) + (1000.0 - i as f32);
                assert_eq!(got, want, "{target} round {round}: c[{i}]");
            }
        }
        // The bytes past the mapping are not the kernel's: one lane past the end faults.
        let args = vec![
            ArgValue::Ptr(a.addr()),
            ArgValue::Ptr(b.addr()),
            ArgValue::Ptr(c.addr()),
            ArgValue::U32(n as u32 + 1),
        ];
        let e = dev
            .dispatch(
                &m,
                "vector_add",
                LaunchConfig::new_1d(n as u32 + 1, 256, args),
            )
            .expect_err("past the mapping");
        assert!(
            matches!(&e, SimError::Fault { fault, .. } if fault.kind == FaultKind::OutOfBounds),
            "{e}"
        );
        for buf in [&a, &b, &c] {
            dev.free(buf.addr()).expect("free");
        }
    }
}

/// A host thread adds 1 to a word with `fetch_add` over and over while a
/// kernel's lanes update the same word with global atomics (`atomics.cl`:
/// every work-item increments `stats[0]`): no update is lost. The dispatch is
/// repeated until the host's adds are seen to interleave with the kernel's.
#[test]
fn host_and_kernel_atomics_on_one_word_add_up() {
    let n = 16384u32;
    let nbins = 37u32;
    let input = HostBuf::new(n as usize);
    let bins = HostBuf::new(nbins as usize);
    let stats = Arc::new(HostBuf::new(2));
    let dev = Device::new();
    let m = load(&dev, "gfx900", "atomics.co");
    let values: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761) >> 8).collect();
    for (i, v) in values.iter().enumerate() {
        input.word(i).store(*v, Ordering::Relaxed);
    }
    input.map(&dev, n as usize);
    bins.map(&dev, nbins as usize);
    stats.map(&dev, 2);
    let mut interleaved = false;
    for attempt in 0..10 {
        for i in 0..nbins as usize {
            bins.word(i).store(0, Ordering::Relaxed);
        }
        stats.word(0).store(0, Ordering::Relaxed);
        stats.word(1).store(0, Ordering::Relaxed);
        let done = Arc::new(AtomicBool::new(false));
        let host = {
            let (stats, done) = (stats.clone(), done.clone());
            std::thread::spawn(move || {
                let (mut adds, mut seen_mid) = (0u32, false);
                while !done.load(Ordering::Acquire) || adds < 1000 {
                    let old = stats.word(0).fetch_add(1, Ordering::SeqCst);
                    let kernel = old.wrapping_sub(adds);
                    seen_mid |= kernel > 0 && kernel < n;
                    adds += 1;
                }
                (adds, seen_mid)
            })
        };
        let args = vec![
            ArgValue::Ptr(input.addr()),
            ArgValue::Ptr(bins.addr()),
            ArgValue::Ptr(stats.addr()),
            ArgValue::U32(nbins),
            ArgValue::U32(n),
        ];
        let r = dev.dispatch(&m, "atomics", LaunchConfig::new_1d(n, 256, args));
        done.store(true, Ordering::Release);
        let (adds, seen_mid) = host.join().expect("host thread");
        r.expect("runs");
        assert_eq!(
            stats.word(0).load(Ordering::SeqCst),
            n + adds,
            "attempt {attempt}: {adds} host adds and {n} kernel increments"
        );
        let mut want = vec![0u32; nbins as usize];
        for v in &values {
            want[(v % nbins) as usize] += 1;
        }
        let got: Vec<u32> = (0..nbins as usize)
            .map(|i| bins.word(i).load(Ordering::Acquire))
            .collect();
        assert_eq!(got, want, "bins");
        let max = values.iter().copied().max().unwrap_or(0);
        assert_eq!(stats.word(1).load(Ordering::Acquire), max, "max");
        if seen_mid {
            interleaved = true;
            break;
        }
    }
    assert!(
        interleaved,
        "the host's adds never interleaved with the kernel's"
    );
    for buf in [input.addr(), bins.addr(), stats.addr()] {
        dev.free(buf).expect("free");
    }
}

/// Reads, writes, fills and atomics through the memory's own interface on a
/// host mapping, aligned and not, land in the host's bytes; the host sees
/// them, and the memory sees the host's.
#[test]
fn host_mapping_reads_writes_and_atomics() {
    let buf = HostBuf::new(2048);
    let mem = GlobalMemory::new();
    // SAFETY: `buf` outlives `mem`'s mapping (freed below; declared first).
    unsafe { mem.map_host(buf.addr(), 2 * PAGE - 3) }.expect("maps");
    let a = buf.addr();
    // Across the page boundary, unaligned.
    let data: Vec<u8> = (1..=13).collect();
    mem.write(a + PAGE - 7, &data).expect("write");
    let mut back = [0u8; 13];
    mem.read(a + PAGE - 7, &mut back).expect("read");
    assert_eq!(back.to_vec(), data);
    assert_eq!(buf.word(1023).load(Ordering::Acquire), 0x0706_0504);
    assert_eq!(buf.word(1024).load(Ordering::Acquire), 0x0b0a_0908);
    buf.word(5).store(0xdead_beef, Ordering::Release);
    assert_eq!(mem.read_u32(a + 20).expect("read"), 0xdead_beef);
    let old = mem
        .atomic::<4>(a + 20, |o| (u32::from_le_bytes(o) + 1).to_le_bytes())
        .expect("atomic");
    assert_eq!(u32::from_le_bytes(old), 0xdead_beef);
    assert_eq!(buf.word(5).load(Ordering::Acquire), 0xdead_bef0);
    let old = mem
        .atomic::<8>(a + 24, |_| 0x1122_3344_5566_7788u64.to_le_bytes())
        .expect("atomic");
    assert_eq!(old, [0; 8]);
    assert_eq!(buf.word(6).load(Ordering::Acquire), 0x5566_7788);
    assert_eq!(buf.word(7).load(Ordering::Acquire), 0x1122_3344);
    mem.fill(a + 40, 6, 0xab).expect("fill");
    assert_eq!(buf.word(10).load(Ordering::Acquire), 0xabab_abab);
    assert_eq!(buf.word(11).load(Ordering::Acquire), 0x0000_abab);
    // The mapping ends 3 bytes short of the second page's end.
    assert!(mem.read(a + 2 * PAGE - 4, &mut [0u8; 2]).is_err());
    mem.read(a + 2 * PAGE - 5, &mut [0u8; 2])
        .expect("last bytes");
    assert!(mem.atomic::<4>(a + 2, |o| o).is_err(), "misaligned");
    // A copy of the memory holds the bytes, not the mapping.
    let copy = mem.clone();
    mem.free(a).expect("free");
    assert_eq!(copy.read_u32(a + 20).expect("copy"), 0xdead_bef0);
    buf.word(5).store(1, Ordering::Release);
    assert_eq!(copy.read_u32(a + 20).expect("copy"), 0xdead_bef0);
}

/// After `free`, every access to the pages faults as unmapped: the memory's
/// reads, writes and atomics, and a kernel's loads, for simulator pages and
/// host pages alike.
#[test]
fn freed_pages_fault_as_unmapped() {
    let host = HostBuf::new(64);
    let dev = Device::new();
    let m = load(&dev, "gfx900", "vector_add.co");
    let own = dev.alloc(256).expect("alloc");
    host.map(&dev, 64);
    let out = dev.alloc(256).expect("alloc");
    for p in [own, host.addr()] {
        let args = vec![
            ArgValue::Ptr(p),
            ArgValue::Ptr(p),
            ArgValue::Ptr(out),
            ArgValue::U32(64),
        ];
        let cfg = LaunchConfig::new_1d(64, 64, args);
        dev.dispatch(&m, "vector_add", cfg.clone())
            .expect("runs while mapped");
        dev.free(p).expect("free");
        let unmapped = |e: amdgpu_sim::error::MemFault| e.kind == FaultKind::Unmapped;
        assert!(dev.mem.read_u32(p).is_err_and(unmapped));
        assert!(dev.mem.write(p + 8, &[1]).is_err_and(unmapped));
        assert!(dev.mem.atomic::<4>(p + 4, |o| o).is_err_and(unmapped));
        assert!(dev.free(p).is_err(), "freed twice");
        let e = dev.dispatch(&m, "vector_add", cfg).expect_err("freed");
        assert!(
            matches!(&e, SimError::Fault { fault, .. }
                if fault.kind == FaultKind::Unmapped && fault.addr >= p && fault.addr < p + 256),
            "{e}"
        );
    }
    // The host's bytes are the host's again: nothing the device does reaches them.
    host.word(0).store(7, Ordering::Release);
    assert!(dev.write(host.addr(), &[0; 4]).is_err());
    assert_eq!(host.word(0).load(Ordering::Acquire), 7);
}

/// `free` waits for an access in progress (a cursor holding the page), so a
/// host mapping is never read after `free` has returned.
#[test]
fn free_waits_for_a_held_page() {
    let buf = HostBuf::new(16);
    let mem = Arc::new(GlobalMemory::new());
    // SAFETY: `buf` outlives the mapping: the freeing thread is joined first.
    unsafe { mem.map_host(buf.addr(), 64) }.expect("maps");
    let mut cur = PageCursor::new(&mem);
    let mut b = [0u8; 4];
    cur.read(buf.addr(), &mut b).expect("read");
    let freed = Arc::new(AtomicBool::new(false));
    let t = {
        let (mem, freed, addr) = (mem.clone(), freed.clone(), buf.addr());
        std::thread::spawn(move || {
            mem.free(addr).expect("free");
            freed.store(true, Ordering::Release);
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !freed.load(Ordering::Acquire),
        "free returned while the page was held"
    );
    // Still the host's bytes, still readable through the held page.
    buf.word(0).store(42, Ordering::Release);
    cur.read(buf.addr(), &mut b).expect("read while held");
    assert_eq!(u32::from_le_bytes(b), 42);
    drop(cur);
    t.join().expect("freeing thread");
    assert!(freed.load(Ordering::Acquire));
    let mut cur = PageCursor::new(&mem);
    assert!(cur.read(buf.addr(), &mut b).is_err(), "unmapped after free");
}

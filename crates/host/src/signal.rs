//! HSA signals laid out as ROCr lays them out (`amd_signal_t`, 64 bytes,
//! 64-byte aligned), in host memory that the simulated device also maps, so
//! that device code (hostcall) and the HIP runtime can read the structure
//! directly, as they do on ROCr.
//!
//! A signal handle is the address of its `amd_signal_t`. The value (offset 8)
//! is only ever accessed atomically. Waiters sleep on one condition variable
//! that every host-side change wakes; changes made by simulated waves (which
//! do not go through this module) are seen by polling at a short interval.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// `amd_signal_t` size and alignment.
pub const SIGNAL_BYTES: usize = 64;
/// Offset of `value` in `amd_signal_t`.
pub const VALUE_OFFSET: usize = 8;
/// `AMD_SIGNAL_KIND_USER`.
pub const KIND_USER: i64 = 1;

/// `hsa_signal_condition_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    /// `HSA_SIGNAL_CONDITION_EQ`
    Eq,
    /// `HSA_SIGNAL_CONDITION_NE`
    Ne,
    /// `HSA_SIGNAL_CONDITION_LT`
    Lt,
    /// `HSA_SIGNAL_CONDITION_GTE`
    Gte,
}

impl Condition {
    /// From the C enumeration's value.
    pub fn from_raw(c: u32) -> Option<Condition> {
        Some(match c {
            0 => Condition::Eq,
            1 => Condition::Ne,
            2 => Condition::Lt,
            3 => Condition::Gte,
            _ => return None,
        })
    }

    /// Whether `value` satisfies the condition against `compare`.
    pub fn holds(self, value: i64, compare: i64) -> bool {
        match self {
            Condition::Eq => value == compare,
            Condition::Ne => value != compare,
            Condition::Lt => value < compare,
            Condition::Gte => value >= compare,
        }
    }
}

/// Wakes waiters on any host-side signal change.
#[derive(Debug, Default)]
pub struct Notifier {
    generation: Mutex<u64>,
    cv: Condvar,
}

/// How often a waiter looks at a signal that no host thread has changed
/// (simulated waves change signals without notifying).
const POLL: Duration = Duration::from_micros(500);

impl Notifier {
    /// Wakes every waiter.
    pub fn notify(&self) {
        let mut g = self.generation.lock().unwrap_or_else(|e| e.into_inner());
        *g = g.wrapping_add(1);
        self.cv.notify_all();
    }

    /// The number of notifications so far: take it before looking at what
    /// to wait for, and pass it to [`Notifier::nap`], so that a notification
    /// in between is not lost.
    pub fn epoch(&self) -> u64 {
        *self.generation.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sleeps until a notification after `epoch` (at once if one came
    /// already) or for a short poll interval, at most until `deadline`.
    pub fn nap(&self, epoch: u64, deadline: Option<Instant>) {
        let mut g = self.generation.lock().unwrap_or_else(|e| e.into_inner());
        let mut d = POLL;
        if let Some(dl) = deadline {
            d = d.min(dl.saturating_duration_since(Instant::now()));
        }
        let end = Instant::now() + d;
        while *g == epoch {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            g = match self.cv.wait_timeout(g, left) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }
}

/// A signal: the address of its `amd_signal_t` in host memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Signal(pub u64);

impl Signal {
    fn value(&self) -> &AtomicI64 {
        // SAFETY: a `Signal` is only made for an `amd_signal_t` that the
        // runtime allocated (64-byte aligned, live until destroyed), and the
        // value is only ever accessed atomically, by host threads and by the
        // simulator (which maps the page as host-shared memory).
        unsafe { AtomicI64::from_ptr((self.0 as usize + VALUE_OFFSET) as *mut i64) }
    }

    /// Loads the value.
    pub fn load(&self) -> i64 {
        self.value().load(Ordering::Acquire)
    }

    /// Stores a value and wakes waiters.
    pub fn store(&self, v: i64, n: &Notifier) {
        self.value().store(v, Ordering::Release);
        n.notify();
    }

    /// Applies a read-modify-write and wakes waiters; returns the old value.
    pub fn update(&self, n: &Notifier, f: impl Fn(i64) -> i64) -> i64 {
        let old = match self
            .value()
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| Some(f(v)))
        {
            Ok(v) | Err(v) => v,
        };
        n.notify();
        old
    }

    /// Compare-and-swap; returns the old value.
    pub fn cas(&self, expected: i64, new: i64, n: &Notifier) -> i64 {
        let old =
            match self
                .value()
                .compare_exchange(expected, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(v) | Err(v) => v,
            };
        n.notify();
        old
    }

    /// Waits until the value satisfies `cond` against `compare` or `timeout`
    /// passes; returns the last value observed (HSA's contract: the caller
    /// checks it).
    pub fn wait(
        &self,
        cond: Condition,
        compare: i64,
        timeout: Option<Duration>,
        n: &Notifier,
    ) -> i64 {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let epoch = n.epoch();
            let v = self.load();
            if cond.holds(v, compare) {
                return v;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return v;
            }
            n.nap(epoch, deadline);
        }
    }
}

/// Writes a fresh `amd_signal_t` (kind USER, the initial value) at `addr`.
///
/// # Safety
/// `addr` must point to [`SIGNAL_BYTES`] writable, 64-byte aligned bytes
/// that no other thread accesses yet.
pub unsafe fn init(addr: u64, value: i64) {
    let p = addr as *mut u8;
    // SAFETY: per the function's contract.
    unsafe {
        std::ptr::write_bytes(p, 0, SIGNAL_BYTES);
        (p as *mut i64).write(KIND_USER);
        (p.add(VALUE_OFFSET) as *mut i64).write(value);
    }
}

/// Offsets of `start_ts` and `end_ts` in `amd_signal_t`.
const START_TS: usize = 32;
const END_TS: usize = 40;

/// Nanoseconds of `CLOCK_MONOTONIC`: the system timestamp, the clock of the dispatch
/// and copy timestamps in signals, and the clock the HIP runtime reads on the host
/// (ROCclr's `Os::timeNanos`). One clock for all three: HIP subtracts a time taken on the
/// host from one taken from a signal (`hipEventElapsedTime`).
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Signal {
    fn ts(&self, off: usize) -> &std::sync::atomic::AtomicU64 {
        // SAFETY: as for `value`: a live `amd_signal_t` of the runtime,
        // timestamps accessed atomically.
        unsafe { std::sync::atomic::AtomicU64::from_ptr((self.0 as usize + off) as *mut u64) }
    }

    /// Records when the work this signal completes started and ended.
    pub fn set_timestamps(&self, start: u64, end: u64) {
        self.ts(START_TS).store(start, Ordering::Relaxed);
        self.ts(END_TS).store(end, Ordering::Relaxed);
    }

    /// The recorded start and end.
    pub fn timestamps(&self) -> (u64, u64) {
        (
            self.ts(START_TS).load(Ordering::Relaxed),
            self.ts(END_TS).load(Ordering::Relaxed),
        )
    }
}

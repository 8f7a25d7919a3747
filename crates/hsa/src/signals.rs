//! Signals: creation, the value operations in every memory order ROCr
//! exports (the simulator's host side orders them all at least as strongly
//! as asked), waits, and asynchronous handlers.

use crate::{
    INVALID_ARGUMENT, INVALID_SIGNAL, OUT_OF_RESOURCES, SUCCESS, Status, runtime, with_rt,
};
use amdsim_host::signal::{Condition, Signal};
use libc::c_void;
use std::sync::Mutex;
use std::time::Duration;

fn create(value: i64, out: *mut u64) -> Status {
    if out.is_null() {
        return INVALID_ARGUMENT;
    }
    with_rt(|rt| match rt.create_signal(value) {
        Ok(s) => {
            // SAFETY: checked non-null.
            unsafe { *out = s.0 };
            SUCCESS
        }
        Err(_) => OUT_OF_RESOURCES,
    })
}

hsa! {
    /// Creates a signal.
    fn hsa_signal_create(value: i64, _n: u32, _consumers: *const u64, out: *mut u64) -> Status {
        create(value, out)
    }
}

hsa! {
    /// Creates a signal (AMD form, with attributes).
    fn hsa_amd_signal_create(value: i64, _n: u32, _consumers: *const u64, _attributes: u64, out: *mut u64) -> Status {
        create(value, out)
    }
}

hsa! {
    /// Destroys a signal.
    fn hsa_signal_destroy(s: u64) -> Status {
        with_rt(|rt| if rt.destroy_signal(s) { SUCCESS } else { INVALID_SIGNAL })
    }
}

hsa! {
    /// The address of a signal's value.
    fn hsa_amd_signal_value_pointer(s: u64, out: *mut *mut i64) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        with_rt(|rt| {
            if !rt.is_signal(s) {
                return INVALID_SIGNAL;
            }
            // SAFETY: checked non-null.
            unsafe { *out = (s as usize + amdsim_host::signal::VALUE_OFFSET) as *mut i64 };
            SUCCESS
        })
    }
}

/// Runs `f` on a signal with the runtime's notifier (nothing when the
/// runtime is gone: the program is exiting).
fn on(s: u64, f: impl FnOnce(Signal, &amdsim_host::signal::Notifier) -> i64) -> i64 {
    match runtime() {
        Some(rt) if s != 0 => f(Signal(s), &rt.notifier),
        _ => 0,
    }
}

fn wait(s: u64, cond: u32, compare: i64, timeout: u64) -> i64 {
    let Some(c) = Condition::from_raw(cond) else {
        return 0;
    };
    // The timeout hint is in system timestamp ticks (1 GHz here).
    let t = (timeout != u64::MAX).then(|| Duration::from_nanos(timeout));
    on(s, |sig, n| sig.wait(c, compare, t, n))
}

hsa_each! {
    "Loads a signal's value."
    [
    hsa_signal_load_relaxed,
    hsa_signal_load_scacquire,
    hsa_signal_load_acquire,
    ]
    (s: u64) -> i64 {
        on(s, |sig, _| sig.load())
    }
}

hsa_each! {
    "Stores a signal's value and wakes its waiters."
    [
    hsa_signal_store_relaxed,
    hsa_signal_store_screlease,
    hsa_signal_store_release,
    ]
    (s: u64, v: i64) -> () {
        on(s, |sig, n| {
            sig.store(v, n);
            0
        });
    }
}

hsa_each! {
    "Stores a signal's value (waiters are woken too)."
    [
    hsa_signal_silent_store_relaxed,
    hsa_signal_silent_store_screlease,
    ]
    (s: u64, v: i64) -> () {
        on(s, |sig, n| {
            sig.store(v, n);
            0
        });
    }
}

hsa_each! {
    "Applies `add` to a signal's value."
    [
    hsa_signal_add_acq_rel,
    hsa_signal_add_acquire,
    hsa_signal_add_relaxed,
    hsa_signal_add_release,
    hsa_signal_add_scacq_screl,
    hsa_signal_add_scacquire,
    hsa_signal_add_screlease,
    ]
    (s: u64, x: i64) -> () {
        on(s, |sig, n| sig.update(n, |v| v.wrapping_add(x)));
    }
}

hsa_each! {
    "Applies `subtract` to a signal's value."
    [
    hsa_signal_subtract_acq_rel,
    hsa_signal_subtract_acquire,
    hsa_signal_subtract_relaxed,
    hsa_signal_subtract_release,
    hsa_signal_subtract_scacq_screl,
    hsa_signal_subtract_scacquire,
    hsa_signal_subtract_screlease,
    ]
    (s: u64, x: i64) -> () {
        on(s, |sig, n| sig.update(n, |v| v.wrapping_sub(x)));
    }
}

hsa_each! {
    "Applies `and` to a signal's value."
    [
    hsa_signal_and_acq_rel,
    hsa_signal_and_acquire,
    hsa_signal_and_relaxed,
    hsa_signal_and_release,
    hsa_signal_and_scacq_screl,
    hsa_signal_and_scacquire,
    hsa_signal_and_screlease,
    ]
    (s: u64, x: i64) -> () {
        on(s, |sig, n| sig.update(n, |v| v & x));
    }
}

hsa_each! {
    "Applies `or` to a signal's value."
    [
    hsa_signal_or_acq_rel,
    hsa_signal_or_acquire,
    hsa_signal_or_relaxed,
    hsa_signal_or_release,
    hsa_signal_or_scacq_screl,
    hsa_signal_or_scacquire,
    hsa_signal_or_screlease,
    ]
    (s: u64, x: i64) -> () {
        on(s, |sig, n| sig.update(n, |v| v | x));
    }
}

hsa_each! {
    "Applies `xor` to a signal's value."
    [
    hsa_signal_xor_acq_rel,
    hsa_signal_xor_acquire,
    hsa_signal_xor_relaxed,
    hsa_signal_xor_release,
    hsa_signal_xor_scacq_screl,
    hsa_signal_xor_scacquire,
    hsa_signal_xor_screlease,
    ]
    (s: u64, x: i64) -> () {
        on(s, |sig, n| sig.update(n, |v| v ^ x));
    }
}

hsa_each! {
    "Exchanges a signal's value; returns the old one."
    [
    hsa_signal_exchange_acq_rel,
    hsa_signal_exchange_acquire,
    hsa_signal_exchange_relaxed,
    hsa_signal_exchange_release,
    hsa_signal_exchange_scacq_screl,
    hsa_signal_exchange_scacquire,
    hsa_signal_exchange_screlease,
    ]
    (s: u64, x: i64) -> i64 {
        on(s, |sig, n| sig.update(n, |_| x))
    }
}

hsa_each! {
    "Compare-and-swap on a signal's value; returns the old one."
    [
    hsa_signal_cas_acq_rel,
    hsa_signal_cas_acquire,
    hsa_signal_cas_relaxed,
    hsa_signal_cas_release,
    hsa_signal_cas_scacq_screl,
    hsa_signal_cas_scacquire,
    hsa_signal_cas_screlease,
    ]
    (s: u64, expected: i64, x: i64) -> i64 {
        on(s, |sig, n| sig.cas(expected, x, n))
    }
}

hsa_each! {
    "Waits until a signal's value satisfies a condition, or the timeout."
    [
    hsa_signal_wait_scacquire,
    hsa_signal_wait_relaxed,
    hsa_signal_wait_acquire,
    ]
    (s: u64, cond: u32, compare: i64, timeout: u64, _state: u32) -> i64 {
        wait(s, cond, compare, timeout)
    }
}

hsa! {
    /// Waits until any of several signals satisfies its condition; returns
    /// its index.
    fn hsa_amd_signal_wait_any(count: u32, signals: *const u64, conds: *const u32, values: *const i64, timeout: u64, _state: u32, value: *mut i64) -> u32 {
        if signals.is_null() || conds.is_null() || values.is_null() {
            return u32::MAX;
        }
        let Some(rt) = runtime() else { return u32::MAX };
        let deadline = (timeout != u64::MAX).then(|| std::time::Instant::now() + Duration::from_nanos(timeout));
        loop {
            let epoch = rt.notifier.epoch();
            for i in 0..count as usize {
                // SAFETY: `count` entries per HSA's contract.
                let (s, c, cmp) = unsafe { (*signals.add(i), *conds.add(i), *values.add(i)) };
                let v = Signal(s).load();
                if Condition::from_raw(c).is_some_and(|c| c.holds(v, cmp)) {
                    if !value.is_null() {
                        // SAFETY: checked non-null.
                        unsafe { *value = v };
                    }
                    return i as u32;
                }
            }
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return u32::MAX;
            }
            rt.notifier.nap(epoch, deadline);
        }
    }
}

type Handler = unsafe extern "C" fn(i64, *mut c_void) -> bool;

/// A registered asynchronous handler.
struct Async {
    signal: u64,
    cond: Condition,
    value: i64,
    handler: Handler,
    arg: usize,
}

static HANDLERS: Mutex<Vec<Async>> = Mutex::new(Vec::new());
static HANDLER_THREAD: std::sync::Once = std::sync::Once::new();

/// The handler thread: calls each handler whose condition holds, keeping
/// those that return true.
fn serve_handlers() {
    loop {
        let Some(rt) = runtime() else { return };
        let epoch = rt.notifier.epoch();
        let ready: Vec<Async> = {
            let mut h = HANDLERS.lock().unwrap_or_else(|e| e.into_inner());
            let (r, keep): (Vec<Async>, Vec<Async>) = h
                .drain(..)
                .partition(|a| a.cond.holds(Signal(a.signal).load(), a.value));
            *h = keep;
            r
        };
        for a in ready {
            let v = Signal(a.signal).load();
            // SAFETY: the program's handler with its argument.
            if unsafe { (a.handler)(v, a.arg as *mut c_void) } {
                HANDLERS.lock().unwrap_or_else(|e| e.into_inner()).push(a);
            }
        }
        rt.notifier.nap(epoch, None);
    }
}

hsa! {
    /// Calls `handler(value, arg)` on a runtime thread once the signal's
    /// value satisfies the condition (again while it returns true).
    fn hsa_amd_signal_async_handler(s: u64, cond: u32, value: i64, handler: Option<Handler>, arg: *mut c_void) -> Status {
        let (Some(handler), Some(cond)) = (handler, Condition::from_raw(cond)) else {
            return INVALID_ARGUMENT;
        };
        with_rt(|rt| {
            if !rt.is_signal(s) {
                return INVALID_SIGNAL;
            }
            HANDLERS.lock().unwrap_or_else(|e| e.into_inner()).push(Async { signal: s, cond, value, handler, arg: arg as usize });
            HANDLER_THREAD.call_once(|| {
                let _ = std::thread::Builder::new().name("amdsim-signal-handlers".into()).spawn(serve_handlers);
            });
            rt.notifier.notify();
            SUCCESS
        })
    }
}

hsa! {
    /// Enables timestamps on a queue's dispatches (always recorded).
    fn hsa_amd_profiling_set_profiler_enabled(_q: *mut c_void, _enable: i32) -> Status {
        SUCCESS
    }
}

hsa! {
    /// Enables timestamps on asynchronous copies (always recorded).
    fn hsa_amd_profiling_async_copy_enable(_enable: bool) -> Status {
        SUCCESS
    }
}

/// `hsa_amd_profiling_dispatch_time_t` / `..._async_copy_time_t`.
#[repr(C)]
pub struct Times {
    start: u64,
    end: u64,
}

fn times(s: u64, out: *mut Times) -> Status {
    if out.is_null() {
        return INVALID_ARGUMENT;
    }
    with_rt(|rt| {
        if !rt.is_signal(s) {
            return INVALID_SIGNAL;
        }
        let (start, end) = Signal(s).timestamps();
        // SAFETY: checked non-null.
        unsafe { out.write_unaligned(Times { start, end }) };
        SUCCESS
    })
}

hsa! {
    /// When a dispatch whose completion signal is `s` started and ended
    /// (system timestamps, ns).
    fn hsa_amd_profiling_get_dispatch_time(_agent: u64, s: u64, out: *mut Times) -> Status {
        times(s, out)
    }
}

hsa! {
    /// When an asynchronous copy whose completion signal is `s` started and ended.
    fn hsa_amd_profiling_get_async_copy_time(s: u64, out: *mut Times) -> Status {
        times(s, out)
    }
}

hsa! {
    /// Agent ticks to system ticks: the same clock here.
    fn hsa_amd_profiling_convert_tick_to_system_domain(_agent: u64, tick: u64, out: *mut u64) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: checked non-null.
        unsafe { *out = tick };
        SUCCESS
    }
}

//! AQL queues: creation and destruction, and the read and write indices in
//! every memory order ROCr exports.

use crate::agents::GPU;
use crate::{INVALID_AGENT, INVALID_ARGUMENT, INVALID_QUEUE, SUCCESS, Status, with_rt};
use amdsim_host::queue::{ErrorCallback, Queue};
use libc::c_void;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

static QUEUES: Mutex<BTreeMap<u64, Arc<Queue>>> = Mutex::new(BTreeMap::new());

/// Offsets of the indices in `amd_queue_t`.
const WRITE: usize = 56;
const READ: usize = 128;

fn index(q: *const c_void, off: usize) -> Option<&'static AtomicU64> {
    if q.is_null() {
        return None;
    }
    // SAFETY: `q` is an `amd_queue_t` this runtime created (HSA's contract);
    // its indices are 8-aligned and only accessed atomically.
    Some(unsafe { AtomicU64::from_ptr((q as usize + off) as *mut u64) })
}

fn notify() {
    if let Some(rt) = crate::runtime() {
        rt.notifier.notify();
    }
}

hsa! {
    /// Creates a queue on the GPU agent, served by its own packet processor.
    fn hsa_queue_create(agent: u64, size: u32, kind: u32, callback: Option<ErrorCallback>, data: *mut c_void, _private: u32, _group: u32, out: *mut *mut c_void) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        if agent != GPU {
            return INVALID_AGENT;
        }
        with_rt(|rt| match Queue::create(rt, size, kind, callback.map(|f| (f, data as usize))) {
            Ok(q) => {
                // SAFETY: checked non-null.
                unsafe { *out = q.addr as *mut c_void };
                QUEUES.lock().unwrap_or_else(|e| e.into_inner()).insert(q.addr, q);
                SUCCESS
            }
            Err(e) => {
                eprintln!("amdsim: hsa_queue_create: {e}");
                0x1002 // HSA_STATUS_ERROR_INVALID_QUEUE_CREATION
            }
        })
    }
}

hsa! {
    /// Destroys a queue (its processor finishes the packet in hand).
    fn hsa_queue_destroy(q: *mut c_void) -> Status {
        let Some(queue) = QUEUES.lock().unwrap_or_else(|e| e.into_inner()).remove(&(q as u64)) else {
            return INVALID_QUEUE;
        };
        with_rt(|rt| {
            queue.stop(&rt.notifier);
            SUCCESS
        })
    }
}

hsa! {
    /// Inactivates a queue: its processor stops taking packets.
    fn hsa_queue_inactivate(q: *mut c_void) -> Status {
        let Some(queue) = QUEUES.lock().unwrap_or_else(|e| e.into_inner()).get(&(q as u64)).cloned() else {
            return INVALID_QUEUE;
        };
        with_rt(|rt| {
            queue.stop(&rt.notifier);
            SUCCESS
        })
    }
}

hsa! {
    /// Sets a queue's priority (the simulator schedules queues alike).
    fn hsa_amd_queue_set_priority(q: *mut c_void, _priority: u32) -> Status {
        if QUEUES.lock().unwrap_or_else(|e| e.into_inner()).contains_key(&(q as u64)) { SUCCESS } else { INVALID_QUEUE }
    }
}

hsa! {
    /// Sets a queue's CU mask (accepted; the simulator has no CUs to mask).
    fn hsa_amd_queue_cu_set_mask(q: *const c_void, _count: u32, _mask: *const u32) -> Status {
        if QUEUES.lock().unwrap_or_else(|e| e.into_inner()).contains_key(&(q as u64)) { SUCCESS } else { INVALID_QUEUE }
    }
}

hsa_each! {
    "Loads the queue's read index."
    [
    hsa_queue_load_read_index_relaxed,
    hsa_queue_load_read_index_scacquire,
    hsa_queue_load_read_index_acquire,
    ]
    (q: *const c_void) -> u64 {
        index(q, READ).map_or(0, |i| i.load(Ordering::Acquire))
    }
}

hsa_each! {
    "Stores the queue's read index."
    [
    hsa_queue_store_read_index_relaxed,
    hsa_queue_store_read_index_screlease,
    hsa_queue_store_read_index_release,
    ]
    (q: *const c_void, v: u64) -> () {
        if let Some(i) = index(q, READ) {
            i.store(v, Ordering::Release);
            notify();
        }
    }
}

hsa_each! {
    "Loads the queue's write index."
    [
    hsa_queue_load_write_index_relaxed,
    hsa_queue_load_write_index_scacquire,
    hsa_queue_load_write_index_acquire,
    ]
    (q: *const c_void) -> u64 {
        index(q, WRITE).map_or(0, |i| i.load(Ordering::Acquire))
    }
}

hsa_each! {
    "Stores the queue's write index."
    [
    hsa_queue_store_write_index_relaxed,
    hsa_queue_store_write_index_screlease,
    hsa_queue_store_write_index_release,
    ]
    (q: *const c_void, v: u64) -> () {
        if let Some(i) = index(q, WRITE) {
            i.store(v, Ordering::Release);
            notify();
        }
    }
}

hsa_each! {
    "Adds to the queue's write index; returns the old value."
    [
    hsa_queue_add_write_index_acq_rel,
    hsa_queue_add_write_index_acquire,
    hsa_queue_add_write_index_relaxed,
    hsa_queue_add_write_index_release,
    hsa_queue_add_write_index_scacq_screl,
    hsa_queue_add_write_index_scacquire,
    hsa_queue_add_write_index_screlease,
    ]
    (q: *const c_void, v: u64) -> u64 {
        index(q, WRITE).map_or(0, |i| i.fetch_add(v, Ordering::AcqRel))
    }
}

hsa_each! {
    "Compare-and-swap on the queue's write index; returns the old value."
    [
    hsa_queue_cas_write_index_acq_rel,
    hsa_queue_cas_write_index_acquire,
    hsa_queue_cas_write_index_relaxed,
    hsa_queue_cas_write_index_release,
    hsa_queue_cas_write_index_scacq_screl,
    hsa_queue_cas_write_index_scacquire,
    hsa_queue_cas_write_index_screlease,
    ]
    (q: *const c_void, expected: u64, v: u64) -> u64 {
        index(q, WRITE).map_or(0, |i| match i.compare_exchange(expected, v, Ordering::AcqRel, Ordering::Acquire) {
            Ok(x) | Err(x) => x,
        })
    }
}

//! AQL queues laid out as ROCr lays them out (`amd_queue_t` with its
//! `hsa_queue_t` first, a ring of 64-byte packets, a doorbell signal), each
//! served by a packet processor thread that the doorbell wakes.
//!
//! The processor takes packets in order: kernel dispatches run on the
//! simulator; barrier-AND and barrier-OR packets wait for their dependency
//! signals; a packet with the barrier bit set waits for the previous ones,
//! which in-order processing gives. After a packet it decrements the
//! completion signal, sets the slot's type to INVALID and advances the read
//! index.

use crate::runtime::Runtime;
use crate::signal::{Notifier, Signal};
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// `amd_queue_t` size.
pub const AMD_QUEUE_BYTES: u64 = 256;
/// Offsets in `amd_queue_t` (`amd_hsa_queue.h`).
mod off {
    pub const TYPE: usize = 0;
    pub const FEATURES: usize = 4;
    pub const BASE_ADDRESS: usize = 8;
    pub const DOORBELL: usize = 16;
    pub const SIZE: usize = 24;
    pub const ID: usize = 32;
    pub const WRITE_DISPATCH_ID: usize = 56;
    pub const GROUP_APERTURE_HI: usize = 64;
    pub const PRIVATE_APERTURE_HI: usize = 68;
    pub const MAX_CU_ID: usize = 72;
    pub const MAX_WAVE_ID: usize = 76;
    pub const READ_DISPATCH_ID: usize = 128;
    pub const READ_DISPATCH_ID_FIELD_OFFSET: usize = 136;
    pub const QUEUE_PROPERTIES: usize = 180;
}

/// `HSA_PACKET_TYPE_*`.
mod packet_type {
    pub const INVALID: u16 = 1;
    pub const KERNEL_DISPATCH: u16 = 2;
    pub const BARRIER_AND: u16 = 3;
    pub const BARRIER_OR: u16 = 5;
}

/// The error callback of `hsa_queue_create`.
pub type ErrorCallback = unsafe extern "C" fn(status: u32, queue: *mut u8, data: *mut u8);

/// A queue.
#[derive(Debug)]
pub struct Queue {
    /// Address of the `amd_queue_t` (the `hsa_queue_t*` handed out).
    pub addr: u64,
    /// The ring buffer.
    pub ring: u64,
    /// Packets in the ring (a power of two).
    pub size: u32,
    /// The doorbell signal.
    pub doorbell: Signal,
    stop: AtomicBool,
    thread: Mutex<Option<JoinHandle<()>>>,
    callback: Option<(usize, usize)>,
}

fn at<T>(base: u64, off: usize) -> *mut T {
    (base as usize + off) as *mut T
}

impl Queue {
    fn u64_field(&self, off: usize) -> &AtomicU64 {
        // SAFETY: the queue's `amd_queue_t` lives (8-aligned fields) until the
        // queue is destroyed, and these fields are only accessed atomically.
        unsafe { AtomicU64::from_ptr(at(self.addr, off)) }
    }

    /// The read index.
    pub fn read_index(&self) -> &AtomicU64 {
        self.u64_field(off::READ_DISPATCH_ID)
    }

    /// The write index.
    pub fn write_index(&self) -> &AtomicU64 {
        self.u64_field(off::WRITE_DISPATCH_ID)
    }

    /// Creates a queue of `size` packets and starts its processor.
    pub fn create(
        rt: &Arc<Runtime>,
        size: u32,
        queue_type: u32,
        callback: Option<(ErrorCallback, usize)>,
    ) -> Result<Arc<Queue>, String> {
        if !size.is_power_of_two() || !(64..=131072).contains(&size) {
            return Err(format!(
                "queue size {size} is not a power of two in 64..=131072"
            ));
        }
        let dev = &rt.device;
        let addr = rt
            .memory
            .alloc_shared(dev, AMD_QUEUE_BYTES, None)
            .map_err(|e| e.to_string())?;
        let ring = rt
            .memory
            .alloc_shared(dev, size as u64 * 64, None)
            .map_err(|e| e.to_string())?;
        let doorbell = rt.create_signal(-1).map_err(|e| e.to_string())?;
        let id = rt.next_queue_id();
        // SAFETY: fresh zeroed host memory of the right sizes, not yet shared
        // with any other thread.
        unsafe {
            at::<u32>(addr, off::TYPE).write(queue_type);
            at::<u32>(addr, off::FEATURES).write(1); // HSA_QUEUE_FEATURE_KERNEL_DISPATCH
            at::<u64>(addr, off::BASE_ADDRESS).write(ring);
            at::<u64>(addr, off::DOORBELL).write(doorbell.0);
            at::<u32>(addr, off::SIZE).write(size);
            at::<u64>(addr, off::ID).write(id);
            at::<u32>(addr, off::GROUP_APERTURE_HI)
                .write((amdgpu_sim::memory::SHARED_BASE >> 32) as u32);
            at::<u32>(addr, off::PRIVATE_APERTURE_HI)
                .write((amdgpu_sim::memory::PRIVATE_BASE >> 32) as u32);
            at::<u32>(addr, off::MAX_CU_ID).write(rt.card.compute_units - 1);
            at::<u32>(addr, off::MAX_WAVE_ID).write(rt.card.max_waves_per_cu - 1);
            at::<u32>(addr, off::READ_DISPATCH_ID_FIELD_OFFSET).write(off::READ_DISPATCH_ID as u32);
            // AMD_QUEUE_PROPERTIES_IS_PTR64 (bit 1), ENABLE_PROFILING off.
            at::<u32>(addr, off::QUEUE_PROPERTIES).write(1 << 1);
            for i in 0..size as u64 {
                at::<u16>(ring, (i * 64) as usize).write(packet_type::INVALID);
            }
        }
        let q = Arc::new(Queue {
            addr,
            ring,
            size,
            doorbell,
            stop: AtomicBool::new(false),
            thread: Mutex::new(None),
            callback: callback.map(|(f, d)| (f as usize, d)),
        });
        let (rt2, q2) = (rt.clone(), q.clone());
        let h = std::thread::Builder::new()
            .name(format!("amdsim-queue-{id}"))
            .spawn(move || q2.process(&rt2))
            .map_err(|e| e.to_string())?;
        *q.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(h);
        Ok(q)
    }

    /// Stops the processor (after the packet it is working on) and waits
    /// for it.
    pub fn stop(&self, n: &Notifier) {
        self.stop.store(true, Ordering::Release);
        n.notify();
        let h = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = h {
            let _ = h.join();
        }
    }

    fn header(&self, index: u64) -> &AtomicU16 {
        let slot = (index % self.size as u64) * 64;
        // SAFETY: the ring lives until the queue is destroyed; headers are
        // accessed atomically by producers and by this processor.
        unsafe { AtomicU16::from_ptr(at(self.ring, slot as usize)) }
    }

    /// The packet processor's loop.
    fn process(&self, rt: &Runtime) {
        loop {
            if self.stop.load(Ordering::Acquire) {
                return;
            }
            let epoch = rt.notifier.epoch();
            let read = self.read_index().load(Ordering::Acquire);
            let header = self.header(read).load(Ordering::Acquire);
            let ty = header & 0xff;
            if ty == packet_type::INVALID {
                rt.notifier.nap(epoch, None);
                continue;
            }
            let slot = self.ring + (read % self.size as u64) * 64;
            let mut packet = [0u8; 64];
            // SAFETY: the slot is published (its header is not INVALID) and
            // belongs to the processor until the read index passes it.
            unsafe { std::ptr::copy_nonoverlapping(slot as *const u8, packet.as_mut_ptr(), 64) };
            let start = crate::signal::now_ns();
            let completion = match ty {
                packet_type::KERNEL_DISPATCH => {
                    let status = rt.dispatch(self, slot, &packet);
                    if let Err(status) = status {
                        self.fail(status);
                        return;
                    }
                    u64::from_le_bytes(packet[56..64].try_into().unwrap_or_default())
                }
                packet_type::BARRIER_AND | packet_type::BARRIER_OR => {
                    if !self.barrier(rt, &packet, ty == packet_type::BARRIER_AND) {
                        return;
                    }
                    u64::from_le_bytes(packet[56..64].try_into().unwrap_or_default())
                }
                _ => {
                    rt.warn_once(
                        "packet",
                        &format!("a packet of type {ty} on an AQL queue (amdsim runs kernel dispatch and barrier packets)"),
                    );
                    self.fail(0x1009); // HSA_STATUS_ERROR_INVALID_PACKET_FORMAT
                    return;
                }
            };
            self.header(read)
                .store(packet_type::INVALID, Ordering::Release);
            self.read_index().store(read + 1, Ordering::Release);
            if completion != 0 {
                let sig = Signal(completion);
                sig.set_timestamps(start, crate::signal::now_ns());
                sig.update(&rt.notifier, |v| v - 1);
            } else {
                rt.notifier.notify();
            }
        }
    }

    /// Waits for a barrier packet's dependencies; false when the queue was
    /// stopped meanwhile.
    fn barrier(&self, rt: &Runtime, packet: &[u8; 64], and: bool) -> bool {
        let deps: Vec<Signal> = (0..5)
            .map(|i| {
                let o = 8 + i * 8;
                u64::from_le_bytes(packet[o..o + 8].try_into().unwrap_or_default())
            })
            .filter(|&s| s != 0)
            .map(Signal)
            .collect();
        loop {
            let epoch = rt.notifier.epoch();
            let done = |s: &Signal| s.load() == 0;
            let ok = if and {
                deps.iter().all(done)
            } else {
                deps.is_empty() || deps.iter().any(done)
            };
            if ok {
                return true;
            }
            if self.stop.load(Ordering::Acquire) {
                return false;
            }
            rt.notifier.nap(epoch, None);
        }
    }

    /// Reports an error the way ROCr does: the queue's error callback with
    /// the status, then the processor stops.
    fn fail(&self, status: u32) {
        if let Some((f, data)) = self.callback {
            // SAFETY: the callback and its data pointer are what the program
            // passed to `hsa_queue_create` for this queue.
            unsafe {
                let f: ErrorCallback = std::mem::transmute::<usize, ErrorCallback>(f);
                f(status, self.addr as *mut u8, data as *mut u8);
            }
        } else {
            eprintln!("amdsim: queue error {status:#x} and no error callback: aborting");
            std::process::abort();
        }
    }
}

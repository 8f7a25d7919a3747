//! The global data share (GDS) of a device: 64 KiB of memory that every
//! work-group shares, the 64 global wave sync (GWS) resources, and the
//! rules by which waves wait on them.
//!
//! # GWS (global wave sync)
//!
//! The operations and their resources follow the Vega ISA's pseudo-code (as
//! quoted in gem5's `vega/insts/ds.cc`); the resource number is
//! `(M0[21:16] + offset0[5:0]) % 64` (LLVM `AMDGPUISelDAGToDAG.cpp`: "(\<isa
//! opaque base\> + M0\[21:16\] + offset field) % 64", the opaque base being 0
//! here). The value an operation takes (`ds_gws_init`, `ds_gws_barrier`,
//! `ds_gws_sema_br`) is the data VGPR of the first active lane, of lane 0 when
//! EXEC is zero (RDNA3 guide §13.4.2).
//!
//! - `ds_gws_init v`: counter = v, flag = 0.
//! - `ds_gws_sema_v`: counter += 1; `ds_gws_sema_br v`: counter += v.
//! - `ds_gws_sema_p`: the wave waits until the counter is positive, then
//!   decrements it.
//! - `ds_gws_sema_release_all`: counter = the number of waves waiting on the
//!   resource, which releases all of them.
//! - `ds_gws_barrier v`: a wave arriving while the counter is positive
//!   decrements it and waits; the wave that finds it at zero (or below)
//!   flips the resource's flag, which releases every waiting wave and itself,
//!   and re-arms the counter with its own `v`. So a barrier of N waves is
//!   initialised, and called, with N − 1 (as ROCm's device library does:
//!   `ockl/src/cg.cl`).
//!
//! The GDS keeps the resources and answers for them; it does not touch waves. An
//! operation that must wait returns the [`Wait`]; the executor then gives the wave
//! status [`crate::WaveStatus::Waiting`] with its PC after the instruction, and the
//! work-group scheduler releases it when the condition holds ([`Gds::poll`]). Waves of
//! different work-groups can wait on each other only when the work-groups run together:
//! [`crate::Device::run`] runs a kernel that uses GWS or the ordered count with all its
//! work-groups resident (see [`crate::dispatch::MAX_CORESIDENT_WAVES`]).
//!
//! # Ordered count
//!
//! `ds_ordered_count` gives waves an atomic on a GDS dword in the order the
//! waves were created (work-group order, then wave order): a wave executes it
//! only when every wave created before it has released the ordered count
//! (offset1 bit 0, `wave_release`) or ended; until then it waits with its PC
//! *at* the instruction. The dword is at GDS byte address `M0[15:0] + offset0`
//! (LLVM puts the intrinsic's GDS pointer in M0 and 4 × the counter index in
//! offset0); offset1\[5:4\] selects add (0) or swap (1); the operand is the
//! address VGPR of the first active lane; every active lane receives the
//! value before the operation. GFX10's dword count (offset1\[7:6\]) must be 1.

use super::bytes::Bytes;
use crate::error::Space;
use std::sync::{Mutex, MutexGuard};

/// Bytes of GDS memory.
pub const GDS_SIZE: usize = 64 * 1024;

/// Number of GWS resources.
pub const GWS_RESOURCES: usize = 64;

/// What a wave waiting on the global data share waits for
/// ([`crate::WaveStatus::Waiting`], [`crate::Wave::wait`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// `ds_gws_sema_p`: the resource's counter to be positive.
    Semaphore {
        /// The GWS resource.
        resource: u8,
    },
    /// `ds_gws_barrier`: the resource's flag to differ from `flag`.
    Barrier {
        /// The GWS resource.
        resource: u8,
        /// The flag when the wave arrived.
        flag: bool,
    },
    /// `ds_ordered_count`: every wave created before it to have released
    /// the ordered count or ended.
    Ordered,
}

impl std::fmt::Display for Wait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Wait::Semaphore { resource } => write!(f, "GWS semaphore {resource}"),
            Wait::Barrier { resource, .. } => write!(f, "GWS barrier {resource}"),
            Wait::Ordered => f.write_str("its turn of the ordered count"),
        }
    }
}

/// One GWS resource: a counter, the barrier's flag, and how many waves wait
/// on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resource {
    /// The semaphore value, or the barrier's remaining arrivals.
    pub counter: i32,
    /// The barrier's phase: flipped by each barrier's last arrival.
    pub flag: bool,
    /// Waves waiting on the resource.
    pub queued: u32,
}

impl Resource {
    /// `ds_gws_init`: counter = `value`, flag cleared (waiting waves stay).
    fn init(&mut self, value: u32) {
        self.counter = value as i32;
        self.flag = false;
    }
}

/// The GDS state: memory and GWS resources.
#[derive(Clone, Debug)]
pub struct GdsState {
    /// The 64 KiB of GDS memory.
    pub mem: Bytes,
    /// The GWS resources.
    pub gws: [Resource; GWS_RESOURCES],
}

/// The global data share of a device (shared by every work-group; lock it
/// for each access).
pub struct Gds {
    state: Mutex<GdsState>,
}

impl Default for Gds {
    fn default() -> Self {
        Gds {
            state: Mutex::new(GdsState {
                mem: Bytes::new(GDS_SIZE, Space::Gds),
                gws: [Resource::default(); GWS_RESOURCES],
            }),
        }
    }
}

/// The resources that are not in their initial state, and the non-zero
/// dwords of the memory (not the 64 KiB).
impl std::fmt::Debug for Gds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let st = self.lock();
        let gws: Vec<_> = st
            .gws
            .iter()
            .enumerate()
            .filter(|(_, r)| **r != Resource::default())
            .collect();
        let mem: Vec<(usize, u32)> = st
            .mem
            .as_slice()
            .chunks_exact(4)
            .enumerate()
            .map(|(k, c)| (4 * k, u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .filter(|&(_, v)| v != 0)
            .collect();
        f.debug_struct("Gds")
            .field("gws", &gws)
            .field("mem", &mem)
            .finish()
    }
}

impl Clone for Gds {
    fn clone(&self) -> Self {
        Gds {
            state: Mutex::new(self.lock().clone()),
        }
    }
}

/// A GWS operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GwsOp {
    /// `ds_gws_init`.
    Init,
    /// `ds_gws_sema_v`.
    SemaV,
    /// `ds_gws_sema_br`.
    SemaBr,
    /// `ds_gws_sema_p`.
    SemaP,
    /// `ds_gws_sema_release_all`.
    SemaReleaseAll,
    /// `ds_gws_barrier`.
    Barrier,
}

impl Gds {
    /// The state, locked.
    pub fn lock(&self) -> MutexGuard<'_, GdsState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets resource `rid` as `ds_gws_init` does (counter = `value`, flag
    /// cleared), from the host.
    pub fn init(&self, rid: u8, value: u32) {
        self.lock().gws[rid as usize % GWS_RESOURCES].init(value);
    }

    /// Applies GWS operation `op` with `value` to resource `rid` for a wave:
    /// `None` when the wave goes on running, else what it must wait for (the
    /// resource counts it as queued until [`Gds::poll`] releases it).
    #[must_use]
    pub fn gws(&self, op: GwsOp, rid: u8, value: u32) -> Option<Wait> {
        let mut st = self.lock();
        let r = &mut st.gws[rid as usize % GWS_RESOURCES];
        let wait = match op {
            GwsOp::Init => {
                r.init(value);
                None
            }
            GwsOp::SemaV => {
                r.counter = r.counter.wrapping_add(1);
                None
            }
            GwsOp::SemaBr => {
                r.counter = r.counter.wrapping_add(value as i32);
                None
            }
            GwsOp::SemaReleaseAll => {
                r.counter = r.queued as i32;
                None
            }
            GwsOp::SemaP => {
                if r.counter > 0 {
                    r.counter -= 1;
                    None
                } else {
                    Some(Wait::Semaphore { resource: rid })
                }
            }
            GwsOp::Barrier => {
                let mine = r.flag;
                if r.counter <= 0 {
                    // The last arrival: opens the barrier for everyone
                    // (itself included) and re-arms it.
                    r.flag = !r.flag;
                    r.counter = value as i32;
                    None
                } else {
                    r.counter -= 1;
                    Some(Wait::Barrier {
                        resource: rid,
                        flag: mine,
                    })
                }
            }
        };
        if wait.is_some() {
            r.queued += 1;
        }
        wait
    }

    /// Whether a wave waiting for `wait` on a GWS resource may go on; if so the
    /// resource no longer counts it as queued (and, after `ds_gws_sema_p`, it has
    /// taken the semaphore). The ordered count's turn is not the GDS's to give:
    /// always `false` for [`Wait::Ordered`].
    pub fn poll(&self, wait: Wait) -> bool {
        let rid = match wait {
            Wait::Semaphore { resource } | Wait::Barrier { resource, .. } => resource,
            Wait::Ordered => return false,
        };
        let mut st = self.lock();
        let r = &mut st.gws[rid as usize % GWS_RESOURCES];
        let go = match wait {
            Wait::Semaphore { .. } => {
                let go = r.counter > 0;
                if go {
                    r.counter -= 1;
                }
                go
            }
            Wait::Barrier { flag, .. } => r.flag != flag,
            Wait::Ordered => false,
        };
        if go {
            r.queued = r.queued.saturating_sub(1);
        }
        go
    }
}

//! What a run reports: figures, faults, why it stopped and where unfinished waves were.

use super::launch::{Launch, Workgroup};
use crate::error::SimError;
use crate::wave::WaveStatus;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

/// Figures of a finished dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Work-groups executed.
    pub groups: u64,
    /// Waves executed.
    pub waves: u64,
    /// Instructions executed, summed over waves.
    pub instructions: u64,
    /// Lane operations (vector instructions times the lanes EXEC enabled),
    /// summed over waves.
    pub lane_ops: u64,
}

/// How [`crate::Device::run_with`] runs a dispatch.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Stop every work-group at the first fault (default: run the others on).
    pub stop_on_fault: bool,
    /// The wall-clock limit of the run.
    pub timeout: Option<Duration>,
    /// Set from outside (a Ctrl-C handler) to stop the run promptly.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Incremented each time a work-group completes (for a progress bar).
    pub progress: Option<Arc<AtomicU64>>,
    /// How many faults the report keeps in full (the lowest work-groups);
    /// the rest are only counted.
    pub max_faults: usize,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            stop_on_fault: false,
            timeout: None,
            cancel: None,
            progress: None,
            max_faults: 64,
        }
    }
}

/// Why a run stopped before every work-group finished.
#[derive(Clone, Debug, PartialEq)]
pub enum Stopped {
    /// A wave reached the instruction cap (the error says where).
    InstructionLimit(Box<SimError>),
    /// The wall-clock limit passed.
    Timeout,
    /// The cancel flag was set.
    Cancelled,
    /// A fault stopped the run ([`RunOptions::stop_on_fault`]).
    Fault,
}

/// A work-group's fault.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupFault {
    /// The work-group's linear number (x fastest).
    pub linear: u64,
    /// The work-group.
    pub group: [u32; 3],
    /// What happened, and where.
    pub error: SimError,
}

/// Where an unfinished wave was when a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveAt {
    /// The work-group.
    pub group: [u32; 3],
    /// The wave's number in it.
    pub wave: u32,
    /// Its PC.
    pub pc: u64,
    /// The instruction at the PC (empty when none).
    pub inst: String,
    /// Running or waiting at a barrier.
    pub status: WaveStatus,
    /// Instructions it executed.
    pub executed: u64,
}

/// What [`crate::Device::run_with`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    /// Work-groups completed, and the waves and instructions of every
    /// work-group that started.
    pub stats: Stats,
    /// Work-groups in the grid.
    pub total_groups: u64,
    /// The faults kept in full, in work-group order.
    pub faults: Vec<GroupFault>,
    /// Every fault, kept or not.
    pub fault_count: u64,
    /// Why the run stopped early, if it did.
    pub stopped: Option<Stopped>,
    /// The unfinished waves of the work-groups a stop interrupted.
    pub interrupted: Vec<WaveAt>,
}

impl RunReport {
    /// Whether every work-group ran to its end without a fault.
    pub fn ok(&self) -> bool {
        self.fault_count == 0 && self.stopped.is_none()
    }
}

/// What a run collects while its work-groups end: the faults kept in full, the count of
/// all, the first instruction-cap error, and the unfinished waves of interrupted groups.
#[derive(Default)]
pub(super) struct Collected {
    pub faults: BTreeMap<u64, GroupFault>,
    pub count: u64,
    pub limit: Option<Box<SimError>>,
    pub waves: Vec<WaveAt>,
}

impl Collected {
    /// Files the fault of work-group `linear`, keeping the `keep` lowest in full.
    pub fn fault(&mut self, linear: u64, group: [u32; 3], error: SimError, keep: usize) {
        self.count += 1;
        self.faults.insert(
            linear,
            GroupFault {
                linear,
                group,
                error,
            },
        );
        while self.faults.len() > keep {
            self.faults.pop_last();
        }
    }

    /// Notes where the unfinished waves of an interrupted work-group are.
    pub fn interrupted(&mut self, wg: &Workgroup, launch: &Launch) {
        for w in wg.waves.iter().filter(|w| w.status != WaveStatus::Done) {
            self.waves.push(WaveAt {
                group: wg.id,
                wave: w.id,
                pc: w.pc,
                inst: launch
                    .program
                    .at(w.pc)
                    .map(|i| i.to_string())
                    .unwrap_or_default(),
                status: w.status,
                executed: w.executed,
            });
        }
    }
}

//! Running a prepared dispatch: the work-groups of the grid in parallel on rayon (or, for
//! a kernel whose waves wait on each other through the GDS, all resident on one thread),
//! each scheduled by [`super::scheduler`], and the report of how they ended.

use super::device::Device;
use super::launch::{Launch, LaunchConfig, Workgroup};
use super::load::Module;
use super::report::{Collected, GroupFault, RunOptions, RunReport, Stats, Stopped};
use super::scheduler::{Resident, Turn};
use super::watchdog::Watchdog;
use crate::error::SimError;
use crate::wave::Wave;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Device {
    /// Runs a prepared dispatch to completion, work-groups in parallel. The
    /// first error (in work-group order) is returned; [`Device::run_with`]
    /// reports every one and keeps the results of the other work-groups.
    pub fn run(&self, launch: &Launch) -> Result<Stats, SimError> {
        let report = self.run_with(launch, &RunOptions::default());
        match report.stopped {
            Some(Stopped::InstructionLimit(e)) => return Err(*e),
            Some(Stopped::Fault) | None => {}
            Some(Stopped::Timeout) | Some(Stopped::Cancelled) => {}
        }
        match report.faults.into_iter().next() {
            Some(f) => Err(f.error),
            None => Ok(report.stats),
        }
    }

    /// Runs a prepared dispatch, work-groups in parallel on the current rayon
    /// pool. A work-group that faults stops there; the others run to
    /// completion (or, with [`RunOptions::stop_on_fault`], stop). The
    /// instruction cap of a wave, the deadline and the cancel flag stop every
    /// work-group promptly; the report then says where each unfinished wave
    /// was. Whatever the work-groups wrote stays in memory.
    pub fn run_with(&self, launch: &Launch, opts: &RunOptions) -> RunReport {
        let run = Run::new(self, launch, opts);
        let finished = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let watchdog = Watchdog {
                timeout: opts.timeout,
                cancel: opts.cancel.as_deref(),
                stop: &run.stop,
                timed_out: &run.timed_out,
                finished: &finished,
            }
            .spawn(scope);
            if launch.uses_gds_sync() {
                run.coresident();
            } else {
                run.parallel();
            }
            finished.store(true, Ordering::Relaxed);
            if let Some(w) = watchdog {
                w.thread().unpark();
            }
        });
        run.report()
    }

    /// Prepares and runs a dispatch of `kernel` of `module` ([`Device::launch`]
    /// then [`Device::run`]).
    pub fn dispatch(
        &self,
        module: &Module,
        kernel: &str,
        config: LaunchConfig,
    ) -> Result<Stats, SimError> {
        let l = self.launch(module, kernel, config)?;
        self.run(&l)
    }
}

/// One run of a dispatch: what its work-groups share while they run (the stop flag
/// they poll, the counters, the faults and interrupted waves collected).
struct Run<'a> {
    device: &'a Device,
    launch: &'a Launch,
    opts: &'a RunOptions,
    /// Work-groups in the grid.
    total: u64,
    stop: AtomicBool,
    timed_out: AtomicBool,
    state: Mutex<Collected>,
    waves: AtomicU64,
    instructions: AtomicU64,
    lane_ops: AtomicU64,
    /// Work-groups completed.
    completed: AtomicU64,
}

impl<'a> Run<'a> {
    fn new(device: &'a Device, launch: &'a Launch, opts: &'a RunOptions) -> Self {
        let [gx, gy, gz] = launch.groups;
        Run {
            device,
            launch,
            opts,
            total: gx as u64 * gy as u64 * gz as u64,
            stop: AtomicBool::new(false),
            timed_out: AtomicBool::new(false),
            state: Mutex::new(Collected::default()),
            waves: AtomicU64::new(0),
            instructions: AtomicU64::new(0),
            lane_ops: AtomicU64::new(0),
            completed: AtomicU64::new(0),
        }
    }

    /// The `stop` a work-group's schedule asks before each instruction: the stop flag,
    /// polled every 256 instructions (prompt, and off the per-instruction path).
    fn poller(&self) -> impl FnMut(&Wave) -> bool + '_ {
        let mut polls = 0u32;
        move |_| {
            polls = polls.wrapping_add(1);
            polls % 256 == 0 && self.stop.load(Ordering::Relaxed)
        }
    }

    /// Files a fault of work-group `n`.
    fn fault(&self, n: u64, id: [u32; 3], error: SimError) {
        lock(&self.state).fault(n, id, error, self.opts.max_faults);
    }

    /// Counts a work-group's waves and instructions and files how it
    /// ended: completed, interrupted, stopped by the cap, or faulted.
    fn account(&self, wg: &Workgroup, n: u64, r: Result<Option<u32>, SimError>) {
        self.waves
            .fetch_add(wg.waves.len() as u64, Ordering::Relaxed);
        self.instructions.fetch_add(
            wg.waves.iter().map(|w| w.executed).sum::<u64>(),
            Ordering::Relaxed,
        );
        self.lane_ops.fetch_add(
            wg.waves.iter().map(|w| w.lane_ops).sum::<u64>(),
            Ordering::Relaxed,
        );
        match r {
            Ok(None) => {
                self.completed.fetch_add(1, Ordering::Relaxed);
                if let Some(d) = self.opts.progress.as_deref() {
                    d.fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(Some(_)) => lock(&self.state).interrupted(wg, self.launch),
            Err(error @ SimError::InstructionLimit { .. }) => {
                self.stop.store(true, Ordering::Relaxed);
                let mut st = lock(&self.state);
                if st.limit.is_none() {
                    st.limit = Some(Box::new(error));
                }
                st.interrupted(wg, self.launch);
            }
            Err(error) => {
                if self.opts.stop_on_fault {
                    self.stop.store(true, Ordering::Relaxed);
                }
                self.fault(n, wg.id, error);
            }
        }
    }

    /// Creates and runs work-group `n` to its end (or the stop); `Err` once the run
    /// has stopped, so that no further work-group starts.
    fn one_group(&self, n: u64) -> Result<(), ()> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(());
        }
        let id = self.launch.group_id(n);
        let mut wg = match self.launch.workgroup(id) {
            Ok(wg) => wg,
            Err(error) => {
                self.fault(n, id, error);
                return Ok(());
            }
        };
        let r = wg.run_until(self.launch, &self.device.mem, self.poller());
        self.account(&wg, n, r);
        Ok(())
    }

    /// Every work-group, in parallel on the current rayon pool.
    fn parallel(&self) {
        // One work-group runs on this thread: handing it to the pool and
        // waiting would cost two thread wake-ups, most of a small launch.
        let _ = if self.total == 1 {
            self.one_group(0)
        } else {
            (0..self.total)
                .into_par_iter()
                .try_for_each(|n| self.one_group(n))
        };
    }

    /// A kernel that uses GWS or the ordered count: every work-group
    /// resident at once, scheduled pass by pass on this thread ([`Resident`]),
    /// so that waves of different work-groups can wait on each other.
    fn coresident(&self) {
        let created = Resident::create(self.launch, |n, id, error| self.fault(n, id, error));
        let mut set = match created {
            Ok(set) => set,
            Err(error) => return self.fault(0, [0; 3], error.into()),
        };
        let mut stop = self.poller();
        while !set.is_empty() {
            match set.turn(self.launch, &self.device.mem, |_, w| stop(w)) {
                Turn::Ended { n, group } => self.account(&group, n, Ok(None)),
                Turn::Stopped { index, wave } => {
                    if let Some((n, g)) = set.remove(index) {
                        self.account(&g, n, Ok(Some(wave)));
                    }
                }
                Turn::Faulted { index, error } => {
                    if let Some((n, g)) = set.remove(index) {
                        self.account(&g, n, Err(error));
                    }
                }
                Turn::Pass { progressed } => {
                    if self.stop.load(Ordering::Relaxed) {
                        for (n, g) in set.drain() {
                            self.account(&g, n, Ok(Some(0)));
                        }
                    } else if !progressed {
                        for (n, g) in set.drain() {
                            let what = g.stuck();
                            self.account(&g, n, Err(SimError::Deadlock { group: g.id, what }));
                        }
                    }
                }
            }
        }
    }

    /// Why the run stopped early, if it did.
    fn stopped(&self, limit: Option<Box<SimError>>) -> Option<Stopped> {
        let stop = self.stop.load(Ordering::Relaxed);
        let cancelled = self
            .opts
            .cancel
            .as_deref()
            .is_some_and(|c| c.load(Ordering::Relaxed));
        if let Some(e) = limit {
            Some(Stopped::InstructionLimit(e))
        } else if self.timed_out.load(Ordering::Relaxed) {
            Some(Stopped::Timeout)
        } else if cancelled && stop {
            Some(Stopped::Cancelled)
        } else if stop {
            Some(Stopped::Fault)
        } else {
            None
        }
    }

    /// The report of the finished run.
    fn report(self) -> RunReport {
        let st = std::mem::take(&mut *lock(&self.state));
        let stopped = self.stopped(st.limit);
        let mut faults: Vec<GroupFault> = st.faults.into_values().collect();
        faults.sort_by_key(|f| f.linear);
        let mut interrupted = st.waves;
        interrupted.sort_by_key(|w| (w.group[2], w.group[1], w.group[0], w.wave));
        RunReport {
            stats: Stats {
                groups: self.completed.load(Ordering::Relaxed),
                waves: self.waves.load(Ordering::Relaxed),
                instructions: self.instructions.load(Ordering::Relaxed),
                lane_ops: self.lane_ops.load(Ordering::Relaxed),
            },
            total_groups: self.total,
            faults,
            fault_count: st.count,
            stopped,
            interrupted,
        }
    }
}

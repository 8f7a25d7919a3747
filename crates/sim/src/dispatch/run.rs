//! Running a prepared dispatch: the work-groups of the grid in parallel on rayon (or, for
//! a kernel whose waves wait on each other through the GDS, all resident on one thread),
//! each scheduled by [`super::scheduler`], and the report of how they ended.

use super::device::Device;
use super::launch::{Launch, LaunchConfig, Workgroup};
use super::load::Module;
use super::report::{Collected, GroupFault, RunOptions, RunReport, Stats, Stopped};
use super::scheduler::{MAX_CORESIDENT_WAVES, Resident, Round, Turn};
use super::watchdog::Watchdog;
use crate::error::SimError;
use crate::wave::Wave;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Full rounds of a work-group's schedule (each wave's quantum used, see
/// [`super::scheduler::WAVE_QUANTUM`]) after which a work-group that has not ended is
/// taken to be spinning on memory another work-group writes: the thread running it
/// takes on the next work-group too ([`Run::worker`]).
const SPIN_ROUNDS: u32 = 16;

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

    /// Every work-group, on as many threads of its own as the current rayon pool has
    /// (see [`Run::worker`]): threads of the dispatch's own, not the pool's, so that
    /// dispatches running at once (several HSA queues) all progress, as on a GPU,
    /// however long the work-groups of one of them spin.
    fn parallel(&self) {
        let next = AtomicU64::new(0);
        let resident = AtomicU64::new(0);
        let threads = (rayon::current_num_threads() as u64).clamp(1, self.total.max(1));
        // Work-groups are claimed in runs of consecutive ones, so that each thread
        // works on memory of its own (threads taking turns group by group write the
        // same pages at once).
        let chunk = (self.total / (threads * 8)).clamp(1, 256);
        if threads == 1 {
            // On this thread: starting one costs more than a small launch.
            self.worker(&next, chunk, &resident);
            return;
        }
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|| self.worker(&next, chunk, &resident));
            }
            self.worker(&next, chunk, &resident);
        });
    }

    /// The most work-groups of this dispatch resident at once (a GPU's capacity,
    /// [`MAX_CORESIDENT_WAVES`] waves).
    fn capacity(&self) -> u64 {
        let items = self
            .launch
            .config
            .group
            .iter()
            .map(|&g| g as u64)
            .product::<u64>();
        let per_group = items.div_ceil(self.launch.wave_size as u64).max(1);
        (MAX_CORESIDENT_WAVES / per_group).max(1)
    }

    /// One thread of [`Run::parallel`]: claims runs of `chunk` consecutive work-groups
    /// (the next ones in grid order), and runs each to
    /// its end, as before; but a work-group whose waves all sleep (`s_sleep`), or that
    /// runs [`SPIN_ROUNDS`] full quanta without ending, may be waiting for another
    /// work-group or dispatch: it stays resident on this thread and the thread takes
    /// the next work-group too, turn about with it, as long as the device has room
    /// (every work-group a GPU would hold at once makes progress, however few threads
    /// run them). A work-group that never waits runs alone, exactly as before.
    fn worker(&self, next: &AtomicU64, chunk: u64, resident: &AtomicU64) {
        let mut mine: VecDeque<(u64, Workgroup, u32)> = VecDeque::new();
        // The work-groups this thread has claimed and not started.
        let mut claimed = 0..0u64;
        let mut stop = self.poller();
        let capacity = self.capacity();
        loop {
            if self.stop.load(Ordering::Relaxed) {
                for (n, g, _) in mine.drain(..) {
                    self.account(&g, n, Ok(Some(0)));
                }
                return;
            }
            let waiting = !mine.is_empty() && mine.iter().all(|m| m.2 >= SPIN_ROUNDS);
            if (mine.is_empty() || waiting) && resident.fetch_add(1, Ordering::Relaxed) < capacity {
                if claimed.is_empty() {
                    let start = next.fetch_add(chunk, Ordering::Relaxed).min(self.total);
                    claimed = start..(start + chunk).min(self.total);
                }
                if let Some(n) = claimed.next() {
                    let id = self.launch.group_id(n);
                    match self.launch.workgroup(id) {
                        Ok(wg) => mine.push_front((n, wg, 0)),
                        Err(error) => {
                            resident.fetch_sub(1, Ordering::Relaxed);
                            self.fault(n, id, error);
                        }
                    }
                    continue;
                }
                resident.fetch_sub(1, Ordering::Relaxed);
            } else if mine.is_empty() || waiting {
                resident.fetch_sub(1, Ordering::Relaxed);
            }
            let Some((n, mut wg, waits)) = mine.pop_front() else {
                if claimed.is_empty() {
                    return;
                }
                // The device is full: the work-groups claimed wait for room.
                std::thread::yield_now();
                continue;
            };
            let r = match wg.round(self.launch, &self.device.mem, &mut stop) {
                Ok(Round::Done) => Ok(None),
                Ok(Round::Stopped(w)) => Ok(Some(w)),
                Err(e) => Err(e),
                Ok(Round::Asleep) => {
                    if waiting {
                        std::thread::yield_now();
                    }
                    // The others' turn.
                    mine.push_back((n, wg, waits.max(SPIN_ROUNDS)));
                    continue;
                }
                Ok(Round::Blocked { progressed }) => {
                    let woken = super::scheduler::wake(self.device.mem.gds(), &mut wg.waves);
                    if progressed || woken {
                        // A full quantum: on with this group, or a turn for the others
                        // once it looks like a spin.
                        let waits = if progressed { waits + 1 } else { 0 };
                        if waits >= SPIN_ROUNDS {
                            mine.push_back((n, wg, waits));
                        } else {
                            mine.push_front((n, wg, waits));
                        }
                        continue;
                    }
                    Err(SimError::Deadlock {
                        group: wg.id,
                        what: wg.stuck(),
                    })
                }
            };
            resident.fetch_sub(1, Ordering::Relaxed);
            self.account(&wg, n, r);
        }
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

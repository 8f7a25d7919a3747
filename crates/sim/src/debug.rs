//! Stepping: breakpoints by address, single step of one wave, and read access
//! to a stopped wave's state (registers, EXEC, PC, memory by address space).
//!
//! A [`Session`] runs one dispatch with the wave schedule [`Device::run`] gives
//! it, so a program stopped and resumed computes exactly what an uninterrupted
//! run computes:
//!
//! - an ordinary kernel runs one work-group at a time, in work-group order,
//!   each scheduled by [`Workgroup::run_until`] (each wave runs until it ends
//!   or reaches a barrier, in wave order);
//! - a kernel whose waves wait on other work-groups' waves through GWS or the
//!   ordered count (a grid barrier, a semaphore another work-group signals:
//!   [`Launch::uses_gds_sync`], the test [`Device::run`] makes) runs with every
//!   work-group resident at once, pass by pass as [`Resident`] schedules it
//!   for [`Device::run`], when the grid has more than one work-group (one
//!   work-group alone is scheduled the same way either way). The session then
//!   has a focused work-group, the one a stop was in or
//!   [`Session::focus_group`] chose, whose waves [`Session::wave`] and
//!   [`Session::step`] mean; [`Session::groups`] lists every resident one, and
//!   [`Session::run_until_runnable`] runs the others until a wave that waits
//!   on them can go on. A wait nothing can release is reported as
//!   [`SimError::Deadlock`] naming the resource, as [`Device::run`] reports it;
//!   a grid with more waves than can be resident, as
//!   [`DispatchError::TooManyCoresident`].

use crate::dispatch::{Device, Launch, Resident, Turn, Workgroup};
use crate::error::{DispatchError, FaultKind, MemFault, SimError, Space};
use crate::exec::{self, Ctx};
use crate::memory::Bytes;
use crate::wave::{Wave, WaveStatus};
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Why a [`Session`] stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A wave is about to execute the instruction at a breakpoint.
    Breakpoint {
        /// Work-group id.
        group: [u32; 3],
        /// Wave number in the group.
        wave: u32,
        /// The breakpoint address.
        pc: u64,
    },
    /// A single step completed.
    Stepped {
        /// Work-group id.
        group: [u32; 3],
        /// Wave number in the group.
        wave: u32,
        /// The wave's PC after the step.
        pc: u64,
    },
    /// The stepped wave cannot run now (it has ended or waits at a barrier
    /// that other waves have not reached).
    NotRunnable {
        /// Wave number in the group.
        wave: u32,
        /// Its status.
        status: WaveStatus,
    },
    /// A wave was stopped before its next instruction because the session's
    /// interrupt flag was raised (Ctrl-C in a debugger).
    Interrupted {
        /// Work-group id.
        group: [u32; 3],
        /// Wave number in the group.
        wave: u32,
        /// The wave's PC.
        pc: u64,
    },
    /// Every work-group has finished.
    Finished,
}

/// Whether a session over `launch` keeps every work-group resident: the kernel's
/// waves wait on other work-groups' through GWS or the ordered count (as
/// [`Device::run`] decides, [`Launch::uses_gds_sync`]) and the grid has more
/// than one work-group.
pub fn needs_residency(launch: &Launch) -> bool {
    let groups: u64 = launch.groups.iter().map(|&g| u64::from(g)).product();
    groups > 1 && launch.uses_gds_sync()
}

/// How a session's work-groups run.
enum Groups {
    /// One at a time, in work-group order.
    Sequential {
        pending: VecDeque<[u32; 3]>,
        current: Option<Workgroup>,
    },
    /// Every one resident at once (created at the first resume or step).
    Resident {
        set: Option<Resident>,
        /// The focused work-group.
        focus: Option<[u32; 3]>,
    },
}

/// A breakpoint just reported, not to be reported again before its wave
/// moves: (work-group, wave, PC).
type Skip = Option<([u32; 3], u32, u64)>;

/// Whether a run stops before wave `w` of work-group `group` executes its next
/// instruction: `raised` (the interrupt flag), or the wave is at a breakpoint
/// (one just reported lets its wave pass once).
fn stops_at(
    breakpoints: &BTreeSet<u64>,
    skip: &mut Skip,
    raised: bool,
    group: [u32; 3],
    w: &Wave,
) -> bool {
    if raised {
        return true;
    }
    if !breakpoints.contains(&w.pc) {
        return false;
    }
    if *skip == Some((group, w.id, w.pc)) {
        *skip = None;
        return false;
    }
    true
}

/// Whether `flag` is raised (without lowering it).
fn is_raised(flag: Option<&AtomicBool>) -> bool {
    flag.is_some_and(|f| f.load(Ordering::Relaxed))
}

/// A dispatch under debugger control.
pub struct Session<'d> {
    device: &'d Device,
    launch: Launch,
    breakpoints: BTreeSet<u64>,
    groups: Groups,
    skip: Skip,
    /// Raised from elsewhere (a signal handler) to stop a running resume.
    interrupt: Option<Arc<AtomicBool>>,
}

impl<'d> Session<'d> {
    /// A session over a prepared dispatch; nothing runs until
    /// [`Session::resume`] or [`Session::step`]. Whether its work-groups run
    /// one at a time or all resident is [`needs_residency`]'s answer.
    pub fn new(device: &'d Device, launch: Launch) -> Self {
        let groups = if needs_residency(&launch) {
            Groups::Resident {
                set: None,
                focus: None,
            }
        } else {
            let [gx, gy, gz] = launch.groups;
            let mut pending = VecDeque::new();
            for z in 0..gz {
                for y in 0..gy {
                    for x in 0..gx {
                        pending.push_back([x, y, z]);
                    }
                }
            }
            Groups::Sequential {
                pending,
                current: None,
            }
        };
        Session {
            device,
            launch,
            breakpoints: BTreeSet::new(),
            groups,
            skip: None,
            interrupt: None,
        }
    }

    /// Makes [`Session::resume`] stop the running wave with [`Stop::Interrupted`] when
    /// `flag` is raised (the flag is lowered when the stop is reported).
    pub fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
    }

    /// Adds a breakpoint at guest address `pc`.
    pub fn add_breakpoint(&mut self, pc: u64) {
        self.breakpoints.insert(pc);
    }

    /// Removes a breakpoint; returns whether it existed.
    pub fn remove_breakpoint(&mut self, pc: u64) -> bool {
        self.breakpoints.remove(&pc)
    }

    /// The breakpoints.
    pub fn breakpoints(&self) -> impl Iterator<Item = u64> + '_ {
        self.breakpoints.iter().copied()
    }

    /// The dispatch.
    pub fn launch(&self) -> &Launch {
        &self.launch
    }

    /// Whether every work-group is resident at once ([`needs_residency`]).
    pub fn resident(&self) -> bool {
        matches!(self.groups, Groups::Resident { .. })
    }

    /// The work-group being executed, if any: the running one, or with every
    /// work-group resident the focused one.
    pub fn group(&self) -> Option<&Workgroup> {
        match &self.groups {
            Groups::Sequential { current, .. } => current.as_ref(),
            Groups::Resident {
                set: Some(set),
                focus: Some(id),
            } => set.index_of(*id).and_then(|k| set.get(k)),
            Groups::Resident { .. } => None,
        }
    }

    fn group_mut(&mut self) -> Option<&mut Workgroup> {
        match &mut self.groups {
            Groups::Sequential { current, .. } => current.as_mut(),
            Groups::Resident {
                set: Some(set),
                focus: Some(id),
            } => set.index_of(*id).and_then(|k| set.get_mut(k)),
            Groups::Resident { .. } => None,
        }
    }

    /// The work-groups being executed, in work-group order: every resident one,
    /// or the running one.
    pub fn groups(&self) -> Vec<&Workgroup> {
        match &self.groups {
            Groups::Sequential { current, .. } => current.iter().collect(),
            Groups::Resident { set, .. } => set.iter().flat_map(Resident::groups).collect(),
        }
    }

    /// Makes resident work-group `id` the focused one, whose waves
    /// [`Session::wave`] and [`Session::step`] mean (creating the work-groups
    /// first if nothing has run). Returns whether `id` is being executed (with
    /// work-groups one at a time: whether it is the running one, which does
    /// not change).
    pub fn focus_group(&mut self, id: [u32; 3]) -> Result<bool, SimError> {
        self.start()?;
        match &mut self.groups {
            Groups::Sequential { current, .. } => Ok(current.as_ref().is_some_and(|g| g.id == id)),
            Groups::Resident { set, focus } => {
                let live = set.as_ref().is_some_and(|s| s.index_of(id).is_some());
                if live {
                    *focus = Some(id);
                }
                Ok(live)
            }
        }
    }

    /// Whether work-group `id` has run to its end.
    pub fn has_ended(&self, id: [u32; 3]) -> bool {
        let [gx, gy, _] = self.launch.groups.map(u64::from);
        let order = |g: [u32; 3]| u64::from(g[0]) + gx * (u64::from(g[1]) + gy * u64::from(g[2]));
        match &self.groups {
            Groups::Sequential { pending, current } => {
                current.as_ref().is_none_or(|g| g.id != id)
                    && pending.front().is_none_or(|&p| order(id) < order(p))
            }
            Groups::Resident { set: None, .. } => false,
            Groups::Resident { set: Some(set), .. } => set.index_of(id).is_none(),
        }
    }

    /// Wave `n` of the current (or focused) work-group.
    pub fn wave(&self, n: u32) -> Option<&Wave> {
        self.group()?.waves.get(n as usize)
    }

    /// Wave `n` of the current (or focused) work-group, for changing its state
    /// (registers, EXEC, PC) before resuming.
    pub fn wave_mut(&mut self, n: u32) -> Option<&mut Wave> {
        self.group_mut()?.waves.get_mut(n as usize)
    }

    /// The current (or focused) work-group's LDS, for changing it before
    /// resuming (a debugger writing a `__local` variable).
    pub fn lds_mut(&mut self) -> Option<&mut Bytes> {
        self.group_mut().map(|g| &mut g.lds)
    }

    /// Creates the work-groups of a resident session, if not done yet.
    fn start(&mut self) -> Result<(), SimError> {
        if let Groups::Resident {
            set: set @ None, ..
        } = &mut self.groups
        {
            let mut first = None;
            let created = Resident::create(&self.launch, |_, _, e| {
                first.get_or_insert(e);
            })?;
            if let Some(e) = first {
                return Err(e);
            }
            *set = Some(created);
        }
        Ok(())
    }

    /// With work-groups one at a time, starts the next one if none is running;
    /// false once every one has run.
    fn ensure_group(&mut self) -> Result<bool, SimError> {
        let Groups::Sequential { pending, current } = &mut self.groups else {
            return Ok(true);
        };
        if current.is_none() {
            match pending.pop_front() {
                Some(id) => *current = Some(self.launch.workgroup(id)?),
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    /// The stop of wave `wave` of work-group `group` at `pc`, before its next
    /// instruction: interrupted if the interrupt flag is raised (lowering it),
    /// else at a breakpoint, which lets the wave pass when resumed.
    fn stopped(&mut self, group: [u32; 3], wave: u32, pc: u64) -> Stop {
        let interrupted = self
            .interrupt
            .as_deref()
            .is_some_and(|f| f.swap(false, Ordering::Relaxed));
        if interrupted {
            self.skip = self.breakpoints.contains(&pc).then_some((group, wave, pc));
            return Stop::Interrupted { group, wave, pc };
        }
        self.skip = Some((group, wave, pc));
        Stop::Breakpoint { group, wave, pc }
    }

    /// Runs until a wave reaches a breakpoint or the dispatch finishes, with
    /// the schedule [`Device::run`] uses: the work-groups one at a time through
    /// [`Workgroup::run_until`], or all resident through [`Resident::turn`].
    pub fn resume(&mut self) -> Result<Stop, SimError> {
        if self.resident() {
            return self.resume_resident();
        }
        loop {
            if !self.ensure_group()? {
                return Ok(Stop::Finished);
            }
            let Groups::Sequential { current, .. } = &mut self.groups else {
                return Ok(Stop::Finished);
            };
            let Some(wg) = current.as_mut() else {
                return Ok(Stop::Finished);
            };
            let (breakpoints, skip) = (&self.breakpoints, &mut self.skip);
            let interrupt = self.interrupt.as_deref();
            let id = wg.id;
            let stopped = wg.run_until(&self.launch, &self.device.mem, |w| {
                stops_at(breakpoints, skip, is_raised(interrupt), id, w)
            })?;
            match stopped {
                Some(wave) => {
                    let pc = wg.waves.get(wave as usize).map_or(0, |w| w.pc);
                    return Ok(self.stopped(id, wave, pc));
                }
                None => *current = None,
            }
        }
    }

    /// [`Session::resume`] with every work-group resident.
    fn resume_resident(&mut self) -> Result<Stop, SimError> {
        self.start()?;
        let Groups::Resident {
            set: Some(set),
            focus,
        } = &mut self.groups
        else {
            return Ok(Stop::Finished);
        };
        let (breakpoints, skip) = (&self.breakpoints, &mut self.skip);
        let interrupt = self.interrupt.as_deref();
        let (id, wave, pc) = loop {
            if set.is_empty() {
                *focus = None;
                return Ok(Stop::Finished);
            }
            let turn = set.turn(&self.launch, &self.device.mem, |g, w| {
                stops_at(breakpoints, skip, is_raised(interrupt), g, w)
            });
            match turn {
                Turn::Stopped { index, wave } => {
                    let Some(g) = set.get(index) else {
                        continue;
                    };
                    let pc = g.waves.get(wave as usize).map_or(0, |w| w.pc);
                    break (g.id, wave, pc);
                }
                Turn::Faulted { index, error } => {
                    *focus = set.get(index).map(|g| g.id).or(*focus);
                    return Err(error);
                }
                Turn::Ended { group, .. } => {
                    if *focus == Some(group.id) {
                        *focus = None;
                    }
                }
                Turn::Pass { progressed: false } => return Err(set.deadlock()),
                Turn::Pass { progressed: true } => {}
            }
        };
        *focus = Some(id);
        Ok(self.stopped(id, wave, pc))
    }

    /// Executes one instruction of wave `wave` of the current work-group
    /// (starting the next work-group first if none is current), or of the
    /// focused one when every work-group is resident (the first resident one
    /// if none is focused).
    pub fn step(&mut self, wave: u32) -> Result<Stop, SimError> {
        if !self.ensure_group()? {
            return Ok(Stop::Finished);
        }
        self.start()?;
        let gds = self.device.mem.gds();
        let wg = match &mut self.groups {
            Groups::Sequential { current, .. } => {
                let Some(wg) = current.as_mut() else {
                    return Ok(Stop::Finished);
                };
                // A barrier that every unfinished wave has reached opens now, and
                // so do the GDS waits that are over.
                wg.release_barrier();
                crate::dispatch::wake(gds, &mut wg.waves);
                wg
            }
            Groups::Resident { set: None, .. } => return Ok(Stop::Finished),
            Groups::Resident {
                set: Some(set),
                focus,
            } => {
                let index = focus.and_then(|id| set.index_of(id)).unwrap_or(0);
                let Some(wg) = set.get_mut(index) else {
                    return Ok(Stop::Finished);
                };
                *focus = Some(wg.id);
                wg.release_barrier();
                // The GDS waits of every resident work-group.
                set.wake(gds);
                let Some(wg) = set.get_mut(index) else {
                    return Ok(Stop::Finished);
                };
                wg
            }
        };
        let (group, pc) = match step_wave(&self.launch, self.device, wg, wave)? {
            Ok(pc) => (wg.id, pc),
            Err(status) => return Ok(Stop::NotRunnable { wave, status }),
        };
        // A wave stepped onto a breakpoint is stopped there already: resuming passes it
        // (as gdb steps over the breakpoint at a stopped thread's PC).
        self.skip = self.breakpoints.contains(&pc).then_some((group, wave, pc));
        if wg.waves.iter().all(|w| w.status == WaveStatus::Done) {
            self.retire(group);
        }
        if let Groups::Resident { set: Some(set), .. } = &mut self.groups {
            set.note_progress();
        }
        Ok(Stop::Stepped { group, wave, pc })
    }

    /// Work-group `id`, whose every wave has ended, leaves.
    fn retire(&mut self, id: [u32; 3]) {
        match &mut self.groups {
            Groups::Sequential { current, .. } => *current = None,
            Groups::Resident { set, focus } => {
                if let Some(set) = set.as_mut()
                    && let Some(k) = set.index_of(id)
                {
                    set.remove(k);
                }
                if *focus == Some(id) {
                    *focus = None;
                }
            }
        }
    }

    /// With every work-group resident: runs the other waves with the dispatch's
    /// schedule, without stopping at breakpoints, until wave `wave` of the
    /// focused work-group, which waits (at a barrier, on the GDS), can run
    /// (`None`: until any wave of the focused work-group can, none of which
    /// runs meanwhile). Returns whether it can; false when the interrupt flag
    /// was raised first (it stays raised), when the wave (every wave) has ended
    /// or no work-group is focused, and with work-groups one at a time (nothing
    /// runs then). A wait nothing can release is a [`SimError::Deadlock`].
    pub fn run_until_runnable(&mut self, wave: Option<u32>) -> Result<bool, SimError> {
        let Groups::Resident {
            set: Some(set),
            focus: Some(id),
        } = &mut self.groups
        else {
            return Ok(false);
        };
        let id = *id;
        let interrupt = self.interrupt.as_deref();
        let chosen = |w: &Wave| wave.is_none_or(|n| w.id == n);
        loop {
            let waves = set.index_of(id).and_then(|k| set.get(k)).map(|g| &g.waves);
            let waves = waves.into_iter().flatten().filter(|w| chosen(w));
            let (mut running, mut left) = (false, false);
            for w in waves {
                running |= w.status == WaveStatus::Running;
                left |= w.status != WaveStatus::Done;
            }
            if running {
                return Ok(true);
            }
            if !left || is_raised(interrupt) {
                return Ok(false);
            }
            let turn = set.turn(&self.launch, &self.device.mem, |g, w| {
                (g == id && chosen(w)) || is_raised(interrupt)
            });
            match turn {
                Turn::Stopped { .. } | Turn::Ended { .. } | Turn::Pass { progressed: true } => {}
                Turn::Faulted { error, .. } => return Err(error),
                Turn::Pass { progressed: false } => return Err(set.deadlock()),
            }
        }
    }

    /// Reads `len` bytes of memory as lane `lane` of wave `wave` sees address
    /// space `space`: global memory, the current (or focused) group's LDS, the lane's
    /// private memory (unswizzled addresses), or the device's GDS.
    pub fn read_memory(
        &self,
        space: Space,
        wave: u32,
        lane: u32,
        addr: u64,
        len: usize,
    ) -> Result<Vec<u8>, SimError> {
        let mut out = vec![0u8; len];
        let missing = MemFault {
            kind: FaultKind::OutOfBounds,
            space,
            addr,
            len: len as u64,
        };
        match space {
            Space::Global => self.device.mem.read(addr, &mut out),
            Space::Lds => match self.group() {
                Some(g) => g.lds.read(addr, &mut out),
                None => Err(missing),
            },
            Space::Private => match self.wave(wave) {
                Some(w) => match u32::try_from(addr) {
                    Ok(a) => w.scratch.read_lane(lane, a, &mut out),
                    Err(_) => Err(missing),
                },
                None => Err(missing),
            },
            Space::Gds => self.device.mem.gds().lock().mem.read(addr, &mut out),
        }
        .map_err(SimError::Host)?;
        Ok(out)
    }
}

/// Executes one instruction of wave `wave` of `wg`: its PC afterwards, or the
/// status that keeps it from running.
fn step_wave(
    launch: &Launch,
    device: &Device,
    wg: &mut Workgroup,
    wave: u32,
) -> Result<Result<u64, WaveStatus>, SimError> {
    let ctx = Ctx {
        program: &launch.program,
        mem: &device.mem,
        gpu: launch.gpu,
        group: wg.id,
        max_instructions: launch.config.max_instructions,
    };
    let Some(w) = wg.waves.get_mut(wave as usize) else {
        return Err(DispatchError::NoWave { wave, group: wg.id }.into());
    };
    if w.status != WaveStatus::Running {
        return Ok(Err(w.status));
    }
    exec::step_with(w, &mut wg.lds, &ctx, Some(&launch.prepared))?;
    Ok(Ok(w.pc))
}

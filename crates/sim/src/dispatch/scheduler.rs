//! The work-group scheduler: the waves of a work-group run cooperatively, each until it
//! ends, reaches a barrier, sleeps or uses its quantum; barriers open when every
//! unfinished wave has reached them; waves that wait on the global data share are
//! released here when the GDS says their wait is over (the GDS itself does not touch
//! waves).

use super::launch::{Launch, Workgroup};
use crate::error::{DispatchError, SimError};
use crate::exec::{self, Ctx};
use crate::memory::GlobalMemory;
use crate::memory::gds::{Gds, Wait};
use crate::wave::{OrderedTurn, Wave, WaveStatus};

/// Instructions a wave runs before the next wave of its work-group gets a
/// turn: waves of a work-group run side by side as on hardware, so a wave
/// that spins on a flag another wave of its group sets (with no barrier
/// between them) sees it set. Large enough that waves which do not wait on
/// each other run in the same order as before.
pub const WAVE_QUANTUM: u64 = 1 << 16;

/// How a round of a work-group's schedule ended.
pub(super) enum Round {
    /// `stop` said so, before an instruction of this wave.
    Stopped(u32),
    /// Every wave has ended.
    Done,
    /// Waves wait (at the barrier or on the GDS), or a wave used its quantum;
    /// `progressed` says whether anything executed or opened.
    Blocked { progressed: bool },
    /// Every running wave executed `s_sleep`: the group waits for memory it may not
    /// write itself (the host, another work-group or dispatch), and other work should
    /// have the thread first.
    Asleep,
}

/// The most waves a kernel that uses GWS or the ordered count may have: they
/// all run together (a cooperative launch; MI100's 120 CUs hold 4,800 waves).
pub const MAX_CORESIDENT_WAVES: u64 = 4096;

impl Launch {
    /// Whether the kernel's code uses GWS or the ordered count, whose waves
    /// wait on waves of other work-groups (such a dispatch runs with every
    /// work-group resident: see [`crate::memory::gds`]).
    pub fn uses_gds_sync(&self) -> bool {
        use amdgpu_isa::mem::ops as m;
        self.program.insts().any(|i| {
            matches!(i.op, amdgpu_isa::Op::Mem(op) if [
                m::DS_GWS_INIT,
                m::DS_GWS_SEMA_V,
                m::DS_GWS_SEMA_BR,
                m::DS_GWS_SEMA_P,
                m::DS_GWS_SEMA_RELEASE_ALL,
                m::DS_GWS_BARRIER,
                m::DS_ORDERED_COUNT,
            ]
            .contains(&op))
        })
    }
}

/// Every work-group of a dispatch resident at once, scheduled pass by pass on
/// one thread, so that waves of different work-groups can wait on each other
/// (a kernel that uses GWS or the ordered count: [`Launch::uses_gds_sync`]).
/// A pass releases the waves whose GDS wait is over ([`wake`], over every
/// group in creation order), then runs one round of each group's schedule,
/// groups in creation order. [`crate::Device::run`] and the stepping
/// [`crate::debug::Session`] both schedule such a dispatch with it, one
/// [`Resident::turn`] at a time, so a session stopped and resumed runs the
/// waves in the order an uninterrupted run does.
#[derive(Debug)]
pub struct Resident {
    /// The groups that have not ended, with their linear numbers, in creation order.
    live: Vec<(u64, Workgroup)>,
    /// The group whose round the current pass runs next (`None`: a pass starts).
    next: Option<usize>,
    /// Whether anything executed, opened or left in the current pass.
    progressed: bool,
    /// Groups whose every wave slept in the current pass.
    asleep: usize,
}

/// What one [`Resident::turn`] came to.
#[derive(Debug)]
pub enum Turn {
    /// `stop` said so, before an instruction of wave `wave` of the group at
    /// `index`; the group stays, and the next turn runs its round again.
    Stopped {
        /// The group's place among the resident ones ([`Resident::groups`]).
        index: usize,
        /// The wave.
        wave: u32,
    },
    /// The group at `index` faulted; it stays (its faulting wave where it was).
    Faulted {
        /// The group's place among the resident ones.
        index: usize,
        /// The fault.
        error: SimError,
    },
    /// Every wave of a group has ended: the group has left.
    Ended {
        /// Its linear number in the grid (x fastest).
        n: u64,
        /// The group.
        group: Workgroup,
    },
    /// A pass over every resident group is over; `progressed` says whether
    /// anything executed, opened or ended in it (if not, nothing ever will: a
    /// deadlock).
    Pass {
        /// Whether the pass did anything.
        progressed: bool,
    },
}

impl Resident {
    /// Every work-group of the grid in its initial state. A group that cannot
    /// be created is given to `fault` (with its linear number) and left out;
    /// the error is a grid with more waves than can be resident
    /// ([`MAX_CORESIDENT_WAVES`]).
    pub fn create(
        launch: &Launch,
        mut fault: impl FnMut(u64, [u32; 3], SimError),
    ) -> Result<Resident, DispatchError> {
        let total = launch.groups.iter().map(|&g| g as u64).product::<u64>();
        let items = launch
            .config
            .group
            .iter()
            .map(|&g| g as u64)
            .product::<u64>();
        let per_group = items.div_ceil(launch.wave_size.max(1) as u64);
        let nwaves = total.saturating_mul(per_group);
        if nwaves > MAX_CORESIDENT_WAVES {
            return Err(DispatchError::TooManyCoresident {
                waves: nwaves,
                max: MAX_CORESIDENT_WAVES,
            });
        }
        let mut live = Vec::new();
        for n in 0..total {
            let id = launch.group_id(n);
            match launch.workgroup(id) {
                Ok(wg) => live.push((n, wg)),
                Err(error) => fault(n, id, error),
            }
        }
        Ok(Resident {
            live,
            next: None,
            progressed: false,
            asleep: 0,
        })
    }

    /// Whether every group has left.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// The resident groups, in creation order.
    pub fn groups(&self) -> impl Iterator<Item = &Workgroup> {
        self.live.iter().map(|(_, g)| g)
    }

    /// The resident groups, for changing their state.
    pub fn groups_mut(&mut self) -> impl Iterator<Item = &mut Workgroup> {
        self.live.iter_mut().map(|(_, g)| g)
    }

    /// The place of group `id` among the resident ones, if it is one.
    pub fn index_of(&self, id: [u32; 3]) -> Option<usize> {
        self.live.iter().position(|(_, g)| g.id == id)
    }

    /// The resident group at `index`.
    pub fn get(&self, index: usize) -> Option<&Workgroup> {
        self.live.get(index).map(|(_, g)| g)
    }

    /// The resident group at `index`, for changing its state.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut Workgroup> {
        self.live.get_mut(index).map(|(_, g)| g)
    }

    /// Takes the group at `index` out (it stopped, faulted or ended outside the
    /// schedule), with its linear number; the pass goes on with the next one.
    pub fn remove(&mut self, index: usize) -> Option<(u64, Workgroup)> {
        if index >= self.live.len() {
            return None;
        }
        let taken = self.live.remove(index);
        if let Some(k) = self.next.as_mut()
            && *k > index
        {
            *k -= 1;
        }
        self.progressed = true;
        Some(taken)
    }

    /// Takes every group out, in creation order.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (u64, Workgroup)> {
        self.next = None;
        self.live.drain(..)
    }

    /// Counts something done outside the schedule (a wave stepped on its own by a
    /// debugger, which may have opened a wait only the next pass's wake-up sees) as
    /// progress of the current pass, so that the pass is not taken for a deadlock.
    pub fn note_progress(&mut self) {
        self.progressed = true;
    }

    /// Releases the waves whose GDS wait is over and gives the ordered count's
    /// turn, over every resident group ([`wake`] in creation order); returns
    /// whether a wave was released.
    pub fn wake(&mut self, gds: &Gds) -> bool {
        wake_all(gds, &mut self.live)
    }

    /// Runs the schedule until something the caller must see happens: `stop`
    /// (asked with the group's id before each instruction of a running wave)
    /// says so, a group faults or ends, or a pass is over.
    pub fn turn(
        &mut self,
        launch: &Launch,
        mem: &GlobalMemory,
        mut stop: impl FnMut([u32; 3], &Wave) -> bool,
    ) -> Turn {
        loop {
            let k = match self.next {
                Some(k) => k,
                None => {
                    self.progressed = wake_all(mem.gds(), &mut self.live);
                    self.asleep = 0;
                    0
                }
            };
            let Some((_, g)) = self.live.get_mut(k) else {
                self.next = None;
                if self.asleep > 0 && self.asleep == self.live.len() {
                    // Every group sleeps, waiting for memory none of them writes (the
                    // host, another dispatch): let other threads have the core first.
                    std::thread::yield_now();
                }
                return Turn::Pass {
                    progressed: self.progressed,
                };
            };
            self.next = Some(k);
            let id = g.id;
            match g.round(launch, mem, &mut |w: &Wave| stop(id, w)) {
                Ok(Round::Blocked { progressed }) => {
                    self.progressed |= progressed;
                    self.next = Some(k + 1);
                }
                Ok(Round::Asleep) => {
                    self.progressed = true;
                    self.asleep += 1;
                    self.next = Some(k + 1);
                }
                Ok(Round::Done) => {
                    let (n, group) = self.live.remove(k);
                    self.progressed = true;
                    return Turn::Ended { n, group };
                }
                Ok(Round::Stopped(wave)) => return Turn::Stopped { index: k, wave },
                Err(error) => return Turn::Faulted { index: k, error },
            }
        }
    }

    /// A deadlock in a pass where nothing progressed: the first group with a
    /// wave waiting on the GDS (else the first group), and what its waves wait
    /// for.
    pub fn deadlock(&self) -> SimError {
        let g = self
            .live
            .iter()
            .map(|(_, g)| g)
            .find(|g| g.waves.iter().any(|w| w.wait.is_some()))
            .or_else(|| self.live.first().map(|(_, g)| g));
        match g {
            Some(g) => SimError::Deadlock {
                group: g.id,
                what: g.stuck(),
            },
            None => SimError::Deadlock {
                group: [0; 3],
                what: "no work-group is left".into(),
            },
        }
    }
}

impl Workgroup {
    /// Runs every wave of the group to completion: each wave runs until it
    /// ends or reaches a barrier, in wave order; when every unfinished wave
    /// waits at the barrier, all are released.
    pub fn run(&mut self, launch: &Launch, mem: &GlobalMemory) -> Result<(), SimError> {
        self.run_until(launch, mem, |_| false).map(|_| ())
    }

    /// The work-group scheduler, shared by [`crate::Device::run`] and the stepping
    /// [`crate::debug::Session`]: runs the waves as [`Workgroup::run`] does,
    /// but asks `stop` before each instruction of a running wave; when it
    /// answers true the run stops there, before that instruction, and the
    /// wave's number is returned (`None`: every wave has ended). Calling it
    /// again continues with the same schedule (waves in order, each until it
    /// ends or reaches a barrier), so a run that is stopped and resumed any
    /// number of times computes exactly what an uninterrupted run computes.
    pub fn run_until(
        &mut self,
        launch: &Launch,
        mem: &GlobalMemory,
        mut stop: impl FnMut(&Wave) -> bool,
    ) -> Result<Option<u32>, SimError> {
        loop {
            match self.round(launch, mem, &mut stop)? {
                Round::Stopped(wave) => return Ok(Some(wave)),
                Round::Done => return Ok(None),
                // Let other threads have the core first.
                Round::Asleep => std::thread::yield_now(),
                Round::Blocked { progressed } => {
                    let woken = wake(mem.gds(), &mut self.waves);
                    if !progressed && !woken {
                        return Err(SimError::Deadlock {
                            group: self.id,
                            what: self.stuck(),
                        });
                    }
                }
            }
        }
    }

    /// One round of the schedule: each running wave, in order, runs until it
    /// ends or waits; then the barrier opens if every unfinished wave has
    /// reached it.
    pub(super) fn round(
        &mut self,
        launch: &Launch,
        mem: &GlobalMemory,
        stop: &mut impl FnMut(&Wave) -> bool,
    ) -> Result<Round, SimError> {
        let ctx = Ctx {
            program: &launch.program,
            mem,
            gpu: launch.gpu,
            group: self.id,
            max_instructions: launch.config.max_instructions,
        };
        let mut progressed = false;
        let mut yielded = false;
        let (mut slept, mut ran) = (0usize, 0usize);
        for w in self.waves.iter_mut() {
            let start = w.executed;
            ran += usize::from(w.status == WaveStatus::Running);
            while w.status == WaveStatus::Running {
                if stop(w) {
                    return Ok(Round::Stopped(w.id));
                }
                exec::step_with(w, &mut self.lds, &ctx, Some(&launch.prepared))?;
                progressed = true;
                if w.slept {
                    // s_sleep: the wave waits; the others take their turns.
                    w.slept = false;
                    slept += 1;
                    yielded = true;
                    break;
                }
                if w.executed - start >= WAVE_QUANTUM {
                    yielded = true;
                    break;
                }
            }
        }
        if self.waves.iter().all(|w| w.status == WaveStatus::Done) {
            return Ok(Round::Done);
        }
        if yielded {
            if slept > 0 && slept == ran {
                return Ok(Round::Asleep);
            }
            // A wave used its quantum or slept: another round, before any barrier opens.
            return Ok(Round::Blocked { progressed: true });
        }
        progressed |= self.release_barrier();
        Ok(Round::Blocked { progressed })
    }

    /// What the unfinished waves of a group that can make no progress wait
    /// for.
    pub fn stuck(&self) -> String {
        let gws: Vec<String> = self
            .waves
            .iter()
            .filter_map(|w| w.wait.map(|x| format!("wave {} waits on {x}", w.id)))
            .collect();
        if gws.is_empty() {
            return "waves wait at a barrier that cannot complete".into();
        }
        format!(
            "{} that no wave left running can release{}",
            gws.join(", "),
            if self.waves.iter().any(|w| w.status == WaveStatus::Barrier) {
                " (the others wait at s_barrier)"
            } else {
                ""
            }
        )
    }

    /// Releases the barrier when every unfinished wave waits at it. Returns
    /// whether it did. (Waves that have ended do not hold a barrier back, as
    /// on hardware.)
    pub fn release_barrier(&mut self) -> bool {
        let waiting = self
            .waves
            .iter()
            .filter(|w| w.status == WaveStatus::Barrier)
            .count();
        // A wave that waits on the GDS has not reached the barrier.
        let running = self
            .waves
            .iter()
            .filter(|w| matches!(w.status, WaveStatus::Running | WaveStatus::Waiting))
            .count();
        if waiting > 0 && running == 0 {
            for w in self.waves.iter_mut() {
                if w.status == WaveStatus::Barrier {
                    w.status = WaveStatus::Running;
                }
            }
            true
        } else {
            false
        }
    }
}

/// Releases the waves of `waves` that wait on a GWS resource whose condition now
/// holds ([`Gds::poll`]): they run again (after `ds_gws_sema_p`, holding the
/// semaphore). Returns whether any wave was released.
fn release_gws<'a>(gds: &Gds, waves: impl IntoIterator<Item = &'a mut Wave>) -> bool {
    let mut any = false;
    for w in waves {
        if w.status != WaveStatus::Waiting {
            continue;
        }
        if let Some(wait) = w.wait
            && gds.poll(wait)
        {
            w.wait = None;
            w.status = WaveStatus::Running;
            any = true;
        }
    }
    any
}

/// Gives the ordered count's turn to the first wave of `waves` (in creation
/// order) that has neither released it nor ended, if that wave is waiting
/// for it. Returns whether a wave was released.
pub fn grant_ordered<'a>(waves: impl IntoIterator<Item = &'a mut Wave>) -> bool {
    for w in waves {
        if w.status == WaveStatus::Done || w.ordered == OrderedTurn::Released {
            continue;
        }
        if w.status == WaveStatus::Waiting && w.wait == Some(Wait::Ordered) {
            w.wait = None;
            w.ordered = OrderedTurn::Granted;
            w.status = WaveStatus::Running;
            return true;
        }
        return false;
    }
    false
}

/// Releases the waves of `waves` whose GWS wait is over ([`Gds::poll`]) and
/// gives the ordered count's turn ([`grant_ordered`]). Returns whether any
/// wave was released.
pub fn wake(gds: &Gds, waves: &mut [Wave]) -> bool {
    if !waves.iter().any(|w| w.status == WaveStatus::Waiting) {
        return false;
    }
    release_gws(gds, waves.iter_mut()) | grant_ordered(waves.iter_mut())
}

/// [`wake`] over the waves of every resident work-group, in creation order.
fn wake_all(gds: &Gds, groups: &mut [(u64, Workgroup)]) -> bool {
    let released = release_gws(gds, groups.iter_mut().flat_map(|(_, g)| g.waves.iter_mut()));
    released | grant_ordered(groups.iter_mut().flat_map(|(_, g)| g.waves.iter_mut()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Scratch;
    use crate::memory::gds::{GwsOp, Resource};

    /// What the executor does with a GWS operation's answer.
    fn gws(g: &Gds, op: GwsOp, rid: u8, value: u32, w: &mut Wave) {
        if let Some(wait) = g.gws(op, rid, value) {
            w.wait = Some(wait);
            w.status = WaveStatus::Waiting;
        }
    }

    fn waves(n: u32) -> Vec<Wave> {
        (0..n)
            .map(|i| Wave::new(64, 0, Scratch::new(0, 64), i, 4))
            .collect()
    }

    #[test]
    fn a_barrier_of_three_waves_opens_on_the_third_and_rearms() {
        let g = Gds::default();
        let mut w = waves(3);
        gws(&g, GwsOp::Init, 4, 2, &mut w[0]);
        for round in 0..2 {
            gws(&g, GwsOp::Barrier, 4, 2, &mut w[0]);
            gws(&g, GwsOp::Barrier, 4, 2, &mut w[1]);
            assert!(!wake(&g, &mut w), "round {round}: two of three arrived");
            assert_eq!(w[0].status, WaveStatus::Waiting);
            gws(&g, GwsOp::Barrier, 4, 2, &mut w[2]);
            assert_eq!(w[2].status, WaveStatus::Running, "the last arrival goes on");
            assert!(wake(&g, &mut w));
            assert!(w.iter().all(|w| w.status == WaveStatus::Running));
            let r = g.lock().gws[4];
            assert_eq!((r.counter, r.queued), (2, 0), "re-armed with 2");
        }
    }

    #[test]
    fn semaphores_count_and_release_all_frees_every_waiter() {
        let g = Gds::default();
        let mut w = waves(4);
        gws(&g, GwsOp::Init, 9, 1, &mut w[0]);
        // One permit: the first P takes it, the next three wait.
        for x in w.iter_mut() {
            gws(&g, GwsOp::SemaP, 9, 0, x);
        }
        assert_eq!(w[0].status, WaveStatus::Running);
        assert!(w[1..].iter().all(|w| w.status == WaveStatus::Waiting));
        // V releases exactly one (the first polled).
        gws(&g, GwsOp::SemaV, 9, 0, &mut w[0]);
        assert!(wake(&g, &mut w));
        let running: Vec<_> = w.iter().map(|w| w.status == WaveStatus::Running).collect();
        assert_eq!(running, [true, true, false, false]);
        // release_all: the counter becomes the two waiting, and both go.
        gws(&g, GwsOp::SemaReleaseAll, 9, 0, &mut w[0]);
        assert_eq!(g.lock().gws[9].counter, 2);
        assert!(wake(&g, &mut w));
        assert!(w.iter().all(|w| w.status == WaveStatus::Running));
        assert_eq!(g.lock().gws[9], Resource::default());
        // BR adds its value.
        gws(&g, GwsOp::SemaBr, 9, 5, &mut w[0]);
        assert_eq!(g.lock().gws[9].counter, 5);
    }

    #[test]
    fn the_ordered_turn_passes_in_creation_order_over_ended_waves() {
        let mut w = waves(3);
        for x in w.iter_mut() {
            x.status = WaveStatus::Waiting;
            x.wait = Some(Wait::Ordered);
        }
        w[0].status = WaveStatus::Done;
        w[0].wait = None;
        // Wave 1 is first; wave 2 must wait for it.
        assert!(grant_ordered(w.iter_mut()));
        assert_eq!(w[1].ordered, OrderedTurn::Granted);
        assert_eq!(w[2].status, WaveStatus::Waiting);
        assert!(!grant_ordered(w.iter_mut()), "wave 1 has not released");
        w[1].ordered = OrderedTurn::Released;
        assert!(grant_ordered(w.iter_mut()));
        assert_eq!(w[2].status, WaveStatus::Running);
    }
}

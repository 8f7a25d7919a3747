//! Stepping: breakpoints by address, single step of one wave, and read access
//! to a stopped wave's state (registers, EXEC, PC, memory by address space).
//!
//! A [`Session`] runs one dispatch sequentially, one work-group at a time in
//! work-group order, with the same wave schedule as [`Device::run`] (each wave
//! runs until it ends or reaches a barrier, in wave order), so a program
//! stopped and resumed computes exactly what an uninterrupted run computes.
//! A kernel whose waves wait on other work-groups' waves through GWS (a grid
//! barrier, a semaphore another work-group signals) cannot complete that way:
//! the session reports [`SimError::Deadlock`] naming the resource, where
//! [`Device::run`] runs such a kernel with every work-group resident.

use crate::dispatch::{Device, Launch, Workgroup};
use crate::error::{DispatchError, FaultKind, MemFault, SimError, Space};
use crate::exec::{self, Ctx};
use crate::memory::Bytes;
use crate::wave::{Wave, WaveStatus};
use std::collections::{BTreeSet, VecDeque};

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

/// A dispatch under debugger control.
pub struct Session<'d> {
    device: &'d Device,
    launch: Launch,
    breakpoints: BTreeSet<u64>,
    pending: VecDeque<[u32; 3]>,
    current: Option<Workgroup>,
    /// A breakpoint just reported, not to be reported again before the wave moves.
    skip: Option<(u32, u64)>,
    /// Raised from elsewhere (a signal handler) to stop a running resume.
    interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl<'d> Session<'d> {
    /// A session over a prepared dispatch; nothing runs until
    /// [`Session::resume`] or [`Session::step`].
    pub fn new(device: &'d Device, launch: Launch) -> Self {
        let [gx, gy, gz] = launch.groups;
        let mut pending = VecDeque::new();
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    pending.push_back([x, y, z]);
                }
            }
        }
        Session {
            device,
            launch,
            breakpoints: BTreeSet::new(),
            pending,
            current: None,
            skip: None,
            interrupt: None,
        }
    }

    /// Makes [`Session::resume`] stop the running wave with [`Stop::Interrupted`] when
    /// `flag` is raised (the flag is lowered when the stop is reported).
    pub fn set_interrupt(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
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

    /// The work-group being executed, if any.
    pub fn group(&self) -> Option<&Workgroup> {
        self.current.as_ref()
    }

    /// Wave `n` of the current work-group.
    pub fn wave(&self, n: u32) -> Option<&Wave> {
        self.current.as_ref()?.waves.get(n as usize)
    }

    /// Wave `n` of the current work-group, for changing its state (registers,
    /// EXEC, PC) before resuming.
    pub fn wave_mut(&mut self, n: u32) -> Option<&mut Wave> {
        self.current.as_mut()?.waves.get_mut(n as usize)
    }

    /// The current work-group's LDS, for changing it before resuming (a debugger
    /// writing a `__local` variable).
    pub fn lds_mut(&mut self) -> Option<&mut Bytes> {
        self.current.as_mut().map(|g| &mut g.lds)
    }

    fn ensure_group(&mut self) -> Result<bool, SimError> {
        if self.current.is_none() {
            match self.pending.pop_front() {
                Some(id) => self.current = Some(self.launch.workgroup(id)?),
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    /// Runs until a wave reaches a breakpoint or the dispatch finishes. The
    /// work-groups run one at a time through [`Workgroup::run_until`], the
    /// scheduler [`Device::run`] uses.
    pub fn resume(&mut self) -> Result<Stop, SimError> {
        loop {
            if !self.ensure_group()? {
                return Ok(Stop::Finished);
            }
            let Some(wg) = self.current.as_mut() else {
                return Ok(Stop::Finished);
            };
            let (breakpoints, skip) = (&self.breakpoints, &mut self.skip);
            let interrupt = self.interrupt.as_deref();
            let raised = || interrupt.is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed));
            let stopped = wg.run_until(&self.launch, &self.device.mem, |w| {
                if raised() {
                    return true;
                }
                if !breakpoints.contains(&w.pc) {
                    return false;
                }
                // A breakpoint just reported lets its wave pass once.
                if *skip == Some((w.id, w.pc)) {
                    *skip = None;
                    return false;
                }
                true
            })?;
            match stopped {
                Some(wave)
                    if interrupt
                        .is_some_and(|f| f.swap(false, std::sync::atomic::Ordering::Relaxed)) =>
                {
                    let pc = wg.waves.get(wave as usize).map_or(0, |w| w.pc);
                    self.skip = self.breakpoints.contains(&pc).then_some((wave, pc));
                    return Ok(Stop::Interrupted {
                        group: wg.id,
                        wave,
                        pc,
                    });
                }
                Some(wave) => {
                    let pc = wg.waves.get(wave as usize).map_or(0, |w| w.pc);
                    self.skip = Some((wave, pc));
                    return Ok(Stop::Breakpoint {
                        group: wg.id,
                        wave,
                        pc,
                    });
                }
                None => self.current = None,
            }
        }
    }

    /// Executes one instruction of wave `wave` of the current work-group
    /// (starting the next work-group first if none is current).
    pub fn step(&mut self, wave: u32) -> Result<Stop, SimError> {
        if !self.ensure_group()? {
            return Ok(Stop::Finished);
        }
        let Some(wg) = self.current.as_mut() else {
            return Ok(Stop::Finished);
        };
        // A barrier that every unfinished wave has reached opens now, and so
        // do the GDS waits that are over.
        wg.release_barrier();
        crate::dispatch::wake(self.device.mem.gds(), &mut wg.waves);
        let ctx = Ctx {
            program: &self.launch.program,
            mem: &self.device.mem,
            gpu: self.launch.gpu,
            group: wg.id,
            max_instructions: self.launch.config.max_instructions,
        };
        let Some(w) = wg.waves.get_mut(wave as usize) else {
            return Err(DispatchError::NoWave { wave, group: wg.id }.into());
        };
        if w.status != WaveStatus::Running {
            return Ok(Stop::NotRunnable {
                wave,
                status: w.status,
            });
        }
        exec::step_with(w, &mut wg.lds, &ctx, Some(&self.launch.prepared))?;
        // A wave stepped onto a breakpoint is stopped there already: resuming passes it
        // (as gdb steps over the breakpoint at a stopped thread's PC).
        self.skip = self.breakpoints.contains(&w.pc).then_some((wave, w.pc));
        let stop = Stop::Stepped {
            group: wg.id,
            wave,
            pc: w.pc,
        };
        if wg.waves.iter().all(|w| w.status == WaveStatus::Done) {
            self.current = None;
        }
        Ok(stop)
    }

    /// Reads `len` bytes of memory as lane `lane` of wave `wave` sees address
    /// space `space`: global memory, the current group's LDS, the lane's
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
            Space::Lds => match &self.current {
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

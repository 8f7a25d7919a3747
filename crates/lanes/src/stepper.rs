//! The stepping engine: a dispatch driven work-group by work-group under the debugger,
//! breakpoints by line, function or address, continue, instruction and line steps of a
//! focused wave (following one lane, as ROCgdb's `step` does), and where every lane of
//! that wave is ([`LaneView`]).
//!
//! A kernel whose waves wait on other work-groups' (a grid barrier through GWS) runs
//! with every work-group resident instead ([`Stepper::resident`]): the focus may be on a
//! wave of any work-group that has not ended, and a step of a wave that waits on the
//! others runs them, on the dispatch's schedule, until it can go on.
//!
//! Three front ends sit on it: the interactive debugger (`amdsim debug`), the scenario
//! runner ([`crate::scenario`]) and `amdsim lanes`. It knows nothing of how any of them
//! presents a stop beyond the plain-text [`fmt::Display`] of [`Stop`] and [`LaneView`].

use crate::Error;
use crate::image::Image;
use crate::lane_pc::LanePcIndex;
use crate::service::{
    Disagreement, LaneService, LaneState, PcKind, PositionSource, SourcePos, WaveLanes, work_items,
};
use crate::svg::{Trace, TraceStep};
use crate::{Debugger, Event};
use amdgpu_sim::{Device, Launch, Module, WaveStatus};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::fmt;

/// How many instructions a `StepLine` executes at most unless the scenario says otherwise.
pub const DEFAULT_STEP_LIMIT: u64 = 1_000_000;
/// Where a breakpoint goes.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawBreak")]
pub enum BreakAt {
    /// Every statement start of a source line (file: a suffix of the line table's file
    /// name; without it, the kernel's file).
    Line {
        /// File name suffix.
        file: Option<String>,
        /// The line.
        line: u64,
    },
    /// The first instruction of a function (a symbol of the code object).
    Function(String),
    /// A link-time address.
    Address(u64),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBreak {
    #[serde(default)]
    line: Option<u64>,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    function: Option<String>,
    #[serde(default)]
    address: Option<u64>,
}

impl TryFrom<RawBreak> for BreakAt {
    type Error = String;
    fn try_from(r: RawBreak) -> Result<Self, String> {
        match (r.line, r.file, r.function, r.address) {
            (Some(line), file, None, None) => Ok(BreakAt::Line { file, line }),
            (None, None, Some(f), None) => Ok(BreakAt::Function(f)),
            (None, None, None, Some(a)) => Ok(BreakAt::Address(a)),
            (None, Some(_), None, None) => Err("`file` needs a `line`".into()),
            _ => Err(
                "a breakpoint takes one of `line` (with an optional `file`), \
                      `function` or `address`"
                    .into(),
            ),
        }
    }
}

impl fmt::Display for BreakAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BreakAt::Line {
                file: Some(file),
                line,
            } => write!(f, "file: {file:?}, line: {line}"),
            BreakAt::Line { file: None, line } => write!(f, "line: {line}"),
            BreakAt::Function(n) => write!(f, "function: {n:?}"),
            BreakAt::Address(a) => write!(f, "address: {a:#x}"),
        }
    }
}

/// Why a stepping operation could not be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepError {
    /// The debugger reported an error.
    #[error("{0}")]
    Debugger(#[from] Error),
    /// A line breakpoint on a code object without DWARF.
    #[error(
        "the code object has no DWARF line table (build it with -g); break at a function or an address"
    )]
    NoLineTable,
    /// The code object's lane attributes could not be used, or disagree with the
    /// reconstruction.
    #[error("{0}")]
    LanePositions(String),
    /// No statement begins on the line.
    #[error("no code for {file}:{line}; {}", nearest_text(*before, *after))]
    NoCode {
        /// The file as the line table names it.
        file: String,
        /// The line asked for.
        line: u64,
        /// The nearest line with code before it.
        before: Option<u64>,
        /// The nearest line with code after it.
        after: Option<u64>,
    },
    /// No file of the line table ends with the name given.
    #[error("no source file `{file}` in the line table (files: {})", known.join(", "))]
    NoFile {
        /// The name given.
        file: String,
        /// The files of the line table.
        known: Vec<String>,
    },
    /// No code symbol has this name.
    #[error("no function `{name}` in the code object (functions: {})", known.join(", "))]
    NoFunction {
        /// The name given.
        name: String,
        /// The code symbols.
        known: Vec<String>,
    },
    /// The address is not an instruction of the code object.
    #[error("{address:#x} is not the address of an instruction of the code object")]
    NotAnInstruction {
        /// The address.
        address: u64,
    },
    /// The lane does not exist.
    #[error("lane {lane} is out of range: a wave has {wave_size} lanes")]
    LaneOutOfRange {
        /// The lane.
        lane: u32,
        /// Lanes per wave.
        wave_size: u32,
    },
    /// The wave does not exist.
    #[error("wave {wave} is out of range: a work-group has {waves} waves")]
    WaveOutOfRange {
        /// The wave.
        wave: u32,
        /// Waves per work-group.
        waves: u32,
    },
    /// The work-group does not exist.
    #[error("work-group {group:?} is out of range: the grid has {groups:?} work-groups")]
    GroupOutOfRange {
        /// The group.
        group: [u32; 3],
        /// Work-groups per dimension.
        groups: [u32; 3],
    },
    /// The work-group has already run (work-groups run one at a time, x fastest).
    #[error("work-group {group:?} has already run (the running one is {running})")]
    GroupPassed {
        /// The group.
        group: [u32; 3],
        /// The running or next group.
        running: String,
    },
    /// The work-group has ended (every work-group of the dispatch is resident: its
    /// kernel's waves wait on other work-groups').
    #[error("work-group {group:?} has ended")]
    GroupEnded {
        /// The group.
        group: [u32; 3],
    },
    /// The focused work-group is not running.
    #[error("work-group {group:?} is not running; Focus or Continue first")]
    NotRunning {
        /// The focused group.
        group: [u32; 3],
    },
    /// The dispatch has ended.
    #[error("the dispatch has finished")]
    DispatchFinished,
    /// Variables can be read only for the wave that stopped last.
    #[error(
        "variables can be read for the wave that stopped last (wave {stopped}), not for \
         wave {focus}: step the focused wave first"
    )]
    NotTheStoppedWave {
        /// The focused wave.
        focus: u32,
        /// The stopped wave.
        stopped: u32,
    },
    /// The lane has no position to step from.
    #[error("lane {lane} is {state}: it has no line to step from")]
    LaneNotRunning {
        /// The lane.
        lane: u32,
        /// Its state word.
        state: &'static str,
    },
    /// Stepping went on too long.
    #[error("lane {lane} did not reach another line within {limit} instructions")]
    StepLimit {
        /// The lane (or the wave's lane 0 for recordings).
        lane: u32,
        /// The limit.
        limit: u64,
    },
    /// Every wave of the work-group waits at a barrier that cannot open.
    #[error("wave {wave} waits at a barrier the other waves of its work-group do not reach")]
    Stuck {
        /// The wave.
        wave: u32,
    },
}

impl From<amdgpu_sim::SimError> for StepError {
    fn from(e: amdgpu_sim::SimError) -> Self {
        StepError::Debugger(Error::Sim(e))
    }
}

fn nearest_text(before: Option<u64>, after: Option<u64>) -> String {
    match (before, after) {
        (Some(b), Some(a)) => format!("the nearest lines with code are {b} and {a}"),
        (Some(b), None) => format!("the nearest line with code is {b} (none after it)"),
        (None, Some(a)) => format!("the nearest line with code is {a} (none before it)"),
        (None, None) => "the file has no line with code".into(),
    }
}

// ---------------------------------------------------------------------------------------
// The stepper.

/// Where one lane is, with the source position of its PC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneFact {
    /// The lane.
    pub lane: u32,
    /// Its state.
    pub state: LaneState,
    /// Its program location (link-time), for active and divergent lanes.
    pub pc: Option<u64>,
    /// Function and line of that location ([`LaneService::source`]).
    pub source: Option<SourcePos>,
}

impl LaneFact {
    pub(crate) fn describe(&self) -> String {
        let mut s = self.state.word().to_string();
        if let Some(src) = &self.source {
            s.push_str(&format!(" at {}", src_text(src)));
        }
        if let Some(pc) = self.pc {
            s.push_str(&format!(" (pc {pc:#x})"));
        }
        if let LaneState::Unknown(why) = &self.state {
            s.push_str(&format!(" ({why})"));
        }
        s
    }
}

pub(crate) fn src_text(src: &SourcePos) -> String {
    let line = match &src.line {
        Some((f, l)) => format!("{}:{l}", short_file(f)),
        None => "??".to_string(),
    };
    match &src.function {
        Some(func) => format!("{line} in {func}"),
        None => line,
    }
}

fn short_file(f: &str) -> &str {
    f.rsplit(['/', '\\']).next().unwrap_or(f)
}

/// The focused wave as the lane service sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneView {
    /// Work-group id.
    pub group: [u32; 3],
    /// Wave number.
    pub wave: u32,
    /// Whether the wave runs, waits at a barrier or has ended.
    pub status: WaveStatus,
    /// The wave's PC (link-time); `None` once the wave has ended.
    pub pc: Option<u64>,
    /// Function and line of the PC.
    pub source: SourcePos,
    /// The conceptual active mask.
    pub active: u64,
    /// The hardware EXEC.
    pub exec: u64,
    /// Every lane.
    pub lanes: Vec<LaneFact>,
    /// Where the positions come from.
    pub provenance: Provenance,
}

/// Where the lane positions of a [`LaneView`] come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The code object's lane attributes, or the reconstruction from the machine code.
    pub source: PositionSource,
    /// Why the lane attributes the code object has could not be used here (an
    /// ill-formed attribute, a failed evaluation); the reconstruction is shown instead.
    pub dwarf_error: Option<String>,
    /// The lanes on which the attributes and the reconstruction differ.
    pub disagreements: Vec<Disagreement>,
}

impl Default for Provenance {
    fn default() -> Self {
        Provenance {
            source: PositionSource::Reconstruction,
            dwarf_error: None,
            disagreements: Vec::new(),
        }
    }
}

impl Provenance {
    /// The trouble with these positions, if any: an unusable lane attribute, or lanes on
    /// which the attributes and the reconstruction disagree (at `pc`).
    pub fn trouble(&self, pc: Option<u64>) -> Option<String> {
        let at = pc.map_or_else(String::new, |p| format!(" at {p:#x}"));
        if let Some(e) = &self.dwarf_error {
            return Some(format!("DW_AT_LLVM_lane_pc unusable{at}: {e}"));
        }
        if self.disagreements.is_empty() {
            return None;
        }
        let lanes: Vec<String> = self
            .disagreements
            .iter()
            .map(|d| {
                format!(
                    "lane {}: DW_AT_LLVM_lane_pc says {}, the reconstruction {}",
                    d.lane, d.dwarf, d.reconstruction
                )
            })
            .collect();
        Some(format!(
            "the lane attributes and the reconstruction disagree{at} on {} lane(s): {}",
            lanes.len(),
            lanes.join("; ")
        ))
    }
}

/// Why a step stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopKind {
    /// A wave reached a breakpoint.
    Breakpoint,
    /// One instruction was executed.
    Stepped,
    /// `StepLine` executed `instructions` instructions and the lane reached a new line.
    NewLine {
        /// Instructions executed.
        instructions: u64,
    },
    /// `StepLine` stopped because the lane finished (or left the function).
    LaneLeft {
        /// Instructions executed.
        instructions: u64,
    },
    /// The focused wave ended (`s_endpgm`).
    WaveEnded {
        /// Instructions executed by this step.
        instructions: u64,
    },
    /// The focused wave cannot run now (it waits at a barrier, or on a GWS
    /// resource or its turn of the ordered count).
    AtBarrier,
    /// A wave was selected.
    Focused,
    /// The run was interrupted ([`Stepper::set_interrupt`]); the interrupted wave has
    /// the focus.
    Interrupted,
    /// The dispatch finished.
    DispatchFinished,
}

/// Where a step stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    /// Why.
    pub kind: StopKind,
    /// The focused wave afterwards (`None` when its work-group has ended).
    pub view: Option<LaneView>,
}

/// Drives a dispatch: breakpoints, continue, instruction and line steps of a focused wave,
/// and where that wave's lanes are.
pub struct Stepper<'a, 'd> {
    pub(crate) image: &'a Image<'d>,
    pub(crate) debugger: Debugger<'a, 'd>,
    pub(crate) service: LaneService<'a, 'd>,
    /// The code object's lane attributes (`DW_AT_LLVM_lane_pc`, `DW_AT_LLVM_active_lane`)
    /// when its DWARF has any: lane positions come from them, checked against the
    /// reconstruction.
    pub(crate) lane_pc: Option<LanePcIndex<'d>>,
    /// Where the positions of the last look at the focused wave came from, why the lane
    /// attributes could not be used, and where they disagree with the reconstruction.
    pub(crate) provenance: Provenance,
    /// Addresses that begin a statement of a real line.
    pub(crate) statements: BTreeSet<u64>,
    pub(crate) kernel_file: Option<String>,
    pub(crate) entry: u64,
    pub(crate) groups: [u32; 3],
    pub(crate) waves_per_group: u32,
    pub(crate) wave_size: u32,
    pub(crate) focus: ([u32; 3], u32),
    pub(crate) last_group: Option<[u32; 3]>,
    pub(crate) finished: bool,
    /// The most instructions one [`Stepper::step_line`] (or recording) may execute.
    pub step_limit: u64,
    /// Whether [`Stepper::step_line`] stops where the focused wave reaches a breakpoint
    /// on the way (gdb's `next` and `step` do; scenarios step line by line regardless).
    pub steps_stop_at_breakpoints: bool,
    /// Whether a breakpoint on a function goes after its prologue (gdb's place, where
    /// the arguments can be read) instead of on its first instruction.
    pub functions_after_prologue: bool,
    /// Whether a breakpoint on a line is placed as gdb places it
    /// ([`crate::Image::breakpoint_addresses`]: a line without code moves to the next
    /// one, one location per block) instead of on every statement row of exactly that
    /// line (a line without code is an error, which scenarios want).
    pub lines_as_gdb: bool,
    interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl<'a, 'd> Stepper<'a, 'd> {
    /// A stepper over a prepared dispatch of a kernel of `module` (loaded from the code
    /// object `image` was parsed from). The focus starts on wave 0 of work-group (0, 0, 0);
    /// nothing runs before the first step.
    pub fn new(
        image: &'a Image<'d>,
        device: &'a Device,
        module: &Module,
        launch: Launch,
    ) -> Result<Self, StepError> {
        let service = LaneService::new(image.code(), Some(image))?;
        let lane_pc = LanePcIndex::new(image.code(), &Default::default())
            .ok()
            .filter(LanePcIndex::has_lane_attributes);
        let rows = image.statement_rows()?;
        let statements = rows
            .iter()
            .filter(|r| r.line != 0)
            .map(|r| r.address)
            .collect();
        let entry = launch.kernel.entry.wrapping_sub(module.load_bias);
        let end = image
            .code()
            .function_containing(entry)
            .map_or(u64::MAX, |s| s.address + s.size.max(1));
        let mut in_kernel: Vec<_> = rows
            .iter()
            .filter(|r| r.line != 0 && r.address >= entry && r.address < end)
            .collect();
        in_kernel.sort_by_key(|r| r.address);
        let kernel_file = in_kernel.first().map(|r| r.file.clone());
        let groups = launch.groups;
        let wave_size = launch.wave_size;
        let items: u32 = launch.config.group.iter().product();
        let waves_per_group = items.div_ceil(wave_size);
        Ok(Stepper {
            image,
            debugger: Debugger::new(image, device, module, launch),
            service,
            lane_pc,
            provenance: Provenance::default(),
            statements,
            kernel_file,
            entry,
            groups,
            waves_per_group,
            wave_size,
            focus: ([0, 0, 0], 0),
            last_group: None,
            finished: false,
            step_limit: DEFAULT_STEP_LIMIT,
            steps_stop_at_breakpoints: false,
            functions_after_prologue: false,
            lines_as_gdb: false,
            interrupt: None,
        })
    }

    /// The debugger (for what this API does not cover).
    pub fn debugger(&mut self) -> &mut Debugger<'a, 'd> {
        &mut self.debugger
    }

    /// The lane service.
    pub fn service(&self) -> &LaneService<'a, 'd> {
        &self.service
    }

    /// The focused work-group and wave.
    pub fn focus(&self) -> ([u32; 3], u32) {
        self.focus
    }

    /// Lanes per wave.
    pub fn wave_size(&self) -> u32 {
        self.wave_size
    }

    /// Whether the dispatch has finished.
    pub fn finished(&self) -> bool {
        self.finished
    }

    fn order(&self, g: [u32; 3]) -> u64 {
        let [gx, gy, _] = self.groups;
        g[0] as u64 + gx as u64 * (g[1] as u64 + gy as u64 * g[2] as u64)
    }

    fn group_of(&self, order: u64) -> [u32; 3] {
        let [gx, gy, _] = self.groups;
        let (gx, gy) = (gx.max(1) as u64, gy.max(1) as u64);
        [
            (order % gx) as u32,
            (order / gx % gy) as u32,
            (order / gx / gy) as u32,
        ]
    }

    fn total_groups(&self) -> u64 {
        self.groups.iter().map(|&g| g as u64).product()
    }

    fn note(&mut self, g: [u32; 3]) {
        if self
            .last_group
            .is_none_or(|l| self.order(g) > self.order(l))
        {
            self.last_group = Some(g);
        }
    }

    fn running_group(&mut self) -> Option<[u32; 3]> {
        self.debugger.session().group().map(|g| g.id)
    }

    /// Whether every work-group of the dispatch is resident at once (its kernel's waves
    /// wait on other work-groups': [`amdgpu_sim::debug::needs_residency`]). The focused
    /// work-group is then the session's ([`amdgpu_sim::debug::Session::focus_group`]),
    /// and a wave that waits on other work-groups is stepped past its wait by running
    /// them ([`amdgpu_sim::debug::Session::run_until_runnable`]).
    pub fn resident(&self) -> bool {
        self.debugger.session_ref().resident()
    }

    /// Whether work-group `g` has run to its end.
    fn group_ended(&mut self, g: [u32; 3]) -> bool {
        if self.finished {
            return true;
        }
        if self.resident() {
            return self.debugger.session_ref().has_ended(g);
        }
        if self.running_group() == Some(g) {
            return false;
        }
        self.last_group
            .is_some_and(|l| self.order(g) <= self.order(l))
    }

    /// The running work-group, or the one the next step starts (`None` once all ran).
    fn current_or_next(&mut self) -> Option<[u32; 3]> {
        if let Some(g) = self.running_group() {
            return Some(g);
        }
        let next = self.last_group.map_or(0, |l| self.order(l) + 1);
        (next < self.total_groups()).then(|| self.group_of(next))
    }

    /// Sets a breakpoint; returns its link-time addresses.
    pub fn break_at(&mut self, at: &BreakAt) -> Result<Vec<u64>, StepError> {
        match at {
            BreakAt::Line { file, line } => {
                if !self.image.has_dwarf() {
                    return Err(StepError::NoLineTable);
                }
                let file = match file.as_ref().or(self.kernel_file.as_ref()) {
                    Some(f) => f.clone(),
                    None => String::new(),
                };
                let rows = self.image.statement_rows()?;
                let in_file: Vec<_> = rows
                    .iter()
                    .filter(|r| r.line != 0 && r.file.ends_with(file.as_str()))
                    .collect();
                if in_file.is_empty() {
                    let mut known: Vec<String> = rows.iter().map(|r| r.file.clone()).collect();
                    known.sort();
                    known.dedup();
                    return Err(StepError::NoFile { file, known });
                }
                if !self.lines_as_gdb {
                    if !in_file.iter().any(|r| r.line == *line) {
                        let before = in_file.iter().map(|r| r.line).filter(|l| l < line).max();
                        let after = in_file.iter().map(|r| r.line).filter(|l| l > line).min();
                        return Err(StepError::NoCode {
                            file,
                            line: *line,
                            before,
                            after,
                        });
                    }
                    return Ok(self.debugger.break_at_line(&file, *line)?);
                }
                match self.image.breakpoint_addresses(&file, *line)? {
                    Some((_, addrs)) => {
                        for &a in &addrs {
                            self.debugger.break_at_address(a);
                        }
                        Ok(addrs)
                    }
                    None => {
                        let before = in_file.iter().map(|r| r.line).filter(|l| l < line).max();
                        let after = in_file.iter().map(|r| r.line).filter(|l| l > line).min();
                        Err(StepError::NoCode {
                            file,
                            line: *line,
                            before,
                            after,
                        })
                    }
                }
            }
            BreakAt::Function(name) => {
                let code = self.image.code();
                // Every function the name matches (the overloads of a C++ name).
                let found: Vec<u64> = code
                    .symbols()
                    .iter()
                    .filter(|s| s.is_code() && crate::service::names_function(s.name, name))
                    .map(|s| s.address)
                    .collect();
                // And every copy inlined into a caller (at -O2 a device function
                // rarely keeps a body of its own), as gdb: at the copy's start.
                let inlined = self
                    .image
                    .program()
                    .inlined_entries(|n, linkage| {
                        n == name.as_str()
                            || linkage.is_some_and(|l| crate::service::names_function(l, name))
                    })
                    .unwrap_or_default();
                if found.is_empty() && inlined.is_empty() {
                    let mut known: Vec<String> = code
                        .symbols()
                        .iter()
                        .filter(|s| s.is_code())
                        .map(|s| crate::service::demangle(s.name))
                        .collect();
                    known.sort();
                    known.dedup();
                    return Err(StepError::NoFunction {
                        name: name.clone(),
                        known,
                    });
                }
                // As gdb does, when asked: after the function's prologue (its
                // `prologue_end` row), where the arguments are in their places.
                let mut found: Vec<u64> = if self.functions_after_prologue {
                    found.into_iter().map(|f| self.after_prologue(f)).collect()
                } else {
                    found
                };
                found.extend(inlined);
                found.sort_unstable();
                found.dedup();
                for a in &found {
                    self.debugger.break_at_address(*a);
                }
                Ok(found)
            }
            BreakAt::Address(a) => {
                let bias = self.debugger.load_bias();
                let is_inst = self
                    .debugger
                    .session()
                    .launch()
                    .program
                    .at(a.wrapping_add(bias))
                    .is_some();
                if !is_inst || self.image.code().function_containing(*a).is_none() {
                    return Err(StepError::NotAnInstruction { address: *a });
                }
                self.debugger.break_at_address(*a);
                Ok(vec![*a])
            }
        }
    }

    /// Makes [`Stepper::resume`] and [`Stepper::step_line`] stop with
    /// [`StopKind::Interrupted`] when `flag` is raised (by a Ctrl-C handler); the flag
    /// is lowered when the stop is reported.
    pub fn set_interrupt(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.debugger.session().set_interrupt(flag.clone());
        self.interrupt = Some(flag);
    }

    /// Whether the interrupt flag is raised (leaving it).
    fn interrupt_raised(&self) -> bool {
        self.interrupt
            .as_deref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Whether the interrupt flag was raised (lowering it).
    fn interrupted(&self) -> bool {
        self.interrupt
            .as_deref()
            .is_some_and(|f| f.swap(false, std::sync::atomic::Ordering::Relaxed))
    }

    /// Whether `pc` is where a function of the code object starts.
    fn is_function_entry(&self, pc: u64) -> bool {
        self.image
            .code()
            .symbols()
            .iter()
            .any(|s| s.is_code() && s.address == pc)
    }

    /// The first address after the prologue of the function starting at `start`: its
    /// line table's `prologue_end` row (`start` without one, or without DWARF).
    pub fn after_prologue(&self, start: u64) -> u64 {
        let end = self.service.function_at(start).map_or(start, |f| f.end);
        let Ok(rows) = self.image.statement_rows() else {
            return start;
        };
        rows.iter()
            .filter(|r| r.prologue_end && r.address >= start && r.address < end)
            .map(|r| r.address)
            .min()
            .unwrap_or(start)
    }

    /// Runs until a wave reaches a breakpoint (it gets the focus) or the dispatch ends.
    pub fn resume(&mut self) -> Result<Stop, StepError> {
        if self.finished {
            return Err(StepError::DispatchFinished);
        }
        match self.debugger.resume()? {
            Event::Breakpoint { group, wave, .. } => {
                self.note(group);
                self.focus = (group, wave);
                Ok(Stop {
                    kind: StopKind::Breakpoint,
                    view: Some(self.view()?),
                })
            }
            Event::Interrupted { group, wave, .. } => {
                self.note(group);
                self.focus = (group, wave);
                Ok(Stop {
                    kind: StopKind::Interrupted,
                    view: Some(self.view()?),
                })
            }
            _ => {
                self.finished = true;
                Ok(Stop {
                    kind: StopKind::DispatchFinished,
                    view: None,
                })
            }
        }
    }

    /// Checks that the focused wave can be stepped: its group runs or starts next (with
    /// every work-group resident: it has not ended; it becomes the session's focus).
    fn check_steppable(&mut self) -> Result<(), StepError> {
        if self.finished {
            return Err(StepError::DispatchFinished);
        }
        if self.resident() {
            let group = self.focus.0;
            return match self.debugger.session().focus_group(group)? {
                true => Ok(()),
                false => Err(StepError::NotRunning { group }),
            };
        }
        match self.current_or_next() {
            Some(g) if g == self.focus.0 => Ok(()),
            Some(_) => Err(StepError::NotRunning {
                group: self.focus.0,
            }),
            None => Err(StepError::DispatchFinished),
        }
    }

    /// One instruction of the focused wave. Returns whether the wave could run, and
    /// whether its work-group is still running.
    fn step_once(&mut self) -> Result<Stepped, StepError> {
        let (group, wave) = self.focus;
        match self.debugger.step(wave)? {
            Event::Stepped { group: g, .. } => {
                self.note(g);
                if self.running_group() == Some(group) {
                    Ok(Stepped::Ran)
                } else {
                    Ok(Stepped::GroupEnded)
                }
            }
            Event::NotRunnable { .. } => Ok(Stepped::NotRunnable),
            Event::Finished => {
                self.finished = true;
                Ok(Stepped::GroupEnded)
            }
            Event::Breakpoint { .. } | Event::Interrupted { .. } => Ok(Stepped::Ran),
        }
    }

    /// Runs the focused wave until it returns from the function it is in: until it
    /// executes, outside the calls it makes, the `s_setpc_b64` that returns (the
    /// instructions' control flow, [`amdgpu_isa::Flow`], says which are calls and which
    /// jump through registers). `finish` uses it where the caller's return address is
    /// not known (a return address spilled to memory). Stops early at a breakpoint
    /// (when steps stop at them), an interrupt, the step limit or the wave's end;
    /// `depth` (0 to start with) is how many calls deep the wave is then, for going on.
    pub fn step_out(&mut self, depth: &mut u32) -> Result<Stop, StepError> {
        self.check_steppable()?;
        let (_, wave) = self.focus;
        let bias = self.debugger.load_bias();
        let mut n = 0u64;
        loop {
            let flow = {
                let session = self.debugger.session_ref();
                let pc = session.wave(wave).map(|w| w.pc);
                pc.and_then(|pc| {
                    session
                        .launch()
                        .program
                        .at(pc)
                        .map(|i| i.flow(pc.wrapping_sub(bias)))
                })
            };
            let jumps = match flow {
                Some(amdgpu_isa::Flow::Call { .. } | amdgpu_isa::Flow::IndirectCall) => {
                    *depth += 1;
                    false
                }
                Some(amdgpu_isa::Flow::IndirectJump { conditional: false }) => true,
                _ => false,
            };
            if let Some(stop) = self.step_focused(&mut n)? {
                return Ok(stop);
            }
            // A jump through registers returns, unless it lands on a function's first
            // instruction: a tail call (at -O0, OpenCL's `get_local_id` jumps to
            // `__ockl_get_local_id`, whose return is the caller's).
            let tail_call = jumps && {
                let pc = self.debugger.session_ref().wave(wave).map(|w| w.pc);
                pc.is_some_and(|pc| self.is_function_entry(pc.wrapping_sub(bias)))
            };
            let returns = jumps && !tail_call && *depth == 0;
            if jumps && !tail_call && *depth > 0 {
                *depth -= 1;
            }
            if returns {
                return Ok(Stop {
                    kind: StopKind::Stepped,
                    view: Some(self.view()?),
                });
            }
            if let Some(stop) = self.interrupt_or_breakpoint(wave)? {
                return Ok(stop);
            }
        }
    }

    /// Runs the focused wave until its PC (link-time) leaves `ranges` for an address of
    /// the function `[start, end)` (a call made from the ranges to another function
    /// runs on): how `finish` leaves an inlined call, whose code is `ranges` of the
    /// function it is inlined into. Stops early as [`Stepper::step_out`] does.
    pub fn step_out_of_ranges(
        &mut self,
        ranges: &[(u64, u64)],
        function: (u64, u64),
    ) -> Result<Stop, StepError> {
        self.check_steppable()?;
        let (_, wave) = self.focus;
        let bias = self.debugger.load_bias();
        let mut n = 0u64;
        loop {
            if let Some(stop) = self.step_focused(&mut n)? {
                return Ok(stop);
            }
            let pc = self
                .debugger
                .session_ref()
                .wave(wave)
                .map(|w| w.pc.wrapping_sub(bias));
            let left = pc.is_some_and(|pc| {
                pc >= function.0 && pc < function.1 && !ranges.iter().any(|r| pc >= r.0 && pc < r.1)
            });
            if left {
                return Ok(Stop {
                    kind: StopKind::Stepped,
                    view: Some(self.view()?),
                });
            }
            if let Some(stop) = self.interrupt_or_breakpoint(wave)? {
                return Ok(stop);
            }
        }
    }

    /// One instruction of the focused wave for [`Stepper::step_out`] (`n`: instructions
    /// so far): past a barrier it waits at (the other waves run to it), within the step
    /// limit. `Some` when the wave has ended.
    fn step_focused(&mut self, n: &mut u64) -> Result<Option<Stop>, StepError> {
        let (group, wave) = self.focus;
        if *n >= self.step_limit {
            return Err(StepError::StepLimit {
                lane: 0,
                limit: self.step_limit,
            });
        }
        match self.step_once()? {
            Stepped::Ran => *n += 1,
            Stepped::GroupEnded => {
                return Ok(Some(Stop {
                    kind: StopKind::WaveEnded {
                        instructions: *n + 1,
                    },
                    view: self.view().ok(),
                }));
            }
            Stepped::NotRunnable => {
                if self.run_others()? {
                    return self.interrupted_stop().map(Some);
                }
                if self.running_group() != Some(group) || self.step_once()? == Stepped::NotRunnable
                {
                    return Err(StepError::Stuck { wave });
                }
                *n += 1;
            }
        }
        if self.wave_status(wave) == WaveStatus::Done {
            return Ok(Some(Stop {
                kind: StopKind::WaveEnded { instructions: *n },
                view: self.view().ok(),
            }));
        }
        Ok(None)
    }

    /// An interrupt, or a breakpoint wave `wave` is at (when steps stop at them), as a
    /// stop.
    fn interrupt_or_breakpoint(&mut self, wave: u32) -> Result<Option<Stop>, StepError> {
        let kind = if self.interrupted() {
            StopKind::Interrupted
        } else if self.steps_stop_at_breakpoints && self.at_breakpoint(wave) {
            StopKind::Breakpoint
        } else {
            return Ok(None);
        };
        Ok(Some(Stop {
            kind,
            view: Some(self.view()?),
        }))
    }

    /// Whether link-time address `pc` starts a statement of a source line (gdb shows a
    /// stop elsewhere with its address).
    pub fn is_statement(&self, pc: u64) -> bool {
        self.statements.contains(&pc)
    }

    /// Whether wave `wave` of the running work-group is about to execute an instruction
    /// with a breakpoint.
    fn at_breakpoint(&mut self, wave: u32) -> bool {
        let session = self.debugger.session_ref();
        let Some(pc) = session.wave(wave).map(|w| w.pc) else {
            return false;
        };
        session.breakpoints().any(|b| b == pc)
    }

    fn wave_status(&mut self, wave: u32) -> WaveStatus {
        self.debugger
            .session()
            .wave(wave)
            .map_or(WaveStatus::Done, |w| w.status)
    }

    /// Executes one instruction of the focused wave.
    pub fn step_instruction(&mut self) -> Result<Stop, StepError> {
        self.check_steppable()?;
        let kind = match self.step_once()? {
            Stepped::Ran => match self.wave_status(self.focus.1) {
                WaveStatus::Done => StopKind::WaveEnded { instructions: 1 },
                _ => StopKind::Stepped,
            },
            Stepped::NotRunnable => match self.wave_status(self.focus.1) {
                WaveStatus::Barrier | WaveStatus::Waiting => StopKind::AtBarrier,
                _ => StopKind::WaveEnded { instructions: 0 },
            },
            Stepped::GroupEnded => StopKind::WaveEnded { instructions: 1 },
        };
        let view = self.view().ok();
        Ok(Stop { kind, view })
    }

    /// The stop for an interrupt (lowering the flag).
    fn interrupted_stop(&mut self) -> Result<Stop, StepError> {
        self.interrupted();
        Ok(Stop {
            kind: StopKind::Interrupted,
            view: Some(self.view()?),
        })
    }

    /// Runs the other waves of the focused work-group until each ends or waits at a
    /// barrier (so that a barrier the focused wave waits at can open). With every
    /// work-group resident, the other waves of every work-group run instead, with the
    /// dispatch's schedule, until the focused wave can go on; returns whether the
    /// interrupt flag stopped them first.
    fn run_others(&mut self) -> Result<bool, StepError> {
        if self.resident() {
            let wave = self.focus.1;
            let runnable = self.debugger.session().run_until_runnable(Some(wave))?;
            return Ok(!runnable && self.interrupt_raised());
        }
        let (group, focus) = self.focus;
        for w in 0..self.waves_per_group {
            if w == focus {
                continue;
            }
            let mut n = 0u64;
            while self.running_group() == Some(group) && self.wave_status(w) == WaveStatus::Running
            {
                match self.debugger.step(w)? {
                    Event::Stepped { group: g, .. } => self.note(g),
                    Event::Finished => {
                        self.finished = true;
                        return Ok(false);
                    }
                    _ => break,
                }
                n += 1;
                if n > self.step_limit {
                    return Err(StepError::StepLimit {
                        lane: 0,
                        limit: self.step_limit,
                    });
                }
            }
        }
        Ok(false)
    }

    /// Steps the focused wave until `lane` is active at the start of a statement of
    /// another line than the one it is at now (see the module documentation).
    pub fn step_line(&mut self, lane: u32) -> Result<Stop, StepError> {
        self.line_step(lane, false, 0)
    }

    /// gdb's `next`: as [`Stepper::step_line`], but a call the focused wave makes runs to
    /// its return ([`Stepper::step_out`]; a breakpoint, an interrupt or the wave's end
    /// inside it stops there), and the lines of an inlined call deeper than the one the
    /// lane starts in are passed over.
    pub fn next_line(&mut self, lane: u32) -> Result<Stop, StepError> {
        self.line_step(lane, true, 0)
    }

    /// [`Stepper::next_line`] from a stop where the debugger hides the `hidden`
    /// innermost inlined calls starting at the PC (gdb shows the caller at the call's
    /// line): the line stepped from is the call's, and those calls are run over.
    pub fn next_line_over_hidden(&mut self, lane: u32, hidden: usize) -> Result<Stop, StepError> {
        self.line_step(lane, true, hidden)
    }

    /// Whether the focused wave's next instruction is a call.
    fn at_call(&self) -> bool {
        let session = self.debugger.session_ref();
        let bias = self.debugger.load_bias();
        session.wave(self.focus.1).is_some_and(|w| {
            session.launch().program.at(w.pc).is_some_and(|i| {
                matches!(
                    i.flow(w.pc.wrapping_sub(bias)),
                    amdgpu_isa::Flow::Call { .. } | amdgpu_isa::Flow::IndirectCall
                )
            })
        })
    }

    /// How many inlined calls contain link-time `pc` (0 where the DWARF cannot say).
    fn inline_depth(&self, pc: Option<u64>) -> usize {
        let program = self.debugger.image().program();
        pc.and_then(|pc| program.inlined_calls_at(pc).ok())
            .map_or(0, |calls| calls.len())
    }

    /// [`Stepper::step_line`] (`over`: false) and [`Stepper::next_line`] (true), from a
    /// stop where the `hidden` innermost inlined calls are not shown.
    fn line_step(&mut self, lane: u32, over: bool, hidden: usize) -> Result<Stop, StepError> {
        self.check_steppable()?;
        if lane >= self.wave_size {
            return Err(StepError::LaneOutOfRange {
                lane,
                wave_size: self.wave_size,
            });
        }
        let (group, wave) = self.focus;
        if self.running_group() != Some(group) {
            // The work-group has not started: its first instruction starts it.
            match self.step_once()? {
                Stepped::Ran => {}
                _ => return Err(StepError::NotRunning { group }),
            }
        }
        let start = self.lane_fact(lane)?;
        let mut start_line = match start.state {
            LaneState::Active | LaneState::Divergent | LaneState::Unknown(_) => {
                start.source.and_then(|s| s.line)
            }
            s => {
                return Err(StepError::LaneNotRunning {
                    lane,
                    state: s.word(),
                });
            }
        };
        let mut n = 0u64;
        // Set when the lane entered a function: where its prologue ends.
        let mut prologue_end: Option<u64> = None;
        let mut start_depth = if over { self.inline_depth(start.pc) } else { 0 };
        if hidden > 0 {
            let program = self.debugger.image().program();
            let calls = start
                .pc
                .and_then(|pc| program.inlined_calls_at(pc).ok())
                .unwrap_or_default();
            if let Some(call) = calls.get(hidden - 1)
                && let (Some(file), Some(line)) = (&call.call_file, call.call_line)
            {
                start_line = Some((file.clone(), line));
                start_depth = calls.len() - hidden;
            }
        }
        loop {
            if n >= self.step_limit {
                return Err(StepError::StepLimit {
                    lane,
                    limit: self.step_limit,
                });
            }
            let calls = over && self.at_call();
            match self.step_once()? {
                Stepped::Ran => n += 1,
                Stepped::GroupEnded => {
                    return Ok(Stop {
                        kind: StopKind::WaveEnded {
                            instructions: n + 1,
                        },
                        view: self.view().ok(),
                    });
                }
                Stepped::NotRunnable => match self.wave_status(wave) {
                    WaveStatus::Barrier | WaveStatus::Waiting => {
                        if self.run_others()? {
                            return self.interrupted_stop();
                        }
                        if self.running_group() != Some(group) {
                            return Err(StepError::NotRunning { group });
                        }
                        if self.step_once()? == Stepped::NotRunnable {
                            return Err(StepError::Stuck { wave });
                        }
                        n += 1;
                    }
                    _ => {
                        return Ok(Stop {
                            kind: StopKind::WaveEnded { instructions: n },
                            view: self.view().ok(),
                        });
                    }
                },
            }
            if self.wave_status(wave) == WaveStatus::Done {
                return Ok(Stop {
                    kind: StopKind::WaveEnded { instructions: n },
                    view: self.view().ok(),
                });
            }
            if self.interrupted() {
                return Ok(Stop {
                    kind: StopKind::Interrupted,
                    view: Some(self.view()?),
                });
            }
            if self.steps_stop_at_breakpoints && self.at_breakpoint(wave) {
                return Ok(Stop {
                    kind: StopKind::Breakpoint,
                    view: Some(self.view()?),
                });
            }
            if calls {
                // `next` over a call: on to its return, unless something stops it there.
                let stop = self.step_out(&mut 0)?;
                if !matches!(stop.kind, StopKind::Stepped) {
                    return Ok(stop);
                }
            }
            let f = self.lane_fact(lane)?;
            match f.state {
                LaneState::Active => {
                    let line = f.source.and_then(|s| s.line);
                    let new_line = match prologue_end {
                        Some(end) => f.pc == Some(end),
                        None => {
                            line.is_some()
                                && line != start_line
                                && f.pc.is_some_and(|pc| self.statements.contains(&pc))
                                && !(over && self.inline_depth(f.pc) > start_depth)
                        }
                    };
                    if new_line && prologue_end.is_none() {
                        // Into a function: as gdb, on past its prologue.
                        let pc = f.pc.unwrap_or_default();
                        let end = self.after_prologue(pc);
                        if self.functions_after_prologue && end != pc && self.is_function_entry(pc)
                        {
                            prologue_end = Some(end);
                            continue;
                        }
                    }
                    if new_line {
                        return Ok(Stop {
                            kind: StopKind::NewLine { instructions: n },
                            view: Some(self.view()?),
                        });
                    }
                }
                LaneState::Divergent | LaneState::Unknown(_) => {}
                LaneState::Finished | LaneState::NotEntered | LaneState::Outside => {
                    return Ok(Stop {
                        kind: StopKind::LaneLeft { instructions: n },
                        view: Some(self.view()?),
                    });
                }
            }
        }
    }

    /// Focuses on wave `wave` of work-group `group` (`None`: the running one, or the next
    /// to start). A later work-group is reached by running the dispatch, without stopping
    /// at breakpoints, until that group's first wave is about to execute its first
    /// instruction.
    pub fn set_focus(&mut self, group: Option<[u32; 3]>, wave: u32) -> Result<Stop, StepError> {
        if self.finished {
            return Err(StepError::DispatchFinished);
        }
        if self.resident() {
            return self.focus_resident(group, wave);
        }
        let cur = self.current_or_next().ok_or(StepError::DispatchFinished)?;
        let group = group.unwrap_or(cur);
        self.check_range(group, wave)?;
        if self.order(group) < self.order(cur) {
            return Err(StepError::GroupPassed {
                group,
                running: format!("{cur:?}"),
            });
        }
        if self.running_group() != Some(group) {
            self.run_to_group(group)?;
        }
        self.focus = (group, wave);
        // Variables, registers and frames are read from the focused wave.
        self.debugger.focus_wave(wave)?;
        Ok(Stop {
            kind: StopKind::Focused,
            view: Some(self.view()?),
        })
    }

    /// [`Stepper::set_focus`] with every work-group resident: any work-group that has not
    /// ended (`None`: the focused one, or the first left), nothing run.
    fn focus_resident(&mut self, group: Option<[u32; 3]>, wave: u32) -> Result<Stop, StepError> {
        let session = self.debugger.session();
        // Creates the work-groups if nothing has run yet.
        let focused = session.focus_group(self.focus.0)?;
        let first = session.groups().first().map(|g| g.id);
        let group = match (group, focused, first) {
            (Some(g), _, _) => g,
            (None, true, _) => self.focus.0,
            (None, false, Some(g)) => g,
            (None, false, None) => return Err(StepError::DispatchFinished),
        };
        self.check_range(group, wave)?;
        if !self.debugger.session().focus_group(group)? {
            return Err(StepError::GroupEnded { group });
        }
        self.focus = (group, wave);
        // Variables, registers and frames are read from the focused wave.
        self.debugger.focus_wave(wave)?;
        Ok(Stop {
            kind: StopKind::Focused,
            view: Some(self.view()?),
        })
    }

    /// Checks that work-group `group` and wave `wave` exist.
    fn check_range(&self, group: [u32; 3], wave: u32) -> Result<(), StepError> {
        if (0..3).any(|d| group[d] >= self.groups[d]) {
            return Err(StepError::GroupOutOfRange {
                group,
                groups: self.groups,
            });
        }
        if wave >= self.waves_per_group {
            return Err(StepError::WaveOutOfRange {
                wave,
                waves: self.waves_per_group,
            });
        }
        Ok(())
    }

    fn run_to_group(&mut self, group: [u32; 3]) -> Result<(), StepError> {
        let bias = self.debugger.load_bias();
        let entry = self.entry.wrapping_add(bias);
        let session = self.debugger.session();
        let saved: Vec<u64> = session.breakpoints().collect();
        for &b in &saved {
            session.remove_breakpoint(b);
        }
        session.add_breakpoint(entry);
        let result = loop {
            match self.debugger.resume() {
                Ok(Event::Breakpoint { group: g, .. }) => {
                    self.note(g);
                    if g == group {
                        break Ok(());
                    }
                }
                Ok(Event::Finished) => {
                    self.finished = true;
                    break Err(StepError::DispatchFinished);
                }
                Ok(_) => {}
                Err(e) => break Err(e.into()),
            }
        };
        let session = self.debugger.session();
        session.remove_breakpoint(entry);
        for b in saved {
            session.add_breakpoint(b);
        }
        result
    }

    /// The lanes of the focused wave, without source positions. The positions come from
    /// the code object's lane attributes when it has them for the function at the PC
    /// (with the reconstruction as their check), else from the reconstruction; where
    /// they came from is left in `self.provenance`.
    fn raw_lanes(&mut self) -> Result<(WaveLanes, WaveStatus), StepError> {
        self.provenance = Provenance::default();
        let (group, wave) = self.focus;
        let wi = work_items(self.debugger.session().launch(), group, wave);
        if self.running_group() != Some(group) {
            if !self.group_ended(group) {
                return Err(StepError::NotRunning { group });
            }
            // A work-group that has ended: every work-item of the wave has finished.
            let lanes = (0..self.wave_size)
                .map(|lane| crate::service::LanePosition {
                    lane,
                    state: if wi >> lane & 1 != 0 {
                        LaneState::Finished
                    } else {
                        LaneState::Outside
                    },
                    pc: None,
                    kind: PcKind::Current,
                })
                .collect();
            let lanes = WaveLanes {
                lanes,
                active: 0,
                exec: 0,
                pc: 0,
            };
            return Ok((lanes, WaveStatus::Done));
        }
        let bias = self.debugger.load_bias();
        let session = self.debugger.session_ref();
        let Some(w) = session.wave(wave) else {
            return Err(StepError::WaveOutOfRange {
                wave,
                waves: self.waves_per_group,
            });
        };
        let status = w.status;
        let mut lanes = if status == WaveStatus::Done {
            self.service.wave_lanes(w, bias, wi)
        } else {
            match self.service.combined(
                self.lane_pc.as_ref(),
                session,
                self.debugger.device(),
                wave,
                bias,
                wi,
            ) {
                Some(c) => {
                    self.provenance = Provenance {
                        source: c.source,
                        dwarf_error: c.dwarf_error,
                        disagreements: c.disagreements,
                    };
                    c.lanes
                }
                None => self.service.wave_lanes(w, bias, wi),
            }
        };
        if status == WaveStatus::Done {
            // An ended wave: its work-items have finished.
            lanes.active = 0;
            for p in &mut lanes.lanes {
                if p.state != LaneState::Outside {
                    p.state = LaneState::Finished;
                }
                p.pc = None;
                p.kind = PcKind::Current;
            }
        }
        Ok((lanes, status))
    }

    fn fact(&self, p: &crate::service::LanePosition) -> LaneFact {
        LaneFact {
            lane: p.lane,
            state: p.state.clone(),
            pc: p.pc,
            source: p.pc.map(|pc| self.service.source(pc, p.kind)),
        }
    }

    fn lane_fact(&mut self, lane: u32) -> Result<LaneFact, StepError> {
        let (lanes, _) = self.raw_lanes()?;
        let p = lanes
            .lanes
            .get(lane as usize)
            .ok_or(StepError::LaneOutOfRange {
                lane,
                wave_size: self.wave_size,
            })?;
        Ok(self.fact(p))
    }

    /// The focused wave: every lane's state and source position.
    pub fn view(&mut self) -> Result<LaneView, StepError> {
        let (lanes, status) = self.raw_lanes()?;
        let (group, wave) = self.focus;
        Ok(LaneView {
            group,
            wave,
            status,
            pc: (status != WaveStatus::Done).then_some(lanes.pc),
            source: if status == WaveStatus::Done {
                SourcePos {
                    function: None,
                    line: None,
                }
            } else {
                self.service.source(lanes.pc, PcKind::Current)
            },
            active: lanes.active,
            exec: lanes.exec,
            lanes: lanes.lanes.iter().map(|p| self.fact(p)).collect(),
            provenance: self.provenance.clone(),
        })
    }

    /// Reads variable `name` as lane `lane` of the focused wave sees it (through
    /// [`Debugger::read`], which reads for the wave that stopped last).
    pub fn read_variable(&mut self, lane: u32, name: &str) -> Result<Vec<u8>, StepError> {
        let (group, wave) = self.focus;
        if self.running_group() != Some(group) {
            return Err(StepError::NotRunning { group });
        }
        if lane >= self.wave_size {
            return Err(StepError::LaneOutOfRange {
                lane,
                wave_size: self.wave_size,
            });
        }
        // Scenarios read the variables of the wave an event stopped, never of one only
        // focused (which may not have run to where the scenario expects it).
        let stopped = self.debugger.event_wave()?;
        if stopped != wave {
            return Err(StepError::NotTheStoppedWave {
                focus: wave,
                stopped,
            });
        }
        Ok(self.debugger.read(name, lane)?)
    }

    /// The name of the DWARF type of variable `name` in scope at the stopped wave's PC
    /// (as [`amdgpu_dwarf::program::Variable::type_name`]), to show its value as that type.
    pub fn variable_type(&self, name: &str) -> Result<Option<String>, StepError> {
        Ok(self.debugger.variable(name)?.type_name)
    }

    /// Single-steps every wave of the focused work-group from where it is to its end
    /// (waves in order, each until it ends or waits at a barrier, as the simulator's
    /// scheduler runs them), recording before every instruction where each lane is and the
    /// instruction's source line. Focus a work-group that has not started to record it
    /// from the start. With every work-group resident, the other work-groups run,
    /// unrecorded, whenever every wave of this one waits on them.
    pub fn record_group(&mut self) -> Result<Vec<Trace>, StepError> {
        self.check_steppable()?;
        let (group, focus) = self.focus;
        let mut traces: Vec<Trace> = (0..self.waves_per_group)
            .map(|wave| Trace {
                group,
                wave,
                wave_size: self.wave_size,
                steps: Vec::new(),
            })
            .collect();
        if self.running_group() != Some(group) {
            // Start the group without executing anything: run to its first instruction.
            self.run_to_group(group)?;
        }
        let mut total = 0u64;
        'group: loop {
            let mut progressed = false;
            for wave in 0..self.waves_per_group {
                loop {
                    if self.running_group() != Some(group) {
                        break 'group;
                    }
                    if self.wave_status(wave) == WaveStatus::Done {
                        break;
                    }
                    self.focus = (group, wave);
                    let (lanes, _) = self.raw_lanes()?;
                    let line = self.service.source(lanes.pc, PcKind::Current).line;
                    match self.step_once()? {
                        Stepped::NotRunnable => break,
                        Stepped::Ran | Stepped::GroupEnded => {
                            traces[wave as usize].steps.push(TraceStep { lanes, line });
                            progressed = true;
                            total += 1;
                            if total > self.step_limit {
                                self.focus = (group, focus);
                                return Err(StepError::StepLimit {
                                    lane: 0,
                                    limit: self.step_limit,
                                });
                            }
                        }
                    }
                }
            }
            if self.running_group() != Some(group) {
                break;
            }
            // With every work-group resident, the waves may wait on other work-groups':
            // those run (unrecorded) until a wave of this one can go on.
            let others_ran = !progressed
                && self.resident()
                && self.debugger.session().run_until_runnable(None)?;
            if !progressed && !others_ran {
                self.focus = (group, focus);
                return Err(StepError::Stuck { wave: focus });
            }
        }
        self.focus = (group, focus);
        Ok(traces)
    }

    /// [`Stepper::record_group`], keeping the focused wave's trace.
    pub fn record(&mut self) -> Result<Trace, StepError> {
        let wave = self.focus.1;
        let mut all = self.record_group()?;
        if (wave as usize) < all.len() {
            Ok(all.swap_remove(wave as usize))
        } else {
            Err(StepError::WaveOutOfRange {
                wave,
                waves: self.waves_per_group,
            })
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stepped {
    Ran,
    NotRunnable,
    GroupEnded,
}

/// Lane numbers written compactly: `0-7`, `1-63/2` (every second), `3, 9`.
pub fn lane_list(lanes: &[u32]) -> String {
    let mut parts = Vec::new();
    let n = lanes.len();
    let mut i = 0;
    while i < n {
        if let Some(s) = lanes.get(i + 1).and_then(|b| b.checked_sub(lanes[i])) {
            let mut j = i + 1;
            while j + 1 < n && lanes[j + 1].checked_sub(lanes[j]) == Some(s) {
                j += 1;
            }
            if s == 1 || (s > 1 && j - i >= 2) {
                parts.push(if s == 1 {
                    format!("{}-{}", lanes[i], lanes[j])
                } else {
                    format!("{}-{}/{s}", lanes[i], lanes[j])
                });
                i = j + 1;
                continue;
            }
        }
        parts.push(lanes[i].to_string());
        i += 1;
    }
    parts.join(", ")
}

fn state_char(s: &LaneState) -> char {
    match s {
        LaneState::Active => 'A',
        LaneState::Divergent => 'd',
        LaneState::Finished => 'F',
        LaneState::NotEntered => 'n',
        LaneState::Outside => '.',
        LaneState::Unknown(_) => '?',
    }
}

impl fmt::Display for LaneView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.group;
        let status = match self.status {
            WaveStatus::Running => "",
            WaveStatus::Barrier => " (waits at a barrier)",
            WaveStatus::Done => " (ended)",
            WaveStatus::Waiting => " (waits on the GDS)",
        };
        match self.pc {
            Some(pc) => writeln!(
                f,
                "work-group ({x}, {y}, {z}) wave {} at {pc:#x} {}{status}",
                self.wave,
                src_text(&self.source)
            )?,
            None => writeln!(f, "work-group ({x}, {y}, {z}) wave {}{status}", self.wave)?,
        }
        writeln!(
            f,
            "active {:#x}, EXEC {:#x} (A active, d divergent, F finished, n not entered, . \
             outside, ? unknown)",
            self.active, self.exec
        )?;
        for (row, chunk) in self.lanes.chunks(32).enumerate() {
            write!(
                f,
                "  lanes {:>2}-{:<2} ",
                row * 32,
                row * 32 + chunk.len() - 1
            )?;
            for (i, p) in chunk.iter().enumerate() {
                if i > 0 && i % 8 == 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{}", state_char(&p.state))?;
            }
            writeln!(f)?;
        }
        // Lanes grouped by state and position.
        let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
        for p in &self.lanes {
            let key = match (&p.state, &p.source) {
                (LaneState::Unknown(why), _) => format!("{:<11} {why}", "unknown"),
                (s, Some(src)) => format!("{:<11} {}", s.word(), src_text(src)),
                (s, None) => s.word().to_string(),
            };
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => g.1.push(p.lane),
                None => groups.push((key, vec![p.lane])),
            }
        }
        for (key, lanes) in groups {
            writeln!(f, "  {key:<44} lanes {}", lane_list(&lanes))?;
        }
        Ok(())
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.kind {
            StopKind::Breakpoint => "breakpoint".to_string(),
            StopKind::Stepped => "stepped one instruction".to_string(),
            StopKind::NewLine { instructions } => {
                format!("new line after {instructions} instructions")
            }
            StopKind::LaneLeft { instructions } => {
                format!("the lane finished after {instructions} instructions")
            }
            StopKind::WaveEnded { instructions } => {
                format!("the wave ended after {instructions} instructions")
            }
            StopKind::AtBarrier => "the wave waits at a barrier".to_string(),
            StopKind::Focused => "focus".to_string(),
            StopKind::Interrupted => "interrupted".to_string(),
            StopKind::DispatchFinished => "the dispatch finished".to_string(),
        };
        match &self.view {
            Some(v) => write!(f, "{what}: {v}"),
            None if self.kind == StopKind::DispatchFinished => writeln!(f, "{what}"),
            None => writeln!(f, "{what}; its work-group has finished"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::lane_list;

    #[test]
    fn lane_lists_are_compact() {
        assert_eq!(lane_list(&[0, 1, 2, 3]), "0-3");
        assert_eq!(lane_list(&[1, 3, 5, 7, 20]), "1-7/2, 20");
        assert_eq!(lane_list(&[4, 9]), "4, 9");
        assert_eq!(lane_list(&[4, 5]), "4-5");
        assert_eq!(lane_list(&[]), "");
        assert_eq!(lane_list(&[7]), "7");
    }
}

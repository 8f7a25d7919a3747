//! The command interpreter.

use crate::breakpoints::{Hit, Table};
use crate::input::Input;
use crate::source::Sources;
use amdgpu_lanes::Image;
use amdgpu_lanes::service::PcKind;
use amdgpu_lanes::stepper::{BreakAt, StepError, Stepper, StopKind};
use amdgpu_sim::{Device, Launch, Module, SimError};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The commands, as `help` lists them.
pub const HELP: &str = "\
Commands (one per line; `#` starts a comment; `help COMMAND` for one):
  break LOCATION [if COND] | tbreak        breakpoints at FILE:LINE, LINE, FUNCTION, *ADDR (b)
  delete|disable|enable [N...], condition N COND, ignore N COUNT, info breakpoints
  run | continue [N]                       run to the next breakpoint (r, c)
  step [N] | next [N] | stepi [N]          the focused lane's next line (s, n), instructions (si)
  finish | until [LOCATION] | advance LOC  run out of the function, or to a place
  info threads | thread N                  the waves of the running work-group (of every
                                           resident one, for a grid-barrier kernel)
  info lanes [-all|-active|-inactive] [LIST] | lane N | lane apply LIST CMD
                                           the lanes: ROCgdb's states and ids, and where each
                                           inactive lane is
  print[/FMT] EXPR | output | set var X = V | whatis | ptype | display | undisplay
                                           C/C++/OpenCL expressions for the focused lane (p)
  info locals | info args | info frame | bt | frame | up | down
  list [LOCATION] | x/NFU ADDR | disassemble [/r] | info registers [REG...] | directory DIR
  quit                                     end the session (q)";

/// What the session is debugging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One dispatch (a dispatch file): the session ends with it.
    Dispatch,
    /// The kernels of a running program: dispatches come and go, breakpoints stay.
    Program,
}

/// How a debugged dispatch (or the wait before the first one) ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Ended {
    /// It ran to its end (program mode: the program goes on).
    Finished,
    /// `quit`: the session (and, for a program, the program) ends.
    Quit,
    /// The commands ran out: the dispatch ran to its end without stopping again, and
    /// no later dispatch stops.
    Detached,
    /// The dispatch faulted; the program's runtime reports it as the GPU would.
    Faulted(SimError),
    /// `run` after the dispatch started: the caller prepares the dispatch afresh and
    /// calls [`Frontend::dispatch`] again (breakpoints and settings are kept).
    Restart,
}

/// A dispatch under the debugger.
pub(crate) struct Active<'s, 'a, 'd> {
    pub stepper: &'s mut Stepper<'a, 'd>,
    pub dev: &'a Device,
    pub fault: Option<SimError>,
    /// The dispatch's number in the session (from 1).
    pub dispatch: u64,
    /// Whether any of it has run.
    pub started: bool,
}

pub(crate) enum Flow {
    Stay,
    Leave(Ended),
}

/// The debugger's front end: commands, breakpoints and the focused lane.
pub struct Frontend {
    input: Input,
    mode: Mode,
    pub(crate) breakpoints: Table,
    pub(crate) lane: u32,
    /// Dispatches seen.
    dispatches: u64,
    /// (dispatch, thread, lane) of the last stop shown.
    pub(crate) last_stop: Option<(u64, u64, u32)>,
    /// The function of the last stop shown.
    pub(crate) last_function: Option<String>,
    pub(crate) sources: Sources,
    /// Values printed so far (`$1`, `$2`, ...).
    pub(crate) values: Vec<String>,
    /// The file and last line `list` showed.
    pub(crate) listed: Option<(String, u64)>,
    /// `display` expressions: number, format, expression.
    pub(crate) displays: Vec<(u32, Option<char>, String)>,
    pub(crate) next_display: u32,
    errors: usize,
    error_file: Option<PathBuf>,
    detached: bool,
    /// Stops shown so far.
    pub(crate) stops: u64,
    /// `run` asked for the dispatch again: run it to a breakpoint as soon as it starts.
    restarting: bool,
    /// The breakpoint of the last stop (for `continue N`).
    last_hit: Option<u32>,
    /// The lanes whose breakpoint condition held at the last breakpoint stop (`None`:
    /// a breakpoint without a condition stopped the wave, every active lane counts):
    /// ROCgdb names only those in "hit Breakpoint N, with lanes ...".
    pub(crate) hit_lanes: Option<Vec<u32>>,
    /// The static members (by DIE) whose values are being shown, innermost last: one
    /// met again inside its own value is not shown again (as gdb guards
    /// `struct S { static S s; }`).
    pub(crate) statics_shown: Vec<u64>,
    /// The inline frames hidden at the last stop (see [`crate::frames::Hidden`]).
    pub(crate) hidden: Option<crate::frames::Hidden>,
    /// The line (file, line) the `step` being run started from.
    pub(crate) stepping_from: Option<(String, u64)>,
}

/// Which inlined calls starting at a stop's PC stay visible: all at a breakpoint on a
/// line or an address, those a function breakpoint names, none at other stops.
fn stop_reveal(hits: &[(u32, bool)], named: &[(u32, Option<String>)]) -> crate::frames::Reveal {
    use crate::frames::Reveal;
    if hits.is_empty() {
        return Reveal::Nothing;
    }
    let mut functions = Vec::new();
    for (n, _) in hits {
        match named.iter().find(|(m, _)| m == n) {
            Some((_, Some(f))) => functions.push(f.clone()),
            _ => return Reveal::All,
        }
    }
    Reveal::Function(functions)
}

fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    };
    r.map_err(|_| format!("`{s}` is not a number"))
}

/// A breakpoint location as `break` takes it: `*ADDR`, `LINE`, `FILE:LINE`, `FUNC`.
pub fn parse_break(arg: &str) -> Result<BreakAt, String> {
    if let Some(a) = arg.strip_prefix('*') {
        return parse_u64(a).map(BreakAt::Address);
    }
    if let Ok(line) = arg.parse::<u64>() {
        return Ok(BreakAt::Line { file: None, line });
    }
    if let Some((f, l)) = arg.rsplit_once(':')
        && let Ok(line) = l.parse::<u64>()
    {
        return Ok(BreakAt::Line {
            file: Some(f.to_string()),
            line,
        });
    }
    if arg.is_empty() {
        return Err("break needs FILE:LINE, LINE, FUNC or *ADDR".into());
    }
    Ok(BreakAt::Function(arg.to_string()))
}

fn text(e: StepError) -> String {
    e.to_string()
}

/// How gdb shows a value it cannot read: `<optimized out>` where the DWARF gives the
/// variable no location at the PC, the reason otherwise.
pub(crate) fn unreadable(e: &StepError) -> String {
    use amdgpu_lanes::Error;
    match e {
        StepError::Debugger(Error::NotAtPc { .. } | Error::NoLocation(_)) => {
            "<optimized out>".into()
        }
        // A caller's register that a function it called may have written (gdb's
        // word for a register the unwinder cannot recover).
        e if e.to_string().contains("<not saved>") => "<not saved>".into(),
        e => format!("<error: {e}>"),
    }
}

/// The simulator error inside a stepping error, if that is what it is.
fn sim_error(e: &StepError) -> Option<SimError> {
    match e {
        StepError::Debugger(amdgpu_lanes::Error::Sim(s)) => Some(s.clone()),
        _ => None,
    }
}

pub(crate) const NOT_RUNNING: &str = "The program is not being run.";

/// The flag that stops a running dispatch: Ctrl-C raises it under an interactive session
/// (a second Ctrl-C before the debugger has seen the first ends the process), and so does
/// [`interrupt`] (a DAP client's `pause`). `None` where no Ctrl-C handler could be set.
fn interrupt_flag() -> Option<Arc<AtomicBool>> {
    static FLAG: OnceLock<Option<Arc<AtomicBool>>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        ctrlc::set_handler(move || {
            if f.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
        })
        .ok()
        .map(|()| flag)
    })
    .clone()
}

/// Stops the dispatch the front end is running, as Ctrl-C does (the stop reads
/// "received signal SIGINT"). Raise it only while a command runs the dispatch: raised
/// at a stop, it would stop the next one at once.
pub fn interrupt() {
    if let Some(f) = interrupt_flag() {
        f.store(true, Ordering::Relaxed);
    }
}

/// Lowers an [`interrupt`] that came too late to stop anything (the run had ended).
pub fn clear_interrupt() {
    if let Some(f) = interrupt_flag() {
        f.store(false, Ordering::Relaxed);
    }
}

impl Frontend {
    /// A front end reading `input`.
    pub fn new(input: Input, mode: Mode) -> Frontend {
        Frontend {
            input,
            mode,
            breakpoints: Table::default(),
            lane: 0,
            dispatches: 0,
            last_stop: None,
            last_function: None,
            sources: Sources::default(),
            values: Vec::new(),
            displays: Vec::new(),
            listed: None,
            next_display: 0,
            errors: 0,
            error_file: None,
            detached: false,
            last_hit: None,
            hit_lanes: None,
            statics_shown: Vec::new(),
            hidden: None,
            stepping_from: None,
            restarting: false,
            stops: 0,
        }
    }

    /// Also writes the number of failed commands and of stops shown to `path`
    /// (`ERRORS STOPS`) whenever one changes (a front end in another process reads it to
    /// choose its exit status).
    pub fn with_error_file(mut self, path: PathBuf) -> Frontend {
        self.error_file = Some(path);
        self
    }

    /// Also looks for source files in the folders above `file` (the dispatch file, the
    /// program).
    pub fn with_sources_near(mut self, file: &std::path::Path) -> Frontend {
        self.sources.add_ancestors(file);
        self
    }

    /// How many commands failed.
    pub fn errors(&self) -> usize {
        self.errors
    }

    /// Whether a person types the commands.
    pub fn interactive(&self) -> bool {
        self.input.interactive()
    }

    /// Whether the session has let go of the program (its commands ended).
    pub fn detached(&self) -> bool {
        self.detached
    }

    fn failed(&mut self, e: &str) {
        self.errors += 1;
        println!("error: {e}");
        self.write_status();
    }

    /// The status file: failed commands and stops shown, `E S`.
    pub(crate) fn write_status(&self) {
        if let Some(p) = &self.error_file {
            let _ = std::fs::write(p, format!("{} {}", self.errors, self.stops));
        }
    }

    /// Program mode, before the first dispatch: commands until `run` or `continue`
    /// ([`Ended::Finished`]: let the program go), `quit` or the end of the input.
    pub fn prelude(&mut self) -> Ended {
        loop {
            let Some(line) = self.input.next_command() else {
                self.detached = true;
                return Ended::Detached;
            };
            match self.command(&line, None) {
                Ok(Flow::Stay) => {}
                Ok(Flow::Leave(e)) => return e,
                Err(e) => self.failed(&e),
            }
        }
    }

    /// Debugs one dispatch of a kernel of `module` (loaded from the code object
    /// `image` was parsed from). Program mode: `None` when no breakpoint resolves in
    /// this code object (the caller runs it at full speed), and the dispatch returns
    /// when it ends; dispatch mode: the session is this dispatch.
    pub fn dispatch(
        &mut self,
        image: &Image<'_>,
        dev: &Device,
        module: &Module,
        launch: &Launch,
    ) -> Result<Option<Ended>, String> {
        self.dispatches += 1;
        if self.detached {
            return Ok(None);
        }
        let mut stepper = Stepper::new(image, dev, module, launch.clone()).map_err(text)?;
        stepper.steps_stop_at_breakpoints = true;
        stepper.functions_after_prologue = true;
        stepper.lines_as_gdb = true;
        stepper.debugger().set_inline_frames(true);
        let flag = interrupt_flag();
        if let Some(f) = &flag {
            stepper.set_interrupt(f.clone());
        }
        // Ctrl-C while the program ran: stop at this dispatch's first instruction.
        let interrupted = flag.is_some_and(|f| f.swap(false, Ordering::Relaxed));
        let resolved = self.breakpoints.resolve(&mut stepper);
        if self.mode == Mode::Program && !resolved && !interrupted {
            return Ok(None);
        }
        if self.input.interactive() {
            self.input.set_words(completion_words(image));
        }
        let mut active = Active {
            stepper: &mut stepper,
            dev,
            fault: None,
            dispatch: self.dispatches,
            started: false,
        };
        if interrupted {
            match active.stepper.set_focus(None, 0) {
                Ok(_) => self.show_stop(&mut active, &StopKind::Interrupted, &[])?,
                Err(e) => self.failed(&e.to_string()),
            }
        } else if self.mode == Mode::Program || std::mem::take(&mut self.restarting) {
            match self.resume(&mut active, 1, |s| s.resume()) {
                Ok(Flow::Leave(e)) => return Ok(Some(e)),
                Ok(Flow::Stay) => {}
                Err(e) => self.failed(&e),
            }
        }
        loop {
            let Some(line) = self.input.next_command() else {
                return Ok(Some(self.detach(&mut active)));
            };
            match self.command(&line, Some(&mut active)) {
                Ok(Flow::Stay) => {}
                Ok(Flow::Leave(e)) => return Ok(Some(e)),
                Err(e) => self.failed(&e),
            }
        }
    }

    /// The commands ended: program mode runs the dispatch to its end without stopping.
    fn detach(&mut self, a: &mut Active) -> Ended {
        if self.mode == Mode::Dispatch {
            return Ended::Detached;
        }
        self.detached = true;
        if let Some(f) = a.fault.take() {
            return Ended::Faulted(f);
        }
        println!("amdsim: the commands have ended; the program runs on without breakpoints");
        match a.stepper.debugger().finish() {
            Ok(()) => Ended::Detached,
            Err(amdgpu_lanes::Error::Sim(e)) => Ended::Faulted(e),
            Err(e) => {
                self.failed(&e.to_string());
                Ended::Detached
            }
        }
    }

    /// Runs `how` on the stepper `count` times (fewer when a breakpoint is reported or
    /// the wave cannot go on) and shows where it stopped; hits of breakpoints that are
    /// ignored this time run on. In program mode the end of the dispatch (or a fault
    /// already shown) leaves the prompt.
    pub(crate) fn resume(
        &mut self,
        a: &mut Active,
        count: u64,
        how: impl Fn(&mut Stepper) -> Result<amdgpu_lanes::stepper::Stop, StepError>,
    ) -> Result<Flow, String> {
        if let Some(f) = &a.fault {
            if self.mode == Mode::Program {
                return Ok(Flow::Leave(Ended::Faulted(f.clone())));
            }
            return Err(format!("the dispatch has faulted: {f}"));
        }
        let mut left = count.max(1);
        a.started = true;
        loop {
            let stop = match how(a.stepper) {
                Ok(stop) => stop,
                Err(e) => {
                    return match sim_error(&e) {
                        Some(f) if self.mode == Mode::Program => {
                            let bias = a.stepper.debugger().load_bias();
                            println!("the kernel faulted: {}", f.rebased(bias));
                            a.fault = Some(f);
                            Ok(Flow::Stay)
                        }
                        // PCs as the code object numbers them, as everywhere else
                        Some(f) => {
                            let bias = a.stepper.debugger().load_bias();
                            Err(format!("simulator: {}", f.rebased(bias)))
                        }
                        None => Err(e.to_string()),
                    };
                }
            };
            if stop.kind == StopKind::DispatchFinished && self.mode == Mode::Program {
                return Ok(Flow::Leave(Ended::Finished));
            }
            let mut hits = Vec::new();
            let mut named = Vec::new();
            if stop.kind == StopKind::Breakpoint
                && let Some(view) = &stop.view
                && let Some(pc) = view.pc
            {
                named = self.breakpoints.functions_at(pc);
                let active: Vec<u32> = view
                    .lanes
                    .iter()
                    .filter(|f| f.state == amdgpu_lanes::service::LaneState::Active)
                    .map(|f| f.lane)
                    .collect();
                let holds = self.conditions_hold(pc, &active, a);
                match self.breakpoints.hit(pc, &holds) {
                    Hit::Ignored => continue,
                    Hit::None if stop.kind == StopKind::Breakpoint && !holds_any(&holds) => {
                        // a conditional breakpoint whose condition no lane meets
                        if !self.breakpoints.conditions_at(pc).is_empty() {
                            continue;
                        }
                    }
                    Hit::Stop(list) => {
                        self.breakpoints.sync(a.stepper);
                        self.last_hit = list.first().map(|h| h.0);
                        hits = list;
                    }
                    Hit::None => {}
                }
            }
            left -= 1;
            let ended = !matches!(stop.kind, StopKind::Stepped | StopKind::NewLine { .. });
            if left == 0 || !hits.is_empty() || ended {
                let reveal = stop_reveal(&hits, &named);
                let from = self.stepping_from.take();
                let pc = stop.view.as_ref().and_then(|v| v.pc);
                self.hide_inline_entries(a, pc, reveal, from.as_ref());
                self.show_stop(a, &stop.kind, &hits)?;
                return Ok(Flow::Stay);
            }
        }
    }

    /// One command against the dispatch under debug (for `lane apply`).
    pub(crate) fn command_line(&mut self, line: &str, a: &mut Active) -> Result<(), String> {
        self.command(line, Some(a)).map(|_| ())
    }

    fn command(&mut self, line: &str, mut a: Option<&mut Active>) -> Result<Flow, String> {
        // A comment runs from a `#` that starts a word (ROCgdb's address spaces,
        // `private_lane#0x44`, have one inside a word).
        let cut = line
            .char_indices()
            .find(|&(i, c)| c == '#' && (i == 0 || line[..i].ends_with(char::is_whitespace)))
            .map_or(line.len(), |(i, _)| i);
        let line = line[..cut].trim();
        if line.is_empty() {
            return Ok(Flow::Stay);
        }
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        let mut rest = rest.trim().to_string();
        // `p/x EXPR`: the format belongs to the arguments.
        let cmd = match cmd.split_once('/') {
            Some((c @ ("p" | "print" | "display"), f)) => {
                rest = format!("/{f} {rest}");
                c
            }
            _ => cmd,
        };
        let rest = rest.as_str();
        match cmd {
            "q" | "quit" | "exit" => return Ok(Flow::Leave(Ended::Quit)),
            "b" | "break" => self.break_cmd(rest, a, false)?,
            "tb" | "tbreak" => self.break_cmd(rest, a, true)?,
            "d" | "delete" | "disable" | "enable" => self.edit_breakpoints(cmd, rest, a)?,
            "condition" => self.condition_cmd(rest)?,
            "ignore" => {
                let mut parts = rest.split_whitespace();
                let (Some(n), Some(c), None) = (parts.next(), parts.next(), parts.next()) else {
                    return Err("Argument required (a breakpoint number and a count).".into());
                };
                let n: u32 = n
                    .parse()
                    .map_err(|_| format!("Bad breakpoint argument: '{n}'"))?;
                let c: u64 = c.parse().map_err(|_| format!("Invalid number \"{c}\"."))?;
                self.breakpoints.get_mut(n)?.ignore = c;
                match c {
                    0 => println!("Will stop next time breakpoint {n} is reached."),
                    1 => println!("Will ignore next crossing of breakpoint {n}."),
                    c => println!("Will ignore next {c} crossings of breakpoint {n}."),
                }
            }
            "info" if rest == "frame" => {
                let Some(a) = a.take() else {
                    return Err("No stack.".into());
                };
                self.info_frame(a)?
            }
            "info" if matches!(rest, "breakpoints" | "b" | "break" | "breakpoint") => {
                print!("{}", self.breakpoints.info())
            }
            "help" | "h" => println!("{}", crate::help::help(rest)?),
            "l" | "list" => self.list(rest, a)?,
            "directory" | "dir" => {
                for d in rest.split_whitespace() {
                    self.sources.add_dir(d.into());
                }
                println!("Source directories searched: {rest}");
            }
            _ => {
                let Some(a) = a.take() else {
                    return match cmd {
                        "r" | "run" | "c" | "continue" => Ok(Flow::Leave(Ended::Finished)),
                        _ if is_command(cmd) => Err(NOT_RUNNING.into()),
                        other => Err(format!("unknown command `{other}` (try `help`)")),
                    };
                };
                return self.stopped_command(cmd, rest, a);
            }
        }
        Ok(Flow::Stay)
    }

    /// The breakpoints at `pc` whose condition an active lane meets (evaluated lane by
    /// lane; the first such lane gets the focus), and those without a condition.
    fn conditions_hold(&mut self, pc: u64, active: &[u32], a: &mut Active) -> Vec<u32> {
        let saved = self.lane;
        let mut out = Vec::new();
        // The lanes where a condition held; None once a breakpoint without one (or
        // whose condition failed to evaluate) is there: every active lane stops.
        let mut lanes: Option<Vec<u32>> = Some(Vec::new());
        for (n, cond) in self.breakpoints.conditions_at(pc) {
            let Some(cond) = cond else {
                out.push(n);
                lanes = None;
                continue;
            };
            let Ok(ast) = crate::expr::parse::parse(&cond) else {
                continue;
            };
            for &lane in active {
                self.lane = lane;
                let met = self.eval(&ast, a).and_then(|v| self.num(&v, a)).map(|n| {
                    !matches!(n, crate::expr::eval::Num::Int(0))
                        && n != crate::expr::eval::Num::Float(0.0)
                });
                match met {
                    Ok(true) => {
                        if !out.contains(&n) {
                            out.push(n);
                        }
                        if let Some(l) = &mut lanes {
                            l.push(lane);
                        }
                    }
                    Ok(false) => {}
                    Err(e) => {
                        println!("Error in testing condition for breakpoint {n}:\n{e}");
                        out.push(n);
                        lanes = None;
                        break;
                    }
                }
            }
        }
        if let Some(l) = &mut lanes {
            l.sort_unstable();
            l.dedup();
        }
        // Focus on the first lane where a condition held.
        self.lane = lanes
            .as_ref()
            .and_then(|l| l.first().copied())
            .unwrap_or(saved);
        self.hit_lanes = lanes.filter(|l| !l.is_empty());
        out
    }

    /// `condition N [COND]`.
    fn condition_cmd(&mut self, rest: &str) -> Result<(), String> {
        let (n, cond) = rest.split_once(' ').unwrap_or((rest, ""));
        let n: u32 = n
            .parse()
            .map_err(|_| format!("Bad breakpoint argument: '{n}'"))?;
        let cond = cond.trim();
        if !cond.is_empty() {
            crate::expr::parse::parse(cond)?;
        }
        let b = self.breakpoints.get_mut(n)?;
        if cond.is_empty() {
            b.condition = None;
            println!("Breakpoint {n} now unconditional.");
        } else {
            b.condition = Some(cond.to_string());
        }
        Ok(())
    }

    /// `delete`, `disable`, `enable` with breakpoint numbers (every breakpoint without).
    fn edit_breakpoints(
        &mut self,
        cmd: &str,
        rest: &str,
        a: Option<&mut Active>,
    ) -> Result<(), String> {
        let numbers = rest
            .split_whitespace()
            .map(|n| {
                n.parse::<u32>().map_err(|_| {
                    format!(
                        "Convenience variable must have integer value.\nBad breakpoint number '{n}'"
                    )
                })
            })
            .collect::<Result<Vec<u32>, String>>()?;
        let all: Vec<u32> = self.breakpoints.all().iter().map(|b| b.number).collect();
        let targets = if numbers.is_empty() { all } else { numbers };
        for n in targets {
            match cmd {
                "d" | "delete" => self.breakpoints.delete(n)?,
                "disable" => self.breakpoints.get_mut(n)?.enabled = false,
                _ => self.breakpoints.get_mut(n)?.enabled = true,
            }
        }
        if let Some(a) = a {
            self.breakpoints.sync(a.stepper);
        }
        Ok(())
    }

    fn break_cmd(
        &mut self,
        rest: &str,
        mut a: Option<&mut Active>,
        temporary: bool,
    ) -> Result<(), String> {
        let (rest, condition) = match rest.split_once(" if ") {
            Some((l, c)) => (l.trim(), Some(c.trim().to_string())),
            None => (rest, None),
        };
        if let Some(c) = &condition {
            crate::expr::parse::parse(c)?;
        }
        let at = parse_break(rest)?;
        let resolved = match &mut a {
            Some(a) => a.stepper.break_at(&at).map_err(text)?,
            None => Vec::new(),
        };
        let kind = if temporary {
            "Temporary breakpoint"
        } else {
            "Breakpoint"
        };
        let places = match &a {
            Some(a) => resolved
                .iter()
                .map(|addr| crate::breakpoints::place(a.stepper, *addr))
                .collect(),
            None => Vec::new(),
        };
        let number = self
            .breakpoints
            .add(rest, at, resolved.clone(), places, temporary);
        self.breakpoints.get_mut(number)?.condition = condition;
        match (resolved.as_slice(), &a) {
            ([], _) => println!("{kind} {number} ({rest}) pending."),
            ([addr], Some(a)) => {
                let src = a.stepper.service().source(*addr, PcKind::Current);
                match src.line {
                    Some((file, line)) => {
                        println!("{kind} {number} at {addr:#x}: file {file}, line {line}.")
                    }
                    None => println!("{kind} {number} at {addr:#x}"),
                }
            }
            (addrs, _) => {
                let list: Vec<String> = addrs.iter().map(|a| format!("{a:#x}")).collect();
                println!(
                    "{kind} {number} at {}: {rest}. ({} locations)",
                    list.join(", "),
                    addrs.len()
                );
            }
        }
        if let Some(a) = a {
            self.breakpoints.sync(a.stepper);
        }
        Ok(())
    }

    fn stopped_command(&mut self, cmd: &str, rest: &str, a: &mut Active) -> Result<Flow, String> {
        match cmd {
            "r" | "run" if a.started => {
                if self.mode == Mode::Program {
                    return Err("The program being debugged has been started already; amdsim cannot restart a program from inside it: quit and start it again.".into());
                }
                println!(
                    "The program being debugged has been started already.\nStart it from the beginning? (y or n) [answered Y; input not from terminal]"
                );
                self.restarting = true;
                return Ok(Flow::Leave(Ended::Restart));
            }
            "r" | "run" | "c" | "continue" => {
                let n = count(rest)?;
                if n > 1
                    && let Some(b) = self.last_hit
                    && let Ok(bp) = self.breakpoints.get_mut(b)
                {
                    bp.ignore = n - 1;
                    println!(
                        "Will ignore next {} crossings of breakpoint {b}.  Continuing.",
                        n - 1
                    );
                }
                return self.resume(a, 1, |s| s.resume());
            }
            "s" | "step" => {
                let mut n = count(rest)?;
                // Into the inline frames hidden here first, without running.
                while n > 0 && self.hidden_frames(a) > 0 {
                    n -= 1;
                    if n == 0 {
                        self.step_into_inline(a)?;
                        return Ok(Flow::Stay);
                    }
                    if let Some(h) = self.hidden.as_mut() {
                        h.count -= 1;
                    }
                }
                let lane = self.lane;
                self.stepping_from = self.frames(a)?.first().and_then(|f| f.source.line.clone());
                return self.resume(a, n, move |s| s.step_line(lane));
            }
            "n" | "next" => {
                let lane = self.lane;
                // Inline frames hidden at the start are calls to run over.
                let hidden = std::cell::Cell::new(self.hidden_frames(a));
                return self.resume(a, count(rest)?, move |s| {
                    s.next_line_over_hidden(lane, hidden.replace(0))
                });
            }
            "si" | "stepi" | "ni" | "nexti" => {
                return self.resume(a, count(rest)?, |s| s.step_instruction());
            }
            "lane" if rest.starts_with("apply") => {
                self.lane_apply(rest["apply".len()..].trim(), a)?
            }
            "lane" => self.lane_cmd(rest, a)?,
            "wave" => {
                let mut parts = rest.split_whitespace();
                let w: u32 = parts
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("wave N [GROUP X,Y,Z]")?;
                let group = match (parts.next(), parts.next()) {
                    (Some("group" | "GROUP"), Some(g)) => {
                        let mut out = [0u32; 3];
                        for (k, x) in g
                            .split(',')
                            .filter_map(|x| x.parse().ok())
                            .take(3)
                            .enumerate()
                        {
                            out[k] = x;
                        }
                        Some(out)
                    }
                    _ => None,
                };
                let stop = a.stepper.set_focus(group, w).map_err(text)?;
                self.last_stop = None;
                self.show_stop(a, &stop.kind, &[])?;
            }
            "info" => self.info(rest, a)?,
            "p" | "print" | "call" | "inspect" => self.print(rest, a)?,
            "output" => {
                let (fmt, expr) = crate::print::split_format(rest)?;
                print!("{}", self.value_text(expr, fmt, a)?);
            }
            "whatis" => self.type_of(rest, false, a)?,
            "ptype" => self.type_of(rest, true, a)?,
            "set" => {
                let expr = rest
                    .strip_prefix("variable ")
                    .or_else(|| rest.strip_prefix("var "))
                    .unwrap_or(rest);
                self.value_text(expr, None, a)?;
            }
            "display" => self.display(rest, a)?,
            "undisplay" => self.undisplay(rest)?,
            "bt" | "backtrace" | "where" => self.backtrace(a)?,
            "thread" => self.thread_cmd(rest, a)?,
            x if x.starts_with("x/") => self.examine(x, rest, a)?,
            "x" => self.examine("x/", rest, a)?,
            "disassemble" => self.disassemble(rest, a)?,
            "frame" | "f" | "up" | "down" => self.frame_cmd(cmd, rest, a)?,
            "finish" | "fin" => return self.finish(a),
            "until" | "u" | "advance" => return self.advance(rest, a),
            other => return Err(format!("unknown command `{other}` (try `help`)")),
        }
        Ok(Flow::Stay)
    }

    fn info(&mut self, rest: &str, a: &mut Active) -> Result<(), String> {
        let (what, args) = rest.split_once(' ').unwrap_or((rest, ""));
        match what {
            "lanes" => self.info_lanes(args, a),
            "threads" => self.info_threads(a),
            "registers" | "reg" | "r" if !args.trim().is_empty() => self.named_registers(args, a),
            "registers" | "reg" | "r" => self.registers(a),
            "locals" => self.info_variables(false, a),
            "args" => self.info_variables(true, a),
            "display" => {
                self.info_display();
                Ok(())
            }
            other => Err(format!(
                "Undefined info command: \"{other}\".  Try \"help info\"."
            )),
        }
    }

    /// `info registers REG...`, as gdb lays them out: name, hex, natural value.
    /// `info registers REG...`: gdb's rows (name, raw hex, natural value) of the
    /// selected frame; a register a call below may have written shows `<not saved>`.
    fn named_registers(&mut self, args: &str, a: &mut Active) -> Result<(), String> {
        for name in args.split_whitespace() {
            let n = name.trim_start_matches('$');
            let (raw, _, text) = match self.convenience(n, a) {
                Ok(r) => r,
                Err(e) if e.contains("<not saved>") => {
                    println!("{n:<15}<not saved>");
                    continue;
                }
                Err(e) => return Err(e),
            };
            let Some(raw) = raw else {
                return Err(format!("Invalid register `{n}'"));
            };
            let natural = text.strip_prefix("(void (*)()) ").unwrap_or(&text);
            println!("{n:<15}{:<19}{natural}", format!("{raw:#x}"));
        }
        Ok(())
    }

    /// `info registers`: gdb's rows for the program counter, EXEC, VCC, SCC, M0, the
    /// wave's SGPRs and its first 32 VGPRs (the focused lane's element of each).
    fn registers(&mut self, a: &mut Active) -> Result<(), String> {
        let (_, wave) = a.stepper.focus();
        let (sgprs, vgprs) = {
            let w = a
                .stepper
                .debugger()
                .session_ref()
                .wave(wave)
                .ok_or("no wave is running")?;
            (w.sgpr.len().min(106), w.vgpr.len().min(32))
        };
        let mut names = vec![
            "pc".to_string(),
            "exec".into(),
            "vcc".into(),
            "scc".into(),
            "m0".into(),
        ];
        names.extend((0..sgprs).map(|k| format!("s{k}")));
        names.extend((0..vgprs).map(|k| format!("v{k}")));
        println!(
            "[amdsim: vector registers show lane {}'s element]",
            self.lane
        );
        self.named_registers(&names.join(" "), a)
    }
}

/// The names tab completion offers: functions (as written in source), source files
/// and every variable the DWARF names.
fn completion_words(image: &Image<'_>) -> Vec<String> {
    let mut words: Vec<String> = image
        .code()
        .symbols()
        .iter()
        .filter(|s| s.is_code())
        .map(|s| {
            let d = amdgpu_lanes::service::demangle(s.name);
            crate::present::frame_function(&d).to_string()
        })
        .collect();
    if let Ok(rows) = image.statement_rows() {
        for r in rows {
            if let Some(f) = std::path::Path::new(&r.file).file_name() {
                words.push(f.to_string_lossy().into_owned());
            }
        }
    }
    if let Ok(vars) = image.program().globals() {
        words.extend(vars.into_iter().map(|v| v.name));
    }
    words.sort();
    words.dedup();
    words
}

fn holds_any(h: &[u32]) -> bool {
    !h.is_empty()
}

/// A command's repeat count (1 without one).
fn count(rest: &str) -> Result<u64, String> {
    if rest.is_empty() {
        return Ok(1);
    }
    match rest.parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("Invalid number \"{rest}\".")),
    }
}

/// Whether `cmd` is a command that needs a stopped wave.
fn is_command(cmd: &str) -> bool {
    matches!(
        cmd,
        "s" | "step"
            | "n"
            | "next"
            | "si"
            | "stepi"
            | "ni"
            | "nexti"
            | "lane"
            | "wave"
            | "info"
            | "p"
            | "print"
            | "bt"
            | "backtrace"
            | "call"
            | "output"
            | "x"
            | "disassemble"
            | "frame"
            | "f"
            | "up"
            | "down"
            | "finish"
            | "fin"
            | "until"
            | "u"
            | "advance"
            | "whatis"
            | "ptype"
            | "set"
            | "display"
            | "where"
            | "thread"
    ) || cmd.starts_with("x/")
}

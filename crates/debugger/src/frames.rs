//! The focused wave's frames as gdb shows them: every physical frame (the wave's own,
//! then the callers the reconstruction unwinds), and in each, every inlined call
//! containing its PC as a frame of its own (gdb's inline frames: the innermost inlined
//! function first, at the PC's line; each enclosing one at the line of the call inlined
//! into it). `frame`/`up`/`down`, `info frame` and `bt` go through them; an inline frame's
//! variables are its own scope's, read with its physical frame's registers.

use crate::frontend::{Active, Frontend};
use crate::present::frame_function;
use amdgpu_dwarf::program::InlinedCall;
use amdgpu_lanes::service::{PcKind, SourcePos, demangle};

/// One frame of the focused wave.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// The physical frame it is in (0: the wave's own).
    pub physical: u32,
    /// How many inlined calls at the physical frame's PC are inside it (0: the
    /// innermost frame of its physical frame).
    pub inline: u32,
    /// The physical frame's PC: the wave's, or the return address into a caller.
    pub pc: u64,
    /// Function and line as the frame shows them.
    pub source: SourcePos,
    /// The inlined call the frame is (`None`: the physical frame's function).
    pub call: Option<InlinedCall>,
}

/// The name gdb gives an inlined function: its linkage name demangled, else its name.
pub(crate) fn inlined_name(call: &InlinedCall) -> String {
    match &call.linkage_name {
        Some(l) => demangle(l),
        None => call.name.clone(),
    }
}

impl Frontend {
    /// The focused wave's physical frames' PCs, innermost first: the wave's PC, then
    /// the return addresses the reconstruction follows into each caller.
    pub(crate) fn stack(&self, a: &mut Active) -> Result<Vec<u64>, String> {
        let view = a.stepper.view().map_err(|e| e.to_string())?;
        let pc = view.pc.ok_or("No stack.")?;
        let (_, wave) = a.stepper.focus();
        let bias = a.stepper.debugger().load_bias();
        let mut out = vec![pc];
        if let Some(w) = a.stepper.debugger().session_ref().wave(wave).cloned() {
            out.extend(a.stepper.service().call_stack(&w, bias, pc));
        }
        Ok(out)
    }

    /// The focused wave's frames, innermost first, inline frames included.
    pub(crate) fn frames(&self, a: &mut Active) -> Result<Vec<Frame>, String> {
        let stack = self.stack(a)?;
        let view = a.stepper.view().map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for (p, &pc) in stack.iter().enumerate() {
            let lookup = if p == 0 { pc } else { pc.wrapping_sub(1) };
            let source = if p == 0 {
                view.source.clone()
            } else {
                a.stepper.service().source(lookup, PcKind::Current)
            };
            let calls = a
                .stepper
                .debugger()
                .image()
                .program()
                .inlined_calls_at(lookup)
                .unwrap_or_default();
            let mut frames = physical_frames(p as u32, pc, source, calls);
            if p == 0 {
                // The inline frames hidden at this stop are not shown.
                let hidden = self.hidden_frames(a).min(frames.len() - 1);
                frames.drain(..hidden);
            }
            out.extend(frames);
        }
        Ok(out)
    }

    /// The level of the selected frame among `frames`.
    pub(crate) fn selected_level(&self, a: &mut Active, frames: &[Frame]) -> usize {
        let d = a.stepper.debugger();
        let (p, i) = (d.selected_frame(), d.selected_inline());
        frames
            .iter()
            .position(|f| f.physical == p && f.inline == i)
            .unwrap_or(0)
    }

    /// Selects frame `level` of `frames` (the focused wave's): its physical frame,
    /// the callers unwound by the reconstruction, and its inline scope.
    pub(crate) fn select(
        &self,
        a: &mut Active,
        frames: &[Frame],
        level: usize,
    ) -> Result<(), String> {
        let f = frames.get(level).ok_or("No stack.")?;
        let view = a.stepper.view().map_err(|e| e.to_string())?;
        let pc = view.pc.ok_or("No stack.")?;
        let (_, wave) = a.stepper.focus();
        let bias = a.stepper.debugger().load_bias();
        let callers = match a.stepper.debugger().session_ref().wave(wave).cloned() {
            Some(w) => a.stepper.service().call_frames(&w, bias, pc),
            None => Vec::new(),
        };
        let d = a.stepper.debugger();
        d.select_frame_in(f.physical, callers)
            .map_err(|e| e.to_string())?;
        d.select_inline(f.inline);
        Ok(())
    }

    /// `src` (the function and line of link-time `pc` as the line table and the
    /// symbols give them) as the focused wave's frame 0 shows it: with the innermost
    /// function inlined at `pc` as its function, how gdb names a frame 0 in inlined
    /// code; where inline frames are hidden, the function they are inlined into at the
    /// line of the call.
    pub(crate) fn innermost_source(
        &self,
        a: &mut Active,
        pc: Option<u64>,
        src: &SourcePos,
    ) -> SourcePos {
        let Some(pc) = pc else {
            return src.clone();
        };
        let program = a.stepper.debugger().image().program();
        let calls = program.inlined_calls_at(pc).unwrap_or_default();
        let hidden = self.hidden_frames(a).min(calls.len());
        let mut frames = physical_frames(0, pc, src.clone(), calls);
        frames.swap_remove(hidden).source
    }

    /// `frame [N]`, `up [N]`, `down [N]`: selects a frame of the focused wave (a
    /// caller's variables are read through the call frame information, an inline
    /// frame's in its own scope) and shows it.
    pub(crate) fn frame_cmd(
        &mut self,
        cmd: &str,
        rest: &str,
        a: &mut Active,
    ) -> Result<(), String> {
        let frames = self.frames(a)?;
        let top = frames.len() - 1;
        let cur = self.selected_level(a, &frames);
        let arg = rest.trim();
        let count = || -> Result<usize, String> {
            if arg.is_empty() {
                Ok(1)
            } else {
                arg.parse()
                    .map_err(|_| format!("Invalid number \"{arg}\"."))
            }
        };
        let level = match cmd {
            "up" => {
                if cur == top {
                    return Err("Initial frame selected; you cannot go up.".into());
                }
                (cur + count()?).min(top)
            }
            "down" => {
                if cur == 0 {
                    return Err("Bottom (innermost) frame selected; you cannot go down.".into());
                }
                cur.saturating_sub(count()?)
            }
            _ if arg.is_empty() => cur,
            _ => match arg.parse::<usize>() {
                Ok(n) if n <= top => n,
                _ => return Err(format!("No frame at level {arg}.")),
            },
        };
        self.select(a, &frames, level)?;
        println!("#{level}  {}", self.frame_line(a, &frames, level));
        if let Some((file, line)) = &frames[level].source.line {
            println!("{}", self.sources.show(file, *line));
        }
        Ok(())
    }

    /// gdb's summary of frame `level` of `frames`: its arguments read in its scope
    /// (`...` when its physical frame cannot be unwound); a caller's PC before its
    /// function unless the frame is an inlined call's caller (which has no PC of its
    /// own in gdb's view).
    pub(crate) fn frame_line(&mut self, a: &mut Active, frames: &[Frame], level: usize) -> String {
        let Some(f) = frames.get(level) else {
            return "??".into();
        };
        let saved = self.selected_level(a, frames);
        if level == 0 && f.physical == 0 {
            let _ = self.select(a, frames, 0);
            let line = self.frame(a, Some(f.pc), &f.source, self.lane);
            let _ = self.select(a, frames, saved);
            return line;
        }
        let func = f
            .source
            .function
            .as_deref()
            .map(frame_function)
            .unwrap_or("??");
        let at = f
            .source
            .line
            .as_ref()
            .map(|(file, l)| format!(" at {file}:{l}"))
            .unwrap_or_default();
        let args = match self.select(a, frames, level) {
            Ok(()) => self.args(a, self.lane),
            Err(_) => "...".into(),
        };
        let _ = self.select(a, frames, saved);
        let pc = if f.inline == 0 {
            format!("{:#018x} in ", f.pc)
        } else {
            String::new()
        };
        format!("{pc}{func} ({args}){at}")
    }

    /// `info frame`: the selected frame's level, PC, function and line, and where it
    /// returns to (gdb's first lines; amdsim has no frame addresses to show). An inline
    /// frame says so, and its caller is the frame it is inlined into.
    pub(crate) fn info_frame(&mut self, a: &mut Active) -> Result<(), String> {
        let frames = self.frames(a)?;
        let level = self.selected_level(a, &frames);
        let f = frames.get(level).ok_or("No stack.")?;
        let func = f
            .source
            .function
            .as_deref()
            .map(frame_function)
            .unwrap_or("??");
        let line = f
            .source
            .line
            .as_ref()
            .map(|(file, l)| format!(" ({file}:{l})"))
            .unwrap_or_default();
        println!("Stack level {level}, frame at <unknown>:");
        let outermost = level + 1 == frames.len();
        let kernel = a.stepper.service().in_kernel(f.pc);
        // An inline frame's caller is its physical frame's caller.
        let saved = match frames[level..].iter().find(|c| c.physical > f.physical) {
            Some(c) => format!("{:#x}", c.pc),
            None if kernel => "<not saved>".into(),
            None => "<unknown>".into(),
        };
        println!(" pc = {:#x} in {func}{line}; saved pc = {saved}", f.pc);
        if f.call.is_some() {
            println!(" inlined into frame {}", level + 1);
        } else if outermost && kernel {
            println!(" Outermost frame: the kernel's entry");
        } else if !outermost {
            println!(" called by frame at level {}", level + 1);
        }
        if level > 0 {
            println!(" caller of frame at level {}", level - 1);
        }
        println!(
            " Arglist at unknown address.\n Locals at unknown address, Previous frame's sp is <unknown>"
        );
        Ok(())
    }
}

/// The frames of physical frame `physical` at `pc` (`source`: its innermost function
/// and line), with `calls` the inlined calls containing its PC, innermost first.
fn physical_frames(
    physical: u32,
    pc: u64,
    source: SourcePos,
    calls: Vec<InlinedCall>,
) -> Vec<Frame> {
    let mut out = Vec::with_capacity(calls.len() + 1);
    let mut line = source.line.clone();
    for (k, call) in calls.iter().enumerate() {
        out.push(Frame {
            physical,
            inline: k as u32,
            pc,
            source: SourcePos {
                function: Some(inlined_name(call)),
                line: line.clone(),
            },
            call: Some(call.clone()),
        });
        // The frame it is inlined into is at the call's line.
        line = match (&call.call_file, call.call_line) {
            (Some(file), Some(l)) => Some((file.clone(), l)),
            _ => line,
        };
    }
    out.push(Frame {
        physical,
        inline: calls.len() as u32,
        pc,
        source: SourcePos {
            function: source.function,
            line,
        },
        call: None,
    });
    out
}

/// The inline frames hidden at a stop (gdb's `skip_inline_frames`): when a wave stops
/// where inlined calls start, not at a breakpoint placed in them, gdb shows the
/// function they are inlined into at the line of the call, as if the call had not been
/// entered yet; `step` then enters them one at a time without running (gdb's
/// `step_into_inline_frame`) and `next` runs over them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hidden {
    /// The wave (work-group, wave) and its link-time PC when they were hidden.
    pub wave: ([u32; 3], u32),
    pub pc: u64,
    /// How many of the innermost inline frames are hidden.
    pub count: usize,
}

/// Which inlined calls starting at a stop's PC are hidden.
pub(crate) enum Reveal {
    /// None: a breakpoint on a line or an address stopped the wave there.
    All,
    /// Those inside the function a function breakpoint names (`break kernel` where the
    /// kernel's first statement is an inlined call stops in the kernel, at the call).
    Function(Vec<String>),
    /// Every one (a step, `finish`, an interrupt).
    Nothing,
}

/// The focused wave's link-time PC (`None` once it has ended), without computing the
/// whole lane view.
pub(crate) fn focused_pc(a: &mut Active) -> Option<u64> {
    let (_, wave) = a.stepper.focus();
    let bias = a.stepper.debugger().load_bias();
    a.stepper
        .debugger()
        .session_ref()
        .wave(wave)
        .filter(|w| w.status != amdgpu_sim::wave::WaveStatus::Done)
        .map(|w| w.pc.wrapping_sub(bias))
}

/// Whether function breakpoint name `f` names the inlined call `call`.
fn names(f: &str, call: &InlinedCall) -> bool {
    let full = inlined_name(call);
    f == call.name
        || call.linkage_name.as_deref() == Some(f)
        || f == full
        || f == frame_function(&full)
        || frame_function(&full).ends_with(&format!("::{f}"))
}

impl Frontend {
    /// How many of the focused wave's innermost inline frames are hidden now (0 once the
    /// wave has moved or another wave is focused).
    pub(crate) fn hidden_frames(&self, a: &mut Active) -> usize {
        match self.hidden {
            Some(h) if a.stepper.focus() == h.wave && focused_pc(a) == Some(h.pc) => h.count,
            _ => 0,
        }
    }

    /// After a stop of the focused wave at link-time `pc`: hides the inlined calls that
    /// start there, innermost first, as `reveal` says (`from`: the line `step` started
    /// at, whose own inlined call is entered at once, as gdb does when the call is on the
    /// line being stepped), and selects the innermost frame left.
    pub(crate) fn hide_inline_entries(
        &mut self,
        a: &mut Active,
        pc: Option<u64>,
        reveal: Reveal,
        from: Option<&(String, u64)>,
    ) {
        self.hidden = None;
        let Some(pc) = pc else {
            return;
        };
        if matches!(reveal, Reveal::All) {
            return;
        }
        let program = a.stepper.debugger().image().program();
        let calls = program.inlined_calls_at(pc).unwrap_or_default();
        let mut count = 0;
        for call in &calls {
            if call.entry != pc {
                break;
            }
            if let Reveal::Function(fs) = &reveal
                && fs.iter().any(|f| names(f, call))
            {
                break;
            }
            count += 1;
        }
        if count > 0
            && let Some(from) = from
            && let (Some(file), Some(line)) =
                (&calls[count - 1].call_file, calls[count - 1].call_line)
            && (file, line) == (&from.0, from.1)
        {
            count -= 1;
        }
        if count == 0 {
            return;
        }
        self.hidden = Some(Hidden {
            wave: a.stepper.focus(),
            pc,
            count,
        });
        a.stepper.debugger().select_inline(count as u32);
    }

    /// `step` where inline frames are hidden: enters the outermost hidden one without
    /// running (gdb's `step_into_inline_frame`), and shows it.
    pub(crate) fn step_into_inline(&mut self, a: &mut Active) -> Result<(), String> {
        let Some(h) = self.hidden.as_mut() else {
            return Ok(());
        };
        h.count = h.count.saturating_sub(1);
        let count = h.count;
        if count == 0 {
            self.hidden = None;
        }
        let d = a.stepper.debugger();
        let _ = d.select_frame(0);
        d.select_inline(count as u32);
        self.show_stop(a, &amdgpu_lanes::stepper::StopKind::Stepped, &[])
    }
}

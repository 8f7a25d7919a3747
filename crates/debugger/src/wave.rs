//! Waves and lanes as ROCgdb shows them: stop reports, `info lanes`, `lane`,
//! `info threads`, `thread`, `bt`.

use crate::frontend::{Active, Frontend};
use crate::present::{Place, frame_function, lane_ranges, wave_name};
use crate::value::typed_value;
use amdgpu_lanes::service::{LaneState, PcKind, PositionSource, SourcePos};
use amdgpu_lanes::stepper::{LaneFact, StopKind};

/// The text of a lane's position for amdsim's column beside ROCgdb's `(inactive)`.
fn whereabouts(f: &LaneFact) -> String {
    let at = f
        .source
        .as_ref()
        .and_then(|s| s.line.as_ref())
        .map(|(file, l)| format!(" at {file}:{l}"))
        .unwrap_or_default();
    match &f.state {
        LaneState::Divergent => format!("divergent, waits{at}"),
        LaneState::Unknown(why) => format!("unknown ({why})"),
        s => s.word().to_string(),
    }
}

impl Frontend {
    /// A variable's value for `lane`, as a frame's argument list shows it with gdb's
    /// default `print frame-arguments scalars`: scalars and pointers as `info args`
    /// prints them (pointers without their type), a struct, union, array or vector
    /// `...`. A reference shows `r=@0x2000000000000270: 5` when it refers to a scalar,
    /// `c=...` when to an aggregate (gdb's `val_print_scalar_type_p` looks through
    /// references, and its summary mode writes `...` for the whole argument, address
    /// included).
    fn lane_value(&mut self, name: &str, lane: u32, a: &mut Active) -> Result<String, String> {
        use crate::expr::types::Ty;
        let saved = std::mem::replace(&mut self.lane, lane);
        let r = crate::expr::parse::parse(name).and_then(|ast| {
            let v = self.eval_ref(&ast, a)?;
            let aggregate = |t: &Ty| matches!(t, Ty::Struct { .. } | Ty::Array { .. } | Ty::Dim3);
            if aggregate(&v.ty) {
                return Ok("...".into());
            }
            // (An optimized-out reference says so, as gdb checks that first.)
            if let Ty::Reference { target, .. } = &v.ty
                && !matches!(v.repr, crate::expr::eval::Repr::OptimizedOut)
            {
                let program = a.stepper.debugger().image().program();
                if aggregate(&Ty::target(program, target)?) {
                    return Ok("...".into());
                }
            }
            self.show(&v, None, false, a)
        });
        self.lane = saved;
        r
    }

    /// The kernel of the dispatch under debug, as source code names it.
    pub(crate) fn kernel_name(&self, a: &mut Active) -> String {
        let name = &a.stepper.debugger().session_ref().launch().kernel.name;
        amdgpu_lanes::service::demangle(name)
    }

    /// Where wave `wave` of work-group `group` of the dispatch under debug is.
    pub(crate) fn place(&self, a: &mut Active, group: [u32; 3], wave: u32) -> Place {
        let launch = a.stepper.debugger().session_ref().launch();
        Place {
            dispatch: a.dispatch,
            group,
            groups: launch.groups,
            group_size: launch.config.group,
            wave,
            wave_size: launch.wave_size,
        }
    }

    /// The arguments of the function a lane is in, as gdb lists them in a frame.
    pub(crate) fn args(&mut self, a: &mut Active, lane: u32) -> String {
        let vars = a.stepper.debugger().variables().unwrap_or_default();
        let mut out = Vec::new();
        for v in vars.iter().filter(|v| v.parameter && !v.name.is_empty()) {
            let value = match self.lane_value(&v.name, lane, a) {
                Ok(text) => text,
                Err(_) => match a.stepper.read_variable(lane, &v.name) {
                    Ok(bytes) => typed_value(v.type_name.as_deref(), &bytes),
                    Err(e) => crate::frontend::unreadable(&e),
                },
            };
            out.push(format!("{}={value}", v.name));
        }
        out.join(", ")
    }

    /// gdb's summary of the focused wave's frame 0 for `lane`: `[0xPC in ]func (args) at
    /// file:line`, named after the innermost function inlined at the PC.
    pub(crate) fn frame(
        &mut self,
        a: &mut Active,
        pc: Option<u64>,
        src: &SourcePos,
        lane: u32,
    ) -> String {
        let src = &self.innermost_source(a, pc, src);
        let func = src.function.as_deref().map(frame_function).unwrap_or("??");
        let hidden = self.hidden_frames(a);
        // (At a call whose inline frames are hidden, gdb shows no address.)
        let at = pc
            .filter(|p| hidden == 0 && !a.stepper.is_statement(*p))
            .map(|p| format!("{p:#018x} in "))
            .unwrap_or_default();
        // Frame 0's arguments, whichever frame is selected.
        let d = a.stepper.debugger();
        let selected = (d.selected_frame(), d.selected_inline());
        let top = (0, hidden as u32);
        if selected != top {
            let _ = d.select_frame(0);
            d.select_inline(top.1);
        }
        let args = self.args(a, lane);
        if selected != top {
            let d = a.stepper.debugger();
            let _ = d.select_frame(selected.0);
            d.select_inline(selected.1);
        }
        match &src.line {
            Some((file, line)) => format!("{at}{func} ({args}) at {file}:{line}"),
            None => format!(
                "{}{func} ({args})",
                pc.map(|p| format!("{p:#018x} in ")).unwrap_or_default()
            ),
        }
    }

    /// Shows a stop as gdb does: the switch to another thread or lane, the breakpoint
    /// hit with its lanes, the frame when it changed, and the source line.
    pub(crate) fn show_stop(
        &mut self,
        a: &mut Active,
        kind: &StopKind,
        hits: &[(u32, bool)],
    ) -> Result<(), String> {
        if *kind == StopKind::DispatchFinished {
            println!("[Inferior 1 (dispatch {}) exited normally]", a.dispatch);
            return Ok(());
        }
        self.stops += 1;
        self.write_status();
        let view = a.stepper.view().map_err(|e| e.to_string())?;
        let place = self.place(a, view.group, view.wave);
        if let StopKind::WaveEnded { .. } = kind {
            println!("[{} exited]", place.wave_id());
            return Ok(());
        }
        let active: Vec<u32> = view
            .lanes
            .iter()
            .filter(|f| f.state == LaneState::Active)
            .map(|f| f.lane)
            .collect();
        if !active.contains(&self.lane)
            && let Some(first) = active.first()
            && matches!(kind, StopKind::Breakpoint | StopKind::Focused)
        {
            self.lane = *first;
        }
        if *kind == StopKind::Interrupted {
            println!(
                "\nThread {} \"{}\" received signal SIGINT, Interrupt.",
                place.thread(),
                wave_name(&self.kernel_name(a))
            );
        }
        let key = (a.dispatch, place.thread(), self.lane);
        if self.last_stop != Some(key) {
            println!(
                "[Switching to thread {}, lane {} ({})]",
                place.thread(),
                self.lane,
                place.lane_id(self.lane)
            );
        }
        self.last_stop = Some(key);
        let frame = self.frame(a, view.pc, &view.source, self.lane);
        let shown = self.innermost_source(a, view.pc, &view.source);
        let function = shown.function;
        let hidden = self.hidden_frames(a);
        let new_function = self.last_function != function;
        self.last_function = function;
        match kind {
            StopKind::Breakpoint if !hits.is_empty() => {
                let (n, temporary) = hits[0];
                // ROCgdb names the lanes where the condition held, or every active one.
                let stopped = self.hit_lanes.take().unwrap_or_else(|| active.clone());
                let lanes = if stopped.len() == 1 { "lane" } else { "lanes" };
                println!(
                    "Thread {} \"{}\" hit {}reakpoint {n}, with {lanes} {}, {frame}",
                    place.thread(),
                    wave_name(&self.kernel_name(a)),
                    if temporary { "Temporary b" } else { "B" },
                    lane_ranges(&stopped)
                );
            }
            StopKind::NewLine { .. } | StopKind::Stepped if !new_function => {}
            StopKind::LaneLeft { .. } => {
                println!(
                    "[lane {} has left the function; the wave goes on]",
                    self.lane
                );
                println!("{frame}");
            }
            StopKind::AtBarrier => println!("{frame}\n[the wave waits at a barrier]"),
            _ => println!("{frame}"),
        }
        if let Some((file, line)) = &shown.line {
            let text = self.sources.show(file, *line);
            match view
                .pc
                .filter(|p| hidden == 0 && !a.stepper.is_statement(*p))
            {
                Some(pc) if *kind == StopKind::Stepped && !new_function => {
                    println!("{pc:#018x}\t{text}")
                }
                _ => println!("{text}"),
            }
        }
        if *kind == StopKind::Interrupted {
            // Every wave of the work-group, as `amdsim run` shows them on Ctrl-C.
            self.info_threads(a)?;
        }
        Ok(())
    }

    /// `lane [N]`.
    pub(crate) fn lane_cmd(&mut self, rest: &str, a: &mut Active) -> Result<(), String> {
        let view = a.stepper.view().map_err(|e| e.to_string())?;
        let place = self.place(a, view.group, view.wave);
        if rest.is_empty() {
            println!(
                "[Current lane is {}, thread {} ({})]",
                self.lane,
                place.thread(),
                place.lane_id(self.lane)
            );
            return Ok(());
        }
        let n: i64 = rest
            .parse()
            .map_err(|_| format!("Invalid lane number \"{rest}\"."))?;
        if n < 0 || n >= i64::from(place.wave_size) {
            return Err(format!("Lane {n} does not exist on this thread."));
        }
        let n = n as u32;
        self.lane = n;
        self.last_stop = Some((a.dispatch, place.thread(), n));
        println!(
            "[Switching to thread {}, lane {n} ({})]",
            place.thread(),
            place.lane_id(n)
        );
        let fact = view.lanes.iter().find(|f| f.lane == n);
        if fact.map(|f| &f.state) != Some(&LaneState::Active) {
            // ROCgdb warns, then shows the wave's frame all the same; amdsim adds
            // where the lane itself is.
            println!("warning: Current lane is inactive.");
            if let Some(f) = fact {
                println!("[amdsim: lane {n} is {}]", whereabouts(f));
            }
        }
        println!("#0  {}", self.frame(a, view.pc, &view.source, n));
        if let Some((file, line)) = &view.source.line {
            println!("{}", self.sources.show(file, *line));
        }
        Ok(())
    }

    /// `lane apply LIST|all [-all | -active | -inactive] CMD`: CMD for each of those
    /// lanes, under ROCgdb's `Lane N (ID):` header; the focus comes back afterwards.
    pub(crate) fn lane_apply(&mut self, rest: &str, a: &mut Active) -> Result<(), String> {
        let mut words = rest.split_whitespace().peekable();
        let mut list: Option<Vec<u32>> = None;
        let mut filter = "";
        let mut consumed = 0;
        while let Some(w) = words.peek().copied() {
            match w {
                "all" => list = None,
                "-all" | "-active" | "-inactive" => filter = w,
                w if w.starts_with('-')
                    && w.len() > 1
                    && w[1..].chars().all(|c| c.is_ascii_digit()) =>
                {
                    return Err("negative value".into());
                }
                w if w.chars().next().is_some_and(|c| c.is_ascii_digit()) => list
                    .get_or_insert_with(Vec::new)
                    .extend(parse_lane_list(w)?),
                _ => break,
            }
            consumed += 1;
            words.next();
        }
        if consumed == 0 {
            return Err("Please specify a lane ID list".into());
        }
        let cmd: Vec<&str> = words.collect();
        if cmd.is_empty() {
            return Err("Please specify a command following the lane ID list".into());
        }
        let cmd = cmd.join(" ");
        let view = a.stepper.view().map_err(|e| e.to_string())?;
        let place = self.place(a, view.group, view.wave);
        let saved = self.lane;
        for f in &view.lanes {
            let state = match f.state {
                LaneState::Active => "A",
                LaneState::Outside => "U",
                _ => "I",
            };
            let chosen = match &list {
                Some(l) => l.contains(&f.lane),
                None => state != "U",
            };
            let shown = match filter {
                "-active" => state == "A",
                "-inactive" => state == "I",
                _ => true,
            };
            if !(chosen && shown) {
                continue;
            }
            println!("\nLane {} ({}):", f.lane, place.lane_id(f.lane));
            self.lane = f.lane;
            if let Err(e) = self.command_line(&cmd, a) {
                println!("error: {e}");
            }
        }
        if let Some(l) = &list {
            for n in l.iter().filter(|n| **n >= place.wave_size) {
                println!("warning: Lane {n} does not exist on this thread.");
            }
        }
        self.lane = saved;
        Ok(())
    }

    /// `info lanes [-all | -active | -inactive] [LIST]`: ROCgdb's table, with amdsim's
    /// position of each inactive lane beside `(inactive)`.
    pub(crate) fn info_lanes(&mut self, args: &str, a: &mut Active) -> Result<(), String> {
        let mut filter = "";
        let mut list: Option<Vec<u32>> = None;
        for w in args.split_whitespace() {
            match w {
                "-all" | "-active" | "-inactive" => filter = w,
                w if w.starts_with('-') => return Err(format!("Unrecognized option at: {w}")),
                w => list
                    .get_or_insert_with(Vec::new)
                    .extend(parse_lane_list(w)?),
            }
        }
        let view = a.stepper.view().map_err(|e| e.to_string())?;
        let place = self.place(a, view.group, view.wave);
        let mut rows = Vec::new();
        for f in &view.lanes {
            let (state, frame) = match f.state {
                LaneState::Active => ("A", self.frame(a, view.pc, &view.source, f.lane)),
                LaneState::Outside => ("U", "(unused)".to_string()),
                _ => ("I", format!("(inactive) {}", whereabouts(f))),
            };
            let shown = match filter {
                "-all" => true,
                "-active" => state == "A",
                "-inactive" => state == "I",
                _ => state != "U",
            };
            if shown && list.as_ref().is_none_or(|l| l.contains(&f.lane)) {
                rows.push((f.lane, state, place.lane_id(f.lane), frame));
            }
        }
        if rows.is_empty() {
            match list {
                Some(_) => println!("No lanes match '{}'.", args.trim()),
                None => println!("No lanes."),
            }
            return Ok(());
        }
        let width = rows.iter().map(|r| r.2.len()).max().unwrap_or(0).max(17);
        println!("  Id   State {:<width$} Frame ", "Target Id");
        for (lane, state, id, frame) in rows {
            let mark = if lane == self.lane { '*' } else { ' ' };
            println!("{mark} {lane:<4} {state:<5} {id:<width$} {frame}");
        }
        println!(
            "[amdsim: active mask {:#x}, EXEC {:#x}]",
            view.active, view.exec
        );
        if view.provenance.source == PositionSource::Dwarf {
            println!("[amdsim: positions from DW_AT_LLVM_lane_pc (callers through the CFI)]");
        }
        if let Some(t) = view.provenance.trouble(view.pc) {
            println!("warning: {t}");
        }
        Ok(())
    }

    /// `info threads`: the waves of the running work-group (of every resident one when
    /// the kernel's waves wait on other work-groups').
    pub(crate) fn info_threads(&mut self, a: &mut Active) -> Result<(), String> {
        let (group, focus) = a.stepper.focus();
        let bias = a.stepper.debugger().load_bias();
        let waves: Vec<([u32; 3], u32, u64)> = {
            let s = a.stepper.debugger().session_ref();
            let groups = s.groups();
            if groups.is_empty() {
                println!("No threads.");
                return Ok(());
            }
            groups
                .iter()
                .flat_map(|g| {
                    g.waves
                        .iter()
                        .enumerate()
                        .filter(|(_, w)| w.status != amdgpu_sim::WaveStatus::Done)
                        .map(|(i, w)| (g.id, i as u32, w.pc.wrapping_sub(bias)))
                })
                .collect()
        };
        let kernel = self.kernel_name(a);
        // gdb shows every thread's innermost frame, then gives the selection back.
        let frames = self.frames(a)?;
        let selected = self.selected_level(a, &frames);
        if selected != 0 {
            self.select(a, &frames, 0)?;
        }
        let mut rows = Vec::new();
        for (g, w, pc) in waves {
            let place = self.place(a, g, w);
            let src = a.stepper.service().source(pc, PcKind::Current);
            let current = (g, w) == (group, focus);
            // Each wave's frame with its arguments as that wave's lane sees them: the
            // focused lane of the focused wave, another wave's first active lane.
            let frame = if current {
                // (Back on the focused wave, after the rows of the waves before it.)
                if a.stepper.focus() != (group, focus) {
                    a.stepper
                        .set_focus(Some(group), focus)
                        .map_err(|e| e.to_string())?;
                }
                self.frame(a, Some(pc), &src, self.lane)
            } else {
                match a.stepper.set_focus(Some(g), w) {
                    Ok(stop) => {
                        let exec = stop.view.map_or(0, |v| v.exec);
                        let lane = if exec == 0 { 0 } else { exec.trailing_zeros() };
                        self.frame(a, Some(pc), &src, lane)
                    }
                    Err(e) => format!("<{e}>"),
                }
            };
            let id = format!("{} \"{}\"", place.wave_id(), wave_name(&kernel));
            rows.push((current, place.thread(), id, frame));
        }
        if a.stepper.focus() != (group, focus) {
            a.stepper
                .set_focus(Some(group), focus)
                .map_err(|e| e.to_string())?;
        }
        if selected != 0 {
            self.select(a, &frames, selected)?;
        }
        let width = rows.iter().map(|r| r.2.len()).max().unwrap_or(0).max(17);
        println!("  Id   {:<width$} Frame ", "Target Id");
        for (current, t, id, frame) in rows {
            let mark = if current { '*' } else { ' ' };
            println!("{mark} {t:<4} {id:<width$} {frame}");
        }
        Ok(())
    }

    /// `thread [N]`: a wave of the running work-group, or of any resident one when the
    /// kernel's waves wait on other work-groups'.
    pub(crate) fn thread_cmd(&mut self, rest: &str, a: &mut Active) -> Result<(), String> {
        let (group, wave) = a.stepper.focus();
        let place = self.place(a, group, wave);
        if rest.is_empty() {
            println!(
                "[Current thread is {}, lane {} ({})]",
                place.thread(),
                self.lane,
                place.lane_id(self.lane)
            );
            return Ok(());
        }
        let n: u64 = rest
            .parse()
            .map_err(|_| format!("Invalid thread ID: {rest}"))?;
        let (target, w) = thread_wave(&place, n).ok_or(format!("Invalid thread ID: {n}"))?;
        // A wave that has ended is gone, as an exited thread is for gdb; so is one of a
        // work-group that is not running.
        let live = a
            .stepper
            .debugger()
            .session_ref()
            .groups()
            .iter()
            .find(|g| g.id == target)
            .and_then(|g| g.waves.get(w as usize))
            .is_some_and(|wv| wv.status != amdgpu_sim::WaveStatus::Done);
        if !live {
            return Err(format!("Invalid thread ID: {n}"));
        }
        a.stepper
            .set_focus(Some(target), w)
            .map_err(|e| e.to_string())?;
        self.last_stop = None;
        self.show_stop(a, &StopKind::Focused, &[])
    }

    /// `bt`: the focused lane's frames, inline frames included.
    pub(crate) fn backtrace(&mut self, a: &mut Active) -> Result<(), String> {
        let view = a.stepper.view().map_err(|e| e.to_string())?;
        match view.lanes.iter().find(|f| f.lane == self.lane) {
            Some(f) if f.state == LaneState::Active => {}
            Some(f) => {
                println!("#0  (inactive) {}", whereabouts(f));
                return Ok(());
            }
            None => {
                println!("No stack.");
                return Ok(());
            }
        }
        // The inline frames, and the callers' frames through the return addresses the
        // reconstruction follows (their arguments read through the call frame
        // information).
        let frames = self.frames(a)?;
        for level in 0..frames.len() {
            println!("#{level}  {}", self.frame_line(a, &frames, level));
        }
        Ok(())
    }
}

/// The work-group and wave of thread `n` of the dispatch `place` is in (threads are
/// numbered from 1, work-groups x fastest, then waves), if the grid has it.
fn thread_wave(place: &Place, n: u64) -> Option<([u32; 3], u32)> {
    let per_group = u64::from(place.waves_per_group().max(1));
    let k = n.checked_sub(1)?;
    let (flat, wave) = (k / per_group, (k % per_group) as u32);
    let [gx, gy, gz] = place.groups.map(u64::from);
    if flat >= gx * gy * gz {
        return None;
    }
    let group = [flat % gx, flat / gx % gy, flat / (gx * gy)].map(|x| x as u32);
    Some((group, wave))
}

/// A lane list as `info lanes` takes it: `N` or `A-B`.
fn parse_lane_list(w: &str) -> Result<Vec<u32>, String> {
    let bad = || format!("Invalid lane list: {w}");
    match w.split_once('-') {
        Some((a, b)) => {
            let a: u32 = a.parse().map_err(|_| bad())?;
            let b: u32 = b.parse().map_err(|_| bad())?;
            if b < a || b - a > 4096 {
                return Err(bad());
            }
            Ok((a..=b).collect())
        }
        None => Ok(vec![w.parse().map_err(|_| bad())?]),
    }
}

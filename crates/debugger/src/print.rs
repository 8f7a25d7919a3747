//! `print`: variables of the focused lane, registers and ROCgdb's convenience
//! variables, recorded in the value history (`$1`, `$2`, ...).

use crate::frontend::{Active, Frontend};

/// `/F EXPR` → the format letter and the expression.
pub(crate) fn split_format(rest: &str) -> Result<(Option<char>, &str), String> {
    match rest.strip_prefix('/') {
        Some(r) => {
            let (f, e) = r.split_once(' ').unwrap_or((r, ""));
            let mut chars = f.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if "xudtoc".contains(c) => Ok((Some(c), e.trim())),
                _ => Err(format!("Undefined output format \"{f}\".")),
            }
        }
        None => Ok((None, rest.trim())),
    }
}

impl Frontend {
    /// `print[/F] EXPR` (also `call`, `output`): evaluates and records `$N`.
    pub(crate) fn print(&mut self, rest: &str, a: &mut Active) -> Result<(), String> {
        let (fmt, expr) = split_format(rest)?;
        if expr.is_empty() {
            return match self.values.last() {
                Some(v) => {
                    let v = v.clone();
                    self.record(v);
                    Ok(())
                }
                None => Err("History is empty.".into()),
            };
        }
        if let Some(n) = expr.strip_prefix('$').and_then(|n| n.parse::<usize>().ok()) {
            let v = self
                .values
                .get(n.wrapping_sub(1))
                .cloned()
                .ok_or_else(|| format!("History has not yet reached ${n}."))?;
            self.record(v);
            return Ok(());
        }
        let text = self.value_text(expr, fmt, a)?;
        self.record(text);
        Ok(())
    }

    /// The text of `expr`'s value for the focused lane.
    pub(crate) fn value_text(
        &mut self,
        expr: &str,
        fmt: Option<char>,
        a: &mut Active,
    ) -> Result<String, String> {
        let ast = crate::expr::parse::parse(expr)?;
        let v = self.eval_ref(&ast, a)?;
        self.show(&v, fmt, true, a)
    }

    /// A variable's value as `info locals` / `info args` show it: as `print` does, but
    /// pointers and references without their type (`p = 0x100000000`,
    /// `r = @0x2000000000000270: 5`), as gdb prints them there (its
    /// `print_variable_and_value`).
    fn variable_text(&mut self, name: &str, a: &mut Active) -> Result<String, String> {
        let ast = crate::expr::parse::parse(name)?;
        let v = self.eval_ref(&ast, a)?;
        self.show(&v, None, false, a)
    }

    /// `whatis EXPR` / `ptype EXPR`.
    pub(crate) fn type_of(
        &mut self,
        expr: &str,
        expand: bool,
        a: &mut Active,
    ) -> Result<(), String> {
        let parsed = crate::expr::parse::parse(expr);
        let evaluated = match &parsed {
            Ok(ast) => self.eval_ref(ast, a),
            Err(e) => Err(e.clone()),
        };
        let v = match evaluated {
            Ok(v) => v,
            // `ptype Bits`, `whatis struct Bits`: a type named in the program.
            Err(e) => {
                let name = ["struct ", "union ", "enum ", "class "]
                    .iter()
                    .fold(expr.trim(), |n, k| n.strip_prefix(k).unwrap_or(n));
                let program = a.stepper.debugger().image().program();
                let Some(die) = program.type_named(name).map_err(|e| e.to_string())? else {
                    return Err(e);
                };
                let ty = crate::expr::types::Ty::of_die(program, die)?;
                let text = if expand {
                    ty.expanded(program)
                } else {
                    name.to_string()
                };
                println!("type = {text}");
                return Ok(());
            }
        };
        let ast = parsed?;
        let program = a.stepper.debugger().image().program();
        // `whatis VARIABLE` names its declared type as the source does (a typedef by
        // its name, qualifiers kept).
        let declared = match (&ast, expand) {
            (crate::expr::parse::Ast::Name(n), false) => a
                .stepper
                .debugger()
                .variable(n)
                .ok()
                .and_then(|var| var.type_die)
                .and_then(|d| crate::expr::types::declared_name(program, d)),
            _ => None,
        };
        let text = match declared {
            Some(t) => t,
            None if expand => v.ty.expanded(program),
            None => v.ty.name(program),
        };
        println!("type = {text}");
        Ok(())
    }

    fn record(&mut self, text: String) {
        self.values.push(text.clone());
        println!("${} = {text}", self.values.len());
    }

    /// Registers (`$pc`, `$exec`, `$vcc`, `$sN`, `$vN` of the focused lane) and
    /// ROCgdb's convenience variables.
    pub(crate) fn convenience(
        &mut self,
        name: &str,
        a: &mut Active,
    ) -> Result<(Option<u64>, usize, String), String> {
        let (group, wave) = a.stepper.focus();
        let place = self.place(a, group, wave);
        let int = |v: u64, size: usize| Ok((Some(v), size, v.to_string()));
        let string = |s: String| Ok((None, 0, format!("\"{s}\"")));
        match name {
            "_lane" => return int(u64::from(self.lane), 4),
            "_lane_count" => return int(u64::from(place.used_lanes()), 4),
            "_dispatch_pos" | "_wave_id" => return string(place.dispatch_pos()),
            "_thread_workgroup_pos" => return string(wave.to_string()),
            "_lane_workgroup_pos" => {
                return string(match place.work_item(self.lane) {
                    Some([x, y, z]) => format!("[{x},{y},{z}]"),
                    None => "[?,?,?]".into(),
                });
            }
            _ => {}
        }
        let frame = a.stepper.debugger().selected_frame();
        if frame > 0 {
            return self.caller_register(name, frame, place.wave_size, a);
        }
        let bias = a.stepper.debugger().load_bias();
        let lane = self.lane as usize;
        let w = a
            .stepper
            .debugger()
            .session_ref()
            .wave(wave)
            .ok_or("No registers.")?
            .clone();
        let exec_size = (place.wave_size / 8) as usize;
        match name {
            "pc" => {
                let pc = w.pc.wrapping_sub(bias);
                let src = a
                    .stepper
                    .service()
                    .source(pc, amdgpu_lanes::service::PcKind::Current);
                let start = a.stepper.service().function_at(pc).map_or(pc, |f| f.start);
                let sym = src
                    .function
                    .as_deref()
                    .map(|f| match pc - start {
                        0 => format!(" <{}>", crate::present::frame_function(f)),
                        off => format!(" <{}+{off}>", crate::present::frame_function(f)),
                    })
                    .unwrap_or_default();
                Ok((Some(pc), 8, format!("(void (*)()) {pc:#x}{sym}")))
            }
            "exec" => int(w.exec.0, exec_size),
            "vcc" => int(w.vcc.0, exec_size),
            "scc" => int(u64::from(w.scc), 4),
            "m0" => int(u64::from(w.m0), 4),
            // the AMDGPU ABI's stack and frame pointers
            "sp" => int(u64::from(w.sgpr[32]), 4),
            "fp" => int(u64::from(w.sgpr[33]), 4),
            n if n.starts_with('s') && n[1..].parse::<usize>().is_ok() => {
                let i: usize = n[1..].parse().unwrap_or(usize::MAX);
                let v = *w.sgpr.get(i).ok_or(format!("Invalid register `{n}'"))?;
                Ok((Some(u64::from(v)), 4, (v as i32).to_string()))
            }
            n if n.starts_with('v') && n[1..].parse::<usize>().is_ok() => {
                let i: usize = n[1..].parse().unwrap_or(usize::MAX);
                let r = w.vgpr.get(i).ok_or(format!("Invalid register `{n}'"))?;
                let v = r.get(lane).copied().unwrap_or(0);
                Ok((Some(u64::from(v)), 4, (v as i32).to_string()))
            }
            _ => Ok((None, 0, "void".into())),
        }
    }

    /// A register of the selected caller's frame (`frame` > 0), as the frame's DWARF
    /// target gives it: `$pc` the return address into it, `$sp`/`$fp` and the other
    /// registers as the calls below left them, an error that says `<not saved>` where
    /// a call below may have written the register (never the callee's value).
    fn caller_register(
        &mut self,
        name: &str,
        frame: u32,
        wave_size: u32,
        a: &mut Active,
    ) -> Result<(Option<u64>, usize, String), String> {
        use amdgpu_dwarf::target::Register;
        let number = |n: &str| n.parse::<u16>().ok();
        let reg = match name {
            "pc" => Register::Pc64,
            // What EXEC was at the call is not kept: a divergent branch below narrows
            // it and restores it only on the way back.
            "exec" => {
                return Err(format!(
                    "$exec of frame {frame} <not saved>: the functions below may have narrowed it"
                ));
            }
            // Call-clobbered in the AMDGPU ABI, and not in the DWARF register set.
            "vcc" | "scc" | "m0" => {
                return Err(format!("${name} of frame {frame} <not saved>"));
            }
            "sp" => Register::Sgpr(32),
            "fp" => Register::Sgpr(33),
            n if n.starts_with('s') && number(&n[1..]).is_some() => {
                Register::Sgpr(number(&n[1..]).unwrap_or(0))
            }
            n if n.starts_with('v') && number(&n[1..]).is_some() => Register::Vgpr {
                n: number(&n[1..]).unwrap_or(0),
                wave: wave_size as u8,
            },
            _ => {
                return Err(format!(
                    "${name} is not read in a caller's frame (frame {frame}): select frame 0"
                ));
            }
        };
        let t = a
            .stepper
            .debugger()
            .frame_target(frame, self.lane)
            .map_err(|e| e.to_string())?;
        let size = if reg == Register::Pc64 { 8 } else { 4 };
        // A vector register's element of the focused lane.
        let offset = match reg {
            Register::Vgpr { .. } => 4 * u64::from(self.lane),
            _ => 0,
        };
        let mut b = [0u8; 8];
        t.read_register(reg.dwarf(), offset, &mut b[..size])
            .map_err(|e| e.to_string())?;
        let v = u64::from_le_bytes(b);
        Ok(match reg {
            Register::Pc64 => (Some(v), 8, format!("(void (*)()) {v:#x}")),
            _ => (Some(v), 4, (v as u32 as i32).to_string()),
        })
    }

    /// `display[/F] [EXPR]`: shows `EXPR` now and after every stop (all displays
    /// without an expression).
    pub(crate) fn display(&mut self, rest: &str, a: &mut Active) -> Result<(), String> {
        let (fmt, expr) = split_format(rest)?;
        if expr.is_empty() {
            self.show_displays(a);
            return Ok(());
        }
        crate::expr::parse::parse(expr)?;
        self.next_display += 1;
        self.displays
            .push((self.next_display, fmt, expr.to_string()));
        let n = self.next_display;
        self.show_display(n, fmt, expr, a);
        Ok(())
    }

    /// `undisplay [N...]`.
    pub(crate) fn undisplay(&mut self, rest: &str) -> Result<(), String> {
        if rest.trim().is_empty() {
            self.displays.clear();
            return Ok(());
        }
        for w in rest.split_whitespace() {
            let n: u32 = w
                .parse()
                .map_err(|_| format!("Arguments must be display numbers: {w}"))?;
            let before = self.displays.len();
            self.displays.retain(|d| d.0 != n);
            if self.displays.len() == before {
                return Err(format!("No display number {n}."));
            }
        }
        Ok(())
    }

    /// `info display`.
    pub(crate) fn info_display(&self) {
        if self.displays.is_empty() {
            println!("There are no auto-display expressions now.");
            return;
        }
        println!("Auto-display expressions now in effect:\nNum Enb Expression");
        for (n, fmt, e) in &self.displays {
            let f = fmt.map(|f| format!("/{f} ")).unwrap_or_default();
            println!("{n}:   y  {f}{e}");
        }
    }

    fn show_display(&mut self, n: u32, fmt: Option<char>, expr: &str, a: &mut Active) {
        let f = fmt.map(|f| format!("/{f} ")).unwrap_or_default();
        match self.value_text(expr, fmt, a) {
            Ok(v) => println!("{n}: {f}{expr} = {v}"),
            Err(e) => println!("{n}: {f}{expr} = <error: {e}>"),
        }
    }

    /// Every display, after a stop.
    pub(crate) fn show_displays(&mut self, a: &mut Active) {
        for (n, fmt, e) in self.displays.clone() {
            self.show_display(n, fmt, &e, a);
        }
    }

    /// `info locals` / `info args`: the focused lane's variables in scope.
    pub(crate) fn info_variables(&mut self, args: bool, a: &mut Active) -> Result<(), String> {
        let vars = a
            .stepper
            .debugger()
            .variables()
            .map_err(|e| e.to_string())?;
        let mut any = false;
        // Innermost scopes come last: each name once, the innermost; arguments in
        // their order, locals innermost scope first (as gdb lists them).
        let mut chosen: Vec<&amdgpu_dwarf::program::Variable> = Vec::new();
        for v in vars
            .iter()
            .filter(|v| v.parameter == args && !v.name.is_empty())
        {
            chosen.retain(|c| c.name != v.name);
            chosen.push(v);
        }
        if !args {
            chosen.reverse();
        }
        for v in chosen {
            any = true;
            let text = match self.variable_text(&v.name, a) {
                Ok(t) => t,
                Err(e) => format!("<error: {e}>"),
            };
            println!("{} = {text}", v.name);
        }
        if !any {
            println!("{}", if args { "No arguments." } else { "No locals." });
        }
        Ok(())
    }
}

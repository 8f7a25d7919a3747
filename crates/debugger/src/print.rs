//! `print`: variables of the focused lane, registers and ROCgdb's convenience
//! variables, recorded in the value history (`$1`, `$2`, ...).

use crate::frontend::{Active, Frontend, unreadable};
use crate::value::typed_value;

/// A format letter (`/x`, `/d`, `/u`, `/t`, `/c`).
fn format_as(value: u64, bytes: usize, fmt: char) -> Option<String> {
    let bits = 8 * bytes.min(8) as u32;
    let v = if bits == 64 {
        value
    } else {
        value & ((1u64 << bits) - 1)
    };
    Some(match fmt {
        'x' => format!("{v:#x}"),
        'u' => v.to_string(),
        'd' => (((v << (64 - bits)) as i64) >> (64 - bits)).to_string(),
        't' => format!("{v:b}"),
        'o' => format!("{v:#o}"),
        _ => return None,
    })
}

impl Frontend {
    /// `print[/F] EXPR`.
    pub(crate) fn print(&mut self, rest: &str, a: &mut Active) -> Result<(), String> {
        let (fmt, expr) = match rest.strip_prefix('/') {
            Some(r) => {
                let (f, e) = r.split_once(' ').unwrap_or((r, ""));
                let mut chars = f.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if "xudto".contains(c) => (Some(c), e.trim()),
                    _ => return Err(format!("Undefined output format \"{f}\".")),
                }
            }
            None => (None, rest.trim()),
        };
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
        let (raw, size, shown) = self.evaluate(expr, a)?;
        let text = match (fmt, raw) {
            (Some(f), Some(v)) => format_as(v, size, f).unwrap_or(shown),
            _ => shown,
        };
        self.record(text);
        Ok(())
    }

    fn record(&mut self, text: String) {
        self.values.push(text.clone());
        println!("${} = {text}", self.values.len());
    }

    /// The value of `expr` for the focused lane: its raw bits (when it is a scalar),
    /// their size in bytes, and its text.
    fn evaluate(
        &mut self,
        expr: &str,
        a: &mut Active,
    ) -> Result<(Option<u64>, usize, String), String> {
        if let Some(name) = expr.strip_prefix('$') {
            return self.convenience(name, a);
        }
        let ty = a.stepper.variable_type(expr).ok().flatten();
        match a.stepper.read_variable(self.lane, expr) {
            Ok(bytes) => {
                let raw = (bytes.len() <= 8 && !bytes.is_empty()).then(|| {
                    let mut le = [0u8; 8];
                    le[..bytes.len()].copy_from_slice(&bytes);
                    u64::from_le_bytes(le)
                });
                let mut shown = typed_value(ty.as_deref(), &bytes);
                if let Some(t) = ty.as_deref().filter(|t| t.trim_end().ends_with('*')) {
                    shown = format!("({t}) {shown}");
                }
                Ok((raw, bytes.len(), shown))
            }
            Err(e) => {
                let shown = unreadable(&e);
                if shown == "<optimized out>" {
                    Ok((None, 0, shown))
                } else if let amdgpu_lanes::stepper::StepError::Debugger(
                    amdgpu_lanes::Error::NoVariable { .. },
                ) = e
                {
                    Err(format!("No symbol \"{expr}\" in current context."))
                } else {
                    Err(e.to_string())
                }
            }
        }
    }

    /// Registers (`$pc`, `$exec`, `$vcc`, `$sN`, `$vN` of the focused lane) and
    /// ROCgdb's convenience variables.
    fn convenience(
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
}

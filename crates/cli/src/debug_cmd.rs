//! `amdsim debug DISPATCH.ron`: an interactive debugging session with the commands a
//! ROCgdb user knows, reading commands from a terminal, a script (`--script FILE`) or
//! standard input, so tests can drive it.

use crate::Failure;
use amdgpu_lanes::Image;
use amdgpu_lanes::service::{LaneState, PositionSource};
use amdgpu_lanes::stepper::{BreakAt, LaneView, Stepper, StopKind};
use amdgpu_sim::Device;
use clap::Args;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

const DEBUG_HELP: &str = "\
Commands (one per line; `#` starts a comment):
  break FILE:LINE | LINE | FUNC | *ADDR    set a breakpoint (b)
  delete                                   remove every breakpoint
  run | continue                           run to the next breakpoint (r, c)
  step | next                              run the focused lane to its next source line,
                                           passing over code it does not run (s, n)
  stepi                                    execute one instruction of the focused wave (si)
  lane N                                   focus lane N (a warning if it is inactive)
  wave N [GROUP X,Y,Z]                     focus another wave (of the running or a later group)
  info lanes [-active | -inactive]         every lane: state, pc, function, file:line
  print VAR                                a variable, as the focused lane sees it (p)
  x/Nx ADDR                                N dwords of global memory at ADDR
  bt                                       the focused lane's frames (function and line)
  info registers                           PC, EXEC, VCC, SGPRs, the focused lane's VGPRs
  quit                                     end the session (q)

Commands also come from standard input (one per line), for scripts and tests.

Examples:
  amdsim debug kernels/examples/divergence.ron --script kernels/examples/divergence.cmds";

/// Arguments of `amdsim debug`.
#[derive(Args, Debug)]
#[command(after_help = DEBUG_HELP)]
pub struct DebugArgs {
    /// The dispatch, as `amdsim run` takes it: DISPATCH.ron, or FILE.co KERNEL
    /// ARG... (its code object needs DWARF, -g, for lines and variables).
    #[arg(required = true, value_name = "DISPATCH.ron | FILE.co KERNEL ARG...")]
    inputs: Vec<String>,
    /// Grid size in work-items, X[,Y[,Z]] (default: the largest buffer's element count).
    #[arg(long, value_name = "X[,Y,Z]", value_parser = crate::run_cmd::parse_dims)]
    grid: Option<[u32; 3]>,
    /// Work-group size, X[,Y[,Z]] (default 64).
    #[arg(long, visible_alias = "workgroup", value_name = "X[,Y,Z]", value_parser = crate::run_cmd::parse_dims)]
    group: Option<[u32; 3]>,
    /// Read the commands from this file instead of standard input.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
}

struct Session<'a, 'd> {
    stepper: Stepper<'a, 'd>,
    lane: u32,
    dev: &'a Device,
}

fn parse_break(arg: &str) -> Result<BreakAt, String> {
    if let Some(a) = arg.strip_prefix('*') {
        return crate::parse_u64(a).map(BreakAt::Address);
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

/// One lane as `info lanes` shows it: lane, state, pc, function, file:line.
fn fact_text(f: &amdgpu_lanes::stepper::LaneFact) -> String {
    let (func, line) = match &f.source {
        Some(src) => (
            src.function.clone().unwrap_or_else(|| "??".into()),
            src.line
                .as_ref()
                .map(|(file, l)| format!("{file}:{l}"))
                .unwrap_or_else(|| "??".into()),
        ),
        None => ("-".into(), "-".into()),
    };
    let pc = f.pc.map_or_else(|| "-".into(), |p| format!("{p:#x}"));
    let mut s = format!(
        "{:>2} {:<11} {:<8} {:<20} {}",
        f.lane,
        f.state.word(),
        pc,
        func,
        line
    );
    if let LaneState::Unknown(why) = &f.state {
        s += &format!(" ({why})");
    }
    s
}

fn lane_line(view: &LaneView, lane: u32) -> Option<String> {
    view.lanes.iter().find(|f| f.lane == lane).map(fact_text)
}

impl Session<'_, '_> {
    fn show_stop(&mut self, kind: &StopKind) -> Result<(), String> {
        match kind {
            StopKind::DispatchFinished => {
                println!("the dispatch has finished");
                return Ok(());
            }
            StopKind::AtBarrier => println!("the focused wave waits at a barrier"),
            StopKind::WaveEnded { .. } => println!("the focused wave has ended"),
            _ => {}
        }
        let view = self.stepper.view().map_err(|e| e.to_string())?;
        let line = |v: &LaneView| {
            v.source
                .line
                .as_ref()
                .map(|(f, l)| format!("{f}:{l}"))
                .unwrap_or_else(|| "??".into())
        };
        println!(
            "work-group ({},{},{}) wave {} at {} {} in {}",
            view.group[0],
            view.group[1],
            view.group[2],
            view.wave,
            view.pc
                .map(|p| format!("{p:#x}"))
                .unwrap_or_else(|| "-".into()),
            line(&view),
            view.source.function.as_deref().unwrap_or("??"),
        );
        let active: Vec<u32> = view
            .lanes
            .iter()
            .filter(|f| f.state == LaneState::Active)
            .map(|f| f.lane)
            .collect();
        println!(
            "{} of {} lanes active (mask {:#x})",
            active.len(),
            view.lanes.len(),
            view.active
        );
        if !active.contains(&self.lane)
            && let Some(first) = active.first()
        {
            println!(
                "lane {} is not active here; focus moved to lane {first}",
                self.lane
            );
            self.lane = *first;
        }
        Ok(())
    }

    fn command(&mut self, line: &str) -> Result<bool, String> {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            return Ok(true);
        }
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        match cmd {
            "q" | "quit" | "exit" => return Ok(false),
            "b" | "break" => {
                let at = parse_break(rest)?;
                let addrs = self.stepper.break_at(&at).map_err(|e| e.to_string())?;
                let list: Vec<String> = addrs.iter().map(|a| format!("{a:#x}")).collect();
                println!("breakpoint at {}", list.join(", "));
            }
            "delete" => {
                self.stepper.debugger().clear_all();
                println!("every breakpoint removed");
            }
            "r" | "run" | "c" | "continue" => {
                let stop = self.stepper.resume().map_err(|e| e.to_string())?;
                self.show_stop(&stop.kind)?;
            }
            "s" | "step" | "n" | "next" => {
                let stop = self
                    .stepper
                    .step_line(self.lane)
                    .map_err(|e| e.to_string())?;
                self.show_stop(&stop.kind)?;
            }
            "si" | "stepi" => {
                let stop = self.stepper.step_instruction().map_err(|e| e.to_string())?;
                self.show_stop(&stop.kind)?;
            }
            "lane" => {
                let n: u32 = rest
                    .parse()
                    .map_err(|_| format!("lane `{rest}`: give a lane number"))?;
                let size = self.stepper.wave_size();
                if n >= size {
                    return Err(format!("lane {n}: the wave has {size} lanes"));
                }
                self.lane = n;
                let view = self.stepper.view().map_err(|e| e.to_string())?;
                if let Some(l) = lane_line(&view, n) {
                    println!("lane {l}");
                }
                if !view
                    .lanes
                    .iter()
                    .any(|f| f.lane == n && f.state == LaneState::Active)
                {
                    println!("warning: lane {n} is not active");
                }
            }
            "wave" => {
                let mut parts = rest.split_whitespace();
                let w: u32 = parts
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("wave N [GROUP X,Y,Z]")?;
                let group = match (parts.next(), parts.next()) {
                    (Some("group"), Some(g)) | (Some("GROUP"), Some(g)) => {
                        let v: Vec<u32> = g.split(',').filter_map(|x| x.parse().ok()).collect();
                        let mut out = [0u32; 3];
                        for (k, x) in v.iter().take(3).enumerate() {
                            out[k] = *x;
                        }
                        Some(out)
                    }
                    _ => None,
                };
                let stop = self
                    .stepper
                    .set_focus(group, w)
                    .map_err(|e| e.to_string())?;
                self.show_stop(&stop.kind)?;
            }
            "info" => match rest {
                "lanes" | "lanes -all" | "lanes -active" | "lanes -inactive" => {
                    let view = self.stepper.view().map_err(|e| e.to_string())?;
                    for f in &view.lanes {
                        let active = f.state == LaneState::Active;
                        if (rest.ends_with("-active") && !active)
                            || (rest.ends_with("-inactive") && active)
                        {
                            continue;
                        }
                        let mark = if f.lane == self.lane { "*" } else { " " };
                        println!("{mark} {}", fact_text(f));
                    }
                    println!("active mask {:#x}, EXEC {:#x}", view.active, view.exec);
                    if view.provenance.source == PositionSource::Dwarf {
                        println!("positions from DW_AT_LLVM_lane_pc (callers through the CFI)");
                    }
                    if let Some(t) = view.provenance.trouble(view.pc) {
                        println!("warning: {t}");
                    }
                }
                "registers" | "reg" => {
                    let (_, wave) = self.stepper.focus();
                    let dbg = self.stepper.debugger();
                    let w = dbg
                        .session()
                        .wave(wave)
                        .ok_or("no wave is running")?
                        .clone();
                    println!(
                        "pc {:#x}  exec {:#x}  vcc {:#x}  scc {}",
                        w.pc.wrapping_sub(dbg.load_bias()),
                        w.exec.0,
                        w.vcc.0,
                        w.scc as u8
                    );
                    for (k, chunk) in w.sgpr.chunks(8).enumerate().take(14) {
                        let vals: Vec<String> = chunk.iter().map(|v| format!("{v:08x}")).collect();
                        println!("s{:<3} {}", k * 8, vals.join(" "));
                    }
                    let lane = self.lane as usize;
                    let vals: Vec<String> = w
                        .vgpr
                        .iter()
                        .take(32)
                        .map(|r| format!("{:08x}", r.get(lane).copied().unwrap_or(0)))
                        .collect();
                    for (k, chunk) in vals.chunks(8).enumerate() {
                        println!("v{:<3} {} (lane {lane})", k * 8, chunk.join(" "));
                    }
                }
                other => {
                    return Err(format!(
                        "info {other}: try `info lanes` or `info registers`"
                    ));
                }
            },
            "p" | "print" => {
                let bytes = self
                    .stepper
                    .read_variable(self.lane, rest)
                    .map_err(|e| e.to_string())?;
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
                let ty = self.stepper.variable_type(rest).ok().flatten();
                let value = typed_value(ty.as_deref(), &bytes);
                println!(
                    "{rest} = {value} (lane {}; bytes {})",
                    self.lane,
                    hex.join(" ")
                );
            }
            "bt" | "backtrace" => {
                let view = self.stepper.view().map_err(|e| e.to_string())?;
                match lane_line(&view, self.lane) {
                    Some(l) => println!("#0 lane {l}"),
                    None => println!("no lane {}", self.lane),
                }
            }
            x if x.starts_with("x/") => {
                let spec = &x[2..];
                let n: usize = spec
                    .trim_end_matches(['x', 'w'])
                    .parse()
                    .map_err(|_| format!("`{x}`: use x/Nx ADDR"))?;
                if n > 4096 {
                    return Err(format!("x/{n}x: at most 4096 dwords"));
                }
                let addr = crate::parse_u64(rest)?;
                let bytes = self.dev.read(addr, n * 4).map_err(|e| e.to_string())?;
                for (k, c) in bytes.chunks(16).enumerate() {
                    let vals: Vec<String> = c
                        .chunks(4)
                        .map(|d| format!("{:08x}", u32::from_le_bytes([d[0], d[1], d[2], d[3]])))
                        .collect();
                    println!("{:#x}: {}", addr + 16 * k as u64, vals.join(" "));
                }
            }
            "help" => println!("{DEBUG_HELP}"),
            other => return Err(format!("unknown command `{other}` (try `help`)")),
        }
        Ok(true)
    }
}

/// `amdsim debug`.
pub fn run(a: DebugArgs) -> Result<(), Failure> {
    let df = crate::run_cmd::dispatch_from_inputs(&a.inputs, a.grid, a.group, "debug")?;
    let co_path = df.resolve(std::path::Path::new(&df.code_object));
    let bytes = crate::read_file(
        &co_path.to_string_lossy(),
        amdgpu_sim::dispatch::MAX_CODE_OBJECT,
    )?;
    let image = Image::parse_code(&bytes).map_err(|e| format!("{}: {e}", co_path.display()))?;
    if !image.has_dwarf() {
        println!(
            "{}: no DWARF (built without -g): no lines (shown as ??) and no variables; \
             break at functions and addresses",
            co_path.display()
        );
    }
    let dev = Device::new();
    let prepared = df.prepare(&dev).map_err(|e| e.to_string())?;
    let stepper =
        Stepper::new(&image, &dev, &prepared.module, prepared.launch).map_err(|e| e.to_string())?;
    let mut s = Session {
        stepper,
        lane: 0,
        dev: &dev,
    };
    let input: Box<dyn BufRead> = match &a.script {
        Some(p) => Box::new(std::io::BufReader::new(
            std::fs::File::open(p).map_err(|e| format!("{}: {e}", p.display()))?,
        )),
        None => Box::new(std::io::BufReader::new(std::io::stdin())),
    };
    let interactive = a.script.is_none() && std::io::stdin().is_terminal();
    let mut errors = 0;
    let mut lines = input.lines();
    loop {
        if interactive {
            print!("(amdsim) ");
            let _ = std::io::stdout().flush();
        }
        let Some(line) = lines.next() else { break };
        let line = line.map_err(|e| e.to_string())?;
        if !interactive {
            println!("(amdsim) {line}");
        }
        match s.command(&line) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                errors += 1;
                println!("error: {e}");
            }
        }
    }
    if errors > 0 && !interactive {
        return Err(Failure::Failed(format!("{errors} command(s) failed")));
    }
    Ok(())
}

/// A variable's bytes shown as its DWARF type, by the type's name: floats as floats,
/// signed integers as signed, unsigned ones and pointers as unsigned (pointers in hex).
/// A type it does not know, or a size that does not match, is shown in hex, so that a
/// value is never shown as something it is not.
pub(crate) fn typed_value(type_name: Option<&str>, bytes: &[u8]) -> String {
    if bytes.len() > 8 || bytes.is_empty() {
        // arrays and structs: their bytes follow
        return format!(
            "<{} bytes{}>",
            bytes.len(),
            type_name.map(|t| format!(" of {t}")).unwrap_or_default()
        );
    }
    let mut le = [0u8; 8];
    let n = bytes.len().min(8);
    le[..n].copy_from_slice(&bytes[..n]);
    let raw = u64::from_le_bytes(le);
    let hex = || format!("0x{raw:0w$x}", w = 2 * n);
    let Some(name) = type_name else {
        return hex();
    };
    // Qualifiers and address-space keywords do not change how a value reads.
    let mut base = name.trim();
    for q in [
        "const ",
        "volatile ",
        "__private ",
        "__global ",
        "__local ",
        "__constant ",
    ] {
        base = base.trim_start_matches(q);
    }
    if base.ends_with('*') && matches!(bytes.len(), 4 | 8) {
        return hex();
    }
    let signed = |bits: u32| {
        let v = (raw << (64 - bits)) as i64 >> (64 - bits);
        v.to_string()
    };
    match (base, bytes.len()) {
        ("float", 4) => format!("{:?}", f32::from_bits(raw as u32)),
        ("double", 8) => format!("{:?}", f64::from_bits(raw)),
        ("bool" | "_Bool", 1) => (raw != 0).to_string(),
        (
            "char" | "signed char" | "short" | "int" | "long" | "long long" | "ptrdiff_t"
            | "intptr_t",
            len @ (1 | 2 | 4 | 8),
        ) => signed(8 * len as u32),
        (
            "uchar" | "unsigned char" | "ushort" | "unsigned short" | "uint" | "unsigned int"
            | "ulong" | "unsigned long" | "unsigned long long" | "size_t" | "uintptr_t",
            1 | 2 | 4 | 8,
        ) => raw.to_string(),
        _ => hex(),
    }
}

#[cfg(test)]
mod tests {
    use super::typed_value;

    #[test]
    fn values_show_as_their_type() {
        let d = (-94.85216903686523f64).to_le_bytes();
        assert_eq!(typed_value(Some("double"), &d), "-94.85216903686523");
        assert_eq!(typed_value(Some("float"), &1.5f32.to_le_bytes()), "1.5");
        assert_eq!(typed_value(Some("int"), &(-3i32).to_le_bytes()), "-3");
        assert_eq!(typed_value(Some("char"), &[0xff]), "-1");
        assert_eq!(
            typed_value(Some("uint"), &(-3i32).to_le_bytes()),
            "4294967293"
        );
        assert_eq!(typed_value(Some("const ulong"), &7u64.to_le_bytes()), "7");
        assert_eq!(
            typed_value(Some("__global float *"), &0x7f00_0000_1000u64.to_le_bytes()),
            "0x00007f0000001000"
        );
        // a size that does not match the type, an unknown type: hex, never a guess
        assert_eq!(typed_value(Some("double"), &[1, 0, 0, 0]), "0x00000001");
        assert_eq!(
            typed_value(Some("float2"), &[0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]),
            "0x400000003f800000"
        );
        assert_eq!(typed_value(None, &[0x2a]), "0x2a");
        assert_eq!(
            typed_value(Some("uint[8]"), &[0; 32]),
            "<32 bytes of uint[8]>"
        );
    }
}

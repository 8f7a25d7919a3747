//! `amdsim run`: run a kernel on the simulator, described by a dispatch file
//! (`amdsim run DISPATCH.ron`, the format of [`amdsim_host::dispatch_file`])
//! or on the command line (`amdsim run FILE.co KERNEL ARG...`, which builds
//! the same dispatch).
//!
//! Command-line arguments are given in kernarg order, one per explicit kernel
//! argument; TYPE is one of u8 i8 u16 i16 u32 i32 u64 i64 f16 f32 f64:
//!
//! | form | meaning |
//! |---|---|
//! | `u32:5`, `i32:-3`, `f16:1.5`, `f64:2.0` | a scalar |
//! | `u32[]:1,2,3` | a buffer holding these values |
//! | `u32[N]:iota`, `u32[N]:iota=S` | a buffer of N elements 0, 1, 2, ... (or S, S+1, ...) |
//! | `f32[N]:fill=V` | a buffer of N copies of V |
//! | `u32[N]` | a zeroed buffer of N elements |
//! | `f32[]:@FILE` | a buffer holding the raw bytes of FILE |
//! | `local:N` | a `__local` pointer to N bytes of dynamic LDS |
//! | `struct:1,2,0x3` | a struct by value, as bytes |
//! | `ptr:0x1000` | a raw pointer value |

use crate::Failure;
use amdgpu_dwarf::program::LineSequence;
use amdgpu_sim::{Device, RunOptions, RunReport, Stopped};
use amdsim_host::dispatch_file::{
    Arg, Buffer, Dims, DispatchFile, Elem, GwsInit, Number, Offset, Output, PreparedArg,
};
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The wall-clock limit of a run when neither the dispatch file nor
/// `--timeout` gives one, in seconds.
pub const DEFAULT_TIMEOUT_S: f64 = 300.0;

const AFTER_HELP: &str = "\
ARG (FILE.co form), in kernarg order; TYPE: u8 i8 u16 i16 u32 i32 u64 i64 f16 f32 f64
  TYPE:V              a scalar (u32:5, i32:-3, f32:1.5)
  TYPE[]:V,V,...      a buffer holding these values (u32[]:1,2,3)
  TYPE[N]             N zeros
  TYPE[N]:iota[=S]    N values S, S+1, ... (S = 0 by default)
  TYPE[N]:fill=V      N copies of V
  TYPE[]:@FILE        the raw bytes of FILE
  local:N             a __local pointer to N bytes of dynamic LDS
  struct:B,B,...      a struct by value, as bytes
  ptr:ADDR            a raw pointer value

Examples:
  amdsim run kernels/examples/vector_add.ron
  amdsim run kernels/bin/gfx900/vector_add.co vector_add f32[64]:iota f32[64] f32[64] u32:64
  amdsim run --group 32 kernels/bin/gfx1030/vector_add.co vector_add f32[]:1,2 f32[]:3 f32[2] u32:1
  amdsim run kernels/examples/printf_demo.gfx900.co printf_demo i32[]:1,3,4,-7 --grid 4 --group 4

A kernel that takes hidden_printf_buffer (OpenCL printf) gets a printf buffer; its records
are printed after the dispatch, and its work-groups run on one thread unless --threads is
given, so the output comes in work-group order.

Exit codes: 0 ok; 1 a fault, a stop (instruction cap, timeout, Ctrl-C), an
unusable input or an unreadable printf record (outputs are still written); 2 usage error.";

/// Arguments of `amdsim run`.
#[derive(Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct RunArgs {
    /// DISPATCH.ron, or FILE.co KERNEL ARG...
    #[arg(required = true, value_name = "DISPATCH.ron | FILE.co KERNEL ARG...")]
    inputs: Vec<String>,
    /// Grid size in work-items, X[,Y[,Z]] (default: the largest buffer's element count).
    #[arg(long, value_name = "X[,Y,Z]", value_parser = parse_dims)]
    grid: Option<[u32; 3]>,
    /// Work-group size, X[,Y[,Z]] (default 64).
    #[arg(long, visible_alias = "workgroup", value_name = "X[,Y,Z]", value_parser = parse_dims)]
    group: Option<[u32; 3]>,
    /// Global offset, X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y,Z]", value_parser = parse_offset)]
    offset: Option<[u64; 3]>,
    /// The work dimension the kernel sees (1-3).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=3))]
    dimensions: Option<u32>,
    /// Per-wave instruction cap (default 50000000).
    #[arg(long, visible_alias = "max-insts", value_name = "N")]
    max_instructions: Option<u64>,
    /// Wall-clock limit in seconds (default 300; 0: none).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// Host threads running work-groups (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Set GWS resource R to V before the dispatch, as a runtime does for a
    /// cooperative launch (a grid barrier of N waves takes N-1); repeatable.
    #[arg(long, value_name = "R=V", value_parser = parse_gws)]
    gws: Vec<(u32, u32)>,
    /// Stop every work-group at the first fault.
    #[arg(long)]
    stop_on_fault: bool,
    /// Faults reported in full (the rest are counted).
    #[arg(long, value_name = "N", default_value_t = 8)]
    max_faults: usize,
    /// Write buffer argument ARG to FILE after the run (raw bytes; .npy, .txt).
    #[arg(long, value_name = "ARG=FILE", value_parser = parse_output)]
    output: Vec<(usize, PathBuf)>,
    /// Elements of each buffer printed after the run.
    #[arg(long, value_name = "N", default_value_t = 16)]
    show: usize,
    /// Never show a progress bar.
    #[arg(long)]
    no_progress: bool,
}

pub(crate) fn parse_gws(s: &str) -> Result<(u32, u32), String> {
    let (r, v) = s
        .split_once('=')
        .ok_or("expected R=V (resource 0-63, value)")?;
    let r: u32 = crate::parse_u64(r)?
        .try_into()
        .ok()
        .filter(|&r| r < 64)
        .ok_or(format!("resource `{r}`: there are 64 (0-63)"))?;
    let v: u32 = crate::parse_u64(v)?
        .try_into()
        .map_err(|_| format!("`{v}` is more than {}", u32::MAX))?;
    Ok((r, v))
}

pub(crate) fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err("expected X[,Y[,Z]]".into());
    }
    let mut d = [1u32; 3];
    for (k, p) in parts.iter().enumerate() {
        d[k] = crate::parse_u64(p)?
            .try_into()
            .map_err(|_| format!("`{p}` is more than {}", u32::MAX))?;
        if d[k] == 0 {
            return Err("sizes must be positive".into());
        }
    }
    Ok(d)
}

fn parse_offset(s: &str) -> Result<[u64; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err("expected X[,Y[,Z]]".into());
    }
    let mut d = [0u64; 3];
    for (k, p) in parts.iter().enumerate() {
        d[k] = crate::parse_u64(p)?;
    }
    Ok(d)
}

fn parse_output(s: &str) -> Result<(usize, PathBuf), String> {
    let (arg, file) = s.split_once('=').ok_or("expected ARG=FILE")?;
    let arg = arg
        .parse()
        .map_err(|_| format!("`{arg}` is not an argument index"))?;
    Ok((arg, PathBuf::from(file)))
}

/// Parses a number: decimal or `0x` hexadecimal integer, or a float.
fn parse_number(s: &str) -> Result<Number, String> {
    let t = s.trim();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let int = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => i128::from_str_radix(h, 16).ok(),
        None => body.parse::<i128>().ok(),
    };
    if let Some(i) = int {
        return Ok(Number::Int(if neg { -i } else { i }));
    }
    t.parse::<f64>()
        .map(Number::Float)
        .map_err(|_| format!("`{s}` is not a number"))
}

/// A scalar argument of type `elem`.
fn scalar(elem: Elem, v: &str) -> Result<Arg, String> {
    let n = parse_number(v)?;
    let bytes = elem.encode(n).map_err(|e| e.to_string())?;
    let mut w = [0u8; 8];
    w[..bytes.len()].copy_from_slice(&bytes);
    let u = u64::from_le_bytes(w);
    Ok(match elem {
        Elem::U8 => Arg::U8(u as u8),
        Elem::I8 => Arg::I8(u as u8 as i8),
        Elem::U16 => Arg::U16(u as u16),
        Elem::I16 => Arg::I16(u as u16 as i16),
        Elem::U32 => Arg::U32(u as u32),
        Elem::I32 => Arg::I32(u as u32 as i32),
        Elem::U64 => Arg::U64(u),
        Elem::I64 => Arg::I64(u as i64),
        Elem::F16 => Arg::F16(match n {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }),
        Elem::F32 => Arg::F32(f32::from_bits(u as u32)),
        Elem::F64 => Arg::F64(f64::from_bits(u)),
    })
}

fn elem_of(name: &str) -> Result<Elem, String> {
    Elem::from_name(name)
        .ok_or_else(|| format!("unknown type `{name}` (u8 i8 u16 i16 u32 i32 u64 i64 f16 f32 f64)"))
}

/// Parses one command-line kernel argument.
pub fn parse_arg(s: &str) -> Result<Arg, String> {
    let (ty, rest) = match s.split_once(':') {
        Some((t, r)) => (t, Some(r)),
        None => (s, None),
    };
    match (ty, rest) {
        ("local", Some(n)) => {
            let bytes = crate::parse_u64(n)?;
            let bytes = u32::try_from(bytes).map_err(|_| format!("`{s}`: too much LDS"))?;
            return Ok(Arg::Local { bytes });
        }
        ("struct", Some(list)) => {
            let bytes = list
                .split(',')
                .filter(|b| !b.trim().is_empty())
                .map(|b| {
                    crate::parse_u64(b)
                        .and_then(|v| u8::try_from(v).map_err(|_| format!("`{b}` is not a byte")))
                })
                .collect::<Result<_, _>>()?;
            return Ok(Arg::Struct { bytes });
        }
        ("ptr", Some(a)) => return Ok(Arg::Ptr(crate::parse_u64(a)?)),
        _ => {}
    }
    let Some(open) = ty.find('[') else {
        let v = rest.ok_or_else(|| format!("`{s}`: expected TYPE:VALUE"))?;
        return scalar(elem_of(ty)?, v).map_err(|e| format!("`{s}`: {e}"));
    };
    let elem = elem_of(&ty[..open])?;
    let inner = ty[open + 1..]
        .strip_suffix(']')
        .ok_or_else(|| format!("`{s}`: missing `]`"))?;
    let count = if inner.is_empty() {
        None
    } else {
        Some(crate::parse_u64(inner)?)
    };
    let mut b = Buffer {
        elem: Some(elem),
        ..Buffer::default()
    };
    match (count, rest) {
        (None, Some(r)) if r.starts_with('@') => b.file = Some(PathBuf::from(&r[1..])),
        (None, Some(list)) => {
            b.values = Some(
                list.split(',')
                    .filter(|v| !v.trim().is_empty())
                    .map(parse_number)
                    .collect::<Result<_, _>>()?,
            );
        }
        (Some(n), None) => b.count = Some(n),
        (Some(n), Some(r)) => {
            b.count = Some(n);
            if r == "iota" {
                b.iota = Some(Number::Int(0));
            } else if let Some(v) = r.strip_prefix("iota=") {
                b.iota = Some(parse_number(v)?);
            } else if let Some(v) = r.strip_prefix("fill=") {
                b.fill = Some(parse_number(v)?);
            } else {
                return Err(format!("`{s}`: expected `iota`, `iota=S` or `fill=V`"));
            }
        }
        (None, None) => return Err(format!("`{s}`: a buffer needs a size or values")),
    }
    Ok(Arg::Buffer(b))
}

/// The element count of a buffer argument as given (for the default grid).
fn elements(a: &Arg) -> u64 {
    match a {
        Arg::Buffer(b) => {
            let size = b.elem.map_or(1, Elem::size) as u64;
            b.count
                .or(b.values.as_ref().map(|v| v.len() as u64))
                .or(b
                    .file
                    .as_ref()
                    .and_then(|f| std::fs::metadata(f).ok())
                    .map(|m| m.len() / size))
                .unwrap_or(0)
        }
        _ => 0,
    }
}

/// How [`execute`] runs a dispatch.
pub struct Execution {
    /// Show a progress bar on a terminal when the run takes over a second.
    pub progress: bool,
    /// Stop at the first fault.
    pub stop_on_fault: bool,
    /// Faults kept in full.
    pub max_faults: usize,
}

impl Execution {
    /// No progress bar, run every work-group, keep 8 faults.
    pub fn quiet() -> Self {
        Execution {
            progress: false,
            stop_on_fault: false,
            max_faults: 8,
        }
    }
}

/// A finished run.
pub struct Executed {
    /// The device, with the buffers as the kernel left them.
    pub device: Device,
    /// Where the arguments are.
    pub prepared: amdsim_host::dispatch_file::Prepared,
    /// What happened.
    pub report: RunReport,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// The wall-clock limit in force.
    pub timeout: Option<Duration>,
}

/// The cancel flag set by Ctrl-C (a second Ctrl-C ends the process).
fn cancel_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        let _ = ctrlc::set_handler(move || {
            if f.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
        });
        flag
    })
    .clone()
}

/// Prepares and runs a dispatch: the shared path of `run` and `demo`.
pub fn execute(d: &DispatchFile, how: &Execution) -> Result<Executed, Failure> {
    let device = Device::new();
    let prepared = d.prepare(&device).map_err(|e| e.to_string())?;
    let timeout_s = d.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
    let timeout = match Duration::try_from_secs_f64(timeout_s) {
        Ok(t) if t.is_zero() => None,
        Ok(t) => Some(t),
        Err(_) => return Err(Failure::Usage(format!("timeout of {timeout_s} s"))),
    };
    let progress = Arc::new(AtomicU64::new(0));
    let opts = RunOptions {
        stop_on_fault: how.stop_on_fault,
        timeout,
        cancel: Some(cancel_flag()),
        progress: Some(progress.clone()),
        max_faults: how.max_faults,
    };
    // A kernel that prints runs its work-groups on one thread unless asked otherwise, so
    // that its printf records come in work-group order.
    let threads = d.threads.or(prepared.launch.printf_buffer.map(|_| 1usize));
    let pool = match threads {
        Some(n) if n == 0 || n > 256 => {
            return Err(Failure::Usage(format!("{n} threads (1 to 256)")));
        }
        Some(n) => Some(
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| format!("thread pool: {e}"))?,
        ),
        None => None,
    };
    let total = prepared.launch.groups.iter().map(|&g| g as u64).product();
    let finished = AtomicBool::new(false);
    let start = Instant::now();
    let report = std::thread::scope(|scope| {
        if how.progress && std::io::stderr().is_terminal() {
            scope.spawn(|| progress_bar(&finished, &progress, total));
        }
        let r = match &pool {
            Some(p) => p.install(|| device.run_with(&prepared.launch, &opts)),
            None => device.run_with(&prepared.launch, &opts),
        };
        finished.store(true, Ordering::Relaxed);
        r
    });
    Ok(Executed {
        device,
        prepared,
        report,
        elapsed: start.elapsed(),
        timeout,
    })
}

/// The progress bar's layout: with a time estimate only once a work-group
/// has finished (`basis`), before that none (it would say `0s left`).
fn progress_template(basis: bool) -> &'static str {
    if basis {
        "{elapsed_precise} [{bar:40}] {pos}/{len} work-groups ({eta} left)"
    } else {
        "{elapsed_precise} [{bar:40}] {pos}/{len} work-groups (no estimate yet)"
    }
}

/// Shows work-groups done once a run has taken a second.
fn progress_bar(finished: &AtomicBool, done: &AtomicU64, total: u64) {
    let start = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut estimating: Option<bool> = None;
    while !finished.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(50));
        let pos = done.load(Ordering::Relaxed);
        if bar.is_none() && start.elapsed() >= Duration::from_secs(1) {
            bar = Some(indicatif::ProgressBar::new(total));
            estimating = None;
        }
        if let Some(b) = &bar {
            // No estimate until a work-group has finished to base it on.
            let basis = pos > 0;
            if estimating != Some(basis)
                && let Ok(style) = indicatif::ProgressStyle::with_template(progress_template(basis))
            {
                b.set_style(style.progress_chars("=> "));
                estimating = Some(basis);
            }
            b.set_position(pos);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

/// Whether a fault is what a kernel that uses hostcall (OpenCL `printf`, device-side
/// `malloc`) does with the null `hidden_hostcall_buffer` amdsim passes: a global access
/// in the first page.
fn hostcall_fault(f: &amdgpu_sim::GroupFault) -> bool {
    matches!(
        &f.error,
        amdgpu_sim::SimError::Fault { fault, .. }
            if fault.space == amdgpu_sim::Space::Global && fault.addr < 0x1000
    )
}

/// Prints the faults and, after a stop, where the unfinished waves were. `hostcall`: the
/// kernel takes `hidden_hostcall_buffer` (it may call `printf`).
/// PCs are given as the code object's addresses (`bias`: its load bias), as
/// `amdsim disasm` and llvm-objdump show them.
/// `lines`: the code object's line table (empty without DWARF), which adds ` at
/// FILE:LINE` to each PC.
pub fn print_problems(
    report: &RunReport,
    timeout: Option<Duration>,
    hostcall: bool,
    bias: u64,
    lines: &[LineSequence],
) {
    let at = |pc: u64| source_place(lines, pc.wrapping_sub(bias));
    for (k, f) in report.faults.iter().enumerate() {
        eprintln!(
            "fault {} of {}: {}{}",
            k + 1,
            report.fault_count,
            f.error.rebased(bias),
            f.error.pc().map(at).unwrap_or_default()
        );
    }
    if hostcall && report.faults.iter().any(hostcall_fault) {
        eprintln!(
            "note: the kernel takes hidden_hostcall_buffer and no hidden_printf_buffer: built \
             with the device library linked into the OpenCL source, its printf is the \
             library's stub, which reads a printf buffer the runtime does not pass (on a GPU \
             too); amdsim provides no hostcall services either. Compile the source without \
             the library (-nogpulib -emit-llvm) and link it at code generation, and printf \
             writes the printf buffer amdsim prints (kernels/examples/build.sh shows how)"
        );
    }
    let untold = report.fault_count - report.faults.len() as u64;
    if untold > 0 {
        eprintln!(
            "... and {untold} more fault(s) in other work-groups (--max-faults N to see more)"
        );
    }
    if let Some(s) = &report.stopped {
        let why = match s {
            Stopped::InstructionLimit(e) => {
                format!("{}{}", e.rebased(bias), e.pc().map(at).unwrap_or_default())
            }
            Stopped::Timeout => format!(
                "the wall-clock limit of {} s passed (--timeout)",
                timeout.map_or(0.0, |t| t.as_secs_f64())
            ),
            Stopped::Cancelled => "interrupted (Ctrl-C)".to_string(),
            Stopped::Fault => "stopped at the first fault (--stop-on-fault)".to_string(),
        };
        eprintln!(
            "stopped: {why}; {} of {} work-groups completed",
            report.stats.groups, report.total_groups
        );
        const SHOWN: usize = 16;
        for w in report.interrupted.iter().take(SHOWN) {
            eprintln!(
                "  group ({},{},{}) wave {} {:?} at pc 0x{:x} `{}`{} after {} instructions",
                w.group[0],
                w.group[1],
                w.group[2],
                w.wave,
                w.status,
                w.pc.wrapping_sub(bias),
                w.inst,
                at(w.pc),
                w.executed
            );
        }
        if report.interrupted.len() > SHOWN {
            eprintln!(
                "  ... and {} more unfinished wave(s)",
                report.interrupted.len() - SHOWN
            );
        }
    }
}

/// ` at FILE:LINE` for a code-object address `pc` (the file as the line table names it,
/// without a leading `./`), or nothing where the line table has no line.
pub fn source_place(lines: &[LineSequence], pc: u64) -> String {
    amdgpu_dwarf::program::source_at(lines, pc)
        .map(|(file, line)| format!(" at {file}:{line}"))
        .unwrap_or_default()
}

/// The dispatch the command line describes: `DISPATCH.ron`, or
/// `FILE.co KERNEL ARG...` (grid: the largest buffer's element count, in
/// work-groups of 64), with `--grid` and `--group` applied. `run`, `lanes`
/// and `debug` take their dispatch this way.
pub fn dispatch_from_inputs(
    inputs: &[String],
    grid: Option<[u32; 3]>,
    group: Option<[u32; 3]>,
    command: &str,
) -> Result<DispatchFile, Failure> {
    let Some(first) = inputs.first() else {
        return Err(Failure::Usage(format!(
            "expected DISPATCH.ron, or FILE.co KERNEL ARG... (see `amdsim {command} --help`)"
        )));
    };
    let mut d = if first.ends_with(".ron") {
        if inputs.len() > 1 {
            return Err(Failure::Usage(format!(
                "a dispatch file takes no other arguments (got `{}`)",
                inputs[1]
            )));
        }
        DispatchFile::from_path(first).map_err(|e| e.to_string())?
    } else {
        let Some(kernel) = inputs.get(1) else {
            return Err(Failure::Usage(format!(
                "expected DISPATCH.ron, or FILE.co KERNEL ARG... (see `amdsim {command} --help`)"
            )));
        };
        let args: Vec<Arg> = inputs[2..]
            .iter()
            .map(|s| parse_arg(s))
            .collect::<Result<_, _>>()
            .map_err(Failure::Usage)?;
        let largest = args.iter().map(elements).max().unwrap_or(0).max(1);
        let grid = [u32::try_from(largest).unwrap_or(u32::MAX), 1, 1];
        DispatchFile::new(first, kernel, grid, [64, 1, 1], args)
    };
    if let Some(g) = grid {
        d.grid = Dims(g);
    }
    if let Some(g) = group {
        d.workgroup = Dims(g);
    }
    Ok(d)
}

/// Runs `amdsim run`.
pub fn run(a: RunArgs) -> Result<(), Failure> {
    let mut d = dispatch_from_inputs(&a.inputs, a.grid, a.group, "run")?;
    if let Some(o) = a.offset {
        d.offset = Some(Offset(o));
    }
    if a.dimensions.is_some() {
        d.dimensions = a.dimensions;
    }
    if a.max_instructions.is_some() {
        d.max_instructions = a.max_instructions;
    }
    if a.timeout.is_some() {
        d.timeout_s = a.timeout;
    }
    if let Some(t) = a.threads {
        d.threads = Some(t.into());
    }
    d.gws.extend(
        a.gws
            .iter()
            .map(|&(resource, value)| GwsInit { resource, value }),
    );
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    for (arg, file) in &a.output {
        d.outputs.push(Output {
            arg: *arg,
            file: cwd.join(file),
            format: None,
            elem: None,
        });
    }
    d.validate().map_err(|e| Failure::Usage(e.to_string()))?;
    let how = Execution {
        progress: !a.no_progress,
        stop_on_fault: a.stop_on_fault,
        max_faults: a.max_faults,
    };
    let run = execute(&d, &how)?;
    let s = &run.report.stats;
    let secs = run.elapsed.as_secs_f64().max(1e-9);
    // Work-groups that ran: all of them, or after a fault or a stop, how many
    // completed and how many faulted.
    let groups = if run.report.ok() {
        format!("{} work-groups", s.groups)
    } else {
        format!(
            "{} of {} work-groups completed ({} faulted)",
            s.groups, run.report.total_groups, run.report.fault_count
        )
    };
    println!(
        "{}: {groups}, {} waves, {} instructions, {} lane operations in {:.3} s \
         ({:.2} M wave instructions/s, {:.2} M lane operations/s)",
        d.kernel,
        s.waves,
        s.instructions,
        s.lane_ops,
        secs,
        s.instructions as f64 / secs / 1e6,
        s.lane_ops as f64 / secs / 1e6,
    );
    let mut printf_failed = false;
    if let Some(out) = amdsim_host::printf::launch_output(&run.prepared.launch, &run.device.mem) {
        match out {
            Ok(text) => print!("{text}"),
            Err(e) => {
                eprintln!("printf: {e}");
                printf_failed = true;
            }
        }
    }
    if a.show > 0 {
        // Arguments by their metadata names, where the code object has them.
        let names: Vec<Option<String>> = run
            .prepared
            .launch
            .kernel
            .metadata
            .as_ref()
            .map(|m| m.explicit_args().map(|x| x.name.clone()).collect())
            .unwrap_or_default();
        for (k, p) in run.prepared.args.iter().enumerate() {
            if let PreparedArg::Buffer {
                address,
                bytes,
                elem,
            } = *p
            {
                let n = bytes / elem.size() as u64;
                let shown = n.min(a.show as u64) as usize;
                let data = run
                    .device
                    .read(address, shown * elem.size())
                    .map_err(|e| e.to_string())?;
                let vals: Vec<String> = data.chunks(elem.size()).map(|c| elem.show(c)).collect();
                let more = if n > shown as u64 { ", ..." } else { "" };
                let name = match names.get(k) {
                    Some(Some(n)) => format!(" `{n}`"),
                    _ => String::new(),
                };
                println!("arg {k}{name} ({n} x {elem}): [{}{more}]", vals.join(", "));
            }
        }
    }
    let written = d
        .write_outputs(&run.device, &run.prepared)
        .map_err(|e| e.to_string())?;
    for f in written {
        println!("wrote {}", f.display());
    }
    if run.report.ok() && printf_failed {
        Err(Failure::Reported)
    } else if run.report.ok() {
        Ok(())
    } else {
        let hostcall = run
            .prepared
            .launch
            .kernel
            .metadata
            .as_ref()
            .is_some_and(|m| {
                m.args
                    .iter()
                    .any(|a| a.value_kind == amdgpu_codeobj::ValueKind::HiddenHostcallBuffer)
            });
        // The code object again, for the lines of the PCs reported (read bounded, as
        // for the run; a failure only leaves the lines out).
        let lines = crate::read_file(
            &d.resolve(&d.code_object).to_string_lossy(),
            amdgpu_sim::dispatch::MAX_CODE_OBJECT,
        )
        .map(|b: Vec<u8>| amdsim_host::runtime::line_table(&b))
        .unwrap_or_default();
        print_problems(
            &run.report,
            run.timeout,
            hostcall,
            run.prepared.module.load_bias,
            &lines,
        );
        Err(Failure::Reported)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No time estimate before a work-group has finished (it showed `0s left`
    /// three seconds into a run); one after.
    #[test]
    fn the_progress_bar_estimates_only_with_a_basis() {
        for basis in [false, true] {
            let t = progress_template(basis);
            assert_eq!(t.contains("{eta}"), basis, "{t}");
            indicatif::ProgressStyle::with_template(t).expect("a valid template");
        }
    }

    #[test]
    fn argument_forms() {
        let Arg::Buffer(b) = parse_arg("u32[4]:iota").unwrap() else {
            panic!("expected a buffer")
        };
        assert_eq!((b.count, b.iota), (Some(4), Some(Number::Int(0))));
        let Arg::Buffer(b) = parse_arg("f32[]:1.5,2").unwrap() else {
            panic!("expected a buffer")
        };
        assert_eq!(b.values.map(|v| v.len()), Some(2));
        assert_eq!(parse_arg("u32:0x10").unwrap(), Arg::U32(16));
        assert_eq!(parse_arg("i8:-3").unwrap(), Arg::I8(-3));
        assert_eq!(parse_arg("f16:1.5").unwrap(), Arg::F16(1.5));
        assert_eq!(parse_arg("local:256").unwrap(), Arg::Local { bytes: 256 });
        assert_eq!(
            parse_arg("struct:1,0x2").unwrap(),
            Arg::Struct { bytes: vec![1, 2] }
        );
        assert!(parse_arg("u32[2]:bogus").is_err());
        assert!(parse_arg("q8:1").is_err());
        assert!(parse_arg("u8:256").is_err());
        assert!(parse_arg("u32:1.5").is_err());
        assert_eq!(parse_dims("16,4").unwrap(), [16, 4, 1]);
        assert!(parse_dims("0").is_err());
        assert!(parse_dims("4294967296").is_err());
    }
}

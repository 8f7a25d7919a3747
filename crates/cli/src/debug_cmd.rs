//! `amdsim debug DISPATCH.ron` / `amdsim debug -- PROGRAM`: an interactive
//! debugging session with the commands a ROCgdb user knows (the front end of
//! `amdsim-debugger`), reading commands from a terminal, a script (`--script
//! FILE`) or standard input, so tests can drive it.

use crate::Failure;
use amdgpu_lanes::Image;
use amdgpu_sim::Device;
use amdsim_debugger::{Ended, Frontend, HELP, Input, Mode};
use amdsim_host::dispatch_file::GwsInit;
use clap::Args;
use std::path::PathBuf;

const DEBUG_HELP: &str = "\
Debugs one dispatch (DISPATCH.ron, or FILE.co KERNEL ARG... as `amdsim run` takes
them), or the kernels of a HIP program (`-- PROGRAM [ARGS...]`, run as `amdsim exec`
runs it): set breakpoints, then `run`; the host part runs freely and the prompt
comes back when a wave reaches a breakpoint. `continue` at a dispatch's end lets the
program go on to its next kernel; when the commands end, the program runs on without
stopping.

";

/// Arguments of `amdsim debug`.
#[derive(Args, Debug)]
#[command(after_help = format!("{DEBUG_HELP}{HELP}\n\n\
Commands also come from standard input (one per line), for scripts and tests.

Examples:
  amdsim debug kernels/examples/divergence.ron --script kernels/examples/divergence.cmds
  amdsim debug --script kernels/hip/debug_divergence.cmds -- kernels/hip/bin/hipcc/debug_divergence"))]
pub struct DebugArgs {
    /// The dispatch, as `amdsim run` takes it: DISPATCH.ron, or FILE.co KERNEL
    /// ARG... (its code object needs DWARF, -g, for lines and variables).
    #[arg(
        required_unless_present = "program",
        value_name = "DISPATCH.ron | FILE.co KERNEL ARG..."
    )]
    inputs: Vec<String>,
    /// Grid size in work-items, X[,Y[,Z]] (default: the largest buffer's element count).
    #[arg(long, value_name = "X[,Y,Z]", value_parser = crate::run_cmd::parse_dims)]
    grid: Option<[u32; 3]>,
    /// Work-group size, X[,Y[,Z]] (default 64).
    #[arg(long, visible_alias = "workgroup", value_name = "X[,Y,Z]", value_parser = crate::run_cmd::parse_dims)]
    group: Option<[u32; 3]>,
    /// Set GWS resource R to V before the dispatch, as a runtime does for a
    /// cooperative launch (a grid barrier of N work-groups takes N-1); repeatable.
    #[arg(long, value_name = "R=V", value_parser = crate::run_cmd::parse_gws)]
    gws: Vec<(u32, u32)>,
    /// Per-wave instruction cap of a dispatch (default: the dispatch file's, or
    /// 50,000,000).
    #[arg(long, visible_alias = "max-insts", value_name = "N")]
    max_instructions: Option<u64>,
    /// Read the commands from this file instead of standard input (gdb's -x).
    #[arg(long, short = 'x', value_name = "FILE")]
    script: Option<PathBuf>,
    /// Run this command first (repeatable; gdb's -ex).
    #[arg(long = "ex", value_name = "CMD")]
    ex: Vec<String>,
    /// Read no commands from standard input: run the -ex commands and the script,
    /// then end; exit 1 if a command failed (gdb's -batch).
    #[arg(long)]
    batch: bool,
    /// With `-- PROGRAM`: the GPU to simulate (as for `amdsim exec`).
    #[arg(long, value_name = "TARGET", default_value = "gfx900")]
    gpu: String,
    /// With `-- PROGRAM`: host threads that run work-groups.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// A HIP program and its arguments, to debug its kernels.
    #[arg(last = true, value_name = "PROGRAM [ARGS]...")]
    program: Vec<String>,
}

/// `amdsim debug`.
pub fn run(a: DebugArgs) -> Result<(), Failure> {
    if !a.program.is_empty() {
        if !a.inputs.is_empty() {
            return Err(Failure::Usage(
                "give a dispatch or `-- PROGRAM`, not both".into(),
            ));
        }
        let how = Commands {
            script: a.script.as_deref(),
            ex: &a.ex,
            batch: a.batch,
            must_stop: None,
        };
        return debug_program(&a.gpu, a.threads, &how, &a.program, "debug");
    }
    let mut df = crate::run_cmd::dispatch_from_inputs(&a.inputs, a.grid, a.group, "debug")?;
    if let Some(n) = a.max_instructions {
        df.max_instructions = Some(n);
    }
    df.gws.extend(
        a.gws
            .iter()
            .map(|&(resource, value)| GwsInit { resource, value }),
    );
    let input = match (&a.script, a.batch) {
        (Some(p), _) => Input::script(p)?,
        (None, true) => Input::lines(Vec::new()),
        (None, false) => Input::stdin(),
    }
    .with_first(a.ex.clone());
    let fe = debug_dispatch(&df, input)?;
    if fe.errors() > 0 && !fe.interactive() {
        return Err(Failure::Failed(format!(
            "{} command(s) failed",
            fe.errors()
        )));
    }
    Ok(())
}

/// Debugs the dispatch `df` describes with commands from `input` (`amdsim debug` and
/// `amdsim dap`): `run` after the start prepares it afresh, on a fresh device. Returns
/// the front end when the session ends.
pub(crate) fn debug_dispatch(
    df: &amdsim_host::dispatch_file::DispatchFile,
    input: Input,
) -> Result<Frontend, String> {
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
    let mut fe = Frontend::new(input, Mode::Dispatch).with_sources_near(&co_path);
    loop {
        let dev = Device::new();
        let prepared = df.prepare(&dev).map_err(|e| e.to_string())?;
        let ended = fe.dispatch(&image, &dev, &prepared.module, &prepared.launch)?;
        if ended != Some(Ended::Restart) {
            return Ok(fe);
        }
    }
}

/// Where a debugging session's commands come from.
pub(crate) struct Commands<'a> {
    /// A script (else standard input).
    pub script: Option<&'a std::path::Path>,
    /// Commands to run first.
    pub ex: &'a [String],
    /// No standard input.
    pub batch: bool,
    /// Fail when no wave stopped there (`amdsim lanes --break WHERE -- PROGRAM`).
    pub must_stop: Option<&'a str>,
}

/// Runs a HIP program with the debugger in its process (amdsim's HSA library
/// reads `AMDSIM_DEBUG`, `AMDSIM_DEBUG_EX`). The exit status is the program's,
/// or 1 when it succeeded but a command failed.
pub(crate) fn debug_program(
    gpu: &str,
    threads: Option<usize>,
    how: &Commands,
    program: &[String],
    what: &str,
) -> Result<(), Failure> {
    let mut cmd = crate::exec_cmd::program_command(
        gpu,
        threads,
        program,
        &format!("amdsim {what} [OPTIONS] -- PROGRAM [ARGS...]"),
    )?;
    let source = match (how.script, how.batch) {
        (Some(p), _) => p
            .canonicalize()
            .map_err(|e| format!("{}: {e}", p.display()))?
            .into_os_string(),
        (None, true) => "batch".into(),
        (None, false) => "-".into(),
    };
    cmd.env("AMDSIM_DEBUG_EX", how.ex.join("\n"));
    let errors = std::env::temp_dir().join(format!("amdsim-debug-{}.errors", std::process::id()));
    let _ = std::fs::remove_file(&errors);
    cmd.env("AMDSIM_DEBUG", source)
        .env("AMDSIM_DEBUG_ERRORS", &errors);
    let code = crate::exec_cmd::wait(&mut cmd)?;
    // `ERRORS STOPS`, written by the debugger in the program
    let status = std::fs::read_to_string(&errors).unwrap_or_default();
    let _ = std::fs::remove_file(&errors);
    let mut counts = status
        .split_whitespace()
        .map(|n| n.parse::<u64>().unwrap_or(0));
    let (failed, stops) = (counts.next().unwrap_or(0), counts.next().unwrap_or(0));
    if let Some(at) = how.must_stop
        && code == 0
        && stops == 0
    {
        return Err(Failure::Failed(format!(
            "the program ended without a wave reaching {at}"
        )));
    }
    match (code, failed) {
        (0, 0) => Ok(()),
        (0, n) => Err(Failure::Failed(format!("{n} command(s) failed"))),
        (c, _) => Err(Failure::Exit(c)),
    }
}

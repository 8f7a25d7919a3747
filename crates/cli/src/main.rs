//! `amdsim`: run AMD GPU machine code on a CPU and look inside it.
//!
//! One file per subcommand; each defines its arguments (a clap `Args` or
//! `Subcommand` type) and a `run` function. A new subcommand is a new file,
//! a variant of [`Command`] and an arm in [`Command::run`].
//!
//! The doc comments of the argument types are clap's help text, written for a terminal
//! (`X[,Y[,Z]]`), not rustdoc links.
//!
//! The tool is a thin layer over the library crates (the device, the host, the lane
//! service, the debugger, the DWARF evaluator); nothing depends on it.
#![allow(rustdoc::broken_intra_doc_links)]

mod dap_cmd;
mod debug_cmd;
mod demo_cmd;
mod disasm_cmd;
mod disasm_source;
mod dwarf_cmd;
mod exec_cmd;
mod info_cmd;
mod isa_cmd;
mod lanes_cmd;
mod run_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit codes, as `--help` documents them.
const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  the kernel faulted, was stopped (instruction cap, --timeout, Ctrl-C), a check
     found a mismatch, or an input file could not be used
  2  usage error (unknown command or flag, bad flag value)";

/// Run AMD GPU machine code (GFX9/GFX10 code objects) on a CPU and look inside it.
#[derive(Parser, Debug)]
#[command(name = "amdsim", version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
enum Command {
    /// The main job: info, disassembly and a checked run of vector_add.
    Demo(demo_cmd::DemoArgs),
    /// Run a kernel: a dispatch file (DISPATCH.ron) or FILE.co KERNEL ARG...
    Run(run_cmd::RunArgs),
    /// Target, code object version, kernels, descriptors and arguments.
    Info(info_cmd::InfoArgs),
    /// Disassemble a code object (like llvm-objdump -d) or raw bytes.
    Disasm(disasm_cmd::DisasmArgs),
    /// DWARF expressions: evaluate, decode, assemble; variables at a PC.
    #[command(subcommand)]
    Dwarf(dwarf_cmd::DwarfCommand),
    /// Run a dispatch to a breakpoint and show where every lane of the wave is.
    Lanes(lanes_cmd::LanesArgs),
    /// Run a lane-stepping scenario (RON) and print each step.
    Step(lanes_cmd::StepArgs),
    /// Debug a dispatch interactively (break, run, step, lane, info lanes, print, ...).
    Debug(debug_cmd::DebugArgs),
    /// Serve the debugger over the Debug Adapter Protocol (stdin/stdout), for editors.
    Dap(dap_cmd::DapArgs),
    /// Write the lane reconstruction into a code object as DW_AT_LLVM_lane_pc DWARF.
    AnnotateLanes(lanes_cmd::AnnotateArgs),
    /// Run a HIP program on the simulated GPU (its real HIP runtime over amdsim's HSA library).
    Exec(exec_cmd::ExecArgs),
    /// Instruction sets: which operations of each target the simulator executes.
    #[command(subcommand)]
    Isa(isa_cmd::IsaCommand),
}

impl Command {
    fn run(self) -> Result<(), Failure> {
        match self {
            Command::Demo(a) => demo_cmd::run(a),
            Command::Run(a) => run_cmd::run(a),
            Command::Info(a) => info_cmd::run(a),
            Command::Disasm(a) => disasm_cmd::run(a),
            Command::Dwarf(c) => dwarf_cmd::run(c),
            Command::Lanes(a) => lanes_cmd::run(a),
            Command::Step(a) => lanes_cmd::run_step(a),
            Command::Debug(a) => debug_cmd::run(a),
            Command::Dap(a) => dap_cmd::run(a),
            Command::AnnotateLanes(a) => lanes_cmd::run_annotate(a),
            Command::Isa(c) => isa_cmd::run(c),
            Command::Exec(a) => exec_cmd::run(a),
        }
    }
}

/// Why a command failed, and with which exit code.
#[derive(Debug)]
pub enum Failure {
    /// The run or a check failed, or an input could not be used (exit 1).
    Failed(String),
    /// The command line is wrong (exit 2).
    Usage(String),
    /// The failure has been reported already (exit 1).
    Reported,
    /// Exit with this status (a program run by `amdsim exec` ended so).
    Exit(i32),
}

impl From<String> for Failure {
    fn from(s: String) -> Self {
        Failure::Failed(s)
    }
}

impl From<&str> for Failure {
    fn from(s: &str) -> Self {
        Failure::Failed(s.to_string())
    }
}

/// `amdsim debug` takes gdb's single-dash long options (`-ex CMD`, `-batch`) before
/// `--`: they become `--ex`, `--batch` for the parser.
fn gdb_style_args(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    if args.get(1).is_some_and(|a| a == "debug") {
        for a in args.iter_mut().skip(2) {
            if a == "--" {
                break;
            }
            if a == "-ex" || a == "-batch" {
                let mut long = std::ffi::OsString::from("-");
                long.push(&*a);
                *a = long;
            }
        }
    }
    args
}

fn main() -> ExitCode {
    // A reader that goes away (`amdsim disasm BIG.co | head`) ends the
    // program quietly, as it ends llvm-objdump, instead of a panic on the
    // failed write: SIGPIPE's default action, which Rust's runtime replaces.
    // SAFETY: setting a signal's disposition to its default at start-up,
    // before any other thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = match Cli::try_parse_from(gdb_style_args(std::env::args_os().collect())) {
        Ok(c) => c,
        // --help and --version print and succeed as clap does them.
        Err(e) if !e.use_stderr() => e.exit(),
        // A usage error speaks as every other error does: `amdsim: ...`.
        Err(e) => {
            let text = e.render().to_string();
            eprint!("{}", text.replacen("error: ", "amdsim: ", 1));
            return ExitCode::from(2);
        }
    };
    match cli.command.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Failed(msg)) => {
            eprintln!("amdsim: {msg}");
            ExitCode::from(1)
        }
        Err(Failure::Usage(msg)) => {
            eprintln!("amdsim: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Reported) => ExitCode::from(1),
        Err(Failure::Exit(code)) => ExitCode::from(code.clamp(0, 255) as u8),
    }
}

/// Parses a decimal or `0x` hexadecimal number.
pub(crate) fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    };
    r.map_err(|_| format!("`{s}` is not a number"))
}

/// Reads a file of at most `max` bytes (a FIFO or `/dev/zero` cannot make
/// it read more).
pub(crate) fn read_file(path: &str, max: u64) -> Result<Vec<u8>, String> {
    amdsim_host::dispatch_file::read_bounded(std::path::Path::new(path), max)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}

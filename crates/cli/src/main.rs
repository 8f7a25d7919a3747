//! `amdsim`: run AMD GPU machine code on a CPU and look inside it.

mod disasm_cmd;
mod dwarf_cmd;
mod info_cmd;

use std::process::ExitCode;

const USAGE: &str = "\
usage: amdsim <command> [args]

commands:
  demo [FILE.co]                       the main job: info and disasm of a kernel
                                       (default: kernels/bin/gfx900/vector_add.co)
  info FILE.co                         target, kernels, descriptors, arguments
  disasm FILE.co                       disassemble a code object (like llvm-objdump -d)
  disasm --raw --mcpu gfxNNN FILE      disassemble raw instruction bytes
  dwarf eval ...                       evaluate a DWARF expression (see `amdsim dwarf --help`)
  dwarf vars FILE.co --pc ADDR         variables in scope at ADDR with their locations
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match cmd.as_str() {
        "dwarf" => dwarf_cmd::run(rest),
        "disasm" => disasm_cmd::run(rest),
        "info" => info_cmd::run(rest),
        "demo" => demo(rest),
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("amdsim: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// The built-in default kernel of `amdsim demo`, relative to the workspace root.
const DEFAULT_KERNEL: &str = "kernels/bin/gfx900/vector_add.co";

/// `amdsim demo [FILE.co]`: the main job until kernels can run: `info` and `disasm` of a kernel.
fn demo(args: &[String]) -> Result<(), String> {
    let file = match args.first() {
        Some(f) => f.clone(),
        None => {
            let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
            format!("{root}/{DEFAULT_KERNEL}")
        }
    };
    info_cmd::run(std::slice::from_ref(&file))?;
    println!();
    disasm_cmd::run(std::slice::from_ref(&file))
}

/// Parses a decimal or `0x` hexadecimal number.
pub(crate) fn parse_u64(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|_| format!("`{s}` is not a number"))
}

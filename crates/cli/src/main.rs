//! `amdsim`: run AMD GPU machine code on a CPU and look inside it.

mod dwarf_cmd;

use std::process::ExitCode;

const USAGE: &str = "\
usage: amdsim <command> [args]

commands:
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

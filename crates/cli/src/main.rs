//! `amdsim`: run AMD GPU machine code on a CPU and look inside it.

mod disasm_cmd;
mod dwarf_cmd;
mod info_cmd;
mod run_cmd;

use std::process::ExitCode;

const USAGE: &str = "\
usage: amdsim <command> [args]

commands:
  demo [FILE.co]                       the main job: info and disasm of a kernel
                                       (default: kernels/bin/gfx900/vector_add.co)
  info FILE.co                         target, kernels, descriptors, arguments
  run FILE.co KERNEL [opts] ARG...     run a kernel on the simulator (see `amdsim run --help`)
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
        "run" => run_cmd::run(rest),
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

/// `amdsim demo [FILE.co]`: the main job. Prints the kernel's target, descriptor
/// and arguments, its disassembly, and runs it on the simulator: the built-in
/// default is `vector_add` on gfx900 over 1000 work-items (`c = a + b`, with
/// `a = 0, 1, 2, ...` and `b = 0.5`), which `run` checks element by element.
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
    disasm_cmd::run(std::slice::from_ref(&file))?;
    let data = std::fs::read(&file).map_err(|e| format!("{file}: {e}"))?;
    let co = amdgpu_codeobj::CodeObject::parse(&data).map_err(|e| format!("{file}: {e}"))?;
    if co.kernel("vector_add").is_none() {
        println!("\n(no `vector_add` kernel in {file}: use `amdsim run` to run its kernels)");
        return Ok(());
    }
    println!();
    demo_run(&file)
}

/// Runs `vector_add` over `N` work-items on the simulator and checks every element.
fn demo_run(file: &str) -> Result<(), String> {
    use amdgpu_sim::{ArgValue, Device, LaunchConfig};
    const N: u32 = 1000;
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let mut dev = Device::new();
    let module = dev.load(&bytes).map_err(|e| format!("{file}: {e}"))?;
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| 0.5 + (i % 7) as f32).collect();
    let as_bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let pa = dev.alloc_bytes(&as_bytes(&a)).map_err(|e| e.to_string())?;
    let pb = dev.alloc_bytes(&as_bytes(&b)).map_err(|e| e.to_string())?;
    let pc = dev
        .alloc_bytes(&vec![0u8; N as usize * 4])
        .map_err(|e| e.to_string())?;
    let args = vec![
        ArgValue::Ptr(pa),
        ArgValue::Ptr(pb),
        ArgValue::Ptr(pc),
        ArgValue::U32(N),
    ];
    let stats = dev
        .dispatch(&module, "vector_add", LaunchConfig::new_1d(N, 64, args))
        .map_err(|e| e.to_string())?;
    let out = dev.read(pc, N as usize * 4).map_err(|e| e.to_string())?;
    let wrong = out
        .chunks_exact(4)
        .enumerate()
        .filter(|(i, c)| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) != a[*i] + b[*i])
        .count();
    println!(
        "ran vector_add on the simulator: {N} work-items, {} work-groups, {} waves, {} instructions",
        stats.groups, stats.waves, stats.instructions
    );
    let c0: Vec<String> = out
        .chunks_exact(4)
        .take(8)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).to_string())
        .collect();
    println!("c[0..8] = [{}]", c0.join(", "));
    if wrong == 0 {
        println!("c = a + b holds for all {N} elements");
        Ok(())
    } else {
        Err(format!("{wrong} of {N} elements of c differ from a + b"))
    }
}

/// Parses a decimal or `0x` hexadecimal number.
pub(crate) fn parse_u64(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|_| format!("`{s}` is not a number"))
}

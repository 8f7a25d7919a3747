//! `pocl_replay [--general] REF.txt CODE_OBJECT...`: replays every launch of a PoCL reference file
//! (the format of `kernels/pocl/ref/`) on the simulator, once per code object, and
//! compares every buffer with PoCL's results: integers bit for bit, floats bit for bit
//! except that any NaN matches any NaN and +0 matches -0 (the kernels it is meant for,
//! those of `kernels/random/`, use only correctly rounded float operations, and
//! `fmin`/`fmax` of zeros of different signs may return either).
//!
//! `--general` runs every instruction through the general executor, without the
//! pre-resolved handlers (to tell which of the two a difference comes from).
//!
//! Prints one line per code object; exits 0 when all match, 1 when any differs or fails
//! to run, 2 on a usage error or an unreadable file.

use amdsim_sim_tests::pocl_ref::{Buffer, Figures, Policy, Ty, parse_ref, run_case_with};
use std::process::ExitCode;

fn rule(b: &Buffer) -> Policy {
    match b.ty {
        Ty::F16 | Ty::F32 | Ty::F64 => Policy::AnyZeroSign,
        _ => Policy::Bits,
    }
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let general = args.first().is_some_and(|a| a == "--general");
    if general {
        args.remove(0);
    }
    if args.len() < 2 || args[0].starts_with('-') {
        eprintln!("usage: pocl_replay [--general] REF.txt CODE_OBJECT...");
        return ExitCode::from(2);
    }
    let text = match std::fs::read_to_string(&args[0]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", args[0]);
            return ExitCode::from(2);
        }
    };
    let r = match parse_ref(&args[0], &text) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut bad = 0;
    for co in &args[1..] {
        let code = match std::fs::read(co) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{co}: {e}");
                return ExitCode::from(2);
            }
        };
        let mut fig = Figures::default();
        let mut fails = Vec::new();
        for case in &r.cases {
            fig.runs += 1;
            if let Err(e) = run_case_with(&r.kernel, co, &code, case, &rule, &mut fig, general) {
                fails.push(format!("case {}: {e}", case.label));
            }
        }
        if fails.is_empty() {
            println!("ok {co}: {} cases, {} elements", fig.runs, fig.elements);
        } else {
            bad += 1;
            println!("DIFFERS {co}:");
            for f in fails {
                println!("  {f}");
            }
        }
    }
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

//! `amdsim isa ...`: facts about the instruction sets; `coverage` lists, per
//! target, every operation of the decoder's tables and whether the simulator
//! executes it ([`amdgpu_sim::coverage`]).

use amdgpu_isa::Gpu;
use amdgpu_sim::coverage::{Report, Status};
use std::fmt::Write as _;
use std::io::Write as _;

/// Writes `text` to standard output; a closed pipe (`| head`) is not an error.
fn emit(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// `amdsim isa` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum IsaCommand {
    /// Every operation the decoder knows for a target, and whether it executes.
    #[command(after_long_help = COVERAGE_HELP)]
    Coverage(CoverageArgs),
}

const COVERAGE_HELP: &str = "\
Lists every operation of a target's decoder tables (ALU, memory, image and export) with
the encodings that carry it, and whether the simulator executes it: `executed`, or
`graphics-only` (image sampling, export, interpolation, two pixel/primitive-pipeline
operations) or `not implemented`, each with its reason. The last line counts them.
Without --mcpu, or with --mcpu all, prints the counts of every target. `executed` comes
from the executor's own operation tables; an executed operation can still be refused for
particular operands or modifiers.

Examples:
  amdsim isa coverage
  amdsim isa coverage --mcpu gfx906 --missing
  amdsim isa coverage --mcpu=gfx1030 --wavefront-size=32";

/// Arguments of `amdsim isa coverage`.
#[derive(clap::Args, Debug)]
pub struct CoverageArgs {
    /// The target (gfx900, gfx906, gfx908, gfx90a, gfx1010, gfx1030), or `all`.
    #[arg(long, value_name = "GPU")]
    mcpu: Option<String>,
    /// The wave size (32 on GFX10 only). The operations are the same for both.
    #[arg(long, value_name = "32|64", value_parser = ["32", "64"])]
    wavefront_size: Option<String>,
    /// Only the operations that are not executed.
    #[arg(long)]
    missing: bool,
}

/// Runs `amdsim isa ...`.
pub fn run(c: IsaCommand) -> Result<(), crate::Failure> {
    match c {
        IsaCommand::Coverage(a) => coverage(a),
    }
}

fn coverage(a: CoverageArgs) -> Result<(), crate::Failure> {
    let gpu = match a.mcpu.as_deref() {
        None | Some("all") => None,
        Some(name) => Some(
            name.parse::<Gpu>()
                .map_err(|e| crate::Failure::Usage(format!("--mcpu: {e}")))?,
        ),
    };
    let Some(gpu) = gpu else {
        if a.missing || a.wavefront_size.is_some() {
            return Err(crate::Failure::Usage(
                "--missing and --wavefront-size need one target (--mcpu GPU)".into(),
            ));
        }
        emit(&summary_table());
        return Ok(());
    };
    let wave = match a.wavefront_size.as_deref() {
        Some("32") if !gpu.supports_wave32() => {
            return Err(crate::Failure::Usage(format!(
                "--wavefront-size 32: {gpu} runs wave64 only"
            )));
        }
        Some("32") => 32,
        Some(_) => 64,
        None if gpu.supports_wave32() => 32,
        None => 64,
    };
    let report = Report::new(gpu);
    let mut out = format!(
        "{gpu} (wave{wave}): every operation of the decoder's tables{}\n",
        if a.missing {
            ", those not executed"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "{:<32} {:<28} {:<16} REASON",
        "OPERATION", "ENCODINGS", "STATUS"
    );
    for e in &report.entries {
        if a.missing && e.status == Status::Executed {
            continue;
        }
        let line = format!(
            "{:<32} {:<28} {:<16} {}",
            e.name,
            e.encodings.join(" "),
            e.status.label(),
            e.status.reason().unwrap_or("")
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "{gpu}: {}", report.counts());
    emit(&out);
    Ok(())
}

/// The counts of every target, one line each.
pub fn summary_table() -> String {
    let mut out = format!(
        "{:<8} {:>10} {:>9} {:>14} {:>16}\n",
        "target", "operations", "executed", "graphics-only", "not implemented"
    );
    for gpu in Gpu::ALL {
        let c = Report::new(gpu).counts();
        out.push_str(&format!(
            "{:<8} {:>10} {:>9} {:>14} {:>16}\n",
            gpu.name(),
            c.total(),
            c.executed,
            c.graphics,
            c.not_implemented
        ));
    }
    out
}

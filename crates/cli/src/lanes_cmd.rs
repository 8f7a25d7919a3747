//! `amdsim lanes DISPATCH.ron --break WHERE`: run a dispatch until a wave reaches a
//! place, then print where every lane of that wave conceptually is, and
//! `amdsim step SCENARIO.ron`: run a lane-stepping scenario.

use crate::Failure;
use amdgpu_codeobj::CodeObject;
use amdgpu_lanes::Image;
use amdgpu_lanes::lane_pc::LanePcIndex;
use amdgpu_lanes::service::{Combined, LaneService, LaneState, PositionSource, work_items};
use amdgpu_lanes::stepper::Stepper;
use amdgpu_lanes::svg::{SvgOptions, render};
use amdgpu_sim::Device;
use amdgpu_sim::debug::{Session, Stop};
use amdsim_host::dispatch_file::DispatchFile;
use clap::Args;
use std::path::PathBuf;

const LANES_HELP: &str = "\
Prints one row per lane of the stopped wave: lane, state, pc, function, file:line.
States: active (at the wave's pc), divergent (waiting at pc: the start of an IF whose
other arm it still has to run, a join, a loop's exit), not-entered (not active when the
function was entered; such lanes are looked up in the callers' frames), outside (no
work-item), finished (its work-item returned), unknown (the reconstruction cannot say).
Then the conceptual active mask and EXEC. Positions come from the code object's
DW_AT_LLVM_lane_pc / DW_AT_LLVM_active_lane when it has them (amdsim annotate-lanes writes
them; lanes undefined in a called function are looked up in the callers' frames through
the call frame information), checked against a reconstruction of the EXEC regions of the
machine code (exit code 1 when they disagree); from the reconstruction alone otherwise.
Lines come from the line table (?? without DWARF).

Examples:
  amdsim lanes kernels/examples/divergence.ron --break divergence.cl:20
  amdsim lanes kernels/examples/divergence.ron --break divergence.cl:20 --hit 2 --group 1,0,0
  amdsim lanes kernels/examples/divergence.ron --break divergence --svg /tmp/divergence.svg
  amdsim lanes --break debug_divergence.hip:14 -- kernels/hip/bin/hipcc/debug_divergence";

/// Arguments of `amdsim lanes`.
#[derive(Args, Debug)]
#[command(after_help = LANES_HELP)]
pub struct LanesArgs {
    /// The dispatch, as `amdsim run` takes it: DISPATCH.ron, or FILE.co KERNEL ARG...
    #[arg(
        required_unless_present = "program",
        value_name = "DISPATCH.ron | FILE.co KERNEL ARG..."
    )]
    inputs: Vec<String>,
    /// Grid size in work-items, X[,Y[,Z]] (default: the largest buffer's element count).
    #[arg(long, value_name = "X[,Y,Z]", value_parser = crate::run_cmd::parse_dims)]
    grid: Option<[u32; 3]>,
    /// Work-group size, X[,Y[,Z]] (default 64; --group selects the work-group to stop in).
    #[arg(long, value_name = "X[,Y,Z]", value_parser = crate::run_cmd::parse_dims)]
    workgroup: Option<[u32; 3]>,
    /// Where to stop: FILE:LINE, a function name, or *ADDR (a link-time address).
    #[arg(long = "break", value_name = "WHERE")]
    at: String,
    /// Stop the Nth time a wave gets there (counting the waves that match --group/--wave).
    #[arg(long, default_value_t = 1)]
    hit: u64,
    /// Only a wave of this work-group (X[,Y[,Z]]).
    #[arg(long, value_name = "X,Y,Z")]
    group: Option<String>,
    /// Only this wave of the work-group.
    #[arg(long)]
    wave: Option<u32>,
    /// Also draw the stopped wave's work-group, from its start to its end, as SVG.
    #[arg(long, value_name = "OUT.svg")]
    svg: Option<PathBuf>,
    /// With `-- PROGRAM`: the GPU to simulate (as for `amdsim exec`).
    #[arg(long, value_name = "TARGET", default_value = "gfx900")]
    gpu: String,
    /// A HIP program and its arguments: stop in its kernels (the Nth time a wave of
    /// any of its dispatches gets there), show the lanes, and let it run on.
    #[arg(last = true, value_name = "PROGRAM [ARGS]...")]
    program: Vec<String>,
}

/// `amdsim lanes --break WHERE -- PROGRAM`: the debugger in the program's process,
/// told to stop there, show every lane and let the program run on.
fn lanes_of_program(a: &LanesArgs) -> Result<(), Failure> {
    if !a.inputs.is_empty() {
        return Err(Failure::Usage(
            "give a dispatch or `-- PROGRAM`, not both".into(),
        ));
    }
    if a.group.is_some() || a.wave.is_some() || a.svg.is_some() {
        return Err(Failure::Usage(
            "--group, --wave and --svg need a dispatch file: capture the program's \
             dispatches with `amdsim exec --capture DIR -- PROGRAM`, then run \
             `amdsim lanes DIR/NNNN.ron`"
                .into(),
        ));
    }
    if a.hit == 0 {
        return Err(Failure::Usage("--hit counts from 1".into()));
    }
    let mut script = format!("break {}\nrun\n", a.at);
    for _ in 1..a.hit {
        script += "continue\n";
    }
    script += "info lanes\n";
    let path = std::env::temp_dir().join(format!("amdsim-lanes-{}.cmds", std::process::id()));
    std::fs::write(&path, script).map_err(|e| format!("{}: {e}", path.display()))?;
    let how = crate::debug_cmd::Commands {
        script: Some(&path),
        ex: &[],
        batch: true,
        must_stop: Some(&a.at),
    };
    let r = crate::debug_cmd::debug_program(&a.gpu, None, &how, &a.program, "lanes");
    let _ = std::fs::remove_file(&path);
    r
}

fn parse_group(s: &str) -> Result<[u32; 3], Failure> {
    let mut g = [0u32; 3];
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(Failure::Usage(format!("--group `{s}`: give X[,Y[,Z]]")));
    }
    for (k, p) in parts.iter().enumerate() {
        g[k] = p
            .trim()
            .parse()
            .map_err(|_| Failure::Usage(format!("--group `{s}`: `{p}` is not a number")))?;
    }
    Ok(g)
}

/// The link-time addresses of a `--break` place.
fn addresses(at: &str, co: &CodeObject, image: Option<&Image>) -> Result<Vec<u64>, Failure> {
    if let Some(a) = at.strip_prefix('*') {
        return Ok(vec![crate::parse_u64(a).map_err(Failure::Usage)?]);
    }
    if let Some((file, line)) = at.rsplit_once(':')
        && let Ok(line) = line.parse::<u64>()
    {
        let image = image.ok_or_else(|| {
            Failure::Failed(format!(
                "--break {at}: the code object has no line table (build it with -g); \
                 break at a function or *ADDR instead"
            ))
        })?;
        return image.line_addresses(file, line).map_err(|e| {
            let mut msg = format!("--break {at}: {e}");
            if let Ok(rows) = image.statement_rows() {
                let mut lines: Vec<u64> = rows
                    .iter()
                    .filter(|r| r.file.ends_with(file) && r.line != 0)
                    .map(|r| r.line)
                    .collect();
                lines.sort();
                lines.dedup();
                let before = lines.iter().rev().find(|&&l| l < line);
                let after = lines.iter().find(|&&l| l > line);
                msg += &format!(
                    " (nearest lines with code: {}, {})",
                    before.map_or("none".into(), |l| l.to_string()),
                    after.map_or("none".into(), |l| l.to_string())
                );
            }
            Failure::Failed(msg)
        });
    }
    co.symbols()
        .iter()
        .find(|s| s.is_code() && s.name == at)
        .map(|s| vec![s.address])
        .ok_or_else(|| {
            Failure::Failed(format!(
                "--break {at}: not FILE:LINE, *ADDR or the name of a function of the code object"
            ))
        })
}

/// `amdsim lanes`: runs the dispatch to the asked stop ([`stop_at_hit`]), prints the
/// stopped wave's lanes ([`print_lanes`]) and, with `--svg`, draws its work-group's
/// divergence ([`write_svg`]).
pub fn run(a: LanesArgs) -> Result<(), Failure> {
    if !a.program.is_empty() {
        return lanes_of_program(&a);
    }
    let df = crate::run_cmd::dispatch_from_inputs(&a.inputs, a.grid, a.workgroup, "lanes")?;
    let co_path = df.resolve(std::path::Path::new(&df.code_object));
    let bytes = crate::read_file(
        &co_path.to_string_lossy(),
        amdgpu_sim::dispatch::MAX_CODE_OBJECT,
    )?;
    let co = CodeObject::parse(&bytes).map_err(|e| format!("{}: {e}", co_path.display()))?;
    let image = Image::parse(&bytes).ok();
    let svc = LaneService::new(&co, image.as_ref()).map_err(|e| e.to_string())?;
    let group_filter = a.group.as_deref().map(parse_group).transpose()?;
    let targets = addresses(&a.at, &co, image.as_ref())?;
    if a.hit == 0 {
        return Err(Failure::Usage("--hit counts from 1".into()));
    }
    let dev = Device::new();
    let prepared = df.prepare(&dev).map_err(|e| e.to_string())?;
    let bias = prepared.module.load_bias;
    let waves_per_group = {
        let g = prepared.launch.config.group;
        (g[0] * g[1] * g[2]).div_ceil(prepared.launch.wave_size)
    };
    if let Some(w) = a.wave
        && w >= waves_per_group
    {
        return Err(Failure::Usage(format!(
            "--wave {w}: a work-group of this dispatch has {waves_per_group} wave(s)"
        )));
    }
    if let Some(g) = group_filter
        && (0..3).any(|d| g[d] >= prepared.launch.groups[d])
    {
        return Err(Failure::Usage(format!(
            "--group {g:?}: the dispatch has {:?} work-groups",
            prepared.launch.groups
        )));
    }
    let launch = prepared.launch;
    let mut session = Session::new(&dev, launch);
    for t in &targets {
        session.add_breakpoint(t + bias);
    }
    let (group, wave) = stop_at_hit(&mut session, group_filter, &a)?;
    let w = session
        .wave(wave)
        .ok_or_else(|| Failure::Failed(format!("wave {wave} is gone")))?;
    let stopped_at = w.executed as usize;
    let digits = (w.size / 4) as usize;
    let items = work_items(session.launch(), group, wave);
    // The code object's own lane attributes (annotate-lanes writes them) when it has
    // DWARF; the reconstruction otherwise, and as the check of the attributes.
    let index = image
        .as_ref()
        .and_then(|_| LanePcIndex::new(&co, &Default::default()).ok());
    let combined = svc
        .combined(index.as_ref(), &session, &dev, wave, bias, items)
        .ok_or_else(|| Failure::Failed(format!("wave {wave} is gone")))?;
    let lanes = &combined.lanes;
    println!(
        "work-group ({},{},{}) wave {wave} stopped at {:#x} (hit {}) of {}",
        group[0], group[1], group[2], lanes.pc, a.hit, a.at
    );
    print_lanes(&svc, &combined, digits);
    if let Some(out) = &a.svg {
        let image = image.as_ref().ok_or_else(|| {
            Failure::Failed("--svg needs the code object's line table (build it with -g)".into())
        })?;
        let title = format!("{} on {}", df.kernel, co.target().gpu.name());
        write_svg(out, image, &df, title, (group, wave), stopped_at)?;
    }
    if !combined.disagreements.is_empty() {
        return Err(Failure::Failed(format!(
            "DW_AT_LLVM_lane_pc and the reconstruction disagree on {} lane(s) at {:#x}",
            combined.disagreements.len(),
            lanes.pc
        )));
    }
    Ok(())
}

/// Resumes the session until a breakpoint stops a wave `a` selects (`--group`,
/// `--wave`) for the `--hit`th time; that wave's work-group and number.
fn stop_at_hit(
    session: &mut Session<'_>,
    group_filter: Option<[u32; 3]>,
    a: &LanesArgs,
) -> Result<([u32; 3], u32), Failure> {
    let mut hits = 0;
    loop {
        match session.resume().map_err(|e| e.to_string())? {
            Stop::Breakpoint { group, wave, .. } => {
                if group_filter.is_some_and(|g| g != group) || a.wave.is_some_and(|w| w != wave) {
                    continue;
                }
                hits += 1;
                if hits == a.hit {
                    return Ok((group, wave));
                }
            }
            Stop::Finished => {
                return Err(Failure::Failed(format!(
                    "the dispatch finished after {hits} matching stop(s) at {} (asked for --hit {})",
                    a.at, a.hit
                )));
            }
            other => return Err(Failure::Failed(format!("unexpected stop: {other:?}"))),
        }
    }
}

/// Prints where the positions come from, a row per lane (state, PC, function, line),
/// the active mask and EXEC (`digits` hex digits), the first unknown lane's reason
/// and every disagreement between the DWARF and the reconstruction.
fn print_lanes(svc: &LaneService<'_, '_>, combined: &Combined, digits: usize) {
    let lanes = &combined.lanes;
    match combined.source {
        PositionSource::Dwarf if combined.disagreements.is_empty() => println!(
            "positions from DW_AT_LLVM_lane_pc (callers' frames through the CFI); \
             the reconstruction agrees"
        ),
        PositionSource::Dwarf => println!(
            "positions from DW_AT_LLVM_lane_pc (callers' frames through the CFI); \
             the reconstruction disagrees on {} lane(s), listed below",
            combined.disagreements.len()
        ),
        PositionSource::Reconstruction => match &combined.dwarf_error {
            Some(e) => println!("positions reconstructed (DW_AT_LLVM_lane_pc unusable: {e})"),
            None => println!("positions reconstructed from the machine code"),
        },
    }
    println!("lane  state        pc        function              file:line");
    let mut unknown = Vec::new();
    for p in &lanes.lanes {
        let (pc, func, line) = match p.pc {
            Some(pc) => {
                let src = svc.source(pc, p.kind);
                let line = src
                    .line
                    .map(|(f, l)| format!("{f}:{l}"))
                    .unwrap_or_else(|| "??".into());
                (
                    format!("{pc:#x}"),
                    src.function.unwrap_or_else(|| "??".into()),
                    line,
                )
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        if let LaneState::Unknown(why) = &p.state {
            unknown.push((p.lane, why.clone()));
        }
        println!(
            "{:>4}  {:<11}  {:<8}  {:<20}  {}",
            p.lane,
            p.state.word(),
            pc,
            func,
            line
        );
    }
    println!("active mask 0x{:0digits$x}", lanes.active);
    println!("EXEC        0x{:0digits$x}", lanes.exec);
    if let Some((lane, why)) = unknown.first() {
        println!("unknown lanes (first: {lane}): {why}");
    }
    for d in &combined.disagreements {
        println!(
            "disagreement at {:#x}: lane {}: DW_AT_LLVM_lane_pc says {}, the reconstruction {}",
            lanes.pc, d.lane, d.dwarf, d.reconstruction
        );
    }
}

/// Writes to `out` the divergence picture of the work-group of the stopped wave:
/// the dispatch run again on its own device, every wave of the work-group recorded,
/// the stop (the wave and its executed count `stopped_at`) marked, and the source
/// lines quoted where the files can be read.
fn write_svg(
    out: &std::path::Path,
    image: &Image<'_>,
    df: &DispatchFile,
    title: String,
    (group, wave): ([u32; 3], u32),
    stopped_at: usize,
) -> Result<(), Failure> {
    let dev2 = Device::new();
    let prepared2 = df.prepare(&dev2).map_err(|e| e.to_string())?;
    let mut stepper = Stepper::new(image, &dev2, &prepared2.module, prepared2.launch)
        .map_err(|e| e.to_string())?;
    stepper
        .set_focus(Some(group), wave)
        .map_err(|e| e.to_string())?;
    let traces = stepper.record_group().map_err(|e| e.to_string())?;
    // The work-group is in each wave's heading: the title names the kernel.
    let mut opts = SvgOptions {
        title,
        stop: Some((wave, stopped_at)),
        ..SvgOptions::default()
    };
    for f in traces
        .iter()
        .flat_map(|t| {
            t.steps
                .iter()
                .filter_map(|s| s.line.as_ref().map(|l| l.0.clone()))
        })
        .collect::<std::collections::BTreeSet<_>>()
    {
        if let Ok(text) = std::fs::read_to_string(&f) {
            opts = opts.with_source(&f, &text);
        }
    }
    std::fs::write(out, render(&traces, &opts)).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
}

/// Arguments of `amdsim step`.
#[derive(Args, Debug)]
#[command(
    after_help = "Runs a lane-stepping scenario (a RON file: a kernel, a dispatch and steps such as Break,\nContinue, StepLine(lane: 3), Lanes({..}) assertions) and prints each step. Exit code 1\nwhen an assertion fails.\n\nExample:\n  amdsim step sim-tests/scenarios/divergence_O2_gfx900.ron"
)]
pub struct StepArgs {
    /// The scenario file.
    scenario: PathBuf,
}

/// `amdsim step`.
pub fn run_step(a: StepArgs) -> Result<(), Failure> {
    match amdgpu_lanes::scenario::run_file(&a.scenario) {
        Ok(report) => {
            print!("{report}");
            Ok(())
        }
        Err(e) => {
            if let Some(r) = e.partial_report() {
                print!("{r}");
            }
            Err(Failure::Failed(e.to_string()))
        }
    }
}

/// Arguments of `amdsim annotate-lanes`.
#[derive(Args, Debug)]
#[command(
    after_help = "Writes the lane reconstruction into a copy of a code object as DWARF a debugger can\nevaluate: per function a DW_AT_LLVM_lane_pc location list (DWARF procedures per region, as\nin the AMDGPU usage guide's example) and DW_AT_LLVM_active_lane for the whole-wave ranges\n(code 0x3e08, the only code it has had: current LLVM assigns none). Ranges the\nreconstruction cannot classify get no entry. The encoding is current LLVM's\n(DW_OP_LLVM_user sub-operations, DW_AT_LLVM_lane_pc 0x3e12) unless --rocgdb asks for the\nsingle-byte one.\n\nExample:\n  amdsim annotate-lanes kernels/bin/gfx900/divergence.O2g.co /tmp/divergence.lanes.co"
)]
pub struct AnnotateArgs {
    /// The code object to read.
    input: PathBuf,
    /// Where to write the annotated copy.
    output: PathBuf,
    /// Write ROCgdb's single-byte operation encoding and the older attribute codes.
    #[arg(long)]
    rocgdb: bool,
}

/// `amdsim annotate-lanes`.
pub fn run_annotate(a: AnnotateArgs) -> Result<(), Failure> {
    use amdgpu_lanes::annotate::{AnnotateOptions, LaneEncoding, annotate_with_report};
    let bytes = crate::read_file(
        &a.input.to_string_lossy(),
        amdgpu_sim::dispatch::MAX_CODE_OBJECT,
    )?;
    let options = AnnotateOptions {
        encoding: if a.rocgdb {
            LaneEncoding::Rocgdb
        } else {
            LaneEncoding::Current
        },
        ..AnnotateOptions::default()
    };
    let (out, report) = annotate_with_report(&bytes, &options)
        .map_err(|e| format!("{}: {e}", a.input.display()))?;
    std::fs::write(&a.output, out).map_err(|e| format!("{}: {e}", a.output.display()))?;
    for f in &report.functions {
        println!(
            "{:<24} {:#x}-{:#x}: {} lane_pc entries, {} active_lane entries, {} procedures, {} ranges skipped",
            f.name,
            f.start,
            f.end,
            f.lane_pc_entries,
            f.active_lane_entries,
            f.procedures,
            f.skipped.len()
        );
    }
    println!("wrote {}", a.output.display());
    Ok(())
}

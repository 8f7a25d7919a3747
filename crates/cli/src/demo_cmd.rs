//! `amdsim demo [FILE.co]`: the main job. Prints the kernel's target,
//! descriptor and arguments, its disassembly, and runs it on the simulator:
//! the built-in default is `vector_add` on gfx900 over 1000 work-items
//! (`c = a + b`, with `a = 0, 1, 2, ...` and `b = 0.5 + i % 7`), checked
//! element by element.

use crate::Failure;
use amdsim_host::dispatch_file::{Arg, Buffer, DispatchFile, Elem, Number};
use clap::Args;

/// The built-in default kernel of `amdsim demo` (the committed
/// `kernels/bin/gfx900/vector_add.co`), part of the binary so that an
/// installed or copied `amdsim` runs it too.
const DEFAULT_KERNEL: &[u8] = include_bytes!("../../../kernels/bin/gfx900/vector_add.co");

/// How the built-in kernel is named in the output.
const DEFAULT_NAME: &str = "vector_add.co (built in: kernels/bin/gfx900/vector_add.co)";

/// Arguments of `amdsim demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// The code object (default: the committed gfx900 vector_add.co).
    file: Option<String>,
    /// Per-wave instruction cap of the run.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    max_instructions: u64,
    /// Wall-clock limit of the run in seconds (0: none).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    timeout: f64,
}

/// Runs `amdsim demo`.
pub fn run(a: DemoArgs) -> Result<(), Failure> {
    let (data, name) = match &a.file {
        Some(f) => (
            crate::read_file(f, amdgpu_sim::dispatch::MAX_CODE_OBJECT)?,
            f.clone(),
        ),
        None => (DEFAULT_KERNEL.to_vec(), DEFAULT_NAME.to_string()),
    };
    let co = amdgpu_codeobj::CodeObject::parse(&data).map_err(|e| format!("{name}: {e}"))?;
    print!("{}", crate::info_cmd::render(&name, &co, None));
    println!();
    print!(
        "{}",
        crate::disasm_cmd::code_object_listing(&co, &name, false, None)?
    );
    if co.kernel("vector_add").is_none() {
        println!("\n(no `vector_add` kernel in {name}: use `amdsim run` to run its kernels)");
        return Ok(());
    }
    println!();
    match &a.file {
        Some(f) => demo_run(f, &a, || {}),
        None => {
            // The dispatch runs from a file: the built-in bytes, written out.
            let dir = std::env::temp_dir().join(format!("amdsim-demo-{}", std::process::id()));
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let path = dir.join("vector_add.co");
            std::fs::write(&path, DEFAULT_KERNEL)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            // Removed once the run is over, before anything is printed: a reader
            // that goes away (`amdsim demo | head`) ends the process at a print.
            demo_run(&path.to_string_lossy(), &a, || {
                let _ = std::fs::remove_dir_all(&dir);
            })
        }
    }
}

/// Runs `vector_add` over `N` work-items on the simulator and checks every element;
/// `ran` is called when the run is over (the code object file is no longer needed).
fn demo_run(file: &str, opts: &DemoArgs, ran: impl FnOnce()) -> Result<(), Failure> {
    const N: u32 = 1000;
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| 0.5 + (i % 7) as f32).collect();
    let buffer = |v: &[f32]| {
        Arg::Buffer(Buffer {
            elem: Some(Elem::F32),
            values: Some(v.iter().map(|&x| Number::Float(x as f64)).collect()),
            ..Buffer::default()
        })
    };
    let c = Arg::Buffer(Buffer {
        elem: Some(Elem::F32),
        count: Some(N as u64),
        ..Buffer::default()
    });
    let mut d = DispatchFile::new(
        file,
        "vector_add",
        [N, 1, 1],
        [64, 1, 1],
        vec![buffer(&a), buffer(&b), c, Arg::U32(N)],
    );
    d.max_instructions = Some(opts.max_instructions);
    d.timeout_s = (opts.timeout > 0.0).then_some(opts.timeout);
    let run = crate::run_cmd::execute(&d, &crate::run_cmd::Execution::quiet());
    ran();
    let run = run?;
    let out = run
        .device
        .read(run.prepared.arg_address(2).unwrap_or(0), N as usize * 4)
        .map_err(|e| e.to_string())?;
    let values: Vec<f32> = out
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let wrong = values
        .iter()
        .enumerate()
        .filter(|(i, c)| **c != a[*i] + b[*i])
        .count();
    let s = &run.report.stats;
    println!(
        "ran vector_add on the simulator: {N} work-items, {} work-groups, {} waves, {} instructions",
        s.groups, s.waves, s.instructions
    );
    let c0: Vec<String> = values.iter().take(8).map(|v| v.to_string()).collect();
    println!("c[0..8] = [{}]", c0.join(", "));
    if !run.report.ok() {
        crate::run_cmd::print_problems(
            &run.report,
            run.timeout,
            false,
            run.prepared.module.load_bias,
            &[],
        );
        return Err(Failure::Reported);
    }
    if wrong == 0 {
        println!("c = a + b holds for all {N} elements");
        Ok(())
    } else {
        Err(format!("{wrong} of {N} elements of c differ from a + b").into())
    }
}

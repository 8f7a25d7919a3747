//! `amdsim dap`: the debugger as a Debug Adapter Protocol server on standard input and
//! output, for editors (VS Code, nvim-dap). The front end's own output (what `amdsim
//! debug` prints) goes to a pipe that the protocol side reads; the protocol keeps the
//! original standard output. A HIP program (`hipProgram`) runs in its own process with
//! the front end inside it, as under `amdsim debug -- PROGRAM`; this process relays
//! (`amdsim_debugger::dap::bridge`).

use crate::Failure;
use amdsim_debugger::Input;
use amdsim_debugger::dap::Session;
use clap::Args;
use serde_json::Value;
use std::fs::File;
use std::os::fd::FromRawFd;
use std::path::Path;

/// Arguments of `amdsim dap`.
#[derive(Args, Debug)]
#[command(after_help = "\
The launch request's arguments say what to debug, as `amdsim debug` takes it:
  {\"dispatch\": \"kernels/examples/divergence.ron\"}
  {\"program\": \"kernels/bin/gfx900/cf_call.O0g.co\", \"kernel\": \"cf_call\",
   \"args\": [\"u32[64]:iota=300\", \"u32[64]\", \"u32:64\"], \"grid\": [64], \"group\": [64]}
or a HIP program, whose kernels are debugged as `amdsim debug -- PROGRAM` does:
  {\"hipProgram\": \"kernels/hip/bin/hipcc/debug_divergence\", \"programArgs\": [],
   \"gpu\": \"gfx900\", \"threads\": 2, \"cwd\": \"DIR\", \"env\": {\"NAME\": \"VALUE\"},
   \"startTimeout\": 60}
(all but hipProgram optional; gpu as `amdsim exec --gpu`, threads the host threads that
run work-groups, cwd and env the program's working directory and added environment,
startTimeout the seconds it may take to make its first HIP call). Breakpoints stay
pending until a kernel's code object has code for them; the program's output comes as
output events (stdout, stderr), and its exit status in the exited event.
Waves are threads, the focused lane's frames the stack; each frame has the scopes
Locals, Arguments and Lanes (every lane's state and, for inactive ones, where it is);
structs and arrays expand, and setVariable assigns a variable, member or element for the
focused lane as `set var` does. In the debug console (evaluate in the repl context)
every `amdsim debug` command works.")]
pub struct DapArgs {}

/// Points standard output at a pipe; returns the original standard output (for the
/// protocol) and the pipe's read end.
fn split_stdout() -> Result<(File, File), String> {
    let mut fds = [0i32; 2];
    // SAFETY: plain POSIX calls on descriptors this process owns; each new
    // descriptor is wrapped in a File exactly once.
    unsafe {
        let proto = libc::dup(1);
        if proto < 0 || libc::pipe(fds.as_mut_ptr()) != 0 {
            return Err("cannot set up the protocol's descriptors".into());
        }
        if libc::dup2(fds[1], 1) < 0 {
            return Err("cannot redirect standard output".into());
        }
        libc::close(fds[1]);
        Ok((File::from_raw_fd(proto), File::from_raw_fd(fds[0])))
    }
}

/// `amdsim debug`'s inputs (dispatch file, or code object, kernel and arguments), grid
/// and group.
type Inputs = (Vec<String>, Option<[u32; 3]>, Option<[u32; 3]>);

/// The launch arguments as `amdsim debug`'s inputs.
fn inputs(args: &Value) -> Result<Inputs, String> {
    let dims = |k: &str| -> Result<Option<[u32; 3]>, String> {
        match &args[k] {
            Value::Null => Ok(None),
            Value::Array(a) => {
                let mut d = [1u32; 3];
                for (i, v) in a.iter().take(3).enumerate() {
                    d[i] = v
                        .as_u64()
                        .and_then(|x| u32::try_from(x).ok())
                        .ok_or(format!("`{k}` must be up to three numbers"))?;
                }
                Ok(Some(d))
            }
            Value::Number(n) => Ok(Some([
                n.as_u64()
                    .and_then(|x| u32::try_from(x).ok())
                    .ok_or(format!("`{k}` must be a number"))?,
                1,
                1,
            ])),
            _ => Err(format!("`{k}` must be a number or a list of numbers")),
        }
    };
    let text = |k: &str| args[k].as_str().map(str::to_string);
    let list = if let Some(d) = text("dispatch") {
        vec![d]
    } else {
        let program = text("program").ok_or(
            "the launch request needs `dispatch` (a dispatch file), `program` (a code object) and `kernel`, or `hipProgram` (a HIP program)",
        )?;
        let kernel = text("kernel").ok_or("the launch request needs `kernel` with `program`")?;
        let mut v = vec![program, kernel];
        for a in args["args"].as_array().cloned().unwrap_or_default() {
            v.push(a.as_str().ok_or("`args` must be strings")?.to_string());
        }
        v
    };
    Ok((list, dims("grid")?, dims("group")?))
}

/// Debugs the dispatch the launch arguments describe with commands from `input`.
fn debug_dispatch(args: &Value, input: Input, session: &Session) -> Result<(), String> {
    let (list, grid, group) = inputs(args)?;
    if let Some(first) = list.first() {
        session.add_sources_near(Path::new(first));
    }
    let df =
        crate::run_cmd::dispatch_from_inputs(&list, grid, group, "dap").map_err(failure_text)?;
    crate::debug_cmd::debug_dispatch(&df, input).map(|_| ())
}

/// A failure as the launch's error message.
fn failure_text(f: Failure) -> String {
    match f {
        Failure::Failed(s) | Failure::Usage(s) => s,
        other => format!("{other:?}"),
    }
}

/// The command that runs the HIP program the launch arguments name, and how long it
/// may take to start the HSA runtime.
fn program_command(args: &Value) -> Result<(std::process::Command, std::time::Duration), String> {
    let text = |k: &str| -> Result<Option<String>, String> {
        match &args[k] {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            _ => Err(format!("`{k}` must be a string")),
        }
    };
    let cwd = text("cwd")?;
    let mut program = text("hipProgram")?.unwrap_or_default();
    if program.is_empty() {
        return Err("`hipProgram` must name a HIP program".into());
    }
    if let Some(dir) = &cwd
        && program.contains('/')
    {
        program = Path::new(dir).join(&program).to_string_lossy().into_owned();
    }
    let mut command = vec![program];
    for a in args["programArgs"].as_array().cloned().unwrap_or_default() {
        command.push(
            a.as_str()
                .ok_or("`programArgs` must be strings")?
                .to_string(),
        );
    }
    let gpu = text("gpu")?.unwrap_or_else(|| "gfx900".into());
    let threads = match &args["threads"] {
        Value::Null => None,
        v => Some(
            v.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or("`threads` must be a number")?,
        ),
    };
    let timeout = match &args["startTimeout"] {
        Value::Null => amdsim_debugger::dap::bridge::START_TIMEOUT,
        v => v
            .as_f64()
            .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
            .map(std::time::Duration::from_secs_f64)
            .ok_or("`startTimeout` must be a number of seconds")?,
    };
    let mut cmd = crate::exec_cmd::program_command(
        &gpu,
        threads,
        &command,
        "{\"hipProgram\": PROGRAM, \"programArgs\": [ARGS...]}",
    )
    .map_err(failure_text)?;
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    match &args["env"] {
        Value::Null => {}
        Value::Object(vars) => {
            for (k, v) in vars {
                cmd.env(k, v.as_str().ok_or("`env` must map names to strings")?);
            }
        }
        _ => return Err("`env` must map names to strings".into()),
    }
    Ok((cmd, timeout))
}

/// Debugs what the launch arguments describe: a HIP program (`hipProgram`) or a
/// dispatch.
fn debug(args: &Value, input: Input, session: &Session) -> Result<(), String> {
    if args["hipProgram"].is_null() {
        return debug_dispatch(args, input, session);
    }
    let (cmd, timeout) = program_command(args)?;
    session.add_sources_near(Path::new(cmd.get_program()));
    amdsim_debugger::dap::bridge::debug_program(cmd, timeout, input, session)
}

/// `amdsim dap`.
pub fn run(_a: DapArgs) -> Result<(), Failure> {
    let (proto, captured) = split_stdout()?;
    amdsim_debugger::dap::serve(std::io::stdin(), proto, captured, debug)?;
    Ok(())
}

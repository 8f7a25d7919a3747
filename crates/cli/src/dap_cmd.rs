//! `amdsim dap`: the debugger as a Debug Adapter Protocol server on standard input and
//! output, for editors (VS Code, nvim-dap). The front end's own output (what `amdsim
//! debug` prints) goes to a pipe that the protocol side reads; the protocol keeps the
//! original standard output.

use crate::Failure;
use amdsim_debugger::Input;
use clap::Args;
use serde_json::Value;
use std::fs::File;
use std::os::fd::FromRawFd;

/// Arguments of `amdsim dap`.
#[derive(Args, Debug)]
#[command(after_help = "\
The launch request's arguments say what to debug, as `amdsim debug` takes it:
  {\"dispatch\": \"kernels/examples/divergence.ron\"}
  {\"program\": \"kernels/bin/gfx900/cf_call.O0g.co\", \"kernel\": \"cf_call\",
   \"args\": [\"u32[64]:iota=300\", \"u32[64]\", \"u32:64\"], \"grid\": [64], \"group\": [64]}
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
            "the launch request needs `dispatch` (a dispatch file) or `program` (a code object) and `kernel`",
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
fn debug(args: &Value, input: Input) -> Result<(), String> {
    let (list, grid, group) = inputs(args)?;
    let df =
        crate::run_cmd::dispatch_from_inputs(&list, grid, group, "dap").map_err(|f| match f {
            Failure::Failed(s) | Failure::Usage(s) => s,
            other => format!("{other:?}"),
        })?;
    crate::debug_cmd::debug_dispatch(&df, input).map(|_| ())
}

/// `amdsim dap`.
pub fn run(_a: DapArgs) -> Result<(), Failure> {
    let (proto, captured) = split_stdout()?;
    amdsim_debugger::dap::serve(std::io::stdin(), proto, captured, debug)?;
    Ok(())
}

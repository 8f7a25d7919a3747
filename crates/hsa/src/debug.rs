//! `amdsim debug -- PROGRAM`: the debugger inside the program's process. When
//! `AMDSIM_DEBUG` is set (`-` for commands on standard input, `batch` for none,
//! or a script's path; `AMDSIM_DEBUG_EX` holds commands to run first, one per
//! line), `hsa_init` opens the debugger's prompt before the program's first
//! kernel, and every later dispatch where a breakpoint resolves runs under it.
//! Under `amdsim dap` the value is `fd:N:PID`: the commands come over a socket
//! from the DAP server, and the debugger's answers go back over it
//! ([`amdsim_debugger::dap::bridge`]).

use amdgpu_lanes::Image;
use amdgpu_sim::{Device, Launch, Module, SimError};
use amdsim_debugger::dap::bridge::Link;
use amdsim_debugger::{Ended, Frontend, Input, Mode};
use amdsim_host::runtime::{Intercept, Runtime};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The debugger as the runtime's intercept.
struct Debug {
    frontend: Mutex<Frontend>,
    /// Parsed code objects by load bias. Their bytes and DWARF live as long as
    /// the program: a debugging session loads a handful.
    images: Mutex<HashMap<u64, &'static Image<'static>>>,
    /// The link to `amdsim dap`, where the debugger's output goes.
    link: Option<Link>,
}

/// Ends the program at the user's `quit`, as gdb kills its inferior: without
/// running the program's exit handlers, which would wait for the dispatch the
/// debugger holds.
fn quit() -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // SAFETY: _exit has no preconditions.
    unsafe { libc::_exit(0) }
}

impl Intercept for Debug {
    fn dispatch(
        &self,
        device: &Device,
        module: &Module,
        code: &Arc<Vec<u8>>,
        launch: &Launch,
    ) -> Option<Result<(), SimError>> {
        let image = {
            let mut images = self.images.lock().unwrap_or_else(|e| e.into_inner());
            match images.get(&module.load_bias) {
                Some(i) => *i,
                None => {
                    let bytes: &'static [u8] = Box::leak(code.to_vec().into_boxed_slice());
                    let image = match Image::parse_code(bytes) {
                        Ok(i) => &*Box::leak(Box::new(i)),
                        Err(e) => {
                            eprintln!("amdsim: debugger: the kernel's code object: {e}");
                            return None;
                        }
                    };
                    images.insert(module.load_bias, image);
                    image
                }
            }
        };
        let mut fe = self.frontend.lock().unwrap_or_else(|e| e.into_inner());
        let _out = self.link.as_ref().map(Link::output);
        match fe.dispatch(image, device, module, launch) {
            Ok(None) => None,
            Ok(Some(Ended::Finished | Ended::Detached | Ended::Restart)) => Some(Ok(())),
            Ok(Some(Ended::Quit)) => quit(),
            Ok(Some(Ended::Faulted(e))) => Some(Err(e)),
            Err(e) => {
                eprintln!("amdsim: debugger: {e}; the dispatch runs without it");
                None
            }
        }
    }
}

/// Installs the debugger when `AMDSIM_DEBUG` asks for it, and reads the
/// commands given before the program's first kernel.
pub fn install(rt: &Runtime) -> Result<(), String> {
    let Some(how) = std::env::var_os("AMDSIM_DEBUG").filter(|v| !v.is_empty()) else {
        return Ok(());
    };
    let mut link = None;
    let input = if how == "-" {
        Input::stdin()
    } else if how == "batch" {
        Input::lines(Vec::new())
    } else if let Some(linked) = how.to_str().and_then(Link::from_env) {
        match linked {
            Ok((l, input)) => {
                link = Some(l);
                input
            }
            Err(e) => {
                // a program started by the debugged one: it runs without the debugger
                eprintln!("amdsim: {e}; the program runs without the debugger");
                return Ok(());
            }
        }
    } else {
        Input::script(std::path::Path::new(&how))?
    };
    let ex: Vec<String> = std::env::var("AMDSIM_DEBUG_EX")
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    let input = input.with_first(ex);
    let mut fe = Frontend::new(input, Mode::Program);
    if let Ok(exe) = std::env::current_exe() {
        fe = fe.with_sources_near(&exe);
    }
    if let Some(p) = std::env::var_os("AMDSIM_DEBUG_ERRORS").filter(|v| !v.is_empty()) {
        fe = fe.with_error_file(p.into());
    }
    if fe.interactive() {
        println!(
            "amdsim: the program's kernels run under the debugger; set breakpoints, then `run`"
        );
    }
    let ended = {
        let _out = link.as_ref().map(Link::output);
        fe.prelude()
    };
    match ended {
        Ended::Quit => quit(),
        Ended::Detached => return Ok(()),
        Ended::Finished | Ended::Faulted(_) | Ended::Restart => {}
    }
    rt.set_intercept(Box::new(Debug {
        frontend: Mutex::new(fe),
        images: Mutex::default(),
        link,
    }));
    Ok(())
}

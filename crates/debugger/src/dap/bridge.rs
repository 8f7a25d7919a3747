//! The link between `amdsim dap` and a front end inside a HIP program's process.
//!
//! `amdsim debug -- PROGRAM` runs the debugger in the program's process (amdsim's HSA
//! library starts it from `AMDSIM_DEBUG`), and so does `amdsim dap` for a `hipProgram`
//! launch. One DAP implementation stays in `amdsim dap` ([`super::serve`]), one engine in
//! the program; between them runs the protocol the server already speaks to a front end
//! in its own process: command lines one way, and the front end's output the other, each
//! answer ending with the ready marker (`input.rs`) when the front end waits for the next command.
//!
//! - [`debug_program`] (in `amdsim dap`) creates a socket pair, starts the program with
//!   `AMDSIM_DEBUG=fd:N:PID` (N: the program's end, PID: this process) and the program's
//!   standard output and error on pipes, and takes the place of the front end: each
//!   command it reads from its [`Input`] goes over the socket, each answer is copied to
//!   this process's standard output (which the server reads) up to the program's
//!   `READY`, and then the next command is asked for. The program's own output becomes
//!   `output` events (`stdout`, `stderr`). A `pause` goes over the socket as a line of
//!   its own ([`RunControl`]), read at once by a thread in the program; `disconnect`
//!   during a run ends the program. When the program closes the socket (it has ended),
//!   the end is reported as gdb does, `[Inferior 1 (process N) exited with code C]`,
//!   whose status the server sends in its `exited` event.
//! - [`Link`] (in the program, `crates/hsa`) is the other end: an [`Input`] of the
//!   commands that come over the socket, and standard output pointed at the socket
//!   while the front end runs ([`Link::output`]), so that its answers do not mix with
//!   the program's output.
//!
//! Every wait is bounded: the program must start the HSA runtime (its first HIP call)
//! within the launch's time limit, or it is stopped and the launch fails; after it
//! closes the socket it has ten seconds to exit, its output one more.

use super::{RunControl, Session};
use crate::Input;
use crate::input::READY;
use std::io::{BufRead, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a program may take to start the HSA runtime, unless the launch says.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a program may take to exit after it closed the link.
const EXIT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long its output may take to end after it exited.
const OUTPUT_TIMEOUT: Duration = Duration::from_secs(1);
/// A line that stops the running dispatch (a `pause`).
const STOP: &str = "\u{1e}amdsim-interrupt\u{1e}";
/// A line that forgets a stop that came too late.
const FORGET: &str = "\u{1e}amdsim-forget-interrupt\u{1e}";
/// `AMDSIM_DEBUG`'s value naming the link: `fd:N:PID`.
const PREFIX: &str = "fd:";

/// The program's answers, read from the socket.
struct Answers {
    stream: UnixStream,
    pending: Vec<u8>,
}

/// One answer of the program.
enum Answer {
    /// The output of a command, up to the program's `READY`.
    Ready(String),
    /// The program closed the link (it has ended); the output that came before.
    Ended(String),
    /// No answer before the deadline.
    Late,
}

impl Answers {
    /// The next answer, waiting until `deadline` at most.
    fn next(&mut self, deadline: Option<Instant>) -> Answer {
        let marker = READY.as_bytes();
        loop {
            if let Some(i) = self.pending.windows(marker.len()).position(|w| w == marker) {
                let text = String::from_utf8_lossy(&self.pending[..i]).into_owned();
                let mut end = i + marker.len();
                if self.pending.get(end) == Some(&b'\n') {
                    end += 1;
                }
                self.pending.drain(..end);
                return Answer::Ready(text);
            }
            let wait = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => return Answer::Late,
                },
                None => None,
            };
            let _ = self.stream.set_read_timeout(wait);
            let mut buf = [0u8; 8192];
            match self.stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => break,
            }
        }
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        Answer::Ended(text)
    }
}

/// Writes one line to the program (a command's line breaks become spaces: one line is
/// one command, answered by one `READY`).
fn send_line(to: &Mutex<UnixStream>, line: &str) -> std::io::Result<()> {
    let mut line = line.replace(['\n', '\r'], " ");
    line.push('\n');
    let mut s = to.lock().unwrap_or_else(|e| e.into_inner());
    s.write_all(line.as_bytes())
}

/// Sends what `from` gives as `output` events of `category` until it ends, whole
/// characters at a time; says so on `done`.
fn forward(
    from: Option<impl Read + Send + 'static>,
    category: &'static str,
    session: Session,
    done: std::sync::mpsc::Sender<()>,
) {
    std::thread::spawn(move || {
        let mut pending: Vec<u8> = Vec::new();
        let mut buf = [0u8; 8192];
        if let Some(mut from) = from {
            while let Ok(n @ 1..) = from.read(&mut buf) {
                pending.extend_from_slice(&buf[..n]);
                // an incomplete character at the end waits for the rest
                let whole = match std::str::from_utf8(&pending) {
                    Ok(_) => pending.len(),
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    Err(_) => pending.len(),
                };
                let text: Vec<u8> = pending.drain(..whole).collect();
                session.output(category, &String::from_utf8_lossy(&text));
            }
        }
        session.output(category, &String::from_utf8_lossy(&pending));
        let _ = done.send(());
    });
}

/// How the relay ended.
enum Outcome {
    /// The program closed the link: it ends.
    Ended,
    /// The server asks no more commands: the program is ended.
    Left,
    /// The program ended before it started the HSA runtime.
    NoStart,
    /// The program did not start the HSA runtime in time.
    Late,
}

/// Copies each answer to standard output and each command to the program.
fn relay(
    answers: &mut Answers,
    to: &Mutex<UnixStream>,
    input: &mut Input,
    start_timeout: Duration,
) -> Outcome {
    // The first answer (the program's debugger starting) has a deadline; an end
    // before it means the program never started the HSA runtime.
    let first = answers.next(Some(Instant::now() + start_timeout));
    if let Some(o) = show(first, Outcome::NoStart, Outcome::Late) {
        return o;
    }
    loop {
        let Some(cmd) = input.next_command() else {
            return Outcome::Left;
        };
        // a program that has gone is seen at the next read
        let _ = send_line(to, &cmd);
        if let Some(o) = show(answers.next(None), Outcome::Ended, Outcome::Ended) {
            return o;
        }
    }
}

/// Copies an answer's text to standard output; the outcome when the relay ends there
/// (`ended`: the program closed the link, `late`: no answer in time).
fn show(answer: Answer, ended: Outcome, late: Outcome) -> Option<Outcome> {
    let (text, outcome) = match answer {
        Answer::Ready(t) => (t, None),
        Answer::Ended(t) => (t, Some(ended)),
        Answer::Late => return Some(late),
    };
    print!("{text}");
    let _ = std::io::stdout().flush();
    outcome
}

/// Waits for the program's exit (killed after `patience`) and for the end of its
/// output; returns its exit status, 128 + the signal's number when a signal ended it,
/// and the signal.
fn reap(child: &mut Child, patience: Duration, outputs: &Receiver<()>) -> (i32, Option<i32>) {
    let until = Instant::now() + patience;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                break child.wait().ok();
            }
            Err(_) => break None,
        }
    };
    let until = Instant::now() + OUTPUT_TIMEOUT;
    for _ in 0..2 {
        let left = until.saturating_duration_since(Instant::now());
        if outputs.recv_timeout(left).is_err() {
            break;
        }
    }
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(c), _) => (c, None),
            (None, sig) => (128 + sig.unwrap_or(0), sig),
        },
        None => (1, None),
    }
}

/// Debugs the HIP program `program` starts (its command as `amdsim exec` builds it:
/// amdsim's HSA library first on the library path) with the front end inside it
/// linked to `session`, relaying the commands of `input`; see the module's text. An
/// error (the program could not start, ended or took longer than `start_timeout`
/// before it started the HSA runtime) fails the launch; its output has been sent.
pub fn debug_program(
    mut program: Command,
    start_timeout: Duration,
    mut input: Input,
    session: &Session,
) -> Result<(), String> {
    let name = program.get_program().to_string_lossy().into_owned();
    let (ours, theirs) = UnixStream::pair().map_err(|e| format!("cannot link to {name}: {e}"))?;
    let fd = theirs.as_raw_fd();
    program
        .env(
            "AMDSIM_DEBUG",
            format!("{PREFIX}{fd}:{}", std::process::id()),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: fcntl is async-signal-safe; this runs in the new process before exec,
    // and lets the program keep its end of the socket.
    unsafe {
        program.pre_exec(move || {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = program
        .spawn()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    drop(theirs);
    let (done_tx, done_rx) = channel();
    forward(
        child.stdout.take(),
        "stdout",
        session.clone(),
        done_tx.clone(),
    );
    forward(child.stderr.take(), "stderr", session.clone(), done_tx);
    let pid = child.id();
    let alive = Arc::new(AtomicBool::new(true));
    let to = Arc::new(Mutex::new(
        ours.try_clone()
            .map_err(|e| format!("cannot link to {name}: {e}"))?,
    ));
    {
        let (alive, to) = (alive.clone(), to.clone());
        session.on_run_control(move |what| match what {
            RunControl::Stop => {
                let _ = send_line(&to, STOP);
            }
            RunControl::Forget => {
                let _ = send_line(&to, FORGET);
            }
            RunControl::End => {
                if alive.load(Ordering::SeqCst) {
                    // SAFETY: kill has no preconditions; the process is ours and
                    // has not been reaped (`alive`).
                    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
                }
            }
        });
    }
    let mut answers = Answers {
        stream: ours,
        pending: Vec::new(),
    };
    let outcome = relay(&mut answers, &to, &mut input, start_timeout);
    let patience = match outcome {
        Outcome::Ended | Outcome::NoStart => EXIT_TIMEOUT,
        Outcome::Left | Outcome::Late => Duration::ZERO,
    };
    let (code, signal) = reap(&mut child, patience, &done_rx);
    alive.store(false, Ordering::SeqCst);
    match outcome {
        Outcome::NoStart => Err(format!(
            "{name} exited with code {code} before it started the HSA runtime: it ran no kernel (is it a HIP program?)"
        )),
        Outcome::Late => Err(format!(
            "{name} did not start the HSA runtime (its first HIP call) within {} s; it has been stopped",
            start_timeout.as_secs_f64()
        )),
        Outcome::Ended | Outcome::Left => {
            if let Some(sig) = signal {
                println!("\nProgram terminated with signal {sig}.");
            }
            match code {
                0 => println!("[Inferior 1 (process {pid}) exited normally]"),
                // gdb writes the code in octal, with at least two digits.
                c => println!("[Inferior 1 (process {pid}) exited with code {c:02o}]"),
            }
            Ok(())
        }
    }
}

/// The front end's end of the link, in the program's process.
pub struct Link {
    fd: OwnedFd,
}

/// Whether `fd` is a socket whose other end `pid` made (so a descriptor number
/// inherited in the environment by another program is not taken for the link).
fn is_link(fd: i32, pid: i32) -> bool {
    // SAFETY: fstat and getsockopt write only into the buffers given, of the sizes
    // given; a descriptor that is not open makes them fail.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 || st.st_mode & libc::S_IFMT != libc::S_IFSOCK {
            return false;
        }
        let mut cred: libc::ucred = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        ) == 0
            && cred.pid == pid
    }
}

impl Link {
    /// The link `AMDSIM_DEBUG`'s value names (`fd:N:PID`), and the commands that come
    /// over it. `None` when the value names none; `Some(Err)` when it names one this
    /// process does not have (a program the debugged one started inherits the value).
    pub fn from_env(value: &str) -> Option<Result<(Link, Input), String>> {
        let rest = value.strip_prefix(PREFIX)?;
        let parsed = rest
            .split_once(':')
            .and_then(|(f, p)| Some((f.parse::<i32>().ok()?, p.parse::<i32>().ok()?)));
        let Some((fd, _)) = parsed.filter(|&(fd, pid)| is_link(fd, pid)) else {
            return Some(Err(format!(
                "AMDSIM_DEBUG={value} names no link to amdsim dap in this process"
            )));
        };
        // SAFETY: the descriptor is open (is_link) and nothing else in this process
        // owns it: it was inherited for this use. It is closed on exec from now on.
        let fd = unsafe {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            OwnedFd::from_raw_fd(fd)
        };
        let reader = match fd.try_clone() {
            Ok(r) => std::fs::File::from(r),
            Err(e) => return Some(Err(format!("the link to amdsim dap: {e}"))),
        };
        let (tx, rx) = channel::<String>();
        let (ready_tx, ready_rx) = channel::<()>();
        std::thread::spawn(move || {
            // `ready` is for a server in this process; the server here is at the other
            // end of the link, and reads READY from the output.
            let _ready = ready_rx;
            for line in std::io::BufReader::new(reader).lines() {
                let Ok(line) = line else { break };
                match line.as_str() {
                    STOP => crate::frontend::interrupt(),
                    FORGET => crate::frontend::clear_interrupt(),
                    _ => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Some(Ok((Link { fd }, Input::channel(rx, ready_tx))))
    }

    /// Points standard output at the link until the guard is dropped: the front end's
    /// answers go there, the program's output elsewhere.
    pub fn output(&self) -> Redirect {
        let _ = std::io::stdout().flush();
        // SAFETY: plain POSIX calls on descriptors this process owns; the copy of
        // standard output is owned by the guard.
        let saved = unsafe {
            let saved = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
            if saved < 0 {
                None
            } else if libc::dup2(self.fd.as_raw_fd(), 1) < 0 {
                libc::close(saved);
                None
            } else {
                Some(OwnedFd::from_raw_fd(saved))
            }
        };
        Redirect { saved }
    }
}

/// Standard output pointed at the link ([`Link::output`]); restored when dropped.
pub struct Redirect {
    saved: Option<OwnedFd>,
}

impl Drop for Redirect {
    fn drop(&mut self) {
        let _ = std::io::stdout().flush();
        if let Some(s) = &self.saved {
            // SAFETY: both descriptors are open and owned by this process.
            unsafe { libc::dup2(s.as_raw_fd(), 1) };
        }
    }
}

//! The debugger over the Debug Adapter Protocol (`amdsim dap`), for editors' debugger
//! UIs (VS Code, nvim-dap): the same [`crate::Frontend`] and engine as `amdsim debug`,
//! driven by a protocol thread.
//!
//! The front end runs on the caller's thread with an [`Input::channel`]; the protocol
//! thread turns each request into gdb commands (`break FILE:LINE`, `continue`, `next`,
//! `bt`, `info locals`, `print EXPR`, ...) and reads their answers from the front
//! end's standard output, which the caller has pointed at a pipe (`captured`): each
//! command's output ends where the front end writes `READY` (`input.rs`) before
//! reading the next one. The protocol itself goes through `proto_in` / `proto_out`.
//!
//! What maps to what: waves are threads (ROCgdb's target ids as names), the focused
//! lane's frames are the stack (frame ids are levels + 1), each frame has the scopes
//! Locals and Arguments, and the wave a scope Lanes listing every lane with ROCgdb's
//! state and amdsim's position of the inactive ones. `evaluate` prints an expression for
//! the focused lane (`hover`, `watch`), or runs any debugger command (`repl`).
//! Breakpoints are verified when the code object has code for them; one left pending
//! (a HIP program's kernel is not loaded yet) is announced verified by a `breakpoint`
//! event at the first stop after its code is loaded. A request that
//! runs the dispatch (`continue`, `next`, `stepIn`, `stepOut`) is answered at once and
//! followed by a `stopped` event, or `terminated` when the dispatch ends. A `pause`
//! while such a request runs stops the dispatch as Ctrl-C does in `amdsim debug` (a
//! reader thread takes requests as they come, so it is seen during the run); its answer
//! follows the `stopped` event (reason `pause`).
//!
//! Struct and array values (locals, arguments, watches) expand into their members and
//! elements (`dap/values.rs`: read from the printed value, each with the expression that
//! names it), and `setVariable` assigns one as `set var` does, for the focused lane.
//!
//! A HIP program is debugged in its own process ([`bridge`]): the function that
//! debugs starts it and relays commands and answers, so this server and the front end
//! stay the same; it sends the program's output through the [`Session`] and says there
//! how to stop a run. The session ends with the program's exit status (`exited`).

pub mod bridge;
mod values;

use crate::Input;
use crate::input::READY;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};

/// Variables references: scope kind * SCOPE + frame level; from NODES on, the
/// values with members listed so far (see [`Node`]).
const SCOPE: i64 = 1_000_000;
const LOCALS: i64 = 1;
const ARGS: i64 = 2;
const LANES: i64 = 3;
const NODES: i64 = 10 * SCOPE;

/// Output the front end wrote that the protocol thread has not taken yet.
#[derive(Default)]
struct Captured {
    text: Mutex<(String, bool)>,
    more: Condvar,
}

impl Captured {
    /// Reads `from` into the buffer until it ends.
    fn fill(self: Arc<Self>, mut from: impl Read) {
        let mut buf = [0u8; 4096];
        loop {
            let n = from.read(&mut buf).unwrap_or(0);
            let mut g = self.text.lock().unwrap_or_else(|e| e.into_inner());
            if n == 0 {
                g.1 = true;
                self.more.notify_all();
                return;
            }
            g.0.push_str(&String::from_utf8_lossy(&buf[..n]));
            self.more.notify_all();
        }
    }

    /// The text up to the next ready marker (all of it if the output ended first).
    fn until_ready(&self) -> String {
        let mut g = self.text.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(i) = g.0.find(READY) {
                let out = g.0[..i].to_string();
                let rest = g.0[i + READY.len()..].trim_start_matches('\n').to_string();
                g.0 = rest;
                return out;
            }
            if g.1 {
                return std::mem::take(&mut g.0);
            }
            g = self.more.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// What a client's request asks of a run in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunControl {
    /// `pause`: stop it as Ctrl-C does.
    Stop,
    /// The run ended before a `pause` took effect: forget it, so that it does not stop
    /// the next run at once.
    Forget,
    /// `disconnect`, `terminate`, or the client has gone: end what is debugged.
    End,
}

/// A way to control runs other than this process's Ctrl-C flag.
type Control = Box<dyn Fn(RunControl) + Send + Sync>;

/// The protocol's output: messages are numbered in the order they are written.
struct Sink {
    out: Box<dyn Write + Send>,
    seq: i64,
}

/// What [`Session`] handles share.
struct Shared {
    sink: Mutex<Sink>,
    control: Mutex<Option<Control>>,
    /// Folders where sources named by relative paths are looked for.
    dirs: Mutex<Vec<PathBuf>>,
}

/// The session as the function that debugs sees it (see [`serve`]): besides answering
/// the commands of its [`Input`], it can send output events (a program's own output),
/// say how runs are stopped (a front end in another process), and name where the
/// sources are.
#[derive(Clone)]
pub struct Session(Arc<Shared>);

impl Session {
    fn new(out: Box<dyn Write + Send>) -> Session {
        Session(Arc::new(Shared {
            sink: Mutex::new(Sink { out, seq: 0 }),
            control: Mutex::new(None),
            dirs: Mutex::new(Vec::new()),
        }))
    }

    /// Writes one protocol message.
    fn send(&self, mut v: Value) {
        let mut sink = self.0.sink.lock().unwrap_or_else(|e| e.into_inner());
        sink.seq += 1;
        v["seq"] = json!(sink.seq);
        let body = v.to_string();
        let _ = write!(sink.out, "Content-Length: {}\r\n\r\n{body}", body.len());
        let _ = sink.out.flush();
    }

    /// Sends `text` as an `output` event of `category` (`stdout`, `stderr`, `console`).
    pub fn output(&self, category: &str, text: &str) {
        if !text.is_empty() {
            self.send(json!({"type": "event", "event": "output",
                "body": {"category": category, "output": text}}));
        }
    }

    /// Runs are controlled by `f` instead of this process's Ctrl-C flag (the front end
    /// runs in another process).
    pub fn on_run_control(&self, f: impl Fn(RunControl) + Send + Sync + 'static) {
        *self.0.control.lock().unwrap_or_else(|e| e.into_inner()) = Some(Box::new(f));
    }

    /// Acts on a run in progress.
    fn control(&self, what: RunControl) {
        let g = self.0.control.lock().unwrap_or_else(|e| e.into_inner());
        match (&*g, what) {
            (Some(f), _) => f(what),
            (None, RunControl::Stop | RunControl::End) => crate::frontend::interrupt(),
            (None, RunControl::Forget) => crate::frontend::clear_interrupt(),
        }
    }

    /// Also looks for sources named by relative paths in the folders above `file` (up
    /// to three levels: a program or code object built in its source tree), as the
    /// front end does; source breakpoints are named relative to them.
    pub fn add_sources_near(&self, file: &Path) {
        let mut dirs = self.0.dirs.lock().unwrap_or_else(|e| e.into_inner());
        let abs = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
        for dir in abs.ancestors().skip(1).take(3) {
            if !dir.as_os_str().is_empty() && !dirs.iter().any(|d| d == dir) {
                dirs.push(dir.to_path_buf());
            }
        }
    }

    /// The working directory, then the folders given.
    fn source_dirs(&self) -> Vec<PathBuf> {
        let dirs = self.0.dirs.lock().unwrap_or_else(|e| e.into_inner());
        std::env::current_dir()
            .into_iter()
            .chain(dirs.iter().cloned())
            .collect()
    }
}

/// Reads one protocol message (`Content-Length` framing); `None` at the end.
fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0u8; len?.min(64 << 20)];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// A value with members that the variables view may expand (a variables reference
/// from [`NODES`] on): where it was read and the expression that names it.
struct Node {
    thread: i64,
    level: i64,
    /// `None`: the value has no expression of its own (a base class's part); its
    /// members are listed from `value`.
    expr: Option<String>,
    value: String,
}

/// The protocol side of a session.
struct Server {
    session: Session,
    commands: Sender<String>,
    ready: Receiver<()>,
    captured: Arc<Captured>,
    /// The front end has ended (the dispatch is over or the launch failed).
    ended: bool,
    /// What the front end printed last when it ended.
    last_words: String,
    /// The exit status of what is debugged, as the front end reported it.
    exit_code: i64,
    /// Whether `terminated` has been sent.
    terminated: bool,
    /// Whether the launch succeeded (the front end reads commands).
    launched: bool,
    /// Whether the dispatch has been started (`run`).
    started: bool,
    /// The thread of the last stop.
    thread: i64,
    /// Breakpoint numbers by source path, as the client set them.
    breakpoints: HashMap<String, Vec<u32>>,
    functions: Vec<u32>,
    /// The breakpoints reported pending (no code loaded has code for them yet).
    pending: BTreeSet<u32>,
    /// Raised while a request runs the dispatch (the reader thread then passes a
    /// `pause` on as an interrupt).
    running: Arc<AtomicBool>,
    /// The values with members listed since the last stop.
    nodes: Vec<Node>,
}

impl Server {
    fn send(&mut self, v: Value) {
        self.session.send(v);
    }

    fn event(&mut self, event: &str, body: Value) {
        self.send(json!({"type": "event", "event": event, "body": body}));
    }

    fn respond(&mut self, req: &Value, result: Result<Value, String>) {
        let command = req["command"].clone();
        let request_seq = req["seq"].clone();
        let v = match result {
            Ok(body) => json!({"type": "response", "request_seq": request_seq,
                "success": true, "command": command, "body": body}),
            Err(message) => json!({"type": "response", "request_seq": request_seq,
                "success": false, "command": command, "message": message,
                "body": {"error": {"id": 1, "format": message}}}),
        };
        self.send(v);
    }

    fn console(&mut self, text: &str) {
        if let Some(code) = exit_code(text) {
            self.exit_code = code;
        }
        if !text.trim().is_empty() {
            self.event("output", json!({"category": "console", "output": text}));
        }
    }

    /// Waits until the front end reads its next command; false when it has ended.
    fn wait_ready(&mut self) -> bool {
        if self.ended {
            return false;
        }
        if self.ready.recv().is_err() {
            self.ended = true;
        }
        !self.ended
    }

    /// Runs a command that runs the dispatch (`run`, `continue`, ...): a `pause` that
    /// comes meanwhile interrupts it.
    fn exec_running(&mut self, cmd: &str) -> Option<String> {
        self.running.store(true, Ordering::SeqCst);
        let text = self.exec(cmd);
        self.running.store(false, Ordering::SeqCst);
        // A pause that came as the run ended must not stop the next one.
        self.session.control(RunControl::Forget);
        // The values listed before the run are gone.
        self.nodes.clear();
        text
    }

    /// Runs one debugger command and returns what it printed (`None`: the session
    /// has ended).
    fn exec(&mut self, cmd: &str) -> Option<String> {
        if !self.launched || self.ended || self.commands.send(cmd.to_string()).is_err() {
            self.ended = true;
            return None;
        }
        let alive = self.wait_ready();
        let text = self.captured.until_ready();
        if alive {
            Some(text)
        } else {
            self.last_words = text;
            None
        }
    }

    /// Runs a command whose output is an answer: an `error: ...` line is the error.
    fn query(&mut self, cmd: &str) -> Result<String, String> {
        if !self.launched {
            return Err("nothing is being debugged yet: send `launch` first".into());
        }
        let text = self.exec(cmd).ok_or("the dispatch has ended")?;
        match text.lines().find_map(|l| l.strip_prefix("error: ")) {
            Some(e) => Err(e.to_string()),
            None => Ok(text),
        }
    }
}

/// A path as the client knows it: a relative one made absolute against the first of
/// `dirs` (the working directory, then the folders where sources are) where the file
/// exists.
fn client_path(file: &str, dirs: &[PathBuf]) -> String {
    let p = Path::new(file);
    if p.is_absolute() {
        return file.to_string();
    }
    dirs.iter()
        .find_map(|d| d.join(p).canonicalize().ok())
        .map_or_else(
            || file.to_string(),
            |abs| abs.to_string_lossy().into_owned(),
        )
}

/// A client path as a breakpoint location, which matches the line table's names that
/// end with it: the shortest of its paths relative to `dirs` (the working directory and
/// the folders where sources are; the line table names files as the compiler was given
/// them, relative to where it ran), else as given.
fn break_path(path: &str, dirs: &[PathBuf]) -> String {
    let p = Path::new(path);
    dirs.iter()
        .filter_map(|d| p.strip_prefix(d).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .map(|rel| rel.to_string_lossy().into_owned())
        .min_by_key(String::len)
        .unwrap_or_else(|| path.to_string())
}

/// The exit status in a front end's report of the end: `[Inferior 1 (...) exited
/// normally]` or `... exited with code N]` (N in octal, as gdb writes it).
fn exit_code(text: &str) -> Option<i64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix("[Inferior ")?;
        if rest.ends_with(" exited normally]") {
            return Some(0);
        }
        let code = rest.split(" exited with code ").nth(1)?.strip_suffix(']')?;
        i64::from_str_radix(code, 8).ok()
    })
}

/// One `bt` line: `#N  [0xADDR in ]FUNC (ARGS)[ at FILE:LINE]`; relative paths are
/// looked for in `dirs`.
fn stack_frame(line: &str, dirs: &[PathBuf]) -> Option<Value> {
    let rest = line.strip_prefix('#')?;
    let (level, rest) = rest.split_once(char::is_whitespace)?;
    let level: i64 = level.parse().ok()?;
    let rest = rest.trim_start();
    let rest = match rest.split_once(" in ") {
        Some((addr, r)) if addr.starts_with("0x") => r,
        _ => rest,
    };
    let name = rest.split(" (").next().unwrap_or(rest).to_string();
    let mut frame = json!({"id": level + 1, "name": name, "line": 0, "column": 0});
    if let Some((_, at)) = rest.rsplit_once(") at ")
        && let Some((file, line)) = at.rsplit_once(':')
        && let Ok(line) = line.trim().parse::<i64>()
    {
        frame["line"] = json!(line);
        frame["column"] = json!(1);
        frame["source"] = json!({"name": file.rsplit('/').next().unwrap_or(file),
            "path": client_path(file, dirs)});
    }
    Some(frame)
}

/// `NAME = VALUE` lines (a line that is not one continues the previous value).
fn name_values(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for l in text.lines() {
        match l.split_once(" = ") {
            Some((n, v)) if !n.contains(' ') && !n.is_empty() => {
                out.push((n.to_string(), v.to_string()))
            }
            _ => {
                if let Some(last) = out.last_mut() {
                    last.1.push('\n');
                    last.1.push_str(l);
                }
            }
        }
    }
    out
}

impl Server {
    /// After a command that runs the dispatch: `stopped` (with the reason the output
    /// gives) or `terminated`.
    fn after_run(&mut self, text: Option<String>, reason: &str) {
        let Some(text) = text else {
            let last = std::mem::take(&mut self.last_words);
            self.console(&last);
            self.terminate();
            return;
        };
        self.console(&text);
        if text.contains("exited normally") || text.contains("The program is not being run.") {
            self.terminate();
            return;
        }
        for l in text.lines() {
            if let Some(r) = l.strip_prefix("[Switching to thread ")
                && let Some(n) = r.split([',', ']']).next().and_then(|n| n.parse().ok())
            {
                self.thread = n;
            }
        }
        self.announce_resolved();
        let mut body = json!({"reason": reason, "threadId": self.thread,
            "allThreadsStopped": true});
        if let Some(hit) = text.lines().find_map(|l| {
            let (t, rest) = l.strip_prefix("Thread ")?.split_once(' ')?;
            let n = rest.split("hit Breakpoint ").nth(1)?;
            let n: u32 = n.split([',', ' ']).next()?.parse().ok()?;
            Some((t.parse::<i64>().ok()?, n))
        }) {
            self.thread = hit.0;
            body["threadId"] = json!(hit.0);
            body["reason"] = json!("breakpoint");
            body["hitBreakpointIds"] = json!([hit.1]);
        } else if text.contains("received signal SIGINT") {
            body["reason"] = json!("pause");
        } else if let Some(e) = text.lines().find_map(|l| {
            // a dispatch's fault, or a HIP program's kernel's
            l.strip_prefix("error: ")
                .or_else(|| l.strip_prefix("the kernel faulted: "))
        }) {
            body["reason"] = json!("exception");
            body["description"] = json!(e);
        }
        self.event("stopped", body);
    }

    /// `breakpoint` events (verified) for the pending breakpoints that a code object
    /// loaded since has code for (a HIP program's kernel).
    fn announce_resolved(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let Ok(text) = self.query("info breakpoints") else {
            return;
        };
        for l in text.lines() {
            let Some(n) = l.split_whitespace().next().and_then(|n| n.parse().ok()) else {
                continue;
            };
            if l.contains("<PENDING>") || !self.pending.remove(&n) {
                continue;
            }
            let mut bp = json!({"id": n, "verified": true});
            if let Some((_, at)) = l.rsplit_once(" at ")
                && let Some((_, line)) = at.rsplit_once(':')
                && let Ok(line) = line.trim().parse::<i64>()
            {
                bp["line"] = json!(line);
            }
            self.event("breakpoint", json!({"reason": "changed", "breakpoint": bp}));
        }
    }

    /// The end of the session: `exited` with the exit status the front end reported
    /// (0 for a dispatch) and `terminated`, once.
    fn terminate(&mut self) {
        if !self.ended {
            // the front end stays until it is told to quit
            let _ = self.exec("quit");
        }
        self.ended = true;
        if !self.terminated {
            self.terminated = true;
            self.event("exited", json!({"exitCode": self.exit_code}));
            self.event("terminated", json!({}));
        }
    }

    /// `delete N...`.
    fn delete(&mut self, numbers: &[u32]) {
        if numbers.is_empty() {
            return;
        }
        for n in numbers {
            self.pending.remove(n);
        }
        let list: Vec<String> = numbers.iter().map(u32::to_string).collect();
        let _ = self.exec(&format!("delete {}", list.join(" ")));
    }

    fn set_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let path = args["source"]["path"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let old = self.breakpoints.remove(&path).unwrap_or_default();
        self.delete(&old);
        let file = break_path(&path, &self.session.source_dirs());
        let mut numbers = Vec::new();
        let mut out = Vec::new();
        for bp in args["breakpoints"].as_array().cloned().unwrap_or_default() {
            let line = bp["line"].as_i64().unwrap_or(0);
            let cond = bp["condition"]
                .as_str()
                .map(|c| format!(" if {c}"))
                .unwrap_or_default();
            let mut v = self.add_breakpoint(&format!("{file}:{line}{cond}"));
            v["line"] = json!(line);
            v["source"] = json!({"path": path});
            if let Some(n) = v["id"].as_u64() {
                numbers.push(n as u32);
            }
            out.push(v);
        }
        self.breakpoints.insert(path, numbers);
        Ok(json!({"breakpoints": out}))
    }

    /// `break LOCATION`: the breakpoint as the protocol describes it.
    fn add_breakpoint(&mut self, location: &str) -> Value {
        match self.query(&format!("break {location}")) {
            Ok(text) => {
                let n = text.lines().find_map(|l| {
                    l.strip_prefix("Breakpoint ")?
                        .split([' ', ':'])
                        .next()?
                        .parse::<u32>()
                        .ok()
                });
                let pending = text.contains("pending");
                if let Some(n) = n.filter(|_| pending) {
                    self.pending.insert(n);
                }
                match n {
                    Some(n) => json!({"id": n, "verified": !pending,
                        "message": if pending { "pending: no code for it is loaded" } else { "" }}),
                    None => json!({"verified": false, "message": text.trim()}),
                }
            }
            Err(e) => json!({"verified": false, "message": e}),
        }
    }

    fn set_function_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let old = std::mem::take(&mut self.functions);
        self.delete(&old);
        let mut out = Vec::new();
        for bp in args["breakpoints"].as_array().cloned().unwrap_or_default() {
            let name = bp["name"].as_str().unwrap_or_default();
            let v = self.add_breakpoint(name);
            if let Some(n) = v["id"].as_u64() {
                self.functions.push(n as u32);
            }
            out.push(v);
        }
        Ok(json!({"breakpoints": out}))
    }

    fn threads(&mut self) -> Result<Value, String> {
        let text = if self.started {
            self.query("info threads").unwrap_or_default()
        } else {
            String::new()
        };
        let mut threads = Vec::new();
        for l in text.lines().skip(1) {
            let l = l.trim_start_matches('*').trim_start();
            let Some((id, rest)) = l.split_once(char::is_whitespace) else {
                continue;
            };
            let Ok(id) = id.parse::<i64>() else { continue };
            let name = rest.trim().split(" \"").next().unwrap_or(rest).to_string();
            threads.push(json!({"id": id, "name": name}));
        }
        if threads.is_empty() {
            threads.push(json!({"id": self.thread, "name": "dispatch"}));
        }
        Ok(json!({"threads": threads}))
    }

    fn stack_trace(&mut self, args: &Value) -> Result<Value, String> {
        let t = args["threadId"].as_i64().unwrap_or(self.thread);
        if t != self.thread {
            self.query(&format!("thread {t}"))?;
            self.thread = t;
        }
        let text = self.query("bt")?;
        let dirs = self.session.source_dirs();
        let frames: Vec<Value> = text.lines().filter_map(|l| stack_frame(l, &dirs)).collect();
        let n = frames.len();
        Ok(json!({"stackFrames": frames, "totalFrames": n}))
    }

    /// The variables reference of a value: one that lists its members when it has
    /// some, else 0.
    fn node(&mut self, level: i64, expr: Option<String>, value: &str) -> i64 {
        if values::items(value, expr.as_deref()).is_empty() {
            return 0;
        }
        self.nodes.push(Node {
            thread: self.thread,
            level,
            expr,
            value: value.to_string(),
        });
        NODES + self.nodes.len() as i64 - 1
    }

    /// Makes the stop's wave and frame `level` of it the ones commands see.
    fn select(&mut self, thread: i64, level: i64) -> Result<(), String> {
        if thread != self.thread {
            self.query(&format!("thread {thread}"))?;
            self.thread = thread;
        }
        self.query(&format!("frame {level}")).map(|_| ())
    }

    /// `output EXPR`: the value as `print` shows it, without a history number.
    fn value_of(&mut self, expr: &str) -> Result<String, String> {
        Ok(self
            .query(&format!("output {expr}"))?
            .trim_end()
            .to_string())
    }

    /// The members of the value `r` refers to (read afresh when it has an expression).
    fn members(&mut self, r: i64) -> Result<Vec<Value>, String> {
        let node = usize::try_from(r - NODES)
            .ok()
            .and_then(|i| self.nodes.get(i))
            .ok_or(format!("no variables reference {r}"))?;
        let (thread, level, expr, value) = (
            node.thread,
            node.level,
            node.expr.clone(),
            node.value.clone(),
        );
        let value = match &expr {
            Some(e) => {
                self.select(thread, level)?;
                self.value_of(e)?
            }
            None => value,
        };
        let items = values::items(&value, expr.as_deref());
        Ok(items
            .into_iter()
            .map(|i| {
                let r = self.node(level, i.expr.clone(), &i.value);
                json!({"name": i.name, "value": i.value, "variablesReference": r})
            })
            .collect())
    }

    fn variables(&mut self, args: &Value) -> Result<Value, String> {
        let r = args["variablesReference"].as_i64().unwrap_or(0);
        if r >= NODES {
            return Ok(json!({"variables": self.members(r)?}));
        }
        let (kind, level) = (r / SCOPE, r % SCOPE - 1);
        let vars: Vec<Value> = match kind {
            LOCALS | ARGS => {
                self.query(&format!("frame {level}"))?;
                let cmd = if kind == LOCALS {
                    "info locals"
                } else {
                    "info args"
                };
                let text = self.query(cmd)?;
                name_values(&text)
                    .into_iter()
                    .map(|(n, v)| {
                        let r = self.node(level, Some(n.clone()), &v);
                        json!({"name": n, "value": v, "variablesReference": r})
                    })
                    .collect()
            }
            LANES => {
                let text = self.query("info lanes -all")?;
                text.lines()
                    .skip(1)
                    .filter(|l| !l.starts_with('['))
                    .filter_map(|l| {
                        let l = l.trim_start_matches('*').trim();
                        let (id, rest) = l.split_once(char::is_whitespace)?;
                        id.parse::<u32>().ok()?;
                        Some(json!({"name": format!("lane {id}"), "value": rest.trim(),
                            "variablesReference": 0}))
                    })
                    .collect()
            }
            _ => return Err(format!("no variables reference {r}")),
        };
        Ok(json!({"variables": vars}))
    }

    /// `setVariable`: `set var EXPR = VALUE` for the focused lane, EXPR naming the
    /// variable, member or element in its frame; answers the value as it now reads.
    fn set_variable(&mut self, args: &Value) -> Result<Value, String> {
        let r = args["variablesReference"].as_i64().unwrap_or(0);
        let name = args["name"].as_str().unwrap_or_default();
        let value = args["value"].as_str().unwrap_or_default().trim();
        if value.is_empty() {
            return Err("Argument required (expression to compute).".into());
        }
        let (thread, level, expr) = if r >= NODES {
            let node = usize::try_from(r - NODES)
                .ok()
                .and_then(|i| self.nodes.get(i))
                .ok_or(format!("no variables reference {r}"))?;
            let item = values::items(&node.value, node.expr.as_deref())
                .into_iter()
                .find(|i| i.name == name)
                .ok_or(format!("There is no member named {name}."))?;
            let expr = item
                .expr
                .ok_or(format!("`{name}` cannot be assigned: it has no expression"))?;
            (node.thread, node.level, expr)
        } else if matches!(r / SCOPE, LOCALS | ARGS) {
            (self.thread, r % SCOPE - 1, name.to_string())
        } else {
            return Err(format!("`{name}` cannot be assigned"));
        };
        self.select(thread, level)?;
        self.query(&format!("set var {expr} = {value}"))?;
        let shown = self.value_of(&expr)?;
        let r = self.node(level, Some(expr), &shown);
        Ok(json!({"value": shown, "variablesReference": r}))
    }

    fn evaluate(&mut self, args: &Value) -> Result<Value, String> {
        let expr = args["expression"].as_str().unwrap_or_default().to_string();
        if args["context"].as_str() == Some("repl") {
            if !self.launched {
                return Err("nothing is being debugged yet: send `launch` first".into());
            }
            // it may run the dispatch (`continue`): `pause` stops it
            let text = match self.exec_running(&expr) {
                Some(t) => t,
                // the command ran the program to its end: its report is the answer
                None => {
                    let last = std::mem::take(&mut self.last_words);
                    if let Some(code) = exit_code(&last) {
                        self.exit_code = code;
                    }
                    last
                }
            };
            return Ok(json!({"result": text.trim_end(), "variablesReference": 0}));
        }
        let level = args["frameId"].as_i64().map_or(0, |f| f - 1);
        if args["frameId"].is_i64() {
            self.query(&format!("frame {level}"))?;
        }
        let text = self.query(&format!("print {expr}"))?;
        let value = text
            .lines()
            .find_map(|l| {
                l.strip_prefix('$')?
                    .split_once(" = ")
                    .map(|(_, v)| v.to_string())
            })
            .ok_or_else(|| text.trim().to_string())?;
        let r = self.node(level, Some(format!("({expr})")), &value);
        Ok(json!({"result": value, "variablesReference": r}))
    }

    /// Handles one request; false when the session is over.
    fn handle(&mut self, req: &Value, launch: &mut Option<Sender<Value>>) -> bool {
        let args = &req["arguments"];
        let cmd = req["command"].as_str().unwrap_or_default();
        let r = match cmd {
            "initialize" => Ok(json!({
                "supportsConfigurationDoneRequest": true,
                "supportsFunctionBreakpoints": true,
                "supportsConditionalBreakpoints": true,
                "supportsEvaluateForHovers": true,
                "supportsTerminateRequest": true,
                "supportsSetVariable": true,
            })),
            "launch" => return self.launch(req, launch),
            "setBreakpoints" => self.set_breakpoints(args),
            "setFunctionBreakpoints" => self.set_function_breakpoints(args),
            "setExceptionBreakpoints" => Ok(json!({"breakpoints": []})),
            "configurationDone" | "continue" | "next" | "stepIn" | "stepOut" if !self.launched => {
                Err("nothing is being debugged yet: send `launch` first".into())
            }
            "configurationDone" => {
                self.respond(req, Ok(json!({})));
                self.started = true;
                let text = self.exec_running("run");
                self.after_run(text, "entry");
                return true;
            }
            "threads" => self.threads(),
            "stackTrace" => self.stack_trace(args),
            "scopes" => {
                let f = args["frameId"].as_i64().unwrap_or(1);
                Ok(json!({"scopes": [
                    {"name": "Locals", "variablesReference": LOCALS * SCOPE + f, "expensive": false},
                    {"name": "Arguments", "variablesReference": ARGS * SCOPE + f, "expensive": false},
                    {"name": "Lanes", "variablesReference": LANES * SCOPE + f, "expensive": false},
                ]}))
            }
            "variables" => self.variables(args),
            "setVariable" => self.set_variable(args),
            "evaluate" => {
                let r = self.evaluate(args);
                self.respond(req, r);
                // a command in the console may have run the program to its end
                if self.ended && self.launched {
                    self.terminate();
                }
                return true;
            }
            // The interrupt was raised when the request came (see `serve`); the run it
            // stopped has been answered with its `stopped` event by now.
            "pause" => Ok(json!({})),
            "continue" | "next" | "stepIn" | "stepOut" => {
                let (gdb, reason) = match cmd {
                    "continue" => ("continue", "breakpoint"),
                    "next" => ("next", "step"),
                    "stepIn" => ("step", "step"),
                    _ => ("finish", "step"),
                };
                self.respond(req, Ok(json!({"allThreadsContinued": true})));
                let text = self.exec_running(gdb);
                self.after_run(text, reason);
                return true;
            }
            "disconnect" | "terminate" => {
                if !self.ended {
                    let _ = self.exec("quit");
                    self.ended = true;
                }
                self.respond(req, Ok(json!({})));
                if cmd == "terminate" {
                    self.event("terminated", json!({}));
                }
                return cmd == "terminate";
            }
            other => Err(format!("amdsim does not answer `{other}`")),
        };
        self.respond(req, r);
        true
    }

    /// `launch`: hands the arguments to the caller, which prepares the dispatch; the
    /// answer comes when the front end is ready (or failed).
    fn launch(&mut self, req: &Value, launch: &mut Option<Sender<Value>>) -> bool {
        let Some(tx) = launch.take() else {
            self.respond(req, Err("already launched".into()));
            return true;
        };
        if tx.send(req["arguments"].clone()).is_err() {
            self.respond(req, Err("the debugger has ended".into()));
            return true;
        }
        let alive = self.wait_ready();
        let text = self.captured.until_ready();
        if !alive {
            let why = text.trim();
            self.respond(req, Err(format!("launch failed: {why}")));
            self.event("terminated", json!({}));
            return true;
        }
        self.launched = true;
        self.respond(req, Ok(json!({})));
        self.console(&text);
        self.event("initialized", json!({}));
        true
    }
}

/// Serves one DAP session. `debug` runs on this thread once the client has sent
/// `launch`: it gets the launch arguments, the [`Input`] to give a [`crate::Frontend`]
/// and the [`Session`], debugs the dispatch (or relays to a front end elsewhere, see
/// [`bridge`]), and returns when the session ends (an error, printed to standard
/// output, fails the launch). `captured` is the read end of the pipe the front end's
/// standard output goes to.
pub fn serve(
    proto_in: impl Read + Send + 'static,
    proto_out: impl Write + Send + 'static,
    captured: impl Read + Send + 'static,
    debug: impl FnOnce(&Value, Input, &Session) -> Result<(), String>,
) -> Result<(), String> {
    let cap = Arc::new(Captured::default());
    {
        let c = cap.clone();
        std::thread::spawn(move || c.fill(captured));
    }
    let session = Session::new(Box::new(proto_out));
    let (cmd_tx, cmd_rx) = channel::<String>();
    let (ready_tx, ready_rx) = channel::<()>();
    let (launch_tx, launch_rx) = channel::<Value>();
    let running = Arc::new(AtomicBool::new(false));
    // Requests as they come: a `pause` during a run interrupts it at once, while the
    // protocol thread waits for the run's output; so does a `disconnect` (which then
    // ends the session), or the client going away.
    let (req_tx, req_rx) = channel::<Value>();
    {
        let running = running.clone();
        let session = session.clone();
        std::thread::spawn(move || {
            let mut input = BufReader::new(proto_in);
            while let Some(req) = read_message(&mut input) {
                if running.load(Ordering::SeqCst) {
                    match req["command"].as_str() {
                        Some("pause") => session.control(RunControl::Stop),
                        Some("disconnect" | "terminate") => session.control(RunControl::End),
                        _ => {}
                    }
                }
                if req_tx.send(req).is_err() {
                    return;
                }
            }
            // The client has gone: whatever runs (a command typed in the console
            // too) is ended, so that the session can end.
            session.control(RunControl::End);
        });
    }
    let server = Server {
        session: session.clone(),
        commands: cmd_tx,
        ready: ready_rx,
        captured: cap,
        ended: false,
        last_words: String::new(),
        exit_code: 0,
        terminated: false,
        launched: false,
        started: false,
        thread: 1,
        breakpoints: HashMap::new(),
        functions: Vec::new(),
        pending: BTreeSet::new(),
        running,
        nodes: Vec::new(),
    };
    let protocol = std::thread::spawn(move || {
        let mut server = server;
        let mut launch = Some(launch_tx);
        while let Ok(req) = req_rx.recv() {
            if req["type"] == "request" && !server.handle(&req, &mut launch) {
                break;
            }
            if req["command"] == "disconnect" {
                break;
            }
        }
        if !server.ended {
            let _ = server.exec("quit");
        }
    });
    if let Ok(args) = launch_rx.recv() {
        let input = Input::channel(cmd_rx, ready_tx);
        if let Err(e) = debug(&args, input, &session) {
            println!("{e}");
        }
        // The end of the front end's output (a command it did not come back from).
        println!("{READY}");
        let _ = std::io::stdout().flush();
    } else {
        drop((cmd_rx, ready_tx));
    }
    protocol
        .join()
        .map_err(|_| "the protocol thread failed".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source breakpoint names the file relative to the folder nearest to it; frames'
    /// relative paths are found in the first folder that has them.
    #[test]
    fn paths_between_client_and_line_table() {
        let dirs = [PathBuf::from("/w"), PathBuf::from("/w/kernels/hip")];
        assert_eq!(break_path("/w/kernels/hip/src/k.hip", &dirs), "src/k.hip");
        assert_eq!(break_path("/w/a.cl", &dirs), "a.cl");
        assert_eq!(break_path("/elsewhere/a.cl", &dirs), "/elsewhere/a.cl");
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let dirs = [PathBuf::from("/nonexistent"), here.clone()];
        assert_eq!(
            client_path("src/lib.rs", &dirs),
            here.join("src/lib.rs")
                .canonicalize()
                .unwrap()
                .to_string_lossy()
        );
        assert_eq!(client_path("nosuch.rs", &dirs), "nosuch.rs");
    }

    /// The exit status in the reports of a dispatch's and of a program's end.
    #[test]
    fn exit_codes_of_reports() {
        assert_eq!(
            exit_code("x\n[Inferior 1 (dispatch 1) exited normally]\n"),
            Some(0)
        );
        assert_eq!(
            exit_code("[Inferior 1 (process 42) exited with code 0213]"),
            Some(139)
        );
        assert_eq!(exit_code("Thread 1 hit Breakpoint 1"), None);
    }

    /// `bt` lines of inline frames (no PC, a name with spaces) and of a caller (a PC)
    /// give stack frames with their levels, names and lines.
    #[test]
    fn stack_frames_of_inline_and_physical_frames() {
        let f = stack_frame("#0  grid_sync () at kernels/src/gds_sync.cl:24", &[]).unwrap();
        assert_eq!(f["id"], 1);
        assert_eq!(f["name"], "grid_sync");
        assert_eq!(f["line"], 24);
        let f = stack_frame(
            "#1  __HIP_Coordinates<__HIP_BlockIdx>::__X::operator unsigned int () at amd_hip_runtime.h:299",
            &[],
        )
        .unwrap();
        assert_eq!(f["id"], 2);
        assert_eq!(
            f["name"],
            "__HIP_Coordinates<__HIP_BlockIdx>::__X::operator unsigned int"
        );
        assert_eq!(f["line"], 299);
        let f = stack_frame(
            "#2  0x0000000000001a2c in f4 (a=0x10, v=3) at call_chain.cl:21",
            &[],
        )
        .unwrap();
        assert_eq!(f["id"], 3);
        assert_eq!(f["name"], "f4");
        assert_eq!(f["line"], 21);
    }
}

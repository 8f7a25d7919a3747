//! Where commands come from.

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::history::FileHistory;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Tab completion: command names first, then the names the session knows (functions,
/// variables in scope, source files), file names where a word has a `/`.
#[derive(Default)]
struct Completion {
    words: Arc<Mutex<Vec<String>>>,
    files: FilenameCompleter,
}

impl Completer for Completion {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let start = before
            .rfind(|c: char| c.is_whitespace() || "(*&[+-/,!=<>:".contains(c))
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        let first = before[..start].trim().is_empty();
        if !first
            && before
                .rsplit(char::is_whitespace)
                .next()
                .is_some_and(|w| w.contains('/'))
        {
            return self.files.complete(line, pos, ctx);
        }
        let mut names: Vec<String> = if first {
            crate::help::names().map(str::to_string).collect()
        } else {
            self.words.lock().map(|w| w.clone()).unwrap_or_default()
        };
        names.retain(|n| n.starts_with(word));
        names.sort();
        names.dedup();
        let pairs = names
            .into_iter()
            .map(|n| Pair {
                display: n.clone(),
                replacement: n,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl rustyline::hint::Hinter for Completion {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for Completion {}
impl rustyline::validate::Validator for Completion {}
impl rustyline::Helper for Completion {}

/// How lines are read.
enum Source {
    /// A terminal: line editing, completion and a history kept across sessions.
    Terminal {
        editor: Box<rustyline::Editor<Completion, FileHistory>>,
        history: Option<PathBuf>,
        words: Arc<Mutex<Vec<String>>>,
    },
    /// Lines from a file, a pipe or a list, each echoed after the prompt.
    Lines(Box<dyn Iterator<Item = std::io::Result<String>> + Send>),
    /// Lines from another thread (the DAP server): before each, standard output is
    /// flushed, [`READY`] written on a line of its own, and `ready` told.
    Channel {
        rx: std::sync::mpsc::Receiver<String>,
        ready: std::sync::mpsc::Sender<()>,
    },
}

/// What a [`Input::channel`] writes to standard output when the previous command's
/// output is complete.
pub const READY: &str = "\u{1e}amdsim-ready\u{1e}";

/// A source of commands, one per line: `-ex` commands first, then a script or
/// standard input.
pub struct Input {
    first: std::collections::VecDeque<String>,
    source: Source,
    last: Option<String>,
}

/// Where the history of interactive sessions is kept: `$AMDSIM_HISTORY`, or
/// `$XDG_STATE_HOME/amdsim/history`, or `~/.local/state/amdsim/history`.
fn history_file() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("AMDSIM_HISTORY") {
        return (!p.is_empty()).then(|| p.into());
    }
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local/state")))?;
    Some(state.join("amdsim").join("history"))
}

impl Input {
    /// Commands from standard input: line editing, history and a prompt when it is
    /// a terminal, each command echoed after the prompt otherwise.
    pub fn stdin() -> Input {
        let source = if std::io::stdin().is_terminal() {
            match rustyline::Editor::<Completion, FileHistory>::new() {
                Ok(mut editor) => {
                    let history = history_file();
                    if let Some(h) = &history {
                        let _ = editor.load_history(h);
                    }
                    let completion = Completion::default();
                    let words = completion.words.clone();
                    editor.set_helper(Some(completion));
                    Source::Terminal {
                        editor: Box::new(editor),
                        history,
                        words,
                    }
                }
                Err(_) => {
                    Source::Lines(Box::new(std::io::BufReader::new(std::io::stdin()).lines()))
                }
            }
        } else {
            Source::Lines(Box::new(std::io::BufReader::new(std::io::stdin()).lines()))
        };
        Input {
            first: Default::default(),
            source,
            last: None,
        }
    }

    /// Commands from a script file, each echoed after the prompt.
    pub fn script(path: &Path) -> Result<Input, String> {
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Input {
            first: Default::default(),
            source: Source::Lines(Box::new(std::io::BufReader::new(f).lines())),
            last: None,
        })
    }

    /// Commands given as lines (for front ends that script the debugger).
    pub fn lines(lines: Vec<String>) -> Input {
        Input {
            first: Default::default(),
            source: Source::Lines(Box::new(lines.into_iter().map(Ok))),
            last: None,
        }
    }

    /// Commands sent by another thread, which is told (`ready`) each time the
    /// debugger waits for the next one; the session ends when the sender is dropped.
    pub fn channel(
        rx: std::sync::mpsc::Receiver<String>,
        ready: std::sync::mpsc::Sender<()>,
    ) -> Input {
        Input {
            first: Default::default(),
            source: Source::Channel { rx, ready },
            last: None,
        }
    }

    /// Runs `commands` (gdb's `-ex`) before the others.
    pub fn with_first(mut self, commands: Vec<String>) -> Input {
        self.first = commands.into();
        self
    }

    /// The names tab completion offers after the command word.
    pub fn set_words(&mut self, list: Vec<String>) {
        if let Source::Terminal { words, .. } = &self.source
            && let Ok(mut w) = words.lock()
        {
            *w = list;
        }
    }

    /// Whether a person types the commands.
    pub fn interactive(&self) -> bool {
        matches!(self.source, Source::Terminal { .. })
    }

    /// The next command, after the prompt; `None` at the end of the input. At a
    /// terminal an empty line repeats the last command, as in gdb.
    pub fn next_command(&mut self) -> Option<String> {
        if let Some(c) = self.first.pop_front() {
            println!("(amdsim) {c}");
            return Some(c);
        }
        match &mut self.source {
            Source::Terminal {
                editor, history, ..
            } => {
                let _ = std::io::stdout().flush();
                loop {
                    match editor.readline("(amdsim) ") {
                        Ok(line) => {
                            if line.trim().is_empty() {
                                match &self.last {
                                    Some(l) => return Some(l.clone()),
                                    None => continue,
                                }
                            }
                            let _ = editor.add_history_entry(line.as_str());
                            if let Some(h) = history {
                                if let Some(dir) = h.parent() {
                                    let _ = std::fs::create_dir_all(dir);
                                }
                                let _ = editor.save_history(h);
                            }
                            self.last = Some(line.clone());
                            return Some(line);
                        }
                        // Ctrl-C at the prompt: a fresh prompt, as in gdb.
                        Err(rustyline::error::ReadlineError::Interrupted) => {
                            println!("Quit");
                            continue;
                        }
                        Err(_) => return None,
                    }
                }
            }
            Source::Channel { rx, ready } => {
                let mut out = std::io::stdout();
                let _ = writeln!(out, "{READY}");
                let _ = out.flush();
                ready.send(()).ok()?;
                rx.recv().ok()
            }
            Source::Lines(lines) => {
                let line = match lines.next()? {
                    Ok(l) => l,
                    Err(e) => {
                        eprintln!("amdsim: reading commands: {e}");
                        return None;
                    }
                };
                println!("(amdsim) {line}");
                Some(line)
            }
        }
    }
}

//! Where commands come from.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// How lines are read.
enum Source {
    /// A terminal: line editing and a history kept across sessions.
    Terminal {
        editor: Box<rustyline::DefaultEditor>,
        history: Option<PathBuf>,
    },
    /// Lines from a file, a pipe or a list, each echoed after the prompt.
    Lines(Box<dyn Iterator<Item = std::io::Result<String>> + Send>),
}

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
            match rustyline::DefaultEditor::new() {
                Ok(mut editor) => {
                    let history = history_file();
                    if let Some(h) = &history {
                        let _ = editor.load_history(h);
                    }
                    Source::Terminal {
                        editor: Box::new(editor),
                        history,
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

    /// Runs `commands` (gdb's `-ex`) before the others.
    pub fn with_first(mut self, commands: Vec<String>) -> Input {
        self.first = commands.into();
        self
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
            Source::Terminal { editor, history } => {
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

//! Where commands come from.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

/// A source of commands, one per line.
pub struct Input {
    lines: Box<dyn Iterator<Item = std::io::Result<String>> + Send>,
    interactive: bool,
}

impl Input {
    /// Commands from standard input: with a prompt when it is a terminal, echoed
    /// after the prompt otherwise.
    pub fn stdin() -> Input {
        Input {
            lines: Box::new(std::io::BufReader::new(std::io::stdin()).lines()),
            interactive: std::io::stdin().is_terminal(),
        }
    }

    /// Commands from a script file, each echoed after the prompt.
    pub fn script(path: &Path) -> Result<Input, String> {
        let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Input {
            lines: Box::new(std::io::BufReader::new(f).lines()),
            interactive: false,
        })
    }

    /// Commands given as lines (for front ends that script the debugger).
    pub fn lines(lines: Vec<String>) -> Input {
        Input {
            lines: Box::new(lines.into_iter().map(Ok)),
            interactive: false,
        }
    }

    /// Whether a person types the commands.
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// The next command, after the prompt; `None` at the end of the input.
    pub fn next_command(&mut self) -> Option<String> {
        if self.interactive {
            print!("(amdsim) ");
            let _ = std::io::stdout().flush();
        }
        let line = match self.lines.next()? {
            Ok(l) => l,
            Err(e) => {
                eprintln!("amdsim: reading commands: {e}");
                return None;
            }
        };
        if !self.interactive {
            println!("(amdsim) {line}");
        }
        Some(line)
    }
}

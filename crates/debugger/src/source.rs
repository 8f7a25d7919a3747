//! Source lines for stop reports and `list`: files found as the line table names them,
//! relative to the working directory, to the directories given with `directory`, or to
//! the folders above the debugged file (a program built in its source tree).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Source files read so far.
#[derive(Default)]
pub(crate) struct Sources {
    dirs: Vec<PathBuf>,
    files: HashMap<String, Option<Vec<String>>>,
}

/// The largest source file read.
const MAX_SOURCE: u64 = 16 << 20;

impl Sources {
    /// Also looks for sources in `dir`.
    pub fn add_dir(&mut self, dir: PathBuf) {
        if !self.dirs.contains(&dir) {
            self.dirs.push(dir);
            self.files.retain(|_, v| v.is_some());
        }
    }

    /// Also looks in the folders above `file` (up to three levels).
    pub fn add_ancestors(&mut self, file: &Path) {
        let mut d = file.parent();
        for _ in 0..3 {
            let Some(dir) = d else { break };
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            self.add_dir(dir.to_path_buf());
            d = dir.parent();
        }
    }

    fn load(&self, name: &str) -> Option<Vec<String>> {
        let p = Path::new(name);
        let candidates = std::iter::once(p.to_path_buf())
            .chain(self.dirs.iter().map(|d| d.join(p)))
            .chain(
                p.file_name()
                    .into_iter()
                    .flat_map(|f| self.dirs.iter().map(move |d| d.join(f))),
            );
        for c in candidates {
            let Ok(meta) = std::fs::metadata(&c) else {
                continue;
            };
            if !meta.is_file() || meta.len() > MAX_SOURCE {
                continue;
            }
            if let Ok(bytes) = std::fs::read(&c) {
                return Some(
                    String::from_utf8_lossy(&bytes)
                        .lines()
                        .map(str::to_string)
                        .collect(),
                );
            }
        }
        None
    }

    /// Line `line` of `file` (from 1), `None` when the file cannot be found or is shorter.
    pub fn line(&mut self, file: &str, line: u64) -> Option<String> {
        if !self.files.contains_key(file) {
            let text = self.load(file);
            self.files.insert(file.to_string(), text);
        }
        let lines = self.files.get(file)?.as_ref()?;
        let i = usize::try_from(line).ok()?.checked_sub(1)?;
        lines.get(i).cloned()
    }

    /// gdb's line of a stop: `LINE\tTEXT`, or `LINE\tin FILE` without the source.
    pub fn show(&mut self, file: &str, line: u64) -> String {
        match self.line(file, line) {
            Some(t) => format!("{line}\t{t}"),
            None => format!("{line}\tin {file}"),
        }
    }
}

//! `amdsim disasm -S`: source lines interleaved with the listing, as `llvm-objdump-19 -S`
//! prints them. Before an instruction whose line-table row names another file or line
//! than the previous instruction's, the source line is printed after `; `; rows with
//! line 0, addresses outside every sequence and sources that cannot be read print
//! nothing (a source that cannot be read, or a line past its end, is warned about as
//! llvm-objdump warns).

use amdgpu_codeobj::CodeObject;
use amdgpu_dwarf::program::{LineSequence, Program, ProgramOptions};
use std::collections::HashMap;

/// The line table of a code object and the source files read so far.
pub struct SourcePrinter {
    sequences: Vec<LineSequence>,
    /// The lines of each file read; `None` for one that could not be read.
    files: HashMap<String, Option<Vec<String>>>,
    /// The previous instruction's (file, line).
    previous: (String, u64),
    /// The code object's name, for warnings.
    object: String,
}

impl SourcePrinter {
    /// Reads the line table of `co` (none: a printer that prints nothing, as
    /// llvm-objdump -S on a code object without DWARF).
    pub fn new(co: &CodeObject<'_>, object: &str) -> Result<Self, String> {
        let sequences = if co.section_data(".debug_line").is_some() {
            Program::load(|name| co.section_data(name), ProgramOptions::default())
                .and_then(|p| p.line_sequences())
                .map_err(|e| format!("{object}: the line table: {e}"))?
        } else {
            Vec::new()
        };
        Ok(Self {
            sequences,
            files: HashMap::new(),
            previous: (String::new(), 0),
            object: object.to_string(),
        })
    }

    /// The source line to print before the instruction at `address`, if any.
    pub fn before(&mut self, address: u64) -> Option<String> {
        let (file, line) = self
            .sequences
            .iter()
            .find_map(|s| s.row_for(address))
            .map_or((String::new(), 0), |r| (r.file.clone(), r.line));
        let repeated = self.previous == (file.clone(), line);
        self.previous = (file.clone(), line);
        if line == 0 || file.is_empty() || repeated {
            return None;
        }
        let object = &self.object;
        let lines = self
            .files
            .entry(file.clone())
            .or_insert_with(|| match std::fs::read(&file) {
                Ok(bytes) => Some(split_lines(&bytes)),
                Err(_) => {
                    eprintln!("amdsim: warning: '{object}': failed to find source {file}");
                    None
                }
            });
        let lines = lines.as_ref()?;
        match lines.get(line as usize - 1) {
            Some(text) => Some(format!("; {text}\n")),
            None => {
                eprintln!(
                    "amdsim: warning: '{object}': debug info line number {line} exceeds \
                     the number of lines in {file}"
                );
                None
            }
        }
    }
}

/// A file's lines as llvm-objdump cuts them: at each `\n`, a `\r` before it dropped, a
/// last line without `\n` kept.
fn split_lines(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<String> = text
        .split_inclusive('\n')
        .map(|l| {
            let l = l.strip_suffix('\n').unwrap_or(l);
            l.strip_suffix('\r').unwrap_or(l).to_string()
        })
        .collect();
    if text.is_empty() {
        lines.clear();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cut_as_llvm_objdump_cuts_them() {
        assert_eq!(split_lines(b"a\r\nb\n\nc"), ["a", "b", "", "c"]);
        assert_eq!(split_lines(b"a\n"), ["a"]);
        assert!(split_lines(b"").is_empty());
    }
}

//! The line table as the LLVM tools read it: sequences of rows, each row's file named
//! the way `llvm-symbolizer` and `llvm-objdump -S` name it (an absolute path where the
//! DWARF gives one, else the compilation and include directories joined to the name).

use super::{Program, ProgramError, Rd, UnitData};
use gimli::AttributeValue;

/// One row of a line table sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRow {
    /// Link-time address of the row.
    pub address: u64,
    /// The file, as LLVM's `AbsoluteFilePath` style names it (see [`Program::line_sequences`]).
    pub file: String,
    /// The source line (0: no line).
    pub line: u64,
}

/// A contiguous sequence of line table rows, `[start, end)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineSequence {
    /// Address of the first row.
    pub start: u64,
    /// The end_sequence row's address: one past the last instruction.
    pub end: u64,
    /// The rows before the end_sequence row, in table order.
    pub rows: Vec<SourceRow>,
}

impl LineSequence {
    /// The row for `pc` as LLVM's line table lookup chooses it: the last row whose
    /// address is at most `pc` (of several rows at one address, the last).
    pub fn row_for(&self, pc: u64) -> Option<&SourceRow> {
        if pc < self.start || pc >= self.end {
            return None;
        }
        let n = self.rows.partition_point(|r| r.address <= pc);
        n.checked_sub(1).map(|i| &self.rows[i])
    }
}

/// The source place of link-time `pc` in `sequences`, for a report: the row's file (a
/// leading `./` dropped) and line, or `None` where the table has no line for it.
pub fn source_at(sequences: &[LineSequence], pc: u64) -> Option<(&str, u64)> {
    let row = sequences.iter().find_map(|s| s.row_for(pc))?;
    let file = row.file.strip_prefix("./").unwrap_or(&row.file);
    (row.line != 0 && !file.is_empty()).then_some((file, row.line))
}

/// Appends path components as LLVM's `sys::path::append` does: empty components add
/// nothing, a separator joins components that have none between them, and an absolute
/// component does not replace what is already there.
fn append(path: &mut String, component: &str) {
    if component.is_empty() {
        return;
    }
    if path.ends_with('/') {
        path.push_str(component.trim_start_matches('/'));
        return;
    }
    if !path.is_empty() && !component.starts_with('/') {
        path.push('/');
    }
    path.push_str(component);
}

impl<'d> Program<'d> {
    /// Every line table sequence of every unit, in table order. File names follow LLVM's
    /// `getFileNameByIndex` in its absolute-path style: a name that is absolute is used as
    /// it is; otherwise the include directory (DWARF 5: entry `dir_index`, where 0 is the
    /// compilation directory; DWARF 4: entry `dir_index - 1`, none for 0) joined to it,
    /// after `DW_AT_comp_dir` when that directory is relative and is not DWARF 5's
    /// directory 0. So the names are what `llvm-objdump -S` opens, relative to the
    /// current directory when the compilation directory was.
    pub fn line_sequences(&self) -> Result<Vec<LineSequence>, ProgramError> {
        let mut out = Vec::new();
        for u in &self.units {
            let Some(program) = u.unit.line_program.clone() else {
                continue;
            };
            let mut rows = program.rows();
            let mut current: Vec<SourceRow> = Vec::new();
            while let Some((header, row)) = rows.next_row()? {
                if row.end_sequence() {
                    if let Some(first) = current.first() {
                        let start = first.address;
                        out.push(LineSequence {
                            start,
                            end: row.address(),
                            rows: std::mem::take(&mut current),
                        });
                    }
                    continue;
                }
                let file = self.row_file(u, header, row.file_index());
                current.push(SourceRow {
                    address: row.address(),
                    file,
                    line: row.line().map_or(0, |l| l.get()),
                });
            }
        }
        Ok(out)
    }

    /// The name of file `index` of a line program header (empty when there is none).
    fn row_file(
        &self,
        u: &UnitData<'d>,
        header: &gimli::LineProgramHeader<Rd<'d>>,
        index: u64,
    ) -> String {
        let Some(entry) = header.file(index) else {
            return String::new();
        };
        let text = |v: AttributeValue<Rd<'d>>| -> String {
            self.dwarf
                .attr_string(&u.unit, v)
                .map(|s| String::from_utf8_lossy(s.slice()).into_owned())
                .unwrap_or_default()
        };
        let name = text(entry.path_name());
        if name.starts_with('/') {
            return name;
        }
        let dir_index = entry.directory_index();
        let v5 = header.version() >= 5;
        let dir = if v5 || dir_index > 0 {
            let i = if v5 { dir_index } else { dir_index - 1 };
            header
                .include_directories()
                .get(i as usize)
                .cloned()
                .map(text)
        } else {
            None
        }
        .unwrap_or_default();
        let mut path = String::new();
        let comp_dir = u
            .unit
            .comp_dir
            .map(|c| String::from_utf8_lossy(c.slice()).into_owned())
            .unwrap_or_default();
        if (!v5 || dir_index != 0) && !comp_dir.is_empty() && !dir.starts_with('/') {
            append(&mut path, &comp_dir);
        }
        append(&mut path, &dir);
        append(&mut path, &name);
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_join_as_llvm_appends_them() {
        let join = |parts: &[&str]| {
            let mut p = String::new();
            for c in parts {
                append(&mut p, c);
            }
            p
        };
        assert_eq!(join(&[".", "kernels/src/a.cl"]), "./kernels/src/a.cl");
        assert_eq!(join(&["", "a.cl"]), "a.cl");
        assert_eq!(join(&["/usr/", "/include", "x.h"]), "/usr/include/x.h");
        // An absolute include directory after the compilation directory is appended,
        // not substituted (the caller leaves the compilation directory out then).
        assert_eq!(
            join(&["/build", "/usr/include", "x.h"]),
            "/build/usr/include/x.h"
        );
    }

    #[test]
    fn a_row_is_the_last_at_or_before_the_address() {
        let row = |address, line| SourceRow {
            address,
            file: "f".into(),
            line,
        };
        let s = LineSequence {
            start: 0x100,
            end: 0x120,
            rows: vec![row(0x100, 7), row(0x108, 8), row(0x108, 9), row(0x110, 0)],
        };
        assert_eq!(s.row_for(0xfc), None);
        assert_eq!(s.row_for(0x104).map(|r| r.line), Some(7));
        assert_eq!(s.row_for(0x108).map(|r| r.line), Some(9));
        assert_eq!(s.row_for(0x11c).map(|r| r.line), Some(0));
        assert_eq!(s.row_for(0x120), None);
    }
}

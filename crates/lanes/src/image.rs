//! [`Image`]: a code object's bytes seen both as DWARF program data (for the evaluator)
//! and as a line table searchable by source line (for breakpoints).

use crate::Error;
use amdgpu_codeobj::CodeObject;
use amdgpu_dwarf::program::{Program, ProgramOptions};
use gimli::{EndianSlice, LittleEndian};

type Rd<'d> = EndianSlice<'d, LittleEndian>;

/// A code object with its DWARF, borrowing the caller's bytes.
pub struct Image<'d> {
    code: CodeObject<'d>,
    program: Program<'d>,
}

/// One row of the line table that starts a statement (`is_stmt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineRow {
    /// Link-time address of the row.
    pub address: u64,
    /// The file name as the line program names it (relative to `DW_AT_comp_dir`).
    pub file: String,
    /// The source line.
    pub line: u64,
    /// `prologue_end`: the function's body starts here (where gdb puts a breakpoint
    /// on the function).
    pub prologue_end: bool,
}

/// How this code object's DWARF is read: with its kernels' entry addresses (a kernel
/// whose DIE has no frame base gets the one its code uses) and its data objects (whose
/// addresses the loader moves).
fn program_options(code: &CodeObject<'_>) -> ProgramOptions {
    ProgramOptions {
        kernel_entries: code.kernels().iter().map(|k| k.entry_address).collect(),
        data_objects: code
            .symbols()
            .iter()
            .filter(|s| {
                s.kind == amdgpu_codeobj::SymbolKind::Object
                    && (1..0xff00).contains(&s.section_index)
                    && s.size > 0
            })
            .map(|s| (s.address, s.address + s.size))
            .collect(),
        ..ProgramOptions::default()
    }
}

impl<'d> Image<'d> {
    /// Parses a code object and loads its DWARF (`.debug_*` sections). A code object
    /// without `.debug_info` is refused: nothing could be said about its variables.
    pub fn parse(bytes: &'d [u8]) -> Result<Self, Error> {
        let code = CodeObject::parse(bytes).map_err(|e| Error::CodeObject(e.to_string()))?;
        if code.section_data(".debug_info").is_none() {
            return Err(Error::NoDebugInfo);
        }
        let program = Program::load(|name| code.section_data(name), program_options(&code))
            .map_err(Error::Program)?;
        Ok(Image { code, program })
    }

    /// Parses a code object with or without DWARF. Without it there are no lines, no
    /// functions but the code object's symbols, and no variables: what the machine code
    /// alone tells (the lane reconstruction, instruction stepping, registers).
    pub fn parse_code(bytes: &'d [u8]) -> Result<Self, Error> {
        let code = CodeObject::parse(bytes).map_err(|e| Error::CodeObject(e.to_string()))?;
        let program = Program::load(|name| code.section_data(name), program_options(&code))
            .map_err(Error::Program)?;
        Ok(Image { code, program })
    }

    /// Whether the code object has DWARF (`.debug_info`).
    pub fn has_dwarf(&self) -> bool {
        self.code.section_data(".debug_info").is_some()
    }

    /// The parsed code object.
    pub fn code(&self) -> &CodeObject<'d> {
        &self.code
    }

    /// The DWARF program data (units, variables in scope, frame bases, line rows by PC).
    pub fn program(&self) -> &Program<'d> {
        &self.program
    }

    /// Every `is_stmt` row of every line program, in line-program order (DWARF 5 §6.2).
    pub fn statement_rows(&self) -> Result<Vec<LineRow>, Error> {
        Ok(self
            .rows()?
            .into_iter()
            .filter(|(_, stmt)| *stmt)
            .map(|(r, _)| r)
            .collect())
    }

    /// Every row of every line program (but the end-of-sequence rows), in line-program
    /// order, each with its `is_stmt` flag.
    pub fn rows(&self) -> Result<Vec<(LineRow, bool)>, Error> {
        let section = |id: gimli::SectionId| -> Result<Rd<'d>, gimli::Error> {
            Ok(Rd::new(
                self.code.section_data(id.name()).unwrap_or(&[]),
                LittleEndian,
            ))
        };
        let dwarf = gimli::Dwarf::load(section).map_err(gimli_err)?;
        let mut out = Vec::new();
        let mut units = dwarf.units();
        while let Some(header) = units.next().map_err(gimli_err)? {
            let unit = dwarf.unit(header).map_err(gimli_err)?;
            let Some(program) = unit.line_program.clone() else {
                continue;
            };
            let mut rows = program.rows();
            while let Some((header, row)) = rows.next_row().map_err(gimli_err)? {
                if row.end_sequence() {
                    continue;
                }
                let file = row
                    .file(header)
                    .and_then(|f| dwarf.attr_string(&unit, f.path_name()).ok())
                    .map(|s| String::from_utf8_lossy(s.slice()).into_owned())
                    .unwrap_or_default();
                out.push((
                    LineRow {
                        address: row.address(),
                        file,
                        line: row.line().map(|l| l.get()).unwrap_or(0),
                        prologue_end: row.prologue_end(),
                    },
                    row.is_stmt(),
                ));
            }
        }
        Ok(out)
    }

    /// The link-time addresses where statements of `line` in a file whose name ends with
    /// `file` begin (sorted, deduplicated). Errors if there are none, so a breakpoint is
    /// never silently placed nowhere.
    pub fn line_addresses(&self, file: &str, line: u64) -> Result<Vec<u64>, Error> {
        let mut v: Vec<u64> = self
            .statement_rows()?
            .into_iter()
            .filter(|r| r.line == line && r.file.ends_with(file))
            .map(|r| r.address)
            .collect();
        v.sort_unstable();
        v.dedup();
        if v.is_empty() {
            return Err(Error::NoCodeForLine {
                file: file.into(),
                line,
            });
        }
        Ok(v)
    }

    /// Where gdb places a breakpoint on `line` of the file whose name ends with `file`
    /// (its linespec rules): the `is_stmt` rows of that line or, when it has none, of the
    /// first line after it that has some (a comment or a blank line moves forward, not
    /// into a function that starts after it); of several rows in the same block
    /// ([`Program::block_at`]: a loop's condition split in two, a call's arguments
    /// interleaved with other statements), only the first in address order. Returns the
    /// line used and the link-time addresses, sorted; `None` when no line at or after
    /// `line` has code.
    pub fn breakpoint_addresses(
        &self,
        file: &str,
        line: u64,
    ) -> Result<Option<(u64, Vec<u64>)>, Error> {
        let rows: Vec<LineRow> = self
            .statement_rows()?
            .into_iter()
            .filter(|r| r.line != 0 && r.file.ends_with(file))
            .collect();
        let Some(used) = rows.iter().map(|r| r.line).filter(|&l| l >= line).min() else {
            return Ok(None);
        };
        let mut addrs: Vec<u64> = rows
            .iter()
            .filter(|r| r.line == used)
            .map(|r| r.address)
            .collect();
        addrs.sort_unstable();
        addrs.dedup();
        let mut blocks = Vec::new();
        let mut kept = Vec::new();
        for a in addrs {
            let block = self.program.block_at(a).map_err(Error::Program)?;
            if block.is_none() || !blocks.contains(&block) {
                blocks.push(block);
                kept.push(a);
            }
        }
        if used != line
            && let Some(&first) = kept.first()
            && self
                .program
                .function_starts_after(first, line)
                .map_err(Error::Program)?
        {
            return Ok(None);
        }
        Ok(Some((used, kept)))
    }
}

fn gimli_err(e: gimli::Error) -> Error {
    Error::Line(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn divergence() -> Vec<u8> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../kernels/bin/gfx900/divergence.O2g.co"
        );
        std::fs::read(path).expect("committed kernel")
    }

    /// gdb's linespec rules, on clang-19's line table for `divergence.cl` at -O2 (see
    /// `llvm-dwarfdump-19 --debug-line`): line 14 has statement rows at 0x1970 and
    /// 0x1a24, both in the subprogram's own block (the lexical blocks are
    /// [0x1984, 0x1a1c) and [0x1a2c, 0x1ab4)), so only the first is kept; line 27 (a
    /// declaration with no code) moves to line 28; line 3 (a comment before the kernel,
    /// declared on line 6) gets nothing, not the kernel's first line.
    #[test]
    fn breakpoint_addresses_follow_gdb() {
        let bytes = divergence();
        let image = Image::parse(&bytes).unwrap();
        let all = image.line_addresses("divergence.cl", 14).unwrap();
        assert_eq!(all, vec![0x1970, 0x1a24]);
        assert_eq!(
            image.breakpoint_addresses("divergence.cl", 14).unwrap(),
            Some((14, vec![0x1970]))
        );
        let (line, addrs) = image
            .breakpoint_addresses("divergence.cl", 27)
            .unwrap()
            .unwrap();
        assert_eq!(line, 28);
        assert_eq!(addrs, vec![0x1a2c]);
        assert_eq!(
            image.breakpoint_addresses("divergence.cl", 3).unwrap(),
            None
        );
        assert_eq!(
            image.breakpoint_addresses("divergence.cl", 1000).unwrap(),
            None
        );
    }

    /// gds_sync.cl's static functions are inlined at -O2 (`llvm-dwarfdump-19
    /// --debug-info`): `grid_sync` twice (one copy's ranges start at 0x2a20, the
    /// other's low_pc is 0x2a34), `ordered_add` once (0x303c); a breakpoint on either
    /// goes to every copy's start.
    #[test]
    fn inlined_copies_of_a_function() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../kernels/bin/gfx900/gds_sync.O2g.co"
        );
        let bytes = std::fs::read(path).expect("committed kernel");
        let image = Image::parse(&bytes).unwrap();
        let entries = |f: &str| image.program().inlined_entries(|n, _| n == f).unwrap();
        assert_eq!(entries("grid_sync"), vec![0x2a20, 0x2a34]);
        assert_eq!(entries("ordered_add"), vec![0x303c]);
        assert!(entries("gws_init").is_empty());
    }

    /// The inlined calls at a PC, innermost first, and each inline frame's variables
    /// (gds_sync.O2g.co, `llvm-dwarfdump-19 --debug-info`): 0x303c is `ordered_add`
    /// inlined at line 122 of `ordered_compact`, with its parameter `v` and local `r`;
    /// the kernel's frame has its own four parameters and locals, not those; 0x2ac4 is
    /// the second copy of `grid_sync` (no variables), inside the loop's block with `v`.
    #[test]
    fn inlined_calls_and_their_frames_variables() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../kernels/bin/gfx900/gds_sync.O2g.co"
        );
        let bytes = std::fs::read(path).expect("committed kernel");
        let image = Image::parse(&bytes).unwrap();
        let p = image.program();
        let calls = p.inlined_calls_at(0x303c).unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "ordered_add");
        assert_eq!(calls[0].call_line, Some(122));
        assert!(
            calls[0]
                .call_file
                .as_deref()
                .unwrap()
                .ends_with("gds_sync.cl")
        );
        assert_eq!(calls[0].ranges, vec![(0x303c, 0x3054)]);
        assert_eq!(calls[0].entry, 0x303c);
        let names = |inline| -> Vec<String> {
            let mut v: Vec<String> = p
                .frame_variables(0x303c, inline)
                .unwrap()
                .into_iter()
                .map(|v| v.name)
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(0), ["r", "v"]);
        assert_eq!(
            names(1),
            [
                "base", "before", "count", "g", "gid", "in", "keep", "m", "n", "out", "total"
            ]
        );
        assert!(names(2).is_empty());
        // Everything in scope, as before.
        assert_eq!(p.variables_at(0x303c).unwrap().len(), 13);
        let calls = p.inlined_calls_at(0x2ac4).unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].call_line, Some(41));
        assert_eq!(calls[0].ranges, vec![(0x2a20, 0x2a28), (0x2ac4, 0x2ae8)]);
        assert!(p.frame_variables(0x2ac4, 0).unwrap().is_empty());
        assert!(
            p.frame_variables(0x2ac4, 1)
                .unwrap()
                .iter()
                .any(|v| v.name == "v")
        );
        assert!(p.inlined_calls_at(0x2a80).unwrap().is_empty());
    }
}

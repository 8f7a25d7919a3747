//! Inlined calls at a PC ([`Program::inlined_calls_at`]): the `DW_TAG_inlined_subroutine`
//! DIEs whose ranges contain it, innermost first, as a debugger presents them as frames of
//! their own (gdb's inline frames), and the variables of one such frame
//! ([`Program::frame_variables`]).

use super::{Program, ProgramError, Rd, UnitData, Variable};
use gimli::AttributeValue;

/// One inlined call (a `DW_TAG_inlined_subroutine`) whose ranges contain a PC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlinedCall {
    /// .debug_info offset of the `DW_TAG_inlined_subroutine`.
    pub die: u64,
    /// The inlined function's `DW_AT_name` (through `DW_AT_abstract_origin` and
    /// `DW_AT_specification`); empty when it has none.
    pub name: String,
    /// The inlined function's `DW_AT_linkage_name` (mangled), when it has one.
    pub linkage_name: Option<String>,
    /// `DW_AT_call_file` as the line program names it.
    pub call_file: Option<String>,
    /// `DW_AT_call_line`.
    pub call_line: Option<u64>,
    /// Where the copy starts: `DW_AT_entry_pc`, else `DW_AT_low_pc`, else the start of
    /// its first range.
    pub entry: u64,
    /// Its address ranges, `[begin, end)`.
    pub ranges: Vec<(u64, u64)>,
}

impl InlinedCall {
    /// Whether `pc` is in one of the call's ranges.
    pub fn contains(&self, pc: u64) -> bool {
        self.ranges.iter().any(|&(b, e)| pc >= b && pc < e)
    }
}

impl<'d> Program<'d> {
    /// The inlined calls whose ranges contain `pc`, innermost first (empty when the PC
    /// is not in inlined code). Each one nests in the next; the last is inlined into
    /// the subprogram containing `pc`.
    pub fn inlined_calls_at(&self, pc: u64) -> Result<Vec<InlinedCall>, ProgramError> {
        let Some(u) = self.unit_at(pc) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        let mut cur = u.unit.entries();
        // Per depth: whether the DIE at that depth contains the PC (or is no scope).
        let mut inside: Vec<bool> = Vec::new();
        while let Some(die) = cur.next_dfs()? {
            let depth = usize::try_from(die.depth()).unwrap_or(0);
            inside.truncate(depth);
            let parent_in = inside.last().copied().unwrap_or(true);
            let ranged =
                die.attr(gimli::DW_AT_low_pc).is_some() || die.attr(gimli::DW_AT_ranges).is_some();
            let here = if !parent_in {
                false
            } else if ranged {
                self.die_contains(&u.unit, die, pc)?
            } else {
                // A declaration (a subprogram without code) contains nothing.
                die.tag() != gimli::DW_TAG_subprogram
            };
            if here && die.tag() == gimli::DW_TAG_inlined_subroutine {
                out.push(self.inlined_call(u, die)?);
            }
            inside.push(here);
        }
        out.reverse();
        Ok(out)
    }

    fn inlined_call(
        &self,
        u: &UnitData<'d>,
        die: &gimli::DebuggingInformationEntry<Rd<'d>>,
    ) -> Result<InlinedCall, ProgramError> {
        let mut ranges = Vec::new();
        let mut iter = self.dwarf.die_ranges(&u.unit, die)?;
        while let Some(r) = iter.next()? {
            if r.begin < r.end {
                ranges.push((r.begin, r.end));
            }
        }
        let mut entry = None;
        for attr in [gimli::DW_AT_entry_pc, gimli::DW_AT_low_pc] {
            if entry.is_none()
                && let Some(v) = die.attr_value(attr)
            {
                entry = self.dwarf.attr_address(&u.unit, v)?;
            }
        }
        let entry = entry.or_else(|| ranges.iter().map(|r| r.0).min());
        let call_file = match die.attr_value(gimli::DW_AT_call_file) {
            Some(AttributeValue::FileIndex(i)) => self.file_name(u, i),
            Some(v) => v.udata_value().and_then(|i| self.file_name(u, i)),
            None => None,
        };
        let call_line = die
            .attr_value(gimli::DW_AT_call_line)
            .and_then(|v| v.udata_value());
        Ok(InlinedCall {
            die: Self::die_offset(u, die.offset()),
            name: self.origin_name(u, die).unwrap_or_default(),
            linkage_name: self.origin_linkage_name(u, die),
            call_file,
            call_line,
            entry: entry.unwrap_or(0),
            ranges,
        })
    }

    /// A file of unit `u`'s line program by index, named as [`Program::line_at`] names
    /// the files of its rows.
    fn file_name(&self, u: &UnitData<'d>, index: u64) -> Option<String> {
        let program = u.unit.line_program.as_ref()?;
        let header = program.header();
        let file = header.file(index)?;
        let s = self.dwarf.attr_string(&u.unit, file.path_name()).ok()?;
        Some(String::from_utf8_lossy(s.slice()).into_owned())
    }

    /// A DIE's `DW_AT_linkage_name` (or `DW_AT_MIPS_linkage_name`), or that of its
    /// abstract origin or specification, following up to four such links.
    fn origin_linkage_name(
        &self,
        u: &UnitData<'d>,
        die: &gimli::DebuggingInformationEntry<Rd<'d>>,
    ) -> Option<String> {
        let mut cur = die.clone();
        for _ in 0..5 {
            for a in [gimli::DW_AT_linkage_name, gimli::DW_AT_MIPS_linkage_name] {
                if let Some(v) = cur.attr_value(a)
                    && let Ok(s) = self.dwarf.attr_string(&u.unit, v)
                {
                    return Some(String::from_utf8_lossy(s.slice()).into_owned());
                }
            }
            cur = [gimli::DW_AT_abstract_origin, gimli::DW_AT_specification]
                .into_iter()
                .find_map(|a| match cur.attr_value(a) {
                    Some(AttributeValue::UnitRef(off)) => u.unit.entry(off).ok(),
                    _ => None,
                })?;
        }
        None
    }

    /// The variables and parameters of one frame at `pc` as a debugger with inline
    /// frames shows them (innermost scopes last): `inline` 0 is the innermost inlined
    /// call's scope (or the subprogram's when the PC is not in inlined code), 1 the
    /// scope it is inlined into, and so on up to the subprogram. A frame sees its own
    /// function's scopes only: neither the variables of the calls inlined into it nor
    /// those of the function it is inlined into (gdb's lookup stops at an inlined
    /// function's block). An `inline` past the subprogram gives nothing.
    pub fn frame_variables(&self, pc: u64, inline: usize) -> Result<Vec<Variable>, ProgramError> {
        let scoped = self.scoped_variables(pc)?;
        let (vars, levels) = &*scoped;
        let Some(want) = levels.checked_sub(inline) else {
            return Ok(Vec::new());
        };
        Ok(vars
            .iter()
            .filter(|(level, _)| *level == want)
            .map(|(_, v)| v.clone())
            .collect())
    }
}

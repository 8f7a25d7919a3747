//! Program data from DWARF sections, read with gimli: units, DIEs, location lists (the
//! entry for a PC), frame bases, base types, DWARF procedures, the AMDGPU lane attributes,
//! line programs, call frame information (through [`crate::cfi`]), a one-level type model
//! ([`Program::type_die`]) and the variables at namespace scope ([`Program::globals`]).
//!
//! Sections come from a loader closure (`name -> bytes`), so any container (an ELF code
//! object, a test fixture) can supply them. Sections are read as they are: a relocatable
//! object's `.rela.debug_*` relocations are not applied (linked code objects need none).

use crate::cfi::{CfaRule, DebugFrame, RegisterRule};
use crate::error::ErrorKind;
use crate::eval::{
    Callee, Context, DieRef, Entry, EvalOptions, Evaluator, NoContext, Outcome, PointerTarget,
    ResultKind,
};
use crate::location::{Loc, Single};
use crate::op::{DecodeOptions, Dialect, Expr, Extensions};
use crate::target::{AddressSpace, Target, register_size};
use crate::value::BaseType;
use gimli::{AttributeValue, EndianSlice, LittleEndian};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

mod inline;
mod lines;
mod types;

pub use inline::InlinedCall;
pub use lines::{LineSequence, SourceRow, source_at};
pub use types::{Encoding, Member, PointerKind, Qualifier, StaticMember, TypeDie};

type Rd<'d> = EndianSlice<'d, LittleEndian>;

/// AMDGPU attribute codes (REFERENCE.md, "DW_AT_LLVM_* and CFI codes").
pub mod at {
    /// DW_AT_LLVM_memory_space.
    pub const MEMORY_SPACE: u16 = 0x3e0f;
    /// DW_AT_LLVM_address_space.
    pub const ADDRESS_SPACE: u16 = 0x3e10;
    /// DW_AT_LLVM_lanes (current).
    pub const LANES: u16 = 0x3e11;
    /// DW_AT_LLVM_lane_pc (current).
    pub const LANE_PC: u16 = 0x3e12;
    /// DW_AT_LLVM_vector_size (current).
    pub const VECTOR_SIZE: u16 = 0x3e13;
    /// DW_AT_LLVM_active_lane (older AMD output only).
    pub const OLD_ACTIVE_LANE: u16 = 0x3e08;
    /// DW_AT_LLVM_augmentation (older AMD output only).
    pub const OLD_AUGMENTATION: u16 = 0x3e09;
    /// DW_AT_LLVM_lanes (older AMD output).
    pub const OLD_LANES: u16 = 0x3e0a;
    /// DW_AT_LLVM_lane_pc (older AMD output).
    pub const OLD_LANE_PC: u16 = 0x3e0b;
    /// DW_AT_LLVM_vector_size (older AMD output).
    pub const OLD_VECTOR_SIZE: u16 = 0x3e0c;
}

/// A program-data error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// gimli could not read the sections.
    #[error("DWARF: {0}")]
    Gimli(String),
    /// Call frame information could not be read.
    #[error("{0}")]
    Cfi(#[from] crate::cfi::CfiError),
    /// Nothing describes this PC.
    #[error("no subprogram contains pc {0:#x}")]
    NoScope(u64),
    /// A DIE offset that is not in any unit.
    #[error("no DIE at .debug_info offset {0:#x}")]
    NoDie(u64),
}

impl From<gimli::Error> for ProgramError {
    fn from(e: gimli::Error) -> Self {
        ProgramError::Gimli(e.to_string())
    }
}

impl From<ProgramError> for ErrorKind {
    fn from(e: ProgramError) -> Self {
        ErrorKind::Program(e.to_string())
    }
}

/// Options for reading program data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProgramOptions {
    /// Force a dialect for every unit (default: chosen from each unit).
    pub dialect: Option<Dialect>,
    /// Opt-in extension codes.
    pub extensions: Extensions,
    /// The line-program standard opcode to treat as DW_LNS_set_simd_width (DWARF issue
    /// 211206.1; its code is unassigned), if any.
    pub simd_width_opcode: Option<u8>,
    /// Link-time addresses where kernels start (the code objects' kernel entries). A
    /// subprogram that starts at one of them and has no `DW_AT_frame_base` has its frame
    /// at private address 0 ([`KERNEL_FRAME_BASE`]): LLVM's AMDGPU back end gives a
    /// kernel that needs no frame pointer no frame register (its locals are at fixed
    /// offsets from the start of the lane's private memory) and so writes no frame base,
    /// while its variables are still `DW_OP_fbreg N` (hipcc's clang-15 does so for a
    /// kernel built with `optnone`). Any other subprogram without a frame base keeps none.
    pub kernel_entries: Vec<u64>,
    /// The code object's data objects as `[start, end)` address ranges (its `STT_OBJECT`
    /// symbols in loaded sections): what the loader moves. A `DW_OP_addr`/`DW_OP_addrx`
    /// operand inside one is relocated by the target's code bias
    /// ([`crate::Target::code_bias`]); any other is left as it is, because the same
    /// operations also give addresses of other spaces (an LDS variable is
    /// `DW_OP_addrx N, DW_OP_lit2, DW_OP_swap, DW_OP_xderef`, its operand an LDS
    /// offset that the loader does not move).
    pub data_objects: Vec<(u64, u64)>,
}

impl ProgramOptions {
    /// Whether `addr` lies in one of [`ProgramOptions::data_objects`].
    fn is_data_object(&self, addr: u64) -> bool {
        self.data_objects
            .iter()
            .any(|&(a, b)| addr >= a && addr < b)
    }
}

/// The frame base given to a kernel whose DIE has none (see
/// [`ProgramOptions::kernel_entries`]): `DW_OP_lit0`, address 0, which the private-frame
/// reading of `DW_OP_fbreg N` takes as the lane's private memory at offset `N`.
pub const KERNEL_FRAME_BASE: &[u8] = &[0x30];

/// A location attribute's value for one PC.
#[derive(Debug, Clone, PartialEq)]
pub enum LocationValue {
    /// An expression (DW_FORM_exprloc), or the location-list entries covering the PC.
    Exprs(Vec<Vec<u8>>),
    /// A location list with no entry for the PC (the object is unavailable there).
    NotAtPc,
}

/// A variable or formal parameter in scope.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// DW_AT_name.
    pub name: String,
    /// .debug_info offset of the DIE.
    pub die: u64,
    /// Whether it is a DW_TAG_formal_parameter.
    pub parameter: bool,
    /// Name of its type (as far as it can be named).
    pub type_name: Option<String>,
    /// .debug_info offset of its DW_AT_type (see [`Program::type_die`]); None when it
    /// has none.
    pub type_die: Option<u64>,
    /// DW_AT_byte_size of its type (through typedefs and qualifiers).
    pub byte_size: Option<u64>,
    /// DW_AT_location for the PC (None: no location attribute).
    pub location: Option<LocationValue>,
    /// DW_AT_const_value bytes, if any.
    pub const_value: Option<Vec<u8>>,
    /// The name of the enclosing subprogram (empty for [`Program::globals`]).
    pub function: String,
}

impl Variable {
    /// The name without its scope qualifiers: `x` for `ns::S<a::b>::x` (a `::` inside
    /// template arguments does not count).
    pub fn unqualified_name(&self) -> &str {
        let mut depth = 0i32;
        let mut start = 0;
        let b = self.name.as_bytes();
        for (i, &c) in b.iter().enumerate() {
            match c {
                b'<' | b'(' => depth += 1,
                b'>' | b')' => depth -= 1,
                b':' if depth == 0 && b.get(i + 1) == Some(&b':') => start = i + 2,
                _ => {}
            }
        }
        &self.name[start.min(self.name.len())..]
    }
}

/// Lane attributes of the innermost subprogram at a PC.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LaneAttributes {
    /// DW_AT_LLVM_lanes.
    pub lanes: Option<u64>,
    /// DW_AT_LLVM_lane_pc expression(s) for the PC.
    pub lane_pc: Option<LocationValue>,
    /// DW_AT_LLVM_active_lane expression(s) for the PC.
    pub active_lane: Option<LocationValue>,
}

/// Where an expression sits in `.debug_info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprSite {
    /// Index of the unit.
    pub unit: usize,
    /// .debug_info offset of the DIE.
    pub die: u64,
    /// Attribute code.
    pub attr: u16,
    /// The location-list entry's PC range, for loclist entries.
    pub range: Option<(u64, u64)>,
    /// The expression bytes.
    pub bytes: Vec<u8>,
}

struct UnitData<'d> {
    unit: gimli::Unit<Rd<'d>>,
    dialect: Dialect,
}

/// DWARF program data.
pub struct Program<'d> {
    dwarf: gimli::Dwarf<Rd<'d>>,
    units: Vec<UnitData<'d>>,
    frame: Option<DebugFrame<'d>>,
    opts: ProgramOptions,
    address_size: u8,
    /// Per PC, the unit containing it and the frame base there: a debugger evaluating
    /// every variable of every lane asks for the same few PCs again and again, and
    /// finding them walks the DIE tree (bounded: cleared when it grows past
    /// [`PC_CACHE_ENTRIES`]).
    pc_cache: std::sync::Mutex<std::collections::HashMap<u64, PcData>>,
}

/// The most PCs [`Program`] remembers.
const PC_CACHE_ENTRIES: usize = 4096;

/// What [`Program`] remembers of a PC.
#[derive(Clone, Default)]
struct PcData {
    /// Index of the unit containing the PC (`Some(None)`: none does).
    unit: Option<Option<usize>>,
    /// The frame base at the PC, when found without error.
    frame_base: Option<Option<LocationValue>>,
    /// The variables in scope at the PC ([`Program::scoped_variables`]).
    scopes: Option<ScopedVariables>,
}

/// Variables in scope at a PC, each with the inlined-call level it is in, and the
/// number of inlined calls containing the PC.
type ScopedVariables = std::sync::Arc<(Vec<(usize, Variable)>, usize)>;

impl<'d> Program<'d> {
    /// Loads program data; `section` returns a section's bytes by name (".debug_info", ...).
    pub fn load(
        section: impl Fn(&str) -> Option<&'d [u8]>,
        opts: ProgramOptions,
    ) -> Result<Self, ProgramError> {
        let dwarf = gimli::Dwarf::load(|id: gimli::SectionId| -> Result<Rd<'d>, ProgramError> {
            Ok(Rd::new(section(id.name()).unwrap_or(&[]), LittleEndian))
        })?;
        let mut units = Vec::new();
        let mut address_size = 8;
        let mut iter = dwarf.units();
        while let Some(header) = iter.next()? {
            let unit = dwarf.unit(header)?;
            address_size = unit.encoding().address_size;
            let dialect = opts.dialect.unwrap_or_else(|| unit_dialect(&dwarf, &unit));
            units.push(UnitData { unit, dialect });
        }
        let frame = match section(".debug_frame") {
            Some(d) if !d.is_empty() => Some(DebugFrame::parse(d, address_size)?),
            _ => None,
        };
        Ok(Program {
            dwarf,
            units,
            frame,
            opts,
            address_size,
            pc_cache: Default::default(),
        })
    }

    /// Decode options for a unit.
    fn decode_options(&self, u: &UnitData<'d>) -> DecodeOptions {
        DecodeOptions {
            address_size: u.unit.encoding().address_size,
            offset_size: u.unit.encoding().format.word_size(),
            dialect: u.dialect,
            extensions: self.opts.extensions.clone(),
        }
    }

    /// Decode options of the unit containing `pc` (or of the first unit).
    pub fn decode_options_at(&self, pc: u64) -> DecodeOptions {
        let u = self.unit_at(pc).or_else(|| self.units.first());
        match u {
            Some(u) => self.decode_options(u),
            None => DecodeOptions {
                address_size: self.address_size,
                ..DecodeOptions::default()
            },
        }
    }

    fn unit_at(&self, pc: u64) -> Option<&UnitData<'d>> {
        if let Some(k) = self.cached(pc, |d| d.unit) {
            return k.map(|k| &self.units[k]);
        }
        let k = self.units.iter().position(|u| {
            let mut cur = u.unit.entries();
            match cur.next_dfs() {
                Ok(Some(cu)) => self.die_contains(&u.unit, cu, pc).unwrap_or(false),
                _ => false,
            }
        });
        self.remember(pc, |d| d.unit = Some(k));
        k.map(|k| &self.units[k])
    }

    /// A remembered fact about `pc`.
    fn cached<T>(&self, pc: u64, get: impl FnOnce(&PcData) -> Option<T>) -> Option<T> {
        let cache = self.pc_cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.get(&pc).and_then(get)
    }

    /// Remembers a fact about `pc`.
    fn remember(&self, pc: u64, set: impl FnOnce(&mut PcData)) {
        let mut cache = self.pc_cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= PC_CACHE_ENTRIES && !cache.contains_key(&pc) {
            cache.clear();
        }
        set(cache.entry(pc).or_default());
    }

    fn die_contains(
        &self,
        unit: &gimli::Unit<Rd<'d>>,
        die: &gimli::DebuggingInformationEntry<Rd<'d>>,
        pc: u64,
    ) -> Result<bool, ProgramError> {
        let mut ranges = self.dwarf.die_ranges(unit, die)?;
        while let Some(r) = ranges.next()? {
            if pc >= r.begin && pc < r.end {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn location_value(
        &self,
        u: &UnitData<'d>,
        value: AttributeValue<Rd<'d>>,
        pc: u64,
    ) -> Result<Option<LocationValue>, ProgramError> {
        match value {
            AttributeValue::Exprloc(e) => {
                Ok(Some(LocationValue::Exprs(vec![e.0.slice().to_vec()])))
            }
            v => {
                let Some(mut iter) = self.dwarf.attr_locations(&u.unit, v)? else {
                    return Ok(None);
                };
                let mut out = Vec::new();
                while let Some(entry) = iter.next()? {
                    if pc >= entry.range.begin && pc < entry.range.end {
                        out.push(entry.data.0.slice().to_vec());
                    }
                }
                Ok(Some(if out.is_empty() {
                    LocationValue::NotAtPc
                } else {
                    LocationValue::Exprs(out)
                }))
            }
        }
    }

    fn die_name(
        &self,
        u: &UnitData<'d>,
        die: &gimli::DebuggingInformationEntry<Rd<'d>>,
    ) -> Option<String> {
        let v = die.attr_value(gimli::DW_AT_name)?;
        let s = self.dwarf.attr_string(&u.unit, v).ok()?;
        Some(String::from_utf8_lossy(s.slice()).into_owned())
    }

    /// A DIE's name, or its abstract origin's or specification's (an inlined
    /// subroutine, its parameters and variables, a member function defined out of its
    /// class), following up to four such links within the unit.
    fn origin_name(
        &self,
        u: &UnitData<'d>,
        die: &gimli::DebuggingInformationEntry<Rd<'d>>,
    ) -> Option<String> {
        if let Some(n) = self.die_name(u, die) {
            return Some(n);
        }
        let mut cur = die.clone();
        for _ in 0..4 {
            let next = [gimli::DW_AT_abstract_origin, gimli::DW_AT_specification]
                .into_iter()
                .find_map(|a| match cur.attr_value(a) {
                    Some(AttributeValue::UnitRef(off)) => u.unit.entry(off).ok(),
                    _ => None,
                })?;
            if let Some(n) = self.die_name(u, &next) {
                return Some(n);
            }
            cur = next;
        }
        None
    }

    /// Type name and byte size of a DIE's DW_AT_type (following typedefs and qualifiers for
    /// the size).
    fn type_of(
        &self,
        u: &UnitData<'d>,
        die: &gimli::DebuggingInformationEntry<Rd<'d>>,
    ) -> (Option<String>, Option<u64>) {
        match die
            .attr_value(gimli::DW_AT_type)
            .and_then(|v| self.resolve_ref(u, v))
        {
            Some((tu, off)) => self.describe_type(tu, off, 0),
            None => (None, None),
        }
    }

    /// The .debug_info offset of a DIE of unit `u`.
    fn die_offset(u: &UnitData<'d>, off: gimli::UnitOffset) -> u64 {
        off.to_debug_info_offset(&u.unit.header)
            .map(|o| o.0 as u64)
            .unwrap_or(0)
    }

    /// The .debug_info offset a reference attribute of a DIE of unit `u` names
    /// (DW_AT_type, DW_AT_specification): unit-relative (DW_FORM_ref*),
    /// section-relative (DW_FORM_ref_addr) or the signature of a type unit in
    /// `.debug_info` (DW_FORM_ref_sig8).
    fn ref_offset(&self, u: &UnitData<'d>, v: AttributeValue<Rd<'d>>) -> Option<u64> {
        match v {
            AttributeValue::UnitRef(o) => {
                o.to_debug_info_offset(&u.unit.header).map(|o| o.0 as u64)
            }
            AttributeValue::DebugInfoRef(o) => Some(o.0 as u64),
            AttributeValue::DebugTypesRef(sig) => {
                self.units.iter().find_map(|t| match t.unit.header.type_() {
                    gimli::UnitType::Type {
                        type_signature,
                        type_offset,
                    } if type_signature == sig => Some(Self::die_offset(t, type_offset)),
                    _ => None,
                })
            }
            _ => None,
        }
    }

    /// The DIE a reference attribute of a DIE of unit `u` names, as its unit and unit
    /// offset.
    fn resolve_ref<'s>(
        &'s self,
        u: &'s UnitData<'d>,
        v: AttributeValue<Rd<'d>>,
    ) -> Option<(&'s UnitData<'d>, gimli::UnitOffset)> {
        match v {
            AttributeValue::UnitRef(o) => Some((u, o)),
            v => self.find_die(self.ref_offset(u, v)?).ok(),
        }
    }

    fn describe_type(
        &self,
        u: &UnitData<'d>,
        off: gimli::UnitOffset,
        depth: u32,
    ) -> (Option<String>, Option<u64>) {
        let Ok(t) = u.unit.entry(off) else {
            return (None, None);
        };
        if depth > 16 {
            return (None, None);
        }
        let inner = || match t.attr_value(gimli::DW_AT_type) {
            Some(v) => match self.resolve_ref(u, v) {
                Some((tu, o)) => self.describe_type(tu, o, depth + 1),
                None => (None, None),
            },
            None => (Some("void".to_string()), None),
        };
        let size = t
            .attr_value(gimli::DW_AT_byte_size)
            .and_then(|v| v.udata_value());
        let name = self.die_name(u, &t);
        match t.tag() {
            gimli::DW_TAG_pointer_type | gimli::DW_TAG_reference_type => {
                let (n, _) = inner();
                (
                    Some(format!("{} *", n.unwrap_or_else(|| "?".into()))),
                    Some(size.unwrap_or(u64::from(self.address_size))),
                )
            }
            gimli::DW_TAG_const_type | gimli::DW_TAG_volatile_type => {
                let (n, sz) = inner();
                let q = if t.tag() == gimli::DW_TAG_const_type {
                    "const"
                } else {
                    "volatile"
                };
                (Some(format!("{q} {}", n.unwrap_or_else(|| "?".into()))), sz)
            }
            gimli::DW_TAG_typedef => {
                let (_, sz) = inner();
                (name, size.or(sz))
            }
            gimli::DW_TAG_array_type => {
                let (n, elem) = inner();
                let mut count = None;
                if let Ok(mut tree) = u.unit.entries_tree(Some(off))
                    && let Ok(root) = tree.root()
                {
                    let mut children = root.children();
                    while let Ok(Some(c)) = children.next() {
                        let e = c.entry();
                        if e.tag() == gimli::DW_TAG_subrange_type {
                            count = e
                                .attr_value(gimli::DW_AT_count)
                                .and_then(|v| v.udata_value())
                                .or_else(|| {
                                    e.attr_value(gimli::DW_AT_upper_bound)
                                        .and_then(|v| v.udata_value())
                                        .map(|x| x + 1)
                                });
                        }
                    }
                }
                let n = n.unwrap_or_else(|| "?".into());
                let name = match count {
                    Some(c) => format!("{n}[{c}]"),
                    None => format!("{n}[]"),
                };
                (Some(name), size.or_else(|| Some(elem? * count?)))
            }
            _ => (name, size),
        }
    }

    /// The variables and formal parameters in scope at `pc` (innermost scopes last),
    /// those of the calls inlined there included (see [`Program::frame_variables`] for
    /// one inline frame's).
    pub fn variables_at(&self, pc: u64) -> Result<Vec<Variable>, ProgramError> {
        Ok(self
            .scoped_variables(pc)?
            .0
            .iter()
            .map(|(_, v)| v.clone())
            .collect())
    }

    /// [`Program::variables_at`], each variable with how many inlined calls containing
    /// `pc` it is inside, and the number of inlined calls containing `pc`.
    ///
    /// As gdb (its `inherit_abstract_dies`), a scope with a `DW_AT_abstract_origin` (an
    /// inlined call, a concrete out-of-line instance) also has the parameters and
    /// variables of its origin that it has no DIE of its own for, without a location
    /// (`this=<optimized out>`), after its own.
    fn scoped_variables(&self, pc: u64) -> Result<ScopedVariables, ProgramError> {
        if let Some(known) = self.cached(pc, |d| d.scopes.clone()) {
            return Ok(known);
        }
        let found = std::sync::Arc::new(self.find_scoped_variables(pc)?);
        self.remember(pc, |d| d.scopes = Some(found.clone()));
        Ok(found)
    }

    /// [`Program::scoped_variables`], found in the DIE tree.
    fn find_scoped_variables(
        &self,
        pc: u64,
    ) -> Result<(Vec<(usize, Variable)>, usize), ProgramError> {
        let mut out = Vec::new();
        let mut levels = 0;
        for u in &self.units {
            let mut cur = u.unit.entries();
            // Per depth: whether the scope at that depth contains pc, the function name,
            // how many inlined calls it is in, and its DIE.
            let mut scopes: Vec<(bool, String, usize, gimli::UnitOffset)> = Vec::new();
            // Per variable of this unit in `out`: its scope and abstract origin.
            let mut owners: Vec<(gimli::UnitOffset, Option<gimli::UnitOffset>)> = Vec::new();
            // Scopes containing pc with an abstract origin: (scope, origin, level,
            // function, where its variables start in `out`).
            let mut inheriting = Vec::new();
            let first = out.len();
            while let Some(die) = cur.next_dfs()? {
                let depth = usize::try_from(die.depth()).unwrap_or(0);
                scopes.truncate(depth);
                let parent = scopes.last().cloned();
                let parent_in = parent.as_ref().map(|s| s.0).unwrap_or(true);
                let parent_fn = parent.as_ref().map(|s| s.1.clone()).unwrap_or_default();
                let parent_level = parent.as_ref().map(|s| s.2).unwrap_or(0);
                let tag = die.tag();
                let is_scope = matches!(
                    tag,
                    gimli::DW_TAG_compile_unit
                        | gimli::DW_TAG_subprogram
                        | gimli::DW_TAG_lexical_block
                        | gimli::DW_TAG_inlined_subroutine
                );
                let has_ranges = die.attr(gimli::DW_AT_low_pc).is_some()
                    || die.attr(gimli::DW_AT_ranges).is_some();
                let inside = if is_scope && has_ranges {
                    parent_in && self.die_contains(&u.unit, die, pc)?
                } else if tag == gimli::DW_TAG_subprogram {
                    false // a declaration without code
                } else {
                    parent_in
                };
                let fname = if matches!(
                    tag,
                    gimli::DW_TAG_subprogram | gimli::DW_TAG_inlined_subroutine
                ) {
                    self.origin_name(u, die)
                        .unwrap_or_else(|| parent_fn.clone())
                } else {
                    parent_fn.clone()
                };
                // Locals and parameters only: a variable declared in a namespace
                // or a class (a static member) has no function around it.
                if matches!(tag, gimli::DW_TAG_variable | gimli::DW_TAG_formal_parameter)
                    && parent_in
                    && depth > 1
                    && !parent_fn.is_empty()
                {
                    let origin = match die.attr_value(gimli::DW_AT_abstract_origin) {
                        Some(AttributeValue::UnitRef(off)) => Some(off),
                        _ => None,
                    };
                    let scope = parent.as_ref().map(|s| s.3).unwrap_or(die.offset());
                    owners.push((scope, origin));
                    out.push((parent_level, self.variable(u, die, pc, &parent_fn)?));
                }
                let level = if inside && tag == gimli::DW_TAG_inlined_subroutine {
                    parent_level + 1
                } else {
                    parent_level
                };
                if inside {
                    levels = levels.max(level);
                    if matches!(
                        tag,
                        gimli::DW_TAG_subprogram | gimli::DW_TAG_inlined_subroutine
                    ) && let Some(AttributeValue::UnitRef(o)) =
                        die.attr_value(gimli::DW_AT_abstract_origin)
                    {
                        inheriting.push((die.offset(), o, level, fname.clone(), out.len()));
                    }
                }
                scopes.push((inside, fname, level, die.offset()));
            }
            // Latest first, so that insertions leave earlier positions valid.
            for (scope, origin, level, fname, start) in inheriting.into_iter().rev() {
                let own: Vec<usize> = (start..out.len())
                    .filter(|i| owners[i - first].0 == scope)
                    .collect();
                let have: Vec<_> = own.iter().filter_map(|i| owners[i - first].1).collect();
                let mut at = own.last().map(|i| i + 1).unwrap_or(start);
                let Ok(mut tree) = u.unit.entries_tree(Some(origin)) else {
                    continue;
                };
                let mut children = tree.root()?.children();
                while let Some(child) = children.next()? {
                    let d = child.entry();
                    if !matches!(
                        d.tag(),
                        gimli::DW_TAG_variable | gimli::DW_TAG_formal_parameter
                    ) || have.contains(&d.offset())
                    {
                        continue;
                    }
                    let mut v = self.variable(u, d, pc, &fname)?;
                    v.location = None;
                    out.insert(at, (level, v));
                    owners.insert(at - first, (scope, Some(d.offset())));
                    at += 1;
                }
            }
        }
        Ok((out, levels))
    }

    /// A variable or parameter DIE of unit `u` in function `function` at `pc`. An
    /// inlined subroutine's variables and parameters (and a concrete out-of-line
    /// instance's) have their name, type and constant value on their abstract origin.
    fn variable(
        &self,
        u: &UnitData<'d>,
        die: &gimli::DebuggingInformationEntry<Rd<'d>>,
        pc: u64,
        function: &str,
    ) -> Result<Variable, ProgramError> {
        let origin = match die.attr_value(gimli::DW_AT_abstract_origin) {
            Some(AttributeValue::UnitRef(off)) => u.unit.entry(off).ok(),
            _ => None,
        };
        let typed = match &origin {
            Some(o) if die.attr(gimli::DW_AT_type).is_none() => o,
            _ => die,
        };
        let (type_name, byte_size) = self.type_of(u, typed);
        let location = match die.attr_value(gimli::DW_AT_location) {
            Some(v) => self.location_value(u, v, pc)?,
            None => None,
        };
        Ok(Variable {
            name: self.origin_name(u, die).unwrap_or_default(),
            die: Self::die_offset(u, die.offset()),
            parameter: die.tag() == gimli::DW_TAG_formal_parameter,
            type_name,
            type_die: typed
                .attr_value(gimli::DW_AT_type)
                .and_then(|v| self.ref_offset(u, v)),
            byte_size,
            location,
            const_value: const_value(die).or_else(|| origin.as_ref().and_then(const_value)),
            function: function.to_string(),
        })
    }

    /// Finds the innermost subprogram (or inlined subroutine) DIE at `pc`, calling `f` on it.
    fn innermost<R>(
        &self,
        pc: u64,
        f: impl FnOnce(
            &UnitData<'d>,
            &gimli::DebuggingInformationEntry<Rd<'d>>,
        ) -> Result<R, ProgramError>,
    ) -> Result<Option<R>, ProgramError> {
        for u in &self.units {
            let mut cur = u.unit.entries();
            let mut best: Option<gimli::UnitOffset> = None;
            while let Some(die) = cur.next_dfs()? {
                if matches!(
                    die.tag(),
                    gimli::DW_TAG_subprogram
                        | gimli::DW_TAG_inlined_subroutine
                        | gimli::DW_TAG_entry_point
                ) && self.die_contains(&u.unit, die, pc)?
                {
                    best = Some(die.offset());
                }
            }
            if let Some(off) = best {
                let die = u.unit.entry(off)?;
                return f(u, &die).map(Some);
            }
        }
        Ok(None)
    }

    /// The innermost block at `pc` (a lexical block, inlined subroutine, subprogram or
    /// entry point) as its .debug_info offset; `None` when no DIE covers the PC. Two PCs
    /// with the same block are in the same scope (what gdb compares to place one
    /// breakpoint location per block).
    pub fn block_at(&self, pc: u64) -> Result<Option<u64>, ProgramError> {
        for u in &self.units {
            let mut cur = u.unit.entries();
            let mut best: Option<gimli::UnitOffset> = None;
            while let Some(die) = cur.next_dfs()? {
                if matches!(
                    die.tag(),
                    gimli::DW_TAG_subprogram
                        | gimli::DW_TAG_inlined_subroutine
                        | gimli::DW_TAG_lexical_block
                        | gimli::DW_TAG_entry_point
                ) && self.die_contains(&u.unit, die, pc)?
                {
                    best = Some(die.offset());
                }
            }
            if let Some(off) = best {
                return Ok(off.to_debug_info_offset(&u.unit.header).map(|o| o.0 as u64));
            }
        }
        Ok(None)
    }

    /// Where each inlined copy of a function starts (`DW_TAG_inlined_subroutine`:
    /// `DW_AT_entry_pc`, else `DW_AT_low_pc`, else the start of its first range), for
    /// the copies whose function `matches` (called with the function's `DW_AT_name`
    /// and `DW_AT_linkage_name`, through `DW_AT_abstract_origin`). Sorted, without
    /// repeats.
    pub fn inlined_entries(
        &self,
        matches: impl Fn(&str, Option<&str>) -> bool,
    ) -> Result<Vec<u64>, ProgramError> {
        let mut out = Vec::new();
        for u in &self.units {
            let mut cur = u.unit.entries();
            while let Some(die) = cur.next_dfs()? {
                if die.tag() != gimli::DW_TAG_inlined_subroutine {
                    continue;
                }
                let Some(AttributeValue::UnitRef(off)) =
                    die.attr_value(gimli::DW_AT_abstract_origin)
                else {
                    continue;
                };
                let origin = u.unit.entry(off)?;
                let Some(name) = self.origin_name(u, &origin) else {
                    continue;
                };
                let linkage = origin
                    .attr_value(gimli::DW_AT_linkage_name)
                    .and_then(|v| self.dwarf.attr_string(&u.unit, v).ok())
                    .map(|s| String::from_utf8_lossy(s.slice()).into_owned());
                if !matches(&name, linkage.as_deref()) {
                    continue;
                }
                let mut entry = None;
                for attr in [gimli::DW_AT_entry_pc, gimli::DW_AT_low_pc] {
                    if entry.is_none()
                        && let Some(v) = die.attr_value(attr)
                    {
                        entry = self.dwarf.attr_address(&u.unit, v)?;
                    }
                }
                if entry.is_none() {
                    let mut ranges = self.dwarf.die_ranges(&u.unit, die)?;
                    entry = ranges.next()?.map(|r| r.begin);
                }
                out.extend(entry);
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// Whether `pc` is the first address of a subprogram declared after `line`
    /// (`DW_AT_decl_line > line`): a breakpoint asked for on a line before a function
    /// does not move into it (gdb's rule).
    pub fn function_starts_after(&self, pc: u64, line: u64) -> Result<bool, ProgramError> {
        for u in &self.units {
            let mut cur = u.unit.entries();
            while let Some(die) = cur.next_dfs()? {
                if die.tag() != gimli::DW_TAG_subprogram {
                    continue;
                }
                let Some(low) = die.attr_value(gimli::DW_AT_low_pc) else {
                    continue;
                };
                if self.dwarf.attr_address(&u.unit, low)? != Some(pc) {
                    continue;
                }
                let decl = match die.attr_value(gimli::DW_AT_decl_line) {
                    Some(v) => v.udata_value(),
                    None => None,
                };
                return Ok(decl.is_some_and(|d| d > line));
            }
        }
        Ok(false)
    }

    /// The name of the innermost function at `pc`.
    pub fn function_at(&self, pc: u64) -> Result<Option<String>, ProgramError> {
        Ok(self
            .innermost(pc, |u, d| Ok(self.die_name(u, d)))?
            .flatten())
    }

    /// The return type (a .debug_info offset for [`Program::type_die`]) of the innermost
    /// function at `pc`; `None` for a `void` function or when the DWARF gives none.
    pub fn return_type_at(&self, pc: u64) -> Result<Option<u64>, ProgramError> {
        Ok(self
            .innermost(pc, |u, d| {
                Ok(match d.attr_value(gimli::DW_AT_type) {
                    Some(AttributeValue::UnitRef(off)) => {
                        off.to_debug_info_offset(&u.unit.header).map(|o| o.0 as u64)
                    }
                    Some(AttributeValue::DebugInfoRef(o)) => Some(o.0 as u64),
                    _ => None,
                })
            })?
            .flatten())
    }

    /// The call frame information row at `pc`: `None` when the code object has no
    /// `.debug_frame` or no FDE covers the PC.
    pub fn cfi_row(&self, pc: u64) -> Result<Option<crate::cfi::Row>, ProgramError> {
        match &self.frame {
            Some(f) => Ok(f.row_at(pc)?),
            None => Ok(None),
        }
    }

    /// DW_AT_frame_base of the innermost subprogram at `pc` (inlined subroutines use their
    /// containing subprogram's: the search keeps the last subprogram with one).
    pub fn frame_base_at(&self, pc: u64) -> Result<Option<LocationValue>, ProgramError> {
        if let Some(fb) = self.cached(pc, |d| d.frame_base.clone()) {
            return Ok(fb);
        }
        let fb = self.find_frame_base(pc)?;
        self.remember(pc, |d| d.frame_base = Some(fb.clone()));
        Ok(fb)
    }

    fn find_frame_base(&self, pc: u64) -> Result<Option<LocationValue>, ProgramError> {
        let mut kernel_without_one = false;
        for u in &self.units {
            let mut cur = u.unit.entries();
            let mut found = None;
            while let Some(die) = cur.next_dfs()? {
                if die.tag() != gimli::DW_TAG_subprogram || !self.die_contains(&u.unit, die, pc)? {
                    continue;
                }
                match die.attr_value(gimli::DW_AT_frame_base) {
                    Some(v) => found = self.location_value(u, v, pc)?,
                    None => {
                        if let Some(v) = die.attr_value(gimli::DW_AT_low_pc)
                            && let Some(a) = self.dwarf.attr_address(&u.unit, v)?
                        {
                            kernel_without_one |= self.opts.kernel_entries.contains(&a);
                        }
                    }
                }
            }
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(kernel_without_one.then(|| LocationValue::Exprs(vec![KERNEL_FRAME_BASE.to_vec()])))
    }

    /// The lane attributes of the innermost subprogram at `pc`, accepting both the current
    /// and the older attribute codes. The older codes collide with LLVM's pointer
    /// authentication attributes; they are taken as lane attributes only on subprogram,
    /// inlined-subroutine and entry-point DIEs and only with the right form class
    /// (constant for lanes, exprloc/loclist for lane_pc and active_lane), which the
    /// pointer authentication attributes (on DW_TAG_LLVM_ptrauth_type, constants) never are.
    pub fn lane_attributes_at(&self, pc: u64) -> Result<LaneAttributes, ProgramError> {
        Ok(self
            .innermost(pc, |u, d| {
                let mut la = LaneAttributes::default();
                for attr in d.attrs() {
                    let code = attr.name().0;
                    let v = attr.value();
                    let is_expr = matches!(
                        v,
                        AttributeValue::Exprloc(_)
                            | AttributeValue::LocationListsRef(_)
                            | AttributeValue::SecOffset(_)
                    );
                    match code {
                        at::LANES | at::OLD_LANES
                            if !is_expr || matches!(v, AttributeValue::SecOffset(_)) =>
                        {
                            la.lanes = v.udata_value();
                        }
                        at::LANE_PC | at::OLD_LANE_PC if is_expr => {
                            la.lane_pc = self.location_value(u, v, pc)?
                        }
                        at::OLD_ACTIVE_LANE if is_expr => {
                            la.active_lane = self.location_value(u, v, pc)?
                        }
                        _ => {}
                    }
                }
                Ok(la)
            })?
            .unwrap_or_default())
    }

    /// The base type at a unit offset of the unit containing `pc`, with
    /// DW_AT_LLVM_vector_size (current or older code).
    pub fn base_type(&self, pc: u64, unit_offset: u64) -> Result<BaseType, ErrorKind> {
        let u = self
            .unit_at(pc)
            .or_else(|| self.units.first())
            .ok_or(ErrorKind::Program("no units".into()))?;
        let die = u
            .unit
            .entry(gimli::UnitOffset(unit_offset as usize))
            .map_err(|e| ErrorKind::Program(e.to_string()))?;
        if die.tag() != gimli::DW_TAG_base_type {
            return Err(ErrorKind::Program(format!(
                "DIE {unit_offset:#x} is not a base type"
            )));
        }
        let encoding = match die.attr_value(gimli::DW_AT_encoding) {
            Some(AttributeValue::Encoding(e)) => e.0,
            Some(v) => v.udata_value().unwrap_or(0) as u8,
            None => 0,
        };
        let byte_size = die
            .attr_value(gimli::DW_AT_byte_size)
            .and_then(|v| v.udata_value())
            .unwrap_or(0);
        let vector_size = die
            .attr_value(gimli::DwAt(at::VECTOR_SIZE))
            .or_else(|| die.attr_value(gimli::DwAt(at::OLD_VECTOR_SIZE)))
            .and_then(|v| v.udata_value())
            .unwrap_or(1);
        if byte_size == 0 || vector_size == 0 {
            return Err(ErrorKind::BadBaseType {
                encoding,
                byte_size,
            });
        }
        Ok(BaseType {
            encoding,
            byte_size,
            vector_size,
        })
    }

    fn find_die(&self, off: u64) -> Result<(&UnitData<'d>, gimli::UnitOffset), ProgramError> {
        for u in &self.units {
            if let Some(uo) = gimli::DebugInfoOffset(off as usize).to_unit_offset(&u.unit.header)
                && u.unit.entry(uo).is_ok()
            {
                return Ok((u, uo));
            }
        }
        Err(ProgramError::NoDie(off))
    }

    /// The .debug_line row (file, line) for `pc`.
    pub fn line_at(&self, pc: u64) -> Result<Option<(String, u64)>, ProgramError> {
        for u in &self.units {
            let Some(program) = u.unit.line_program.clone() else {
                continue;
            };
            let mut rows = program.rows();
            let mut prev: Option<(u64, Option<(String, u64)>)> = None;
            while let Some((header, row)) = rows.next_row()? {
                if let Some((addr, info)) = &prev
                    && pc >= *addr
                    && pc < row.address()
                {
                    return Ok(info.clone());
                }
                if row.end_sequence() {
                    prev = None;
                    continue;
                }
                let file = row
                    .file(header)
                    .and_then(|f| self.dwarf.attr_string(&u.unit, f.path_name()).ok())
                    .map(|s| String::from_utf8_lossy(s.slice()).into_owned())
                    .unwrap_or_default();
                let line = row.line().map(|l| l.get()).unwrap_or(0);
                prev = Some((row.address(), Some((file, line))));
            }
        }
        Ok(None)
    }

    /// The simd_width line register at `pc` (DWARF issue 211206.1), when
    /// [`ProgramOptions::simd_width_opcode`] names the opcode; 1 where not set.
    pub fn simd_width_at(&self, pc: u64) -> Result<Option<u64>, ProgramError> {
        let Some(opcode) = self.opts.simd_width_opcode else {
            return Ok(None);
        };
        for u in &self.units {
            let Some(program) = u.unit.line_program.clone() else {
                continue;
            };
            let header = program.header().clone();
            let mut ins = header.instructions();
            let (mut addr, mut width) = (0u64, 1u64);
            let mut last: Option<(u64, u64)> = None;
            let min_len = u64::from(header.minimum_instruction_length());
            let line_range = u64::from(header.line_range().max(1));
            let base = u64::from(header.opcode_base());
            let emit = |addr: u64, width: u64, last: &mut Option<(u64, u64)>| -> Option<u64> {
                let hit = last.and_then(|(a, w)| (pc >= a && pc < addr).then_some(w));
                *last = Some((addr, width));
                hit
            };
            while let Some(i) = ins.next_instruction(&header)? {
                use gimli::LineInstruction as L;
                match i {
                    L::Special(op) => {
                        addr = addr.wrapping_add(min_len * ((u64::from(op) - base) / line_range));
                        if let Some(w) = emit(addr, width, &mut last) {
                            return Ok(Some(w));
                        }
                    }
                    L::Copy => {
                        if let Some(w) = emit(addr, width, &mut last) {
                            return Ok(Some(w));
                        }
                    }
                    L::AdvancePc(n) => addr = addr.wrapping_add(min_len * n),
                    L::ConstAddPc => {
                        addr = addr.wrapping_add(min_len * ((255 - base) / line_range))
                    }
                    L::FixedAddPc(n) => addr = addr.wrapping_add(u64::from(n)),
                    L::SetAddress(a) => addr = a,
                    L::EndSequence => {
                        if let Some(w) = emit(addr, width, &mut last) {
                            return Ok(Some(w));
                        }
                        last = None;
                        width = 1;
                        addr = 0;
                    }
                    L::UnknownStandard1(op, v) if op.0 == opcode => width = v,
                    _ => {}
                }
            }
        }
        Ok(None)
    }

    /// Every DWARF expression in `.debug_info`: each exprloc attribute value and each
    /// entry of each location list, in DIE order.
    pub fn expressions(&self) -> Result<Vec<ExprSite>, ProgramError> {
        let mut out = Vec::new();
        for (ui, u) in self.units.iter().enumerate() {
            let mut cur = u.unit.entries();
            while let Some(die) = cur.next_dfs()? {
                let die_off = die
                    .offset()
                    .to_debug_info_offset(&u.unit.header)
                    .map(|o| o.0 as u64)
                    .unwrap_or(0);
                for attr in die.attrs() {
                    let v = attr.value();
                    match v {
                        AttributeValue::Exprloc(e) => out.push(ExprSite {
                            unit: ui,
                            die: die_off,
                            attr: attr.name().0,
                            range: None,
                            bytes: e.0.slice().to_vec(),
                        }),
                        AttributeValue::LocationListsRef(_)
                        | AttributeValue::DebugLocListsIndex(_) => {
                            if let Some(mut it) = self.dwarf.attr_locations(&u.unit, v)? {
                                while let Some(entry) = it.next()? {
                                    out.push(ExprSite {
                                        unit: ui,
                                        die: die_off,
                                        attr: attr.name().0,
                                        range: Some((entry.range.begin, entry.range.end)),
                                        bytes: entry.data.0.slice().to_vec(),
                                    });
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(out)
    }

    /// The DW_AT_name of the DIE at a unit offset of unit `unit` (for printing typed
    /// operations as `llvm-dwarfdump` does).
    pub fn type_name(&self, unit: usize, unit_offset: u64) -> Option<String> {
        let u = self.units.get(unit)?;
        let die = u.unit.entry(gimli::UnitOffset(unit_offset as usize)).ok()?;
        self.die_name(u, &die)
    }

    /// Prints an expression of unit `unit` in `llvm-dwarfdump-19` syntax.
    pub fn print(&self, unit: usize, bytes: &[u8]) -> String {
        let o = match self.units.get(unit) {
            Some(u) => self.decode_options(u),
            None => DecodeOptions::default(),
        };
        let namer = |off: u64| self.type_name(unit, off);
        crate::text::print_bytes(bytes, Some(&namer), &o)
    }

    /// The dialect chosen for unit `unit`.
    pub fn unit_dialect(&self, unit: usize) -> Option<Dialect> {
        self.units.get(unit).map(|u| u.dialect)
    }

    /// A [`Context`] for evaluating expressions at `pc` of a stopped wave.
    pub fn context<'p, T: Target + ?Sized>(
        &'p self,
        pc: u64,
        target: &'p T,
    ) -> ProgramContext<'p, 'd, T> {
        ProgramContext {
            program: self,
            pc,
            target,
            cache: RefCell::new(HashMap::new()),
        }
    }
}

/// The bytes of a DIE's DW_AT_const_value (a block, or a constant in little-endian order).
fn const_value(die: &gimli::DebuggingInformationEntry<Rd<'_>>) -> Option<Vec<u8>> {
    match die.attr_value(gimli::DW_AT_const_value)? {
        AttributeValue::Block(b) => Some(b.slice().to_vec()),
        AttributeValue::Data1(x) => Some(vec![x]),
        AttributeValue::Data2(x) => Some(x.to_le_bytes().to_vec()),
        AttributeValue::Data4(x) => Some(x.to_le_bytes().to_vec()),
        AttributeValue::Data8(x) => Some(x.to_le_bytes().to_vec()),
        AttributeValue::Sdata(x) => Some(x.to_le_bytes().to_vec()),
        AttributeValue::Udata(x) => Some(x.to_le_bytes().to_vec()),
        _ => None,
    }
}

/// Chooses the dialect of a unit: generation A when the unit's augmentation string (the
/// older DW_AT_LLVM_augmentation) is `[llvm:v0.0]` or `[amd:v0.0]`, else generation C.
fn unit_dialect<'d>(dwarf: &gimli::Dwarf<Rd<'d>>, unit: &gimli::Unit<Rd<'d>>) -> Dialect {
    let mut cur = unit.entries();
    if let Ok(Some(cu)) = cur.next_dfs()
        && let Some(v) = cu.attr_value(gimli::DwAt(at::OLD_AUGMENTATION))
        && let Ok(s) = dwarf.attr_string(unit, v)
    {
        let s = String::from_utf8_lossy(s.slice());
        if s.contains("[llvm:v0.") || s.contains("[amd:v0.") {
            return Dialect::SingleByte;
        }
    }
    Dialect::User
}

/// Program data at one PC of one wave, as a [`Context`].
pub struct ProgramContext<'p, 'd, T: Target + ?Sized> {
    program: &'p Program<'d>,
    pc: u64,
    target: &'p T,
    cache: RefCell<HashMap<DieRef, Callee>>,
}

impl<'p, 'd, T: Target + ?Sized> ProgramContext<'p, 'd, T> {
    fn decode_all(&self, exprs: &[Vec<u8>]) -> Result<Vec<Arc<Expr>>, ErrorKind> {
        let o = self.program.decode_options_at(self.pc);
        exprs
            .iter()
            .map(|b| Expr::decode(b, &o).map(Arc::new).map_err(|e| e.kind))
            .collect()
    }

    fn row(&self) -> Result<crate::cfi::Row, ErrorKind> {
        let f = self.program.frame.as_ref().ok_or(ErrorKind::Unavailable {
            op: "DW_OP_call_frame_cfa",
            what: ".debug_frame",
        })?;
        f.row_at(self.pc)
            .map_err(|e| ErrorKind::Program(e.to_string()))?
            .ok_or(ErrorKind::Unavailable {
                op: "DW_OP_call_frame_cfa",
                what: "an FDE for the PC",
            })
    }

    fn cfi_eval(
        &self,
        bytes: &[u8],
        initial: &[Entry],
        kind: ResultKind,
    ) -> Result<Outcome, ErrorKind> {
        let o = self.program.decode_options_at(self.pc);
        let e = Expr::decode(bytes, &o).map_err(|e| e.kind)?;
        // CFI expressions may not use program data (seed, "Call Frame Instructions").
        let opts = EvalOptions {
            decode: o,
            ..EvalOptions::default()
        };
        let mut ev = Evaluator::new(self.target, &NoContext, opts);
        ev.evaluate(&e, kind, initial).map_err(|e| e.kind)
    }
}

impl<'p, 'd, T: Target + ?Sized> Context for ProgramContext<'p, 'd, T> {
    fn callee(&self, die: DieRef) -> Result<Callee, ErrorKind> {
        if let Some(c) = self.cache.borrow().get(&die) {
            return Ok(c.clone());
        }
        let p = self.program;
        let (u, uo) = match die {
            DieRef::Info(off) => p.find_die(off)?,
            DieRef::Unit(off) => {
                let u = p
                    .unit_at(self.pc)
                    .or_else(|| p.units.first())
                    .ok_or(ErrorKind::Program("no units".into()))?;
                (u, gimli::UnitOffset(off as usize))
            }
        };
        let d = u
            .unit
            .entry(uo)
            .map_err(|e| ErrorKind::Program(e.to_string()))?;
        let procedure = d.tag() == gimli::DW_TAG_dwarf_procedure;
        let exprs = match d.attr_value(gimli::DW_AT_location) {
            Some(v) => match p.location_value(u, v, self.pc)? {
                Some(LocationValue::Exprs(e)) => e,
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        let c = Callee {
            exprs: self.decode_all(&exprs)?.into(),
            procedure,
        };
        self.cache.borrow_mut().insert(die, c.clone());
        Ok(c)
    }

    fn base_type(&self, die: u64) -> Result<BaseType, ErrorKind> {
        self.program.base_type(self.pc, die)
    }

    fn frame_base(&self) -> Result<Arc<Expr>, ErrorKind> {
        match self.program.frame_base_at(self.pc)? {
            Some(LocationValue::Exprs(e)) => {
                self.decode_all(&e[..1.min(e.len())])?
                    .pop()
                    .ok_or(ErrorKind::Unavailable {
                        op: "DW_OP_fbreg",
                        what: "a frame base",
                    })
            }
            _ => Err(ErrorKind::Unavailable {
                op: "DW_OP_fbreg",
                what: "a frame base for the PC",
            }),
        }
    }

    fn call_frame_cfa(&self) -> Result<Loc, ErrorKind> {
        match self.row()?.cfa {
            CfaRule::Register { reg, offset, space } => {
                let space =
                    AddressSpace::from_dwarf(space).ok_or(ErrorKind::UnknownAddressSpace(space))?;
                let size = register_size(reg)
                    .ok_or(ErrorKind::UnknownRegister(reg))?
                    .min(8) as usize;
                let mut b = [0u8; 8];
                self.target.read_register(reg as u32, 0, &mut b[..size])?;
                let a = u64::from_le_bytes(b).wrapping_add(offset as u64) & space.address_mask();
                Ok(Loc::One(Single::memory(space, a)))
            }
            CfaRule::Expression(e) => match self.cfi_eval(&e, &[], ResultKind::Location)? {
                Outcome::Location(l) => Ok(l),
                Outcome::Value(_) => Err(ErrorKind::BadResult("CFA is not a location")),
            },
        }
    }

    fn entry_register(&self, reg: u64) -> Result<Loc, ErrorKind> {
        let row = match self.row() {
            Ok(r) => r,
            // No CFI: the target's default rule, same value.
            Err(ErrorKind::Unavailable { .. }) => {
                return Ok(Loc::One(Single::register(reg as u32)));
            }
            Err(e) => return Err(e),
        };
        let rule = row
            .registers
            .get(&reg)
            .cloned()
            .unwrap_or(RegisterRule::SameValue);
        let cfa = || self.call_frame_cfa();
        Ok(match rule {
            RegisterRule::Undefined => Loc::One(Single::undefined()),
            RegisterRule::SameValue => Loc::One(Single::register(reg as u32)),
            RegisterRule::Register(r) => Loc::One(Single::register(r as u32)),
            RegisterRule::Offset(n) => {
                cfa()?.map(|s| s.offset_by(i128::from(n) * 8, "CFI offset rule"))?
            }
            RegisterRule::ValOffset(n) => {
                let c = cfa()?;
                let a = (c.first().offset / 8) as u64;
                Loc::One(Single::implicit(
                    a.wrapping_add(n as u64).to_le_bytes().to_vec(),
                ))
            }
            // The CFA is pushed for the expression rules; one that cannot be computed in
            // this frame is pushed undefined (an expression that uses it fails then).
            RegisterRule::Expression(e) => {
                let c = cfa().unwrap_or_else(|_| Loc::One(Single::undefined()));
                match self.cfi_eval(&e, &[Entry::Loc(c)], ResultKind::Location)? {
                    Outcome::Location(l) => l,
                    Outcome::Value(_) => return Err(ErrorKind::BadResult("not a location")),
                }
            }
            RegisterRule::ValExpression(e) => {
                let c = cfa().unwrap_or_else(|_| Loc::One(Single::undefined()));
                match self.cfi_eval(&e, &[Entry::Loc(c)], ResultKind::Value)? {
                    Outcome::Value(v) => Loc::One(Single::implicit(v.to_bytes(8))),
                    Outcome::Location(_) => return Err(ErrorKind::BadResult("not a value")),
                }
            }
        })
    }

    fn address(&self, index: u64) -> Result<u64, ErrorKind> {
        let p = self.program;
        let u = p
            .unit_at(self.pc)
            .or_else(|| p.units.first())
            .ok_or(ErrorKind::Program("no units".into()))?;
        p.dwarf
            .address(&u.unit, gimli::DebugAddrIndex(index as usize))
            .map(|a| self.relocate(a))
            .map_err(|e| ErrorKind::Program(e.to_string()))
    }

    /// An address operand inside one of the code object's data objects is where the
    /// loader put that object (see [`ProgramOptions::data_objects`]).
    fn relocate(&self, addr: u64) -> u64 {
        if self.program.opts.is_data_object(addr) {
            addr.wrapping_add(self.target.code_bias())
        } else {
            addr
        }
    }

    fn pointer_target(&self, die: u64) -> Result<PointerTarget, ErrorKind> {
        let p = self.program;
        let (u, uo) = p.find_die(die)?;
        let d = u
            .unit
            .entry(uo)
            .map_err(|e| ErrorKind::Program(e.to_string()))?;
        if let Some(v) = d.attr_value(gimli::DW_AT_location) {
            return match p.location_value(u, v, self.pc)? {
                Some(LocationValue::Exprs(e)) => Ok(PointerTarget::Location(self.decode_all(&e)?)),
                _ => Err(ErrorKind::Unavailable {
                    op: "implicit pointer",
                    what: "a location for the PC",
                }),
            };
        }
        match d.attr_value(gimli::DW_AT_const_value) {
            Some(AttributeValue::Block(b)) => Ok(PointerTarget::Const(b.slice().into())),
            Some(v) => match v
                .udata_value()
                .or_else(|| v.sdata_value().map(|x| x as u64))
            {
                Some(x) => Ok(PointerTarget::Const(x.to_le_bytes().to_vec().into())),
                None => Err(ErrorKind::Unavailable {
                    op: "implicit pointer",
                    what: "a constant value",
                }),
            },
            None => Err(ErrorKind::Unavailable {
                op: "implicit pointer",
                what: "DW_AT_location or DW_AT_const_value",
            }),
        }
    }
}

//! Lane positions from DWARF: `DW_AT_LLVM_lane_pc`, `DW_AT_LLVM_active_lane` and
//! `DW_AT_LLVM_lanes` of the function a stopped wave is in, evaluated against the wave.
//!
//! The rules are those of the AMDGPU extension (LLVM AMDGPU usage guide, "Debugging
//! Information Entry Attributes", "AMDGPU DW_AT_LLVM_lane_pc", "AMDGPU
//! DW_AT_LLVM_active_lane") and of the DWARF 6 proposal for `DW_AT_lane_pc` /
//! `DW_AT_active_lane`:
//!
//! - the DIE is the innermost `DW_TAG_subprogram`, `DW_TAG_inlined_subroutine` or
//!   `DW_TAG_entry_point` whose ranges contain the PC;
//! - each attribute is an expression (`DW_FORM_exprloc`) or a location list
//!   (`DW_FORM_sec_offset` into `.debug_loclists`, or `.debug_loc` for DWARF 4 and
//!   earlier units, `DW_FORM_loclistx`, and `DW_FORM_data4`/`data8` in DWARF 2-3 units);
//!   the expression whose entry covers the PC is selected. gimli hands the value of a
//!   vendor attribute back as it was encoded (a section offset, a list index), so this
//!   module resolves the list itself;
//! - `DW_AT_LLVM_lane_pc` evaluates to a location description of a vector of `lanes`
//!   8-byte generic elements: element `n` is lane `n`'s program location, and an
//!   *undefined* element means the lane was not active on entry to the frame;
//! - `DW_AT_LLVM_active_lane` evaluates to a location description read as a `lanes`-bit
//!   mask (a value, through `DW_OP_stack_value`, is an implicit location); without it the
//!   hardware execution mask is the active mask. A location list with no entry for the PC
//!   is read the same way: nothing is said there, so EXEC applies;
//! - `DW_AT_LLVM_lanes` gives the lane count; without it, the wave size.
//!
//! The DWARF is ill-formed, and the evaluation a typed error ([`LanePcError`]), when a
//! result is not exactly one single location description (several location-list entries
//! covering the PC count as several), when the lane vector is not `lanes` x 64 bits, when
//! an element is partly defined, and when the active mask is not fully defined.
//!
//! Attribute codes: `DW_AT_LLVM_lane_pc` 0x3e12 (current LLVM) and 0x3e0b (older AMD
//! output), `DW_AT_LLVM_lanes` 0x3e11 and 0x3e0a, `DW_AT_LLVM_active_lane` 0x3e08 (the only
//! code it ever had). The older codes collide with LLVM's pointer-authentication
//! attributes, so they are taken as lane attributes only with the form class of one
//! (a location or list for lane_pc/active_lane, a constant for lanes); a current code with
//! the wrong class is an error. The DWARF 6 attributes (`DW_AT_lane_pc`,
//! `DW_AT_active_lane`, `DW_AT_lanes`) have no codes yet: [`LanePcOptions::dwarf6`] assigns
//! them.
//!
//! Procedures (`DW_OP_call2/call4/call_ref` of a `DW_TAG_dwarf_procedure`) and artificial
//! variables whose location lists the procedures call (the saved execution masks of the
//! usage guide's example) are decoded once, when the index is built; an evaluation then
//! does a binary search for the DIE, one for the list entry, and runs the expressions.
//!
//! [`LanePcIndex::evaluate`] describes the frame the wave stopped in: the result says
//! which lanes are undefined there. [`LanePcIndex::evaluate_unwound`] ([`unwind`]) then
//! walks the caller frames with the call frame information, as the usage guide's "the
//! debugger may repeatedly unwind the stack" describes.

use crate::target::WaveTarget;
use amdgpu_codeobj::CodeObject;
use amdgpu_dwarf::eval::{Callee, Context, DieRef, FastMap, PointerTarget};
use amdgpu_dwarf::location::{Loc, ReadBits, Storage, read_object, read_words};
use amdgpu_dwarf::op::{DecodeOptions, Expr};
use amdgpu_dwarf::program::{Program, ProgramContext, ProgramError, ProgramOptions, at};
use amdgpu_dwarf::value::BaseType;
use amdgpu_dwarf::{ErrorKind, EvalOptions, Evaluator, Target};
use gimli::{AttributeValue, EndianSlice, LittleEndian};
use std::sync::Arc;

pub mod unwind;
pub use unwind::{Frame, UnwindEnd, Unwound};

type Rd<'d> = EndianSlice<'d, LittleEndian>;

/// Which attribute a result or an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaneAttr {
    /// `DW_AT_LLVM_lane_pc` (DWARF 6: `DW_AT_lane_pc`).
    LanePc,
    /// `DW_AT_LLVM_active_lane` (DWARF 6: `DW_AT_active_lane`).
    ActiveLane,
    /// `DW_AT_LLVM_lanes` (DWARF 6: `DW_AT_lanes`).
    Lanes,
}

impl std::fmt::Display for LaneAttr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LaneAttr::LanePc => "DW_AT_LLVM_lane_pc",
            LaneAttr::ActiveLane => "DW_AT_LLVM_active_lane",
            LaneAttr::Lanes => "DW_AT_LLVM_lanes",
        })
    }
}

/// Why lane positions could not be read from DWARF.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LanePcError {
    /// The code object could not be parsed.
    #[error("code object: {0}")]
    CodeObject(String),
    /// The DWARF sections could not be read.
    #[error("{0}")]
    Program(#[from] ProgramError),
    /// No subprogram, inlined subroutine or entry point contains the PC.
    #[error("no subprogram contains pc {0:#x}")]
    NoScope(u64),
    /// An attribute has a form of the wrong class (e.g. a constant for lane_pc).
    #[error("DIE {die:#x}: {attr} has form {form}, not an expression or location list")]
    BadForm {
        /// The DIE.
        die: u64,
        /// The attribute.
        attr: LaneAttr,
        /// The form's value as gimli read it.
        form: String,
    },
    /// `DW_AT_LLVM_lanes` is not a lane count of a wave (1 to 64).
    #[error("DIE {die:#x}: DW_AT_LLVM_lanes is {lanes}, not 1 to 64")]
    BadLanes {
        /// The DIE.
        die: u64,
        /// The value.
        lanes: u64,
    },
    /// A location list could not be read.
    #[error("DIE {die:#x}: {attr}: location list: {why}")]
    List {
        /// The DIE.
        die: u64,
        /// The attribute.
        attr: LaneAttr,
        /// gimli's error.
        why: String,
    },
    /// The selected expression could not be decoded or evaluated.
    #[error("{attr} at pc {pc:#x}: {error}")]
    Eval {
        /// The attribute.
        attr: LaneAttr,
        /// The PC.
        pc: u64,
        /// The evaluator's error.
        error: amdgpu_dwarf::Error,
    },
    /// The result is not exactly one single location description (several list entries
    /// cover the PC, or the expression left several alternatives).
    #[error("{attr} at pc {pc:#x}: {count} location descriptions, exactly one is required")]
    NotSingle {
        /// The attribute.
        attr: LaneAttr,
        /// The PC.
        pc: u64,
        /// How many there were.
        count: usize,
    },
    /// The lane vector does not have `lanes` elements of 64 bits.
    #[error("{attr} at pc {pc:#x}: the location holds {bits} bits, {needed} are required")]
    WrongSize {
        /// The attribute.
        attr: LaneAttr,
        /// The PC.
        pc: u64,
        /// Bits the location holds.
        bits: u128,
        /// Bits required.
        needed: u128,
    },
    /// Reading through the resulting location failed.
    #[error("{attr} at pc {pc:#x}: reading the result: {error}")]
    Read {
        /// The attribute.
        attr: LaneAttr,
        /// The PC.
        pc: u64,
        /// What went wrong.
        error: ErrorKind,
    },
    /// A lane's element of DW_AT_LLVM_lane_pc is partly defined.
    #[error("DW_AT_LLVM_lane_pc at pc {pc:#x}: the element of lane {lane} is partly defined")]
    PartlyDefined {
        /// The PC.
        pc: u64,
        /// The lane.
        lane: u32,
    },
    /// The active mask read from DW_AT_LLVM_active_lane has undefined bits.
    #[error("DW_AT_LLVM_active_lane at pc {pc:#x}: the mask has undefined bits")]
    UndefinedMask {
        /// The PC.
        pc: u64,
    },
    /// The wave target could not be built.
    #[error("{0}")]
    Wave(#[from] crate::target::WaveTargetError),
}

/// Codes for the DWARF 6 lane attributes, whose codes are still unassigned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dwarf6Codes {
    /// `DW_AT_lane_pc`.
    pub lane_pc: Option<u16>,
    /// `DW_AT_active_lane`.
    pub active_lane: Option<u16>,
    /// `DW_AT_lanes`.
    pub lanes: Option<u16>,
}

/// How to read the lane attributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LanePcOptions {
    /// How to read the program data (dialect of the LLVM operations, extensions).
    pub program: ProgramOptions,
    /// Codes for the DWARF 6 names.
    pub dwarf6: Dwarf6Codes,
}

/// Where the active mask came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskSource {
    /// `DW_AT_LLVM_active_lane`.
    Attribute,
    /// The hardware execution mask (no attribute, or no list entry for the PC).
    Exec,
}

/// The lane positions `DW_AT_LLVM_lane_pc` gives, or why there are none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Positions {
    /// One element per lane: its program location, or `None` (undefined: the lane was not
    /// active on entry to the frame).
    Lanes(Vec<Option<u64>>),
    /// The DIE has no `DW_AT_LLVM_lane_pc`: the thread is not used in a SIMT manner, its
    /// program location is the PC.
    NoAttribute,
    /// `DW_AT_LLVM_lane_pc` is a location list with no entry for the PC.
    NotAtPc,
}

/// The lane positions of a stopped wave, from DWARF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LanePcs {
    /// The wave's PC (link-time).
    pub pc: u64,
    /// `.debug_info` offset of the DIE whose attributes were evaluated.
    pub die: u64,
    /// Its `DW_AT_name`.
    pub function: Option<Arc<str>>,
    /// Whether the DIE is a kernel's (`DW_CC_LLVM_OpenCLKernel`): a frame without caller.
    pub kernel: bool,
    /// The lane count.
    pub lanes: u32,
    /// The conceptual active mask.
    pub active: u64,
    /// Where it came from.
    pub active_source: MaskSource,
    /// The positions.
    pub positions: Positions,
}

impl LanePcs {
    /// Lane `lane`'s program location: from DW_AT_LLVM_lane_pc when it describes the PC,
    /// else the PC for an active lane.
    pub fn position(&self, lane: u32) -> Option<u64> {
        match &self.positions {
            Positions::Lanes(v) => v.get(lane as usize).copied().flatten(),
            _ => (self.active >> lane & 1 != 0).then_some(self.pc),
        }
    }
}

/// One location-list entry, decoded.
#[derive(Debug, Clone)]
struct ListEntry {
    begin: u64,
    end: u64,
    expr: Result<Arc<Expr>, amdgpu_dwarf::Error>,
}

/// A lane attribute's value, decoded.
#[derive(Debug, Clone)]
enum AttrExpr {
    Expr(Result<Arc<Expr>, amdgpu_dwarf::Error>),
    List {
        entries: Vec<ListEntry>,
        /// No two entries overlap (so a binary search finds the only one).
        disjoint: bool,
    },
    Bad(LanePcError),
}

/// A DIE that can carry lane attributes.
#[derive(Debug, Clone)]
struct Scope {
    unit: usize,
    die: u64,
    name: Option<Arc<str>>,
    /// `DW_AT_calling_convention` is `DW_CC_LLVM_OpenCLKernel`: a kernel, the outermost
    /// frame.
    kernel: bool,
    lanes: Option<Result<u32, LanePcError>>,
    lane_pc: Option<AttrExpr>,
    active_lane: Option<AttrExpr>,
}

/// What a DW_OP_call* may reach, decoded.
#[derive(Debug, Clone)]
enum CalleeAt {
    Fixed(Callee),
    List {
        entries: Vec<(u64, u64, Callee)>,
        none: Callee,
    },
    /// Overlapping entries: the program data answers per PC.
    Overlapping,
    Broken(amdgpu_dwarf::Error),
}

struct UnitInfo {
    /// `.debug_info` offset of the unit header.
    base: u64,
    eval: EvalOptions,
    base_types: FastMap<u64, BaseType>,
}

/// The lane attributes of a code object's DWARF, indexed for evaluation at any PC.
pub struct LanePcIndex<'d> {
    program: Program<'d>,
    units: Vec<UnitInfo>,
    scopes: Vec<Scope>,
    /// Non-overlapping PC segments `[begin, end)` and the innermost scope there.
    segments: Vec<(u64, u64, usize)>,
    callees: FastMap<u64, CalleeAt>,
}

impl std::fmt::Debug for LanePcIndex<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanePcIndex")
            .field("units", &self.units.len())
            .field("scopes", &self.scopes.len())
            .field("callees", &self.callees.len())
            .finish()
    }
}

fn gimli_err(e: gimli::Error) -> LanePcError {
    LanePcError::Program(ProgramError::Gimli(e.to_string()))
}

impl<'d> LanePcIndex<'d> {
    /// Indexes the DWARF of a code object (`.debug_*` sections).
    pub fn new(co: &CodeObject<'d>, opts: &LanePcOptions) -> Result<Self, LanePcError> {
        Self::from_sections(|name| co.section_data(name), opts)
    }

    /// Indexes DWARF given by a section loader (`name -> bytes`).
    pub fn from_sections(
        section: impl Fn(&str) -> Option<&'d [u8]>,
        opts: &LanePcOptions,
    ) -> Result<Self, LanePcError> {
        let program = Program::load(&section, opts.program.clone())?;
        let dwarf = gimli::Dwarf::load(|id: gimli::SectionId| -> Result<Rd<'d>, gimli::Error> {
            Ok(Rd::new(section(id.name()).unwrap_or(&[]), LittleEndian))
        })
        .map_err(gimli_err)?;
        let mut index = LanePcIndex {
            program,
            units: Vec::new(),
            scopes: Vec::new(),
            segments: Vec::new(),
            callees: FastMap::default(),
        };
        let mut ranges: Vec<(u64, u64, usize, usize)> = Vec::new(); // begin, end, depth, scope
        let mut headers = dwarf.units();
        let mut ui = 0usize;
        while let Some(header) = headers.next().map_err(gimli_err)? {
            let unit = dwarf.unit(header).map_err(gimli_err)?;
            let base = unit.header.offset().0 as u64;
            let decode = DecodeOptions {
                address_size: unit.encoding().address_size,
                offset_size: unit.encoding().format.word_size(),
                dialect: index.program.unit_dialect(ui).unwrap_or_default(),
                extensions: opts.program.extensions.clone(),
            };
            let mut info = UnitInfo {
                base,
                eval: EvalOptions {
                    decode: decode.clone(),
                    ..EvalOptions::default()
                },
                base_types: FastMap::default(),
            };
            index.index_unit(&dwarf, &unit, ui, &decode, opts, &mut info, &mut ranges)?;
            index.units.push(info);
            ui += 1;
        }
        index.segments = segments(&ranges);
        Ok(index)
    }

    /// Indexes unit `ui`: the base types, what each DIE with a location calls
    /// (`callees`), and each subprogram, inlined subroutine and entry point with its
    /// lane attributes (`scopes`) and address ranges (pushed on `ranges`).
    #[allow(clippy::too_many_arguments)]
    fn index_unit(
        &mut self,
        dwarf: &gimli::Dwarf<Rd<'d>>,
        unit: &gimli::Unit<Rd<'d>>,
        ui: usize,
        decode: &DecodeOptions,
        opts: &LanePcOptions,
        info: &mut UnitInfo,
        ranges: &mut Vec<(u64, u64, usize, usize)>,
    ) -> Result<(), LanePcError> {
        let u = UnitDwarf {
            dwarf,
            unit,
            version: unit.header.version(),
            decode,
        };
        let mut cur = unit.entries();
        // The enclosing subprograms (depth, a kernel's): an inlined subroutine is in its
        // subprogram's frame.
        let mut frames: Vec<(usize, bool)> = Vec::new();
        while let Some(die) = cur.next_dfs().map_err(gimli_err)? {
            let depth = usize::try_from(die.depth()).unwrap_or(0);
            while frames.last().is_some_and(|&(d, _)| d >= depth) {
                frames.pop();
            }
            let uoff = die.offset().0 as u64;
            let off = info.base + uoff;
            let tag = die.tag();
            if tag == gimli::DW_TAG_base_type
                && let Some(bt) = base_type(die)
            {
                info.base_types.insert(uoff, bt);
            }
            if let Some(v) = die.attr_value(gimli::DW_AT_location) {
                let procedure = tag == gimli::DW_TAG_dwarf_procedure;
                self.callees.insert(off, u.callee_at(&v, procedure));
            }
            if !matches!(
                tag,
                gimli::DW_TAG_subprogram
                    | gimli::DW_TAG_inlined_subroutine
                    | gimli::DW_TAG_entry_point
            ) {
                continue;
            }
            let mut scope = Scope {
                unit: ui,
                die: off,
                name: die
                    .attr_value(gimli::DW_AT_name)
                    .and_then(|v| dwarf.attr_string(unit, v).ok())
                    .map(|s| String::from_utf8_lossy(s.slice()).into()),
                lanes: None,
                lane_pc: None,
                active_lane: None,
                kernel: if tag == gimli::DW_TAG_inlined_subroutine {
                    frames.last().is_some_and(|&(_, k)| k)
                } else {
                    is_kernel(die)
                },
            };
            if tag != gimli::DW_TAG_inlined_subroutine {
                frames.push((depth, scope.kernel));
            }
            u.lane_attributes(die, off, &opts.dwarf6, &mut scope);
            let si = self.scopes.len();
            let mut rs = dwarf.die_ranges(unit, die).map_err(gimli_err)?;
            while let Some(r) = rs.next().map_err(gimli_err)? {
                if r.begin < r.end {
                    ranges.push((r.begin, r.end, depth, si));
                }
            }
            self.scopes.push(scope);
        }
        Ok(())
    }

    /// The program data (for the caller's other uses).
    pub fn program(&self) -> &Program<'d> {
        &self.program
    }

    /// Whether any function or inlined subroutine has `DW_AT_LLVM_lane_pc` or
    /// `DW_AT_LLVM_active_lane` (in either encoding, or the DWARF 6 names).
    pub fn has_lane_attributes(&self) -> bool {
        self.scopes
            .iter()
            .any(|s| s.lane_pc.is_some() || s.active_lane.is_some())
    }

    fn scope_at(&self, pc: u64) -> Option<&Scope> {
        let i = self.segments.partition_point(|s| s.0 <= pc);
        let (b, e, s) = *self.segments.get(i.checked_sub(1)?)?;
        (pc >= b && pc < e).then(|| &self.scopes[s])
    }

    /// Evaluates the lane attributes of the function the wave of `target` is in, at its PC.
    pub fn evaluate<T: Target + ?Sized>(&self, target: &T) -> Result<LanePcs, LanePcError> {
        let target = &PcOnce {
            inner: target,
            pc: std::cell::Cell::new(None),
        };
        let pc = target.pc();
        let scope = self.scope_at(pc).ok_or(LanePcError::NoScope(pc))?;
        let lanes = match &scope.lanes {
            Some(Ok(n)) => *n,
            Some(Err(e)) => return Err(e.clone()),
            None => target.wave_size().clamp(1, 64),
        };
        let full = if lanes >= 64 {
            u64::MAX
        } else {
            (1u64 << lanes) - 1
        };
        let unit = &self.units[scope.unit];
        let ctx = FrameContext {
            index: self,
            base: unit.base,
            base_types: &unit.base_types,
            pc,
            program: self.program.context(pc, target),
        };
        let mut ev = Evaluator::new(target, &ctx, unit.eval.clone());
        let mut active_source = MaskSource::Exec;
        let mut active = target.exec() & full;
        if let Some(a) = &scope.active_lane
            && let Some(e) = select(a, pc, LaneAttr::ActiveLane)?
        {
            let attr = LaneAttr::ActiveLane;
            let loc = ev
                .location(e)
                .map_err(|error| LanePcError::Eval { attr, pc, error })?;
            let bits = read_single(target, &loc, u128::from(lanes), attr, pc)?;
            if !bits.defined.all() {
                return Err(LanePcError::UndefinedMask { pc });
            }
            let mut m = 0u64;
            for (i, b) in bits.data.iter().by_vals().enumerate() {
                m |= u64::from(b) << i;
            }
            active = m & full;
            active_source = MaskSource::Attribute;
        }
        let positions = match &scope.lane_pc {
            None => Positions::NoAttribute,
            Some(a) => match select(a, pc, LaneAttr::LanePc)? {
                None => Positions::NotAtPc,
                Some(e) => {
                    let attr = LaneAttr::LanePc;
                    let loc =
                        ev.location(e)
                            .map_err(|error| LanePcError::Eval { attr, pc, error })?;
                    let nbits = u128::from(lanes) * 64;
                    check_single(&loc, nbits, attr, pc)?;
                    // A lane vector of PCs straight into elements; anything else (and
                    // every error) the general way.
                    match read_words(target, &loc, lanes as usize) {
                        Some(w) => Positions::Lanes(w),
                        None => {
                            let bits = read_object(target, &loc, nbits as usize)
                                .map_err(|error| LanePcError::Read { attr, pc, error })?;
                            Positions::Lanes(elements(&bits, lanes, pc)?)
                        }
                    }
                }
            },
        };
        Ok(LanePcs {
            pc,
            die: scope.die,
            function: scope.name.clone(),
            kernel: scope.kernel,
            lanes,
            active,
            active_source,
            positions,
        })
    }

    /// [`LanePcIndex::evaluate_unwound`] for wave `wave` of a stopped session.
    pub fn wave_unwound(
        &self,
        session: &amdgpu_sim::debug::Session<'_>,
        device: &amdgpu_sim::Device,
        wave: u32,
        load_bias: u64,
    ) -> Result<Unwound, LanePcError> {
        let t = WaveTarget::new(session, device, wave, 0, load_bias)?;
        self.evaluate_unwound(&t)
    }

    /// [`LanePcIndex::evaluate`] for wave `wave` of a stopped session.
    pub fn wave(
        &self,
        session: &amdgpu_sim::debug::Session<'_>,
        device: &amdgpu_sim::Device,
        wave: u32,
        load_bias: u64,
    ) -> Result<LanePcs, LanePcError> {
        let t = WaveTarget::new(session, device, wave, 0, load_bias)?;
        self.evaluate(&t)
    }
}

/// A target whose PC register is read once per evaluation: the lane vector holds it for
/// every active lane, and reading it through the target each time costs more than the
/// rest of the element.
struct PcOnce<'t, T: Target + ?Sized> {
    inner: &'t T,
    pc: std::cell::Cell<Option<[u8; 8]>>,
}

impl<T: Target + ?Sized> Target for PcOnce<'_, T> {
    fn wave_size(&self) -> u32 {
        self.inner.wave_size()
    }
    fn lane(&self) -> u32 {
        self.inner.lane()
    }
    fn pc(&self) -> u64 {
        self.inner.pc()
    }
    fn exec(&self) -> u64 {
        self.inner.exec()
    }
    fn frame(&self) -> u32 {
        self.inner.frame()
    }
    fn code_bias(&self) -> u64 {
        self.inner.code_bias()
    }
    fn read_register(
        &self,
        reg: u32,
        offset: u64,
        buf: &mut [u8],
    ) -> Result<(), amdgpu_dwarf::TargetError> {
        if reg != amdgpu_dwarf::Register::PC {
            return self.inner.read_register(reg, offset, buf);
        }
        let bytes = match self.pc.get() {
            Some(b) => b,
            None => {
                let mut b = [0u8; 8];
                self.inner.read_register(reg, 0, &mut b)?;
                self.pc.set(Some(b));
                b
            }
        };
        let at = usize::try_from(offset).ok();
        match at.and_then(|o| bytes.get(o..o.checked_add(buf.len())?)) {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => self.inner.read_register(reg, offset, buf),
        }
    }
    fn read_memory(
        &self,
        space: amdgpu_dwarf::MemorySpace,
        addr: u64,
        buf: &mut [u8],
    ) -> Result<(), amdgpu_dwarf::TargetError> {
        self.inner.read_memory(space, addr, buf)
    }
    fn resolve_generic(&self, addr: u64) -> (amdgpu_dwarf::target::GenericTarget, u64) {
        self.inner.resolve_generic(addr)
    }
    fn tls_address(&self, offset: u64) -> Option<u64> {
        self.inner.tls_address(offset)
    }
}

/// Splits possibly nested ranges into disjoint segments, each with the innermost
/// (deepest, then last in DIE order) range covering it.
fn segments(ranges: &[(u64, u64, usize, usize)]) -> Vec<(u64, u64, usize)> {
    let mut cuts: Vec<u64> = ranges.iter().flat_map(|r| [r.0, r.1]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut by_begin: Vec<&(u64, u64, usize, usize)> = ranges.iter().collect();
    by_begin.sort_by_key(|r| r.0);
    let mut out: Vec<(u64, u64, usize)> = Vec::new();
    for w in cuts.windows(2) {
        let (b, e) = (w[0], w[1]);
        let best = by_begin
            .iter()
            .take_while(|r| r.0 <= b)
            .filter(|r| r.1 >= e)
            .max_by_key(|r| (r.2, r.3));
        if let Some(r) = best {
            match out.last_mut() {
                Some(last) if last.1 == b && last.2 == r.3 => last.1 = e,
                _ => out.push((b, e, r.3)),
            }
        }
    }
    out
}

fn base_type(die: &gimli::DebuggingInformationEntry<Rd<'_>>) -> Option<BaseType> {
    let encoding = match die.attr_value(gimli::DW_AT_encoding)? {
        AttributeValue::Encoding(e) => e.0,
        v => v.udata_value()? as u8,
    };
    let byte_size = die.attr_value(gimli::DW_AT_byte_size)?.udata_value()?;
    let vector_size = die
        .attr_value(gimli::DwAt(at::VECTOR_SIZE))
        .or_else(|| die.attr_value(gimli::DwAt(at::OLD_VECTOR_SIZE)))
        .and_then(|v| v.udata_value())
        .unwrap_or(1);
    (byte_size != 0 && vector_size != 0).then_some(BaseType {
        encoding,
        byte_size,
        vector_size,
    })
}

/// A unit being indexed: its DWARF, its version, and how its expressions decode.
struct UnitDwarf<'a, 'd> {
    dwarf: &'a gimli::Dwarf<Rd<'d>>,
    unit: &'a gimli::Unit<Rd<'d>>,
    version: u16,
    decode: &'a DecodeOptions,
}

impl<'d> UnitDwarf<'_, 'd> {
    /// The expression or location list `v` names ([`exprs_of`]).
    fn exprs(&self, v: &AttributeValue<Rd<'d>>) -> Result<Option<AttrExpr>, String> {
        exprs_of(self.dwarf, self.unit, v, self.version, self.decode)
    }

    /// What a DW_OP_call* of a DIE with the `DW_AT_location` `v` reaches (a DWARF
    /// `procedure` or not): one expression, a list of disjoint entries, or, for
    /// overlapping entries or a value that is not a location, the program data.
    fn callee_at(&self, v: &AttributeValue<Rd<'d>>, procedure: bool) -> CalleeAt {
        match self.exprs(v) {
            Ok(Some(AttrExpr::Expr(Ok(e)))) => CalleeAt::Fixed(Callee {
                exprs: vec![e].into(),
                procedure,
            }),
            Ok(Some(AttrExpr::Expr(Err(e)))) => CalleeAt::Broken(e),
            Ok(Some(AttrExpr::List { entries, disjoint })) => {
                if let Some(e) = entries.iter().find_map(|e| e.expr.clone().err()) {
                    CalleeAt::Broken(e)
                } else if disjoint {
                    CalleeAt::List {
                        entries: entries
                            .into_iter()
                            .filter_map(|e| {
                                Some((
                                    e.begin,
                                    e.end,
                                    Callee {
                                        exprs: vec![e.expr.ok()?].into(),
                                        procedure,
                                    },
                                ))
                            })
                            .collect(),
                        none: Callee {
                            exprs: Vec::new().into(),
                            procedure,
                        },
                    }
                } else {
                    CalleeAt::Overlapping
                }
            }
            _ => CalleeAt::Overlapping, // not a location: the program data decides
        }
    }

    /// The lane attributes of `die` (at `.debug_info` offset `off`) into `scope`:
    /// `DW_AT_LLVM_lanes`, `DW_AT_LLVM_lane_pc` and `DW_AT_LLVM_active_lane` in their
    /// current and older codes, or the DWARF 6 codes `d6` gives.
    fn lane_attributes(
        &self,
        die: &gimli::DebuggingInformationEntry<Rd<'d>>,
        off: u64,
        d6: &Dwarf6Codes,
        scope: &mut Scope,
    ) {
        for attr in die.attrs() {
            let code = attr.name().0;
            let v = attr.value();
            let current = |c: u16, d6: Option<u16>| c == code || d6 == Some(code);
            if current(at::LANES, d6.lanes) || code == at::OLD_LANES {
                match v.udata_value() {
                    Some(n) if (1..=64).contains(&n) => scope.lanes = Some(Ok(n as u32)),
                    Some(n) => {
                        scope.lanes = Some(Err(LanePcError::BadLanes { die: off, lanes: n }))
                    }
                    None if code == at::OLD_LANES => {}
                    None => {
                        scope.lanes = Some(Err(LanePcError::BadForm {
                            die: off,
                            attr: LaneAttr::Lanes,
                            form: format!("{v:?}"),
                        }))
                    }
                }
                continue;
            }
            let (which, old) = if current(at::LANE_PC, d6.lane_pc) {
                (LaneAttr::LanePc, false)
            } else if code == at::OLD_LANE_PC {
                (LaneAttr::LanePc, true)
            } else if d6.active_lane == Some(code) {
                (LaneAttr::ActiveLane, false)
            } else if code == at::OLD_ACTIVE_LANE {
                (LaneAttr::ActiveLane, true)
            } else {
                continue;
            };
            let value = match self.exprs(&v) {
                Ok(Some(x)) => x,
                Ok(None) if old => continue, // another attribute under the older code
                Ok(None) => AttrExpr::Bad(LanePcError::BadForm {
                    die: off,
                    attr: which,
                    form: format!("{v:?}"),
                }),
                Err(why) => AttrExpr::Bad(LanePcError::List {
                    die: off,
                    attr: which,
                    why,
                }),
            };
            match which {
                LaneAttr::LanePc => scope.lane_pc = Some(value),
                _ => scope.active_lane = Some(value),
            }
        }
    }
}

/// Whether a subprogram is a kernel: its `DW_AT_calling_convention` is
/// `DW_CC_LLVM_OpenCLKernel` (in any constant form).
fn is_kernel(die: &gimli::DebuggingInformationEntry<Rd<'_>>) -> bool {
    match die.attr_value(gimli::DW_AT_calling_convention) {
        Some(AttributeValue::CallingConvention(c)) => {
            c.0 == crate::annotate::DW_CC_LLVM_OPENCL_KERNEL
        }
        // A rewriter may keep the constant in another form.
        Some(v) => v.udata_value() == Some(u64::from(crate::annotate::DW_CC_LLVM_OPENCL_KERNEL)),
        None => false,
    }
}

/// The expression or location list an attribute value names; `Ok(None)` when the value
/// is of neither class.
fn exprs_of<'d>(
    dwarf: &gimli::Dwarf<Rd<'d>>,
    unit: &gimli::Unit<Rd<'d>>,
    v: &AttributeValue<Rd<'d>>,
    version: u16,
    decode: &DecodeOptions,
) -> Result<Option<AttrExpr>, String> {
    let dec = |b: &[u8]| Expr::decode(b, decode).map(Arc::new);
    let offset = match *v {
        AttributeValue::Exprloc(e) => return Ok(Some(AttrExpr::Expr(dec(e.0.slice())))),
        AttributeValue::Block(b) if version <= 3 => {
            return Ok(Some(AttrExpr::Expr(dec(b.slice()))));
        }
        AttributeValue::LocationListsRef(o) => o,
        AttributeValue::SecOffset(o) => gimli::LocationListsOffset(o),
        AttributeValue::Data4(o) if version <= 3 => gimli::LocationListsOffset(o as usize),
        AttributeValue::Data8(o) if version <= 3 => gimli::LocationListsOffset(o as usize),
        AttributeValue::DebugLocListsIndex(i) => {
            dwarf.locations_offset(unit, i).map_err(|e| e.to_string())?
        }
        _ => return Ok(None),
    };
    let mut it = dwarf.locations(unit, offset).map_err(|e| e.to_string())?;
    let mut entries = Vec::new();
    while let Some(entry) = it.next().map_err(|e| e.to_string())? {
        if entry.range.begin < entry.range.end {
            entries.push(ListEntry {
                begin: entry.range.begin,
                end: entry.range.end,
                expr: dec(entry.data.0.slice()),
            });
        }
    }
    entries.sort_by_key(|e| e.begin);
    let disjoint = entries.windows(2).all(|w| w[0].end <= w[1].begin);
    Ok(Some(AttrExpr::List { entries, disjoint }))
}

/// The expression of an attribute for `pc`: `None` when a location list has no entry.
fn select<'a>(
    a: &'a AttrExpr,
    pc: u64,
    attr: LaneAttr,
) -> Result<Option<&'a Arc<Expr>>, LanePcError> {
    let decoded = |e: &'_ Result<Arc<Expr>, amdgpu_dwarf::Error>| -> Result<(), LanePcError> {
        match e {
            Ok(_) => Ok(()),
            Err(error) => Err(LanePcError::Eval {
                attr,
                pc,
                error: error.clone(),
            }),
        }
    };
    match a {
        AttrExpr::Bad(e) => Err(e.clone()),
        AttrExpr::Expr(e) => {
            decoded(e)?;
            Ok(e.as_ref().ok())
        }
        AttrExpr::List { entries, disjoint } => {
            let single = |e: &'a ListEntry| -> Result<Option<&'a Arc<Expr>>, LanePcError> {
                decoded(&e.expr)?;
                Ok(e.expr.as_ref().ok())
            };
            if *disjoint {
                // Disjoint entries: a binary search finds the only candidate.
                let i = entries.partition_point(|e| e.begin <= pc);
                return match i.checked_sub(1).map(|i| &entries[i]) {
                    Some(e) if pc < e.end => single(e),
                    _ => Ok(None),
                };
            }
            let mut hit = entries.iter().filter(|e| pc >= e.begin && pc < e.end);
            match (hit.next(), hit.count()) {
                (None, _) => Ok(None),
                (Some(e), 0) => single(e),
                (Some(_), more) => Err(LanePcError::NotSingle {
                    attr,
                    pc,
                    count: more + 1,
                }),
            }
        }
    }
}

/// Reads `bits` bits through a location that must be one single location description
/// of exactly that size (when its storage has a size; memory and undefined storage are
/// unbounded).
fn read_single<T: Target + ?Sized>(
    target: &T,
    loc: &Loc,
    bits: u128,
    attr: LaneAttr,
    pc: u64,
) -> Result<ReadBits, LanePcError> {
    check_single(loc, bits, attr, pc)?;
    read_object(target, loc, bits as usize).map_err(|error| LanePcError::Read { attr, pc, error })
}

/// The checks of [`read_single`]: one single location description, of exactly `bits`
/// bits when its storage has a size.
fn check_single(loc: &Loc, bits: u128, attr: LaneAttr, pc: u64) -> Result<(), LanePcError> {
    let s = match loc {
        Loc::One(s) => s,
        Loc::Many(v) => {
            return Err(LanePcError::NotSingle {
                attr,
                pc,
                count: v.len(),
            });
        }
    };
    let exact = matches!(s.storage, Storage::Composite(_));
    if let Some(size) = s.storage_bits()
        && !matches!(s.storage, Storage::Memory(_))
    {
        let have = size.saturating_sub(s.offset);
        if have < bits || (exact && have != bits) {
            return Err(LanePcError::WrongSize {
                attr,
                pc,
                bits: have,
                needed: bits,
            });
        }
    }
    Ok(())
}

/// The lane elements of a lane_pc vector.
fn elements(bits: &ReadBits, lanes: u32, pc: u64) -> Result<Vec<Option<u64>>, LanePcError> {
    let n = lanes as usize;
    let (data, defined) = (bits.data.as_raw_slice(), bits.defined.as_raw_slice());
    let (Some(data), Some(defined)) = (data.get(..n * 8), defined.get(..n * 8)) else {
        return Err(LanePcError::WrongSize {
            attr: LaneAttr::LanePc,
            pc,
            bits: bits.data.len() as u128,
            needed: n as u128 * 64,
        });
    };
    let word = |c: &[u8]| u64::from_le_bytes(c.try_into().unwrap_or_default());
    // The wave's elements on the stack (no per-element capacity checks), then one copy.
    let mut out = [None; 64];
    for (l, (o, (v, d))) in out
        .iter_mut()
        .zip(data.chunks_exact(8).zip(defined.chunks_exact(8)))
        .enumerate()
    {
        *o = match word(d) {
            u64::MAX => Some(word(v)),
            0 => None,
            _ => return Err(LanePcError::PartlyDefined { pc, lane: l as u32 }),
        };
    }
    Ok(out.get(..n).unwrap_or(&out).to_vec())
}

/// Program data for one evaluation: the decoded callees and base types of the index,
/// the rest (frame base, CFI, addresses) from the program.
struct FrameContext<'x, 'd, T: Target + ?Sized> {
    index: &'x LanePcIndex<'d>,
    base: u64,
    base_types: &'x FastMap<u64, BaseType>,
    pc: u64,
    program: ProgramContext<'x, 'd, T>,
}

impl<T: Target + ?Sized> FrameContext<'_, '_, T> {
    fn info_offset(&self, die: DieRef) -> u64 {
        match die {
            DieRef::Info(o) => o,
            DieRef::Unit(o) => self.base + o,
        }
    }
}

impl<T: Target + ?Sized> Context for FrameContext<'_, '_, T> {
    fn callee_ref(&self, die: DieRef) -> Option<&Callee> {
        match self.index.callees.get(&self.info_offset(die))? {
            CalleeAt::Fixed(c) => Some(c),
            CalleeAt::List { entries, none } => {
                let i = entries.partition_point(|e| e.0 <= self.pc);
                match i.checked_sub(1).map(|i| &entries[i]) {
                    Some(e) if self.pc < e.1 => Some(&e.2),
                    _ => Some(none),
                }
            }
            CalleeAt::Overlapping | CalleeAt::Broken(_) => None,
        }
    }
    fn callee(&self, die: DieRef) -> Result<Callee, ErrorKind> {
        let off = self.info_offset(die);
        if let Some(CalleeAt::Broken(e)) = self.index.callees.get(&off) {
            return Err(e.kind.clone());
        }
        self.program.callee(DieRef::Info(off))
    }
    fn base_type(&self, die: u64) -> Result<BaseType, ErrorKind> {
        match self.base_types.get(&die) {
            Some(b) => Ok(*b),
            None => self.program.base_type(die),
        }
    }
    fn frame_base(&self) -> Result<Arc<Expr>, ErrorKind> {
        self.program.frame_base()
    }
    fn call_frame_cfa(&self) -> Result<Loc, ErrorKind> {
        self.program.call_frame_cfa()
    }
    fn entry_register(&self, reg: u64) -> Result<Loc, ErrorKind> {
        self.program.entry_register(reg)
    }
    fn address(&self, index: u64) -> Result<u64, ErrorKind> {
        self.program.address(index)
    }
    fn pointer_target(&self, die: u64) -> Result<PointerTarget, ErrorKind> {
        self.program.pointer_target(die)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_take_the_innermost_range() {
        // A subprogram [0x100, 0x200) with an inlined subroutine [0x140, 0x180).
        let s = segments(&[(0x100, 0x200, 1, 0), (0x140, 0x180, 2, 1)]);
        assert_eq!(
            s,
            vec![(0x100, 0x140, 0), (0x140, 0x180, 1), (0x180, 0x200, 0)]
        );
        // Disjoint functions, with a gap.
        let s = segments(&[(0x100, 0x200, 1, 0), (0x300, 0x380, 1, 1)]);
        assert_eq!(s, vec![(0x100, 0x200, 0), (0x300, 0x380, 1)]);
    }

    #[test]
    fn elements_are_defined_undefined_or_an_error() {
        use bitvec::prelude::*;
        let mut data = bitvec![u8, Lsb0; 0; 128];
        data[..64].store_le::<u64>(0x1234);
        let mut defined = bitvec![u8, Lsb0; 1; 128];
        defined[64..].fill(false);
        let rb = ReadBits {
            data: data.clone(),
            defined: defined.clone(),
        };
        assert_eq!(elements(&rb, 2, 0), Ok(vec![Some(0x1234), None]));
        defined.set(70, true);
        let rb = ReadBits { data, defined };
        assert_eq!(
            elements(&rb, 2, 0),
            Err(LanePcError::PartlyDefined { pc: 0, lane: 1 })
        );
    }
}

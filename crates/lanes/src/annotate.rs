//! `annotate-lanes`: the lane reconstruction of [`crate::regions`] written into a code
//! object as DWARF that any consumer of the AMDGPU extension can evaluate.
//!
//! For every function of the code object (the `DW_TAG_subprogram` whose `DW_AT_low_pc` is
//! the function symbol's address; in a code object without DWARF, or for a function no
//! subprogram describes, a compile unit made for the purpose with one subprogram per
//! function symbol) the annotation adds, following the worked example of the LLVM AMDGPU
//! usage guide ("AMDGPU DW_AT_LLVM_lane_pc"):
//!
//! - `DW_AT_LLVM_lanes`: the wave size;
//! - the DWARF procedures `__divergent_lane_pc` (`DW_OP_LLVM_undefined`, extended to the
//!   wave: the lanes not active on entry) and `__active_lane_pc` (the PC register, extended,
//!   selected by EXEC);
//! - for each open region, an artificial variable `__lex_<region>_save_exec` whose location
//!   list says where the region's mask lives at each PC (SGPRs, lanes of a VGPR or AGPR
//!   written by `v_writelane`, or a whole-wave spill slot in private memory, addressed as
//!   `DW_ASPACE_AMDGPU_private_lane<N>`);
//! - for each region phase (region, where its lanes wait, enclosing phase), a DWARF
//!   procedure that calls the enclosing phase's procedure, then selects, under the region's
//!   saved mask, the wait PC (`DW_OP_addr`, `DW_OP_stack_value`, `DW_OP_LLVM_extend`) —
//!   or `DW_OP_LLVM_undefined` for lanes that returned — with
//!   `DW_OP_LLVM_select_bit_piece`; the usage guide's `__divergent_lane_pc_1_then`;
//! - `DW_AT_LLVM_lane_pc`: a location list with, for each PC range of equal lane model,
//!   `DW_OP_call_ref <innermost phase>; DW_OP_call_ref __active_lane_pc` (adjacent ranges
//!   whose expressions are equal share one entry);
//! - where the conceptual active mask is not EXEC (whole-wave regions, which save EXEC and
//!   set all lanes; the -O0 ELSE transition, where EXEC still holds lanes that are done):
//!   the artificial variable `__active_lane` with that mask, whose location list is also
//!   the value of `DW_AT_LLVM_active_lane`; the lane_pc entries of those ranges select the
//!   PC with it instead of EXEC (the usage guide: "The DWARF procedures can use the active
//!   lane artificial variable ... rather than the actual EXEC mask").
//!
//! Procedures are used, as in the guide, rather than one self-contained expression per
//! range: each phase is written once and shared by every range of it, and a range's
//! expression stays two calls long whatever the nesting depth. The `.debug_info` offsets
//! the calls need are found by writing the DWARF twice: the first time with placeholder
//! offsets of the same size, then with the offsets read back from the first result (and
//! checked again in the second).
//!
//! What is not written: PC ranges whose lane model is unknown (the reconstruction says
//! why; a consumer sees a location list without an entry for the PC), and ranges whose
//! masks live where no DWARF register names them (VCC has no AMDGPU DWARF register
//! number). [`AnnotateReport`] lists both. Lanes that returned from the function
//! (`Wait::Returned`) are undefined elements, like lanes not active on entry.
//!
//! `DW_AT_LLVM_active_lane` has no code in current LLVM; the annotation uses the code of
//! older AMD output, 0x3e08, the only one ever published for it (it collides with an LLVM
//! pointer-authentication attribute, which is a constant on another tag, so the form class
//! and the DIE tell them apart), or [`AnnotateOptions::active_lane_code`].
//!
//! Two encodings ([`LaneEncoding`]): current LLVM's (`DW_OP_LLVM_user` 0xe9 + sub-op,
//! `DW_AT_LLVM_lane_pc` 0x3e12, `DW_AT_LLVM_lanes` 0x3e11) and ROCgdb's older one
//! (single-byte operations 0xe1..0xec, 0x3e0b, 0x3e0a, and the compile unit marked with
//! `DW_AT_LLVM_augmentation` 0x3e09 `[llvm:v0.0]`, which is how a consumer knows).
//!
//! The DWARF is rewritten with `gimli::write` (the existing DWARF converted with
//! `gimli::write::Dwarf::from`). The ELF is patched by hand: the new `.debug_*` sections,
//! a new `.shstrtab` and a new section header table are appended at the end of the file;
//! every other byte stays where it was, and the headers of the replaced sections point at
//! the new data. Sections that index `.debug_info` or `.debug_str` by offset and that
//! gimli does not rewrite (`.debug_str_offsets`, `.debug_addr`, `.debug_aranges`,
//! `.debug_names`, ...) are emptied: the rewritten DWARF does not use them, and stale
//! offsets would mislead. `.debug_frame` is replaced by call frame information that
//! unwinds to the callers' frames (`frames`: clang-19's has no rules at all).

use crate::regions::{
    ActiveMask, FunctionRegions, Home, LaneModel, Loc, RegionId, Wait, analyse_code_object,
};
use amdgpu_codeobj::CodeObject;
use amdgpu_dwarf::op::{DecodeOptions, Dialect, Op, encode};
use amdgpu_dwarf::program::at;
use amdgpu_dwarf::target::Register;
use gimli::write::{
    Address, AttributeValue, EndianVec, Expression, Location, LocationList, Sections, Unit,
    UnitEntryId, UnitId,
};
use gimli::{DwAt, EndianSlice, LittleEndian};
use std::collections::{BTreeMap, HashMap};

type Rd<'d> = EndianSlice<'d, LittleEndian>;

mod frames;

/// The DW_AT_LLVM_augmentation code of older AMD output.
const AUGMENTATION: &str = "[llvm:v0.0]";

/// Which encoding of the LLVM operations and lane attributes to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LaneEncoding {
    /// Current LLVM: `DW_OP_LLVM_user` + sub-operation, `DW_AT_LLVM_lane_pc` 0x3e12,
    /// `DW_AT_LLVM_lanes` 0x3e11.
    #[default]
    Current,
    /// ROCgdb's: single-byte operations, 0x3e0b and 0x3e0a, the unit marked
    /// `[llvm:v0.0]`.
    Rocgdb,
}

/// Options of [`annotate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotateOptions {
    /// The encoding.
    pub encoding: LaneEncoding,
    /// The attribute code written for `DW_AT_LLVM_active_lane` (default 0x3e08).
    pub active_lane_code: u16,
}

impl Default for AnnotateOptions {
    fn default() -> Self {
        AnnotateOptions {
            encoding: LaneEncoding::Current,
            active_lane_code: at::OLD_ACTIVE_LANE,
        }
    }
}

/// Why a code object could not be annotated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnnotateError {
    /// The code object could not be parsed.
    #[error("code object: {0}")]
    CodeObject(String),
    /// The ELF structure is not one this patcher handles.
    #[error("ELF: {0}")]
    Elf(String),
    /// The lane reconstruction failed.
    #[error("lane reconstruction: {0}")]
    Reconstruction(String),
    /// The existing DWARF could not be read.
    #[error("reading DWARF: {0}")]
    Read(String),
    /// The existing DWARF could not be converted for rewriting (gimli converts only the
    /// operations it knows: a code object already carrying DW_OP_LLVM_* operations is
    /// refused).
    #[error("converting the existing DWARF: {0}")]
    Convert(String),
    /// Writing the DWARF failed.
    #[error("writing DWARF: {0}")]
    Write(String),
    /// An operation could not be encoded in the chosen encoding.
    #[error("encoding an expression: {0}")]
    Encode(String),
    /// The procedures' offsets did not settle (an internal consistency check).
    #[error("DWARF layout: {0}")]
    Layout(String),
}

/// Why a PC range has no `DW_AT_LLVM_lane_pc` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// The reconstruction could not classify it (its reason).
    Unknown(String),
    /// A mask lives where no DWARF register reaches it.
    NoDwarfLocation(Loc),
}

/// A PC range without an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// First address.
    pub begin: u64,
    /// One past the last byte.
    pub end: u64,
    /// Why.
    pub reason: SkipReason,
}

/// What was written for one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionReport {
    /// The symbol's name.
    pub name: String,
    /// First address.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// Whether its subprogram DIE was made by the annotation.
    pub created: bool,
    /// DW_AT_LLVM_lane_pc location-list entries.
    pub lane_pc_entries: usize,
    /// DW_AT_LLVM_active_lane location-list entries.
    pub active_lane_entries: usize,
    /// DWARF procedures.
    pub procedures: usize,
    /// Saved-mask variables.
    pub variables: usize,
    /// Ranges without an entry.
    pub skipped: Vec<Skipped>,
}

/// What [`annotate_with_report`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnnotateReport {
    /// One per function, in address order.
    pub functions: Vec<FunctionReport>,
}

impl AnnotateReport {
    /// The skipped range containing `pc`, if any.
    pub fn skipped_at(&self, pc: u64) -> Option<&Skipped> {
        self.functions
            .iter()
            .flat_map(|f| f.skipped.iter())
            .find(|s| pc >= s.begin && pc < s.end)
    }
}

/// Writes the lane reconstruction of a code object into it as DWARF; returns the new code
/// object.
pub fn annotate(bytes: &[u8], options: &AnnotateOptions) -> Result<Vec<u8>, AnnotateError> {
    annotate_with_report(bytes, options).map(|(b, _)| b)
}

// ---------------------------------------------------------------------------------------
// The plan: what to write for each function, independent of DIE offsets.

/// A region phase: a procedure.
#[derive(Debug, Clone)]
struct ProcPlan {
    name: String,
    parent: Option<usize>,
    region: RegionId,
    wait: Wait,
}

/// A lane_pc location-list entry.
#[derive(Debug, Clone, PartialEq)]
struct EntryPlan {
    begin: u64,
    end: u64,
    /// The innermost phase (`None`: no open region, `__divergent_lane_pc`).
    chain: Option<usize>,
    /// Whether the active mask is EXEC (else `__active_lane`).
    exec: bool,
}

#[derive(Debug, Clone)]
struct FunctionPlan {
    name: String,
    /// A kernel (the outermost frame).
    kernel: bool,
    start: u64,
    end: u64,
    entries: Vec<EntryPlan>,
    procs: Vec<ProcPlan>,
    vars: BTreeMap<RegionId, Vec<(u64, u64, Home)>>,
    active: Vec<(u64, u64, ActiveMask)>,
    skipped: Vec<Skipped>,
}

const DIVERGENT: &str = "__divergent_lane_pc";
/// `DW_CC_LLVM_OpenCLKernel`, the calling convention clang gives an OpenCL kernel.
pub const DW_CC_LLVM_OPENCL_KERNEL: u8 = 0xc7;
const ACTIVE_PC: &str = "__active_lane_pc";
const ACTIVE_VAR: &str = "__active_lane";

fn var_name(r: RegionId) -> String {
    format!("__lex_{r:x}_save_exec")
}

/// A location no DWARF register names, if the model uses one.
fn unexpressible(model: &LaneModel) -> Option<Loc> {
    let LaneModel::Known { active, regions } = model else {
        return None;
    };
    let mut homes: Vec<&Home> = regions.iter().map(|r| &r.home).collect();
    match active {
        ActiveMask::Exec => {}
        ActiveMask::Saved(h) | ActiveMask::ExecMinus(h) => homes.push(h),
        ActiveMask::SavedMinus(h, m) => homes.extend([h, m]),
    }
    homes
        .into_iter()
        .flat_map(|h| [Some(h.lo), h.hi])
        .flatten()
        .find(|l| match *l {
            Loc::Vcc(_) => true,
            Loc::Sgpr(n) => n > 105,
            Loc::Scratch { lane, .. } => lane >= 64,
            _ => false,
        })
}

fn push_range<T: PartialEq>(v: &mut Vec<(u64, u64, T)>, begin: u64, end: u64, x: T) {
    match v.last_mut() {
        Some(last) if last.1 == begin && last.2 == x => last.1 = end,
        _ => v.push((begin, end, x)),
    }
}

fn plan_function(f: &FunctionRegions, name: String, kernel: bool) -> FunctionPlan {
    let mut p = FunctionPlan {
        name,
        kernel,
        start: f.start,
        end: f.end,
        entries: Vec::new(),
        procs: Vec::new(),
        vars: BTreeMap::new(),
        active: Vec::new(),
        skipped: Vec::new(),
    };
    let mut by_key: HashMap<(Option<usize>, RegionId, Option<u64>), usize> = HashMap::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    let pcs: Vec<(&u64, &LaneModel)> = f.models.iter().collect();
    let mut i = 0;
    while i < pcs.len() {
        let (&begin, model) = pcs[i];
        let mut j = i + 1;
        while j < pcs.len() && pcs[j].1 == model {
            j += 1;
        }
        let end = pcs.get(j).map_or(f.end, |x| *x.0);
        i = j;
        let (active, regions) = match model {
            LaneModel::Unknown(why) => {
                p.skipped.push(Skipped {
                    begin,
                    end,
                    reason: SkipReason::Unknown(why.clone()),
                });
                continue;
            }
            LaneModel::Known { active, regions } => (active, regions),
        };
        if let Some(l) = unexpressible(model) {
            p.skipped.push(Skipped {
                begin,
                end,
                reason: SkipReason::NoDwarfLocation(l),
            });
            continue;
        }
        let mut chain = None;
        for r in regions {
            let wait = match r.wait {
                Wait::At(w) => Some(w),
                Wait::Returned => None,
            };
            let key = (chain, r.region, wait);
            let k = match by_key.get(&key) {
                Some(&k) => k,
                None => {
                    let phase = match r.wait {
                        Wait::At(w) if w == r.region => "then".to_string(),
                        Wait::At(w) => format!("at_{w:x}"),
                        Wait::Returned => "returned".to_string(),
                    };
                    let base = format!("{DIVERGENT}_{:x}_{phase}", r.region);
                    let n = names.entry(base.clone()).or_insert(0);
                    *n += 1;
                    let name = if *n == 1 { base } else { format!("{base}_{n}") };
                    p.procs.push(ProcPlan {
                        name,
                        parent: chain,
                        region: r.region,
                        wait: r.wait,
                    });
                    by_key.insert(key, p.procs.len() - 1);
                    p.procs.len() - 1
                }
            };
            chain = Some(k);
            push_range(p.vars.entry(r.region).or_default(), begin, end, r.home);
        }
        let exec = *active == ActiveMask::Exec;
        if !exec {
            push_range(&mut p.active, begin, end, *active);
        }
        match p.entries.last_mut() {
            Some(last) if last.end == begin && last.chain == chain && last.exec == exec => {
                last.end = end
            }
            _ => p.entries.push(EntryPlan {
                begin,
                end,
                chain,
                exec,
            }),
        }
    }
    p
}

// ---------------------------------------------------------------------------------------
// Expressions.

/// Builds expressions for one function in one unit.
struct Exprs<'a> {
    ws: u32,
    opts: DecodeOptions,
    start: u64,
    offsets: &'a Offsets,
}

/// `.debug_info` offsets of the added DIEs, by (function start, name).
type Offsets = HashMap<(u64, String), u64>;

impl Exprs<'_> {
    fn off(&self, name: &str) -> u64 {
        self.offsets
            .get(&(self.start, name.to_string()))
            .copied()
            .unwrap_or(0)
    }

    fn bytes(&self, ops: &[Op]) -> Result<Vec<u8>, AnnotateError> {
        encode(ops, &self.opts).map_err(|e| AnnotateError::Encode(e.to_string()))
    }

    fn mask_bytes(&self) -> u8 {
        (self.ws / 8) as u8
    }

    fn exec_value(&self) -> [Op; 2] {
        let reg = if self.ws == 32 {
            Register::EXEC32
        } else {
            Register::EXEC64
        };
        [
            Op::Reg {
                reg: u64::from(reg),
                short: false,
            },
            Op::DerefSize(self.mask_bytes()),
        ]
    }

    fn extend(&self) -> Op {
        Op::Extend {
            bits: 64,
            count: u64::from(self.ws),
        }
    }

    fn select(&self) -> Op {
        Op::SelectBitPiece {
            bits: 64,
            count: u64::from(self.ws),
        }
    }

    /// A location description of one 32-bit mask location.
    fn loc(&self, l: Loc) -> Vec<Op> {
        let reg = |r: u32| Op::Reg {
            reg: u64::from(r),
            short: false,
        };
        match l {
            Loc::Sgpr(n) => vec![reg(Register::sgpr(u16::from(n)))],
            // Not written: `unexpressible` filters it out.
            Loc::Vcc(_) => vec![Op::Undefined],
            Loc::VgprLane { vgpr, lane } => vec![
                reg(Register::vgpr(u16::from(vgpr), self.ws)),
                Op::OffsetUconst(u64::from(lane) * 4),
            ],
            Loc::AgprLane { agpr, lane } => vec![
                reg(Register::Agpr {
                    n: u16::from(agpr),
                    wave: self.ws as u8,
                }
                .dwarf()),
                Op::OffsetUconst(u64::from(lane) * 4),
            ],
            Loc::Scratch {
                soffset,
                offset,
                lane,
            } => {
                // Private lane address sgpr[soffset] / wave_size + offset, in lane `lane`'s
                // private memory (DW_ASPACE_AMDGPU_private_lane<N> = 0x20 + N).
                let mut v = vec![
                    reg(Register::sgpr(u16::from(soffset))),
                    Op::DerefSize(4),
                    Op::Lit(self.ws.trailing_zeros() as u8),
                    Op::Shr,
                ];
                if offset != 0 {
                    v.push(Op::PlusUconst(u64::from(offset)));
                }
                v.extend([Op::Constu(0x20 + u64::from(lane)), Op::FormAspaceAddress]);
                v
            }
        }
    }

    /// A location description of a mask (a composite of two dwords for wave64).
    fn home_loc(&self, h: &Home) -> Vec<Op> {
        let mut v = self.loc(h.lo);
        if let Some(hi) = h.hi {
            v.push(Op::Piece(4));
            v.extend(self.loc(hi));
            v.push(Op::Piece(4));
        }
        v
    }

    /// The value of a mask.
    fn home_value(&self, h: &Home) -> Vec<Op> {
        let mut v = self.loc(h.lo);
        v.push(Op::DerefSize(4));
        if let Some(hi) = h.hi {
            v.extend(self.loc(hi));
            v.extend([Op::DerefSize(4), Op::ConstU(1, 32), Op::Shl, Op::Or]);
        }
        v
    }

    fn active_loc(&self, a: &ActiveMask) -> Vec<Op> {
        match a {
            ActiveMask::Exec => {
                let [r, _] = self.exec_value();
                vec![r]
            }
            ActiveMask::Saved(h) => self.home_loc(h),
            ActiveMask::ExecMinus(h) => {
                let mut v = self.exec_value().to_vec();
                v.extend(self.home_value(h));
                v.extend([Op::Not, Op::And, Op::StackValue]);
                v
            }
            ActiveMask::SavedMinus(h, m) => {
                let mut v = self.home_value(h);
                v.extend(self.home_value(m));
                v.extend([Op::Not, Op::And, Op::StackValue]);
                v
            }
        }
    }

    fn divergent(&self) -> Vec<Op> {
        vec![Op::Undefined, self.extend()]
    }

    fn active_pc(&self) -> Vec<Op> {
        let mut v = vec![
            Op::Reg {
                reg: u64::from(Register::PC),
                short: false,
            },
            self.extend(),
        ];
        v.extend(self.exec_value());
        v.push(self.select());
        v
    }

    fn proc_name(&self, plan: &FunctionPlan, chain: Option<usize>) -> String {
        match chain {
            Some(k) => plan.procs[k].name.clone(),
            None => DIVERGENT.to_string(),
        }
    }

    fn phase(&self, plan: &FunctionPlan, p: &ProcPlan) -> Vec<Op> {
        let mut v = vec![Op::CallRef(self.off(&self.proc_name(plan, p.parent)))];
        match p.wait {
            Wait::At(w) => v.extend([Op::Addr(w), Op::StackValue]),
            Wait::Returned => v.push(Op::Undefined),
        }
        v.extend([
            self.extend(),
            Op::CallRef(self.off(&var_name(p.region))),
            Op::DerefSize(self.mask_bytes()),
            self.select(),
        ]);
        v
    }

    fn entry(&self, plan: &FunctionPlan, e: &EntryPlan) -> Vec<Op> {
        let mut v = vec![Op::CallRef(self.off(&self.proc_name(plan, e.chain)))];
        if e.exec {
            v.push(Op::CallRef(self.off(ACTIVE_PC)));
        } else {
            v.extend([
                Op::Reg {
                    reg: u64::from(Register::PC),
                    short: false,
                },
                self.extend(),
                Op::CallRef(self.off(ACTIVE_VAR)),
                Op::DerefSize(self.mask_bytes()),
                self.select(),
            ]);
        }
        v
    }
}

// ---------------------------------------------------------------------------------------
// Writing the DWARF.

fn raw(bytes: Vec<u8>) -> Expression {
    Expression::raw(bytes)
}

fn string(s: &str) -> AttributeValue {
    AttributeValue::String(s.as_bytes().to_vec())
}

/// The subprograms of the DWARF, by low_pc, with the inlined subroutines under each.
fn subprograms(dwarf: &gimli::write::Dwarf) -> HashMap<u64, Described> {
    let mut out = HashMap::new();
    for (uid, unit) in dwarf.units.iter() {
        // (entry, the subprogram it is in)
        let mut stack: Vec<(UnitEntryId, Option<u64>)> = vec![(unit.root(), None)];
        while let Some((id, within)) = stack.pop() {
            let e = unit.get(id);
            let mut inside = within;
            if e.tag() == gimli::DW_TAG_subprogram
                && let Some(AttributeValue::Address(Address::Constant(a))) =
                    e.get(gimli::DW_AT_low_pc)
            {
                out.entry(*a).or_insert((uid, id, Vec::new()));
                inside = Some(*a);
            } else if e.tag() == gimli::DW_TAG_inlined_subroutine
                && let Some(s) = within
                && let Some(x) = out.get_mut(&s)
            {
                x.2.push(id);
            }
            for c in e.children() {
                stack.push((*c, inside));
            }
        }
    }
    out
}

/// The subprogram of a function, and the inlined subroutines under it.
type Described = (UnitId, UnitEntryId, Vec<UnitEntryId>);

/// Writes the DWARF with the lane attributes of `plans` added (to the DWARF `read`,
/// or to new DWARF): each function's subprogram (made when none describes it) gets
/// its lanes, procedures, variables and lane-PC list ([`annotate_function`]). Also
/// says, per plan, whether its subprogram was made.
fn emit(
    read: Option<&gimli::Dwarf<Rd<'_>>>,
    plans: &[FunctionPlan],
    offsets: &Offsets,
    options: &AnnotateOptions,
    ws: u32,
) -> Result<(Sections<EndianVec<LittleEndian>>, Vec<bool>), AnnotateError> {
    let mut dwarf = match read {
        Some(r) => gimli::write::Dwarf::from(r, &|a| Some(Address::Constant(a)))
            .map_err(|e| AnnotateError::Convert(e.to_string()))?,
        None => gimli::write::Dwarf::new(),
    };
    let rocgdb = options.encoding == LaneEncoding::Rocgdb;
    let codes = if rocgdb {
        (at::OLD_LANE_PC, at::OLD_LANES)
    } else {
        (at::LANE_PC, at::LANES)
    };
    let dialect = if rocgdb {
        Dialect::SingleByte
    } else {
        Dialect::User
    };
    let found = subprograms(&dwarf);
    let made = undescribed_unit(&mut dwarf, plans, &found);
    let mut created = Vec::with_capacity(plans.len());
    for plan in plans {
        let (uid, sub, inlined) = match found.get(&plan.start) {
            Some(x) => {
                created.push(false);
                x.clone()
            }
            None => {
                created.push(true);
                made.get(&plan.start)
                    .cloned()
                    .ok_or_else(|| AnnotateError::Layout("no subprogram made".into()))?
            }
        };
        let unit = dwarf.units.get_mut(uid);
        let enc = unit.encoding();
        if rocgdb {
            let root = unit.root();
            unit.get_mut(root)
                .set(DwAt(at::OLD_AUGMENTATION), string(AUGMENTATION));
        }
        let x = Exprs {
            ws,
            opts: DecodeOptions {
                address_size: enc.address_size,
                offset_size: enc.format.word_size(),
                dialect,
                extensions: Default::default(),
            },
            start: plan.start,
            offsets,
        };
        let scopes = Scopes { sub, inlined };
        annotate_function(unit, &scopes, plan, &x, codes, options.active_lane_code)?;
    }
    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf
        .write(&mut sections)
        .map_err(|e| AnnotateError::Write(e.to_string()))?;
    Ok((sections, created))
}

/// A unit with a subprogram for each function of `plans` that no subprogram (of
/// `found`) describes; those subprograms by function start.
fn undescribed_unit(
    dwarf: &mut gimli::write::Dwarf,
    plans: &[FunctionPlan],
    found: &HashMap<u64, Described>,
) -> HashMap<u64, Described> {
    let missing: Vec<&FunctionPlan> = plans
        .iter()
        .filter(|p| !found.contains_key(&p.start))
        .collect();
    let mut made: HashMap<u64, Described> = HashMap::new();
    if missing.is_empty() {
        return made;
    }
    let enc = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: 5,
        address_size: 8,
    };
    let uid = dwarf
        .units
        .add(Unit::new(enc, gimli::write::LineProgram::none()));
    let unit = dwarf.units.get_mut(uid);
    let root = unit.root();
    let lo = missing.iter().map(|p| p.start).min().unwrap_or(0);
    let hi = missing.iter().map(|p| p.end).max().unwrap_or(lo);
    let r = unit.get_mut(root);
    r.set(gimli::DW_AT_producer, string("amdsim annotate-lanes"));
    r.set(gimli::DW_AT_name, string("<lanes>"));
    r.set(
        gimli::DW_AT_low_pc,
        AttributeValue::Address(Address::Constant(lo)),
    );
    r.set(gimli::DW_AT_high_pc, AttributeValue::Udata(hi - lo));
    for p in &missing {
        let id = unit.add(root, gimli::DW_TAG_subprogram);
        let e = unit.get_mut(id);
        e.set(gimli::DW_AT_name, string(&p.name));
        e.set(
            gimli::DW_AT_low_pc,
            AttributeValue::Address(Address::Constant(p.start)),
        );
        e.set(gimli::DW_AT_high_pc, AttributeValue::Udata(p.end - p.start));
        if p.kernel {
            // As clang marks an OpenCL kernel: the frame has no caller.
            e.set(
                gimli::DW_AT_calling_convention,
                AttributeValue::CallingConvention(gimli::DwCc(DW_CC_LLVM_OPENCL_KERNEL)),
            );
        }
        made.insert(p.start, (uid, id, Vec::new()));
    }
    made
}

/// A function's subprogram and the inlined subroutines under it: the DIEs that get
/// its lane attributes.
struct Scopes {
    sub: UnitEntryId,
    inlined: Vec<UnitEntryId>,
}

impl Scopes {
    /// Sets attribute `code` to `v` on the subprogram and each inlined subroutine.
    fn set(&self, unit: &mut Unit, code: u16, v: &AttributeValue) {
        unit.get_mut(self.sub).set(DwAt(code), v.clone());
        for &i in &self.inlined {
            unit.get_mut(i).set(DwAt(code), v.clone());
        }
    }

    /// Adds a DWARF procedure `name` of expression `bytes` under the subprogram.
    fn procedure(&self, unit: &mut Unit, name: &str, bytes: Vec<u8>) {
        let id = unit.add(self.sub, gimli::DW_TAG_dwarf_procedure);
        let e = unit.get_mut(id);
        e.set(gimli::DW_AT_name, string(name));
        e.set(gimli::DW_AT_location, AttributeValue::Exprloc(raw(bytes)));
    }

    /// Adds an artificial variable `name` located by `list` under the subprogram.
    fn variable(&self, unit: &mut Unit, name: &str, list: gimli::write::LocationListId) {
        let id = unit.add(self.sub, gimli::DW_TAG_variable);
        let e = unit.get_mut(id);
        e.set(gimli::DW_AT_name, string(name));
        e.set(gimli::DW_AT_artificial, AttributeValue::Flag(true));
        e.set(gimli::DW_AT_location, AttributeValue::LocationListRef(list));
    }
}

/// Adds a location list of (begin, end, expression bytes) to `unit`.
fn location_list(unit: &mut Unit, items: Vec<(u64, u64, Vec<u8>)>) -> gimli::write::LocationListId {
    unit.locations.add(LocationList(
        items
            .into_iter()
            .map(|(b, e, bytes)| Location::StartLength {
                begin: Address::Constant(b),
                length: e - b,
                data: raw(bytes),
            })
            .collect(),
    ))
}

/// Adds one function's lane attributes: `DW_AT_LLVM_lanes`, and where the plan has
/// entries the divergence and active-PC procedures, a variable per region home, the
/// active-lane list (`active_lane_code`), the phase procedures and the lane-PC list
/// (`codes`: the lane-PC and lanes attribute codes).
fn annotate_function(
    unit: &mut Unit,
    scopes: &Scopes,
    plan: &FunctionPlan,
    x: &Exprs,
    (lane_pc_code, lanes_code): (u16, u16),
    active_lane_code: u16,
) -> Result<(), AnnotateError> {
    scopes.set(unit, lanes_code, &AttributeValue::Udata(u64::from(x.ws)));
    if plan.entries.is_empty() {
        return Ok(());
    }
    scopes.procedure(unit, DIVERGENT, x.bytes(&x.divergent())?);
    scopes.procedure(unit, ACTIVE_PC, x.bytes(&x.active_pc())?);
    for (r, homes) in &plan.vars {
        let items = homes
            .iter()
            .map(|(b, e, h)| Ok((*b, *e, x.bytes(&x.home_loc(h))?)))
            .collect::<Result<Vec<_>, AnnotateError>>()?;
        let id = location_list(unit, items);
        scopes.variable(unit, &var_name(*r), id);
    }
    if !plan.active.is_empty() {
        let items = plan
            .active
            .iter()
            .map(|(b, e, a)| Ok((*b, *e, x.bytes(&x.active_loc(a))?)))
            .collect::<Result<Vec<_>, AnnotateError>>()?;
        let id = location_list(unit, items);
        scopes.variable(unit, ACTIVE_VAR, id);
        scopes.set(unit, active_lane_code, &AttributeValue::LocationListRef(id));
    }
    for p in &plan.procs {
        scopes.procedure(unit, &p.name, x.bytes(&x.phase(plan, p))?);
    }
    let items = plan
        .entries
        .iter()
        .map(|e| Ok((e.begin, e.end, x.bytes(&x.entry(plan, e))?)))
        .collect::<Result<Vec<_>, AnnotateError>>()?;
    let id = location_list(unit, items);
    scopes.set(unit, lane_pc_code, &AttributeValue::LocationListRef(id));
    Ok(())
}

fn section_bytes(s: &Sections<EndianVec<LittleEndian>>) -> HashMap<&'static str, Vec<u8>> {
    let mut out = HashMap::new();
    let _ = s.for_each(|id, w| -> Result<(), ()> {
        out.insert(id.name(), w.slice().to_vec());
        Ok(())
    });
    out
}

/// The offsets of the DIEs the annotation added (dwarf procedures and artificial
/// variables named `__...` under a subprogram), by (subprogram low_pc, name).
fn added_offsets(sections: &HashMap<&'static str, Vec<u8>>) -> Result<Offsets, AnnotateError> {
    let rd = |e: gimli::Error| AnnotateError::Layout(e.to_string());
    let dwarf = gimli::Dwarf::load(|id: gimli::SectionId| -> Result<Rd<'_>, gimli::Error> {
        Ok(Rd::new(
            sections.get(id.name()).map_or(&[][..], |v| v.as_slice()),
            LittleEndian,
        ))
    })
    .map_err(rd)?;
    let mut out = Offsets::new();
    let mut units = dwarf.units();
    while let Some(h) = units.next().map_err(rd)? {
        let unit = dwarf.unit(h).map_err(rd)?;
        let base = unit.header.offset().0 as u64;
        let mut cur = unit.entries();
        let mut subs: Vec<(isize, u64)> = Vec::new();
        while let Some(die) = cur.next_dfs().map_err(rd)? {
            let depth = die.depth();
            while subs.last().is_some_and(|s| s.0 >= depth) {
                subs.pop();
            }
            let tag = die.tag();
            if tag == gimli::DW_TAG_subprogram {
                if let Some(gimli::AttributeValue::Addr(a)) = die.attr_value(gimli::DW_AT_low_pc) {
                    subs.push((depth, a));
                }
                continue;
            }
            let artificial = matches!(
                die.attr_value(gimli::DW_AT_artificial),
                Some(gimli::AttributeValue::Flag(true))
            );
            if !(tag == gimli::DW_TAG_dwarf_procedure
                || tag == gimli::DW_TAG_variable && artificial)
            {
                continue;
            }
            let Some(&(_, start)) = subs.last() else {
                continue;
            };
            let Some(name) = die
                .attr_value(gimli::DW_AT_name)
                .and_then(|v| dwarf.attr_string(&unit, v).ok())
                .map(|s| String::from_utf8_lossy(s.slice()).into_owned())
            else {
                continue;
            };
            if !name.starts_with("__") {
                continue;
            }
            let off = base + die.offset().0 as u64;
            if out.insert((start, name.clone()), off).is_some() {
                return Err(AnnotateError::Layout(format!(
                    "two DIEs named {name} in the function at {start:#x}"
                )));
            }
        }
    }
    Ok(out)
}

/// Like [`annotate`], with a report of what was written.
pub fn annotate_with_report(
    bytes: &[u8],
    options: &AnnotateOptions,
) -> Result<(Vec<u8>, AnnotateReport), AnnotateError> {
    let co = CodeObject::parse(bytes).map_err(|e| AnnotateError::CodeObject(e.to_string()))?;
    let funcs = analyse_code_object(&co).map_err(AnnotateError::Reconstruction)?;
    let ws = co.kernels().first().map_or(64, |k| k.wavefront_size());
    let name_of = |a: u64| {
        co.symbols()
            .iter()
            .find(|s| s.is_code() && s.address == a)
            .map_or_else(|| format!("fn_{a:x}"), |s| s.name.to_string())
    };
    let kernels: Vec<u64> = co
        .symbols()
        .iter()
        .filter(|s| s.kind == amdgpu_codeobj::SymbolKind::Kernel)
        .map(|s| s.address)
        .collect();
    let plans: Vec<FunctionPlan> = funcs
        .iter()
        .map(|f| plan_function(f, name_of(f.start), kernels.contains(&f.start)))
        .collect();
    let has_dwarf = co
        .section_data(".debug_info")
        .is_some_and(|d| !d.is_empty());
    let read = if has_dwarf {
        Some(
            gimli::Dwarf::load(|id: gimli::SectionId| -> Result<Rd<'_>, gimli::Error> {
                Ok(Rd::new(
                    co.section_data(id.name()).unwrap_or(&[]),
                    LittleEndian,
                ))
            })
            .map_err(|e| AnnotateError::Read(e.to_string()))?,
        )
    } else {
        None
    };
    let (first, _) = emit(read.as_ref(), &plans, &Offsets::new(), options, ws)?;
    let offsets = added_offsets(&section_bytes(&first))?;
    let (second, created) = emit(read.as_ref(), &plans, &offsets, options, ws)?;
    let mut sections = section_bytes(&second);
    let check = added_offsets(&sections)?;
    if check != offsets {
        return Err(AnnotateError::Layout(
            "the added DIEs moved between the two writes".into(),
        ));
    }
    let mut report = AnnotateReport::default();
    for (plan, created) in plans.iter().zip(created) {
        let mut names: Vec<String> = plan.procs.iter().map(|p| p.name.clone()).collect();
        names.extend(plan.vars.keys().map(|r| var_name(*r)));
        if !plan.entries.is_empty() {
            names.extend([DIVERGENT.to_string(), ACTIVE_PC.to_string()]);
        }
        if !plan.active.is_empty() {
            names.push(ACTIVE_VAR.to_string());
        }
        if let Some(n) = names
            .iter()
            .find(|n| !check.contains_key(&(plan.start, (*n).clone())))
        {
            return Err(AnnotateError::Layout(format!(
                "{n} of the function at {:#x} was not written",
                plan.start
            )));
        }
        report.functions.push(FunctionReport {
            name: plan.name.clone(),
            start: plan.start,
            end: plan.end,
            created,
            lane_pc_entries: plan.entries.len(),
            active_lane_entries: plan.active.len(),
            procedures: if plan.entries.is_empty() {
                0
            } else {
                plan.procs.len() + 2
            },
            variables: plan.vars.len() + usize::from(!plan.active.is_empty()),
            skipped: plan.skipped.clone(),
        });
    }
    let no_offsets = Offsets::new();
    let frame = frames::debug_frame(
        &funcs,
        |a| kernels.contains(&a),
        |start| Exprs {
            ws,
            opts: DecodeOptions {
                address_size: 8,
                offset_size: 4,
                dialect: if options.encoding == LaneEncoding::Rocgdb {
                    Dialect::SingleByte
                } else {
                    Dialect::User
                },
                extensions: Default::default(),
            },
            start,
            offsets: &no_offsets,
        },
    )?;
    sections.insert(".debug_frame", frame);
    let out = patch(bytes, &sections)?;
    Ok((out, report))
}

/// Sections that index `.debug_info` or `.debug_str` by offset and that the rewrite
/// does not produce: emptied.
const STALE: &[&str] = &[
    ".debug_str_offsets",
    ".debug_addr",
    ".debug_aranges",
    ".debug_names",
    ".debug_pubnames",
    ".debug_pubtypes",
    ".debug_gnu_pubnames",
    ".debug_gnu_pubtypes",
    ".debug_types",
    ".debug_cu_index",
    ".debug_tu_index",
];

/// The code object with the DWARF sections in `new` (by name, in name order; a new
/// string section is marked as one), the stale index sections emptied, through the
/// code object writer ([`amdgpu_codeobj::write`]). `.eh_frame`, which AMDGPU code
/// objects do not use, is kept as it is.
fn patch(bytes: &[u8], new: &HashMap<&'static str, Vec<u8>>) -> Result<Vec<u8>, AnnotateError> {
    use amdgpu_codeobj::write::{Rewrite, SectionData, rewrite_sections};
    let mut order: Vec<(&&'static str, &Vec<u8>)> =
        new.iter().filter(|(n, _)| **n != ".eh_frame").collect();
    order.sort_by_key(|(n, _)| **n);
    let sections: Vec<SectionData> = order
        .into_iter()
        .map(|(name, data)| SectionData {
            name,
            data,
            strings: name.ends_with("_str") || *name == ".debug_line_str",
        })
        .collect();
    let rewrite = Rewrite {
        sections: &sections,
        empty: STALE,
    };
    rewrite_sections(bytes, &rewrite).map_err(|e| {
        AnnotateError::Elf(match e {
            amdgpu_codeobj::Error::Rewrite(why) => why,
            e => e.to_string(),
        })
    })
}

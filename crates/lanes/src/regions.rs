//! The static reconstruction of lane positions: for every PC of a function, which EXEC
//! regions are open, where each region's saved mask lives, and where the lanes each mask
//! excludes are waiting.
//!
//! LLVM's AMDGPU backend linearises structured control flow by narrowing EXEC (the
//! `SI_IF` / `SI_ELSE` / `SI_END_CF` / `SI_LOOP` / `SI_IF_BREAK` pseudo instructions of
//! `SILowerControlFlow`). At -O2 they become
//!
//! - IF: `s_and_saveexec D, cond` (D = the entry mask), for an IF with an ELSE followed by
//!   `s_xor D, exec, D` (D = the lanes still to run the second arm);
//! - ELSE: `s_andn2_saveexec D2, D` (EXEC = the second arm, D2 = the lanes done with the first);
//! - join: `s_or exec, exec, D`;
//! - loop: `s_or B, cond, B` collects the lanes that leave, `s_andn2 exec, exec, B` removes
//!   them, and `s_or exec, exec, B` after the loop brings them back;
//!
//! and at -O0 the unfused forms (`s_mov S, exec; s_and T, S, cond; s_xor S, T, S;
//! s_mov exec, T`, `s_or_saveexec D, S; s_and D, exec, D; s_xor exec, exec, D`), with the
//! masks spilled into lanes of a VGPR by `v_writelane` and that VGPR stored to scratch in a
//! whole-wave region (`s_or_saveexec S, -1` ... `s_mov exec, S`). Wave32 code uses the
//! `_b32` forms on `exec_lo`.
//!
//! The analysis interprets those instructions over symbolic masks ([`Sym`]) by a forward
//! data-flow over the function's control-flow graph, so it does not depend on the order
//! in which the blocks are laid out. The state at each PC says which regions are open
//! (outermost first), in which phase, and which locations hold which masks. From that,
//! [`LaneModel`] says where the lanes each mask excludes wait, following the conventions of
//! the AMDGPU `DW_AT_LLVM_lane_pc` example (LLVM AMDGPU usage guide):
//!
//! - during the arm of an IF/THEN/ELSE executed first, lanes that entered the IF but are
//!   not active are at the region's start (the instruction that narrowed EXEC);
//! - during the second arm, the lanes that finished the first are at the region's end (the
//!   instruction that restores EXEC);
//! - lanes that left a loop wait at its exit (the instruction that brings them back);
//! - a region that is never closed (a kernel's early return) holds lanes that returned.
//!
//! Whole-wave regions do not change the conceptual active mask: inside them it is the
//! saved EXEC. Where the analysis meets a pattern it does not know (an EXEC write it
//! cannot interpret, paths that disagree at a join, irreducible flow), the PCs it cannot
//! classify are reported as [`LaneModel::Unknown`] with the reason, never guessed.

use amdgpu_isa::alu::{AluOp, ops};
use amdgpu_isa::mem::ops as mem;
use amdgpu_isa::{Encoding, Flow as InstFlow, Inst, Op, Operand, Program, SpecialReg};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A region's identity: the address of the instruction that opened it (for a loop, the
/// loop header).
pub type RegionId = u64;

/// A set of lanes, named by its place in the region structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LaneSet {
    /// The lanes active on entry to the function.
    FuncEntry,
    /// The lanes of the first arm of region `r` (the first to run).
    First(RegionId),
    /// The lanes of the second arm of region `r` (the ELSE, or the lanes that skip).
    Second(RegionId),
    /// The lanes of loop `l` still in the loop.
    LoopActive(RegionId),
    /// The lanes that left loop `l` (its break mask).
    Break(RegionId),
}

/// A symbolic mask value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sym {
    /// A set of the region structure.
    Set(LaneSet),
    /// A condition computed at an address (opaque; restricted to the lanes active then).
    Cond(u64),
    /// `set & cond` before a region opens with it.
    CondAnd(LaneSet, u64),
    /// `set & !cond` before a region opens with it.
    CondAndNot(LaneSet, u64),
    /// No lanes.
    Zero,
    /// All lanes (`-1`).
    All,
    /// Not a mask: the function's return address (`s[30:31]` on entry), followed so that
    /// a called function's frame can find its caller's.
    ReturnAddress,
    /// Not a mask: the value SGPR `n` had on entry (the caller's stack pointer `s32` and
    /// frame pointer `s33`), followed so that the caller's spill slots, addressed from
    /// them, can be found from a called function.
    Entry(u8),
    /// Not a mask: the entry value of SGPR `n` plus a byte offset (the stack pointer while
    /// the function's frame is allocated: `s_add_i32 s32, s32, K` in the prologue, `-K` in
    /// the epilogue, which gives the entry value back).
    EntryPlus(u8, i32),
}

/// The SGPRs whose entry values (the caller's) are followed: the stack pointer and the
/// frame pointer, from which a function addresses its spill slots.
pub const CALLER_SGPRS: [u8; 2] = [32, 33];

/// A 32-bit location that can hold (half of) a saved mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Loc {
    /// SGPR `n` (VCC is SGPR 106/107 on GFX9 and named the same way on GFX10 here).
    Sgpr(u8),
    /// VCC, low (0) or high (1) dword.
    Vcc(u8),
    /// Lane `lane` of VGPR `vgpr` (written by `v_writelane`).
    VgprLane {
        /// The VGPR.
        vgpr: u8,
        /// The lane.
        lane: u8,
    },
    /// Lane `lane` of AGPR `agpr` (gfx908/gfx90a keep spilled VGPRs there).
    AgprLane {
        /// The AGPR.
        agpr: u8,
        /// The lane.
        lane: u8,
    },
    /// The dword a whole-wave `buffer_store_dword` of a VGPR put in the private memory of
    /// lane `lane`, at lane address `sgpr[soffset] / wave_size + offset` (MUBUF scratch
    /// through the swizzled private segment buffer with a wave-scaled `soffset`).
    Scratch {
        /// The SGPR holding the wave-scaled byte offset (`s33`, `s32`, ...).
        soffset: u8,
        /// The instruction's immediate offset.
        offset: u32,
        /// The lane whose private dword it is.
        lane: u8,
    },
}

/// Where a mask lives at a PC: one location for wave32, the low and high dwords for
/// wave64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Home {
    /// The low dword (lanes 0-31).
    pub lo: Loc,
    /// The high dword (lanes 32-63); `None` for wave32.
    pub hi: Option<Loc>,
}

/// The conceptual active mask at a PC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActiveMask {
    /// EXEC itself.
    Exec,
    /// Inside a whole-wave region: the EXEC saved on entry to it.
    Saved(Home),
    /// EXEC without the lanes of a mask (the -O0 ELSE transition, where EXEC briefly
    /// holds both arms while the lanes of the first arm are already done).
    ExecMinus(Home),
    /// A whole-wave region inside the -O0 ELSE transition: the saved EXEC without the
    /// lanes done with the first arm.
    SavedMinus(Home, Home),
}

/// Where the lanes a region's mask excludes are waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// At this address.
    At(u64),
    /// They returned from the function (a region that is never closed).
    Returned,
}

/// What the lanes of one open region look like at a PC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// The region.
    pub region: RegionId,
    /// Where its mask lives: the lanes in it that are not active wait at `wait`.
    pub home: Home,
    /// Where they wait.
    pub wait: Wait,
}

/// The lane model at one PC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneModel {
    /// The conceptual active mask and the open regions, outermost first. A lane that is
    /// in the mask of several regions waits where the innermost of them says.
    Known {
        /// The conceptual active mask.
        active: ActiveMask,
        /// The open regions whose masks hold lanes that are not active.
        regions: Vec<Waiting>,
    },
    /// The analysis could not classify this PC.
    Unknown(String),
}

/// The kind of a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// An IF (with or without an ELSE).
    If,
    /// A loop whose lanes leave it one by one.
    Loop,
}

/// A structured region found in the function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Its identity (the opening address; a loop's header).
    pub id: RegionId,
    /// IF or loop.
    pub kind: RegionKind,
    /// Where the second arm starts (the first instruction of the ELSE transition), if the
    /// IF has one.
    pub second: Option<u64>,
    /// Where EXEC is restored (the join); `None` when it never is.
    pub join: Option<u64>,
}

/// The result of the analysis of one function.
#[derive(Clone, Debug)]
pub struct FunctionRegions {
    /// The function's first address.
    pub start: u64,
    /// One past its last byte.
    pub end: u64,
    /// Lanes per wave.
    pub wave_size: u32,
    /// The lane model of every instruction, by address.
    pub models: BTreeMap<u64, LaneModel>,
    /// The regions, by identity.
    pub regions: BTreeMap<RegionId, Region>,
    /// Where the function's return address is (low and high dword), by PC, where known.
    pub return_address: BTreeMap<u64, (Loc, Loc)>,
    /// Where the caller's values of the [`CALLER_SGPRS`] (the stack and frame pointers
    /// on entry) are, by register and PC, where known.
    pub caller_sgprs: BTreeMap<u8, BTreeMap<u64, Loc>>,
    /// For each loop, the branch that goes back to its header (its line is the loop's).
    pub loop_latch: BTreeMap<RegionId, u64>,
    /// What a call to this function may write (its own writes and those of the functions
    /// it calls; VGPRs and AGPRs as lane 0 of the register): the registers whose caller
    /// values it does not keep. Empty from [`analyse`], which sees one function alone.
    pub writes: BTreeSet<Loc>,
}

impl FunctionRegions {
    /// The lane model at `pc` (`None`: not an instruction of the function).
    pub fn at(&self, pc: u64) -> Option<&LaneModel> {
        self.models.get(&pc)
    }

    /// How many instructions have an unknown model.
    pub fn unknown_count(&self) -> usize {
        self.models
            .values()
            .filter(|m| matches!(m, LaneModel::Unknown(w) if w != UNREACHABLE))
            .count()
    }
}

/// The phase of an open region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    /// The first arm runs; the rest of the entry lanes wait at the start.
    First,
    /// The -O0 ELSE transition: EXEC holds the whole entry set for a few instructions.
    Transit,
    /// The second arm runs; the first arm's lanes wait at the join.
    Second,
    /// A loop.
    Loop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Open {
    id: RegionId,
    /// The set EXEC held when the region opened.
    parent: LaneSet,
    phase: Phase,
}

/// The abstract state before an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    exec: Sym,
    /// The conceptual active set inside a whole-wave region.
    whole_wave: Option<LaneSet>,
    stack: Vec<Open>,
    /// Location -> (value, high half).
    locs: BTreeMap<Loc, (Sym, bool)>,
}

/// Why a state could not be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Flow {
    Ok(State),
    Unknown(String),
}

/// Analyses the function `[start, end)` of `program` for waves of `wave_size` lanes
/// (calls clobber what the calling convention does not preserve).
pub fn analyse(program: &Program, start: u64, end: u64, wave_size: u32) -> FunctionRegions {
    Analysis::new(program, start, end, wave_size).run()
}

/// The target of a call through the SGPR pair `target`, when the instructions before it
/// compute it as `s_getpc_b64 P; s_add_u32 P.lo, P.lo, K; s_addc_u32 P.hi, P.hi, ...`.
fn call_target(before: &[(u64, &Inst)], target: &Operand) -> Option<u64> {
    let Operand::Sgpr { index, count: 2 } = *target else {
        return None;
    };
    let mut offset: Option<i64> = None;
    for &(pc, i) in before.iter().rev().take(16) {
        let op = alu_op(i);
        let writes_lo = matches!(i.dst[0], Operand::Sgpr { index: d, .. } if d == index);
        if op == Some(ops::S_ADD_U32) && writes_lo && offset.is_none() {
            offset = match i.src[1] {
                Operand::Literal(k) => Some(k as i32 as i64),
                Operand::InlineInt(k) => Some(k as i64),
                _ => return None,
            };
        } else if op == Some(ops::S_GETPC_B64) && writes_lo {
            return Some((pc + 4).wrapping_add_signed(offset?));
        } else if (writes_lo
            || matches!(i.dst[0], Operand::Sgpr { index: d, count: 2 } if d == index))
            && op != Some(ops::S_ADDC_U32)
        {
            return None;
        }
    }
    None
}

/// The registers the instructions of `[start, end)` write (VGPRs and AGPRs as lane 0).
fn written(program: &Program, start: u64, end: u64) -> BTreeSet<Loc> {
    let mut out = BTreeSet::new();
    for (pc, i) in program.iter() {
        if pc < start || pc >= end {
            continue;
        }
        let n = name(i);
        let store = n.contains("_store") || n.starts_with("ds_write");
        for d in i.dst.iter().skip(usize::from(store)) {
            match *d {
                Operand::Sgpr { index, count } => {
                    for k in 0..count {
                        out.insert(Loc::Sgpr(index.wrapping_add(k)));
                    }
                }
                Operand::Special {
                    reg: SpecialReg::Vcc,
                    ..
                } => {
                    out.insert(Loc::Vcc(0));
                    out.insert(Loc::Vcc(1));
                }
                Operand::Vgpr { index, count } => {
                    for k in 0..count {
                        out.insert(Loc::VgprLane {
                            vgpr: index.wrapping_add(k),
                            lane: 0,
                        });
                    }
                }
                Operand::Agpr { index, count } => {
                    for k in 0..count {
                        out.insert(Loc::AgprLane {
                            agpr: index.wrapping_add(k),
                            lane: 0,
                        });
                    }
                }
                _ => {}
            }
        }
    }
    out
}

struct Block {
    insts: Vec<(u64, Inst)>,
    succs: Vec<u64>,
}

struct Analysis {
    wave64: bool,
    wave_size: u32,
    start: u64,
    end: u64,
    blocks: BTreeMap<u64, Block>,
    /// Loop headers of divergent loops -> the blocks of the loop.
    loops: BTreeMap<u64, BTreeSet<u64>>,
    /// Loop headers -> the last instruction of a block that branches back to them.
    latches: BTreeMap<u64, u64>,
    regions: BTreeMap<RegionId, Region>,
    /// The set EXEC held when each region opened (its two arms, or a loop's active and
    /// exited lanes, make it up).
    parents: BTreeMap<RegionId, LaneSet>,
    /// Whether some reachable PC could not be analysed (then no region is known to be
    /// left open for good).
    incomplete: bool,
    /// Regions opened by narrowing EXEC with the old EXEC saved nowhere: the lanes they
    /// remove have returned, whatever comes later.
    returning: BTreeSet<RegionId>,
    /// The registers a call may change: those the other functions of the code object
    /// write (LLVM allocates registers across calls knowing what its callees clobber);
    /// `None`: the calling convention's caller-saved registers.
    call_clobbers: Option<BTreeSet<Loc>>,
    /// Per call site whose target is known: what that callee (and what it calls) writes.
    call_clobbers_at: BTreeMap<u64, BTreeSet<Loc>>,
    /// Regions closed where paths join (see [`Analysis::merge`]), with the join.
    closed_at_merge: std::cell::RefCell<Vec<(RegionId, u64)>>,
}

fn name(i: &Inst) -> &'static str {
    match i.op {
        Op::Alu(o) => o.name(),
        Op::Mem(o) => o.name(),
        Op::Invalid => "",
    }
}

/// The ALU operation of an instruction.
fn alu_op(i: &Inst) -> Option<AluOp> {
    match i.op {
        Op::Alu(op) => Some(op),
        _ => None,
    }
}

/// The mask operations the reconstruction follows (their 32- and 64-bit forms alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MaskOp {
    Mov,
    AndSaveexec,
    OrSaveexec,
    XorSaveexec,
    Andn2Saveexec,
    Andn1Saveexec,
    Orn2Saveexec,
    And,
    Or,
    Xor,
    Andn2,
    /// Any other SALU operation on a mask-wide operand (`s_cselect`, `s_not`, ...).
    Other,
}

fn mask_op_of(op: AluOp) -> MaskOp {
    use ops::*;
    match op {
        S_MOV_B32 | S_MOV_B64 => MaskOp::Mov,
        S_AND_SAVEEXEC_B32 | S_AND_SAVEEXEC_B64 => MaskOp::AndSaveexec,
        S_OR_SAVEEXEC_B32 | S_OR_SAVEEXEC_B64 => MaskOp::OrSaveexec,
        S_XOR_SAVEEXEC_B32 | S_XOR_SAVEEXEC_B64 => MaskOp::XorSaveexec,
        S_ANDN2_SAVEEXEC_B32 | S_ANDN2_SAVEEXEC_B64 => MaskOp::Andn2Saveexec,
        S_ANDN1_SAVEEXEC_B32 | S_ANDN1_SAVEEXEC_B64 => MaskOp::Andn1Saveexec,
        S_ORN2_SAVEEXEC_B32 | S_ORN2_SAVEEXEC_B64 => MaskOp::Orn2Saveexec,
        S_AND_B32 | S_AND_B64 => MaskOp::And,
        S_OR_B32 | S_OR_B64 => MaskOp::Or,
        S_XOR_B32 | S_XOR_B64 => MaskOp::Xor,
        S_ANDN2_B32 | S_ANDN2_B64 => MaskOp::Andn2,
        _ => MaskOp::Other,
    }
}

fn is_exec(op: &Operand) -> bool {
    matches!(
        op,
        Operand::Special {
            reg: SpecialReg::Exec,
            part: 0,
            ..
        }
    )
}

impl Analysis {
    fn new(program: &Program, start: u64, end: u64, wave_size: u32) -> Self {
        let mut a = Analysis {
            wave64: wave_size == 64,
            wave_size,
            start,
            end,
            blocks: BTreeMap::new(),
            loops: BTreeMap::new(),
            latches: BTreeMap::new(),
            regions: BTreeMap::new(),
            parents: BTreeMap::new(),
            closed_at_merge: Default::default(),
            incomplete: false,
            returning: BTreeSet::new(),
            call_clobbers: None,
            call_clobbers_at: BTreeMap::new(),
        };
        a.build_cfg(program);
        a.find_loops();
        a
    }

    fn build_cfg(&mut self, program: &Program) {
        let insts: Vec<(u64, Inst)> = program
            .iter()
            .filter(|(pc, _)| *pc >= self.start && *pc < self.end)
            .map(|(pc, i)| (pc, *i))
            .collect();
        let mut leaders = BTreeSet::new();
        leaders.insert(self.start);
        for (pc, i) in &insts {
            let next = pc + i.size as u64;
            match i.flow(*pc) {
                InstFlow::Branch { target, .. } => {
                    leaders.insert(target);
                    leaders.insert(next);
                }
                InstFlow::Call { .. }
                | InstFlow::IndirectCall
                | InstFlow::End
                | InstFlow::IndirectJump { conditional: false } => {
                    leaders.insert(next);
                }
                InstFlow::Next | InstFlow::IndirectJump { conditional: true } => {}
            }
        }
        let mut cur: Option<u64> = None;
        for (pc, i) in insts {
            if leaders.contains(&pc) || cur.is_none() {
                cur = Some(pc);
                self.blocks.insert(
                    pc,
                    Block {
                        insts: Vec::new(),
                        succs: Vec::new(),
                    },
                );
            }
            if let Some(b) = cur.and_then(|c| self.blocks.get_mut(&c)) {
                b.insts.push((pc, i));
            }
        }
        let starts: Vec<u64> = self.blocks.keys().copied().collect();
        for s in starts {
            let Some(b) = self.blocks.get(&s) else {
                continue;
            };
            let Some(&(pc, last)) = b.insts.last() else {
                continue;
            };
            let next = pc + last.size as u64;
            let mut succs = Vec::new();
            match last.flow(pc) {
                InstFlow::Branch {
                    target,
                    conditional,
                } => {
                    succs.push(target);
                    if conditional {
                        succs.push(next);
                    }
                }
                // A return or tail call leaves the function; the wave's end ends it.
                InstFlow::End | InstFlow::IndirectJump { conditional: false } => {}
                // Calls return here; GFX9's branch-stack jumps are not followed.
                InstFlow::Next
                | InstFlow::Call { .. }
                | InstFlow::IndirectCall
                | InstFlow::IndirectJump { conditional: true } => succs.push(next),
            }
            succs.retain(|t| *t >= self.start && *t < self.end);
            if let Some(b) = self.blocks.get_mut(&s) {
                b.succs = succs;
            }
        }
    }

    /// Natural loops (back edges to a dominating header) that contain an
    /// `s_andn2 exec, exec, B`: loops whose lanes leave one by one.
    fn find_loops(&mut self) {
        let all: BTreeSet<u64> = self.blocks.keys().copied().collect();
        // Blocks no path from the entry reaches (alignment padding) take no part.
        let mut reachable: BTreeSet<u64> = BTreeSet::new();
        let mut work = vec![self.start];
        while let Some(b) = work.pop() {
            if reachable.insert(b)
                && let Some(blk) = self.blocks.get(&b)
            {
                work.extend(blk.succs.iter().copied());
            }
        }
        let mut preds: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for (s, b) in &self.blocks {
            if !reachable.contains(s) {
                continue;
            }
            for t in &b.succs {
                preds.entry(*t).or_default().push(*s);
            }
        }
        // Iterative dominators (small functions: the simple set algorithm is enough).
        let order: Vec<u64> = reachable.iter().copied().collect();
        let mut dom: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
        for b in &order {
            if *b == self.start {
                dom.insert(*b, [*b].into());
            } else {
                dom.insert(*b, all.clone());
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for b in &order {
                if *b == self.start {
                    continue;
                }
                let mut new: Option<BTreeSet<u64>> = None;
                for p in preds.get(b).into_iter().flatten() {
                    let d = &dom[p];
                    new = Some(match new {
                        None => d.clone(),
                        Some(n) => n.intersection(d).copied().collect(),
                    });
                }
                let mut new = new.unwrap_or_default();
                new.insert(*b);
                if dom[b] != new {
                    dom.insert(*b, new);
                    changed = true;
                }
            }
        }
        for (s, b) in &self.blocks {
            if !reachable.contains(s) {
                continue;
            }
            for h in &b.succs {
                if !dom.get(s).is_some_and(|d| d.contains(h)) {
                    continue;
                }
                // Back edge s -> h: the loop is h plus everything reaching s without h.
                let mut body: BTreeSet<u64> = [*h].into();
                let mut work = vec![*s];
                while let Some(x) = work.pop() {
                    if body.insert(x) {
                        work.extend(preds.get(&x).into_iter().flatten().copied());
                    }
                }
                let divergent = body.iter().any(|blk| {
                    self.blocks[blk].insts.iter().any(|(_, i)| {
                        matches!(alu_op(i), Some(ops::S_ANDN2_B64 | ops::S_ANDN2_B32))
                            && is_exec(&i.dst[0])
                            && is_exec(&i.src[0])
                    })
                });
                if divergent {
                    if let Some((pc, _)) = self.blocks[s].insts.last() {
                        self.latches.entry(*h).or_insert(*pc);
                    }
                    self.loops.entry(*h).or_default().extend(body);
                }
            }
        }
    }

    /// Analyses the function: the states at block entries to a fixpoint, then a final
    /// pass for the state before every instruction, its lane model, and the homes of
    /// the return address and the caller's SGPRs.
    fn run(mut self) -> FunctionRegions {
        let entry = self.fixpoint();
        let states = self.final_pass(&entry);
        // A region is known never to close only if every path was followed.
        self.incomplete = states
            .iter()
            .any(|(_, f)| matches!(f, Flow::Unknown(w) if w != UNREACHABLE));
        let mut models = BTreeMap::new();
        for (k, (pc, flow)) in states.iter().enumerate() {
            // The instruction after (in address order): a home it still holds is preferred,
            // so that at a call the model names a copy the call does not clobber (where a
            // caller's frame is evaluated, at the return address minus one).
            let next = match states.get(k + 1) {
                Some((_, Flow::Ok(n))) => Some(n),
                _ => None,
            };
            models.insert(*pc, self.model(flow, next));
        }
        let (return_address, caller_sgprs) = frame_homes(&states);
        FunctionRegions {
            start: self.start,
            end: self.end,
            wave_size: self.wave_size,
            models,
            regions: self.regions,
            return_address,
            caller_sgprs,
            loop_latch: self.latches,
            writes: BTreeSet::new(),
        }
    }

    /// The state at the entry of every reachable block: a worklist from the function's
    /// start (the return address in s[30:31], the stack and frame pointers in s32 and
    /// s33), merging at joins, to a fixpoint or a bounded number of visits.
    fn fixpoint(&mut self) -> BTreeMap<u64, Flow> {
        let mut entry: BTreeMap<u64, Flow> = BTreeMap::new();
        let init = State {
            exec: Sym::Set(LaneSet::FuncEntry),
            whole_wave: None,
            stack: Vec::new(),
            locs: [
                (Loc::Sgpr(30), (Sym::ReturnAddress, false)),
                (Loc::Sgpr(31), (Sym::ReturnAddress, true)),
                (Loc::Sgpr(32), (Sym::Entry(32), false)),
                (Loc::Sgpr(33), (Sym::Entry(33), false)),
            ]
            .into(),
        };
        entry.insert(self.start, Flow::Ok(init));
        let mut work: VecDeque<u64> = [self.start].into();
        let mut visits = 0usize;
        let limit = 64 * self.blocks.len().max(1) + 64;
        while let Some(b) = work.pop_front() {
            visits += 1;
            if visits > limit {
                break;
            }
            let Some(flow) = entry.get(&b).cloned() else {
                continue;
            };
            let (out, _) = self.block(b, flow, false);
            let succs = self.blocks[&b].succs.clone();
            for t in succs {
                let incoming = self.enter(b, t, out.clone());
                let back = self.loops.get(&t).is_some_and(|body| body.contains(&b));
                let merged = match entry.get(&t) {
                    None => incoming,
                    Some(old) => self.merge(t, old, &incoming, back),
                };
                if entry.get(&t) != Some(&merged) {
                    entry.insert(t, merged);
                    if !work.contains(&t) {
                        work.push_back(t);
                    }
                }
            }
        }
        entry
    }

    /// The final pass over every block from its `entry` state: the state before every
    /// instruction, and the regions as the final states see them (earlier rounds of the
    /// fixpoint saw partial states), with the joins where edges close regions.
    fn final_pass(&mut self, entry: &BTreeMap<u64, Flow>) -> Vec<(u64, Flow)> {
        self.closed_at_merge.take();
        self.regions.clear();
        for h in self.loops.keys() {
            self.regions.insert(
                *h,
                Region {
                    id: *h,
                    kind: RegionKind::Loop,
                    second: None,
                    join: None,
                },
            );
        }
        let starts: Vec<u64> = self.blocks.keys().copied().collect();
        let mut states: Vec<(u64, Flow)> = Vec::new();
        let mut closed_at_merge = Vec::new();
        for b in starts {
            let flow = entry
                .get(&b)
                .cloned()
                .unwrap_or(Flow::Unknown(UNREACHABLE.into()));
            let (out, per) = self.block(b, flow, true);
            states.extend(per);
            for t in self.blocks[&b].succs.clone() {
                let inc = self.enter(b, t, out.clone());
                closed_at_merge.extend(self.closed_by_join(t, &inc, entry.get(&t)));
            }
        }
        for (id, at) in closed_at_merge {
            if let Some(r) = self.regions.get_mut(&id)
                && r.join.is_none()
            {
                r.join = Some(at);
            }
        }
        states
    }

    /// Regions an edge brings open (`inc`) into a join whose state (`there`) has them
    /// closed: they close at the join's first EXEC write, with that instruction's PC.
    fn closed_by_join(&self, t: u64, inc: &Flow, there: Option<&Flow>) -> Vec<(RegionId, u64)> {
        let (Flow::Ok(inc), Some(Flow::Ok(there))) = (inc, there) else {
            return Vec::new();
        };
        if inc.stack.len() <= there.stack.len() || inc.stack[..there.stack.len()] != there.stack[..]
        {
            return Vec::new();
        }
        // (A join with no EXEC write, the kernel's end, closes nothing: the lanes the
        // regions hold have finished.)
        let close = self.blocks[&t]
            .insts
            .iter()
            .find(|(_, i)| is_exec(&i.dst[0]))
            .map(|(pc, _)| *pc);
        match close {
            Some(c) => inc.stack[there.stack.len()..]
                .iter()
                .map(|o| (o.id, c))
                .collect(),
            None => Vec::new(),
        }
    }

    /// The state on the edge `from -> to`: entering a divergent loop from outside opens it.
    fn enter(&mut self, from: u64, to: u64, flow: Flow) -> Flow {
        let Flow::Ok(mut s) = flow else { return flow };
        if let Some(body) = self.loops.get(&to)
            && !body.contains(&from)
        {
            let Sym::Set(parent) = s.exec else {
                return Flow::Unknown(format!("loop at {to:#x} entered with an unknown EXEC"));
            };
            s.stack.push(Open {
                id: to,
                parent,
                phase: Phase::Loop,
            });
            self.parents.insert(to, parent);
            self.regions.entry(to).or_insert(Region {
                id: to,
                kind: RegionKind::Loop,
                second: None,
                join: None,
            });
            s.exec = Sym::Set(LaneSet::LoopActive(to));
        }
        Flow::Ok(s)
    }

    fn merge(&self, at: u64, a: &Flow, b: &Flow, back_edge: bool) -> Flow {
        let (Flow::Ok(x), Flow::Ok(y)) = (a, b) else {
            return match (a, b) {
                (Flow::Unknown(r), _) | (_, Flow::Unknown(r)) => Flow::Unknown(r.clone()),
                _ => unreachable_unknown(),
            };
        };
        // A join of an enclosing region can also be the join of the regions inside it
        // (LLVM drops an inner join when an outer one follows at once, and a loop's exit
        // can be an enclosing IF's join): the path from inside still has them open, the
        // other path does not. They close here; from here on the state is the outer one.
        let (x, y) = if x.stack.len() != y.stack.len() {
            let (short, long) = if x.stack.len() < y.stack.len() {
                (x, y)
            } else {
                (y, x)
            };
            // On a loop's back edge a region still open inside the loop would be closed
            // by the next iteration's code: flow the analysis does not model.
            let around_back_edge = back_edge
                && long.stack[short.stack.len()..]
                    .iter()
                    .any(|o| o.phase != Phase::Loop);
            if long.stack[..short.stack.len()] != short.stack[..] || around_back_edge {
                return Flow::Unknown(format!(
                    "paths that join at {at:#x} disagree on the EXEC regions"
                ));
            }
            for o in &long.stack[short.stack.len()..] {
                self.closed_at_merge.borrow_mut().push((o.id, at));
            }
            let mut left = long.clone();
            left.stack.truncate(short.stack.len());
            left.exec = short.exec;
            left.locs.retain(|_, v| {
                !long.stack[short.stack.len()..]
                    .iter()
                    .any(|o| refers_to(v.0, o.id))
            });
            (short.clone(), left)
        } else {
            (x.clone(), y.clone())
        };
        let (x, y) = (&x, &y);
        if x.exec != y.exec || x.stack != y.stack || x.whole_wave != y.whole_wave {
            return Flow::Unknown(format!(
                "paths that join at {at:#x} disagree on the EXEC regions"
            ));
        }
        let mut locs = BTreeMap::new();
        for (l, v) in &x.locs {
            let Some(w) = y.locs.get(l) else {
                continue;
            };
            if w == v {
                locs.insert(*l, *v);
            } else if w.1 == v.1 {
                // A loop's break mask is empty on entry and grows on the back edges.
                match (v.0, w.0) {
                    (Sym::Zero | Sym::Cond(_), Sym::Set(LaneSet::Break(b)))
                    | (Sym::Set(LaneSet::Break(b)), Sym::Zero | Sym::Cond(_))
                        if x.stack.iter().any(|o| o.id == b) =>
                    {
                        locs.insert(*l, (Sym::Set(LaneSet::Break(b)), v.1));
                    }
                    // Conditions that differ by path are a condition of the join.
                    (x, y) if condition_like(x) && condition_like(y) => {
                        locs.insert(*l, (Sym::Cond(at), v.1));
                    }
                    _ => {}
                }
            }
        }
        Flow::Ok(State {
            exec: x.exec,
            whole_wave: x.whole_wave,
            stack: x.stack.clone(),
            locs,
        })
    }

    /// Runs a block; with `record`, also returns the state before each instruction.
    fn block(&mut self, b: u64, flow: Flow, record: bool) -> (Flow, Vec<(u64, Flow)>) {
        let insts = self.blocks[&b].insts.clone();
        let mut per = Vec::new();
        let mut flow = flow;
        for (pc, i) in insts {
            if record {
                per.push((pc, flow.clone()));
            }
            flow = match flow {
                Flow::Ok(s) => self.step(s, pc, &i),
                u => u,
            };
        }
        (flow, per)
    }

    /// Reads a mask operand.
    fn read(&self, s: &State, op: &Operand) -> Option<Sym> {
        match *op {
            Operand::Special {
                reg: SpecialReg::Exec,
                part: 0,
                count,
            } if count as u32 == self.mask_dwords() => Some(s.exec),
            Operand::InlineInt(0) => Some(Sym::Zero),
            Operand::InlineInt(-1) => Some(Sym::All),
            _ => {
                let locs = self.locs_of(op)?;
                let lo = s.locs.get(&locs.0)?;
                if lo.1 {
                    return None;
                }
                if let Some(h) = locs.1 {
                    let hi = s.locs.get(&h)?;
                    if hi.0 != lo.0 || !hi.1 {
                        return None;
                    }
                }
                Some(lo.0)
            }
        }
    }

    fn mask_dwords(&self) -> u32 {
        if self.wave64 { 2 } else { 1 }
    }

    /// The 32-bit locations of a mask operand (low, high).
    fn locs_of(&self, op: &Operand) -> Option<(Loc, Option<Loc>)> {
        let n = self.mask_dwords() as u8;
        match *op {
            Operand::Sgpr { index, count } if count == n => Some((
                Loc::Sgpr(index),
                self.wave64.then(|| Loc::Sgpr(index.wrapping_add(1))),
            )),
            Operand::Special {
                reg: SpecialReg::Vcc,
                count,
                part: 0,
            } if count == n => Some((Loc::Vcc(0), self.wave64.then_some(Loc::Vcc(1)))),
            _ => None,
        }
    }

    /// Writes a mask operand (`None`: the value is not a mask the analysis follows).
    fn write(&self, s: &mut State, op: &Operand, v: Option<Sym>) -> Result<(), String> {
        if is_exec(op) {
            return Err("EXEC written by an instruction the analysis does not follow".into());
        }
        match self.locs_of(op) {
            Some((lo, hi)) => {
                set(s, lo, v.map(|x| (x, false)));
                if let Some(h) = hi {
                    set(s, h, v.map(|x| (x, true)));
                }
            }
            None => kill_operand(s, op),
        }
        Ok(())
    }

    fn step(&mut self, mut s: State, pc: u64, i: &Inst) -> Flow {
        match self.transfer(&mut s, pc, i) {
            Ok(()) => Flow::Ok(s),
            Err(why) => Flow::Unknown(format!("{why} at {pc:#x} (`{i}`)")),
        }
    }

    /// The effect of instruction `i` at `pc` on the state: compares, lane reads and
    /// writes, spills, AGPR copies, stack-pointer steps and SGPR copies each have
    /// their helper; mask operations go to [`Analysis::salu_mask`]; anything else
    /// kills the registers it writes (and a call those its callee may write).
    fn transfer(&mut self, s: &mut State, pc: u64, i: &Inst) -> Result<(), String> {
        let n = name(i);
        // Mask-wide operations by the data size their name gives (`_b64` on wave64).
        let width = match n.rsplit_once('_') {
            Some((_, "b64")) => 2,
            Some((_, "b32")) => 1,
            _ => 0,
        };
        let mask_op = width == self.mask_dwords();
        let writes_exec = is_exec(&i.dst[0]);
        if n.starts_with("v_cmp") {
            return self.vector_compare(s, pc, i, n.starts_with("v_cmpx"));
        }
        let op = alu_op(i);
        if op == Some(ops::V_WRITELANE_B32) {
            writelane(s, i);
            return Ok(());
        }
        if op == Some(ops::V_READLANE_B32) {
            return readlane(s, i);
        }
        if matches!(
            i.op,
            Op::Mem(mem::BUFFER_STORE_DWORD | mem::BUFFER_LOAD_DWORD)
        ) {
            return self.spill(s, i.op == Op::Mem(mem::BUFFER_STORE_DWORD), i);
        }
        if matches!(op, Some(ops::V_ACCVGPR_WRITE_B32 | ops::V_ACCVGPR_READ_B32)) {
            self.accvgpr_copy(s, i);
            return Ok(());
        }
        if stack_pointer_step(s, op, i) || (!mask_op && sgpr_copy(s, op, i)) {
            return Ok(());
        }
        // A call is a `_b64` SALU instruction but not a mask operation (before this
        // test, wave64 calls clobbered nothing).
        let call = matches!(op, Some(ops::S_SWAPPC_B64 | ops::S_CALL_B64));
        let salu = matches!(
            i.encoding,
            Encoding::Sop1 | Encoding::Sop2 | Encoding::Sopk | Encoding::Sopc | Encoding::Sopp
        );
        if salu && mask_op && !call {
            return self.salu_mask(s, pc, i, op.map_or(MaskOp::Other, mask_op_of));
        }
        if writes_exec {
            return Err("EXEC written by an instruction the analysis does not follow".into());
        }
        // Anything else: the registers it writes no longer hold masks (a store's first
        // operand is the data it reads).
        let store = n.contains("_store") || n.starts_with("ds_write");
        for d in i.dst.iter().skip(usize::from(store)) {
            kill_operand(s, d);
        }
        if call {
            self.call_clobber(s, pc);
        }
        Ok(())
    }

    /// `v_cmp*` at `pc`: its destination (VCC when none) holds the condition; `v_cmpx`
    /// (`x`) narrows EXEC to it.
    fn vector_compare(&mut self, s: &mut State, pc: u64, i: &Inst, x: bool) -> Result<(), String> {
        if x {
            let Sym::Set(cur) = s.exec else {
                return Err("v_cmpx with an unknown EXEC".into());
            };
            kill_operand(s, &i.dst[0]);
            return self.set_exec(s, pc, Sym::CondAnd(cur, pc), false);
        }
        let d = if i.dst[0].is_some() {
            i.dst[0]
        } else {
            Operand::Special {
                reg: SpecialReg::Vcc,
                count: self.mask_dwords() as u8,
                part: 0,
            }
        };
        self.write(s, &d, Some(Sym::Cond(pc)))
    }

    /// `v_accvgpr_write`/`v_accvgpr_read`: a whole VGPR copied to or from an AGPR (in a
    /// whole-wave region, every lane's value goes along).
    fn accvgpr_copy(&self, s: &mut State, i: &Inst) {
        let whole = s.exec == Sym::All;
        let (from, to) = (i.src[0], i.dst[0]);
        let lane_loc = |op: &Operand, lane: u8| match *op {
            Operand::Vgpr { index, count: 1 } => Some(Loc::VgprLane { vgpr: index, lane }),
            Operand::Agpr { index, count: 1 } => Some(Loc::AgprLane { agpr: index, lane }),
            _ => None,
        };
        for lane in 0..self.wave_size as u8 {
            let (Some(f), Some(t)) = (lane_loc(&from, lane), lane_loc(&to, lane)) else {
                kill_operand(s, &to);
                return;
            };
            let v = if whole { s.locs.get(&f).copied() } else { None };
            set(s, t, v);
        }
    }

    /// After a call at `pc`: what the callee (or, unknown, any function) may write no
    /// longer holds masks; the stack and frame pointers are restored (the calling
    /// convention).
    fn call_clobber(&self, s: &mut State, pc: u64) {
        match self
            .call_clobbers_at
            .get(&pc)
            .or(self.call_clobbers.as_ref())
        {
            Some(c) => s.locs.retain(|l, _| match l {
                Loc::Sgpr(32 | 33) => true,
                Loc::Sgpr(_) | Loc::Vcc(_) => !c.contains(l),
                Loc::VgprLane { vgpr, .. } => !c.contains(&Loc::VgprLane {
                    vgpr: *vgpr,
                    lane: 0,
                }),
                Loc::AgprLane { agpr, .. } => !c.contains(&Loc::AgprLane {
                    agpr: *agpr,
                    lane: 0,
                }),
                Loc::Scratch { .. } => true,
            }),
            None => kill_call_clobbered(s),
        }
    }

    /// `buffer_store_dword vX, off, s[..], sN offset:K` in a whole-wave region spills a
    /// VGPR whose lanes may hold masks; `buffer_load_dword` reloads it.
    fn spill(&self, s: &mut State, store: bool, i: &Inst) -> Result<(), String> {
        let soffset = match i.src.iter().find_map(|o| match o {
            Operand::Sgpr { index, count: 1 } => Some(*index),
            _ => None,
        }) {
            Some(so) => so,
            None => {
                if !store {
                    kill_operand(s, &i.dst[0]);
                }
                return Ok(());
            }
        };
        let offset = i.mem.offset as u32;
        // The data VGPR is the first operand of loads and stores alike.
        let vgpr = match i.dst[0] {
            Operand::Vgpr { index, count: 1 } => Some(index),
            _ => None,
        };
        let Some(v) = vgpr else { return Ok(()) };
        // Only the lanes EXEC covered are written; spills of masks happen in whole-wave
        // regions, where every lane is.
        let whole = s.exec == Sym::All;
        for lane in 0..self.wave_size as u8 {
            let sl = Loc::Scratch {
                soffset,
                offset,
                lane,
            };
            let vl = Loc::VgprLane { vgpr: v, lane };
            if store {
                let val = if whole {
                    s.locs.get(&vl).copied()
                } else {
                    None
                };
                set(s, sl, val);
            } else {
                let val = if whole {
                    s.locs.get(&sl).copied()
                } else {
                    None
                };
                set(s, vl, val);
            }
        }
        Ok(())
    }

    fn salu_mask(&mut self, s: &mut State, pc: u64, i: &Inst, base: MaskOp) -> Result<(), String> {
        let a = self.read(s, &i.src[0]);
        let b = self.read(s, &i.src[1]);
        let d = i.dst[0];
        let exec = s.exec;
        match base {
            MaskOp::Mov => {
                if is_exec(&d) {
                    let v = a.ok_or("EXEC set from a mask the analysis does not follow")?;
                    return self.set_exec(s, pc, v, false);
                }
                // A mask of all lanes put in a register is a condition that holds for
                // every lane (the -O0 structuriser's "true" flow predicate), not a set.
                let v = match a {
                    Some(Sym::All) => Some(Sym::Cond(pc)),
                    v => v,
                };
                self.write(s, &d, v)
            }
            MaskOp::AndSaveexec
            | MaskOp::OrSaveexec
            | MaskOp::Andn2Saveexec
            | MaskOp::XorSaveexec
            | MaskOp::Andn1Saveexec
            | MaskOp::Orn2Saveexec => {
                let new = match (base, a) {
                    (MaskOp::AndSaveexec, Some(x)) => self.and(exec, x, pc),
                    // ANDing EXEC with any value narrows it: by an opaque condition.
                    (MaskOp::AndSaveexec, None) => self.and(exec, Sym::Cond(pc), pc),
                    (MaskOp::OrSaveexec, Some(Sym::All)) => Some(Sym::All),
                    // `s_xor_saveexec D, -1`: the inactive lanes, for saving whole VGPRs
                    // (a function's prologue and epilogue); a whole-wave region too.
                    (MaskOp::XorSaveexec, Some(Sym::All)) => Some(Sym::All),
                    (MaskOp::OrSaveexec, Some(x)) => self.or(x, exec),
                    (MaskOp::Andn2Saveexec, Some(x)) => self.andn2(x, exec),
                    _ => None,
                };
                let new = new.ok_or("EXEC set from a mask the analysis does not follow")?;
                self.write(s, &d, Some(exec))?;
                if new == Sym::All {
                    // A whole-wave region: the conceptual active set is the saved EXEC.
                    let Sym::Set(cur) = exec else {
                        return Err("whole-wave region entered with an unknown EXEC".into());
                    };
                    s.whole_wave = Some(cur);
                    s.exec = Sym::All;
                    return Ok(());
                }
                self.set_exec(s, pc, new, base == MaskOp::OrSaveexec)
            }
            MaskOp::And | MaskOp::Or | MaskOp::Xor | MaskOp::Andn2 => {
                let v = match (base, a, b) {
                    (MaskOp::And, Some(x), Some(y)) => self.and(x, y, pc),
                    // A set and a mask the analysis does not know (an -O0 flow predicate
                    // reloaded from a lane it did not follow): a condition on the set.
                    (MaskOp::And, Some(x @ Sym::Set(_)), None)
                    | (MaskOp::And, None, Some(x @ Sym::Set(_))) => self.and(x, Sym::Cond(pc), pc),
                    (MaskOp::And, Some(x), None) | (MaskOp::And, None, Some(x)) if is_exec(&d) => {
                        self.and(x, Sym::Cond(pc), pc)
                    }
                    (MaskOp::Or, Some(x), Some(y)) => self.or(x, y),
                    (MaskOp::Xor, Some(x), Some(y)) => self.xor(x, y),
                    (MaskOp::Andn2, Some(x), Some(y)) => self.andn2(x, y),
                    _ => None,
                };
                // Any other combination (of conditions, of the -O0 flow masks that mix
                // conditions with EXEC) is an opaque condition: it can still narrow EXEC
                // or feed a loop's break mask, but it names no region's lanes.
                let v = match v {
                    None if !is_exec(&d) => Some(Sym::Cond(pc)),
                    v => v,
                };
                if is_exec(&d) {
                    let v = v.ok_or_else(|| {
                        format!(
                            "EXEC set from masks the analysis does not follow (EXEC {exec:?}, \
                             operands {a:?}, {b:?})"
                        )
                    })?;
                    // The first break of an iteration: the condition it removes from EXEC
                    // is the loop's break mask from now on.
                    if base == MaskOp::Andn2
                        && let (Some(Sym::Set(LaneSet::LoopActive(l))), Some(c)) = (a, b)
                    {
                        match c {
                            Sym::Cond(_) | Sym::CondAnd(LaneSet::LoopActive(_), _) => {
                                for val in s.locs.values_mut() {
                                    if val.0 == c {
                                        val.0 = Sym::Set(LaneSet::Break(l));
                                    }
                                }
                            }
                            // Every active lane leaves: the operand is the break mask.
                            Sym::Set(LaneSet::LoopActive(m)) if m == l => {
                                self.write(s, &i.src[1], Some(Sym::Set(LaneSet::Break(l))))?;
                            }
                            _ => {}
                        }
                        // Lanes leave: a copy of EXEC made earlier in the iteration holds
                        // lanes that are no longer in the loop (when all leave, EXEC is
                        // empty and the copy is not), so it no longer names the set.
                        if v == Sym::Set(LaneSet::LoopActive(l)) {
                            for val in s.locs.values_mut() {
                                if val.0 == v {
                                    val.0 = Sym::Cond(pc);
                                }
                            }
                        }
                    }
                    return self.set_exec(s, pc, v, false);
                }
                self.write(s, &d, v)
            }
            _ => {
                if is_exec(&d) {
                    return Err(
                        "EXEC written by an instruction the analysis does not follow".into(),
                    );
                }
                // Other mask operations (s_cselect, s_not, s_orn2, ...) make conditions.
                self.write(s, &d, Some(Sym::Cond(pc)))
            }
        }
    }

    /// EXEC becomes `v`: opens, advances or closes regions.
    fn set_exec(&mut self, s: &mut State, pc: u64, v: Sym, saveexec: bool) -> Result<(), String> {
        // Leaving a whole-wave region.
        if let Some(w) = s.whole_wave {
            if v == Sym::Set(w) {
                s.whole_wave = None;
                s.exec = v;
                return Ok(());
            }
            return Err("EXEC changed inside a whole-wave region".into());
        }
        let Sym::Set(cur) = s.exec else {
            return Err("EXEC is not a mask the analysis follows".into());
        };
        // `s_mov exec, -1` with the EXEC saved in a register before: a whole-wave region.
        if v == Sym::All {
            if s.locs.values().any(|x| *x == (Sym::Set(cur), false)) {
                s.whole_wave = Some(cur);
                s.exec = Sym::All;
                return Ok(());
            }
            return Err("EXEC set to every lane with the old EXEC saved nowhere".into());
        }
        match v {
            Sym::CondAnd(p, k) | Sym::CondAndNot(p, k) if p == cur => {
                // A region opens: EXEC is narrowed to one arm.
                let id = pc;
                // Narrowed with neither the old EXEC nor the lanes it removes kept
                // anywhere: those lanes return (`s_and exec, exec, vcc` for an early
                // return of a kernel). The -O0 expansion of `s_and_saveexec` keeps only
                // the removed lanes (`s_mov S, exec; s_and T, S, c; s_xor S, T, S;
                // s_mov exec, T`), and they come back at the join.
                let removed = match v {
                    Sym::CondAnd(q, c) => Sym::CondAndNot(q, c),
                    _ => Sym::CondAnd(p, k),
                };
                if !s
                    .locs
                    .values()
                    .any(|x| x.0 == Sym::Set(p) || x.0 == removed)
                {
                    self.returning.insert(id);
                }
                let first_is_and = matches!(v, Sym::CondAnd(..));
                for val in s.locs.values_mut() {
                    val.0 = match val.0 {
                        Sym::CondAnd(q, c) if q == p && c == k => Sym::Set(if first_is_and {
                            LaneSet::First(id)
                        } else {
                            LaneSet::Second(id)
                        }),
                        Sym::CondAndNot(q, c) if q == p && c == k => Sym::Set(if first_is_and {
                            LaneSet::Second(id)
                        } else {
                            LaneSet::First(id)
                        }),
                        o => o,
                    };
                }
                s.stack.push(Open {
                    id,
                    parent: p,
                    phase: Phase::First,
                });
                self.parents.insert(id, p);
                s.exec = Sym::Set(LaneSet::First(id));
                self.regions.entry(id).or_insert(Region {
                    id,
                    kind: RegionKind::If,
                    second: None,
                    join: None,
                });
                Ok(())
            }
            Sym::Set(new) => {
                let Some(top) = s.stack.last().copied() else {
                    return Err("EXEC changed outside any region".into());
                };
                if new == cur {
                    return Ok(());
                }
                // The -O0 ELSE transition: both arms briefly, the first one done.
                if saveexec
                    && new == top.parent
                    && top.phase == Phase::First
                    && cur == LaneSet::First(top.id)
                    && self.has_else(s, top.id)
                {
                    if let Some(o) = s.stack.last_mut() {
                        o.phase = Phase::Transit;
                    }
                    self.region_entry(top.id).second.get_or_insert(pc);
                    s.exec = v;
                    return Ok(());
                }
                // The second arm starts.
                if new == LaneSet::Second(top.id)
                    && matches!(top.phase, Phase::First | Phase::Transit)
                {
                    if let Some(o) = s.stack.last_mut() {
                        o.phase = Phase::Second;
                    }
                    self.region_entry(top.id).second.get_or_insert(pc);
                    s.exec = v;
                    return Ok(());
                }
                // A join: EXEC is back to what it was when a region opened; that region
                // and every region inside it close here (LLVM drops an inner join that
                // an outer one right after it makes redundant).
                if let Some(k) = s.stack.iter().rposition(|o| o.parent == new) {
                    while s.stack.len() > k {
                        self.close(s, pc)?;
                    }
                    return Ok(());
                }
                Err("EXEC changed in a way the analysis does not follow".into())
            }
            _ => Err("EXEC set from a mask the analysis does not follow".into()),
        }
    }

    /// The region `id` (an IF), made if the final pass has not met its opening yet: that
    /// pass visits blocks in address order, and the structurizer may place an ELSE or a
    /// join before the IF that opens it.
    fn region_entry(&mut self, id: RegionId) -> &mut Region {
        self.regions.entry(id).or_insert(Region {
            id,
            kind: RegionKind::If,
            second: None,
            join: None,
        })
    }

    /// Whether some location still holds the second arm of region `id`.
    fn has_else(&self, s: &State, id: RegionId) -> bool {
        s.locs
            .values()
            .any(|v| v.0 == Sym::Set(LaneSet::Second(id)))
    }

    fn close(&mut self, s: &mut State, pc: u64) -> Result<(), String> {
        let Some(top) = s.stack.pop() else {
            return Err("EXEC restored outside any region".into());
        };
        let kind = if top.phase == Phase::Loop {
            RegionKind::Loop
        } else {
            RegionKind::If
        };
        let r = self.regions.entry(top.id).or_insert(Region {
            id: top.id,
            kind,
            second: None,
            join: None,
        });
        r.kind = kind;
        match r.join {
            None => r.join = Some(pc),
            Some(j) if j == pc => {}
            Some(_) => return Err(format!("region {:#x} is closed at two places", top.id)),
        }
        // The masks of the closed region mean nothing any more.
        let id = top.id;
        s.locs.retain(|_, v| !refers_to(v.0, id));
        s.exec = Sym::Set(top.parent);
        Ok(())
    }

    fn and(&self, x: Sym, y: Sym, pc: u64) -> Option<Sym> {
        use Sym::*;
        Some(match (x, y) {
            // A condition that holds for no lane (the first pass through a structurised
            // loop's flow block) narrows like any other.
            (Set(a), Zero) | (Zero, Set(a)) => CondAnd(a, pc),
            (Zero, _) | (_, Zero) => Zero,
            (All, o) | (o, All) => o,
            (Set(a), Cond(k)) | (Cond(k), Set(a)) => CondAnd(a, k),
            (Set(a), Set(b)) if self.within(a, b) => Set(a),
            (Set(a), Set(b)) if self.within(b, a) => Set(b),
            (Set(a), CondAnd(b, k)) | (CondAnd(b, k), Set(a)) if a == b => CondAnd(b, k),
            (Set(p), Set(LaneSet::First(r))) | (Set(LaneSet::First(r)), Set(p))
                if self.union_parent(r) == Some(Set(p)) =>
            {
                Set(LaneSet::First(r))
            }
            (Set(p), Set(LaneSet::Second(r))) | (Set(LaneSet::Second(r)), Set(p))
                if self.union_parent(r) == Some(Set(p)) =>
            {
                Set(LaneSet::Second(r))
            }
            _ => return None,
        })
    }

    /// Whether the lanes of `a` are among those of `b` by the region structure.
    fn within(&self, a: LaneSet, b: LaneSet) -> bool {
        let mut x = a;
        for _ in 0..1024 {
            if x == b {
                return true;
            }
            let r = match x {
                LaneSet::FuncEntry => return false,
                LaneSet::First(r)
                | LaneSet::Second(r)
                | LaneSet::LoopActive(r)
                | LaneSet::Break(r) => r,
            };
            match self.parents.get(&r) {
                Some(p) => x = *p,
                None => return false,
            }
        }
        false
    }

    fn or(&self, x: Sym, y: Sym) -> Option<Sym> {
        use Sym::*;
        Some(match (x, y) {
            (Zero, o) | (o, Zero) => o,
            (All, _) | (_, All) => All,
            (Set(a), Set(b)) if self.within(a, b) => Set(b),
            (Set(a), Set(b)) if self.within(b, a) => Set(a),
            (Set(LaneSet::First(r)), Set(LaneSet::Second(q)))
            | (Set(LaneSet::Second(q)), Set(LaneSet::First(r)))
                if r == q =>
            {
                return self.union_parent(r);
            }
            // A join of an IF without ELSE: the arm's lanes and the saved entry mask.
            (Set(LaneSet::First(r)), Set(p))
            | (Set(p), Set(LaneSet::First(r)))
            | (Set(LaneSet::Second(r)), Set(p))
            | (Set(p), Set(LaneSet::Second(r)))
                if self.union_parent(r) == Some(Set(p)) =>
            {
                Set(p)
            }
            (Set(LaneSet::LoopActive(l)), Set(LaneSet::Break(m)))
            | (Set(LaneSet::Break(m)), Set(LaneSet::LoopActive(l)))
                if l == m =>
            {
                return self.union_parent(l);
            }
            (Cond(_), Set(LaneSet::Break(l))) | (Set(LaneSet::Break(l)), Cond(_)) => {
                Set(LaneSet::Break(l))
            }
            (CondAnd(..) | CondAndNot(..), Set(LaneSet::Break(l)))
            | (Set(LaneSet::Break(l)), CondAnd(..) | CondAndNot(..)) => Set(LaneSet::Break(l)),
            _ => return None,
        })
    }

    fn xor(&self, x: Sym, y: Sym) -> Option<Sym> {
        use Sym::*;
        Some(match (x, y) {
            (Zero, o) | (o, Zero) => o,
            (CondAnd(a, k), Set(b)) | (Set(b), CondAnd(a, k)) if a == b => CondAndNot(a, k),
            (CondAndNot(a, k), Set(b)) | (Set(b), CondAndNot(a, k)) if a == b => CondAnd(a, k),
            (Set(LaneSet::First(r)), Set(p)) | (Set(p), Set(LaneSet::First(r)))
                if self.union_parent(r) == Some(Set(p)) =>
            {
                Set(LaneSet::Second(r))
            }
            (Set(LaneSet::Second(r)), Set(p)) | (Set(p), Set(LaneSet::Second(r)))
                if self.union_parent(r) == Some(Set(p)) =>
            {
                Set(LaneSet::First(r))
            }
            _ => return None,
        })
    }

    /// `x & !y`.
    fn andn2(&self, x: Sym, y: Sym) -> Option<Sym> {
        use Sym::*;
        Some(match (x, y) {
            (o, Zero) => o,
            (Zero, _) => Zero,
            (Set(LaneSet::Second(r)), Set(LaneSet::First(q))) if r == q => Set(LaneSet::Second(r)),
            (Set(LaneSet::First(r)), Set(LaneSet::Second(q))) if r == q => Set(LaneSet::First(r)),
            (Set(p), Set(LaneSet::First(r))) if self.union_parent(r) == Some(Set(p)) => {
                Set(LaneSet::Second(r))
            }
            (Set(p), Set(LaneSet::Second(r))) if self.union_parent(r) == Some(Set(p)) => {
                Set(LaneSet::First(r))
            }
            (Set(LaneSet::LoopActive(l)), Set(LaneSet::Break(m))) if l == m => {
                Set(LaneSet::LoopActive(l))
            }
            // The first break of an iteration: the condition becomes the break mask.
            (Set(LaneSet::LoopActive(l)), Cond(_)) => Set(LaneSet::LoopActive(l)),
            (Set(LaneSet::LoopActive(l)), Set(LaneSet::LoopActive(m))) if l == m => {
                Set(LaneSet::LoopActive(l))
            }
            (Set(LaneSet::LoopActive(l)), CondAnd(LaneSet::LoopActive(m), _)) if l == m => {
                Set(LaneSet::LoopActive(l))
            }
            _ => return None,
        })
    }

    /// The set a region's two arms (or a loop's active and exited lanes) make up.
    fn union_parent(&self, r: RegionId) -> Option<Sym> {
        self.parents.get(&r).map(|p| Sym::Set(*p))
    }
}

impl Analysis {
    /// The lane model of a state.
    fn model(&self, flow: &Flow, next: Option<&State>) -> LaneModel {
        let s = match flow {
            Flow::Ok(s) => s,
            Flow::Unknown(why) => return LaneModel::Unknown(why.clone()),
        };
        let home = |set: LaneSet| self.home(s, Sym::Set(set), next);
        let transit = match s.stack.last() {
            Some(top) if top.phase == Phase::Transit => match home(LaneSet::First(top.id)) {
                Some(h) => Some(h),
                None => {
                    return LaneModel::Unknown(format!(
                        "the lanes done with the first arm of {:#x} are in no register",
                        top.id
                    ));
                }
            },
            _ => None,
        };
        let active = match (s.whole_wave, transit) {
            (Some(w), t) => match (home(w), t) {
                (Some(h), None) => ActiveMask::Saved(h),
                (Some(h), Some(m)) => ActiveMask::SavedMinus(h, m),
                (None, _) => {
                    return LaneModel::Unknown(
                        "the EXEC saved by the whole-wave region is in no register".into(),
                    );
                }
            },
            (None, Some(m)) => ActiveMask::ExecMinus(m),
            (None, None) => ActiveMask::Exec,
        };
        let mut regions = Vec::new();
        for o in &s.stack {
            let region = self.regions.get(&o.id);
            let join = region.and_then(|r| r.join);
            if self.returning.contains(&o.id) {
                continue;
            }
            if join.is_none() && self.incomplete {
                return LaneModel::Unknown(format!(
                    "the region at {:#x} closes on no path the analysis could follow",
                    o.id
                ));
            }
            let (wait, candidates) = match o.phase {
                Phase::First => (
                    if join.is_some() || o.id == 0 {
                        Wait::At(o.id)
                    } else {
                        Wait::Returned
                    },
                    [LaneSet::Second(o.id), o.parent],
                ),
                Phase::Transit | Phase::Second => (
                    join.map_or(Wait::Returned, Wait::At),
                    [LaneSet::First(o.id), o.parent],
                ),
                Phase::Loop => (
                    join.map_or(Wait::Returned, Wait::At),
                    [LaneSet::Break(o.id), LaneSet::Break(o.id)],
                ),
            };
            match candidates.iter().find_map(|c| home(*c)) {
                Some(h) => regions.push(Waiting {
                    region: o.id,
                    home: h,
                    wait,
                }),
                // The lanes of a region that is never closed have returned; with their
                // mask gone they are simply not in any mask.
                None if wait == Wait::Returned && !self.incomplete => {}
                None => {
                    return LaneModel::Unknown(format!(
                        "the mask saved by the region at {:#x} is in no register",
                        o.id
                    ));
                }
            }
        }
        LaneModel::Known { active, regions }
    }

    /// Where a mask value lives (registers first, then VGPR lanes, then scratch).
    /// Where the mask `v` is at state `s` (one dword, or two for wave64), preferring the
    /// copies that state `next` still holds.
    fn home(&self, s: &State, v: Sym, next: Option<&State>) -> Option<Home> {
        let holders = |hi: bool| -> Vec<Loc> {
            s.locs
                .iter()
                .filter(|(_, x)| **x == (v, hi))
                .map(|(l, _)| *l)
                .collect()
        };
        let lasting = |l: &Loc, hi: bool| next.is_none_or(|n| n.locs.get(l) == Some(&(v, hi)));
        let los = holders(false);
        let lo = los
            .iter()
            .copied()
            .find(|l| lasting(l, false))
            .or_else(|| los.first().copied())?;
        if !self.wave64 {
            return Some(Home { lo, hi: None });
        }
        let his = holders(true);
        let hi = match lo {
            Loc::Sgpr(n) if his.contains(&Loc::Sgpr(n.wrapping_add(1))) => {
                Some(Loc::Sgpr(n.wrapping_add(1)))
            }
            Loc::Vcc(0) if his.contains(&Loc::Vcc(1)) => Some(Loc::Vcc(1)),
            _ => None,
        }
        .or_else(|| his.iter().copied().find(|l| lasting(l, true)))
        .or_else(|| his.first().copied())?;
        Some(Home { lo, hi: Some(hi) })
    }
}

/// The reason given for code no path from the function's entry reaches (padding).
pub const UNREACHABLE: &str = "not reached from the function's entry";

/// Per caller SGPR, where the caller's value is at each PC.
type CallerSgprs = BTreeMap<u8, BTreeMap<u64, Loc>>;

/// The return address and caller SGPR maps of [`FunctionRegions`]: where the return
/// address and the caller's stack and frame pointers are at each PC of `states`. Any
/// copy is right at its PC; where there are several, one that the next instruction
/// still holds is taken, so that at a call (whose return address minus one is where a
/// caller's frame is evaluated) it is one the call does not clobber.
fn frame_homes(states: &[(u64, Flow)]) -> (BTreeMap<u64, (Loc, Loc)>, CallerSgprs) {
    let holders = |s: &State, v: (Sym, bool)| -> Vec<Loc> {
        s.locs
            .iter()
            .filter(|(_, x)| **x == v)
            .map(|(l, _)| *l)
            .collect()
    };
    let states: BTreeMap<u64, &Flow> = states.iter().map(|(p, f)| (*p, f)).collect();
    let pcs: Vec<u64> = states.keys().copied().collect();
    let pick = |pc: u64, v: (Sym, bool), prefer: Option<Loc>| -> Option<Loc> {
        let Some(Flow::Ok(s)) = states.get(&pc).copied() else {
            return None;
        };
        let here = holders(s, v);
        let next = pcs
            .iter()
            .find(|&&p| p > pc)
            .and_then(|p| match states.get(p).copied() {
                Some(Flow::Ok(n)) => Some(holders(n, v)),
                _ => None,
            })
            .unwrap_or_default();
        let lasting = |l: &Loc| next.contains(l);
        prefer
            .filter(|l| here.contains(l) && lasting(l))
            .or_else(|| here.iter().copied().find(lasting))
            .or_else(|| prefer.filter(|l| here.contains(l)))
            .or_else(|| here.first().copied())
    };
    let mut return_address = BTreeMap::new();
    let mut caller_sgprs: CallerSgprs = BTreeMap::new();
    for &pc in &pcs {
        if let (Some(lo), Some(hi)) = (
            pick(pc, (Sym::ReturnAddress, false), Some(Loc::Sgpr(30))),
            pick(pc, (Sym::ReturnAddress, true), Some(Loc::Sgpr(31))),
        ) {
            return_address.insert(pc, (lo, hi));
        }
        for n in CALLER_SGPRS {
            if let Some(l) = pick(pc, (Sym::Entry(n), false), Some(Loc::Sgpr(n))) {
                caller_sgprs.entry(n).or_default().insert(pc, l);
            }
        }
    }
    (return_address, caller_sgprs)
}

/// `v_writelane_b32`: the lane of the destination VGPR holds what the source SGPR
/// (or VCC half) holds.
fn writelane(s: &mut State, i: &Inst) {
    if let (Operand::Vgpr { index, .. }, Some(lane)) = (i.dst[0], lane_of(&i.src[1])) {
        let v = match i.src[0] {
            Operand::Sgpr { index: sg, .. } => s.locs.get(&Loc::Sgpr(sg)).copied(),
            Operand::Special {
                reg: SpecialReg::Vcc,
                part,
                ..
            } => s.locs.get(&Loc::Vcc(part)).copied(),
            _ => None,
        };
        set(s, Loc::VgprLane { vgpr: index, lane }, v);
    } else {
        kill_operand(s, &i.dst[0]);
    }
}

/// `v_readlane_b32`: the destination SGPR (or VCC half) holds what the source VGPR's
/// lane holds; EXEC read back from a lane is not followed.
fn readlane(s: &mut State, i: &Inst) -> Result<(), String> {
    let v = match (i.src[0], lane_of(&i.src[1])) {
        (Operand::Vgpr { index, .. }, Some(lane)) => {
            s.locs.get(&Loc::VgprLane { vgpr: index, lane }).copied()
        }
        _ => None,
    };
    if is_exec(&i.dst[0]) {
        return Err("EXEC read back from a VGPR lane".into());
    }
    match i.dst[0] {
        Operand::Sgpr { index, .. } => set(s, Loc::Sgpr(index), v),
        Operand::Special {
            reg: SpecialReg::Vcc,
            part,
            ..
        } => set(s, Loc::Vcc(part), v),
        _ => kill_operand(s, &i.dst[0]),
    }
    Ok(())
}

/// The stack pointer moved by a constant (the prologue and epilogue of a frame): an
/// `s_add`/`s_sub` of a constant to an SGPR holding an entry value gives that value
/// plus an offset. Whether `i` is one.
fn stack_pointer_step(s: &mut State, op: Option<AluOp>, i: &Inst) -> bool {
    if !matches!(
        op,
        Some(ops::S_ADD_I32 | ops::S_ADD_U32 | ops::S_SUB_I32 | ops::S_SUB_U32)
    ) {
        return false;
    }
    let (
        Operand::Sgpr {
            index: di,
            count: 1,
        },
        Operand::Sgpr {
            index: si,
            count: 1,
        },
    ) = (i.dst[0], i.src[0])
    else {
        return false;
    };
    let Some(Sym::Entry(r) | Sym::EntryPlus(r, _)) = s.locs.get(&Loc::Sgpr(si)).map(|v| v.0) else {
        return false;
    };
    let k = match i.src[1] {
        Operand::Literal(k) => Some(k as i32),
        Operand::InlineInt(k) => Some(i32::from(k)),
        _ => None,
    };
    let base = match s.locs.get(&Loc::Sgpr(si)).map(|v| v.0) {
        Some(Sym::EntryPlus(_, b)) => b,
        _ => 0,
    };
    let v = k.map(|k| {
        let off = if matches!(op, Some(ops::S_SUB_I32 | ops::S_SUB_U32)) {
            base.wrapping_sub(k)
        } else {
            base.wrapping_add(k)
        };
        if off == 0 {
            (Sym::Entry(r), false)
        } else {
            (Sym::EntryPlus(r, off), false)
        }
    });
    set(s, Loc::Sgpr(di), v);
    true
}

/// An SGPR copy that is not a mask operation (on wave64: a dword, half a mask or the
/// frame pointer a prologue saves; `s_mov_b64` on wave32): the destination holds what
/// the source holds. Whether `i` is one.
fn sgpr_copy(s: &mut State, op: Option<AluOp>, i: &Inst) -> bool {
    match (op, i.src[0], i.dst[0]) {
        (
            Some(ops::S_MOV_B32),
            Operand::Sgpr {
                index: si,
                count: 1,
            },
            Operand::Sgpr {
                index: di,
                count: 1,
            },
        ) => {
            let v = s.locs.get(&Loc::Sgpr(si)).copied();
            set(s, Loc::Sgpr(di), v);
            true
        }
        (
            Some(ops::S_MOV_B64),
            Operand::Sgpr {
                index: si,
                count: 2,
            },
            Operand::Sgpr {
                index: di,
                count: 2,
            },
        ) => {
            let lo = s.locs.get(&Loc::Sgpr(si)).copied();
            let hi = s.locs.get(&Loc::Sgpr(si.wrapping_add(1))).copied();
            set(s, Loc::Sgpr(di), lo);
            set(s, Loc::Sgpr(di.wrapping_add(1)), hi);
            true
        }
        _ => false,
    }
}

fn unreachable_unknown() -> Flow {
    Flow::Unknown("inconsistent analysis state".into())
}

/// A value that can stand for an opaque condition at a join.
fn condition_like(v: Sym) -> bool {
    matches!(
        v,
        Sym::Zero | Sym::All | Sym::Cond(_) | Sym::CondAnd(..) | Sym::CondAndNot(..)
    )
}

fn refers_to(v: Sym, id: RegionId) -> bool {
    match v {
        Sym::Set(s) | Sym::CondAnd(s, _) | Sym::CondAndNot(s, _) => matches!(
            s,
            LaneSet::First(r) | LaneSet::Second(r) | LaneSet::LoopActive(r) | LaneSet::Break(r) if r == id
        ),
        _ => false,
    }
}

fn set(s: &mut State, l: Loc, v: Option<(Sym, bool)>) {
    match v {
        Some(v) => {
            s.locs.insert(l, v);
        }
        None => {
            s.locs.remove(&l);
        }
    }
}

fn lane_of(op: &Operand) -> Option<u8> {
    match *op {
        Operand::InlineInt(v) if v >= 0 => Some(v as u8),
        Operand::Literal(v) if v < 64 => Some(v as u8),
        _ => None,
    }
}

/// Forgets what the registers an operand names held.
fn kill_operand(s: &mut State, op: &Operand) {
    match *op {
        Operand::Sgpr { index, count } => {
            for k in 0..count {
                s.locs.remove(&Loc::Sgpr(index.wrapping_add(k)));
            }
        }
        Operand::Special {
            reg: SpecialReg::Vcc,
            count,
            part,
        } => {
            for k in 0..count {
                s.locs.remove(&Loc::Vcc(part + k));
            }
        }
        Operand::Vgpr { index, count } => {
            let hi = index as u16 + count as u16;
            s.locs.retain(|l, _| match l {
                Loc::VgprLane { vgpr, .. } => {
                    !((*vgpr as u16) >= index as u16 && (*vgpr as u16) < hi)
                }
                _ => true,
            });
        }
        Operand::Agpr { index, count } => {
            let hi = index as u16 + count as u16;
            s.locs.retain(|l, _| match l {
                Loc::AgprLane { agpr, .. } => {
                    !((*agpr as u16) >= index as u16 && (*agpr as u16) < hi)
                }
                _ => true,
            });
        }
        _ => {}
    }
}

/// A call clobbers the SGPRs and VGPRs the AMDGPU calling convention does not preserve
/// (callee-saved: s30-s105 and v40-v47, v56-v63, ... in blocks of eight).
fn kill_call_clobbered(s: &mut State) {
    s.locs.retain(|l, _| match *l {
        Loc::Sgpr(n) => n >= 30,
        Loc::Vcc(_) => false,
        Loc::VgprLane { vgpr, .. } => vgpr >= 40 && (vgpr - 40) % 16 < 8,
        Loc::AgprLane { agpr, .. } => agpr >= 32,
        Loc::Scratch { .. } => true,
    });
}

/// Every function of a code object (kernels and the functions they call), analysed for
/// the wave size of its kernels, in address order. Addresses are link-time addresses.
pub fn analyse_code_object(
    co: &amdgpu_codeobj::CodeObject,
) -> Result<Vec<FunctionRegions>, String> {
    let gpu = amdgpu_isa::Gpu::try_from(co.target().gpu).map_err(|e| format!("{e}"))?;
    let wave_size = co.kernels().first().map_or(64, |k| k.wavefront_size());
    let text = co.text();
    let program =
        amdgpu_isa::Decoder::new(gpu, wave_size == 64).decode_program(text.bytes, text.address);
    let mut funcs: Vec<(u64, u64)> = co
        .symbols()
        .iter()
        .filter(|s| s.is_code() && s.size > 0)
        .map(|s| (s.address, s.address + s.size))
        .collect();
    funcs.sort();
    funcs.dedup();
    let mut writes: Vec<BTreeSet<Loc>> = funcs
        .iter()
        .map(|&(s, e)| written(&program, s, e))
        .collect();
    // Call sites whose target is the `s_getpc_b64; s_add_u32; s_addc_u32` sequence before
    // them, and the function each reaches.
    let func_of = |a: u64| funcs.iter().position(|&(s, e)| a >= s && a < e);
    let mut calls: Vec<(usize, u64, usize)> = Vec::new(); // (caller, call pc, callee)
    for (k, &(start, end)) in funcs.iter().enumerate() {
        let insts: Vec<(u64, &Inst)> = program
            .iter()
            .filter(|(pc, _)| *pc >= start && *pc < end)
            .collect();
        for (j, &(pc, i)) in insts.iter().enumerate() {
            // Calls, and tail calls (`s_setpc_b64` to a computed function address: what
            // the tail-called function writes, its caller's callers see written).
            if !matches!(alu_op(i), Some(ops::S_SWAPPC_B64 | ops::S_SETPC_B64)) {
                continue;
            }
            if let Some(t) = call_target(&insts[..j], &i.src[0])
                && let Some(f) = func_of(t)
            {
                calls.push((k, pc, f));
            }
        }
    }
    // What a call to each function may write: its own writes and its callees', to a
    // fixpoint (recursion included).
    loop {
        let mut changed = false;
        for &(caller, _, callee) in &calls {
            let add: Vec<Loc> = writes[callee]
                .difference(&writes[caller])
                .copied()
                .collect();
            if !add.is_empty() {
                writes[caller].extend(add);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    Ok(funcs
        .iter()
        .enumerate()
        .map(|(k, &(start, end))| {
            let mut a = Analysis::new(&program, start, end, wave_size);
            // A call from here may reach any other function of the code object.
            let mut c = BTreeSet::new();
            for (j, w) in writes.iter().enumerate() {
                if j != k {
                    c.extend(w.iter().copied());
                }
            }
            // The return address and the stack registers the call instruction changes.
            c.extend([Loc::Sgpr(30), Loc::Sgpr(31)]);
            a.call_clobbers = Some(c);
            for &(caller, pc, callee) in &calls {
                if caller == k {
                    let mut w = writes[callee].clone();
                    w.extend([Loc::Sgpr(30), Loc::Sgpr(31)]);
                    a.call_clobbers_at.insert(pc, w);
                }
            }
            let mut f = a.run();
            f.writes = writes[k].clone();
            f
        })
        .collect())
}

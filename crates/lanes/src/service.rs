//! [`LaneService`]: where every lane of a stopped wave conceptually is.
//!
//! Each lane of a wave is one of ([`LaneState`]):
//!
//! - **active** at the wave's PC (in the conceptual active mask: EXEC, or the EXEC saved by
//!   a whole-wave region);
//! - **divergent**, waiting at a PC of the same function (its lanes were switched off by an
//!   IF, ELSE or loop region whose saved mask still holds them);
//! - **finished**: its work-item returned (a lane of the kernel's work-group that is in no
//!   mask any more);
//! - **not entered**: in a called function, a lane that was not active when the function
//!   was entered (it is in a caller's frame);
//! - **outside** the grid: the lane has no work-item (a partial work-group's last wave);
//! - **unknown**, when the reconstruction could not classify the PC (it says why).
//!
//! Positions come from the static reconstruction of [`crate::regions`], evaluated against
//! the live registers of the wave. Each PC comes with its function and, when the code
//! object has a line table, its source line: for an active lane the row that covers the
//! PC; for a waiting lane the statement it will execute next (the first `is_stmt` row with
//! a real line at or after its PC), because waiting PCs often sit on the line-0 rows of the
//! join and spill code the compiler makes.

use crate::Error;
use crate::image::{Image, LineRow};
use crate::regions::{
    ActiveMask, FunctionRegions, Home, LaneModel, Loc, Wait, analyse_code_object,
};
use amdgpu_codeobj::CodeObject;
use amdgpu_sim::Wave;
use std::collections::BTreeSet;

pub use crate::frames::CallerFrame;

/// The state of one lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneState {
    /// Active at the wave's PC.
    Active,
    /// Divergent: waiting at [`LanePosition::pc`].
    Divergent,
    /// Not active on entry to the function the wave is in.
    NotEntered,
    /// No work-item (outside the grid).
    Outside,
    /// Its work-item returned.
    Finished,
    /// The reconstruction cannot say (the reason).
    Unknown(String),
}

impl LaneState {
    /// The word `amdsim lanes` prints.
    pub fn word(&self) -> &'static str {
        match self {
            LaneState::Active => "active",
            LaneState::Divergent => "divergent",
            LaneState::NotEntered => "not-entered",
            LaneState::Outside => "outside",
            LaneState::Finished => "finished",
            LaneState::Unknown(_) => "unknown",
        }
    }
}

/// Where one lane is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LanePosition {
    /// The lane.
    pub lane: u32,
    /// Its state.
    pub state: LaneState,
    /// Its program location (link-time address) for active and divergent lanes.
    pub pc: Option<u64>,
    /// What kind of place `pc` is.
    pub kind: PcKind,
}

/// What kind of program location a lane is at; it decides which source line shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PcKind {
    /// The wave's PC (an active lane), or no location.
    Current,
    /// The start of an IF whose other arm the lane still has to run: the condition's line.
    RegionStart,
    /// A join (the end of an IF, a loop's exit): the next statement's line.
    Join,
    /// A loop's exit: the loop's line (that of the branch back to its header at `.0`).
    LoopExit(u64),
}

/// Every lane of a stopped wave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveLanes {
    /// One entry per lane.
    pub lanes: Vec<LanePosition>,
    /// The conceptual active mask.
    pub active: u64,
    /// The hardware EXEC.
    pub exec: u64,
    /// The wave's PC (link-time).
    pub pc: u64,
}

/// A source position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourcePos {
    /// The function (symbol) containing the PC.
    pub function: Option<String>,
    /// File and line, when the code object has a line table.
    pub line: Option<(String, u64)>,
}

/// The most call frames walked up from a stopped wave.
const MAX_FRAMES: usize = 64;

/// Lane positions for the waves of one code object.
pub struct LaneService<'i, 'd> {
    functions: Vec<FunctionRegions>,
    symbols: Vec<(u64, u64, String, bool)>,
    image: Option<&'i Image<'d>>,
    /// Every line-table row, by address, with its `is_stmt` flag.
    rows: Vec<(LineRow, bool)>,
}

impl<'i, 'd> LaneService<'i, 'd> {
    /// The service for a code object; `image` gives the line table when the code object
    /// has DWARF (without it, lines are unknown: `??`).
    pub fn new(co: &CodeObject, image: Option<&'i Image<'d>>) -> Result<Self, Error> {
        let functions = analyse_code_object(co).map_err(Error::Reconstruction)?;
        let symbols = co
            .symbols()
            .iter()
            .filter(|s| s.is_code())
            .map(|s| {
                (
                    s.address,
                    s.address + s.size.max(1),
                    s.name.to_string(),
                    s.kind == amdgpu_codeobj::SymbolKind::Kernel,
                )
            })
            .collect();
        let mut rows = match image {
            Some(i) => i.rows()?,
            None => Vec::new(),
        };
        rows.sort_by_key(|r| r.0.address);
        Ok(LaneService {
            functions,
            symbols,
            image,
            rows,
        })
    }

    /// The reconstruction of every function, in address order.
    pub fn functions(&self) -> &[FunctionRegions] {
        &self.functions
    }

    /// The function analysis containing a link-time address.
    pub fn function_at(&self, pc: u64) -> Option<&FunctionRegions> {
        self.functions.iter().find(|f| pc >= f.start && pc < f.end)
    }

    fn symbol_at(&self, pc: u64) -> Option<&(u64, u64, String, bool)> {
        self.symbols.iter().find(|s| pc >= s.0 && pc < s.1)
    }

    /// The (link-time) return address of the function containing `pc`, read where the
    /// reconstruction says it is at `pc`.
    /// The return address (link-time) of the function `wave` is in at `pc`, read from
    /// where the reconstruction says it is kept (`frame`: registers a callee saved, for
    /// outer frames); `None` in a kernel or where it is not known.
    pub fn return_address(
        &self,
        wave: &Wave,
        load_bias: u64,
        pc: u64,
        frame: &[(u8, u32)],
    ) -> Option<u64> {
        let (lo, hi) = self.function_at(pc)?.return_address.get(&pc)?;
        let (lo, hi) = (
            read_loc_in(wave, lo, frame).ok()?,
            read_loc_in(wave, hi, frame).ok()?,
        );
        Some((lo as u64 | (hi as u64) << 32).wrapping_sub(load_bias))
    }

    /// Whether `pc` is in a kernel (not in a function it calls).
    pub fn in_kernel(&self, pc: u64) -> bool {
        self.symbol_at(pc).is_some_and(|s| s.3)
    }

    /// The lanes of `wave`, stopped at its PC. `load_bias` is added to link-time
    /// addresses by the simulator; `work_items` has a bit set for every lane that has a
    /// work-item.
    pub fn wave_lanes(&self, wave: &Wave, load_bias: u64, work_items: u64) -> WaveLanes {
        let pc = wave.pc.wrapping_sub(load_bias);
        let full = wave.full_mask();
        let exec = wave.exec.0 & full;
        let kernel = self.symbol_at(pc).is_some_and(|s| s.3);
        let mut out = WaveLanes {
            lanes: Vec::with_capacity(wave.size as usize),
            active: exec,
            exec,
            pc,
        };
        let model = self.function_at(pc).and_then(|f| f.at(pc));
        let mut pos: Vec<Option<(LaneState, Option<u64>, PcKind)>> = vec![None; wave.size as usize];
        match model {
            Some(LaneModel::Known { active, regions }) => {
                let act = match active {
                    ActiveMask::Exec => Ok(exec),
                    ActiveMask::Saved(h) => read_home(wave, h),
                    ActiveMask::ExecMinus(h) => read_home(wave, h).map(|m| exec & !m),
                    ActiveMask::SavedMinus(h, m) => {
                        read_home(wave, h).and_then(|a| Ok(a & !read_home(wave, m)?))
                    }
                };
                match act {
                    Ok(a) => out.active = a & full,
                    Err(e) => {
                        return self.all_unknown(wave, pc, exec, work_items, e);
                    }
                }
                for r in regions {
                    let mask = match read_home(wave, &r.home) {
                        Ok(m) => m & full & !out.active,
                        Err(e) => return self.all_unknown(wave, pc, out.active, work_items, e),
                    };
                    for (l, p) in pos.iter_mut().enumerate() {
                        if mask >> l & 1 != 0 {
                            *p = Some(match r.wait {
                                Wait::At(w) if w == r.region => {
                                    (LaneState::Divergent, Some(w), PcKind::RegionStart)
                                }
                                Wait::At(w) => {
                                    (LaneState::Divergent, Some(w), self.join_kind(pc, r.region))
                                }
                                Wait::Returned if kernel => {
                                    (LaneState::Finished, None, PcKind::Current)
                                }
                                // Returned from this called function: it waits in the
                                // caller, at the return address, for the others.
                                Wait::Returned => {
                                    match self.return_address(wave, load_bias, pc, &[]) {
                                        Some(ra) => (LaneState::Divergent, Some(ra), PcKind::Join),
                                        None => (LaneState::NotEntered, None, PcKind::Current),
                                    }
                                }
                            });
                        }
                    }
                }
            }
            Some(LaneModel::Unknown(why)) => {
                return self.all_unknown(wave, pc, exec, work_items, why.clone());
            }
            None => {
                return self.all_unknown(
                    wave,
                    pc,
                    exec,
                    work_items,
                    format!("{pc:#x} is not in a function of the code object"),
                );
            }
        }
        // In a called function, the lanes that did not enter it are in a caller's frame:
        // find them there, through the return address the reconstruction follows.
        if !kernel {
            let mut pending = work_items & !out.active;
            for (l, p) in pos.iter().enumerate() {
                if p.is_some() {
                    pending &= !(1u64 << l);
                }
            }
            self.callers(wave, load_bias, pc, pending, &mut pos);
        }
        for (l, p) in pos.into_iter().enumerate() {
            let bit = 1u64 << l;
            let (state, at, kind) = if out.active & bit != 0 {
                (LaneState::Active, Some(pc), PcKind::Current)
            } else if work_items & bit == 0 {
                (LaneState::Outside, None, PcKind::Current)
            } else if let Some(p) = p {
                p
            } else if kernel {
                (LaneState::Finished, None, PcKind::Current)
            } else {
                (LaneState::NotEntered, None, PcKind::Current)
            };
            out.lanes.push(LanePosition {
                lane: l as u32,
                state,
                pc: at,
                kind,
            });
        }
        out
    }

    /// Places the lanes of `pending` (not entered in the frame at `pc`) in the frames of
    /// the callers, innermost first. The registers a called function does not write still
    /// hold its callers' masks (the reconstruction of a caller forgets, at each call,
    /// what the called function writes); masks spilled to a caller's stack frame are read
    /// from its frame pointer (where the called function keeps the caller's `s33`); lanes
    /// are not placed when a return address cannot be followed — those stay not-entered.
    fn callers(
        &self,
        wave: &Wave,
        load_bias: u64,
        pc: u64,
        mut pending: u64,
        pos: &mut [Option<(LaneState, Option<u64>, PcKind)>],
    ) {
        let mut frame = pc;
        // The stack and frame pointers of the frame at `frame` where they are not the
        // wave's (every frame but the innermost).
        let mut frame_sgprs: Vec<(u8, u32)> = Vec::new();
        for _ in 0..MAX_FRAMES {
            if pending == 0 {
                return;
            }
            let Some((ret, caller_sgprs)) = self.caller_of(wave, load_bias, frame, &frame_sgprs)
            else {
                return;
            };
            let Some(caller) = self.function_at(ret) else {
                return;
            };
            let caller_kernel = self.symbol_at(ret).is_some_and(|s| s.3);
            // The caller's state right after the call.
            let Some(LaneModel::Known { regions, .. }) = caller.at(ret) else {
                return;
            };
            for r in regions {
                // A spill slot of the caller is read only from the caller's own base.
                let unknown_base = [Some(&r.home.lo), r.home.hi.as_ref()]
                    .into_iter()
                    .flatten()
                    .any(|l| match l {
                        Loc::Scratch { soffset, .. } => {
                            !caller_sgprs.iter().any(|(n, _)| n == soffset)
                        }
                        _ => false,
                    });
                if unknown_base {
                    continue;
                }
                let Ok(mask) = read_home_in(wave, &r.home, &caller_sgprs) else {
                    continue;
                };
                let lanes = mask & pending;
                for (l, p) in pos.iter_mut().enumerate() {
                    if lanes >> l & 1 != 0 {
                        *p = Some(match r.wait {
                            Wait::At(w) if w == r.region => {
                                (LaneState::Divergent, Some(w), PcKind::RegionStart)
                            }
                            Wait::At(w) => {
                                (LaneState::Divergent, Some(w), self.join_kind(ret, r.region))
                            }
                            Wait::Returned if caller_kernel => {
                                (LaneState::Finished, None, PcKind::Current)
                            }
                            Wait::Returned => {
                                match self.return_address(wave, load_bias, ret, &caller_sgprs) {
                                    Some(ra) => (LaneState::Divergent, Some(ra), PcKind::Join),
                                    None => (LaneState::NotEntered, None, PcKind::Current),
                                }
                            }
                        });
                    }
                }
                // Inner regions override outer ones: keep the lanes pending until the
                // innermost mask that holds them has placed them (masks nest).
            }
            for (l, p) in pos.iter().enumerate() {
                if p.is_some() {
                    pending &= !(1u64 << l);
                }
            }
            if caller_kernel {
                for (l, p) in pos.iter_mut().enumerate() {
                    if pending >> l & 1 != 0 {
                        *p = Some((LaneState::Finished, None, PcKind::Current));
                    }
                }
                return;
            }
            frame = ret;
            frame_sgprs = caller_sgprs;
        }
    }

    /// One frame up from the frame at link-time `frame` (`frame_sgprs`: that frame's
    /// stack and frame pointers where they are not the wave's): the return address and
    /// the caller's stack and frame pointers, the bases of its spill slots.
    fn caller_of(
        &self,
        wave: &Wave,
        load_bias: u64,
        frame: u64,
        frame_sgprs: &[(u8, u32)],
    ) -> Option<(u64, Vec<(u8, u32)>)> {
        let f = self.function_at(frame)?;
        let (lo, hi) = f.return_address.get(&frame)?;
        let lo = read_loc_in(wave, lo, frame_sgprs).ok()?;
        let hi = read_loc_in(wave, hi, frame_sgprs).ok()?;
        let ret = (lo as u64 | (hi as u64) << 32).wrapping_sub(load_bias);
        let caller_sgprs = f
            .caller_sgprs
            .iter()
            .filter_map(|(n, at)| {
                let l = at.get(&frame)?;
                Some((*n, read_loc_in(wave, l, frame_sgprs).ok()?))
            })
            .collect();
        Some((ret, caller_sgprs))
    }

    /// The return addresses of the frames of `wave` stopped at link-time `pc`, innermost
    /// first, as far as the reconstruction can follow them (the kernel's frame ends it).
    pub fn call_stack(&self, wave: &Wave, load_bias: u64, pc: u64) -> Vec<u64> {
        self.call_frames(wave, load_bias, pc)
            .into_iter()
            .map(|f| f.ret)
            .collect()
    }

    /// The callers' frames of `wave` stopped at link-time `pc`, innermost first, as far
    /// as the reconstruction can follow them: each caller's PC (the return address), its
    /// stack and frame pointers where the calls below moved them, and the registers the
    /// functions below it may have written (whose caller values are not known).
    pub fn call_frames(&self, wave: &Wave, load_bias: u64, pc: u64) -> Vec<CallerFrame> {
        let mut out = Vec::new();
        let mut frame = pc;
        let mut frame_sgprs: Vec<(u8, u32)> = Vec::new();
        let mut clobbered = BTreeSet::new();
        while out.len() < MAX_FRAMES && !self.in_kernel(frame) {
            let Some((ret, caller_sgprs)) = self.caller_of(wave, load_bias, frame, &frame_sgprs)
            else {
                break;
            };
            if let Some(f) = self.function_at(frame) {
                clobbered.extend(f.writes.iter().copied());
            }
            // The call instruction writes the return address.
            clobbered.extend([Loc::Sgpr(30), Loc::Sgpr(31)]);
            out.push(CallerFrame {
                ret,
                sgprs: caller_sgprs.clone(),
                clobbered: clobbered.clone(),
            });
            frame = ret;
            frame_sgprs = caller_sgprs;
        }
        out
    }

    /// How to show a join of `region` (of the function containing `pc`).
    fn join_kind(&self, pc: u64, region: u64) -> PcKind {
        match self.function_at(pc).and_then(|f| f.loop_latch.get(&region)) {
            Some(latch) => PcKind::LoopExit(*latch),
            None => PcKind::Join,
        }
    }

    fn all_unknown(
        &self,
        wave: &Wave,
        pc: u64,
        active: u64,
        work_items: u64,
        why: String,
    ) -> WaveLanes {
        let lanes = (0..wave.size)
            .map(|l| {
                let bit = 1u64 << l;
                let (state, at) = if active & bit != 0 {
                    (LaneState::Active, Some(pc))
                } else if work_items & bit == 0 {
                    (LaneState::Outside, None)
                } else {
                    (LaneState::Unknown(why.clone()), None)
                };
                LanePosition {
                    lane: l,
                    state,
                    pc: at,
                    kind: PcKind::Current,
                }
            })
            .collect();
        WaveLanes {
            lanes,
            active,
            exec: wave.exec.0 & wave.full_mask(),
            pc,
        }
    }

    /// Function and source line of a program location. For the wave's PC and a region's
    /// start, the row that covers the PC (an IF's condition), or the next statement when
    /// that row has no line; for a join, the row that starts at the PC if it has a real
    /// line, else the statement the lane will execute next (the first `is_stmt` row with a
    /// real line after the PC) — never line 0, and never the line of code before a join.
    pub fn source(&self, pc: u64, kind: PcKind) -> SourcePos {
        let function = self.symbol_at(pc).map(|s| demangle(&s.2));
        let end = self.symbol_at(pc).map_or(u64::MAX, |s| s.1);
        let i = self.rows.partition_point(|r| r.0.address < pc);
        let next_stmt = || {
            self.rows[i..]
                .iter()
                .take_while(|r| r.0.address < end)
                .find(|r| r.1 && r.0.line != 0)
                .map(|r| (r.0.file.clone(), r.0.line))
        };
        let line = match kind {
            PcKind::Join => self.rows[i..]
                .iter()
                .take_while(|r| r.0.address == pc)
                .find(|r| r.0.line != 0)
                .map(|r| (r.0.file.clone(), r.0.line))
                .or_else(next_stmt),
            PcKind::Current | PcKind::RegionStart => {
                match self
                    .image
                    .and_then(|im| im.program().line_at(pc).ok().flatten())
                {
                    Some((f, l)) if l != 0 => Some((f, l)),
                    _ => next_stmt(),
                }
            }
            PcKind::LoopExit(latch) => {
                match self
                    .image
                    .and_then(|im| im.program().line_at(latch).ok().flatten())
                {
                    Some((f, l)) if l != 0 => Some((f, l)),
                    _ => next_stmt(),
                }
            }
        };
        SourcePos { function, line }
    }
}

/// Reads a mask from the wave's registers or private memory.
pub fn read_home(wave: &Wave, h: &Home) -> Result<u64, String> {
    let lo = read_loc(wave, &h.lo)? as u64;
    let hi = match &h.hi {
        Some(l) => read_loc(wave, l)? as u64,
        None => 0,
    };
    Ok(lo | hi << 32)
}

fn read_loc(wave: &Wave, l: &Loc) -> Result<u32, String> {
    read_loc_in(wave, l, &[])
}

/// The value of a mask's home as a caller's frame sees it: `frame` holds that frame's
/// values of the stack and frame pointers (`s32`, `s33`: the bases of its spill slots)
/// where they differ from the wave's.
fn read_home_in(wave: &Wave, h: &Home, frame: &[(u8, u32)]) -> Result<u64, String> {
    let lo = read_loc_in(wave, &h.lo, frame)? as u64;
    let hi = match &h.hi {
        Some(l) => read_loc_in(wave, l, frame)? as u64,
        None => 0,
    };
    Ok(lo | hi << 32)
}

fn read_loc_in(wave: &Wave, l: &Loc, frame: &[(u8, u32)]) -> Result<u32, String> {
    match *l {
        Loc::Sgpr(n) => wave
            .sgpr
            .get(n as usize)
            .copied()
            .ok_or_else(|| format!("s{n} is beyond the SGPR file")),
        Loc::Vcc(part) => Ok((wave.vcc.0 >> (32 * part as u32)) as u32),
        Loc::VgprLane { vgpr, lane } => wave
            .vgpr
            .get(vgpr as usize)
            .and_then(|r| r.get(lane as usize))
            .copied()
            .ok_or_else(|| format!("v{vgpr} lane {lane} is beyond the VGPR file")),
        Loc::AgprLane { agpr, lane } => Ok(wave
            .agpr
            .get(agpr as usize)
            .and_then(|r| r.get(lane as usize))
            .copied()
            .unwrap_or(0)),
        Loc::Scratch {
            soffset,
            offset,
            lane,
        } => {
            let base = match frame.iter().find(|(n, _)| *n == soffset) {
                Some(&(_, v)) => v,
                None => wave.sgpr.get(soffset as usize).copied().unwrap_or(0),
            };
            let addr = (base / wave.size).wrapping_add(offset);
            let mut b = [0u8; 4];
            wave.scratch
                .read_lane(lane as u32, addr, &mut b)
                .map_err(|e| {
                    format!("the spilled mask at private {addr:#x} of lane {lane}: {e}")
                })?;
            Ok(u32::from_le_bytes(b))
        }
    }
}

/// The lanes of wave `wave` of work-group `group` that have a work-item (the last
/// work-group of each dimension may be partial, and so may a group's last wave).
pub fn work_items(launch: &amdgpu_sim::Launch, group: [u32; 3], wave: u32) -> u64 {
    let cfg = &launch.config;
    let size: [u64; 3] = std::array::from_fn(|d| {
        (cfg.grid[d] as u64)
            .saturating_sub(group[d] as u64 * cfg.group[d] as u64)
            .min(cfg.group[d] as u64)
    });
    let items = size[0] * size[1] * size[2];
    let ws = launch.wave_size as u64;
    let first = wave as u64 * ws;
    let n = items.saturating_sub(first).min(ws);
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Where the positions of [`Combined`] come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
pub enum PositionSource {
    /// `DW_AT_LLVM_lane_pc` (and `DW_AT_LLVM_active_lane`) of the function and of its
    /// callers' frames.
    Dwarf,
    /// The reconstruction from the machine code (the function has no lane attributes).
    Reconstruction,
}

/// A lane on which the DWARF attributes and the reconstruction disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The lane.
    pub lane: u32,
    /// What the DWARF says (state word and PC).
    pub dwarf: String,
    /// What the reconstruction says.
    pub reconstruction: String,
}

/// The lanes of a stopped wave from DWARF when the code object has lane attributes for
/// the function, else from the reconstruction, and where both exist, every lane on which
/// they differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Combined {
    /// The positions shown.
    pub lanes: WaveLanes,
    /// Where they come from.
    pub source: PositionSource,
    /// The lanes on which the two differ (only with [`PositionSource::Dwarf`]; lanes the
    /// reconstruction cannot classify are not compared).
    pub disagreements: Vec<Disagreement>,
    /// Why the DWARF attributes were not used, when the code object has an index but
    /// the evaluation failed (an ill-formed attribute is an error, never silence).
    pub dwarf_error: Option<String>,
}

fn describe(state: &LaneState, pc: Option<u64>) -> String {
    match pc {
        Some(p) => format!("{} {p:#x}", state.word()),
        None => state.word().to_string(),
    }
}

impl LaneService<'_, '_> {
    /// The lanes of wave `w` of a stopped session: from `dwarf` (the code object's lane
    /// attributes, walked through the callers' frames) when it describes the function at
    /// the wave's PC, else from the reconstruction ([`LaneService::wave_lanes`]); when
    /// both exist they are compared lane by lane.
    pub fn combined(
        &self,
        dwarf: Option<&crate::lane_pc::LanePcIndex<'_>>,
        session: &amdgpu_sim::debug::Session<'_>,
        device: &amdgpu_sim::Device,
        w: u32,
        load_bias: u64,
        work_items: u64,
    ) -> Option<Combined> {
        use crate::lane_pc::{LanePcError, Positions, UnwindEnd};
        let wave = session.wave(w)?;
        let rec = self.wave_lanes(wave, load_bias, work_items);
        let reconstruction = |dwarf_error| Combined {
            lanes: rec.clone(),
            source: PositionSource::Reconstruction,
            disagreements: Vec::new(),
            dwarf_error,
        };
        let Some(index) = dwarf else {
            return Some(reconstruction(None));
        };
        let unwound = match index.wave_unwound(session, device, w, load_bias) {
            Ok(u) => u,
            // No scope or no attribute at this PC: nothing the DWARF says.
            Err(LanePcError::NoScope(_)) => return Some(reconstruction(None)),
            Err(e) => return Some(reconstruction(Some(e.to_string()))),
        };
        if !matches!(unwound.innermost.positions, Positions::Lanes(_)) {
            return Some(reconstruction(None));
        }
        let active = unwound.innermost.active & work_items;
        let mut lanes = Vec::with_capacity(rec.lanes.len());
        let mut disagreements = Vec::new();
        for r in &rec.lanes {
            let l = r.lane;
            let bit = 1u64 << l;
            let at = unwound.lanes.get(l as usize).copied().flatten();
            let (state, pc, kind) = if active & bit != 0 {
                (LaneState::Active, Some(rec.pc), PcKind::Current)
            } else if work_items & bit == 0 {
                (LaneState::Outside, None, PcKind::Current)
            } else if let Some((_, p)) = at {
                // The line shown for a waiting lane: the reconstruction's kind of place
                // when it agrees, else the next statement.
                let kind = if r.pc == Some(p) {
                    r.kind
                } else {
                    PcKind::Join
                };
                (LaneState::Divergent, Some(p), kind)
            } else if unwound.end == UnwindEnd::Outermost {
                (LaneState::Finished, None, PcKind::Current)
            } else {
                (LaneState::NotEntered, None, PcKind::Current)
            };
            if !matches!(r.state, LaneState::Unknown(_)) && (state != r.state || pc != r.pc) {
                disagreements.push(Disagreement {
                    lane: l,
                    dwarf: describe(&state, pc),
                    reconstruction: describe(&r.state, r.pc),
                });
            }
            lanes.push(LanePosition {
                lane: l,
                state,
                pc,
                kind,
            });
        }
        Some(Combined {
            lanes: WaveLanes {
                lanes,
                active,
                exec: rec.exec,
                pc: rec.pc,
            },
            source: PositionSource::Dwarf,
            disagreements,
            dwarf_error: None,
        })
    }
}

/// A function's name as source code writes it: a C++ (Itanium-mangled) symbol
/// demangled with its parameter types (`_Z7divergePKiPii` is
/// `diverge(int const*, int*, int)`), anything else as it is.
pub fn demangle(symbol: &str) -> String {
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle().ok())
        .unwrap_or_else(|| symbol.to_string())
}

/// Whether `symbol` is the function a user names `name`, as gdb matches a function
/// name: the symbol itself, its demangled name, or that name without its parameter
/// list (`diverge`, and `ns::f` for `ns::f(int)`; every overload matches), without
/// the return type a template instance's name carries (`returnSized<1>` for
/// `Custom<char, 1> returnSized<1>()`), without the template arguments
/// (`returnSized` names every instance) and without the enclosing namespaces and
/// classes (`f` names `ns::f`).
pub fn names_function(symbol: &str, name: &str) -> bool {
    if symbol == name {
        return true;
    }
    let d = demangle(symbol);
    if d == name {
        return true;
    }
    let Some(base) = function_base(&d) else {
        return false;
    };
    let unqualified = top_level_split(base, "::").unwrap_or(base);
    let untemplated = |s: &str| -> String {
        match s.find('<') {
            Some(i) if s.ends_with('>') => s[..i].to_string(),
            _ => s.to_string(),
        }
    };
    [base, unqualified]
        .iter()
        .any(|b| *b == name || untemplated(b) == name)
}

/// A demangled function name without its parameter list and its return type (the
/// part after the last space outside template arguments): `ns::f<2>` for
/// `Custom<char, 2> ns::f<2>(int)`.
fn function_base(demangled: &str) -> Option<&str> {
    // The parameter list: the last top-level `(`.
    let mut depth = 0i32;
    let mut open = None;
    for (i, c) in demangled.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 && open.is_none() => open = Some(i),
            _ => {}
        }
    }
    let head = &demangled[..open?];
    Some(top_level_split(head, " ").unwrap_or(head))
}

/// What follows the last `sep` outside template arguments (`<...>`), if any.
fn top_level_split<'s>(s: &'s str, sep: &str) -> Option<&'s str> {
    let mut depth = 0i32;
    let mut last = None;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 && s[i..].starts_with(sep) => last = Some(i + sep.len()),
            _ => {}
        }
    }
    last.map(|i| &s[i..])
}

#[cfg(test)]
mod name_tests {
    use super::names_function;

    /// Symbols as hipcc names them (a function template instance's name carries its
    /// return type: `Custom<char, 1> returnSized<1>()`).
    #[test]
    fn function_names_match_as_gdb_matches_them() {
        let sized1 = "_Z11returnSizedILi1EE6CustomIcXT_EEv";
        assert!(names_function(sized1, "returnSized<1>"));
        assert!(names_function(sized1, "returnSized"));
        assert!(names_function(sized1, sized1));
        assert!(!names_function(sized1, "returnSized<16>"));
        assert!(!names_function(sized1, "Custom"));
        assert!(names_function("_Z10returnPtr2Pi", "returnPtr2"));
        assert!(names_function("_Z10returnPtr2Pi", "returnPtr2(int*)"));
        assert!(!names_function("_Z10returnPtr2Pi", "returnPtr"));
        // ns::f(int): by its qualified and its plain name
        assert!(names_function("_ZN2ns1fEi", "ns::f"));
        assert!(names_function("_ZN2ns1fEi", "f"));
        assert!(!names_function("_ZN2ns1fEi", "ns"));
        assert!(names_function("diverge", "diverge"));
    }
}

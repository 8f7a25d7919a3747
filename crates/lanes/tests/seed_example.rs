//! The nested IF/THEN/ELSE example of the LLVM AMDGPU usage guide ("AMDGPU
//! DW_AT_LLVM_lane_pc"), three ways.
//!
//! The kernel `seed_lane_pc` (kernels/src/asm) is the guide's pseudo MIR written as
//! machine code. Its lane positions, before every instruction of every wave, come from:
//!
//! 1. the guide's DWARF, hand-assembled here with `gimli::write`: the procedures
//!    `__active_lane_pc`, `__divergent_lane_pc`, `__divergent_lane_pc_1_then`,
//!    `__divergent_lane_pc_1_1_then`, `__divergent_lane_pc_1_1_else`,
//!    `__divergent_lane_pc_1_else`, the artificial variables `__lex_1_save_exec` and
//!    `__lex_1_1_save_exec` with location lists, the `__uint64` base type (`__uint32` for
//!    wave32) and the location list of DBG_VALUEs, read back through `lane_pc`;
//! 2. the reconstruction (`LaneService`);
//! 3. an independent model: each lane runs the 16-line pseudo program as its own thread
//!    under a SIMT scheduler with the guide's conventions (the THEN arm first; a lane
//!    waiting for its ELSE arm is at the IF, one that finished its THEN arm at the
//!    ENDIF), and its position is the machine address of the statement it is at.
//!
//! Two differences from the guide's text, both deliberate:
//!
//! - the guide's DBG_VALUE after `$lex_1_1_end` (its line 95) calls
//!   `__divergent_lane_pc`, which would make the lanes waiting for the outer ELSE
//!   undefined while `e` runs although they are still in the subprogram; the outer THEN
//!   is still running there, so this DWARF calls `__divergent_lane_pc_1_then`;
//! - `DW_OP_deref_type 64, %__uint_64` is read as a deref of 8 bytes (its operand is a
//!   byte size).
//!
//! The guide places a lane that finished the THEN arm at the label after the
//! instruction that restores EXEC (`$lex_1_1_end`, `$lex_1_end`); the reconstruction at
//! that instruction itself. The model is asked under each convention and each source is
//! compared under its own; everything else must agree exactly.

use amdgpu_codeobj::CodeObject;
use amdgpu_dwarf::op::{DecodeOptions, Op, encode};
use amdgpu_dwarf::target::Register;
use amdgpu_lanes::lane_pc::{LanePcIndex, Positions};
use amdgpu_lanes::service::{LaneService, LaneState, work_items};
use amdgpu_sim::debug::{Session, Stop};
use amdgpu_sim::{ArgValue, Device, LaunchConfig, WaveStatus};
use amdsim_sim_tests::{TARGETS, read_kernel};
use gimli::write::{
    Address, AttributeValue, EndianVec, Expression, Location, LocationList, Sections, Unit,
    UnitEntryId,
};
use gimli::{DwAt, LittleEndian};
use std::collections::HashMap;

// ---------------------------------------------------------------------------------------
// The kernel's statements.

/// Addresses of the instructions the guide's labels name.
#[derive(Debug, Clone)]
struct Labels {
    entry: u64,
    end: u64,
    /// `%1 = EXEC`, `%3 = EXEC`.
    save1: u64,
    save3: u64,
    /// `$lex_1_start: EXEC = %1 & %2`.
    l1_start: u64,
    /// `$lex_1_1_start: EXEC = %3 & %4`.
    l11_start: u64,
    /// `EXEC = ~EXEC & %3` (the inner ELSE).
    l11_else: u64,
    /// `EXEC = %3` (the inner ENDIF).
    l11_join: u64,
    /// `EXEC = ~EXEC & %1` (the outer ELSE).
    l1_else: u64,
    /// `EXEC = %1` (the outer ENDIF).
    l1_join: u64,
    /// Instruction sizes by address (for "the label after").
    sizes: HashMap<u64, u64>,
}

impl Labels {
    fn after(&self, pc: u64) -> u64 {
        pc + self.sizes[&pc]
    }

    fn find(bytes: &[u8]) -> Labels {
        let co = CodeObject::parse(bytes).expect("parses");
        let gpu = amdgpu_isa::Gpu::try_from(co.target().gpu).expect("gpu");
        let k = &co.kernels()[0];
        let wave64 = k.wavefront_size() == 64;
        let text = co.text();
        let prog = amdgpu_isa::Decoder::new(gpu, wave64).decode_program(text.bytes, text.address);
        let sym = co
            .symbols()
            .iter()
            .find(|s| s.name == "seed_lane_pc")
            .expect("symbol");
        let (start, end) = (sym.address, sym.address + sym.size);
        let mut writes = Vec::new();
        let mut saves = Vec::new();
        let mut sizes = HashMap::new();
        for (pc, i) in prog.iter().filter(|(pc, _)| *pc >= start && *pc < end) {
            sizes.insert(pc, u64::from(i.size));
            let t = i.to_string();
            let mut w = t.split_whitespace();
            let (op, dst) = (w.next().unwrap_or(""), w.next().unwrap_or(""));
            if dst == "exec," || dst == "exec_lo," {
                writes.push(pc);
            } else if op.starts_with("s_mov_b") && (t.ends_with(" exec") || t.ends_with("exec_lo"))
            {
                saves.push(pc);
            }
        }
        assert_eq!(writes.len(), 6, "six EXEC writes");
        assert_eq!(saves.len(), 2, "two EXEC saves");
        Labels {
            entry: start,
            end,
            save1: saves[0],
            save3: saves[1],
            l1_start: writes[0],
            l11_start: writes[1],
            l11_else: writes[2],
            l11_join: writes[3],
            l1_else: writes[4],
            l1_join: writes[5],
            sizes,
        }
    }

    /// The pseudo-code line the instruction at `pc` belongs to.
    fn line(&self, pc: u64) -> u32 {
        match pc {
            p if p < self.l1_start => 3,
            p if p == self.l1_start => 4,
            p if p < self.l11_start => 5,
            p if p == self.l11_start => 6,
            p if p < self.l11_else => 7,
            p if p == self.l11_else => 8,
            p if p < self.l11_join => 9,
            p if p == self.l11_join => 10,
            p if p < self.l1_else => 11,
            p if p == self.l1_else => 12,
            p if p < self.l1_join => 13,
            p if p == self.l1_join => 14,
            _ => 15,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The independent model.

/// The 16-line pseudo program.
enum Stmt {
    /// A statement (a, b, ...) at a line.
    Simple(u32),
    /// `IF (cond) THEN then ELSE els ENDIF`: lines of IF, ELSE, ENDIF.
    If {
        line: u32,
        cond: fn(&Thread) -> bool,
        then: Vec<Stmt>,
        else_line: u32,
        els: Vec<Stmt>,
        endif: u32,
    },
}

fn program() -> Vec<Stmt> {
    use Stmt::*;
    vec![
        Simple(3),
        If {
            line: 4,
            cond: |t| t.c1,
            then: vec![
                Simple(5),
                If {
                    line: 6,
                    cond: |t| t.c2,
                    then: vec![Simple(7)],
                    else_line: 8,
                    els: vec![Simple(9)],
                    endif: 10,
                },
                Simple(11),
            ],
            else_line: 12,
            els: vec![Simple(13)],
            endif: 14,
        },
        Simple(15),
    ]
}

/// Where a lane's thread is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum At {
    /// Executing the statement the wave executes.
    Running,
    /// Waiting at the IF of this line for its ELSE arm.
    ParkedIf(u32),
    /// Done with its THEN arm, waiting at the ENDIF of this line.
    ParkedEndIf(u32),
}

/// One lane as a thread of the pseudo program.
#[derive(Clone, Debug)]
struct Thread {
    c1: bool,
    c2: bool,
    at: At,
    /// The statements it executed, as the kernel's bit set (a = 1 ... g = 64).
    path: u32,
}

/// Runs `threads` through `block`; `seen` gets, per line, the threads' states while the
/// line executes. `running` are the threads executing the block.
fn run(
    block: &[Stmt],
    threads: &mut [Thread],
    running: &[usize],
    seen: &mut HashMap<u32, Vec<At>>,
) {
    let snap = |threads: &[Thread]| threads.iter().map(|t| t.at).collect::<Vec<_>>();
    for s in block {
        match s {
            Stmt::Simple(line) => {
                seen.insert(*line, snap(threads));
                let bit = 1 << ((line - 3) / 2);
                for &i in running {
                    threads[i].path |= bit;
                }
            }
            Stmt::If {
                line,
                cond,
                then,
                else_line,
                els,
                endif,
            } => {
                // All running threads evaluate the condition; the THEN threads go first,
                // the others wait at the IF.
                seen.insert(*line, snap(threads));
                let (t, e): (Vec<usize>, Vec<usize>) =
                    running.iter().partition(|&&i| cond(&threads[i]));
                for &i in &e {
                    threads[i].at = At::ParkedIf(*line);
                }
                run(then, threads, &t, seen);
                // ELSE: the THEN threads leave their arm, then wait at the ENDIF; the
                // others leave the IF.
                seen.insert(*else_line, snap(threads));
                for &i in &t {
                    threads[i].at = At::ParkedEndIf(*endif);
                }
                for &i in &e {
                    threads[i].at = At::Running;
                }
                run(els, threads, &e, seen);
                // ENDIF: the ELSE threads close it; then everyone continues.
                seen.insert(*endif, snap(threads));
                for &i in &t {
                    threads[i].at = At::Running;
                }
            }
        }
    }
}

/// Where the lanes finished with a THEN arm are placed.
#[derive(Clone, Copy, PartialEq)]
enum Join {
    /// At the label after the instruction that restores EXEC (the guide).
    AfterRestore,
    /// At that instruction (the reconstruction).
    AtRestore,
}

struct Model {
    seen: HashMap<u32, Vec<At>>,
    paths: Vec<u32>,
}

impl Model {
    fn new(v: &[u32]) -> Model {
        let mut threads: Vec<Thread> = v
            .iter()
            .map(|x| Thread {
                c1: x & 1 != 0,
                c2: x & 2 != 0,
                at: At::Running,
                path: 0,
            })
            .collect();
        let all: Vec<usize> = (0..threads.len()).collect();
        let mut seen = HashMap::new();
        run(&program(), &mut threads, &all, &mut seen);
        Model {
            seen,
            paths: threads.iter().map(|t| t.path).collect(),
        }
    }

    /// The positions while the wave executes `pc`.
    fn positions(&self, l: &Labels, pc: u64, join: Join) -> Vec<u64> {
        let endif = |p: u64| match join {
            Join::AfterRestore => l.after(p),
            Join::AtRestore => p,
        };
        self.seen[&l.line(pc)]
            .iter()
            .map(|a| match a {
                At::Running => pc,
                At::ParkedIf(4) => l.l1_start,
                At::ParkedIf(_) => l.l11_start,
                At::ParkedEndIf(10) => endif(l.l11_join),
                At::ParkedEndIf(_) => endif(l.l1_join),
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------
// The guide's DWARF.

const LANE_PC: u16 = 0x3e12;
const LANES: u16 = 0x3e11;

fn reg(r: u32) -> Op {
    Op::Reg {
        reg: u64::from(r),
        short: false,
    }
}

/// What the guide's expressions are made of, for one wave size: the DIE offsets the
/// calls name, the lane count and the mask type.
struct GuideOps<'a> {
    offs: &'a HashMap<String, u64>,
    o: DecodeOptions,
    ws: u32,
}

impl GuideOps<'_> {
    /// The offset of the named DIE (zero before the DIEs are laid out).
    fn off(&self, n: &str) -> u64 {
        self.offs.get(n).copied().unwrap_or(0)
    }

    fn enc(&self, ops: &[Op]) -> Expression {
        Expression::raw(encode(ops, &self.o).expect("encodes"))
    }

    fn count(&self) -> u64 {
        u64::from(self.ws)
    }

    fn extend(&self) -> Op {
        Op::Extend {
            bits: 64,
            count: self.count(),
        }
    }

    fn select(&self) -> Op {
        Op::SelectBitPiece {
            bits: 64,
            count: self.count(),
        }
    }

    /// Bytes of an EXEC mask.
    fn mask_bytes(&self) -> u8 {
        (self.ws / 8) as u8
    }

    fn base_type(&self) -> u64 {
        self.off("__uint")
    }

    /// `__active_lane_pc` (the guide's lines 7-22).
    fn active_lane_pc(&self) -> Vec<Op> {
        let exec = if self.ws == 64 {
            Register::EXEC64
        } else {
            Register::EXEC32
        };
        vec![
            reg(Register::PC),
            self.extend(),
            Op::RegvalType {
                reg: u64::from(exec),
                die: self.base_type(),
            },
            self.select(),
        ]
    }

    /// A saved mask in the SGPR pair (wave64) or the SGPR (wave32) from `lo`.
    fn saved_mask(&self, lo: u16) -> Vec<Op> {
        if self.ws == 64 {
            vec![
                reg(Register::sgpr(lo)),
                Op::Piece(4),
                reg(Register::sgpr(lo + 1)),
                Op::Piece(4),
            ]
        } else {
            vec![reg(Register::sgpr(lo))]
        }
    }

    /// A region procedure (the guide's lines 34-45, 57-68, 76-87, 102-113): the lanes
    /// of the mask saved in `save` are at `at`, the others where `parent` says.
    fn region(&self, parent: &str, at: u64, save: &str) -> Vec<Op> {
        vec![
            Op::CallRef(self.off(parent)),
            Op::Addr(at),
            Op::StackValue,
            self.extend(),
            Op::CallRef(self.off(save)),
            Op::DerefType {
                size: self.mask_bytes(),
                die: self.base_type(),
            },
            self.select(),
        ]
    }

    /// A DBG_VALUE of DW_AT_LLVM_lane_pc: the divergent lanes from `p`, the active
    /// ones at the PC.
    fn calls(&self, p: &str) -> Vec<Op> {
        vec![
            Op::CallRef(self.off(p)),
            Op::CallRef(self.off("__active_lane_pc")),
        ]
    }

    fn procedure(&self, u: &mut Unit, parent: UnitEntryId, name: &str, ops: Vec<Op>) {
        let id = u.add(parent, gimli::DW_TAG_dwarf_procedure);
        u.get_mut(id).set(gimli::DW_AT_name, string(name));
        u.get_mut(id).set(
            gimli::DW_AT_location,
            AttributeValue::Exprloc(self.enc(&ops)),
        );
    }

    fn location_list(&self, u: &mut Unit, items: Vec<(u64, u64, Vec<Op>)>) -> AttributeValue {
        let id = u.locations.add(LocationList(
            items
                .into_iter()
                .map(|(b, e, ops)| Location::StartEnd {
                    begin: Address::Constant(b),
                    end: Address::Constant(e),
                    data: self.enc(&ops),
                })
                .collect(),
        ));
        AttributeValue::LocationListRef(id)
    }
}

fn string(x: &str) -> AttributeValue {
    AttributeValue::String(x.as_bytes().to_vec())
}

/// The unit's root, the `__uint` base type and the subprogram; returns the
/// subprogram.
fn guide_subprogram(u: &mut Unit, l: &Labels, g: &GuideOps) -> UnitEntryId {
    let root = u.root();
    let code_range = |u: &mut Unit, id: UnitEntryId| {
        u.get_mut(id).set(
            gimli::DW_AT_low_pc,
            AttributeValue::Address(Address::Constant(l.entry)),
        );
        u.get_mut(id)
            .set(gimli::DW_AT_high_pc, AttributeValue::Udata(l.end - l.entry));
    };
    u.get_mut(root)
        .set(gimli::DW_AT_name, string("seed_lane_pc"));
    code_range(u, root);
    let bt = u.add(root, gimli::DW_TAG_base_type);
    u.get_mut(bt).set(gimli::DW_AT_name, string("__uint"));
    u.get_mut(bt).set(
        gimli::DW_AT_byte_size,
        AttributeValue::Udata(u64::from(g.mask_bytes())),
    );
    u.get_mut(bt).set(
        gimli::DW_AT_encoding,
        AttributeValue::Encoding(gimli::DW_ATE_unsigned),
    );
    let sub = u.add(root, gimli::DW_TAG_subprogram);
    u.get_mut(sub)
        .set(gimli::DW_AT_name, string("seed_lane_pc"));
    code_range(u, sub);
    u.get_mut(sub)
        .set(DwAt(LANES), AttributeValue::Udata(g.count()));
    sub
}

/// The saved masks (DBG_VALUE %1 / %3), live from after the save to the region's end.
fn guide_saved_masks(u: &mut Unit, sub: UnitEntryId, l: &Labels, g: &GuideOps) {
    for (name, from, to, sgpr) in [
        (
            "__lex_1_save_exec",
            l.after(l.save1),
            l.after(l.l1_join),
            16,
        ),
        (
            "__lex_1_1_save_exec",
            l.after(l.save3),
            l.after(l.l11_join),
            18,
        ),
    ] {
        let id = u.add(sub, gimli::DW_TAG_variable);
        u.get_mut(id).set(gimli::DW_AT_name, string(name));
        u.get_mut(id)
            .set(gimli::DW_AT_artificial, AttributeValue::Flag(true));
        let v = g.location_list(u, vec![(from, to, g.saved_mask(sgpr))]);
        u.get_mut(id).set(gimli::DW_AT_location, v);
    }
}

/// The region procedures: (name, parent procedure, where the region's lanes wait,
/// the saved mask).
fn guide_regions(l: &Labels) -> [(&'static str, &'static str, u64, &'static str); 4] {
    [
        (
            "__divergent_lane_pc_1_then",
            "__divergent_lane_pc",
            l.l1_start,
            "__lex_1_save_exec",
        ),
        (
            "__divergent_lane_pc_1_1_then",
            "__divergent_lane_pc_1_then",
            l.l11_start,
            "__lex_1_1_save_exec",
        ),
        (
            "__divergent_lane_pc_1_1_else",
            "__divergent_lane_pc_1_then",
            l.after(l.l11_join),
            "__lex_1_1_save_exec",
        ),
        (
            "__divergent_lane_pc_1_else",
            "__divergent_lane_pc",
            l.after(l.l1_join),
            "__lex_1_save_exec",
        ),
    ]
}

/// The DBG_VALUEs of DW_AT_LLVM_lane_pc, each from the label after the EXEC write.
fn guide_lane_pc_entries(l: &Labels, g: &GuideOps) -> Vec<(u64, u64, Vec<Op>)> {
    let lex_1_end = l.after(l.l1_join);
    let lex_1_1_end = l.after(l.l11_join);
    vec![
        (l.entry, l.after(l.l1_start), g.calls("__divergent_lane_pc")),
        (
            l.after(l.l1_start),
            l.after(l.l11_start),
            g.calls("__divergent_lane_pc_1_then"),
        ),
        (
            l.after(l.l11_start),
            l.after(l.l11_else),
            g.calls("__divergent_lane_pc_1_1_then"),
        ),
        (
            l.after(l.l11_else),
            lex_1_1_end,
            g.calls("__divergent_lane_pc_1_1_else"),
        ),
        // The guide writes __divergent_lane_pc here (see the module documentation).
        (
            lex_1_1_end,
            l.after(l.l1_else),
            g.calls("__divergent_lane_pc_1_then"),
        ),
        (
            l.after(l.l1_else),
            lex_1_end,
            g.calls("__divergent_lane_pc_1_else"),
        ),
        (lex_1_end, l.end, g.calls("__divergent_lane_pc")),
    ]
}

/// Writes the guide's DWARF for the kernel; `offs` gives the DIE offsets the calls need
/// (by name; zero on the first of two writes, which only lays the DIEs out).
fn guide_dwarf(l: &Labels, ws: u32, offs: &HashMap<String, u64>) -> HashMap<&'static str, Vec<u8>> {
    let g = GuideOps {
        offs,
        o: DecodeOptions::default(),
        ws,
    };
    let mut dwarf = gimli::write::Dwarf::new();
    let uid = dwarf.units.add(Unit::new(
        gimli::Encoding {
            format: gimli::Format::Dwarf32,
            version: 5,
            address_size: 8,
        },
        gimli::write::LineProgram::none(),
    ));
    let u = dwarf.units.get_mut(uid);
    let sub = guide_subprogram(u, l, &g);
    g.procedure(u, sub, "__active_lane_pc", g.active_lane_pc());
    g.procedure(
        u,
        sub,
        "__divergent_lane_pc",
        vec![Op::Undefined, g.extend()],
    );
    guide_saved_masks(u, sub, l, &g);
    for (name, parent, at, save) in guide_regions(l) {
        g.procedure(u, sub, name, g.region(parent, at, save));
    }
    let v = g.location_list(u, guide_lane_pc_entries(l, &g));
    u.get_mut(sub).set(DwAt(LANE_PC), v);
    let mut sections = Sections::new(EndianVec::new(LittleEndian));
    dwarf.write(&mut sections).expect("writes");
    let mut out = HashMap::new();
    sections
        .for_each(|id, w| -> Result<(), ()> {
            out.insert(id.name(), w.slice().to_vec());
            Ok(())
        })
        .expect("collects");
    out
}

/// `.debug_info` offsets of the named DIEs (unit-relative for the base type, which typed
/// operations name that way).
fn die_offsets(s: &HashMap<&'static str, Vec<u8>>) -> HashMap<String, u64> {
    let dwarf = gimli::Dwarf::load(|id: gimli::SectionId| -> Result<_, gimli::Error> {
        Ok(gimli::EndianSlice::new(
            s.get(id.name()).map_or(&[][..], |v| v.as_slice()),
            LittleEndian,
        ))
    })
    .expect("loads");
    let mut out = HashMap::new();
    let mut units = dwarf.units();
    while let Some(h) = units.next().expect("unit") {
        let unit = dwarf.unit(h).expect("unit");
        let base = unit.header.offset().0 as u64;
        let mut cur = unit.entries();
        while let Some(die) = cur.next_dfs().expect("die") {
            if let Some(n) = die
                .attr_value(gimli::DW_AT_name)
                .and_then(|v| dwarf.attr_string(&unit, v).ok())
            {
                let n = String::from_utf8_lossy(n.slice()).into_owned();
                let uo = die.offset().0 as u64;
                let o = if die.tag() == gimli::DW_TAG_base_type {
                    uo
                } else {
                    base + uo
                };
                out.insert(n, o);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The run.

#[derive(Default)]
struct Figures {
    steps: u64,
    lanes: u64,
    divergent: u64,
}

fn check(target: &str) -> Result<Option<Figures>, String> {
    let Ok(bytes) = read_kernel(target, "seed_lane_pc.co") else {
        return Ok(None);
    };
    let co = CodeObject::parse(&bytes).map_err(|e| e.to_string())?;
    let ws = co.kernels()[0].wavefront_size();
    let l = Labels::find(&bytes);
    let first = guide_dwarf(&l, ws, &HashMap::new());
    let offs = die_offsets(&first);
    let sections = guide_dwarf(&l, ws, &offs);
    if die_offsets(&sections) != offs {
        return Err("the DIEs moved between the two writes".into());
    }
    let index = LanePcIndex::from_sections(
        |n| sections.get(n).map(|v| v.as_slice()),
        &Default::default(),
    )
    .map_err(|e| e.to_string())?;
    let service = LaneService::new(&co, None).map_err(|e| e.to_string())?;
    // Inputs: every wave gets every combination of c1 and c2, in a scrambled order.
    let (grid, group) = (256u32, 128u32);
    let v: Vec<u32> = (0..grid)
        .map(|g| (g.wrapping_mul(2_654_435_761) >> 7) ^ (g >> 1))
        .collect();
    for w in v.chunks(ws as usize) {
        let combos: std::collections::BTreeSet<u32> = w.iter().map(|x| x & 3).collect();
        assert_eq!(combos.len(), 4, "every branch divergent in every wave");
    }
    let dev = Device::new();
    let m = dev.load(&bytes).map_err(|e| e.to_string())?;
    let input: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let pin = dev.alloc_bytes(&input).map_err(|e| e.to_string())?;
    let pout = dev.alloc(u64::from(grid) * 4).map_err(|e| e.to_string())?;
    let launch = dev
        .launch(
            &m,
            "seed_lane_pc",
            LaunchConfig::new_1d(grid, group, vec![ArgValue::Ptr(pin), ArgValue::Ptr(pout)]),
        )
        .map_err(|e| e.to_string())?;
    let bias = m.load_bias;
    let mut session = Session::new(&dev, launch);
    session.add_breakpoint(l.entry + bias);
    let mut fig = Figures::default();
    let mut paths = vec![0u32; grid as usize];
    loop {
        let gid0 = match session.resume().map_err(|e| e.to_string())? {
            Stop::Breakpoint { group: g, .. } => g[0] * group,
            Stop::Finished => break,
            other => return Err(format!("unexpected stop {other:?}")),
        };
        let id = session.group().map(|g| g.id);
        let nw = session.group().map_or(0, |g| g.waves.len() as u32);
        let models: Vec<Model> = (0..nw)
            .map(|w| {
                let first = (gid0 + w * ws) as usize;
                Model::new(&v[first..first + ws as usize])
            })
            .collect();
        for (w, m) in models.iter().enumerate() {
            let first = gid0 as usize + w * ws as usize;
            paths[first..first + ws as usize].copy_from_slice(&m.paths);
        }
        // The waves run to the end in wave order (no barrier in this kernel).
        for w in 0..nw {
            while session.group().map(|g| g.id) == id
                && session
                    .wave(w)
                    .is_some_and(|x| x.status == WaveStatus::Running)
            {
                let wave = session.wave(w).ok_or("wave")?;
                let pc = wave.pc - bias;
                let model = &models[w as usize];
                let at = |what: &str| format!("group {id:?} wave {w} at {pc:#x}: {what}");
                // 1. The guide's DWARF.
                let d = index
                    .wave(&session, &dev, w, bias)
                    .map_err(|e| at(&e.to_string()))?;
                let Positions::Lanes(dpos) = &d.positions else {
                    return Err(at(&format!("no lane_pc: {:?}", d.positions)));
                };
                let want = model.positions(&l, pc, Join::AfterRestore);
                for (lane, (x, y)) in dpos.iter().zip(&want).enumerate() {
                    if *x != Some(*y) {
                        return Err(at(&format!(
                            "lane {lane}: DWARF {x:x?}, model {y:#x} (the guide's convention)"
                        )));
                    }
                }
                // 2. The reconstruction.
                let items = work_items(session.launch(), id.unwrap_or_default(), w);
                let r = service.wave_lanes(wave, bias, items);
                let want = model.positions(&l, pc, Join::AtRestore);
                for (p, y) in r.lanes.iter().zip(&want) {
                    if p.pc != Some(*y) {
                        return Err(at(&format!(
                            "lane {}: reconstruction {:x?} ({:?}), model {y:#x}",
                            p.lane, p.pc, p.state
                        )));
                    }
                    fig.divergent += u64::from(p.state == LaneState::Divergent);
                }
                let exec = wave.exec.0 & wave.full_mask();
                if d.active != exec || r.active != exec {
                    return Err(at("active mask differs from EXEC"));
                }
                fig.lanes += u64::from(ws);
                fig.steps += 1;
                match session.step(w).map_err(|e| e.to_string())? {
                    Stop::Stepped { .. } => {}
                    _ => break,
                }
            }
        }
    }
    // The kernel did what the model says each lane did.
    let mut out = vec![0u8; grid as usize * 4];
    dev.mem.read(pout, &mut out).map_err(|e| e.to_string())?;
    for (g, want) in paths.iter().enumerate() {
        let got = u32::from_le_bytes(out[g * 4..g * 4 + 4].try_into().unwrap_or_default());
        if got != *want {
            return Err(format!("out[{g}] = {got:#x}, the model's path {want:#x}"));
        }
    }
    Ok(Some(fig))
}

#[test]
fn the_guides_example_agrees_three_ways() {
    let mut failures = Vec::new();
    let mut ran = Vec::new();
    for t in TARGETS {
        match check(t) {
            Ok(Some(f)) => {
                println!(
                    "{t}: {} wave instructions, {} lane positions compared three ways \
                     ({} divergent)",
                    f.steps, f.lanes, f.divergent
                );
                ran.push(t);
            }
            Ok(None) => {}
            Err(e) => failures.push(format!("{t}: {e}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert!(
        ran.contains(&"gfx900") && ran.contains(&"gfx1030"),
        "the kernel is built for gfx900 and gfx1030"
    );
}

#[test]
fn the_model_follows_the_guides_conventions() {
    // Four lanes: (c1, c2) = (1, 1), (1, 0), (0, _), (0, _).
    let m = Model::new(&[3, 1, 0, 2]);
    assert_eq!(
        m.paths,
        vec![
            1 | 2 | 4 | 16 | 64,
            1 | 2 | 8 | 16 | 64,
            1 | 32 | 64,
            1 | 32 | 64
        ]
    );
    use At::*;
    assert_eq!(
        m.seen[&7],
        vec![Running, ParkedIf(6), ParkedIf(4), ParkedIf(4)]
    );
    assert_eq!(
        m.seen[&9],
        vec![ParkedEndIf(10), Running, ParkedIf(4), ParkedIf(4)]
    );
    assert_eq!(
        m.seen[&11],
        vec![Running, Running, ParkedIf(4), ParkedIf(4)]
    );
    assert_eq!(
        m.seen[&13],
        vec![ParkedEndIf(14), ParkedEndIf(14), Running, Running]
    );
    assert_eq!(m.seen[&15], vec![Running; 4]);
}

//! Differential test of the `.debug_frame` interpreter against gimli: random call frame
//! programs of the DWARF 5 instructions both know (every rule kind: undefined, same value,
//! offset, val_offset, register, expression, val_expression; CFA by register and offset or
//! by expression; remember/restore state; advances), written by `gimli::write`, are read by
//! `amdgpu_dwarf::cfi::DebugFrame` and by `gimli::read::DebugFrame`, and the rows for a
//! spread of PCs must agree.
//!
//! gimli keeps no entry for a register whose rule is "undefined" (its default) while this
//! interpreter keeps explicit `Undefined` rules (its default is "same value", the AMDGPU
//! convention): rows are compared with undefined entries left out on both sides.

use amdgpu_dwarf::cfi::{CfaRule, DebugFrame, RegisterRule};
use gimli::write::{
    Address, CallFrameInstruction as I, CommonInformationEntry, EndianVec, Expression,
    FrameDescriptionEntry, FrameTable,
};
use gimli::{LittleEndian, Register, UnwindSection};
use std::collections::BTreeMap;

use crate::common::Rng;

const START: u64 = 0x1000;
const LEN: u32 = 0x400;

fn reg(rng: &mut Rng) -> Register {
    // A few SGPR/VGPR-like numbers, small ones (short forms) and large ones (extended).
    const REGS: [u16; 8] = [1, 5, 16, 40, 63, 64, 1088, 2600];
    Register(REGS[rng.below(REGS.len() as u64) as usize])
}

fn expr(rng: &mut Rng) -> Expression {
    let n = 1 + rng.below(4) as usize;
    let bytes: Vec<u8> = (0..n)
        .map(|_| 0x30 + rng.below(32) as u8) // DW_OP_lit*
        .collect();
    Expression::raw(bytes)
}

/// Offsets the data alignment factor divides (gimli::write factors the negative ones
/// and those of the register rules).
fn offset(rng: &mut Rng, align: i8) -> i32 {
    (rng.below(64) as i32 - 16) * i32::from(align)
}

/// What the generator knows of the program so far: whether the CFA is an expression (a
/// CFA offset or register change is then ill-formed, so it is rarely generated), per
/// remembered state.
#[derive(Default)]
struct Gen {
    cfa_expr: Vec<bool>,
}

impl Gen {
    fn instruction(&mut self, rng: &mut Rng, align: i8) -> I {
        let expr_now = self.cfa_expr.last().copied().unwrap_or(false);
        let depth = self.cfa_expr.len().saturating_sub(1);
        let set = |g: &mut Gen, v: bool| {
            if let Some(last) = g.cfa_expr.last_mut() {
                *last = v;
            }
        };
        match rng.below(14) {
            0 => {
                set(self, false);
                I::Cfa(reg(rng), offset(rng, align))
            }
            // Ill-formed after a CFA expression: one time in eight.
            1 if !expr_now || rng.below(8) == 0 => I::CfaRegister(reg(rng)),
            2 if !expr_now || rng.below(8) == 0 => I::CfaOffset(offset(rng, align)),
            1 | 2 => {
                set(self, false);
                I::Cfa(reg(rng), offset(rng, align))
            }
            3 => {
                set(self, true);
                I::CfaExpression(expr(rng))
            }
            4 => I::Undefined(reg(rng)),
            5 => I::SameValue(reg(rng)),
            6 | 7 => I::Offset(reg(rng), offset(rng, align)),
            8 => I::ValOffset(reg(rng), offset(rng, align)),
            9 => I::Register(reg(rng), reg(rng)),
            10 => I::Expression(reg(rng), expr(rng)),
            11 => I::ValExpression(reg(rng), expr(rng)),
            // gimli keeps at most a few remembered states (a fixed-size stack).
            12 if depth < 2 => {
                self.cfa_expr.push(expr_now);
                I::RememberState
            }
            _ if depth > 0 => {
                self.cfa_expr.pop();
                I::RestoreState
            }
            _ => I::Restore(reg(rng)),
        }
    }
}

/// One random .debug_frame: one CIE, one FDE over [START, START + LEN).
fn section(rng: &mut Rng) -> Vec<u8> {
    let encoding = gimli::Encoding {
        format: gimli::Format::Dwarf32,
        version: [1u16, 3, 4][rng.below(3) as usize],
        address_size: 8,
    };
    let code_align = [1u8, 4][rng.below(2) as usize];
    let data_align = [-4i8, 4, 1][rng.below(3) as usize];
    let mut cie = CommonInformationEntry::new(encoding, code_align, data_align, Register(16));
    cie.add_instruction(I::Cfa(reg(rng), 0));
    let mut g = Gen {
        cfa_expr: vec![false],
    };
    for _ in 0..rng.below(4) {
        let i = g.instruction(rng, data_align);
        // Remember/restore pairs and restores stay in the FDE.
        match i {
            I::RememberState => {
                g.cfa_expr.pop();
            }
            I::RestoreState | I::Restore(_) => {}
            i => cie.add_instruction(i),
        }
    }
    let mut table = FrameTable::default();
    let cie_id = table.add_cie(cie);
    let mut fde = FrameDescriptionEntry::new(Address::Constant(START), LEN);
    let mut at = 0u32;
    for _ in 0..rng.below(24) {
        if rng.below(3) == 0 {
            at += (1 + rng.below(40) as u32) * u32::from(code_align);
        }
        if at >= LEN {
            break;
        }
        let i = g.instruction(rng, data_align);
        fde.add_instruction(at, i);
    }
    table.add_fde(cie_id, fde);
    let mut out = gimli::write::DebugFrame::from(EndianVec::new(LittleEndian));
    table.write_debug_frame(&mut out).expect("gimli writes");
    out.slice().to_vec()
}

/// A rule in a form both sides can be compared in.
#[derive(Debug, PartialEq, Eq, Clone)]
enum R {
    Same,
    Offset(i64),
    ValOffset(i64),
    Register(u64),
    Expr(Vec<u8>),
    ValExpr(Vec<u8>),
}

type Row = (Result<(u64, i64), Vec<u8>>, BTreeMap<u64, R>);

/// The row at `pc` (`Ok(None)`: no FDE covers it; `Err`: an ill-formed program, e.g. a
/// CFA offset change while the CFA is an expression).
fn ours(sec: &[u8], pc: u64) -> Result<Option<Row>, String> {
    let f = DebugFrame::parse(sec, 8).map_err(|e| e.to_string())?;
    let Some(row) = f.row_at(pc).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    let cfa = match row.cfa {
        CfaRule::Register { reg, offset, space } => {
            assert_eq!(space, 0, "no address space in DWARF 5 CFI");
            Ok((reg, offset))
        }
        CfaRule::Expression(e) => Err(e),
    };
    let regs = row
        .registers
        .into_iter()
        .filter_map(|(r, rule)| {
            let v = match rule {
                RegisterRule::Undefined => return None,
                RegisterRule::SameValue => R::Same,
                RegisterRule::Offset(n) => R::Offset(n),
                RegisterRule::ValOffset(n) => R::ValOffset(n),
                RegisterRule::Register(o) => R::Register(o),
                RegisterRule::Expression(e) => R::Expr(e),
                RegisterRule::ValExpression(e) => R::ValExpr(e),
            };
            Some((r, v))
        })
        .collect();
    Ok(Some((cfa, regs)))
}

fn theirs(sec: &[u8], pc: u64) -> Result<Option<Row>, String> {
    let mut df = gimli::DebugFrame::new(sec, LittleEndian);
    df.set_address_size(8);
    let bases = gimli::BaseAddresses::default();
    let mut ctx = gimli::UnwindContext::new();
    let row = match df.unwind_info_for_address(
        &bases,
        &mut ctx,
        pc,
        gimli::DebugFrame::cie_from_offset,
    ) {
        Ok(r) => r,
        Err(gimli::Error::NoUnwindInfoForAddress) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let bytes = |e: &gimli::UnwindExpression<usize>| {
        e.get(&df)
            .expect("expression in section")
            .0
            .slice()
            .to_vec()
    };
    let cfa = match row.cfa() {
        gimli::CfaRule::RegisterAndOffset { register, offset } => {
            Ok((u64::from(register.0), *offset))
        }
        gimli::CfaRule::Expression(e) => Err(bytes(e)),
    };
    let regs = row
        .registers()
        .filter_map(|(r, rule)| {
            let v = match rule {
                gimli::RegisterRule::Undefined => return None,
                gimli::RegisterRule::SameValue => R::Same,
                gimli::RegisterRule::Offset(n) => R::Offset(*n),
                gimli::RegisterRule::ValOffset(n) => R::ValOffset(*n),
                gimli::RegisterRule::Register(o) => R::Register(u64::from(o.0)),
                gimli::RegisterRule::Expression(e) => R::Expr(bytes(e)),
                gimli::RegisterRule::ValExpression(e) => R::ValExpr(bytes(e)),
                other => panic!("rule gimli::write cannot produce here: {other:?}"),
            };
            Some((u64::from(r.0), v))
        })
        .collect();
    Ok(Some((cfa, regs)))
}

#[test]
fn rows_agree_with_gimli() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut rows = 0;
    let mut refused = 0;
    let mut kinds = BTreeMap::<&str, usize>::new();
    for case in 0..3000 {
        let sec = section(&mut rng);
        let pcs = [
            START - 4,
            START,
            START + 0x40,
            START + 0x123,
            START + 0x3fc,
            START + 0x400,
        ];
        for pc in pcs
            .iter()
            .copied()
            .chain((0..4).map(|_| START + rng.below(0x400)))
        {
            let (a, b) = (ours(&sec, pc), theirs(&sec, pc));
            let (a, b) = match (a, b) {
                (Err(_), Err(_)) => {
                    // Both refuse the program (the reasons are worded differently).
                    refused += 1;
                    continue;
                }
                (a, b) => (a, b),
            };
            assert_eq!(
                a, b,
                "case {case}, pc {pc:#x}: amdsim vs gimli\nsection: {sec:02x?}"
            );
            if let Ok(Some((_, regs))) = a {
                rows += 1;
                for r in regs.values() {
                    let k = match r {
                        R::Same => "same",
                        R::Offset(_) => "offset",
                        R::ValOffset(_) => "val_offset",
                        R::Register(_) => "register",
                        R::Expr(_) => "expression",
                        R::ValExpr(_) => "val_expression",
                    };
                    *kinds.entry(k).or_default() += 1;
                }
            }
        }
    }
    eprintln!("{rows} rows compared, {refused} refused by both, rules: {kinds:?}");
    // Every rule kind was exercised, many times.
    assert!(
        rows > 10_000,
        "{rows} rows compared ({refused} refused by both)"
    );
    assert!(
        refused < rows / 4,
        "{refused} refused by both, {rows} compared"
    );
    for k in [
        "same",
        "offset",
        "val_offset",
        "register",
        "expression",
        "val_expression",
    ] {
        assert!(kinds.get(k).copied().unwrap_or(0) > 500, "{k}: {kinds:?}");
    }
}

//! The `.debug_frame` written with the annotation: call frame information from which a
//! consumer unwinds a stopped wave to the frames of its callers, so that the lanes whose
//! `DW_AT_LLVM_lane_pc` element is undefined in a called function (they were not active
//! when it was entered, or they returned from it early) can be found in a caller's
//! `DW_AT_LLVM_lane_pc`, evaluated at the return address minus one (the AMDGPU usage
//! guide: "the debugger may repeatedly unwind the stack").
//!
//! clang-19 writes one FDE per function with no instructions at all (no CFA rule), so
//! nothing can be unwound through its `.debug_frame`. The annotation replaces it with:
//!
//! - one CIE (version 4, code alignment 4, data alignment 4, return address column
//!   `PC_64` = 16) whose CFA rule is LLVM's for AMDGPU,
//!   `DW_CFA_LLVM_def_aspace_cfa SGPR32, 0, DW_ASPACE_AMDGPU_private_wave`;
//! - for a kernel, an FDE that makes the return address undefined: the outermost frame;
//! - for any other function, an FDE that makes every register a call to it may write
//!   undefined in the caller's frame (what the reconstruction also forgets at a call),
//!   and then, for each range of PCs where they stay the same:
//!   - the return address (`DW_CFA_expression 16`): the composite of the two dwords
//!     where the reconstruction found it (`s[30:31]`, or lanes of a VGPR after
//!     `v_writelane`), and undefined where it is not known;
//!   - the caller's EXEC (`DW_CFA_val_expression` of `EXEC_MASK_64` 17 or `EXEC_MASK_32`
//!     1): the EXEC of the call, which is the function's entry mask: its conceptual
//!     active mask together with the masks of its open regions (the lanes waiting in
//!     it and those that returned from it); undefined where the lane model is unknown;
//!   - when the function writes the stack pointer `s32` or the frame pointer `s33`, the
//!     caller's (`DW_CFA_expression` of SGPR32, SGPR33): where the prologue left it (the
//!     entry SP is the new frame pointer; the caller's FP is copied to an SGPR or a lane
//!     of a VGPR), so that the caller's masks spilled to its stack frame can be read.
//!
//! Each CFI expression begins with `DW_OP_drop`: the consumer pushes the CFA first, and
//! these rules do not use it.

use super::{AnnotateError, Exprs};
use crate::regions::{ActiveMask, CALLER_SGPRS, FunctionRegions, LaneModel, Loc};
use amdgpu_dwarf::op::Op;
use amdgpu_dwarf::target::Register;

const DW_CFA_ADVANCE_LOC: u8 = 0x40;
const DW_CFA_ADVANCE_LOC1: u8 = 0x02;
const DW_CFA_ADVANCE_LOC2: u8 = 0x03;
const DW_CFA_ADVANCE_LOC4: u8 = 0x04;
const DW_CFA_UNDEFINED: u8 = 0x07;
const DW_CFA_EXPRESSION: u8 = 0x10;
const DW_CFA_VAL_EXPRESSION: u8 = 0x16;
const DW_CFA_LLVM_DEF_ASPACE_CFA: u8 = 0x30;
/// `DW_ASPACE_AMDGPU_private_wave`.
const PRIVATE_WAVE: u64 = 6;
/// The code alignment factor: every AMDGPU instruction is a multiple of 4 bytes.
const CODE_ALIGN: u64 = 4;

fn uleb(out: &mut Vec<u8>, v: u64) {
    // Writing to a Vec cannot fail.
    let _ = gimli::leb128::write::unsigned(out, v);
}

/// Appends an entry (CIE or FDE) with its length, padded with `DW_CFA_nop` to a multiple
/// of the address size.
fn entry(out: &mut Vec<u8>, body: &[u8]) {
    let mut len = body.len();
    while (4 + len) % 8 != 0 {
        len += 1;
    }
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend_from_slice(body);
    out.resize(out.len() + len - body.len(), 0);
}

/// The DWARF register of a location a call may write, if it has one.
fn dwarf_register(l: Loc, ws: u32) -> Option<u32> {
    match l {
        Loc::Sgpr(n) if n <= 105 => Some(Register::sgpr(u16::from(n))),
        Loc::VgprLane { vgpr, .. } => Some(Register::vgpr(u16::from(vgpr), ws)),
        Loc::AgprLane { agpr, .. } => Some(
            Register::Agpr {
                n: u16::from(agpr),
                wave: ws as u8,
            }
            .dwarf(),
        ),
        _ => None,
    }
}

/// Whether every location of `ops`' masks has a DWARF name.
fn expressible(locs: &[Loc]) -> bool {
    locs.iter().all(|l| match *l {
        Loc::Vcc(_) => false,
        Loc::Sgpr(n) => n <= 105,
        Loc::Scratch { lane, .. } => lane < 64,
        _ => true,
    })
}

/// The rules of one row: the return address location, the caller's EXEC value and the
/// locations of the caller's stack and frame pointers, as encoded expressions (`None`:
/// undefined).
type Rules = (Option<Vec<u8>>, Option<Vec<u8>>, Vec<Option<Vec<u8>>>);

fn rules_at(f: &FunctionRegions, pc: u64, x: &Exprs) -> Result<Rules, AnnotateError> {
    let ra = match f.return_address.get(&pc) {
        Some(&(lo, hi)) if expressible(&[lo, hi]) => {
            let mut ops = vec![Op::Drop];
            ops.extend(x.loc(lo));
            ops.push(Op::Piece(4));
            ops.extend(x.loc(hi));
            ops.push(Op::Piece(4));
            Some(x.bytes(&ops)?)
        }
        _ => None,
    };
    let exec = match f.at(pc) {
        Some(LaneModel::Known { active, regions }) => {
            let mut homes = Vec::new();
            let mut ops = vec![Op::Drop];
            match active {
                ActiveMask::Exec | ActiveMask::ExecMinus(_) => ops.extend(x.exec_value()),
                ActiveMask::Saved(h) | ActiveMask::SavedMinus(h, _) => {
                    homes.push(*h);
                    ops.extend(x.home_value(h));
                }
            }
            for r in regions {
                homes.push(r.home);
                ops.extend(x.home_value(&r.home));
                ops.push(Op::Or);
            }
            let locs: Vec<Loc> = homes
                .iter()
                .flat_map(|h| [Some(h.lo), h.hi])
                .flatten()
                .collect();
            if expressible(&locs) {
                Some(x.bytes(&ops)?)
            } else {
                None
            }
        }
        _ => None,
    };
    let mut sgprs = Vec::new();
    for n in CALLER_SGPRS {
        sgprs.push(match f.caller_sgprs.get(&n).and_then(|m| m.get(&pc)) {
            Some(&l) if expressible(&[l]) => {
                let mut ops = vec![Op::Drop];
                ops.extend(x.loc(l));
                Some(x.bytes(&ops)?)
            }
            _ => None,
        });
    }
    Ok((ra, exec, sgprs))
}

fn advance(out: &mut Vec<u8>, bytes: u64) {
    let d = bytes / CODE_ALIGN;
    if d == 0 {
        return;
    }
    if d < 0x40 {
        out.push(DW_CFA_ADVANCE_LOC | d as u8);
    } else if d <= 0xff {
        out.extend([DW_CFA_ADVANCE_LOC1, d as u8]);
    } else if d <= 0xffff {
        out.push(DW_CFA_ADVANCE_LOC2);
        out.extend_from_slice(&(d as u16).to_le_bytes());
    } else {
        out.push(DW_CFA_ADVANCE_LOC4);
        out.extend_from_slice(&(d as u32).to_le_bytes());
    }
}

fn rule(out: &mut Vec<u8>, op: u8, reg: u32, expr: &Option<Vec<u8>>) {
    match expr {
        Some(e) => {
            out.push(op);
            uleb(out, u64::from(reg));
            uleb(out, e.len() as u64);
            out.extend_from_slice(e);
        }
        None => {
            out.push(DW_CFA_UNDEFINED);
            uleb(out, u64::from(reg));
        }
    }
}

/// The `.debug_frame` section for the functions of a code object; `kernel(start)` tells
/// the kernels; `exprs(start)` builds the expressions of the function at `start`.
pub(super) fn debug_frame<'a>(
    funcs: &[FunctionRegions],
    kernel: impl Fn(u64) -> bool,
    exprs: impl Fn(u64) -> Exprs<'a>,
) -> Result<Vec<u8>, AnnotateError> {
    let mut out = Vec::new();
    let mut cie = Vec::new();
    cie.extend_from_slice(&u32::MAX.to_le_bytes()); // CIE_id
    cie.push(4); // version
    cie.push(0); // augmentation ""
    cie.push(8); // address_size
    cie.push(0); // segment_selector_size
    uleb(&mut cie, CODE_ALIGN);
    cie.push(4); // data_alignment_factor (SLEB 4)
    uleb(&mut cie, u64::from(Register::PC));
    cie.push(DW_CFA_LLVM_DEF_ASPACE_CFA);
    uleb(&mut cie, u64::from(Register::sgpr(32)));
    uleb(&mut cie, 0);
    uleb(&mut cie, PRIVATE_WAVE);
    entry(&mut out, &cie);
    for f in funcs {
        let x = exprs(f.start);
        let exec_reg = if f.wave_size == 32 {
            Register::EXEC32
        } else {
            Register::EXEC64
        };
        let mut fde = Vec::new();
        fde.extend_from_slice(&0u32.to_le_bytes()); // the CIE at offset 0
        fde.extend_from_slice(&f.start.to_le_bytes());
        fde.extend_from_slice(&(f.end - f.start).to_le_bytes());
        if kernel(f.start) {
            fde.push(DW_CFA_UNDEFINED);
            uleb(&mut fde, u64::from(Register::PC));
        } else {
            let mut regs: Vec<u32> = f
                .writes
                .iter()
                .filter_map(|&l| dwarf_register(l, f.wave_size))
                .collect();
            regs.sort_unstable();
            regs.dedup();
            for r in regs {
                fde.push(DW_CFA_UNDEFINED);
                uleb(&mut fde, u64::from(r));
            }
            let mut loc = f.start;
            let mut last: Option<Rules> = None;
            for &pc in f.models.keys() {
                let rules = rules_at(f, pc, &x)?;
                if last.as_ref() == Some(&rules) {
                    continue;
                }
                advance(&mut fde, pc - loc);
                loc = pc;
                rule(&mut fde, DW_CFA_EXPRESSION, Register::PC, &rules.0);
                rule(&mut fde, DW_CFA_VAL_EXPRESSION, exec_reg, &rules.1);
                for (n, e) in CALLER_SGPRS.iter().zip(&rules.2) {
                    if f.writes.contains(&Loc::Sgpr(*n)) {
                        rule(
                            &mut fde,
                            DW_CFA_EXPRESSION,
                            Register::sgpr(u16::from(*n)),
                            e,
                        );
                    }
                }
                last = Some(rules);
            }
        }
        entry(&mut out, &fde);
    }
    Ok(out)
}

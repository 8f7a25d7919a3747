//! Scalar handlers: resolving SOP1, SOP2, SOPC, SOPK and the branches of
//! SOPP, and running them.

use super::*;

/// A scalar source (`s32`'s reading).
pub(super) fn ssrc(op: &Operand) -> Option<Src> {
    match *op {
        Operand::Vgpr { .. } => None,
        Operand::Imm(v) => Some(Src::K(v as u32)),
        _ => src(op),
    }
}

/// A 64-bit scalar destination that `set64` / `set32` write without fail:
/// an SGPR pair in the file, VCC or EXEC.
pub(super) fn sdst64(op: &Operand) -> Option<Operand> {
    match *op {
        Operand::Sgpr { index, .. } if (index as usize) + 2 <= crate::wave::NUM_SGPRS => Some(*op),
        Operand::Special {
            reg: SpecialReg::Vcc | SpecialReg::Exec,
            ..
        } => Some(*op),
        _ => None,
    }
}

/// A 64-bit scalar source (read with `s64`, or `read_mask` for saveexec).
pub(super) fn ssrc64(op: &Operand) -> Option<Operand> {
    match *op {
        Operand::Vgpr { .. } | Operand::Agpr { .. } | Operand::None => None,
        _ => Some(*op),
    }
}

/// Writes 64 bits to a scalar destination as `set64` does (checked by
/// [`sdst64`], so it cannot fail).
#[inline(always)]
pub(super) fn set64(w: &mut Wave, d: &Operand, v: u64) {
    let ok = w.write_sdword(d, 0, v as u32) && w.write_sdword(d, 1, (v >> 32) as u32);
    debug_assert!(ok, "64-bit scalar destination {d}");
}

pub(super) fn resolve_scalar(i: &Inst, pc: u64, program: &Program) -> Option<Entry> {
    use Kind::*;
    let Op::Alu(op) = i.op else {
        return None;
    };
    let m = &i.alu;
    let k = *super::super::tables().alu.get(op.0 as usize)?;
    let sgpr_dst = || match i.dst[0] {
        Operand::Sgpr { index, .. } if (index as usize) < crate::wave::NUM_SGPRS => Some(index),
        _ => None,
    };
    let fast = match (m.form, k) {
        (AluForm::Sopp, SWait) if op == amdgpu_isa::alu::ops::S_SLEEP => Fast::Sleep,
        (AluForm::Sopp, SNop | SWait) => Fast::Nop,
        (AluForm::Sopp, SEndpgm) => Fast::Endpgm,
        (AluForm::Sopp, SBarrier) => Fast::Barrier,
        (AluForm::Sopk, SMovkI32) => {
            let Operand::Imm(v) = i.src[0] else {
                return None;
            };
            Fast::SMov {
                d: sgpr_dst()?,
                a: Src::K(v as i16 as i32 as u32),
            }
        }
        (
            AluForm::Sopp,
            SBranch | SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz
            | SCbranchExecnz,
        ) => {
            let Operand::Imm(v) = i.src[0] else {
                return None;
            };
            let target = pc.wrapping_add(4).wrapping_add_signed(v as i16 as i64 * 4);
            // A branch to no instruction is reported by the general executor.
            program.at(target)?;
            let cond = match k {
                SBranch => Cond::Always,
                SCbranchScc0 => Cond::Scc0,
                SCbranchScc1 => Cond::Scc1,
                SCbranchVccz => Cond::Vccz,
                SCbranchVccnz => Cond::Vccnz,
                SCbranchExecz => Cond::Execz,
                _ => Cond::Execnz,
            };
            Fast::Branch { cond, target }
        }
        (AluForm::Sop1, SMovB64) => Fast::S64 {
            op: L64::Mov,
            d: sdst64(&i.dst[0])?,
            a: ssrc64(&i.src[0])?,
            b: Operand::None,
        },
        (
            AluForm::Sop2,
            SAndB64 | SOrB64 | SXorB64 | SAndn2B64 | SOrn2B64 | SLshlB64 | SLshrB64 | SAshrI64
            | SCselectB64,
        ) => Fast::S64 {
            op: match k {
                SAndB64 => L64::And,
                SOrB64 => L64::Or,
                SXorB64 => L64::Xor,
                SAndn2B64 => L64::Andn2,
                SLshlB64 => L64::Lshl,
                SLshrB64 => L64::Lshr,
                SAshrI64 => L64::Ashr,
                SCselectB64 => L64::Cselect,
                _ => L64::Orn2,
            },
            d: sdst64(&i.dst[0])?,
            a: ssrc64(&i.src[0])?,
            b: ssrc64(&i.src[1])?,
        },
        (
            AluForm::Sop1,
            SAndSaveexec | SOrSaveexec | SXorSaveexec | SAndn2Saveexec | SOrn2Saveexec,
        ) => Fast::Saveexec {
            op: match k {
                SAndSaveexec => SaveExec::And,
                SOrSaveexec => SaveExec::Or,
                SXorSaveexec => SaveExec::Xor,
                SAndn2Saveexec => SaveExec::Andn2,
                _ => SaveExec::Orn2,
            },
            d: sdst64(&i.dst[0])?,
            s: ssrc64(&i.src[0])?,
        },
        (AluForm::Sop1, SMovB32) => Fast::SMov {
            d: sgpr_dst()?,
            a: ssrc(&i.src[0])?,
        },
        (
            AluForm::Sop2,
            SAddU32 | SSubU32 | SAddcU32 | SSubbU32 | SCselectB32 | SAddI32 | SSubI32 | SAndB32
            | SOrB32 | SXorB32 | SLshlB32 | SLshrB32 | SAshrI32 | SMulI32,
        ) => Fast::S2 {
            op: match k {
                SAddU32 => S2::AddU,
                SSubU32 => S2::SubU,
                SAddcU32 => S2::AddC,
                SSubbU32 => S2::SubB,
                SCselectB32 => S2::Cselect,
                SAddI32 => S2::AddI,
                SSubI32 => S2::SubI,
                SAndB32 => S2::And,
                SOrB32 => S2::Or,
                SXorB32 => S2::Xor,
                SLshlB32 => S2::Lshl,
                SLshrB32 => S2::Lshr,
                SAshrI32 => S2::Ashr,
                _ => S2::MulI,
            },
            d: sgpr_dst()?,
            a: ssrc(&i.src[0])?,
            b: ssrc(&i.src[1])?,
        },
        (
            AluForm::Sopc,
            SCmpEqU32 | SCmpLgU32 | SCmpGtI32 | SCmpGeI32 | SCmpLtI32 | SCmpLeI32 | SCmpGtU32
            | SCmpGeU32 | SCmpLtU32 | SCmpLeU32,
        ) => Fast::SCmp {
            op: match k {
                SCmpEqU32 => SCmp::Eq,
                SCmpLgU32 => SCmp::Lg,
                SCmpGtI32 => SCmp::GtI,
                SCmpGeI32 => SCmp::GeI,
                SCmpLtI32 => SCmp::LtI,
                SCmpLeI32 => SCmp::LeI,
                SCmpGtU32 => SCmp::GtU,
                SCmpGeU32 => SCmp::GeU,
                SCmpLtU32 => SCmp::LtU,
                _ => SCmp::LeU,
            },
            a: ssrc(&i.src[0])?,
            b: ssrc(&i.src[1])?,
        },
        _ => return None,
    };
    Some(Entry {
        fast,
        vmax: 0,
        size: i.size,
        vector: false,
        mem: false,
    })
}

/// A scalar handler: `Some(Some(target))` for a branch taken,
/// `Some(None)` to go on, `None` when the general executor must run it
/// (the wave unchanged).
#[inline(always)]
pub(super) fn run_scalar(f: &Fast, w: &mut Wave) -> Option<Option<u64>> {
    let read = |w: &Wave, s: &Src| -> Option<u32> {
        match *s {
            Src::S(r) => w.sgpr.get(r as usize).copied(),
            Src::K(k) => Some(k),
            Src::Other(op) => s32(w, &op).ok(),
            Src::V(_) => None,
        }
    };
    match *f {
        Fast::Nop => {}
        Fast::Sleep => w.slept = true,
        Fast::SMov { d, a } => {
            let v = read(w, &a)?;
            *w.sgpr.get_mut(d as usize)? = v;
        }
        Fast::S2 { op, d, a, b } => {
            let (a, b) = (read(w, &a)?, read(w, &b)?);
            let (r, scc) = match op {
                S2::AddU => {
                    let (r, c) = a.overflowing_add(b);
                    (r, Some(c))
                }
                S2::SubU => {
                    let (r, c) = a.overflowing_sub(b);
                    (r, Some(c))
                }
                S2::AddC => {
                    let r = u64::from(a) + u64::from(b) + u64::from(w.scc);
                    (r as u32, Some(r >> 32 != 0))
                }
                S2::SubB => {
                    let bb = u64::from(b) + u64::from(w.scc);
                    (
                        u64::from(a).wrapping_sub(bb) as u32,
                        Some(bb > u64::from(a)),
                    )
                }
                S2::Cselect => {
                    *w.sgpr.get_mut(d as usize)? = if w.scc { a } else { b };
                    return Some(None);
                }
                S2::AddI => {
                    let (r, o) = (a as i32).overflowing_add(b as i32);
                    (r as u32, Some(o))
                }
                S2::SubI => {
                    let (r, o) = (a as i32).overflowing_sub(b as i32);
                    (r as u32, Some(o))
                }
                S2::And => (a & b, None),
                S2::Or => (a | b, None),
                S2::Xor => (a ^ b, None),
                S2::Lshl => (a << (b & 31), None),
                S2::Lshr => (a >> (b & 31), None),
                S2::Ashr => (((a as i32) >> (b & 31)) as u32, None),
                S2::MulI => {
                    *w.sgpr.get_mut(d as usize)? = a.wrapping_mul(b);
                    return Some(None);
                }
            };
            *w.sgpr.get_mut(d as usize)? = r;
            // The logical and shift operations set SCC to "result != 0".
            w.scc = scc.unwrap_or(r != 0);
        }
        Fast::SCmp { op, a, b } => {
            let (a, b) = (read(w, &a)?, read(w, &b)?);
            let (ia, ib) = (a as i32, b as i32);
            w.scc = match op {
                SCmp::Eq => a == b,
                SCmp::Lg => a != b,
                SCmp::GtI => ia > ib,
                SCmp::GeI => ia >= ib,
                SCmp::LtI => ia < ib,
                SCmp::LeI => ia <= ib,
                SCmp::GtU => a > b,
                SCmp::GeU => a >= b,
                SCmp::LtU => a < b,
                SCmp::LeU => a <= b,
            };
        }
        Fast::S64 { op, d, a, b } => {
            let a = super::super::operand::s64(w, &a).ok()?;
            if op == L64::Mov {
                set64(w, &d, a);
                return Some(None);
            }
            let b = super::super::operand::s64(w, &b).ok()?;
            let r = match op {
                L64::And => a & b,
                L64::Or => a | b,
                L64::Xor => a ^ b,
                L64::Andn2 => a & !b,
                L64::Lshl => a << (b & 63),
                L64::Lshr => a >> (b & 63),
                L64::Ashr => ((a as i64) >> (b & 63)) as u64,
                L64::Cselect => {
                    set64(w, &d, if w.scc { a } else { b });
                    return Some(None);
                }
                _ => a | !b,
            };
            set64(w, &d, r);
            w.scc = r != 0;
        }
        Fast::Saveexec { op, d, s } => {
            let src = match w.read_mask(&s) {
                Some(m) => m,
                None => super::super::operand::s64(w, &s).ok()?,
            };
            let old = w.exec.0;
            let new = match op {
                SaveExec::And => src & old,
                SaveExec::Or => src | old,
                SaveExec::Xor => src ^ old,
                SaveExec::Andn2 => src & !old,
                SaveExec::Orn2 => src | !old,
            } & w.full_mask();
            if w.size == 64 {
                set64(w, &d, old);
            } else {
                let ok = w.write_sdword(&d, 0, old as u32);
                debug_assert!(ok, "scalar destination {d}");
            }
            w.exec = crate::wave::Mask(new);
            w.scc = new != 0;
        }
        Fast::Endpgm => w.status = crate::wave::WaveStatus::Done,
        Fast::Barrier => w.status = crate::wave::WaveStatus::Barrier,
        Fast::Branch { cond, target } => {
            let full = w.full_mask();
            let take = match cond {
                Cond::Always => true,
                Cond::Scc0 => !w.scc,
                Cond::Scc1 => w.scc,
                Cond::Vccz => w.vcc.0 & full == 0,
                Cond::Vccnz => w.vcc.0 & full != 0,
                Cond::Execz => w.exec.0 & full == 0,
                Cond::Execnz => w.exec.0 & full != 0,
            };
            return Some(take.then_some(target));
        }
        _ => return None,
    }
    Some(None)
}

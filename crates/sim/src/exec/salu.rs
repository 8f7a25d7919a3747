//! Scalar ALU and program control: SOP1, SOP2, SOPK, SOPC, SOPP
//! (Vega ISA §4-5, RDNA ISA §4-5).

use super::operand::{s32, s64, set32, set64};
use super::{Ctx, E, Kind, R, unsupported};
use crate::wave::{Mask, Wave, WaveStatus};
use amdgpu_isa::{Inst, Operand};

fn imm16(i: &Inst) -> i32 {
    match i.src[0] {
        Operand::Imm(v) => v as i16 as i32,
        _ => 0,
    }
}

/// The branch target of a SOPP branch at `pc`: PC + 4 + simm16 * 4.
fn target(i: &Inst, pc: u64) -> u64 {
    pc.wrapping_add(4).wrapping_add_signed(imm16(i) as i64 * 4)
}

fn bfe32(v: u32, ctl: u32, signed: bool) -> u32 {
    let off = ctl & 31;
    let width = (ctl >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let sh = v >> off;
    if width >= 32 {
        return sh;
    }
    let m = sh & ((1u32 << width) - 1);
    if signed && (m >> (width - 1)) & 1 == 1 {
        m | !((1u32 << width) - 1)
    } else {
        m
    }
}

fn bfe64(v: u64, ctl: u32, signed: bool) -> u64 {
    let off = ctl & 63;
    let width = (ctl >> 16) & 0x7f;
    if width == 0 {
        return 0;
    }
    let sh = v >> off;
    if width >= 64 {
        return sh;
    }
    let m = sh & ((1u64 << width) - 1);
    if signed && (m >> (width - 1)) & 1 == 1 {
        m | !((1u64 << width) - 1)
    } else {
        m
    }
}

/// Executes a scalar instruction.
#[allow(clippy::redundant_closure_call)]
pub(crate) fn exec(k: Kind, w: &mut Wave, i: &Inst, pc: u64, ctx: &Ctx) -> R {
    use Kind::*;
    let d = i.dst[0];
    let wave64 = w.size == 64;
    // Two-source 32-bit ops with SCC = result != 0.
    macro_rules! op2 {
        ($f:expr) => {{
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let f: fn(u32, u32) -> u32 = $f;
            let r = f(a, b);
            set32(w, &d, r)?;
            w.scc = r != 0;
        }};
    }
    macro_rules! op2_64 {
        ($f:expr) => {{
            let (a, b) = (s64(w, &i.src[0])?, s64(w, &i.src[1])?);
            let f: fn(u64, u64) -> u64 = $f;
            let r = f(a, b);
            set64(w, &d, r)?;
            w.scc = r != 0;
        }};
    }
    macro_rules! cmp {
        ($f:expr) => {{
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let f: fn(u32, u32) -> bool = $f;
            w.scc = f(a, b);
        }};
    }
    macro_rules! cmpk {
        ($f:expr) => {{
            let a = s32(w, &d)?;
            let f: fn(u32, i32) -> bool = $f;
            w.scc = f(a, imm16(i));
        }};
    }
    macro_rules! saveexec {
        ($f:expr) => {{
            let s = w
                .read_mask(&i.src[0])
                .map_or_else(|| s64(w, &i.src[0]), Ok)?;
            let old = w.exec.0;
            let f: fn(u64, u64) -> u64 = $f;
            let new = f(s, old) & w.full_mask();
            if wave64 {
                set64(w, &d, old)?;
            } else {
                set32(w, &d, old as u32)?;
            }
            w.exec = Mask(new);
            w.scc = new != 0;
        }};
    }
    match k {
        SNop | SWait | SCodeEnd => {}
        SEndpgm => w.status = WaveStatus::Done,
        // Bit 0 set halts the wave (cleared: resume, a no-op for a running
        // wave); nothing here can resume it, so the halt is reported.
        SSethalt if imm16(i) & 1 != 0 => return Err(E::Halt),
        SSethalt => {}
        // Vega ISA S_SETKILL: "set KILL bit to value of SIMM16[0]", for the
        // host's kill-wave command; setting it is not modelled.
        SSetkill if imm16(i) & 1 != 0 => return unsupported("s_setkill 1 (killing the wave)"),
        SSetkill => {}
        // Vega ISA S_SETVSKIP: VSKIP = S0[S1[4:0]]; while set, vector
        // instructions are skipped, which is not modelled.
        SSetvskip => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            if (a >> (b & 31)) & 1 != 0 {
                return unsupported("s_setvskip setting VSKIP (skipping vector instructions)");
            }
        }
        SSendmsg | SSendmsghalt => {
            // Message id SIMM16[3:0] (Vega / RDNA ISA, "SEND MESSAGE"): only
            // MSG_SAVEWAVE (4) and MSG_STALL_WAVE_GEN (5) leave nothing a
            // compute program can observe; the others (interrupts to the
            // host, geometry-shader messages, halting other waves, doorbell
            // and system messages) are reported.
            let id = imm16(i) as u32 & 0xf;
            if !matches!(id, 4 | 5) {
                let name = match id {
                    1 => "MSG_INTERRUPT",
                    2 => "MSG_GS",
                    3 => "MSG_GS_DONE",
                    6 => "MSG_HALT_WAVES",
                    7 => "MSG_ORDERED_PS_DONE",
                    8 => "MSG_EARLY_PRIM_DEALLOC",
                    9 => "MSG_GS_ALLOC_REQ",
                    10 => "MSG_GET_DOORBELL",
                    11 => "MSG_GET_DDID",
                    15 => "MSG_SYSMSG",
                    _ => "a reserved message",
                };
                return unsupported(format!("s_sendmsg of message {id} ({name})"));
            }
            if k == SSendmsghalt {
                return Err(E::Halt);
            }
        }
        STrap => return Err(E::Trap((imm16(i) & 0xff) as u8)),
        SBarrier => {
            // A barrier in a single-wave group is a no-op; otherwise the
            // scheduler releases the wave when the group arrives.
            w.status = WaveStatus::Barrier;
        }
        SBranch => w.pc = target(i, pc),
        // Not taken: the debug flags are clear (nothing here sets them).
        SCbranchCdbg => {}
        // RDNA ISA, SOPP: MODE.FP_ROUND / MODE.FP_DENORM = SIMM16[3:0].
        SRoundMode | SDenormMode => {
            let shift = if k == SRoundMode { 0 } else { 4 };
            let v = imm16(i) as u32 & 0xf;
            w.hwreg[1] = (w.hwreg[1] & !(0xf << shift)) | v << shift;
        }
        SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz
        | SCbranchExecnz => {
            let full = w.full_mask();
            let take = match k {
                SCbranchScc0 => !w.scc,
                SCbranchScc1 => w.scc,
                SCbranchVccz => w.vcc.0 & full == 0,
                SCbranchVccnz => w.vcc.0 & full != 0,
                SCbranchExecz => w.exec.0 & full == 0,
                _ => w.exec.0 & full != 0,
            };
            if take {
                w.pc = target(i, pc);
            }
        }
        // ---------------------------------------------------------- SOP1
        SMovB32 => {
            let v = s32(w, &i.src[0])?;
            set32(w, &d, v)?;
        }
        SMovB64 => {
            let v = s64(w, &i.src[0])?;
            set64(w, &d, v)?;
        }
        SCmovB32 => {
            if w.scc {
                let v = s32(w, &i.src[0])?;
                set32(w, &d, v)?;
            }
        }
        SCmovB64 => {
            if w.scc {
                let v = s64(w, &i.src[0])?;
                set64(w, &d, v)?;
            }
        }
        SNotB32 => {
            let r = !s32(w, &i.src[0])?;
            set32(w, &d, r)?;
            w.scc = r != 0;
        }
        SNotB64 => {
            let r = !s64(w, &i.src[0])?;
            set64(w, &d, r)?;
            w.scc = r != 0;
        }
        SBrevB32 => {
            let r = s32(w, &i.src[0])?.reverse_bits();
            set32(w, &d, r)?;
        }
        SBrevB64 => {
            let r = s64(w, &i.src[0])?.reverse_bits();
            set64(w, &d, r)?;
        }
        SBcnt0B32 | SBcnt1B32 | SBcnt0B64 | SBcnt1B64 => {
            let r = match k {
                SBcnt0B32 => s32(w, &i.src[0])?.count_zeros(),
                SBcnt1B32 => s32(w, &i.src[0])?.count_ones(),
                SBcnt0B64 => s64(w, &i.src[0])?.count_zeros(),
                _ => s64(w, &i.src[0])?.count_ones(),
            };
            set32(w, &d, r)?;
            w.scc = r != 0;
        }
        SFf0B32 | SFf1B32 | SFf0B64 | SFf1B64 | SFlbitB32 | SFlbitB64 | SFlbitI32 | SFlbitI64 => {
            // -1 when no bit is found (Vega ISA, SOP1).
            let r: i32 = match k {
                SFf0B32 => tz(!s32(w, &i.src[0])? as u64, 32),
                SFf1B32 => tz(s32(w, &i.src[0])? as u64, 32),
                SFf0B64 => tz(!s64(w, &i.src[0])?, 64),
                SFf1B64 => tz(s64(w, &i.src[0])?, 64),
                SFlbitB32 => crate::alu::ffbh_u32(s32(w, &i.src[0])?) as i32,
                SFlbitB64 => crate::alu::ffbh_u64(s64(w, &i.src[0])?) as i32,
                SFlbitI64 => crate::alu::ffbh_i64(s64(w, &i.src[0])?) as i32,
                _ => crate::alu::ffbh_i32(s32(w, &i.src[0])?) as i32,
            };
            set32(w, &d, r as u32)?;
        }
        SSextI8 => {
            let r = s32(w, &i.src[0])? as i8 as i32 as u32;
            set32(w, &d, r)?;
        }
        SSextI16 => {
            let r = s32(w, &i.src[0])? as i16 as i32 as u32;
            set32(w, &d, r)?;
        }
        SAbsI32 => {
            let r = (s32(w, &i.src[0])? as i32).wrapping_abs() as u32;
            set32(w, &d, r)?;
            w.scc = r != 0;
        }
        SBitset0B32 | SBitset1B32 => {
            let b = s32(w, &i.src[0])? & 31;
            let v = s32(w, &d)?;
            let r = if k == SBitset0B32 {
                v & !(1 << b)
            } else {
                v | (1 << b)
            };
            set32(w, &d, r)?;
        }
        SBitset0B64 | SBitset1B64 => {
            let b = s32(w, &i.src[0])? & 63;
            let v = s64(w, &d)?;
            let r = if k == SBitset0B64 {
                v & !(1 << b)
            } else {
                v | (1 << b)
            };
            set64(w, &d, r)?;
        }
        // Per quad of lanes (four bits): QUADMASK sets one result bit when any
        // bit of the quad is set, WQM sets all four. SCC = result != 0.
        SQuadmaskB32 | SQuadmaskB64 | SWqmB32 | SWqmB64 => {
            let wide = matches!(k, SQuadmaskB64 | SWqmB64);
            let v = if wide {
                s64(w, &i.src[0])?
            } else {
                s32(w, &i.src[0])? as u64
            };
            let quads = if wide { 16 } else { 8 };
            let mut r = 0u64;
            for q in 0..quads {
                if (v >> (4 * q)) & 0xf != 0 {
                    r |= if matches!(k, SQuadmaskB32 | SQuadmaskB64) {
                        1 << q
                    } else {
                        0xf << (4 * q)
                    };
                }
            }
            if wide {
                set64(w, &d, r)?;
            } else {
                set32(w, &d, r as u32)?;
            }
            w.scc = r != 0;
        }
        // D.u64[2i] = D.u64[2i+1] = S0.u32[i].
        SBitreplicate => {
            let v = s32(w, &i.src[0])?;
            let mut r = 0u64;
            for b in 0..32 {
                if (v >> b) & 1 != 0 {
                    r |= 3 << (2 * b);
                }
            }
            set64(w, &d, r)?;
        }
        SMovrelsB32 | SMovrelsB64 | SMovreldB32 | SMovreldB64 => {
            // SGPR indexing with M0 (Vega ISA, SOP1 `s_movrels`/`s_movreld`).
            let m0 = w.m0 as i32;
            let shift = |op: &Operand| match *op {
                Operand::Sgpr { index, count } => {
                    let r = index as i32 + m0;
                    if r < 0 || r as usize + count as usize > crate::wave::NUM_SGPRS {
                        None
                    } else {
                        Some(Operand::Sgpr {
                            index: r as u8,
                            count,
                        })
                    }
                }
                _ => None,
            };
            let rels = matches!(k, SMovrelsB32 | SMovrelsB64);
            let (src, dst) = if rels {
                (shift(&i.src[0]), Some(d))
            } else {
                (Some(i.src[0]), shift(&d))
            };
            let (Some(src), Some(dst)) = (src, dst) else {
                return unsupported(format!("s_movrel outside the SGPRs (M0 = {m0})"));
            };
            if matches!(k, SMovrelsB32 | SMovreldB32) {
                let v = s32(w, &src)?;
                set32(w, &dst, v)?;
            } else {
                let v = s64(w, &src)?;
                set64(w, &dst, v)?;
            }
        }
        SMovrelsd2B32 => {
            // RDNA ISA: SGPR[D + M0[25:16]] = SGPR[S0 + M0[9:0]].
            let at = |op: &Operand, by: u32| match *op {
                Operand::Sgpr { index, count } => {
                    let r = index as usize + by as usize;
                    (r + count as usize <= crate::wave::NUM_SGPRS).then_some(Operand::Sgpr {
                        index: r as u8,
                        count,
                    })
                }
                _ => None,
            };
            let (Some(src), Some(dst)) =
                (at(&i.src[0], w.m0 & 0x3ff), at(&d, (w.m0 >> 16) & 0x3ff))
            else {
                return unsupported(format!(
                    "s_movrelsd_2_b32 outside the SGPRs (M0 = {:#x})",
                    w.m0
                ));
            };
            let v = s32(w, &src)?;
            set32(w, &dst, v)?;
        }
        SGetpc => set64(w, &d, pc.wrapping_add(4))?,
        SSetpc => w.pc = s64(w, &i.src[0])?,
        SSwappc => {
            let t = s64(w, &i.src[0])?;
            set64(w, &d, pc.wrapping_add(4))?;
            w.pc = t;
        }
        SAndSaveexec => saveexec!(|s, e| s & e),
        SOrSaveexec => saveexec!(|s, e| s | e),
        SXorSaveexec => saveexec!(|s, e| s ^ e),
        SAndn2Saveexec => saveexec!(|s, e| s & !e),
        SOrn2Saveexec => saveexec!(|s, e| s | !e),
        SNandSaveexec => saveexec!(|s, e| !(s & e)),
        SNorSaveexec => saveexec!(|s, e| !(s | e)),
        SXnorSaveexec => saveexec!(|s, e| !(s ^ e)),
        SAndn1Saveexec => saveexec!(|s, e| !s & e),
        SOrn1Saveexec => saveexec!(|s, e| !s | e),
        SAndn1Wrexec | SAndn2Wrexec => {
            let s = w
                .read_mask(&i.src[0])
                .map_or_else(|| s64(w, &i.src[0]), Ok)?;
            let e = w.exec.0;
            let r = if k == SAndn1Wrexec { !s & e } else { s & !e } & w.full_mask();
            w.exec = Mask(r);
            if wave64 {
                set64(w, &d, r)?;
            } else {
                set32(w, &d, r as u32)?;
            }
            w.scc = r != 0;
        }
        // ---------------------------------------------------------- SOP2
        SAddU32 => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let (r, c) = a.overflowing_add(b);
            set32(w, &d, r)?;
            w.scc = c;
        }
        SSubU32 => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let (r, c) = a.overflowing_sub(b);
            set32(w, &d, r)?;
            w.scc = c;
        }
        SAddcU32 => {
            let (a, b) = (s32(w, &i.src[0])? as u64, s32(w, &i.src[1])? as u64);
            let r = a + b + w.scc as u64;
            set32(w, &d, r as u32)?;
            w.scc = r >> 32 != 0;
        }
        SSubbU32 => {
            let (a, b) = (s32(w, &i.src[0])? as u64, s32(w, &i.src[1])? as u64);
            let bb = b + w.scc as u64;
            set32(w, &d, a.wrapping_sub(bb) as u32)?;
            w.scc = bb > a;
        }
        SAddI32 | SSubI32 => {
            let (a, b) = (s32(w, &i.src[0])? as i32, s32(w, &i.src[1])? as i32);
            let (r, o) = if k == SAddI32 {
                a.overflowing_add(b)
            } else {
                a.overflowing_sub(b)
            };
            set32(w, &d, r as u32)?;
            w.scc = o;
        }
        SMinI32 | SMaxI32 | SMinU32 | SMaxU32 => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let (r, first) = match k {
                SMinI32 => ((a as i32).min(b as i32) as u32, (a as i32) < (b as i32)),
                SMaxI32 => ((a as i32).max(b as i32) as u32, (a as i32) > (b as i32)),
                SMinU32 => (a.min(b), a < b),
                _ => (a.max(b), a > b),
            };
            set32(w, &d, r)?;
            w.scc = first;
        }
        SCselectB32 => {
            let v = if w.scc {
                s32(w, &i.src[0])?
            } else {
                s32(w, &i.src[1])?
            };
            set32(w, &d, v)?;
        }
        SCselectB64 => {
            let v = if w.scc {
                s64(w, &i.src[0])?
            } else {
                s64(w, &i.src[1])?
            };
            set64(w, &d, v)?;
        }
        SAndB32 => op2!(|a, b| a & b),
        SOrB32 => op2!(|a, b| a | b),
        SXorB32 => op2!(|a, b| a ^ b),
        SAndn2B32 => op2!(|a, b| a & !b),
        SOrn2B32 => op2!(|a, b| a | !b),
        SNandB32 => op2!(|a, b| !(a & b)),
        SNorB32 => op2!(|a, b| !(a | b)),
        SXnorB32 => op2!(|a, b| !(a ^ b)),
        SAndB64 => op2_64!(|a, b| a & b),
        SOrB64 => op2_64!(|a, b| a | b),
        SXorB64 => op2_64!(|a, b| a ^ b),
        SAndn2B64 => op2_64!(|a, b| a & !b),
        SOrn2B64 => op2_64!(|a, b| a | !b),
        SNandB64 => op2_64!(|a, b| !(a & b)),
        SNorB64 => op2_64!(|a, b| !(a | b)),
        SXnorB64 => op2_64!(|a, b| !(a ^ b)),
        SLshlB32 => op2!(|a, b| a << (b & 31)),
        SLshrB32 => op2!(|a, b| a >> (b & 31)),
        SAshrI32 => op2!(|a, b| ((a as i32) >> (b & 31)) as u32),
        SLshlB64 => op2_64!(|a, b| a << (b & 63)),
        SLshrB64 => op2_64!(|a, b| a >> (b & 63)),
        SAshrI64 => op2_64!(|a, b| ((a as i64) >> (b & 63)) as u64),
        SBfmB32 => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let m = 1u32.checked_shl(a & 31).map_or(0, |v| v.wrapping_sub(1));
            set32(w, &d, m << (b & 31))?;
        }
        SBfmB64 => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let m = 1u64.checked_shl(a & 63).map_or(0, |v| v.wrapping_sub(1));
            set64(w, &d, m << (b & 63))?;
        }
        SMulI32 => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            set32(w, &d, a.wrapping_mul(b))?;
        }
        SMulHiU32 => {
            let (a, b) = (s32(w, &i.src[0])? as u64, s32(w, &i.src[1])? as u64);
            set32(w, &d, ((a * b) >> 32) as u32)?;
        }
        SMulHiI32 => {
            let (a, b) = (
                s32(w, &i.src[0])? as i32 as i64,
                s32(w, &i.src[1])? as i32 as i64,
            );
            set32(w, &d, ((a * b) >> 32) as u32)?;
        }
        SBfeU32 | SBfeI32 => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let r = bfe32(a, b, k == SBfeI32);
            set32(w, &d, r)?;
            w.scc = r != 0;
        }
        SBfeU64 | SBfeI64 => {
            let (a, b) = (s64(w, &i.src[0])?, s32(w, &i.src[1])?);
            let r = bfe64(a, b, k == SBfeI64);
            set64(w, &d, r)?;
            w.scc = r != 0;
        }
        SAbsdiffI32 => op2!(|a, b| (a as i32).wrapping_sub(b as i32).wrapping_abs() as u32),
        SLshl1Add | SLshl2Add | SLshl3Add | SLshl4Add => {
            let sh = match k {
                SLshl1Add => 1,
                SLshl2Add => 2,
                SLshl3Add => 3,
                _ => 4,
            };
            let (a, b) = (s32(w, &i.src[0])? as u64, s32(w, &i.src[1])? as u64);
            let r = ((a << sh) & 0xffff_ffff) + b;
            set32(w, &d, r as u32)?;
            w.scc = r >> 32 != 0 || (a << sh) >> 32 != 0;
        }
        SPackLl | SPackLh | SPackHh => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let r = match k {
                SPackLl => (a & 0xffff) | (b << 16),
                SPackLh => (a & 0xffff) | (b & 0xffff_0000),
                _ => (a >> 16) | (b & 0xffff_0000),
            };
            set32(w, &d, r)?;
        }
        // ---------------------------------------------------------- SOPC
        SCmpEqU32 => cmp!(|a, b| a == b),
        SCmpLgU32 => cmp!(|a, b| a != b),
        SCmpGtI32 => cmp!(|a, b| (a as i32) > (b as i32)),
        SCmpGeI32 => cmp!(|a, b| (a as i32) >= (b as i32)),
        SCmpLtI32 => cmp!(|a, b| (a as i32) < (b as i32)),
        SCmpLeI32 => cmp!(|a, b| (a as i32) <= (b as i32)),
        SCmpGtU32 => cmp!(|a, b| a > b),
        SCmpGeU32 => cmp!(|a, b| a >= b),
        SCmpLtU32 => cmp!(|a, b| a < b),
        SCmpLeU32 => cmp!(|a, b| a <= b),
        SCmpEqU64 | SCmpLgU64 => {
            let (a, b) = (s64(w, &i.src[0])?, s64(w, &i.src[1])?);
            w.scc = (a == b) == (k == SCmpEqU64);
        }
        SBitcmp0B32 | SBitcmp1B32 => {
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            w.scc = ((a >> (b & 31)) & 1 == 1) == (k == SBitcmp1B32);
        }
        SBitcmp0B64 | SBitcmp1B64 => {
            let (a, b) = (s64(w, &i.src[0])?, s32(w, &i.src[1])?);
            w.scc = ((a >> (b & 63)) & 1 == 1) == (k == SBitcmp1B64);
        }
        // ---------------------------------------------------------- SOPK
        SMovkI32 => set32(w, &d, imm16(i) as u32)?,
        SCmovkI32 => {
            if w.scc {
                set32(w, &d, imm16(i) as u32)?;
            }
        }
        SAddkI32 => {
            let a = s32(w, &d)? as i32;
            let (r, o) = a.overflowing_add(imm16(i));
            set32(w, &d, r as u32)?;
            w.scc = o;
        }
        SMulkI32 => {
            let a = s32(w, &d)? as i32;
            set32(w, &d, a.wrapping_mul(imm16(i)) as u32)?;
        }
        SCmpkEqI32 => cmpk!(|a, b| a as i32 == b),
        SCmpkLgI32 => cmpk!(|a, b| a as i32 != b),
        SCmpkGtI32 => cmpk!(|a, b| a as i32 > b),
        SCmpkGeI32 => cmpk!(|a, b| a as i32 >= b),
        SCmpkLtI32 => cmpk!(|a, b| (a as i32) < b),
        SCmpkLeI32 => cmpk!(|a, b| a as i32 <= b),
        SCmpkEqU32 => cmpk!(|a, b| a == b as u32 & 0xffff),
        SCmpkLgU32 => cmpk!(|a, b| a != b as u32 & 0xffff),
        SCmpkGtU32 => cmpk!(|a, b| a > b as u32 & 0xffff),
        SCmpkGeU32 => cmpk!(|a, b| a >= b as u32 & 0xffff),
        SCmpkLtU32 => cmpk!(|a, b| a < b as u32 & 0xffff),
        SCmpkLeU32 => cmpk!(|a, b| a <= b as u32 & 0xffff),
        SGetreg | SSetreg | SSetregImm => hwreg(k, w, i, ctx)?,
        SCall => {
            set64(w, &d, pc.wrapping_add(4))?;
            w.pc = target(i, pc);
        }
        // GFX9 VGPR indexing (Vega ISA §4.6 "GPR indexing"): M0[7:0] is the
        // index, M0[15:12] which operands (src0, src1, src2, dst) it applies
        // to, MODE.GPR_IDX_EN (bit 27) turns it on.
        SSetGprIdxOn => {
            let idx = s32(w, &i.src[0])? & 0xff;
            let Operand::Imm(bits) = i.src[1] else {
                return unsupported("s_set_gpr_idx_on without its mode bits");
            };
            w.m0 = (w.m0 & !0xf0ff) | idx | (bits as u32 & 0xf) << 12;
            set_gpr_idx_en(w, true);
        }
        SSetGprIdxOff => set_gpr_idx_en(w, false),
        SSetGprIdxIdx => {
            let idx = s32(w, &i.src[0])? & 0xff;
            w.m0 = (w.m0 & !0xff) | idx;
        }
        SSetGprIdxMode => w.m0 = (w.m0 & !0xf000) | (imm16(i) as u32 & 0xf) << 12,
        _ => return super::valu::exec(k, w, i, ctx),
    }
    Ok(())
}

/// Sets or clears MODE.GPR_IDX_EN.
fn set_gpr_idx_en(w: &mut Wave, on: bool) {
    if let Some(m) = w.hwreg.get_mut(crate::wave::HW_REG_MODE) {
        let bit = 1 << super::operand::MODE_GPR_IDX_EN;
        *m = if on { *m | bit } else { *m & !bit };
    }
}

fn tz(v: u64, bits: u32) -> i32 {
    let t = v.trailing_zeros();
    if t >= bits { -1 } else { t as i32 }
}

/// `s_getreg_b32` / `s_setreg_b32` / `s_setreg_imm32_b32`: hardware register
/// `id` (simm16 bits 5:0), bit offset (10:6), size - 1 (15:11). The flat
/// scratch registers of GFX10 (ids 20, 21) map onto FLAT_SCRATCH; the others
/// are kept as plain storage.
fn hwreg(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    let s = imm16(i) as u32 & 0xffff;
    let id = (s & 0x3f) as usize;
    let off = (s >> 6) & 0x1f;
    let size = ((s >> 11) & 0x1f) + 1;
    let mask = if size >= 32 {
        u32::MAX
    } else {
        ((1u32 << size) - 1) << off
    };
    let read = |w: &Wave| -> u32 {
        match id {
            20 if ctx.gfx10() => w.flat_scratch as u32,
            21 if ctx.gfx10() => (w.flat_scratch >> 32) as u32,
            _ => w.hwreg.get(id).copied().unwrap_or(0),
        }
    };
    if k == Kind::SGetreg {
        let v = (read(w) & mask) >> off;
        return set32(w, &i.dst[0], v);
    }
    let src = if k == Kind::SSetregImm {
        match i.src.iter().skip(1).find(|o| o.is_some()) {
            Some(o) => s32(w, o)?,
            None => return unsupported("s_setreg_imm32_b32 without a literal"),
        }
    } else {
        // The SOPK "sdst" field is the source of s_setreg.
        s32(w, &i.dst[0])?
    };
    let new = (read(w) & !mask) | ((src << off) & mask);
    match id {
        20 if ctx.gfx10() => w.flat_scratch = (w.flat_scratch & !0xffff_ffff) | new as u64,
        21 if ctx.gfx10() => w.flat_scratch = (w.flat_scratch & 0xffff_ffff) | (new as u64) << 32,
        _ => {
            if let Some(r) = w.hwreg.get_mut(id) {
                *r = new;
            }
        }
    }
    Ok(())
}

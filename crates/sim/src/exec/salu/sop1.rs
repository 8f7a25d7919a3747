//! SOP1: moves, bit operations, relative moves, the PC, and the EXEC-saving
//! operations.

use super::*;

/// Executes the operations of class [`Class::Sop1`], one helper per family.
/// The helpers are inlined here (`#[inline(always)]`), as the class
/// functions are into [`super::exec`].
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, pc: u64) -> R {
    use Kind::*;
    match k {
        SMovB32 | SMovB64 | SCmovB32 | SCmovB64 => moves(k, w, i),
        SNotB32 | SNotB64 | SBrevB32 | SBrevB64 | SSextI8 | SSextI16 | SAbsI32 | SBitset0B32
        | SBitset1B32 | SBitset0B64 | SBitset1B64 | SBitreplicate => bits(k, w, i),
        SBcnt0B32 | SBcnt1B32 | SBcnt0B64 | SBcnt1B64 => bit_count(k, w, i),
        SFf0B32 | SFf1B32 | SFf0B64 | SFf1B64 | SFlbitB32 | SFlbitB64 | SFlbitI32 | SFlbitI64 => {
            find_bit(k, w, i)
        }
        SQuadmaskB32 | SQuadmaskB64 | SWqmB32 | SWqmB64 => quads(k, w, i),
        SMovrelsB32 | SMovrelsB64 | SMovreldB32 | SMovreldB64 => movrel(k, w, i),
        SMovrelsd2B32 => movrelsd2(w, i),
        SGetpc | SSetpc | SSwappc => program_counter(k, w, i, pc),
        SAndSaveexec | SOrSaveexec | SXorSaveexec | SAndn2Saveexec | SOrn2Saveexec
        | SNandSaveexec | SNorSaveexec | SXnorSaveexec | SAndn1Saveexec | SOrn1Saveexec => {
            saveexec(k, w, i)
        }
        SAndn1Wrexec | SAndn2Wrexec => wrexec(k, w, i),
        _ => Err(E::Unimpl),
    }
}

/// `s_mov` and `s_cmov` (the move only when SCC is set).
#[inline(always)]
fn moves(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let d = i.dst[0];
    match k {
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
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

/// Bitwise not, bit reverse, sign extension, absolute value, setting and
/// clearing one bit, and bit replication.
#[inline(always)]
fn bits(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let d = i.dst[0];
    match k {
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
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

/// `s_bcnt0`/`s_bcnt1`: the count of zero or one bits; SCC = result != 0.
#[inline(always)]
fn bit_count(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let r = match k {
        SBcnt0B32 => s32(w, &i.src[0])?.count_zeros(),
        SBcnt1B32 => s32(w, &i.src[0])?.count_ones(),
        SBcnt0B64 => s64(w, &i.src[0])?.count_zeros(),
        _ => s64(w, &i.src[0])?.count_ones(),
    };
    set32(w, &i.dst[0], r)?;
    w.scc = r != 0;
    Ok(())
}

/// `s_ff0`, `s_ff1` and `s_flbit`: the first zero or one bit from the bottom,
/// or the first bit from the top (different from the sign for the signed
/// forms); -1 when no bit is found (Vega ISA, SOP1).
#[inline(always)]
fn find_bit(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
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
    set32(w, &i.dst[0], r as u32)
}

/// Per quad of lanes (four bits): QUADMASK sets one result bit when any bit
/// of the quad is set, WQM sets all four. SCC = result != 0.
#[inline(always)]
fn quads(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let d = i.dst[0];
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
    Ok(())
}

/// `s_movrels` and `s_movreld`: SGPR indexing with M0 (Vega ISA, SOP1), of
/// the source or of the destination.
#[inline(always)]
fn movrel(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let d = i.dst[0];
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
        set32(w, &dst, v)
    } else {
        let v = s64(w, &src)?;
        set64(w, &dst, v)
    }
}

/// `s_movrelsd_2_b32` (RDNA ISA): SGPR[D + M0[25:16]] = SGPR[S0 + M0[9:0]].
#[inline(always)]
fn movrelsd2(w: &mut Wave, i: &Inst) -> R {
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
    let (Some(src), Some(dst)) = (
        at(&i.src[0], w.m0 & 0x3ff),
        at(&i.dst[0], (w.m0 >> 16) & 0x3ff),
    ) else {
        return unsupported(format!(
            "s_movrelsd_2_b32 outside the SGPRs (M0 = {:#x})",
            w.m0
        ));
    };
    let v = s32(w, &src)?;
    set32(w, &dst, v)
}

/// `s_getpc`, `s_setpc` and `s_swappc` (the instruction is at `pc`).
#[inline(always)]
fn program_counter(k: Kind, w: &mut Wave, i: &Inst, pc: u64) -> R {
    use Kind::*;
    let d = i.dst[0];
    match k {
        SGetpc => set64(w, &d, pc.wrapping_add(4))?,
        SSetpc => w.pc = s64(w, &i.src[0])?,
        SSwappc => {
            let t = s64(w, &i.src[0])?;
            set64(w, &d, pc.wrapping_add(4))?;
            w.pc = t;
        }
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

/// The `s_*_saveexec` operations: D = EXEC, EXEC = f(S0, EXEC), SCC =
/// EXEC != 0.
#[inline(always)]
fn saveexec(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let f: fn(u64, u64) -> u64 = match k {
        SAndSaveexec => |s, e| s & e,
        SOrSaveexec => |s, e| s | e,
        SXorSaveexec => |s, e| s ^ e,
        SAndn2Saveexec => |s, e| s & !e,
        SOrn2Saveexec => |s, e| s | !e,
        SNandSaveexec => |s, e| !(s & e),
        SNorSaveexec => |s, e| !(s | e),
        SXnorSaveexec => |s, e| !(s ^ e),
        SAndn1Saveexec => |s, e| !s & e,
        SOrn1Saveexec => |s, e| !s | e,
        _ => return Err(E::Unimpl),
    };
    let d = i.dst[0];
    let s = w
        .read_mask(&i.src[0])
        .map_or_else(|| s64(w, &i.src[0]), Ok)?;
    let old = w.exec.0;
    let new = f(s, old) & w.full_mask();
    if w.size == 64 {
        set64(w, &d, old)?;
    } else {
        set32(w, &d, old as u32)?;
    }
    w.exec = Mask(new);
    w.scc = new != 0;
    Ok(())
}

/// `s_andn1_wrexec` and `s_andn2_wrexec`: EXEC = D = the masked S0, SCC =
/// result != 0.
#[inline(always)]
fn wrexec(k: Kind, w: &mut Wave, i: &Inst) -> R {
    let d = i.dst[0];
    let s = w
        .read_mask(&i.src[0])
        .map_or_else(|| s64(w, &i.src[0]), Ok)?;
    let e = w.exec.0;
    let r = if k == Kind::SAndn1Wrexec {
        !s & e
    } else {
        s & !e
    } & w.full_mask();
    w.exec = Mask(r);
    if w.size == 64 {
        set64(w, &d, r)?;
    } else {
        set32(w, &d, r as u32)?;
    }
    w.scc = r != 0;
    Ok(())
}

//! Resolving vector ALU instructions (VOP1, VOP2, VOP3, VOPC, the
//! carry-out and mask-writing forms) into fast handlers.

use super::*;

/// The vector destination register of `op`, if it is one VGPR.
pub(super) fn vdst(op: &Operand) -> Option<u8> {
    match *op {
        Operand::Vgpr { index, .. } => Some(index),
        _ => None,
    }
}

/// A 32-bit source as the general executor reads it for integer and f32
/// operations (`v32` with `Ty::I` / `Ty::F`).
pub(super) fn src(op: &Operand) -> Option<Src> {
    Some(match *op {
        Operand::Vgpr { index, .. } => Src::V(index),
        Operand::Sgpr { index, .. } if (index as usize) < crate::wave::NUM_SGPRS => Src::S(index),
        Operand::InlineFloat(c) => Src::K(inline_float_bits(c, 32).unwrap_or(0) as u32),
        Operand::InlineInt(v) => Src::K(v as i32 as u32),
        Operand::Literal(v) => Src::K(v),
        Operand::Special { .. } | Operand::Ttmp { .. } | Operand::Sgpr { .. } => Src::Other(*op),
        _ => return None,
    })
}

/// The fast handler of a VOP1, VOP2, VOP3 or VOPC instruction without input
/// or output modifiers, if it has one: the lane-mask instructions
/// ([`resolve_masked`]), then the integer and f32 operations on VGPRs.
pub(super) fn resolve(i: &Inst) -> Option<Entry> {
    use Kind::*;
    let Op::Alu(op) = i.op else {
        return None;
    };
    let m = &i.alu;
    if !matches!(
        m.form,
        AluForm::Vop1 | AluForm::Vop2 | AluForm::Vop3 | AluForm::Vopc
    ) {
        return None;
    }
    if m.abs != 0 || m.omod != 0 || m.clamp || m.op_sel != 0 {
        return None;
    }
    let k = *super::super::tables().alu.get(op.0 as usize)?;
    if let Some(e) = resolve_masked(i, k) {
        return Some(e);
    }
    if i.dst[1].is_some() {
        return None;
    }
    let d = vdst(&i.dst[0])?;
    let s = |n: usize| src(&i.src[n]);
    let int_only = m.neg == 0;
    let fast = match k {
        VMovB32 if int_only => Fast::U1 {
            op: U1::Mov,
            d,
            a: s(0)?,
        },
        VNotB32 if int_only => Fast::U1 {
            op: U1::Not,
            d,
            a: s(0)?,
        },
        VAddU32 | VSubU32 | VSubrevU32 | VAddI32 | VSubI32 | VAndB32 | VOrB32 | VXorB32
        | VXnorB32 | VLshlrevB32 | VLshrrevB32 | VAshrrevI32 | VMinU32 | VMaxU32 | VMinI32
        | VMaxI32 | VMulLoU32 | VMulHiU32 | VMulHiI32 | VMulU32U24
            if int_only =>
        {
            Fast::U2 {
                op: u2_op(k),
                d,
                a: s(0)?,
                b: s(1)?,
            }
        }
        VAdd3U32 | VLshlAddU32 | VAddLshlU32 | VLshlOrB32 | VAndOrB32 | VOr3B32 | VMadU32U24
        | VBfiB32 | VAlignbitB32
            if int_only =>
        {
            Fast::U3 {
                op: u3_op(k),
                d,
                a: s(0)?,
                b: s(1)?,
                c: s(2)?,
            }
        }
        VAddF32 | VSubF32 | VSubrevF32 | VMulF32 => Fast::F2 {
            op: f2_op(k),
            d,
            a: s(0)?,
            b: s(1)?,
            neg: m.neg & 3,
        },
        VFmaF32 => Fast::Fma {
            d,
            a: s(0)?,
            b: s(1)?,
            c: s(2)?,
            neg: m.neg & 7,
        },
        VFmamkF32 | VFmaakF32 if m.neg == 0 && !i.src[2].is_some() => {
            return fma_literal(i, k, d);
        }
        VFmacF32 => Fast::Fmac {
            d,
            a: s(0)?,
            b: s(1)?,
            neg: m.neg & 3,
        },
        _ => return None,
    };
    // Sources beyond those the operation reads must be absent (nothing is
    // silently ignored).
    let used = match fast {
        Fast::U1 { .. } => 1,
        Fast::U2 { .. } | Fast::F2 { .. } | Fast::Fmac { .. } => 2,
        Fast::U3 { .. } | Fast::Fma { .. } => 3,
        _ => return None,
    };
    if i.src[used..].iter().any(|o| o.is_some()) {
        return None;
    }
    Some(Entry {
        fast,
        vmax: vmax(i, used),
        size: i.size,
        vector: true,
        mem: false,
    })
}

/// The [`U2`] handler of a two-source integer operation (a table).
fn u2_op(k: Kind) -> U2 {
    use Kind::*;
    match k {
        VAddU32 | VAddI32 => U2::Add,
        VSubU32 | VSubI32 => U2::Sub,
        VSubrevU32 => U2::Subrev,
        VAndB32 => U2::And,
        VOrB32 => U2::Or,
        VXorB32 => U2::Xor,
        VXnorB32 => U2::Xnor,
        VLshlrevB32 => U2::Lshlrev,
        VLshrrevB32 => U2::Lshrrev,
        VAshrrevI32 => U2::Ashrrev,
        VMinU32 => U2::MinU,
        VMaxU32 => U2::MaxU,
        VMinI32 => U2::MinI,
        VMaxI32 => U2::MaxI,
        VMulLoU32 => U2::MulLo,
        VMulHiU32 => U2::MulHiU,
        VMulHiI32 => U2::MulHiI,
        _ => U2::MulU24,
    }
}

/// The [`U3`] handler of a three-source integer operation (a table).
fn u3_op(k: Kind) -> U3 {
    use Kind::*;
    match k {
        VAdd3U32 => U3::Add3,
        VLshlAddU32 => U3::LshlAdd,
        VAddLshlU32 => U3::AddLshl,
        VLshlOrB32 => U3::LshlOr,
        VAndOrB32 => U3::AndOr,
        VOr3B32 => U3::Or3,
        VMadU32U24 => U3::MadU24,
        VBfiB32 => U3::Bfi,
        _ => U3::Alignbit,
    }
}

/// The [`F2`] handler of a two-source f32 operation (a table).
fn f2_op(k: Kind) -> F2 {
    match k {
        Kind::VAddF32 => F2::Add,
        Kind::VSubF32 => F2::Sub,
        Kind::VSubrevF32 => F2::Subrev,
        _ => F2::Mul,
    }
}

/// VOP2 with a literal constant K in the fourth source slot, as [`Fast::Fma`]:
/// `fmamk` is a * K + b, `fmaak` a * b + K.
fn fma_literal(i: &Inst, k: Kind, d: u8) -> Option<Entry> {
    let Operand::Literal(kk) = i.src[3] else {
        return None;
    };
    let (a, b) = (src(&i.src[0])?, src(&i.src[1])?);
    let fast = if k == Kind::VFmamkF32 {
        Fast::Fma {
            d,
            a,
            b: Src::K(kk),
            c: b,
            neg: 0,
        }
    } else {
        Fast::Fma {
            d,
            a,
            b,
            c: Src::K(kk),
            neg: 0,
        }
    };
    Some(Entry {
        fast,
        vmax: vmax(i, 2),
        size: i.size,
        vector: true,
        mem: false,
    })
}

/// A lane-mask destination the general executor writes without fail:
/// none, `null`, VCC, or SGPRs within the file.
pub(super) fn mask_dst(op: &Operand) -> Option<Operand> {
    match *op {
        Operand::None
        | Operand::Special {
            reg: SpecialReg::Null | SpecialReg::Vcc,
            ..
        } => Some(*op),
        Operand::Sgpr { index, count }
            if index as usize + (count.max(1) as usize) <= crate::wave::NUM_SGPRS =>
        {
            Some(*op)
        }
        _ => None,
    }
}

/// A lane-mask source (read with `Wave::read_mask`).
pub(super) fn mask_src(op: &Operand) -> Option<Operand> {
    match *op {
        Operand::Sgpr { .. } | Operand::Special { .. } | Operand::Ttmp { .. } => Some(*op),
        _ => None,
    }
}

/// Compares, `v_cndmask_b32` and the carry operations: the instructions
/// that read or write lane masks.
pub(super) fn resolve_masked(i: &Inst, k: Kind) -> Option<Entry> {
    use Kind::*;
    let m = &i.alu;
    let s = |n: usize| src(&i.src[n]);
    let (fast, used) = match k {
        VCmp(c) if matches!(c.ty, CmpTy::I32 | CmpTy::U32 | CmpTy::F32) => {
            if i.dst[1].is_some() || (c.ty != CmpTy::F32 && m.neg != 0) {
                return None;
            }
            let fast = Fast::Cmp {
                c,
                a: s(0)?,
                b: s(1)?,
                neg: m.neg & 3,
                d: mask_dst(&i.dst[0])?,
            };
            (fast, 2)
        }
        VCmp(c) if matches!(c.ty, CmpTy::I64 | CmpTy::U64) => {
            if i.dst[1].is_some() || m.neg != 0 {
                return None;
            }
            let fast = Fast::Cmp64 {
                c,
                a: src64(&i.src[0])?,
                b: src64(&i.src[1])?,
                d: mask_dst(&i.dst[0])?,
            };
            if i.src[2..].iter().any(|o| o.is_some()) {
                return None;
            }
            return Some(Entry {
                fast,
                vmax: vmax64(i),
                size: i.size,
                vector: true,
                mem: false,
            });
        }
        VLshlrevB64 | VLshrrevB64 | VAshrrevI64 if m.neg == 0 && !i.dst[1].is_some() => {
            let d = vdst(&i.dst[0])?;
            if d == u8::MAX {
                return None;
            }
            let fast = Fast::Shift64 {
                op: match k {
                    VLshlrevB64 => Sh64::Lshl,
                    VLshrrevB64 => Sh64::Lshr,
                    _ => Sh64::Ashr,
                },
                d,
                a: s(0)?,
                b: src64(&i.src[1])?,
            };
            if i.src[2..].iter().any(|o| o.is_some()) {
                return None;
            }
            return Some(Entry {
                fast,
                vmax: vmax64(i).max(d + 1),
                size: i.size,
                vector: true,
                mem: false,
            });
        }
        VMadU64U32 if m.neg == 0 => {
            let d = vdst(&i.dst[0])?;
            if d == u8::MAX {
                return None;
            }
            let fast = Fast::MadU64 {
                d,
                a: s(0)?,
                b: s(1)?,
                c: src64(&i.src[2])?,
                cout: mask_dst(&i.dst[1])?,
            };
            if i.src[3].is_some() {
                return None;
            }
            let c_hi = match i.src[2] {
                Operand::Vgpr { index, .. } => index.checked_add(1)?,
                _ => 0,
            };
            return Some(Entry {
                fast,
                vmax: vmax(i, 2).max(d + 1).max(c_hi),
                size: i.size,
                vector: true,
                mem: false,
            });
        }
        VCndmaskB32 if !i.dst[1].is_some() => {
            let fast = Fast::Cndmask {
                d: vdst(&i.dst[0])?,
                a: s(0)?,
                b: s(1)?,
                mask: mask_src(&i.src[2])?,
                neg: m.neg & 3,
            };
            (fast, 3)
        }
        VAddCoU32 | VSubCoU32 | VSubrevCoU32 | VAddcCoU32 | VSubbCoU32 | VSubbrevCoU32
            if m.neg == 0 =>
        {
            let op = match k {
                VAddCoU32 => Carry::Add,
                VSubCoU32 => Carry::Sub,
                VSubrevCoU32 => Carry::Subrev,
                VAddcCoU32 => Carry::Addc,
                VSubbCoU32 => Carry::Subb,
                _ => Carry::Subbrev,
            };
            let with_cin = matches!(op, Carry::Addc | Carry::Subb | Carry::Subbrev);
            let cin = if with_cin {
                mask_src(&i.src[2])?
            } else {
                Operand::None
            };
            let fast = Fast::Carry {
                op,
                d: vdst(&i.dst[0])?,
                a: s(0)?,
                b: s(1)?,
                cin,
                cout: mask_dst(&i.dst[1])?,
            };
            (fast, if with_cin { 3 } else { 2 })
        }
        _ => return None,
    };
    if i.src[used..].iter().any(|o| o.is_some()) {
        return None;
    }
    Some(Entry {
        fast,
        vmax: vmax(i, used.min(2)),
        size: i.size,
        vector: true,
        mem: false,
    })
}

/// A 64-bit integer source as `v64` reads it (`Ty::I`).
pub(super) fn src64(op: &Operand) -> Option<Src64> {
    Some(match *op {
        Operand::Vgpr { index, .. } if index < u8::MAX => Src64::V(index),
        Operand::InlineFloat(c) => Src64::K(inline_float_bits(c, 64).unwrap_or(0)),
        Operand::InlineInt(v) => Src64::K(v as i64 as u64),
        Operand::Literal(v) => Src64::K(v as u64),
        Operand::Sgpr { .. } | Operand::Special { .. } | Operand::Ttmp { .. } => Src64::Other(*op),
        _ => return None,
    })
}

/// The highest VGPR a 64-bit compare or shift names: the second dword of
/// each VGPR pair source, and the first two sources' and the destination's
/// registers.
pub(super) fn vmax64(i: &Inst) -> u8 {
    i.src[..2]
        .iter()
        .chain(std::iter::once(&i.dst[0]))
        .filter_map(|o| match *o {
            Operand::Vgpr { index, count } if count >= 2 => index.checked_add(1),
            Operand::Vgpr { index, .. } => Some(index),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// The highest VGPR among the destination and the first `used` sources.
pub(super) fn vmax(i: &Inst, used: usize) -> u8 {
    i.src[..used]
        .iter()
        .chain(std::iter::once(&i.dst[0]))
        .filter_map(|o| match *o {
            Operand::Vgpr { index, .. } => Some(index),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

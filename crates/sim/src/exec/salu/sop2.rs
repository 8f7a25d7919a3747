//! SOP2: scalar arithmetic, logic, shifts, bit fields and packing.

use super::*;

/// Executes the operations of class [`Class::Sop2`], one helper per family.
/// The helpers are inlined here (`#[inline(always)]`), as the class
/// functions are into [`super::exec`].
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    match k {
        SAddU32 | SSubU32 | SAddcU32 | SSubbU32 | SAddI32 | SSubI32 => add_sub(k, w, i),
        SMinI32 | SMaxI32 | SMinU32 | SMaxU32 => min_max(k, w, i),
        SCselectB32 | SCselectB64 => select(k, w, i),
        SAndB32 | SOrB32 | SXorB32 | SAndn2B32 | SOrn2B32 | SNandB32 | SNorB32 | SXnorB32
        | SLshlB32 | SLshrB32 | SAshrI32 | SAbsdiffI32 => logic32(k, w, i),
        SAndB64 | SOrB64 | SXorB64 | SAndn2B64 | SOrn2B64 | SNandB64 | SNorB64 | SXnorB64
        | SLshlB64 | SLshrB64 | SAshrI64 => logic64(k, w, i),
        SBfmB32 | SBfmB64 | SBfeU32 | SBfeI32 | SBfeU64 | SBfeI64 => bit_field(k, w, i),
        SMulI32 | SMulHiU32 | SMulHiI32 => mul(k, w, i),
        SLshl1Add | SLshl2Add | SLshl3Add | SLshl4Add => shift_add(k, w, i),
        SPackLl | SPackLh | SPackHh => pack(k, w, i),
        _ => Err(E::Unimpl),
    }
}

/// `D = f(S0, S1)` on 32 bits, SCC = result != 0.
#[inline(always)]
fn op2(w: &mut Wave, i: &Inst, f: impl Fn(u32, u32) -> u32) -> R {
    let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
    let r = f(a, b);
    set32(w, &i.dst[0], r)?;
    w.scc = r != 0;
    Ok(())
}

/// `D = f(S0, S1)` on 64 bits, SCC = result != 0.
#[inline(always)]
fn op2_64(w: &mut Wave, i: &Inst, f: impl Fn(u64, u64) -> u64) -> R {
    let (a, b) = (s64(w, &i.src[0])?, s64(w, &i.src[1])?);
    let r = f(a, b);
    set64(w, &i.dst[0], r)?;
    w.scc = r != 0;
    Ok(())
}

/// The 32-bit adds and subtracts: SCC the carry, borrow or signed overflow
/// (SCC also the carry-in of `s_addc` and `s_subb`).
#[inline(always)]
fn add_sub(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let d = i.dst[0];
    match k {
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
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

/// `s_min` and `s_max`: SCC = whether S0 was chosen (strictly).
#[inline(always)]
fn min_max(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
    let (r, first) = match k {
        SMinI32 => ((a as i32).min(b as i32) as u32, (a as i32) < (b as i32)),
        SMaxI32 => ((a as i32).max(b as i32) as u32, (a as i32) > (b as i32)),
        SMinU32 => (a.min(b), a < b),
        _ => (a.max(b), a > b),
    };
    set32(w, &i.dst[0], r)?;
    w.scc = first;
    Ok(())
}

/// `s_cselect`: SCC ? S0 : S1 (SCC unchanged).
#[inline(always)]
fn select(k: Kind, w: &mut Wave, i: &Inst) -> R {
    let d = i.dst[0];
    let s = if w.scc { &i.src[0] } else { &i.src[1] };
    if k == Kind::SCselectB32 {
        let v = s32(w, s)?;
        set32(w, &d, v)
    } else {
        let v = s64(w, s)?;
        set64(w, &d, v)
    }
}

/// Logic, shifts and `s_absdiff_i32` on 32 bits ([`op2`]).
#[inline(always)]
fn logic32(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    match k {
        SAndB32 => op2(w, i, |a, b| a & b),
        SOrB32 => op2(w, i, |a, b| a | b),
        SXorB32 => op2(w, i, |a, b| a ^ b),
        SAndn2B32 => op2(w, i, |a, b| a & !b),
        SOrn2B32 => op2(w, i, |a, b| a | !b),
        SNandB32 => op2(w, i, |a, b| !(a & b)),
        SNorB32 => op2(w, i, |a, b| !(a | b)),
        SXnorB32 => op2(w, i, |a, b| !(a ^ b)),
        SLshlB32 => op2(w, i, |a, b| a << (b & 31)),
        SLshrB32 => op2(w, i, |a, b| a >> (b & 31)),
        SAshrI32 => op2(w, i, |a, b| ((a as i32) >> (b & 31)) as u32),
        SAbsdiffI32 => op2(w, i, |a, b| {
            (a as i32).wrapping_sub(b as i32).wrapping_abs() as u32
        }),
        _ => Err(E::Unimpl),
    }
}

/// Logic and shifts on 64 bits ([`op2_64`]).
#[inline(always)]
fn logic64(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    match k {
        SAndB64 => op2_64(w, i, |a, b| a & b),
        SOrB64 => op2_64(w, i, |a, b| a | b),
        SXorB64 => op2_64(w, i, |a, b| a ^ b),
        SAndn2B64 => op2_64(w, i, |a, b| a & !b),
        SOrn2B64 => op2_64(w, i, |a, b| a | !b),
        SNandB64 => op2_64(w, i, |a, b| !(a & b)),
        SNorB64 => op2_64(w, i, |a, b| !(a | b)),
        SXnorB64 => op2_64(w, i, |a, b| !(a ^ b)),
        SLshlB64 => op2_64(w, i, |a, b| a << (b & 63)),
        SLshrB64 => op2_64(w, i, |a, b| a >> (b & 63)),
        SAshrI64 => op2_64(w, i, |a, b| ((a as i64) >> (b & 63)) as u64),
        _ => Err(E::Unimpl),
    }
}

/// Bit-field masks (`s_bfm`) and extracts (`s_bfe`, SCC = result != 0).
#[inline(always)]
fn bit_field(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let d = i.dst[0];
    match k {
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
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

/// The 32-bit multiplies: the low half, or the high half of the unsigned or
/// signed product (SCC unchanged).
#[inline(always)]
fn mul(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
    let r = match k {
        SMulI32 => a.wrapping_mul(b),
        SMulHiU32 => ((a as u64 * b as u64) >> 32) as u32,
        _ => ((a as i32 as i64 * b as i32 as i64) >> 32) as u32,
    };
    set32(w, &i.dst[0], r)
}

/// `s_lshl<n>_add_u32`: (S0 << n) + S1, SCC = the carry out of either step.
#[inline(always)]
fn shift_add(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let sh = match k {
        SLshl1Add => 1,
        SLshl2Add => 2,
        SLshl3Add => 3,
        _ => 4,
    };
    let (a, b) = (s32(w, &i.src[0])? as u64, s32(w, &i.src[1])? as u64);
    let r = ((a << sh) & 0xffff_ffff) + b;
    set32(w, &i.dst[0], r as u32)?;
    w.scc = r >> 32 != 0 || (a << sh) >> 32 != 0;
    Ok(())
}

/// `s_pack_{ll,lh,hh}_b32_b16`: two halves of S0 and S1 packed.
#[inline(always)]
fn pack(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
    let r = match k {
        SPackLl => (a & 0xffff) | (b << 16),
        SPackLh => (a & 0xffff) | (b & 0xffff_0000),
        _ => (a >> 16) | (b & 0xffff_0000),
    };
    set32(w, &i.dst[0], r)
}

//! SOP2: scalar arithmetic, logic, shifts, bit fields and packing.

use super::*;

/// Executes the operations of class [`Class::Sop2`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    let d = i.dst[0];
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
    match k {
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
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

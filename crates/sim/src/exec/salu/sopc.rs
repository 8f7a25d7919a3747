//! SOPC: scalar compares into SCC.

use super::*;

/// Executes the operations of class [`Class::Sopc`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst) -> R {
    use Kind::*;
    macro_rules! cmp {
        ($f:expr) => {{
            let (a, b) = (s32(w, &i.src[0])?, s32(w, &i.src[1])?);
            let f: fn(u32, u32) -> bool = $f;
            w.scc = f(a, b);
        }};
    }
    match k {
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
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

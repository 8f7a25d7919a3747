//! SOPK: the operations with a 16-bit immediate, the hardware registers,
//! calls, and GFX9 VGPR indexing.

use super::*;

/// Executes the operations of class [`Class::Sopk`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, pc: u64, ctx: &Ctx) -> R {
    use Kind::*;
    let d = i.dst[0];
    macro_rules! cmpk {
        ($f:expr) => {{
            let a = s32(w, &d)?;
            let f: fn(u32, i32) -> bool = $f;
            w.scc = f(a, imm16(i));
        }};
    }
    match k {
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
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

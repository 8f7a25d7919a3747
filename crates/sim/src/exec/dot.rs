//! Dot products: `v_dot2_f32_f16`, `v_dot{2,4,8}_{i32,u32}_*` (VOP3P, gfx906,
//! gfx908, gfx90a, gfx1030) and the accumulating VOP2 forms `v_dot2c_*`,
//! `v_dot4c_i32_i8`, `v_dot8c_i32_i4` (gfx908, gfx90a, gfx1030; also in DPP).
//!
//! Pseudo-code (MI100 ISA, "VOP3P Opcodes"): `D = S0[0] * S1[0] + ... +
//! S2` over the packed elements of the sources; the `c` forms take `D` itself
//! as `S2`. `clamp` saturates the integer forms to the 32-bit result range and
//! limits the f32 form to [0, 1]. The per-element semantics are the pure
//! functions [`dot_int`] and [`dot2_f32_f16`].
//!
//! Modifiers: for the 16-bit forms `op_sel` chooses the half read as element
//! 0 and `op_sel_hi` the half read as element 1 of each source (VOP3P
//! "Packed math"); `neg_lo` / `neg_hi` negate the f16 elements. Every other
//! modifier (negation of integer or f32 sources, `op_sel` on 8- and 4-bit
//! elements or on the accumulator, VOP3 `abs`/`neg`/`omod` on the `c` forms)
//! has no pseudo-code in the guides and is reported as unsupported.

use super::operand::{L32, Ov, Ty, check_round, denorms, src32, v32, wv32};
use super::{Kind, R, unsupported};
use crate::alu::{dot_int, dot2_f32_f16, ftz_f32};
use crate::wave::Wave;
use amdgpu_isa::Inst;
use amdgpu_isa::alu::AluForm;

/// Whether `k` is a dot product executed here.
pub(crate) fn handles(k: Kind) -> bool {
    use Kind::*;
    matches!(
        k,
        VDot2F32F16
            | VDot2I32I16
            | VDot2U32U16
            | VDot4I32I8
            | VDot4U32U8
            | VDot8I32I4
            | VDot8U32U4
            | VDot2cF32F16
            | VDot2cI32I16
            | VDot4cI32I8
            | VDot8cI32I4
    )
}

/// Element width in bits, signedness and whether the elements are f16.
fn element(k: Kind) -> (u32, bool, bool) {
    use Kind::*;
    match k {
        VDot2F32F16 | VDot2cF32F16 => (16, true, true),
        VDot2I32I16 | VDot2cI32I16 => (16, true, false),
        VDot2U32U16 => (16, false, false),
        VDot4I32I8 | VDot4cI32I8 => (8, true, false),
        VDot4U32U8 => (8, false, false),
        VDot8I32I4 | VDot8cI32I4 => (4, true, false),
        _ => (4, false, false),
    }
}

/// Executes dot product `k` (one of [`handles`]) on the lanes in `exec`;
/// `ov` holds sources 0 and 1 already moved by a DPP form.
pub(crate) fn exec(k: Kind, w: &mut Wave, i: &Inst, ov: Ov, exec: u64) -> R {
    let (bits, signed, half) = element(k);
    let a = &i.alu;
    let vop3p = a.form == AluForm::Vop3p;
    // The halves each 16-bit element comes from: (element 0, element 1) per
    // source, as bit masks over sources 0 and 1.
    let (lo_sel, hi_sel) = if vop3p {
        if a.op_sel & 4 != 0 || a.op_sel_hi & 4 == 0 {
            return unsupported("op_sel on the accumulator of a dot product");
        }
        let negs = (a.neg | a.neg_hi) & if half { 4 } else { 7 };
        if negs != 0 {
            return unsupported(if half {
                "neg_lo/neg_hi on the f32 accumulator of v_dot2_f32_f16"
            } else {
                "neg_lo/neg_hi on an integer dot product"
            });
        }
        if bits != 16 && (a.op_sel & 3 != 0 || a.op_sel_hi & 3 != 3) {
            return unsupported("op_sel on 8- or 4-bit dot product elements");
        }
        (a.op_sel & 3, a.op_sel_hi & 3)
    } else {
        if a.abs != 0 || a.neg != 0 || a.op_sel != 0 || a.omod != 0 {
            return unsupported("VOP3 source or output modifiers on a v_dot*c operation");
        }
        (0, 3)
    };
    let (neg_lo, neg_hi) = if vop3p && half {
        (a.neg & 3, a.neg_hi & 3)
    } else {
        (0, 0)
    };
    let ty = if half { Ty::H } else { Ty::I };
    let s0 = src32(w, ov, i, 0, ty)?;
    let s1 = src32(w, ov, i, 1, ty)?;
    let s2 = if vop3p {
        src32(w, ov, i, 2, if half { Ty::F } else { Ty::I })?
    } else {
        // The accumulating forms read their destination.
        v32(w, &i.dst[0], Ty::I)?
    };
    let clamp = a.clamp;
    let r: L32 = if half {
        check_round(w)?;
        if !denorms(w, true).0 {
            return unsupported("f16 input denormal flushing (MODE.FP_DENORM) in a dot product");
        }
        let keep = denorms(w, false).1;
        let pick = |v: u32, s: usize| -> [u16; 2] {
            let h = |hi: bool, neg: bool| {
                let x = if hi { (v >> 16) as u16 } else { v as u16 };
                if neg { x ^ 0x8000 } else { x }
            };
            [
                h((lo_sel >> s) & 1 != 0, (neg_lo >> s) & 1 != 0),
                h((hi_sel >> s) & 1 != 0, (neg_hi >> s) & 1 != 0),
            ]
        };
        std::array::from_fn(|l| {
            let v = dot2_f32_f16(pick(s0[l], 0), pick(s1[l], 1), f32::from_bits(s2[l]), clamp);
            (if keep { v } else { ftz_f32(v) }).to_bits()
        })
    } else if bits == 16 {
        let pick = |v: u32, s: usize| -> u32 {
            let h = |hi: bool| if hi { v >> 16 } else { v & 0xffff };
            h((lo_sel >> s) & 1 != 0) | h((hi_sel >> s) & 1 != 0) << 16
        };
        std::array::from_fn(|l| dot_int(pick(s0[l], 0), pick(s1[l], 1), s2[l], bits, signed, clamp))
    } else {
        std::array::from_fn(|l| dot_int(s0[l], s1[l], s2[l], bits, signed, clamp))
    };
    wv32(w, &i.dst[0], &r, exec)
}

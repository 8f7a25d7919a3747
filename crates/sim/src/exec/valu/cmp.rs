//! Vector compares (VOPC and VOP3 forms) into VCC, an SGPR pair or EXEC,
//! and the class tests.

use super::*;

/// Executes the operations of class [`Class::Cmp`].
#[allow(clippy::redundant_closure_call)]
#[inline(always)]
pub(super) fn exec(k: Kind, w: &mut Wave, i: &Inst, ov: Ov) -> R {
    use Kind::*;
    let exec = w.exec.0 & w.full_mask();
    match k {
        VCmp(c) => cmp(c, w, ov, i, exec)?,
        VCmpClassF32 | VCmpxClassF32 | VCmpClassF64 | VCmpxClassF64 => {
            let m = u32_src(w, ov, i, 1)?;
            let cls: L32 = if matches!(k, VCmpClassF32 | VCmpxClassF32) {
                let a = f32_src(w, ov, i, 0)?;
                a.map(fp_class_f32)
            } else {
                let a = f64_src(w, ov, i, 0)?;
                a.map(fp_class_f64)
            };
            let mut r = 0u64;
            for l in 0..64 {
                if (m[l] >> cls[l]) & 1 != 0 {
                    r |= 1 << l;
                }
            }
            r &= exec;
            write_cmp(w, i, r, matches!(k, VCmpxClassF32 | VCmpxClassF64))?;
        }
        VCmpClassF16 | VCmpxClassF16 => {
            check_half_mode(w)?;
            let (a, m) = (half_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?);
            let mut r = 0u64;
            for l in 0..64 {
                if (m[l] >> fp_class_f16(a[l])) & 1 != 0 {
                    r |= 1 << l;
                }
            }
            write_cmp(w, i, r & exec, k == VCmpxClassF16)?;
        }
        _ => return Err(E::Unimpl),
    }
    Ok(())
}

fn write_cmp(w: &mut Wave, i: &Inst, r: u64, x: bool) -> R {
    let d = i.dst[0];
    if d.is_some() {
        write_mask_dst(w, &d, r)?;
    } else if !x {
        // VOPC without an explicit destination writes VCC.
        w.vcc = Mask(r);
    }
    if x {
        w.exec = Mask(r);
    }
    Ok(())
}

fn cmp(c: super::super::kinds::Cmp, w: &mut Wave, ov: Ov, i: &Inst, exec: u64) -> R {
    // Masks of lanes comparing less, equal, greater; unordered is the rest.
    let (mut lt, mut eq, mut gt) = (0u64, 0u64, 0u64);
    macro_rules! masks {
        ($a:expr, $b:expr) => {{
            let (a, b) = ($a, $b);
            for l in 0..64 {
                lt |= ((a[l] < b[l]) as u64) << l;
                eq |= ((a[l] == b[l]) as u64) << l;
                gt |= ((a[l] > b[l]) as u64) << l;
            }
        }};
    }
    let (abs, neg) = (i.alu.abs, i.alu.neg);
    match c.ty {
        CmpTy::F32 => masks!(f32_src(w, ov, i, 0)?, f32_src(w, ov, i, 1)?),
        CmpTy::F64 => masks!(f64_src(w, ov, i, 0)?, f64_src(w, ov, i, 1)?),
        CmpTy::F16 => {
            let h = |x: u32, k: u8| {
                let mut v = x as u16;
                if (abs >> k) & 1 != 0 {
                    v &= 0x7fff;
                }
                if (neg >> k) & 1 != 0 {
                    v ^= 0x8000;
                }
                f16_to_f32(v)
            };
            let a = src32(w, ov, i, 0, Ty::H)?.map(|x| h(x, 0));
            let b = src32(w, ov, i, 1, Ty::H)?.map(|x| h(x, 1));
            masks!(a, b)
        }
        CmpTy::I32 => masks!(
            u32_src(w, ov, i, 0)?.map(|x| x as i32),
            u32_src(w, ov, i, 1)?.map(|x| x as i32)
        ),
        CmpTy::U32 => masks!(u32_src(w, ov, i, 0)?, u32_src(w, ov, i, 1)?),
        CmpTy::I16 => masks!(
            u32_src(w, ov, i, 0)?.map(|x| x as i16),
            u32_src(w, ov, i, 1)?.map(|x| x as i16)
        ),
        CmpTy::U16 => masks!(
            u32_src(w, ov, i, 0)?.map(|x| x as u16),
            u32_src(w, ov, i, 1)?.map(|x| x as u16)
        ),
        CmpTy::I64 => masks!(
            u64_src(w, ov, i, 0)?.map(|x| x as i64),
            u64_src(w, ov, i, 1)?.map(|x| x as i64)
        ),
        CmpTy::U64 => masks!(u64_src(w, ov, i, 0)?, u64_src(w, ov, i, 1)?),
    }
    let un = !(lt | eq | gt);
    let r = c.eval_masks(lt, eq, gt, un);
    write_cmp(w, i, r & exec, c.x)
}

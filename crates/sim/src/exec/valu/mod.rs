//! Vector ALU: VOP1, VOP2, VOPC, VOP3 (and VOP3b), and the VOP3P operations
//! the corpus uses. Sources are fetched once into lane arrays (scalars and
//! constants broadcast), the per-lane semantics are pure functions, and EXEC
//! is applied when the result is written back.

use super::operand::*;
use super::{Ctx, E, Kind, R, kinds::CmpTy, unsupported};
use crate::alu::*;
use crate::wave::{Mask, Wave};
use amdgpu_isa::{Encoding, Inst, Operand};

mod cmp;
mod conv;
mod fp16;
mod fp32;
mod fp64;
mod int;
mod lane;
mod packed;

/// Executes a vector instruction.
pub(crate) fn exec(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    exec_with(k, w, i, ctx, None)
}

/// Executes an SDWA-form instruction (Vega ISA §6.4 / RDNA ISA §6.3
/// "SDWA"): byte or word sources are selected (and sign- or zero-extended)
/// before the operation, and the result is placed into the selected field of
/// the destination, the other bits padded with zeros, sign-extended, or
/// preserved.
pub(crate) fn exec_sdwa(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx) -> R {
    let sel = |v: u32, s: u8, sext: bool| -> u32 {
        match s {
            0..=3 => {
                let b = (v >> (8 * s)) & 0xff;
                if sext { b as u8 as i8 as i32 as u32 } else { b }
            }
            4 | 5 => {
                let h = (v >> (16 * (s - 4))) & 0xffff;
                if sext {
                    h as u16 as i16 as i32 as u32
                } else {
                    h
                }
            }
            _ => v,
        }
    };
    let mut ov = [[0u32; 64]; 2];
    for (k2, o) in ov.iter_mut().enumerate() {
        let op = i.src.get(k2).copied().unwrap_or_default();
        if op.is_some() {
            let v = v32(w, &op, Ty::I)?;
            let s = i.alu.sdwa_src_sel(k2);
            let sx = (i.alu.sext >> k2) & 1 != 0;
            *o = v.map(|x| sel(x, s, sx));
        }
    }
    let d = i.dst[0];
    let is_vdst = matches!(d, Operand::Vgpr { .. });
    let old = if is_vdst { *vdst(w, &d, 0)? } else { [0; 64] };
    exec_with(k, w, i, ctx, Some(&ov))?;
    let ds = i.alu.sdwa_dst_sel();
    if is_vdst && ds < 6 {
        let unused = i.alu.sdwa_dst_unused();
        let exec = w.exec.0 & w.full_mask();
        let (shift, width) = if ds < 4 {
            (8 * ds as u32, 8)
        } else {
            (16 * (ds as u32 - 4), 16)
        };
        let fmask = ((1u64 << width) - 1) as u32;
        let r = vdst(w, &d, 0)?;
        for l in 0..64 {
            if (exec >> l) & 1 == 0 {
                continue;
            }
            let f = r[l] & fmask;
            let placed = f << shift;
            let field = fmask << shift;
            r[l] = match unused {
                2 => (old[l] & !field) | placed,
                1 => {
                    let above = if shift + width >= 32 {
                        0
                    } else {
                        u32::MAX << (shift + width)
                    };
                    if (f >> (width - 1)) & 1 != 0 {
                        placed | above
                    } else {
                        placed
                    }
                }
                _ => placed,
            };
        }
    }
    Ok(())
}

/// Executes a DPP (GFX9 DPP, GFX10 DPP16) or DPP8 form (Vega ISA §6.5,
/// RDNA ISA §6.4 "Data Parallel Processing"): source 0 is read from another
/// lane of the same row (or group of eight); lanes whose row or bank is
/// masked off are not written; a lane whose source lane is out of range or
/// inactive reads 0 when `bound_ctrl` is set and is not written otherwise.
/// With GFX10's `fi` (fetch inactive) an inactive source lane is read like
/// an active one; DPP8 without `fi` reading an inactive lane is reported
/// (what it reads is not modelled).
#[allow(clippy::needless_range_loop)]
pub(crate) fn exec_dpp(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, dpp8: bool) -> R {
    let n = w.size as usize;
    let exec = w.exec.0 & w.full_mask();
    let src0 = v32(w, &i.src[0], Ty::I)?;
    let src1 = if i.src[1].is_some() {
        v32(w, &i.src[1], Ty::I)?
    } else {
        [0; 64]
    };
    let ctrl = i.alu.dpp_ctrl() as usize;
    let gfx10 = ctx.gfx10();
    let fi = i.alu.dpp_fi();
    let mut moved = [0u32; 64];
    let mut write = 0u64;
    for l in 0..n {
        let row = l & !15;
        let r = l & 15;
        let src: Option<usize> = if dpp8 {
            Some((l & !7) + i.alu.dpp8_sel(l) as usize)
        } else {
            match ctrl {
                0x000..=0x0ff => Some((l & !3) + ((ctrl >> (2 * (l & 3))) & 3)),
                0x101..=0x10f => {
                    let s = ctrl & 15;
                    (r + s < 16).then_some(l + s)
                }
                0x111..=0x11f => {
                    let s = ctrl & 15;
                    (r >= s).then(|| l - s)
                }
                0x121..=0x12f => Some(row + (r + 16 - (ctrl & 15)) % 16),
                0x130 if !gfx10 => (l + 1 < n).then_some(l + 1),
                0x134 if !gfx10 => Some((l + 1) % n),
                0x138 if !gfx10 => l.checked_sub(1),
                0x13c if !gfx10 => Some((l + n - 1) % n),
                0x140 => Some(row + 15 - r),
                0x141 => Some((l & !7) + 7 - (l & 7)),
                0x142 if !gfx10 => (row >= 16).then(|| row - 1),
                0x143 if !gfx10 => (row >= 32).then_some(31),
                0x150..=0x15f => Some(row + (ctrl & 15)),
                0x160..=0x16f if gfx10 => Some(row + (r ^ (ctrl & 15))),
                _ => return unsupported(format!("DPP control {ctrl:#x}")),
            }
        };
        let enabled = dpp8
            || ((i.alu.dpp_row_mask() >> (l / 16)) & 1 != 0
                && (i.alu.dpp_bank_mask() >> ((l & 15) / 4)) & 1 != 0);
        if !enabled {
            continue;
        }
        if let Some(s) = src.filter(|&s| dpp8 && !fi && s < n && (exec >> s) & 1 == 0) {
            return unsupported(format!("DPP8 without fi reading inactive lane {s}"));
        }
        match src.filter(|&s| s < n && (dpp8 || fi || (exec >> s) & 1 != 0)) {
            Some(s) => {
                moved[l] = src0[s];
                write |= 1 << l;
            }
            None if i.alu.dpp_bound_ctrl() => {
                moved[l] = 0;
                write |= 1 << l;
            }
            None => {}
        }
    }
    let saved = w.exec;
    w.exec = Mask(saved.0 & write);
    let r = exec_with(k, w, i, ctx, Some(&[moved, src1]));
    w.exec = saved;
    r
}

/// Executes `k` through the module of its class ([`class`]). The class
/// functions are inlined here (`#[inline(always)]`), so that this is compiled
/// as one function, as before the split: which operand's NaN a host `a + b`
/// returns when both are NaN depends on the code the compiler generates, and
/// the fast handlers are checked against this executor to the NaN payload.
fn exec_with(k: Kind, w: &mut Wave, i: &Inst, ctx: &Ctx, ov: Ov) -> R {
    let clamp = i.alu.clamp;
    if clamp && !int_clamp_modelled(k) {
        return unsupported("clamp (saturation) on this integer operation");
    }
    match class(k) {
        Some(Class::Lane) => lane::exec(k, w, i, ov),
        Some(Class::Int) => int::exec(k, w, i, ctx, ov),
        Some(Class::Conv) => conv::exec(k, w, i, ctx, ov),
        Some(Class::F32) => fp32::exec(k, w, i, ov),
        Some(Class::F64) => fp64::exec(k, w, i, ov),
        Some(Class::F16) => fp16::exec(k, w, i, ctx, ov),
        Some(Class::Packed) => packed::exec(k, w, i, ov),
        Some(Class::Cmp) => cmp::exec(k, w, i, ov),
        None if super::dot::handles(k) => {
            let exec = w.exec.0 & w.full_mask();
            super::dot::exec(k, w, i, ov, exec)
        }
        None if k == Kind::VMfma => super::mfma::exec(w, i, ctx.gpu == amdgpu_isa::Gpu::Gfx90a),
        None => Err(E::Unimpl),
    }
}

/// The class of an operation: which module executes it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    /// [`lane::exec`].
    Lane,
    /// [`int::exec`].
    Int,
    /// [`conv::exec`].
    Conv,
    /// [`fp32::exec`].
    F32,
    /// [`fp64::exec`].
    F64,
    /// [`fp16::exec`].
    F16,
    /// [`packed::exec`].
    Packed,
    /// [`cmp::exec`].
    Cmp,
}

/// The class of `k`, `None` for the operations executed elsewhere.
fn class(k: Kind) -> Option<Class> {
    use Kind::*;
    Some(match k {
        VNop | VMovB32 | VReadfirstlane | VReadlane | VWritelane | VMbcntLo | VMbcntHi
        | VCndmaskB32 | VMovrelsd2 | VSwaprel | VMovrels | VMovreld | VMovrelsd | VSwapB32
        | VPermlane16 | VPermlanex16 => Class::Lane,
        VNotB32 | VBfrevB32 | VFfbhU32 | VFfblB32 | VFfbhI32 | VAddU32 | VSubU32 | VSubrevU32
        | VAddI32 | VSubI32 | VAndB32 | VOrB32 | VXorB32 | VXnorB32 | VLshlrevB32 | VLshrrevB32
        | VAshrrevI32 | VMinU32 | VMaxU32 | VMinI32 | VMaxI32 | VMulU32U24 | VMulHiU32U24
        | VMulI32I24 | VMulLoU32 | VMulHiU32 | VMulHiI32 | VBfmB32 | VBcntU32 | VMadU32U24
        | VMadI32I24 | VLshlAddU32 | VAddLshlU32 | VLshlOrB32 | VAndOrB32 | VOr3B32 | VXor3B32
        | VAdd3U32 | VAlignbitB32 | VAlignbyteB32 | VBfeU32 | VBfeI32 | VBfiB32 | VMin3U32
        | VMax3U32 | VMin3I32 | VMax3I32 | VMed3U32 | VMed3I32 | VMulLoU16 | VAddU16 | VSubU16
        | VSubrevU16 | VAddI16 | VSubI16 | VLshlrevB16 | VLshrrevB16 | VMadU16 | VMadI16
        | VMadU32U16 | VMadI32I16 | VSadU8 | VSadHiU8 | VMsadU8 | VQsadPkU16U8 | VMqsadPkU16U8
        | VMqsadU32U8 | VSadU16 | VLerpU8 | VSatPkU8I16 | VAddCoU32 | VSubCoU32 | VSubrevCoU32
        | VAddcCoU32 | VSubbCoU32 | VSubbrevCoU32 | VMadU64U32 | VMadI64I32 | VLshlrevB64
        | VLshrrevB64 | VAshrrevI64 | VCvtPkI16I32 | VPermB32 | VSadU32 | VMulHiI32I24
        | VCvtPkU16U32 | VMaxU16 | VMinU16 | VMaxI16 | VMinI16 | VAshrrevI16 | VXadU32 => {
            Class::Int
        }
        VCvtF32U32 | VCvtF32I32 | VCvtF32Ubyte0 | VCvtF32Ubyte1 | VCvtF32Ubyte2 | VCvtF32Ubyte3
        | VCvtU32F32 | VCvtI32F32 | VCvtI32F64 | VCvtU32F64 | VCvtF64F32 | VCvtF32F64
        | VCvtF64I32 | VCvtF64U32 | VCvtF16F32 | VCvtF32F16 | VCvtOffF32I4 | VCvtPkrtz
        | VCvtPknormI16F32 | VCvtPknormU16F32 | VCvtPknormI16F16 | VCvtPknormU16F16
        | VCvtNormI16F16 | VCvtNormU16F16 | VCvtPkU8F32 | VCvtPkaccumU8F32 | VCvtFlrI32F32
        | VCvtRpiI32F32 | VCvtF16U16 | VCvtF16I16 | VCvtU16F16 | VCvtI16F16 => Class::Conv,
        VRcpF32 | VRsqF32 | VSqrtF32 | VTruncF32 | VCeilF32 | VFloorF32 | VRndneF32 | VFractF32
        | VExpF32 | VLogF32 | VSinF32 | VCosF32 | VFrexpMantF32 | VFrexpExpF32 | VMadLegacyF32
        | VFmaLegacyF32 | VMacLegacyF32 | VFmacLegacyF32 | VAddF32 | VSubF32 | VSubrevF32
        | VMulF32 | VMinF32 | VMaxF32 | VLdexpF32 | VFmaF32 | VFmacF32 | VMacF32 | VFmamkF32
        | VFmaakF32 | VMadmkF32 | VMadakF32 | VMadF32 | VDivFixupF32 | VDivScaleF32
        | VDivFmasF32 | VCubeidF32 | VCubemaF32 | VCubescF32 | VCubetcF32 | VMax3F32 | VMin3F32
        | VMed3F32 | VMulLegacyF32 | VExpLegacyF32 | VLogLegacyF32 | VMullitF32 => Class::F32,
        VRcpF64 | VRsqF64 | VSqrtF64 | VTruncF64 | VCeilF64 | VFloorF64 | VRndneF64 | VFractF64
        | VFrexpMantF64 | VFrexpExpF64 | VLdexpF64 | VFmacF64 | VAddF64 | VMulF64 | VMinF64
        | VMaxF64 | VFmaF64 | VDivFixupF64 | VDivScaleF64 | VDivFmasF64 | VTrigPreopF64 => {
            Class::F64
        }
        VAddF16 | VSubF16 | VSubrevF16 | VMulF16 | VMaxF16 | VMinF16 | VFmaF16 | VFmacF16
        | VSqrtF16 | VRcpF16 | VRsqF16 | VExpF16 | VLogF16 | VSinF16 | VCosF16 | VFractF16
        | VFloorF16 | VCeilF16 | VTruncF16 | VRndneF16 | VFrexpMantF16 | VFrexpExpF16
        | VLdexpF16 | VDivFixupF16 | VPackB32F16 | VMadF16 | VMacF16 | VMadmkF16 | VMadakF16
        | VFmamkF16 | VFmaakF16 | VMax3F16 | VMin3F16 | VMed3F16 | VMax3I16 | VMin3I16
        | VMed3I16 | VMax3U16 | VMin3U16 | VMed3U16 => Class::F16,
        VPkMovB32 | VPkAddF32 | VPkMulF32 | VPkFmaF32 | VPkAddU16 | VPkSubU16 | VPkAddI16
        | VPkSubI16 | VPkMulLoU16 | VPkLshlrevB16 | VPkLshrrevB16 | VPkAshrrevI16 | VPkMaxU16
        | VPkMinU16 | VPkMaxI16 | VPkMinI16 | VPkMadU16 | VPkMadI16 | VPkAddF16 | VPkMulF16
        | VPkFmaF16 | VPkMaxF16 | VPkMinF16 | VPkFmacF16 | VFmaMixF32 | VFmaMixloF16
        | VFmaMixhiF16 | VMadMixF32 | VMadMixloF16 | VMadMixhiF16 => Class::Packed,
        VCmp(_) | VCmpClassF32 | VCmpxClassF32 | VCmpClassF64 | VCmpxClassF64 | VCmpClassF16
        | VCmpxClassF16 => Class::Cmp,
        _ => return None,
    })
}

/// Whether the executor models the `clamp` bit of `k`: every float result
/// (clamped to [0, 1]) and the integer adds, subtracts and multiply-adds that
/// saturate. For the other integer operations a set clamp bit is reported as
/// unsupported rather than ignored.
fn int_clamp_modelled(k: Kind) -> bool {
    use Kind::*;
    !matches!(
        k,
        VMulLoU16
            | VMulU32U24
            | VMulI32I24
            | VMulHiU32U24
            | VMulHiI32I24
            | VMulLoU32
            | VMulHiU32
            | VMulHiI32
            | VAdd3U32
            | VLshlAddU32
            | VAddLshlU32
            | VSadU32
            | VBcntU32
            | VMbcntLo
            | VMbcntHi
            | VCvtPkU16U32
            | VMin3U32
            | VMax3U32
            | VMin3I32
            | VMax3I32
            | VMed3U32
            | VMed3I32
            | VXadU32
            | VPermlane16
            | VPermlanex16
            | VPackB32F16
            | VFrexpExpF16
            | VMax3I16
            | VMin3I16
            | VMed3I16
            | VMax3U16
            | VMin3U16
            | VMed3U16
            | VSadU8
            | VQsadPkU16U8
            | VMqsadPkU16U8
            | VMqsadU32U8
            | VSadHiU8
            | VSadU16
            | VMsadU8
            | VLerpU8
            | VSatPkU8I16
            | VCvtPkI16I32
            | VCvtPkU8F32
            | VCvtPkaccumU8F32
            | VCvtPknormI16F32
            | VCvtPknormU16F32
            | VCvtPknormI16F16
            | VCvtPknormU16F16
            | VCvtNormI16F16
            | VCvtNormU16F16
            | VMovrelsd2
            | VSwaprel
    )
}

/// A floating-point lane type of the VALU (f32, f64): how its sources are
/// fetched (VOP3 abs/neg, MODE's input denormals), how a result is finished
/// (output modifier, clamp, MODE's output denormals) and written back.
pub(super) trait Float: Copy + Default {
    /// Source `k` of every lane.
    fn src(w: &Wave, ov: Ov, i: &Inst, k: usize) -> Result<[Self; 64], E>;
    /// Whether MODE keeps output denormals of this type.
    fn keep(w: &Wave) -> bool;
    /// `v` with `omod` and `clamp` applied, flushed unless `keep`, as bits.
    fn finish(v: Self, omod: u8, clamp: bool, keep: bool) -> u64;
    /// The value's bits, unchanged.
    fn bits(self) -> u64;
    /// Writes the lanes of `exec` (bits as [`Float::finish`] gives them).
    fn write(w: &mut Wave, d: &Operand, r: &[u64; 64], exec: u64) -> R;
}

impl Float for f32 {
    fn src(w: &Wave, ov: Ov, i: &Inst, k: usize) -> Result<[f32; 64], E> {
        f32_src(w, ov, i, k)
    }
    fn keep(w: &Wave) -> bool {
        denorms(w, false).1
    }
    fn finish(v: f32, omod: u8, clamp: bool, keep: bool) -> u64 {
        let r = crate::alu::f32_out(v, omod, clamp);
        (if keep { r } else { ftz32(r) }).to_bits() as u64
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn write(w: &mut Wave, d: &Operand, r: &[u64; 64], exec: u64) -> R {
        wv32(w, d, &r.map(|x| x as u32), exec)
    }
}

impl Float for f64 {
    fn src(w: &Wave, ov: Ov, i: &Inst, k: usize) -> Result<[f64; 64], E> {
        f64_src(w, ov, i, k)
    }
    fn keep(w: &Wave) -> bool {
        denorms(w, true).1
    }
    fn finish(v: f64, omod: u8, clamp: bool, keep: bool) -> u64 {
        let r = crate::alu::f64_out(v, omod, clamp);
        (if keep { r } else { ftz64(r) }).to_bits()
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn write(w: &mut Wave, d: &Operand, r: &[u64; 64], exec: u64) -> R {
        wv64(w, d, r, exec)
    }
}

/// `D = f(lane, [S0, ..., S(N-1)])` lane by lane for a float type: the
/// sources fetched, the result finished and written back under EXEC.
#[inline(always)]
pub(super) fn lanes<T: Float, const N: usize>(
    w: &mut Wave,
    i: &Inst,
    ov: Ov,
    f: impl Fn(usize, [T; N]) -> T,
) -> R {
    let exec = w.exec.0 & w.full_mask();
    let mut s = [[T::default(); 64]; N];
    for (k, x) in s.iter_mut().enumerate() {
        *x = T::src(w, ov, i, k)?;
    }
    let keep = T::keep(w);
    let (omod, clamp) = (i.alu.omod, i.alu.clamp);
    let r = std::array::from_fn(|l| {
        T::finish(f(l, std::array::from_fn(|k| s[k][l])), omod, clamp, keep)
    });
    T::write(w, &i.dst[0], &r, exec)
}

/// A one-source float operation ([`lanes`]).
#[inline(always)]
pub(super) fn un<T: Float>(w: &mut Wave, i: &Inst, ov: Ov, f: impl Fn(T) -> T) -> R {
    lanes(w, i, ov, |_, [a]: [T; 1]| f(a))
}

/// A two-source float operation ([`lanes`]).
#[inline(always)]
pub(super) fn bin<T: Float>(w: &mut Wave, i: &Inst, ov: Ov, f: impl Fn(T, T) -> T) -> R {
    lanes(w, i, ov, |_, [a, b]: [T; 2]| f(a, b))
}

/// A three-source float operation ([`lanes`]).
#[inline(always)]
pub(super) fn tern<T: Float>(w: &mut Wave, i: &Inst, ov: Ov, f: impl Fn(T, T, T) -> T) -> R {
    lanes(w, i, ov, |_, [a, b, c]: [T; 3]| f(a, b, c))
}

/// `v_div_scale_f32/f64`: D = the scaled operand (no output modifier),
/// and the lanes that need `v_div_fmas`'s scaling in the mask destination.
pub(super) fn div_scale<T: Float>(
    w: &mut Wave,
    i: &Inst,
    ov: Ov,
    f: impl Fn(T, T, T) -> (T, bool),
) -> R {
    let exec = w.exec.0 & w.full_mask();
    let (a, b, c) = (
        T::src(w, ov, i, 0)?,
        T::src(w, ov, i, 1)?,
        T::src(w, ov, i, 2)?,
    );
    let mut vcc = 0u64;
    let r = std::array::from_fn(|l| {
        let (v, scaled) = f(a[l], b[l], c[l]);
        vcc |= (scaled as u64) << l;
        v.bits()
    });
    T::write(w, &i.dst[0], &r, exec)?;
    write_mask_dst(w, &i.dst[1], vcc & exec)
}

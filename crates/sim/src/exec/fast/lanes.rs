//! Lane helpers of the vector handlers: source fetches straight from the
//! register file, write-back under EXEC, and the f32 fused multiply-add over
//! lanes (host FMA when there is one).

use super::*;

/// The mask of a wave's `N` lanes.
#[inline(always)]
pub(super) fn full<const N: usize>() -> u64 {
    if N == 64 { u64::MAX } else { (1u64 << N) - 1 }
}

/// Masks of the lanes where `a < b`, `a == b`, `a > b`.
#[inline(always)]
pub(super) fn masks<const N: usize, T: PartialOrd + Copy>(
    a: &[T; N],
    b: &[T; N],
) -> (u64, u64, u64) {
    let (mut lt, mut eq, mut gt) = (0u64, 0u64, 0u64);
    for l in 0..N {
        lt |= ((a[l] < b[l]) as u64) << l;
        eq |= ((a[l] == b[l]) as u64) << l;
        gt |= ((a[l] > b[l]) as u64) << l;
    }
    (lt, eq, gt)
}

/// Source lanes: a VGPR's first `N` lanes, or a scalar broadcast.
#[inline(always)]
pub(super) fn fetch<const N: usize>(w: &Wave, s: &Src) -> Option<[u32; N]> {
    let mut out = [0u32; N];
    fetch_into(w, s, &mut out).then_some(out)
}

/// [`fetch`] into `out` (no array moved through a return value); `false`
/// when the source cannot be read here.
#[inline(always)]
pub(super) fn fetch_into<const N: usize>(w: &Wave, s: &Src, out: &mut [u32; N]) -> bool {
    match *s {
        Src::V(r) => match w.vgpr.get(r as usize) {
            Some(row) => {
                out.copy_from_slice(&row[..N]);
                true
            }
            None => false,
        },
        Src::S(r) => match w.sgpr.get(r as usize) {
            Some(&v) => {
                out.fill(v);
                true
            }
            None => false,
        },
        Src::K(k) => {
            out.fill(k);
            true
        }
        Src::Other(op) => match s32(w, &op) {
            Ok(v) => {
                out.fill(v);
                true
            }
            Err(_) => false,
        },
    }
}

/// 64-bit source lanes into `out`; `false` when the source cannot be read
/// here.
#[inline(always)]
pub(super) fn fetch64_into<const N: usize>(w: &Wave, s: &Src64, out: &mut [u64; N]) -> bool {
    match *s {
        Src64::V(r) => match (w.vgpr.get(r as usize), w.vgpr.get(r as usize + 1)) {
            (Some(lo), Some(hi)) => {
                for l in 0..N {
                    out[l] = lo[l] as u64 | (hi[l] as u64) << 32;
                }
                true
            }
            _ => false,
        },
        Src64::K(k) => {
            out.fill(k);
            true
        }
        Src64::Other(op) => match super::super::operand::s64(w, &op) {
            Ok(v) => {
                out.fill(v);
                true
            }
            Err(_) => false,
        },
    }
}

/// [`fetch_into`] with `neg` (bit `k`) applied as a sign flip.
#[inline(always)]
pub(super) fn fetch_f_into<const N: usize>(
    w: &Wave,
    s: &Src,
    neg: u8,
    k: u8,
    out: &mut [u32; N],
) -> bool {
    if !fetch_into(w, s, out) {
        return false;
    }
    if (neg >> k) & 1 != 0 {
        for x in out.iter_mut() {
            *x ^= 0x8000_0000;
        }
    }
    true
}

/// Writes `f(l)` to lane `l` of VGPR `d` for the lanes in EXEC.
#[inline(always)]
pub(super) fn write<const N: usize>(w: &mut Wave, d: u8, f: impl Fn(usize) -> u32) -> bool {
    let exec = w.exec.0;
    let Some(dst) = w.vgpr.get_mut(d as usize) else {
        return false;
    };
    let dst = &mut dst[..N];
    let full = if N == 64 { u64::MAX } else { (1u64 << N) - 1 };
    if exec & full == full {
        for (l, x) in dst.iter_mut().enumerate() {
            *x = f(l);
        }
    } else {
        for (l, x) in dst.iter_mut().enumerate() {
            // A branch-free select, so the loop vectorises.
            let m = 0u32.wrapping_sub(((exec >> l) & 1) as u32);
            *x = (f(l) & m) | (*x & !m);
        }
    }
    true
}

#[inline(always)]
pub(super) fn u2<const N: usize>(
    w: &mut Wave,
    d: u8,
    a: &Src,
    b: &Src,
    f: impl Fn(u32, u32) -> u32,
) -> bool {
    let (mut x, mut y) = ([0u32; N], [0u32; N]);
    if !(fetch_into(w, a, &mut x) && fetch_into(w, b, &mut y)) {
        return false;
    }
    write::<N>(w, d, |l| f(x[l], y[l]))
}

#[inline(always)]
pub(super) fn u3<const N: usize>(
    w: &mut Wave,
    d: u8,
    (a, b, c): (&Src, &Src, &Src),
    f: impl Fn(u32, u32, u32) -> u32,
) -> bool {
    let (mut x, mut y, mut z) = ([0u32; N], [0u32; N], [0u32; N]);
    if !(fetch_into(w, a, &mut x) && fetch_into(w, b, &mut y) && fetch_into(w, c, &mut z)) {
        return false;
    }
    write::<N>(w, d, |l| f(x[l], y[l], z[l]))
}

/// f32 source lanes with `neg` (bit `k`) applied as a sign flip.
#[inline(always)]
pub(super) fn fetch_f<const N: usize>(w: &Wave, s: &Src, neg: u8, k: u8) -> Option<[u32; N]> {
    let mut out = [0u32; N];
    fetch_f_into(w, s, neg, k, &mut out).then_some(out)
}

/// A two-source f32 operation lane by lane; `f` is the host's arithmetic,
/// whose NaN results are replaced by the simulator's.
#[inline(always)]
pub(super) fn f2<const N: usize>(
    w: &mut Wave,
    d: u8,
    (a, b, neg): (&Src, &Src, u8),
    f: impl Fn(f32, f32) -> f32,
) -> bool {
    let (mut x, mut y) = ([0u32; N], [0u32; N]);
    if !(fetch_f_into(w, a, neg, 0, &mut x) && fetch_f_into(w, b, neg, 1, &mut y)) {
        return false;
    }
    // The host's results first (a loop the compiler vectorises), then, in
    // the rare case of a NaN, the lanes that have one get the NaN the
    // simulator's convention picks ([`crate::alu::nan_first32`]).
    let mut r = [0u32; N];
    let mut nan = false;
    for l in 0..N {
        let v = f(f32::from_bits(x[l]), f32::from_bits(y[l]));
        nan |= v.is_nan();
        r[l] = v.to_bits();
    }
    if nan {
        for l in 0..N {
            let v = f32::from_bits(r[l]);
            r[l] =
                crate::alu::nan_first32(v, [f32::from_bits(x[l]), f32::from_bits(y[l])]).to_bits();
        }
    }
    write::<N>(w, d, |l| r[l])
}

/// `a * b + c` exactly rounded, lane by lane, on f32 bit patterns: through
/// the host's FMA instruction when it has one, [`f32::mul_add`] otherwise
/// (and for every lane whose result is a NaN).
#[inline(always)]
pub(crate) fn fma_lanes<const N: usize>(a: &[u32; N], b: &[u32; N], c: &[u32; N]) -> [u32; N] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has the FMA instructions the function is compiled for.
            return unsafe { fma_lanes_x86::<N>(a, b, c) };
        }
    }
    fma_lanes_portable::<N>(a, b, c)
}

/// [`fma_lanes`] through [`f32::mul_add`] alone (the reference).
#[inline(always)]
pub(crate) fn fma_lanes_portable<const N: usize>(
    a: &[u32; N],
    b: &[u32; N],
    c: &[u32; N],
) -> [u32; N] {
    std::array::from_fn(|l| fma_portable(a[l], b[l], c[l]))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
pub(super) fn fma_lanes_x86<const N: usize>(a: &[u32; N], b: &[u32; N], c: &[u32; N]) -> [u32; N] {
    let mut r = [0u32; N];
    let mut nan = false;
    for l in 0..N {
        let v = f32::from_bits(a[l]).mul_add(f32::from_bits(b[l]), f32::from_bits(c[l]));
        nan |= v.is_nan();
        r[l] = v.to_bits();
    }
    if nan {
        // NaN lanes as the simulator's convention gives them.
        for l in 0..N {
            if f32::from_bits(r[l]).is_nan() {
                r[l] = fma_portable(a[l], b[l], c[l]);
            }
        }
    }
    r
}

/// One [`f32::mul_add`] compiled for the baseline target: never inlined into
/// a function compiled with FMA (where it would become the instruction).
#[inline(never)]
pub(super) fn fma_portable(a: u32, b: u32, c: u32) -> u32 {
    crate::alu::fma_f32(f32::from_bits(a), f32::from_bits(b), f32::from_bits(c)).to_bits()
}

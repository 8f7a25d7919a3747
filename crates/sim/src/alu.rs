//! Pure per-lane ALU semantics shared by every encoding of an operation
//! (VOP1/VOP2/VOP3/SDWA/DPP): source modifiers, output modifiers, half
//! precision conversions and the special floating-point helpers.
//!
//! Rounding is round-to-nearest-even (the mode every kernel of the corpus
//! uses; `FLOAT_ROUND_MODE_*` = 0); denormals are preserved (IEEE behaviour,
//! `FLOAT_DENORM_MODE_*` = 3, clang's default for GFX9/GFX10), except where a
//! helper says otherwise.

/// Applies VOP3 `abs` then `neg` source modifiers to an f32 bit pattern
/// (Vega ISA §6.3 "Input modifiers": abs is applied before neg).
#[inline]
pub fn f32_src_mods(bits: u32, abs: bool, neg: bool) -> u32 {
    let b = if abs { bits & 0x7fff_ffff } else { bits };
    if neg { b ^ 0x8000_0000 } else { b }
}

/// As [`f32_src_mods`] for f64.
#[inline]
pub fn f64_src_mods(bits: u64, abs: bool, neg: bool) -> u64 {
    let b = if abs { bits & !(1 << 63) } else { bits };
    if neg { b ^ (1 << 63) } else { b }
}

/// Output modifier then clamp for f32 (Vega ISA §6.3 "Output modifiers"):
/// `omod` 1 multiplies by 2, 2 by 4, 3 divides by 2; clamp limits to [0, 1]
/// (NaN clamps to 0).
#[inline]
pub fn f32_out(v: f32, omod: u8, clamp: bool) -> f32 {
    let v = match omod {
        1 => v * 2.0,
        2 => v * 4.0,
        3 => v * 0.5,
        _ => v,
    };
    if clamp {
        if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
    } else {
        v
    }
}

/// As [`f32_out`] for f64.
#[inline]
pub fn f64_out(v: f64, omod: u8, clamp: bool) -> f64 {
    let v = match omod {
        1 => v * 2.0,
        2 => v * 4.0,
        3 => v * 0.5,
        _ => v,
    };
    if clamp {
        if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
    } else {
        v
    }
}

/// IEEE binary16 to binary32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let mant = (h & 0x3ff) as u32;
    let bits = match (exp, mant) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: value = m * 2^-24.
            let v = m as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// IEEE binary32 to binary16 with round-to-nearest-even; overflow gives
/// infinity, NaN stays a (quiet) NaN.
pub fn f32_to_f16(f: f32) -> u16 {
    let bits = f.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return if mant == 0 {
            sign | 0x7c00
        } else {
            sign | 0x7e00 | ((mant >> 13) as u16 & 0x1ff)
        };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // Subnormal or zero in f16: shift the full significand.
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (mant >> 13);
    let rest = mant & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// IEEE binary64 to binary16 with round-to-nearest-even (one rounding, so
/// f16 arithmetic computed exactly in f64 rounds correctly).
pub fn f64_to_f16(f: f64) -> u16 {
    let bits = f.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let mant = bits & ((1u64 << 52) - 1);
    if exp == 0x7ff {
        return if mant == 0 {
            sign | 0x7c00
        } else {
            sign | 0x7e00 | ((mant >> 42) as u16 & 0x1ff)
        };
    }
    let e = exp - 1023 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    let (m, shift) = if e <= 0 {
        if e < -11 {
            return sign;
        }
        (mant | 1u64 << 52, (43 - e) as u32)
    } else {
        (mant, 42u32)
    };
    let half = 1u64 << (shift - 1);
    let rest = m & ((1u64 << shift) - 1);
    let mut r = (m >> shift) as u32;
    if e > 0 {
        r |= (e as u32) << 10;
    }
    if rest > half || (rest == half && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

/// `v_frexp_mant_f32`: the significand scaled to [0.5, 1); NaN, infinity and
/// zero are returned unchanged.
pub fn frexp_mant_f32(x: f32) -> f32 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let (m, _) = frexp64(x as f64);
    m as f32
}

/// `v_frexp_exp_i32_f32`: the exponent such that x = mant * 2^exp; 0 for
/// NaN, infinity and zero.
pub fn frexp_exp_f32(x: f32) -> i32 {
    if !x.is_finite() || x == 0.0 {
        return 0;
    }
    frexp64(x as f64).1
}

/// frexp for finite nonzero f64.
pub fn frexp64(x: f64) -> (f64, i32) {
    if !x.is_finite() || x == 0.0 {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: normalise first.
        let (m, e) = frexp64(x * f64::from_bits(0x4350_0000_0000_0000)); // 2^54
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022u64 << 52));
    (m, exp - 1022)
}

/// `ldexp` for f64, correctly rounded (scaling in steps keeps it exact
/// until the final rounding).
pub fn ldexp64(x: f64, e: i32) -> f64 {
    let mut v = x;
    let mut e = e.clamp(-2200, 2200);
    while e > 1000 {
        v *= f64::from_bits(0x7e70_0000_0000_0000); // 2^1000
        e -= 1000;
    }
    while e < -1000 {
        v *= f64::from_bits(0x0170_0000_0000_0000); // 2^-1000
        e += 1000;
    }
    v * f64::from_bits(((e + 1023) as u64) << 52)
}

/// `ldexp` for f32 (computed in f64, then rounded once).
pub fn ldexp32(x: f32, e: i32) -> f32 {
    ldexp64(x as f64, e) as f32
}

/// The exponent field of an f64 (biased).
fn exp_f64(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32
}

/// The exponent field of an f32 (biased).
fn exp_f32(x: f32) -> i32 {
    ((x.to_bits() >> 23) & 0xff) as i32
}

/// Defines `v_div_scale` for one precision: `$far` is the exponent gap
/// beyond which the quotient would overflow, `$scale` the power of two
/// applied, `$mant` the mantissa width.
///
/// The branches are the guides' pseudo-code (Vega, CDNA, RDNA), with one
/// deliberate difference: when both `1 / S1` and `S2 / S1` are denormal the
/// guides scale the denominator by `2^+$scale`, but such a denominator is at
/// least `2^(emax-1)`, so that scaling overflows to infinity and the
/// compiler's division sequence would return infinity for a tiny quotient.
/// Scaling it by `2^-$scale` (with VCC set, so `v_div_fmas` scales the
/// result back down) gives the correctly rounded quotient that double
/// division on the hardware is specified to produce; the unit tests run
/// LLVM's f32 and f64 division sequences over the whole exponent range
/// against the host's division. (gem5 follows the text literally.)
macro_rules! div_scale {
    ($(#[$doc:meta])* $name:ident, $t:ty, $exp:ident, $ldexp:ident, $far:expr, $scale:expr, $mant:expr) => {
        $(#[$doc])*
        pub fn $name(s0: $t, s1: $t, s2: $t) -> ($t, bool) {
            if s2 == 0.0 || s1 == 0.0 || s1.is_nan() || s2.is_nan() || s1.is_infinite() {
                return (<$t>::NAN, false);
            }
            let (e1, e2) = ($exp(s1), $exp(s2));
            let mut vcc = false;
            let mut d = s0;
            if e2 - e1 >= $far {
                vcc = true;
                if s0 == s1 {
                    d = $ldexp(s0, $scale);
                }
            } else if e1 == 0 {
                d = $ldexp(s0, $scale);
            } else if $exp(1.0 / s1) == 0 && $exp(s2 / s1) == 0 {
                vcc = true;
                if s0 == s1 {
                    d = $ldexp(s0, -$scale);
                }
            } else if $exp(1.0 / s1) == 0 {
                d = $ldexp(s0, -$scale);
            } else if $exp(s2 / s1) == 0 {
                vcc = true;
                if s0 == s2 {
                    d = $ldexp(s0, $scale);
                }
            } else if e2 <= $mant {
                d = $ldexp(s0, $scale);
            }
            (d, vcc)
        }
    };
}

div_scale!(
    /// `v_div_scale_f64` (Vega ISA, VOP3b): prescales the numerator or
    /// denominator `s0` of `s2 / s1` so that the Newton-Raphson division that
    /// follows neither overflows nor underflows. Returns `(value, vcc)`; `vcc`
    /// asks `v_div_fmas_f64` to undo the scaling.
    div_scale_f64, f64, exp_f64, ldexp64, 768, 128, 53
);

div_scale!(
    /// `v_div_scale_f32`, as [`div_scale_f64`] with f32 limits (96 instead of
    /// 768, 64 instead of 128, 23 instead of 53).
    div_scale_f32, f32, exp_f32, ldexp32, 96, 64, 23
);

/// The power of two `v_div_fmas_f32` applies when VCC is set, undoing the
/// prescaling `v_div_scale_f32` flagged: `s2` is the scaled quotient. When the
/// denominator was scaled up (a huge quotient) the scaled quotient is large and
/// the result is scaled up by 2^64; when the numerator was scaled up (a
/// denormal quotient) it is tiny and the result is scaled down by 2^64. (The
/// ISA guides' pseudocode shows a fixed scale; that cannot undo both cases.)
/// Scaled quotients from `v_div_scale_f32` are at least 2^32 or below 2^-62,
/// so where between them the split lies does not change a division.
pub fn div_fmas_scale_f32(s2: f32) -> i32 {
    if exp_f32(s2) >= 127 { 64 } else { -64 }
}

/// As [`div_fmas_scale_f32`] for `v_div_fmas_f64` (scale 2^128 either way).
pub fn div_fmas_scale_f64(s2: f64) -> i32 {
    if exp_f64(s2) >= 1023 { 128 } else { -128 }
}

/// A binary floating-point format, for [`fma_scaled_bits`].
#[derive(Clone, Copy)]
struct Format {
    /// Significand bits, the implicit one included (53 or 24).
    precision: u32,
    /// Exponent of the smallest denormal's unit (-1074 or -149).
    quantum_min: i32,
    /// Largest unbiased exponent of a finite value (1023 or 127).
    emax: i32,
}

const F64: Format = Format {
    precision: 53,
    quantum_min: -1074,
    emax: 1023,
};
const F32: Format = Format {
    precision: 24,
    quantum_min: -149,
    emax: 127,
};

impl Format {
    /// A finite value's sign, integer significand and exponent of its unit.
    fn split(self, bits: u64) -> (bool, u128, i32) {
        let frac_bits = self.precision - 1;
        let exp_bits = if self.precision == 53 { 11 } else { 8 };
        let sign = (bits >> (frac_bits + exp_bits)) & 1 != 0;
        let e = ((bits >> frac_bits) & ((1 << exp_bits) - 1)) as i32;
        let f = (bits & ((1 << frac_bits) - 1)) as u128;
        if e == 0 {
            (sign, f, self.quantum_min)
        } else {
            (sign, f | 1 << frac_bits, self.quantum_min + e - 1)
        }
    }

    /// The bits of `(-1)^sign * m * 2^q`, rounded once to nearest even.
    fn round(self, sign: bool, m: u128, q: i32) -> u64 {
        let frac_bits = self.precision - 1;
        let exp_bits = if self.precision == 53 { 11 } else { 8 };
        let sign_bit = (sign as u64) << (frac_bits + exp_bits);
        if m == 0 {
            return sign_bit;
        }
        let top = 127 - m.leading_zeros() as i32; // value in [2^(q+top), 2^(q+top+1))
        let unit = (q + top - frac_bits as i32).max(self.quantum_min);
        let shift = unit - q;
        let mut r = if shift <= 0 {
            m << (-shift) as u32
        } else if shift >= 129 {
            0
        } else {
            let (kept, half, rest) = if shift == 128 {
                (0, 1u128 << 127, m)
            } else {
                (m >> shift, 1u128 << (shift - 1), m & ((1u128 << shift) - 1))
            };
            if rest > half || rest == half && kept & 1 == 1 {
                kept + 1
            } else {
                kept
            }
        };
        let mut unit = unit;
        if r >> self.precision != 0 {
            r >>= 1;
            unit += 1;
        }
        if unit + frac_bits as i32 > self.emax {
            return sign_bit | ((1u64 << exp_bits) - 1) << frac_bits;
        }
        if r >> frac_bits == 0 {
            return sign_bit | r as u64; // denormal (or zero)
        }
        let e = (unit - self.quantum_min + 1) as u64;
        sign_bit | e << frac_bits | (r as u64 & ((1 << frac_bits) - 1))
    }
}

/// `a * b + c` scaled by `2^scale` and rounded once to nearest even, for
/// finite operands given as the bits of `format`: what `v_div_fmas` computes
/// when VCC is set (a scaled result in the denormal range is rounded once,
/// not once at full precision and again when scaled).
fn fma_scaled_bits(format: Format, a: u64, b: u64, c: u64, scale: i32) -> u64 {
    let (sa, ma, qa) = format.split(a);
    let (sb, mb, qb) = format.split(b);
    let (sc, mc, qc) = format.split(c);
    let (sp, mp, qp) = (sa != sb, ma * mb, qa + qb);
    if mp == 0 && mc == 0 {
        return format.round(sp && sc, 0, 0);
    }
    // Both terms with their leading one at bit 125, so the larger exponent
    // is the larger magnitude; the smaller is shifted right with a sticky bit.
    let norm = |m: u128, q: i32| {
        if m == 0 {
            (0, i32::MIN / 2)
        } else {
            let z = m.leading_zeros() as i32 - 2;
            (m << z, q - z)
        }
    };
    let (mp, qp) = norm(mp, qp);
    let (mc, qc) = norm(mc, qc);
    let ((s_big, m_big, q), (s_small, m_small, q_small)) = if qp >= qc {
        ((sp, mp, qp), (sc, mc, qc))
    } else {
        ((sc, mc, qc), (sp, mp, qp))
    };
    let d = (q - q_small) as u32;
    let small = if d == 0 {
        m_small
    } else if d >= 127 {
        (m_small != 0) as u128
    } else {
        m_small >> d | (m_small & ((1u128 << d) - 1) != 0) as u128
    };
    let (sign, m) = if s_big == s_small {
        (s_big, m_big + small)
    } else if m_big >= small {
        (s_big, m_big - small)
    } else {
        (s_small, small - m_big)
    };
    if m == 0 {
        return format.round(false, 0, 0); // exact cancellation: +0
    }
    format.round(sign, m, q.saturating_add(scale))
}

/// `fma(a, b, c) * 2^scale` with one rounding (`v_div_fmas_f64` with VCC
/// set); a NaN or infinite operand gives the host's `fma` scaled.
pub fn fma_scaled_f64(a: f64, b: f64, c: f64, scale: i32) -> f64 {
    if !(a.is_finite() && b.is_finite() && c.is_finite()) {
        return ldexp64(a.mul_add(b, c), scale);
    }
    f64::from_bits(fma_scaled_bits(
        F64,
        a.to_bits(),
        b.to_bits(),
        c.to_bits(),
        scale,
    ))
}

/// As [`fma_scaled_f64`] for f32 (`v_div_fmas_f32` with VCC set).
pub fn fma_scaled_f32(a: f32, b: f32, c: f32, scale: i32) -> f32 {
    if !(a.is_finite() && b.is_finite() && c.is_finite()) {
        return ldexp32(a.mul_add(b, c), scale);
    }
    let bits = fma_scaled_bits(
        F32,
        a.to_bits() as u64,
        b.to_bits() as u64,
        c.to_bits() as u64,
        scale,
    );
    f32::from_bits(bits as u32)
}

/// Defines `v_div_fixup` for one precision (Vega ISA, VOP3 pseudo-code):
/// the special cases of `s2 / s1` given the quotient estimate `s0`, in the
/// guide's order: a NaN numerator first, then a NaN denominator, each
/// quietened; 0/0 and inf/inf give the negative quiet NaN `$nan`; then
/// infinities and zeros; otherwise `s0` with the sign of the quotient.
/// In the guide's underflow case (`exponent(S2) - exponent(S1) < $under`)
/// the quotient is below half the smallest denormal, which
/// round-to-nearest-even (the only rounding mode the executor models: a
/// float source is refused under any other) turns into a zero of the
/// quotient's sign.
macro_rules! div_fixup {
    ($(#[$doc:meta])* $name:ident, $t:ty, $exp:ident, $quiet:ident, $nan:expr, $under:expr) => {
        $(#[$doc])*
        pub fn $name(s0: $t, s1: $t, s2: $t) -> $t {
            let sign = s1.is_sign_negative() != s2.is_sign_negative();
            let signed = |v: $t| if sign { -v } else { v };
            if s2.is_nan() {
                $quiet(s2)
            } else if s1.is_nan() {
                $quiet(s1)
            } else if s1 == 0.0 && s2 == 0.0 || s1.is_infinite() && s2.is_infinite() {
                <$t>::from_bits($nan)
            } else if s1 == 0.0 || s2.is_infinite() {
                signed(<$t>::INFINITY)
            } else if s1.is_infinite() || s2 == 0.0 {
                signed(0.0)
            } else if $exp(s2) - $exp(s1) < $under {
                signed(0.0)
            } else if s0.is_nan() {
                // The estimate overflowed inside the iteration.
                signed(<$t>::INFINITY)
            } else {
                signed(s0.abs())
            }
        }
    };
}

div_fixup!(
    /// `v_div_fixup_f64` (NaN `0xfff8000000000000`, underflow below -1075).
    div_fixup_f64, f64, exp_f64, quiet64, 0xfff8_0000_0000_0000, -1075
);

div_fixup!(
    /// `v_div_fixup_f32` (NaN `0xffc00000`, underflow below -150).
    div_fixup_f32, f32, exp_f32, quiet32, 0xffc0_0000, -150
);

/// `v_cmp_class_f32/f64` class bits (Vega ISA, VOPC): 0 signalling NaN, 1 quiet
/// NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf.
/// Class bit of an f32 (denormals judged at f32 precision).
pub fn fp_class_f32(x: f32) -> u32 {
    let bits = x.to_bits();
    if x.is_nan() {
        return if bits & 0x0040_0000 == 0 { 0 } else { 1 };
    }
    let c = if x.is_infinite() {
        9
    } else if x == 0.0 {
        6
    } else if x.is_subnormal() {
        7
    } else {
        8
    };
    if x.is_sign_negative() { 11 - c } else { c }
}

/// Class bit of an f64.
pub fn fp_class_f64(x: f64) -> u32 {
    let bits = x.to_bits();
    if x.is_nan() {
        return if bits & (1 << 51) == 0 { 0 } else { 1 };
    }
    let c = if x.is_infinite() {
        9
    } else if x == 0.0 {
        6
    } else if x.is_subnormal() {
        7
    } else {
        8
    };
    if x.is_sign_negative() { 11 - c } else { c }
}

/// f32 to u32 conversion as the hardware does it: NaN gives 0, out of range
/// saturates, fractions truncate.
pub fn cvt_u32_f32(x: f32) -> u32 {
    // Rust's `as` saturates and maps NaN to 0, which is the hardware rule.
    x as u32
}

/// f32 to i32 conversion (NaN 0, saturating, truncating).
pub fn cvt_i32_f32(x: f32) -> i32 {
    x as i32
}

/// f64 to i32 conversion (NaN 0, saturating, truncating).
pub fn cvt_i32_f64(x: f64) -> i32 {
    x as i32
}

/// IEEE-754 2008 `minNum` as the GFX9/GFX10 `v_min_f32` does it in IEEE mode:
/// a NaN operand yields the other operand; -0 < +0.
pub fn min_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        return quiet32(b);
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}

/// `maxNum` counterpart of [`min_f32`].
pub fn max_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        return quiet32(b);
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}

/// `v_min_f64` in IEEE mode, as [`min_f32`]: a NaN operand yields the other
/// operand (quietened when both are NaN); -0 < +0.
pub fn min_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return quiet64(b);
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}

/// `maxNum` counterpart of [`min_f64`].
pub fn max_f64(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        return quiet64(b);
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}

/// `v_fract_f32` (Vega ISA, VOP1: `D = S0 - floor(S0)`, at most the largest
/// f32 below 1.0): a NaN input gives that NaN, quietened; an infinity gives NaN.
pub fn fract_f32(x: f32) -> f32 {
    if x.is_nan() {
        quiet32(x)
    } else if x.is_infinite() {
        f32::NAN
    } else {
        (x - x.floor()).min(f32::from_bits(0x3f7f_ffff))
    }
}

/// `v_fract_f64`, as [`fract_f32`].
pub fn fract_f64(x: f64) -> f64 {
    if x.is_nan() {
        quiet64(x)
    } else if x.is_infinite() {
        f64::NAN
    } else {
        (x - x.floor()).min(f64::from_bits(0x3fef_ffff_ffff_ffff))
    }
}

/// Clamp of a float result to [0, 1] (the `clamp` output modifier): NaN
/// clamps to +0, as in [`f32_out`].
pub fn clamp_unit_f64(v: f64) -> f64 {
    if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
}

/// `v_ffbh_u32` / `s_flbit_i32_b32`: the number of zero bits above the most
/// significant one bit; -1 (all ones) when the value is zero.
pub fn ffbh_u32(a: u32) -> u32 {
    if a == 0 { u32::MAX } else { a.leading_zeros() }
}

/// `v_ffbh_u32` of a 64-bit value (`s_flbit_i32_b64`).
pub fn ffbh_u64(a: u64) -> u32 {
    if a == 0 { u32::MAX } else { a.leading_zeros() }
}

/// `v_ffbl_b32` / `s_ff1_i32_b32`: the index of the least significant one
/// bit; -1 when the value is zero.
pub fn ffbl_b32(a: u32) -> u32 {
    if a == 0 { u32::MAX } else { a.trailing_zeros() }
}

/// `v_ffbh_i32` / `s_flbit_i32` (Vega ISA, VOP1 and SOP1): counting from the
/// most significant bit (bit 31 is position 0), the position of the first
/// bit that differs from the sign bit; -1 when every bit equals the sign bit
/// (0 and -1). `0x0000ffff` gives 16, `0xffff0000` gives 16, `1` gives 31.
pub fn ffbh_i32(a: u32) -> u32 {
    let v = if (a as i32) < 0 { !a } else { a };
    if v == 0 { u32::MAX } else { v.leading_zeros() }
}

/// `s_flbit_i32_i64`: [`ffbh_i32`] of a 64-bit value.
pub fn ffbh_i64(a: u64) -> u32 {
    let v = if (a as i64) < 0 { !a } else { a };
    if v == 0 { u32::MAX } else { v.leading_zeros() }
}

fn quiet64(x: f64) -> f64 {
    if x.is_nan() {
        f64::from_bits(x.to_bits() | 1 << 51)
    } else {
        x
    }
}

fn quiet32(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(x.to_bits() | 0x0040_0000)
    } else {
        x
    }
}

/// The quiet NaN an f32 operation produces when no operand is a NaN
/// (`0xffc00000`, the NaN the ISA guides' `V_DIV_FIXUP_F32` writes for 0/0).
pub const F32_DEFAULT_NAN: u32 = 0xffc0_0000;

/// The quiet NaN an f64 operation produces when no operand is a NaN
/// (`0xfff8000000000000`, `V_DIV_FIXUP_F64`'s).
pub const F64_DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;

/// `r`, the host's result of an f32 arithmetic operation on `ops` (in source
/// order), with the NaN this simulator returns when it is one: the first
/// NaN operand, quietened, else [`F32_DEFAULT_NAN`]. The host's own choice
/// among several NaN operands depends on the order in which its compiler
/// placed them in the machine instruction, so it is never used.
#[inline(always)]
pub fn nan_first32<const K: usize>(r: f32, ops: [f32; K]) -> f32 {
    if !r.is_nan() {
        return r;
    }
    for x in ops {
        if x.is_nan() {
            return quiet32(x);
        }
    }
    f32::from_bits(F32_DEFAULT_NAN)
}

/// [`nan_first32`] for f64 operations ([`F64_DEFAULT_NAN`]).
#[inline(always)]
pub fn nan_first64<const K: usize>(r: f64, ops: [f64; K]) -> f64 {
    if !r.is_nan() {
        return r;
    }
    for x in ops {
        if x.is_nan() {
            return quiet64(x);
        }
    }
    f64::from_bits(F64_DEFAULT_NAN)
}

/// `a * b + c` rounded once (`v_fma_f32`, `v_fmac_f32`), NaNs by
/// [`nan_first32`].
#[inline(always)]
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    nan_first32(a.mul_add(b, c), [a, b, c])
}

/// `a * b + c` rounded once (`v_fma_f64`, `v_fmac_f64`), NaNs by
/// [`nan_first64`].
#[inline(always)]
pub fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    nan_first64(a.mul_add(b, c), [a, b, c])
}

/// The quiet NaN an f16 operation produces when no input is a NaN
/// (`0xfe00`: the value the ISA guides give `v_div_fixup_f16` for 0/0 and
/// inf/inf).
pub const F16_DEFAULT_NAN: u16 = 0xfe00;

/// Whether an f16 bit pattern is a NaN.
pub fn f16_is_nan(h: u16) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x03ff != 0
}

/// An f16 NaN with its quiet bit set (other values unchanged).
pub fn quiet16(h: u16) -> u16 {
    if f16_is_nan(h) { h | 0x0200 } else { h }
}

/// Whether an f16 bit pattern is a denormal.
pub fn f16_is_denormal(h: u16) -> bool {
    h & 0x7c00 == 0 && h & 0x03ff != 0
}

/// The value of an f16 bit pattern (exact).
fn h64(h: u16) -> f64 {
    f16_to_f32(h) as f64
}

/// Rounds an f64 to f16 once; a NaN that no input carried becomes
/// [`F16_DEFAULT_NAN`].
fn round16(v: f64) -> u16 {
    if v.is_nan() {
        F16_DEFAULT_NAN
    } else {
        f64_to_f16(v)
    }
}

/// `v_sqrt_f16` (`D = sqrt(S0)`): correctly rounded (f64 square root rounded
/// again to f16 is exact rounding, as f64 has more than 2 * 11 + 2 bits);
/// a NaN input comes back quietened, a negative input gives NaN.
pub fn sqrt_f16(h: u16) -> u16 {
    if f16_is_nan(h) {
        return quiet16(h);
    }
    round16(h64(h).sqrt())
}

/// `v_rcp_f16` (`D = 1 / S0`), correctly rounded (see [`sqrt_f16`]).
pub fn rcp_f16(h: u16) -> u16 {
    if f16_is_nan(h) {
        return quiet16(h);
    }
    round16(1.0 / h64(h))
}

/// `v_rsq_f16` (`D = 1 / sqrt(S0)`): -0 gives -inf, +0 +inf, negative
/// inputs NaN. The f64 value is within 2^-51 of the exact one and no f16
/// input puts it that close to a rounding boundary (checked exhaustively in
/// the tests), so the result is the correctly rounded one.
pub fn rsq_f16(h: u16) -> u16 {
    if f16_is_nan(h) {
        return quiet16(h);
    }
    round16(1.0 / h64(h).sqrt())
}

/// `v_exp_f16` (`D = 2 ^ S0`), correctly rounded (as [`rsq_f16`]).
pub fn exp_f16(h: u16) -> u16 {
    if f16_is_nan(h) {
        return quiet16(h);
    }
    round16(h64(h).exp2())
}

/// `v_log_f16` (`D = log2(S0)`): ±0 gives -inf, negative inputs NaN;
/// correctly rounded (as [`rsq_f16`]).
pub fn log_f16(h: u16) -> u16 {
    if f16_is_nan(h) {
        return quiet16(h);
    }
    round16(h64(h).log2())
}

/// `sin(pi * u)` for `u` in [-0.5, 0.5] (f64, relative error a few ulps).
fn sin_pi_reduced(u: f64) -> f64 {
    (std::f64::consts::PI * u).sin()
}

/// `sin(2 pi x)` for nonzero `x` in [-1, 1] in f64, reduced exactly before
/// the one inexact step; `None` where the exact result is zero.
fn sin_2pi(x: f64) -> Option<f64> {
    // sin(2 pi x) = sin(pi t), t = 2x in [-2, 2]; u = t - 2 round(t / 2) in [-1, 1].
    let t = 2.0 * x;
    let u = t - 2.0 * (t / 2.0).round();
    // sin(pi u) = sin(pi (sign(u) - u)) folds |u| > 1/2 into [-1/2, 1/2].
    let v = if u > 0.5 {
        1.0 - u
    } else if u < -0.5 {
        -1.0 - u
    } else {
        u
    };
    (v != 0.0).then(|| sin_pi_reduced(v))
}

/// `cos(2 pi x)` for `x` in [-1, 1] in f64, as [`sin_2pi`].
fn cos_2pi(x: f64) -> Option<f64> {
    // cos(2 pi x) = cos(pi w) with w = |t - 2 round(t / 2)| in [0, 1].
    let t = 2.0 * x;
    let w = (t - 2.0 * (t / 2.0).round()).abs();
    // cos(pi w) = -cos(pi (1 - w)), and cos(pi w) = sin(pi (1/2 - w)).
    let (w, neg) = if w > 0.5 { (1.0 - w, true) } else { (w, false) };
    let s = 0.5 - w;
    (s != 0.0).then(|| {
        let r = sin_pi_reduced(s);
        if neg { -r } else { r }
    })
}

/// The valid input domain of `v_sin`/`v_cos` (Vega ISA, VOP1: "Valid range
/// of S0 is [-256.0, +256.0]"; what an input outside it gives is not
/// modelled).
const TRIG_DOMAIN: f64 = 256.0;

/// `v_sin_f16` (`D = sin(S0 * 2 * PI)`) for inputs in [-256, 256],
/// correctly rounded (see [`rsq_f16`]). `None` where the result is not
/// modelled: inputs outside that domain (infinities included) and nonzero
/// inputs whose exact result is zero (the sign of that zero is
/// unspecified).
pub fn sin_f16(h: u16) -> Option<u16> {
    if f16_is_nan(h) {
        return Some(quiet16(h));
    }
    let x = h64(h);
    if x.abs() > TRIG_DOMAIN {
        return None;
    }
    if x == 0.0 {
        return Some(h);
    }
    sin_2pi(x).map(round16)
}

/// `v_cos_f16` (`D = cos(S0 * 2 * PI)`), as [`sin_f16`]: `None` outside
/// [-256, 256] and where the exact result is zero.
pub fn cos_f16(h: u16) -> Option<u16> {
    if f16_is_nan(h) {
        return Some(quiet16(h));
    }
    let x = h64(h);
    if x.abs() > TRIG_DOMAIN {
        return None;
    }
    cos_2pi(x).map(round16)
}

/// `v_sin_f32` (`D = sin(S0 * 2 * PI)`): the argument reduced exactly, the
/// sine taken in f64 and rounded once to f32; `None` outside [-256, 256]
/// and where the exact result is a zero of unspecified sign (as
/// [`sin_f16`]).
pub fn sin_f32(x: f32) -> Option<f32> {
    if x.is_nan() {
        return Some(quiet32(x));
    }
    if (x.abs() as f64) > TRIG_DOMAIN {
        return None;
    }
    if x == 0.0 {
        return Some(x);
    }
    sin_2pi(x as f64).map(|v| v as f32)
}

/// `v_cos_f32` (`D = cos(S0 * 2 * PI)`), as [`sin_f32`].
pub fn cos_f32(x: f32) -> Option<f32> {
    if x.is_nan() {
        return Some(quiet32(x));
    }
    if (x.abs() as f64) > TRIG_DOMAIN {
        return None;
    }
    cos_2pi(x as f64).map(|v| v as f32)
}

/// `v_exp_legacy_f32` (GFX9): `2^x`, except that every `x` below -126 gives
/// +0, whatever MODE says about denormals.
///
/// The AMD guides give no pseudo-code for it. The rule is CLRX's
/// (`doc/GcnInstrsVop1.md`, V_EXP_LEGACY_F32; reverse-engineered from the
/// hardware, not an AMD document): "for values smaller than -126.0 always
/// returns 0 regardless floatmode", `if (SRC0 >= -126.0) VDST =
/// APPROX_POW2(SRC0) else VDST = 0.0`. Where CLRX is silent the result is
/// `v_exp_f32`'s in this simulator: the power is the host's `exp2` (not the
/// hardware's approximation, which CLRX says is "slightly less accurate" than
/// `v_exp_f32`'s), and a NaN stays a NaN (CLRX's description speaks of values
/// smaller than -126 only; its pseudo-code, identical for `v_exp_f32`, would
/// turn a NaN into 0 by the failed comparison).
pub fn exp_legacy_f32(x: f32) -> f32 {
    if x < -126.0 { 0.0 } else { x.exp2() }
}

/// `v_log_legacy_f32` (GFX9): `log2(x)`, with denormal inputs read as zeros
/// whatever MODE says, 1 giving +0 and a negative input the negative quiet
/// NaN `0xffc00000`.
///
/// The AMD guides give no pseudo-code for it. The rule is CLRX's
/// (`doc/GcnInstrsVop1.md`, V_LOG_LEGACY_F32; reverse-engineered from the
/// hardware, not an AMD document): "If SRC0 is negative then store -NaN to
/// VDST. This instruction doesn't handle denormalized values regardless FLOAT
/// MODE register setup", `if (F==1.0) VDST = 0.0f; if (F<0.0) VDST = -NaN
/// else VDST = APPROX_LOG2(F)`. A denormal is flushed to the zero of its sign
/// before that test, so -denormal, like -0, is not below 0 and gives
/// `log2(-0) = -inf`. Where CLRX is silent the result is `v_log_f32`'s in this
/// simulator: the host's `log2` (not the hardware's approximation), a NaN
/// input giving a NaN.
pub fn log_legacy_f32(x: f32) -> f32 {
    let f = ftz_f32(x);
    if f == 1.0 {
        0.0
    } else if f < 0.0 {
        f32::from_bits(F32_DEFAULT_NAN)
    } else {
        f.log2()
    }
}

/// `v_mullit_f32` (GFX10 VOP3): the multiply of lighting calculations,
/// `s0 * s1` when `s2 > 0`, else `-MAX_FLOAT`; a zero factor gives +0
/// whatever the other one is (also an infinity or a NaN).
///
/// The RDNA ISA guide only says "Specific rules apply to accommodate lighting
/// calculations: 0.0 * x = 0.0 and alternate INF, NAN, overflow rules
/// apply", without pseudo-code. This is CLRX's reverse-engineered
/// pseudo-code (`doc/GcnInstrsVop3.md`, V_MULLIT_F32, written for GCN 1.0/1.1,
/// whose VOP3 opcode 0x150 GFX10 reuses; not an AMD document):
/// `VDST = -MAX_FLOAT; if (SRC2 > 0.0 && !ISNAN(SRC2)) { VDST = 0.0; if (SRC0
/// != 0.0 && SRC1 != 0.0) VDST = SRC0 * SRC1 }`. The "alternate INF, NAN,
/// overflow rules" are documented nowhere, so the product is `v_mul_f32`'s:
/// IEEE, rounded to nearest even, an overflow giving an infinity, a NaN
/// factor giving that NaN quietened ([`nan_first32`]).
pub fn mullit_f32(s0: f32, s1: f32, s2: f32) -> f32 {
    // `s2 > 0.0` is false for a NaN.
    if s2 > 0.0 {
        if s0 != 0.0 && s1 != 0.0 {
            nan_first32(s0 * s1, [s0, s1])
        } else {
            0.0
        }
    } else {
        -f32::MAX
    }
}

/// `v_fract_f16` (`D = S0 - floor(S0)`, at most the largest f16 below 1.0,
/// as [`fract_f32`]): a NaN comes back quietened, an infinity gives NaN.
pub fn fract_f16(h: u16) -> u16 {
    if f16_is_nan(h) {
        return quiet16(h);
    }
    let x = h64(h);
    if x.is_infinite() {
        return F16_DEFAULT_NAN;
    }
    // The difference is exact in f64; round it once, then limit it.
    let r = f64_to_f16(x - x.floor());
    if r == 0x3c00 { 0x3bff } else { r }
}

/// `v_floor_f16`, `v_ceil_f16`, `v_trunc_f16` and `v_rndne_f16`: `mode` 0
/// floor, 1 ceil, 2 trunc, 3 round to nearest even. Exact; the sign of a
/// zero result is the sign of the input; NaN comes back quietened.
pub fn round_int_f16(h: u16, mode: u8) -> u16 {
    if f16_is_nan(h) {
        return quiet16(h);
    }
    let x = h64(h);
    let r = match mode {
        0 => x.floor(),
        1 => x.ceil(),
        2 => x.trunc(),
        _ => x.round_ties_even(),
    };
    f64_to_f16(r)
}

/// `v_frexp_mant_f16`: the significand scaled to [0.5, 1) with the sign of
/// the input; NaN, infinity and zero are returned unchanged (as
/// [`frexp_mant_f32`]).
pub fn frexp_mant_f16(h: u16) -> u16 {
    let x = h64(h);
    if !x.is_finite() || x == 0.0 {
        return h;
    }
    f64_to_f16(frexp64(x).0)
}

/// `v_frexp_exp_i16_f16`: the exponent `e` with `S0 = mant * 2^e`, mant in
/// [0.5, 1) (denormals normalised); 0 for NaN, infinity and zero.
pub fn frexp_exp_f16(h: u16) -> i16 {
    let x = h64(h);
    if !x.is_finite() || x == 0.0 {
        return 0;
    }
    frexp64(x).1 as i16
}

/// `v_ldexp_f16` (`D = S0 * 2^S1`), correctly rounded. The guides give the
/// exponent as `S1.i16` in one place and as a 32-bit integer in another;
/// `None` when the two readings give different results.
pub fn ldexp_f16(h: u16, e: u32) -> Option<u16> {
    if f16_is_nan(h) {
        return Some(quiet16(h));
    }
    let x = h64(h);
    let a = f64_to_f16(ldexp64(x, e as u16 as i16 as i32));
    let b = f64_to_f16(ldexp64(x, e as i32));
    (a == b).then_some(a)
}

/// `v_div_fixup_f16` (Vega ISA, VOP3): the special cases of `s2 / s1`
/// given the quotient `s0`, in the order of the guide's pseudo-code (a NaN
/// numerator first, then a NaN denominator, both quietened; 0/0 and
/// inf/inf give `0xfe00`).
pub fn div_fixup_f16(s0: u16, s1: u16, s2: u16) -> u16 {
    let sign = (s1 ^ s2) & 0x8000;
    let (a1, a2) = (s1 & 0x7fff, s2 & 0x7fff);
    if f16_is_nan(s2) {
        quiet16(s2)
    } else if f16_is_nan(s1) {
        quiet16(s1)
    } else if a1 == 0 && a2 == 0 || a1 == 0x7c00 && a2 == 0x7c00 {
        F16_DEFAULT_NAN
    } else if a1 == 0 || a2 == 0x7c00 {
        sign | 0x7c00
    } else if a1 == 0x7c00 || a2 == 0 {
        sign
    } else {
        sign | (s0 & 0x7fff)
    }
}

/// `v_pack_b32_f16`: two f16 values (already selected and with their
/// modifiers applied) packed low then high. `None` when an input is a
/// signalling NaN (whether the pack quietens it is not documented).
pub fn pack_b32_f16(lo: u16, hi: u16) -> Option<u32> {
    let signalling = |h: u16| f16_is_nan(h) && h & 0x0200 == 0;
    if signalling(lo) || signalling(hi) {
        return None;
    }
    Some(lo as u32 | (hi as u32) << 16)
}

/// `v_cmp_class_f16` class bit (as [`fp_class_f32`], denormals judged at f16
/// precision).
pub fn fp_class_f16(h: u16) -> u32 {
    let mag = h & 0x7fff;
    if f16_is_nan(h) {
        return if h & 0x0200 == 0 { 0 } else { 1 };
    }
    let c = match mag {
        0x7c00 => 9,
        0 => 6,
        m if m < 0x0400 => 7,
        _ => 8,
    };
    if h & 0x8000 != 0 { 11 - c } else { c }
}

/// `s + c` for f64 values whose exact sum has no f64 underflow, rounded to
/// odd: exactly representable sums are kept, the others become the
/// neighbour with an odd significand. Rounding that value to any format at
/// least two bits narrower is then the correct rounding of the exact sum.
fn add_round_odd(p: f64, c: f64) -> f64 {
    let s = p + c;
    if !s.is_finite() {
        return s;
    }
    // TwoSum: the exact rounding error of s.
    let pv = s - c;
    let cv = s - pv;
    let err = (p - pv) + (c - cv);
    if err == 0.0 || s.to_bits() & 1 == 1 {
        return s;
    }
    let bits = s.to_bits();
    if (err > 0.0) == (s > 0.0) {
        f64::from_bits(bits + 1)
    } else {
        f64::from_bits(bits - 1)
    }
}

/// `a * b + c` for f32 inputs, rounded once to f16 (the product is exact in
/// f64, the sum is rounded to odd and then to f16).
pub fn fma_f32_to_f16(a: f32, b: f32, c: f32) -> u16 {
    let (a, b, c) = (a as f64, b as f64, c as f64);
    let p = a * b;
    if !p.is_finite() || !c.is_finite() {
        return round16(a.mul_add(b, c));
    }
    f64_to_f16(add_round_odd(p, c))
}

/// `a * b + c` for f16 inputs, rounded once (as [`fma_f32_to_f16`]).
pub fn fma_f16(a: u16, b: u16, c: u16) -> u16 {
    for x in [a, b, c] {
        if f16_is_nan(x) {
            return quiet16(x);
        }
    }
    fma_f32_to_f16(f16_to_f32(a), f16_to_f32(b), f16_to_f32(c))
}

/// f32 denormals flushed to zero of the same sign.
pub fn ftz_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// `v_mad_f32` / `v_mac_f32` / `v_madmk_f32` / `v_madak_f32`: an unfused
/// multiply-add, each step rounded and with denormals flushed whatever the
/// mode (LLVM's `llvm.amdgcn.fmad.ftz`: "v_mad_f32 ... with denormals
/// flushed"; the compiler selects it for `fmad`, "the same result as the
/// separately rounded operations").
pub fn mad_f32(a: f32, b: f32, c: f32) -> f32 {
    nan_first32(
        ftz_f32(ftz_f32(ftz_f32(a) * ftz_f32(b)) + ftz_f32(c)),
        [a, b, c],
    )
}

/// f16 denormals flushed to zero of the same sign.
fn ftz16(h: u16) -> u16 {
    if f16_is_denormal(h) { h & 0x8000 } else { h }
}

/// `v_mad_f16` / `v_mac_f16` / `v_madak_f16` / `v_madmk_f16`: as
/// [`mad_f32`] in f16 (product rounded to f16, then the sum, denormals
/// flushed).
pub fn mad_f16(a: u16, b: u16, c: u16) -> u16 {
    for x in [a, b, c] {
        if f16_is_nan(x) {
            return quiet16(x);
        }
    }
    let p = ftz16(round16(h64(ftz16(a)) * h64(ftz16(b))));
    if f16_is_nan(p) {
        return p;
    }
    ftz16(round16(h64(p) + h64(ftz16(c))))
}

/// 2/PI as a binary fraction, most significant bit first: the 1201 bits of
/// the table `v_trig_preop_f64` reads (bits 1201 and beyond are zero).
const TWO_OVER_PI: [u32; 38] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b0000,
];

/// Bits `start..start + 53` of [`TWO_OVER_PI`] as an integer.
fn two_over_pi_bits(start: u32) -> u64 {
    let mut v = 0u64;
    for k in start..start + 53 {
        let (w, b) = ((k / 32) as usize, 31 - k % 32);
        let bit = TWO_OVER_PI.get(w).map_or(0, |x| (x >> b) & 1);
        v = v << 1 | bit as u64;
    }
    v
}

/// `v_trig_preop_f64` (Vega ISA, VOP3; RDNA ISA pseudo-code): the 53 bits
/// of 2/PI starting at bit `shift = 53 * seg`, moved further by
/// `exponent(S0) - 1077` for large inputs, as a double scaled by
/// `2^(-53 - shift)` (`2^(75 - shift)` when `exponent(S0) >= 1968`). A NaN
/// input gives that NaN, quietened. `None` where the result is not modelled:
/// segments reaching past bit 1120 but not past bit 1201 (LLVM's constant
/// folding, which reads a 1184-bit table, returns 0 there while the guide's
/// 1201-bit table does not), and results that round (denormal results:
/// the guide says round toward zero, the compiler's folding rounds to
/// nearest).
pub fn trig_preop_f64(x: f64, seg: u32) -> Option<f64> {
    if x.is_nan() {
        return Some(quiet64(x));
    }
    let exp = ((x.to_bits() >> 52) & 0x7ff) as u32;
    let mut shift = (seg & 31) * 53;
    if exp > 1077 {
        shift += exp - 1077;
    }
    if shift >= 1201 {
        return Some(0.0);
    }
    if shift >= 1120 {
        return None;
    }
    let bits = two_over_pi_bits(shift);
    let mut scale = -53 - shift as i32;
    if exp >= 1968 {
        scale += 128;
    }
    let r = ldexp64(bits as f64, scale);
    // Exact unless bits were lost to a denormal result.
    (ldexp64(r, -scale) == bits as f64).then_some(r)
}

/// `v_xad_u32`: `(S0 ^ S1) + S2`, wrapping.
pub fn xad_u32(a: u32, b: u32, c: u32) -> u32 {
    (a ^ b).wrapping_add(c)
}

/// Integer dot product of packed elements (`v_dot2_i32_i16`,
/// `v_dot4_u32_u8`, `v_dot8_i32_i4`, ... ; MI100 ISA §"VOP3P" pseudo-code
/// `D = S0[0] * S1[0] + ... + S0[n-1] * S1[n-1] + S2`): `a` and `b` hold
/// `32 / bits` elements of `bits` bits each, lowest first, sign-extended
/// when `signed`; `c` is the 32-bit accumulator (signed when `signed`). The
/// sum is exact; `clamp` saturates it to the 32-bit range of the result
/// type, otherwise it wraps.
pub fn dot_int(a: u32, b: u32, c: u32, bits: u32, signed: bool, clamp: bool) -> u32 {
    let n = 32 / bits;
    let mask = (1u64 << bits) - 1;
    let elem = |v: u32, k: u32| -> i64 {
        let e = ((v as u64 >> (k * bits)) & mask) as i64;
        if signed && e >> (bits - 1) & 1 != 0 {
            e - (1i64 << bits)
        } else {
            e
        }
    };
    let acc = if signed { c as i32 as i64 } else { c as i64 };
    let sum = (0..n).fold(acc, |s, k| s + elem(a, k) * elem(b, k));
    match (clamp, signed) {
        (false, _) => sum as u32,
        (true, true) => sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32,
        (true, false) => sum.clamp(0, u32::MAX as i64) as u32,
    }
}

/// `v_dot2_f32_f16`: `a0 * b0 + a1 * b1 + c` with f16 products (exact in
/// f64) summed in f64 and rounded once to f32; `clamp` limits the result to
/// [0, 1] (NaN to +0). The ISA guides do not say how the hardware rounds the
/// intermediate sum; a single rounding is exact whenever the three terms'
/// exponents lie within about 2^29 of each other.
pub fn dot2_f32_f16(a: [u16; 2], b: [u16; 2], c: f32, clamp: bool) -> f32 {
    let p = |k: usize| f16_to_f32(a[k]) as f64 * f16_to_f32(b[k]) as f64;
    let v = ((p(0) + p(1)) + c as f64) as f32;
    f32_out(v, 0, clamp)
}

/// bf16 (the high half of an f32) to f32, exact.
#[inline]
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// The cube-map face and coordinates of the direction `(x, y, z)` (GFX9 /
/// RDNA ISA, V_CUBEID_F32, V_CUBEMA_F32, V_CUBESC_F32, V_CUBETC_F32), as
/// `(face id, major axis, s, t)`: the major axis is z when `|z| >= |x|` and
/// `|z| >= |y|`, else y when `|y| >= |x|`, else x (a NaN compares false);
/// its sign (`< 0`, so -0 counts as positive) picks the face of the pair.
/// `v_cubema_f32` returns twice the major axis.
pub fn cube(x: f32, y: f32, z: f32) -> (f32, f32, f32, f32) {
    if z.abs() >= x.abs() && z.abs() >= y.abs() {
        if z < 0.0 {
            (5.0, z, -x, -y)
        } else {
            (4.0, z, x, -y)
        }
    } else if y.abs() >= x.abs() {
        if y < 0.0 {
            (3.0, y, x, -z)
        } else {
            (2.0, y, x, z)
        }
    } else if x < 0.0 {
        (1.0, x, z, -y)
    } else {
        (0.0, x, -z, -y)
    }
}

/// An f32 scaled to an integer range, as the `v_cvt_pknorm_*` and
/// `v_cvt_norm_*` conversions do (CLRX's reading of the GCN guides:
/// `round(S * scale)` to nearest even, limited to `[lo, hi]`, NaN 0): the
/// product is rounded to f32 first.
pub fn f32_to_norm(x: f32, scale: f32, lo: f32, hi: f32) -> i32 {
    let v = (x * scale).round_ties_even();
    if v.is_nan() {
        0
    } else {
        v.clamp(lo, hi) as i32
    }
}

/// `flt32_to_uint8` of `v_cvt_pk_u8_f32`: rounded to the nearest integer,
/// ties to even, limited to `[0, 255]`, NaN 0.
pub fn f32_to_u8(x: f32) -> u32 {
    f32_to_norm(x, 1.0, 0.0, 255.0) as u32
}

/// An i32 saturated to i16 (`v_cvt_pk_i16_i32`), as its 16 bits.
pub fn sat_i16(x: i32) -> u16 {
    x.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16
}

#[cfg(test)]
mod dot_tests {
    use super::*;

    #[test]
    fn integer_dot_products_wrap_or_saturate() {
        // 4 x i8: (-1 * 2) + (127 * 127) + (-128 * -128) + (0 * 5) + 10
        let a = 0x00_80_7f_ffu32;
        let b = 0x05_80_7f_02u32;
        assert_eq!(
            dot_int(a, b, 10, 8, true, false) as i32,
            -2 + 16129 + 16384 + 10
        );
        // Unsigned bytes: 255 * 2 + 127 * 127 + 128 * 128 + 0 * 5.
        assert_eq!(dot_int(a, b, 0, 8, false, false), 510 + 16129 + 16384);
        // Saturation of the signed sum with the accumulator.
        assert_eq!(
            dot_int(0x7fff_7fff, 0x7fff_7fff, i32::MAX as u32, 16, true, true),
            i32::MAX as u32
        );
        assert_eq!(
            dot_int(0x7fff_7fff, 0x7fff_7fff, i32::MAX as u32, 16, true, false),
            (i32::MAX as i64 + 2 * 32767 * 32767) as u32
        );
        assert_eq!(
            dot_int(0x8000_8000, 0x7fff_7fff, i32::MIN as u32, 16, true, true),
            i32::MIN as u32
        );
        // Unsigned: saturates at u32::MAX.
        assert_eq!(
            dot_int(0xffff_ffff, 0xffff_ffff, u32::MAX, 4, false, true),
            u32::MAX
        );
        // 8 x i4: every nibble -8 * 7 = -56, eight times.
        assert_eq!(
            dot_int(0x8888_8888, 0x7777_7777, 0, 4, true, false) as i32,
            -448
        );
        assert_eq!(dot_int(0x8888_8888, 0x7777_7777, 0, 4, false, false), 448);
    }

    #[test]
    fn half_dot_product_rounds_once() {
        let h = f32_to_f16;
        assert_eq!(
            dot2_f32_f16([h(1.5), h(-2.0)], [h(4.0), h(0.25)], 0.5, false),
            6.0
        );
        assert_eq!(
            dot2_f32_f16([h(1.5), h(-2.0)], [h(4.0), h(0.25)], 0.5, true),
            1.0
        );
        // 1 + 2^-24 + 2^-24 is representable only after summing both.
        let t = h(f32::powi(2.0, -12));
        assert_eq!(
            dot2_f32_f16([t, t], [t, t], 1.0, false),
            1.0 + f32::powi(2.0, -23)
        );
        assert!(dot2_f32_f16([h(f32::INFINITY), 0], [0, 0], 0.0, false).is_nan());
        assert_eq!(dot2_f32_f16([h(f32::NAN), 0], [0, 0], 0.0, true), 0.0);
    }
}

#[cfg(test)]
mod tests {

    /// LLVM's f32 division sequence (clang-19 `-cl-fp32-correctly-rounded-divide-sqrt`,
    /// gfx900): div_scale of denominator and numerator, one reciprocal
    /// refinement, two remainder steps, div_fmas, div_fixup.
    macro_rules! divide {
        ($t:ty, $scale:ident, $fmas:ident, $ldexp:ident, $fixup:ident) => {
            |a: $t, b: $t| {
                let (den, _) = $scale(b, b, a);
                let (num, vcc) = $scale(a, b, a);
                let mut r = 1.0 / den;
                let e = (-den).mul_add(r, 1.0);
                r = e.mul_add(r, r);
                let mut q = num * r;
                let e2 = (-den).mul_add(q, num);
                q = e2.mul_add(r, q);
                let e3 = (-den).mul_add(q, num);
                let f = if vcc {
                    $ldexp(e3, r, q, $fmas(q))
                } else {
                    e3.mul_add(r, q)
                };
                $fixup(f, b, a)
            }
        };
    }

    /// LLVM's f64 division sequence (clang-19 `a / b` on doubles, gfx900):
    /// `v_div_scale_f64` of denominator and numerator, two reciprocal
    /// refinements, one remainder, `v_div_fmas_f64 rem, r, q`,
    /// `v_div_fixup_f64`.
    fn divide_f64(n: f64, d: f64) -> f64 {
        let (den, _) = div_scale_f64(d, d, n);
        let (num, vcc) = div_scale_f64(n, d, n);
        let mut r = 1.0 / den;
        let e = (-den).mul_add(r, 1.0);
        r = r.mul_add(e, r);
        let e = (-den).mul_add(r, 1.0);
        r = r.mul_add(e, r);
        let q = num * r;
        let rem = (-den).mul_add(q, num);
        let f = if vcc {
            fma_scaled_f64(rem, r, q, div_fmas_scale_f64(q))
        } else {
            rem.mul_add(r, q)
        };
        div_fixup_f64(f, d, n)
    }

    /// The f64 division sequence gives the correctly rounded quotient over
    /// the whole exponent range of numerator and denominator: huge
    /// denominators (whose reciprocal is denormal) with normal, denormal and
    /// vanishing quotients, huge quotients, denormal operands. A seed-222
    /// random kernel found 1.3e8 / 1.3e308 giving infinity.
    #[test]
    fn f64_division_sequence_is_correctly_rounded_over_the_exponent_range() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut bad = Vec::new();
        let mut checked = 0;
        for en in (1..2047u64).step_by(7).chain([0, 1, 2, 2045, 2046]) {
            for ed in (1..2047u64).step_by(7).chain([0, 1, 2, 2045, 2046]) {
                for _ in 0..3 {
                    let mant = |m: u64| m & ((1 << 52) - 1);
                    let n = f64::from_bits((next() & (1 << 63)) | en << 52 | mant(next()));
                    let d = f64::from_bits((next() & (1 << 63)) | ed << 52 | mant(next()));
                    if d == 0.0 || n == 0.0 {
                        continue;
                    }
                    checked += 1;
                    let want = n / d;
                    let got = divide_f64(n, d);
                    if got.to_bits() != want.to_bits() {
                        bad.push(format!("{n:e} / {d:e}: got {got:e}, want {want:e}"));
                    }
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{} of {checked} wrong, e.g. {:?}",
            bad.len(),
            &bad[..bad.len().min(8)]
        );
    }

    /// The f32 sequence is correctly rounded over the whole exponent range of
    /// numerator and denominator too (denormals kept, as MODE allows).
    #[test]
    fn f32_division_sequence_is_correctly_rounded_over_the_exponent_range() {
        let divide = divide!(
            f32,
            div_scale_f32,
            div_fmas_scale_f32,
            fma_scaled_f32,
            div_fixup_f32
        );
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut bad = Vec::new();
        let mut checked = 0;
        for en in 0..255u32 {
            for ed in 0..255u32 {
                for _ in 0..4 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let n = f32::from_bits((x as u32 & 0x807f_ffff) | en << 23);
                    let d = f32::from_bits(((x >> 32) as u32 & 0x807f_ffff) | ed << 23);
                    if d == 0.0 || n == 0.0 {
                        continue;
                    }
                    checked += 1;
                    let (got, want) = (divide(n, d), n / d);
                    if got.to_bits() != want.to_bits() {
                        bad.push(format!("{n:e} / {d:e}: got {got:e}, want {want:e}"));
                    }
                }
            }
        }
        assert!(
            bad.is_empty(),
            "{} of {checked} wrong, e.g. {:?}",
            bad.len(),
            &bad[..bad.len().min(8)]
        );
    }

    /// `fma_scaled` rounds once: exact products and sums, ties to even,
    /// denormal and overflowing results, cancellation to +0.
    #[test]
    fn fma_scaled_rounds_once() {
        // 1 + 2^-52 (one ulp above 1) times 2^-1074 scaled: the exact value
        // is just above the smallest denormal, which it rounds to.
        let one_up = f64::from_bits(1.0f64.to_bits() + 1);
        assert_eq!(fma_scaled_f64(one_up, 1.0, 0.0, -1074), f64::from_bits(1));
        // 1.5 * 2^-1074 is a tie between the first two denormals: even is 2.
        assert_eq!(fma_scaled_f64(1.5, 1.0, 0.0, -1074), f64::from_bits(2));
        // 0.5 * 2^-1074 ties to even zero, a bit more does not.
        assert_eq!(fma_scaled_f64(0.5, 1.0, 0.0, -1074), 0.0);
        assert_eq!(fma_scaled_f64(one_up, 0.5, 0.0, -1074), f64::from_bits(1));
        // The double-rounding case: fma(a, b, c) lands on the tie at full
        // precision, the exact value is above it.
        let c = 1.5; // 1.5 * 2^-1074 after scaling: a tie
        let tiny = f64::powi(2.0, -60);
        assert_eq!(ldexp64(tiny.mul_add(tiny, c), -1074), f64::from_bits(2));
        assert_eq!(
            fma_scaled_f64(tiny, tiny, c, -1074),
            f64::from_bits(2 - 1 + 1)
        );
        assert_eq!(fma_scaled_f64(tiny, -tiny, c, -1074), f64::from_bits(1));
        assert_eq!(fma_scaled_f64(f64::MAX, 2.0, 0.0, 0), f64::INFINITY);
        assert_eq!(fma_scaled_f64(f64::MAX, 2.0, 0.0, -1), f64::MAX);
        let z = fma_scaled_f64(2.0, 3.0, -6.0, 5);
        assert!(z == 0.0 && z.is_sign_positive());
        assert!(fma_scaled_f64(-0.0, 1.0, -0.0, 3).is_sign_negative());
        assert_eq!(fma_scaled_f32(3.0, 5.0, 1.0, 2), 64.0);
        assert_eq!(fma_scaled_f32(1.5, 1.0, 0.0, -149), f32::from_bits(2));
        for (a, b, c, e) in [
            (1.1f64, 2.3, -0.7, 0),
            (3.0, 1.0 / 3.0, -1.0, 100),
            (-7.25, 1e-300, 3e-300, -20),
        ] {
            assert_eq!(
                fma_scaled_f64(a, b, c, e),
                ldexp64(a.mul_add(b, c), e),
                "{a} {b} {c} {e}"
            );
        }
    }

    /// Checks `divide` against Rust's correctly rounded division.
    macro_rules! within_one_ulp {
        ($divide:ident, $cases:ident) => {
            for (a, b) in $cases {
                let (got, want) = ($divide(a, b), a / b);
                let ulps = (got.to_bits() as i64 - want.to_bits() as i64).abs();
                assert!(ulps <= 1, "{a:e} / {b:e}: got {got:e}, want {want:e}");
            }
        };
    }

    /// The division sequence gives the quotient within 1 ulp of the
    /// correctly rounded one, also when it is denormal or the denominator
    /// tiny (both prescaled paths).
    #[test]
    fn f32_division_sequence_undoes_the_scaling() {
        let divide = divide!(
            f32,
            div_scale_f32,
            div_fmas_scale_f32,
            fma_scaled_f32,
            div_fixup_f32
        );
        let cases: [(f32, f32); 7] = [
            (-1.175_494_5e-38, 2.75),
            (1.0e-40, 3.0),
            (3.0e-39, -7.5),
            (1.0e30, 1.0e-3),
            (2.0e38, 1.0e-9),
            (1.0, 3.0),
            (-5.5, 0.125),
        ];
        within_one_ulp!(divide, cases);
    }

    /// The same for f64 (the 2^128 scale of `v_div_fmas_f64`).
    #[test]
    fn f64_division_sequence_undoes_the_scaling() {
        let divide = divide!(
            f64,
            div_scale_f64,
            div_fmas_scale_f64,
            fma_scaled_f64,
            div_fixup_f64
        );
        let cases: [(f64, f64); 6] = [
            (-2.2e-308, 2.75),
            (4.0e-320, 3.0),
            (1.0e300, 1.0e-10),
            (1.7e308, 1.0e-20),
            (1.0, 3.0),
            (-5.5, 0.125),
        ];
        within_one_ulp!(divide, cases);
    }
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn half_round_trip_and_rounding() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00, "rounds up to infinity");
        assert_eq!(f32_to_f16(f32::from_bits(0x3380_0000)), 0x0001, "2^-24");
        assert_eq!(
            f32_to_f16(f32::from_bits(0x3300_0000)),
            0x0000,
            "2^-25 ties to even 0"
        );
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1.
        assert_eq!(f32_to_f16(1.0 + f32::powi(2.0, -11)), 0x3c00);
        assert_eq!(f32_to_f16(1.0 + 3.0 * f32::powi(2.0, -11)), 0x3c02);
        assert!(f16_to_f32(f32_to_f16(f32::NAN)).is_nan());
        assert_eq!(f16_to_f32(0x0001), f32::powi(2.0, -24));
        assert_eq!(f16_to_f32(0xfc00), f32::NEG_INFINITY);
    }

    proptest! {
        #[test]
        fn half_conversion_is_exact_on_halves(h in 0u16..0x7c00) {
            // Every finite f16 survives f16 -> f32 -> f16.
            prop_assert_eq!(f32_to_f16(f16_to_f32(h)), h);
            prop_assert_eq!(f32_to_f16(-f16_to_f32(h)), h | 0x8000);
        }

        #[test]
        fn half_rounding_is_nearest(x in -60000.0f32..60000.0) {
            let h = f16_to_f32(f32_to_f16(x));
            // No other f16 is closer: check the neighbours.
            let hb = f32_to_f16(x);
            for n in [hb.wrapping_sub(1), hb.wrapping_add(1)] {
                let nv = f16_to_f32(n);
                if nv.is_finite() {
                    prop_assert!((h - x).abs() <= (nv - x).abs());
                }
            }
        }

        #[test]
        fn frexp_reassembles(x in proptest::num::f32::NORMAL | proptest::num::f32::SUBNORMAL) {
            let m = frexp_mant_f32(x);
            let e = frexp_exp_f32(x);
            prop_assert!((0.5..1.0).contains(&m.abs()));
            prop_assert_eq!(ldexp32(m, e), x);
        }

        #[test]
        fn div_scale_fmas_fixup_divide(a in 1e-30f64..1e30, b in 1e-30f64..1e30) {
            // The usual expansion when no scaling is needed reproduces a / b.
            let (n, _) = div_scale_f64(a, b, a);
            let (d, _) = div_scale_f64(b, b, a);
            let q = n / d;
            prop_assert_eq!(div_fixup_f64(q, b, a), a / b);
        }
    }

    proptest! {
        #[test]
        fn f64_to_f16_agrees_with_f32_path(x in -70000.0f32..70000.0) {
            // Every f32 converts exactly to f64, so both paths round once.
            prop_assert_eq!(f64_to_f16(x as f64), f32_to_f16(x));
        }
    }

    #[test]
    fn f64_to_f16_rounds_once() {
        // 1 + 2^-11 + 2^-40: above the tie, so it rounds up; a detour
        // through f32 would round to the tie first and then to even.
        let x = 1.0 + f64::powi(2.0, -11) + f64::powi(2.0, -40);
        assert_eq!(f64_to_f16(x), 0x3c01);
        assert_eq!(f32_to_f16(x as f32), 0x3c00);
        assert_eq!(f64_to_f16(f64::powi(2.0, -25)), 0, "tie to even zero");
        assert_eq!(f64_to_f16(f64::powi(2.0, -25) * 1.5), 1);
    }

    #[test]
    fn modifiers() {
        assert_eq!(f32_src_mods(0xbf80_0000, true, false), 0x3f80_0000);
        assert_eq!(f32_src_mods(0x3f80_0000, true, true), 0xbf80_0000);
        assert_eq!(f32_out(0.75, 1, true), 1.0);
        assert_eq!(f32_out(f32::NAN, 0, true), 0.0);
        assert_eq!(f32_out(-3.0, 3, false), -1.5);
        assert_eq!(f64_out(0.25, 2, false), 1.0);
    }

    #[test]
    fn min_max_nan_and_zero() {
        assert_eq!(min_f32(f32::NAN, 2.0), 2.0);
        assert_eq!(max_f32(3.0, f32::NAN), 3.0);
        assert!(min_f32(-0.0, 0.0).is_sign_negative());
        assert!(max_f32(-0.0, 0.0).is_sign_positive());
    }

    #[test]
    fn classes() {
        assert_eq!(fp_class_f64(f64::NEG_INFINITY), 2);
        assert_eq!(fp_class_f64(-1.0), 3);
        assert_eq!(fp_class_f64(-f64::MIN_POSITIVE / 2.0), 4);
        assert_eq!(fp_class_f64(-0.0), 5);
        assert_eq!(fp_class_f64(0.0), 6);
        assert_eq!(fp_class_f64(1.0), 8);
        assert_eq!(fp_class_f64(f64::INFINITY), 9);
        assert_eq!(fp_class_f64(f64::NAN), 1);
        assert_eq!(fp_class_f32(f32::from_bits(0x7f80_0001)), 0);
        assert_eq!(fp_class_f32(f32::from_bits(1)), 7);
    }

    #[test]
    fn conversions_saturate() {
        assert_eq!(cvt_u32_f32(-1.0), 0);
        assert_eq!(cvt_u32_f32(f32::NAN), 0);
        assert_eq!(cvt_u32_f32(5e9), u32::MAX);
        assert_eq!(cvt_i32_f64(-3.7), -3);
        assert_eq!(cvt_i32_f32(-3e10), i32::MIN);
    }

    /// Vega ISA V_FFBH_I32 pseudo-code: the first bit position, counted from
    /// the MSB, that differs from the sign bit.
    #[test]
    fn find_first_bit_high_signed() {
        let reference = |a: u32| -> u32 {
            for i in 1..32 {
                if (a >> (31 - i)) & 1 != a >> 31 {
                    return i;
                }
            }
            u32::MAX
        };
        for a in [
            0u32,
            u32::MAX,
            1,
            0xffff,
            0xffff_0000,
            0x4000_0000,
            0x8000_0000,
            0xbfff_ffff,
            0x7fff_ffff,
            0x0000_8000,
        ] {
            assert_eq!(ffbh_i32(a), reference(a), "ffbh_i32({a:#x})");
        }
        assert_eq!(ffbh_i32(0xffff), 16);
        assert_eq!(ffbh_i64(1 << 62), 1);
        assert_eq!(ffbh_i64(u64::MAX), u32::MAX);
        assert_eq!(ffbh_i64(0xffff_ffff), 32);
        assert_eq!(ffbh_u32(0xffff), 16);
        assert_eq!(ffbh_u64(0), u32::MAX);
        assert_eq!(ffbl_b32(0x100), 8);
        assert_eq!(ffbl_b32(0), u32::MAX);
    }

    #[test]
    fn fract_of_nan_and_infinity() {
        assert!(fract_f32(f32::NAN).is_nan());
        assert!(fract_f64(f64::NAN).is_nan());
        // A signalling NaN comes back quietened, payload kept.
        assert_eq!(
            fract_f32(f32::from_bits(0x7f80_0001)).to_bits(),
            0x7fc0_0001
        );
        assert!(fract_f32(f32::INFINITY).is_nan());
        assert!(fract_f64(f64::NEG_INFINITY).is_nan());
        assert_eq!(fract_f32(-0.25), 0.75);
        assert_eq!(fract_f32(-1e-10), f32::from_bits(0x3f7f_ffff));
        assert_eq!(fract_f64(2.5), 0.5);
    }

    #[test]
    fn min_max_f64_nan_and_zero() {
        assert_eq!(min_f64(f64::NAN, 2.0), 2.0);
        assert_eq!(max_f64(3.0, f64::NAN), 3.0);
        assert!(min_f64(-0.0, 0.0).is_sign_negative());
        assert!(min_f64(0.0, -0.0).is_sign_negative());
        assert!(max_f64(-0.0, 0.0).is_sign_positive());
        assert!(max_f64(0.0, -0.0).is_sign_positive());
        assert!(min_f64(f64::NAN, f64::NAN).is_nan());
        assert_eq!(clamp_unit_f64(f64::NAN), 0.0);
        assert_eq!(clamp_unit_f64(-2.0), 0.0);
        assert_eq!(clamp_unit_f64(7.0), 1.0);
    }
}

#[cfg(test)]
mod half_and_table_tests {
    use super::*;
    use proptest::prelude::*;

    /// Every finite f16 value, positive and negative.
    fn all_halves() -> impl Iterator<Item = u16> {
        (0u16..0x7c00).flat_map(|h| [h, h | 0x8000])
    }

    /// How far `r` is from the nearest f16 rounding boundary (the midpoint
    /// between two neighbouring f16 values, or 65520 where they overflow),
    /// in units of the spacing of the f16 values around it; `None` when `r`
    /// is itself an f16 value.
    fn margin(r: f64) -> Option<f64> {
        let h = f64_to_f16(r);
        let v = h64(h);
        if v == r {
            return None;
        }
        let (mag, rm) = (h & 0x7fff, r.abs());
        if rm >= 65504.0 {
            // Between the largest f16 and infinity the boundary is 65520.
            return Some((rm - 65520.0).abs() / 32.0);
        }
        // The neighbour of h on the side of r.
        let other = if rm > v.abs() { mag + 1 } else { mag - 1 };
        let o = if other >= 0x7c00 { 65536.0 } else { h64(other) };
        let spacing = (o - v.abs()).abs();
        let mid = (o + v.abs()) / 2.0;
        Some((rm - mid).abs() / spacing)
    }

    /// The transcendental f16 operations are computed in f64 with a
    /// relative error far below 2^-40; no f16 input puts the f64 value within
    /// 2^-30 of an f16 spacing of a rounding boundary, so rounding it gives
    /// the correctly rounded result for every input.
    #[test]
    fn transcendental_halves_round_correctly_for_every_input() {
        type Op = fn(u16) -> Option<f64>;
        let ops: [(&str, Op); 5] = [
            ("rsq", |h| Some(1.0 / h64(h).sqrt())),
            ("exp", |h| Some(h64(h).exp2())),
            ("log", |h| Some(h64(h).log2())),
            ("sin", |h| {
                Some(h64(h)).filter(|x| x.abs() <= 256.0).and_then(sin_2pi)
            }),
            ("cos", |h| {
                Some(h64(h)).filter(|x| x.abs() <= 256.0).and_then(cos_2pi)
            }),
        ];
        for (name, f) in ops {
            for h in all_halves() {
                let Some(r) = f(h) else { continue };
                // Powers of two come from exact inputs (2^n, log2 of 2^n,
                // 1 / sqrt(4^n)) and are computed exactly.
                if !r.is_finite() || r == 0.0 || r.to_bits() & ((1 << 52) - 1) == 0 {
                    continue;
                }
                if let Some(m) = margin(r) {
                    let limit = f64::powi(2.0, -30);
                    assert!(
                        m > limit,
                        "{name}({h:#06x}) = {r:e} is {m:e} from a boundary"
                    );
                }
            }
        }
    }

    #[test]
    fn half_special_values() {
        let (nan, inf, ninf) = (F16_DEFAULT_NAN, 0x7c00, 0xfc00);
        assert_eq!(sqrt_f16(0x8000), 0x8000, "sqrt(-0)");
        assert_eq!(sqrt_f16(0xbc00), nan, "sqrt(-1)");
        assert_eq!(sqrt_f16(0x4400), 0x4000, "sqrt(4)");
        assert_eq!(sqrt_f16(0x7c01), 0x7e01, "a signalling NaN is quietened");
        assert_eq!(rcp_f16(0x8000), ninf);
        assert_eq!(rcp_f16(inf), 0);
        assert_eq!(rcp_f16(0x0001), inf, "1 / 2^-24 overflows");
        assert_eq!(rsq_f16(0x8000), ninf, "rsq(-0)");
        assert_eq!(rsq_f16(0), inf);
        assert_eq!(rsq_f16(inf), 0);
        assert_eq!(rsq_f16(0xc400), nan);
        assert_eq!(rsq_f16(0x4400), 0x3800, "1 / sqrt(4)");
        assert_eq!(exp_f16(ninf), 0);
        assert_eq!(exp_f16(0x4c00), inf, "2^16 overflows");
        assert_eq!(exp_f16(0xce00), 0x0001, "2^-24");
        assert_eq!(exp_f16(0xce40), 0, "2^-25 ties to even zero");
        assert_eq!(log_f16(0), ninf);
        assert_eq!(log_f16(0x8000), ninf);
        assert_eq!(log_f16(0xc000), nan);
        assert_eq!(log_f16(0x3c00), 0);
        assert_eq!(log_f16(0x0001), 0xce00, "log2(2^-24)");
        assert_eq!(sin_f16(0x3400), Some(0x3c00), "sin(2 pi / 4)");
        assert_eq!(sin_f16(0xb400), Some(0xbc00));
        assert_eq!(sin_f16(0x3a00), Some(0xbc00), "sin(2 pi * 3/4)");
        assert_eq!(sin_f16(0x8000), Some(0x8000));
        assert_eq!(sin_f16(0x3800), None, "sin(pi): a zero of unspecified sign");
        assert_eq!(sin_f16(0x4000), None, "sin(4 pi)");
        assert_eq!(sin_f16(0x5c04), None, "outside [-256, 256]");
        assert_eq!(sin_f16(0x5bfe), Some(0xbc00), "sin(2 pi * 255.75)");
        assert_eq!(cos_f16(0xdc00), Some(0x3c00), "cos(2 pi * -256)");
        assert_eq!(sin_f32(0.25), Some(1.0));
        assert_eq!(sin_f32(-0.0).map(f32::to_bits), Some(0x8000_0000));
        assert_eq!(sin_f32(100.5), None, "sin(201 pi)");
        assert_eq!(sin_f32(257.0), None, "outside [-256, 256]");
        assert_eq!(cos_f32(f32::INFINITY), None);
        assert_eq!(cos_f32(-255.5), Some(-1.0));
        // sin(2 pi * 200.1): exact reduction; in f32 arithmetic x * 2 pi is off by
        // about 4e-5.
        let r = sin_f32(200.1).unwrap();
        let want = (std::f64::consts::TAU * (200.1f32 as f64 - 200.0)).sin() as f32;
        assert_eq!(r, want);
        assert!((r - (200.1f32 * std::f32::consts::TAU).sin()).abs() > 1e-5);
        assert_eq!(sin_f16(inf), None);
        assert_eq!(sin_f16(0x7e00), Some(0x7e00));
        assert_eq!(cos_f16(0), Some(0x3c00));
        assert_eq!(cos_f16(0x3800), Some(0xbc00), "cos(pi)");
        assert_eq!(cos_f16(0xbc00), Some(0x3c00), "cos(-2 pi)");
        assert_eq!(cos_f16(0x3400), None, "cos(pi / 2)");
        assert_eq!(fract_f16(0xb400), 0x3a00, "fract(-0.25) = 0.75");
        assert_eq!(fract_f16(0x8001), 0x3bff, "fract(-2^-24) stays below 1");
        assert_eq!(fract_f16(inf), nan);
        assert_eq!(fract_f16(0x7d00), 0x7f00);
        assert_eq!(round_int_f16(0xbe00, 0), 0xc000, "floor(-1.5)");
        assert_eq!(round_int_f16(0xbe00, 1), 0xbc00, "ceil(-1.5)");
        assert_eq!(round_int_f16(0xb800, 1), 0x8000, "ceil(-0.5) = -0");
        assert_eq!(round_int_f16(0xbe00, 2), 0xbc00, "trunc(-1.5)");
        assert_eq!(round_int_f16(0x4100, 3), 0x4000, "rndne(2.5) = 2");
        assert_eq!(round_int_f16(0xb800, 3), 0x8000, "rndne(-0.5) = -0");
        assert_eq!(frexp_mant_f16(0x0001), 0x3800, "2^-24 = 0.5 * 2^-23");
        assert_eq!(frexp_exp_f16(0x0001), -23);
        assert_eq!(frexp_mant_f16(0xfbff), 0xbbff);
        assert_eq!(frexp_exp_f16(0x7bff), 16);
        assert_eq!(frexp_exp_f16(inf), 0);
        assert_eq!(frexp_mant_f16(ninf), ninf);
        assert_eq!(ldexp_f16(0x3c00, 15), Some(0x7800));
        assert_eq!(ldexp_f16(0x3c00, 16), Some(inf));
        assert_eq!(
            ldexp_f16(0x3c00, (-25i32) as u32),
            Some(0),
            "2^-25 ties to even 0"
        );
        assert_eq!(
            ldexp_f16(0x3e00, (-25i32) as u32),
            Some(1),
            "1.5 * 2^-25 rounds up"
        );
        assert_eq!(ldexp_f16(0x0001, 24), Some(0x3c00));
        assert_eq!(
            ldexp_f16(0x3c00, 0x1_0000),
            None,
            "i16 reading 0, i32 reading 2^16"
        );
        assert_eq!(ldexp_f16(0x3c00, 0x7fff_0000), None);
        assert_eq!(
            ldexp_f16(0xbc00, 0xffff_8000),
            Some(0x8000),
            "both readings underflow"
        );
        assert_eq!(ldexp_f16(0xbc00, 0x8000_0000), None, "-1 * 2^0 or -0");
    }

    #[test]
    fn div_fixup_f16_follows_the_pseudo_code_order() {
        let (one, two) = (0x3c00u16, 0x4000u16);
        assert_eq!(
            div_fixup_f16(one, 0x7c05, 0x7c09),
            0x7e09,
            "a NaN numerator first"
        );
        assert_eq!(
            div_fixup_f16(one, 0xfd05, two),
            0xff05,
            "then a NaN denominator"
        );
        assert_eq!(div_fixup_f16(one, 0x8000, 0), F16_DEFAULT_NAN, "0/0");
        assert_eq!(
            div_fixup_f16(one, 0x7c00, 0xfc00),
            F16_DEFAULT_NAN,
            "inf/inf"
        );
        assert_eq!(div_fixup_f16(one, 0x8000, two), 0xfc00, "2 / -0");
        assert_eq!(div_fixup_f16(one, two, 0xfc00), 0xfc00, "-inf / 2");
        assert_eq!(div_fixup_f16(one, 0xfc00, two), 0x8000, "2 / -inf");
        assert_eq!(div_fixup_f16(one, two, 0x8000), 0x8000, "-0 / 2");
        assert_eq!(
            div_fixup_f16(0xb800, 0xc000, two),
            0xb800,
            "the quotient's sign fixed"
        );
        assert_eq!(div_fixup_f16(0x3800, 0xc000, 0xc000), 0x3800);
    }

    #[test]
    fn fma_rounds_once() {
        // 1 + 2^-11 + 2^-30: just above the midpoint between 1 and 1 + 2^-10.
        let (a, c) = (1.0 + f32::powi(2.0, -11), f32::powi(2.0, -30));
        assert_eq!(fma_f32_to_f16(a, 1.0, c), 0x3c01);
        // Rounding to f32 first lands on the midpoint, which ties to even.
        assert_eq!(f32_to_f16(a.mul_add(1.0, c)), 0x3c00);
        assert_eq!(fma_f32_to_f16(f32::INFINITY, 0.0, 1.0), F16_DEFAULT_NAN);
        assert_eq!(fma_f32_to_f16(1e30, 1e30, -1.0), 0x7c00);
        assert_eq!(fma_f32_to_f16(-0.0, 1.0, -0.0), 0x8000);
        assert_eq!(fma_f32_to_f16(-0.0, 1.0, 0.0), 0);
        assert_eq!(fma_f32_to_f16(1.0, -1.0, 1.0), 0, "exact zero is +0");
        assert_eq!(
            fma_f16(0x3c00, 0x7d00, 0x7e01),
            0x7f00,
            "the first NaN, quietened"
        );
    }

    /// An f32 exactly as an integer multiple of 2^-86 (values in [2^-20, 2^20]).
    fn scaled(x: f32) -> i128 {
        let m = x.abs() as f64;
        let v = (m * f64::powi(2.0, 43)) as i128; // exact: x's lsb is at least 2^-43
        let v = v << 43;
        if x < 0.0 { -v } else { v }
    }

    proptest! {
        /// `fma_f32_to_f16` is the f16 value nearest to the exact `a * b + c`
        /// (ties to even), checked with exact integer arithmetic.
        #[test]
        fn fma_to_f16_is_nearest(
            a in (-20i32..4, 0u32..1 << 23, any::<bool>()),
            b in (-20i32..4, 0u32..1 << 23, any::<bool>()),
            c in (-20i32..12, 0u32..1 << 23, any::<bool>()),
        ) {
            let f = |(e, m, s): (i32, u32, bool)| {
                let v = f32::from_bits(((e + 127) as u32) << 23 | m);
                if s { -v } else { v }
            };
            let (a, b, c) = (f(a), f(b), f(c));
            // a * b in units of 2^-86: each factor in units of 2^-43.
            let exact = (scaled(a) >> 43) * (scaled(b) >> 43) + scaled(c);
            let r = fma_f32_to_f16(a, b, c);
            let unit = |h: u16| (h64(h) * f64::powi(2.0, 24)) as i128 * (1i128 << 62);
            if r & 0x7fff < 0x7c00 {
                let d = (exact - unit(r)).abs();
                for nb in [r.wrapping_add(1), r.wrapping_sub(1)] {
                    if nb & 0x7fff < 0x7c00 && (nb ^ r) & 0x8000 == 0 {
                        let dn = (exact - unit(nb)).abs();
                        prop_assert!(d < dn || d == dn && r & 1 == 0, "{a} {b} {c} -> {r:#x}");
                    }
                }
            }
        }
    }

    #[test]
    fn mad_rounds_the_product_and_flushes_denormals() {
        let e = 1.0 + f32::EPSILON;
        // (1 + 2^-23)^2 - 1 = 2^-22 + 2^-46 exactly; the product rounds first.
        assert_eq!(mad_f32(e, e, -1.0), f32::powi(2.0, -22));
        assert_eq!(
            e.mul_add(e, -1.0),
            f32::powi(2.0, -22) + f32::powi(2.0, -46)
        );
        let tiny = f32::powi(2.0, -70);
        assert_eq!(
            mad_f32(tiny, tiny, 1e-45).to_bits(),
            0,
            "denormal product and addend"
        );
        assert_eq!(mad_f32(-tiny, tiny, 0.0).to_bits(), 0, "-0 + +0 is +0");
        assert_eq!(mad_f32(f32::MIN_POSITIVE, 0.5, 0.0), 0.0, "denormal result");
        // f16: (1 + 2^-10)(1 + 3 * 2^-10) - 1 = 2^-8 + 3 * 2^-20; the product
        // rounds to 1 + 2^-8 first.
        assert_eq!(mad_f16(0x3c01, 0x3c03, 0xbc00), 0x1c00);
        assert_eq!(fma_f16(0x3c01, 0x3c03, 0xbc00), 0x1c01);
        assert_eq!(mad_f16(0x0001, 0x3c00, 0), 0, "a denormal input is flushed");
        assert_eq!(
            mad_f16(0x0400, 0x3800, 0x8000),
            0,
            "a denormal product is flushed"
        );
    }

    #[test]
    fn half_classes() {
        let cases = [
            (0x7d00u16, 0u32),
            (0x7e00, 1),
            (0xfc00, 2),
            (0xbc00, 3),
            (0x8001, 4),
            (0x8000, 5),
            (0x0000, 6),
            (0x03ff, 7),
            (0x0400, 8),
            (0x7c00, 9),
        ];
        for (h, c) in cases {
            assert_eq!(fp_class_f16(h), c, "{h:#06x}");
        }
    }

    #[test]
    fn pack_keeps_bits_but_not_signalling_nans() {
        assert_eq!(pack_b32_f16(0x3c00, 0xfe00), Some(0xfe00_3c00));
        assert_eq!(pack_b32_f16(0x0001, 0x8000), Some(0x8000_0001));
        assert_eq!(pack_b32_f16(0x7c01, 0), None);
        assert_eq!(xad_u32(0xf0f0_f0f0, 0xffff_0000, 0x1_0000), 0x0f10_f0f0);
        assert_eq!(xad_u32(u32::MAX, 0, 2), 1);
    }

    /// A fixed-point number: `limbs[0]` is the integer part, then base-2^32
    /// fraction digits, most significant first.
    struct Fixed {
        limbs: Vec<u32>,
    }

    impl Fixed {
        fn zero(n: usize) -> Fixed {
            Fixed { limbs: vec![0; n] }
        }
        fn div_small(&self, d: u32) -> Fixed {
            let mut out = Fixed::zero(self.limbs.len());
            let mut rem = 0u64;
            for (o, &x) in out.limbs.iter_mut().zip(&self.limbs) {
                let cur = rem << 32 | x as u64;
                *o = (cur / d as u64) as u32;
                rem = cur % d as u64;
            }
            out
        }
        fn add(&mut self, o: &Fixed, sub: bool) {
            let mut carry = 0i64;
            for k in (0..self.limbs.len()).rev() {
                let v = self.limbs[k] as i64
                    + if sub {
                        -(o.limbs[k] as i64)
                    } else {
                        o.limbs[k] as i64
                    }
                    + carry;
                self.limbs[k] = v.rem_euclid(1 << 32) as u32;
                carry = v.div_euclid(1 << 32);
            }
        }
        fn is_zero(&self) -> bool {
            self.limbs.iter().all(|&x| x == 0)
        }
        fn mul_small(&self, m: u32) -> Fixed {
            let mut out = Fixed::zero(self.limbs.len());
            let mut carry = 0u64;
            for k in (0..self.limbs.len()).rev() {
                let v = self.limbs[k] as u64 * m as u64 + carry;
                out.limbs[k] = v as u32;
                carry = v >> 32;
            }
            out
        }
    }

    /// arctan(1/k) by its Taylor series, in fixed point.
    fn arctan_inv(k: u32, n: usize) -> Fixed {
        let mut one = Fixed::zero(n);
        one.limbs[0] = 1;
        let mut power = one.div_small(k);
        let mut sum = Fixed::zero(n);
        let mut term = 0u32;
        while !power.is_zero() {
            sum.add(&power.div_small(2 * term + 1), term % 2 == 1);
            power = power.div_small(k * k);
            term += 1;
        }
        sum
    }

    /// The table is the first 1201 bits of 2/PI (truncated): with PI from
    /// Machin's formula, `2 - T * PI` lies in [0, PI * 2^-1201).
    #[test]
    fn two_over_pi_table_is_two_over_pi() {
        let n = 44; // 1 integer + 43 fraction limbs (1376 bits)
        let mut pi = arctan_inv(5, n).mul_small(16);
        pi.add(&arctan_inv(239, n).mul_small(4), true);
        assert_eq!(
            pi.limbs[..3],
            [3, 0x243f_6a88, 0x85a3_08d3],
            "PI = 3.243F6A8885A308D3..."
        );
        // T * PI as a big integer: T has 38 fraction limbs, PI 43.
        let t = &TWO_OVER_PI;
        let mut prod = vec![0u64; t.len() + n];
        for (i, &x) in t.iter().enumerate() {
            for (j, &y) in pi.limbs.iter().enumerate() {
                prod[i + j + 1] += (x as u64 * y as u64) & 0xffff_ffff;
                prod[i + j] += (x as u64 * y as u64) >> 32;
            }
        }
        for k in (1..prod.len()).rev() {
            prod[k - 1] += prod[k] >> 32;
            prod[k] &= 0xffff_ffff;
        }
        // prod[0] is the integer part: 2 - T * PI = 1.xxx complement.
        assert_eq!(prod[0], 1, "T * PI is just below 2");
        // The fraction must be 1 - d with d < PI * 2^-1201: its first 37 limbs
        // are all ones, and limb 37 (bits 1185..1216) is at least
        // 2^32 - PI * 2^15.
        assert!(
            prod[1..38].iter().all(|&x| x == 0xffff_ffff),
            "{:x?}",
            &prod[..40]
        );
        let d = 0xffff_ffffu64 - prod[38];
        assert!(d < (std::f64::consts::PI * 32768.0) as u64, "d = {d}");
    }

    #[test]
    fn trig_preop_segments() {
        // Segment 0 of 1.0: 2/PI truncated to 53 bits, one ulp below the
        // correctly rounded constant (the 54th bit of 2/PI is 1).
        let p0 = trig_preop_f64(1.0, 0).unwrap();
        assert_eq!(p0.to_bits(), std::f64::consts::FRAC_2_PI.to_bits() - 1);
        // Each segment is the next 53 bits: 2^(53 s) * p_s * 2^53 is an
        // integer below 2^53, and the segments sum to 2/PI within 2^-150.
        let p: Vec<f64> = (0..3).map(|s| trig_preop_f64(-3.0, s).unwrap()).collect();
        for (s, v) in p.iter().enumerate() {
            let m = ldexp64(*v, 53 * (s as i32 + 1));
            assert!(m.fract() == 0.0 && m < f64::powi(2.0, 53), "segment {s}");
        }
        // The rest after segment 0 is more than half an ulp (the constant
        // rounds up) and less than one.
        assert!(p[1] > f64::powi(2.0, -54) && p[1] < f64::powi(2.0, -53));
        assert_eq!(p[0], p0, "the sign of the input does not matter");
        for (s, v) in p.iter().enumerate() {
            let bits = two_over_pi_bits(53 * s as u32);
            assert_eq!(
                *v,
                ldexp64(bits as f64, -53 * (s as i32 + 1)),
                "segment {s}"
            );
        }
        // Large inputs move the window by exponent - 1077 bits.
        let x = f64::powi(2.0, 60); // exponent 1083: 6 bits further
        assert_eq!(
            trig_preop_f64(x, 0).unwrap(),
            ldexp64(two_over_pi_bits(6) as f64, -59)
        );
        // From exponent 1968 the result is scaled up by 2^128.
        let x = f64::from_bits(1968u64 << 52);
        assert_eq!(
            trig_preop_f64(x, 1).unwrap(),
            ldexp64(two_over_pi_bits(53 + 891) as f64, -53 - 53 - 891 + 128)
        );
        assert_eq!(trig_preop_f64(1.0, 23), Some(0.0), "past bit 1201");
        assert_eq!(trig_preop_f64(1.0, 22), None, "bits 1166..: disputed");
        assert_eq!(
            trig_preop_f64(1.0, 20),
            None,
            "a denormal result that rounds"
        );
        let p19 = trig_preop_f64(1.0, 19).unwrap();
        assert_eq!(
            p19,
            ldexp64(two_over_pi_bits(1007) as f64, -1060),
            "still normal"
        );
        assert!(trig_preop_f64(f64::NAN, 0).unwrap().is_nan());
        assert_eq!(
            trig_preop_f64(f64::from_bits(0x7ff0_0000_0000_0001), 0).map(f64::to_bits),
            Some(0x7ff8_0000_0000_0001)
        );
        // Segment 32 is segment 0 (S1[4:0]).
        assert_eq!(trig_preop_f64(1.0, 32), Some(p0));
    }
}

#[cfg(test)]
mod conversion_tests {
    use super::*;

    #[test]
    fn cube_faces_ties_and_signed_zero() {
        // z major, negative: face 5, s = -x, t = -y.
        assert_eq!(cube(1.0, 2.0, -3.0), (5.0, -3.0, -1.0, -2.0));
        // A tie between |z| and |x| goes to z; between |y| and |x| to y.
        assert_eq!(cube(2.0, 1.0, 2.0).0, 4.0);
        assert_eq!(cube(-2.0, 2.0, 1.0), (2.0, 2.0, -2.0, 1.0));
        // x major, positive: face 0, s = -z, t = -y.
        assert_eq!(cube(3.0, -1.0, 2.0), (0.0, 3.0, -2.0, 1.0));
        // -0 is not below 0: face 4 for an all-zero direction.
        assert_eq!(cube(0.0, 0.0, -0.0).0, 4.0);
        // A NaN compares false: x major when z and y lose to it.
        assert_eq!(cube(f32::NAN, 1.0, 0.5).0, 0.0);
    }

    #[test]
    fn normalising_conversions_round_to_even_and_clamp() {
        assert_eq!(f32_to_norm(0.5, 32767.0, -32767.0, 32767.0), 16384);
        assert_eq!(f32_to_norm(-2.0, 32767.0, -32767.0, 32767.0), -32767);
        assert_eq!(f32_to_norm(f32::NAN, 65535.0, 0.0, 65535.0), 0);
        assert_eq!(f32_to_norm(-0.25, 65535.0, 0.0, 65535.0), 0);
        assert_eq!(f32_to_u8(2.5), 2);
        assert_eq!(f32_to_u8(3.5), 4);
        assert_eq!(f32_to_u8(255.5), 255);
        assert_eq!(f32_to_u8(f32::NEG_INFINITY), 0);
        assert_eq!(sat_i16(40000), 0x7fff);
        assert_eq!(sat_i16(-40000), 0x8000);
        assert_eq!(sat_i16(-5), 0xfffb);
    }
}

#[cfg(test)]
mod legacy_tests {
    use super::*;

    #[test]
    fn exp_legacy_is_zero_below_minus_126() {
        assert_eq!(exp_legacy_f32(3.0), 8.0);
        assert_eq!(exp_legacy_f32(-1.0), 0.5);
        assert_eq!(exp_legacy_f32(0.0), 1.0);
        assert_eq!(exp_legacy_f32(-126.0), f32::MIN_POSITIVE);
        // 2^-126.5 is a denormal for v_exp_f32; here it is +0.
        assert_eq!(exp_legacy_f32(-126.5).to_bits(), 0);
        assert_eq!(exp_legacy_f32(f32::NEG_INFINITY).to_bits(), 0);
        assert_eq!(exp_legacy_f32(128.0), f32::INFINITY);
        assert!(exp_legacy_f32(f32::NAN).is_nan());
    }

    #[test]
    fn log_legacy_flushes_denormals_and_gives_minus_nan_below_zero() {
        assert_eq!(log_legacy_f32(1.0).to_bits(), 0);
        assert_eq!(log_legacy_f32(8.0), 3.0);
        assert_eq!(log_legacy_f32(0.25), -2.0);
        assert_eq!(log_legacy_f32(-1.0).to_bits(), 0xffc0_0000);
        assert_eq!(log_legacy_f32(f32::NEG_INFINITY).to_bits(), 0xffc0_0000);
        assert_eq!(log_legacy_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(log_legacy_f32(-0.0), f32::NEG_INFINITY);
        assert_eq!(log_legacy_f32(f32::from_bits(1)), f32::NEG_INFINITY);
        assert_eq!(
            log_legacy_f32(f32::from_bits(0x8000_0001)),
            f32::NEG_INFINITY
        );
        assert_eq!(log_legacy_f32(f32::MIN_POSITIVE), -126.0);
        assert_eq!(log_legacy_f32(f32::INFINITY), f32::INFINITY);
        assert!(log_legacy_f32(f32::NAN).is_nan());
    }

    #[test]
    fn mullit_multiplies_only_when_s2_is_positive() {
        assert_eq!(mullit_f32(2.0, 3.0, 1.0), 6.0);
        assert_eq!(mullit_f32(2.0, 3.0, f32::INFINITY), 6.0);
        for s2 in [0.0, -0.0, -1.0, f32::NAN, f32::NEG_INFINITY] {
            assert_eq!(mullit_f32(2.0, 3.0, s2), -f32::MAX, "{s2}");
        }
        // 0 * x = +0, also for an infinity, a NaN and -0.
        assert_eq!(mullit_f32(0.0, f32::INFINITY, 1.0).to_bits(), 0);
        assert_eq!(mullit_f32(f32::NAN, 0.0, 1.0).to_bits(), 0);
        assert_eq!(mullit_f32(-0.0, 5.0, 1.0).to_bits(), 0);
        assert_eq!(mullit_f32(-3.0, 4.0, 0.5), -12.0);
        assert_eq!(mullit_f32(f32::MAX, 2.0, 1.0), f32::INFINITY);
        assert_eq!(
            mullit_f32(f32::from_bits(0x7f80_0001), 2.0, 1.0).to_bits(),
            0x7fc0_0001
        );
    }
}

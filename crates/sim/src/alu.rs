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
            } else if $exp(1.0 / s1) == 0 && $exp(s2 / s1) != 0 {
                vcc = true;
                if s0 == s1 {
                    d = $ldexp(s0, $scale);
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

/// `v_div_fixup_f64`: the special cases of `s2 / s1` given the quotient
/// estimate `s0` (NaN, infinities, zeros); otherwise `s0`.
pub fn div_fixup_f64(s0: f64, s1: f64, s2: f64) -> f64 {
    let sign = (s1.is_sign_negative()) != (s2.is_sign_negative());
    let signed = |v: f64| if sign { -v } else { v };
    if s1.is_nan() {
        s1
    } else if s2.is_nan() {
        s2
    } else if s1 == 0.0 && s2 == 0.0 || s1.is_infinite() && s2.is_infinite() {
        f64::NAN
    } else if s1 == 0.0 || s2.is_infinite() {
        signed(f64::INFINITY)
    } else if s1.is_infinite() || s2 == 0.0 {
        signed(0.0)
    } else if s0.is_nan() {
        // The estimate overflowed inside the iteration.
        signed(f64::INFINITY)
    } else {
        signed(s0.abs())
    }
}

/// `v_div_fixup_f32`, as [`div_fixup_f64`].
pub fn div_fixup_f32(s0: f32, s1: f32, s2: f32) -> f32 {
    div_fixup_f64(s0 as f64, s1 as f64, s2 as f64) as f32
}

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

#[cfg(test)]
mod tests {

    /// LLVM's division sequence (div_scale of denominator and numerator,
    /// reciprocal refinement, div_fmas, div_fixup) with these helpers.
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
                let mut f = e3.mul_add(r, q);
                if vcc {
                    f = $ldexp(f, $fmas(q));
                }
                $fixup(f, b, a)
            }
        };
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
            ldexp32,
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
            ldexp64,
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

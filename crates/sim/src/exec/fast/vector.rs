//! Running the vector ALU handlers over the wave's 32 or 64 lanes.

use super::*;

/// Writes a lane mask as `write_mask_dst` of the general executor does
/// (the operand checked by [`mask_dst`]).
#[inline(always)]
pub(super) fn write_mask(w: &mut Wave, op: &Operand, m: u64) {
    match op {
        Operand::None
        | Operand::Special {
            reg: SpecialReg::Null,
            ..
        } => {}
        _ => {
            let written = w.write_mask(op, m);
            debug_assert!(written, "mask destination {op}");
        }
    }
}

/// Runs a vector ALU handler over `N` lanes; `false`, with the wave unchanged,
/// when the general executor must run the instruction. Each handler is a
/// helper, inlined here.
#[inline(always)]
pub(super) fn run_n<const N: usize>(f: &Fast, w: &mut Wave) -> bool {
    match *f {
        Fast::U1 { op, d, a } => int1::<N>(w, op, d, &a),
        Fast::U2 { op, d, a, b } => int2::<N>(w, op, d, &a, &b),
        Fast::U3 { op, d, a, b, c } => int3::<N>(w, op, d, (&a, &b, &c)),
        Fast::F2 { op, d, a, b, neg } => float2::<N>(w, op, d, (&a, &b, neg)),
        Fast::Fma { d, a, b, c, neg } => fma::<N>(w, d, (&a, &b, &c), neg),
        Fast::Fmac { d, a, b, neg } => fmac::<N>(w, d, (&a, &b), neg),
        Fast::Cmp { c, a, b, neg, d } => cmp32::<N>(w, &c, (&a, &b), neg, &d),
        Fast::Cndmask { d, a, b, mask, neg } => cndmask::<N>(w, d, (&a, &b), &mask, neg),
        Fast::Carry {
            op,
            d,
            a,
            b,
            cin,
            cout,
        } => carry::<N>(w, op, d, (&a, &b), &cin, &cout),
        Fast::Cmp64 { c, a, b, d } => cmp64::<N>(w, &c, (&a, &b), &d),
        Fast::Shift64 { op, d, a, b } => shift64::<N>(w, op, d, &a, &b),
        Fast::MadU64 { d, a, b, c, cout } => mad_u64::<N>(w, d, (&a, &b, &c), &cout),
        Fast::S64 { .. } | Fast::Saveexec { .. } => false,
        Fast::Nop
        | Fast::Sleep
        | Fast::SMov { .. }
        | Fast::S2 { .. }
        | Fast::SCmp { .. }
        | Fast::Branch { .. }
        | Fast::Endpgm
        | Fast::Barrier => false,
        Fast::SLoad { .. }
        | Fast::GLoad { .. }
        | Fast::GStore { .. }
        | Fast::DsRead { .. }
        | Fast::DsWrite { .. } => false,
    }
}

/// `d = op(a)` ([`Fast::U1`]).
#[inline(always)]
fn int1<const N: usize>(w: &mut Wave, op: U1, d: u8, a: &Src) -> bool {
    let Some(a) = fetch::<N>(w, a) else {
        return false;
    };
    match op {
        U1::Mov => write::<N>(w, d, |l| a[l]),
        U1::Not => write::<N>(w, d, |l| !a[l]),
    }
}

/// `d = op(a, b)` ([`Fast::U2`]).
#[inline(always)]
fn int2<const N: usize>(w: &mut Wave, op: U2, d: u8, a: &Src, b: &Src) -> bool {
    match op {
        U2::Add => u2::<N>(w, d, a, b, u32::wrapping_add),
        U2::Sub => u2::<N>(w, d, a, b, u32::wrapping_sub),
        U2::Subrev => u2::<N>(w, d, a, b, |x, y| y.wrapping_sub(x)),
        U2::And => u2::<N>(w, d, a, b, |x, y| x & y),
        U2::Or => u2::<N>(w, d, a, b, |x, y| x | y),
        U2::Xor => u2::<N>(w, d, a, b, |x, y| x ^ y),
        U2::Xnor => u2::<N>(w, d, a, b, |x, y| !(x ^ y)),
        U2::Lshlrev => u2::<N>(w, d, a, b, |x, y| y << (x & 31)),
        U2::Lshrrev => u2::<N>(w, d, a, b, |x, y| y >> (x & 31)),
        U2::Ashrrev => u2::<N>(w, d, a, b, |x, y| ((y as i32) >> (x & 31)) as u32),
        U2::MinU => u2::<N>(w, d, a, b, |x, y| x.min(y)),
        U2::MaxU => u2::<N>(w, d, a, b, |x, y| x.max(y)),
        U2::MinI => u2::<N>(w, d, a, b, |x, y| (x as i32).min(y as i32) as u32),
        U2::MaxI => u2::<N>(w, d, a, b, |x, y| (x as i32).max(y as i32) as u32),
        U2::MulLo => u2::<N>(w, d, a, b, u32::wrapping_mul),
        U2::MulHiU => u2::<N>(w, d, a, b, |x, y| ((x as u64 * y as u64) >> 32) as u32),
        U2::MulHiI => u2::<N>(w, d, a, b, |x, y| {
            ((x as i32 as i64 * y as i32 as i64) >> 32) as u32
        }),
        U2::MulU24 => u2::<N>(w, d, a, b, |x, y| {
            (x & 0xff_ffff).wrapping_mul(y & 0xff_ffff)
        }),
    }
}

/// `d = op(a, b, c)` ([`Fast::U3`]).
#[inline(always)]
fn int3<const N: usize>(w: &mut Wave, op: U3, d: u8, s: (&Src, &Src, &Src)) -> bool {
    match op {
        U3::Add3 => u3::<N>(w, d, s, |x, y, z| x.wrapping_add(y).wrapping_add(z)),
        U3::LshlAdd => u3::<N>(w, d, s, |x, y, z| (x << (y & 31)).wrapping_add(z)),
        U3::AddLshl => u3::<N>(w, d, s, |x, y, z| x.wrapping_add(y) << (z & 31)),
        U3::LshlOr => u3::<N>(w, d, s, |x, y, z| (x << (y & 31)) | z),
        U3::AndOr => u3::<N>(w, d, s, |x, y, z| (x & y) | z),
        U3::Or3 => u3::<N>(w, d, s, |x, y, z| x | y | z),
        U3::MadU24 => u3::<N>(w, d, s, |x, y, z| {
            (x & 0xff_ffff).wrapping_mul(y & 0xff_ffff).wrapping_add(z)
        }),
        U3::Bfi => u3::<N>(w, d, s, |x, y, z| (x & y) | (!x & z)),
        U3::Alignbit => u3::<N>(w, d, s, |x, y, z| {
            (((x as u64) << 32 | y as u64) >> (z & 31)) as u32
        }),
    }
}

/// `d = op(a, b)` on f32 ([`Fast::F2`]).
#[inline(always)]
fn float2<const N: usize>(w: &mut Wave, op: F2, d: u8, s: (&Src, &Src, u8)) -> bool {
    match op {
        F2::Add => f2::<N>(w, d, s, |x, y| x + y),
        F2::Sub => f2::<N>(w, d, s, |x, y| x - y),
        F2::Subrev => f2::<N>(w, d, s, |x, y| y - x),
        F2::Mul => f2::<N>(w, d, s, |x, y| x * y),
    }
}

/// `d = fma(a, b, c)` ([`Fast::Fma`]).
#[inline(always)]
fn fma<const N: usize>(w: &mut Wave, d: u8, (a, b, c): (&Src, &Src, &Src), neg: u8) -> bool {
    let (Some(a), Some(b), Some(c)) = (
        fetch_f::<N>(w, a, neg, 0),
        fetch_f::<N>(w, b, neg, 1),
        fetch_f::<N>(w, c, neg, 2),
    ) else {
        return false;
    };
    let r = fma_lanes::<N>(&a, &b, &c);
    write::<N>(w, d, |l| r[l])
}

/// `d = fma(a, b, d)` ([`Fast::Fmac`]).
#[inline(always)]
fn fmac<const N: usize>(w: &mut Wave, d: u8, (a, b): (&Src, &Src), neg: u8) -> bool {
    let (Some(a), Some(b), Some(c)) = (
        fetch_f::<N>(w, a, neg, 0),
        fetch_f::<N>(w, b, neg, 1),
        fetch::<N>(w, &Src::V(d)),
    ) else {
        return false;
    };
    let r = fma_lanes::<N>(&a, &b, &c);
    write::<N>(w, d, |l| r[l])
}

/// A 32-bit integer or f32 compare ([`Fast::Cmp`]).
#[inline(always)]
fn cmp32<const N: usize>(
    w: &mut Wave,
    c: &Cmp,
    (a, b): (&Src, &Src),
    neg: u8,
    d: &Operand,
) -> bool {
    let exec = w.exec.0 & full::<N>();
    let (Some(a), Some(b)) = (fetch::<N>(w, a), fetch::<N>(w, b)) else {
        return false;
    };
    let (lt, eq, gt) = match c.ty {
        CmpTy::U32 => masks::<N, u32>(&a, &b),
        CmpTy::I32 => masks::<N, i32>(&a.map(|x| x as i32), &b.map(|x| x as i32)),
        _ => {
            let fl = |v: &[u32; N], k: u8| -> [f32; N] {
                let flip = if (neg >> k) & 1 != 0 { 0x8000_0000 } else { 0 };
                v.map(|x| f32::from_bits(x ^ flip))
            };
            masks::<N, f32>(&fl(&a, 0), &fl(&b, 1))
        }
    };
    finish_cmp(w, c, d, c.eval_masks(lt, eq, gt, !(lt | eq | gt)) & exec);
    true
}

/// `d = mask[l] ? b : a` ([`Fast::Cndmask`]).
#[inline(always)]
fn cndmask<const N: usize>(
    w: &mut Wave,
    d: u8,
    (a, b): (&Src, &Src),
    mask: &Operand,
    neg: u8,
) -> bool {
    let (Some(a), Some(b), Some(m)) = (
        fetch_f::<N>(w, a, neg, 0),
        fetch_f::<N>(w, b, neg, 1),
        w.read_mask(mask),
    ) else {
        return false;
    };
    write::<N>(w, d, |l| if (m >> l) & 1 != 0 { b[l] } else { a[l] })
}

/// `d = a ± b (± carry-in)`, the carry-out lanes to `cout` ([`Fast::Carry`]).
#[inline(always)]
fn carry<const N: usize>(
    w: &mut Wave,
    op: Carry,
    d: u8,
    (a, b): (&Src, &Src),
    cin: &Operand,
    cout: &Operand,
) -> bool {
    let exec = w.exec.0 & full::<N>();
    let cin = if cin.is_some() {
        match w.read_mask(cin) {
            Some(m) => m,
            None => return false,
        }
    } else {
        0
    };
    let (Some(a), Some(b)) = (fetch::<N>(w, a), fetch::<N>(w, b)) else {
        return false;
    };
    let (x, y) = match op {
        Carry::Subrev | Carry::Subbrev => (&b, &a),
        _ => (&a, &b),
    };
    let add = matches!(op, Carry::Add | Carry::Addc);
    let mut carry = 0u64;
    let mut r = [0u32; N];
    for l in 0..N {
        let c = (cin >> l) & 1;
        let (xv, yv) = (x[l] as u64, y[l] as u64);
        let (v, co) = if add {
            let s = xv + yv + c;
            (s as u32, s >> 32 != 0)
        } else {
            (xv.wrapping_sub(yv + c) as u32, yv + c > xv)
        };
        r[l] = v;
        carry |= (co as u64) << l;
    }
    write::<N>(w, d, |l| r[l]);
    write_mask(w, cout, carry & exec);
    true
}

/// A 64-bit integer compare ([`Fast::Cmp64`]).
#[inline(always)]
fn cmp64<const N: usize>(w: &mut Wave, c: &Cmp, (a, b): (&Src64, &Src64), d: &Operand) -> bool {
    let exec = w.exec.0 & full::<N>();
    let (mut x, mut y) = ([0u64; N], [0u64; N]);
    if !(fetch64_into(w, a, &mut x) && fetch64_into(w, b, &mut y)) {
        return false;
    }
    let (lt, eq, gt) = if c.ty == CmpTy::I64 {
        masks::<N, i64>(&x.map(|v| v as i64), &y.map(|v| v as i64))
    } else {
        masks::<N, u64>(&x, &y)
    };
    finish_cmp(w, c, d, c.eval_masks(lt, eq, gt, !(lt | eq | gt)) & exec);
    true
}

/// VGPRs `d`, `d + 1` = `b` shifted by `a & 63` ([`Fast::Shift64`]).
#[inline(always)]
fn shift64<const N: usize>(w: &mut Wave, op: Sh64, d: u8, a: &Src, b: &Src64) -> bool {
    let (mut x, mut y) = ([0u32; N], [0u64; N]);
    if !(fetch_into(w, a, &mut x) && fetch64_into(w, b, &mut y)) {
        return false;
    }
    let r: [u64; N] = match op {
        Sh64::Lshl => std::array::from_fn(|l| y[l] << (x[l] & 63)),
        Sh64::Lshr => std::array::from_fn(|l| y[l] >> (x[l] & 63)),
        Sh64::Ashr => std::array::from_fn(|l| ((y[l] as i64) >> (x[l] & 63)) as u64),
    };
    write::<N>(w, d, |l| r[l] as u32) && write::<N>(w, d + 1, |l| (r[l] >> 32) as u32)
}

/// VGPRs `d`, `d + 1` = `a * b + c`, the carry-out lanes to `cout`
/// ([`Fast::MadU64`]).
#[inline(always)]
fn mad_u64<const N: usize>(
    w: &mut Wave,
    d: u8,
    (a, b, c): (&Src, &Src, &Src64),
    cout: &Operand,
) -> bool {
    let exec = w.exec.0 & full::<N>();
    let (mut x, mut y, mut z) = ([0u32; N], [0u32; N], [0u64; N]);
    if !(fetch_into(w, a, &mut x) && fetch_into(w, b, &mut y) && fetch64_into(w, c, &mut z)) {
        return false;
    }
    let mut carry = 0u64;
    let mut r = [0u64; N];
    for l in 0..N {
        let p = x[l] as u128 * y[l] as u128 + z[l] as u128;
        carry |= ((p >> 64 != 0) as u64) << l;
        r[l] = p as u64;
    }
    let done = write::<N>(w, d, |l| r[l] as u32) && write::<N>(w, d + 1, |l| (r[l] >> 32) as u32);
    write_mask(w, cout, carry & exec);
    done
}

/// Writes a compare's lanes `r` (already under EXEC): to the SGPR pair of
/// the VOP3 form, or to VCC; the `v_cmpx` forms also to EXEC.
#[inline(always)]
fn finish_cmp(w: &mut Wave, c: &Cmp, d: &Operand, r: u64) {
    if d.is_some() {
        write_mask(w, d, r);
    } else if !c.x {
        w.vcc = crate::wave::Mask(r);
    }
    if c.x {
        w.exec = crate::wave::Mask(r);
    }
}

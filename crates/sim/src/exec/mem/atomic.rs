//! Atomics: the read-modify-write of each atomic operation, the vector
//! memory atomics lane by lane, and the LDS `*_src2` forms.

use super::*;

/// The new memory value of an atomic (Vega ISA §12.13 "FLAT atomics";
/// `cmp` is the second data operand of compare-and-swap).
pub(crate) fn atomic_op(op: At, old: u64, src: u64, cmp: u64, wide: bool) -> u64 {
    let (so, ss) = if wide {
        (old as i64, src as i64)
    } else {
        (old as u32 as i32 as i64, src as u32 as i32 as i64)
    };
    let r = match op {
        At::Add => old.wrapping_add(src),
        At::Sub => old.wrapping_sub(src),
        At::Rsub => src.wrapping_sub(old),
        At::Smin => so.min(ss) as u64,
        At::Smax => so.max(ss) as u64,
        At::Umin => old.min(src),
        At::Umax => old.max(src),
        At::And => old & src,
        At::Or => old | src,
        At::Xor => old ^ src,
        At::Inc => {
            if old >= src {
                0
            } else {
                old + 1
            }
        }
        At::Dec => {
            if old == 0 || old > src {
                src
            } else {
                old - 1
            }
        }
        At::Swap => src,
        At::Cmpswap => {
            if old == cmp {
                src
            } else {
                old
            }
        }
        At::Mskor => (old & !cmp) | src,
        // Subtract, clamped at 0 (RDNA2 `*_atomic_csub`).
        At::Csub => old.saturating_sub(src),
        // Floating-point adds, rounded to nearest even.
        At::FaddF32 => (f32::from_bits(old as u32) + f32::from_bits(src as u32)).to_bits() as u64,
        At::FaddF32Mode(keep_in, keep_out) => {
            let ftz = |x: f32, keep: bool| if keep { x } else { crate::alu::ftz_f32(x) };
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(src as u32));
            ftz(ftz(a, keep_in) + ftz(b, keep_in), keep_out).to_bits() as u64
        }
        At::FaddF32Ftz => {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(src as u32));
            let ftz = crate::alu::ftz_f32;
            ftz(ftz(a) + ftz(b)).to_bits() as u64
        }
        At::FaddF64 => (f64::from_bits(old) + f64::from_bits(src)).to_bits(),
        At::FminF32 | At::FmaxF32 => {
            let (a, b) = (f32::from_bits(old as u32), f32::from_bits(src as u32));
            let r = if op == At::FminF32 {
                crate::alu::min_f32(a, b)
            } else {
                crate::alu::max_f32(a, b)
            };
            r.to_bits() as u64
        }
        At::FminF64 | At::FmaxF64 => {
            let (a, b) = (f64::from_bits(old), f64::from_bits(src));
            let r = if op == At::FminF64 {
                crate::alu::min_f64(a, b)
            } else {
                crate::alu::max_f64(a, b)
            };
            r.to_bits()
        }
        At::FcmpswapF32 => {
            if f32::from_bits(old as u32) == f32::from_bits(cmp as u32) {
                src
            } else {
                old
            }
        }
        At::FcmpswapF64 => {
            if f64::from_bits(old) == f64::from_bits(cmp) {
                src
            } else {
                old
            }
        }
        At::Wrap => {
            if old >= cmp {
                old.wrapping_sub(cmp)
            } else {
                old.wrapping_add(src)
            }
        }
        At::PkAddF16 => {
            // Each half sum is exact in f64, so it is rounded once.
            let half = |x: u64, k: u32| crate::alu::f16_to_f32((x >> k) as u16) as f64;
            let sum = |k: u32| crate::alu::f64_to_f16(half(old, k) + half(src, k)) as u64;
            sum(0) | sum(16) << 16
        }
    };
    if wide { r } else { r & 0xffff_ffff }
}

/// For a `ds_*_src2_*` operation: the atomic it applies and whether it is
/// 64-bit. `None` for other kinds.
pub(super) fn src2(k: MemKind) -> Option<(At, bool)> {
    use MemKind::*;
    Some(match k {
        DsSrc2AddU32 => (At::Add, false),
        DsSrc2SubU32 => (At::Sub, false),
        DsSrc2RsubU32 => (At::Rsub, false),
        DsSrc2IncU32 => (At::Inc, false),
        DsSrc2DecU32 => (At::Dec, false),
        DsSrc2MinI32 => (At::Smin, false),
        DsSrc2MaxI32 => (At::Smax, false),
        DsSrc2MinU32 => (At::Umin, false),
        DsSrc2MaxU32 => (At::Umax, false),
        DsSrc2AndB32 => (At::And, false),
        DsSrc2OrB32 => (At::Or, false),
        DsSrc2XorB32 => (At::Xor, false),
        DsSrc2WriteB32 => (At::Swap, false),
        DsSrc2MinF32 => (At::FminF32, false),
        DsSrc2MaxF32 => (At::FmaxF32, false),
        DsSrc2AddF32 => (At::FaddF32, false),
        DsSrc2AddU64 => (At::Add, true),
        DsSrc2SubU64 => (At::Sub, true),
        DsSrc2RsubU64 => (At::Rsub, true),
        DsSrc2IncU64 => (At::Inc, true),
        DsSrc2DecU64 => (At::Dec, true),
        DsSrc2MinI64 => (At::Smin, true),
        DsSrc2MaxI64 => (At::Smax, true),
        DsSrc2MinU64 => (At::Umin, true),
        DsSrc2MaxU64 => (At::Umax, true),
        DsSrc2AndB64 => (At::And, true),
        DsSrc2OrB64 => (At::Or, true),
        DsSrc2XorB64 => (At::Xor, true),
        DsSrc2WriteB64 => (At::Swap, true),
        DsSrc2MinF64 => (At::FminF64, true),
        DsSrc2MaxF64 => (At::FmaxF64, true),
        _ => return None,
    })
}

/// The two LDS addresses `(A, B)` of a `ds_*_src2_*` lane (Vega ISA,
/// DS_ADD_SRC2_U32: `A = ADDR_BASE; B = A + 4 * (offset1[7] ?
/// {A[31], A[31:17]} : {offset1[6], offset1[6:0], offset0})`): the 16-bit
/// dword stride is the instruction's 15-bit offset, sign-extended, or, when
/// offset bit 15 is set, the address's bits 31:17 sign-extended by bit 31,
/// and then A is the address's low 17 bits. The sum wraps at 32 bits like
/// the other DS addresses (a negative result is out of range).
pub(crate) fn src2_addresses(addr: u32, offset: u16) -> (u32, u32) {
    let (a, stride) = if offset & 0x8000 != 0 {
        (
            addr & 0x1_ffff,
            ((addr >> 17) & 0x7fff) as u16 | ((addr >> 16) & 0x8000) as u16,
        )
    } else {
        (addr, (offset & 0x7fff) | ((offset << 1) & 0x8000))
    };
    (a, a.wrapping_add((stride as i16 as i32 * 4) as u32))
}

/// `ds_*_src2_*`: `MEM[A] = op(MEM[A], MEM[B])` for each active lane in lane
/// order ([`src2_addresses`]); no data registers, no return.
pub(super) fn ds_src2(op: At, wide: bool, w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    // `ds_add_src2_f32` uses the LDS f32 adder, which follows MODE's f32
    // denormal bits like `ds_add_f32`.
    let op = match (op, super::super::operand::denorms(w, false)) {
        (At::FaddF32, (keep_in, keep_out)) if !(keep_in && keep_out) => {
            At::FaddF32Mode(keep_in, keep_out)
        }
        _ => op,
    };
    let exec = w.exec.0 & w.full_mask();
    let a = v32(w, &i.src[0], Ty::I)?;
    let size = if wide { 8 } else { 4 };
    for (l, &addr) in a.iter().enumerate().take(w.size as usize) {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let (ra, rb) = src2_addresses(addr, i.mem.offset as u16);
        let (mut x, mut y) = ([0u8; 8], [0u8; 8]);
        lds.read(ra as u64, &mut x[..size]).map_err(lane_err(l))?;
        lds.read(rb as u64, &mut y[..size]).map_err(lane_err(l))?;
        let new = atomic_op(op, u64::from_le_bytes(x), u64::from_le_bytes(y), 0, wide);
        lds.write(ra as u64, &new.to_le_bytes()[..size])
            .map_err(lane_err(l))?;
    }
    Ok(())
}

/// An atomic read-modify-write by each active lane at its target (global
/// memory through the memory's atomics, LDS and private memory in place),
/// the old values written to the destination by the returning forms.
#[allow(clippy::too_many_arguments)]
pub(super) fn atomic(
    op: At,
    wide: bool,
    w: &mut Wave,
    i: &Inst,
    lds: &mut Bytes,
    ctx: &Ctx,
    targets: &[Target; 64],
    data_op: Operand,
    pairs: Operand,
    exec: u64,
    n: usize,
) -> R {
    // The LDS f32 add follows MODE's f32 denormal bits.
    let op = match (op, super::super::operand::denorms(w, false)) {
        (At::FaddF32, (keep_in, keep_out)) if !(keep_in && keep_out) => {
            At::FaddF32Mode(keep_in, keep_out)
        }
        _ => op,
    };
    let data = data_lanes(w, &data_op)?;
    // DS compare-and-swap keeps the compare value in data0 and the new
    // value in data1 (`ds_cmpst`), FLAT/MUBUF in data[1] / data[0].
    let ds_cmp = if pairs.is_some() {
        Some(data_lanes(w, &pairs)?)
    } else {
        None
    };
    let words = if wide { 2 } else { 1 };
    let get = |d: &Vec<[u32; 64]>, k2: usize, l: usize| d.get(k2).map_or(0u64, |r| r[l] as u64);
    let mut vals = vec![[0u32; 4]; n];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let (src, cmp) = match (&ds_cmp, wide) {
            (Some(d1), true) => (
                get(d1, 0, l) | get(d1, 1, l) << 32,
                get(&data, 0, l) | get(&data, 1, l) << 32,
            ),
            (Some(d1), false) => (get(d1, 0, l), get(&data, 0, l)),
            (None, false) => (get(&data, 0, l), get(&data, 1, l)),
            (None, true) => (
                get(&data, 0, l) | get(&data, 1, l) << 32,
                get(&data, 2, l) | get(&data, 3, l) << 32,
            ),
        };
        let old = match targets[l] {
            Target::Global(a) if wide => u64::from_le_bytes(
                ctx.mem
                    .atomic::<8>(a, |o| {
                        atomic_op(op, u64::from_le_bytes(o), src, cmp, true).to_le_bytes()
                    })
                    .map_err(lane_err(l))?,
            ),
            Target::Global(a) => u32::from_le_bytes(
                ctx.mem
                    .atomic::<4>(a, |o| {
                        (atomic_op(op, u32::from_le_bytes(o) as u64, src, cmp, false) as u32)
                            .to_le_bytes()
                    })
                    .map_err(lane_err(l))?,
            ) as u64,
            t => {
                // Not global memory: LDS or private, owned by this
                // work-group, so a plain read-modify-write is atomic.
                let mut cur = PageCursor::new(ctx.mem);
                let mut b = [0u8; 8];
                read(t, l, &mut b[..words * 4], w, lds, &mut cur)?;
                let old = u64::from_le_bytes(b);
                let new = atomic_op(op, old, src, cmp, wide);
                write(t, l, &new.to_le_bytes()[..words * 4], w, lds, &mut cur)?;
                old
            }
        };
        vals[l] = [old as u32, (old >> 32) as u32, 0, 0];
    }
    // Only the returning forms have a destination.
    let dst = i.dst[0];
    let returns = match i.encoding {
        Encoding::Mubuf => i.mem.has(flags::RETURN),
        _ => true,
    };
    if returns && dst.is_some() {
        write_lanes(w, &dst, &vals, words, exec)?;
    }
    Ok(())
}

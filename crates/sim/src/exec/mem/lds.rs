//! The LDS (DS) operations outside the common load/store/atomic path:
//! two-address, 16-bit, permute and swizzle, append, and thread-id forms.

use super::*;

/// The lanes' LDS offsets, when every active lane's access is to LDS and
/// inside it (`len` bytes).
pub(super) fn lds_offsets(
    targets: &[Target; 64],
    exec: u64,
    n: usize,
    size: usize,
    len: usize,
) -> Option<[usize; 64]> {
    let mut off = [0usize; 64];
    let mut any = false;
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let Target::Lds(a) = targets[l] else {
            return None;
        };
        let a = usize::try_from(a).ok()?;
        if a.checked_add(size)? > len {
            return None;
        }
        off[l] = a;
        any = true;
    }
    any.then_some(off)
}

/// `ds_read2*`, `ds_write2*` and `ds_wrxchg2*_rtn`: two accesses at
/// `ADDR + offset0 * size` and `ADDR + offset1 * size` (`* 64` more for the
/// `st64` forms), the sum wrapping at 32 bits like the single-address forms.
/// The exchange reads both elements, then writes `data0` and `data1`, and
/// returns the two old values (Vega ISA, DS_WRXCHG2_RTN_B32).
pub(super) fn ds2(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    use MemKind::*;
    #[derive(PartialEq)]
    enum Dir {
        Read,
        Write,
        Exchange,
    }
    let (size, st64, dir) = match k {
        DsRead2B32 => (4u32, 1u32, Dir::Read),
        DsRead2B64 => (8, 1, Dir::Read),
        DsRead2St64B32 => (4, 64, Dir::Read),
        DsRead2St64B64 => (8, 64, Dir::Read),
        DsWrite2B32 => (4, 1, Dir::Write),
        DsWrite2B64 => (8, 1, Dir::Write),
        DsWrite2St64B32 => (4, 64, Dir::Write),
        DsWrite2St64B64 => (8, 64, Dir::Write),
        DsWrxchg2B32 => (4, 1, Dir::Exchange),
        DsWrxchg2B64 => (8, 1, Dir::Exchange),
        DsWrxchg2St64B32 => (4, 64, Dir::Exchange),
        _ => (8, 64, Dir::Exchange),
    };
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let a = v32(w, &i.src[0], Ty::I)?;
    let o0 = i.mem.offset0 as u32 * size * st64;
    let o1 = i.mem.offset1 as u32 * size * st64;
    let sz = size as usize;
    let (d0, d1) = if dir == Dir::Read {
        (Vec::new(), Vec::new())
    } else {
        (data_lanes(w, &i.src[1])?, data_lanes(w, &i.src[2])?)
    };
    let mut vals = vec![[0u32; 4]; n];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let addr = [a[l].wrapping_add(o0) as u64, a[l].wrapping_add(o1) as u64];
        if dir != Dir::Write {
            let mut b = [0u8; 16];
            lds.read(addr[0], &mut b[..sz]).map_err(lane_err(l))?;
            lds.read(addr[1], &mut b[sz..2 * sz]).map_err(lane_err(l))?;
            for (k2, c) in b.chunks_exact(4).enumerate() {
                vals[l][k2] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        if dir != Dir::Read {
            for (at, d) in addr.into_iter().zip([&d0, &d1]) {
                let mut b = [0u8; 8];
                for (k2, r) in d.iter().enumerate().take(2) {
                    b[k2 * 4..k2 * 4 + 4].copy_from_slice(&r[l].to_le_bytes());
                }
                lds.write(at, &b[..sz]).map_err(lane_err(l))?;
            }
        }
    }
    if dir != Dir::Write {
        write_lanes(w, &i.dst[0], &vals, 2 * sz / 4, exec)?;
    }
    Ok(())
}

/// The GFX9 D16 forms: `ds_read_{u8,i8,u16}_d16` load into the low half of
/// the destination and `_hi` into its high half, the other half kept (the
/// byte forms zero- or sign-extend to 16 bits); `ds_write_b{8,16}_d16_hi`
/// store from the high half of the data register.
pub(super) fn ds_d16(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    use MemKind::*;
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let a = v32(w, &i.src[0], Ty::I)?;
    let off = i.mem.offset as u32 & 0xffff;
    if matches!(k, DsWriteB8D16Hi | DsWriteB16D16Hi) {
        let d = v32(w, &i.src[1], Ty::I)?;
        let size = if k == DsWriteB8D16Hi { 1 } else { 2 };
        for l in 0..n {
            if (exec >> l) & 1 != 0 {
                let b = (d[l] >> 16).to_le_bytes();
                lds.write(a[l].wrapping_add(off) as u64, &b[..size])
                    .map_err(lane_err(l))?;
            }
        }
        return Ok(());
    }
    let (size, signed, hi) = match k {
        DsReadU8D16 => (1, false, false),
        DsReadU8D16Hi => (1, false, true),
        DsReadI8D16 => (1, true, false),
        DsReadI8D16Hi => (1, true, true),
        DsReadU16D16 => (2, false, false),
        _ => (2, false, true),
    };
    let old = v32(w, &i.dst[0], Ty::I)?;
    let mut r = old;
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let mut b = [0u8; 2];
        lds.read(a[l].wrapping_add(off) as u64, &mut b[..size])
            .map_err(lane_err(l))?;
        let v = match (size, signed) {
            (1, true) => b[0] as i8 as i16 as u16,
            (1, false) => b[0] as u16,
            _ => u16::from_le_bytes(b),
        } as u32;
        r[l] = if hi {
            (old[l] & 0xffff) | v << 16
        } else {
            (old[l] & 0xffff_0000) | v
        };
    }
    super::super::operand::wv32(w, &i.dst[0], &r, exec)
}

/// `ds_bpermute_b32` (each lane reads lane `addr / 4`) and `ds_permute_b32`
/// (each lane writes lane `addr / 4`); no LDS memory is touched. Lane indices
/// wrap at the wave size. Reads from lanes outside EXEC return their register
/// value.
pub(super) fn permute(k: MemKind, w: &mut Wave, i: &Inst) -> R {
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let a = v32(w, &i.src[0], Ty::I)?;
    let d = v32(w, &i.src[1], Ty::I)?;
    let off = i.mem.offset as u32 & 0xffff;
    let mut r = [0u32; 64];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let t = ((a[l].wrapping_add(off) / 4) as usize) % n;
        if k == MemKind::DsBpermute {
            r[l] = d[t];
        } else {
            r[t] = d[l];
        }
    }
    super::super::operand::wv32(w, &i.dst[0], &r, exec)
}

/// `ds_swizzle_b32` (Vega ISA §12.12 / RDNA ISA §13.11 "DS"): each lane reads
/// the ADDR register of another lane chosen by the 16-bit offset, and no LDS
/// memory is touched. Offset bit 15 set, bits 14:8 clear: quad mode, lane `i`
/// reads lane `(i & !3) + offset[2(i&3)+1 : 2(i&3)]`. Bit 15 clear: bit-mask
/// mode within each group of 32 lanes, lane `i` reads lane
/// `((i & and) | or) ^ xor` with and = offset[4:0], or = offset[9:5],
/// xor = offset[14:10]. Other offsets (modes LLVM-19 does not name for these
/// targets) are reported as unsupported. As for `ds_bpermute_b32`, a read from
/// a lane outside EXEC returns its register value.
pub(super) fn swizzle(w: &mut Wave, i: &Inst) -> R {
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let d = v32(w, &i.src[0], Ty::I)?;
    let off = i.mem.offset as usize & 0xffff;
    let quad = off & 0x8000 != 0;
    if quad && off & 0x7f00 != 0 {
        return unsupported(format!("ds_swizzle_b32 offset {off:#06x} (no such mode)"));
    }
    let (and, or, xor) = (off & 0x1f, (off >> 5) & 0x1f, (off >> 10) & 0x1f);
    let mut r = [0u32; 64];
    for (l, v) in r.iter_mut().enumerate().take(n) {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let t = if quad {
            (l & !3) + ((off >> (2 * (l & 3))) & 3)
        } else {
            (l & !0x1f) | (((l & and) | or) ^ xor)
        };
        *v = d[t];
    }
    super::super::operand::wv32(w, &i.dst[0], &r, exec)
}

/// `ds_append` / `ds_consume` on LDS (Vega ISA: "Add (count_bits(exec_mask))
/// to the value stored in DS memory at (M0.base + instr_offset). Return the
/// pre-operation value to VGPRs"): one read-modify-write of the dword at
/// `M0[15:0] + offset` for the whole wave (consume subtracts), wrapping at
/// 32 bits, and every active lane receives the value before it.
pub(super) fn ds_append(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    let exec = w.exec.0 & w.full_mask();
    let addr = (w.m0 & 0xffff) as u64 + (i.mem.offset as u32 & 0xffff) as u64;
    let mut b = [0u8; 4];
    lds.read(addr, &mut b)?;
    let old = u32::from_le_bytes(b);
    let n = exec.count_ones();
    let new = if k == MemKind::DsAppend {
        old.wrapping_add(n)
    } else {
        old.wrapping_sub(n)
    };
    lds.write(addr, &new.to_le_bytes())?;
    super::super::operand::wv32(w, &i.dst[0], &[old; 64], exec)
}

/// `ds_condxchg32_rtn_b64`: two conditional 32-bit writes to an aligned
/// qword, by the pseudo-code of AMD's RDNA3 and CDNA4 ISA guides
/// ("writes a 32 bit value ... iff the most significant bit of the data
/// value is set"):
///
/// ```text
/// ADDR0 = (ADDR + {OFFSET1,OFFSET0}) & 0xfff8; ADDR1 = ADDR0 + 4;
/// RETURN_DATA[0] = LDS[ADDR0]; if (DATA[31]) LDS[ADDR0] = {1'0, DATA[30:0]};
/// RETURN_DATA[1] = LDS[ADDR1]; if (DATA[63]) LDS[ADDR1] = {1'0, DATA[62:32]};
/// ```
///
/// DATA is the 64-bit `data0` register pair, the old qword goes to the
/// 64-bit destination. The mask keeps the address inside the 64 KiB LDS
/// window (it wraps, unlike the other DS addresses); an address beyond the
/// group's LDS faults like any DS access. Active lanes go in lane order;
/// each lane reads both dwords before writing either, so a fault leaves
/// that lane's qword as it was.
pub(super) fn ds_condxchg32(w: &mut Wave, i: &Inst, lds: &mut Bytes) -> R {
    let exec = w.exec.0 & w.full_mask();
    let n = w.size as usize;
    let a = v32(w, &i.src[0], Ty::I)?;
    let data = data_lanes(w, &i.src[1])?;
    if data.len() != 2 {
        return unsupported(format!("data operand {}", i.src[1]));
    }
    let off = i.mem.offset as u32 & 0xffff;
    let mut vals = vec![[0u32; 4]; n];
    for l in (0..n).filter(|l| (exec >> l) & 1 != 0) {
        let addr0 = (a[l].wrapping_add(off) & 0xfff8) as u64;
        let addrs = [addr0, addr0 + 4];
        let mut old = [[0u8; 4]; 2];
        for (at, o) in addrs.iter().zip(old.iter_mut()) {
            lds.read(*at, o).map_err(lane_err(l))?;
        }
        for (at, d) in addrs.iter().zip(&data) {
            if d[l] >> 31 != 0 {
                lds.write(*at, &(d[l] & 0x7fff_ffff).to_le_bytes())
                    .map_err(lane_err(l))?;
            }
        }
        vals[l] = [u32::from_le_bytes(old[0]), u32::from_le_bytes(old[1]), 0, 0];
    }
    write_lanes(w, &i.dst[0], &vals, 2, exec)
}

/// `ds_read_addtid_b32` / `ds_write_addtid_b32`: lane `l` reads or writes
/// the dword at `M0[15:0] + offset + 4 * l` (no address register).
pub(super) fn ds_addtid(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes, ctx: &Ctx) -> R {
    let base = (w.m0 & 0xffff) as u64 + (i.mem.offset as u32 & 0xffff) as u64;
    addtid(k == MemKind::DsWriteAddtid, w, i, lds, ctx, |o| {
        Target::Lds(base + o)
    })
}

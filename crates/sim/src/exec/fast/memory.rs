//! Memory handlers: global loads and stores of dwords and LDS dword
//! accesses, resolved and run.

use super::*;
use crate::memory::{PageBytes, on_bytes};

/// The common memory instructions: `s_load_dword*` and `s_buffer_load_dword*`
/// with an SGPR base, `global_load_dword` / `global_store_dword` and the
/// 32-bit `ds_read*` / `ds_write*` forms. Their handlers run when every
/// active lane's access is in range (one page of global memory, or inside
/// the LDS); anything else (a fault to report, an access across pages, no
/// active lane) goes to the general executor.
pub(super) fn resolve_mem(i: &Inst) -> Option<Entry> {
    use super::super::MemKind::*;
    use amdgpu_isa::Encoding;
    use amdgpu_isa::mem::{Segment, flags};
    let Op::Mem(op) = i.op else {
        return None;
    };
    let k = *super::super::tables().mem.get(op.0 as usize)?;
    let vgpr = |o: &Operand| match *o {
        Operand::Vgpr { index, .. } => Some(index),
        _ => None,
    };
    let (fast, vmax, vector) = match (i.encoding, k) {
        (
            Encoding::Smem,
            SLoad1 | SLoad2 | SLoad4 | SLoad8 | SLoad16 | SBufLoad1 | SBufLoad2 | SBufLoad4
            | SBufLoad8 | SBufLoad16,
        ) => {
            let (n, buffer) = k.scalar_load()?;
            let d = match i.dst[0] {
                Operand::Sgpr { index, .. }
                    if index as usize + n as usize <= crate::wave::NUM_SGPRS =>
                {
                    index
                }
                _ => return None,
            };
            // A pair (or the V#'s quad): `s64` reads one SGPR alone as 32 bits.
            let b = match i.src[0] {
                Operand::Sgpr { index, count }
                    if count >= 2 && index as usize + 2 <= crate::wave::NUM_SGPRS =>
                {
                    index
                }
                _ => return None,
            };
            let off = if i.mem.has(flags::IMM) {
                i.mem.offset as i64 as u64
            } else {
                0
            };
            let soff = if i.mem.has(flags::SOE) && i.src[1].is_some() {
                Some(ssrc(&i.src[1])?)
            } else {
                None
            };
            let fast = Fast::SLoad {
                d,
                n,
                b,
                buffer,
                off,
                soff,
            };
            (fast, 0, false)
        }
        (Encoding::Flat, GLoad4 | GStore4)
            if i.mem.seg == Segment::Global && !i.mem.has(flags::LDS) =>
        {
            let off = i.mem.offset as i64;
            let (addr, amax) = if i.mem.has(flags::SADDR_OFF) {
                let v = vgpr(&i.src[0])?;
                (GAddr::V64 { v, off }, v.checked_add(1)?)
            } else {
                let s = match i.src[2] {
                    Operand::Sgpr { index, count }
                        if count >= 2 && index as usize + 2 <= crate::wave::NUM_SGPRS =>
                    {
                        index
                    }
                    _ => return None,
                };
                let v = if i.src[0].is_some() {
                    Some(vgpr(&i.src[0])?)
                } else {
                    None
                };
                (GAddr::S { s, v, off }, v.unwrap_or(0))
            };
            if k == GLoad4 {
                let d = vgpr(&i.dst[0])?;
                (Fast::GLoad { d, addr }, amax.max(d), true)
            } else {
                let data = vgpr(&i.src[1])?;
                (Fast::GStore { data, addr }, amax.max(data), true)
            }
        }
        (
            Encoding::Ds,
            DsRead4 | DsWrite4 | DsRead2B32 | DsRead2St64B32 | DsWrite2B32 | DsWrite2St64B32,
        ) if !i.mem.has(flags::GDS) && !i.mem.has(flags::LDS) => {
            let a = vgpr(&i.src[0])?;
            let (off0, off1, two) = match k {
                DsRead4 | DsWrite4 => (i.mem.offset as u32 & 0xffff, 0, false),
                DsRead2B32 | DsWrite2B32 => {
                    (i.mem.offset0 as u32 * 4, i.mem.offset1 as u32 * 4, true)
                }
                _ => (
                    i.mem.offset0 as u32 * 4 * 64,
                    i.mem.offset1 as u32 * 4 * 64,
                    true,
                ),
            };
            if matches!(k, DsRead4 | DsRead2B32 | DsRead2St64B32) {
                let d = vgpr(&i.dst[0])?;
                let top = if two { d.checked_add(1)? } else { d };
                let fast = Fast::DsRead {
                    d,
                    a,
                    off0,
                    off1,
                    two,
                };
                (fast, top.max(a), true)
            } else {
                let data0 = vgpr(&i.src[1])?;
                let data1 = if two { vgpr(&i.src[2])? } else { data0 };
                let fast = Fast::DsWrite {
                    a,
                    data0,
                    data1,
                    off0,
                    off1,
                    two,
                };
                (fast, a.max(data0).max(data1), true)
            }
        }
        _ => return None,
    };
    Some(Entry {
        fast,
        vmax,
        size: i.size,
        vector,
        mem: true,
    })
}

/// GFX9's MODE.GPR_IDX_EN: vector memory instructions then go to the
/// general executor (which reports them).
pub(super) const MODE_GPR_IDX: u32 = 1 << 27;

/// [`step`] for a memory instruction.
#[inline(never)]
pub(super) fn step_mem(e: &Entry, w: &mut Wave, lds: &mut Bytes, mem: &GlobalMemory) -> bool {
    if e.vector && (w.hwreg[HW_REG_MODE] & MODE_GPR_IDX != 0 || e.vmax as usize >= w.vgpr.len()) {
        return false;
    }
    let lanes = w.exec.count() as u64;
    if !run_mem(&e.fast, w, lds, mem) {
        return false;
    }
    if e.vector {
        w.lane_ops += lanes;
    }
    w.pc = w.pc.wrapping_add(e.size as u64);
    w.executed += 1;
    true
}

/// Executes a memory handler; `false`, with the wave, the LDS and memory
/// unchanged, when the general executor must run the instruction. Each
/// handler is a helper, inlined here.
#[inline(always)]
pub(super) fn run_mem(f: &Fast, w: &mut Wave, lds: &mut Bytes, mem: &GlobalMemory) -> bool {
    let exec = w.exec.0 & w.full_mask();
    match *f {
        Fast::SLoad {
            d,
            n,
            b,
            buffer,
            off,
            soff,
        } => s_load(w, mem, (d, n, b), buffer, off, soff),
        Fast::GLoad { d, addr } => global_load(w, mem, d, &addr, exec),
        Fast::GStore { data, addr } => global_store(w, mem, data, &addr, exec),
        Fast::DsRead {
            d,
            a,
            off0,
            off1,
            two,
        } => ds_read(w, lds, (d, a), (off0, off1), two, exec),
        Fast::DsWrite {
            a,
            data0,
            data1,
            off0,
            off1,
            two,
        } => ds_write(w, lds, (a, data0, data1), (off0, off1), two, exec),
        _ => false,
    }
}

/// [`Fast::SLoad`]: `n` dwords into SGPRs `d..d + n` from the base in SGPRs
/// `b`, `b + 1` (a buffer's 48-bit base and its range checked) plus `off` and
/// `soff`, all within one page.
#[inline(always)]
fn s_load(
    w: &mut Wave,
    mem: &GlobalMemory,
    (d, n, b): (u8, u8, u8),
    buffer: bool,
    off: u64,
    soff: Option<Src>,
) -> bool {
    let (w0, w1) = (w.sgpr[b as usize] as u64, w.sgpr[b as usize + 1] as u64);
    let base = if buffer {
        w0 | (w1 & 0xffff) << 32
    } else {
        w0 | w1 << 32
    };
    let mut o = off;
    if let Some(sv) = soff {
        let v = match sv {
            Src::S(r) => w.sgpr.get(r as usize).copied(),
            Src::K(k) => Some(k),
            Src::Other(op) => s32(w, &op).ok(),
            Src::V(_) => None,
        };
        let Some(v) = v else {
            return false;
        };
        o = o.wrapping_add(v as u64);
    }
    let addr = base.wrapping_add(o) & !3;
    let len = n as u64 * 4;
    // A buffer load reaching past the buffer's end (range checking,
    // `smem_store::buffer_dwords`) goes to the general executor.
    if buffer {
        let Some(&records) = w.sgpr.get(b as usize + 2) else {
            return false;
        };
        let size = ((w1 >> 16) & 0x3fff).max(1) * records as u64;
        if (o & !3).checked_add(len).is_none_or(|end| end > size) {
            return false;
        }
    }
    let page = addr & !(PAGE - 1);
    if addr - page + len > PAGE {
        return false;
    }
    let start = (addr - page) as usize;
    let mut vals = [0u32; 16];
    let ok = mem.with_page(page, |bytes, valid| {
        if start + len as usize > valid {
            return false;
        }
        on_bytes!(bytes, b => b.load_u32s(start, &mut vals[..n as usize]));
        true
    });
    if ok != Some(true) {
        return false;
    }
    w.sgpr[d as usize..d as usize + n as usize].copy_from_slice(&vals[..n as usize]);
    true
}

/// [`Fast::GLoad`]: VGPR `d` = the dword at each active lane's address.
#[inline(always)]
fn global_load(w: &mut Wave, mem: &GlobalMemory, d: u8, addr: &GAddr, exec: u64) -> bool {
    let mut a = [0u64; 64];
    let mut vals = [0u32; 64];
    if exec == 0 || !global_addrs(w, addr, &mut a) || !load_dwords(mem, &a, exec, &mut vals) {
        return false;
    }
    masked_write(&mut w.vgpr[d as usize], &vals, exec);
    true
}

/// [`Fast::GStore`]: VGPR `data` to each active lane's address.
#[inline(always)]
fn global_store(w: &mut Wave, mem: &GlobalMemory, data: u8, addr: &GAddr, exec: u64) -> bool {
    let mut a = [0u64; 64];
    exec != 0
        && global_addrs(w, addr, &mut a)
        && store_dwords(mem, &a, exec, &w.vgpr[data as usize])
}

/// [`Fast::DsRead`]: the LDS dwords at VGPR `a` plus `off0` (and `off1` when
/// `two`) into VGPR `d` (and `d + 1`); `false` when one lies outside.
#[inline(always)]
fn ds_read(
    w: &mut Wave,
    lds: &Bytes,
    (d, a): (u8, u8),
    (off0, off1): (u32, u32),
    two: bool,
    exec: u64,
) -> bool {
    if exec == 0 {
        return false;
    }
    let bytes = lds.as_slice();
    let addr = &w.vgpr[a as usize];
    let (mut v0, mut v1) = ([0u32; 64], [0u32; 64]);
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let Some(x) = lds_dword(bytes, addr[l].wrapping_add(off0)) else {
            return false;
        };
        v0[l] = x;
        if two {
            let Some(y) = lds_dword(bytes, addr[l].wrapping_add(off1)) else {
                return false;
            };
            v1[l] = y;
        }
    }
    masked_write(&mut w.vgpr[d as usize], &v0, exec);
    if two {
        masked_write(&mut w.vgpr[d as usize + 1], &v1, exec);
    }
    true
}

/// [`Fast::DsWrite`]: VGPR `data0` to LDS at VGPR `a` plus `off0` (and
/// `data1` at `off1` when `two`), in lane order; `false`, the LDS unchanged,
/// when an access lies outside.
#[inline(always)]
fn ds_write(
    w: &mut Wave,
    lds: &mut Bytes,
    (a, data0, data1): (u8, u8, u8),
    (off0, off1): (u32, u32),
    two: bool,
    exec: u64,
) -> bool {
    if exec == 0 {
        return false;
    }
    let len = lds.len() as u64;
    let addr = &w.vgpr[a as usize];
    // Every access in range first: a fault must leave the LDS as it was.
    let mut bad = false;
    for (l, &x) in addr.iter().enumerate() {
        let on = (exec >> l) & 1 != 0;
        bad |= on && x.wrapping_add(off0) as u64 + 4 > len;
        bad |= on && two && x.wrapping_add(off1) as u64 + 4 > len;
    }
    if bad {
        return false;
    }
    let bytes = lds.as_mut_slice();
    let (d0, d1) = (&w.vgpr[data0 as usize], &w.vgpr[data1 as usize]);
    let mut m = exec;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let o = addr[l].wrapping_add(off0) as usize;
        bytes[o..o + 4].copy_from_slice(&d0[l].to_le_bytes());
        if two {
            let o = addr[l].wrapping_add(off1) as usize;
            bytes[o..o + 4].copy_from_slice(&d1[l].to_le_bytes());
        }
    }
    true
}

/// The LDS dword at `a`, if it lies inside.
#[inline(always)]
pub(super) fn lds_dword(bytes: &[u8], a: u32) -> Option<u32> {
    let a = a as usize;
    let b = bytes.get(a..a.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// `dst[l] = vals[l]` for the lanes in `exec`.
#[inline(always)]
pub(super) fn masked_write(dst: &mut [u32; 64], vals: &[u32; 64], exec: u64) {
    for l in 0..64 {
        let m = 0u32.wrapping_sub(((exec >> l) & 1) as u32);
        dst[l] = (vals[l] & m) | (dst[l] & !m);
    }
}

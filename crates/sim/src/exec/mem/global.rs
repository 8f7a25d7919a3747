//! FLAT, GLOBAL and SCRATCH addressing, and accesses of all lanes within one
//! page of global memory (or inside the LDS) at once.

use super::*;
use crate::memory::{PageBytes, on_bytes};

/// The page (its first address) that holds all `size` bytes of every active
/// lane's access, when they are all global and fall in one page.
pub(super) fn one_page(targets: &[Target; 64], exec: u64, n: usize, size: usize) -> Option<u64> {
    let page = crate::memory::PAGE;
    let mut base = None;
    for (l, t) in targets.iter().enumerate().take(n) {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let Target::Global(a) = *t else {
            return None;
        };
        let b = a & !(page - 1);
        if a - b + size as u64 > page || base.is_some_and(|x| x != b) {
            return None;
        }
        base = Some(b);
    }
    base
}

/// The lanes' offsets in the page at `base`, when every active lane's
/// `size` bytes lie inside the allocation (`valid` bytes of the page).
#[inline]
pub(super) fn offsets_in(
    targets: &[Target; 64],
    exec: u64,
    n: usize,
    size: usize,
    base: u64,
    valid: usize,
) -> Option<[usize; 64]> {
    let mut off = [0usize; 64];
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let Target::Global(a) = targets[l] else {
            return None;
        };
        let o = (a - base) as usize;
        if o + size > valid {
            return None;
        }
        off[l] = o;
    }
    Some(off)
}

/// Reads each active lane's `size` bytes at its offset in `bytes` (checked
/// by the caller), extended as the per-lane path extends them.
#[inline]
pub(super) fn load_lanes<B: PageBytes + ?Sized>(
    bytes: &B,
    off: &[usize; 64],
    exec: u64,
    n: usize,
    size: usize,
    ext: Ext,
    vals: &mut [[u32; 4]],
) {
    if size == 4 {
        // The common dword: no byte staging.
        for l in 0..n {
            if (exec >> l) & 1 != 0 {
                vals[l] = [bytes.load_u32(off[l]), 0, 0, 0];
            }
        }
        return;
    }
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let mut b = [0u8; 16];
        bytes.load(off[l], &mut b[..size]);
        vals[l] = loaded_dwords(&b, size, ext);
    }
}

/// Writes each active lane's `size` bytes of `data` at its offset in
/// `bytes` (checked by the caller), in lane order (a later lane's bytes
/// win, as on the per-lane path).
#[inline]
pub(super) fn store_lanes<B: PageBytes + ?Sized>(
    bytes: &mut B,
    off: &[usize; 64],
    exec: u64,
    n: usize,
    size: usize,
    data: &[[u32; 64]],
) {
    if size == 4
        && let Some(d) = data.first()
    {
        for l in 0..n {
            if (exec >> l) & 1 != 0 {
                bytes.store_u32(off[l], d[l]);
            }
        }
        return;
    }
    for l in 0..n {
        if (exec >> l) & 1 == 0 {
            continue;
        }
        let mut b = [0u8; 16];
        for (k2, d) in data.iter().enumerate().take(4) {
            b[k2 * 4..k2 * 4 + 4].copy_from_slice(&d[l].to_le_bytes());
        }
        bytes.store(off[l], &b[..size]);
    }
}

/// A global load whose active lanes all read one page: the page locked
/// once, the lanes read in a tight loop. `false` (nothing read) when some
/// lane would fault: the per-lane path then reports it.
#[allow(clippy::too_many_arguments)]
pub(super) fn global_load_page(
    ctx: &Ctx,
    base: u64,
    targets: &[Target; 64],
    exec: u64,
    n: usize,
    size: usize,
    ext: Ext,
    vals: &mut [[u32; 4]],
) -> bool {
    ctx.mem
        .with_page(base, |page, valid| {
            let Some(off) = offsets_in(targets, exec, n, size, base, valid) else {
                return false;
            };
            on_bytes!(page, b => load_lanes(&*b, &off, exec, n, size, ext, vals));
            true
        })
        .unwrap_or(false)
}

/// A global store whose active lanes all write one page, in lane order.
/// `false` (nothing written) when some lane would fault.
#[allow(clippy::too_many_arguments)]
pub(super) fn global_store_page(
    ctx: &Ctx,
    base: u64,
    targets: &[Target; 64],
    exec: u64,
    n: usize,
    size: usize,
    data: &[[u32; 64]],
) -> bool {
    ctx.mem
        .with_page(base, |page, valid| {
            let Some(off) = offsets_in(targets, exec, n, size, base, valid) else {
                return false;
            };
            on_bytes!(page, b => store_lanes(b, &off, exec, n, size, data));
            true
        })
        .unwrap_or(false)
}

/// FLAT, GLOBAL and SCRATCH addresses, classified per lane.
pub(super) fn flat_targets(w: &Wave, i: &Inst, t: &mut [Target; 64]) -> R {
    let n = w.size as usize;
    let off = i.mem.offset as i64;
    match i.mem.seg {
        Segment::Flat => {
            let a = v64(w, &i.src[0], Ty::I)?;
            for l in 0..n {
                let addr = a[l].wrapping_add_signed(off);
                t[l] = match classify_flat(addr) {
                    FlatTarget::Global(g) => Target::Global(g),
                    FlatTarget::Lds(x) => Target::Lds(x as u64),
                    FlatTarget::Private(p) => Target::Private(p),
                };
            }
        }
        Segment::Global => {
            if i.mem.has(flags::SADDR_OFF) {
                let a = v64(w, &i.src[0], Ty::I)?;
                for l in 0..n {
                    t[l] = Target::Global(a[l].wrapping_add_signed(off));
                }
            } else {
                let base = s64(w, &i.src[2])?;
                let v = if i.src[0].is_some() {
                    v32(w, &i.src[0], Ty::I)?
                } else {
                    [0; 64]
                };
                for l in 0..n {
                    t[l] = Target::Global(base.wrapping_add(v[l] as u64).wrapping_add_signed(off));
                }
            }
        }
        Segment::Scratch => {
            let v = if i.src[0].is_some() && !i.mem.has(flags::VADDR_OFF) {
                v32(w, &i.src[0], Ty::I)?
            } else {
                [0; 64]
            };
            let s = if i.src[2].is_some() && !i.mem.has(flags::SADDR_OFF) {
                s32(w, &i.src[2])?
            } else {
                0
            };
            for l in 0..n {
                t[l] = Target::Private(v[l].wrapping_add(s).wrapping_add(off as u32));
            }
        }
        Segment::None => return unsupported("FLAT instruction without a segment"),
    }
    Ok(())
}

/// `global_load_dword_addtid` / `global_store_dword_addtid` (RDNA2): lane
/// `l` accesses the dword at `SADDR + offset + 4 * l` (SADDR `off`: 0).
pub(super) fn global_addtid(k: MemKind, w: &mut Wave, i: &Inst, lds: &mut Bytes, ctx: &Ctx) -> R {
    let base = if i.mem.has(flags::SADDR_OFF) {
        0
    } else {
        s64(w, &i.src[2])?
    }
    .wrapping_add_signed(i.mem.offset as i64);
    addtid(k == MemKind::GStoreAddtid, w, i, lds, ctx, |o| {
        Target::Global(base.wrapping_add(o))
    })
}

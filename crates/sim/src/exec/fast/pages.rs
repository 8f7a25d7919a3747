//! Global memory by pages for the fast memory handlers: lane addresses,
//! runs of lanes within one page, dword loads and stores one page lock per
//! run.

use super::*;
use crate::memory::{PageBytes, PageGuard, Slot, on_bytes};

/// Each active lane's global address. (The registers named exist: the
/// caller has checked them against the allocation.)
#[inline(always)]
pub(super) fn global_addrs(w: &Wave, a: &GAddr, out: &mut [u64; 64]) -> bool {
    match *a {
        GAddr::V64 { v, off } => {
            let (Some(lo), Some(hi)) = (w.vgpr.get(v as usize), w.vgpr.get(v as usize + 1)) else {
                return false;
            };
            for l in 0..64 {
                out[l] = (lo[l] as u64 | (hi[l] as u64) << 32).wrapping_add_signed(off);
            }
        }
        GAddr::S { s, v, off } => {
            let base = w.sgpr[s as usize] as u64 | (w.sgpr[s as usize + 1] as u64) << 32;
            let base = base.wrapping_add_signed(off);
            match v {
                Some(v) => {
                    let Some(r) = w.vgpr.get(v as usize) else {
                        return false;
                    };
                    for l in 0..64 {
                        out[l] = base.wrapping_add(r[l] as u64);
                    }
                }
                None => out.fill(base),
            }
        }
    }
    true
}

/// The lanes whose dword directly follows the previous lane's in the same
/// page, both lanes active: bit `l` set when lane `l` continues lane
/// `l - 1`'s run.
#[inline(always)]
pub(super) fn links(a: &[u64; 64], exec: u64) -> u64 {
    let mut m = 0u64;
    for l in 1..64 {
        let next = a[l] == a[l - 1].wrapping_add(4) && a[l] & (PAGE - 1) != 0;
        m |= (next as u64) << l;
    }
    m & exec & (exec << 1)
}

/// The runs of the active lanes (`exec`): consecutive lanes reading
/// consecutive dwords in one page. Calls `f(lo, hi)` for each, in lane order,
/// and stops at the first `false`.
#[inline(always)]
pub(super) fn runs(a: &[u64; 64], exec: u64, mut f: impl FnMut(usize, usize) -> bool) -> bool {
    let link = links(a, exec);
    let mut rem = exec;
    while rem != 0 {
        let lo = rem.trailing_zeros() as usize;
        // The run ends before the first higher lane that does not continue it.
        let above = if lo == 63 {
            0
        } else {
            !link & (u64::MAX << (lo + 1))
        };
        let hi = if above == 0 {
            63
        } else {
            above.trailing_zeros() as usize - 1
        };
        if !f(lo, hi) {
            return false;
        }
        rem &= if hi == 63 { 0 } else { u64::MAX << (hi + 1) };
    }
    true
}

/// The page of a run of lanes `lo..=hi` and the run's first byte in it,
/// when the run's dwords lie in one page (the caller checks the allocation).
#[inline(always)]
pub(super) fn run_page(a: &[u64; 64], lo: usize, hi: usize) -> Option<(u64, usize)> {
    let page = a[lo] & !(PAGE - 1);
    let o = (a[lo] - page) as usize;
    (o + 4 * (hi - lo + 1) <= PAGE as usize).then_some((page, o))
}

/// A global dword load: each active lane's dword, read run by run
/// ([`runs`]; one page lock per run, kept while the next run is in the same
/// page). `false` (nothing read) when some lane's dword is not wholly inside
/// an allocation: the general executor reports it.
pub(super) fn load_dwords(
    mem: &GlobalMemory,
    a: &[u64; 64],
    exec: u64,
    vals: &mut [u32; 64],
) -> bool {
    let mut cur: Option<(u64, PageGuard<'_>)> = None;
    runs(a, exec, |lo, hi| {
        let Some((page, o)) = run_page(a, lo, hi) else {
            return false;
        };
        if cur.as_ref().is_none_or(|c| c.0 != page) {
            // Release the old page before locking the next.
            drop(cur.take());
            let Some(g) = mem.lock_page(page) else {
                return false;
            };
            cur = Some((page, g));
        }
        let Some((_, g)) = cur.as_mut() else {
            return false;
        };
        if o + 4 * (hi - lo + 1) > g.valid() {
            return false;
        }
        on_bytes!(g.bytes(), b => b.load_u32s(o, &mut vals[lo..=hi]));
        true
    })
}

/// A global dword store: every active lane's dword checked first (nothing
/// is written when one would fault: the general executor then reports it),
/// then written run by run in lane order. (The first pass reads the pages'
/// lengths without their locks; the second checks again under the lock, so
/// a page freed in between, by a racing host thread, stops the store part
/// way and the general executor reports the fault.)
pub(super) fn store_dwords(mem: &GlobalMemory, a: &[u64; 64], exec: u64, src: &[u32; 64]) -> bool {
    // The pages of the first runs, so that the second pass finds them again
    // without a lookup.
    let mut seen: [(u64, Option<&Slot>); 4] = [(0, None); 4];
    let mut n = 0;
    let mut last: Option<(u64, &Slot)> = None;
    let ok = runs(a, exec, |lo, hi| {
        let Some((page, o)) = run_page(a, lo, hi) else {
            return false;
        };
        if last.is_none_or(|c| c.0 != page) {
            let Some(slot) = mem.slot(page) else {
                return false;
            };
            last = Some((page, slot));
            if n < seen.len() {
                seen[n] = (page, Some(slot));
                n += 1;
            }
        }
        last.is_some_and(|(_, s)| o + 4 * (hi - lo + 1) <= s.valid_hint())
    });
    if !ok {
        return false;
    }
    let mut cur: Option<(u64, PageGuard<'_>)> = None;
    runs(a, exec, |lo, hi| {
        let Some((page, o)) = run_page(a, lo, hi) else {
            return false;
        };
        if cur.as_ref().is_none_or(|c| c.0 != page) {
            // Release the old page before locking the next.
            drop(cur.take());
            let slot = match seen[..n].iter().find(|s| s.0 == page) {
                Some(&(_, s)) => s,
                None => mem.slot(page),
            };
            let Some(g) = slot.and_then(Slot::lock) else {
                return false;
            };
            cur = Some((page, g));
        }
        let Some((_, g)) = cur.as_mut() else {
            return false;
        };
        if o + 4 * (hi - lo + 1) > g.valid() {
            return false;
        }
        on_bytes!(g.bytes(), b => b.store_u32s(o, &src[lo..=hi]));
        true
    })
}

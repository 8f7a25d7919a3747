//! Simulator-owned memory: a sparse paged global address space with explicit
//! allocations, per-work-group LDS and per-wave dword-swizzled scratch.
//!
//! Guest addresses are plain numbers, never host pointers: every access is
//! checked and a bad one is a [`MemFault`], never a host crash.

use crate::error::{FaultKind, MemFault, Space};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Page size of the global address space.
pub const PAGE: u64 = 4096;

/// Where allocations start; nothing below is ever mapped, so null and small
/// pointers fault.
pub const HEAP_BASE: u64 = 0x0000_0001_0000_0000;

/// The LDS ("shared") aperture: the high 32 bits of flat addresses that fall in
/// LDS (the value `src_shared_base` reads). Chosen above the heap and below the
/// canonical-address hole, as on real devices (Vega ISA §9.3.1 "Flat addressing").
pub const SHARED_BASE: u64 = 0x1000_0000_0000_0000;

/// The private (scratch) aperture: the high 32 bits of flat addresses that fall
/// in the wave's scratch (the value `src_private_base` reads).
pub const PRIVATE_BASE: u64 = 0x2000_0000_0000_0000;

/// The most bytes the global address space maps at once (pages are backed by
/// host memory when mapped, so this bounds the host memory a guest can claim).
pub const MAX_MAPPED: u64 = 8 << 30;

/// Each aperture is 4 GiB.
pub const APERTURE_SIZE: u64 = 1 << 32;

/// The guest address a private segment buffer descriptor points at: buffer
/// accesses that land in `[SCRATCH_BACKING, SCRATCH_BACKING + 4 GiB)` go to the
/// wave's own scratch, so the descriptor works with any wave offset of 0.
/// Within the 48 bits a buffer resource's base can hold.
pub const SCRATCH_BACKING: u64 = 0x0000_8000_0000_0000;

/// What a flat address designates (checked per lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatTarget {
    /// A global address.
    Global(u64),
    /// An LDS byte offset.
    Lds(u32),
    /// A private (per-lane, unswizzled) byte offset.
    Private(u32),
}

/// Classifies a flat address by the apertures (Vega ISA §9.3.1): addresses
/// whose high half is the shared aperture go to LDS, the private aperture to
/// scratch, everything else to global memory.
pub fn classify_flat(addr: u64) -> FlatTarget {
    let hi = addr & !(APERTURE_SIZE - 1);
    if hi == SHARED_BASE {
        FlatTarget::Lds(addr as u32)
    } else if hi == PRIVATE_BASE {
        FlatTarget::Private(addr as u32)
    } else {
        FlatTarget::Global(addr)
    }
}

/// The global address space: pages exist only inside allocations. Reads and
/// writes take `&self` (each page has its own lock), so work-groups running
/// on several threads share it; atomics lock the page for the read-modify-write.
/// It also holds the device's global data share ([`GlobalMemory::gds`]).
#[derive(Debug, Default)]
pub struct GlobalMemory {
    pages: PageTable,
    allocs: BTreeMap<u64, u64>,
    next: u64,
    mapped: u64,
    gds: crate::gds::Gds,
}

/// One mapped page: its bytes, and how many of them (from the page's start)
/// belong to the allocation, so that an access past the end of a buffer
/// faults to the byte, not to the page. The bytes are allocated on the first
/// access (until then the box is empty and the page reads as zeros), so a
/// large allocation costs host memory only where it is used.
#[derive(Debug)]
struct Page {
    valid: usize,
    data: Mutex<Box<[u8]>>,
}

impl Clone for Page {
    fn clone(&self) -> Self {
        let data = self.data.lock().unwrap_or_else(|e| e.into_inner());
        Page {
            valid: self.valid,
            data: Mutex::new(data.clone()),
        }
    }
}

/// The mapped pages by address. Pages of the heap (the first
/// [`DENSE_PAGES`] pages from [`HEAP_BASE`], where allocations go) are also
/// indexed by their number, so that finding one is an index rather than a
/// tree search; pages elsewhere (code objects at fixed addresses) are found
/// in the tree.
#[derive(Debug, Default)]
struct PageTable {
    tree: BTreeMap<u64, Arc<Page>>,
    dense: Vec<Option<Arc<Page>>>,
}

/// Heap pages indexed by number (16 GiB of address space from [`HEAP_BASE`]).
const DENSE_PAGES: u64 = 1 << 22;

impl PageTable {
    /// The index of the page at `base` in `dense`, if it has one.
    #[inline]
    fn slot(base: u64) -> Option<usize> {
        let n = base.checked_sub(HEAP_BASE)? / PAGE;
        (n < DENSE_PAGES).then_some(n as usize)
    }

    #[inline]
    fn get(&self, base: &u64) -> Option<&Page> {
        match Self::slot(*base) {
            Some(i) => self.dense.get(i)?.as_deref(),
            None => self.tree.get(base).map(|p| &**p),
        }
    }

    fn insert(&mut self, base: u64, page: Page) {
        let page = Arc::new(page);
        if let Some(i) = Self::slot(base) {
            if self.dense.len() <= i {
                self.dense.resize(i + 1, None);
            }
            self.dense[i] = Some(page.clone());
        }
        self.tree.insert(base, page);
    }

    fn remove(&mut self, base: &u64) {
        if let Some(slot) = Self::slot(*base).and_then(|i| self.dense.get_mut(i)) {
            *slot = None;
        }
        self.tree.remove(base);
    }

    /// Whether a page is mapped in `[start, end)`.
    fn any_in(&self, start: u64, end: u64) -> bool {
        self.tree.range(start..end).next().is_some()
    }

    /// The last mapped page in `[start, end)`.
    fn last_in(&self, start: u64, end: u64) -> Option<u64> {
        self.tree.range(start..end).next_back().map(|(&b, _)| b)
    }

    #[cfg(test)]
    fn values(&self) -> impl Iterator<Item = &Page> {
        self.tree.values().map(|p| &**p)
    }
}

/// A copy of every page (each locked while it is copied), not shared.
impl Clone for PageTable {
    fn clone(&self) -> Self {
        let mut t = PageTable::default();
        for (&base, page) in &self.tree {
            t.insert(base, (**page).clone());
        }
        t
    }
}

/// A copy of the whole address space (each page locked while it is copied).
impl Clone for GlobalMemory {
    fn clone(&self) -> Self {
        GlobalMemory {
            pages: self.pages.clone(),
            allocs: self.allocs.clone(),
            next: self.next,
            mapped: self.mapped,
            gds: self.gds.clone(),
        }
    }
}

/// Locks the bytes of a page ([`GlobalMemory::page_at`]), allocating them
/// (zeroed) on first use.
pub(crate) fn lock_bytes(data: &Mutex<Box<[u8]>>) -> std::sync::MutexGuard<'_, Box<[u8]>> {
    lock_page(data)
}

/// Locks a page's bytes, allocating them (zeroed) on first use.
fn lock_page(data: &Mutex<Box<[u8]>>) -> std::sync::MutexGuard<'_, Box<[u8]>> {
    let mut g = data.lock().unwrap_or_else(|e| e.into_inner());
    if g.is_empty() {
        *g = vec![0u8; PAGE as usize].into_boxed_slice();
    }
    g
}

fn fault(kind: FaultKind, space: Space, addr: u64, len: u64) -> MemFault {
    MemFault {
        kind,
        space,
        addr,
        len,
    }
}

impl GlobalMemory {
    /// An empty address space.
    pub fn new() -> Self {
        GlobalMemory {
            pages: PageTable::default(),
            allocs: BTreeMap::new(),
            next: HEAP_BASE,
            mapped: 0,
            gds: crate::gds::Gds::default(),
        }
    }

    /// The device's global data share (GDS memory and GWS resources), which
    /// every work-group shares as it shares global memory.
    pub fn gds(&self) -> &crate::gds::Gds {
        &self.gds
    }

    /// Allocates `size` zeroed bytes and returns the guest address. Allocations
    /// are page aligned and separated by an unmapped guard page; an access to
    /// any byte past `size` faults (the tail of the last page is not part of
    /// the allocation).
    pub fn allocate(&mut self, size: u64) -> Result<u64, MemFault> {
        let pages = size.max(1).div_ceil(PAGE);
        let mut base = self.next;
        // Past any fixed mapping (a code object) in the way, keeping a guard page.
        while let Some(end) = base.checked_add(pages * PAGE)
            && let Some(last) = self.pages.last_in(base, end)
        {
            base = last + 2 * PAGE;
        }
        self.map_at(base, size)?;
        self.next = self.next.max(base + pages * PAGE + PAGE);
        Ok(base)
    }

    /// Maps `size` zeroed bytes at the fixed address `base` (page aligned; used
    /// to load code objects at their link addresses plus a load bias).
    pub fn map_at(&mut self, base: u64, size: u64) -> Result<(), MemFault> {
        let size = size.max(1);
        let bad = fault(FaultKind::Unmapped, Space::Global, base, size);
        if base % PAGE != 0 {
            return Err(fault(FaultKind::Misaligned, Space::Global, base, size));
        }
        let pages = size.div_ceil(PAGE);
        if self.mapped + pages * PAGE > MAX_MAPPED {
            return Err(fault(FaultKind::OutOfBounds, Space::Global, base, size));
        }
        let end = base.checked_add(pages * PAGE).ok_or(bad)?;
        if self.pages.any_in(base, end) {
            return Err(bad);
        }
        for p in 0..pages {
            let valid = (size - p * PAGE).min(PAGE) as usize;
            self.pages.insert(
                base + p * PAGE,
                Page {
                    valid,
                    data: Mutex::new(Box::default()),
                },
            );
        }
        self.allocs.insert(base, size);
        self.mapped += pages * PAGE;
        // `next` (where allocations go) is left alone: a fixed mapping far above the
        // heap (a code object at its load bias) must not push the heap's buffers out of
        // the pages the table indexes by number; `allocate` steps over fixed mappings.
        Ok(())
    }

    /// Frees the allocation starting at `base`.
    pub fn free(&mut self, base: u64) -> Result<(), MemFault> {
        let size =
            self.allocs
                .remove(&base)
                .ok_or(fault(FaultKind::Unmapped, Space::Global, base, 0))?;
        for p in 0..size.div_ceil(PAGE) {
            self.pages.remove(&(base + p * PAGE));
        }
        self.mapped -= size.div_ceil(PAGE) * PAGE;
        Ok(())
    }

    /// Bytes mapped (whole pages), at most [`MAX_MAPPED`].
    pub fn mapped(&self) -> u64 {
        self.mapped
    }

    /// The allocations as `(base, size)`.
    pub fn allocations(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.allocs.iter().map(|(&b, &s)| (b, s))
    }

    /// The page holding `addr`, when the `len` bytes from `addr` that lie
    /// in that page are all inside the allocation (`total`: the whole
    /// access's size, for the report).
    fn page(&self, addr: u64, len: u64, total: u64) -> Result<&Mutex<Box<[u8]>>, MemFault> {
        let p = addr & !(PAGE - 1);
        let page =
            self.pages
                .get(&p)
                .ok_or(fault(FaultKind::Unmapped, Space::Global, addr, total))?;
        if (addr - p) + len > page.valid as u64 {
            return Err(fault(FaultKind::OutOfBounds, Space::Global, addr, total));
        }
        Ok(&page.data)
    }

    /// Runs `f` on the bytes of the page starting at `base` (a multiple of
    /// [`PAGE`]) and the number of them, from the page's start, that belong
    /// to the allocation, with the page locked. `None` when no page is
    /// mapped there. (One lock for a whole wave's access, when its lanes
    /// fall in one page.)
    #[inline]
    pub(crate) fn with_page<T>(
        &self,
        base: u64,
        f: impl FnOnce(&mut [u8], usize) -> T,
    ) -> Option<T> {
        let page = self.pages.get(&base)?;
        let mut bytes = lock_page(&page.data);
        Some(f(&mut bytes, page.valid))
    }

    /// The page starting at `base` (a multiple of [`PAGE`]): its bytes, to
    /// lock with [`lock_bytes`], and the number of them, from the page's
    /// start, that belong to the allocation. `None` when no page is mapped
    /// there.
    #[inline]
    pub(crate) fn page_at(&self, base: u64) -> Option<(&Mutex<Box<[u8]>>, usize)> {
        self.pages.get(&base).map(|p| (&p.data, p.valid))
    }

    /// Walks `len` bytes from `addr` page by page, calling `f(page, offset, chunk_range)`.
    fn walk(
        &self,
        addr: u64,
        len: usize,
        mut f: impl FnMut(&mut [u8], std::ops::Range<usize>),
    ) -> Result<(), MemFault> {
        let total = len as u64;
        addr.checked_add(total)
            .ok_or(fault(FaultKind::Unmapped, Space::Global, addr, total))?;
        // Fast path: the access lies in one page.
        let off = (addr % PAGE) as usize;
        if off + len <= PAGE as usize {
            let page = self.page(addr, total, total)?;
            let mut g = lock_page(page);
            if let Some(s) = g.get_mut(off..off + len) {
                f(s, 0..len);
            }
            return Ok(());
        }
        // Check every page first so that a faulting access changes nothing.
        let mut a = addr;
        let end = addr + total;
        while a < end {
            let next = (a & !(PAGE - 1)) + PAGE;
            self.page(a, next.min(end) - a, total)
                .map_err(|f| MemFault { addr, ..f })?;
            a = next;
        }
        let mut done = 0usize;
        while done < len {
            let a = addr + done as u64;
            let off = (a % PAGE) as usize;
            let n = (PAGE as usize - off).min(len - done);
            let page = self.page(a, n as u64, total)?;
            let mut g = lock_page(page);
            if let Some(s) = g.get_mut(off..off + n) {
                f(s, done..done + n);
            }
            done += n;
        }
        Ok(())
    }

    /// Reads `out.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        let len = out.len();
        self.walk(addr, len, |page, r| {
            if let Some(o) = out.get_mut(r) {
                o.copy_from_slice(page);
            }
        })
    }

    /// Writes `data` at `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        self.walk(addr, data.len(), |page, r| {
            if let Some(d) = data.get(r) {
                page.copy_from_slice(d);
            }
        })
    }

    /// Fills `len` bytes at `addr` with `byte`.
    pub fn fill(&self, addr: u64, len: u64, byte: u8) -> Result<(), MemFault> {
        self.walk(addr, len as usize, |page, _| page.fill(byte))
    }

    /// Reads a little-endian u32.
    pub fn read_u32(&self, addr: u64) -> Result<u32, MemFault> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Atomically replaces the naturally aligned `N`-byte value at `addr` with
    /// `f(old)` and returns the old value (one page lock held throughout).
    pub fn atomic<const N: usize>(
        &self,
        addr: u64,
        f: impl FnOnce([u8; N]) -> [u8; N],
    ) -> Result<[u8; N], MemFault> {
        let n = N as u64;
        if addr % n != 0 {
            return Err(fault(FaultKind::Misaligned, Space::Global, addr, n));
        }
        let page = self.page(addr, n, n)?;
        let mut g = lock_page(page);
        let off = (addr % PAGE) as usize;
        let s =
            g.get_mut(off..off + N)
                .ok_or(fault(FaultKind::Unmapped, Space::Global, addr, n))?;
        let mut old = [0u8; N];
        old.copy_from_slice(s);
        s.copy_from_slice(&f(old));
        Ok(old)
    }
}

/// A locked page: its base, its valid length and the guard.
type HeldPage<'a> = (u64, usize, std::sync::MutexGuard<'a, Box<[u8]>>);

/// A cursor over global memory that keeps the lock of the last page it
/// touched, so the lanes of one instruction that hit the same page (the usual
/// case) take the lock once. At most one page lock is held at a time; drop
/// the cursor before any other access to global memory from the same thread.
pub struct PageCursor<'a> {
    mem: &'a GlobalMemory,
    cur: Option<HeldPage<'a>>,
}

impl<'a> PageCursor<'a> {
    /// A cursor holding no lock.
    pub fn new(mem: &'a GlobalMemory) -> Self {
        PageCursor { mem, cur: None }
    }

    fn slice(&mut self, addr: u64, len: usize) -> Result<Option<&mut [u8]>, MemFault> {
        let off = (addr % PAGE) as usize;
        if off + len > PAGE as usize {
            self.cur = None;
            return Ok(None);
        }
        let base = addr - off as u64;
        if self.cur.as_ref().map(|c| c.0) != Some(base) {
            // Release the old lock before taking the next one.
            self.cur = None;
            let valid = self.mem.pages.get(&base).map_or(0, |p| p.valid);
            let p = self.mem.page(addr, len as u64, len as u64)?;
            self.cur = Some((base, valid, lock_page(p)));
        }
        match self.cur.as_mut() {
            Some(c) if off + len <= c.1 => Ok(c.2.get_mut(off..off + len)),
            _ => Err(fault(
                FaultKind::OutOfBounds,
                Space::Global,
                addr,
                len as u64,
            )),
        }
    }

    /// Reads `out.len()` bytes at `addr`.
    pub fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        match self.slice(addr, out.len())? {
            Some(s) => {
                out.copy_from_slice(s);
                Ok(())
            }
            None => self.mem.read(addr, out),
        }
    }

    /// Writes `data` at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        match self.slice(addr, data.len())? {
            Some(s) => {
                s.copy_from_slice(data);
                Ok(())
            }
            None => self.mem.write(addr, data),
        }
    }
}

/// A flat byte array with bounds-checked access: one work-group's LDS, or
/// one wave's scratch.
#[derive(Clone, Debug, Default)]
pub struct Bytes {
    data: Vec<u8>,
    space: Option<Space>,
}

impl Bytes {
    /// `size` zero bytes in address space `space`.
    pub fn new(size: usize, space: Space) -> Self {
        Bytes {
            data: vec![0; size],
            space: Some(space),
        }
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    fn range(&self, addr: u64, len: usize) -> Result<std::ops::Range<usize>, MemFault> {
        let bad = fault(
            FaultKind::OutOfBounds,
            self.space.unwrap_or(Space::Lds),
            addr,
            len as u64,
        );
        let a = usize::try_from(addr).map_err(|_| bad)?;
        let e = a.checked_add(len).ok_or(bad)?;
        if e > self.data.len() {
            return Err(bad);
        }
        Ok(a..e)
    }

    /// Reads bytes at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        let r = self.range(addr, out.len())?;
        out.copy_from_slice(&self.data[r]);
        Ok(())
    }

    /// Writes bytes at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        let r = self.range(addr, data.len())?;
        self.data[r].copy_from_slice(data);
        Ok(())
    }

    /// The whole contents.
    pub fn as_slice(&self) -> &[u8] {
        &self.data
    }

    /// The whole contents, writable (for accesses bounds-checked by the
    /// caller).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.data
    }
}

/// One wave's private memory, stored dword-interleaved across lanes as the
/// hardware's swizzled scratch buffer is (usage guide, "Private Segment
/// Buffer"): byte `addr` of lane `lane` is at
/// `(addr / 4) * wave_size * 4 + lane * 4 + addr % 4`.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    bytes: Bytes,
    per_lane: u32,
    wave_size: u32,
}

impl Scratch {
    /// Scratch for `wave_size` lanes of `per_lane` bytes each (rounded up to dwords).
    pub fn new(per_lane: u32, wave_size: u32) -> Self {
        let per_lane = per_lane.div_ceil(4) * 4;
        Scratch {
            bytes: Bytes::new(per_lane as usize * wave_size as usize, Space::Private),
            per_lane,
            wave_size,
        }
    }

    /// Private bytes per lane.
    pub fn per_lane(&self) -> u32 {
        self.per_lane
    }

    /// Offset in the wave's backing store of lane `lane`'s private byte `addr`.
    pub fn swizzle(&self, lane: u32, addr: u32) -> u64 {
        (addr as u64 / 4) * self.wave_size as u64 * 4 + lane as u64 * 4 + addr as u64 % 4
    }

    fn lane_fault(&self, addr: u32, len: usize) -> MemFault {
        fault(
            FaultKind::OutOfBounds,
            Space::Private,
            addr as u64,
            len as u64,
        )
    }

    /// Reads lane `lane`'s private bytes at `addr` (any length; each byte is
    /// placed by the swizzle).
    pub fn read_lane(&self, lane: u32, addr: u32, out: &mut [u8]) -> Result<(), MemFault> {
        let end = addr as u64 + out.len() as u64;
        if end > self.per_lane as u64 || lane >= self.wave_size {
            return Err(self.lane_fault(addr, out.len()));
        }
        for (i, o) in out.iter_mut().enumerate() {
            let mut b = [0u8];
            self.bytes
                .read(self.swizzle(lane, addr + i as u32), &mut b)?;
            *o = b[0];
        }
        Ok(())
    }

    /// Writes lane `lane`'s private bytes at `addr`.
    pub fn write_lane(&mut self, lane: u32, addr: u32, data: &[u8]) -> Result<(), MemFault> {
        let end = addr as u64 + data.len() as u64;
        if end > self.per_lane as u64 || lane >= self.wave_size {
            return Err(self.lane_fault(addr, data.len()));
        }
        for (i, d) in data.iter().enumerate() {
            let off = self.swizzle(lane, addr + i as u32);
            self.bytes.write(off, &[*d])?;
        }
        Ok(())
    }

    /// Reads raw bytes of the swizzled backing store (as a buffer access
    /// through the private segment buffer sees them).
    pub fn read_backing(&self, off: u64, out: &mut [u8]) -> Result<(), MemFault> {
        self.bytes.read(off, out)
    }

    /// Writes raw bytes of the swizzled backing store.
    pub fn write_backing(&mut self, off: u64, data: &[u8]) -> Result<(), MemFault> {
        self.bytes.write(off, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_fault_outside() {
        let mut m = GlobalMemory::new();
        let a = m.allocate(10).unwrap();
        let b = m.allocate(PAGE + 1).unwrap();
        assert!(b > a + PAGE, "guard page between allocations");
        m.write(a, &[1, 2, 3]).unwrap();
        let mut out = [0u8; 3];
        m.read(a, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3]);
        // Bounds are exact to the byte: the rest of the page is not part of
        // the allocation, and neither is the guard page.
        let mut last = [0u8; 1];
        m.read(a + 9, &mut last).unwrap();
        assert!(m.read(a + 8, &mut out).is_err(), "one byte past the end");
        let e = m.read(a + 10, &mut last).unwrap_err();
        assert_eq!((e.kind, e.addr), (FaultKind::OutOfBounds, a + 10));
        assert!(m.read(a + PAGE, &mut out).is_err());
        let mut cur = PageCursor::new(&m);
        cur.read(a + 9, &mut last).unwrap();
        assert!(
            cur.read(a + 10, &mut last).is_err(),
            "the cursor checks too"
        );
        drop(cur);
        // A write straddling the end changes nothing.
        assert!(m.write(b + PAGE - 1, &[9, 9, 9]).is_err());
        let mut t = [0u8; 2];
        m.read(b + PAGE - 1, &mut t).unwrap();
        assert_eq!(t, [0, 0]);
        // Cross-page access inside one allocation.
        m.write(b + PAGE - 2, &[5, 6, 7]).unwrap();
        let mut u = [0u8; 3];
        m.read(b + PAGE - 2, &mut u).unwrap();
        assert_eq!(u, [5, 6, 7]);
        m.free(a).unwrap();
        assert!(m.read(a, &mut out).is_err());
        assert!(m.read(0, &mut out).is_err());
    }

    #[test]
    fn pages_are_backed_on_first_use() {
        // 4 GiB mapped, two pages touched: cheap in host memory and time.
        let mut m = GlobalMemory::new();
        let a = m.allocate(4 << 30).unwrap();
        m.write(a + (4 << 30) - 1, &[7]).unwrap();
        let mut b = [1u8; 2];
        m.read(a + (4 << 30) - 2, &mut b).unwrap();
        assert_eq!(b, [0, 7]);
        let backed = m
            .pages
            .values()
            .filter(|p| !p.data.lock().unwrap().is_empty())
            .count();
        assert_eq!(backed, 1);
        assert!(m.read(a + (4 << 30) - 1, &mut b).is_err(), "past the end");
    }

    /// A code object mapped at its load bias, far above the heap, leaves the heap where
    /// it was (its pages indexed by number), and an allocation steps over a fixed
    /// mapping in its way, keeping a guard page.
    #[test]
    fn fixed_mappings_do_not_move_the_heap() {
        let mut m = GlobalMemory::new();
        m.map_at(0x7f00_0000_0000, 3 * PAGE).unwrap();
        let a = m.allocate(100).unwrap();
        assert_eq!(a, HEAP_BASE);
        assert!(PageTable::slot(a).is_some());
        // A fixed mapping right where the next allocation would go.
        let next = m.next;
        m.map_at(next + PAGE, 2 * PAGE).unwrap();
        let b = m.allocate(3 * PAGE).unwrap();
        assert!(
            b >= next + 4 * PAGE,
            "{b:#x} overlaps or touches the fixed pages"
        );
        m.write(b, &[1; 16]).unwrap();
        assert!(m.read(next + 3 * PAGE + PAGE - 1, &mut [0u8; 2]).is_err());
    }

    #[test]
    fn atomics_return_old() {
        let mut m = GlobalMemory::new();
        let a = m.allocate(8).unwrap();
        let old = m
            .atomic::<4>(a + 4, |o| (u32::from_le_bytes(o) + 5).to_le_bytes())
            .unwrap();
        assert_eq!(u32::from_le_bytes(old), 0);
        assert_eq!(m.read_u32(a + 4).unwrap(), 5);
        assert!(m.atomic::<4>(a + 2, |o| o).is_err());
    }

    #[test]
    fn scratch_is_dword_interleaved() {
        let mut s = Scratch::new(8, 64);
        s.write_lane(3, 4, &[0xaa, 0xbb, 0xcc, 0xdd]).unwrap();
        // (4/4)*64*4 + 3*4 = 268
        let mut raw = [0u8; 4];
        s.read_backing(268, &mut raw).unwrap();
        assert_eq!(raw, [0xaa, 0xbb, 0xcc, 0xdd]);
        let mut back = [0u8; 2];
        s.read_lane(3, 5, &mut back).unwrap();
        assert_eq!(back, [0xbb, 0xcc]);
        assert!(s.read_lane(3, 6, &mut raw).is_err());
        assert!(s.write_lane(64, 0, &[1]).is_err());
    }

    #[test]
    fn flat_classification() {
        assert_eq!(classify_flat(SHARED_BASE + 16), FlatTarget::Lds(16));
        assert_eq!(classify_flat(PRIVATE_BASE + 8), FlatTarget::Private(8));
        assert_eq!(classify_flat(HEAP_BASE), FlatTarget::Global(HEAP_BASE));
    }
}

//! Simulator memory: a sparse paged global address space with explicit
//! allocations, per-work-group LDS and per-wave dword-swizzled scratch.
//!
//! Guest addresses are plain numbers, never host pointers: every access is
//! checked and a bad one is a [`MemFault`], never a host crash. The one
//! exception is deliberate: [`GlobalMemory::map_host`] maps host memory of
//! this process at its own address (as an HSA runtime hands out), and the
//! page table still decides what a kernel may touch.

use crate::error::{FaultKind, MemFault, Space};
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

mod bytes;
pub mod gds;
mod page;

use bytes::fault;
pub use bytes::{Bytes, Scratch};

pub use page::ADDRESS_LIMIT;
pub(crate) use page::{PageBytes, PageGuard, PageMut, Slot};
use page::{PageTable, State};

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

/// The most bytes of its own the simulator maps at once (pages are backed
/// by host memory when first used, so this bounds the host memory a guest
/// can claim). Host memory mapped with [`GlobalMemory::map_host`] is the
/// host's and does not count.
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

/// Runs `$body` with `$b` bound to the bytes of a [`PageMut`] as a
/// [`PageBytes`]: a `&mut [u8]` for an owned page, a `&mut HostBytes` for a
/// host page. One match per page; the body (typically a loop over lanes)
/// is compiled once for each kind, so an owned page's loop is plain slice
/// code.
macro_rules! on_bytes {
    ($page:expr, $b:ident => $body:expr) => {
        match $page {
            $crate::memory::PageMut::Owned($b) => $body,
            $crate::memory::PageMut::Host(mut h) => {
                let $b = &mut h;
                $body
            }
        }
    };
}
pub(crate) use on_bytes;

/// The global address space: pages exist only inside allocations.
///
/// Everything takes `&self`, so one address space serves work-groups
/// running on several threads while other threads allocate, map and free
/// (an HSA runtime's `hipMalloc`, a hostcall's device-side `malloc`). Each
/// page has its own lock, held for an access (one per wave instruction when
/// its lanes fall in one page); a read-modify-write holds it throughout (on
/// host memory it is a compare-exchange on the host word, see
/// [`GlobalMemory::map_host`]). Freeing a page waits for an access in
/// progress; an access after the free faults as unmapped.
///
/// It also holds the device's global data share ([`GlobalMemory::gds`]).
pub struct GlobalMemory {
    table: PageTable,
    allocs: Mutex<Allocs>,
    gds: gds::Gds,
}

/// The mappings, where the next allocation goes and the simulator's own
/// bytes mapped. Locked to map or free (before any page's lock, never
/// after: accesses take page locks only).
#[derive(Clone, Debug)]
struct Allocs {
    by_base: BTreeMap<u64, Mapping>,
    next: u64,
    mapped: u64,
}

/// One mapping: its size in bytes and whether it is host memory.
#[derive(Clone, Copy, Debug)]
struct Mapping {
    size: u64,
    host: bool,
}

impl Mapping {
    /// The bytes of address space it takes (whole pages).
    fn span(&self) -> u64 {
        self.size.div_ceil(PAGE) * PAGE
    }
}

impl Allocs {
    /// The end (exclusive, whole pages) of the last mapping that overlaps
    /// `[start, end)`, if one does.
    fn overlap(&self, start: u64, end: u64) -> Option<u64> {
        let (&b, m) = self.by_base.range(..end).next_back()?;
        let e = b + m.span();
        (e > start).then_some(e)
    }
}

impl std::fmt::Debug for GlobalMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.lock_allocs();
        f.debug_struct("GlobalMemory")
            .field("allocations", &a.by_base)
            .field("next", &a.next)
            .field("mapped", &a.mapped)
            .field("gds", &self.gds)
            .finish()
    }
}

impl Default for GlobalMemory {
    fn default() -> Self {
        GlobalMemory::new()
    }
}

/// A copy of the whole address space (each page locked while it is
/// copied). Host pages become the copy's own pages holding the bytes they
/// had: the copy does not share memory with anything.
impl Clone for GlobalMemory {
    fn clone(&self) -> Self {
        let a = self.lock_allocs();
        let copy = GlobalMemory {
            table: PageTable::default(),
            allocs: Mutex::new(Allocs {
                by_base: BTreeMap::new(),
                next: a.next,
                mapped: 0,
            }),
            gds: self.gds.clone(),
        };
        let mut c = copy.lock_allocs();
        for (&base, m) in &a.by_base {
            for p in 0..m.span() / PAGE {
                let b = base + p * PAGE;
                let Some(g) = self.lock_page(b) else {
                    continue;
                };
                let valid = g.valid();
                let bytes = g.snapshot();
                if let Some(slot) = copy.table.get_or_create(b) {
                    slot.map(State::Owned(bytes), valid);
                }
            }
            c.by_base.insert(base, Mapping { host: false, ..*m });
            c.mapped += m.span();
        }
        drop(c);
        copy
    }
}

impl GlobalMemory {
    /// An empty address space.
    pub fn new() -> Self {
        GlobalMemory {
            table: PageTable::default(),
            allocs: Mutex::new(Allocs {
                by_base: BTreeMap::new(),
                next: HEAP_BASE,
                mapped: 0,
            }),
            gds: gds::Gds::default(),
        }
    }

    fn lock_allocs(&self) -> MutexGuard<'_, Allocs> {
        self.allocs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The device's global data share (GDS memory and GWS resources), which
    /// every work-group shares as it shares global memory.
    pub fn gds(&self) -> &gds::Gds {
        &self.gds
    }

    /// Allocates `size` zeroed bytes and returns the guest address. Allocations
    /// are page aligned and separated by an unmapped guard page; an access to
    /// any byte past `size` faults (the tail of the last page is not part of
    /// the allocation).
    pub fn allocate(&self, size: u64) -> Result<u64, MemFault> {
        let mut a = self.lock_allocs();
        let span = size.max(1).div_ceil(PAGE) * PAGE;
        let mut base = a.next;
        // Past any fixed mapping (a code object, host memory) in the way,
        // keeping a guard page.
        while let Some(end) = base.checked_add(span)
            && let Some(last) = a.overlap(base, end)
        {
            base = last + PAGE;
        }
        self.map_locked(&mut a, base, size.max(1), None)?;
        a.next = a.next.max(base + span + PAGE);
        Ok(base)
    }

    /// Maps `size` zeroed bytes at the fixed address `base` (page aligned; used
    /// to load code objects at their link addresses plus a load bias).
    pub fn map_at(&self, base: u64, size: u64) -> Result<(), MemFault> {
        // `next` (where allocations go) is left alone: a fixed mapping far above the
        // heap (a code object at its load bias) must not push the heap's buffers
        // away; `allocate` steps over fixed mappings.
        self.map_locked(&mut self.lock_allocs(), base, size.max(1), None)
    }

    /// Maps the host memory `[addr, addr + len)` of this process into the
    /// address space at the same address, so that a kernel sees a host
    /// buffer where the host does (an HSA runtime's allocations, kernel
    /// arguments, AQL packets, signals). `addr` must be a multiple of
    /// [`PAGE`] and the range must lie below [`ADDRESS_LIMIT`] and overlap
    /// no mapping. As with [`GlobalMemory::map_at`], an access past `len`
    /// faults to the byte, and [`GlobalMemory::free`]`(addr)` unmaps it.
    ///
    /// The simulator reaches these bytes only through atomic operations, one
    /// per naturally aligned piece of an access (a lane's aligned dword is
    /// one `AtomicU32` load or store), loads Acquire, stores Release, and
    /// every read-modify-write (the vector, scalar and image atomics) a
    /// SeqCst compare-exchange loop on the host word, so that host threads
    /// and waves may use the same words concurrently: a host `fetch_add` or
    /// compare-exchange and a wave's `global_atomic_add` or `cmpswap`
    /// interleave exactly, and a wave's stores before an atomic are visible
    /// to a host thread that observes that atomic. Each access also holds
    /// the page's lock, which [`GlobalMemory::free`] waits for.
    ///
    /// # Safety
    ///
    /// `[addr, addr + len)` must be memory of this process that is valid for
    /// reads and writes from the call until [`GlobalMemory::free`]`(addr)`
    /// has returned (or until this `GlobalMemory` is dropped), even though
    /// other threads hold it: free it only after that. Host threads that
    /// access bytes a kernel may access at the same time must do so
    /// atomically (with naturally aligned atomics of the kernel's access
    /// size) or otherwise order their accesses with the kernel's, as any
    /// racing Rust or C++ program must.
    pub unsafe fn map_host(&self, addr: u64, len: u64) -> Result<(), MemFault> {
        if len == 0 {
            return Err(fault(FaultKind::OutOfBounds, Space::Global, addr, len));
        }
        let host = usize::try_from(addr)
            .map_err(|_| fault(FaultKind::Unmapped, Space::Global, addr, len))?;
        self.map_locked(&mut self.lock_allocs(), addr, len, Some(host))
    }

    /// Maps the host memory at `host` (page aligned) into the guest address
    /// space at `guest` (page aligned), an alias: the device sees the host's
    /// bytes at another address, as a GPU sees locked host memory through
    /// its own page tables.
    ///
    /// # Safety
    /// As for [`GlobalMemory::map_host`], for `[host, host + len)`.
    pub unsafe fn map_host_at(&self, guest: u64, host: u64, len: u64) -> Result<(), MemFault> {
        if len == 0 || host % PAGE != 0 {
            return Err(fault(FaultKind::Misaligned, Space::Global, guest, len));
        }
        let host = usize::try_from(host)
            .map_err(|_| fault(FaultKind::Unmapped, Space::Global, guest, len))?;
        self.map_locked(&mut self.lock_allocs(), guest, len, Some(host))
    }

    /// Maps `size` (at least 1) bytes at `base`: the simulator's own zeroed
    /// bytes, or host memory at `host` (the same address). Nothing is mapped
    /// when it fails.
    fn map_locked(
        &self,
        a: &mut Allocs,
        base: u64,
        size: u64,
        host: Option<usize>,
    ) -> Result<(), MemFault> {
        let bad = fault(FaultKind::Unmapped, Space::Global, base, size);
        if base % PAGE != 0 {
            return Err(fault(FaultKind::Misaligned, Space::Global, base, size));
        }
        let m = Mapping {
            size,
            host: host.is_some(),
        };
        let span = m.span();
        if !m.host && a.mapped + span > MAX_MAPPED {
            return Err(fault(FaultKind::OutOfBounds, Space::Global, base, size));
        }
        let end = base.checked_add(span).ok_or(bad)?;
        if end > ADDRESS_LIMIT || a.overlap(base, end).is_some() {
            return Err(bad);
        }
        for p in 0..span / PAGE {
            let valid = (size - p * PAGE).min(PAGE) as usize;
            let state = match host {
                Some(h) => State::Host(h + (p * PAGE) as usize),
                None => State::Owned(Box::default()),
            };
            let mapped = self
                .table
                .get_or_create(base + p * PAGE)
                .is_some_and(|s| s.map(state, valid));
            if !mapped {
                // Not reached (the mappings say the pages are free); undo.
                for q in 0..p {
                    if let Some(s) = self.table.get(base + q * PAGE) {
                        s.unmap();
                    }
                }
                return Err(bad);
            }
        }
        a.by_base.insert(base, m);
        if !m.host {
            a.mapped += span;
        }
        Ok(())
    }

    /// Frees the mapping starting at `base` (an allocation, a fixed mapping
    /// or host memory). Waits for accesses in progress to its pages; later
    /// accesses fault as unmapped. A host mapping's memory may be released
    /// once this returns.
    pub fn free(&self, base: u64) -> Result<(), MemFault> {
        let mut a = self.lock_allocs();
        let m =
            a.by_base
                .remove(&base)
                .ok_or(fault(FaultKind::Unmapped, Space::Global, base, 0))?;
        for p in 0..m.span() / PAGE {
            if let Some(s) = self.table.get(base + p * PAGE) {
                s.unmap();
            }
        }
        if !m.host {
            a.mapped -= m.span();
        }
        Ok(())
    }

    /// The simulator's own bytes mapped (whole pages), at most
    /// [`MAX_MAPPED`]; host mappings do not count.
    pub fn mapped(&self) -> u64 {
        self.lock_allocs().mapped
    }

    /// The mappings as `(base, size)`, by address.
    pub fn allocations(&self) -> Vec<(u64, u64)> {
        let a = self.lock_allocs();
        a.by_base.iter().map(|(&b, m)| (b, m.size)).collect()
    }

    /// Whether the mapping at `base` is host memory ([`GlobalMemory::map_host`]);
    /// `None` when no mapping starts there.
    pub fn is_host(&self, base: u64) -> Option<bool> {
        self.lock_allocs().by_base.get(&base).map(|m| m.host)
    }

    /// The slot of the page starting at `base` (a multiple of [`PAGE`]),
    /// mapped or not; `None` when no page was ever mapped near it. Finding
    /// it takes no lock.
    #[inline]
    pub(crate) fn slot(&self, base: u64) -> Option<&Slot> {
        self.table.get(base)
    }

    /// The page starting at `base` (a multiple of [`PAGE`]), locked; `None`
    /// when no page is mapped there. Hold one page at a time: release it
    /// before any other access to global memory from the same thread.
    #[inline]
    pub(crate) fn lock_page(&self, base: u64) -> Option<PageGuard<'_>> {
        self.table.get(base)?.lock()
    }

    /// The page holding `addr`, locked, when the `len` bytes from `addr`
    /// that lie in that page are all inside the allocation (`total`: the
    /// whole access's size, for the report).
    fn page(&self, addr: u64, len: u64, total: u64) -> Result<PageGuard<'_>, MemFault> {
        let p = addr & !(PAGE - 1);
        let g = self
            .lock_page(p)
            .ok_or(fault(FaultKind::Unmapped, Space::Global, addr, total))?;
        if (addr - p) + len > g.valid() as u64 {
            return Err(fault(FaultKind::OutOfBounds, Space::Global, addr, total));
        }
        Ok(g)
    }

    /// Checks, without locking, that the `len` bytes from `addr` that lie in
    /// its page are inside a mapping (a first pass before a multi-page
    /// access; the locked access checks again).
    fn check(&self, addr: u64, len: u64, total: u64) -> Result<(), MemFault> {
        let p = addr & !(PAGE - 1);
        let valid = self.slot(p).map_or(0, |s| s.valid_hint()) as u64;
        if valid == 0 {
            return Err(fault(FaultKind::Unmapped, Space::Global, addr, total));
        }
        if (addr - p) + len > valid {
            return Err(fault(FaultKind::OutOfBounds, Space::Global, addr, total));
        }
        Ok(())
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
        f: impl FnOnce(PageMut<'_>, usize) -> T,
    ) -> Option<T> {
        let mut g = self.lock_page(base)?;
        let valid = g.valid();
        Some(f(g.bytes(), valid))
    }

    /// Walks `len` bytes from `addr` page by page, calling
    /// `f(page, offset in the page, range of the access)`. Every page is
    /// checked first, so that a faulting access changes nothing.
    fn walk(
        &self,
        addr: u64,
        len: usize,
        mut f: impl FnMut(PageMut<'_>, usize, std::ops::Range<usize>),
    ) -> Result<(), MemFault> {
        let total = len as u64;
        addr.checked_add(total)
            .ok_or(fault(FaultKind::Unmapped, Space::Global, addr, total))?;
        // Fast path: the access lies in one page.
        let off = (addr % PAGE) as usize;
        if off + len <= PAGE as usize {
            let mut g = self.page(addr, total, total)?;
            f(g.bytes(), off, 0..len);
            return Ok(());
        }
        let mut a = addr;
        let end = addr + total;
        while a < end {
            let next = (a & !(PAGE - 1)) + PAGE;
            self.check(a, next.min(end) - a, total)
                .map_err(|f| MemFault { addr, ..f })?;
            a = next;
        }
        let mut done = 0usize;
        while done < len {
            let a = addr + done as u64;
            let off = (a % PAGE) as usize;
            let n = (PAGE as usize - off).min(len - done);
            let mut g = self
                .page(a, n as u64, total)
                .map_err(|f| MemFault { addr, ..f })?;
            f(g.bytes(), off, done..done + n);
            done += n;
        }
        Ok(())
    }

    /// Reads `out.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        let len = out.len();
        self.walk(
            addr,
            len,
            |page, off, r| on_bytes!(page, b => b.load(off, &mut out[r])),
        )
    }

    /// Writes `data` at `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        self.walk(
            addr,
            data.len(),
            |page, off, r| on_bytes!(page, b => b.store(off, &data[r])),
        )
    }

    /// Fills `len` bytes at `addr` with `byte`.
    pub fn fill(&self, addr: u64, len: u64, byte: u8) -> Result<(), MemFault> {
        let chunk = [byte; PAGE as usize];
        self.walk(
            addr,
            len as usize,
            |page, off, r| on_bytes!(page, b => b.store(off, &chunk[..r.len()])),
        )
    }

    /// Reads a little-endian u32.
    pub fn read_u32(&self, addr: u64) -> Result<u32, MemFault> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Atomically replaces the naturally aligned `N`-byte value at `addr` with
    /// `f(old)` and returns the old value. The page's lock is held
    /// throughout; on host memory ([`GlobalMemory::map_host`], where `N` is
    /// 1, 2, 4 or 8) it is also a compare-exchange loop on the host word, so
    /// `f` may run more than once.
    pub fn atomic<const N: usize>(
        &self,
        addr: u64,
        mut f: impl FnMut([u8; N]) -> [u8; N],
    ) -> Result<[u8; N], MemFault> {
        let n = N as u64;
        let misaligned = fault(FaultKind::Misaligned, Space::Global, addr, n);
        if addr % n != 0 {
            return Err(misaligned);
        }
        let mut g = self.page(addr, n, n)?;
        let off = (addr % PAGE) as usize;
        match g.bytes() {
            PageMut::Owned(bytes) => {
                let s = bytes.get_mut(off..off + N).ok_or(fault(
                    FaultKind::Unmapped,
                    Space::Global,
                    addr,
                    n,
                ))?;
                let mut old = [0u8; N];
                old.copy_from_slice(s);
                s.copy_from_slice(&f(old));
                Ok(old)
            }
            PageMut::Host(h) => h.rmw(off, f).ok_or(misaligned),
        }
    }

    /// How many owned pages have their bytes allocated.
    #[cfg(test)]
    fn backed_pages(&self) -> usize {
        let a = self.lock_allocs();
        let mut n = 0;
        for (&base, m) in &a.by_base {
            for p in 0..m.span() / PAGE {
                n += self.lock_page(base + p * PAGE).is_some_and(|g| g.backed()) as usize;
            }
        }
        n
    }
}

/// A cursor over global memory that keeps the lock of the last page it
/// touched, so the lanes of one instruction that hit the same page (the usual
/// case) take the lock once. At most one page lock is held at a time; drop
/// the cursor before any other access to global memory from the same thread.
pub struct PageCursor<'a> {
    mem: &'a GlobalMemory,
    cur: Option<(u64, PageGuard<'a>)>,
}

impl<'a> PageCursor<'a> {
    /// A cursor holding no lock.
    pub fn new(mem: &'a GlobalMemory) -> Self {
        PageCursor { mem, cur: None }
    }

    /// The locked page of the `len` bytes at `addr` and their offset in it,
    /// when they lie in one page (`None`: they cross pages, and no lock is
    /// held).
    fn at(&mut self, addr: u64, len: usize) -> Result<Option<(PageMut<'_>, usize)>, MemFault> {
        let off = (addr % PAGE) as usize;
        if off + len > PAGE as usize {
            self.cur = None;
            return Ok(None);
        }
        let base = addr - off as u64;
        if self.cur.as_ref().map(|c| c.0) != Some(base) {
            // Release the old lock before taking the next one.
            self.cur = None;
            let g = self.mem.page(addr, len as u64, len as u64)?;
            self.cur = Some((base, g));
        }
        match self.cur.as_mut() {
            Some(c) if off + len <= c.1.valid() => Ok(Some((c.1.bytes(), off))),
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
        let mem = self.mem;
        match self.at(addr, out.len())? {
            Some((page, off)) => {
                on_bytes!(page, b => b.load(off, out));
                Ok(())
            }
            None => mem.read(addr, out),
        }
    }

    /// Writes `data` at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), MemFault> {
        let mem = self.mem;
        match self.at(addr, data.len())? {
            Some((page, off)) => {
                on_bytes!(page, b => b.store(off, data));
                Ok(())
            }
            None => mem.write(addr, data),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_fault_outside() {
        let m = GlobalMemory::new();
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
        let m = GlobalMemory::new();
        let a = m.allocate(4 << 30).unwrap();
        m.write(a + (4 << 30) - 1, &[7]).unwrap();
        let mut b = [1u8; 2];
        m.read(a + (4 << 30) - 2, &mut b).unwrap();
        assert_eq!(b, [0, 7]);
        assert_eq!(m.backed_pages(), 1);
        assert!(m.read(a + (4 << 30) - 1, &mut b).is_err(), "past the end");
    }

    /// A code object mapped at its load bias, far above the heap, leaves the heap where
    /// it was, and an allocation steps over a fixed
    /// mapping in its way, keeping a guard page.
    #[test]
    fn fixed_mappings_do_not_move_the_heap() {
        let m = GlobalMemory::new();
        m.map_at(0x7f00_0000_0000, 3 * PAGE).unwrap();
        let a = m.allocate(100).unwrap();
        assert_eq!(a, HEAP_BASE);
        // A fixed mapping right where the next allocation would go.
        let next = m.lock_allocs().next;
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
        let m = GlobalMemory::new();
        let a = m.allocate(8).unwrap();
        let old = m
            .atomic::<4>(a + 4, |o| (u32::from_le_bytes(o) + 5).to_le_bytes())
            .unwrap();
        assert_eq!(u32::from_le_bytes(old), 0);
        assert_eq!(m.read_u32(a + 4).unwrap(), 5);
        assert!(m.atomic::<4>(a + 2, |o| o).is_err());
    }

    #[test]
    fn flat_classification() {
        assert_eq!(classify_flat(SHARED_BASE + 16), FlatTarget::Lds(16));
        assert_eq!(classify_flat(PRIVATE_BASE + 8), FlatTarget::Private(8));
        assert_eq!(classify_flat(HEAP_BASE), FlatTarget::Global(HEAP_BASE));
    }
}

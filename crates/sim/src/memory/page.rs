//! The pages of the global address space and how their bytes are reached.
//!
//! A page is one [`Slot`] of a four-level table indexed by page number
//! ([`PageTable`]): the levels are created on first mapping and never
//! removed, so finding a slot takes no lock and a `&Slot` lives as long as
//! the memory. Each slot has its own lock, held for an access: mapping and
//! freeing lock the slot too, so a page cannot be freed under an access (the
//! free waits for it), and an access after the free finds the slot unmapped.
//!
//! A page's bytes are either the simulator's own ([`State::Owned`]: a plain
//! byte array, allocated on first access) or host memory of this process at
//! the page's own address ([`State::Host`], from
//! [`GlobalMemory::map_host`](super::GlobalMemory::map_host)), which host
//! threads read and write while waves run. The simulator reaches host bytes
//! only through atomic operations ([`HostBytes`]), one per naturally aligned
//! piece of an access, so that it never races with those threads, and a
//! read-modify-write is a compare-exchange on the host word.

use super::PAGE;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Page-number bits resolved by each level of the table.
const LEVEL_BITS: u32 = 9;
/// Entries per level.
const FAN: usize = 1 << LEVEL_BITS;

/// The end of the mappable address space: 48-bit virtual addresses, as the
/// GFX9 and GFX10 GPUs' (and x86-64 user space) have.
pub const ADDRESS_LIMIT: u64 = 1 << 48;

/// What a page holds.
#[derive(Debug, Default)]
pub(crate) enum State {
    /// Nothing: accesses fault.
    #[default]
    Unmapped,
    /// The simulator's bytes; empty until the first access (then
    /// [`PAGE`] zeros), so a large allocation costs host memory only where
    /// it is used.
    Owned(Box<[u8]>),
    /// Host memory at this address (the page's first byte), shared with
    /// host threads.
    Host(usize),
}

/// One page of the address space.
#[derive(Debug, Default)]
pub(crate) struct Slot {
    /// How many bytes from the page's start belong to the allocation (0 when
    /// unmapped), so that an access past the end of a buffer faults to the
    /// byte. Changed only with `state` locked: exact while it is held, a
    /// hint otherwise.
    valid: AtomicUsize,
    state: Mutex<State>,
}

impl Slot {
    /// The allocation's bytes in this page, read without the lock (a hint
    /// for checks that the locked access repeats).
    #[inline]
    pub(crate) fn valid_hint(&self) -> usize {
        self.valid.load(Ordering::Relaxed)
    }

    /// Locks the page; `None` when it is not mapped.
    #[inline]
    pub(crate) fn lock(&self) -> Option<PageGuard<'_>> {
        let guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(*guard, State::Unmapped) {
            return None;
        }
        Some(PageGuard {
            valid: self.valid.load(Ordering::Relaxed),
            guard,
        })
    }

    /// Maps the page (waiting for any access in progress); `false`, changing
    /// nothing, when it is already mapped.
    pub(super) fn map(&self, state: State, valid: usize) -> bool {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if !matches!(*g, State::Unmapped) {
            return false;
        }
        *g = state;
        self.valid.store(valid, Ordering::Relaxed);
        true
    }

    /// Unmaps the page, waiting for any access in progress, and returns what
    /// it held.
    pub(super) fn unmap(&self) -> State {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.valid.store(0, Ordering::Relaxed);
        std::mem::take(&mut *g)
    }
}

/// A locked, mapped page.
pub(crate) struct PageGuard<'a> {
    valid: usize,
    guard: MutexGuard<'a, State>,
}

impl PageGuard<'_> {
    /// How many bytes from the page's start belong to the allocation.
    #[inline]
    pub(crate) fn valid(&self) -> usize {
        self.valid
    }

    /// The page's bytes (an owned page's allocated, zeroed, on first use).
    #[inline]
    pub(crate) fn bytes(&mut self) -> PageMut<'_> {
        match &mut *self.guard {
            State::Owned(b) => {
                if b.is_empty() {
                    *b = vec![0u8; PAGE as usize].into_boxed_slice();
                }
                PageMut::Owned(b)
            }
            &mut State::Host(addr) => PageMut::Host(HostBytes {
                addr,
                valid: self.valid,
                _held: PhantomData,
            }),
            // `Slot::lock` returns no guard for an unmapped page.
            State::Unmapped => PageMut::Owned(&mut []),
        }
    }

    /// A copy of the page's bytes (empty for an owned page never used).
    pub(super) fn snapshot(&self) -> Box<[u8]> {
        match &*self.guard {
            State::Owned(b) => b.clone(),
            &State::Host(addr) => {
                let h = HostBytes {
                    addr,
                    valid: self.valid,
                    _held: PhantomData,
                };
                let mut v = vec![0u8; PAGE as usize];
                h.load(0, &mut v[..self.valid]);
                v.into_boxed_slice()
            }
            State::Unmapped => Box::default(),
        }
    }

    /// Whether an owned page's bytes have been allocated.
    #[cfg(test)]
    pub(crate) fn backed(&self) -> bool {
        !matches!(&*self.guard, State::Owned(b) if b.is_empty())
    }
}

/// The bytes of a locked page, by kind: an owned page's as a slice, a host
/// page's through atomics. Code that loops over lanes matches once and
/// runs a loop generic over [`PageBytes`] (see [`crate::memory::on_bytes`]).
pub(crate) enum PageMut<'a> {
    /// The simulator's bytes.
    Owned(&'a mut [u8]),
    /// Host memory.
    Host(HostBytes<'a>),
}

/// Byte access to one page at offsets the caller has checked against the
/// page's valid length (an offset outside panics, as slice indexing does).
/// Little-endian, as the guest is.
pub(crate) trait PageBytes {
    /// Copies `out.len()` bytes at `off` into `out`.
    fn load(&self, off: usize, out: &mut [u8]);
    /// Copies `data` to `off`.
    fn store(&mut self, off: usize, data: &[u8]);
    /// The dword at `off`.
    #[inline(always)]
    fn load_u32(&self, off: usize) -> u32 {
        let mut b = [0u8; 4];
        self.load(off, &mut b);
        u32::from_le_bytes(b)
    }
    /// Writes the dword `v` at `off`.
    #[inline(always)]
    fn store_u32(&mut self, off: usize, v: u32) {
        self.store(off, &v.to_le_bytes());
    }
    /// The consecutive dwords from `off`, into `out`.
    #[inline(always)]
    fn load_u32s(&self, off: usize, out: &mut [u32]) {
        for (k, v) in out.iter_mut().enumerate() {
            *v = self.load_u32(off + 4 * k);
        }
    }
    /// Writes the dwords of `src` consecutively from `off`.
    #[inline(always)]
    fn store_u32s(&mut self, off: usize, src: &[u32]) {
        for (k, &v) in src.iter().enumerate() {
            self.store_u32(off + 4 * k, v);
        }
    }
}

impl PageBytes for [u8] {
    #[inline(always)]
    fn load(&self, off: usize, out: &mut [u8]) {
        out.copy_from_slice(&self[off..off + out.len()]);
    }
    #[inline(always)]
    fn store(&mut self, off: usize, data: &[u8]) {
        self[off..off + data.len()].copy_from_slice(data);
    }
    #[inline(always)]
    fn load_u32(&self, off: usize) -> u32 {
        u32::from_le_bytes([self[off], self[off + 1], self[off + 2], self[off + 3]])
    }
    #[inline(always)]
    fn store_u32(&mut self, off: usize, v: u32) {
        self[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }
    #[inline(always)]
    fn load_u32s(&self, off: usize, out: &mut [u32]) {
        let bytes = &self[off..off + 4 * out.len()];
        for (v, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
            *v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
    }
    #[inline(always)]
    fn store_u32s(&mut self, off: usize, src: &[u32]) {
        let bytes = &mut self[off..off + 4 * src.len()];
        for (c, v) in bytes.chunks_exact_mut(4).zip(src) {
            c.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// The bytes of a host page, while its slot is locked (the lifetime is the
/// guard's, so the mapping, and by `map_host`'s contract the memory, stands
/// for as long as this exists).
///
/// Every access is atomic, split into naturally aligned pieces of 8, 4, 2
/// and 1 bytes (so a lane's aligned dword is one `AtomicU32` operation, as a
/// host thread's is): loads Acquire, stores Release, read-modify-writes
/// SeqCst compare-exchange loops, so that a wave's stores before an atomic
/// are visible to a host thread that observes the atomic, and the other
/// way round.
pub(crate) struct HostBytes<'a> {
    /// The host address of the page's first byte.
    addr: usize,
    /// The bytes of the page inside the mapping.
    valid: usize,
    _held: PhantomData<&'a mut State>,
}

/// The host atomic of type `$A` (over `$T`) at page offset `$off`, which
/// the caller has checked lies inside the mapping and is aligned.
macro_rules! host_atomic {
    ($h:expr, $A:ty, $T:ty, $off:expr) => {{
        let a = $h.addr + $off;
        debug_assert!(a % std::mem::size_of::<$T>() == 0 && $off < $h.valid);
        // SAFETY: `map_host`'s caller guarantees that the mapped host memory is
        // valid for reads and writes until `free`, which must lock this page's
        // slot to unmap it, and the slot is locked for as long as this
        // `HostBytes` lives. The offset lies inside the mapping (checked by
        // every caller of this macro against `valid`) and is aligned for `$T`.
        // The simulator accesses the memory only atomically.
        unsafe { <$A>::from_ptr(a as *mut $T) }
    }};
}

impl HostBytes<'_> {
    /// Checks that `len` bytes at `off` lie inside the mapping.
    #[inline(always)]
    fn check(&self, off: usize, len: usize) {
        assert!(
            off.checked_add(len).is_some_and(|e| e <= self.valid),
            "host page access {off}+{len} outside its {} mapped bytes",
            self.valid
        );
    }

    /// The size of the naturally aligned piece at `off` with `rem` bytes left.
    #[inline(always)]
    fn piece(&self, off: usize, rem: usize) -> usize {
        let a = self.addr + off;
        if a % 8 == 0 && rem >= 8 {
            8
        } else if a % 4 == 0 && rem >= 4 {
            4
        } else if a % 2 == 0 && rem >= 2 {
            2
        } else {
            1
        }
    }

    /// Atomically replaces the naturally aligned `N`-byte value (N is 1, 2,
    /// 4 or 8) at `off` with `f(old)`, returning the old value: a SeqCst
    /// compare-exchange loop on the host word. `None` for another `N` or a
    /// misaligned offset.
    pub(crate) fn rmw<const N: usize>(
        &self,
        off: usize,
        mut f: impl FnMut([u8; N]) -> [u8; N],
    ) -> Option<[u8; N]> {
        self.check(off, N);
        if !matches!(N, 1 | 2 | 4 | 8) || (self.addr + off) % N != 0 {
            return None;
        }
        macro_rules! cas {
            ($A:ty, $T:ty) => {{
                let at = host_atomic!(self, $A, $T, off);
                let mut cur = at.load(Ordering::Acquire);
                loop {
                    let mut old = [0u8; N];
                    old.copy_from_slice(&cur.to_ne_bytes());
                    let mut new = [0u8; std::mem::size_of::<$T>()];
                    new.copy_from_slice(&f(old));
                    let new = <$T>::from_ne_bytes(new);
                    match at.compare_exchange_weak(cur, new, Ordering::SeqCst, Ordering::Acquire) {
                        Ok(_) => return Some(old),
                        Err(now) => cur = now,
                    }
                }
            }};
        }
        match N {
            1 => cas!(AtomicU8, u8),
            2 => cas!(AtomicU16, u16),
            4 => cas!(AtomicU32, u32),
            _ => cas!(AtomicU64, u64),
        }
    }
}

impl PageBytes for HostBytes<'_> {
    fn load(&self, off: usize, out: &mut [u8]) {
        self.check(off, out.len());
        let mut p = 0;
        while p < out.len() {
            let o = off + p;
            let n = self.piece(o, out.len() - p);
            let d = &mut out[p..p + n];
            match n {
                8 => d.copy_from_slice(
                    &host_atomic!(self, AtomicU64, u64, o)
                        .load(Ordering::Acquire)
                        .to_ne_bytes(),
                ),
                4 => d.copy_from_slice(
                    &host_atomic!(self, AtomicU32, u32, o)
                        .load(Ordering::Acquire)
                        .to_ne_bytes(),
                ),
                2 => d.copy_from_slice(
                    &host_atomic!(self, AtomicU16, u16, o)
                        .load(Ordering::Acquire)
                        .to_ne_bytes(),
                ),
                _ => d[0] = host_atomic!(self, AtomicU8, u8, o).load(Ordering::Acquire),
            }
            p += n;
        }
    }

    fn store(&mut self, off: usize, data: &[u8]) {
        self.check(off, data.len());
        let mut p = 0;
        while p < data.len() {
            let o = off + p;
            let n = self.piece(o, data.len() - p);
            let d = &data[p..p + n];
            match n {
                8 => host_atomic!(self, AtomicU64, u64, o).store(
                    u64::from_ne_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]]),
                    Ordering::Release,
                ),
                4 => host_atomic!(self, AtomicU32, u32, o).store(
                    u32::from_ne_bytes([d[0], d[1], d[2], d[3]]),
                    Ordering::Release,
                ),
                2 => host_atomic!(self, AtomicU16, u16, o)
                    .store(u16::from_ne_bytes([d[0], d[1]]), Ordering::Release),
                _ => host_atomic!(self, AtomicU8, u8, o).store(d[0], Ordering::Release),
            }
            p += n;
        }
    }

    #[inline]
    fn load_u32(&self, off: usize) -> u32 {
        if (self.addr + off) % 4 == 0 {
            self.check(off, 4);
            u32::from_le(host_atomic!(self, AtomicU32, u32, off).load(Ordering::Acquire))
        } else {
            let mut b = [0u8; 4];
            self.load(off, &mut b);
            u32::from_le_bytes(b)
        }
    }

    #[inline]
    fn store_u32(&mut self, off: usize, v: u32) {
        if (self.addr + off) % 4 == 0 {
            self.check(off, 4);
            host_atomic!(self, AtomicU32, u32, off).store(v.to_le(), Ordering::Release);
        } else {
            self.store(off, &v.to_le_bytes());
        }
    }
}

/// A level of the table: `FAN` entries, each created on first use.
type Level<T> = [OnceLock<Box<T>>; FAN];
/// The last level: the slots of `FAN` pages.
type Leaf = [Slot; FAN];

/// The page table: four levels of [`LEVEL_BITS`] bits of the page number
/// each, covering [`ADDRESS_LIMIT`]. Finding a page is four indexed loads
/// and no lock, anywhere in the address space (host memory mapped at its own
/// address lies far from the simulator's heap).
#[derive(Debug)]
pub(crate) struct PageTable {
    root: Box<Level<Level<Level<Leaf>>>>,
}

impl Default for PageTable {
    fn default() -> Self {
        PageTable {
            root: Box::new(std::array::from_fn(|_| OnceLock::new())),
        }
    }
}

/// The table indices of the page at `base`, top level first; `None` past
/// [`ADDRESS_LIMIT`].
#[inline(always)]
fn indices(base: u64) -> Option<[usize; 4]> {
    if base >= ADDRESS_LIMIT {
        return None;
    }
    let n = base / PAGE;
    let at = |k: u32| ((n >> (k * LEVEL_BITS)) as usize) & (FAN - 1);
    Some([at(3), at(2), at(1), at(0)])
}

impl PageTable {
    /// The slot of the page at `base` (a multiple of [`PAGE`]), when that
    /// part of the table exists (the page may still be unmapped).
    #[inline(always)]
    pub(crate) fn get(&self, base: u64) -> Option<&Slot> {
        let [a, b, c, d] = indices(base)?;
        let l1 = self.root[a].get()?;
        let l2 = l1[b].get()?;
        let leaf = l2[c].get()?;
        Some(&leaf[d])
    }

    /// The slot of the page at `base`, creating the levels on the way.
    /// `None` past [`ADDRESS_LIMIT`].
    pub(super) fn get_or_create(&self, base: u64) -> Option<&Slot> {
        let [a, b, c, d] = indices(base)?;
        let l1 = self.root[a].get_or_init(|| Box::new(std::array::from_fn(|_| OnceLock::new())));
        let l2 = l1[b].get_or_init(|| Box::new(std::array::from_fn(|_| OnceLock::new())));
        let leaf = l2[c].get_or_init(|| Box::new(std::array::from_fn(|_| Slot::default())));
        Some(&leaf[d])
    }
}

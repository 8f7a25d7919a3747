//! Memory the runtime hands out, in one address space shared by the host
//! program and the simulated device.
//!
//! - **Device memory** (the GPU's coarse-grained pool, what `hipMalloc`
//!   returns) lives in the simulator's own pages, in a range of the host's
//!   address space that the runtime reserves (mapped `PROT_NONE`), so that no
//!   host allocation can ever have the same address. The host program cannot
//!   dereference it, as on a discrete GPU without a large BAR; copies go
//!   through the runtime.
//! - **Host-shared memory** (the CPU agent's fine-grained and kernarg pools,
//!   locked host memory, signals, queues) is host memory of this process that
//!   the simulator maps at the same address: host code writes kernel
//!   arguments, packets and signal values with plain stores and kernels read
//!   them, every simulator access being atomic on those pages.

use amdgpu_sim::Device;
use amdgpu_sim::memory::{HEAP_BASE, PAGE};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// What an allocation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Simulator-owned device memory.
    Device,
    /// Host memory the runtime mapped (mmap) and shares with the simulator.
    Shared,
    /// Host memory the program owns and locked (`hsa_amd_memory_lock`): its
    /// pages are shared with the simulator until unlocked.
    Locked,
}

/// One allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alloc {
    /// First byte.
    pub base: u64,
    /// Bytes asked for.
    pub size: u64,
    /// What it is.
    pub kind: Kind,
    /// The pool it came from (an index into the runtime's pools), if any.
    pub pool: Option<usize>,
}

/// Errors of the memory layer.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MemError {
    /// The host has no memory for it.
    #[error("the host could not provide {0} bytes")]
    HostOut(u64),
    /// The simulator refused the mapping or allocation.
    #[error("the simulated device refused it: {0}")]
    Device(String),
    /// Not an allocation of this runtime.
    #[error("{0:#x} is not memory this runtime allocated")]
    Unknown(u64),
    /// A copy touches bytes outside every allocation the runtime knows of.
    #[error("copy of {len} bytes at {addr:#x} leaves device memory")]
    Range {
        /// Where the copy's device side starts.
        addr: u64,
        /// Its length.
        len: u64,
    },
}

/// The reserved device range: the sim's heap (16 GiB from
/// [`HEAP_BASE`]), then code objects ([`CODE_BASE`]) and aliases of locked
/// host memory ([`ALIAS_BASE`]).
pub const RESERVED: u64 = 64 << 30;

/// Where the runtime's device maps code objects (inside the reserved range).
pub const CODE_BASE: u64 = HEAP_BASE + (16 << 30);

/// Where device-side aliases of locked host memory go.
pub const ALIAS_BASE: u64 = HEAP_BASE + (32 << 30);

/// The allocations, by base address.
#[derive(Debug, Default)]
pub struct Memory {
    allocs: Mutex<BTreeMap<u64, Alloc>>,
    user: Mutex<BTreeMap<u64, u64>>,
    next_alias: Mutex<u64>,
    /// Locked host memory: (the host address locked, its alias's base).
    aliases: Mutex<Vec<(u64, u64)>>,
}

fn pages(size: u64) -> u64 {
    size.max(1).div_ceil(PAGE) * PAGE
}

/// Reserves the simulator's heap range in this process's address space, so
/// that no host mapping ever takes a device address (once per process).
pub fn reserve_device_range() -> Result<(), String> {
    static DONE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    DONE.get_or_init(reserve).clone()
}

fn reserve() -> Result<(), String> {
    // SAFETY: a fresh anonymous PROT_NONE mapping at a fixed address that must
    // not replace anything (MAP_FIXED_NOREPLACE); it is never unmapped.
    let p = unsafe {
        libc::mmap(
            HEAP_BASE as usize as *mut libc::c_void,
            RESERVED as usize,
            libc::PROT_NONE,
            libc::MAP_PRIVATE
                | libc::MAP_ANONYMOUS
                | libc::MAP_NORESERVE
                | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED || p as u64 != HEAP_BASE {
        return Err(format!(
            "cannot reserve the simulated device's address range {HEAP_BASE:#x}..{:#x} in this process (something is mapped there)",
            HEAP_BASE + RESERVED
        ));
    }
    Ok(())
}

impl Memory {
    /// Allocates device memory.
    pub fn alloc_device(&self, dev: &Device, size: u64, pool: usize) -> Result<u64, MemError> {
        let base = dev
            .alloc(size)
            .map_err(|e| MemError::Device(e.to_string()))?;
        self.insert(Alloc {
            base,
            size,
            kind: Kind::Device,
            pool: Some(pool),
        });
        Ok(base)
    }

    /// Allocates zeroed host memory shared with the simulator.
    pub fn alloc_shared(
        &self,
        dev: &Device,
        size: u64,
        pool: Option<usize>,
    ) -> Result<u64, MemError> {
        let len = pages(size);
        // SAFETY: a fresh anonymous mapping; its address is ours until munmap.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(MemError::HostOut(size));
        }
        let base = p as u64;
        // SAFETY: the mapping stays valid until `free`, which unmaps it from
        // the simulator before returning it to the host.
        if let Err(e) = unsafe { dev.mem.map_host(base, len) } {
            // SAFETY: the mapping made above, not shared with anyone.
            unsafe { libc::munmap(p, len as usize) };
            return Err(MemError::Device(e.to_string()));
        }
        self.insert(Alloc {
            base,
            size,
            kind: Kind::Shared,
            pool,
        });
        Ok(base)
    }

    /// Shares the pages holding `[ptr, ptr + size)` of the program's own
    /// memory with the simulator (`hsa_amd_memory_lock`): the device sees
    /// them at a fresh address of its own (as a GPU does through its page
    /// tables), which is returned for `ptr`. Each call makes its own alias.
    pub fn lock(&self, dev: &Device, ptr: u64, size: u64) -> Result<u64, MemError> {
        let start = ptr & !(PAGE - 1);
        let span = pages(ptr + size.max(1) - start);
        let guest = {
            let mut next = self.next_alias.lock().unwrap_or_else(|e| e.into_inner());
            let g = (*next).max(ALIAS_BASE);
            if g + span > HEAP_BASE + RESERVED {
                return Err(MemError::HostOut(size));
            }
            *next = g + span + PAGE;
            g
        };
        // SAFETY: the program promises (HSA's contract for locking) that the
        // memory stays valid until it is unlocked, which unmaps the alias.
        unsafe { dev.mem.map_host_at(guest, start, span) }
            .map_err(|e| MemError::Device(e.to_string()))?;
        self.insert(Alloc {
            base: guest,
            size: span,
            kind: Kind::Locked,
            pool: None,
        });
        self.aliases
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((ptr, guest));
        Ok(guest + (ptr - start))
    }

    /// Stops sharing the host memory locked at `ptr` (its most recent lock);
    /// false when it is not locked.
    pub fn unlock(&self, dev: &Device, ptr: u64) -> bool {
        let guest = {
            let mut al = self.aliases.lock().unwrap_or_else(|e| e.into_inner());
            match al.iter().rposition(|&(h, _)| h == ptr) {
                Some(i) => al.remove(i).1,
                None => return false,
            }
        };
        let _ = dev.mem.free(guest);
        self.lock_map().remove(&guest);
        true
    }

    /// The host address behind a device-side alias of locked memory.
    pub fn host_of_alias(&self, addr: u64) -> Option<u64> {
        let a = self.find(addr).filter(|a| a.kind == Kind::Locked)?;
        let al = self.aliases.lock().unwrap_or_else(|e| e.into_inner());
        let &(host, guest) = al.iter().find(|&&(_, g)| g == a.base)?;
        Some((host & !(PAGE - 1)) + (addr - guest))
    }

    fn lock_map(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Alloc>> {
        self.allocs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records that `[base, base + size)` is device memory the simulator
    /// mapped itself (a loaded code object's image).
    pub fn note_device(&self, base: u64, size: u64) {
        self.insert(Alloc {
            base,
            size,
            kind: Kind::Device,
            pool: None,
        });
    }

    fn insert(&self, a: Alloc) {
        self.lock_map().insert(a.base, a);
    }

    /// Every allocation (device memory, host-shared memory, locked memory's
    /// aliases, loaded code objects).
    pub fn all(&self) -> Vec<Alloc> {
        self.lock_map().values().copied().collect()
    }

    /// The allocation holding `addr`, if any.
    pub fn find(&self, addr: u64) -> Option<Alloc> {
        let m = self.lock_map();
        let (_, a) = m.range(..=addr).next_back()?;
        (addr < a.base + pages(a.size)).then_some(*a)
    }

    /// Frees an allocation made by `alloc_device` or `alloc_shared`.
    pub fn free(&self, dev: &Device, base: u64) -> Result<(), MemError> {
        let a = {
            let m = self.lock_map();
            match m.get(&base) {
                Some(a) if a.kind != Kind::Locked && a.pool.is_some() => *a,
                _ => return Err(MemError::Unknown(base)),
            }
        };
        dev.mem
            .free(base)
            .map_err(|e| MemError::Device(e.to_string()))?;
        self.lock_map().remove(&base);
        if a.kind == Kind::Shared {
            // SAFETY: the mapping `alloc_shared` made; the simulator no longer
            // maps it.
            unsafe { libc::munmap(base as usize as *mut libc::c_void, pages(a.size) as usize) };
        }
        Ok(())
    }

    /// Attaches user data to the allocation holding `addr`; false when
    /// there is none.
    pub fn set_user_data(&self, addr: u64, data: u64) -> bool {
        match self.find(addr) {
            Some(a) => {
                self.user
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(a.base, data);
                true
            }
            None => false,
        }
    }

    /// The user data of the allocation starting at `base` (0 when none).
    pub fn user_data(&self, base: u64) -> u64 {
        let u = self.user.lock().unwrap_or_else(|e| e.into_inner());
        u.get(&base).copied().unwrap_or(0)
    }

    /// Whether `addr` is a device-side address the host cannot dereference
    /// (device memory, or an alias of locked host memory).
    pub fn is_device(&self, addr: u64) -> bool {
        self.find(addr).is_some_and(|a| a.kind != Kind::Shared)
    }

    /// Copies `len` bytes from `src` to `dst`, either side host memory of
    /// this process or device memory.
    ///
    /// # Safety
    /// Host-side ranges must be valid for the access.
    pub unsafe fn copy(&self, dev: &Device, dst: u64, src: u64, len: u64) -> Result<(), MemError> {
        if len == 0 {
            return Ok(());
        }
        let (sd, dd) = (self.is_device(src), self.is_device(dst));
        let n = len as usize;
        let range = |addr| MemError::Range { addr, len };
        // SAFETY: host ranges are valid per the function's contract.
        unsafe {
            match (sd, dd) {
                (false, false) => std::ptr::copy(src as *const u8, dst as *mut u8, n),
                (true, false) => {
                    let out = std::slice::from_raw_parts_mut(dst as *mut u8, n);
                    dev.mem.read(src, out).map_err(|_| range(src))?;
                }
                (false, true) => {
                    let data = std::slice::from_raw_parts(src as *const u8, n);
                    dev.mem.write(dst, data).map_err(|_| range(dst))?;
                }
                (true, true) => {
                    let mut buf = vec![0u8; n];
                    dev.mem.read(src, &mut buf).map_err(|_| range(src))?;
                    dev.mem.write(dst, &buf).map_err(|_| range(dst))?;
                }
            }
        }
        Ok(())
    }

    /// Fills `count` dwords at `dst` with `value`.
    ///
    /// # Safety
    /// A host-side range must be valid for the access.
    pub unsafe fn fill_u32(
        &self,
        dev: &Device,
        dst: u64,
        value: u32,
        count: u64,
    ) -> Result<(), MemError> {
        let bytes: Vec<u8> = std::iter::repeat_n(value.to_le_bytes(), count as usize)
            .flatten()
            .collect();
        // SAFETY: per the function's contract.
        unsafe { self.copy(dev, dst, bytes.as_ptr() as u64, bytes.len() as u64) }
    }
}

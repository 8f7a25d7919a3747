//! The device: global memory shared by every dispatch, and where code objects are mapped.

use crate::error::SimError;
use crate::memory::{GlobalMemory, MAX_MAPPED, PAGE};

/// The simulated device: global memory shared by every dispatch.
///
/// Every method takes `&self`: a `Device` is `Sync`, so an `Arc<Device>`
/// serves several threads at once, one running dispatches while another
/// allocates, maps, loads and frees (as an HSA runtime's threads do).
#[derive(Debug)]
pub struct Device {
    /// Global memory.
    pub mem: GlobalMemory,
    /// Where the next code object is loaded.
    pub(super) next_code_base: std::sync::atomic::AtomicU64,
}

impl Default for Device {
    fn default() -> Self {
        Device::new()
    }
}

impl Device {
    /// An empty device.
    pub fn new() -> Self {
        Device {
            mem: GlobalMemory::new(),
            next_code_base: std::sync::atomic::AtomicU64::new(0x0000_7f00_0000_0000),
        }
    }

    /// An empty device that maps code objects from `code_base` up (page
    /// aligned) instead of `0x7f00_0000_0000`: a runtime that shares the
    /// address space with a host process puts them in a range it reserved.
    pub fn with_code_base(code_base: u64) -> Self {
        Device {
            mem: GlobalMemory::new(),
            next_code_base: std::sync::atomic::AtomicU64::new(code_base & !(PAGE - 1)),
        }
    }

    /// Where the next code object is mapped (its load bias), from now on:
    /// a replayed dispatch loads its code object where it was captured.
    pub fn set_code_base(&self, code_base: u64) {
        self.next_code_base.store(
            code_base & !(PAGE - 1),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// Allocates `size` zeroed bytes of global memory.
    pub fn alloc(&self, size: u64) -> Result<u64, SimError> {
        let pages = size.max(1).div_ceil(PAGE).saturating_mul(PAGE);
        if self.mem.mapped().saturating_add(pages) > MAX_MAPPED {
            return Err(SimError::Alloc {
                size,
                why: "simulated global memory holds at most 8 GiB (memory::MAX_MAPPED)",
            });
        }
        self.mem.allocate(size).map_err(SimError::Host)
    }

    /// Allocates and fills a buffer.
    pub fn alloc_bytes(&self, data: &[u8]) -> Result<u64, SimError> {
        let a = self.alloc(data.len() as u64)?;
        self.mem.write(a, data).map_err(SimError::Host)?;
        Ok(a)
    }

    /// Frees the allocation or mapping starting at `addr` (from
    /// [`Device::alloc`], [`Device::map_host`] or a fixed mapping), waiting
    /// for accesses to it in progress on other threads; a later access
    /// faults as unmapped.
    pub fn free(&self, addr: u64) -> Result<(), SimError> {
        self.mem.free(addr).map_err(SimError::Host)
    }

    /// Maps the host memory `[addr, addr + len)` of this process into global
    /// memory at the same address, so that kernels and host threads share
    /// it ([`GlobalMemory::map_host`]: page-aligned, below
    /// [`crate::memory::ADDRESS_LIMIT`], overlapping nothing mapped).
    ///
    /// # Safety
    ///
    /// As for [`GlobalMemory::map_host`]: the memory must stay valid for reads
    /// and writes until [`Device::free`]`(addr)` has returned or the device
    /// is dropped, and host threads must access bytes that kernels access at
    /// the same time atomically.
    pub unsafe fn map_host(&self, addr: u64, len: u64) -> Result<(), SimError> {
        // SAFETY: the caller upholds `GlobalMemory::map_host`'s contract.
        unsafe { self.mem.map_host(addr, len) }.map_err(SimError::Host)
    }

    /// Writes host bytes to global memory.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        self.mem.write(addr, data).map_err(SimError::Host)
    }

    /// Reads `len` bytes of global memory.
    pub fn read(&self, addr: u64, len: usize) -> Result<Vec<u8>, SimError> {
        let mut v = vec![0u8; len];
        self.mem.read(addr, &mut v).map_err(SimError::Host)?;
        Ok(v)
    }
}

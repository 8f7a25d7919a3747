//! Memory: pool allocations, locking host memory, copies and fills, pointer
//! queries.

use crate::agents::{self, CPU, GPU};
use crate::{INVALID_ARGUMENT, OUT_OF_RESOURCES, SUCCESS, Status, with_rt};
use amdsim_host::memory::Kind;
use amdsim_host::runtime::Runtime;
use amdsim_host::signal::Signal;
use libc::c_void;
use std::sync::OnceLock;

/// The address HDP flush registers point at: a dword of host-shared memory
/// that nothing reads (the simulator has no host data path to flush).
pub fn hdp_flush_word() -> u64 {
    static WORD: OnceLock<u64> = OnceLock::new();
    *WORD.get_or_init(|| {
        crate::runtime()
            .and_then(|rt| rt.memory.alloc_shared(&rt.device, 64, None).ok())
            .unwrap_or(0)
    })
}

fn allocate(rt: &Runtime, pool_h: u64, size: usize) -> Result<u64, Status> {
    let Some(i) = agents::pool_index(pool_h) else {
        return Err(crate::INVALID_MEMORY_POOL);
    };
    let p = &agents::POOLS[i];
    if !p.alloc {
        return Err(INVALID_ARGUMENT);
    }
    let r = if p.agent == GPU {
        rt.memory.alloc_device(&rt.device, size as u64, i)
    } else {
        rt.memory.alloc_shared(&rt.device, size as u64, Some(i))
    };
    r.map_err(|e| {
        eprintln!("amdsim: allocation of {size} bytes failed: {e}");
        OUT_OF_RESOURCES
    })
}

hsa! {
    /// Allocates from a pool.
    fn hsa_amd_memory_pool_allocate(pool: u64, size: usize, _flags: u32, ptr: *mut *mut c_void) -> Status {
        if ptr.is_null() || size == 0 {
            return INVALID_ARGUMENT;
        }
        with_rt(|rt| match allocate(rt, pool, size) {
            Ok(a) => {
                // SAFETY: checked non-null.
                unsafe { *ptr = a as *mut c_void };
                SUCCESS
            }
            Err(s) => s,
        })
    }
}

hsa! {
    /// Frees a pool allocation.
    fn hsa_amd_memory_pool_free(ptr: *mut c_void) -> Status {
        with_rt(|rt| match rt.memory.free(&rt.device, ptr as u64) {
            Ok(()) => SUCCESS,
            Err(_) => INVALID_ARGUMENT,
        })
    }
}

hsa! {
    /// Grants agents access to an allocation: every agent already reaches
    /// every allocation in the simulator's one address space.
    fn hsa_amd_agents_allow_access(num: u32, agents: *const u64, _flags: *const u32, ptr: *const c_void) -> Status {
        if num == 0 || agents.is_null() || ptr.is_null() {
            return INVALID_ARGUMENT;
        }
        SUCCESS
    }
}

unsafe fn lock(host: *mut c_void, size: usize, agent_ptr: *mut *mut c_void) -> Status {
    if host.is_null() || size == 0 || agent_ptr.is_null() {
        return INVALID_ARGUMENT;
    }
    with_rt(
        |rt| match rt.memory.lock(&rt.device, host as u64, size as u64) {
            Ok(alias) => {
                // SAFETY: checked non-null.
                unsafe { *agent_ptr = alias as *mut c_void };
                SUCCESS
            }
            Err(e) => {
                eprintln!("amdsim: locking {size} bytes at {host:p} failed: {e}");
                OUT_OF_RESOURCES
            }
        },
    )
}

hsa! {
    /// Shares host memory with the GPU (at the same address).
    fn hsa_amd_memory_lock(host: *mut c_void, size: usize, _agents: *const u64, _num: i32, agent_ptr: *mut *mut c_void) -> Status {
        // SAFETY: forwarded.
        unsafe { lock(host, size, agent_ptr) }
    }
}

hsa! {
    /// Shares host memory with the GPU, as memory of a pool.
    fn hsa_amd_memory_lock_to_pool(host: *mut c_void, size: usize, _agents: *const u64, _num: i32, _pool: u64, _flags: u32, agent_ptr: *mut *mut c_void) -> Status {
        // SAFETY: forwarded.
        unsafe { lock(host, size, agent_ptr) }
    }
}

hsa! {
    /// Stops sharing locked host memory.
    fn hsa_amd_memory_unlock(host: *mut c_void) -> Status {
        with_rt(|rt| {
            if rt.memory.unlock(&rt.device, host as u64) {
                SUCCESS
            } else {
                INVALID_ARGUMENT
            }
        })
    }
}

hsa! {
    /// Registers host memory: nothing to do, the device reaches host memory
    /// the program locks.
    fn hsa_memory_register(ptr: *mut c_void, size: usize) -> Status {
        if ptr.is_null() && size != 0 {
            return INVALID_ARGUMENT;
        }
        SUCCESS
    }
}

hsa! {
    /// Deregisters host memory.
    fn hsa_memory_deregister(_ptr: *mut c_void, _size: usize) -> Status {
        SUCCESS
    }
}

hsa! {
    /// Copies between any two places of the address space.
    fn hsa_memory_copy(dst: *mut c_void, src: *const c_void, size: usize) -> Status {
        if (dst.is_null() || src.is_null()) && size != 0 {
            return INVALID_ARGUMENT;
        }
        with_rt(|rt| {
            // SAFETY: the program's ranges, valid per HSA's contract.
            match unsafe { rt.memory.copy(&rt.device, dst as u64, src as u64, size as u64) } {
                Ok(()) => SUCCESS,
                Err(e) => {
                    eprintln!("amdsim: hsa_memory_copy: {e}");
                    INVALID_ARGUMENT
                }
            }
        })
    }
}

/// Waits for dependency signals to reach 0.
fn wait_deps(rt: &Runtime, n: u32, deps: *const u64) {
    for i in 0..n as usize {
        // SAFETY: `n` signals per HSA's contract.
        let s = unsafe { *deps.add(i) };
        if s != 0 {
            Signal(s).wait(amdsim_host::signal::Condition::Eq, 0, None, &rt.notifier);
        }
    }
}

hsa! {
    /// An asynchronous copy: done at once after its dependencies, then the
    /// completion signal is decremented.
    fn hsa_amd_memory_async_copy(dst: *mut c_void, _dst_agent: u64, src: *const c_void, _src_agent: u64, size: usize, num_deps: u32, deps: *const u64, completion: u64) -> Status {
        if (dst.is_null() || src.is_null()) && size != 0 || (num_deps > 0 && deps.is_null()) {
            return INVALID_ARGUMENT;
        }
        with_rt(|rt| {
            wait_deps(rt, num_deps, deps);
            let start = amdsim_host::signal::now_ns();
            // SAFETY: the program's ranges, valid per HSA's contract.
            let r = unsafe { rt.memory.copy(&rt.device, dst as u64, src as u64, size as u64) };
            if completion != 0 {
                let sig = Signal(completion);
                sig.set_timestamps(start, amdsim_host::signal::now_ns());
                sig.update(&rt.notifier, |v| v - 1);
            }
            match r {
                Ok(()) => SUCCESS,
                Err(e) => {
                    eprintln!("amdsim: hsa_amd_memory_async_copy: {e}");
                    INVALID_ARGUMENT
                }
            }
        })
    }
}

/// `hsa_pitched_ptr_t`.
#[repr(C)]
pub struct PitchedPtr {
    base: *mut c_void,
    pitch: usize,
    slice: usize,
}

hsa! {
    /// A rectangular asynchronous copy (pitched source and destination).
    fn hsa_amd_memory_async_copy_rect(dst: *const PitchedPtr, dst_off: *const [u32; 3], src: *const PitchedPtr, src_off: *const [u32; 3], range: *const [u32; 3], _agent: u64, _dir: u32, num_deps: u32, deps: *const u64, completion: u64) -> Status {
        if dst.is_null() || src.is_null() || dst_off.is_null() || src_off.is_null() || range.is_null() {
            return INVALID_ARGUMENT;
        }
        with_rt(|rt| {
            wait_deps(rt, num_deps, deps);
            // SAFETY: non-null per the check above, valid per HSA's contract.
            let (d, s, doff, soff, r) = unsafe { (&*dst, &*src, *dst_off, *src_off, *range) };
            let mut status = SUCCESS;
            'rows: for z in 0..r[2] as usize {
                for y in 0..r[1] as usize {
                    let so = (soff[2] as usize + z) * s.slice + (soff[1] as usize + y) * s.pitch + soff[0] as usize;
                    let dof = (doff[2] as usize + z) * d.slice + (doff[1] as usize + y) * d.pitch + doff[0] as usize;
                    let (sa, da) = (s.base as u64 + so as u64, d.base as u64 + dof as u64);
                    // SAFETY: the program's ranges, valid per HSA's contract.
                    if let Err(e) = unsafe { rt.memory.copy(&rt.device, da, sa, r[0] as u64) } {
                        eprintln!("amdsim: hsa_amd_memory_async_copy_rect: {e}");
                        status = INVALID_ARGUMENT;
                        break 'rows;
                    }
                }
            }
            if completion != 0 {
                Signal(completion).update(&rt.notifier, |v| v - 1);
            }
            status
        })
    }
}

hsa! {
    /// Fills `count` dwords with `value`.
    fn hsa_amd_memory_fill(ptr: *mut c_void, value: u32, count: usize) -> Status {
        if ptr.is_null() && count != 0 {
            return INVALID_ARGUMENT;
        }
        with_rt(|rt| {
            // SAFETY: the program's range, valid per HSA's contract.
            match unsafe { rt.memory.fill_u32(&rt.device, ptr as u64, value, count as u64) } {
                Ok(()) => SUCCESS,
                Err(_) => INVALID_ARGUMENT,
            }
        })
    }
}

/// `hsa_amd_pointer_info_t`.
#[repr(C)]
pub struct PointerInfo {
    size: u32,
    kind: u32,
    agent_base: *mut c_void,
    host_base: *mut c_void,
    size_in_bytes: usize,
    user_data: *mut c_void,
    agent_owner: u64,
    global_flags: u32,
}

type AllocFn = unsafe extern "C" fn(usize) -> *mut c_void;

hsa! {
    /// What an address belongs to.
    fn hsa_amd_pointer_info(ptr: *const c_void, info: *mut PointerInfo, alloc: Option<AllocFn>, num_agents: *mut u32, accessible: *mut *mut u64) -> Status {
        if info.is_null() {
            return INVALID_ARGUMENT;
        }
        with_rt(|rt| {
            let a = rt.memory.find(ptr as u64);
            // SAFETY: checked non-null; `size` says how much the caller's struct holds.
            let cap = unsafe { (*info).size } as usize;
            let mut v = PointerInfo {
                size: std::mem::size_of::<PointerInfo>() as u32,
                kind: 0,
                agent_base: std::ptr::null_mut(),
                host_base: std::ptr::null_mut(),
                size_in_bytes: 0,
                user_data: std::ptr::null_mut(),
                agent_owner: 0,
                global_flags: 0,
            };
            let mut agents_of = vec![];
            if let Some(a) = a {
                v.kind = if a.kind == Kind::Locked { 2 } else { 1 };
                v.agent_base = a.base as *mut c_void;
                v.host_base = if a.kind == Kind::Device { std::ptr::null_mut() } else { a.base as *mut c_void };
                v.size_in_bytes = a.size as usize;
                v.user_data = rt.memory.user_data(a.base) as *mut c_void;
                let pool = a.pool.map(|i| agents::POOLS[i]);
                v.agent_owner = pool.map_or(CPU, |p| p.agent);
                v.global_flags = pool.map_or(2, |p| p.flags);
                agents_of = if a.kind == Kind::Device { vec![GPU] } else { vec![CPU, GPU] };
            }
            let n = cap.min(std::mem::size_of::<PointerInfo>());
            // SAFETY: the caller's struct holds `cap` bytes.
            unsafe { std::ptr::copy_nonoverlapping(&v as *const PointerInfo as *const u8, info as *mut u8, n) };
            if let (Some(alloc), false, false) = (alloc, num_agents.is_null(), accessible.is_null()) {
                // SAFETY: the program's allocator, and writable outputs.
                unsafe {
                    *num_agents = agents_of.len() as u32;
                    let out = alloc(agents_of.len().max(1) * 8) as *mut u64;
                    if !out.is_null() {
                        std::ptr::copy_nonoverlapping(agents_of.as_ptr(), out, agents_of.len());
                    }
                    *accessible = out;
                }
            }
            SUCCESS
        })
    }
}

hsa! {
    /// Attaches user data to an allocation (`hsa_amd_pointer_info` returns it).
    fn hsa_amd_pointer_info_set_userdata(ptr: *const c_void, data: *mut c_void) -> Status {
        with_rt(|rt| {
            if rt.memory.set_user_data(ptr as u64, data as u64) {
                SUCCESS
            } else {
                INVALID_ARGUMENT
            }
        })
    }
}

hsa! {
    /// Sets the coherency of an agent's memory: one coherent address space
    /// in the simulator, so any type is accepted.
    fn hsa_amd_coherency_set_type(agent: u64, _kind: u32) -> Status {
        if agent != GPU {
            return crate::INVALID_AGENT;
        }
        SUCCESS
    }
}

hsa! {
    /// The coherency of an agent's memory (coherent).
    fn hsa_amd_coherency_get_type(agent: u64, kind: *mut u32) -> Status {
        if agent != GPU {
            return crate::INVALID_AGENT;
        }
        if kind.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: checked non-null.
        unsafe { *kind = 0 }; // HSA_AMD_COHERENCY_TYPE_COHERENT
        SUCCESS
    }
}

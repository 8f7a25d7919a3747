//! Code object readers, executables and their symbols, and the AMD loader
//! extension table.

use crate::agents::GPU;
use crate::{
    INVALID_AGENT, INVALID_ARGUMENT, INVALID_CODE_OBJECT, INVALID_CODE_OBJECT_READER,
    INVALID_EXECUTABLE, INVALID_SYMBOL_NAME, SUCCESS, Status, put, with_rt, write_str,
};
use amdsim_host::loader::{Symbol, SymbolBody};
use amdsim_host::runtime::Executable;
use libc::{c_char, c_void};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

static READERS: Mutex<Option<HashMap<u64, Arc<Vec<u8>>>>> = Mutex::new(None);
static EXECUTABLES: Mutex<Option<HashMap<u64, Executable>>> = Mutex::new(None);
static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0x5000);

fn next_handle() -> u64 {
    NEXT.fetch_add(16, std::sync::atomic::Ordering::Relaxed)
}

fn readers() -> MutexGuard<'static, Option<HashMap<u64, Arc<Vec<u8>>>>> {
    READERS.lock().unwrap_or_else(|e| e.into_inner())
}

fn executables() -> MutexGuard<'static, Option<HashMap<u64, Executable>>> {
    EXECUTABLES.lock().unwrap_or_else(|e| e.into_inner())
}

fn new_reader(bytes: Vec<u8>, out: *mut u64) -> Status {
    let h = next_handle();
    readers().get_or_insert_default().insert(h, Arc::new(bytes));
    // SAFETY: checked non-null by the callers.
    unsafe { *out = h };
    SUCCESS
}

hsa! {
    /// A reader over a code object in memory.
    fn hsa_code_object_reader_create_from_memory(ptr: *const c_void, size: usize, out: *mut u64) -> Status {
        if ptr.is_null() || size == 0 || out.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: `size` readable bytes per HSA's contract.
        let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, size) }.to_vec();
        new_reader(bytes, out)
    }
}

hsa! {
    /// A reader over a code object file (read from the descriptor's offset).
    fn hsa_code_object_reader_create_from_file(fd: i32, out: *mut u64) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        let mut bytes = Vec::new();
        let mut buf = [0u8; 65536];
        loop {
            // SAFETY: a buffer of the given size.
            let n = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut c_void, buf.len()) };
            if n < 0 {
                return 0x1020; // HSA_STATUS_ERROR_INVALID_FILE
            }
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&buf[..n as usize]);
        }
        new_reader(bytes, out)
    }
}

hsa! {
    /// Destroys a reader.
    fn hsa_code_object_reader_destroy(r: u64) -> Status {
        match readers().get_or_insert_default().remove(&r) {
            Some(_) => SUCCESS,
            None => INVALID_CODE_OBJECT_READER,
        }
    }
}

fn new_executable(out: *mut u64) -> Status {
    if out.is_null() {
        return INVALID_ARGUMENT;
    }
    let h = next_handle();
    executables()
        .get_or_insert_default()
        .insert(h, Executable::default());
    // SAFETY: checked non-null.
    unsafe { *out = h };
    SUCCESS
}

hsa! {
    /// Creates an empty executable.
    fn hsa_executable_create_alt(_profile: u32, _rounding: u32, _options: *const c_char, out: *mut u64) -> Status {
        new_executable(out)
    }
}

hsa! {
    /// Creates an empty executable (older form).
    fn hsa_executable_create(_profile: u32, _state: u32, _options: *const c_char, out: *mut u64) -> Status {
        new_executable(out)
    }
}

hsa! {
    /// Destroys an executable. Its code stays mapped (kernels may still be
    /// referenced by packets in flight).
    fn hsa_executable_destroy(e: u64) -> Status {
        match executables().get_or_insert_default().remove(&e) {
            Some(_) => SUCCESS,
            None => INVALID_EXECUTABLE,
        }
    }
}

hsa! {
    /// Loads a code object for the GPU agent into an executable.
    fn hsa_executable_load_agent_code_object(e: u64, agent: u64, reader: u64, _options: *const c_char, loaded: *mut u64) -> Status {
        if agent != GPU {
            return INVALID_AGENT;
        }
        let Some(bytes) = readers().get_or_insert_default().get(&reader).cloned() else {
            return INVALID_CODE_OBJECT_READER;
        };
        with_rt(|rt| {
            let mut ex = executables();
            let Some(exe) = ex.get_or_insert_default().get_mut(&e) else {
                return INVALID_EXECUTABLE;
            };
            if exe.frozen {
                return 0x1012; // HSA_STATUS_ERROR_FROZEN_EXECUTABLE
            }
            match amdsim_host::loader::load(&rt.device, &bytes) {
                Ok(l) => {
                    rt.register(&l);
                    if !loaded.is_null() {
                        // SAFETY: checked non-null.
                        unsafe { *loaded = l.module.load_bias };
                    }
                    exe.loaded.push(l);
                    SUCCESS
                }
                Err(err) => {
                    eprintln!("amdsim: cannot load the code object: {err}");
                    INVALID_CODE_OBJECT
                }
            }
        })
    }
}

hsa! {
    /// Freezes an executable.
    fn hsa_executable_freeze(e: u64, _options: *const c_char) -> Status {
        match executables().get_or_insert_default().get_mut(&e) {
            Some(x) => {
                x.frozen = true;
                SUCCESS
            }
            None => INVALID_EXECUTABLE,
        }
    }
}

hsa! {
    /// Validates an executable (always valid once loaded).
    fn hsa_executable_validate(e: u64, result: *mut u32) -> Status {
        if result.is_null() {
            return INVALID_ARGUMENT;
        }
        if !executables().get_or_insert_default().contains_key(&e) {
            return INVALID_EXECUTABLE;
        }
        // SAFETY: checked non-null.
        unsafe { *result = 0 };
        SUCCESS
    }
}

hsa! {
    /// Validates an executable (alternative form).
    fn hsa_executable_validate_alt(e: u64, _options: *const c_char, result: *mut u32) -> Status {
        // SAFETY: forwarded.
        unsafe { hsa_executable_validate(e, result) }
    }
}

hsa! {
    /// Defines an external variable for an agent: the code objects amdsim
    /// loads carry their own definitions, so this records nothing.
    fn hsa_executable_agent_global_variable_define(e: u64, _agent: u64, name: *const c_char, _address: *mut c_void) -> Status {
        if name.is_null() {
            return INVALID_ARGUMENT;
        }
        if executables().get_or_insert_default().contains_key(&e) { SUCCESS } else { INVALID_EXECUTABLE }
    }
}

fn symbol_handle(s: &Arc<Symbol>) -> u64 {
    Arc::as_ptr(s) as u64
}

/// The symbol behind a handle, if some executable holds it.
fn symbol(h: u64) -> Option<Arc<Symbol>> {
    let ex = executables();
    ex.as_ref()?
        .values()
        .flat_map(|e| e.loaded.iter().flat_map(|l| l.symbols.iter()))
        .find(|s| symbol_handle(s) == h)
        .cloned()
}

hsa! {
    /// Finds a symbol by name.
    fn hsa_executable_get_symbol_by_name(e: u64, name: *const c_char, _agent: *const u64, out: *mut u64) -> Status {
        if name.is_null() || out.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: NUL-terminated per HSA's contract.
        let n = unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy().into_owned();
        let ex = executables();
        let Some(exe) = ex.as_ref().and_then(|m| m.get(&e)) else {
            return INVALID_EXECUTABLE;
        };
        match exe.loaded.iter().find_map(|l| l.symbol(&n)) {
            Some(s) => {
                // SAFETY: checked non-null.
                unsafe { *out = symbol_handle(s) };
                SUCCESS
            }
            None => INVALID_SYMBOL_NAME,
        }
    }
}

type SymCb = unsafe extern "C" fn(u64, u64, *mut c_void) -> Status;
type AgentSymCb = unsafe extern "C" fn(u64, u64, u64, *mut c_void) -> Status;

fn all_symbols(e: u64) -> Option<Vec<u64>> {
    let ex = executables();
    let exe = ex.as_ref()?.get(&e)?;
    Some(
        exe.loaded
            .iter()
            .flat_map(|l| l.symbols.iter().map(symbol_handle))
            .collect(),
    )
}

hsa! {
    /// Calls `cb` for each symbol of an executable.
    fn hsa_executable_iterate_symbols(e: u64, cb: Option<SymCb>, data: *mut c_void) -> Status {
        let Some(cb) = cb else { return INVALID_ARGUMENT };
        let Some(syms) = all_symbols(e) else { return INVALID_EXECUTABLE };
        for s in syms {
            // SAFETY: the program's callback.
            let st = unsafe { cb(e, s, data) };
            if st != SUCCESS {
                return st;
            }
        }
        SUCCESS
    }
}

hsa! {
    /// Calls `cb` for each agent symbol of an executable.
    fn hsa_executable_iterate_agent_symbols(e: u64, agent: u64, cb: Option<AgentSymCb>, data: *mut c_void) -> Status {
        let Some(cb) = cb else { return INVALID_ARGUMENT };
        let Some(syms) = all_symbols(e) else { return INVALID_EXECUTABLE };
        for s in syms {
            // SAFETY: the program's callback.
            let st = unsafe { cb(e, agent, s, data) };
            if st != SUCCESS {
                return st;
            }
        }
        SUCCESS
    }
}

hsa! {
    /// Calls `cb` for each program symbol (none: all symbols are the agent's).
    fn hsa_executable_iterate_program_symbols(e: u64, cb: Option<SymCb>, _data: *mut c_void) -> Status {
        if cb.is_none() {
            return INVALID_ARGUMENT;
        }
        if executables().get_or_insert_default().contains_key(&e) { SUCCESS } else { INVALID_EXECUTABLE }
    }
}

/// Writes a symbol attribute.
unsafe fn symbol_info(s: &Symbol, attr: u32, out: *mut c_void) -> Status {
    let name = s.name.as_str();
    // SAFETY: HSA's contract makes `out` writable for the attribute's type.
    unsafe {
        match (attr, &s.body) {
            (0, SymbolBody::Kernel(_)) => put(out, 1u32), // HSA_SYMBOL_KIND_KERNEL
            (0, SymbolBody::Variable(_)) => put(out, 0u32),
            (1, _) => put(out, name.len() as u32),
            (2, _) => {
                std::ptr::copy_nonoverlapping(name.as_ptr(), out as *mut u8, name.len());
            }
            (3, _) => put(out, 0u32),
            (4, _) => write_str(out, "", 1),
            (5, _) => put(out, 1u32), // HSA_SYMBOL_LINKAGE_PROGRAM
            (17, _) => put(out, true),
            (20, _) => put(out, GPU),
            (21, SymbolBody::Variable(v)) => put(out, v.address),
            (6, SymbolBody::Variable(_)) => put(out, 1u32), // ALLOCATION_AGENT
            (7, SymbolBody::Variable(_)) => put(out, 0u32), // SEGMENT_GLOBAL
            (8, SymbolBody::Variable(_)) => put(out, 8u32),
            (9, SymbolBody::Variable(v)) => put(out, v.size as u32),
            (10, SymbolBody::Variable(_)) => put(out, false),
            (22, SymbolBody::Kernel(k)) => put(out, k.object),
            (11, SymbolBody::Kernel(k)) => put(out, k.kernarg_size),
            (12, SymbolBody::Kernel(k)) => put(out, k.kernarg_align),
            (13, SymbolBody::Kernel(k)) => put(out, k.group_size),
            (14, SymbolBody::Kernel(k)) => put(out, k.private_size),
            (15, SymbolBody::Kernel(k)) => put(out, k.dynamic_callstack),
            (18, SymbolBody::Kernel(_)) => put(out, 0u32),
            _ => return INVALID_ARGUMENT,
        }
    }
    SUCCESS
}

hsa! {
    /// A symbol attribute.
    fn hsa_executable_symbol_get_info(sym: u64, attr: u32, out: *mut c_void) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        match symbol(sym) {
            // SAFETY: as HSA specifies.
            Some(s) => unsafe { symbol_info(&s, attr, out) },
            None => 0x1019, // HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL
        }
    }
}

/// `hsa_ven_amd_loader_query_host_address`: the host address of a device
/// address. In the simulator's one address space a code object's bytes are
/// device memory; the host cannot read them, so the loaded image's copy is
/// not offered and the call fails as ROCr's does for addresses it does not
/// know.
unsafe extern "C" fn query_host_address(device: *const c_void, host: *mut *const c_void) -> Status {
    if device.is_null() || host.is_null() {
        return INVALID_ARGUMENT;
    }
    with_rt(|rt| {
        if rt.memory.is_device(device as u64) {
            INVALID_ARGUMENT
        } else {
            // SAFETY: checked non-null; host memory is at the same address.
            unsafe { *host = device };
            SUCCESS
        }
    })
}

unsafe extern "C" fn loader_unsupported_3(
    _: *mut c_void,
    _: *mut c_void,
    _: *mut c_void,
) -> Status {
    crate::unsupported::say("the AMD loader extension's segment and executable queries");
    crate::ERROR
}

unsafe extern "C" fn loader_unsupported_2(_: *mut c_void, _: *mut c_void) -> Status {
    crate::unsupported::say("the AMD loader extension's executable queries");
    crate::ERROR
}

/// The AMD loader extension's function table (version 1.01 layout).
#[repr(C)]
pub struct LoaderTable {
    query_host_address: unsafe extern "C" fn(*const c_void, *mut *const c_void) -> Status,
    query_segment_descriptors:
        unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void) -> Status,
    query_executable: unsafe extern "C" fn(*mut c_void, *mut c_void) -> Status,
    iterate_loaded_code_objects:
        unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void) -> Status,
    loaded_code_object_get_info:
        unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_void) -> Status,
}

/// The loader table handed out by `hsa_system_get_major_extension_table`.
pub fn loader_table() -> LoaderTable {
    LoaderTable {
        query_host_address,
        query_segment_descriptors: loader_unsupported_3,
        query_executable: loader_unsupported_2,
        iterate_loaded_code_objects: loader_unsupported_3,
        loaded_code_object_get_info: loader_unsupported_3,
    }
}

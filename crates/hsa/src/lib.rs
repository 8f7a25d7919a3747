//! `libhsa-runtime64.so.1` over amdsim: every function ROCr 5.2 exports, under
//! its `ROCR_1` symbol version, so that the real HIP runtime (which links
//! ROCr directly) runs unmodified on the simulated GPU.
//!
//! This crate is only the C ABI: argument checking, pointer writes and
//! status codes. What the calls mean lives in `amdsim-host`. A function
//! amdsim does not provide returns `HSA_STATUS_ERROR` and says so on stderr,
//! once ([`unsupported`]).
//!
//! Each export is defined as `amdsim_NAME` and bound to `NAME@@ROCR_1` with a
//! `.symver` directive (rustc's own version script cannot carry versions).
//!
//! The crate depends on `amdsim-host` (what the calls mean), `amdgpu-sim`, and, for
//! `amdsim debug -- PROGRAM` and `amdsim lanes -- PROGRAM`, on the debugger and the lane
//! service; nothing in the workspace depends on it but the command-line tool, which
//! puts the built library on the program's library path.
#![deny(missing_docs)]
#![allow(clippy::missing_safety_doc)]

/// Defines an exported HSA function: `amdsim_NAME`, bound to `NAME@@ROCR_1`.
macro_rules! hsa {
    ($(#[$m:meta])* fn $name:ident($($a:ident: $t:ty),* $(,)?) $(-> $r:ty)? $body:block) => {
        $(#[$m])*
        #[unsafe(export_name = concat!("amdsim_", stringify!($name)))]
        pub unsafe extern "C" fn $name($($a: $t),*) $(-> $r)? $body
        #[cfg(not(test))]
        std::arch::global_asm!(concat!(
            ".symver amdsim_", stringify!($name), ", ", stringify!($name), "@@ROCR_1"
        ));
    };
}

/// Defines several exports with one body: the same operation under each of
/// the memory-order names ROCr exports (`_relaxed`, `_scacquire`, ...).
macro_rules! hsa_each {
    ($doc:literal [$($name:ident),+ $(,)?] $params:tt -> $r:ty $body:block) => {
        $( hsa! { #[doc = $doc] fn $name $params -> $r $body } )+
    };
}

pub mod agents;
pub mod debug;
pub mod exec;
pub mod images;
pub mod memory;
pub mod queues;
pub mod signals;
pub mod unsupported;

use amdsim_host::runtime::Runtime;
use std::sync::{Arc, Mutex};

/// `hsa_status_t`.
pub type Status = u32;
/// `HSA_STATUS_SUCCESS`.
pub const SUCCESS: Status = 0;
/// `HSA_STATUS_INFO_BREAK`: an iteration callback asked to stop.
pub const INFO_BREAK: Status = 1;
/// `HSA_STATUS_ERROR`.
pub const ERROR: Status = 0x1000;
/// `HSA_STATUS_ERROR_INVALID_ARGUMENT`.
pub const INVALID_ARGUMENT: Status = 0x1001;
/// `HSA_STATUS_ERROR_INVALID_AGENT`.
pub const INVALID_AGENT: Status = 0x1004;
/// `HSA_STATUS_ERROR_INVALID_SIGNAL`.
pub const INVALID_SIGNAL: Status = 0x1006;
/// `HSA_STATUS_ERROR_INVALID_QUEUE`.
pub const INVALID_QUEUE: Status = 0x1007;
/// `HSA_STATUS_ERROR_OUT_OF_RESOURCES`.
pub const OUT_OF_RESOURCES: Status = 0x1008;
/// `HSA_STATUS_ERROR_NOT_INITIALIZED`.
pub const NOT_INITIALIZED: Status = 0x100B;
/// `HSA_STATUS_ERROR_INVALID_INDEX`.
pub const INVALID_INDEX: Status = 0x100E;
/// `HSA_STATUS_ERROR_INVALID_CODE_OBJECT`.
pub const INVALID_CODE_OBJECT: Status = 0x1010;
/// `HSA_STATUS_ERROR_INVALID_EXECUTABLE`.
pub const INVALID_EXECUTABLE: Status = 0x1011;
/// `HSA_STATUS_ERROR_INVALID_SYMBOL_NAME`.
pub const INVALID_SYMBOL_NAME: Status = 0x1013;
/// `HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER`.
pub const INVALID_CODE_OBJECT_READER: Status = 0x1021;
/// `HSA_STATUS_ERROR_INVALID_MEMORY_POOL`.
pub const INVALID_MEMORY_POOL: Status = 40;

/// The runtime and how many `hsa_init` calls it has outstanding.
static RUNTIME: Mutex<Option<(Arc<Runtime>, u32)>> = Mutex::new(None);

/// The running runtime, if `hsa_init` was called.
pub fn runtime() -> Option<Arc<Runtime>> {
    RUNTIME
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|(r, _)| r.clone())
}

/// Runs `f` with the runtime, or returns `HSA_STATUS_ERROR_NOT_INITIALIZED`.
pub fn with_rt(f: impl FnOnce(&Arc<Runtime>) -> Status) -> Status {
    match runtime() {
        Some(rt) => f(&rt),
        None => NOT_INITIALIZED,
    }
}

hsa! {
    /// Starts the runtime (reference counted).
    fn hsa_init() -> Status {
        let mut g = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, n)) = g.as_mut() {
            *n += 1;
            return SUCCESS;
        }
        let settings = match amdsim_host::runtime::Settings::from_env() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("amdsim: {e}");
                return ERROR;
            }
        };
        match Runtime::new(settings) {
            Ok(rt) => {
                if let Err(e) = debug::install(&rt) {
                    eprintln!("amdsim: {e}");
                    return ERROR;
                }
                *g = Some((rt, 1));
                SUCCESS
            }
            Err(e) => {
                eprintln!("amdsim: {e}");
                ERROR
            }
        }
    }
}

hsa! {
    /// Drops one `hsa_init` reference. The runtime itself stays (the HIP
    /// runtime's threads may still hold handles at exit).
    fn hsa_shut_down() -> Status {
        let mut g = RUNTIME.lock().unwrap_or_else(|e| e.into_inner());
        match g.as_mut() {
            Some((_, n)) if *n > 0 => {
                *n -= 1;
                SUCCESS
            }
            _ => NOT_INITIALIZED,
        }
    }
}

/// Copies `s` NUL-terminated into a `char[cap]` output.
///
/// # Safety
/// `out` must be writable for `cap` bytes.
pub unsafe fn write_str(out: *mut libc::c_void, s: &str, cap: usize) {
    let b = s.as_bytes();
    let n = b.len().min(cap - 1);
    // SAFETY: per the function's contract.
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), out as *mut u8, n);
        std::ptr::write_bytes((out as *mut u8).add(n), 0, cap - n);
    }
}

/// Writes a plain value to an output pointer.
///
/// # Safety
/// `out` must be writable for a `T`.
pub unsafe fn put<T>(out: *mut libc::c_void, v: T) {
    // SAFETY: per the function's contract (outputs need not be aligned).
    unsafe { (out as *mut T).write_unaligned(v) }
}

/// The text of each status code (`hsa_status_string`), NUL-terminated.
fn status_text(s: Status) -> &'static [u8] {
    match s {
        0 => b"HSA_STATUS_SUCCESS: The function has been executed successfully.\0",
        1 => b"HSA_STATUS_INFO_BREAK: A traversal over a list of elements has been interrupted by the application before completing.\0",
        0x1000 => b"HSA_STATUS_ERROR: A generic error has occurred.\0",
        0x1001 => b"HSA_STATUS_ERROR_INVALID_ARGUMENT: One of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument.\0",
        0x1004 => b"HSA_STATUS_ERROR_INVALID_AGENT: The agent is invalid.\0",
        0x1006 => b"HSA_STATUS_ERROR_INVALID_SIGNAL: The signal is invalid.\0",
        0x1007 => b"HSA_STATUS_ERROR_INVALID_QUEUE: The queue is invalid.\0",
        0x1008 => b"HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\0",
        0x1009 => b"HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: The AQL packet is malformed.\0",
        0x100B => b"HSA_STATUS_ERROR_NOT_INITIALIZED: An API other than hsa_init has been invoked while the reference count of the HSA runtime is zero.\0",
        0x1010 => b"HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid.\0",
        0x1011 => b"HSA_STATUS_ERROR_INVALID_EXECUTABLE: The executable is invalid.\0",
        0x1013 => b"HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: There is no symbol with the given name.\0",
        0x1016 => b"HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception.\0",
        41 => b"HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The memory access violated the aperture bounds.\0",
        42 => b"HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an illegal shader instruction.\0",
        43 => b"HSA_STATUS_ERROR_MEMORY_FAULT: The agent attempted to access memory beyond the largest legal address.\0",
        _ => b"HSA_STATUS_ERROR: an error amdsim has no text for.\0",
    }
}

hsa! {
    /// The text of a status code.
    fn hsa_status_string(status: Status, out: *mut *const libc::c_char) -> Status {
        if out.is_null() {
            return INVALID_ARGUMENT;
        }
        // SAFETY: checked non-null; HSA's contract makes it writable.
        unsafe { *out = status_text(status).as_ptr() as *const libc::c_char };
        SUCCESS
    }
}

//! AMDGPU wave interpreter: executes GFX9 (gfx900, gfx906, gfx908, gfx90a) and
//! GFX10 (gfx1010, gfx1030; wave32 and wave64) code objects as the LLVM
//! toolchain produces them.
//!
//! - [`memory`]: memory (sparse paged global memory, host memory mapped into it, LDS,
//!   dword-swizzled scratch) and flat address classification;
//! - [`wave`]: the architectural state of a wave (register-major VGPRs);
//! - [`alu`]: pure per-lane ALU semantics;
//! - [`exec`]: the executor over the pre-decoded program;
//! - [`dispatch`]: code object loading, kernarg/AQL set-up, initial register
//!   state, work-groups on rayon;
//! - [`debug`]: breakpoints, single-stepping and state inspection;
//! - [`memory::gds`]: the global data share (GDS memory, GWS resources, the ordered
//!   count);
//! - [`coverage`]: which operations of a GPU's instruction set execute.
//!
//! # What the crate owns
//!
//! The device: wave state, memory (global, LDS, GDS, scratch), the executor, the
//! dispatch ABI (kernarg segment, AQL packet, initial registers), the work-group
//! scheduler and the stepping hooks. What a runtime does around it (dispatch files, the
//! printf buffer's text, image objects, capture and replay, the HSA API) is the host's
//! (`amdsim-host`), which builds on this crate. The crate depends on the instruction
//! model (`amdgpu-isa`) and the code object reader (`amdgpu-codeobj`) only; it knows
//! nothing of DWARF, lanes, the host or any front end. Inside, types come before the
//! code that uses them: no module imports one that imports it back (memory, with the
//! GDS, below the wave; the wave below the executor; the executor below the dispatch;
//! the dispatch below the stepping session).
//!
//! # Conventions the simulator chooses
//!
//! - **Address map.** Allocations start at [`memory::HEAP_BASE`], page
//!   aligned, separated by unmapped guard pages (an access past an
//!   allocation's last byte faults, whatever the page); code objects are mapped at a
//!   load bias from `0x7f00_0000_0000`. The LDS aperture is
//!   [`memory::SHARED_BASE`] and the private aperture [`memory::PRIVATE_BASE`]
//!   (what `src_shared_base` / `src_private_base` and the v5 hidden arguments
//!   `hidden_shared_base` / `hidden_private_base` report); a FLAT address is
//!   classified per lane.
//! - **Scratch.** Each wave owns its private memory, stored swizzled
//!   (`(addr / 4) * wave_size * 4 + lane * 4 + addr % 4`). The private segment
//!   buffer V# points at [`memory::SCRATCH_BACKING`] with ADD_TID_ENABLE,
//!   element size 4 and index stride = wave size, and the wave offset SGPR is
//!   0, so MUBUF scratch accesses and FLAT/SCRATCH accesses see the same bytes.
//! - **Dispatch.** The kernarg segment is built from the metadata; the hidden
//!   arguments listed in [`dispatch::HIDDEN_FILLED`] are computed, the others
//!   are zero. The dispatch pointer points at a real AQL packet, the queue
//!   pointer at a zeroed 256-byte block.
//! - **Floating point.** Round to nearest even; any other MODE.FP_ROUND is
//!   reported as [`SimError::Unsupported`]. MODE.FP_DENORM (initialised from
//!   the descriptor's `FLOAT_DENORM_MODE_*`, changeable with `s_setreg`)
//!   flushes f32 and f64 input/output denormals of VALU operations when it
//!   says so. Transcendentals (`v_rcp`, `v_rsq`, `v_sqrt`, `v_exp`, `v_log`,
//!   `v_sin`, `v_cos`) are computed correctly rounded (or with the host's
//!   libm), not with the hardware's approximations; f16 arithmetic is computed
//!   in f64 and rounded once.
//! - **Memory model.** Instructions complete in order, so `s_waitcnt` and the
//!   cache-control instructions are no-ops. Work-groups run in parallel;
//!   results do not depend on the thread count except for the order in which
//!   global atomics of different work-groups apply. Within a wave, lanes
//!   access memory in lane order.
//! - **Sharing with the host.** A [`Device`] is `Sync` and maps, frees and
//!   loads through `&self`, so host threads allocate and free while
//!   dispatches run. [`GlobalMemory::map_host`] maps host memory of the
//!   process at its own address (below [`memory::ADDRESS_LIMIT`]): the
//!   simulator reaches it only with atomic operations, one per naturally
//!   aligned piece (loads Acquire, stores Release, read-modify-writes SeqCst
//!   compare-exchange loops), so host threads may update the same words with
//!   their own atomics while waves run. A page is locked for each access;
//!   freeing it waits for accesses in progress, and later accesses fault as
//!   unmapped.
//! - **Global data share.** [`memory::gds`]: 64 KiB of GDS memory per device (the
//!   `gds` forms of the DS instructions address all of it; `ds_append`,
//!   `ds_consume` and `ds_ordered_count` at `M0[15:0] + offset`), the 64 GWS
//!   resources, and the ordered count in wave-creation order. A kernel that
//!   uses GWS or the ordered count runs with every work-group resident at
//!   once, on one thread, so that its waves can wait on each other.
//! - **Not modelled** (reported as [`SimError::Unimplemented`] or
//!   [`SimError::Unsupported`]): image sampling, tiled images and mip chains
//!   (image loads, stores and atomics by integer coordinates execute on
//!   linear images, level 0), EXP, VINTRP, scalar scratch
//!   (`s_scratch_*`), MTBUF formats other than 32-bit UINT/SINT/FLOAT
//!   components, and MFMA with a partial EXEC. [`coverage::Report`] lists,
//!   per GPU, every operation the executor does not execute and why. There is no trap handler:
//!   `s_trap` ends the wave with [`SimError::Trap`] and its trap id,
//!   `s_sethalt 1` with [`SimError::Halted`], GFX10's `v_illegal` with
//!   [`SimError::IllegalInstruction`].
#![deny(missing_docs)]

pub mod alu;
pub mod coverage;
pub mod debug;
pub mod dispatch;
pub mod error;
pub mod exec;
pub mod memory;
pub mod wave;

pub use dispatch::{
    ArgValue, Device, GroupFault, KernelInfo, Launch, LaunchConfig, Module, RunOptions, RunReport,
    Stats, Stopped, WaveAt, Workgroup,
};
pub use error::{DispatchError, FaultKind, Location, MemFault, SimError, Space};
pub use memory::gds::Wait;
pub use memory::{FlatTarget, GlobalMemory};
pub use wave::{Mask, OrderedTurn, Wave, WaveStatus};

//! What a dispatch is: the kernel's arguments and sizes ([`LaunchConfig`]), the prepared
//! dispatch in memory ([`Launch`]) and a work-group's state ([`Workgroup`]), with the limits
//! a launch is checked against.

use super::load::KernelInfo;
use crate::exec::Prepared;
use crate::memory::Bytes;
use crate::wave::Wave;
use amdgpu_codeobj::PrintfFormat;
use amdgpu_isa::{Gpu, Program};
use std::sync::Arc;

/// The largest kernarg segment accepted.
pub const MAX_KERNARG: u64 = 1 << 20;

/// The most LDS a work-group can have (64 KiB on GFX9 and GFX10).
pub const MAX_LDS: u64 = 64 << 10;

/// The most private memory per work-item the simulator provides.
pub const MAX_PRIVATE: u64 = 1 << 20;

/// The most work-groups one dispatch may have (2^40: far more than a
/// simulated dispatch can run, and small enough to count in a `u64`).
pub const MAX_GROUPS: u64 = 1 << 40;

/// A value for one explicit kernel argument, in metadata order.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// A pointer (global buffer, or any 64-bit address).
    Ptr(u64),
    /// A 32-bit integer.
    U32(u32),
    /// A 32-bit signed integer.
    I32(i32),
    /// A 64-bit integer.
    U64(u64),
    /// A 32-bit float.
    F32(f32),
    /// A 64-bit float.
    F64(f64),
    /// Raw bytes (structs by value), copied as given.
    Bytes(Vec<u8>),
}

impl ArgValue {
    /// The argument's bytes in the kernarg segment (little-endian).
    pub(super) fn bytes(&self) -> Vec<u8> {
        match self {
            ArgValue::Ptr(v) | ArgValue::U64(v) => v.to_le_bytes().to_vec(),
            ArgValue::U32(v) => v.to_le_bytes().to_vec(),
            ArgValue::I32(v) => v.to_le_bytes().to_vec(),
            ArgValue::F32(v) => v.to_le_bytes().to_vec(),
            ArgValue::F64(v) => v.to_le_bytes().to_vec(),
            ArgValue::Bytes(b) => b.clone(),
        }
    }
}

/// How to launch a kernel.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// Grid size in work-items (x, y, z), like the AQL packet's `grid_size`.
    pub grid: [u32; 3],
    /// Work-group size in work-items.
    pub group: [u32; 3],
    /// Explicit arguments, in order.
    pub args: Vec<ArgValue>,
    /// Per-wave instruction cap (runaway loops end with an error).
    pub max_instructions: u64,
    /// Private bytes per lane beyond the descriptor's fixed size (the
    /// dynamic stack of kernels that call functions).
    pub extra_private: u32,
    /// Dynamic LDS bytes added to the group segment.
    pub dynamic_lds: u32,
    /// The work dimension (1-3) the kernel sees (`get_work_dim`, the AQL
    /// packet's dimensions); `None`: the highest dimension whose grid or
    /// work-group size exceeds 1.
    pub dimensions: Option<u32>,
    /// The global offset (x, y, z) the kernel sees in its
    /// `hidden_global_offset_*` arguments (`get_global_offset`; added to
    /// `get_global_id`).
    pub global_offset: [u64; 3],
    /// The kernarg segment as given, hidden arguments included (a captured
    /// dispatch replayed), instead of one built from `args` and the metadata.
    pub raw_kernarg: Option<Vec<u8>>,
}

impl LaunchConfig {
    /// A 1-D launch.
    pub fn new_1d(grid: u32, group: u32, args: Vec<ArgValue>) -> Self {
        LaunchConfig {
            grid: [grid, 1, 1],
            group: [group, 1, 1],
            args,
            max_instructions: 50_000_000,
            extra_private: 0,
            dynamic_lds: 0,
            dimensions: None,
            global_offset: [0; 3],
            raw_kernarg: None,
        }
    }
}

/// A prepared dispatch: memory set up, ready to create work-groups. A clone
/// describes the same dispatch (over the same memory).
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel.
    pub kernel: KernelInfo,
    /// The module's GPU.
    pub gpu: Gpu,
    /// The decoded program.
    pub program: Arc<Program>,
    /// The program prepared for execution (the module's).
    pub prepared: Arc<Prepared>,
    /// The configuration.
    pub config: LaunchConfig,
    /// Guest address of the kernarg segment.
    pub kernarg: u64,
    /// Guest address of the AQL dispatch packet.
    pub packet: u64,
    /// Guest address of the (zeroed) queue structure.
    pub queue: u64,
    /// Work-groups in each dimension.
    pub groups: [u32; 3],
    /// Lanes per wave.
    pub wave_size: u32,
    /// Guest address of the printf buffer, when the kernel takes one.
    pub printf_buffer: Option<u64>,
    /// The code object's printf formats.
    pub printf_formats: Arc<Vec<PrintfFormat>>,
    /// The guest addresses the code object's image occupies.
    pub image: std::ops::Range<u64>,
}

/// The state of one work-group: its waves and its LDS.
#[derive(Clone, Debug)]
pub struct Workgroup {
    /// Work-group id.
    pub id: [u32; 3],
    /// The waves, in order.
    pub waves: Vec<Wave>,
    /// The group's LDS.
    pub lds: Bytes,
}

impl Launch {
    /// The id of work-group `n` of the grid, numbered x fastest, then y, then z.
    pub fn group_id(&self, n: u64) -> [u32; 3] {
        let [gx, gy, _] = self.groups.map(|g| u64::from(g.max(1)));
        [
            (n % gx) as u32,
            ((n / gx) % gy) as u32,
            (n / (gx * gy)) as u32,
        ]
    }
}

//! The 64-byte kernel descriptor (`NAME.kd`), fully decoded and re-encodable.
//!
//! Layout: AMDGPU usage guide, "Kernel Descriptor" (table "Kernel Descriptor
//! for GFX6-GFX11"), "compute_pgm_rsrc1 for GFX6-GFX11", "compute_pgm_rsrc2
//! for GFX6-GFX11", "compute_pgm_rsrc3 for GFX90A, GFX940" and
//! "compute_pgm_rsrc3 for GFX10-GFX11". The seed copy of that guide predates
//! `KERNARG_SIZE` (bytes 8..12), `USES_DYNAMIC_STACK` (bit 11 of the
//! properties) and the kernarg preload field (bytes 58..60); those follow
//! LLVM 19's `AMDHSAKernelDescriptor.h`, which is what clang-19 and
//! llvm-mc-19 write.
//!
//! Every field is decoded, including the bits documented as reserved, so that
//! [`KernelDescriptor::to_bytes`] reproduces the original bytes exactly.

use crate::Error;
use amdgpu_isa::{Gen, Processor};

/// Size of a kernel descriptor in bytes.
pub const KERNEL_DESCRIPTOR_SIZE: usize = 64;

/// Extracts `width` bits of `v` starting at bit `lo`.
fn bits(v: u32, lo: u32, width: u32) -> u32 {
    (v >> lo) & ((1u32 << width) - 1)
}

/// Inserts `field` (truncated to `width` bits) at bit `lo`.
fn put(field: u32, lo: u32, width: u32) -> u32 {
    (field & ((1u32 << width) - 1)) << lo
}

fn bit(v: u32, lo: u32) -> bool {
    bits(v, lo, 1) != 0
}

/// `COMPUTE_PGM_RSRC1`: register counts, float modes and execution modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ComputePgmRsrc1 {
    /// Bits 5:0, `GRANULATED_WORKITEM_VGPR_COUNT`: VGPR blocks minus one.
    pub granulated_workitem_vgpr_count: u8,
    /// Bits 9:6, `GRANULATED_WAVEFRONT_SGPR_COUNT`: SGPR blocks minus one
    /// (GFX9); reserved, 0, on GFX10 (128 SGPRs always allocated).
    pub granulated_wavefront_sgpr_count: u8,
    /// Bits 11:10, `PRIORITY` (must be 0).
    pub priority: u8,
    /// Bits 13:12, `FLOAT_ROUND_MODE_32` (0 nearest even, 1 +inf, 2 -inf, 3 zero).
    pub float_round_mode_32: u8,
    /// Bits 15:14, `FLOAT_ROUND_MODE_16_64`.
    pub float_round_mode_16_64: u8,
    /// Bits 17:16, `FLOAT_DENORM_MODE_32` (0 flush src+dst, 1 flush dst, 2 flush src, 3 none).
    pub float_denorm_mode_32: u8,
    /// Bits 19:18, `FLOAT_DENORM_MODE_16_64`.
    pub float_denorm_mode_16_64: u8,
    /// Bit 20, `PRIV` (must be 0).
    pub priv_: bool,
    /// Bit 21, `ENABLE_DX10_CLAMP`.
    pub enable_dx10_clamp: bool,
    /// Bit 22, `DEBUG_MODE` (must be 0).
    pub debug_mode: bool,
    /// Bit 23, `ENABLE_IEEE_MODE`.
    pub enable_ieee_mode: bool,
    /// Bit 24, `BULKY` (must be 0).
    pub bulky: bool,
    /// Bit 25, `CDBG_USER` (must be 0).
    pub cdbg_user: bool,
    /// Bit 26, `FP16_OVFL` (GFX9+).
    pub fp16_ovfl: bool,
    /// Bits 28:27, reserved.
    pub reserved: u8,
    /// Bit 29, `WGP_MODE` (GFX10+; reserved on GFX9).
    pub wgp_mode: bool,
    /// Bit 30, `MEM_ORDERED` (GFX10+; reserved on GFX9).
    pub mem_ordered: bool,
    /// Bit 31, `FWD_PROGRESS` (GFX10+; reserved on GFX9).
    pub fwd_progress: bool,
}

impl ComputePgmRsrc1 {
    /// Decodes the register value.
    pub fn from_bits(v: u32) -> Self {
        ComputePgmRsrc1 {
            granulated_workitem_vgpr_count: bits(v, 0, 6) as u8,
            granulated_wavefront_sgpr_count: bits(v, 6, 4) as u8,
            priority: bits(v, 10, 2) as u8,
            float_round_mode_32: bits(v, 12, 2) as u8,
            float_round_mode_16_64: bits(v, 14, 2) as u8,
            float_denorm_mode_32: bits(v, 16, 2) as u8,
            float_denorm_mode_16_64: bits(v, 18, 2) as u8,
            priv_: bit(v, 20),
            enable_dx10_clamp: bit(v, 21),
            debug_mode: bit(v, 22),
            enable_ieee_mode: bit(v, 23),
            bulky: bit(v, 24),
            cdbg_user: bit(v, 25),
            fp16_ovfl: bit(v, 26),
            reserved: bits(v, 27, 2) as u8,
            wgp_mode: bit(v, 29),
            mem_ordered: bit(v, 30),
            fwd_progress: bit(v, 31),
        }
    }

    /// Encodes the register value.
    pub fn to_bits(&self) -> u32 {
        put(self.granulated_workitem_vgpr_count.into(), 0, 6)
            | put(self.granulated_wavefront_sgpr_count.into(), 6, 4)
            | put(self.priority.into(), 10, 2)
            | put(self.float_round_mode_32.into(), 12, 2)
            | put(self.float_round_mode_16_64.into(), 14, 2)
            | put(self.float_denorm_mode_32.into(), 16, 2)
            | put(self.float_denorm_mode_16_64.into(), 18, 2)
            | put(self.priv_.into(), 20, 1)
            | put(self.enable_dx10_clamp.into(), 21, 1)
            | put(self.debug_mode.into(), 22, 1)
            | put(self.enable_ieee_mode.into(), 23, 1)
            | put(self.bulky.into(), 24, 1)
            | put(self.cdbg_user.into(), 25, 1)
            | put(self.fp16_ovfl.into(), 26, 1)
            | put(self.reserved.into(), 27, 2)
            | put(self.wgp_mode.into(), 29, 1)
            | put(self.mem_ordered.into(), 30, 1)
            | put(self.fwd_progress.into(), 31, 1)
    }
}

/// `COMPUTE_PGM_RSRC2`: system SGPR/VGPR enables, user SGPR count, LDS and exceptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ComputePgmRsrc2 {
    /// Bit 0, `ENABLE_PRIVATE_SEGMENT` (the SGPR private segment wavefront offset; SCRATCH_EN).
    pub enable_private_segment: bool,
    /// Bits 5:1, `USER_SGPR_COUNT`.
    pub user_sgpr_count: u8,
    /// Bit 6, `ENABLE_TRAP_HANDLER` (must be 0; set by CP).
    pub enable_trap_handler: bool,
    /// Bit 7, `ENABLE_SGPR_WORKGROUP_ID_X`.
    pub enable_sgpr_workgroup_id_x: bool,
    /// Bit 8, `ENABLE_SGPR_WORKGROUP_ID_Y`.
    pub enable_sgpr_workgroup_id_y: bool,
    /// Bit 9, `ENABLE_SGPR_WORKGROUP_ID_Z`.
    pub enable_sgpr_workgroup_id_z: bool,
    /// Bit 10, `ENABLE_SGPR_WORKGROUP_INFO`.
    pub enable_sgpr_workgroup_info: bool,
    /// Bits 12:11, `ENABLE_VGPR_WORKITEM_ID`: 0 X, 1 X and Y, 2 X, Y and Z.
    pub enable_vgpr_workitem_id: u8,
    /// Bit 13, `ENABLE_EXCEPTION_ADDRESS_WATCH` (must be 0).
    pub enable_exception_address_watch: bool,
    /// Bit 14, `ENABLE_EXCEPTION_MEMORY` (must be 0).
    pub enable_exception_memory: bool,
    /// Bits 23:15, `GRANULATED_LDS_SIZE` (must be 0; CP uses the dispatch packet).
    pub granulated_lds_size: u16,
    /// Bit 24, `ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION`.
    pub enable_exception_ieee_754_fp_invalid_operation: bool,
    /// Bit 25, `ENABLE_EXCEPTION_FP_DENORMAL_SOURCE`.
    pub enable_exception_fp_denormal_source: bool,
    /// Bit 26, `ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO`.
    pub enable_exception_ieee_754_fp_division_by_zero: bool,
    /// Bit 27, `ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW`.
    pub enable_exception_ieee_754_fp_overflow: bool,
    /// Bit 28, `ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW`.
    pub enable_exception_ieee_754_fp_underflow: bool,
    /// Bit 29, `ENABLE_EXCEPTION_IEEE_754_FP_INEXACT`.
    pub enable_exception_ieee_754_fp_inexact: bool,
    /// Bit 30, `ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO`.
    pub enable_exception_int_divide_by_zero: bool,
    /// Bit 31, reserved.
    pub reserved: bool,
}

impl ComputePgmRsrc2 {
    /// Decodes the register value.
    pub fn from_bits(v: u32) -> Self {
        ComputePgmRsrc2 {
            enable_private_segment: bit(v, 0),
            user_sgpr_count: bits(v, 1, 5) as u8,
            enable_trap_handler: bit(v, 6),
            enable_sgpr_workgroup_id_x: bit(v, 7),
            enable_sgpr_workgroup_id_y: bit(v, 8),
            enable_sgpr_workgroup_id_z: bit(v, 9),
            enable_sgpr_workgroup_info: bit(v, 10),
            enable_vgpr_workitem_id: bits(v, 11, 2) as u8,
            enable_exception_address_watch: bit(v, 13),
            enable_exception_memory: bit(v, 14),
            granulated_lds_size: bits(v, 15, 9) as u16,
            enable_exception_ieee_754_fp_invalid_operation: bit(v, 24),
            enable_exception_fp_denormal_source: bit(v, 25),
            enable_exception_ieee_754_fp_division_by_zero: bit(v, 26),
            enable_exception_ieee_754_fp_overflow: bit(v, 27),
            enable_exception_ieee_754_fp_underflow: bit(v, 28),
            enable_exception_ieee_754_fp_inexact: bit(v, 29),
            enable_exception_int_divide_by_zero: bit(v, 30),
            reserved: bit(v, 31),
        }
    }

    /// Encodes the register value.
    pub fn to_bits(&self) -> u32 {
        put(self.enable_private_segment.into(), 0, 1)
            | put(self.user_sgpr_count.into(), 1, 5)
            | put(self.enable_trap_handler.into(), 6, 1)
            | put(self.enable_sgpr_workgroup_id_x.into(), 7, 1)
            | put(self.enable_sgpr_workgroup_id_y.into(), 8, 1)
            | put(self.enable_sgpr_workgroup_id_z.into(), 9, 1)
            | put(self.enable_sgpr_workgroup_info.into(), 10, 1)
            | put(self.enable_vgpr_workitem_id.into(), 11, 2)
            | put(self.enable_exception_address_watch.into(), 13, 1)
            | put(self.enable_exception_memory.into(), 14, 1)
            | put(self.granulated_lds_size.into(), 15, 9)
            | put(
                self.enable_exception_ieee_754_fp_invalid_operation.into(),
                24,
                1,
            )
            | put(self.enable_exception_fp_denormal_source.into(), 25, 1)
            | put(
                self.enable_exception_ieee_754_fp_division_by_zero.into(),
                26,
                1,
            )
            | put(self.enable_exception_ieee_754_fp_overflow.into(), 27, 1)
            | put(self.enable_exception_ieee_754_fp_underflow.into(), 28, 1)
            | put(self.enable_exception_ieee_754_fp_inexact.into(), 29, 1)
            | put(self.enable_exception_int_divide_by_zero.into(), 30, 1)
            | put(self.reserved.into(), 31, 1)
    }
}

/// `COMPUTE_PGM_RSRC3`, whose layout depends on the processor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComputePgmRsrc3 {
    /// GFX9 other than gfx90a: reserved, must be 0 (the raw value is kept).
    Gfx9 {
        /// The whole (reserved) register value.
        reserved: u32,
    },
    /// gfx90a ("compute_pgm_rsrc3 for GFX90A, GFX940").
    Gfx90a {
        /// Bits 5:0, `ACCUM_OFFSET`: first AGPR of the unified register file,
        /// in units of 4 registers, minus one.
        accum_offset: u8,
        /// Bits 15:6, reserved.
        reserved0: u16,
        /// Bit 16, `TG_SPLIT`: waves of a work-group may run on different CUs.
        tg_split: bool,
        /// Bits 31:17, reserved.
        reserved1: u16,
    },
    /// GFX10 ("compute_pgm_rsrc3 for GFX10-GFX11").
    Gfx10 {
        /// Bits 3:0, `SHARED_VGPR_COUNT`: shared VGPRs of a wave64, granule 8.
        shared_vgpr_count: u8,
        /// Bits 31:4, reserved on GFX10 (GFX11 fields), shifted down by 4.
        reserved: u32,
    },
}

impl ComputePgmRsrc3 {
    /// Decodes the register value with the layout of `gpu`.
    pub fn from_bits(v: u32, gpu: Processor) -> Self {
        if gpu.has_gfx90a_insts() {
            ComputePgmRsrc3::Gfx90a {
                accum_offset: bits(v, 0, 6) as u8,
                reserved0: bits(v, 6, 10) as u16,
                tg_split: bit(v, 16),
                reserved1: bits(v, 17, 15) as u16,
            }
        } else {
            match gpu.generation() {
                Gen::Gfx9 => ComputePgmRsrc3::Gfx9 { reserved: v },
                Gen::Gfx10 => ComputePgmRsrc3::Gfx10 {
                    shared_vgpr_count: bits(v, 0, 4) as u8,
                    reserved: bits(v, 4, 28),
                },
            }
        }
    }

    /// Encodes the register value.
    pub fn to_bits(&self) -> u32 {
        match *self {
            ComputePgmRsrc3::Gfx9 { reserved } => reserved,
            ComputePgmRsrc3::Gfx90a {
                accum_offset,
                reserved0,
                tg_split,
                reserved1,
            } => {
                put(accum_offset.into(), 0, 6)
                    | put(reserved0.into(), 6, 10)
                    | put(tg_split.into(), 16, 1)
                    | put(reserved1.into(), 17, 15)
            }
            ComputePgmRsrc3::Gfx10 {
                shared_vgpr_count,
                reserved,
            } => put(shared_vgpr_count.into(), 0, 4) | put(reserved, 4, 28),
        }
    }
}

/// The `kernel_code_properties` half-word (descriptor bits 463:448): which
/// user SGPRs the CP sets up, the wave size and dynamic stack use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelCodeProperties {
    /// Bit 0, `ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER` (4 SGPRs).
    pub enable_sgpr_private_segment_buffer: bool,
    /// Bit 1, `ENABLE_SGPR_DISPATCH_PTR` (2 SGPRs).
    pub enable_sgpr_dispatch_ptr: bool,
    /// Bit 2, `ENABLE_SGPR_QUEUE_PTR` (2 SGPRs).
    pub enable_sgpr_queue_ptr: bool,
    /// Bit 3, `ENABLE_SGPR_KERNARG_SEGMENT_PTR` (2 SGPRs).
    pub enable_sgpr_kernarg_segment_ptr: bool,
    /// Bit 4, `ENABLE_SGPR_DISPATCH_ID` (2 SGPRs).
    pub enable_sgpr_dispatch_id: bool,
    /// Bit 5, `ENABLE_SGPR_FLAT_SCRATCH_INIT` (2 SGPRs).
    pub enable_sgpr_flat_scratch_init: bool,
    /// Bit 6, `ENABLE_SGPR_PRIVATE_SEGMENT_SIZE` (1 SGPR).
    pub enable_sgpr_private_segment_size: bool,
    /// Bits 9:7, reserved.
    pub reserved0: u8,
    /// Bit 10, `ENABLE_WAVEFRONT_SIZE32` (GFX10+; reserved on GFX9).
    pub enable_wavefront_size32: bool,
    /// Bit 11, `USES_DYNAMIC_STACK`.
    pub uses_dynamic_stack: bool,
    /// Bits 15:12, reserved.
    pub reserved1: u8,
}

impl KernelCodeProperties {
    /// Decodes the half-word.
    pub fn from_bits(v: u16) -> Self {
        let v = u32::from(v);
        KernelCodeProperties {
            enable_sgpr_private_segment_buffer: bit(v, 0),
            enable_sgpr_dispatch_ptr: bit(v, 1),
            enable_sgpr_queue_ptr: bit(v, 2),
            enable_sgpr_kernarg_segment_ptr: bit(v, 3),
            enable_sgpr_dispatch_id: bit(v, 4),
            enable_sgpr_flat_scratch_init: bit(v, 5),
            enable_sgpr_private_segment_size: bit(v, 6),
            reserved0: bits(v, 7, 3) as u8,
            enable_wavefront_size32: bit(v, 10),
            uses_dynamic_stack: bit(v, 11),
            reserved1: bits(v, 12, 4) as u8,
        }
    }

    /// Encodes the half-word.
    pub fn to_bits(&self) -> u16 {
        let v = put(self.enable_sgpr_private_segment_buffer.into(), 0, 1)
            | put(self.enable_sgpr_dispatch_ptr.into(), 1, 1)
            | put(self.enable_sgpr_queue_ptr.into(), 2, 1)
            | put(self.enable_sgpr_kernarg_segment_ptr.into(), 3, 1)
            | put(self.enable_sgpr_dispatch_id.into(), 4, 1)
            | put(self.enable_sgpr_flat_scratch_init.into(), 5, 1)
            | put(self.enable_sgpr_private_segment_size.into(), 6, 1)
            | put(self.reserved0.into(), 7, 3)
            | put(self.enable_wavefront_size32.into(), 10, 1)
            | put(self.uses_dynamic_stack.into(), 11, 1)
            | put(self.reserved1.into(), 12, 4);
        // Every field above lies within bits 15:0.
        (v & 0xffff) as u16
    }

    /// Number of user SGPRs the enabled fields occupy, in the order of
    /// "Initial Kernel Execution State" (buffer 4, dispatch ptr 2, queue ptr 2,
    /// kernarg ptr 2, dispatch id 2, flat scratch init 2, private segment size 1).
    pub fn user_sgpr_count(&self) -> u32 {
        4 * u32::from(self.enable_sgpr_private_segment_buffer)
            + 2 * u32::from(self.enable_sgpr_dispatch_ptr)
            + 2 * u32::from(self.enable_sgpr_queue_ptr)
            + 2 * u32::from(self.enable_sgpr_kernarg_segment_ptr)
            + 2 * u32::from(self.enable_sgpr_dispatch_id)
            + 2 * u32::from(self.enable_sgpr_flat_scratch_init)
            + u32::from(self.enable_sgpr_private_segment_size)
    }
}

/// The kernarg preload half-word (descriptor bytes 58..60, LLVM 18+):
/// kernel arguments preloaded into user SGPRs (used on gfx940+; 0 elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernargPreload {
    /// Bits 6:0, `KERNARG_PRELOAD_SPEC_LENGTH`: number of dwords preloaded.
    pub length: u8,
    /// Bits 15:7, `KERNARG_PRELOAD_SPEC_OFFSET`: first preloaded dword.
    pub offset: u16,
}

impl KernargPreload {
    /// Decodes the half-word.
    pub fn from_bits(v: u16) -> Self {
        let v = u32::from(v);
        KernargPreload {
            length: bits(v, 0, 7) as u8,
            offset: bits(v, 7, 9) as u16,
        }
    }

    /// Encodes the half-word.
    pub fn to_bits(&self) -> u16 {
        ((put(self.length.into(), 0, 7) | put(self.offset.into(), 7, 9)) & 0xffff) as u16
    }
}

/// A value the hardware places in SGPRs when a wave starts (AMDGPU usage
/// guide, "Initial Kernel Execution State", table "SGPR Register Set Up Order").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InitialSgpr {
    /// User SGPRs: the private segment buffer V# (4 SGPRs).
    PrivateSegmentBuffer,
    /// User SGPRs: the 64-bit address of the AQL dispatch packet.
    DispatchPtr,
    /// User SGPRs: the 64-bit address of the `amd_queue_t`.
    QueuePtr,
    /// User SGPRs: the 64-bit address of the kernarg segment.
    KernargSegmentPtr,
    /// User SGPRs: the 64-bit dispatch id.
    DispatchId,
    /// User SGPRs: the 64-bit flat scratch base of the queue (GFX9-GFX10).
    FlatScratchInit,
    /// User SGPR: the per-work-item private segment size.
    PrivateSegmentSize,
    /// System SGPR: the work-group id in X.
    WorkgroupIdX,
    /// System SGPR: the work-group id in Y.
    WorkgroupIdY,
    /// System SGPR: the work-group id in Z.
    WorkgroupIdZ,
    /// System SGPR: work-group information (first wave, waves per group).
    WorkgroupInfo,
    /// System SGPR: the wave's byte offset into the scratch backing memory.
    PrivateSegmentWavefrontOffset,
}

/// Where an [`InitialSgpr`] lands: SGPRs `first .. first + count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SgprAssignment {
    /// What the registers hold.
    pub what: InitialSgpr,
    /// The first SGPR.
    pub first: u32,
    /// How many consecutive SGPRs.
    pub count: u32,
}

/// Where the hardware puts the work-item ids of a lane at wave launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkitemIdLayout {
    /// One VGPR per enabled dimension: v0 = X, v1 = Y, v2 = Z.
    Separate {
        /// Enabled dimensions (1 to 3).
        dims: u32,
    },
    /// All in v0: X in bits 9:0, Y in bits 19:10, Z in bits 29:20
    /// (gfx90a; LLVM's `FeaturePackedTID`).
    Packed {
        /// Enabled dimensions (1 to 3).
        dims: u32,
    },
}

impl WorkitemIdLayout {
    /// The number of VGPRs initialised (from v0).
    pub fn vgprs(&self) -> u32 {
        match *self {
            WorkitemIdLayout::Separate { dims } => dims,
            WorkitemIdLayout::Packed { .. } => 1,
        }
    }
}

/// A decoded kernel descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelDescriptor {
    /// The processor whose layout was used to decode RSRC3 and the granules.
    pub gpu: Processor,
    /// Bytes 0..4, `GROUP_SEGMENT_FIXED_SIZE`: LDS bytes per work-group
    /// (without dynamically allocated LDS).
    pub group_segment_fixed_size: u32,
    /// Bytes 4..8, `PRIVATE_SEGMENT_FIXED_SIZE`: scratch bytes per work-item
    /// (without the dynamic call stack).
    pub private_segment_fixed_size: u32,
    /// Bytes 8..12, `KERNARG_SIZE`: kernarg segment bytes.
    pub kernarg_size: u32,
    /// Bytes 12..16, reserved.
    pub reserved0: [u8; 4],
    /// Bytes 16..24, `KERNEL_CODE_ENTRY_BYTE_OFFSET`: signed byte offset from
    /// the descriptor's address to the kernel's first instruction.
    pub kernel_code_entry_byte_offset: i64,
    /// Bytes 24..44, reserved.
    pub reserved1: [u8; 20],
    /// Bytes 44..48, `COMPUTE_PGM_RSRC3`.
    pub compute_pgm_rsrc3: ComputePgmRsrc3,
    /// Bytes 48..52, `COMPUTE_PGM_RSRC1`.
    pub compute_pgm_rsrc1: ComputePgmRsrc1,
    /// Bytes 52..56, `COMPUTE_PGM_RSRC2`.
    pub compute_pgm_rsrc2: ComputePgmRsrc2,
    /// Bytes 56..58, the kernel code properties.
    pub kernel_code_properties: KernelCodeProperties,
    /// Bytes 58..60, the kernarg preload specification.
    pub kernarg_preload: KernargPreload,
    /// Bytes 60..64, reserved.
    pub reserved3: [u8; 4],
}

fn le_u32(b: &[u8; 64], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn le_u16(b: &[u8; 64], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

impl KernelDescriptor {
    /// Decodes 64 descriptor bytes for `gpu`.
    ///
    /// Fails only when `bytes` is not exactly 64 bytes long; every bit
    /// pattern is a decodable descriptor (reserved bits are kept).
    pub fn parse(bytes: &[u8], gpu: Processor) -> Result<KernelDescriptor, Error> {
        let b: &[u8; 64] = bytes
            .try_into()
            .map_err(|_| Error::DescriptorLength(bytes.len()))?;
        let mut reserved0 = [0u8; 4];
        reserved0.copy_from_slice(&b[12..16]);
        let mut entry = [0u8; 8];
        entry.copy_from_slice(&b[16..24]);
        let mut reserved1 = [0u8; 20];
        reserved1.copy_from_slice(&b[24..44]);
        let mut reserved3 = [0u8; 4];
        reserved3.copy_from_slice(&b[60..64]);
        Ok(KernelDescriptor {
            gpu,
            group_segment_fixed_size: le_u32(b, 0),
            private_segment_fixed_size: le_u32(b, 4),
            kernarg_size: le_u32(b, 8),
            reserved0,
            kernel_code_entry_byte_offset: i64::from_le_bytes(entry),
            reserved1,
            compute_pgm_rsrc3: ComputePgmRsrc3::from_bits(le_u32(b, 44), gpu),
            compute_pgm_rsrc1: ComputePgmRsrc1::from_bits(le_u32(b, 48)),
            compute_pgm_rsrc2: ComputePgmRsrc2::from_bits(le_u32(b, 52)),
            kernel_code_properties: KernelCodeProperties::from_bits(le_u16(b, 56)),
            kernarg_preload: KernargPreload::from_bits(le_u16(b, 58)),
            reserved3,
        })
    }

    /// Re-encodes the descriptor from its decoded fields.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[12..16].copy_from_slice(&self.reserved0);
        b[16..24].copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        b[24..44].copy_from_slice(&self.reserved1);
        b[44..48].copy_from_slice(&self.compute_pgm_rsrc3.to_bits().to_le_bytes());
        b[48..52].copy_from_slice(&self.compute_pgm_rsrc1.to_bits().to_le_bytes());
        b[52..56].copy_from_slice(&self.compute_pgm_rsrc2.to_bits().to_le_bytes());
        b[56..58].copy_from_slice(&self.kernel_code_properties.to_bits().to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_bits().to_le_bytes());
        b[60..64].copy_from_slice(&self.reserved3);
        b
    }

    /// The wavefront size the kernel runs with: 32 when
    /// `ENABLE_WAVEFRONT_SIZE32` is set on GFX10, otherwise 64.
    pub fn wavefront_size(&self) -> u32 {
        if self.gpu.generation() == Gen::Gfx10
            && self.kernel_code_properties.enable_wavefront_size32
        {
            32
        } else {
            64
        }
    }

    /// Whether the kernel runs in wave32 mode.
    pub fn is_wave32(&self) -> bool {
        self.wavefront_size() == 32
    }

    /// The VGPR allocation granule: the number of registers one unit of
    /// `GRANULATED_WORKITEM_VGPR_COUNT` stands for (4 on GFX9 and GFX10
    /// wave64, 8 on GFX10 wave32 and on gfx90a, whose unified VGPR+AGPR file
    /// is allocated in blocks of 8).
    pub fn vgpr_granule(&self) -> u32 {
        if self.gpu.has_gfx90a_insts() || self.is_wave32() {
            8
        } else {
            4
        }
    }

    /// VGPRs allocated per work-item: `(GRANULATED_WORKITEM_VGPR_COUNT + 1) *
    /// granule`. On gfx90a this counts the unified file: architectural VGPRs
    /// (rounded up to 4, see [`Self::accum_offset`]) followed by the AGPRs.
    pub fn vgpr_count(&self) -> u32 {
        (u32::from(self.compute_pgm_rsrc1.granulated_workitem_vgpr_count) + 1) * self.vgpr_granule()
    }

    /// SGPRs allocated per wave: on GFX9
    /// `(GRANULATED_WAVEFRONT_SGPR_COUNT + 1) * 8` (LLVM 19 writes `ceil(max(1, sgprs) / 8) - 1`, `sgprs` being the
    /// metadata `.sgpr_count`, which includes VCC, FLAT_SCRATCH and
    /// XNACK_MASK; the seed guide's older `2 * (ceil(n / 16) - 1)` rule is not
    /// what the toolchain writes); on GFX10 always 128, as the guide says the
    /// field is reserved there (LLVM still fills it in, the hardware ignores it).
    pub fn sgpr_count(&self) -> u32 {
        match self.gpu.generation() {
            Gen::Gfx9 => {
                (u32::from(self.compute_pgm_rsrc1.granulated_wavefront_sgpr_count) + 1) * 8
            }
            Gen::Gfx10 => 128,
        }
    }

    /// On gfx90a, the index of the first AGPR in the unified register file:
    /// `(ACCUM_OFFSET + 1) * 4`. `None` on other processors.
    pub fn accum_offset(&self) -> Option<u32> {
        match self.compute_pgm_rsrc3 {
            ComputePgmRsrc3::Gfx90a { accum_offset, .. } => Some((u32::from(accum_offset) + 1) * 4),
            _ => None,
        }
    }

    /// The entry address of a descriptor located at `descriptor_address`:
    /// the address plus `KERNEL_CODE_ENTRY_BYTE_OFFSET`, or `None` on overflow.
    pub fn entry_address(&self, descriptor_address: u64) -> Option<u64> {
        descriptor_address.checked_add_signed(self.kernel_code_entry_byte_offset)
    }

    /// The SGPRs initialised at wave launch, in register order.
    ///
    /// User SGPRs are dense from SGPR0 in the order of the enable bits of the
    /// kernel code properties; the system SGPRs follow at
    /// `COMPUTE_PGM_RSRC2.USER_SGPR_COUNT` (usage guide, "Initial Kernel
    /// Execution State"). Of user SGPRs beyond the sixteenth the hardware
    /// initialises none; they are still listed.
    pub fn initial_sgprs(&self) -> Vec<SgprAssignment> {
        let p = &self.kernel_code_properties;
        let r2 = &self.compute_pgm_rsrc2;
        let mut out = Vec::new();
        let mut next = 0u32;
        let mut push = |on: bool, what: InitialSgpr, count: u32, next: &mut u32| {
            if on {
                out.push(SgprAssignment {
                    what,
                    first: *next,
                    count,
                });
                *next += count;
            }
        };
        push(
            p.enable_sgpr_private_segment_buffer,
            InitialSgpr::PrivateSegmentBuffer,
            4,
            &mut next,
        );
        push(
            p.enable_sgpr_dispatch_ptr,
            InitialSgpr::DispatchPtr,
            2,
            &mut next,
        );
        push(p.enable_sgpr_queue_ptr, InitialSgpr::QueuePtr, 2, &mut next);
        push(
            p.enable_sgpr_kernarg_segment_ptr,
            InitialSgpr::KernargSegmentPtr,
            2,
            &mut next,
        );
        push(
            p.enable_sgpr_dispatch_id,
            InitialSgpr::DispatchId,
            2,
            &mut next,
        );
        push(
            p.enable_sgpr_flat_scratch_init,
            InitialSgpr::FlatScratchInit,
            2,
            &mut next,
        );
        push(
            p.enable_sgpr_private_segment_size,
            InitialSgpr::PrivateSegmentSize,
            1,
            &mut next,
        );
        next = u32::from(r2.user_sgpr_count);
        push(
            r2.enable_sgpr_workgroup_id_x,
            InitialSgpr::WorkgroupIdX,
            1,
            &mut next,
        );
        push(
            r2.enable_sgpr_workgroup_id_y,
            InitialSgpr::WorkgroupIdY,
            1,
            &mut next,
        );
        push(
            r2.enable_sgpr_workgroup_id_z,
            InitialSgpr::WorkgroupIdZ,
            1,
            &mut next,
        );
        push(
            r2.enable_sgpr_workgroup_info,
            InitialSgpr::WorkgroupInfo,
            1,
            &mut next,
        );
        push(
            r2.enable_private_segment,
            InitialSgpr::PrivateSegmentWavefrontOffset,
            1,
            &mut next,
        );
        out
    }

    /// How the work-item ids arrive in VGPRs at wave launch (usage guide,
    /// "VGPR Register Set Up Order"; `ENABLE_VGPR_WORKITEM_ID` 0 enables X,
    /// 1 X and Y, 2 and the "undefined" 3 X, Y and Z).
    pub fn workitem_id_layout(&self) -> WorkitemIdLayout {
        let dims = 1 + u32::from(self.compute_pgm_rsrc2.enable_vgpr_workitem_id.min(2));
        if self.gpu.has_packed_workitem_ids() {
            WorkitemIdLayout::Packed { dims }
        } else {
            WorkitemIdLayout::Separate { dims }
        }
    }

    /// LDS bytes per work-group implied by `GRANULATED_LDS_SIZE` (granule 512
    /// bytes on GFX7-GFX10). Normally 0: CP takes the size from the dispatch.
    pub fn granulated_lds_bytes(&self) -> u32 {
        u32::from(self.compute_pgm_rsrc2.granulated_lds_size) * 512
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> [u8; 64] {
        let mut b = [0u8; 64];
        for (i, out) in b.iter_mut().enumerate() {
            *out = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        b
    }

    /// `atomics.kd` of `kernels/src/atomics.cl` built by clang-19 `-O0 -g`
    /// for gfx90a (`kernels/ref/gfx90a/atomics.O0g.kd.txt`).
    fn gfx90a_sample() -> [u8; 64] {
        hex(concat!(
            "000100006c000000200100000000000040110000000000000000000000000000",
            "000000000000000000000000070000000701af00991300003b00000000000000"
        ))
    }

    /// `transpose.kd` of `kernels/src/transpose.cl` built by clang-19 `-O2`
    /// for gfx1030 wave64 (`kernels/ref/gfx1030-w64/transpose.kd.txt`).
    fn gfx1030_w64_sample() -> [u8; 64] {
        hex(concat!(
            "4004000000000000180000000000000040110000000000000000000000000000",
            "000000000000000000000000000000004100af608c0900000900000000000000"
        ))
    }

    #[test]
    fn decodes_gfx90a_fields() {
        let kd = KernelDescriptor::parse(&gfx90a_sample(), Processor::Gfx90a).unwrap();
        assert_eq!(kd.group_segment_fixed_size, 256);
        assert_eq!(kd.private_segment_fixed_size, 108);
        assert_eq!(kd.kernarg_size, 288);
        assert_eq!(kd.kernel_code_entry_byte_offset, 0x1140);
        assert_eq!(kd.entry_address(0x8c0), Some(0x1a00));
        let r1 = kd.compute_pgm_rsrc1;
        assert_eq!(r1.granulated_workitem_vgpr_count, 7);
        assert_eq!(r1.granulated_wavefront_sgpr_count, 4);
        assert_eq!(
            (r1.float_denorm_mode_32, r1.float_denorm_mode_16_64),
            (3, 3)
        );
        assert!(r1.enable_dx10_clamp && r1.enable_ieee_mode && !r1.fp16_ovfl);
        let r2 = kd.compute_pgm_rsrc2;
        assert!(r2.enable_private_segment);
        assert_eq!(r2.user_sgpr_count, 12);
        assert!(
            r2.enable_sgpr_workgroup_id_x
                && r2.enable_sgpr_workgroup_id_y
                && r2.enable_sgpr_workgroup_id_z
        );
        assert_eq!(r2.enable_vgpr_workitem_id, 2);
        let p = kd.kernel_code_properties;
        assert!(p.enable_sgpr_private_segment_buffer && p.enable_sgpr_dispatch_ptr);
        assert!(p.enable_sgpr_kernarg_segment_ptr && p.enable_sgpr_dispatch_id);
        assert!(p.enable_sgpr_flat_scratch_init && !p.enable_sgpr_queue_ptr);
        assert_eq!(p.user_sgpr_count(), u32::from(r2.user_sgpr_count));
        // Metadata of the same kernel: .vgpr_count 61 (unified), .agpr_count
        // 29, .sgpr_count 40.
        assert_eq!(kd.vgpr_count(), 64);
        assert_eq!(kd.accum_offset(), Some(32));
        assert_eq!(kd.sgpr_count(), 40);
        assert!(matches!(
            kd.compute_pgm_rsrc3,
            ComputePgmRsrc3::Gfx90a {
                accum_offset: 7,
                tg_split: false,
                ..
            }
        ));
        assert_eq!(kd.wavefront_size(), 64);
        assert_eq!(kd.to_bytes(), gfx90a_sample());
    }

    #[test]
    fn initial_register_layout() {
        // The O0 code of this kernel starts with
        //   s_add_u32 flat_scratch_lo, s10, s15 ; s_add_u32 s0, s0, s15
        //   v_writelane_b32 v1, s14, 0 ; v_writelane_b32 v1, s13, 1
        // i.e. flat scratch init in s[10:11], the wave's scratch offset in
        // s15 and the work-group ids in s12..s14.
        let kd = KernelDescriptor::parse(&gfx90a_sample(), Processor::Gfx90a).unwrap();
        let layout: Vec<(InitialSgpr, u32, u32)> = kd
            .initial_sgprs()
            .iter()
            .map(|a| (a.what, a.first, a.count))
            .collect();
        assert_eq!(
            layout,
            vec![
                (InitialSgpr::PrivateSegmentBuffer, 0, 4),
                (InitialSgpr::DispatchPtr, 4, 2),
                (InitialSgpr::KernargSegmentPtr, 6, 2),
                (InitialSgpr::DispatchId, 8, 2),
                (InitialSgpr::FlatScratchInit, 10, 2),
                (InitialSgpr::WorkgroupIdX, 12, 1),
                (InitialSgpr::WorkgroupIdY, 13, 1),
                (InitialSgpr::WorkgroupIdZ, 14, 1),
                (InitialSgpr::PrivateSegmentWavefrontOffset, 15, 1),
            ]
        );
        // gfx90a packs the ids into v0: its transpose kernel starts with
        // v_and_b32 v1, 0x3ff, v0 ; v_bfe_u32 v2, v0, 10, 10.
        assert_eq!(
            kd.workitem_id_layout(),
            WorkitemIdLayout::Packed { dims: 3 }
        );
        assert_eq!(kd.workitem_id_layout().vgprs(), 1);
        let kd = KernelDescriptor::parse(&gfx1030_w64_sample(), Processor::Gfx1030).unwrap();
        assert_eq!(
            kd.workitem_id_layout(),
            WorkitemIdLayout::Separate { dims: 2 }
        );
        assert_eq!(kd.workitem_id_layout().vgprs(), 2);
        let last = kd.initial_sgprs().last().copied().unwrap();
        assert_eq!((last.what, last.first), (InitialSgpr::WorkgroupIdY, 7));
    }

    #[test]
    fn decodes_gfx10_wave64_fields() {
        let kd = KernelDescriptor::parse(&gfx1030_w64_sample(), Processor::Gfx1030).unwrap();
        assert_eq!(kd.group_segment_fixed_size, 1088);
        assert_eq!(kd.kernarg_size, 24);
        assert_eq!(kd.wavefront_size(), 64);
        assert_eq!(kd.vgpr_granule(), 4);
        assert_eq!(kd.vgpr_count(), 8);
        assert!(kd.compute_pgm_rsrc1.wgp_mode && kd.compute_pgm_rsrc1.mem_ordered);
        assert!(!kd.compute_pgm_rsrc1.fwd_progress);
        assert_eq!(kd.compute_pgm_rsrc2.user_sgpr_count, 6);
        assert_eq!(kd.compute_pgm_rsrc2.enable_vgpr_workitem_id, 1);
        assert!(matches!(
            kd.compute_pgm_rsrc3,
            ComputePgmRsrc3::Gfx10 {
                shared_vgpr_count: 0,
                reserved: 0
            }
        ));
        assert_eq!(kd.accum_offset(), None);
        assert_eq!(kd.to_bytes(), gfx1030_w64_sample());
    }

    #[test]
    fn wave32_only_on_gfx10() {
        let mut b = [0u8; 64];
        b[57] = 0x04; // bit 10 of the properties
        let kd10 = KernelDescriptor::parse(&b, Processor::Gfx1030).unwrap();
        assert_eq!(kd10.wavefront_size(), 32);
        assert_eq!(kd10.vgpr_granule(), 8);
        assert_eq!(kd10.sgpr_count(), 128);
        let kd9 = KernelDescriptor::parse(&b, Processor::Gfx900).unwrap();
        assert_eq!(kd9.wavefront_size(), 64);
        assert_eq!(kd9.vgpr_granule(), 4);
    }

    #[test]
    fn round_trips_every_bit() {
        // Each single bit, on each layout, must survive decode + encode.
        for gpu in [Processor::Gfx900, Processor::Gfx90a, Processor::Gfx1010] {
            for i in 0..64 * 8 {
                let mut b = [0u8; 64];
                b[i / 8] = 1 << (i % 8);
                let kd = KernelDescriptor::parse(&b, gpu).unwrap();
                assert_eq!(kd.to_bytes(), b, "{gpu} bit {i}");
            }
            let kd = KernelDescriptor::parse(&[0xff; 64], gpu).unwrap();
            assert_eq!(kd.to_bytes(), [0xff; 64]);
        }
        for (gpu, b) in [
            (Processor::Gfx90a, gfx90a_sample()),
            (Processor::Gfx1030, gfx1030_w64_sample()),
        ] {
            assert_eq!(KernelDescriptor::parse(&b, gpu).unwrap().to_bytes(), b);
        }
    }

    #[test]
    fn wrong_length_is_an_error() {
        assert_eq!(
            KernelDescriptor::parse(&[0; 63], Processor::Gfx900),
            Err(Error::DescriptorLength(63))
        );
        assert_eq!(
            KernelDescriptor::parse(&[0; 65], Processor::Gfx900),
            Err(Error::DescriptorLength(65))
        );
    }
}

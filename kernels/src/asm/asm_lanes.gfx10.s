// asm_lanes (GFX10: gfx1010, gfx1030; wave32, or wave64 with WAVE64=1)
//
// Cross-lane and cross-wave data movement. With wg = work-group size,
// lid = local id, lane = lane index within the wave, x[i] = in[group base + i]:
//   out[gid] = x[wg - 1 - lid]                 (reversal through LDS)
//            + 3 * x[lid ^ 1 within the wave]  (ds_bpermute_b32)
//            + x of the wave's lane 0         (v_readfirstlane_b32)
//            + (x of the wave's lane 1 << 16)  (v_readlane_b32)
//   all modulo 2^32.
//
// Exercises: LDS (ds_write_b32 / ds_read_b32 with per-lane addresses, a
// fixed group segment of 1 KiB), s_barrier between the waves of a group,
// v_mbcnt_lo (wave32) or v_mbcnt_lo/hi (wave64) for the lane index, ds_bpermute_b32, v_readfirstlane_b32,
// v_readlane_b32 into SGPRs, SALU on the results, the VOP3 three-operand
// v_lshl_add_u32 and v_add3_u32, s_waitcnt on vmcnt and lgkmcnt.
//
// Arguments (kernarg segment): 0: global const uint *in; 8: global uint *out.
// Dispatch: 1-D, work-group size a multiple of the wave size and <= 256,
// grid a multiple of the work-group size (every lane is active; there is no
// bounds check).

	.include "amdhsa.inc"
	TARGET_PROLOGUE

	.text
	.globl	asm_lanes
	.p2align	8
	.type	asm_lanes,@function
asm_lanes:
	s_load_dwordx4	s[8:11], s[2:3], 0x0	// in, out
	s_load_dword	s12, s[0:1], 0x4	// workgroup_size_x | workgroup_size_y << 16
	s_waitcnt	lgkmcnt(0)
	s_and_b32	s12, s12, 0xffff	// wg
	s_mul_i32	s13, s4, s12		// first gid of this work-group
	s_sub_u32	s14, s12, 1		// wg - 1
	v_add_nc_u32_e32	v1, s13, v0	// gid
	v_lshlrev_b32_e32	v2, 2, v1	// byte offset of element gid
	global_load_dword	v3, v2, s[8:9]	// x
	v_lshlrev_b32_e32	v4, 2, v0	// LDS address of lid
	v_mbcnt_lo_u32_b32	v5, -1, 0	// lane (wave32)
.if WAVE64
	v_mbcnt_hi_u32_b32	v5, -1, v5	// lane (wave64)
.endif
	s_waitcnt	vmcnt(0)

	// reversal through LDS
	ds_write_b32	v4, v3
	s_waitcnt	lgkmcnt(0)
	s_barrier
	v_sub_nc_u32_e32	v6, s14, v0	// wg - 1 - lid
	v_lshlrev_b32_e32	v6, 2, v6
	ds_read_b32	v7, v6

	// neighbour lane through ds_bpermute (byte address = 4 * source lane)
	v_xor_b32_e32	v8, 1, v5
	v_lshlrev_b32_e32	v8, 2, v8
	ds_bpermute_b32	v9, v8, v3

	// lanes 0 and 1 into SGPRs
	v_readfirstlane_b32	s15, v3
	v_readlane_b32	s16, v3, 1
	s_lshl_b32	s16, s16, 16
	s_add_u32	s15, s15, s16

	s_waitcnt	lgkmcnt(0)
	v_lshl_add_u32	v9, v9, 1, v9		// 3 * neighbour
	v_add3_u32	v10, v7, v9, s15
	global_store_dword	v2, v10, s[10:11]
	s_endpgm
.Lfunc_end:
	.size	asm_lanes, .Lfunc_end-asm_lanes

.macro KERNEL_DESCRIPTOR extra:vararg
	.amdhsa_kernel asm_lanes
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_group_segment_fixed_size 1024
		.amdhsa_next_free_vgpr 11
		.amdhsa_next_free_sgpr 17
		.amdhsa_kernarg_size 16
		.amdhsa_reserve_vcc 1
		\extra
	.end_amdhsa_kernel
.endm

.macro METADATA target_id, wave_size, xnack
.if \xnack
	METADATA_YAML \target_id, \wave_size, 21
.else
	METADATA_YAML \target_id, \wave_size, 19
.endif
.endm

.macro METADATA_YAML target_id, wave_size, sgprs
	.amdgpu_metadata
---
amdhsa.target: \target_id
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name:                       asm_lanes
    .symbol:                     asm_lanes.kd
    .kernarg_segment_size:       16
    .kernarg_segment_align:      8
    .group_segment_fixed_size:   1024
    .private_segment_fixed_size: 0
    .wavefront_size:             \wave_size
    .sgpr_count:                 \sgprs
    .vgpr_count:                 11
    .max_flat_workgroup_size:    256
    .args:
      - .name:          in
        .address_space: global
        .is_const:      true
        .offset:        0
        .size:          8
        .value_kind:    global_buffer
      - .name:          out
        .address_space: global
        .offset:        8
        .size:          8
        .value_kind:    global_buffer
.end_amdgpu_metadata
.endm

	.rodata
	.p2align	6
.if WAVE64
	KERNEL_DESCRIPTOR .amdhsa_wavefront_size32 0
.else
	KERNEL_DESCRIPTOR .amdhsa_wavefront_size32 1
.endif

	EMIT_METADATA

// asm_call (GFX10: gfx1010, gfx1030; wave32, or wave64 with WAVE64=1)
//
// out[gid] = (lid % 4 == 0) ? 3 * gid : gid   (mod 2^32), for every work-item
//
// The GFX10 twin of asm_call.gfx9.s (read its header): a called function
// entered by the lanes with lid % 4 == 0, which keeps its return address
// where the lane service's reconstruction does not follow it.
//
// Arguments (kernarg segment): 0: global uint *out.
// Dispatch: 1-D, any work-group size <= 256, grid a multiple of the
// work-group size (there is no bounds check).

	.include "amdhsa.inc"
	TARGET_PROLOGUE

	.text
	.globl	asm_call
	.p2align	8
	.type	asm_call,@function
asm_call:
	s_load_dwordx2	s[8:9], s[2:3], 0x0	// out
	s_load_dword	s13, s[0:1], 0x4	// workgroup_size_x | workgroup_size_y << 16
	s_waitcnt	lgkmcnt(0)
	s_and_b32	s13, s13, 0xffff
	s_mul_i32	s13, s4, s13		// first gid of this work-group
	v_add_nc_u32_e32	v1, s13, v0	// gid
	v_lshlrev_b32_e32	v2, 2, v1	// byte offset of element gid
	v_and_b32_e32	v3, 3, v0
.if WAVE64
	v_cmp_eq_u32_e32	vcc, 0, v3	// lid % 4 == 0
	s_and_saveexec_b64	s[14:15], vcc
.else
	v_cmp_eq_u32_e32	vcc_lo, 0, v3	// lid % 4 == 0
	s_and_saveexec_b32	s14, vcc_lo
.endif
	s_cbranch_execz	.Ljoin
	s_getpc_b64	s[16:17]
	s_add_u32	s16, s16, times3@rel32@lo+4
	s_addc_u32	s17, s17, times3@rel32@hi+12
	s_swappc_b64	s[30:31], s[16:17]
.Ljoin:
.if WAVE64
	s_or_b64	exec, exec, s[14:15]
.else
	s_or_b32	exec_lo, exec_lo, s14
.endif
	global_store_dword	v2, v1, s[8:9]
	s_endpgm
.Lfunc_end:
	.size	asm_call, .Lfunc_end-asm_call

	.globl	times3
	.hidden	times3			// kept by ld.lld --discard-all, not exported
	.p2align	2
	.type	times3,@function
times3:
	s_add_u32	s36, s30, 0		// the return address, through arithmetic
	s_addc_u32	s37, s31, 0
	s_mov_b64	s[30:31], 0		// the copy a caller walk follows is gone
	v_mul_lo_u32	v1, v1, 3
	s_setpc_b64	s[36:37]
.Ltimes3_end:
	.size	times3, .Ltimes3_end-times3


.macro KERNEL_DESCRIPTOR extra:vararg
	.amdhsa_kernel asm_call
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 38
		.amdhsa_kernarg_size 8
		.amdhsa_reserve_vcc 1
		\extra
	.end_amdhsa_kernel
.endm

.macro METADATA target_id, wave_size, xnack
.if \xnack
	METADATA_YAML \target_id, \wave_size, 42
.else
	METADATA_YAML \target_id, \wave_size, 40
.endif
.endm

.macro METADATA_YAML target_id, wave_size, sgprs
	.amdgpu_metadata
---
amdhsa.target: \target_id
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name:                       asm_call
    .symbol:                     asm_call.kd
    .kernarg_segment_size:       8
    .kernarg_segment_align:      8
    .group_segment_fixed_size:   0
    .private_segment_fixed_size: 0
    .wavefront_size:             \wave_size
    .sgpr_count:                 \sgprs
    .vgpr_count:                 4
    .max_flat_workgroup_size:    256
    .args:
      - .name:          out
        .address_space: global
        .offset:        0
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

// asm_call (GFX9: gfx900, gfx906, gfx908, gfx90a; wave64)
//
// out[gid] = (lid % 4 == 0) ? 3 * gid : gid   (mod 2^32), for every work-item
//
// A called function entered by a subset of the lanes: the lanes with
// lid % 4 == 0 call `times3` (s_swappc_b64 through a rel32 address, as
// clang-19 calls a non-inlined function); the others wait at the join after
// the call. `times3` keeps its return address where the lane service's
// reconstruction does not follow it: it copies s[30:31] through an add of
// zero and then clears s[30:31]. From its third instruction on, the lanes
// that did not enter it can no longer be placed in a caller's frame: they
// are not-entered (sim-tests/scenarios/asm_call_gfx900.ron).
//
// Exercises: s_getpc_b64, rel32 relocations resolved by ld.lld, s_swappc_b64,
// s_setpc_b64 back through another register pair, s_and_saveexec_b64 and the
// s_or_b64 exec join around a call, v_mul_lo_u32 in the callee.
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
	v_add_u32_e32	v1, s13, v0		// gid
	v_lshlrev_b32_e32	v2, 2, v1	// byte offset of element gid
	v_and_b32_e32	v3, 3, v0
	v_cmp_eq_u32_e32	vcc, 0, v3	// lid % 4 == 0
	s_and_saveexec_b64	s[14:15], vcc
	s_cbranch_execz	.Ljoin
	s_getpc_b64	s[16:17]
	s_add_u32	s16, s16, times3@rel32@lo+4
	s_addc_u32	s17, s17, times3@rel32@hi+12
	s_swappc_b64	s[30:31], s[16:17]
.Ljoin:
	s_or_b64	exec, exec, s[14:15]
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
		.amdhsa_reserve_flat_scratch 0
		\extra
	.end_amdhsa_kernel
.endm

// Every GFX9 target here reserves the XNACK mask (xnack is always 1), so
// .sgpr_count = .amdhsa_next_free_sgpr + 4.
.macro METADATA target_id, wave_size, xnack
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
    .sgpr_count:                 42
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
.if GFX == 0x90a
	KERNEL_DESCRIPTOR .amdhsa_accum_offset 4
.else
	KERNEL_DESCRIPTOR
.endif

	EMIT_METADATA

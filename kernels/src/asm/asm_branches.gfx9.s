// asm_branches (GFX9: gfx900, gfx906, gfx908, gfx90a; wave64)
//
// For every gid < count, with x = in[gid], lid = local id and T = x & 7:
//   out[gid] = (x odd ? 3 * x + 1 : x >> 1)          (mod 2^32)
//            + ((lid & 3) == 0 ? 0x1000 : 0)
//            + ((T * (T + 1) / 2) << 16)
//
// Exercises: hand-written divergent control flow under EXEC masks:
// - an if/else on loaded data, written as "exec = saved & vcc", then
//   "exec = saved & ~vcc" (s_andn2_b64), each arm skipped with
//   s_cbranch_execz when no lane takes it, and EXEC restored at the join;
// - an if on the lane id with s_and_saveexec_b64 / s_or_b64 exec;
// - a per-lane loop with a data-dependent trip count (0..7) that retires
//   finished lanes from EXEC each iteration and leaves when EXEC is zero;
// - VALU v_mul_lo_u32 (VOP3), v_subrev_u32, literal and inline constants,
//   a global load and store with a scalar base (SADDR), s_waitcnt vmcnt.
//
// Arguments (kernarg segment): 0: global const uint *in;
// 8: global uint *out; 16: uint count.
// Dispatch: 1-D, any work-group size <= 256.

	.include "amdhsa.inc"
	TARGET_PROLOGUE

	.text
	.globl	asm_branches
	.p2align	8
	.type	asm_branches,@function
asm_branches:
	s_load_dwordx4	s[8:11], s[2:3], 0x0	// in, out
	s_load_dword	s12, s[2:3], 0x10	// count
	s_load_dword	s13, s[0:1], 0x4	// workgroup_size_x | workgroup_size_y << 16
	s_waitcnt	lgkmcnt(0)
	s_and_b32	s13, s13, 0xffff
	s_mul_i32	s13, s4, s13		// first gid of this work-group
	v_add_u32_e32	v1, s13, v0		// gid
	v_cmp_gt_u32_e32	vcc, s12, v1	// gid < count
	s_and_saveexec_b64	s[14:15], vcc
	s_cbranch_execz	.Lend
	v_lshlrev_b32_e32	v2, 2, v1	// byte offset of element gid
	global_load_dword	v3, v2, s[8:9]	// x
	s_waitcnt	vmcnt(0)

	// if (x & 1) a = 3x + 1; else a = x >> 1;
	s_mov_b64	s[16:17], exec		// lanes at the branch
	v_and_b32_e32	v4, 1, v3
	v_cmp_eq_u32_e32	vcc, 1, v4
	s_and_b64	exec, s[16:17], vcc	// then-lanes
	s_cbranch_execz	.Lelse
	v_mul_lo_u32	v5, v3, 3
	v_add_u32_e32	v5, 1, v5
.Lelse:
	s_andn2_b64	exec, s[16:17], vcc	// else-lanes
	s_cbranch_execz	.Lendif
	v_lshrrev_b32_e32	v5, 1, v3
.Lendif:
	s_mov_b64	exec, s[16:17]		// join

	// if ((lid & 3) == 0) a += 0x1000;
	v_and_b32_e32	v4, 3, v0
	v_cmp_eq_u32_e32	vcc, 0, v4
	s_and_saveexec_b64	s[18:19], vcc
	s_cbranch_execz	.Lskip
	v_add_u32_e32	v5, 0x1000, v5
.Lskip:
	s_or_b64	exec, exec, s[18:19]

	// for (t = x & 7, acc = 0; t != 0; --t) acc += t;
	v_and_b32_e32	v6, 7, v3		// remaining trips
	v_mov_b32_e32	v7, 0			// acc
	s_mov_b64	s[20:21], exec
.Lloop:
	v_cmp_ne_u32_e32	vcc, 0, v6
	s_and_b64	exec, exec, vcc		// retire finished lanes
	s_cbranch_execz	.Lloop_end
	v_add_u32_e32	v7, v7, v6
	v_subrev_u32_e32	v6, 1, v6	// t - 1
	s_branch	.Lloop
.Lloop_end:
	s_mov_b64	exec, s[20:21]
	v_lshlrev_b32_e32	v7, 16, v7
	v_add_u32_e32	v5, v5, v7
	global_store_dword	v2, v5, s[10:11]
.Lend:
	s_endpgm
.Lfunc_end:
	.size	asm_branches, .Lfunc_end-asm_branches

.macro KERNEL_DESCRIPTOR extra:vararg
	.amdhsa_kernel asm_branches
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 22
		.amdhsa_kernarg_size 24
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
  - .name:                       asm_branches
    .symbol:                     asm_branches.kd
    .kernarg_segment_size:       24
    .kernarg_segment_align:      8
    .group_segment_fixed_size:   0
    .private_segment_fixed_size: 0
    .wavefront_size:             \wave_size
    .sgpr_count:                 26
    .vgpr_count:                 8
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
      - .name:          count
        .offset:        16
        .size:          4
        .value_kind:    by_value
.end_amdgpu_metadata
.endm

	.rodata
	.p2align	6
.if GFX == 0x90a
	KERNEL_DESCRIPTOR .amdhsa_accum_offset 8
.else
	KERNEL_DESCRIPTOR
.endif

	EMIT_METADATA

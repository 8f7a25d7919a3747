// asm_salu_loop (GFX10: gfx1010, gfx1030; wave32, or wave64 with WAVE64=1)
//
// out[gid] = S + gid for every gid < count, where S is computed once per wave
// by a scalar loop:
//   S = sum over k = 1..count of bfe_u32((k << 1) ^ k, offset 0, width 8)
//       + (1 << 16) if the wave started with min(wave size, group size) lanes
//         active, else (2 << 16).
//
// Exercises: user SGPRs (dispatch packet pointer in s[0:1], kernarg pointer
// in s[2:3]), the work-group id system SGPR (s4), scalar memory loads from
// the dispatch packet and the kernarg segment, a hand-written scalar loop
// (s_cmp + s_cbranch_scc1 + s_branch), SALU shift/xor/bfe/min/cselect/mul,
// s_bcnt1 on EXEC, a bounds check with s_and_saveexec_b32 (wave32) or _b64
// (wave64) + s_cbranch_execz, the GFX10 no-carry v_add_nc_u32,
// and a global store with a scalar base (SADDR) and a VGPR offset.
//
// Arguments (kernarg segment): 0: global uint *out; 8: uint count.
// Dispatch: 1-D, any work-group size <= 256; the result does not depend on
// the grid beyond gid and count. (The argument is called "count" rather
// than "n" because YAML reads a bare n as a boolean.)

	.include "amdhsa.inc"
	TARGET_PROLOGUE

	.text
	.globl	asm_salu_loop
	.p2align	8
	.type	asm_salu_loop,@function
asm_salu_loop:
	s_load_dwordx2	s[6:7], s[2:3], 0x0	// out
	s_load_dword	s8, s[2:3], 0x8		// count
	s_load_dword	s9, s[0:1], 0x4		// workgroup_size_x | workgroup_size_y << 16
.if WAVE64
	s_bcnt1_i32_b64	s15, exec		// lanes active at entry
.else
	s_bcnt1_i32_b32	s15, exec_lo		// lanes active at entry
.endif
	s_waitcnt	lgkmcnt(0)
	s_and_b32	s9, s9, 0xffff		// workgroup_size_x
	s_mul_i32	s10, s4, s9		// first gid of this work-group
	s_mov_b32	s11, 0			// S
	s_mov_b32	s12, 0			// k
.Lloop:
	s_cmp_ge_u32	s12, s8
	s_cbranch_scc1	.Ldone
	s_add_u32	s12, s12, 1
	s_lshl_b32	s13, s12, 1
	s_xor_b32	s13, s13, s12
	s_bfe_u32	s13, s13, 0x80000	// width 8 (bits 22:16), offset 0 (bits 4:0)
	s_add_u32	s11, s11, s13
	s_branch	.Lloop
.Ldone:
.if WAVE64
	s_min_u32	s14, s9, 64		// lanes of a full wave of this group
.else
	s_min_u32	s14, s9, 32
.endif
	s_cmp_eq_u32	s14, s15
	s_cselect_b32	s16, 1, 2		// 1 if the wave was full, else 2
	s_lshl_b32	s16, s16, 16
	s_add_u32	s11, s11, s16
	v_add_nc_u32_e32	v1, s10, v0	// gid
.if WAVE64
	v_cmp_gt_u32_e32	vcc, s8, v1	// gid < count
	s_and_saveexec_b64	s[18:19], vcc
.else
	v_cmp_gt_u32_e32	vcc_lo, s8, v1	// gid < count
	s_and_saveexec_b32	s18, vcc_lo
.endif
	s_cbranch_execz	.Lend
	v_add_nc_u32_e32	v2, s11, v1	// S + gid
	v_lshlrev_b32_e32	v3, 2, v1	// byte offset
	global_store_dword	v3, v2, s[6:7]
.Lend:
	s_endpgm
.Lfunc_end:
	.size	asm_salu_loop, .Lfunc_end-asm_salu_loop

.macro KERNEL_DESCRIPTOR extra:vararg
	.amdhsa_kernel asm_salu_loop
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 20
		.amdhsa_kernarg_size 16
		.amdhsa_reserve_vcc 1
		\extra
	.end_amdhsa_kernel
.endm

.macro METADATA target_id, wave_size, xnack
.if \xnack
	METADATA_YAML \target_id, \wave_size, 24
.else
	METADATA_YAML \target_id, \wave_size, 22
.endif
.endm

.macro METADATA_YAML target_id, wave_size, sgprs
	.amdgpu_metadata
---
amdhsa.target: \target_id
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name:                       asm_salu_loop
    .symbol:                     asm_salu_loop.kd
    .kernarg_segment_size:       16
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
      - .name:          count
        .offset:        8
        .size:          4
        .value_kind:    by_value
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

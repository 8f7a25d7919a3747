// seed_lane_pc (GFX9: gfx900, gfx906, gfx908, gfx90a; wave64)
//
// The nested IF/THEN/ELSE example of the LLVM AMDGPU usage guide ("AMDGPU
// DW_AT_LLVM_lane_pc"), linearised exactly as its pseudo MIR does it:
//
//    1 SUBPROGRAM X                  $lex_start:   a; %1 = EXEC; %2 = c1
//    2 BEGIN                         $lex_1_start: EXEC = %1 & %2
//    3   a;                          $if_1_then:   b; %3 = EXEC; %4 = c2
//    4   IF (c1) THEN                $lex_1_1_start: EXEC = %3 & %4
//    5     b;                        $lex_1_1_then:  c; EXEC = ~EXEC & %3
//    6     IF (c2) THEN              $lex_1_1_else:  d; EXEC = %3
//    7       c;                      $lex_1_1_end:   e; EXEC = ~EXEC & %1
//    8     ELSE                      $lex_1_else:    f; EXEC = %1
//    9       d;                      $lex_1_end:     g
//   10     ENDIF
//   11     e;                        with no branch over an arm that no lane
//   12   ELSE                        runs, so every instruction is executed by
//   13     f;                        every wave.
//   14   ENDIF
//   15   g;
//   16 END
//
// With v = in[gid]: c1 = v & 1, c2 = v & 2. Each statement sets one bit of
// out[gid]: a 1, b 2, c 4, d 8, e 16, f 32, g 64 (so out[gid] records the
// path the work-item took). %1 lives in s[16:17], %3 in s[18:19].
//
// Arguments (kernarg segment): 0: global const uint *in; 8: global uint *out.
// Dispatch: 1-D, any work-group size <= 256, global size = the number of
// elements (no bounds check).

	.include "amdhsa.inc"
	TARGET_PROLOGUE

	.text
	.globl	seed_lane_pc
	.p2align	8
	.type	seed_lane_pc,@function
seed_lane_pc:
	s_load_dwordx4	s[8:11], s[2:3], 0x0	// in, out
	s_load_dword	s13, s[0:1], 0x4	// workgroup_size_x | workgroup_size_y << 16
	s_waitcnt	lgkmcnt(0)
	s_and_b32	s13, s13, 0xffff
	s_mul_i32	s13, s4, s13		// first gid of this work-group
	v_add_u32_e32	v1, s13, v0		// gid
	v_lshlrev_b32_e32	v2, 2, v1	// byte offset of element gid
	global_load_dword	v3, v2, s[8:9]	// v
	s_waitcnt	vmcnt(0)
	v_mov_b32_e32	v5, 1			// a
	s_mov_b64	s[16:17], exec		// %1 = EXEC
	v_and_b32_e32	v4, 1, v3
	v_cmp_ne_u32_e32	vcc, 0, v4	// %2 = c1
	s_and_b64	exec, s[16:17], vcc	// $lex_1_start: EXEC = %1 & %2
	v_or_b32_e32	v5, 2, v5		// b
	s_mov_b64	s[18:19], exec		// %3 = EXEC
	v_and_b32_e32	v4, 2, v3
	v_cmp_ne_u32_e32	vcc, 0, v4	// %4 = c2
	s_and_b64	exec, s[18:19], vcc	// $lex_1_1_start: EXEC = %3 & %4
	v_or_b32_e32	v5, 4, v5		// c
	s_andn2_b64	exec, s[18:19], exec	// EXEC = ~EXEC & %3
	v_or_b32_e32	v5, 8, v5		// d
	s_mov_b64	exec, s[18:19]		// EXEC = %3
	v_or_b32_e32	v5, 16, v5		// $lex_1_1_end: e
	s_andn2_b64	exec, s[16:17], exec	// EXEC = ~EXEC & %1
	v_or_b32_e32	v5, 32, v5		// f
	s_mov_b64	exec, s[16:17]		// EXEC = %1
	v_or_b32_e32	v5, 64, v5		// $lex_1_end: g
	global_store_dword	v2, v5, s[10:11]
	s_endpgm
.Lfunc_end:
	.size	seed_lane_pc, .Lfunc_end-seed_lane_pc

.macro KERNEL_DESCRIPTOR extra:vararg
	.amdhsa_kernel seed_lane_pc
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 20
		.amdhsa_kernarg_size 16
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
  - .name:                       seed_lane_pc
    .symbol:                     seed_lane_pc.kd
    .kernarg_segment_size:       16
    .kernarg_segment_align:      8
    .group_segment_fixed_size:   0
    .private_segment_fixed_size: 0
    .wavefront_size:             \wave_size
    .sgpr_count:                 24
    .vgpr_count:                 6
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
.if GFX == 0x90a
	KERNEL_DESCRIPTOR .amdhsa_accum_offset 8
.else
	KERNEL_DESCRIPTOR
.endif

	EMIT_METADATA

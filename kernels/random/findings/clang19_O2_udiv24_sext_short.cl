// Finding of the random-kernel differential (kernels/random/README.md,
// "Findings"): seed 544, reduced. The same clang-19 -O2 miscompile as
// clang19_O2_udiv24_sext.cl, reached through a saturating conversion to
// short: `(uint)convert_short_sat(x) / q` (q at most 255) is divided with the
// AMDGPU 24-bit float division and the quotient masked with 0x7fff, although
// the sign-extended numerator is 0xffff8000..0xffffffff when x is negative.
// The compiled sequence (v_med3_i32 to [-32768, 32767], v_cvt_f32_u32,
// v_rcp_iflag_f32, v_mul_f32, v_trunc_f32, v_cvt_u32_f32, v_mad_f32,
// v_cmp_ge_f32, v_addc, v_and_b32 0x7fff) worked through by hand for
// work-item 1 (c = 0xffff8000, q = 255) gives 0x1010083 & 0x7fff = 0x83, the
// simulator's value on gfx900 and gfx1030; -O0 and PoCL give
// 0xffff8000 / 255 = 0x1010080.
//
// Reproduce: kernels/random/randk.py run 544 --targets gfx900,gfx1030 --opts O0g,O2 \
//                --source kernels/random/findings/clang19_O2_udiv24_sext_short.cl
__kernel void rk(__global const uint *a, __global const uint *b, __global const float *fin,
                 __global uint *out, __global float *fout, __global double *dout,
                 __global uint *acc, uint n)
{
    uint gid = get_global_id(0);
    uint x0 = a[gid] * 0x9e3779b9u;
    uint q = (uint)convert_uchar_sat((int)b[gid]);
    uint c = (uint)convert_short_sat((int)x0);
    uint o = gid * 14u;
    out[o] = q ? c / q : 0xb66ef4feu;
    out[o + 1] = c;
    out[o + 2] = q;
}

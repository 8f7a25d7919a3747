// Finding of the random-kernel differential (kernels/random/README.md,
// "Findings"): seed 632, reduced. The remainder form of the clang-19 -O2
// miscompile of clang19_O2_udiv24_sext.cl: `(uint)(short)x % q`, q a ushort
// value, is computed with the AMDGPU 24-bit float division (v_cvt_f32_u32,
// v_rcp_iflag_f32, v_mul_f32, v_trunc_f32, v_cvt_u32_f32, v_mad_f32,
// v_cmp_ge_f32, v_addc, v_mul_lo_u32, v_sub_u32) and the remainder masked with
// 0xffff, although the sign-extended numerator is 0xffff8000..0xffffffff when
// the short is negative. Worked through by hand for work-item 80 (c =
// 0xffffc3c3, q = 0xf61): quotient 0x10a568, remainder 0xffffff5b, masked
// 0xff5b, the simulator's value on gfx900 and gfx1030; -O0 and PoCL give
// 0xffffc3c3 % 0xf61 = 0xebc.
//
// Reproduce: kernels/random/randk.py run 632 --targets gfx900,gfx1030 --opts O0g,O2 \
//                --source kernels/random/findings/clang19_O2_urem24_sext.cl
__kernel void rk(__global const uint *a, __global const uint *b, __global const float *fin,
                 __global uint *out, __global float *fout, __global double *dout,
                 __global uint *acc, uint n)
{
    uint gid = get_global_id(0);
    uint c = (uint)(short)(a[gid] * 0x9e3779b9u);
    uint q = (uint)(ushort)(b[gid] >> 3);
    uint o = gid * 14u;
    out[o] = q ? c % q : 0x921e09e6u;
    out[o + 1] = c;
    out[o + 2] = q;
}

// Finding of the random-kernel differential (kernels/random/README.md,
// "Findings"): seeds 205 and 4, reduced. At -O2, clang-19 divides
// `(uint)(char)c / q` (q a ushort value) with the AMDGPU 24-bit float division
// and masks the quotient to 16 bits, although the numerator, a sign-extended
// char, is 0xffffff80..0xffffffff as an unsigned value: 0xffffff80 / 0xffff
// gives 1 instead of 0x10000. Every target at -O2 computes that; -O0 and PoCL
// give 0x10000. The simulator's result is the compiled sequence's, worked
// through by hand for lane 0 (v_cvt_f32_u32, v_rcp_iflag_f32, v_mul_f32,
// v_trunc_f32, v_mad_f32, v_cmp_ge_f32, v_addc, v_and_b32 0xffff).
//
// Reproduce: kernels/random/randk.py run 205 --targets gfx900 --opts O0g,O2 \
//                --source kernels/random/findings/clang19_O2_udiv24_sext.cl
__kernel void rk(__global const uint *a, __global const uint *b, __global const float *fin,
                 __global uint *out, __global float *fout, __global double *dout,
                 __global uint *acc, uint n)
{
    uint gid = get_global_id(0);
    ulong l0 = upsample(a[(gid + 3) % n], b[(gid + 7) % n]);
    uint c = (uint)convert_char_sat((int)(a[gid] * 0x9e3779b9u << 7));
    uint q = (uint)convert_ushort_sat((int)(uint)(l0 >> 32));
    uint o = gid * 14u;
    out[o] = q ? c / q : 0x7d445b9u;
    out[o + 1] = c;
    out[o + 2] = q;
}

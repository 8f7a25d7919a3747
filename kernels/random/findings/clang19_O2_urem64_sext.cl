// Finding of the random-kernel differential (kernels/random/README.md,
// "Findings"): seed 670, reduced. The 64-bit form of the clang-19 -O2
// miscompile of clang19_O2_udiv24_sext.cl: `(ulong)(long)(int)x % q` with q
// at most 64 (a clz) is narrowed to a 32-bit remainder of the low word
// (v_rcp_iflag_f32 / v_mul_hi_u32 expansion of a 32-bit urem, no 64-bit
// division), as if the numerator's high word were zero, although it is
// 0xffffffff when the int is negative: the narrowing counts the numerator's
// sign bits where an unsigned division needs its leading zeros (most likely). Worked by
// hand for work-item 3 (c = 0xffffffffceb34bd1, q = 35): 0xceb34bd1 % 35 = 9,
// the simulator's value on gfx900 and gfx1030; -O0 and PoCL give the 64-bit
// remainder 14.
//
// Reproduce: kernels/random/randk.py run 670 --targets gfx900,gfx1030 --opts O0g,O2 \
//                --source kernels/random/findings/clang19_O2_urem64_sext.cl
__kernel void rk(__global const uint *a, __global const uint *b, __global const float *fin,
                 __global uint *out, __global float *fout, __global double *dout,
                 __global uint *acc, uint n)
{
    uint gid = get_global_id(0);
    ulong c = (ulong)(long)(int)(a[gid] * 0x9e3779b9u);
    ulong q = clz((ulong)(b[gid] >> (gid & 31u)));
    ulong r = q ? c % q : 0xab5f3f3860027ab3ul;
    uint o = gid * 14u;
    out[o] = (uint)r;
    out[o + 1] = (uint)(r >> 32);
    out[o + 2] = (uint)c;
    out[o + 3] = (uint)(c >> 32);
    out[o + 4] = (uint)q;
}

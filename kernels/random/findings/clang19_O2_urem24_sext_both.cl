// Finding of the random-kernel differential (kernels/random/README.md,
// "Findings"): seed 650, reduced. The same clang-19 -O2 miscompile as
// clang19_O2_urem24_sext.cl with a sign-extended divisor too:
// `(uint)(short)x % (uint)(short)y` is computed with the 24-bit float division
// and the remainder masked with 0x7fff. Worked through by hand for work-item
// 10 (c = 0xffff9ecd, q = 0xfffffc69): quotient 0, remainder 0xffff9ecd,
// masked 0x1ecd, the simulator's value on gfx900 and gfx1030; -O0 and PoCL
// give 0xffff9ecd (c < q as unsigned values).
//
// Reproduce: kernels/random/randk.py run 650 --targets gfx900,gfx1030 --opts O0g,O2 \
//                --source kernels/random/findings/clang19_O2_urem24_sext_both.cl
__kernel void rk(__global const uint *a, __global const uint *b, __global const float *fin,
                 __global uint *out, __global float *fout, __global double *dout,
                 __global uint *acc, uint n)
{
    uint gid = get_global_id(0);
    uint c = (uint)(short)(a[gid] * 0x9e3779b9u);
    uint q = (uint)(short)(b[gid] * 0x85ebca6bu);
    uint o = gid * 14u;
    out[o] = q ? c % q : 0x5ba67e86u;
    out[o + 1] = c;
    out[o + 2] = q;
}

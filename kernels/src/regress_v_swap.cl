// Regression kernel: clang-19 -O2 for gfx90a emits v_swap_b32 in mix(), which
// the simulator once refused. Found by the random-kernel differential
// (kernels/random/randk.py) and reduced from the kernel it wrote; results are
// exact (integer arithmetic, and floats converted only when not NaN).
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define SAT(conv, x) ({ __typeof__(x) t_ = (x); isnan(t_) ? 0 : conv(t_); })

__attribute__((noinline))
uint mix(uint a, uint b, ulong c)
{
    uint x0 = a ^ 0x11205edcu;
    uint x1 = a ^ 0xf9970974u;
    uint x2 = a ^ 0x62b278afu;
    uint x3 = a ^ 0xa6d2de87u;
    uint x4 = a ^ 0xdf0e22ebu;
    uint x5 = a ^ 0x8abc55ccu;
    uint x6 = a ^ 0xfaa34e13u;
    uint x7 = a ^ 0x4b93f2bcu;
    x1 = b;
    ulong l0 = c, l1 = c * 3ul, l2 = (ulong)a << 7;
    float f0 = convert_float(a), f1 = 1.5f, f2 = convert_float((int)b);
    double g0 = convert_double(c), g1 = -2.5;
    uint priv[8] = {a, b, 1u, 2u, 3u, 4u, 5u, 6u};
    if ((clz(upsample((ushort)x2, (ushort)(uint)l2)) & 1u) == 0u) {
        priv[(uint)convert_char_sat((int)0x1u) & 7u] ^= x6;
        x2 += priv[(uint)(l2 >> 32) & 7u];
        l1 = ({ ulong q1 = (l0 << x0); q1 ? ((l2 & (ulong)x0)) / q1 : 0x4217333b4cbff8eul; });
    } else {
        switch (({ uint q2 = (uint)(l2 >> 32); q2 ? (x1) % q2 : 0xcda105dbu; }) & 3u) {
        case 0u: {
            x3 = (abs_diff((int)(x2 << 0x965c4c92u) >> 1, (int)((uint)l1 * x2) >> 1) >> 0x14f98759u);
        }
        }
        if ((hadd(({ uint q3 = x5; q3 ? (x6) % q3 : 0xb114b1fcu; }), clz(x4)) & 4u) == 0u) {
            g1 = g0;
            f0 = (-(ceil(fmax(f0, f2))));
        }
        x7 |= 47u;
    }
    if ((x2 & 7u) == 0u) {
        uint w4 = (uint)((int)x3 >= (int)0x1u);
        while (w4 != 0u) {
            x5 = x2;
            w4 >>= 1 + (w4 & 1u);
        }
        x6 -= (uint)l2;
    }
    if ((a & 1u) == 0u)
        return x0 + x1 + x2 + (uint)l0 + (uint)(l1 >> 32) + SAT(convert_uint_sat, f0) + (uint)SAT(convert_long_sat, g0) + priv[b & 7u];
    return x3 ^ x4 ^ x5 ^ x6 ^ x7 ^ (uint)l2 ^ SAT(convert_uint_sat, f1 + f2) ^ (uint)SAT(convert_long_sat, g1);
}

__kernel void regress_v_swap(__global const uint *a, __global const uint *b,
                             __global uint *out, uint n)
{
    uint gid = get_global_id(0);
    if (gid < n)
        out[gid] = mix(a[gid], b[gid], (ulong)a[gid] << 32 | b[gid]);
}

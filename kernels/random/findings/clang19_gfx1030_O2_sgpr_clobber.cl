// Finding of the random-kernel differential (kernels/random/README.md,
// "Findings"): seed 220, reduced. clang-19 -O2 for gfx1030 (wave32) keeps x5
// (0xda324ee6) in s0 across the switch, and the code of the other arm of the
// divergent branch reuses s0 for its saved EXEC, so work-items that returned
// early store the EXEC mask as x5. The simulator executes the compiled code as
// the ISA defines it (checked instruction by instruction with `amdsim debug`);
// gfx1030 -O0 and every other target agree with PoCL.
//
// Reproduce: kernels/random/randk.py run 220 --targets gfx1030 --opts O2 \
//                --source kernels/random/findings/clang19_gfx1030_O2_sgpr_clobber.cl
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define SAT(conv, x) ({ __typeof__(x) t_ = (x); isnan(t_) ? 0 : conv(t_); })

static void store(__global uint *out, __global float *fout, __global double *dout, uint gid,
                  uint x0, uint x1, uint x2, uint x3, uint x4, uint x5, uint x6, uint x7,
                  ulong l0, ulong l1, ulong l2, float f0, float f1, float f2, double g0, double g1)
{
    uint xs[14] = {x0, x1, x2, x3, x4, x5, x6, x7, (uint)l0, (uint)(l0 >> 32), (uint)l1, (uint)(l1 >> 32), (uint)l2, (uint)(l2 >> 32)};
    for (uint i = 0; i < 14u; i++)
        out[gid * 14u + i] = xs[i];
}

uint h0(uint a, uint b, ulong c)
{
}

uint h1(uint a, uint b, ulong c)
{
}

__kernel void rk(__global const uint *a, __global const uint *b, __global const float *fin,
                 __global uint *out, __global float *fout, __global double *dout,
                 __global uint *acc, uint n)
{
    __local uint lds[256];
    uint gid = get_global_id(0), lid = get_local_id(0);
    uint i0 = min(gid, n - 1u);
    uint x0 = a[i0], x1 = b[i0], x2 = gid, x3 = a[(i0 + 1u) % n] ^ 0xac510867u;
    uint x4 = b[(i0 * 7u) % n], x5 = 0xda324ee6u, x6 = lid, x7 = x0 * 0x9e3779b9u;
    ulong l0 = upsample(x0, x1), l1 = (ulong)x1 * 0xd2a7e0f7ul, l2 = 0x8dcb2959f658c743ul;
    float f0 = fin[i0], f1 = fin[(i0 + 3u) % n], f2 = convert_float((int)x1);
    double g0 = convert_double(fin[(i0 + 5u) % n]) * 3.0, g1 = convert_double(x0);
    uint priv[8] = {x0, x1, x2, x3, 7u, 11u, 13u, 17u};
    lds[lid] = x0;
    barrier(CLK_LOCAL_MEM_FENCE);
    x4 ^= lds[(lid + 69u) % get_local_size(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    switch (({ uint q11 = x2; q11 ? (x0) % q11 : 0xf2e9147eu; }) & 3u) {
    case 0u: {
    }
        break;
    case 1u: {
    }
    case 2u: {
        f1 = (((1e30f * f0) - (f0 - 1e30f)) + convert_float_rtn((int)x1));
    }
        break;
    default: {
        uint w17 = (uint)mul_hi((int)x4, (int)(uint)(l2 >> 32));
        while (w17 != 0u) {
            if (((uint)popcount(l1) & 7u) == 0u) {
                store(out, fout, dout, gid, x0, x1, x2, x3, x4, x5, x6, x7, l0, l1, l2, f0, f1, f2, g0, g1);
                return;
            }
            if ((int)(uint)max((int)(uint)popcount((ulong)x6), (int)(x5 & (uint)l1)) < (int)((41u * x1) + sub_sat((uint)(l0 >> 32), (uint)(l0 >> 32)))) {
            } else {
                l1 = 0x980869bd6bcd81d5ul;
            }
            w17 >>= 1 + (w17 & 1u);
        }
    }
    }
    if ((uint)l0 < (uint)clz((short)({ uint q23 = (uint)l2; q23 ? (0x8e73600eu) / q23 : 0xf4b76c60u; }))) {
        switch (x3 & 3u) {
        case 0u: {
            if ((rotate((uint)(ushort)(x7 ^ 0x80000000u), x6) & 2u) == 0u) {
            } else {
                x3 = ({ short2 v28 = hadd((short2)((short)(uint)SAT(convert_int_sat, f1), (short)(uint)(uchar)abs_diff(x3, x4)), (short2)((short)mul24((uint)popcount((ushort)x7) & 0xffffffu, (uint)convert_int_sat((long)l1) & 0xffffffu), (short)(uint)SAT(convert_uint_sat, (g0 * g1)))); (uint)(v28.x & 0xffffu) | (uint)(v28.y & 0xffffu) << 16; });
            }
        }
        case 1u: {
        }
        case 2u: {
            switch ((uint)(uchar)0xb400d757u & 3u) {
            case 0u: {
            }
            case 1u: {
            }
            case 2u: {
            }
            default: {
                x5 |= x2;
            }
            }
        }
        default: {
        }
        }
    }
        store(out, fout, dout, gid, x0 ^ priv[x1 & 7u], x1, x2, x3, x4, x5, x6, x7, l0, l1, l2, f0, f1, f2, g0, g1);
}

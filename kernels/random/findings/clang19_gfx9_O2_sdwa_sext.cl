// Finding of the random-kernel differential (kernels/random/README.md,
// "Findings"): seed 301, reduced. At -O2 for GFX9 (gfx900, gfx906, gfx908,
// gfx90a), clang-19 computes `x + (uint)(ushort)sub_sat((char)y, (char)x)` as
//     v_sub_i16 v2, v2, v5 clamp              ; the bytes, shifted up by 8
//     v_add_u32_sdwa v2, sext(v2), v4 ... src0_sel:BYTE_1
// SDWA `sext` of BYTE_1 sign-extends the char to 32 bits, but the source
// converts it to ushort first (zero-extended to 32 bits): a negative result
// adds 0xffffff80..0xffffffff instead of 0xff80..0xffff, 0x10000 too little.
// The SDWA peephole makes the fold: the same build with
// `-mllvm -amdgpu-sdwa-peephole=false` computes `v_ashrrev_i16 8` (whose high
// half GFX9 zeroes) and a plain add, and agrees with PoCL on the simulator.
// GFX10 at -O2, and every target at -O0, agree with PoCL.
//
// Reproduce: kernels/random/randk.py run 301 --targets gfx900,gfx1030 --opts O2 \
//                --source kernels/random/findings/clang19_gfx9_O2_sdwa_sext.cl
__kernel void rk(__global const uint *a, __global const uint *b, __global const float *fin,
                 __global uint *out, __global float *fout, __global double *dout,
                 __global uint *acc, uint n)
{
    uint gid = get_global_id(0);
    uint x = a[gid], y = b[gid];
    out[gid] = x + (uint)(ushort)sub_sat((char)y, (char)x);
}

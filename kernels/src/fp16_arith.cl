// fp16_arith: cl_khr_fp16 arithmetic on half, half2 and half4.
// Exercises: f16 VALU operations (v_add/sub/mul/fma/min/max/sqrt/rcp,
// v_div_fixup_f16, v_cmp_*_f16, conversions to and from f32 and i32/i16),
// packed math on half2/half4 (v_pk_add/mul/fma/min/max_f16 on GFX9 and
// later), comparisons producing short masks, select.
// Contraction is off (FP_CONTRACT OFF): a * b + c is two roundings.
// Inputs: a, b, c hold 4 halves per work-item, k one int per work-item.
// Let s = gid & 3 and (x, y, z) = (a[4 * gid + s], b[4 * gid + s],
// c[4 * gid + s]); va, vb, vc = vload4(gid, a/b/c).
// Outputs for gid < n:
//   hout[40 * gid + 0..40] halves:
//     0 x + y, 1 x - y, 2 x * y, 3 fma(x, y, z), 4 mad(x, y, z),
//     5 x / y, 6 sqrt(fabs(x)), 7 fmin(x, y), 8 fmax(x, y), 9 fabs(x),
//     10 -x, 11 x * y + z (two roundings), 12 (half)((float)x * 3.0f +
//     (float)k), 13 convert_half(k), 14 convert_half((short)k),
//     15 x < y ? x : z, 16 select(x, y, (short)(x >= z)), 17 copysign(x, y),
//     18 floor(x), 19 ceil(x),
//     20..23 va + vb, 24..27 va * vb, 28..31 fma(va, vb, vc),
//     32..33 fmax(va.xy, vb.wz), 34..35 va.zw - vc.xy,
//     36..39 select(va, vb, va < vb)
//   fout[6 * gid + 0..6] floats: (float)x, (float)x * (float)y (exact),
//     convert_float4(va * vc)
//   iout[12 * gid + 0..12] ints: convert_int(x) (toward zero; x finite and
//     in int range), convert_int_sat(x * y) (7 for a NaN product: ROCm's
//     library clamps a NaN to -65504 instead of giving 0), x < y, x == y, isnan(x + y),
//     isinf(x * y), isless(x, z), isgreaterequal(y, z),
//     (int4) of (va > vb) (-1 or 0 per lane)
// Dispatch: 1-D, any size.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL FP_CONTRACT OFF

kernel void fp16_arith(global const half *a, global const half *b,
                       global const half *c, global const int *k,
                       global half *hout, global float *fout,
                       global int *iout, uint n) {
  uint gid = (uint)get_global_id(0);
  if (gid >= n)
    return;
  uint s = gid & 3;
  half x = a[4 * gid + s];
  half y = b[4 * gid + s];
  half z = c[4 * gid + s];
  int kk = k[gid];
  global half *h = hout + 40 * gid;
  h[0] = x + y;
  h[1] = x - y;
  h[2] = x * y;
  h[3] = fma(x, y, z);
  h[4] = mad(x, y, z);
  h[5] = x / y;
  h[6] = sqrt(fabs(x));
  h[7] = fmin(x, y);
  h[8] = fmax(x, y);
  h[9] = fabs(x);
  h[10] = -x;
  h[11] = x * y + z;
  h[12] = (half)((float)x * 3.0f + (float)kk);
  h[13] = convert_half(kk);
  h[14] = convert_half((short)kk);
  h[15] = x < y ? x : z;
  h[16] = select(x, y, (short)(x >= z));
  h[17] = copysign(x, y);
  h[18] = floor(x);
  h[19] = ceil(x);

  half4 va = vload4(gid, a);
  half4 vb = vload4(gid, b);
  half4 vc = vload4(gid, c);
  vstore4(va + vb, 5, h);
  vstore4(va * vb, 6, h);
  vstore4(fma(va, vb, vc), 7, h);
  half2 m = fmax(va.xy, vb.wz);
  half2 d = va.zw - vc.xy;
  vstore2(m, 16, h);
  vstore2(d, 17, h);
  vstore4(select(va, vb, va < vb), 9, h);

  global float *f = fout + 6 * gid;
  f[0] = (float)x;
  f[1] = (float)x * (float)y;
  vstore4(convert_float4(va * vc), 0, f + 2);

  global int *o = iout + 12 * gid;
  o[0] = isfinite(x) ? convert_int(x) : 0;
  half p = x * y;
  o[1] = isnan(p) ? 7 : convert_int_sat(p);
  o[2] = x < y;
  o[3] = x == y;
  o[4] = isnan(x + y);
  o[5] = isinf(p);
  o[6] = isless(x, z);
  o[7] = isgreaterequal(y, z);
  vstore4(convert_int4(va > vb), 0, o + 8);
}

// vec_float: float and double vectors through vloadN/vstoreN: float4 and
// float3 element-wise arithmetic, double2 arithmetic with division and
// square root, comparisons, select, swizzles and shuffles.
// Only operations OpenCL requires to be correctly rounded are used (+, -, *,
// fma, fabs, fmin, fmax, floor, ceil, rint, copysign, and for double also /
// and sqrt), with contraction off so that every result is exactly defined.
// Exercises: v_pk_* on gfx90a (packed f32), v_fma/v_mul/v_add f32 and f64,
// v_div_scale/fmas/fixup_f64, v_sqrt_f64 and its refinement, v_min/v_max
// with NaN inputs, v_cndmask over vector lanes, dwordx3/dwordx4 memory.
// Inputs: a[4 i ..], b[4 i ..] (floats: signed zeros, infinities, NaN,
// denormals, the largest finite value in the first work-items; then random
// values), c[2 i ..] (doubles, likewise).
// Outputs: fout[12 i ..] (floats), dout[4 i ..] (doubles).
#pragma OPENCL FP_CONTRACT OFF

kernel void vec_float(global const float *a, global const float *b,
                      global const double *c, global float *fout,
                      global double *dout, uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  float4 x = vload4(i, a);
  float4 y = vload4(i, b);
  float4 s = x + y;
  float4 p = x * y;
  float4 f = fma(x, y.wzyx, s);
  float4 m = select(fmin(x, y), fmax(x, y), x < y);
  vstore4(s - p, 0, fout + 12 * i);
  vstore4(f + fabs(m), 0, fout + 12 * i + 4);
  float3 t = vload3(0, a + 4 * i + 1);
  float3 r = floor(t * (float3)(0.5f, 4.0f, -2.0f)) + ceil(t) -
             rint(y.xyz) + copysign(t.zxy, y.yzw);
  vstore3(r, 0, fout + 12 * i + 8);
  fout[12 * i + 11] = (x.x < y.y ? x.z : y.w) + (float)(isless(x.w, y.x));

  double2 u = vload2(i, c);
  double2 v = vload2((i + 1) % n, c); // the next work-item's pair
  double2 q = u / v;
  double2 w = sqrt(fabs(u)) + v * u.yx;
  vstore2(q, 0, dout + 4 * i);
  // fabs: fmax of +0 and -0 may return either (OpenCL leaves it open)
  vstore2(fma(w, q, -u) + fabs(fmax(u, v)), 0, dout + 4 * i + 2);
}

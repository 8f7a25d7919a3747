// half_conv: half-precision storage without cl_khr_fp16 (PoCL 3.1 does not
// offer the extension, so there is no half arithmetic here): vload_half,
// vload_half4, vloada_half2, and vstore_half with every rounding suffix,
// from float and from double, scalar and vector.
// Exercises: v_cvt_f32_f16, v_cvt_f16_f32 and the library's directed
// rounding of f32 and f64 to f16 (integer sequences on the mantissa bits),
// 16-bit loads and stores, vector half loads and stores.
// Inputs: h[4 i .. 4 i + 3] (half bit patterns: zeros, denormals, the
// largest half, infinities, NaNs, random), f[i] (float: values that round
// differently in each mode, ties, overflow to infinity, underflow to
// denormals and zero), d[i] (double, likewise).
// Outputs: fout[6 i ..] (floats read from halves: exact), hout[16 i ..]
// (halves stored: correctly rounded in the mode the suffix names).
kernel void half_conv(global const half *h, global const float *f,
                      global const double *d, global float *fout,
                      global half *hout, uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  float4 v = vload_half4(i, h);
  vstore4(v, 0, fout + i * 6);
  float2 w = vloada_half2(2 * i + 1, h);
  fout[i * 6 + 4] = vload_half(4 * i + 2, h) + 0.0f;
  fout[i * 6 + 5] = w.y;
  float x = f[i];
  double y = d[i];
  global half *o = hout + i * 16;
  vstore_half(x, 0, o);
  vstore_half_rte(x, 1, o);
  vstore_half_rtz(x, 2, o);
  vstore_half_rtp(x, 3, o);
  vstore_half_rtn(x, 4, o);
  vstore_half(y, 5, o);
  vstore_half_rtz(y, 6, o);
  vstore_half_rtp(y, 7, o);
  vstore_half_rtn(y, 8, o);
  vstore_half_rte(y, 9, o);
  // float4 -> half4 with rounding toward zero, into halves 10..13
  float4 s = (float4)(x, -x, x * 0.5f, v.x);
  vstore_half4_rtz(s, 0, o + 10);
  // an aligned half2 store with rounding toward +infinity at halves 14..15
  vstorea_half2_rtp((float2)(v.y, -x), 7, o);
}

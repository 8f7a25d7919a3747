// convert_round: explicit conversions with every rounding suffix, with and
// without saturation, between float, double and the integer types.
// Exercises: v_cvt_i32_f32/v_cvt_u32_f32 after v_rndne/v_floor/v_ceil/
// v_trunc (and the f64 forms), the clamps of the saturating conversions, the
// 64-bit integer <-> float expansions, and the rounding-mode-directed
// int -> float and double -> float conversions of the device library.
// Inputs: f[i] (float, never NaN: OpenCL says a saturating conversion of NaN
// is 0, ROCm's library gives the lower bound, see kernels/random/README.md;
// infinities and values beyond every integer range are included), d[i]
// (double, never NaN), k[i] (64-bit integer patterns). The non-saturating
// float -> int conversions (undefined out of range) see f clamped to
// +-2e9. The saturating conversions with _rte take run-time values only (the
// constant case is a PoCL 3.1 problem, kernels/random/README.md).
// Outputs: iout[16 i ..] (int results, as uint), lout[4 i ..] (long
// results), fout[8 i ..] (float results, correctly rounded in the mode the
// suffix names).
kernel void convert_round(global const float *f, global const double *d,
                          global const ulong *k, global uint *iout,
                          global ulong *lout, global float *fout, uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  float x = f[i];
  double y = d[i];
  ulong u = k[i];
  float xc = fmin(fmax(x, -2.0e9f), 2.0e9f);
  double yc = fmin(fmax(y, -2.0e9), 2.0e9);
  global uint *io = iout + i * 16;
  io[0] = (uint)convert_int_rte(xc);
  io[1] = (uint)convert_int_rtz(xc);
  io[2] = (uint)convert_int_rtp(xc);
  io[3] = (uint)convert_int_rtn(xc);
  io[4] = (uint)convert_int_sat_rte(x);
  io[5] = (uint)convert_int_sat_rtz(x);
  io[6] = convert_uint_sat_rtp(x);
  io[7] = convert_uint_sat_rtn(x);
  io[8] = (uint)convert_uchar_sat(x) | ((uint)convert_uchar_sat_rte(x) << 8) |
          ((uint)(uchar)convert_char_sat_rtp(x) << 16) |
          ((uint)(uchar)convert_char_sat_rtn(x) << 24);
  io[9] = (uint)convert_ushort_sat_rtz(x) |
          ((uint)(ushort)convert_short_sat_rte(x) << 16);
  io[10] = (uint)convert_int_rte(yc);
  io[11] = (uint)convert_int_rtp(yc);
  io[12] = (uint)convert_int_sat_rtn(y);
  io[13] = convert_uint_sat(y);
  io[14] = (uint)convert_short_sat_rtz(y) & 0xffffu;
  io[15] = (uint)convert_int_sat((long)u) ^ convert_uint_sat((long)u);
  global ulong *lo = lout + i * 4;
  lo[0] = (ulong)convert_long_sat_rtz(x);
  lo[1] = convert_ulong_sat_rtp(x);
  lo[2] = (ulong)convert_long_sat_rtn(y);
  lo[3] = convert_ulong_sat(y);
  global float *fo = fout + i * 8;
  fo[0] = convert_float_rtz((uint)u);
  fo[1] = convert_float_rtp((int)u);
  fo[2] = convert_float_rtn((long)u);
  fo[3] = convert_float_rte(u);
  fo[4] = convert_float_rtz(y);
  fo[5] = convert_float_rtp(y);
  fo[6] = convert_float_rtn(y);
  fo[7] = convert_float_rtp(u);
}

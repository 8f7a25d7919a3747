// regress_fdiv_range: double division and square root over the whole
// exponent range. A random kernel (kernels/random, seed 222) computed
// 1.3e8 / (1.3e308 + 1.0) as infinity on the simulator: v_div_scale_f64
// scaled a denominator whose reciprocal is denormal up by 2^128 (it
// overflowed) when the quotient was normal, and v_div_fmas_f64 rounded a
// denormal quotient twice. Inputs pair numerators and denominators from
// every part of the range (denormal, tiny, ordinary, huge), so every
// branch of v_div_scale_f64 and the underflow case of v_div_fixup_f64 are
// taken. Both results are correctly rounded in OpenCL C (double `/` and
// `sqrt`), so they are compared bit for bit.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void regress_fdiv_range(__global const double *a,
                                 __global const double *b,
                                 __global double *q, __global double *r,
                                 uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  double x = a[gid], y = b[gid];
  q[gid] = x / y;
  r[gid] = sqrt(fabs(x)) / (fabs(y) + 1.0);
}

// fp64_half: double precision arithmetic and half-precision storage.
// Exercises: f64 add/mul/fma/division/sqrt (64-bit VGPR pairs, f64
// comparison and select), conversions f16 <-> f32 <-> f64 through
// vload_half/vstore_half (core OpenCL C; no cl_khr_fp16 arithmetic), and
// conversion of doubles to integers.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void fp64_half(__global const double *a, __global const half *h,
                        __global double *out, __global half *hout,
                        __global int *iout, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  double x = a[gid];
  float hf = vload_half(gid, h);
  double y = fma(x, 1.5, (double)hf);
  double q = y / (fabs(x) + 1.0);
  double s = sqrt(fabs(y) + 0.25);
  out[gid] = q > s ? q - s : s * 2.0 + q;
  vstore_half((float)(q * 0.5), gid, hout);
  iout[gid] = (int)(x * 3.0) - (int)hf;
}

// saxpy: y[i] = a * x[i] + y[i] for i < n, plus a few float library
// functions on the result so that the code uses more than v_fma_f32.
// Exercises: a float scalar kernel argument (SGPR operand), fused
// multiply-add, read-modify-write of a global buffer, fabs/fmin/fmax/floor/
// sqrt/division (results of sqrt and division are within the OpenCL
// full-profile ULP bounds, not necessarily correctly rounded).
__kernel void saxpy(float a, __global const float *x, __global float *y,
                    __global float *z, uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  float r = fma(a, x[i], y[i]);
  y[i] = r;
  float m = fmax(fmin(r, 1000.0f), -1000.0f);
  z[i] = sqrt(fabs(m)) + floor(m) + m / (1.0f + fabs(a));
}

// mfma_dot: the gfx908/gfx90a matrix and dot-product built-ins from OpenCL C
// (build.sh builds it for gfx908 and gfx90a only; gfx900 has neither).
//   mfma32: one wave computes D = A x B + C with v_mfma_f32_32x32x2f32: lane l
//     holds A[l % 32][l / 32] in a[l] and B[l / 32][l % 32] in b[l]; C and D
//     are 32x32, 16 floats per lane, element r of lane l being row
//     8 * (r / 4) + 4 * (l / 32) + r % 4, column l % 32 (the MI100/MI200 guides'
//     layout). crates/sim/tests/matrix_kernels.rs checks D against a host product.
//   dot4: d[i] = c[i] + the sum of the products of the four signed bytes of
//     a[i] and b[i] (v_dot4_i32_i8, no clamp).
typedef float float16_t __attribute__((ext_vector_type(16)));
kernel void mfma32(global const float *a, global const float *b,
                   global const float *c, global float *d) {
  uint l = get_local_id(0);
  float16 acc = vload16(l, c);
  acc = __builtin_amdgcn_mfma_f32_32x32x2f32(a[l], b[l], acc, 0, 0, 0);
  vstore16(acc, l, d);
}

kernel void dot4(global const uint *a, global const uint *b,
                 global const int *c, global int *d) {
  uint i = get_global_id(0);
  d[i] = __builtin_amdgcn_sdot4(a[i], b[i], c[i], false);
}

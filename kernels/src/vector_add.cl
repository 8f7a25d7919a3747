// vector_add: c[i] = a[i] + b[i] for i < n.
// Exercises: global loads/stores through kernel-argument pointers, the
// work-item id (workgroup id * workgroup size + local id), a bounds check
// that turns off the tail lanes of the last wave (EXEC masking).
__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *c, uint n) {
  size_t i = get_global_id(0);
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}

// local_reverse: each work-group reverses its slice of `in` through two
// __local buffers whose sizes the dispatch gives (dynamic LDS):
//   out_a[g] = in[base + (L - 1 - l)],  out_b[g] = 3 * in[base + (L - 1 - l)]
// where l is the local id, L the local size and base the group's first item.
// Built by kernels/examples/build.sh (clang-19, gfx900).

kernel void local_reverse(global const uint *in, global uint *out_a,
                          global uint *out_b, local uint *a, local uint *b) {
  size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
  a[l] = in[g];
  b[l] = 3 * in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  out_a[g] = a[n - 1 - l];
  out_b[g] = b[n - 1 - l];
}

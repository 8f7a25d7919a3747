// reduce_sum: per-workgroup sum of in[0..n) into partial[group].
// Exercises: local memory (LDS), work-group barriers, a tree reduction whose
// active-lane count halves every step (EXEC shrinks within a wave and whole
// waves fall idle), get_local_size/get_group_id.
// The local size must be a power of two no larger than 256.
#define MAX_WG 256

__kernel void reduce_sum(__global const uint *in, __global uint *partial,
                         uint n) {
  __local uint tile[MAX_WG];
  size_t gid = get_global_id(0);
  size_t lid = get_local_id(0);
  size_t lsize = get_local_size(0);
  tile[lid] = gid < n ? in[gid] : 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = lsize / 2; s > 0; s >>= 1) {
    if (lid < s) {
      tile[lid] += tile[lid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    partial[get_group_id(0)] = tile[0];
  }
}

// cf_loop_if: an if nested inside a for loop whose trip count is uniform
// (the kernel argument rounds), so only the if diverges.
// The loop runs lines 21-26: in iteration k, the condition at
// line 22 sends the lanes whose v = in[gid] has bit k % 32 set into the
// then-arm at line 23; all lanes run line 25.
// Inputs of kernels/pocl/gen.py, mixed within every wave of 20 or more
// lanes:
//   v = 0 never takes the then-arm, v = 0xffffffff always does, random v
//   take it in about half of the iterations, each lane in different ones;
//   rounds = 0 (no iteration: the loop is skipped by the whole wave), 5, 40
//   (bits wrap around after 32 iterations).
// All lanes store acc at line 27. Work-items with gid >= n return at
// line 18.
__kernel void cf_loop_if(__global const uint *in, __global uint *out,
                         uint rounds, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint acc = v;
  for (uint k = 0; k < rounds; ++k) {
    if ((v >> (k & 31u)) & 1u) {
      acc += in[(acc >> 4) % n];
    }
    acc = acc * 5u + k;
  }
  out[gid] = acc;
}

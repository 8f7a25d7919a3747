// cf_early_return: work-items leave the kernel early, some before a loop
// and some inside it, while the rest of the wave goes on.
// v = in[gid]:
//   v % 7 == 0 (0, 7, about 1 in 7 random values) returns at line 21
//     without storing anything (out keeps its initial contents);
//   the other lanes run the loop at lines 23-29, v & 15 iterations
//     (none for v = 16, so such a lane stores acc = v at once). In each
//     iteration acc is updated with a load at a data-dependent index (line
//     24); when (acc & 7) == 5 (about 1 in 8 iterations) the lane stores
//     the iteration number k (line 26) and returns at line 27;
//   lanes that finish all iterations store acc at line 30.
// The random inputs of kernels/pocl/gen.py mix all three exits within every
// wave of 32 or more lanes. Work-items with gid >= n return at line 18.
__kernel void cf_early_return(__global const uint *in, __global uint *out,
                              uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  if (v % 7u == 0u)
    return;
  uint acc = v;
  for (uint k = 0; k < (v & 15u); ++k) {
    acc = acc * 5u + in[(acc >> 3) % n];
    if ((acc & 7u) == 5u) {
      out[gid] = k;
      return;
    }
  }
  out[gid] = acc;
}

// cf_uniform: a uniform if/else (on the kernel argument mode: every lane
// of the wave takes the same arm, a scalar branch that leaves EXEC alone)
// with a divergent if inside its then-arm.
// mode is odd in the cases mode = 1 and mode = 3 of kernels/pocl/gen.py:
//   the whole wave takes the then-arm at lines 20-23; inside it, lanes
//   with bit 2 of v = in[gid] set (4, 0xffffffff, about half of the random
//   values) take the divergent then-arm at line 22;
// mode is even in the cases mode = 2: the whole wave takes the else-arm at
//   line 25.
// All lanes store r at line 27. Work-items with gid >= n return at line
// 16.
__kernel void cf_uniform(__global const uint *in, __global uint *out,
                         uint mode, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint r = v;
  if (mode & 1u) {
    r = in[(v >> 3) % n] + mode;
    if (v & 4u) {
      r ^= in[(r >> 5) % n];
    }
  } else {
    r = in[(v * mode) % n] - v;
  }
  out[gid] = r;
}

// cf_if: an if without else; the lanes that skip it wait at the join.
// Inputs of kernels/pocl/gen.py, v = in[gid], mixed within every wave of
// 20 or more lanes:
//   (v & 15) < 6 (0, 5, 0xfffffff0, 6 of every 16 random values) takes the
//     then-arm at lines 16-17: r = (v ^ 0x9e3779b9) * 3 + in[(v >> 8) % n];
//   (v & 15) >= 6 (6, 15, 0xffffffff, ...) skips it: r = v ^ 0x9e3779b9.
// The condition is at line 15. All lanes store r at line 19.
// Work-items with gid >= n return at line 12.
__kernel void cf_if(__global const uint *in, __global uint *out, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint r = v ^ 0x9e3779b9u;
  if ((v & 15u) < 6u) {
    uint t = in[(v >> 8) % n];
    r = r * 3u + t;
  }
  out[gid] = r;
}

// cf_nested_if: an if/else nested in the then-arm of an if/else, the shape
//   a; if (c1) { b; if (c2) c; else d; e; } else f; g;
// with a at line 18, c1 at 19, b at 20, c2 at 21, c at 22, d at 24,
// e at 26, f at 28 and g at 30.
// Inputs of kernels/pocl/gen.py, v = in[gid], mixed within every wave of
// 20 or more lanes:
//   odd v with bit 1 set (3, 0xffffffff, ...) runs a, b, c, e, g;
//   odd v with bit 1 clear (1, 5, ...) runs a, b, d, e, g;
//   even v (0, 2, 0xfffffffe, ...) runs a, f, g.
// Every arm loads from in at a data-dependent index, so all of them stay
// branches at -O2. Work-items with gid >= n return at line 16.
__kernel void cf_nested_if(__global const uint *in, __global uint *out,
                           uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint r = v + (uint)gid;
  if (v & 1u) {
    uint t = in[(v >> 1) % n];
    if (v & 2u) {
      r += in[(v >> 2) % n];
    } else {
      r ^= in[(v >> 5) % n] << 1;
    }
    r = r * 3u + t;
  } else {
    r = in[(r >> 3) % n] - v;
  }
  out[gid] = r;
}

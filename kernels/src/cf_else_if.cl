// cf_else_if: an else-if chain of three conditions and a final else.
// v = in[gid]:
//   v < 0x100 (0, 0xff, ...) takes the first arm, line 20;
//   0x100 <= v < 0x10000 (0x100, 0xffff, ...) takes the second, line 22;
//   larger odd v (0x10001, 0xffffffff, ...) takes the third, line 24;
//   larger even v (0x10000, 0xfffffffe, ...) takes the else-arm, line 26.
// The conditions are at lines 19, 21 and 23; a lane that fails one
// goes on to the next. The inputs of kernels/pocl/gen.py have random
// magnitudes (random values shifted right by 0, 8, 16 or 24 bits), so
// every wave of 20 or more lanes mixes all four arms. All lanes store r at
// line 28. Work-items with gid >= n return at line 16.
__kernel void cf_else_if(__global const uint *in, __global uint *out,
                         uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint r;
  if (v < 0x100u) {
    r = in[v % n] + 1u;
  } else if (v < 0x10000u) {
    r = in[(v >> 8) % n] * 3u;
  } else if (v & 1u) {
    r = in[(v >> 16) % n] ^ v;
  } else {
    r = in[(v >> 24) % n] - v;
  }
  out[gid] = r;
}

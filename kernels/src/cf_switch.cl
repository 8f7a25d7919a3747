// cf_switch: a switch with four cases, one falling through into the next,
// and a default. v = in[gid], r = v >> 3; the switch is at line 19:
//   v % 6 == 0 (0, 6, ...) runs case 0, line 21;
//   v % 6 == 1 (1, 7, ...) runs case 1, line 24;
//   v % 6 == 2 (2, 0x80000000, ...) runs case 2, line 27, and falls
//     through into case 3;
//   v % 6 == 3 (3, 0xffffffff, ...) runs case 3, line 30;
//   v % 6 == 4 or 5 (4, 5, ...) runs the default, line 33.
// Every case loads from in at a data-dependent index, so none of them is
// turned into a select or a table. The random inputs of
// kernels/pocl/gen.py mix all cases within every wave of 20 or more lanes.
// All lanes store r at line 36. Work-items with gid >= n return at line 16.
__kernel void cf_switch(__global const uint *in, __global uint *out, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint r = v >> 3;
  switch (v % 6u) {
  case 0:
    r = in[r % n] + 1u;
    break;
  case 1:
    r = r * r + in[(r * 3u) % n];
    break;
  case 2:
    r += in[(v ^ 0xffu) % n];
    // fall through
  case 3:
    r ^= in[(r + 7u) % n] << 2;
    break;
  default:
    r = ~in[(v >> 7) % n];
    break;
  }
  out[gid] = r;
}

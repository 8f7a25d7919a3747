// cf_if_else: a two-sided if/else with work in both arms.
// Each arm loads a table entry at a data-dependent index (a load that may
// not be speculated), so the branch survives -O2 as an if/else region.
// Inputs of kernels/pocl/gen.py, v = in[gid], mixed within every wave of
// 20 or more lanes:
//   v % 3 == 0 (0, 3, 0xffffffff, about a third of the random values) takes
//     the then-arm at lines 21-22: r = in[(v >> 4) % n] * 5 + v;
//   any other v (1, 2, 0x80000000, ...) takes the else-arm at lines
//     24-25: r = (in[(v ^ 0x55) % n] >> 3) ^ v.
// The condition is at line 20; both arms join at line 27, which
// stores r. Work-items with gid >= n (the tail of the last group) return at
// line 17.
__kernel void cf_if_else(__global const uint *in, __global uint *out,
                         uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint r;
  if (v % 3u == 0u) {
    uint a = in[(v >> 4) % n];
    r = a * 5u + v;
  } else {
    uint b = in[(v ^ 0x55u) % n];
    r = (b >> 3) ^ v;
  }
  out[gid] = r;
}

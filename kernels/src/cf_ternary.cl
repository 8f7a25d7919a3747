// cf_ternary: conditional expressions that clang keeps as branches at -O2
// (their arms load from memory or divide), one statement per line.
// v = in[gid]:
//   line 17: odd v load a = in[(v >> 1) % n], even v a = in[(v >> 9) % n] * 3;
//   line 18: v with bit 1 set compute b = v / 3, the others b = v * 5;
//   line 19: lanes with a > b load c = in[(a ^ b) % n], the others
//     c = a + b.
// The random inputs of kernels/pocl/gen.py mix both outcomes of every
// condition within every wave of 20 or more lanes. All lanes store c at
// line 20. Work-items with gid >= n return at line 15.
__kernel void cf_ternary(__global const uint *in, __global uint *out,
                         uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint a = (v & 1u) ? in[(v >> 1) % n] : in[(v >> 9) % n] * 3u;
  uint b = (v & 2u) ? v / 3u : v * 5u;
  uint c = (a > b) ? in[(a ^ b) % n] : a + b;
  out[gid] = c;
}

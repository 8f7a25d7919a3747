// cf_call: non-inlined functions called by a subset of the lanes, so a
// frame is entered by only some lanes of the wave; one of the functions
// has an early return and an if/else of its own.
// v = in[gid], r = v:
//   lanes with bit 3 of v set (8, 0x18, 0xffffffff, ...) call scale at line
//     43 (body lines 19-20); the others skip it;
//   lanes with (v >> 4) % 3 != 0 (0x10, 0x50, 0xd0, 0x110, ...) call
//     classify(x = v >> 6) at line 46 (body lines 25-33); the others
//     (0, 8, 0x90, 0xc0, ...) skip it. In classify:
//       x % 5 == 0 (v = 0x10: x = 0) returns at line 26;
//       odd x (v = 0x50: x = 1) takes the then-arm at line 29;
//       even x (v = 0x110: x = 4) takes the else-arm at line 31;
//       both arms join at line 33.
// The random inputs of kernels/pocl/gen.py mix all of these within every
// wave of 20 or more lanes. All lanes store r at line 48. Work-items
// with gid >= n return at line 39.
__attribute__((noinline)) uint scale(uint x, __global const uint *in,
                                     uint n) {
  uint t = in[x % n];
  return t * 3u + x;
}

__attribute__((noinline)) uint classify(uint x, __global const uint *in,
                                        uint n) {
  if (x % 5u == 0u)
    return 1u;
  uint r;
  if (x & 1u) {
    r = in[(x >> 1) % n] + x;
  } else {
    r = in[(x >> 2) % n] ^ x;
  }
  return r * 7u;
}

__kernel void cf_call(__global const uint *in, __global uint *out, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint r = v;
  if (v & 8u) {
    r = scale(v, in, n);
  }
  if ((v >> 4) % 3u != 0u) {
    r += classify(v >> 6, in, n);
  }
  out[gid] = r;
}

// cf_loop_call: a loop whose body calls a non-inlined function and then
// may break, so the call is made by the lanes still in the loop.
// x = in[gid]; the loop (lines 26-30) runs at most x % 24
// iterations (none for x = 0 or 24). Each iteration calls step at line
// 27 (body lines 14-15); if the new x has (x & 7) == 3 (about 1 in 8
// calls) the lane breaks at line 29. The random inputs of
// kernels/pocl/gen.py mix, within every wave of 20 or more lanes, lanes
// that break after 1, 2, ... calls and lanes that run all their
// iterations (and, now and then, a lane that does not enter the loop).
// All lanes store x (line 31) and the iteration they left in (line
// 32). Work-items with gid >= n return at line 22.
__attribute__((noinline)) uint step(uint x, __global const uint *in,
                                    uint n) {
  uint t = in[x % n];
  return t ^ (x * 0x9e3779b1u);
}

__kernel void cf_loop_call(__global const uint *in, __global uint *out,
                           __global uint *iters, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint x = in[gid];
  uint limit = x % 24u;
  uint k;
  for (k = 0; k < limit; ++k) {
    x = step(x, in, n);
    if ((x & 7u) == 3u)
      break;
  }
  out[gid] = x;
  iters[gid] = k;
}

// cf_loop_break: a for loop with a data-dependent trip count, a continue
// and a break, so lanes leave the loop in different iterations and some
// skip the rest of an iteration.
// v = in[gid]; the loop (lines 25-33) runs at most v % 20
// iterations (0 for v = 0, 20, ...; 19 for v = 19, ...). In iteration k,
// x = in[(v + 13 k) % n] (line 26):
//   x % 5 == 0 continues at line 28 (skips lines 29-32);
//   otherwise line 29 adds x >> 4, and (x & 15) == 7 breaks at line
//     31 (skips line 32);
//   other x run line 32.
// With the random inputs of kernels/pocl/gen.py about 1 in 5 iterations
// continues and 1 in 16 breaks; lanes of one wave mix all of these and
// finish after different numbers of iterations. After the loop all lanes
// store acc (line 34) and the iteration they left in, k (line 35: the
// trip count if no break). Work-items with gid >= n return at line 20.
__kernel void cf_loop_break(__global const uint *in, __global uint *out,
                            __global uint *iters, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint trips = v % 20u;
  uint acc = 0;
  uint k;
  for (k = 0; k < trips; ++k) {
    uint x = in[(v + k * 13u) % n];
    if (x % 5u == 0u)
      continue;
    acc += x >> 4;
    if ((x & 15u) == 7u)
      break;
    acc ^= k << 8;
  }
  out[gid] = acc;
  iters[gid] = k;
}

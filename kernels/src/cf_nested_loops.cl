// cf_nested_loops: a loop nested in a loop, with a break out of the inner
// one only; both trip counts depend on the data.
// v = in[gid]: the outer loop (lines 20-29) runs v % 5 iterations (none for
// v = 0 or 5); in outer iteration i the inner loop (lines 22-27) runs at
// most (v >> 4i) % 7 iterations. In inner iteration j, x = in[(v + 7i + j)
// % n] (line 23); (x & 3) == 0 (about 1 in 4) breaks out of the inner
// loop at line 25, back to line 28 of the outer loop; other x run
// line 26. The random inputs of kernels/pocl/gen.py make the lanes of
// every wave of 20 or more lanes leave both loops after different numbers
// of iterations. All lanes store acc at line 30. Work-items with
// gid >= n return at line 16.
__kernel void cf_nested_loops(__global const uint *in, __global uint *out,
                              uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint rows = v % 5u;
  uint acc = 0;
  for (uint i = 0; i < rows; ++i) {
    uint cols = (v >> (4u * i)) % 7u;
    for (uint j = 0; j < cols; ++j) {
      uint x = in[(v + i * 7u + j) % n];
      if ((x & 3u) == 0u)
        break;
      acc += x >> 6;
    }
    acc = acc * 3u + i;
  }
  out[gid] = acc;
}

// cf_do_while: a do-while loop, whose body every lane runs at least once,
// with a data-dependent exit: it sums the decimal digits of x = in[gid].
// The body is at lines 19-21, the exit test at line 22. A lane
// runs the body once per decimal digit: x = 0 and x = 9 once, 10 twice,
// 999999999 nine times, 1000000000 and 0xffffffff ten times. The inputs
// of kernels/pocl/gen.py have random magnitudes, so the lanes of every
// wave leave the loop after different numbers of iterations. All lanes
// store sum * 16 + count at line 23. Work-items with gid >= n return
// at line 14.
__kernel void cf_do_while(__global const uint *in, __global uint *out,
                          uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint x = in[gid];
  uint sum = 0;
  uint count = 0;
  do {
    sum += x % 10u;
    x /= 10u;
    ++count;
  } while (x != 0u);
  out[gid] = sum * 16u + count;
}

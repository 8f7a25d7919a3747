// cf_while: a while loop with a data-dependent exit (Collatz steps, capped
// at 300), so every lane leaves the loop after its own number of steps.
// x = in[gid]; the loop condition is at line 24, the body at lines
// 25-26. The step at line 25 is a ternary that clang keeps as a
// branch at -O2 (odd x: 3x + 1, even x: x / 2).
// Inputs of kernels/pocl/gen.py, mixed within every wave of 20 or more
// lanes:
//   x = 0 and x = 1 (each about 1 lane in 16) never enter the loop (0 steps);
//   x = 77031, 142587, ..., 837799 (about 1 lane in 8; 350 to 524 steps to
//   reach 1) stop at the cap of 300 steps;
//   random x below 10000 (the other lanes) take 0 to 261 steps;
//   x = 2 takes 1 step, 27 takes 111, 97 takes 118, 871 takes 178, and
//   0xffffffff 228 (its first 3x + 1 wraps around).
// After the loop every lane stores the number of steps (line 28) and
// the last x (line 29). Work-items with gid >= n return at line
// 21.
__kernel void cf_while(__global const uint *in, __global uint *out,
                       __global uint *last, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint x = in[gid];
  uint steps = 0;
  while (x > 1u && steps < 300u) {
    x = (x & 1u) ? 3u * x + 1u : x >> 1;
    ++steps;
  }
  out[gid] = steps;
  last[gid] = x;
}

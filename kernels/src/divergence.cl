// divergence: nested data-dependent control flow.
// Exercises: if/else on the lane (local) id, a loop whose trip count differs
// per lane, a while loop with a data-dependent exit, a nested branch inside
// the loop, and reconvergence before the final store. Every lane writes
// out[gid]; the values are pure integer arithmetic (exact on any device).
__kernel void divergence(__global const uint *in, __global uint *out,
                         uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint lid = (uint)get_local_id(0);
  uint v = in[gid];
  uint acc;
  if (lid & 1u) {
    // odd lanes: loop with a per-lane trip count 0..12
    acc = 1u;
    uint trips = (v + lid) % 13u;
    for (uint k = 0; k < trips; ++k) {
      if ((k ^ v) & 2u)
        acc = acc * 3u + k;
      else
        acc ^= k << 4;
    }
  } else {
    // even lanes: data-dependent while loop (Collatz steps, capped)
    acc = (v & 0xffu) + 1u;
    uint steps = 0;
    while (acc != 1u && steps < 40u) {
      acc = (acc & 1u) ? 3u * acc + 1u : acc >> 1;
      ++steps;
    }
    acc = steps;
  }
  if (lid < 5u) {
    acc += 1000u * lid;
  }
  out[gid] = acc;
}

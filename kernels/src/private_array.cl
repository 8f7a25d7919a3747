// private_array: a per-work-item array indexed with run-time indices.
// Exercises: private (scratch) memory, i.e. the dword-interleaved per-lane
// scratch layout, because the array is too large to be promoted to registers
// or to local memory and is indexed with lane-dependent values; loads and
// stores with per-lane addresses; a loop over the array.
#define LEN 80

__kernel void private_array(__global const uint *in, __global uint *out,
                            uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  uint v = in[gid];
  uint lid = (uint)get_local_id(0);
  uint buf[LEN];
  for (uint k = 0; k < LEN; ++k) {
    buf[k] = v * (k + 1u) + lid;
  }
  // scatter: a few lane-dependent writes
  for (uint k = 0; k < 8u; ++k) {
    uint j = (v + k * 7u + lid) % LEN;
    buf[j] ^= k + 0x100u;
  }
  // gather with data-dependent indices
  uint a = buf[v % LEN];
  uint b = buf[(lid * 5u + 3u) % LEN];
  uint c = buf[(a ^ b) % LEN];
  out[gid] = a + 3u * b + 7u * c;
}

// atomics: histogram of (in[i] % nbins) in local memory, merged into global
// bins, plus a global maximum and a global counter of processed items.
// Exercises: local atomics (ds_add), global atomics (global/flat atomic add,
// max, inc), barriers around the local histogram, a loop over bins with the
// work-group's lanes striding through it.
// Arguments: in[n]; bins[nbins] (zeroed by the host); stats[2] with
// stats[0] = count (zeroed) and stats[1] = max (zeroed). nbins <= 64.
#define MAX_BINS 64

__kernel void atomics(__global const uint *in, __global uint *bins,
                      __global uint *stats, uint nbins, uint n) {
  __local uint local_bins[MAX_BINS];
  size_t gid = get_global_id(0);
  uint lid = (uint)get_local_id(0);
  uint lsize = (uint)get_local_size(0);
  for (uint b = lid; b < nbins; b += lsize)
    local_bins[b] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gid < n) {
    uint v = in[gid];
    atomic_add(&local_bins[v % nbins], 1u);
    atomic_max(&stats[1], v);
    atomic_inc(&stats[0]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < nbins; b += lsize) {
    uint c = local_bins[b];
    if (c != 0u)
      atomic_add(&bins[b], c);
  }
}

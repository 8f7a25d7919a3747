// workgroup_ops: OpenCL C 2.0 work-group collective functions.
// Exercises: work_group_reduce_, work_group_scan_inclusive_ and
// work_group_scan_exclusive_ add/min/max on int, uint, long, ulong and
// float, work_group_broadcast, work_group_any and work_group_all. ROCm's
// library builds them from a wave-level DPP reduction or scan, one LDS
// slot per wave, barriers, and a second pass over the wave results: with
// several waves per group, partial last waves and partial (non-uniform)
// groups every part of that is reached.
// Every work-item of the group calls every collective (also the
// work-items past n, with the value given below); divergent per-lane code
// runs before (a branch and a loop changing x) and after (a branch
// combining results).
// Inputs (value of work-item gid):
//   x = gid < n ? in[gid] : -(int)gid, then: if x is odd, x = x / 2 - 7;
//       else x ^= (k << 3) for k = 0 .. ((x >> 4) & 3) - 1
//   u = gid < n ? uin[gid] : gid * 0x9e3779b9
//   l = gid < n ? lin[gid] : (long)gid << 40
//   f = gid < n ? fin[gid] : 0.5f * gid (the host keeps every sum exact)
//   p = gid < n ? in[gid] : 0 (the raw input, for any/all)
// Outputs for gid < n (every value is exact; see the host test in
// crates/sim/tests/host_checked.rs): iout[24 * gid + 0..24],
// lout[12 * gid + 0..12], fout[8 * gid + 0..8].
// bl: a local id; the broadcasts read work-item bl % get_local_size(0).
// Dispatch: 1-D, local size <= 256 (any size, non-uniform groups too); the
// host gives inputs that cannot overflow the signed sums.

kernel void workgroup_ops(global const int *in, global const uint *uin,
                          global const long *lin, global const float *fin,
                          global uint *iout, global ulong *lout,
                          global float *fout, uint bl, uint n) {
  uint gid = (uint)get_global_id(0);
  uint lid = (uint)get_local_id(0);
  int x = gid < n ? in[gid] : -(int)gid;
  int p = gid < n ? in[gid] : 0;
  // Divergent per-lane code before the collectives.
  if (x & 1) {
    x = x / 2 - 7;
  } else {
    int trips = (x >> 4) & 3;
    for (int k = 0; k < trips; k++)
      x ^= k << 3;
  }
  uint u = gid < n ? uin[gid] : gid * 0x9e3779b9u;
  long l = gid < n ? lin[gid] : (long)gid << 40;
  float f = gid < n ? fin[gid] : 0.5f * (float)gid;
  size_t src = bl % get_local_size(0);

  uint r[24];
  r[0] = (uint)work_group_reduce_add(x);
  r[1] = (uint)work_group_reduce_min(x);
  r[2] = (uint)work_group_reduce_max(x);
  r[3] = (uint)work_group_scan_inclusive_add(x);
  r[4] = (uint)work_group_scan_inclusive_min(x);
  r[5] = (uint)work_group_scan_inclusive_max(x);
  r[6] = (uint)work_group_scan_exclusive_add(x);
  r[7] = (uint)work_group_scan_exclusive_min(x);
  r[8] = (uint)work_group_scan_exclusive_max(x);
  r[9] = (uint)work_group_broadcast(x, src);
  r[10] = (uint)work_group_any(p == 0x5a5a);
  r[11] = (uint)work_group_all(p >= 0);
  r[12] = work_group_reduce_add(u);
  r[13] = work_group_reduce_min(u);
  r[14] = work_group_reduce_max(u);
  r[15] = work_group_scan_inclusive_add(u);
  r[16] = work_group_scan_inclusive_min(u);
  r[17] = work_group_scan_inclusive_max(u);
  r[18] = work_group_scan_exclusive_add(u);
  r[19] = work_group_scan_exclusive_min(u);
  r[20] = work_group_scan_exclusive_max(u);
  r[21] = work_group_broadcast(u, (src + 1) % get_local_size(0));
  // Divergent per-lane code after the collectives.
  if (lid % 3 == 0)
    r[22] = r[3] - r[6];
  else
    r[22] = r[15] ^ r[18];
  r[23] = (uint)work_group_any(x < -1000000 || lid == src);

  ulong ul = (ulong)l ^ ((ulong)u << 32);
  ulong w[12];
  w[0] = (ulong)work_group_reduce_add(l);
  w[1] = (ulong)work_group_reduce_min(l);
  w[2] = (ulong)work_group_reduce_max(l);
  w[3] = (ulong)work_group_scan_inclusive_add(l);
  w[4] = (ulong)work_group_scan_inclusive_min(l);
  w[5] = (ulong)work_group_scan_exclusive_add(l);
  w[6] = (ulong)work_group_scan_exclusive_max(l);
  w[7] = (ulong)work_group_broadcast(l, src);
  w[8] = work_group_reduce_min(ul);
  w[9] = work_group_reduce_max(ul);
  w[10] = work_group_scan_inclusive_max(ul);
  w[11] = work_group_scan_exclusive_min(ul);

  float g[8];
  g[0] = work_group_reduce_add(f);
  g[1] = work_group_reduce_min(f);
  g[2] = work_group_reduce_max(f);
  g[3] = work_group_scan_inclusive_add(f);
  g[4] = work_group_scan_inclusive_max(f);
  g[5] = work_group_scan_exclusive_add(f);
  g[6] = work_group_scan_exclusive_min(f);
  g[7] = work_group_broadcast(f, src);

  if (gid < n) {
    for (int i = 0; i < 24; i++)
      iout[24 * gid + i] = r[i];
    for (int i = 0; i < 12; i++)
      lout[12 * gid + i] = w[i];
    for (int i = 0; i < 8; i++)
      fout[8 * gid + i] = g[i];
  }
}

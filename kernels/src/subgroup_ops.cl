// subgroup_ops: cl_khr_subgroups built-ins (OpenCL C 2.0 extension).
// Exercises: get_sub_group_size/_id/_local_id, get_num_sub_groups,
// get_max_sub_group_size, get_enqueued_num_sub_groups, sub_group_reduce_,
// sub_group_scan_inclusive_ and sub_group_scan_exclusive_ add/min/max on
// int, uint, long, ulong and float, sub_group_broadcast, sub_group_any and
// sub_group_all. clang-19 expands them inline into DPP row shifts and
// broadcasts, v_readlane/v_readfirstlane, v_mbcnt and ballots.
// Every work-item of a sub-group calls every collective (also the
// work-items past n, with the value given below); divergent code runs
// before (a per-lane branch and loop that changes x) and after (a per-lane
// branch combining results); one pair of collectives sits in a branch that
// is uniform per sub-group (odd/even sub-group id).
// Inputs (lane value v = value of work-item gid):
//   x = gid < n ? in[gid] : -(int)gid, then: if x is odd, x = x / 2 - 7;
//       else x ^= (k << 3) for k = 0 .. ((x >> 4) & 3) - 1
//   u = gid < n ? uin[gid] : gid * 0x9e3779b9
//   l = gid < n ? lin[gid] : (long)gid << 40
//   f = gid < n ? fin[gid] : 0.5f * gid (the host keeps every sum exact)
//   p = gid < n ? in[gid] : 0 (the raw input, for any/all)
// Outputs for gid < n (every value is exact; see the host test in
// crates/sim/tests/host_checked.rs for the formulas):
//   iout[32 * gid + 0..32], lout[16 * gid + 0..16], fout[12 * gid + 0..12]
// bl: a lane index; the broadcasts read lane bl % get_sub_group_size().
// Dispatch: 1-D, any local size (non-uniform groups too); the host gives
// inputs that cannot overflow the signed sums.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

kernel void subgroup_ops(global const int *in, global const uint *uin,
                         global const long *lin, global const float *fin,
                         global uint *iout, global ulong *lout,
                         global float *fout, uint bl, uint n) {
  uint gid = (uint)get_global_id(0);
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

  uint sgs = get_sub_group_size();
  uint sgid = get_sub_group_id();
  uint sglid = get_sub_group_local_id();
  uint lane = bl % sgs;

  uint r[32];
  r[0] = sgs;
  r[1] = sgid;
  r[2] = sglid;
  r[3] = get_num_sub_groups();
  r[4] = get_max_sub_group_size();
  r[5] = get_enqueued_num_sub_groups();
  r[6] = (uint)sub_group_reduce_add(x);
  r[7] = (uint)sub_group_reduce_min(x);
  r[8] = (uint)sub_group_reduce_max(x);
  r[9] = (uint)sub_group_scan_inclusive_add(x);
  r[10] = (uint)sub_group_scan_inclusive_min(x);
  r[11] = (uint)sub_group_scan_inclusive_max(x);
  r[12] = (uint)sub_group_scan_exclusive_add(x);
  r[13] = (uint)sub_group_scan_exclusive_min(x);
  r[14] = (uint)sub_group_scan_exclusive_max(x);
  r[15] = (uint)sub_group_broadcast(x, lane);
  r[16] = (uint)sub_group_any(p == 0x5a5a);
  r[17] = (uint)sub_group_all(p >= 0);
  r[18] = sub_group_reduce_add(u);
  r[19] = sub_group_reduce_min(u);
  r[20] = sub_group_reduce_max(u);
  r[21] = sub_group_scan_inclusive_add(u);
  r[22] = sub_group_scan_inclusive_min(u);
  r[23] = sub_group_scan_inclusive_max(u);
  r[24] = sub_group_scan_exclusive_add(u);
  r[25] = sub_group_scan_exclusive_min(u);
  r[26] = sub_group_scan_exclusive_max(u);
  r[27] = sub_group_broadcast(u, lane);
  // A branch that is uniform in every sub-group.
  if (sgid & 1)
    r[28] = (uint)sub_group_reduce_max(x) + 1u;
  else
    r[28] = sub_group_scan_exclusive_add(u ^ sglid);
  // Divergent per-lane code after the collectives.
  if (sglid & 1)
    r[29] = r[9] - r[12];
  else
    r[29] = r[21] ^ r[24];
  r[30] = (uint)sub_group_any(x < -1000000 || sglid == lane);
  r[31] = (uint)sub_group_all(u != 0x12345678u);

  ulong ul = (ulong)l ^ ((ulong)u << 32);
  ulong w[16];
  w[0] = (ulong)sub_group_reduce_add(l);
  w[1] = (ulong)sub_group_reduce_min(l);
  w[2] = (ulong)sub_group_reduce_max(l);
  w[3] = (ulong)sub_group_scan_inclusive_add(l);
  w[4] = (ulong)sub_group_scan_inclusive_min(l);
  w[5] = (ulong)sub_group_scan_inclusive_max(l);
  w[6] = (ulong)sub_group_scan_exclusive_add(l);
  w[7] = (ulong)sub_group_scan_exclusive_min(l);
  w[8] = (ulong)sub_group_scan_exclusive_max(l);
  w[9] = (ulong)sub_group_broadcast(l, lane);
  w[10] = sub_group_reduce_min(ul);
  w[11] = sub_group_reduce_max(ul);
  w[12] = sub_group_scan_inclusive_max(ul);
  w[13] = sub_group_scan_exclusive_min(ul);
  w[14] = sub_group_scan_inclusive_add(ul);
  w[15] = sub_group_broadcast(ul, (lane + 1) % sgs);

  float g[12];
  g[0] = sub_group_reduce_add(f);
  g[1] = sub_group_reduce_min(f);
  g[2] = sub_group_reduce_max(f);
  g[3] = sub_group_scan_inclusive_add(f);
  g[4] = sub_group_scan_inclusive_min(f);
  g[5] = sub_group_scan_inclusive_max(f);
  g[6] = sub_group_scan_exclusive_add(f);
  g[7] = sub_group_scan_exclusive_min(f);
  g[8] = sub_group_scan_exclusive_max(f);
  g[9] = sub_group_broadcast(f, lane);
  g[10] = sub_group_reduce_add(f * 0.25f);
  g[11] = sub_group_scan_inclusive_max(-f);

  if (gid < n) {
    for (int i = 0; i < 32; i++)
      iout[32 * gid + i] = r[i];
    for (int i = 0; i < 16; i++)
      lout[16 * gid + i] = w[i];
    for (int i = 0; i < 12; i++)
      fout[12 * gid + i] = g[i];
  }
}

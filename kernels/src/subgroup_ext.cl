// subgroup_ext: sub-group and work-group collectives on double and half.
// Exercises: the 64-bit (two v_mov_b32_dpp per step, v_add/min/max_f64) and
// 16-bit (v_add_f16_dpp, v_max_f16, ...) forms of ROCm's DPP reductions
// and scans, sub_group_broadcast of 64- and 16-bit values, the LDS and
// barrier passes of the work-group forms on those types.
// Every work-item calls every collective (also the work-items past n, with
// the value given below); a per-lane branch runs before them.
// Inputs (value of work-item gid):
//   x = gid < n ? din[gid] : 0.25 * gid; then x = -x if gid % 3 == 1
//   h = gid < n ? hin[gid] : (half)(gid % 9) - 4
// (the host gives multiples of 2^-8 within 2^20 for din and of 0.5 within
// [-4, 4] for hin: every sum is exact).
// Outputs for gid < n: dout[11 * gid + 0..11], hout[12 * gid + 0..12]
// (order in the source). bl: the broadcast reads sub-group lane
// bl % get_sub_group_size().
// Dispatch: 1-D, local size <= 256 (any size, non-uniform groups too).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

kernel void subgroup_ext(global const double *din, global const half *hin,
                         global double *dout, global half *hout, uint bl,
                         uint n) {
  uint gid = (uint)get_global_id(0);
  double x = gid < n ? din[gid] : 0.25 * (double)gid;
  half h = gid < n ? hin[gid] : (half)(gid % 9) - (half)4;
  if (gid % 3 == 1)
    x = -x;
  uint lane = bl % get_sub_group_size();

  double r[11];
  r[0] = sub_group_reduce_add(x);
  r[1] = sub_group_reduce_min(x);
  r[2] = sub_group_reduce_max(x);
  r[3] = sub_group_scan_inclusive_add(x);
  r[4] = sub_group_scan_inclusive_max(x);
  r[5] = sub_group_scan_exclusive_add(x);
  r[6] = sub_group_scan_exclusive_min(x);
  r[7] = sub_group_scan_exclusive_max(x);
  r[8] = sub_group_broadcast(x, lane);
  r[9] = work_group_reduce_add(x);
  r[10] = work_group_scan_inclusive_add(x);

  half s[12];
  s[0] = sub_group_reduce_add(h);
  s[1] = sub_group_reduce_min(h);
  s[2] = sub_group_reduce_max(h);
  s[3] = sub_group_scan_inclusive_add(h);
  s[4] = sub_group_scan_inclusive_min(h);
  s[5] = sub_group_scan_exclusive_add(h);
  s[6] = sub_group_scan_exclusive_max(h);
  s[7] = sub_group_broadcast(h, lane);
  s[8] = work_group_reduce_add(h);
  s[9] = work_group_reduce_max(h);
  s[10] = work_group_scan_exclusive_add(h);
  s[11] = work_group_scan_inclusive_min(h);

  if (gid < n) {
    for (int i = 0; i < 11; i++)
      dout[11 * gid + i] = r[i];
    for (int i = 0; i < 12; i++)
      hout[12 * gid + i] = s[i];
  }
}

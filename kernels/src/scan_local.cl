// scan_local: work-group prefix sums in local memory.
// Exercises: a Hillis-Steele inclusive scan over the work-group with two
// ping-pong __local arrays and a barrier per step (log2(local size) steps,
// LDS reads at lane-dependent offsets with the lower lanes idle), a second
// scan of 64-bit values (ds_read_b64/ds_write_b64), the exclusive scan
// derived from the inclusive one, and the group total written by the last
// work-item of the group. Work-items past n contribute 0 but still take
// part in every barrier.
// Inputs: in[i] (full-range uint: the sums wrap around).
// Outputs: incl[i] = in[g0] + ... + in[i] over the group's items, excl[i] =
// incl[i] - in[i], wide[i] = the same inclusive sum of (ulong)in[j] *
// in[j] (no wrap-around for these sizes), total[group] = the group's sum.
// Local size: at most 256 (any size, not only powers of two).
#define MAX_LOCAL 256

kernel void scan_local(global const uint *in, global uint *incl,
                       global uint *excl, global ulong *wide,
                       global uint *total, uint n) {
  __local uint buf[2][MAX_LOCAL];
  __local ulong wbuf[2][MAX_LOCAL];
  size_t gid = get_global_id(0);
  uint lid = (uint)get_local_id(0);
  uint ls = (uint)get_local_size(0);
  uint v = gid < n ? in[gid] : 0u;
  int cur = 0;
  buf[0][lid] = v;
  wbuf[0][lid] = (ulong)v * v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < ls; off <<= 1) {
    uint s = buf[cur][lid];
    ulong ws = wbuf[cur][lid];
    if (lid >= off) {
      s += buf[cur][lid - off];
      ws += wbuf[cur][lid - off];
    }
    buf[cur ^ 1][lid] = s;
    wbuf[cur ^ 1][lid] = ws;
    cur ^= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint s = buf[cur][lid];
  if (gid < n) {
    incl[gid] = s;
    excl[gid] = s - v;
    wide[gid] = wbuf[cur][lid];
  }
  if (lid == ls - 1)
    total[get_group_id(0)] = s;
}

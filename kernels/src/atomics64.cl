// atomics64: 32- and 64-bit atomics on local and global memory whose
// results do not depend on the order of the work-items.
// Exercises: global atom_add/atom_min/atom_max/atom_and/atom_or/atom_xor on
// long and ulong (cl_khr_int64_*_atomics: global_atomic_*_x2 / flat
// forms), atom_xchg and atom_cmpxchg on 64-bit slots owned by one
// work-item (the returned old values are stored), a compare-and-swap loop
// that adds to a shared 64-bit counter, local atomic_add/min/max/xchg/
// cmpxchg on int (one winner per group) and atom_add/atom_max on long in LDS (ds_*_rtn_b32/b64),
// merged into global results by one work-item per group.
// Inputs: in[i] (64-bit patterns). Outputs: g[0..7] global accumulators
// (zeroed by the host except g[1] = LONG_MAX, g[2] = LONG_MIN, g[3] = ~0:
// the identities of min, max and and), gi[0..5] 32-bit accumulators
// (gi[2] = INT_MAX, gi[3] = INT_MIN, others zero), slots[i] (inout: the
// host's values; each item swaps its own), old[2 i ..] the values atom_xchg
// and atom_cmpxchg returned.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

kernel void atomics64(global const ulong *in, global long *g, global int *gi,
                      global ulong *slots, global ulong *old, uint n) {
  __local int lsum, lmin, lmax, lcount, lflag, lwins;
  __local long lwide, lwmax;
  size_t gid = get_global_id(0);
  uint lid = (uint)get_local_id(0);
  if (lid == 0) {
    lsum = 0;
    lmin = INT_MAX;
    lmax = INT_MIN;
    lcount = 0;
    lflag = 0;
    lwins = 0;
    lwide = 0;
    lwmax = LONG_MIN;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gid < n) {
    ulong v = in[gid];
    long sv = (long)v;
    int v32 = (int)(uint)v;
    // global 64-bit
    atom_add(&g[0], sv);
    atom_min(&g[1], sv);
    atom_max(&g[2], sv);
    atom_and(&g[3], sv | (long)(gid & 1));
    atom_or(&g[4], (long)(v & 0x0f0f0f0f0f0f0f0fUL));
    atom_xor(&g[5], sv);
    atom_max((global ulong *)&g[6], v >> 3);
    // a CAS loop adding to a shared counter
    global ulong *ctr = (global ulong *)&g[7];
    ulong seen = *(volatile global ulong *)ctr, want;
    do {
      want = seen;
      seen = atom_cmpxchg(ctr, want, want + (v & 0xffff));
    } while (seen != want);
    // each work-item's own slot
    ulong before = atom_xchg(&slots[gid], v);
    ulong prev = atom_cmpxchg(&slots[gid], v, before ^ v);
    old[2 * gid] = before;
    old[2 * gid + 1] = prev;
    // global 32-bit
    atomic_add(&gi[0], v32);
    atomic_inc(&gi[1]);
    atomic_min(&gi[2], v32);
    atomic_max(&gi[3], v32);
    atomic_max((global uint *)&gi[4], (uint)(v >> 40));
    atomic_xor(&gi[5], v32);
    // local
    atomic_add(&lsum, v32 >> 4);
    atomic_min(&lmin, v32);
    atomic_max(&lmax, v32);
    atomic_inc(&lcount);
    atomic_xchg(&lflag, 1);
    atom_add(&lwide, sv >> 8);
    atom_max(&lwmax, sv);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // exactly one work-item of a group with items wins the swap of 1 for 2
  if (gid < n && atomic_cmpxchg(&lflag, 1, 2) == 1)
    atomic_inc(&lwins);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0 && lcount != 0) {
    // per group: the sum and extremes of the group, folded into g/gi with
    // order-independent operations
    atom_add(&g[0], (long)lsum << 32);
    atom_add(&g[0], lwide);
    atomic_min(&gi[2], lmin);
    atomic_max(&gi[3], lmax);
    atom_max(&g[2], lwmax);
    atomic_add(&gi[1], lflag * 1000 + lwins * 100000);
  }
}

// Global wave sync (GWS) and the ordered count: work-groups that wait on
// each other. A grid-wide barrier (as ROCm's device library builds it for
// cooperative groups: one wave per work-group on GWS resource 0, initialised
// with the number of work-groups minus one), a hand-off through GWS
// semaphores between the last work-group and all the others, and a stable
// stream compaction whose waves take their output offsets from
// ds_ordered_count in wave-creation order while the first work-group arrives
// last. Only AMD's toolchain has these built-ins, so the results are checked
// against an exact host computation (crates/sim/tests/gds_kernels.rs), on one
// device whose GWS resources the host first sets with gws_init.
#define BARRIER 0
#define READY 1
#define DONE 2
#define FIRST 3

// Sets GWS resource `resource` to `value` (the first work-item does).
kernel void gws_init(uint value, uint resource) {
  if (get_global_id(0) == 0)
    __builtin_amdgcn_ds_gws_init(value, resource);
}

// Every work-group waits here until all have arrived.
static void grid_sync(void) {
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    __builtin_amdgcn_ds_gws_barrier(get_num_groups(0) - 1, BARRIER);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE);
}

// buf[i] = 7 i + 1; then, `rounds` times, every work-item reads the value its
// neighbour r + 1 work-groups on wrote in the previous round, and stores it
// plus r. The grid must be a multiple of the work-group size.
kernel void gws_grid_barrier(global uint *buf, global uint *out, uint rounds) {
  uint gid = get_global_id(0);
  uint n = get_global_size(0);
  uint ls = get_local_size(0);
  buf[gid] = gid * 7 + 1;
  for (uint r = 0; r < rounds; r++) {
    grid_sync();
    uint v = buf[(gid + ls * (r + 1)) % n];
    grid_sync();
    buf[gid] = v + r;
  }
  out[gid] = buf[gid];
}

// The last work-group writes data[0..ls), lets the others go with one
// semaphore permit each (READY), waits until each has signalled DONE, and
// then stores the sum of what they wrote in data[ls]. The others wait for
// their permit, then write out[g * ls + l] = data[(l + g) % ls] + g.
kernel void gws_handoff(global uint *data, global uint *out) {
  uint g = get_group_id(0);
  uint ng = get_num_groups(0);
  uint l = get_local_id(0);
  uint ls = get_local_size(0);
  if (g == ng - 1) {
    data[l] = l * 3 + 5;
    work_group_barrier(CLK_GLOBAL_MEM_FENCE);
    if (l == 0) {
      __builtin_amdgcn_ds_gws_sema_br(ng - 1, READY);
      for (uint k = 0; k + 1 < ng; k++)
        __builtin_amdgcn_ds_gws_sema_p(DONE);
      uint sum = 0;
      for (uint k = 0; k < (ng - 1) * ls; k++)
        sum += out[k];
      data[ls] = sum;
    }
  } else {
    if (l == 0)
      __builtin_amdgcn_ds_gws_sema_p(READY);
    work_group_barrier(CLK_GLOBAL_MEM_FENCE);
    out[g * ls + l] = data[(l + g) % ls] + g;
    work_group_barrier(CLK_GLOBAL_MEM_FENCE);
    if (l == 0)
      __builtin_amdgcn_ds_gws_sema_v(DONE);
  }
}

// gfx90a has no ordered count.
#if !defined(__gfx90a__)

// ds_ordered_count on the GDS dword at M0 + offset0 = 4 (ordered-count index
// 1): adds `v` (the first active lane's) in wave-creation order and returns
// the value before.
static uint ordered_add(uint v) {
  uint r;
  __asm__ volatile("s_mov_b32 m0, 0\n\t"
                   "s_nop 0\n\t"
                   "ds_ordered_count %0, %1 offset:772 gds\n\t"
                   "s_waitcnt lgkmcnt(0)"
                   : "=&v"(r)
                   : "v"(v)
                   : "memory");
  return r;
}

// Stable compaction: out receives, in index order, every in[i] (i < n) not
// divisible by 3; count[0] their number. Each wave takes its
// offset from the ordered count, and the first work-group waits (FIRST, set
// to 0) until the last one has reached the ordered count, so waves ask out of
// order and only the ordered count keeps the output in index order.
kernel void ordered_compact(global const uint *in, global uint *out,
                            global uint *count, uint n) {
  uint gid = get_global_id(0);
  uint g = get_group_id(0);
  uint keep = gid < n && in[gid] % 3 != 0;
  if (g == 0 && get_local_id(0) == 0)
    __builtin_amdgcn_ds_gws_sema_p(FIRST);
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  if (g == get_num_groups(0) - 1 && get_local_id(0) == 0)
    __builtin_amdgcn_ds_gws_sema_v(FIRST);
  // The wave's kept lanes, and those below this lane.
#if __AMDGCN_WAVEFRONT_SIZE == 64
  ulong m = __builtin_amdgcn_ballot_w64(keep);
  uint before = __builtin_amdgcn_mbcnt_hi((uint)(m >> 32),
                                          __builtin_amdgcn_mbcnt_lo((uint)m, 0));
#else
  uint m = __builtin_amdgcn_ballot_w32(keep);
  uint before = __builtin_amdgcn_mbcnt_lo(m, 0);
#endif
  uint total = popcount(m);
  uint base = ordered_add(total);
  if (keep)
    out[base + before] = in[gid];
  atomic_max(count, base + total);
}

#endif

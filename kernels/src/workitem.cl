// Every work-item function, stored per work-item (21 values, in the order
// below) at the work-item's global linear id. With non-uniform work-groups
// (OpenCL 2.0) the groups at the grid's upper edges are smaller, and
// get_local_size there is the remainder. (The linear ids are computed
// here, as OpenCL 2.0 defines them, so that OpenCL 1.2 runs the kernel too.)

kernel void workitem(global uint *out) {
  size_t lin = (get_global_id(2) - get_global_offset(2)) * get_global_size(1) *
                   get_global_size(0) +
               (get_global_id(1) - get_global_offset(1)) * get_global_size(0) +
               (get_global_id(0) - get_global_offset(0));
  global uint *o = out + lin * 21;
  o[0] = get_work_dim();
  for (uint d = 0; d < 3; d++) {
    o[1 + d] = (uint)get_global_size(d);
    o[4 + d] = (uint)get_local_size(d);
    o[7 + d] = (uint)get_num_groups(d);
    o[10 + d] = (uint)get_group_id(d);
    o[13 + d] = (uint)get_local_id(d);
    o[16 + d] = (uint)get_global_id(d);
  }
  o[19] = (uint)(get_local_id(2) * get_local_size(1) * get_local_size(0) +
                 get_local_id(1) * get_local_size(0) + get_local_id(0));
  o[20] = (uint)lin;
}

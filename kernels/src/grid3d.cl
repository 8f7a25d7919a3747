// grid3d: a 7-point stencil over a 3-D volume on a 3-D NDRange (and the
// same kernel on 2-D and 1-D launches, where the missing dimensions are 1).
// Exercises: get_global_id(0/1/2), get_local_id(1/2), get_local_size(0/1/2),
// get_num_groups(0/1/2), get_group_id(1/2) and get_work_dim on every
// dimension; the workgroup-id and work-item-id VGPR/SGPR inputs of y and z
// (packed into v0 on gfx90a); neighbour loads with bounds checks at the six
// faces; 3-D index arithmetic.
// Arguments: in, out: nx * ny * nz uints (x fastest); the global size is
// (nx, ny, nz) rounded up to the local size (uniform groups).
// out[idx] = 6 * in[idx] - (sum of the existing neighbours) + a code of
// the item's position in the NDRange: (group id, local id, counts).
kernel void grid3d(global const uint *in, global uint *out, global uint *info,
                   uint nx, uint ny, uint nz) {
  uint x = (uint)get_global_id(0), y = (uint)get_global_id(1),
       z = (uint)get_global_id(2);
  if (x >= nx || y >= ny || z >= nz)
    return;
  uint idx = (z * ny + y) * nx + x;
  uint c = in[idx];
  uint s = 6u * c;
  if (x > 0)
    s -= in[idx - 1];
  if (x + 1 < nx)
    s -= in[idx + 1];
  if (y > 0)
    s -= in[idx - nx];
  if (y + 1 < ny)
    s -= in[idx + nx];
  if (z > 0)
    s -= in[idx - nx * ny];
  if (z + 1 < nz)
    s -= in[idx + nx * ny];
  out[idx] = s;
  uint g = (uint)(get_group_id(2) * get_num_groups(1) + get_group_id(1)) *
               (uint)get_num_groups(0) +
           (uint)get_group_id(0);
  uint l = ((uint)get_local_id(2) * (uint)get_local_size(1) +
            (uint)get_local_id(1)) *
               (uint)get_local_size(0) +
           (uint)get_local_id(0);
  info[idx] = g << 16 | l << 4 | get_work_dim();
}

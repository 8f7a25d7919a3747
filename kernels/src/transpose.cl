// transpose: out = transpose(in) for a rows x cols matrix of floats, through
// a 16x16 tile in local memory.
// Exercises: a two-dimensional NDRange (get_global_id(1), get_group_id(0/1),
// get_local_id(1)), a padded local-memory tile (bank-conflict padding),
// one barrier, bounds checks on both dimensions.
// The local size must be 16 x 16.
#define TILE 16

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1))) void
transpose(__global const float *in, __global float *out, uint rows,
          uint cols) {
  __local float tile[TILE][TILE + 1];
  uint lx = (uint)get_local_id(0);
  uint ly = (uint)get_local_id(1);
  uint gx = (uint)get_group_id(0) * TILE + lx; // column in `in`
  uint gy = (uint)get_group_id(1) * TILE + ly; // row in `in`
  if (gx < cols && gy < rows)
    tile[ly][lx] = in[gy * cols + gx];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint ox = (uint)get_group_id(1) * TILE + lx; // column in `out`
  uint oy = (uint)get_group_id(0) * TILE + ly; // row in `out`
  if (ox < rows && oy < cols)
    out[oy * rows + ox] = tile[lx][ly];
}

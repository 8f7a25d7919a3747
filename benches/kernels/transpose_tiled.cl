// transpose_tiled: out = transpose(in) for a rows x cols matrix of floats
// (both multiples of 32), through a 32 x 32 tile in local memory padded
// against bank conflicts, for the simulator's LDS and barrier benchmark
// (benches/benches/sim.rs). Work-groups are 32 x 8: each work-item moves
// four elements in and four out, with one barrier between.
#define TILE 32
#define ROWS 8

__kernel __attribute__((reqd_work_group_size(TILE, ROWS, 1))) void
transpose_tiled(__global const float *in, __global float *out, uint rows,
                uint cols) {
  __local float tile[TILE][TILE + 1];
  uint lx = (uint)get_local_id(0);
  uint ly = (uint)get_local_id(1);
  uint x = (uint)get_group_id(0) * TILE + lx; // column in `in`
  uint y = (uint)get_group_id(1) * TILE + ly; // row in `in`
  for (uint k = 0; k < TILE; k += ROWS)
    tile[ly + k][lx] = in[(y + k) * cols + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = (uint)get_group_id(1) * TILE + lx; // column in `out`
  y = (uint)get_group_id(0) * TILE + ly; // row in `out`
  for (uint k = 0; k < TILE; k += ROWS)
    out[(y + k) * rows + x] = tile[lx][ly + k];
}

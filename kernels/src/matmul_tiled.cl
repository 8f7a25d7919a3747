// matmul_tiled: C = A x B for uint matrices (products and sums wrap around,
// so the result is exact) through 8 x 8 tiles in local memory.
// Exercises: a 2-D NDRange (get_global_id(0/1), get_local_id(0/1),
// get_group_id), two __local tiles loaded cooperatively with zero padding at
// the ragged edges, two barriers per tile step, an unrolled inner product
// over the tile, and the bounds check on the store.
// Arguments: A is m x k, B is k x p, C is m x p, row-major; the global size
// is (p, m) rounded up to multiples of 8, the local size exactly 8 x 8.
#define T 8

__attribute__((reqd_work_group_size(T, T, 1)))
kernel void matmul_tiled(global const uint *A, global const uint *B,
                         global uint *C, uint m, uint k, uint p) {
  __local uint ta[T][T];
  __local uint tb[T][T + 1];
  uint col = (uint)get_global_id(0), row = (uint)get_global_id(1);
  uint lx = (uint)get_local_id(0), ly = (uint)get_local_id(1);
  uint acc = 0;
  for (uint t0 = 0; t0 < k; t0 += T) {
    uint ac = t0 + lx, br = t0 + ly;
    ta[ly][lx] = row < m && ac < k ? A[row * k + ac] : 0u;
    tb[ly][lx] = br < k && col < p ? B[br * p + col] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint j = 0; j < T; j++)
      acc += ta[ly][j] * tb[j][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < m && col < p)
    C[row * p + col] = acc;
}

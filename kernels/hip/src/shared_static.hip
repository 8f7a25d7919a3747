// Static __shared__ memory with __syncthreads: a 16x16 tile transpose through
// a padded [16][17] tile (2-D blocks) and a block sum reduction over a
// [256] array (halving tree). Integer-exact.
#include "common.h"

#define TILE 16

__global__ void transpose(const uint32_t *in, uint32_t *out, int rows, int cols) {
  __shared__ uint32_t tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  int ox = blockIdx.y * TILE + threadIdx.x;  // column in out = row in in
  int oy = blockIdx.x * TILE + threadIdx.y;
  if (ox < rows && oy < cols) out[oy * rows + ox] = tile[threadIdx.x][threadIdx.y];
}

__global__ void block_sum(const uint32_t *in, uint32_t *partial, int n) {
  __shared__ uint32_t s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if ((int)threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

int main() {
  const int rows = 45, cols = 70;
  uint32_t *h = (uint32_t *)malloc(rows * cols * 4);
  uint32_t *o = (uint32_t *)malloc(rows * cols * 4);
  for (int i = 0; i < rows * cols; i++) h[i] = (uint32_t)(i * 7919 + 3);
  uint32_t *din, *dout;
  CHECK(hipMalloc(&din, rows * cols * 4));
  CHECK(hipMalloc(&dout, rows * cols * 4));
  CHECK(hipMemcpy(din, h, rows * cols * 4, hipMemcpyHostToDevice));
  dim3 block(TILE, TILE), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose<<<grid, block>>>(din, dout, rows, cols);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(o, dout, rows * cols * 4, hipMemcpyDeviceToHost));
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      EXPECT_EQ("transpose", c * rows + r, o[c * rows + r], h[r * cols + c]);

  const int n = 1500, blocks = (n + 255) / 256;
  uint32_t seed = 4242, sums[8];
  for (int i = 0; i < n; i++) h[i] = next_rand(&seed) >> 8;
  CHECK(hipMemcpy(din, h, n * 4, hipMemcpyHostToDevice));
  block_sum<<<blocks, 256>>>(din, dout, n);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(sums, dout, blocks * 4, hipMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++) {
    uint32_t want = 0;
    for (int i = b * 256; i < n && i < (b + 1) * 256; i++) want += h[i];
    EXPECT_EQ("block_sum", b, sums[b], want);
  }

  CHECK(hipFree(din));
  CHECK(hipFree(dout));
  free(h);
  free(o);
  return finish("shared_static", "45x70 transpose via 16x17 tile, 1500-element block sums");
}

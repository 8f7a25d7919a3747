// Device-side malloc/free: every thread allocates 1..8 ints, fills and sums
// them and frees them; thread 0 of each block allocates a block-wide buffer
// that all threads of the block use (pointer passed through __shared__), then
// frees it. A null pointer from malloc is reported. Integer-exact.
#include "common.h"

__global__ void use_heap(const int *in, int *out, int *nulls) {
  __shared__ int *block_buf;
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int k = 1 + tid % 8;
  int *mine = (int *)malloc(k * sizeof(int));
  int s = 0;
  if (mine == nullptr) {
    atomicAdd(nulls, 1);
  } else {
    for (int j = 0; j < k; j++) mine[j] = in[tid] * (j + 1);
    for (int j = 0; j < k; j++) s += mine[j] ^ j;
    free(mine);
  }
  if (threadIdx.x == 0) {
    block_buf = (int *)malloc(blockDim.x * sizeof(int));
    if (block_buf == nullptr) atomicAdd(nulls, 1000);
  }
  __syncthreads();
  int neighbour = -1;
  if (block_buf != nullptr) {
    block_buf[threadIdx.x] = in[tid] + 1;
    __syncthreads();
    neighbour = block_buf[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
    if (threadIdx.x == 0) free(block_buf);
  }
  out[2 * tid] = s;
  out[2 * tid + 1] = neighbour;
}

int main() {
  const int blocks = 3, threads = 64, n = blocks * threads;
  int in[n], out[2 * n], nulls = 0;
  for (int i = 0; i < n; i++) in[i] = i * 31 - 900;
  int *d_in, *d_out, *d_nulls;
  CHECK(hipMalloc(&d_in, sizeof in));
  CHECK(hipMalloc(&d_out, sizeof out));
  CHECK(hipMalloc(&d_nulls, sizeof nulls));
  CHECK(hipMemcpy(d_in, in, sizeof in, hipMemcpyHostToDevice));
  CHECK(hipMemset(d_nulls, 0, sizeof nulls));
  use_heap<<<blocks, threads>>>(d_in, d_out, d_nulls);
  CHECK_LAUNCH();
  CHECK(hipDeviceSynchronize());
  CHECK(hipMemcpy(out, d_out, sizeof out, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(&nulls, d_nulls, sizeof nulls, hipMemcpyDeviceToHost));
  EXPECT_EQ("malloc returned null (thread count + 1000 * block count)", 0, nulls, 0);
  for (int tid = 0; tid < n; tid++) {
    int k = 1 + tid % 8, s = 0;
    for (int j = 0; j < k; j++) s += (in[tid] * (j + 1)) ^ j;
    int t = tid % threads, b = tid / threads;
    EXPECT_EQ("per-thread", tid, out[2 * tid], s);
    EXPECT_EQ("block buffer", tid, out[2 * tid + 1], in[b * threads + (t + 1) % threads] + 1);
  }
  CHECK(hipFree(d_in));
  CHECK(hipFree(d_out));
  CHECK(hipFree(d_nulls));
  return finish("device_malloc", "192 threads malloc/free 1..8 ints, 3 block-shared buffers");
}

// Dynamic shared memory: extern __shared__ sized at launch (three launches
// with different sizes), combined with a static __shared__ array in the same
// kernel; each block reverses its chunk through shared memory and adds a value
// read back from the static array. Integer-exact.
#include "common.h"

extern __shared__ uint32_t dyn[];

__global__ void reverse_chunks(const uint32_t *in, uint32_t *out, int per_thread) {
  __shared__ uint32_t stat[64];
  int chunk = blockDim.x * per_thread;
  const uint32_t *src = in + blockIdx.x * chunk;
  uint32_t *dst = out + blockIdx.x * chunk;
  if (threadIdx.x < 64) stat[threadIdx.x] = threadIdx.x * 1000u;
  for (int k = 0; k < per_thread; k++) {
    int j = k * blockDim.x + threadIdx.x;
    dyn[j] = src[j];
  }
  __syncthreads();
  for (int k = 0; k < per_thread; k++) {
    int j = k * blockDim.x + threadIdx.x;
    dst[j] = dyn[chunk - 1 - j] + stat[j % 64];
  }
}

int main() {
  const int max_n = 4 * 2 * 256 * 4;
  uint32_t *h = (uint32_t *)malloc(max_n * 4), *o = (uint32_t *)malloc(max_n * 4);
  uint32_t seed = 31337;
  for (int i = 0; i < max_n; i++) h[i] = next_rand(&seed);
  uint32_t *din, *dout;
  CHECK(hipMalloc(&din, max_n * 4));
  CHECK(hipMalloc(&dout, max_n * 4));
  CHECK(hipMemcpy(din, h, max_n * 4, hipMemcpyHostToDevice));

  struct { int blocks, threads, per_thread; } cases[] = {
      {4, 64, 1}, {2, 256, 4}, {3, 128, 16}};  // 256 B, 4 KiB, 8 KiB of shared
  for (auto &c : cases) {
    int chunk = c.threads * c.per_thread, n = c.blocks * chunk;
    size_t shmem = chunk * sizeof(uint32_t);
    CHECK(hipMemset(dout, 0, max_n * 4));
    hipLaunchKernelGGL(reverse_chunks, dim3(c.blocks), dim3(c.threads), shmem,
                       0, din, dout, c.per_thread);
    CHECK_LAUNCH();
    CHECK(hipMemcpy(o, dout, n * 4, hipMemcpyDeviceToHost));
    for (int b = 0; b < c.blocks; b++)
      for (int j = 0; j < chunk; j++)
        EXPECT_EQ("reverse", b * chunk + j, o[b * chunk + j],
                  h[b * chunk + chunk - 1 - j] + (uint32_t)(j % 64) * 1000u);
    printf("%d blocks x %d threads, %zu bytes of dynamic shared memory\n",
           c.blocks, c.threads, shmem);
  }
  CHECK(hipFree(din));
  CHECK(hipFree(dout));
  free(h);
  free(o);
  return finish("shared_dynamic", "extern __shared__ at 256 B, 4 KiB, 8 KiB plus a static array");
}

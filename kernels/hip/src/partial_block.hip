// 1-D grids whose last block is only partly inside the data (n = 1000 with
// 256-thread blocks), and a block size that is not a multiple of the wave
// size (100 threads: a partial last wave). Guard words behind the data must
// stay untouched. Integer-exact.
#include "common.h"

__global__ void fill(uint32_t *out, uint32_t n, uint32_t salt) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * 2654435761u ^ salt;
}

// Records which block/thread wrote each element, no bounds check needed
// inside the launch; the grid exactly covers grid * block elements.
__global__ void who(uint32_t *out) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = (blockIdx.x << 16) | threadIdx.x;
}

int main() {
  const uint32_t n = 1000, guard = 64;
  uint32_t *d;
  CHECK(hipMalloc(&d, (n + guard) * sizeof(uint32_t)));
  uint32_t h[1000 + 64];

  // 256-thread blocks: 4 blocks, the last with 232 threads beyond n.
  CHECK(hipMemset(d, 0xCD, (n + guard) * sizeof(uint32_t)));
  fill<<<(n + 255) / 256, 256>>>(d, n, 0x5A5A0000u);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  for (uint32_t i = 0; i < n + guard; i++)
    EXPECT_EQ("block256", i, h[i], i < n ? (i * 2654435761u ^ 0x5A5A0000u) : 0xCDCDCDCDu);

  // 100-thread blocks: 10 blocks; a wave of 64 has 36 lanes in its second
  // wave (28 idle lanes), a wave of 32 has 4 lanes in its fourth.
  CHECK(hipMemset(d, 0xCD, (n + guard) * sizeof(uint32_t)));
  fill<<<dim3(10), dim3(100)>>>(d, n - 3, 0x1234u);  // last block partial too
  CHECK_LAUNCH();
  CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  for (uint32_t i = 0; i < n + guard; i++)
    EXPECT_EQ("block100", i, h[i], i < n - 3 ? (i * 2654435761u ^ 0x1234u) : 0xCDCDCDCDu);

  // 7 blocks of 33 threads without a guard: exactly 231 elements written.
  CHECK(hipMemset(d, 0xCD, (n + guard) * sizeof(uint32_t)));
  who<<<7, 33>>>(d);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  for (uint32_t i = 0; i < 300; i++)
    EXPECT_EQ("block33", i, h[i], i < 231 ? (((i / 33) << 16) | (i % 33)) : 0xCDCDCDCDu);

  // One thread, one block.
  who<<<1, 1>>>(d + 500);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  EXPECT_EQ("single", 500, h[500], 0u);
  EXPECT_EQ("single", 501, h[501], 0xCDCDCDCDu);

  CHECK(hipFree(d));
  return finish("partial_block", "n=1000 with 256-thread blocks, 100- and 33-thread blocks, 1x1 launch, guards intact");
}

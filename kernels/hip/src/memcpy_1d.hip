// hipMalloc, hipMemset/hipMemsetD8/D16/D32 (sync and async), hipMemcpy
// host->device and device->host at odd sizes and offsets, a kernel between the
// copies, hipFree. Everything is integer-exact.
#include "common.h"

__global__ void scale_add(const uint32_t *in, uint32_t *out, uint32_t k,
                          size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k + (uint32_t)i;
}

int main() {
  const size_t n = 3001;  // not a multiple of anything useful
  const size_t bytes = n * sizeof(uint32_t);
  uint32_t *h_in = (uint32_t *)malloc(bytes);
  uint32_t *h_out = (uint32_t *)malloc(bytes);
  uint32_t seed = 12345;
  for (size_t i = 0; i < n; i++) h_in[i] = next_rand(&seed);

  uint32_t *d_in, *d_out;
  CHECK(hipMalloc(&d_in, bytes));
  CHECK(hipMalloc(&d_out, bytes));

  // 1. hipMemset (bytes) over the whole buffer, read back.
  CHECK(hipMemset(d_out, 0xA5, bytes));
  CHECK(hipMemcpy(h_out, d_out, bytes, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++) EXPECT_EQ("memset", i, h_out[i], 0xA5A5A5A5u);

  // 2. hipMemsetD32 on a sub-range, hipMemsetD8 and hipMemsetD16 on odd
  //    byte ranges.
  CHECK(hipMemsetD32((hipDeviceptr_t)(d_out + 10), 0x01020304, 100));
  CHECK(hipMemsetD8((hipDeviceptr_t)((char *)d_out + 1001), 0x7E, 13));
  CHECK(hipMemsetD16((hipDeviceptr_t)((char *)d_out + 2002), 0xBEEF, 7));
  CHECK(hipMemcpy(h_out, d_out, bytes, hipMemcpyDeviceToHost));
  {
    uint32_t want[3001];
    for (size_t i = 0; i < n; i++) want[i] = 0xA5A5A5A5u;
    for (size_t i = 10; i < 110; i++) want[i] = 0x01020304u;
    memset((char *)want + 1001, 0x7E, 13);
    for (int j = 0; j < 7; j++) {
      uint16_t v = 0xBEEF;
      memcpy((char *)want + 2002 + 2 * j, &v, 2);
    }
    for (size_t i = 0; i < n; i++) EXPECT_EQ("memsetD", i, h_out[i], want[i]);
  }

  // 3. Full copy in, kernel, full copy out.
  CHECK(hipMemcpy(d_in, h_in, bytes, hipMemcpyHostToDevice));
  const unsigned block = 256;
  const unsigned grid = (unsigned)((n + block - 1) / block);
  hipLaunchKernelGGL(scale_add, dim3(grid), dim3(block), 0, 0, d_in, d_out,
                     7u, n);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(h_out, d_out, bytes, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++)
    EXPECT_EQ("kernel", i, h_out[i], h_in[i] * 7u + (uint32_t)i);

  // 4. Partial copies at unaligned byte offsets and lengths, both ways.
  unsigned char *h_bytes = (unsigned char *)malloc(bytes);
  for (size_t i = 0; i < bytes; i++) h_bytes[i] = (unsigned char)(i * 31 + 7);
  CHECK(hipMemcpy((char *)d_in + 3, h_bytes + 5, 1237, hipMemcpyHostToDevice));
  unsigned char *back = (unsigned char *)malloc(bytes);
  memset(back, 0, bytes);
  CHECK(hipMemcpy(back + 1, (char *)d_in + 3, 1237, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < 1237; i++)
    EXPECT_EQ("unaligned", i, back[1 + i], h_bytes[5 + i]);
  EXPECT_EQ("unaligned-guard", 0, back[0], (unsigned char)0);
  EXPECT_EQ("unaligned-guard", 1238, back[1238], (unsigned char)0);

  // 5. Async memset on the null stream, then a synchronous copy.
  CHECK(hipMemsetAsync(d_out, 0, bytes, 0));
  CHECK(hipMemsetD32Async((hipDeviceptr_t)d_out, 42, 17, 0));
  CHECK(hipStreamSynchronize(0));
  CHECK(hipMemcpy(h_out, d_out, bytes, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++)
    EXPECT_EQ("memsetAsync", i, h_out[i], i < 17 ? 42u : 0u);

  // 6. A zero-byte copy is legal and does nothing.
  CHECK(hipMemcpy(d_out, h_in, 0, hipMemcpyHostToDevice));

  CHECK(hipFree(d_in));
  CHECK(hipFree(d_out));
  CHECK(hipFree(nullptr));
  free(h_in);
  free(h_out);
  free(h_bytes);
  free(back);
  return finish("memcpy_1d", "3001 words: memset, memsetD8/16/32, copies, kernel, async memset");
}

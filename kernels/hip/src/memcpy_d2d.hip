// Device-to-device copies: hipMemcpy DeviceToDevice and Default, hipMemcpyDtoD,
// hipMemcpyAsync D2D on a stream, at unaligned offsets, a chain of copies with
// a kernel in the middle. Integer-exact.
#include "common.h"

__global__ void xor_index(uint8_t *p, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] ^= (uint8_t)(i * 7);
}

int main() {
  const size_t n = 5000;
  uint8_t *h = (uint8_t *)malloc(n), *out = (uint8_t *)malloc(n);
  uint32_t seed = 777;
  for (size_t i = 0; i < n; i++) h[i] = (uint8_t)next_rand(&seed);

  uint8_t *a, *b, *c;
  CHECK(hipMalloc(&a, n));
  CHECK(hipMalloc(&b, n));
  CHECK(hipMalloc(&c, n));
  CHECK(hipMemcpy(a, h, n, hipMemcpyHostToDevice));
  CHECK(hipMemset(b, 0, n));
  CHECK(hipMemset(c, 0, n));

  // a -> b whole, hipMemcpyDeviceToDevice.
  CHECK(hipMemcpy(b, a, n, hipMemcpyDeviceToDevice));
  hipLaunchKernelGGL(xor_index, dim3((n + 255) / 256), dim3(256), 0, 0, b, n);
  CHECK_LAUNCH();
  // b -> c with hipMemcpyDefault (direction from the pointers).
  CHECK(hipMemcpy(c, b, n, hipMemcpyDefault));
  CHECK(hipMemcpy(out, c, n, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++)
    EXPECT_EQ("chain", i, out[i], (uint8_t)(h[i] ^ (uint8_t)(i * 7)));

  // Unaligned sub-range with hipMemcpyDtoD: c[3..3+1999) = a[1001..3000).
  CHECK(hipMemcpyDtoD((hipDeviceptr_t)(c + 3), (hipDeviceptr_t)(a + 1001), 1999));
  // Async on a stream: b[4001..5000) = a[0..999).
  hipStream_t s;
  CHECK(hipStreamCreate(&s));
  CHECK(hipMemcpyAsync(b + 4001, a, 999, hipMemcpyDeviceToDevice, s));
  CHECK(hipStreamSynchronize(s));
  CHECK(hipStreamDestroy(s));

  CHECK(hipMemcpy(out, c, n, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++) {
    uint8_t want = (i >= 3 && i < 3 + 1999) ? h[1001 + i - 3]
                                             : (uint8_t)(h[i] ^ (uint8_t)(i * 7));
    EXPECT_EQ("dtod", i, out[i], want);
  }
  CHECK(hipMemcpy(out, b, n, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++) {
    uint8_t want = i >= 4001 ? h[i - 4001] : (uint8_t)(h[i] ^ (uint8_t)(i * 7));
    EXPECT_EQ("async", i, out[i], want);
  }

  CHECK(hipFree(a));
  CHECK(hipFree(b));
  CHECK(hipFree(c));
  free(h);
  free(out);
  return finish("memcpy_d2d", "5000 bytes: D2D, Default, DtoD unaligned, async D2D on a stream");
}

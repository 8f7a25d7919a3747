// Streams: three created streams (one hipStreamNonBlocking) each copy a slice
// in with hipMemcpyAsync from pinned memory, run two kernels and copy the
// slice back; hipStreamSynchronize per stream, hipStreamQuery before (success
// or not-ready are both fine) and after (must be success), hipStreamGetFlags,
// work on the null stream after the others. Integer-exact.
#include "common.h"

#define NS 3
#define SLICE 1024

__global__ void step1(uint32_t *p, uint32_t k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * k + 1;
}
__global__ void step2(uint32_t *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] ^= p[i] >> 7;
}

int main() {
  hipStream_t s[NS];
  CHECK(hipStreamCreate(&s[0]));
  CHECK(hipStreamCreateWithFlags(&s[1], hipStreamNonBlocking));
  CHECK(hipStreamCreateWithFlags(&s[2], hipStreamDefault));
  unsigned flags = 12345;
  CHECK(hipStreamGetFlags(s[1], &flags));
  EXPECT_EQ("stream flags", 1, flags, (unsigned)hipStreamNonBlocking);
  CHECK(hipStreamGetFlags(s[0], &flags));
  EXPECT_EQ("stream flags", 0, flags, (unsigned)hipStreamDefault);

  uint32_t *h, *d;
  CHECK(hipHostMalloc(&h, NS * SLICE * sizeof(uint32_t), hipHostMallocDefault));
  CHECK(hipMalloc(&d, NS * SLICE * sizeof(uint32_t)));
  uint32_t *orig = (uint32_t *)malloc(NS * SLICE * sizeof(uint32_t));
  uint32_t seed = 1;
  for (int i = 0; i < NS * SLICE; i++) orig[i] = h[i] = next_rand(&seed);

  for (int k = 0; k < NS; k++) {
    uint32_t *hp = h + k * SLICE, *dp = d + k * SLICE;
    CHECK(hipMemcpyAsync(dp, hp, SLICE * sizeof(uint32_t), hipMemcpyHostToDevice, s[k]));
    step1<<<SLICE / 256, 256, 0, s[k]>>>(dp, 3 + k, SLICE);
    CHECK_LAUNCH();
    hipLaunchKernelGGL(step2, dim3(SLICE / 256), dim3(256), 0, s[k], dp, SLICE);
    CHECK_LAUNCH();
    CHECK(hipMemcpyAsync(hp, dp, SLICE * sizeof(uint32_t), hipMemcpyDeviceToHost, s[k]));
  }
  for (int k = 0; k < NS; k++) {
    hipError_t q = hipStreamQuery(s[k]);
    if (q != hipSuccess && q != hipErrorNotReady) CHECK(q);
    printf("stream %d: hipStreamQuery before sync: %s\n", k,
           q == hipSuccess ? "hipSuccess" : "hipErrorNotReady");
  }
  for (int k = NS - 1; k >= 0; k--) CHECK(hipStreamSynchronize(s[k]));
  for (int k = 0; k < NS; k++) CHECK(hipStreamQuery(s[k]));  // must be done

  for (int k = 0; k < NS; k++)
    for (int i = 0; i < SLICE; i++) {
      uint32_t v = orig[k * SLICE + i] * (uint32_t)(3 + k) + 1;
      v ^= v >> 7;
      EXPECT_EQ("slice", k * SLICE + i, h[k * SLICE + i], v);
    }

  // The null stream after the created ones: whole buffer, then the device.
  step1<<<NS * SLICE / 256, 256>>>(d, 5, NS * SLICE);
  CHECK_LAUNCH();
  CHECK(hipMemcpyAsync(h, d, NS * SLICE * sizeof(uint32_t), hipMemcpyDeviceToHost, 0));
  CHECK(hipDeviceSynchronize());
  CHECK(hipStreamQuery(0));
  for (int k = 0; k < NS; k++)
    for (int i = 0; i < SLICE; i++) {
      uint32_t v = orig[k * SLICE + i] * (uint32_t)(3 + k) + 1;
      v ^= v >> 7;
      EXPECT_EQ("null stream", k * SLICE + i, h[k * SLICE + i], v * 5u + 1u);
    }

  for (int k = 0; k < NS; k++) CHECK(hipStreamDestroy(s[k]));
  CHECK(hipFree(d));
  CHECK(hipHostFree(h));
  free(orig);
  return finish("streams", "3 streams x (H2D async, 2 kernels, D2H async), query, sync, null stream");
}

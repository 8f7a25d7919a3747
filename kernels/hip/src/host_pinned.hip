// Pinned host memory: hipHostMalloc (default and portable flags),
// hipHostGetFlags, synchronous and asynchronous copies between pinned buffers
// and the device, and hipHostRegister/hipHostUnregister on malloc'd memory
// used as a copy source and target. Integer-exact.
#include "common.h"

#define N 4096

__global__ void negate(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = -p[i] + i;
}

int main() {
  int *pin = nullptr, *pin2 = nullptr;
  CHECK(hipHostMalloc(&pin, N * sizeof(int), hipHostMallocDefault));
  CHECK(hipHostMalloc(&pin2, N * sizeof(int), hipHostMallocPortable));
  unsigned flags = 0xFFFF;
  CHECK(hipHostGetFlags(&flags, pin2));
  printf("hipHostGetFlags(portable buffer) = 0x%x\n", flags);
  EXPECT_TRUE((flags & hipHostMallocPortable) != 0);
  for (int i = 0; i < N; i++) pin[i] = i * 13 - 5000;

  int *d;
  CHECK(hipMalloc(&d, N * sizeof(int)));
  CHECK(hipMemcpy(d, pin, N * sizeof(int), hipMemcpyHostToDevice));
  negate<<<N / 256, 256>>>(d, N);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(pin2, d, N * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) EXPECT_EQ("pinned sync", i, pin2[i], -(i * 13 - 5000) + i);

  hipStream_t s;
  CHECK(hipStreamCreate(&s));
  CHECK(hipMemcpyAsync(d, pin2, N * sizeof(int), hipMemcpyHostToDevice, s));
  negate<<<N / 256, 256, 0, s>>>(d, N);
  CHECK_LAUNCH();
  CHECK(hipMemcpyAsync(pin, d, N * sizeof(int), hipMemcpyDeviceToHost, s));
  CHECK(hipStreamSynchronize(s));
  for (int i = 0; i < N; i++) EXPECT_EQ("pinned async", i, pin[i], i * 13 - 5000);

  // Registered (page-locked after the fact) ordinary memory.
  int *reg = (int *)malloc(N * sizeof(int));
  for (int i = 0; i < N; i++) reg[i] = i ^ 0x5555;
  CHECK(hipHostRegister(reg, N * sizeof(int), hipHostRegisterDefault));
  CHECK(hipMemcpyAsync(d, reg, N * sizeof(int), hipMemcpyHostToDevice, s));
  negate<<<N / 256, 256, 0, s>>>(d, N);
  CHECK_LAUNCH();
  CHECK(hipMemcpyAsync(reg, d, N * sizeof(int), hipMemcpyDeviceToHost, s));
  CHECK(hipStreamSynchronize(s));
  CHECK(hipHostUnregister(reg));
  for (int i = 0; i < N; i++) EXPECT_EQ("registered", i, reg[i], -(i ^ 0x5555) + i);

  CHECK(hipStreamDestroy(s));
  CHECK(hipFree(d));
  CHECK(hipHostFree(pin));
  CHECK(hipHostFree(pin2));
  free(reg);
  return finish("host_pinned", "hipHostMalloc default/portable, sync and async copies, hipHostRegister");
}

// Managed memory: hipMallocManaged buffers written by the host, updated by two
// kernels, read by the host after hipDeviceSynchronize, then updated by the
// host and read again by a kernel; hipPointerGetAttributes on the pointer.
// Integer-exact.
#include "common.h"

#define N 3000

__global__ void accumulate(const uint32_t *a, uint32_t *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i] * 3u;
}

int main() {
  int managed = 0;
  CHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, 0));
  printf("hipDeviceAttributeManagedMemory = %d\n", managed);

  uint32_t *a, *b;
  CHECK(hipMallocManaged(&a, N * sizeof(uint32_t), hipMemAttachGlobal));
  CHECK(hipMallocManaged((void **)&b, N * sizeof(uint32_t)));
  for (int i = 0; i < N; i++) {
    a[i] = i * 7u;
    b[i] = 100000u + i;
  }
  accumulate<<<(N + 255) / 256, 256>>>(a, b, N);
  CHECK_LAUNCH();
  accumulate<<<(N + 255) / 256, 256>>>(a, b, N);
  CHECK_LAUNCH();
  CHECK(hipDeviceSynchronize());
  for (int i = 0; i < N; i++) EXPECT_EQ("after kernels", i, b[i], 100000u + i + 2u * (i * 7u * 3u));

  for (int i = 0; i < N; i++) a[i] = 1u;  // host writes between kernels
  accumulate<<<(N + 255) / 256, 256>>>(a, b, N);
  CHECK_LAUNCH();
  CHECK(hipDeviceSynchronize());
  for (int i = 0; i < N; i++) EXPECT_EQ("after host update", i, b[i], 100000u + i + 42u * i + 3u);

  hipPointerAttribute_t attr;
  CHECK(hipPointerGetAttributes(&attr, a));
  printf("hipPointerGetAttributes: memoryType %d, isManaged %d\n", (int)attr.memoryType, attr.isManaged);

  CHECK(hipFree(a));
  CHECK(hipFree(b));
  return finish("managed", "3000 elements in managed memory, host/kernel/host/kernel round trips");
}

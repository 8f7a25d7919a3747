// Mapped (zero-copy) host memory: hipHostMalloc with hipHostMallocMapped,
// hipHostGetDevicePointer; a kernel reads its input from and writes its
// output directly to host memory (no hipMemcpy), including a system-scope
// atomic counter; the host reads after hipDeviceSynchronize. Integer-exact.
#include "common.h"

#define N 2000

__global__ void square_into_host(const int *in, long long *out, unsigned *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = (long long)in[i] * in[i] - i;
    atomicAdd_system(count, 1u);
  }
}

int main() {
  int can_map = 0;
  CHECK(hipDeviceGetAttribute(&can_map, hipDeviceAttributeCanMapHostMemory, 0));
  printf("hipDeviceAttributeCanMapHostMemory = %d\n", can_map);

  int *h_in;
  long long *h_out;
  unsigned *h_count;
  CHECK(hipHostMalloc(&h_in, N * sizeof(int), hipHostMallocMapped));
  CHECK(hipHostMalloc(&h_out, N * sizeof(long long), hipHostMallocMapped));
  CHECK(hipHostMalloc(&h_count, sizeof(unsigned), hipHostMallocMapped | hipHostMallocCoherent));
  for (int i = 0; i < N; i++) {
    h_in[i] = i * 1000 - 777777;
    h_out[i] = -1;
  }
  *h_count = 0;

  int *d_in;
  long long *d_out;
  unsigned *d_count;
  CHECK(hipHostGetDevicePointer((void **)&d_in, h_in, 0));
  CHECK(hipHostGetDevicePointer((void **)&d_out, h_out, 0));
  CHECK(hipHostGetDevicePointer((void **)&d_count, h_count, 0));
  square_into_host<<<(N + 255) / 256, 256>>>(d_in, d_out, d_count, N);
  CHECK_LAUNCH();
  CHECK(hipDeviceSynchronize());
  for (int i = 0; i < N; i++)
    EXPECT_EQ("host out", i, h_out[i], (long long)h_in[i] * h_in[i] - i);
  EXPECT_EQ("count", 0, *h_count, (unsigned)N);

  CHECK(hipHostFree(h_in));
  CHECK(hipHostFree(h_out));
  CHECK(hipHostFree(h_count));
  return finish("host_mapped", "2000 elements read from and written to mapped host memory, system atomic counter");
}

// A kernel memory fault. Without arguments the kernel writes through a valid
// device pointer and the program checks the result. With --fault the same
// kernel gets the wild pointer (int *)0x10 and writes through it: on a GPU
// ROCm reports "Memory access fault by GPU node-N (Agent handle: ...) on
// address 0x... Reason: ..." and aborts the process (SIGABRT). If instead an
// API call returns an error, the program prints it and exits 3; if the kernel
// completes normally, it exits 1.
#include "common.h"

__global__ void store(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * 5 + 1;
}

int main(int argc, char **argv) {
  bool fault = has_arg(argc, argv, "--fault");
  const int n = 128;
  int *d;
  CHECK(hipMalloc(&d, n * sizeof(int)));
  int *target = fault ? (int *)0x10 : d;
  if (fault) printf("kernel_fault --fault: writing through %p\n", (void *)target);
  fflush(stdout);
  store<<<2, 64>>>(target, n);
  hipError_t e = hipGetLastError();
  if (e == hipSuccess) e = hipDeviceSynchronize();
  if (fault) {
    if (e != hipSuccess) {
      printf("kernel_fault --fault: runtime reported %s (%s)\n", hipGetErrorName(e),
             hipGetErrorString(e));
      return 3;
    }
    printf("kernel_fault --fault: FAIL: the kernel completed without a fault\n");
    return 1;
  }
  CHECK(e);
  int h[n];
  CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT_EQ("store", i, h[i], i * 5 + 1);
  CHECK(hipFree(d));
  return finish("kernel_fault", "128 valid stores (run with --fault to write through (int *)0x10)");
}

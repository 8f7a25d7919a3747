// Device assert. Without arguments no assertion fails and the program checks
// the kernel's output. With --fail one thread (global id 77) sees the value
// that fails `assert(v != 42)`; HIP 5.2 prints "<file>:<line>: <function>:
// Device-side assertion `v != 42' failed." (hostcall fprintf to stderr) and
// traps (s_trap): on a GPU the runtime then aborts the process. If instead
// hipDeviceSynchronize returns an error, the program prints it and exits 3;
// if the kernel completes normally, it exits 1.
#include "common.h"

#undef NDEBUG
#include <cassert>

__global__ void checked(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = in[i];
    assert(v != 42);
    out[i] = v * 2;
  }
}

int main(int argc, char **argv) {
  bool fail = has_arg(argc, argv, "--fail");
  const int n = 256;
  int in[n], out[n];
  for (int i = 0; i < n; i++) in[i] = i == 42 ? 1042 : i;  // 42 itself never appears
  if (fail) in[77] = 42;
  int *d_in, *d_out;
  CHECK(hipMalloc(&d_in, sizeof in));
  CHECK(hipMalloc(&d_out, sizeof out));
  CHECK(hipMemcpy(d_in, in, sizeof in, hipMemcpyHostToDevice));
  if (fail) printf("device_assert --fail: thread 77 will fail its assertion\n");
  fflush(stdout);
  checked<<<n / 64, 64>>>(d_in, d_out, n);
  hipError_t e = hipGetLastError();
  if (e == hipSuccess) e = hipDeviceSynchronize();
  if (fail) {
    if (e != hipSuccess) {
      printf("device_assert --fail: runtime reported %s (%s)\n", hipGetErrorName(e),
             hipGetErrorString(e));
      return 3;
    }
    printf("device_assert --fail: FAIL: the kernel completed despite the failed assertion\n");
    return 1;
  }
  CHECK(e);
  CHECK(hipMemcpy(out, d_out, sizeof out, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT_EQ("out", i, out[i], in[i] * 2);
  CHECK(hipFree(d_in));
  CHECK(hipFree(d_out));
  return finish("device_assert", "256 threads, no assertion fails (run with --fail to trigger one)");
}

// A kernel to debug (built -O0 -g, see the flags line): odd and even lanes
// take different arms of an if, so a breakpoint in one arm stops a wave with
// half of its lanes active. Launched twice; `amdsim debug -- PROGRAM` stops
// in it while the host part runs freely. Integer-exact.
// flags: -O0 -g
#include "common.h"

__global__ void diverge(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int r;
  if (v & 1) {
    r = v * 3 + 1;
  } else {
    r = v / 2;
  }
  out[i] = r;
}

int main() {
  const int n = 200;
  int h_in[n], h_out[n];
  for (int i = 0; i < n; i++) h_in[i] = 1000 + i;
  int *d_in, *d_out;
  CHECK(hipMalloc(&d_in, sizeof h_in));
  CHECK(hipMalloc(&d_out, sizeof h_out));
  CHECK(hipMemcpy(d_in, h_in, sizeof h_in, hipMemcpyHostToDevice));
  for (int round = 0; round < 2; round++) {
    CHECK(hipMemset(d_out, 0, sizeof h_out));
    diverge<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
    CHECK_LAUNCH();
    CHECK(hipMemcpy(h_out, d_out, sizeof h_out, hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
      int v = h_in[i];
      EXPECT_EQ("diverge", i, h_out[i], (v & 1) ? v * 3 + 1 : v / 2);
    }
  }
  CHECK(hipFree(d_in));
  CHECK(hipFree(d_out));
  return finish("debug_divergence", "odd lanes 3v+1, even lanes v/2, two launches");
}

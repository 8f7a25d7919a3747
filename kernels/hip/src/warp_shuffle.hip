// Warp shuffles: __shfl, __shfl_up, __shfl_down, __shfl_xor on int, float,
// double and long long, with the full warp and with width 8 and 16; a warp
// sum with __shfl_down. Written for warpSize 32 and 64: the device uses the
// builtin warpSize, the host reads hipDeviceAttributeWarpSize and models the
// HIP rules (out-of-range sources return the lane's own value). All values are
// moved, not computed, so everything is bit-exact.
#include "common.h"

#define BLOCK 256
#define BLOCKS 2
#define NV 12  // results per thread

__global__ void shuffles(const int *in, const double *din, int *out,
                         double *dout, int *wsum) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[tid];
  float f = __int_as_float(v ^ 0x3F000000);
  double d = din[tid];
  long long ll = ((long long)v << 32) | (unsigned)(v * 3);
  int lane = threadIdx.x % warpSize;
  int *o = out + tid * NV;
  o[0] = __shfl(v, 5);                        // broadcast lane 5
  o[1] = __shfl(v, (lane * 7 + 3) % warpSize);  // permutation
  o[2] = __shfl_up(v, 3);
  o[3] = __shfl_down(v, 9);
  o[4] = __shfl_xor(v, 1);
  o[5] = __shfl_xor(v, warpSize / 2);
  o[6] = __float_as_int(__shfl_xor(f, 6, 8));  // width 8
  o[7] = __shfl(v, 3, 16);                     // width 16
  o[8] = __shfl_up(v, 2, 16);
  o[9] = __shfl_down(v, 5, 16);
  long long l2 = __shfl_down(ll, 1);
  o[10] = (int)(l2 >> 32);
  o[11] = (int)l2;
  dout[tid] = __shfl(d, warpSize - 1 - lane);  // reversal
  // Warp sum (wrapping) with __shfl_down.
  int s = v;
  for (int off = warpSize / 2; off > 0; off >>= 1) s += __shfl_down(s, off);
  if (lane == 0) wsum[tid / warpSize] = s;
}

// The HIP rules for a source lane outside the (sub-)warp.
static int h_shfl(const int *w, int lane, int src, int width) {
  return w[src + (lane & ~(width - 1))];
}
static int h_up(const int *w, int lane, int delta, int width) {
  int idx = lane - delta;
  return w[idx < (lane & ~(width - 1)) ? lane : idx];
}
static int h_down(const int *w, int lane, int delta, int width) {
  return w[(lane & (width - 1)) + delta >= width ? lane : lane + delta];
}
static int h_xor(const int *w, int lane, int mask, int width) {
  int idx = lane ^ mask;
  return w[idx >= ((lane + width) & ~(width - 1)) ? lane : idx];
}

int main() {
  const int ws = device_warp_size();
  printf("warpSize %d\n", ws);
  if (ws != 32 && ws != 64) {
    printf("unexpected warp size\n");
    return 1;
  }
  const int n = BLOCK * BLOCKS;
  int in[n];
  double din[n];
  uint32_t seed = 2024;
  for (int i = 0; i < n; i++) {
    in[i] = (int)next_rand(&seed);
    din[i] = (double)in[i] * 0.125 + 1e10 * i;
  }
  int *d_in, *d_out, *d_wsum;
  double *d_din, *d_dout;
  CHECK(hipMalloc(&d_in, sizeof in));
  CHECK(hipMalloc(&d_din, sizeof din));
  CHECK(hipMalloc(&d_out, n * NV * sizeof(int)));
  CHECK(hipMalloc(&d_dout, sizeof din));
  CHECK(hipMalloc(&d_wsum, n / 32 * sizeof(int)));
  CHECK(hipMemcpy(d_in, in, sizeof in, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_din, din, sizeof din, hipMemcpyHostToDevice));
  shuffles<<<BLOCKS, BLOCK>>>(d_in, d_din, d_out, d_dout, d_wsum);
  CHECK_LAUNCH();
  int *out = (int *)malloc(n * NV * sizeof(int));
  double dout[n];
  int wsum[n / 32];
  CHECK(hipMemcpy(out, d_out, n * NV * sizeof(int), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(dout, d_dout, sizeof dout, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(wsum, d_wsum, n / ws * sizeof(int), hipMemcpyDeviceToHost));

  int fbits[n];
  for (int i = 0; i < n; i++) fbits[i] = in[i] ^ 0x3F000000;
  long long lls[n];
  for (int i = 0; i < n; i++)
    lls[i] = ((long long)in[i] << 32) | (unsigned)(in[i] * 3);
  for (int t = 0; t < n; t++) {
    int lane = t % ws;
    const int *w = in + (t - lane);  // this warp's values
    const int *fw = fbits + (t - lane);
    int want[NV];
    want[0] = h_shfl(w, lane, 5, ws);
    want[1] = h_shfl(w, lane, (lane * 7 + 3) % ws, ws);
    want[2] = h_up(w, lane, 3, ws);
    want[3] = h_down(w, lane, 9, ws);
    want[4] = h_xor(w, lane, 1, ws);
    want[5] = h_xor(w, lane, ws / 2, ws);
    want[6] = h_xor(fw, lane, 6, 8);
    want[7] = h_shfl(w, lane, 3, 16);
    want[8] = h_up(w, lane, 2, 16);
    want[9] = h_down(w, lane, 5, 16);
    int src = lane + 1 >= ws ? lane : lane + 1;
    long long l2 = lls[t - lane + src];
    want[10] = (int)(l2 >> 32);
    want[11] = (int)l2;
    for (int k = 0; k < NV; k++) EXPECT_EQ("shfl", t * NV + k, out[t * NV + k], want[k]);
    double dw = din[t - lane + (ws - 1 - lane)];
    EXPECT_TRUE(memcmp(&dout[t], &dw, sizeof dw) == 0);
  }
  for (int wv = 0; wv < n / ws; wv++) {
    uint32_t s = 0;
    for (int l = 0; l < ws; l++) s += (uint32_t)in[wv * ws + l];
    EXPECT_EQ("warp sum", wv, (uint32_t)wsum[wv], s);
  }
  CHECK(hipFree(d_in));
  CHECK(hipFree(d_din));
  CHECK(hipFree(d_out));
  CHECK(hipFree(d_dout));
  CHECK(hipFree(d_wsum));
  free(out);
  char summary[96];
  snprintf(summary, sizeof summary,
           "warpSize %d, %d threads, shfl/up/down/xor on int/float/double/long long, widths 8/16/warp", ws, n);
  return finish("warp_shuffle", summary);
}

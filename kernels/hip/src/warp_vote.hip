// Warp votes: __ballot, __any, __all and __popcll on full warps, on a block of
// 96 threads (a partial wave when warpSize is 64: inactive lanes are not in
// the ballot and do not count for __all), and inside a divergent branch.
// Works for warpSize 32 and 64 (builtin warpSize on the device,
// hipDeviceAttributeWarpSize on the host). Integer-exact.
#include "common.h"

struct Vote {
  unsigned long long ballot, ballot_div;
  int any, all, popc, all_div;
};

__global__ void votes(const uint32_t *in, Vote *out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  uint32_t v = in[tid];
  int pred = (v & 3) == 0;
  unsigned long long b = __ballot(pred);
  int any = __any(v % 97 == 0);
  int all = __all(v != 12345u);  // always true unless data says otherwise
  int popc = __popcll(b);
  unsigned long long bd = 0;
  int alld = -1;
  if (lane % 3 == 0) {  // only every third lane takes part
    bd = __ballot(v & 1);
    alld = __all(lane < 48);
  }
  if (lane == 0) {
    Vote r;
    r.ballot = b;
    r.any = any;
    r.all = all;
    r.popc = popc;
    r.ballot_div = bd;
    r.all_div = alld;
    out[blockIdx.x * ((blockDim.x + warpSize - 1) / warpSize) + threadIdx.x / warpSize] = r;
  }
}

int main() {
  const int ws = device_warp_size();
  printf("warpSize %d\n", ws);
  if (ws != 32 && ws != 64) {
    printf("unexpected warp size\n");
    return 1;
  }
  const int n = 1024;
  uint32_t in[n];
  uint32_t seed = 5;
  for (int i = 0; i < n; i++) in[i] = next_rand(&seed);
  in[70] = 12345u;  // makes __all false in the warp of thread 70
  // Make one warp (threads 128..128+ws-1) satisfy the predicate everywhere
  // and another (threads 256..) nowhere, so all-true and all-false cases occur.
  for (int i = 128; i < 128 + ws; i++) in[i] &= ~3u;
  for (int i = 256; i < 256 + ws; i++) in[i] |= 1u;
  uint32_t *d_in;
  Vote *d_out;
  CHECK(hipMalloc(&d_in, sizeof in));
  CHECK(hipMalloc(&d_out, 64 * sizeof(Vote)));
  CHECK(hipMemcpy(d_in, in, sizeof in, hipMemcpyHostToDevice));

  struct { int blocks, threads; } cases[] = {{2, 256}, {3, 96}};
  for (auto &c : cases) {
    int wpb = (c.threads + ws - 1) / ws;
    CHECK(hipMemset(d_out, 0, 64 * sizeof(Vote)));
    votes<<<c.blocks, c.threads>>>(d_in, d_out);
    CHECK_LAUNCH();
    Vote out[64];
    CHECK(hipMemcpy(out, d_out, 64 * sizeof(Vote), hipMemcpyDeviceToHost));
    for (int b = 0; b < c.blocks; b++)
      for (int w = 0; w < wpb; w++) {
        unsigned long long ballot = 0, bd = 0;
        int any = 0, all = 1, alld = 1;
        for (int l = 0; l < ws; l++) {
          int t = w * ws + l;
          if (t >= c.threads) break;  // inactive lane
          uint32_t v = in[b * c.threads + t];
          if ((v & 3) == 0) ballot |= 1ull << l;
          if (v % 97 == 0) any = 1;
          if (v == 12345u) all = 0;
          if (l % 3 == 0) {
            if (v & 1) bd |= 1ull << l;
            if (!(l < 48)) alld = 0;
          }
        }
        const Vote &r = out[b * wpb + w];
        int idx = b * wpb + w;
        EXPECT_EQ("ballot", idx, r.ballot, ballot);
        EXPECT_EQ("any", idx, r.any != 0, any != 0);
        EXPECT_EQ("all", idx, r.all != 0, all != 0);
        EXPECT_EQ("popcll", idx, r.popc, __builtin_popcountll(ballot));
        EXPECT_EQ("ballot divergent", idx, r.ballot_div, bd);
        EXPECT_EQ("all divergent", idx, r.all_div != 0, alld != 0);
      }
    printf("%d blocks x %d threads: %d warps checked\n", c.blocks, c.threads,
           c.blocks * wpb);
  }
  CHECK(hipFree(d_in));
  CHECK(hipFree(d_out));
  char summary[80];
  snprintf(summary, sizeof summary, "warpSize %d, ballot/any/all/popcll, full, partial and divergent warps", ws);
  return finish("warp_vote", summary);
}

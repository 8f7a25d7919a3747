// Waves of one work-group waiting on each other through global-memory flags,
// with no __syncthreads: in each 256-thread block, wave w (w < last) spins
// until wave w+1 has published its results and set flags[w+1]; the last wave
// starts at once. So wave 0 can only finish after the last wave, and every
// wave must make progress while others spin. Each wave's result is a
// suffix sum over the waves after it (out[t] = in[t] + out[t + warpSize]).
// Works for warpSize 32 (8 waves) and 64 (4 waves). Spins are bounded
// (2^20 polls with s_sleep): a scheduler that starves a wave gives a
// reported timeout, not a hang. The most polls a wave made is printed (a
// scheduler that lets a sleeping wave's neighbours run needs few). Integer-exact.
#include "common.h"

#define BLOCK 256
#define BLOCKS 2
#define SPIN_LIMIT (1u << 20)

__device__ static int load_acquire(int *p) {
  return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
}
__device__ static void store_release(int *p, int v) {
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}

__global__ void __launch_bounds__(BLOCK) chain(const uint32_t *in, uint32_t *out, int *flags,
                                               int *timeouts, unsigned *max_polls) {
  int waves = blockDim.x / warpSize;
  int w = threadIdx.x / warpSize;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *my_flags = flags + blockIdx.x * 64;
  uint32_t acc = in[t];
  if (w < waves - 1) {
    unsigned polls = 0;
    while (load_acquire(&my_flags[w + 1]) == 0 && polls < SPIN_LIMIT) {
      __builtin_amdgcn_s_sleep(2);
      polls++;
    }
    if (threadIdx.x % warpSize == 0) atomicMax(max_polls, polls);
    if (polls >= SPIN_LIMIT) {
      if (threadIdx.x % warpSize == 0) atomicAdd(timeouts, 1);
    } else {
      acc += out[t + warpSize];  // written by wave w + 1
    }
  }
  out[t] = acc;
  __threadfence();
  store_release(&my_flags[w], 1);
}

int main() {
  const int ws = device_warp_size();
  const int waves = BLOCK / ws, n = BLOCK * BLOCKS;
  printf("warpSize %d: %d waves per block\n", ws, waves);
  uint32_t in[n], out[n];
  uint32_t seed = 60221;
  for (int i = 0; i < n; i++) in[i] = next_rand(&seed) >> 4;
  uint32_t *d_in, *d_out;
  int *flags, *timeouts;
  unsigned *max_polls;
  CHECK(hipMalloc(&d_in, sizeof in));
  CHECK(hipMalloc(&d_out, sizeof out));
  CHECK(hipMalloc(&flags, BLOCKS * 64 * sizeof(int)));
  CHECK(hipMalloc(&timeouts, sizeof(int)));
  CHECK(hipMalloc(&max_polls, sizeof(unsigned)));
  CHECK(hipMemcpy(d_in, in, sizeof in, hipMemcpyHostToDevice));
  CHECK(hipMemset(d_out, 0, sizeof out));
  CHECK(hipMemset(flags, 0, BLOCKS * 64 * sizeof(int)));
  CHECK(hipMemset(timeouts, 0, sizeof(int)));
  CHECK(hipMemset(max_polls, 0, sizeof(unsigned)));
  chain<<<BLOCKS, BLOCK>>>(d_in, d_out, flags, timeouts, max_polls);
  CHECK_LAUNCH();
  CHECK(hipDeviceSynchronize());
  int h_timeouts = 0, h_flags[BLOCKS * 64];
  CHECK(hipMemcpy(out, d_out, sizeof out, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(&h_timeouts, timeouts, sizeof h_timeouts, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(h_flags, flags, sizeof h_flags, hipMemcpyDeviceToHost));
  unsigned h_max_polls = 0;
  CHECK(hipMemcpy(&h_max_polls, max_polls, sizeof h_max_polls, hipMemcpyDeviceToHost));
  printf("most polls by a wave: %u\n", h_max_polls);
  EXPECT_EQ("waves that timed out", 0, h_timeouts, 0);
  for (int b = 0; b < BLOCKS; b++) {
    for (int w = 0; w < 64; w++) EXPECT_EQ("flag", b * 64 + w, h_flags[b * 64 + w], w < waves ? 1 : 0);
    for (int l = 0; l < BLOCK; l++) {
      uint32_t want = 0;
      for (int k = l; k < BLOCK; k += ws) want += in[b * BLOCK + k];
      EXPECT_EQ("suffix sum", b * BLOCK + l, out[b * BLOCK + l], want);
    }
  }
  char summary[80];
  snprintf(summary, sizeof summary, "%d blocks x %d waves chained through flags, no barrier", BLOCKS, waves);
  return finish("wave_spin", summary);
}

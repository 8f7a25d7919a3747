// Work-groups that wait for each other with no grid barrier, across nine
// kernels on nine streams (the shape of ROCgdb's gdb.rocm/names.cpp): every
// block of every kernel announces itself on a counter in device memory, then
// spins (s_sleep between polls) until all blocks of all kernels have arrived.
// On a GPU the 36 single-wave blocks are resident together and all see the
// count; a runtime or simulator that runs a block to its end before starting
// the next, or a dispatch to its end before the next stream's, hits the poll
// limit (about 2^20 polls) and the block reports a timeout instead of
// hanging. Integer-exact.
//
// HIP 5.2 gives the streams of a device four HSA queues (GPU_MAX_HW_QUEUES);
// streams beyond that share a queue, and a kernel there waits behind the
// other stream's kernel (ROCclr sets the AQL barrier bit), on a GPU as on
// amdsim. The program asks for enough queues before its first HIP call.
#include "common.h"

#define KERNELS 9
#define BLOCKS 4
#define THREADS 64
#define SPIN_LIMIT (1u << 20)

__device__ int arrived = 0;

// result[k * BLOCKS + b]: how many arrivals block b of kernel k saw last
// (KERNELS * BLOCKS when it saw them all), negative after a timeout.
template <int K> __global__ void wait_all(int *result) {
  if (threadIdx.x == 0) atomicAdd(&arrived, 1);
  unsigned polls = 0;
  int seen;
  while ((seen = atomicAdd(&arrived, 0)) < KERNELS * BLOCKS && polls < SPIN_LIMIT) {
    __builtin_amdgcn_s_sleep(8);
    polls++;
  }
  if (threadIdx.x == 0) result[K * BLOCKS + blockIdx.x] = polls < SPIN_LIMIT ? seen : -seen;
}

typedef void (*Kernel)(int *);
static const Kernel kernels[KERNELS] = {wait_all<0>, wait_all<1>, wait_all<2>,
                                        wait_all<3>, wait_all<4>, wait_all<5>,
                                        wait_all<6>, wait_all<7>, wait_all<8>};

int main() {
  // Before the runtime starts: one HSA queue per stream (see above).
  setenv("GPU_MAX_HW_QUEUES", "16", 1);
  int *result;
  CHECK(hipMalloc(&result, KERNELS * BLOCKS * sizeof(int)));
  CHECK(hipMemset(result, 0, KERNELS * BLOCKS * sizeof(int)));
  CHECK(hipDeviceSynchronize());
  hipStream_t streams[KERNELS];
  for (int k = 0; k < KERNELS; k++) {
    CHECK(hipStreamCreateWithFlags(&streams[k], hipStreamNonBlocking));
    hipLaunchKernelGGL(kernels[k], dim3(BLOCKS), dim3(THREADS), 0, streams[k], result);
    CHECK_LAUNCH();
  }
  CHECK(hipDeviceSynchronize());
  int h[KERNELS * BLOCKS];
  CHECK(hipMemcpy(h, result, sizeof h, hipMemcpyDeviceToHost));
  int timeouts = 0;
  for (int i = 0; i < KERNELS * BLOCKS; i++) timeouts += h[i] < 0;
  printf("%d blocks of %d kernels, %d timed out\n", KERNELS * BLOCKS, KERNELS, timeouts);
  for (int i = 0; i < KERNELS * BLOCKS; i++)
    EXPECT_EQ("arrivals the block saw", i, h[i], KERNELS * BLOCKS);
  for (int k = 0; k < KERNELS; k++) CHECK(hipStreamDestroy(streams[k]));
  CHECK(hipFree(result));
  return finish("all_wait", "36 blocks of nine kernels on nine streams wait for each other");
}

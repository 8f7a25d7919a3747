// Kernels that must run at the same time on different streams. Kernel A
// (stream 1) announces that it started, then spins until kernel B (stream 2)
// has written its data and set a flag; B first spins until A has started. So
// neither can finish unless both are resident together: a runtime or
// simulator that runs the streams one after the other hits the spin limit
// (about 2^20 polls with s_sleep in between; on a GPU well under a second)
// and the program reports a timeout instead of hanging. Flags live in device
// memory and are read with agent-scope acquire loads (__hip_atomic_load) and
// written with release stores. Integer-exact.
#include "common.h"

#define N 256
#define SPIN_LIMIT (1u << 20)

__device__ static int load_acquire(int *p) {
  return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
}
__device__ static void store_release(int *p, int v) {
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}

// flags[0]: A started, flags[1]: B's data ready. status[k]: 1 = saw the flag,
// 2 = gave up (timeout).
__global__ void kernel_a(int *flags, const int *data_b, int *out, int *status) {
  store_release(&flags[0], 1);
  unsigned polls = 0;
  while (load_acquire(&flags[1]) == 0 && polls < SPIN_LIMIT) {
    __builtin_amdgcn_s_sleep(2);
    polls++;
  }
  bool ok = polls < SPIN_LIMIT;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = ok ? data_b[i] + 1 : -1;
  if (i == 0) status[0] = ok ? 1 : 2;
}

__global__ void kernel_b(int *flags, int *data_b, int *status) {
  unsigned polls = 0;
  while (load_acquire(&flags[0]) == 0 && polls < SPIN_LIMIT) {
    __builtin_amdgcn_s_sleep(2);
    polls++;
  }
  bool ok = polls < SPIN_LIMIT;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data_b[i] = i * 3 + 1000;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) store_release(&flags[1], 1);
  if (i == 0) status[1] = ok ? 1 : 2;
}

int main() {
  int *flags, *data_b, *out, *status;
  CHECK(hipMalloc(&flags, 2 * sizeof(int)));
  CHECK(hipMalloc(&data_b, N * sizeof(int)));
  CHECK(hipMalloc(&out, N * sizeof(int)));
  CHECK(hipMalloc(&status, 2 * sizeof(int)));
  CHECK(hipMemset(flags, 0, 2 * sizeof(int)));
  CHECK(hipMemset(data_b, 0, N * sizeof(int)));
  CHECK(hipMemset(out, 0, N * sizeof(int)));
  CHECK(hipMemset(status, 0, 2 * sizeof(int)));
  CHECK(hipDeviceSynchronize());

  hipStream_t s1, s2;
  CHECK(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
  CHECK(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  // B's data is written by one block; A uses one block too (N threads each).
  kernel_a<<<1, N, 0, s1>>>(flags, data_b, out, status);
  CHECK_LAUNCH();
  kernel_b<<<1, N, 0, s2>>>(flags, data_b, status);
  CHECK_LAUNCH();
  CHECK(hipStreamSynchronize(s1));
  CHECK(hipStreamSynchronize(s2));

  int h_status[2], h_out[N];
  CHECK(hipMemcpy(h_status, status, sizeof h_status, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(h_out, out, sizeof h_out, hipMemcpyDeviceToHost));
  printf("kernel A: %s, kernel B: %s\n", h_status[0] == 1 ? "saw B's flag" : "TIMEOUT",
         h_status[1] == 1 ? "saw A's flag" : "TIMEOUT");
  EXPECT_EQ("A status (1 ok, 2 timeout)", 0, h_status[0], 1);
  EXPECT_EQ("B status (1 ok, 2 timeout)", 1, h_status[1], 1);
  for (int i = 0; i < N; i++) EXPECT_EQ("A read B's data", i, h_out[i], i * 3 + 1000 + 1);

  CHECK(hipStreamDestroy(s1));
  CHECK(hipStreamDestroy(s2));
  CHECK(hipFree(flags));
  CHECK(hipFree(data_b));
  CHECK(hipFree(out));
  CHECK(hipFree(status));
  return finish("stream_spin", "two kernels on two streams handshake through device-memory flags");
}

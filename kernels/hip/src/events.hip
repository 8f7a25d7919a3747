// Events: hipEventRecord around a kernel, hipEventSynchronize,
// hipEventElapsedTime (>= 0), hipEventQuery (success after the
// synchronisation), and hipStreamWaitEvent: a consumer kernel on stream B
// waits on an event recorded on stream A after a producer kernel that first
// idles a little (s_sleep), so a missing dependency would show as stale data.
// Integer-exact.
#include "common.h"

#define N 2048

__global__ void producer(uint32_t *buf, uint32_t tag, int delay) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < delay; k++) __builtin_amdgcn_s_sleep(8);
  if (i < N) buf[i] = tag + i;
}

__global__ void consumer(const uint32_t *buf, uint32_t *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = buf[i] * 2u;
}

int main() {
  hipStream_t a, b;
  CHECK(hipStreamCreate(&a));
  CHECK(hipStreamCreate(&b));
  hipEvent_t start, stop, ready;
  CHECK(hipEventCreate(&start));
  CHECK(hipEventCreate(&stop));
  CHECK(hipEventCreateWithFlags(&ready, hipEventDisableTiming));

  uint32_t *buf, *out;
  CHECK(hipMalloc(&buf, N * sizeof(uint32_t)));
  CHECK(hipMalloc(&out, N * sizeof(uint32_t)));
  CHECK(hipMemset(buf, 0, N * sizeof(uint32_t)));
  CHECK(hipMemset(out, 0, N * sizeof(uint32_t)));
  CHECK(hipDeviceSynchronize());

  // Timing on stream a.
  CHECK(hipEventRecord(start, a));
  producer<<<N / 256, 256, 0, a>>>(buf, 1000u, 200);
  CHECK_LAUNCH();
  CHECK(hipEventRecord(ready, a));
  CHECK(hipEventRecord(stop, a));

  // Stream b waits for "ready", then consumes.
  CHECK(hipStreamWaitEvent(b, ready, 0));
  consumer<<<N / 256, 256, 0, b>>>(buf, out);
  CHECK_LAUNCH();

  hipError_t q = hipEventQuery(stop);
  if (q != hipSuccess && q != hipErrorNotReady) CHECK(q);
  printf("hipEventQuery before sync: %s\n", q == hipSuccess ? "hipSuccess" : "hipErrorNotReady");
  CHECK(hipEventSynchronize(stop));
  CHECK(hipEventQuery(stop));
  CHECK(hipEventQuery(start));
  float ms = -1.0f;
  CHECK(hipEventElapsedTime(&ms, start, stop));
  printf("producer took %.3f ms (elapsed time must be >= 0)\n", ms);
  EXPECT_TRUE(ms >= 0.0f);
  // Elapsed time needs timing events: the disable-timing event must fail.
  float dummy;
  EXPECT_TRUE(hipEventElapsedTime(&dummy, start, ready) != hipSuccess);

  CHECK(hipStreamSynchronize(b));
  uint32_t h[N];
  CHECK(hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) EXPECT_EQ("consumer", i, h[i], (1000u + i) * 2u);

  // Second round on the other pair of streams: b produces, a waits.
  CHECK(hipEventRecord(start, b));
  producer<<<N / 256, 256, 0, b>>>(buf, 77u, 200);
  CHECK_LAUNCH();
  CHECK(hipEventRecord(ready, b));
  CHECK(hipStreamWaitEvent(a, ready, 0));
  consumer<<<N / 256, 256, 0, a>>>(buf, out);
  CHECK_LAUNCH();
  CHECK(hipEventRecord(stop, a));
  CHECK(hipEventSynchronize(stop));
  CHECK(hipEventElapsedTime(&ms, start, stop));
  EXPECT_TRUE(ms >= 0.0f);
  CHECK(hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) EXPECT_EQ("consumer 2", i, h[i], (77u + i) * 2u);

  CHECK(hipEventDestroy(start));
  CHECK(hipEventDestroy(stop));
  CHECK(hipEventDestroy(ready));
  CHECK(hipStreamDestroy(a));
  CHECK(hipStreamDestroy(b));
  CHECK(hipFree(buf));
  CHECK(hipFree(out));
  return finish("events", "record/synchronize/query/elapsed time, hipStreamWaitEvent both ways");
}

// __device__ and __constant__ globals: hipMemcpyToSymbol (with an offset),
// hipMemcpyFromSymbol, hipMemcpyToSymbolAsync, hipGetSymbolAddress,
// hipGetSymbolSize; a kernel reads the __constant__ table and a __device__
// scalar and writes a __device__ array and counter. Integer-exact.
#include "common.h"

#define TABLE 64
#define N 512

__constant__ uint32_t c_table[TABLE];
__constant__ int32_t c_bias = -7;  // initialised in the code object
__device__ uint32_t d_out[N];
__device__ uint32_t d_scale;
__device__ unsigned long long d_sum;  // zero-initialised
__device__ int d_init[4] = {11, 22, 33, 44};

__global__ void use_symbols(const uint32_t *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    uint32_t v = in[i];
    uint32_t r = c_table[v % TABLE] * d_scale + (uint32_t)c_bias +
                 (uint32_t)d_init[i & 3];
    d_out[i] = r;
    atomicAdd(&d_sum, (unsigned long long)r);
  }
}

int main() {
  uint32_t table[TABLE], in[N];
  for (int i = 0; i < TABLE; i++) table[i] = (uint32_t)(i * i * 2654435761u);
  uint32_t seed = 99;
  for (int i = 0; i < N; i++) in[i] = next_rand(&seed);

  // The upper half of the table with an offset, then the lower half.
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(c_table), table + TABLE / 2,
                          sizeof(uint32_t) * TABLE / 2,
                          sizeof(uint32_t) * TABLE / 2, hipMemcpyHostToDevice));
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(c_table), table,
                          sizeof(uint32_t) * TABLE / 2, 0,
                          hipMemcpyHostToDevice));
  uint32_t scale = 3;
  CHECK(hipMemcpyToSymbolAsync(HIP_SYMBOL(d_scale), &scale, sizeof scale, 0,
                               hipMemcpyHostToDevice, 0));
  CHECK(hipStreamSynchronize(0));

  // Initial values from the code object.
  int32_t bias = 0;
  int init[4] = {0, 0, 0, 0};
  CHECK(hipMemcpyFromSymbol(&bias, HIP_SYMBOL(c_bias), sizeof bias, 0,
                            hipMemcpyDeviceToHost));
  CHECK(hipMemcpyFromSymbol(init, HIP_SYMBOL(d_init), sizeof init, 0,
                            hipMemcpyDeviceToHost));
  EXPECT_EQ("c_bias", 0, bias, -7);
  for (int k = 0; k < 4; k++) EXPECT_EQ("d_init", k, init[k], 11 * (k + 1));

  // Symbol address and size.
  void *addr = nullptr;
  size_t size = 0;
  CHECK(hipGetSymbolAddress(&addr, HIP_SYMBOL(d_out)));
  CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(d_out)));
  EXPECT_TRUE(addr != nullptr);
  EXPECT_EQ("sizeof d_out", 0, size, sizeof(uint32_t) * N);
  CHECK(hipMemset(addr, 0, size));

  uint32_t *d_in;
  CHECK(hipMalloc(&d_in, sizeof in));
  CHECK(hipMemcpy(d_in, in, sizeof in, hipMemcpyHostToDevice));
  use_symbols<<<N / 128, 128>>>(d_in);
  CHECK_LAUNCH();
  CHECK(hipDeviceSynchronize());

  uint32_t out[N];
  unsigned long long sum = 0;
  CHECK(hipMemcpyFromSymbol(out, HIP_SYMBOL(d_out), sizeof out, 0,
                            hipMemcpyDeviceToHost));
  CHECK(hipMemcpyFromSymbol(&sum, HIP_SYMBOL(d_sum), sizeof sum, 0,
                            hipMemcpyDeviceToHost));
  // The same data through the symbol's address with plain hipMemcpy,
  // from element 100 on.
  uint32_t out2[N - 100];
  CHECK(hipMemcpy(out2, (uint32_t *)addr + 100, sizeof out2,
                  hipMemcpyDeviceToHost));

  unsigned long long want_sum = 0;
  for (int i = 0; i < N; i++) {
    uint32_t want = table[in[i] % TABLE] * scale + (uint32_t)-7 +
                    (uint32_t)(11 * ((i & 3) + 1));
    want_sum += want;
    EXPECT_EQ("d_out", i, out[i], want);
    if (i >= 100) EXPECT_EQ("via address", i, out2[i - 100], want);
  }
  EXPECT_EQ("d_sum", 0, sum, want_sum);

  CHECK(hipFree(d_in));
  return finish("symbols", "__constant__ table/bias, __device__ array/scalars, To/FromSymbol, symbol address/size");
}

// Templates and non-inlined device functions: a kernel template instantiated
// for int, unsigned long long, float, double and a struct, calling
// __attribute__((noinline)) __device__ functions (one a template, one taking
// a private array by pointer, one calling another in a loop with a per-thread
// trip count). Float results use only
// operations that are exact for the chosen inputs (small integers scaled by
// powers of two), so the host result is bit-identical.
#include "common.h"

struct Pair {
  int a, b;
  __host__ __device__ Pair operator+(const Pair &o) const { return {a + o.a, b ^ o.b}; }
  __host__ __device__ Pair operator*(int k) const { return {a * k, b + k}; }
  __host__ __device__ bool operator==(const Pair &o) const { return a == o.a && b == o.b; }
};

template <class T>
__device__ __attribute__((noinline)) T combine(T x, T y, int k) {
  return x * k + y;
}

__device__ __attribute__((noinline)) int sum_private(const int *arr, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += arr[i] * (i + 1);
  return s;
}

__device__ __attribute__((noinline)) unsigned mix(unsigned x, unsigned k) {
  return (x ^ k) * 2654435761u + (x >> 3);
}

__device__ __attribute__((noinline)) unsigned mix_rounds(unsigned x, int rounds) {
  for (int r = 0; r < rounds; r++) x = mix(x, (unsigned)r);  // divergent calls
  return x;
}

template <class T, int K>
__global__ void apply(const T *x, const T *y, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = combine<T>(x[i], y[i], K + (i & 3));
}

__global__ void calls(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int priv[16];
    for (int j = 0; j < 16; j++) priv[j] = in[(i + j) % n] ^ j;
    int m = 1 + (in[i] & 15);  // run-time length
    out[2 * i] = sum_private(priv, m);
    out[2 * i + 1] = (int)mix_rounds((unsigned)in[i], i % 5);
  }
}

template <class T> static T host_combine(T x, T y, int k) { return x * k + y; }

template <class T, int K>
static void run(const char *name, T (*gen)(int)) {
  const int n = 300;
  T hx[n], hy[n], ho[n];
  for (int i = 0; i < n; i++) {
    hx[i] = gen(i);
    hy[i] = gen(3 * i + 1);
  }
  T *dx, *dy, *dout;
  CHECK(hipMalloc(&dx, sizeof hx));
  CHECK(hipMalloc(&dy, sizeof hy));
  CHECK(hipMalloc(&dout, sizeof ho));
  CHECK(hipMemcpy(dx, hx, sizeof hx, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, hy, sizeof hy, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(HIP_KERNEL_NAME(apply<T, K>), dim3(3), dim3(128), 0, 0,
                     dx, dy, dout, n);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(ho, dout, sizeof ho, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    T want = host_combine<T>(hx[i], hy[i], K + (i & 3));
    if (!(ho[i] == want)) {
      if (g_mismatches < kMaxReported) printf("MISMATCH %s[%d]\n", name, i);
      g_mismatches++;
    }
  }
  CHECK(hipFree(dx));
  CHECK(hipFree(dy));
  CHECK(hipFree(dout));
}

static int gen_int(int i) { return i * 7 - 1000; }
static unsigned long long gen_u64(int i) { return 0x100000001ull * (unsigned)i + 12345; }
static float gen_float(int i) { return (float)(i % 64 - 32) * 0.125f; }
static double gen_double(int i) { return (double)(i - 150) * 0.0625; }
static Pair gen_pair(int i) { return {i * 3, i * 11}; }

int main() {
  run<int, 3>("int", gen_int);
  run<unsigned long long, 5>("u64", gen_u64);
  run<float, 2>("float", gen_float);
  run<double, 7>("double", gen_double);
  run<Pair, 4>("Pair", gen_pair);

  const int n = 200;
  int in[n], out[2 * n];
  for (int i = 0; i < n; i++) in[i] = i * 37 + 5;
  int *din, *dout;
  CHECK(hipMalloc(&din, sizeof in));
  CHECK(hipMalloc(&dout, sizeof out));
  CHECK(hipMemcpy(din, in, sizeof in, hipMemcpyHostToDevice));
  calls<<<2, 128>>>(din, dout, n);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(out, dout, sizeof out, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    int priv[16];
    for (int j = 0; j < 16; j++) priv[j] = in[(i + j) % n] ^ j;
    int m = 1 + (in[i] & 15), s = 0;
    for (int j = 0; j < m; j++) s += priv[j] * (j + 1);
    unsigned x = (unsigned)in[i];
    for (int r = 0; r < i % 5; r++) x = (x ^ (unsigned)r) * 2654435761u + (x >> 3);
    EXPECT_EQ("sum_private", i, out[2 * i], s);
    EXPECT_EQ("mix_rounds", i, out[2 * i + 1], (int)x);
  }
  CHECK(hipFree(din));
  CHECK(hipFree(dout));
  return finish("templates_calls", "apply<T,K> for int/u64/float/double/struct, noinline calls and call chains");
}

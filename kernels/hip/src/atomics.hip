// Global atomics: atomicAdd on int, unsigned long long and float, a CAS loop
// (atomicCAS on the bits) implementing atomicMax for double, atomicExch,
// atomicMin/atomicMax on int and unsigned, atomicAnd/Or/Xor, plus one shared
// memory atomicAdd per block. Results do not depend on the order of the
// atomics: the float sum adds multiples of 0.25 whose partial sums stay far
// below 2^24 * 0.25, so every ordering is exact; atomicExch is checked as a
// permutation (every old value appears exactly once).
#include "common.h"

#define N 2048

__device__ double atomic_max_double(double *addr, double val) {
  unsigned long long *p = (unsigned long long *)addr;
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    if (__longlong_as_double(assumed) >= val) break;
    old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(val));
  } while (old != assumed);
  return __longlong_as_double(old);
}

struct Acc {
  int isum;
  unsigned long long lsum;
  float fsum;
  int imin, imax;
  unsigned umin, umax;
  unsigned band, bor, bxor;
  double dmax;
  int exch;
};

__global__ void atomics(const int *in, const double *dv, Acc *acc, int *old_exch,
                        int *block_counts) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    int v = in[i];
    atomicAdd(&acc->isum, v);
    atomicAdd(&acc->lsum, (unsigned long long)(unsigned)v * 4096ull);
    atomicAdd(&acc->fsum, (float)(v & 1023) * 0.25f);
    atomicMin(&acc->imin, v);
    atomicMax(&acc->imax, v);
    atomicMin(&acc->umin, (unsigned)v);
    atomicMax(&acc->umax, (unsigned)v);
    atomicAnd(&acc->band, (unsigned)v | 0x80000001u);
    atomicOr(&acc->bor, (unsigned)v & 0x0F0F0F0Fu);
    atomicXor(&acc->bxor, (unsigned)v);
    atomic_max_double(&acc->dmax, dv[i]);
    old_exch[i] = atomicExch(&acc->exch, i);
    atomicAdd(&count, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) block_counts[blockIdx.x] = count;
}

int main() {
  int in[N];
  double dv[N];
  uint32_t seed = 8675309;
  for (int i = 0; i < N; i++) {
    in[i] = (int)next_rand(&seed);
    dv[i] = (double)(int)next_rand(&seed) * 1e-3;
  }
  Acc init = {0, 0, 0.0f, INT32_MAX, INT32_MIN, UINT32_MAX, 0,
              0xFFFFFFFFu, 0, 0, -1e300, -1};
  int *d_in, *d_old, *d_counts;
  double *d_dv;
  Acc *d_acc;
  const int block = 192, blocks = (N + block - 1) / block;  // last block partial
  CHECK(hipMalloc(&d_in, sizeof in));
  CHECK(hipMalloc(&d_dv, sizeof dv));
  CHECK(hipMalloc(&d_acc, sizeof(Acc)));
  CHECK(hipMalloc(&d_old, N * sizeof(int)));
  CHECK(hipMalloc(&d_counts, blocks * sizeof(int)));
  CHECK(hipMemcpy(d_in, in, sizeof in, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_dv, dv, sizeof dv, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_acc, &init, sizeof init, hipMemcpyHostToDevice));
  atomics<<<blocks, block>>>(d_in, d_dv, d_acc, d_old, d_counts);
  CHECK_LAUNCH();
  Acc r;
  int old[N], counts[16];
  CHECK(hipMemcpy(&r, d_acc, sizeof r, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(old, d_old, sizeof old, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(counts, d_counts, blocks * sizeof(int), hipMemcpyDeviceToHost));

  Acc w = init;
  uint32_t isum = 0;
  for (int i = 0; i < N; i++) {
    int v = in[i];
    isum += (uint32_t)v;
    w.lsum += (unsigned long long)(unsigned)v * 4096ull;
    w.fsum += (float)(v & 1023) * 0.25f;
    w.imin = v < w.imin ? v : w.imin;
    w.imax = v > w.imax ? v : w.imax;
    w.umin = (unsigned)v < w.umin ? (unsigned)v : w.umin;
    w.umax = (unsigned)v > w.umax ? (unsigned)v : w.umax;
    w.band &= (unsigned)v | 0x80000001u;
    w.bor |= (unsigned)v & 0x0F0F0F0Fu;
    w.bxor ^= (unsigned)v;
    w.dmax = dv[i] > w.dmax ? dv[i] : w.dmax;
  }
  EXPECT_EQ("isum", 0, (uint32_t)r.isum, isum);
  EXPECT_EQ("lsum", 0, r.lsum, w.lsum);
  EXPECT_EQ("fsum", 0, r.fsum, w.fsum);
  EXPECT_EQ("imin", 0, r.imin, w.imin);
  EXPECT_EQ("imax", 0, r.imax, w.imax);
  EXPECT_EQ("umin", 0, r.umin, w.umin);
  EXPECT_EQ("umax", 0, r.umax, w.umax);
  EXPECT_EQ("and", 0, r.band, w.band);
  EXPECT_EQ("or", 0, r.bor, w.bor);
  EXPECT_EQ("xor", 0, r.bxor, w.bxor);
  EXPECT_EQ("dmax", 0, r.dmax, w.dmax);
  // atomicExch: the old values are -1 and every index but the last one
  // written, each exactly once; the final value is the missing index.
  static int seen[N + 1];
  for (int i = 0; i < N; i++) {
    int o = old[i];
    if (o < -1 || o >= N || seen[o + 1]) {
      EXPECT_EQ("exch old value", i, o, -2);  // reports the bad value
    } else {
      seen[o + 1] = 1;
    }
  }
  EXPECT_TRUE(seen[0] == 1);
  EXPECT_TRUE(r.exch >= 0 && r.exch < N && !seen[r.exch + 1]);
  for (int b = 0; b < blocks; b++)
    EXPECT_EQ("shared count", b, counts[b], b == blocks - 1 ? N - b * block : block);
  CHECK(hipFree(d_in));
  CHECK(hipFree(d_dv));
  CHECK(hipFree(d_acc));
  CHECK(hipFree(d_old));
  CHECK(hipFree(d_counts));
  return finish("atomics", "2048 threads: add i32/u64/f32, CAS max f64, exch, min/max, and/or/xor, shared add");
}

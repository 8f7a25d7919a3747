// Functions to `finish` from (built -O0 -g, see the flags line): each returns a
// value of another shape, so the debugger must read it as LLVM's AMDGPU calling
// convention returns it: up to 8 bytes packed in v0-v1, larger aggregates one
// register per scalar member (up to 32), the rest through memory the caller
// gave. Every value depends on the lane's work-item; the kernel stores what it
// got and the host checks it. Integer-exact (the floats are exact constants).
// Then C++ references (to a caller's local in private memory, to a global, an
// rvalue reference to a temporary) and a struct with static data members (one
// defined, one never defined, one constexpr), as gdb prints them.
// flags: -O0 -g
#include "common.h"

struct Empty {};
struct Mixed {  // 8 bytes: packed into v0 (a) and v1 (b)
  float a;
  short b[2];
};
struct Bits {  // 4 bytes of bit fields: packed into v0
  int x : 7;
  int y : 7;
  int z : 7;
};
template <int N>
struct Chars {  // N registers, one per char, when 8 < N <= 32
  char data[N];
};
union Word {
  int as_int;
  char as_chars[4];
};
struct Wide {  // 2 + 1 + 2 registers: a[0], a[1], b, d (two halves)
  int a[2];
  float b;
  double d;
};

struct Tally {  // 4 bytes: its static data members take no room in it
  int x;
  __device__ static int made;      // defined below: read from its definition
  __device__ static int never;     // never defined (nor used): nothing to read
  static constexpr int limit = 7;  // a constant the DWARF carries
};
__device__ int Tally::made = 56;
__device__ Tally tallies[64];

__device__ __attribute__((noinline)) Empty get_empty() { return {}; }

__device__ __attribute__((noinline)) Mixed get_mixed(int t) {
  Mixed m;
  m.a = 0.25f * t;
  m.b[0] = (short)(4 + t);
  m.b[1] = (short)(-7 - t);
  return m;
}

__device__ __attribute__((noinline)) Bits get_bits(int t) {
  Bits b;
  b.x = t;
  b.y = -t;
  b.z = t + 2;
  return b;
}

template <int N>
__device__ __attribute__((noinline)) Chars<N> get_chars(int t) {
  Chars<N> c;
  for (int i = 0; i < N; i++) c.data[i] = (char)('a' + (t + i) % 26);
  return c;
}

__device__ __attribute__((noinline)) Chars<2> get_words_first(int t) {
  Chars<2> c;
  c.data[0] = (char)('A' + t % 26);
  c.data[1] = 0;
  return c;
}

__device__ __attribute__((noinline)) Word get_word(int t) {
  Word w;
  w.as_int = 0x61616161 + t;
  return w;
}

__device__ __attribute__((noinline)) Wide get_wide(int t) {
  return {{8 * t, 16 * t}, 3.5f, -1.0 / (1 << t % 8)};
}

__device__ __attribute__((noinline)) long get_long(int t) {
  return -(1L << 40) - t;
}

// r: the caller's local; c: an element of a global array; k: a temporary.
__device__ __attribute__((noinline)) int add_ref(int &r, const Tally &c, int &&k) {
  r += c.x + Tally::made + k;
  return r;
}

__device__ __attribute__((noinline)) const Tally &get_tally(int t) {
  tallies[t].x = 3 * t;
  return tallies[t];
}

__device__ __attribute__((noinline)) Tally get_tally_value(int t) { return {7 * t}; }

constexpr int kOut = 20;

__global__ void __attribute__((optnone)) returns(long *out) {
  const int t = threadIdx.x;
  long *o = out + t * kOut;
  get_empty();
  Mixed m = get_mixed(t);
  Bits b = get_bits(t);
  Chars<9> c9 = get_chars<9>(t);
  Chars<40> c40 = get_chars<40>(t);
  Word w = get_word(t);
  Wide d = get_wide(t);
  long l = get_long(t);
  Chars<2> c2 = get_words_first(t);
  o[0] = (long)(m.a * 4.0f);
  o[1] = m.b[0];
  o[2] = m.b[1];
  o[3] = b.x;
  o[4] = b.y;
  o[5] = b.z;
  o[6] = c9.data[8];
  o[7] = c40.data[39];
  o[8] = w.as_int;
  o[9] = d.a[1];
  o[10] = (long)(d.b * 2.0f);
  o[11] = (long)(-1.0 / d.d);
  o[12] = l;
  o[13] = c2.data[0];
  o[14] = c9.data[0];
  o[15] = c40.data[0];
  const Tally &g = get_tally(t);
  int acc = t;
  int sum = add_ref(acc, g, t + 1);
  Tally v = get_tally_value(t);
  o[16] = sum;
  o[17] = acc;
  o[18] = v.x;
  o[19] = g.x;
}

int main() {
  const int n = 64;
  long *d_out;
  CHECK(hipMalloc(&d_out, sizeof(long) * n * kOut));
  returns<<<1, n>>>(d_out);
  CHECK_LAUNCH();
  long h[n * kOut];
  CHECK(hipMemcpy(h, d_out, sizeof h, hipMemcpyDeviceToHost));
  for (int t = 0; t < n; t++) {
    const long want[kOut] = {t,
                           4 + t,
                           -7 - t,
                           // 7-bit signed fields: wrap into [-64, 63]
                           ((t + 64) & 127) - 64,
                           ((-t + 64) & 127) - 64,
                           ((t + 2 + 64) & 127) - 64,
                           'a' + (t + 8) % 26,
                           'a' + (t + 39) % 26,
                           0x61616161 + t,
                           16 * t,
                           7,
                           1L << t % 8,
                           -(1L << 40) - t,
                           'A' + t % 26,
                           'a' + t % 26,
                           'a' + t % 26,
                           // t + 3t + 56 + (t + 1), in sum and in acc through r
                           5 * t + 57,
                           5 * t + 57,
                           7 * t,
                           3 * t};
    for (int k = 0; k < kOut; k++)
      EXPECT_EQ("returns", (long)t * kOut + k, h[t * kOut + k], want[k]);
  }
  CHECK(hipFree(d_out));
  return finish("debug_returns", "values of eleven return-value shapes and references, every lane");
}

// Shared helpers for the HIP test programs in kernels/hip/src.
//
// Exit codes (see kernels/hip/README.md):
//   0  PASS
//   1  wrong results (the first mismatches are printed)
//   2  a HIP API call failed (CHECK prints the call, the line and the error)
//   3  --fail / --fault modes: the runtime reported the expected device error
//      through the API instead of aborting the process
//   77 the device lacks a feature the program needs (SKIP)
#pragma once

#include <hip/hip_runtime.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#define CHECK(call)                                                       \
  do {                                                                    \
    hipError_t check_err_ = (call);                                       \
    if (check_err_ != hipSuccess) {                                       \
      fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__,  \
              #call, hipGetErrorString(check_err_), (int)check_err_);     \
      fflush(stdout);                                                     \
      exit(2);                                                            \
    }                                                                     \
  } while (0)

// After a triple-chevron launch or hipLaunchKernelGGL.
#define CHECK_LAUNCH() CHECK(hipGetLastError())

// Mismatch bookkeeping: prints the first few, counts all.
static long g_mismatches = 0;
static const long kMaxReported = 8;

template <class T>
static void report_mismatch(const char *what, long idx, T got, T want) {
  if (g_mismatches < kMaxReported) {
    if constexpr (std::is_floating_point<T>::value) {
      printf("MISMATCH %s[%ld]: got %.17g, expected %.17g\n", what, idx,
             (double)got, (double)want);
    } else if constexpr (std::is_signed<T>::value) {
      printf("MISMATCH %s[%ld]: got %lld (0x%llx), expected %lld (0x%llx)\n",
             what, idx, (long long)got, (unsigned long long)got,
             (long long)want, (unsigned long long)want);
    } else {
      printf("MISMATCH %s[%ld]: got %llu (0x%llx), expected %llu (0x%llx)\n",
             what, idx, (unsigned long long)got, (unsigned long long)got,
             (unsigned long long)want, (unsigned long long)want);
    }
  } else if (g_mismatches == kMaxReported) {
    printf("MISMATCH ... (further mismatches not shown)\n");
  }
  g_mismatches++;
}

// Compares got with want (converted to want's type) at index idx.
#define EXPECT_EQ(what, idx, got, want)                            \
  do {                                                             \
    auto expect_w_ = (want);                                       \
    decltype(expect_w_) expect_g_ = (got);                         \
    if (!(expect_g_ == expect_w_))                                 \
      report_mismatch((what), (long)(idx), expect_g_, expect_w_);  \
  } while (0)

// A condition that must hold (not an element comparison).
#define EXPECT_TRUE(cond)                                                   \
  do {                                                                      \
    if (!(cond)) {                                                          \
      if (g_mismatches < kMaxReported)                                      \
        printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
      g_mismatches++;                                                       \
    }                                                                       \
  } while (0)

// Prints the summary line, then PASS, and returns the exit code for main.
static inline int finish(const char *name, const char *summary) {
  if (g_mismatches != 0) {
    printf("%s: %s\n", name, summary);
    printf("FAIL: %ld mismatches\n", g_mismatches);
    return 1;
  }
  printf("%s: %s\n", name, summary);
  printf("PASS\n");
  return 0;
}

// Warp size of device 0 as the runtime reports it (32 or 64).
static inline int device_warp_size() {
  int ws = 0;
  CHECK(hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0));
  return ws;
}

// Deterministic pseudo-random numbers (xorshift32) for inputs.
static inline uint32_t next_rand(uint32_t *state) {
  uint32_t x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

static inline bool has_arg(int argc, char **argv, const char *flag) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], flag) == 0) return true;
  return false;
}

// Device-only code for the debugger's variable sweeps (crates/lanes/tests/
// o2_variables.rs): the OpenCL corpus's `divergence` kernel written in HIP,
// built with -O2 -g by both compilers into
// bin/<compiler>/debug_vars.<gfx>.co. The host-side model of every variable
// is the one the OpenCL kernel is checked against, so what each variable
// reads at every statement can be compared with what the work-item computes.
// flags: -g
#include <hip/hip_runtime.h>

// Nested data-dependent control flow: a loop with a per-lane trip count for
// odd lanes, a capped Collatz while loop for even lanes, reconvergence.
extern "C" __global__ void divergence(const unsigned *in, unsigned *out,
                                      unsigned n) {
  size_t gid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n)
    return;
  unsigned lid = threadIdx.x;
  unsigned v = in[gid];
  unsigned acc;
  if (lid & 1u) {
    acc = 1u;
    unsigned trips = (v + lid) % 13u;
    for (unsigned k = 0; k < trips; ++k) {
      if ((k ^ v) & 2u)
        acc = acc * 3u + k;
      else
        acc ^= k << 4;
    }
  } else {
    acc = (v & 0xffu) + 1u;
    unsigned steps = 0;
    while (acc != 1u && steps < 40u) {
      acc = (acc & 1u) ? 3u * acc + 1u : acc >> 1;
      ++steps;
    }
    acc = steps;
  }
  if (lid < 5u) {
    acc += 1000u * lid;
  }
  out[gid] = acc;
}

// Device-only code for module_api.hip, built per target into
// bin/<compiler>/module_api_kernels.<gfx>.co (a bare code object, no bundle).
// The kernels are extern "C" so that hipModuleGetFunction finds them by their
// plain names.
#include <hip/hip_runtime.h>

extern "C" {

__device__ unsigned int mod_counter;  // hipModuleGetGlobal, written by host
__device__ int mod_table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__constant__ int mod_scale = 10;
// A pointer initialised with another global's address: the code object carries
// an R_AMDGPU_RELATIVE64 relocation for it, which a loader must apply.
__device__ int *mod_ptr = &mod_table[2];

// out[i] = in[i] * a + mod_table[i % 8] * mod_scale, counts the work-items.
__global__ void mod_axpy(int *out, const int *in, int a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] * a + mod_table[i % 8] * mod_scale;
    atomicAdd(&mod_counter, 1u);
  }
}

// Mixed argument sizes and alignments, for the HIP_LAUNCH_PARAM_BUFFER launch:
// kernarg layout out@0, c@8, d@16, s@24, n@28 (32 bytes).
__global__ void mod_mixed(long long *out, char c, double d, short s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (long long)c * 1000000 + (long long)(d * 4.0) * 1000 + s + i;
}

}  // extern "C"

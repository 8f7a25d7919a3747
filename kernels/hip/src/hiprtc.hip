// hiprtc: compiles a kernel source string at run time for the device's
// gcnArchName (hiprtcCreateProgram, hiprtcAddNameExpression,
// hiprtcCompileProgram with -D and --gpu-architecture, hiprtcGetProgramLog,
// hiprtcGetCodeSize/GetCode, hiprtcGetLoweredName), loads the code with
// hipModuleLoadData and launches an extern "C" kernel and a template
// instance with hipModuleLaunchKernel. In HIP 5.2 hiprtc is part of
// libamdhip64 (it compiles through libamd_comgr). Integer-exact.
#include "common.h"

#include <hip/hiprtc.h>

#include <string>
#include <vector>

#define RTC_CHECK(call)                                                    \
  do {                                                                     \
    hiprtcResult rtc_err_ = (call);                                        \
    if (rtc_err_ != HIPRTC_SUCCESS) {                                      \
      fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", __FILE__, __LINE__,   \
              #call, hiprtcGetErrorString(rtc_err_), (int)rtc_err_);       \
      exit(2);                                                             \
    }                                                                      \
  } while (0)

static const char *kSource = R"(
extern "C" __global__ void rtc_poly(int *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = in[i];
    out[i] = x * x * RTC_A + x * RTC_B + RTC_C;
  }
}

template <int K>
__global__ void rtc_shift(unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ((unsigned)i << K) | (unsigned)warpSize;
}
)";

int main() {
  int version_major = 0, version_minor = 0;
  RTC_CHECK(hiprtcVersion(&version_major, &version_minor));
  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, 0));
  printf("hiprtc %d.%d, compiling for %s\n", version_major, version_minor, p.gcnArchName);

  hiprtcProgram prog;
  RTC_CHECK(hiprtcCreateProgram(&prog, kSource, "rtc_kernels.cu", 0, nullptr, nullptr));
  RTC_CHECK(hiprtcAddNameExpression(prog, "rtc_shift<5>"));
  std::string arch = std::string("--gpu-architecture=") + p.gcnArchName;
  const char *opts[] = {arch.c_str(), "-DRTC_A=3", "-DRTC_B=-7", "-DRTC_C=11", "-O2"};
  hiprtcResult cr = hiprtcCompileProgram(prog, 5, opts);
  size_t log_size = 0;
  RTC_CHECK(hiprtcGetProgramLogSize(prog, &log_size));
  if (log_size > 1) {
    std::string log(log_size, '\0');
    RTC_CHECK(hiprtcGetProgramLog(prog, &log[0]));
    printf("compile log:\n%s\n", log.c_str());
  }
  RTC_CHECK(cr);
  size_t code_size = 0;
  RTC_CHECK(hiprtcGetCodeSize(prog, &code_size));
  std::vector<char> code(code_size);
  RTC_CHECK(hiprtcGetCode(prog, code.data()));
  const char *lowered = nullptr;
  RTC_CHECK(hiprtcGetLoweredName(prog, "rtc_shift<5>", &lowered));
  std::string shift_name(lowered);
  printf("code object %zu bytes, rtc_shift<5> is %s\n", code_size, shift_name.c_str());
  RTC_CHECK(hiprtcDestroyProgram(&prog));

  hipModule_t mod;
  hipFunction_t poly, shift;
  CHECK(hipModuleLoadData(&mod, code.data()));
  CHECK(hipModuleGetFunction(&poly, mod, "rtc_poly"));
  CHECK(hipModuleGetFunction(&shift, mod, shift_name.c_str()));

  const int n = 700;
  int in[n], out[n];
  unsigned uout[n];
  for (int i = 0; i < n; i++) in[i] = i - 350;
  int *d_in, *d_out;
  unsigned *d_u;
  CHECK(hipMalloc(&d_in, sizeof in));
  CHECK(hipMalloc(&d_out, sizeof out));
  CHECK(hipMalloc(&d_u, sizeof uout));
  CHECK(hipMemcpy(d_in, in, sizeof in, hipMemcpyHostToDevice));
  int nn = n;
  void *args1[] = {&d_out, &d_in, &nn};
  CHECK(hipModuleLaunchKernel(poly, (n + 255) / 256, 1, 1, 256, 1, 1, 0, 0, args1, nullptr));
  void *args2[] = {&d_u, &nn};
  CHECK(hipModuleLaunchKernel(shift, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args2, nullptr));
  CHECK(hipDeviceSynchronize());
  CHECK(hipMemcpy(out, d_out, sizeof out, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(uout, d_u, sizeof uout, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) {
    int x = in[i];
    EXPECT_EQ("rtc_poly", i, out[i], x * x * 3 - 7 * x + 11);
    EXPECT_EQ("rtc_shift<5>", i, uout[i], ((unsigned)i << 5) | (unsigned)p.warpSize);
  }
  CHECK(hipModuleUnload(mod));
  CHECK(hipFree(d_in));
  CHECK(hipFree(d_out));
  CHECK(hipFree(d_u));
  return finish("hiprtc", "run-time compiled extern \"C\" kernel and template instance, launched via module API");
}

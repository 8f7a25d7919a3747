// The module API: hipModuleLoad of a separately built device-only code object,
// and hipModuleLoadData of the same bytes (two independent modules),
// hipModuleGetFunction (and a missing name must fail), hipModuleGetGlobal
// (read, write), hipModuleLaunchKernel with kernelParams and with `extra`
// (HIP_LAUNCH_PARAM_BUFFER_POINTER / SIZE / END), hipModuleUnload.
//
// Usage: module_api [CODE_OBJECT]
// Without an argument the code object is module_api_kernels.<gfx>.co in the
// directory of the executable, <gfx> being the device's gcnArchName up to the
// first ':' (e.g. gfx90a for "gfx90a:sramecc+:xnack-"). Built from
// src/device/module_api_kernels.hip by build.sh. Integer-exact.
#include "common.h"

#include <string>
#include <vector>
#include <unistd.h>

static std::string default_path() {
  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, 0));
  std::string arch(p.gcnArchName);
  arch = arch.substr(0, arch.find(':'));
  char exe[4096];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string dir = ".";
  if (len > 0) {
    exe[len] = '\0';
    std::string e(exe);
    dir = e.substr(0, e.rfind('/'));
  }
  return dir + "/module_api_kernels." + arch + ".co";
}

static std::vector<char> read_file(const std::string &path) {
  std::vector<char> data;
  FILE *f = fopen(path.c_str(), "rb");
  if (!f) return data;
  char buf[65536];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + got);
  fclose(f);
  return data;
}

struct MixedArgs {  // same layout as mod_mixed's kernarg segment
  long long *out;
  char c;
  double d;
  short s;
  int n;
};
static_assert(sizeof(MixedArgs) == 32, "kernarg layout");

static void run_module(hipModule_t mod, const char *label, unsigned counter_start) {
  const int n = 500;
  hipFunction_t axpy, mixed, missing;
  CHECK(hipModuleGetFunction(&axpy, mod, "mod_axpy"));
  CHECK(hipModuleGetFunction(&mixed, mod, "mod_mixed"));
  hipError_t e = hipModuleGetFunction(&missing, mod, "no_such_kernel");
  printf("%s: hipModuleGetFunction(\"no_such_kernel\") = %s\n", label, hipGetErrorName(e));
  EXPECT_TRUE(e != hipSuccess);

  hipDeviceptr_t counter, table;
  size_t counter_bytes = 0, table_bytes = 0;
  CHECK(hipModuleGetGlobal(&counter, &counter_bytes, mod, "mod_counter"));
  CHECK(hipModuleGetGlobal(&table, &table_bytes, mod, "mod_table"));
  EXPECT_EQ("mod_counter size", 0, counter_bytes, sizeof(unsigned));
  EXPECT_EQ("mod_table size", 0, table_bytes, 8 * sizeof(int));
  int table_h[8];
  CHECK(hipMemcpyDtoH(table_h, table, sizeof table_h));
  const int want_table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  for (int k = 0; k < 8; k++) EXPECT_EQ("mod_table", k, table_h[k], want_table[k]);
  CHECK(hipMemcpyHtoD(counter, &counter_start, sizeof counter_start));

  int in[n], out[n];
  for (int i = 0; i < n; i++) in[i] = i * 3 - 700;
  int *d_in, *d_out;
  CHECK(hipMalloc(&d_in, sizeof in));
  CHECK(hipMalloc(&d_out, sizeof out));
  CHECK(hipMemcpy(d_in, in, sizeof in, hipMemcpyHostToDevice));

  // Launch 1: kernelParams.
  int a = -5, nn = n;
  void *params[] = {&d_out, &d_in, &a, &nn};
  CHECK(hipModuleLaunchKernel(axpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, params, nullptr));
  CHECK(hipDeviceSynchronize());
  CHECK(hipMemcpy(out, d_out, sizeof out, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++) EXPECT_EQ("mod_axpy", i, out[i], in[i] * a + want_table[i % 8] * 10);
  unsigned counter_h = 0;
  CHECK(hipMemcpyDtoH(&counter_h, counter, sizeof counter_h));
  EXPECT_EQ("mod_counter", 0, counter_h, counter_start + n);

  // Launch 2: `extra` with a packed argument buffer, on a stream.
  long long *d_l, lout[n];
  CHECK(hipMalloc(&d_l, sizeof lout));
  MixedArgs args;
  memset(&args, 0, sizeof args);
  args.out = d_l;
  args.c = -3;
  args.d = 2.75;
  args.s = 1234;
  args.n = n;
  size_t args_size = sizeof args;
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                   &args_size, HIP_LAUNCH_PARAM_END};
  hipStream_t s;
  CHECK(hipStreamCreate(&s));
  CHECK(hipModuleLaunchKernel(mixed, 2, 1, 1, 256, 1, 1, 0, s, nullptr, extra));
  CHECK(hipStreamSynchronize(s));
  CHECK(hipStreamDestroy(s));
  CHECK(hipMemcpy(lout, d_l, sizeof lout, hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    EXPECT_EQ("mod_mixed", i, lout[i], -3LL * 1000000 + 11LL * 1000 + 1234 + i);

  CHECK(hipFree(d_in));
  CHECK(hipFree(d_out));
  CHECK(hipFree(d_l));
}

int main(int argc, char **argv) {
  std::string path = argc > 1 ? std::string(argv[1]) : default_path();
  printf("code object: %s\n", path.c_str());
  std::vector<char> image = read_file(path);
  if (image.empty()) {
    printf("cannot read %s\n", path.c_str());
    return 2;
  }
  hipModule_t m1, m2;
  CHECK(hipModuleLoad(&m1, path.c_str()));
  CHECK(hipModuleLoadData(&m2, image.data()));
  run_module(m1, "hipModuleLoad", 0);
  run_module(m2, "hipModuleLoadData", 1000);
  // The two modules have separate globals: m1's counter still holds 500.
  hipDeviceptr_t counter;
  size_t bytes;
  unsigned c1 = 0;
  CHECK(hipModuleGetGlobal(&counter, &bytes, m1, "mod_counter"));
  CHECK(hipMemcpyDtoH(&c1, counter, sizeof c1));
  EXPECT_EQ("module 1 counter", 0, c1, 500u);
  CHECK(hipModuleUnload(m1));
  CHECK(hipModuleUnload(m2));
  return finish("module_api", "load/loadData, getFunction/getGlobal, launch with kernelParams and extra");
}

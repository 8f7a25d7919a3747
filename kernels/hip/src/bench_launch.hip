// Launch timings through HIP, for benches/benches/hip.rs (and a self-check).
//
//   bench_launch empty ITERS          ITERS x (an empty kernel + hipDeviceSynchronize)
//   bench_launch axpy ITERS ELEMS     ITERS x (mod_axpy over ELEMS + sync), the kernel
//                                     loaded with hipModuleLoad from
//                                     module_api_kernels.<gfx>.co beside this program,
//                                     the same machine code the benchmark's reference
//                                     dispatches straight on the simulator
//
// Each timed mode prints `ns <total>` for the loop alone (start-up excluded).
// Without arguments: a few of each, with the axpy results checked, then PASS.
#include "common.h"

#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

__global__ void empty_kernel() {}

static double now_ns() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

static double time_empty(int iters) {
  empty_kernel<<<1, 64>>>();
  CHECK_LAUNCH();
  CHECK(hipDeviceSynchronize());
  double t0 = now_ns();
  for (int i = 0; i < iters; i++) {
    empty_kernel<<<1, 64>>>();
    CHECK(hipDeviceSynchronize());
  }
  return now_ns() - t0;
}

static std::string code_object_path() {
  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, 0));
  std::string arch = p.gcnArchName;
  arch = arch.substr(0, arch.find(':'));
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    fprintf(stderr, "cannot find my own path\n");
    exit(2);
  }
  exe[n] = 0;
  std::string dir(exe);
  dir = dir.substr(0, dir.rfind('/'));
  return dir + "/module_api_kernels." + arch + ".co";
}

// Runs mod_axpy `iters` times over `elems` items; returns the loop's time and
// checks the last result (out[i] = in[i] * 3 + mod_table[i % 8] * 10).
static double time_axpy(int iters, int elems) {
  hipModule_t mod;
  CHECK(hipModuleLoad(&mod, code_object_path().c_str()));
  hipFunction_t f;
  CHECK(hipModuleGetFunction(&f, mod, "mod_axpy"));
  std::vector<int> in(elems);
  for (int i = 0; i < elems; i++) in[i] = (i * 37) % 1001 - 500;
  int *din, *dout;
  CHECK(hipMalloc(&din, elems * sizeof(int)));
  CHECK(hipMalloc(&dout, elems * sizeof(int)));
  CHECK(hipMemcpy(din, in.data(), elems * sizeof(int), hipMemcpyHostToDevice));
  int a = 3;
  void *args[] = {&dout, &din, &a, &elems};
  unsigned blocks = (elems + 255) / 256;
  double t0 = now_ns();
  for (int i = 0; i < iters; i++) {
    CHECK(hipModuleLaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    CHECK(hipDeviceSynchronize());
  }
  double t = now_ns() - t0;
  std::vector<int> out(elems);
  CHECK(hipMemcpy(out.data(), dout, elems * sizeof(int), hipMemcpyDeviceToHost));
  const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  for (int i = 0; i < elems; i++) EXPECT_EQ("axpy", i, out[i], in[i] * 3 + table[i % 8] * 10);
  CHECK(hipFree(din));
  CHECK(hipFree(dout));
  CHECK(hipModuleUnload(mod));
  return t;
}

int main(int argc, char **argv) {
  if (argc >= 3 && std::string(argv[1]) == "empty") {
    printf("ns %.0f\n", time_empty(atoi(argv[2])));
    return 0;
  }
  if (argc >= 4 && std::string(argv[1]) == "axpy") {
    double t = time_axpy(atoi(argv[2]), atoi(argv[3]));
    if (g_mismatches) return finish("bench_launch", "axpy");
    printf("ns %.0f\n", t);
    return 0;
  }
  printf("empty: %.1f us per launch + sync\n", time_empty(20) / 20 / 1000);
  printf("axpy 4096: %.1f us per launch + sync\n", time_axpy(4, 4096) / 4 / 1000);
  return finish("bench_launch", "empty launches and mod_axpy through hipModuleLaunchKernel");
}

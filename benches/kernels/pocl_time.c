/*
 * pocl_time: the reference figure of the simulator benchmark
 * (benches/benches/sim.rs). Runs valu_heavy (benches/kernels/valu_heavy.cl)
 * on the first OpenCL CPU device (PoCL) over N work-items, work-groups of
 * GROUP, ITERS loop iterations, with the inputs of the benchmark, REPS times,
 * after one warm-up run, and prints the fastest kernel execution (enqueue to
 * finish, the program already built and the buffers already written) and
 * the total of the REPS executions in seconds, then the sum of the hash
 * outputs, so that a caller can check that the run is the same
 * computation.
 *
 * Usage: pocl_time SOURCE N GROUP ITERS REPS
 * One thread: run with POCL_MAX_PTHREAD_COUNT=1 (the benchmark does).
 * Build: cc -std=c11 -O2 pocl_time.c -lOpenCL -o pocl_time
 */
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void check(cl_int e, const char *what) {
  if (e != CL_SUCCESS) {
    fprintf(stderr, "pocl_time: %s: error %d\n", what, e);
    exit(1);
  }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: pocl_time SOURCE N GROUP ITERS REPS\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  static char src[1 << 16];
  size_t len = fread(src, 1, sizeof src - 1, f);
  fclose(f);
  src[len] = 0;
  size_t n = strtoul(argv[2], 0, 10), group = strtoul(argv[3], 0, 10);
  cl_uint iters = strtoul(argv[4], 0, 10);
  int reps = atoi(argv[5]);

  cl_platform_id plat;
  cl_device_id dev;
  cl_int e;
  check(clGetPlatformIDs(1, &plat, 0), "clGetPlatformIDs");
  check(clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &dev, 0), "clGetDeviceIDs");
  cl_context ctx = clCreateContext(0, 1, &dev, 0, 0, &e);
  check(e, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
  check(e, "clCreateCommandQueue");
  const char *s = src;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &s, 0, &e);
  check(e, "clCreateProgramWithSource");
  check(clBuildProgram(prog, 1, &dev, "-cl-std=CL2.0", 0, 0), "clBuildProgram");
  cl_kernel k = clCreateKernel(prog, "valu_heavy", &e);
  check(e, "clCreateKernel");

  float *in = malloc(n * sizeof *in);
  uint32_t *h = malloc(n * sizeof *h);
  for (size_t i = 0; i < n; i++)
    in[i] = (float)(((uint32_t)i * 2654435761u ^ 5u) % 20000u) / 100.0f - 100.0f;
  cl_mem b_in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               n * 4, in, &e);
  check(e, "clCreateBuffer");
  cl_mem b_f = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, 0, &e);
  check(e, "clCreateBuffer");
  cl_mem b_h = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, 0, &e);
  check(e, "clCreateBuffer");
  check(clSetKernelArg(k, 0, sizeof b_in, &b_in), "arg 0");
  check(clSetKernelArg(k, 1, sizeof b_f, &b_f), "arg 1");
  check(clSetKernelArg(k, 2, sizeof b_h, &b_h), "arg 2");
  check(clSetKernelArg(k, 3, sizeof iters, &iters), "arg 3");

  double best = 1e30, total = 0;
  for (int r = 0; r <= reps; r++) {
    double t0 = now();
    check(clEnqueueNDRangeKernel(q, k, 1, 0, &n, &group, 0, 0, 0), "enqueue");
    check(clFinish(q), "clFinish");
    double t = now() - t0;
    if (r > 0) { /* the first run compiles for the launch size */
      total += t;
      if (t < best)
        best = t;
    }
  }
  check(clEnqueueReadBuffer(q, b_h, CL_TRUE, 0, n * 4, h, 0, 0, 0), "read");
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += h[i];
  printf("%.9f %.9f %llu\n", best, total, (unsigned long long)sum);
  return 0;
}

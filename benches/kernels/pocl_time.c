/*
 * pocl_time: the reference figures of the simulator benchmark
 * (benches/benches/sim.rs). Runs one benchmark kernel on the first OpenCL
 * CPU device (PoCL) with the inputs of the benchmark, REPS times after one
 * warm-up run, and prints the fastest kernel execution (enqueue to finish,
 * the program already built and the buffers already written) and the total
 * of the REPS executions in seconds, then a checksum of the output (the sum
 * of its 32-bit words), so that a caller can check that the run is the same
 * computation.
 *
 * Usage: pocl_time SOURCE KERNEL REPS PARAMS...
 *   valu_heavy N GROUP ITERS       (checksum of the hash outputs)
 *   vector_add N GROUP             c = a + b
 *   strided_copy N GROUP STRIDE    out[i] = in[(i * STRIDE) & (N - 1)]
 *   transpose_tiled ROWS COLS      work-groups of 32 x 8
 * One thread: run with POCL_MAX_PTHREAD_COUNT=1 (the benchmark does).
 * Build: cc -std=c11 -O2 pocl_time.c -lOpenCL -o pocl_time
 */
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The benchmark's inputs: a deterministic spread of floats. */
static float input(size_t i, uint32_t seed) {
  return (float)(((uint32_t)i * 2654435761u ^ seed) % 20000u) / 100.0f -
         100.0f;
}

static cl_context ctx;

/* A buffer of n floats, input(i, seed) when seed is not 0, else zeroed. */
static cl_mem buffer(size_t n, uint32_t seed) {
  cl_int e;
  float *h = calloc(n, sizeof *h);
  if (!h) {
    fprintf(stderr, "pocl_time: out of memory\n");
    exit(1);
  }
  if (seed)
    for (size_t i = 0; i < n; i++)
      h[i] = input(i, seed);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            n * 4, h, &e);
  check(e, "clCreateBuffer");
  free(h);
  return b;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: pocl_time SOURCE KERNEL REPS PARAMS...\n");
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
  const char *name = argv[2];
  int reps = atoi(argv[3]);
  size_t p[3] = {0, 0, 0};
  for (int a = 4; a < argc && a < 7; a++)
    p[a - 4] = strtoul(argv[a], 0, 10);

  cl_platform_id plat;
  cl_device_id dev;
  cl_int e;
  check(clGetPlatformIDs(1, &plat, 0), "clGetPlatformIDs");
  check(clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &dev, 0), "clGetDeviceIDs");
  ctx = clCreateContext(0, 1, &dev, 0, 0, &e);
  check(e, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
  check(e, "clCreateCommandQueue");
  const char *s = src;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &s, 0, &e);
  check(e, "clCreateProgramWithSource");
  check(clBuildProgram(prog, 1, &dev, "-cl-std=CL2.0", 0, 0), "clBuildProgram");
  cl_kernel k = clCreateKernel(prog, name, &e);
  check(e, "clCreateKernel");

  size_t global[2] = {p[0], 1}, local[2] = {p[1], 1}, out_len = p[0];
  cl_uint dims = 1;
  cl_mem out;
  if (!strcmp(name, "valu_heavy")) {
    cl_uint iters = (cl_uint)p[2];
    cl_mem b_in = buffer(p[0], 5), b_f = buffer(p[0], 0);
    out = buffer(p[0], 0);
    check(clSetKernelArg(k, 0, sizeof b_in, &b_in), "arg 0");
    check(clSetKernelArg(k, 1, sizeof b_f, &b_f), "arg 1");
    check(clSetKernelArg(k, 2, sizeof out, &out), "arg 2");
    check(clSetKernelArg(k, 3, sizeof iters, &iters), "arg 3");
  } else if (!strcmp(name, "vector_add")) {
    cl_mem b_a = buffer(p[0], 1), b_b = buffer(p[0], 2);
    cl_uint n = (cl_uint)p[0];
    out = buffer(p[0], 0);
    check(clSetKernelArg(k, 0, sizeof b_a, &b_a), "arg 0");
    check(clSetKernelArg(k, 1, sizeof b_b, &b_b), "arg 1");
    check(clSetKernelArg(k, 2, sizeof out, &out), "arg 2");
    check(clSetKernelArg(k, 3, sizeof n, &n), "arg 3");
  } else if (!strcmp(name, "strided_copy")) {
    cl_mem b_in = buffer(p[0], 3);
    cl_uint stride = (cl_uint)p[2], mask = (cl_uint)p[0] - 1;
    out = buffer(p[0], 0);
    check(clSetKernelArg(k, 0, sizeof b_in, &b_in), "arg 0");
    check(clSetKernelArg(k, 1, sizeof out, &out), "arg 1");
    check(clSetKernelArg(k, 2, sizeof stride, &stride), "arg 2");
    check(clSetKernelArg(k, 3, sizeof mask, &mask), "arg 3");
  } else if (!strcmp(name, "transpose_tiled")) {
    cl_uint rows = (cl_uint)p[0], cols = (cl_uint)p[1];
    out_len = p[0] * p[1];
    cl_mem b_in = buffer(out_len, 4);
    out = buffer(out_len, 0);
    check(clSetKernelArg(k, 0, sizeof b_in, &b_in), "arg 0");
    check(clSetKernelArg(k, 1, sizeof out, &out), "arg 1");
    check(clSetKernelArg(k, 2, sizeof rows, &rows), "arg 2");
    check(clSetKernelArg(k, 3, sizeof cols, &cols), "arg 3");
    dims = 2;
    global[0] = cols;
    global[1] = rows / 4;
    local[0] = 32;
    local[1] = 8;
  } else {
    fprintf(stderr, "pocl_time: unknown kernel %s\n", name);
    return 2;
  }

  double best = 1e30, total = 0;
  for (int r = 0; r <= reps; r++) {
    double t0 = now();
    check(clEnqueueNDRangeKernel(q, k, dims, 0, global, local, 0, 0, 0),
          "enqueue");
    check(clFinish(q), "clFinish");
    double t = now() - t0;
    if (r > 0) { /* the first run compiles for the launch size */
      total += t;
      if (t < best)
        best = t;
    }
  }
  uint32_t *h = malloc(out_len * 4);
  if (!h) {
    fprintf(stderr, "pocl_time: out of memory\n");
    return 1;
  }
  check(clEnqueueReadBuffer(q, out, CL_TRUE, 0, out_len * 4, h, 0, 0, 0),
        "read");
  uint64_t sum = 0;
  for (size_t i = 0; i < out_len; i++)
    sum += h[i];
  printf("%.9f %.9f %llu\n", best, total, (unsigned long long)sum);
  return 0;
}

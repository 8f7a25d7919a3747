// A kernel to debug (built -O0 -g, see the flags line): HIP's built-in
// coordinates copied into locals of a kernel marked `optnone`. hipcc's
// clang-15 gives such a kernel no DW_AT_frame_base (it needs no frame
// pointer: its locals are at fixed offsets in each lane's private memory)
// while describing its locals with DW_OP_fbreg. The kernel calls a device
// function that uses no built-in and one whose local hides `blockIdx`. A 3-D
// grid (3,4,5) of 3-D blocks (8,4,2): one wave of 64 or two of 32 per block.
// Every work-item writes what it saw; the host checks it. Integer-exact.
// flags: -O0 -g
#include "common.h"

constexpr int kFields = 14;

__device__ int __attribute__((optnone)) no_builtins(int x) {
  int twice = 2 * x;
  return twice;
}

__device__ int __attribute__((optnone)) hides_block_idx(int base) {
  int blockIdx = 0x5eed00 + base;
  return blockIdx;
}

__global__ void __attribute__((optnone)) coords(int *out) {
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int tz = threadIdx.z;
  const int bx = blockIdx.x;
  const int by = blockIdx.y;
  const int bz = blockIdx.z;
  const int dx = blockDim.x;
  const int dy = blockDim.y;
  const int dz = blockDim.z;
  const int gx = gridDim.x;
  const int gy = gridDim.y;
  const int gz = gridDim.z;
  const int ws = warpSize;
  const int flat = ((bz * gy + by) * gx + bx) * (dx * dy * dz) + (tz * dy + ty) * dx + tx;
  int twice = no_builtins(flat);
  int hidden = hides_block_idx(flat);
  int *o = out + flat * kFields;
  o[0] = tx;
  o[1] = ty;
  o[2] = tz;
  o[3] = bx;
  o[4] = by;
  o[5] = bz;
  o[6] = dx;
  o[7] = dy;
  o[8] = dz;
  o[9] = gx;
  o[10] = gy;
  o[11] = gz;
  o[12] = twice;
  o[13] = hidden - ws;
}

int main() {
  const dim3 grid(3, 4, 5), block(8, 4, 2);
  const int items = 3 * 4 * 5 * 8 * 4 * 2;
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));
  const int ws = prop.warpSize;
  int *d_out;
  const size_t bytes = sizeof(int) * items * kFields;
  CHECK(hipMalloc(&d_out, bytes));
  CHECK(hipMemset(d_out, 0xff, bytes));
  coords<<<grid, block>>>(d_out);
  CHECK_LAUNCH();
  int *h = (int *)malloc(bytes);
  CHECK(hipMemcpy(h, d_out, bytes, hipMemcpyDeviceToHost));
  for (int bz = 0; bz < 5; bz++)
    for (int by = 0; by < 4; by++)
      for (int bx = 0; bx < 3; bx++)
        for (int tz = 0; tz < 2; tz++)
          for (int ty = 0; ty < 4; ty++)
            for (int tx = 0; tx < 8; tx++) {
              const int flat = ((bz * 4 + by) * 3 + bx) * 64 + (tz * 4 + ty) * 8 + tx;
              const int want[kFields] = {tx, ty, tz, bx, by, bz, 8, 4, 2, 3, 4, 5,
                                         2 * flat, 0x5eed00 + flat - ws};
              for (int f = 0; f < kFields; f++)
                EXPECT_EQ("coords", (long)flat * kFields + f, h[flat * kFields + f], want[f]);
            }
  free(h);
  CHECK(hipFree(d_out));
  return finish("debug_builtins", "coordinates, sizes and calls of every work-item of a 3-D grid");
}

// 2-D and 3-D grids: every thread records blockIdx, threadIdx, blockDim and
// gridDim in x, y and z at its linear global index; the host recomputes them.
// Integer-exact.
#include "common.h"

struct Rec {
  uint16_t bx, by, bz, tx, ty, tz;
  uint16_t dx, dy, dz, gx, gy, gz;
};

__global__ void record(Rec *out) {
  unsigned gx = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned gy = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned gz = blockIdx.z * blockDim.z + threadIdx.z;
  unsigned nx = gridDim.x * blockDim.x, ny = gridDim.y * blockDim.y;
  Rec r;
  r.bx = blockIdx.x; r.by = blockIdx.y; r.bz = blockIdx.z;
  r.tx = threadIdx.x; r.ty = threadIdx.y; r.tz = threadIdx.z;
  r.dx = blockDim.x; r.dy = blockDim.y; r.dz = blockDim.z;
  r.gx = gridDim.x; r.gy = gridDim.y; r.gz = gridDim.z;
  out[(gz * ny + gy) * nx + gx] = r;
}

static void run(dim3 grid, dim3 block, const char *what) {
  unsigned nx = grid.x * block.x, ny = grid.y * block.y, nz = grid.z * block.z;
  size_t n = (size_t)nx * ny * nz;
  Rec *d;
  CHECK(hipMalloc(&d, n * sizeof(Rec)));
  CHECK(hipMemset(d, 0xFF, n * sizeof(Rec)));
  hipLaunchKernelGGL(record, grid, block, 0, 0, d);
  CHECK_LAUNCH();
  Rec *h = (Rec *)malloc(n * sizeof(Rec));
  CHECK(hipMemcpy(h, d, n * sizeof(Rec), hipMemcpyDeviceToHost));
  for (unsigned z = 0; z < nz; z++)
    for (unsigned y = 0; y < ny; y++)
      for (unsigned x = 0; x < nx; x++) {
        size_t i = ((size_t)z * ny + y) * nx + x;
        const Rec &r = h[i];
        uint16_t want[12] = {
            (uint16_t)(x / block.x), (uint16_t)(y / block.y), (uint16_t)(z / block.z),
            (uint16_t)(x % block.x), (uint16_t)(y % block.y), (uint16_t)(z % block.z),
            (uint16_t)block.x, (uint16_t)block.y, (uint16_t)block.z,
            (uint16_t)grid.x, (uint16_t)grid.y, (uint16_t)grid.z};
        uint16_t got[12] = {r.bx, r.by, r.bz, r.tx, r.ty, r.tz,
                            r.dx, r.dy, r.dz, r.gx, r.gy, r.gz};
        for (int k = 0; k < 12; k++) EXPECT_EQ(what, i * 12 + k, got[k], want[k]);
      }
  printf("%s: grid %ux%ux%u block %ux%ux%u, %zu threads\n", what, grid.x,
         grid.y, grid.z, block.x, block.y, block.z, n);
  CHECK(hipFree(d));
  free(h);
}

int main() {
  run(dim3(3, 2), dim3(16, 4), "2d");          // 2-D grid, 2-D blocks
  run(dim3(2, 3, 2), dim3(4, 2, 8), "3d");     // 3-D grid, 3-D blocks
  run(dim3(1, 1, 5), dim3(3, 5, 7), "3d-odd"); // blocks of 105 (partial wave)
  run(dim3(4, 1, 1), dim3(1, 1, 16), "z-only");
  return finish("grid_3d", "2-D and 3-D grids, ids and dims in x/y/z");
}

// Cooperative launch with grid-wide barriers: hipLaunchCooperativeKernel of a
// kernel that synchronises the whole grid three times with
// cooperative_groups::this_grid().sync(), each phase reading what other
// blocks wrote in the previous one (neighbour exchange across blocks,
// per-block partial sums, a grand total). Checks
// hipDeviceAttributeCooperativeLaunch first (exit 77 = SKIP if 0) and that
// the grid fits on the device at once (occupancy). Integer-exact. Built with
// line tables and variables, for the debugger's test of a cooperative kernel
// (crates/cli/tests/exec.rs).
// flags: -g
#include "common.h"

#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

#define BLOCKS 4
#define THREADS 128
#define N (BLOCKS * THREADS)

__global__ void phases(uint32_t *a, uint32_t *b, uint32_t *partial, uint32_t *info) {
  cg::grid_group grid = cg::this_grid();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  a[i] = i * 2654435761u;
  grid.sync();
  // Phase 2: read from another block.
  uint32_t next = a[(i + THREADS + 1) % N];
  b[i] = next ^ a[N - 1 - i];
  grid.sync();
  // Phase 3: one partial sum per block over another block's b.
  if (threadIdx.x == 0) {
    unsigned src = (blockIdx.x + 1) % gridDim.x;
    uint32_t s = 0;
    for (unsigned k = 0; k < blockDim.x; k++) s += b[src * blockDim.x + k];
    partial[blockIdx.x] = s;
  }
  grid.sync();
  if (i == 0) {
    uint32_t t = 0;
    for (unsigned k = 0; k < gridDim.x; k++) t += partial[k];
    info[0] = t;
    info[1] = (uint32_t)grid.size();
    info[2] = grid.is_valid() ? 1u : 0u;
  }
  if (i == N - 1) info[3] = (uint32_t)grid.thread_rank();
}

int main() {
  int coop = 0;
  CHECK(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, 0));
  printf("hipDeviceAttributeCooperativeLaunch = %d\n", coop);
  if (!coop) {
    printf("cooperative_grid: SKIP (no cooperative launch)\n");
    return 77;
  }
  int per_cu = 0, cus = 0;
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, phases, THREADS, 0));
  CHECK(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  printf("occupancy: %d blocks of %d per CU, %d CUs\n", per_cu, THREADS, cus);
  if (per_cu * cus < BLOCKS) {
    printf("cooperative_grid: SKIP (%d blocks do not fit)\n", BLOCKS);
    return 77;
  }

  uint32_t *a, *b, *partial, *info;
  CHECK(hipMalloc(&a, N * 4));
  CHECK(hipMalloc(&b, N * 4));
  CHECK(hipMalloc(&partial, BLOCKS * 4));
  CHECK(hipMalloc(&info, 4 * 4));
  CHECK(hipMemset(info, 0, 16));
  void *args[] = {&a, &b, &partial, &info};
  CHECK(hipLaunchCooperativeKernel((const void *)phases, dim3(BLOCKS), dim3(THREADS), args, 0, 0));
  CHECK(hipDeviceSynchronize());

  uint32_t hb[N], hinfo[4], hpart[BLOCKS];
  CHECK(hipMemcpy(hb, b, sizeof hb, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(hpart, partial, sizeof hpart, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(hinfo, info, sizeof hinfo, hipMemcpyDeviceToHost));
  uint32_t ha[N], wb[N];
  for (unsigned i = 0; i < N; i++) ha[i] = i * 2654435761u;
  for (unsigned i = 0; i < N; i++) {
    wb[i] = ha[(i + THREADS + 1) % N] ^ ha[N - 1 - i];
    EXPECT_EQ("phase 2", i, hb[i], wb[i]);
  }
  uint32_t total = 0;
  for (unsigned blk = 0; blk < BLOCKS; blk++) {
    unsigned src = (blk + 1) % BLOCKS;
    uint32_t s = 0;
    for (unsigned k = 0; k < THREADS; k++) s += wb[src * THREADS + k];
    EXPECT_EQ("phase 3", blk, hpart[blk], s);
    total += s;
  }
  EXPECT_EQ("total", 0, hinfo[0], total);
  EXPECT_EQ("grid.size()", 1, hinfo[1], (uint32_t)N);
  EXPECT_EQ("grid.is_valid()", 2, hinfo[2], 1u);
  EXPECT_EQ("grid.thread_rank()", 3, hinfo[3], (uint32_t)(N - 1));
  CHECK(hipFree(a));
  CHECK(hipFree(b));
  CHECK(hipFree(partial));
  CHECK(hipFree(info));
  return finish("cooperative_grid", "4x128 cooperative launch, 3 grid barriers, cross-block reads");
}

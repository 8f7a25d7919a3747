// Device properties and attributes: hipGetDeviceCount, hipGetDeviceProperties,
// hipDeviceGetAttribute for the same quantities (they must agree),
// hipDeviceGetName, hipDeviceTotalMem, hipMemGetInfo, runtime and driver
// versions; sanity bounds (warpSize 32 or 64, maxThreadsPerBlock >= 256,
// sharedMemPerBlock >= 32 KiB, ...); a kernel reports the builtin warpSize,
// which must equal the host's. Prints everything it reads.
#include "common.h"

__global__ void device_side(int *out) {
  out[0] = warpSize;
  out[1] = blockDim.x;
}

int main() {
  int count = 0;
  CHECK(hipGetDeviceCount(&count));
  printf("devices: %d\n", count);
  EXPECT_TRUE(count >= 1);
  CHECK(hipSetDevice(0));
  int dev = -1;
  CHECK(hipGetDevice(&dev));
  EXPECT_EQ("hipGetDevice", 0, dev, 0);
  int rt = 0, drv = 0;
  CHECK(hipRuntimeGetVersion(&rt));
  CHECK(hipDriverGetVersion(&drv));
  printf("runtime version %d, driver version %d\n", rt, drv);

  hipDeviceProp_t p;
  CHECK(hipGetDeviceProperties(&p, 0));
  printf("name \"%s\", gcnArchName \"%s\"\n", p.name, p.gcnArchName);
  printf("totalGlobalMem %zu, sharedMemPerBlock %zu, totalConstMem %zu, l2CacheSize %d\n",
         p.totalGlobalMem, p.sharedMemPerBlock, p.totalConstMem, p.l2CacheSize);
  printf("warpSize %d, maxThreadsPerBlock %d, maxThreadsDim %d %d %d, maxGridSize %d %d %d\n",
         p.warpSize, p.maxThreadsPerBlock, p.maxThreadsDim[0], p.maxThreadsDim[1],
         p.maxThreadsDim[2], p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
  printf("multiProcessorCount %d, maxThreadsPerMultiProcessor %d, regsPerBlock %d\n",
         p.multiProcessorCount, p.maxThreadsPerMultiProcessor, p.regsPerBlock);
  printf("clockRate %d kHz, memoryClockRate %d kHz, memoryBusWidth %d, major.minor %d.%d\n",
         p.clockRate, p.memoryClockRate, p.memoryBusWidth, p.major, p.minor);
  printf("pci %04x:%02x:%02x, concurrentKernels %d, canMapHostMemory %d, integrated %d\n",
         p.pciDomainID, p.pciBusID, p.pciDeviceID, p.concurrentKernels,
         p.canMapHostMemory, p.integrated);
  printf("cooperativeLaunch %d, managedMemory %d, maxSharedMemoryPerMultiProcessor %zu\n",
         p.cooperativeLaunch, p.managedMemory, p.maxSharedMemoryPerMultiProcessor);

  EXPECT_TRUE(p.name[0] != '\0');
  EXPECT_TRUE(strncmp(p.gcnArchName, "gfx", 3) == 0);
  EXPECT_TRUE(p.warpSize == 32 || p.warpSize == 64);
  EXPECT_TRUE(p.maxThreadsPerBlock >= 256);
  EXPECT_TRUE(p.sharedMemPerBlock >= 32768);
  EXPECT_TRUE(p.multiProcessorCount > 0);
  EXPECT_TRUE(p.totalGlobalMem > 0);
  EXPECT_TRUE(p.maxThreadsDim[0] >= p.maxThreadsPerBlock || p.maxThreadsDim[0] >= 256);
  EXPECT_TRUE(p.maxGridSize[0] > 0 && p.maxGridSize[1] > 0 && p.maxGridSize[2] > 0);
  EXPECT_TRUE(p.clockRate > 0);

  struct { hipDeviceAttribute_t attr; const char *name; long long want; } attrs[] = {
      {hipDeviceAttributeWarpSize, "WarpSize", p.warpSize},
      {hipDeviceAttributeMaxThreadsPerBlock, "MaxThreadsPerBlock", p.maxThreadsPerBlock},
      {hipDeviceAttributeMaxBlockDimX, "MaxBlockDimX", p.maxThreadsDim[0]},
      {hipDeviceAttributeMaxBlockDimY, "MaxBlockDimY", p.maxThreadsDim[1]},
      {hipDeviceAttributeMaxBlockDimZ, "MaxBlockDimZ", p.maxThreadsDim[2]},
      {hipDeviceAttributeMaxGridDimX, "MaxGridDimX", p.maxGridSize[0]},
      {hipDeviceAttributeMaxGridDimY, "MaxGridDimY", p.maxGridSize[1]},
      {hipDeviceAttributeMaxGridDimZ, "MaxGridDimZ", p.maxGridSize[2]},
      {hipDeviceAttributeMaxSharedMemoryPerBlock, "MaxSharedMemoryPerBlock", (long long)p.sharedMemPerBlock},
      {hipDeviceAttributeMultiprocessorCount, "MultiprocessorCount", p.multiProcessorCount},
      {hipDeviceAttributeClockRate, "ClockRate", p.clockRate},
      {hipDeviceAttributeComputeCapabilityMajor, "ComputeCapabilityMajor", p.major},
      {hipDeviceAttributeComputeCapabilityMinor, "ComputeCapabilityMinor", p.minor},
      {hipDeviceAttributeL2CacheSize, "L2CacheSize", p.l2CacheSize},
      {hipDeviceAttributeMaxThreadsPerMultiProcessor, "MaxThreadsPerMultiProcessor", p.maxThreadsPerMultiProcessor},
      {hipDeviceAttributeConcurrentKernels, "ConcurrentKernels", p.concurrentKernels},
      {hipDeviceAttributeCanMapHostMemory, "CanMapHostMemory", p.canMapHostMemory},
      {hipDeviceAttributeCooperativeLaunch, "CooperativeLaunch", p.cooperativeLaunch},
      {hipDeviceAttributeManagedMemory, "ManagedMemory", p.managedMemory},
      {hipDeviceAttributePciBusId, "PciBusId", p.pciBusID},
      {hipDeviceAttributeIntegrated, "Integrated", p.integrated},
  };
  for (auto &a : attrs) {
    int v = -12345;
    CHECK(hipDeviceGetAttribute(&v, a.attr, 0));
    printf("attribute %-28s %d\n", a.name, v);
    EXPECT_EQ(a.name, 0, (long long)v, a.want);
  }

  char name[256] = {0};
  CHECK(hipDeviceGetName(name, sizeof name, 0));
  printf("hipDeviceGetName \"%s\"\n", name);
  EXPECT_TRUE(strcmp(name, p.name) == 0);
  size_t total = 0, free_b = 0, total2 = 0;
  CHECK(hipDeviceTotalMem(&total, 0));
  CHECK(hipMemGetInfo(&free_b, &total2));
  printf("hipDeviceTotalMem %zu, hipMemGetInfo free %zu total %zu\n", total, free_b, total2);
  EXPECT_EQ("hipDeviceTotalMem", 0, total, p.totalGlobalMem);
  EXPECT_TRUE(free_b <= total2 && total2 > 0);

  int *d, h[2];
  CHECK(hipMalloc(&d, sizeof h));
  device_side<<<1, 96>>>(d);
  CHECK_LAUNCH();
  CHECK(hipMemcpy(h, d, sizeof h, hipMemcpyDeviceToHost));
  printf("device-side warpSize %d\n", h[0]);
  EXPECT_EQ("device warpSize", 0, h[0], p.warpSize);
  EXPECT_EQ("device blockDim.x", 0, h[1], 96);
  CHECK(hipFree(d));
  return finish("device_props", "properties, 21 attributes agree, sanity bounds, device warpSize");
}

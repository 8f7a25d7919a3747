// hipMallocPitch, hipMemcpy2D (host->device with a host pitch larger than the
// row, device->device, device->host), hipMemset2D on a sub-rectangle, and a
// kernel that indexes rows through the pitch. Integer-exact.
#include "common.h"

__global__ void add_coords(uint16_t *buf, size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    uint16_t *row = (uint16_t *)((char *)buf + y * pitch);
    row[x] = (uint16_t)(row[x] + x * 3 + y * 1000);
  }
}

int main() {
  const int width = 75, height = 21;  // elements
  const size_t wbytes = width * sizeof(uint16_t);
  const size_t hpitch = wbytes + 26;  // host rows have padding
  unsigned char *h = (unsigned char *)malloc(hpitch * height);
  memset(h, 0xEE, hpitch * height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      ((uint16_t *)(h + y * hpitch))[x] = (uint16_t)(y * 97 + x);

  void *d = nullptr, *d2 = nullptr;
  size_t pitch = 0, pitch2 = 0;
  CHECK(hipMallocPitch(&d, &pitch, wbytes, height));
  CHECK(hipMallocPitch(&d2, &pitch2, wbytes, height));
  printf("width %zu bytes, pitch %zu / %zu\n", wbytes, pitch, pitch2);
  EXPECT_TRUE(pitch >= wbytes);
  EXPECT_TRUE(pitch2 >= wbytes);

  CHECK(hipMemset2D(d, pitch, 0, pitch, height));
  CHECK(hipMemcpy2D(d, pitch, h, hpitch, wbytes, height, hipMemcpyHostToDevice));

  dim3 block(16, 8);
  dim3 grid((width + 15) / 16, (height + 7) / 8);
  hipLaunchKernelGGL(add_coords, grid, block, 0, 0, (uint16_t *)d, pitch,
                     width, height);
  CHECK_LAUNCH();

  // Set a rectangle of bytes (rows 5..9, bytes 10..39) to 0x11.
  CHECK(hipMemset2D((char *)d + 5 * pitch + 10, pitch, 0x11, 30, 5));

  // Device-to-device 2-D copy between the two pitched buffers.
  CHECK(hipMemset2D(d2, pitch2, 0xFF, wbytes, height));
  CHECK(hipMemcpy2D(d2, pitch2, d, pitch, wbytes, height, hipMemcpyDeviceToDevice));

  // Back to a tightly packed host buffer.
  uint16_t *out = (uint16_t *)malloc(wbytes * height);
  CHECK(hipMemcpy2D(out, wbytes, d2, pitch2, wbytes, height, hipMemcpyDeviceToHost));
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      uint16_t want = (uint16_t)(y * 97 + x + x * 3 + y * 1000);
      int byte0 = x * 2;
      if (y >= 5 && y < 10) {
        unsigned char b[2];
        memcpy(b, &want, 2);
        for (int k = 0; k < 2; k++)
          if (byte0 + k >= 10 && byte0 + k < 40) b[k] = 0x11;
        memcpy(&want, b, 2);
      }
      EXPECT_EQ("2d", y * width + x, out[y * width + x], want);
    }
  }

  // A sub-rectangle from the middle of the device buffer to the host.
  uint16_t sub[4 * 6];
  CHECK(hipMemcpy2D(sub, 6 * sizeof(uint16_t), (char *)d + 12 * pitch + 20 * 2,
                    pitch, 6 * sizeof(uint16_t), 4, hipMemcpyDeviceToHost));
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 6; c++) {
      int y = 12 + r, x = 20 + c;
      EXPECT_EQ("sub", r * 6 + c, sub[r * 6 + c],
                (uint16_t)(y * 97 + x + x * 3 + y * 1000));
    }

  CHECK(hipFree(d));
  CHECK(hipFree(d2));
  free(h);
  free(out);
  return finish("memcpy_2d", "75x21 uint16, pitched copies H2D/D2D/D2H, memset2D, pitched kernel");
}

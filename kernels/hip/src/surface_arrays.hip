// hipArray and surface objects: hipMallocArray (2-D float4, float and
// uchar4 arrays), hipMemcpy2DToArray from padded host rows (ROCclr's
// buffer-to-image blit kernel), a kernel that reads arrays with surf2Dread
// and writes them with surf2Dwrite (image_load / image_store through the
// image objects), array-to-array copies (hipMemcpy3D: the image-copy blit),
// and hipMemcpy2DFromArray back to the host (image-to-buffer blit).
//
// HIP 5.2's surface functions pass texels as floats (__hipMapToNativeFloat4)
// to the float forms of __ockl_image_load/store, so only float formats
// round-trip through surf2Dread/surf2Dwrite (an integer array stores the
// float's bits, saturated; on a GPU too); the uchar4 array is used through
// copies only, and made with an explicit unsigned channel descriptor because
// HIP 5.2's hipCreateChannelDesc<uchar4>() says hipChannelFormatKindSigned.
// The arrays use hipArrayDefault: HIP 5.2 refuses hipArraySurfaceLoadStore
// (hipErrorNotSupported) but binds surfaces to any array. Exact: the floats
// hold small integers.
#include "common.h"

__global__ void mix(hipSurfaceObject_t src, hipSurfaceObject_t dst,
                    hipSurfaceObject_t fsurf, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float4 v;
  surf2Dread(&v, src, x * (int)sizeof(float4), y);
  float f;
  surf2Dread(&f, fsurf, x * (int)sizeof(float), y);
  float4 w = make_float4(v.w + 1.0f, v.z, v.y - v.x, f);
  surf2Dwrite(w, dst, x * (int)sizeof(float4), y);
  surf2Dwrite(f * 2.0f + (float)x, fsurf, x * (int)sizeof(float), y);
}

static float4 texel(int x, int y) {
  int k = y * 131 + x;
  return make_float4((float)(k * 7), (float)(k * 3 + 1), (float)(k >> 2),
                     (float)(255 - k));
}

static uchar4 byte_texel(int x, int y) {
  int k = y * 37 + x;
  return make_uchar4((unsigned char)(k * 7), (unsigned char)(k * 3 + 1),
                     (unsigned char)(k >> 2), (unsigned char)(255 - k));
}

static hipSurfaceObject_t surface_of(hipArray_t a) {
  hipResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = hipResourceTypeArray;
  rd.res.array.array = a;
  hipSurfaceObject_t s = 0;
  CHECK(hipCreateSurfaceObject(&s, &rd));
  return s;
}

static void array_to_array(hipArray_t dst, hipArray_t src, int width, int height) {
  hipMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcArray = src;
  p.dstArray = dst;
  p.extent = make_hipExtent(width, height, 1);
  p.kind = hipMemcpyDeviceToDevice;
  CHECK(hipMemcpy3D(&p));
}

int main() {
  const int width = 37, height = 11;
  const size_t hpitch = width * sizeof(float4) + 48;  // padded host rows
  unsigned char *h = (unsigned char *)malloc(hpitch * height);
  memset(h, 0xCD, hpitch * height);
  float *hf = (float *)malloc(width * height * sizeof(float));
  const size_t bpitch = width * sizeof(uchar4) + 20;
  unsigned char *hb = (unsigned char *)malloc(bpitch * height);
  memset(hb, 0xCD, bpitch * height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      ((float4 *)(h + y * hpitch))[x] = texel(x, y);
      ((uchar4 *)(hb + y * bpitch))[x] = byte_texel(x, y);
      hf[y * width + x] = (float)(y * 1000 + x);
    }

  hipChannelFormatDesc c4 = hipCreateChannelDesc<float4>();
  hipChannelFormatDesc cf = hipCreateChannelDesc<float>();
  hipChannelFormatDesc cb = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
  hipArray_t a = nullptr, b = nullptr, copy = nullptr, fa = nullptr, ba = nullptr,
             bcopy = nullptr;
  CHECK(hipMallocArray(&a, &c4, width, height, hipArrayDefault));
  CHECK(hipMallocArray(&b, &c4, width, height, hipArrayDefault));
  CHECK(hipMallocArray(&copy, &c4, width, height, hipArrayDefault));
  CHECK(hipMallocArray(&fa, &cf, width, height, hipArrayDefault));
  CHECK(hipMallocArray(&ba, &cb, width, height, hipArrayDefault));
  CHECK(hipMallocArray(&bcopy, &cb, width, height, hipArrayDefault));
  CHECK(hipMemcpy2DToArray(a, 0, 0, h, hpitch, width * sizeof(float4), height,
                           hipMemcpyHostToDevice));
  CHECK(hipMemcpy2DToArray(fa, 0, 0, hf, width * sizeof(float),
                           width * sizeof(float), height, hipMemcpyHostToDevice));
  CHECK(hipMemcpy2DToArray(ba, 0, 0, hb, bpitch, width * sizeof(uchar4), height,
                           hipMemcpyHostToDevice));

  hipSurfaceObject_t sa = surface_of(a), sb = surface_of(b), sf = surface_of(fa);
  dim3 block(8, 4);
  dim3 grid((width + 7) / 8, (height + 3) / 4);
  hipLaunchKernelGGL(mix, grid, block, 0, 0, sa, sb, sf, width, height);
  CHECK_LAUNCH();
  CHECK(hipDeviceSynchronize());

  array_to_array(copy, b, width, height);
  array_to_array(bcopy, ba, width, height);
  float4 *out = (float4 *)malloc(width * height * sizeof(float4));
  float *fout = (float *)malloc(width * height * sizeof(float));
  uchar4 *bout = (uchar4 *)malloc(width * height * sizeof(uchar4));
  CHECK(hipMemcpy2DFromArray(out, width * sizeof(float4), copy, 0, 0,
                             width * sizeof(float4), height, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy2DFromArray(fout, width * sizeof(float), fa, 0, 0,
                             width * sizeof(float), height, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy2DFromArray(bout, width * sizeof(uchar4), bcopy, 0, 0,
                             width * sizeof(uchar4), height, hipMemcpyDeviceToHost));
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      float4 v = texel(x, y);
      uchar4 bv = byte_texel(x, y);
      float f = (float)(y * 1000 + x);
      long i = y * width + x;
      EXPECT_EQ("w.x", i, out[i].x, v.w + 1.0f);
      EXPECT_EQ("w.y", i, out[i].y, v.z);
      EXPECT_EQ("w.z", i, out[i].z, v.y - v.x);
      EXPECT_EQ("w.w", i, out[i].w, f);
      EXPECT_EQ("f", i, fout[i], f * 2.0f + (float)x);
      unsigned got = bout[i].x | bout[i].y << 8 | bout[i].z << 16 | (unsigned)bout[i].w << 24;
      unsigned want = bv.x | bv.y << 8 | bv.z << 16 | (unsigned)bv.w << 24;
      EXPECT_EQ("bytes", i, got, want);
    }

  CHECK(hipDestroySurfaceObject(sa));
  CHECK(hipDestroySurfaceObject(sb));
  CHECK(hipDestroySurfaceObject(sf));
  for (hipArray_t arr : {a, b, copy, fa, ba, bcopy}) CHECK(hipFreeArray(arr));
  free(h);
  free(hf);
  free(hb);
  free(out);
  free(fout);
  free(bout);
  return finish("surface_arrays",
                "37x11 float4, float and uchar4 hipArrays: 2-D copies to, between and from arrays, surf2Dread/surf2Dwrite");
}

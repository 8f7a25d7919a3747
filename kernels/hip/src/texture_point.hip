// Texture objects with point filtering (image_sample through a sampler):
// hipCreateTextureObject over 2-D hipArrays, tex2D<float> at texel centres in
// unnormalized coordinates, normalized coordinates with wrap and clamp
// addressing (coordinates outside [0, 1)), border addressing (0 outside), and
// tex2D<float4> of a uchar4 array in hipReadModeNormalizedFloat (x / 255).
// Every coordinate is a texel centre or well inside a texel, so the texel each
// one selects is exact. Integer-exact values; the /255 results are the host's
// correctly rounded float division.
#include "common.h"

constexpr int W = 19, H = 7;

__global__ void fetch(hipTextureObject_t plain, hipTextureObject_t wrap,
                      hipTextureObject_t clamp, hipTextureObject_t border,
                      hipTextureObject_t bytes, float *out, float4 *out4) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  int i = y * W + x;
  float cx = x + 0.5f, cy = y + 0.5f;
  out[i * 4 + 0] = tex2D<float>(plain, cx, cy);
  // Normalized, one period to the right and one up: wraps to (x, y).
  out[i * 4 + 1] = tex2D<float>(wrap, (cx + W) / W, (cy - H) / H);
  // Normalized, far outside: clamps to the nearest edge texel.
  out[i * 4 + 2] = tex2D<float>(clamp, (cx - 2 * W) / W, (cy + 3 * H) / H);
  // Normalized, odd columns shifted left of the image: the border (0).
  float bx = (x & 1) ? (cx - W) / W : cx / W;
  out[i * 4 + 3] = tex2D<float>(border, bx, cy / H);
  out4[i] = tex2D<float4>(bytes, cx, cy);
}

static hipTextureObject_t make_texture(hipArray_t a, hipTextureAddressMode mode,
                                  bool normalized, hipTextureReadMode read) {
  hipResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = hipResourceTypeArray;
  rd.res.array.array = a;
  hipTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = mode;
  td.filterMode = hipFilterModePoint;
  td.readMode = read;
  td.normalizedCoords = normalized;
  hipTextureObject_t t = 0;
  CHECK(hipCreateTextureObject(&t, &rd, &td, nullptr));
  return t;
}

static float value(int x, int y) { return (float)(y * 100 + x * 3 - 50); }

static uchar4 byte_value(int x, int y) {
  int k = y * W + x;
  return make_uchar4((unsigned char)(k * 7), (unsigned char)(255 - k),
                     (unsigned char)(k * 13 + 1), (unsigned char)(k | 0x80));
}

int main() {
  float hf[W * H];
  uchar4 hb[W * H];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      hf[y * W + x] = value(x, y);
      hb[y * W + x] = byte_value(x, y);
    }
  hipChannelFormatDesc cf = hipCreateChannelDesc<float>();
  hipChannelFormatDesc cb = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
  hipArray_t af = nullptr, ab = nullptr;
  CHECK(hipMallocArray(&af, &cf, W, H, hipArrayDefault));
  CHECK(hipMallocArray(&ab, &cb, W, H, hipArrayDefault));
  CHECK(hipMemcpy2DToArray(af, 0, 0, hf, W * sizeof(float), W * sizeof(float), H,
                           hipMemcpyHostToDevice));
  CHECK(hipMemcpy2DToArray(ab, 0, 0, hb, W * sizeof(uchar4), W * sizeof(uchar4), H,
                           hipMemcpyHostToDevice));
  hipTextureObject_t plain = make_texture(af, hipAddressModeClamp, false, hipReadModeElementType);
  hipTextureObject_t wrap = make_texture(af, hipAddressModeWrap, true, hipReadModeElementType);
  hipTextureObject_t clamp = make_texture(af, hipAddressModeClamp, true, hipReadModeElementType);
  hipTextureObject_t border = make_texture(af, hipAddressModeBorder, true, hipReadModeElementType);
  hipTextureObject_t bytes = make_texture(ab, hipAddressModeClamp, false, hipReadModeNormalizedFloat);

  float *out = nullptr;
  float4 *out4 = nullptr;
  CHECK(hipMalloc(&out, W * H * 4 * sizeof(float)));
  CHECK(hipMalloc(&out4, W * H * sizeof(float4)));
  dim3 block(8, 4);
  dim3 grid((W + 7) / 8, (H + 3) / 4);
  hipLaunchKernelGGL(fetch, grid, block, 0, 0, plain, wrap, clamp, border, bytes, out, out4);
  CHECK_LAUNCH();
  float h_out[W * H * 4];
  float4 h_out4[W * H];
  CHECK(hipMemcpy(h_out, out, sizeof h_out, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(h_out4, out4, sizeof h_out4, hipMemcpyDeviceToHost));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      long i = y * W + x;
      EXPECT_EQ("plain", i, h_out[i * 4 + 0], value(x, y));
      EXPECT_EQ("wrap", i, h_out[i * 4 + 1], value(x, y));
      EXPECT_EQ("clamp", i, h_out[i * 4 + 2], value(0, H - 1));
      EXPECT_EQ("border", i, h_out[i * 4 + 3], (x & 1) ? 0.0f : value(x, y));
      uchar4 b = byte_value(x, y);
      EXPECT_EQ("unorm.x", i, h_out4[i].x, b.x / 255.0f);
      EXPECT_EQ("unorm.y", i, h_out4[i].y, b.y / 255.0f);
      EXPECT_EQ("unorm.z", i, h_out4[i].z, b.z / 255.0f);
      EXPECT_EQ("unorm.w", i, h_out4[i].w, b.w / 255.0f);
    }
  for (hipTextureObject_t t : {plain, wrap, clamp, border, bytes})
    CHECK(hipDestroyTextureObject(t));
  CHECK(hipFreeArray(af));
  CHECK(hipFreeArray(ab));
  CHECK(hipFree(out));
  CHECK(hipFree(out4));
  return finish("texture_point",
                "19x7 float and uchar4 textures, point filtering: unnormalized, wrap, clamp, border, normalized-float reads");
}

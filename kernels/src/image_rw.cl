// OpenCL image kernel arguments: sampler-less read_imageui / read_imagef,
// write_imageui, get_image_width / get_image_height. `src` is CL_RGBA
// CL_UNSIGNED_INT8, `dst` CL_RGBA CL_UNSIGNED_INT8 (write_imageui saturates
// to 0..255), `fsrc` CL_RG CL_UNORM_INT8 (read as (r, g, 0, 1)), all w x h.
__kernel void image_rw(read_only image2d_t src, write_only image2d_t dst,
                       read_only image2d_t fsrc, __global float4 *fout,
                       __global uint *info) {
  int x = get_global_id(0), y = get_global_id(1);
  int w = get_image_width(src), h = get_image_height(src);
  if (x == 0 && y == 0) {
    info[0] = w;
    info[1] = h;
    info[2] = get_image_width(fsrc);
    info[3] = get_image_height(fsrc);
  }
  if (x < w && y < h) {
    uint4 v = read_imageui(src, (int2)(x, y));
    write_imageui(dst, (int2)(x, y),
                  (uint4)(v.x + v.y, v.y * 3u, v.z ^ 0x5au, 300u - v.w));
    fout[y * w + x] = read_imagef(fsrc, (int2)(x, y));
  }
}

// Saturating and mixed-width integer arithmetic, bit scans and the float
// conversions built on them: each work-item computes 16 integer results and
// 4 float results from two 32-bit inputs.
//
// Compiled, these reach the integer `clamp` forms of v_add/v_sub (u32, i32,
// u16, i16; GFX10 `_nc_` forms), v_ffbh_i32 / v_ffbh_u32 (clz and the
// long-to-float conversion) and v_fract_f32.

kernel void int_sat(global const uint *a, global const uint *b,
                    global uint *out, global float *fout, uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  uint x = a[i], y = b[i];
  global uint *o = out + i * 16;
  o[0] = add_sat(x, y);
  o[1] = sub_sat(x, y);
  o[2] = (uint)add_sat((int)x, (int)y);
  o[3] = (uint)sub_sat((int)x, (int)y);
  o[4] = (uint)add_sat((ushort)x, (ushort)y);
  o[5] = (uint)sub_sat((ushort)x, (ushort)y);
  o[6] = (uint)(int)add_sat((short)x, (short)y);
  o[7] = (uint)(int)sub_sat((short)x, (short)y);
  o[8] = clz(x);
  o[9] = (uint)clz((int)x);
  o[10] = (uint)add_sat((uchar)x, (uchar)y);
  o[11] = (uint)(int)sub_sat((char)x, (char)y);
  o[12] = hadd(x, y);
  o[13] = (uint)mad_sat((int)x, 3, (int)y);
  o[14] = mul_hi(x, y);
  o[15] = rhadd(x, y);
  global float *f = fout + i * 4;
  f[0] = convert_float((long)x << (y & 31));
  f[1] = convert_float((long)(((ulong)x << 32) | y));
  float ip;
  f[2] = fract(as_float(x), &ip);
  f[3] = convert_float((ulong)y << (x & 31));
}

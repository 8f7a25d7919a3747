// vec_int: integer vector types of every width and length, loaded and
// stored with vloadN/vstoreN at unaligned element offsets.
// Arithmetic that can overflow is done on the unsigned types (signed
// overflow is undefined in OpenCL C, as in C).
// Exercises: char2/char4/char8/char16, uchar16, short2/short8, ushort4,
// int3/int4, uint8, long2/ulong4: element-wise add, sub, mul, shifts (the
// count masked to the element width), rotate, min/max, abs, mul_hi, hadd,
// vector comparisons (-1/0 per element) and select, shuffle, conversions
// between vector types (convert_short8_sat, convert_int4), swizzles, and the
// byte/word packing the compiler emits for them (SDWA on GFX9, v_perm_b32,
// 16-bit and packed 16-bit instructions).
// Inputs: in[16 i .. 16 i + 15] (32-bit words, read as bytes, shorts, ints
// and longs from the same memory; edge values 0, 0x7f, 0x80, 0xff, 0x7fff,
// 0x8000, ... in the first work-items).
// Output: out[16 i .. 16 i + 15] (words).
kernel void vec_int(global const uint *in, global uint *out, uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  global const uint *p = in + i * 16;
  global const char *pc = (global const char *)p;
  global const short *ps = (global const short *)p;
  global const int *pi = (global const int *)p;
  global const long *pl = (global const long *)p;
  global uint *o = out + i * 16;

  char16 c16 = vload16(0, pc);
  char16 d16 = vload16(0, pc + 17); // unaligned: bytes 17..32
  uchar16 u16 = as_uchar16(c16);
  char16 r16 = add_sat(c16, d16) ^ (c16 >> (d16 & (char)7)) ^ rotate(c16, d16);
  r16 = select(r16, max(c16, d16), c16 < d16);
  uchar16 a16 = abs(c16) + hadd(u16, as_uchar16(d16));
  vstore4(as_uint4(r16), 0, o);
  o[4] = as_uint(a16.s0123 ^ a16.s4567 ^ a16.s89ab ^ a16.scdef);

  char8 c8 = vload8(3, pc + 1);
  uchar4 c4 = as_uchar4(c8.s7531) * as_uchar4(c8.s0246) + (uchar4)(1, 254, 3, 252);
  uchar2 c2 = c4.xy - c4.wz;
  o[5] = as_uint(c4) ^ ((uint)as_ushort(c2) << 7);

  short8 s8 = vload8(1, ps + 1);
  short2 s2 = vload2(0, ps + 3);
  ushort8 m8 =
      as_ushort8(mul_hi(s8, (short8)(s2.x, s2.y, -1, 32767, -32768, 3, 0, 7))) +
      as_ushort8(s8 << (short8)(s2.y & 15)) + as_ushort8(sub_sat(s8, s8.s76543210));
  o[6] = as_uint(m8.s01) ^ as_uint(m8.s23) ^ as_uint(m8.s45) ^ as_uint(m8.s67);
  ushort4 us4 = as_ushort4(vload4(0, ps + 5));
  us4 = (us4 >> (ushort4)(1, 5, 9, 15)) | rotate(us4, (ushort4)(3));
  o[7] = as_uint(us4.xy) + as_uint(us4.zw);

  int4 i4 = vload4(0, pi + 9);
  int3 i3 = vload3(0, pi + 1);
  int4 q4 = as_int4(as_uint4((int4)(i3, 5)) * as_uint4(i4) -
                    as_uint4(i4 >> (int4)(i3.z & 31, 1, 33, 0)));
  int4 sel = select(q4, min(i4, q4), i4 > q4);
  vstore3(sel.xyz, 0, (global int *)(o + 8));
  o[11] = (uint)sel.w + (uint)i4.x + abs(i3.y);

  uint8 u8 = vload8(0, (global const uint *)pi + 3);
  uint8 v8 = (u8 * u8.s12345670 + clz(u8)) ^ (u8 >> 3);
  o[12] = v8.s0 + v8.s1 + v8.s2 + v8.s3 + v8.s4 + v8.s5 + v8.s6 + v8.s7;

  long2 l2 = vload2(1, pl + 1);
  ulong4 ul4 = as_ulong4(vload4(0, pl));
  ulong2 lr = as_ulong2(l2) * (ulong2)(3, -5) + as_ulong2(l2 >> (long2)(7, 63)) -
              as_ulong2(l2.yx);
  ulong4 mr = mul_hi(ul4, ul4.wzyx) + rotate(ul4, (ulong4)(1, 17, 33, 63));
  ulong m = lr.x ^ lr.y ^ mr.x ^ mr.y ^ mr.z ^ mr.w;
  o[13] = (uint)m;
  o[14] = (uint)(m >> 32);

  // saturating vector conversions and a comparison mask
  short8 sat8 = convert_short8_sat(vload8(0, pi + 8));
  int4 cmp = convert_int4(c16.s048c == d16.s159d) ^ convert_int4(u16.s37bf > (uchar)100);
  o[15] = as_uint(sat8.s01) ^ as_uint(sat8.s23) ^ as_uint(sat8.s45) ^
          as_uint(sat8.s67) ^ (uint)(cmp.x + 2 * cmp.y + 4 * cmp.z + 8 * cmp.w);
}

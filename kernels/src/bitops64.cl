// bitops64: integer bit operations and 64-bit arithmetic.
// Exercises: popcount, clz, rotate, bit-field style shifts and masks,
// mul_hi, 32x32->64 and 64x64 multiplication, 64-bit shifts by variable
// amounts, one 64-bit unsigned division (a long expanded sequence; the
// remainder is derived from the quotient), signed compare/select, and
// 64-bit stores.
__kernel void bitops64(__global const ulong *in, __global ulong *out,
                       __global uint *out32, uint n) {
  size_t gid = get_global_id(0);
  if (gid >= n)
    return;
  ulong x = in[gid];
  uint lo = (uint)x;
  uint hi = (uint)(x >> 32);
  uint p = popcount(lo) + popcount(hi);
  uint z = clz(hi | 1u);
  uint r = rotate(lo, (uint)(gid & 31u)) ^ (hi >> 3) ^ (lo << 7);
  uint mh = mul_hi(lo, hi | 0x80000001u);
  out32[gid] = p | (z << 8) | ((r & 0xffu) << 16) | ((mh & 0xffu) << 24);

  ulong wide = (ulong)lo * (ulong)(hi | 1u);
  ulong prod = x * 0x9E3779B97F4A7C15ul + wide;
  ulong sh = (prod << (p & 63u)) | (prod >> ((64u - (p & 63u)) & 63u));
  ulong d = (x | 1ul) % 1000003ul + 1ul;
  ulong q = prod / d;
  long s = (long)(x ^ sh);
  long m = s < 0 ? -(s >> 5) : s >> 3;
  out[2 * gid] = q ^ sh;
  out[2 * gid + 1] = (ulong)m + (prod - q * d);
}

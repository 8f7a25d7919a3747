// narrow_types: the scalar types narrower than 32 bits (char, uchar, short,
// ushort) and the wide ones (long, ulong, double) loaded and stored at their
// own width, with the promotions and conversions C applies between them.
// Exercises: global_load_sbyte/ubyte/sshort/ushort and global_store_byte/
// short (and their d16 forms), sign and zero extension (v_bfe_i32,
// SDWA sext on GFX9), 16-bit VALU (v_add_u16, v_mul_lo_u16, v_lshlrev_b16,
// v_ashrrev_i16, v_max_i16), promotions of char/short to int before
// arithmetic, truncation on store, char/short -> float and double, and
// byte-wise reads of the same memory at odd offsets.
// Inputs: c[i] (bytes), s[i] (16-bit), l[i] (64-bit). Outputs: oc[4 i ..]
// (bytes; the reference files hold them as 32-bit words), os[2 i ..]
// (16-bit), ow[i] (32-bit), od[i] (double: exact
// conversions of narrow integers and one product of them, exact in double).
kernel void narrow_types(global const char *c, global const short *s,
                         global const long *l, global uchar *oc,
                         global ushort *os, global uint *ow, global double *od,
                         uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  char a = c[i];
  uchar ua = (uchar)c[(i * 7 + 3) % n];
  short b = s[i];
  ushort ub = (ushort)s[(i + 1) % n];
  long w = l[i];
  // promoted arithmetic, truncated on store
  oc[4 * i] = (uchar)(a * 3 + ua);
  oc[4 * i + 1] = (uchar)(ua >> 3 | (uint)a << 5);
  oc[4 * i + 2] = (uchar)(a < 0 ? -a : a);
  oc[4 * i + 3] = (uchar)max(a, (char)(ua ^ 0x80));
  os[2 * i] = (ushort)(b * ub + a);
  os[2 * i + 1] = (ushort)((b >> 4) ^ (ub << 3) ^ (ushort)w);
  int t = (int)a * (int)b + (int)ua * (int)ub; // no overflow: < 2^31
  uint hi = (uint)(w >> 40) & 0xffffffu;
  ow[i] = (uint)t ^ hi ^ (uint)(ushort)(b / (short)(ua | 1));
  od[i] = (double)a * 65536.0 + (double)ub + (double)b / 4.0 +
          (double)(float)t;
}

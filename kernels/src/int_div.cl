// int_div: integer division and remainder in 32 and 64 bits, signed and
// unsigned, by run-time divisors and by constants.
// Exercises: the 32-bit unsigned division expansion (v_rcp_iflag_f32 and its
// correction steps), the signed forms built on it (sign fix-ups), the 64-bit
// division and remainder expansions (a long loop-free sequence at -O2, calls
// at -O0), and divisions by constants turned into mul_hi/shift sequences.
// Every division is guarded: a zero divisor gives the fixed results below,
// and the signed INT_MIN / -1 and LONG_MIN / -1 (overflow) give the dividend
// and 0. Inputs: a[i], b[i] are 64-bit patterns; the 32-bit operations use
// their low halves, and every fourth divisor is shifted right by a random
// amount in the host's data so that quotients of every size appear.
// Output: out[16 i .. 16 i + 15] (as ulong).
#define NODIV_Q 0xfeedfacecafef00dUL

kernel void int_div(global const ulong *a, global const ulong *b,
                    global ulong *out, uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  ulong x = a[i], y = b[i];
  uint x32 = (uint)x, y32 = (uint)y;
  int sx32 = (int)x32, sy32 = (int)y32;
  long sx = (long)x, sy = (long)y;
  global ulong *o = out + i * 16;
  // 32-bit unsigned
  o[0] = y32 ? x32 / y32 : NODIV_Q;
  o[1] = y32 ? x32 % y32 : NODIV_Q;
  // 32-bit signed (results sign-extended to 64 bits)
  int bad32 = sy32 == 0 || (sx32 == INT_MIN && sy32 == -1);
  o[2] = bad32 ? (ulong)(long)sx32 : (ulong)(long)(sx32 / sy32);
  o[3] = bad32 ? 0UL : (ulong)(long)(sx32 % sy32);
  // 64-bit unsigned
  o[4] = y ? x / y : NODIV_Q;
  o[5] = y ? x % y : NODIV_Q;
  // 64-bit signed
  int bad64 = sy == 0 || (sx == LONG_MIN && sy == -1);
  o[6] = bad64 ? (ulong)sx : (ulong)(sx / sy);
  o[7] = bad64 ? 0UL : (ulong)(sx % sy);
  // by constants (multiply-high sequences)
  o[8] = ((ulong)(x32 / 7u) << 32) | (x32 % 1000u);
  o[9] = ((ulong)(uint)(sx32 / -3) << 32) | (uint)(sx32 % 10);
  o[10] = x / 10UL;
  o[11] = (ulong)(sx % 1000003L);
  o[12] = (ulong)(sx / -7L);
  // 64-bit by a 32-bit divisor, and a divisor that is a power of two at
  // run time (signed: rounds toward zero)
  o[13] = y32 ? x / (ulong)y32 : NODIV_Q;
  uint sh = (y32 >> 8) % 31u; // 0..30: 1 << sh stays positive
  o[14] = ((ulong)(uint)(sx32 / (1 << sh)) << 32) | (uint)(sx32 % (1 << sh));
  // a 64-bit signed by a 32-bit value widened (even and
  // not 0, so never -1 either: LONG_MIN / -1 would overflow)
  long d = (long)((sy32 & ~1) | 2);
  o[15] = (ulong)(sx / d) ^ (ulong)(sx % d);
}

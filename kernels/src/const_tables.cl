// const_tables: table look-ups in __constant memory with data-dependent
// indices: a program-scope CRC-32 table (256 words), a byte S-box (256
// bytes), a table of 64-bit values, and a __constant kernel argument.
// Exercises: constant address space loads (global_load / s_load where the
// index is uniform, from .rodata through the code object's relocations),
// byte loads (global_load_ubyte), 64-bit loads, a constant-argument pointer,
// a per-lane loop over the bytes of the input.
// Inputs: in[i] (random words), key[0..15] (the __constant argument).
// Output: out[3 i ..]: CRC-32 of the 4 bytes of in[i]; the S-box applied to
// each byte, mixed with key[i % 16]; a 64-bit table value selected by
// in[i] >> 26, folded to 32 bits and XORed with the key selected by the
// group id (uniform).
__constant uint crc_table[256] = {
#define C1(c) (((c) & 1u) ? 0xedb88320u ^ ((c) >> 1) : (c) >> 1)
#define C8(c) C1(C1(C1(C1(C1(C1(C1(C1(c))))))))
#define R4(b) C8(b), C8(b + 1u), C8(b + 2u), C8(b + 3u)
#define R16(b) R4(b), R4(b + 4u), R4(b + 8u), R4(b + 12u)
#define R64(b) R16(b), R16(b + 16u), R16(b + 32u), R16(b + 48u)
    R64(0u), R64(64u), R64(128u), R64(192u)};

// an affine byte permutation: (x * 167 + 13) mod 256 (167 is odd)
__constant uchar sbox[256] = {
#define S1(x) (uchar)(((x) * 167u + 13u) & 0xffu)
#define S4(b) S1(b), S1(b + 1u), S1(b + 2u), S1(b + 3u)
#define S16(b) S4(b), S4(b + 4u), S4(b + 8u), S4(b + 12u)
#define S64(b) S16(b), S16(b + 16u), S16(b + 32u), S16(b + 48u)
    S64(0u), S64(64u), S64(128u), S64(192u)};

__constant ulong wide[64] = {
#define W1(j) ((ulong)(j) * 0x9e3779b97f4a7c15UL ^ ((ulong)(j) << 40))
#define W4(b) W1(b), W1(b + 1), W1(b + 2), W1(b + 3)
#define W16(b) W4(b), W4(b + 4), W4(b + 8), W4(b + 12)
    W16(0), W16(16), W16(32), W16(48)};

kernel void const_tables(global const uint *in, __constant uint *key,
                         global uint *out, uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  uint v = in[i];
  uint crc = 0xffffffffu;
  for (uint b = 0; b < 4; b++)
    crc = crc_table[(crc ^ (v >> (8 * b))) & 0xffu] ^ (crc >> 8);
  out[3 * i] = ~crc;
  uint s = 0;
  for (uint b = 0; b < 4; b++)
    s |= (uint)sbox[(v >> (8 * b)) & 0xffu] << (8 * b);
  out[3 * i + 1] = s ^ key[i % 16];
  ulong w = wide[v >> 26];
  out[3 * i + 2] = (uint)w ^ (uint)(w >> 32) ^ key[get_group_id(0) % 16];
}

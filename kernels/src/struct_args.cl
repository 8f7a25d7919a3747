// struct_args: a struct passed by value and __local pointer arguments.
// Exercises: a by-value struct in the kernarg segment (fields of 1, 2, 4
// and 8 bytes at their natural offsets, padding, a nested array; read with
// s_load of several sizes), two dynamic __local buffers whose offsets come
// in as arguments (hidden dynamic LDS after the kernel's own), a
// reversal of the group's values through the first and a neighbour
// exchange of 64-bit values through the second, with barriers.
// Arguments: p (the struct, below), in[i], scratch (local_size uints),
// wscratch (local_size ulongs), out[3 i ..] (uints), n.
// out[3i] = in[i reversed within its group] * p.mul + p.add + p.bias[i % 4],
// out[3i+1] = the previous item's (in * 2^p.shift + p.big) in the group, low
// half XOR high half; out[3i+2] = p.tag | p.flags << 8 | p.sel << 16.
typedef struct {
  uchar tag;    // offset 0
  uchar flags;  // 1
  short sel;    // 2
  uint mul;     // 4
  ulong big;    // 8
  int add;      // 16
  uint shift;   // 20
  uint bias[4]; // 24
} params;       // 40 bytes, 8-aligned

kernel void struct_args(params p, global const uint *in, local uint *scratch,
                        local ulong *wscratch, global uint *out, uint n) {
  size_t gid = get_global_id(0);
  uint lid = (uint)get_local_id(0);
  uint ls = (uint)get_local_size(0);
  uint v = gid < n ? in[gid] : 0u;
  scratch[lid] = v;
  wscratch[lid] = ((ulong)v << (p.shift & 63)) + p.big;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint r = scratch[ls - 1 - lid];
  ulong w = wscratch[lid == 0 ? ls - 1 : lid - 1];
  if (gid < n) {
    out[3 * gid] = r * p.mul + (uint)p.add + p.bias[gid % 4];
    out[3 * gid + 1] = (uint)w ^ (uint)(w >> 32);
    out[3 * gid + 2] = (uint)p.tag | (uint)p.flags << 8 | (uint)(ushort)p.sel << 16;
  }
}

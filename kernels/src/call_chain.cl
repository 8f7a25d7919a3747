// call_chain: a chain of six non-inlined functions, each with its own
// divergent branch, passing a 96-word private array down by pointer and
// indexing it at run time at every level.
// Exercises: s_swappc_b64 / s_setpc_b64 call and return at -O2, the
// stack in scratch (s32), callee-saved VGPR/SGPR spills and the whole-wave
// save of EXEC around them, a private array addressed through a flat or
// scratch pointer in a called function, divergent calls (only some lanes
// call level 4 and below), and a loop that calls the chain.
// Inputs: in[i] (random, with 0, 1, 95, 96, ~0 first). Output: out[i].
#define N 96

__attribute__((noinline)) uint f5(uint *a, uint v) {
  uint k = v % N;
  a[k] ^= v;
  return a[(k * 7u + 3u) % N] + k;
}

__attribute__((noinline)) uint f4(uint *a, uint v) {
  uint r = 0;
  for (uint j = 0; j < (v & 3u); j++)
    r += f5(a, v + j * 13u);
  return r ^ a[v % 17u];
}

__attribute__((noinline)) uint f3(uint *a, uint v) {
  if (v & 4u)
    return f4(a, v >> 1) + 1u;
  a[(v >> 3) % N] += v;
  return a[v % N];
}

__attribute__((noinline)) uint f2(uint *a, uint v) {
  uint t = f3(a, v * 3u + 1u);
  return t + f3(a, t ^ v);
}

__attribute__((noinline)) uint f1(uint *a, uint v, uint depth) {
  uint r = v;
  for (uint d = 0; d < depth; d++)
    r = rotate(r, 5u) + f2(a, r + d);
  return r;
}

__attribute__((noinline)) uint f0(uint *a, uint v) {
  return v & 1u ? f1(a, v, 2u + (v >> 28)) : f1(a, ~v, 1u) * 3u;
}

kernel void call_chain(global const uint *in, global uint *out, uint n) {
  size_t i = get_global_id(0);
  if (i >= n)
    return;
  uint v = in[i];
  uint a[N];
  for (uint j = 0; j < N; j++)
    a[j] = v * j + (j ^ 0x5au);
  uint r = f0(a, v);
  uint s = 0;
  for (uint j = 0; j < N; j += 5)
    s += a[(j + v) % N];
  out[i] = r ^ s;
}

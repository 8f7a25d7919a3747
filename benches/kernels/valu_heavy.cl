// valu_heavy: a per-work-item loop of f32 fused multiply-adds and integer
// hashing, `iters` iterations, for the simulator's instruction-rate
// benchmark (benches/benches/sim.rs). Nothing but VALU and SALU work in the
// loop: two global loads before it and two global stores after it.
__kernel void valu_heavy(__global const float *in, __global float *out_f,
                         __global uint *out_h, uint iters) {
  size_t i = get_global_id(0);
  float x = in[i];
  float a = 0.0f;
  float b = 1.0f;
  uint h = (uint)i * 2654435761u;
  for (uint k = 0; k < iters; k++) {
    a = fma(a, 0.999f, x);
    b = fma(b, x, -a);
    x = fma(x, -0.5f, 1.25f);
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h << 7;
    h += k;
  }
  out_f[i] = a + b;
  out_h[i] = h;
}

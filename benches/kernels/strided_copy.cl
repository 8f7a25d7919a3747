// strided_copy: out[i] = in[(i * stride) & mask], for the simulator's
// memory-path benchmark (benches/benches/sim.rs). With an odd stride and
// mask = n - 1 (n a power of two) every element is read once; a stride of
// 1,024 floats or more puts every lane of a wave in a different page.
__kernel void strided_copy(__global const float *in, __global float *out,
                           uint stride, uint mask) {
  uint i = (uint)get_global_id(0);
  out[i] = in[(i * stride) & mask];
}

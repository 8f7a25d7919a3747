// printf_hello: OpenCL printf, which clang-19 compiles to hostcall
// (hidden_hostcall_buffer, __ockl_printf_begin). amdsim provides no hostcall
// services: a run faults in the first page of global memory and says why.
kernel void printf_hello(global const uint *in) {
  size_t i = get_global_id(0);
  if (i < 2)
    printf("item %u: %u\n", (uint)i, in[i]);
}

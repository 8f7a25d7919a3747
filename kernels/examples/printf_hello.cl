// printf_hello: OpenCL printf compiled with the device library linked into the
// source (what `clang -x cl --rocm-device-lib-path=...` does). clang-19 then
// keeps the library's own `printf`, a stub that reserves nothing, reads the
// printf buffer pointer from an implicit argument the metadata does not ask
// the runtime for (it lists hidden_hostcall_buffer instead) and returns -1:
// the kernel faults in the first page, as it would on a GPU, and amdsim says
// why. kernels/examples/printf_demo.cl is the same kind of kernel built so
// that printf works.
kernel void printf_hello(global const uint *in) {
  size_t i = get_global_id(0);
  if (i < 2)
    printf("item %u: %u\n", (uint)i, in[i]);
}

// printf_demo: OpenCL printf through the printf buffer. build.sh compiles this
// source without the device library (-nogpulib -emit-llvm: clang lowers each
// printf into a record of the printf buffer, a format id and the arguments,
// and lists the formats in the amdhsa.printf metadata) and links the library
// at code generation (its __printf_alloc reserves the records). `amdsim run`
// prints the records after the dispatch:
//   amdsim run kernels/examples/printf_demo.gfx900.co printf_demo i32[]:1,3,4,-7 --grid 4 --group 4
kernel void printf_demo(global const int *in) {
  size_t i = get_global_id(0);
  int v = in[i];
  if (v & 1)
    printf("item %d: %5d|%-4x|%08.3f|%e|%g|%c|%s\n", (int)i, v, v, v / 3.0f,
           (double)v * 1e10, v / 8.0, 'A' + (int)i, "ok");
  if (i == 0)
    printf("%v4hlf %v2hld %%\n", (float4)(1.0f, 2.5f, -3.0f, 0.125f), (int2)(7, -8));
}

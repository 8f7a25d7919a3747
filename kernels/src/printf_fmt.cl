// printf_fmt: OpenCL printf through the printf buffer, from divergent code.
// Built in two steps (tools/build.py, PRINTF_KERNELS): the source without
// the device library (-nogpulib -emit-llvm: clang lowers each printf into
// a record of the printf buffer and lists the formats in the amdhsa.printf
// metadata), then code generation with the library linked in.
// Exercises: printf records written by some lanes of a wave only (data-
// dependent branches, a loop with a per-lane trip count), integer
// conversions (%d %i %u %x %X %o %c, widths, precision, flags - + space # 0,
// the length modifiers hh h l), floating conversions of float and double
// arguments (%f %e %E %g %G %a with precisions), %s with a constant string,
// %%, vector conversions (%v4hld %v2hlf %v3hhx).
// Inputs: in[i] (int), d[i] (double). Prints, for work-item i < n:
//   v = in[i]; if v is odd: line A; for k = 0 .. (v & 3) - 1: line B(k);
//   if v < 0: line C; if i == 0: line D (see the format strings below).
// The output order of different work-items is unspecified (OpenCL); the
// host test compares each work-item's lines, in order.
// out[i] = the sum of printf's return values (0 per successful call).
kernel void printf_fmt(global const int *in, global const double *d,
                       global int *out, uint n) {
  uint i = (uint)get_global_id(0);
  if (i >= n)
    return;
  int v = in[i];
  double x = d[i];
  int r = 0;
  if (v & 1)
    r += printf("A %u: %d|%+5i|% d|%-6x|%#X|%o|%08.3d|%c|%s|%%\n", i, v, v, v,
                v, (uint)v, (uint)v & 0777u, v, 'a' + (int)(i % 26), "str");
  for (int k = 0; k < (v & 3); k++)
    r += printf("B %u.%d: %hhd %hd %ld %lu %.3f %e %.2E %g %G\n", i, k,
                (char)(v + k), (short)(v * 300), (long)v * 1000000007L,
                (ulong)(uint)v * 4294967311UL, (float)x * k, x, x / (k + 1),
                x * k, (float)(x * 1e-5));
  if (v < 0)
    r += printf("C %u: %a %.3a %10.4f %-10.2e|\n", i, x, (float)x, x, x);
  if (i == 0)
    r += printf("D %v4hld %v2hlf %v3hhx\n", (int4)(v, -v, 7, -8),
                (float2)(0.5f, -1.25f), (uchar3)(v, 255, 16));
  out[i] = r;
}

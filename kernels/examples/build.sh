#!/usr/bin/env bash
# Builds the example kernels of this directory (kernels/examples/*.cl) for gfx900
# (mfma_dot.cl for gfx908 and gfx90a), with the flags of kernels/tools/build.py. The
# built code objects are committed.
#
# printf_demo.cl is built in two steps, as a runtime's compiler does for OpenCL
# printf: the source without the device library (clang then lowers printf into
# printf-buffer records and writes the amdhsa.printf metadata), then code
# generation with the library linked in. Linked into the source, the library's
# own printf (a stub) would replace the lowering (see printf_hello.cl).
set -euo pipefail
cd "$(dirname "$0")"
libs=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode   # Debian's rocm-device-libs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cl_flags=(-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -Wall -Werror -mcpu=gfx900
  -mcode-object-version=5 -O2)
for src in *.cl; do
  k=${src%.cl}
  if [ "$k" = mfma_dot ]; then
    # The matrix and dot-product built-ins exist on gfx908 and gfx90a only.
    for gpu in gfx908 gfx90a; do
      clang-19 "${cl_flags[@]/-mcpu=gfx900/-mcpu=$gpu}" --rocm-device-lib-path="$libs" \
        -c "$src" -o "$tmp/$k.$gpu.o"
      ld.lld-19 -shared "$tmp/$k.$gpu.o" -o "$k.$gpu.co"
    done
    continue
  elif [ "$k" = printf_demo ]; then
    clang-19 "${cl_flags[@]}" -nogpulib -emit-llvm -c "$src" -o "$tmp/$k.bc"
    link=()
    for b in opencl ocml ockl oclc_abi_version_500 oclc_isa_version_900 \
      oclc_wavefrontsize64_on oclc_daz_opt_off oclc_unsafe_math_off \
      oclc_finite_only_off oclc_correctly_rounded_sqrt_on; do
      link+=(-Xclang -mlink-builtin-bitcode -Xclang "$libs/$b.bc")
    done
    clang-19 -target amdgcn-amd-amdhsa -mcpu=gfx900 -mcode-object-version=5 -O2 -nogpulib \
      -c "$tmp/$k.bc" "${link[@]}" -o "$tmp/$k.o"
  else
    clang-19 "${cl_flags[@]}" --rocm-device-lib-path="$libs" -c "$src" -o "$tmp/$k.o"
  fi
  ld.lld-19 -shared "$tmp/$k.o" -o "$k.gfx900.co"
done

#!/usr/bin/env bash
# Builds the example kernels of this directory (kernels/examples/*.cl) for gfx900,
# with the flags of kernels/tools/build.py. The built code objects are committed.
set -euo pipefail
cd "$(dirname "$0")"
libs=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode   # Debian's rocm-device-libs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for src in *.cl; do
  k=${src%.cl}
  clang-19 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa --rocm-device-lib-path="$libs" \
    -Wall -Werror -mcpu=gfx900 -mcode-object-version=5 -O2 -c "$src" -o "$tmp/$k.o"
  ld.lld-19 -shared "$tmp/$k.o" -o "$k.gfx900.co"
done

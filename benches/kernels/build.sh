#!/usr/bin/env bash
# Builds the benchmark kernels (benches/kernels/*.cl) into
# benches/kernels/bin/<target>/<kernel>.co with the flags of
# kernels/tools/build.py (-O2, code object v5, the ROCm device libraries).
#
#   benches/kernels/build.sh           rebuild in place
#   benches/kernels/build.sh --check   fail if a rebuild differs from the tree
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$DIR/../.." && pwd)"
DEVICE_LIBS=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode
# (output directory, -mcpu, extra flags)
TARGETS=(
	"gfx900 gfx900"
	"gfx1030 gfx1030 -mno-wavefrontsize64"
)

out="$DIR/bin"
if [ "${1:-}" = --check ]; then
	out="$(mktemp -d "${TMPDIR:-/tmp}/amdsim-bench-kernels.XXXXXX")"
	trap 'rm -rf "$out"' EXIT
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/amdsim-bench-obj.XXXXXX")"
trap 'rm -rf "$tmp"; [ "${1:-}" = --check ] && rm -rf "$out"' EXIT

cd "$ROOT"
for t in "${TARGETS[@]}"; do
	read -r dir mcpu extra <<<"$t"
	mkdir -p "$out/$dir"
	for src in benches/kernels/*.cl; do
		k="$(basename "$src" .cl)"
		# shellcheck disable=SC2086
		clang-19 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa \
			--rocm-device-lib-path="$DEVICE_LIBS" -Wall -Werror \
			-ffile-prefix-map="$ROOT"=. -fdebug-prefix-map="$ROOT"=. \
			-mcpu="$mcpu" -mcode-object-version=5 $extra -O2 \
			-c "$src" -o "$tmp/$dir.$k.o"
		ld.lld-19 -shared "$tmp/$dir.$k.o" -o "$out/$dir/$k.co"
	done
done
if [ "${1:-}" = --check ]; then
	diff -r "$DIR/bin" "$out"
fi

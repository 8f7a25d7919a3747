#!/usr/bin/env bash
# Rebuilds the kernel corpus (kernels/bin) and its reference outputs
# (kernels/ref) from kernels/src with the Debian LLVM 19 toolchain.
#
#   kernels/build.sh           rebuild everything in place
#   kernels/build.sh --check   rebuild into a temporary directory and fail if
#                              anything differs from the files in the tree
#                              (changed, missing or extra files)
#
# The build is byte-reproducible: it does not depend on the location of the
# checkout, the output directory, the time or the number of cores.
# See kernels/README.md.
set -euo pipefail

KDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEVICE_LIBS=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode
INSTALL_HINT="apt-get install -y clang-19 llvm-19 lld-19 rocm-device-libs"

usage() {
	echo "usage: $0 [--check]" >&2
	exit 2
}

mode=build
case "${1:-}" in
"") ;;
--check) mode=check ;;
-h | --help)
	sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*) usage ;;
esac
[ $# -le 1 ] || usage

missing=()
for tool in clang-19 llvm-mc-19 ld.lld-19 llvm-objdump-19 llvm-readelf-19 \
	llvm-dwarfdump-19 python3; do
	command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
for lib in opencl.bc ocml.bc ockl.bc oclc_abi_version_500.bc \
	oclc_abi_version_400.bc oclc_wavefrontsize64_on.bc; do
	[ -f "$DEVICE_LIBS/$lib" ] || missing+=("$DEVICE_LIBS/$lib")
done
if [ ${#missing[@]} -ne 0 ]; then
	echo "build.sh: missing: ${missing[*]}" >&2
	echo "build.sh: install the toolchain with:" >&2
	echo "    $INSTALL_HINT" >&2
	case " ${missing[*]} " in
	*" python3 "*) echo "    apt-get install -y python3" >&2 ;;
	esac
	exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/amdsim-kernels.XXXXXX")"
trap 'rm -rf "$work"' EXIT

start=$SECONDS
python3 "$KDIR/tools/build.py" "$work/out"
elapsed=$((SECONDS - start))

if [ "$mode" = build ]; then
	rm -rf "$KDIR/bin" "$KDIR/ref"
	mv "$work/out/bin" "$KDIR/bin"
	mv "$work/out/ref" "$KDIR/ref"
	echo "build.sh: wrote $KDIR/bin and $KDIR/ref in ${elapsed}s" \
		"($(find "$KDIR/bin" -name '*.co' | wc -l) code objects," \
		"$(du -sh "$KDIR" | cut -f1) in kernels/)"
	exit 0
fi

# --check: compare the fresh build with the tree.
status=0
for d in bin ref; do
	if [ ! -d "$KDIR/$d" ]; then
		echo "build.sh --check: kernels/$d is missing" >&2
		status=1
		continue
	fi
	if ! diff -rq "$KDIR/$d" "$work/out/$d" >"$work/$d.diff"; then
		status=1
	fi
done
if [ $status -ne 0 ]; then
	cat "$work"/*.diff 2>/dev/null |
		sed -e "s|$work/out/|<fresh build>/|g" -e "s|$KDIR/|kernels/|g" \
			>"$work/summary"
	changed=$(grep -c '^Files .* differ$' "$work/summary" || true)
	only_tree=$(grep -c '^Only in kernels/' "$work/summary" || true)
	only_fresh=$(grep -c '^Only in <fresh build>/' "$work/summary" || true)
	echo "build.sh --check: FAILED: $changed changed, $only_fresh missing" \
		"from the tree, $only_tree extra in the tree" >&2
	head -n 40 "$work/summary" >&2
	lines=$(wc -l <"$work/summary")
	[ "$lines" -le 40 ] || echo "... ($((lines - 40)) more)" >&2
	# Show the first differing text file, which usually tells why
	# (toolchain.txt first: a different toolchain explains everything).
	differing=$(grep '^Files .* differ$' "$work/summary" |
		sed -e 's/^Files kernels\/\(.*\) and .*/\1/' || true)
	first=$(echo "$differing" | grep -x 'ref/toolchain.txt' || true)
	[ -n "$first" ] ||
		first=$(echo "$differing" | grep '\.txt$' | head -n 1 || true)
	if [ -n "$first" ]; then
		echo "--- first differing text file: kernels/$first" >&2
		diff -u "$KDIR/$first" "$work/out/$first" | head -n 30 >&2 || true
	fi
	echo "build.sh --check: run kernels/build.sh to regenerate" >&2
	exit 1
fi
echo "build.sh --check: OK, kernels/bin and kernels/ref match a fresh build" \
	"(${elapsed}s)"

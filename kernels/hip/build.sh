#!/usr/bin/env bash
# Builds the HIP test programs (kernels/hip/bin) from kernels/hip/src with
# Debian's hipcc (HIP 5.2.3, clang-15, code object v4) and with clang++-19
# (-x hip), for gfx900 gfx906 gfx908 gfx90a gfx1030. clang++-19 is asked for
# code object v4 (-mcode-object-version=4): Debian's HIP 5.2 runtime cannot
# load v5 (its comgr fails to read the ISA name of a v5 code object and the
# launch ends with hipErrorInvalidDeviceFunction, on a GPU as on amdsim).
#
#   kernels/hip/build.sh           rebuild everything in place
#   kernels/hip/build.sh --check   rebuild into a temporary directory and fail
#                                  if any file differs from kernels/hip/bin
#                                  (changed, missing or extra files)
#
# The build is byte-reproducible: it runs in a scratch copy of src/ on
# relative paths, with a fixed CUID per program, no build id and a fixed
# locale and time zone. See kernels/hip/README.md.
set -euo pipefail

HDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TARGETS=(gfx900 gfx906 gfx908 gfx90a gfx1030)
DEVICE_LIBS=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode
INSTALL_HINT="apt-get install -y hipcc libamdhip64-dev librocsparse-dev clang-19 lld-19 llvm-19 rocm-device-libs binutils"
JOBS=2

usage() {
	echo "usage: $0 [--check]" >&2
	exit 2
}

mode=build
case "${1:-}" in
"") ;;
--check) mode=check ;;
-h | --help)
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*) usage ;;
esac
[ $# -le 1 ] || usage

missing=()
for tool in hipcc clang++-15 clang++-19 clang-offload-bundler-19 objcopy objdump \
	ld.lld-19 dpkg-query sha256sum xargs; do
	command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
for f in "$DEVICE_LIBS/ocml.bc" "$DEVICE_LIBS/ockl.bc" \
	/usr/include/hip/hip_runtime.h /usr/lib/x86_64-linux-gnu/libamdhip64.so; do
	[ -f "$f" ] || missing+=("$f")
done
if [ ${#missing[@]} -ne 0 ]; then
	echo "build.sh: missing: ${missing[*]}" >&2
	echo "build.sh: install the toolchain with:" >&2
	echo "    $INSTALL_HINT" >&2
	exit 2
fi

# Nothing from the caller's environment may steer hipcc or the compilers.
unset HIP_PATH ROCM_PATH HIP_PLATFORM HIP_COMPILER HIP_RUNTIME HIP_CLANG_PATH \
	HIP_DEVICE_LIB_PATH HIP_LIB_PATH HIP_INCLUDE_PATH HIP_ROCCLR_HOME \
	HIPCC_COMPILE_FLAGS_APPEND HIPCC_LINK_FLAGS_APPEND HIPCC_VERBOSE \
	HCC_AMDGPU_TARGET DEVICE_LIB_PATH CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH \
	LIBRARY_PATH CCC_OVERRIDE_OPTIONS CLANG_OFFLOAD_BUNDLER_OPTIONS 2>/dev/null || true
export LC_ALL=C TZ=UTC SOURCE_DATE_EPOCH=0

work="$(mktemp -d "${TMPDIR:-/tmp}/amdsim-hip.XXXXXX")"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# The compilers see only relative paths inside this scratch tree, so nothing
# in the outputs depends on where the checkout is.
mkdir -p "$work/tree/out/hipcc" "$work/tree/out/clang19" "$work/log"
cp -r "$HDIR/src" "$work/tree/src"
cd "$work/tree"

ARCH_FLAGS=""
for t in "${TARGETS[@]}"; do ARCH_FLAGS+=" --offload-arch=$t"; done
COMMON="-std=c++17 -O2 -Wall -Werror -ffile-prefix-map=$work/tree=."
HIPCC_FLAGS="$COMMON"
CLANG19_FLAGS="-x hip -mcode-object-version=4 --rocm-path=/usr --rocm-device-lib-path=$DEVICE_LIBS $COMMON"
LINK_FLAGS="-Wl,--build-id=none"
export ARCH_FLAGS HIPCC_FLAGS CLANG19_FLAGS LINK_FLAGS work

# One job: <compiler> <kind> <name> [<target>]
#   kind prog: src/<name>.hip -> out/<compiler>/<name>        (executable)
#   kind dev:  src/device/<name>.hip -> out/<compiler>/<name>.<target>.co
#              (device-only code object, no offload bundle)
build_one() {
	local comp=$1 kind=$2 name=$3 target=${4:-}
	local log="$work/log/$comp-$name${target:+.$target}.log"
	local cmd
	if [ "$kind" = prog ]; then
		# Libraries a program names on a line `// link: -lNAME ...`.
		local libs flags
		libs=$(sed -n 's|^// link: ||p' "src/$name.hip")
		# Compiler flags a program adds on a line `// flags: ...` (after the
		# common ones, so `-O0 -g` wins over -O2).
		flags=$(sed -n 's|^// flags: ||p' "src/$name.hip")
		# -cuid fixes the compilation unit id (by default a hash of the
		# command line, which contains the scratch path).
		if [ "$comp" = hipcc ]; then
			cmd="hipcc $HIPCC_FLAGS $flags -cuid=$name $ARCH_FLAGS src/$name.hip -o out/hipcc/$name $LINK_FLAGS $libs"
		else
			cmd="clang++-19 $CLANG19_FLAGS $flags -cuid=$name $ARCH_FLAGS src/$name.hip -o out/clang19/$name $LINK_FLAGS $libs -lamdhip64"
		fi
	else
		local flags
		flags=$(sed -n 's|^// flags: ||p' "src/device/$name.hip")
		if [ "$comp" = hipcc ]; then
			cmd="hipcc --genco --no-gpu-bundle-output $HIPCC_FLAGS $flags -cuid=$name --offload-arch=$target src/device/$name.hip -o out/hipcc/$name.$target.co"
		else
			cmd="clang++-19 --cuda-device-only --no-gpu-bundle-output $CLANG19_FLAGS $flags -cuid=$name --offload-arch=$target src/device/$name.hip -o out/clang19/$name.$target.co"
		fi
	fi
	echo "$cmd" >"$log"
	if ! $cmd >>"$log" 2>&1; then
		echo "build.sh: FAILED: $cmd" >&2
		sed 's/^/    /' "$log" >&2
		return 1
	fi
}
export -f build_one

jobs="$work/jobs"
: >"$jobs"
programs=()
for f in $(cd src && ls *.hip | sort); do programs+=("${f%.hip}"); done
devices=()
for f in $(cd src/device && ls *.hip | sort); do devices+=("${f%.hip}"); done
for comp in hipcc clang19; do
	for p in "${programs[@]}"; do echo "$comp prog $p" >>"$jobs"; done
	for d in "${devices[@]}"; do
		for t in "${TARGETS[@]}"; do echo "$comp dev $d $t" >>"$jobs"; done
	done
done

start=$SECONDS
if ! xargs -P "$JOBS" -L 1 bash -c 'build_one "$@"' _ <"$jobs"; then
	echo "build.sh: build failed" >&2
	exit 1
fi
elapsed=$((SECONDS - start))

# Every executable must carry device code for every target, except those
# that have no kernels of their own (they load code objects at run time, or
# call a library whose kernels are its own: rocsparse_ops).
NO_DEVICE_CODE=" hiprtc module_api rocsparse_ops "
status=0
for comp in hipcc clang19; do
	for p in "${programs[@]}"; do
		bin="out/$comp/$p"
		has_fatbin=0
		objdump -h "$bin" | grep -q ' \.hip_fatbin ' && has_fatbin=1
		if [[ "$NO_DEVICE_CODE" == *" $p "* ]]; then
			if [ $has_fatbin -eq 1 ]; then
				echo "build.sh: $comp/$p unexpectedly has a .hip_fatbin section" >&2
				status=1
			fi
			continue
		fi
		objcopy -O binary --only-section=.hip_fatbin "$bin" "$work/fatbin"
		entries=$(clang-offload-bundler-19 --list --type=o --input="$work/fatbin")
		for t in "${TARGETS[@]}"; do
			if ! grep -qx "hipv4-amdgcn-amd-amdhsa--$t" <<<"$entries"; then
				echo "build.sh: $comp/$p has no code for $t (bundle: $(echo $entries))" >&2
				status=1
			fi
		done
	done
done
[ $status -eq 0 ] || exit 1

# The toolchain, so that a --check failure can be explained.
{
	echo "# Toolchain used by kernels/hip/build.sh"
	dpkg-query -W -f '${Package} ${Version}\n' hipcc libamdhip64-dev clang-15 \
		clang-19 lld-19 rocm-device-libs binutils libstdc++-12-dev libc6-dev 2>/dev/null | sort
	echo "hip version $(sed -n 's/^HIP_VERSION_\(MAJOR\|MINOR\|PATCH\)=//p' /usr/share/hip/version | paste -sd.)"
	clang++-15 --version | head -n 1
	clang++-19 --version | head -n 1
	for lib in ocml.bc ockl.bc opencl.bc hip.bc; do
		[ -f "$DEVICE_LIBS/$lib" ] || continue
		echo "$(sha256sum <"$DEVICE_LIBS/$lib" | cut -d' ' -f1)  $lib"
	done
} >out/toolchain.txt

if [ "$mode" = build ]; then
	rm -rf "$HDIR/bin"
	mkdir -p "$HDIR/bin"
	mv out/hipcc out/clang19 out/toolchain.txt "$HDIR/bin/"
	total=$(du -cb "$HDIR"/bin/hipcc/* "$HDIR"/bin/clang19/* | tail -n 1 | cut -f1)
	echo "build.sh: wrote $HDIR/bin in ${elapsed}s" \
		"(${#programs[@]} programs x 2 compilers, $((total / 1024)) KiB)"
	exit 0
fi

# --check: compare the fresh build with the tree.
if [ ! -d "$HDIR/bin" ]; then
	echo "build.sh --check: kernels/hip/bin is missing" >&2
	exit 1
fi
if ! diff -rq "$HDIR/bin" "$work/tree/out" >"$work/summary.raw"; then
	sed -e "s|$work/tree/out|<fresh build>|g" -e "s|$HDIR/|kernels/hip/|g" \
		"$work/summary.raw" >"$work/summary"
	changed=$(grep -c '^Files .* differ$' "$work/summary" || true)
	only_tree=$(grep -c '^Only in kernels/' "$work/summary" || true)
	only_fresh=$(grep -c '^Only in <fresh build>' "$work/summary" || true)
	echo "build.sh --check: FAILED: $changed changed, $only_fresh missing" \
		"from the tree, $only_tree extra in the tree" >&2
	head -n 40 "$work/summary" >&2
	if grep -q 'toolchain.txt differ' "$work/summary"; then
		echo "--- the toolchain differs:" >&2
		diff -u "$HDIR/bin/toolchain.txt" out/toolchain.txt >&2 || true
	fi
	echo "build.sh --check: run kernels/hip/build.sh to regenerate" >&2
	exit 1
fi
echo "build.sh --check: OK, kernels/hip/bin matches a fresh build (${elapsed}s)"

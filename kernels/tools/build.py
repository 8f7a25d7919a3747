#!/usr/bin/env python3
"""Builds the kernel corpus and its reference outputs.

Usage: build.py OUT_DIR

Compiles every kernels/src/*.cl with clang-19 and assembles every
kernels/src/asm/*.gfx9.s / *.gfx10.s with llvm-mc-19 for each target, links
them with ld.lld-19, and writes

    OUT_DIR/bin/<target>/<object>.co
    OUT_DIR/ref/<target>/<object>.{objdump,notes,kd,dwarfdump,lines}.txt
    OUT_DIR/ref/toolchain.txt

OUT_DIR must not exist or be empty. kernels/build.sh is the entry point; it
checks the tools and either moves OUT_DIR into place or compares it with
the checked-in files. See kernels/README.md for the layout and the flags.

Everything written is a pure function of the sources and the toolchain: the
sources are compiled from the repository root with relative paths and the
root mapped to "." (-ffile-prefix-map / -fdebug-prefix-map), object names
inside tool output are removed, and nothing records time or host.
"""

import concurrent.futures
import hashlib
import os
import struct
import subprocess
import sys
import tempfile

KERNELS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(KERNELS_DIR)
KERNELS_REL = os.path.relpath(KERNELS_DIR, ROOT)
DEVICE_LIBS = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"

# (output directory, -mcpu, generation, wave64)
TARGETS = [
    ("gfx900", "gfx900", "gfx9", True),
    ("gfx906", "gfx906", "gfx9", True),
    ("gfx908", "gfx908", "gfx9", True),
    ("gfx90a", "gfx90a", "gfx9", True),
    ("gfx1010", "gfx1010", "gfx10", False),
    ("gfx1030", "gfx1030", "gfx10", False),
    ("gfx1010-w64", "gfx1010", "gfx10", True),
    ("gfx1030-w64", "gfx1030", "gfx10", True),
]

# OpenCL variants: (object suffix, flags, has debug info)
CL_VARIANTS = [
    ("", ["-O2"], False),
    (".O0g", ["-O0", "-g"], True),
    (".O2g", ["-O2", "-g"], True),
]

# One kernel per target is also built as code object v4.
COV4_KERNEL = "vector_add"

# At -O0 the OpenCL built-ins of the device library (get_global_id, barrier,
# atomics, vload_half, ...) are linked as separate unoptimised functions that
# are several times larger than the kernel and nearly the same in every
# object of a target. The objdump reference of a .O0g object therefore lists
# only the kernel function(s), except for these kernels, whose .O0g objdump
# reference is the whole .text (so that every target keeps one complete -O0
# disassembly, helpers included).
O0G_FULL_DISASSEMBLY = {"atomics"}

# Builds that are not made: (kernel, variant suffix) -> the generations
# without that build. ROCm 5.2's ockl (the sub-group and work-group
# collectives) chooses between GFX9 and GFX10 DPP code with tests of the
# constant __oclc_ISA_version that only optimisation folds away; at -O0 both
# arms reach the GFX10 back end, which rejects the GFX9-only DPP controls
# (wave shifts, row broadcasts: "Invalid dpp_ctrl value") and fails.
#
# printf_fmt has no .O0g build: clang-19 crashes (segmentation fault in
# "Function register usage analysis") generating -O0 code for it with the
# library linked in at code generation (see PRINTF_KERNELS).
SKIPPED_BUILDS = {
    ("subgroup_ops", ".O0g"): {"gfx10"},
    ("workgroup_ops", ".O0g"): {"gfx10"},
    ("subgroup_ext", ".O0g"): {"gfx10"},
    ("printf_fmt", ".O0g"): {"gfx9", "gfx10"},
}

# Kernels that call printf are built in two steps, as a runtime's compiler
# does for OpenCL printf: the source without the device library (-nogpulib
# -emit-llvm; clang lowers each printf into a record of the printf buffer
# and writes the amdhsa.printf metadata), then code generation with the
# library linked in (-mlink-builtin-bitcode, the oclc_* control libraries
# the driver would choose). Compiled with the library, the library's own
# printf (a stub) would replace the lowering.
PRINTF_KERNELS = {"printf_fmt"}
PRINTF_LIBS = ["opencl", "ocml", "ockl", "oclc_abi_version_500",
               "oclc_isa_version_%s", "oclc_wavefrontsize64_%s",
               "oclc_daz_opt_off", "oclc_unsafe_math_off",
               "oclc_finite_only_off", "oclc_correctly_rounded_sqrt_on"]

CL_FLAGS = [
    "-x", "cl", "-cl-std=CL2.0",
    "-target", "amdgcn-amd-amdhsa",
    "--rocm-device-lib-path=" + DEVICE_LIBS,
    "-Wall", "-Werror",
    "-ffile-prefix-map=" + ROOT + "=.",
    "-fdebug-prefix-map=" + ROOT + "=.",
]


class BuildError(Exception):
    """A tool failed or produced unexpected output."""


def run(cmd, cwd=ROOT):
    """Runs cmd, returns stdout as text; raises BuildError on failure."""
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL="C"))
    if proc.returncode != 0 or proc.stderr.strip():
        raise BuildError("command failed (exit %d): %s\n%s%s" % (
            proc.returncode, " ".join(cmd), proc.stdout, proc.stderr))
    return proc.stdout


def strip_file_header(text, path):
    """Removes the '<path>:\\tfile format elf64-amdgpu' line and the empty
    lines around it at the top of llvm-objdump/llvm-dwarfdump output."""
    lines = text.split("\n")
    while lines and lines[0] == "":
        lines.pop(0)
    expected = path + ":\tfile format elf64-amdgpu"
    if not lines or lines[0] != expected:
        raise BuildError("unexpected first line %r (wanted %r)" %
                         (lines[0] if lines else "", expected))
    lines.pop(0)
    while lines and lines[0] == "":
        lines.pop(0)
    return "\n".join(lines)


def kernel_descriptors(data):
    """Returns [(symbol, bytes)] for every *.kd symbol of an ELF64 LE file,
    read from .symtab (or .dynsym), sorted by symbol name."""
    def u16(o):
        return struct.unpack_from("<H", data, o)[0]

    def u32(o):
        return struct.unpack_from("<I", data, o)[0]

    def u64(o):
        return struct.unpack_from("<Q", data, o)[0]

    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise BuildError("not an ELF64 little-endian file")
    shoff, shentsize, shnum = u64(0x28), u16(0x3a), u16(0x3c)
    sections = []
    for i in range(shnum):
        o = shoff + i * shentsize
        sections.append({
            "type": u32(o + 4), "addr": u64(o + 16), "offset": u64(o + 24),
            "size": u64(o + 32), "link": u32(o + 40),
            "entsize": u64(o + 56),
        })
    symtabs = [s for s in sections if s["type"] == 2] or \
        [s for s in sections if s["type"] == 11]
    if not symtabs:
        raise BuildError("no symbol table")
    symtab = symtabs[0]
    strtab = sections[symtab["link"]]
    found = {}
    for i in range(symtab["size"] // symtab["entsize"]):
        o = symtab["offset"] + i * symtab["entsize"]
        name_off, shndx = u32(o), u16(o + 6)
        value, size = u64(o + 8), u64(o + 16)
        start = strtab["offset"] + name_off
        name = data[start:data.index(b"\0", start)].decode()
        if not name.endswith(".kd"):
            continue
        if size != 64 or shndx == 0 or shndx >= len(sections):
            raise BuildError("kernel descriptor %s: size %d, section %d" %
                             (name, size, shndx))
        sec = sections[shndx]
        file_off = sec["offset"] + value - sec["addr"]
        found[name] = data[file_off:file_off + size]
    if not found:
        raise BuildError("no *.kd symbol")
    return sorted(found.items())


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def make_refs(out, target_dir, stem, co_path, debug, kernel_only=False):
    """Writes the reference outputs of one code object. With kernel_only,
    the objdump reference disassembles only the kernel entry symbols (the
    *.kd symbols without their suffix)."""
    ref = os.path.join(out, "ref", target_dir)
    bin_dir = os.path.dirname(co_path)
    name = os.path.basename(co_path)

    def tool(args):
        # Run next to the object with its bare name, so that no directory
        # appears in the output; the name itself is stripped or absent.
        return run(args + [name], cwd=bin_dir)

    with open(co_path, "rb") as f:
        data = f.read()
    kds = kernel_descriptors(data)
    objdump = ["llvm-objdump-19", "-d"]
    if kernel_only:
        objdump.append("--disassemble-symbols=" +
                       ",".join(sym[:-3] for sym, _ in kds))
    outputs = {
        "objdump": strip_file_header(tool(objdump), name),
        "notes": tool(["llvm-readelf-19", "--notes"]),
        "kd": "".join("%s %s\n" % (sym, raw.hex()) for sym, raw in kds),
    }
    if debug:
        outputs["dwarfdump"] = strip_file_header(tool(
            ["llvm-dwarfdump-19", "--debug-info", "--debug-loclists"]), name)
        outputs["lines"] = strip_file_header(
            tool(["llvm-dwarfdump-19", "--debug-line"]), name)
    for kind, text in outputs.items():
        for leak in (ROOT, out, KERNELS_DIR):
            if leak in text:
                raise BuildError("%s/%s.%s mentions %s" %
                                 (target_dir, stem, kind, leak))
        write(os.path.join(ref, "%s.%s.txt" % (stem, kind)), text)


def build_cl(out, tmp, target, source, suffix, flags, debug, cov=5):
    target_dir, mcpu, _gen, wave64 = target
    kernel = os.path.basename(source)[:-3]
    stem = kernel + suffix
    obj = os.path.join(tmp, "%s.%s.o" % (target_dir, stem))
    cmd = ["clang-19"] + CL_FLAGS + ["-mcpu=" + mcpu,
                                     "-mcode-object-version=%d" % cov]
    if mcpu.startswith("gfx10"):
        cmd.append("-mwavefrontsize64" if wave64 else "-mno-wavefrontsize64")
    src = os.path.join(KERNELS_REL, "src", kernel + ".cl")
    if kernel in PRINTF_KERNELS:
        bc = obj[:-2] + ".bc"
        lib_flag = "--rocm-device-lib-path=" + DEVICE_LIBS
        run([c for c in cmd if c != lib_flag] + flags +
            ["-nogpulib", "-emit-llvm", "-c", src, "-o", bc])
        cmd = ["clang-19", "-target", "amdgcn-amd-amdhsa"] + cmd[len(CL_FLAGS) + 1:]
        cmd += flags + ["-nogpulib", "-c", bc]
        for lib in PRINTF_LIBS:
            if "%s" in lib:
                lib %= mcpu[3:] if "isa" in lib else ("on" if wave64 else "off")
            cmd += ["-Xclang", "-mlink-builtin-bitcode",
                    "-Xclang", os.path.join(DEVICE_LIBS, lib + ".bc")]
        run(cmd + ["-o", obj])
    else:
        run(cmd + flags + ["-c", src, "-o", obj])
    co = os.path.join(out, "bin", target_dir, stem + ".co")
    os.makedirs(os.path.dirname(co), exist_ok=True)
    run(["ld.lld-19", "-shared", obj, "-o", co])
    kernel_only = suffix == ".O0g" and kernel not in O0G_FULL_DISASSEMBLY
    make_refs(out, target_dir, stem, co, debug, kernel_only)
    return co


def build_asm(out, tmp, target, kernel):
    target_dir, mcpu, gen, wave64 = target
    source = os.path.join(KERNELS_REL, "src", "asm", "%s.%s.s" % (kernel, gen))
    obj = os.path.join(tmp, "%s.%s.o" % (target_dir, kernel))
    cmd = ["llvm-mc-19", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + mcpu,
           "-filetype=obj",
           "-I", os.path.join(KERNELS_REL, "src", "asm"),
           "--defsym", "GFX=0x" + mcpu[3:],
           "--defsym", "WAVE64=%d" % (1 if wave64 else 0)]
    if gen == "gfx10":
        cmd.append("-mattr=+wavefrontsize64" if wave64
                   else "-mattr=+wavefrontsize32")
    cmd += [source, "-o", obj]
    run(cmd)
    co = os.path.join(out, "bin", target_dir, kernel + ".co")
    os.makedirs(os.path.dirname(co), exist_ok=True)
    # --discard-all drops the local absolute GFX/WAVE64 symbols.
    run(["ld.lld-19", "-shared", "--discard-all", obj, "-o", co])
    make_refs(out, target_dir, kernel, co, False)
    return co


def toolchain_summary():
    lines = []
    for tool in ("clang-19", "llvm-mc-19", "ld.lld-19"):
        first = run([tool, "--version"]).strip().split("\n")
        lines.append("%s: %s" % (tool, first[0] if tool != "llvm-mc-19"
                                 else " ".join(l.strip() for l in first[:2])))
    for lib in ("opencl.bc", "ocml.bc", "ockl.bc"):
        with open(os.path.join(DEVICE_LIBS, lib), "rb") as f:
            lines.append("%s sha256 %s" % (lib,
                                           hashlib.sha256(f.read()).hexdigest()))
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    out = os.path.abspath(argv[1])
    os.makedirs(out, exist_ok=True)
    if os.listdir(out):
        print("build.py: %s is not empty" % out, file=sys.stderr)
        return 2
    src = os.path.join(KERNELS_DIR, "src")
    cl_sources = sorted(f for f in os.listdir(src) if f.endswith(".cl"))
    asm_dir = os.path.join(src, "asm")
    asm_kernels = sorted({f.split(".")[0] for f in os.listdir(asm_dir)
                          if f.endswith(".s")})
    for k in asm_kernels:
        for gen in ("gfx9", "gfx10"):
            if not os.path.exists(os.path.join(asm_dir, "%s.%s.s" % (k, gen))):
                print("build.py: missing src/asm/%s.%s.s" % (k, gen),
                      file=sys.stderr)
                return 2

    with tempfile.TemporaryDirectory(prefix="amdsim-kernels-") as tmp:
        jobs = []
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
            for target in TARGETS:
                for source in cl_sources:
                    for suffix, flags, debug in CL_VARIANTS:
                        if target[2] in SKIPPED_BUILDS.get(
                                (source[:-3], suffix), ()):
                            continue
                        jobs.append(ex.submit(build_cl, out, tmp, target,
                                              source, suffix, flags, debug))
                jobs.append(ex.submit(build_cl, out, tmp, target,
                                      COV4_KERNEL + ".cl", ".cov4", ["-O2"],
                                      False, 4))
                for kernel in asm_kernels:
                    jobs.append(ex.submit(build_asm, out, tmp, target, kernel))
            failed = 0
            for job in jobs:
                try:
                    job.result()
                except BuildError as e:
                    failed += 1
                    print("build.py: " + str(e), file=sys.stderr)
        if failed:
            print("build.py: %d of %d objects failed" % (failed, len(jobs)),
                  file=sys.stderr)
            return 1
    write(os.path.join(out, "ref", "toolchain.txt"), toolchain_summary())
    print("built %d code objects for %d targets" % (len(jobs), len(TARGETS)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

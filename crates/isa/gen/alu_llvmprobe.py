"""Run llvm-mc-19 over many instruction words at once.

Each probe is one bracketed line followed by a sentinel instruction
(`s_add_u32 s101, s101, 0x7ab5c3d1`), so the output splits cleanly per probe; a probe counts as
valid when llvm-mc printed exactly one instruction for it and no diagnostic.
"""
import os
import re
import subprocess

LLVM_MC = "llvm-mc-19"
SENTINEL_WORDS = [(2 << 30) | (101 << 16) | (255 << 8) | 101, 0x7AB5C3D1]
SENTINEL_TEXT = "s_add_u32 s101, s101, 0x7ab5c3d1"


def _bytes(ws):
    out = []
    for w in ws:
        for i in range(4):
            out.append("0x%02x" % ((w >> (8 * i)) & 0xFF))
    return "[" + " ".join(out) + "]"


def disasm(gpu, insts, wave64=False):
    """insts: list of lists of dwords. Returns a list of text, or None where
    llvm-mc rejects the words (or does not consume exactly all of them, or
    crashes on them: such probes are split off and count as rejected)."""
    if not insts:
        return []
    try:
        return _disasm(gpu, insts, wave64)
    except _Crash:
        if len(insts) == 1:
            return [None]
        h = len(insts) // 2
        return disasm(gpu, insts[:h], wave64) + disasm(gpu, insts[h:], wave64)


class _Crash(Exception):
    pass


def _disasm(gpu, insts, wave64):
    lines = []
    sent = _bytes(SENTINEL_WORDS)
    for ws in insts:
        lines.append(_bytes(ws))
        lines.append(sent)
    args = [LLVM_MC, "--disassemble", "-triple=amdgcn", "-mcpu=" + gpu]
    if wave64 and gpu.startswith("gfx10"):
        args.append("-mattr=+wavefrontsize64")
    env = dict(os.environ, LLVM_DISABLE_SYMBOLIZATION="1")
    p = subprocess.run(
        args, input="\n".join(lines) + "\n", capture_output=True, text=True, check=False, env=env
    )
    if p.returncode < 0 or "Stack dump" in p.stderr:
        raise _Crash()
    bad = set()
    for m in re.finditer(r"^<stdin>:(\d+):\d+: (?:warning|error): ", p.stderr, re.M):
        bad.add((int(m.group(1)) - 1) // 2)
    groups = [[]]
    for l in p.stdout.splitlines():
        l = l.strip()
        if not l or l == ".text":
            continue
        if l == SENTINEL_TEXT:
            groups.append([])
        else:
            groups[-1].append(l)
    if len(groups) != len(insts) + 1:
        raise RuntimeError("llvm-mc output misaligned for %s" % gpu)
    res = []
    for i in range(len(insts)):
        g = groups[i]
        res.append(g[0] if len(g) == 1 and i not in bad else None)
    return res


if __name__ == "__main__":
    # A helper module of alu_tables.py: nothing to generate or check here.
    import sys

    sys.exit(0)

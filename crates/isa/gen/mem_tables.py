#!/usr/bin/env python3
"""Generates crates/isa/src/mem/tables.rs: the opcode tables of the memory,
image and export encodings (SMEM, DS, FLAT/GLOBAL/SCRATCH, MUBUF, MTBUF, MIMG)
for every supported GPU, by asking llvm-mc-19 to disassemble probe words.

For every (GPU, encoding, opcode key) the script
  1. finds a base word that llvm-mc accepts (trying a few candidate field values),
  2. flips every non-key bit of the base one at a time: a bit whose flip makes the
     word invalid is a fixed bit (the row's `fixed_mask`/`fixed_val`),
  3. disassembles a shape probe (the base with distinct register numbers in every
     free register field) and reads the mnemonic and the width in dwords of each
     register operand from the text.
Image opcodes get two more tables: the data and address register counts LLVM
prints for every dmask/tfe/d16 and (GFX10) dim/a16/NSA combination, since LLVM
resizes those operands only when an instruction variant of the computed size
exists (`mimg_extra`). The MTBUF `format:` strings are probed the same way.
Also writes src/mem/ops.rs, a named `MemOp` constant per operation.

Usage: mem_tables.py            regenerate src/mem/tables.rs and src/mem/ops.rs
       mem_tables.py --check    regenerate into temporary files, fail on any difference
Needs only python3 and llvm-mc-19 (and rustfmt, to lay the output out the way
`cargo fmt` does). Deterministic: same llvm-mc, same output.
"""
import os
import re
import subprocess
import sys
import tempfile

GPUS = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1010", "gfx1030"]
# Padding after each probe, alternating per line so that each line's padding is a
# run of its own: `s_nop 5` / `s_nop 6` (no inline constant has these patterns).
NOPS = [0xBF800005, 0xBF800006]
NOP_TEXT = {"s_nop 5", "s_nop 6"}
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "mem", "tables.rs")
OPS_OUT = os.path.join(HERE, "..", "src", "mem", "ops.rs")


def disassemble(probes, cpu):
    """Disassembles each probe (a list of dwords) on its own; returns per probe
    (text, length in bytes) of the instruction starting at the probe, or None if
    llvm-mc rejects its first dword.

    All probes go to one llvm-mc run, one per line, each followed by five
    `s_nop 5` or `s_nop 6` (alternating by line; words no probe contains and no
    instruction takes as an inline constant). llvm-mc decodes the input as one
    byte stream, prints instructions on stdout and rejected words on stderr (with
    line and column), so the stdout is cut into one group per line at the padding
    runs: a probe's result is the first instruction of its group unless stderr
    rejected the word at its line's start. If the grouping does not come out one
    per line (a probe that swallowed all its padding), or llvm-mc crashes, the
    batch is split in halves."""
    lines = []
    for i, ws in enumerate(probes):
        full = list(ws) + [NOPS[i % 2]] * 5
        b = b"".join(w.to_bytes(4, "little") for w in full)
        lines.append(" ".join("0x%02x" % x for x in b))
    args = ["llvm-mc-19", "--disassemble", "-triple=amdgcn", "-mcpu=" + cpu, "-show-encoding"]
    p = subprocess.run(args, input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    groups = None
    if p.returncode == 0:
        rejected_first = set()
        for line in p.stderr.splitlines():
            m = re.match(r"<stdin>:(\d+):(\d+): warning: invalid", line)
            if m and int(m.group(2)) == 1:
                rejected_first.add(int(m.group(1)) - 1)
        groups, cur, nop = [], [], None
        for line in p.stdout.splitlines():
            if "encoding:" not in line:
                continue
            text, enc = line.split(";", 1)
            text = text.strip()
            if text in NOP_TEXT:
                if nop is not None and text != nop:
                    groups.append(cur)
                    cur = []
                nop = text
                continue
            if nop is not None:
                groups.append(cur)
                cur, nop = [], None
            cur.append((text, enc.count("0x")))
        if nop is not None:
            groups.append(cur)
        if len(groups) != len(probes):
            groups = None
    if groups is None:
        if len(probes) == 1:
            return [None]
        h = len(probes) // 2
        return disassemble(probes[:h], cpu) + disassemble(probes[h:], cpu)
    return [None if i in rejected_first or not g else g[0] for i, g in enumerate(groups)]


def is_gfx10(cpu):
    return cpu.startswith("gfx10")


# Register roles per encoding: (name, word, shift, bits, probe value, expected start index, kind).
# `start` is the register index printed for the probe value (SGPR tuples are aligned).
def encodings(cpu):
    g10 = is_gfx10(cpu)
    encs = []
    # SMEM (GFX9: [31:26]=0x30, GFX10: 0x3d); op [25:18].
    if g10:
        smem_bases = [[0xF4000000, 0xFA000000]]
        smem_shape_extra = [0, 0x10]
    else:
        smem_bases = [[0xC0020000, 0], [0xC0000000, 0]]
        smem_shape_extra = [0, 0x10]
    encs.append(dict(
        name="SMEM", keys=256, key=lambda k: [((0x3D if g10 else 0x30) << 26) | (k << 18), 0],
        keymask=[0xFFFC0000, 0], bases=smem_bases, extra=smem_shape_extra,
        roles=[("sdata", 0, 6, 7, 8, 8, "s"), ("sbase", 0, 0, 6, 2, 4, "s")]))
    # DS: [31:26]=0x36; op [24:17] (GFX9) or [25:18] (GFX10).
    encs.append(dict(
        name="DS", keys=256,
        key=(lambda k: [(0x36 << 26) | (k << 18), 0]) if g10 else (lambda k: [(0x36 << 26) | (k << 17), 0]),
        keymask=[0xFFFC0000 if g10 else 0xFDFE0000, 0],
        bases=[[0, 0], [1 << (17 if g10 else 16), 0]], extra=[0, 0],
        roles=[("addr", 1, 0, 8, 10, 10, "v"), ("data0", 1, 8, 8, 20, 20, "v"),
               ("data1", 1, 16, 8, 30, 30, "v"), ("vdst", 1, 24, 8, 40, 40, "v")]))
    # FLAT/GLOBAL/SCRATCH: [31:26]=0x37; op [24:18], seg [15:14]; key = seg << 7 | op.
    encs.append(dict(
        name="FLAT", keys=512,
        key=lambda k: [(0x37 << 26) | ((k & 0x7F) << 18) | ((k >> 7) << 14), 0],
        keymask=[0xFDFCC000, 0],
        bases=[[0, 0], [0, 0x007F0000], [0, 0x007D0000]], extra=[0, 0],
        roles=[("addr", 1, 0, 8, 10, 10, "v"), ("data", 1, 8, 8, 20, 20, "v"),
               ("saddr", 1, 16, 7, 4, 4, "s"), ("vdst", 1, 24, 8, 40, 40, "v")]))
    # MUBUF: [31:26]=0x38; op [24:18] (+ op[7] at [25] on GFX10). Shape probe with offen.
    encs.append(dict(
        name="MUBUF", keys=256 if g10 else 128,
        key=lambda k: [(0x38 << 26) | ((k & 0x7F) << 18) | ((k >> 7) << 25), 0],
        keymask=[0xFFFC0000 if g10 else 0xFDFC0000, 0], bases=[[0, 0], [1 << 16, 0]], extra=[1 << 12, 0],
        roles=[("vaddr", 1, 0, 8, 10, 10, "v"), ("vdata", 1, 8, 8, 20, 20, "v"),
               ("srsrc", 1, 16, 5, 2, 8, "s"), ("soffset", 1, 24, 8, 4, 4, "s")]))
    # MTBUF: [31:26]=0x3a; op [18:15] (GFX9) or [18:16] + w1[21] (GFX10).
    if g10:
        mtkey = lambda k: [(0x3A << 26) | ((k & 7) << 16) | (1 << 19), ((k >> 3) & 1) << 21]
        mtmask = [0xFC070000, 1 << 21]
    else:
        mtkey = lambda k: [(0x3A << 26) | (k << 15) | (1 << 19), 0]
        mtmask = [0xFC078000, 0]
    encs.append(dict(
        name="MTBUF", keys=16, key=mtkey, keymask=mtmask, bases=[[0, 0]], extra=[1 << 12, 0],
        roles=[("vaddr", 1, 0, 8, 10, 10, "v"), ("vdata", 1, 8, 8, 20, 20, "v"),
               ("srsrc", 1, 16, 5, 2, 8, "s"), ("soffset", 1, 24, 8, 4, 4, "s")]))
    # MIMG: [31:26]=0x3c; op [24:18] (+ op[7] at [0] on GFX10). Base dmask = 1.
    if g10:
        mikey = lambda k: [(0x3C << 26) | ((k & 0x7F) << 18) | (k >> 7), 0]
        mimask = [0xFDFC0001, 0]
    else:
        mikey = lambda k: [(0x3C << 26) | (k << 18), 0]
        mimask = [0xFDFC0000, 0]
    encs.append(dict(
        name="MIMG", keys=256 if g10 else 128, key=mikey, keymask=mimask,
        bases=[[0x100, 0], [0x100, 0]], extra=[0, 0],
        roles=[("vaddr", 1, 0, 8, 10, 10, "v"), ("vdata", 1, 8, 8, 20, 20, "v"),
               ("srsrc", 1, 16, 5, 2, 8, "s"), ("ssamp", 1, 21, 5, 5, 20, "s")]))
    return encs


REG = re.compile(r"^([sva])(?:(\d+)|\[(\d+):(\d+)\])$")


def parse_widths(text, roles):
    """Maps each register token of `text` to its role by its first index; returns
    {role: width}. A bare number equal to a scalar role's probe (s_atc_probe's
    sdata) is recorded as width 0x80 (printed as an immediate)."""
    mnem, _, rest = text.partition(" ")
    widths = {}
    for tok in [t.strip() for t in rest.split(",")]:
        tok = tok.split(" ")[0]
        m = REG.match(tok)
        if m:
            kind = m.group(1)
            if m.group(2) is not None:
                lo, hi = int(m.group(2)), int(m.group(2))
            else:
                lo, hi = int(m.group(3)), int(m.group(4))
            for (name, _w, _s, _b, _p, start, rkind) in roles:
                if start == lo and (rkind == kind or (rkind == "v" and kind == "a")) and name not in widths:
                    widths[name] = hi - lo + 1
                    break
        elif tok.isdigit():
            for (name, _w, _s, _b, probe, _start, rkind) in roles:
                if rkind == "s" and int(tok) == probe and name not in widths:
                    widths[name] = 0x80
    return mnem, widths


def probe_encoding(cpu, enc):
    keys = list(range(enc["keys"]))
    nb = 2
    # 1. base per key
    cand = []
    for k in keys:
        kw = enc["key"](k)
        for b in enc["bases"]:
            cand.append([kw[0] | b[0], kw[1] | b[1]])
    res = disassemble(cand, cpu)
    base = {}
    i = 0
    for k in keys:
        for _b in enc["bases"]:
            r = res[i]
            i += 1
            if k not in base and r is not None and r[1] == 8:
                base[k] = cand[i - 1]
    # 2. fixed bits
    probes, meta = [], []
    for k, bw in sorted(base.items()):
        for bit in range(32 * nb):
            wi, bi = bit // 32, bit % 32
            if (enc["keymask"][wi] >> bi) & 1:
                continue
            w = list(bw)
            w[wi] ^= 1 << bi
            probes.append(w)
            meta.append((k, wi, bi))
    res = disassemble(probes, cpu)
    fixed = {k: [0, 0] for k in base}
    for (k, wi, bi), r in zip(meta, res):
        if r is None or r[1] != 8:
            fixed[k][wi] |= 1 << bi
    # 3. shape probe
    shapes, order = [], []
    for k, bw in sorted(base.items()):
        w = list(bw)
        for (name, wi, sh, bits, probe, _start, _kind) in enc["roles"]:
            m = ((1 << bits) - 1) << sh
            if not fixed[k][wi] & m:
                w[wi] = (w[wi] & ~m) | (probe << sh)
        for wi in range(2):
            if not fixed[k][wi] & enc["extra"][wi]:
                w[wi] |= enc["extra"][wi]
        shapes.append(w)
        order.append(k)
    res = disassemble(shapes + [base[k] for k in order], cpu)
    rows = {}
    n = len(order)
    for idx, k in enumerate(order):
        r = res[idx] if res[idx] is not None else res[n + idx]
        if r is None:
            continue
        mnem, widths = parse_widths(r[0], enc["roles"])
        fm = fixed[k]
        fv = [base[k][0] & fm[0], base[k][1] & fm[1]]
        rows[k] = (mnem, [widths.get(role[0], 0) for role in enc["roles"]], fm, fv)
    return rows


def reg_count(tok):
    """Number of registers of a printed operand: `v5` 1, `v[4:7]` 4, `[v1, v2]` 2."""
    tok = tok.strip()
    if tok.startswith("["):
        return len(tok.strip("[]").split(","))
    m = re.match(r"^[va]\[(\d+):(\d+)\]$", tok)
    if m:
        return int(m.group(2)) - int(m.group(1)) + 1
    return 1 if re.match(r"^[va]\d+$", tok) else 0


def split_operands(text):
    """Splits `mnemonic ops...` into its operand tokens, keeping `[...]` lists whole."""
    rest = text.split(" ", 1)[1].strip() if " " in text else ""
    toks, depth, cur = [], 0, ""
    for ch in rest:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            toks.append(cur.strip())
            cur = ""
        elif ch == " " and depth == 0 and cur.strip():
            toks.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        toks.append(cur.strip())
    return [t for t in toks if t]


def mimg_extra(cpu, enc, rows):
    """Image data and address widths LLVM prints, per opcode:
    data[k] for k = (dmask components - 1) | tfe << 2 | d16 << 3 (dim 1D, no NSA), and
    on GFX10 addr[k] for k = dim | a16 << 3 | nsa << 4: the address count, plus 0x80
    when the data width then stays the opcode's default (LLVM keeps the decoded form)
    and 0x40 when the mnemonic is followed by two spaces (NSA forms of some opcodes);
    addr[64 + nsa] is the address count printed when the data registers run past
    v255, addr[68 + nsa] the one printed when no variant has the data width."""
    g10 = is_gfx10(cpu)
    keys = sorted(rows)
    probes, meta = [], []
    for k in keys:
        kw = enc["key"](k)
        samp = (5 << 21) if rows[k][1][3] else 0
        for c in range(16):
            pop, tfe, d16 = (c & 3) + 1, (c >> 2) & 1, c >> 3
            w0 = kw[0] | (((1 << pop) - 1) << 8) | (tfe << 16)
            w1 = 10 | (20 << 8) | (2 << 16) | samp | (d16 << 31)
            probes.append([w0, w1])
            meta.append((k, "d", c))
        if g10:
            dflt = rows[k][1][1]
            dmask = (1 << min(max(dflt, 1), 4)) - 1
            for c in range(64):
                dim, a16, nsa = c & 7, (c >> 3) & 1, c >> 4
                for tfe in (0, 1):
                    w0 = kw[0] | (dmask << 8) | (dim << 3) | (nsa << 1) | (tfe << 16)
                    w1 = 10 | (20 << 8) | (2 << 16) | samp | (a16 << 30)
                    extra = [0x0E0D0C0B + 0x04040404 * i for i in range(nsa)]
                    probes.append([w0, w1] + extra)
                    meta.append((k, "a%d" % tfe, c))
        if g10:
            # Address count when LLVM keeps the decoded form because the data
            # register range runs past v255 (64 + nsa) ...
            for nsa in range(4):
                w0 = kw[0] | (0xF << 8) | (nsa << 1)
                w1 = 10 | (255 << 8) | (2 << 16) | samp
                extra = [0x0E0D0C0B + 0x04040404 * i for i in range(nsa)]
                probes.append([w0, w1] + extra)
                meta.append((k, "n", 64 + nsa))
    res = disassemble(probes, cpu)
    data = {k: [0] * 16 for k in keys}
    for (k, kind, c), r in zip(meta, res):
        if kind == "d" and r is not None:
            toks = split_operands(r[0])
            data[k][c] = reg_count(toks[0]) if toks else 0
    if g10:
        # ... and because no variant has the data width (68 + nsa), probed with the
        # first dmask/tfe/d16 combination whose width LLVM does not change to.
        for k in keys:
            kw = enc["key"](k)
            samp = (5 << 21) if rows[k][1][3] else 0
            name = rows[k][0]
            for c in range(16):
                pop, tfe, d16 = (c & 3) + 1, (c >> 2) & 1, c >> 3
                want = 4 if "gather4" in name else pop
                if d16 and "_atomic_" not in name:
                    want = (want + 1) // 2
                want += tfe
                if data[k][c] and data[k][c] != want:
                    for nsa in range(4):
                        w0 = kw[0] | (((1 << pop) - 1) << 8) | (tfe << 16) | (nsa << 1)
                        w1 = 10 | (20 << 8) | (2 << 16) | samp | (d16 << 31)
                        extra = [0x0E0D0C0B + 0x04040404 * i for i in range(nsa)]
                        probes.append([w0, w1] + extra)
                        meta.append((k, "n", 68 + nsa))
                    break
        res = disassemble(probes, cpu)
    data = {k: [0] * 16 for k in keys}
    addr = {k: [0] * 72 for k in keys}
    tfe_w = {}
    for (k, kind, c), r in zip(meta, res):
        if r is None:
            continue
        toks = split_operands(r[0])
        if kind == "d":
            data[k][c] = reg_count(toks[0]) if toks else 0
        elif kind == "n":
            if len(toks) >= 2:
                addr[k][c] = reg_count(toks[1])
        elif len(toks) >= 2:
            if kind == "a0":
                addr[k][c] = reg_count(toks[1])
                if "  " in r[0]:
                    addr[k][c] |= 0x40
            else:
                tfe_w[(k, c)] = reg_count(toks[0])
    for k in keys:
        dflt = rows[k][1][1]
        # The width the tfe probe gets when LLVM resizes the data (as at dim 1D).
        pop = min(max(dflt, 1), 4)
        expect = data[k][(pop - 1) | 4] or dflt + 1
        for c in range(64):
            if addr[k][c] and tfe_w.get((k, c), 0) != expect:
                addr[k][c] |= 0x80
    return data, addr


def format_names(cpu):
    """The text llvm-mc prints after `format:` for every value of the MTBUF format
    field (GFX9: dfmt | nfmt << 4; GFX10: the 7-bit unified format), '' when it
    prints none."""
    probes = []
    for f in range(128):
        if is_gfx10(cpu):
            probes.append([(0x3A << 26) | (f << 19), 0])
        else:
            probes.append([(0x3A << 26) | ((f & 15) << 19) | ((f >> 4) << 23), 0])
    out = []
    for r in disassemble(probes, cpu):
        if r is None:
            out.append(None)
            continue
        m = re.search(r"format:(\S+)", r[0])
        out.append(m.group(1) if m else "")
    return out


# Operation classes derived from the mnemonic, so that decoding never looks at
# strings (bit values match `mem::kind` in the crate).
KIND_BITS = [
    (1 << 0, lambda n: "_atomic_" in n),
    (1 << 1, lambda n: "cmpswap" in n),
    (1 << 2, lambda n: "gather4" in n),
    (1 << 3, lambda n: n.endswith("_addtid")),
    (1 << 4, lambda n: n.startswith("ds_gws") or n.startswith("ds_ordered")),
    (1 << 5, lambda n: "_atomic_" in n and any(t in n for t in ("f16", "f32", "f64"))),
    (1 << 6, lambda n: any(n.startswith(p) for p in ("ds_read2", "ds_write2", "ds_wrxchg2"))),
    (1 << 7, lambda n: any(n.startswith(p) for p in ("s_load", "s_buffer_load", "s_store", "s_buffer_store",
                                                      "s_scratch", "s_atomic", "s_buffer_atomic"))),
]


def kind_bits(name):
    return sum(bit for bit, test in KIND_BITS if test(name))


def rust_str_list(items):
    return ", ".join('"%s"' % s for s in items)


def generate():
    tables = {}  # (gpu, enc) -> rows
    for cpu in GPUS:
        for enc in encodings(cpu):
            tables[(cpu, enc["name"])] = (enc, probe_encoding(cpu, enc))
    names = sorted({row[0] for (_e, rows) in tables.values() for row in rows.values()})
    name_id = {n: i + 1 for i, n in enumerate(names)}
    out = []
    out.append("// generated by crates/isa/gen/mem_tables.py; do not edit")
    out.append("//! Opcode tables of the memory encodings, probed from llvm-mc-19 per GPU.")
    out.append("#![allow(clippy::unreadable_literal)]")
    out.append("")
    out.append("use super::Row;")
    out.append("")
    out.append("/// Mnemonic of every memory operation; index 0 is unused (invalid).")
    out.append("pub(crate) static NAMES: [&str; %d] = [\"\", %s];" % (len(names) + 1, rust_str_list(names)))
    out.append("")
    emitted = {}
    for cpu in GPUS:
        for enc in encodings(cpu):
            _e, rows = tables[(cpu, enc["name"])]
            body = []
            for k in range(enc["keys"]):
                if k in rows:
                    mnem, w, fm, fv = rows[k]
                    body.append("    Row { name: %d, kind: %d, w: [%s], fixed_mask: [0x%08x, 0x%08x], fixed_val: [0x%08x, 0x%08x] },"
                                % (name_id[mnem], kind_bits(mnem), ", ".join(str(x) for x in (w + [0, 0, 0, 0])[:4]),
                                   fm[0], fm[1], fv[0], fv[1]))
                else:
                    body.append("    Row::INVALID,")
            text = "\n".join(body)
            ident = "%s_%s" % (enc["name"], cpu.upper())
            if text in emitted:
                out.append("pub(crate) static %s: &[Row; %d] = %s;" % (ident, enc["keys"], emitted[text]))
            else:
                out.append("pub(crate) static %s: &[Row; %d] = &[" % (ident, enc["keys"]))
                out.append(text)
                out.append("];")
                emitted[text] = ident
            out.append("")
    for cpu in GPUS:
        enc = [e for e in encodings(cpu) if e["name"] == "MIMG"][0]
        _e, rows = tables[(cpu, "MIMG")]
        data, addr = mimg_extra(cpu, enc, rows)
        for kind, tab, n in (("DATA", data, 16), ("ADDR", addr, 72)):
            if kind == "ADDR" and not is_gfx10(cpu):
                continue
            body = []
            for k in range(enc["keys"]):
                vals = tab.get(k, [0] * n)
                body.append("    [%s]," % ", ".join(str(v) for v in vals))
            text = "\n".join(body)
            ident = "MIMG_%s_%s" % (kind, cpu.upper())
            ty = "&[[u8; %d]; %d]" % (n, enc["keys"])
            if text in emitted:
                out.append("pub(crate) static %s: %s = %s;" % (ident, ty, emitted[text]))
            else:
                out.append("/// Printed image %s widths per opcode (see `mimg_extra` in the generator)." % kind.lower())
                out.append("pub(crate) static %s: %s = &[" % (ident, ty))
                out.append(text)
                out.append("];")
                emitted[text] = ident
            out.append("")
    for gen, cpu in (("GFX9", "gfx900"), ("GFX10", "gfx1030")):
        fm = format_names(cpu)
        out.append("/// `format:` text per MTBUF format value (%s); empty when none is printed." % gen)
        out.append("pub(crate) static FORMATS_%s: [&str; 128] = [%s];" % (gen, rust_str_list([x or "" for x in fm])))
        out.append("")
    ops = []
    ops.append("// generated by crates/isa/gen/mem_tables.py; do not edit")
    ops.append("//! Named [`MemOp`] constants, one per memory mnemonic of any supported GPU.")
    ops.append("//!")
    ops.append("//! Whether a GPU has an operation is decided by its opcode tables; these")
    ops.append("//! constants only name the shared identities (`ops::GLOBAL_LOAD_DWORD` is")
    ops.append("//! `global_load_dword` on every GPU that has it).")
    ops.append("")
    ops.append("use super::MemOp;")
    ops.append("")
    for n in names:
        ops.append("/// `%s`" % n)
        ops.append("pub const %s: MemOp = MemOp(%d);" % (n.upper(), name_id[n]))
    return "\n".join(out), "\n".join(ops) + "\n"


def main():
    text, ops = generate()
    if "--check" in sys.argv:
        stale = []
        for path, new_text in ((OUT, text), (OPS_OUT, ops)):
            with tempfile.NamedTemporaryFile("w", suffix=".rs", delete=False) as t:
                t.write(new_text)
            subprocess.run(["rustfmt", "--edition", "2024", t.name], check=False)
            with open(t.name) as f:
                new = f.read()
            os.unlink(t.name)
            try:
                with open(path) as f:
                    old = f.read()
            except OSError:
                old = None
            if old != new:
                stale.append(os.path.relpath(path, os.path.join(HERE, "..")))
        if stale:
            print("%s out of date; run crates/isa/gen/mem_tables.py" % ", ".join(stale), file=sys.stderr)
            sys.exit(1)
        print("src/mem/tables.rs and src/mem/ops.rs are up to date")
    else:
        for path, new_text in ((OUT, text), (OPS_OUT, ops)):
            with open(path, "w") as f:
                f.write(new_text)
            subprocess.run(["rustfmt", "--edition", "2024", path], check=False)


if __name__ == "__main__":
    main()

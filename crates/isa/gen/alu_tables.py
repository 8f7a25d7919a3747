#!/usr/bin/env python3
"""Generate crates/isa/src/alu/tables.rs from llvm-mc-19.

For every GPU, ALU encoding and opcode number this asks llvm-mc-19 to
disassemble a probe word whose register fields hold distinctive values
(src0 = 10, src1 = 20, src2 = 30, vdst = 40, sdst = 50), and records:

* the printed mnemonic and the canonical operation name (the mnemonic without
  its `_e32`/`_e64`/`_sdwa`/`_dpp` encoding suffix);
* the operand shape: which field each printed operand comes from, its register
  file and width in dwords, and (for sources) the constant type that decides
  how inline constants and literals print;
* which instruction bits must keep their probe value for LLVM to accept the
  word (every other bit is flipped once and the word re-probed), and which
  bits show in the text (the modifiers the operation has);
* for each source, the annotations LLVM prints when a scalar, vector,
  constant or `src_lds_direct` operand does not fit the operand's class;
* on GFX10, which operands are wave masks (probed again in wave64);
* per operand, the extractor and the `Inst` slot the decoder fills.

Fields an opcode does not use must be zero for LLVM, so the probe clears
subsets of the register fields until llvm-mc accepts the word; opcodes that
always carry a literal are probed with one.

Also writes src/alu/ops.rs, a named `AluOp` constant per operation.

Usage: alu_tables.py [--check] [--out PATH]. With --check the tables are
regenerated in memory and compared with the checked-in file.
Needs only python3 and llvm-mc-19; the output is deterministic.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from alu_llvmprobe import disasm  # noqa: E402

GPUS = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1010", "gfx1030"]

# Field ids (must match `field` in src/alu/shape.rs).
F_DST, F_SDST, F_SRC0, F_SRC1, F_SRC2, F_VCC, F_LIT, F_SIMM, F_TEXT, F_EXEC, F_ATTR, F_PARAM = range(1, 13)
FIELD_BY_INDEX = {10: F_SRC0, 20: F_SRC1, 30: F_SRC2, 40: F_DST, 50: F_SDST}
# Register files (must match `file` in src/alu/shape.rs).
R_NONE, R_S, R_V, R_A = range(4)
# Width marker of wave-mask operands (1 dword in wave32, 2 in wave64).
WAVE_WIDTH = 0
# Constant types (must match `ty` in src/alu/shape.rs).
T_B32, T_F16, T_I16, T_B64, T_F64, T_P16 = range(6)


def gen_of(gpu):
    return 10 if gpu.startswith("gfx10") else 9


class Enc:
    def __init__(self, name, nops, build, fixed, srcs, gpus=GPUS, lit_src=None, words=1):
        self.name = name
        self.nops = nops
        self.build = build  # (gpu, op) -> list of dwords (base probe)
        self.fixed = fixed  # (gpu) -> list of (word, bit) that are prefix/opcode (not flipped)
        self.srcs = srcs  # {field: (word, lo, nbits)} source fields to type-probe
        self.gpus = gpus
        self.lit_src = lit_src
        self.words = words


def bits(word, lo, n):
    return [(word, b) for b in range(lo, lo + n)]


# --- encodings -------------------------------------------------------------

def sop2(g, op):
    return [(2 << 30) | (op << 23) | (40 << 16) | (20 << 8) | 10]


def sop1(g, op):
    return [(0x17D << 23) | (40 << 16) | (op << 8) | 10]


def sopk(g, op):
    return [(0xB << 28) | (op << 23) | (40 << 16)]


def sopc(g, op):
    return [(0x17E << 23) | (op << 16) | (20 << 8) | 10]


def sopp(g, op):
    return [(0x17F << 23) | (op << 16)]


def vop1(g, op):
    return [(0x3F << 25) | (40 << 17) | (op << 9) | 266]


def vop2(g, op):
    return [(op << 25) | (40 << 17) | (20 << 9) | 266]


def vopc(g, op):
    return [(0x3E << 25) | (op << 17) | (20 << 9) | 266]


def vop3(g, op):
    pre = 0x34 if gen_of(g) == 9 else 0x35
    return [(pre << 26) | (op << 16) | 40, (286 << 18) | (276 << 9) | 266]


def vop3p(g, op):
    # op_sel_hi set for all sources (the default that prints nothing).
    w0 = (0x1A7 << 23) if gen_of(g) == 9 else (0x33 << 26)
    return [w0 | (op << 16) | (1 << 14) | 40, (3 << 27) | (286 << 18) | (276 << 9) | 266]


def vintrp(g, op):
    pre = 0x35 if gen_of(g) == 9 else 0x32
    return [(pre << 26) | (40 << 18) | (op << 16) | (5 << 10) | (1 << 8) | 10]


def sdwa_word1(g, kind):
    # src0 = v10, all selects BYTE_0 (0), dst_unused PAD. (Select value 7 makes
    # llvm-mc-19 crash, so the probes stay away from the value 6 next to it.)
    return 10


def sdwa(kind):
    def build(g, op):
        if kind == "vop1":
            w0 = vop1(g, op)[0] & ~0x1FF
        elif kind == "vop2":
            w0 = vop2(g, op)[0] & ~0x1FF
        else:
            w0 = vopc(g, op)[0] & ~0x1FF
        return [w0 | 0xF9, sdwa_word1(g, kind)]
    return build


def dpp(kind):
    def build(g, op):
        if kind == "vop1":
            w0 = vop1(g, op)[0] & ~0x1FF
        else:
            w0 = vop2(g, op)[0] & ~0x1FF
        # quad_perm:[0,1,2,3] (0xe4), row_mask/bank_mask 0xf.
        return [w0 | 0xFA, 10 | (0xE4 << 8) | (0xF << 24) | (0xF << 28)]
    return build


def dpp8(kind):
    def build(g, op):
        if kind == "vop1":
            w0 = vop1(g, op)[0] & ~0x1FF
        else:
            w0 = vop2(g, op)[0] & ~0x1FF
        sel = 0
        for i in range(8):
            sel |= i << (3 * i)
        return [w0 | 0xE9, 10 | (sel << 8)]
    return build


def fx_pre(lo_op, n_op, pre_lo, extra=()):
    def f(g):
        out = bits(0, pre_lo, 32 - pre_lo) + bits(0, lo_op, n_op)
        for e in extra:
            out += e
        return out
    return f


def fx_vop3p(g):
    if gen_of(g) == 9:
        return bits(0, 23, 9) + bits(0, 16, 7)
    return bits(0, 26, 6) + bits(0, 16, 7)


GFX10 = ["gfx1010", "gfx1030"]
# SDWA sources: 8-bit register fields with a "scalar" flag bit.
SDWA_SRC0 = (1, 0, 8, (1, 23))
SDWA_SRC1 = (0, 9, 8, (1, 31))

ENCODINGS = [
    Enc("sop2", 96, sop2, fx_pre(23, 7, 30), {F_SRC0: (0, 0, 8), F_SRC1: (0, 8, 8)}, lit_src=True),
    Enc("sop1", 256, sop1, fx_pre(8, 8, 23), {F_SRC0: (0, 0, 8)}, lit_src=True),
    Enc("sopk", 29, sopk, fx_pre(23, 5, 28), {}),
    Enc("sopc", 128, sopc, fx_pre(16, 7, 23), {F_SRC0: (0, 0, 8), F_SRC1: (0, 8, 8)}, lit_src=True),
    Enc("sopp", 128, sopp, fx_pre(16, 7, 23), {}),
    Enc("vop1", 256, vop1, fx_pre(9, 8, 25), {F_SRC0: (0, 0, 9)}, lit_src=True),
    Enc("vop2", 62, vop2, fx_pre(25, 6, 31), {F_SRC0: (0, 0, 9), F_SRC1: (0, 9, 8)}, lit_src=True),
    Enc("vopc", 256, vopc, fx_pre(17, 8, 25), {F_SRC0: (0, 0, 9), F_SRC1: (0, 9, 8)}, lit_src=True),
    Enc("vop3", 1024, vop3, fx_pre(16, 10, 26),
        {F_SRC0: (1, 0, 9), F_SRC1: (1, 9, 9), F_SRC2: (1, 18, 9)}, lit_src=True),
    Enc("vop3p", 128, vop3p, fx_vop3p,
        {F_SRC0: (1, 0, 9), F_SRC1: (1, 9, 9), F_SRC2: (1, 18, 9)}, lit_src=True),
    Enc("vintrp", 4, vintrp, fx_pre(16, 2, 26), {}),
    Enc("sdwa_vop1", 256, sdwa("vop1"), fx_pre(9, 8, 25, [bits(0, 0, 9)]), {F_SRC0: SDWA_SRC0}),
    Enc("sdwa_vop2", 62, sdwa("vop2"), fx_pre(25, 6, 31, [bits(0, 0, 9)]),
        {F_SRC0: SDWA_SRC0, F_SRC1: SDWA_SRC1}),
    Enc("sdwa_vopc", 256, sdwa("vopc"), fx_pre(17, 8, 25, [bits(0, 0, 9)]),
        {F_SRC0: SDWA_SRC0, F_SRC1: SDWA_SRC1}),
    Enc("dpp_vop1", 256, dpp("vop1"), fx_pre(9, 8, 25, [bits(0, 0, 9)]), {F_SRC0: (1, 0, 8)}),
    Enc("dpp_vop2", 62, dpp("vop2"), fx_pre(25, 6, 31, [bits(0, 0, 9)]),
        {F_SRC0: (1, 0, 8), F_SRC1: (0, 9, 8)}),
    Enc("dpp8_vop1", 256, dpp8("vop1"), fx_pre(9, 8, 25, [bits(0, 0, 9)]), {}, gpus=GFX10),
    Enc("dpp8_vop2", 62, dpp8("vop2"), fx_pre(25, 6, 31, [bits(0, 0, 9)]), {}, gpus=GFX10),
]

LITERAL = 0x12345678
REG_RE = re.compile(r"^(v|s|a|ttmp)(?:\[(\d+):(\d+)\]|(\d+))$")


def strip_suffix(m):
    for suf in ("_e32", "_e64", "_sdwa", "_dpp"):
        if m.endswith(suf):
            return m[: -len(suf)]
    return m


def split_operands(enc, text):
    """Mnemonic and operand tokens (modifiers after the last operand dropped)."""
    parts = text.split(" ", 1)
    mnem = parts[0]
    if enc == "sopp":
        return mnem, None
    if len(parts) == 1:
        return mnem, []
    rest = parts[1]
    rest = re.sub(r"hwreg\([^)]*\)", "hwreg", rest)
    toks = rest.split(", ")
    last = toks[-1].split(" ")
    toks[-1] = last[0]
    return mnem, toks




def parse_shape(enc, text):
    text = annotate(text)
    mnem, toks = split_operands(enc, text)
    if toks is None:
        return mnem, None
    slots = []
    for t in toks:
        t = t.split("!")[0]
        m = REG_RE.match(t)
        if m:
            rf, a, b, single = m.groups()
            if single is not None:
                idx, width = int(single), 1
            else:
                idx, width = int(a), int(b) - int(a) + 1
            fld = FIELD_BY_INDEX.get(idx)
            if fld is None or rf == "ttmp":
                slots.append((F_TEXT, t))
                continue
            rfile = {"s": R_S, "v": R_V, "a": R_A}[rf]
            slots.append((fld, rfile, width))
        elif enc == "sopc" and re.match(r"^(0x[0-9a-f]+|gpr_idx\(.*\))$", t):
            slots.append((F_SIMM,))
        elif enc == "sopk" and t.lower() != "0x%x" % LITERAL:
            slots.append((F_SIMM,))
        elif re.match(r"^attr\d+\.[xyzw]$", t):
            slots.append((F_ATTR,))
        elif re.match(r"^(p10|p20|p0|invalid_param_\d+)$", t):
            slots.append((F_PARAM,))
        elif ":" in t and enc.startswith(("sdwa", "dpp")):
            continue
        elif t in ("vcc", "vcc_lo"):
            slots.append((F_VCC,))
        elif t in ("exec", "exec_lo"):
            slots.append((F_EXEC,))
        elif t.lower() == "0x%x" % LITERAL:
            slots.append((F_LIT,))
        else:
            slots.append((F_TEXT, t))
    return mnem, slots


def classify_type(texts):
    """texts: printed source for inline 242, inline 248, literal 0x3f800000, literal 0x3ff00000."""
    i242, i248, l1, l2 = texts
    if i242 == "0x3c00":
        return T_I16
    if i248 == "0.15915494309189532":
        return T_F64 if l2 == "1.0" else T_B64
    if l1 == "0":
        return T_F16
    if l1 == "0x3f800000":
        return T_P16
    return T_B32


# The bit that carries neg (or sext, for integer sources) per source slot.
NEG_BITS = {
    "vop3": {F_SRC0: 61, F_SRC1: 62, F_SRC2: 63},
    "dpp_vop1": {F_SRC0: 52},
    "dpp_vop2": {F_SRC0: 52, F_SRC1: 54},
}

# Source probes: (kind, field value, literal).
SRC_PROBES = [
    ("i", 242, None),
    ("i", 248, None),
    ("l", 255, 0x3F800000),
    ("l", 255, 0x3FF00000),
    ("s", 10, None),
    ("v", 266, None),
    ("d", 254, None),
]
ANN_REG_RE = re.compile(r"/\*Invalid register, operand has '(\w+)' register class\*/")


def annotate(text):
    """Operand text with LLVM's annotations folded into `!class` / `!imm`."""
    text = ANN_REG_RE.sub(lambda m: "!" + m.group(1), text)
    return text.replace("/*Invalid immediate*/", "!imm")


def source_info(toks):
    """(type, scalar annotation, vector annotation, lds_direct annotation,
    flags) of a source slot from its probe tokens. Annotation names are kept
    as strings here and become text indices on output; flags: 1 = immediates
    carry "Invalid immediate", 2 = lds_direct is rejected."""
    i242, i248, l1, l2, sreg, vreg, lds = toks

    def strip(t):
        return None if t is None else t.split("!")[0]

    def ann(t):
        if t is None or "!" not in t:
            return ""
        a = t.split("!", 1)[1]
        return "" if a == "imm" else a

    ty = classify_type([strip(i242), strip(i248), strip(l1), strip(l2)])
    flags = 0
    if i242 is not None and i242.endswith("!imm"):
        flags |= 1
    if lds is None:
        flags |= 2
    return (ty, ann(sreg), ann(vreg), ann(lds), flags)


def set_field(ws, loc, val):
    w, lo, n = loc
    ws = list(ws)
    ws[w] = (ws[w] & ~(((1 << n) - 1) << lo)) | (val << lo)
    return ws


ZERO_FIELDS = {
    "sop2": [(0, 16, 7), (0, 0, 8), (0, 8, 8)],
    "sop1": [(0, 16, 7), (0, 0, 8)],
    "sopk": [(0, 16, 7)],
    "sopc": [(0, 0, 8), (0, 8, 8)],
    "vop1": [(0, 17, 8), (0, 0, 9)],
    "vop2": [(0, 17, 8), (0, 9, 8), (0, 0, 9)],
    "vopc": [(0, 9, 8)],
    "vop3": [(0, 0, 8), (1, 18, 9), (1, 9, 9), (1, 0, 9)],
    "vop3p": [(0, 0, 8), (1, 18, 9), (1, 9, 9), (1, 0, 9)],
    "vintrp": [(0, 0, 8)],
    "sdwa_vop1": [(0, 17, 8), (1, 0, 8)],
    "sdwa_vop2": [(0, 17, 8), (0, 9, 8)],
    "sdwa_vopc": [(0, 9, 8)],
    "dpp_vop1": [(0, 17, 8), (1, 0, 8)],
    "dpp_vop2": [(0, 17, 8), (0, 9, 8)],
    "dpp8_vop1": [(0, 17, 8), (1, 0, 8)],
    "dpp8_vop2": [(0, 17, 8), (0, 9, 8)],
}


def variants(enc, ws):
    """Probe words for one opcode, most fields set first: fields an opcode
    does not use must be zero, so subsets of them are cleared in turn."""
    fields = ZERO_FIELDS.get(enc.name, [])
    out = []
    n = len(fields)
    order = sorted(range(1 << n), key=lambda m: (bin(m).count("1"), m))
    for m in order:
        v = list(ws)
        for i in range(n):
            if m & (1 << i):
                v = set_field(v, fields[i], 0)
        out.append(v)
    if enc.name == "vop3":
        # VOP3b: a scalar carry destination in [14:8].
        out = [set_field(v, (0, 8, 7), 50) for v in out] + out
    return out


def accept(enc, k, text):
    if enc.name == "vop3" and k < (1 << len(ZERO_FIELDS["vop3"])):
        return "|" not in text and re.search(r"s(\[50:|50\b)", text) is not None
    return True


def probe(gpu, enc):
    """Returns {op: entry dict} for one GPU and encoding."""
    ops = list(range(enc.nops))
    cands = [variants(enc, enc.build(gpu, op)) for op in ops]
    nv = len(cands[0])
    flat = [c for cs in cands for c in cs]
    res0 = disasm(gpu, flat)
    base = []
    texts = []
    for op in ops:
        pick = None
        for k in range(nv):
            t = res0[op * nv + k]
            if t is not None and accept(enc, k, t):
                pick = (cands[op][k], t)
                break
        base.append(pick[0] if pick else cands[op][0])
        texts.append(pick[1] if pick else None)
    # Encodings with a mandatory literal (v_madmk_f32, s_setreg_imm32_b32).
    retry = [i for i, t in enumerate(texts) if t is None]
    lit_texts = disasm(gpu, [base[i] + [LITERAL] for i in retry]) if retry else []
    needs_lit = {}
    for i, t in zip(retry, lit_texts):
        if t is not None:
            texts[i] = t
            needs_lit[i] = True
    entries = {}
    fixed_pos = set(enc.fixed(gpu))
    flips = []
    for op in ops:
        if texts[op] is None:
            continue
        ws = base[op]
        for w in range(len(ws)):
            for b in range(32):
                if (w, b) in fixed_pos:
                    continue
                nw = list(ws)
                nw[w] ^= 1 << b
                if op in needs_lit:
                    nw = nw + [LITERAL]
                flips.append((op, w, b, nw))
    res = disasm(gpu, [f[3] for f in flips]) if flips else []
    mask = {}
    shown = {}
    fliptext = {}
    for (op, w, b, _), t in zip(flips, res):
        if t is None:
            mask[op] = mask.get(op, 0) | (1 << (32 * w + b))
        elif t != texts[op]:
            shown[op] = shown.get(op, 0) | (1 << (32 * w + b))
            fliptext[(op, 32 * w + b)] = t
    # Wave-mask operands: on GFX10 compare the base probes in wave64.
    w64 = {}
    if gen_of(gpu) == 10:
        idxs = [op for op in ops if texts[op] is not None]
        words = [base[op] + ([LITERAL] if op in needs_lit else []) for op in idxs]
        for op, t in zip(idxs, disasm(gpu, words, wave64=True)):
            if t is not None:
                w64[op] = t
    # Source probes: constants (for the type), a scalar, a vector register and
    # lds_direct (for LLVM's "Invalid register/immediate" annotations).
    tprobes = []
    for op in ops:
        if texts[op] is None:
            continue
        for fld, loc in enc.srcs.items():
            for kind, v, lit in SRC_PROBES:
                if kind == "v" and loc[2] < 9 and len(loc) < 4:
                    v = None
                if v is None:
                    tprobes.append((op, fld, None))
                    continue
                nw = set_field(base[op], loc[:3], v & ((1 << loc[2]) - 1))
                if len(loc) > 3:
                    w, b = loc[3]
                    if kind == "v":
                        nw[w] &= ~(1 << b)
                    else:
                        nw[w] |= 1 << b
                if lit is not None:
                    nw = nw + [lit]
                elif op in needs_lit:
                    nw = nw + [LITERAL]
                tprobes.append((op, fld, nw))
    real = [p[2] for p in tprobes if p[2] is not None]
    rres = iter(disasm(gpu, real) if real else [])
    tres = [next(rres) if p[2] is not None else None for p in tprobes]
    tys = {}
    n = len(SRC_PROBES)
    for k in range(0, len(tprobes), n):
        op, fld = tprobes[k][0], tprobes[k][1]
        tys[(op, fld)] = [None if t is None else annotate(t) for t in tres[k:k + n]]
    for op in ops:
        t = texts[op]
        if t is None:
            continue
        mnem, slots = parse_shape(enc.name, t)
        ws = base[op]
        val = 0
        for w, x in enumerate(ws):
            val |= x << (32 * w)
        m = mask.get(op, 0)
        if slots is not None:
            typed = []
            for pos, s in enumerate(slots):
                if s[0] in (F_SRC0, F_SRC1, F_SRC2) and s[0] in enc.srcs:
                    outs = tys.get((op, s[0]), [None] * n)
                    toks = []
                    for o in outs:
                        if o is None:
                            toks.append(None)
                            continue
                        _, parts = split_operands(enc.name, o)
                        toks.append(parts[pos] if parts is not None and pos < len(parts) else None)
                    info = list(source_info(toks))
                    nb = NEG_BITS.get(enc.name, {}).get(s[0])
                    if nb is not None and "sext(" in fliptext.get((op, nb), ""):
                        info[4] |= 4
                    typed.append(s + tuple(info))
                elif s[0] == F_LIT:
                    typed.append(s)
                else:
                    typed.append(s)
            slots = typed
        eflags = 1 if op in needs_lit else 0
        if enc.name == "vop3p" and "op_sel_hi:[1,1,1]" in t:
            eflags |= 2
        opsel_n = 0
        ft = fliptext.get((op, 11), "")
        mo = re.search(r" op_sel:\[([01,]*)\]", ft)
        if enc.name in ("vop3", "vop3p") and mo:
            opsel_n = len(mo.group(1).split(","))
        if enc.name == "vop3" and t.endswith(" high"):
            # VOP3 interpolation: bit 8 of the attribute operand is `high`.
            eflags |= 4
        if slots is not None and op in w64:
            _, slots64 = parse_shape(enc.name, w64[op])
            if slots64 is not None and len(slots64) == len(slots):
                marked = []
                for a, b in zip(slots, slots64):
                    if len(a) >= 3 and len(b) >= 3 and a[0] == b[0] and a[0] != F_TEXT \
                            and a[2] == 1 and b[2] == 2:
                        a = (a[0], a[1], WAVE_WIDTH) + tuple(a[3:])
                    marked.append(a)
                slots = marked
        if slots is not None:
            if any(sl[0] == F_SDST for sl in slots):
                eflags |= 8
            if any(sl[0] == F_DST for sl in slots):
                eflags |= 16
            if any(sl[0] == F_ATTR for sl in slots):
                eflags |= 32
        entries[op] = {
            "mnem": mnem,
            "op": strip_suffix(mnem),
            "slots": slots,
            "mask": m,
            "val": val & m,
            "shown": shown.get(op, 0),
            "lit": eflags,
            "opsel": opsel_n,
            "text": t,
        }
    return entries


# --- output ----------------------------------------------------------------

# Operand extractors (must match `kind` in src/alu/shape.rs).
(K_SKIP, K_SDST16, K_VDST17, K_SDST17, K_VDST0, K_SDST0, K_VDST18, K_SDST8, K_SRC0, K_SRC1,
 K_SRC2, K_LIT, K_VCC, K_VCC_SDWA, K_EXEC, K_SIMM_SOPC) = range(16)
# Operand targets: dst[0], dst[1], src[0..4]; 7 = not stored.
T_NONE = 7


def slot_plan(enc, slots):
    """(extractor, target) per slot: where its bits are and where it goes."""
    has_dst = any(sl[0] == F_DST for sl in slots)
    src_seen = False
    out = []
    for sl in slots:
        f = sl[0]
        kind, target = K_SKIP, T_NONE
        if f == F_DST:
            target = 0
            rf = sl[1]
            if enc in ("sop1", "sop2", "sopk"):
                kind = K_SDST16
            elif enc in ("vop3", "vop3p"):
                kind = K_SDST0 if rf == R_S else K_VDST0
            elif enc == "vintrp":
                kind = K_VDST18
            else:
                kind = K_SDST17 if rf == R_S else K_VDST17
        elif f == F_SDST:
            kind, target = K_SDST8, 1
        elif f in (F_SRC0, F_SRC1, F_SRC2):
            i = f - F_SRC0
            kind, target = K_SRC0 + i, 2 + i
            src_seen = True
        elif f == F_LIT:
            kind, target = K_LIT, 5
        elif f in (F_VCC, F_EXEC):
            if f == F_EXEC:
                kind = K_EXEC
            else:
                kind = K_VCC_SDWA if enc == "sdwa_vopc" else K_VCC
            target = 4 if src_seen else (1 if has_dst else 0)
        elif f == F_SIMM and enc == "sopc":
            kind, target = K_SIMM_SOPC, 3
        out.append((kind, target))
    return out


def rust_slot(s, plan, tx_ix):
    kind, target = plan
    if s[0] == F_TEXT:
        v = [F_TEXT, s[1], 0, 0, 0, 0, 0, 0]
    elif s[0] in (F_DST, F_SDST, F_SRC0, F_SRC1, F_SRC2):
        if len(s) > 3:
            ty, a_s, a_v, a_d, flags = s[3:]
        else:
            ty, a_s, a_v, a_d, flags = T_B32, "", "", "", 0
        v = [s[0], s[1], s[2], ty, tx_ix.get(a_s, 0), tx_ix.get(a_v, 0), tx_ix.get(a_d, 0), flags]
    else:
        v = [s[0], 0, 1, 0, 0, 0, 0, 0]
    return "Slot::new([%s])" % ", ".join(str(x) for x in v + [kind, target])


def generate():
    op_names = set()
    mnems = set()
    texts = set()
    all_tables = {}
    for enc in ENCODINGS:
        for gpu in enc.gpus:
            ents = probe(gpu, enc)
            all_tables[(gpu, enc.name)] = ents
            for e in ents.values():
                op_names.add(e["op"])
                mnems.add(e["mnem"])
                if e["slots"]:
                    for s in e["slots"]:
                        if s[0] == F_TEXT:
                            texts.add(s[1])
                        elif len(s) > 4:
                            texts.update(a for a in s[4:7] if a)
    op_names = sorted(op_names)
    mnems = sorted(mnems)
    # Accumulation-register classes for MFMA src2 annotations with acc_cd.
    texts |= {"AReg_" + t[5:] for t in texts if t.startswith("VReg_")}
    texts = [""] + sorted(texts)
    op_ix = {n: i + 1 for i, n in enumerate(op_names)}
    mn_ix = {n: i for i, n in enumerate(mnems)}
    tx_ix = {n: i for i, n in enumerate(texts)}
    shapes = {(): 0}
    shape_list = [()]
    entries = {None: 0}
    entry_list = [None]
    index_tables = {}
    for enc in ENCODINGS:
        for gpu in enc.gpus:
            ents = all_tables[(gpu, enc.name)]
            idx = []
            for op in range(enc.nops):
                e = ents.get(op)
                if e is None:
                    idx.append(0)
                    continue
                if e["slots"] is None:
                    shape = (("raw",),)
                else:
                    plan = slot_plan(enc.name, e["slots"])
                    shape = tuple(
                        ((s[0], tx_ix[s[1]]) if s[0] == F_TEXT else s, p)
                        for s, p in zip(e["slots"], plan)
                    )
                if shape not in shapes:
                    shapes[shape] = len(shape_list)
                    shape_list.append(shape)
                key = (
                    op_ix[e["op"]],
                    mn_ix[e["mnem"]],
                    shapes[shape],
                    e["mask"],
                    e["val"],
                    e["shown"],
                    e["lit"],
                    e["opsel"],
                )
                if key not in entries:
                    entries[key] = len(entry_list)
                    entry_list.append(key)
                idx.append(entries[key])
            index_tables[(gpu, enc.name)] = idx
    out = []
    out.append("// generated by crates/isa/gen/alu_tables.py; do not edit.")
    out.append("// Regenerate with `python3 crates/isa/gen/alu_tables.py`; CI runs it with --check.")
    out.append("#![allow(clippy::unreadable_literal)]")
    out.append("")
    out.append("use super::shape::{Entry, Slot};")
    out.append("")
    out.append("/// Canonical operation names, indexed by `AluOp` (0 is the invalid operation).")
    out.append("pub(crate) static OP_NAMES: [&str; %d] = [" % (len(op_names) + 1))
    out.append('    "<invalid>",')
    for n in op_names:
        out.append('    "%s",' % n)
    out.append("];")
    out.append("")
    mfma = [op_ix[n] for n in op_names if n.startswith("v_mfma_")]
    out.append("/// The range of `AluOp`s that are MFMA operations (names sort together).")
    out.append("pub(crate) const MFMA_OPS: (u16, u16) = (%d, %d);" % (min(mfma), max(mfma)))
    out.append("")
    out.append("/// Printed mnemonics (with their encoding suffix).")
    out.append("pub(crate) static MNEMONICS: [&str; %d] = [" % len(mnems))
    for n in mnems:
        out.append('    "%s",' % n)
    out.append("];")
    out.append("")
    out.append("/// Fixed operand texts that appear in operand lists.")
    out.append("pub(crate) static TEXTS: [&str; %d] = [" % len(texts))
    for n in texts:
        out.append('    "%s",' % n)
    out.append("];")
    out.append("")
    out.append("/// Operand shapes: the printed operands in order.")
    out.append("pub(crate) static SHAPES: [&[Slot]; %d] = [" % len(shape_list))
    for sh in shape_list:
        if sh == (("raw",),):
            out.append("    &[Slot::RAW],")
        else:
            out.append("    &[%s]," % ", ".join(rust_slot(s, p, tx_ix) for s, p in sh))
    out.append("];")
    out.append("")
    out.append("/// Opcode entries; index 0 is the invalid entry.")
    out.append("pub(crate) static ENTRIES: [Entry; %d] = [" % len(entry_list))
    out.append("    Entry::INVALID,")
    for key in entry_list[1:]:
        op, mn, sh, m, v, shown, eflags, opsel = key
        out.append(
            "    Entry::new(%d, %d, %d, 0x%x, 0x%x, 0x%x, %d, %d),"
            % (op, mn, sh, m, v, shown, eflags, opsel)
        )
    out.append("];")
    out.append("")
    for enc in ENCODINGS:
        for gpu in enc.gpus:
            idx = index_tables[(gpu, enc.name)]
            name = "%s_%s" % (enc.name.upper(), gpu.upper())
            out.append("/// Entry index by opcode number: %s on %s." % (enc.name, gpu))
            out.append("pub(crate) static %s: [u16; %d] = [" % (name, len(idx)))
            for k in range(0, len(idx), 16):
                out.append("    " + ", ".join(str(x) for x in idx[k:k + 16]) + ",")
            out.append("];")
            out.append("")
    out.append("/// Index tables by encoding kind (see `Kind`) and GPU (`Gpu::ALL` order).")
    out.append("pub(crate) static TABLES: [[&[u16]; %d]; %d] = [" % (len(GPUS), len(ENCODINGS)))
    for enc in ENCODINGS:
        row = []
        for gpu in GPUS:
            if gpu in enc.gpus:
                row.append("&%s_%s" % (enc.name.upper(), gpu.upper()))
            else:
                row.append("&[]")
        out.append("    [" + ", ".join(row) + "],")
    out.append("];")
    out.append("")
    ops = []
    ops.append("// generated by crates/isa/gen/alu_tables.py; do not edit.")
    ops.append("//! Named [`AluOp`] constants, one per canonical mnemonic of any supported GPU.")
    ops.append("//!")
    ops.append("//! Whether a GPU has an operation is decided by its opcode tables; these")
    ops.append("//! constants only name the shared identities (`ops::V_ADD_F32` is")
    ops.append("//! `v_add_f32` in VOP2, VOP3, SDWA and DPP alike).")
    ops.append("")
    ops.append("use super::AluOp;")
    ops.append("")
    for n in op_names:
        ops.append("/// `%s`" % n)
        ops.append("pub const %s: AluOp = AluOp(%d);" % (n.upper(), op_ix[n]))
    return "\n".join(out), "\n".join(ops) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.path.join(here, "..", "src", "alu", "tables.rs")
    args = sys.argv[1:]
    if "--out" in args:
        target = args[args.index("--out") + 1]
    ops_target = os.path.join(os.path.dirname(target), "ops.rs")
    text, ops = generate()
    if "--check" in args:
        stale = []
        for path, new in ((target, text), (ops_target, ops)):
            try:
                with open(path) as f:
                    if f.read() != new:
                        stale.append(path)
            except OSError:
                stale.append(path)
        if stale:
            print("out of date: %s; rerun crates/isa/gen/alu_tables.py" % ", ".join(stale), file=sys.stderr)
            sys.exit(1)
        print("alu tables are up to date")
        return
    with open(target, "w") as f:
        f.write(text)
    with open(ops_target, "w") as f:
        f.write(ops)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Regenerate the decoder differential test vectors from llvm-mc-19.

For every target (gfx900, gfx906, gfx908, gfx90a, gfx1010, gfx1030, and the
wave64 variants gfx1010-w64, gfx1030-w64) this script builds candidate
instruction words -- every opcode value of every encoding of the generation,
each with several variations of the other fields, plus a large set of random
words biased towards the encodings' prefixes -- and asks
`llvm-mc-19 --disassemble` what they are.  The answers are written to
`isa/<target>.txt`, one line per distinct candidate:

    <enc>\t<dwords>\t<text>

`<enc>` is the encoding family the candidate was built for, `<dwords>` the
little-endian 32-bit words LLVM consumed (8 lowercase hex digits each,
space separated) and `<text>` llvm-mc's text, or `<invalid>` when LLVM
rejected the first word (then `<dwords>` holds every word of the candidate).

How candidates are mapped back to llvm-mc's output
--------------------------------------------------
llvm-mc reads its input as one byte stream, except that a `[ ... ]` group is
decoded on its own (an "atomic block": decoding starts afresh at its first
byte and stops at the first invalid instruction of the block).  Each candidate
is written as one block on its own line, followed by a sentinel block
(`s_nop 0`).  Everything printed between two sentinels belongs to one
candidate; an `invalid instruction encoding` warning carries line:column,
which names the candidate and the byte at which decoding failed.  A batch
whose sentinel count does not come out right (a candidate that itself decodes
to the sentinel, or an llvm-mc crash) is split in halves and re-run, down to
single candidates run without sentinels.

When a block decodes to one instruction its size is the block's size (or the
offset of a failure that follows it).  When it decodes to several, the size of
the first is found by decoding prefixes of the block alone.  Finally every
accepted vector is decoded again from exactly its recorded words, in a block
of its own: it must give one instruction with the same text and no warning.

Usage:
    gen_isa_vectors.py            regenerate isa/*.txt in place
    gen_isa_vectors.py --check    regenerate into a temporary directory and
                                  fail on any difference with isa/
    gen_isa_vectors.py --out DIR  write into DIR instead of isa/
    gen_isa_vectors.py --seed S --out DIR
                                  a held-out set: other variations and random
                                  words (run the test on it with
                                  AMDSIM_ISA_VECTORS=DIR)

Deterministic: every random choice comes from a generator seeded with a fixed
string, so two runs give byte-identical files (for the same llvm-mc build).
Standard library only.
"""

import argparse
import filecmp
import os
import random
import re
import shutil
import subprocess
import concurrent.futures
import sys
import tempfile

LLVM_MC = "llvm-mc-19"
TRIPLE = "amdgcn-amd-amdhsa"

# name -> (mcpu, extra options, generation)
TARGETS = [
    ("gfx900", "gfx900", [], 9),
    ("gfx906", "gfx906", [], 9),
    ("gfx908", "gfx908", [], 9),
    ("gfx90a", "gfx90a", [], 9),
    ("gfx1010", "gfx1010", ["-mattr=+wavefrontsize32"], 10),
    ("gfx1030", "gfx1030", ["-mattr=+wavefrontsize32"], 10),
    ("gfx1010-w64", "gfx1010", ["-mattr=+wavefrontsize64"], 10),
    ("gfx1030-w64", "gfx1030", ["-mattr=+wavefrontsize64"], 10),
]

RANDOM_PER_TARGET = 10000
# Prefix of every seed string. Empty for the committed vectors; `--seed` sets it
# to draw a different (held-out) set of variations and random words.
SEED_SALT = ""
BATCH = 4000
SENTINEL = [0x00, 0x00, 0x80, 0xBF]  # s_nop 0
SENTINEL_TEXT = "s_nop 0"
LITERALS = [0x3F800000, 0x12345678, 0xFFFFFFFF, 0x00000040, 0xC0490FDB, 0x00001234]

# ---------------------------------------------------------------------------
# Field kinds and the values each variation takes.
# ---------------------------------------------------------------------------

SSRC_SPECIAL = [106, 107, 124, 126, 127, 108, 110, 123, 125, 235, 236, 237, 238,
                239, 251, 252, 253, 254]
SSRC_INLINE = [128, 129, 130, 136, 192, 193, 194, 208, 240, 241, 242, 243, 244,
               245, 246, 247, 248, 209, 230, 231]
SDST_SPECIAL = [106, 107, 124, 125, 126, 127, 108, 122]
DPP_CTRL_COMMON = [0x000, 0x0E4, 0x01B, 0x0FF, 0x101, 0x10F, 0x111, 0x118, 0x121,
                   0x12F, 0x130, 0x134, 0x138, 0x13C, 0x140, 0x141, 0x142, 0x143,
                   0x150, 0x15F, 0x160, 0x16F, 0x144, 0x100, 0x1FF]


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def field_value(kind, width, variant, rng, idx):
    """Value of one field of `kind` for the named variation."""
    mask = (1 << width) - 1
    if kind in ("ssrc", "src9"):
        vg = kind == "src9"
        if variant == "a":
            return (256 + idx + 1) if vg and idx % 2 == 0 else idx + 1
        if variant == "b":
            return 511 if vg and idx % 2 == 0 else (101 - idx)
        if variant == "c":
            return pick(rng, SSRC_SPECIAL) if idx % 2 == 0 else pick(rng, SSRC_INLINE)
        if variant == "d":
            return 255 if idx == 0 else ((256 + 7) if vg else 7)
        choice = rng.randrange(5)
        if choice == 0:
            return pick(rng, SSRC_SPECIAL)
        if choice == 1:
            return pick(rng, SSRC_INLINE)
        if vg and choice >= 3:
            return 256 + rng.randrange(256)
        return rng.randrange(106)
    if kind == "sdst":
        if variant == "a":
            return (idx + 2) & mask
        if variant == "b":
            return 100 & mask
        if variant == "c":
            return pick(rng, SDST_SPECIAL) & mask
        if variant == "d":
            return 4 & mask
        return (pick(rng, SDST_SPECIAL) if rng.randrange(3) == 0 else rng.randrange(106)) & mask
    if kind == "vgpr":
        if variant == "a":
            return idx + 1
        if variant == "b":
            return 255 - idx
        if variant in ("c", "d"):
            return (idx * 37 + 16) & 0xFF
        return rng.randrange(256)
    if kind == "sreg":  # small scalar register-tuple index (sbase, srsrc, ssamp)
        if variant == "a":
            return 1 & mask
        if variant == "b":
            return mask
        if variant in ("c", "d"):
            return 2 & mask
        return rng.randrange(mask + 1)
    if kind == "mod":  # modifier bits: none in the low variation
        if variant in ("a", "d"):
            return 0
        if variant == "b":
            return mask
        return rng.randrange(mask + 1)
    if kind in ("saddr", "saddr10", "sdst10"):
        off = 0x7D if kind.endswith("10") else 0x7F
        if variant == "a":
            return 2
        if variant == "b":
            return 100
        if variant == "c":
            return pick(rng, [off, 106, 124, 126, 108])
        if variant == "d":
            return off
        return off if rng.randrange(2) else rng.randrange(106)
    if kind == "flag":
        if variant == "a":
            return 0
        if variant == "b":
            return 1
        if variant == "d":
            return 0
        return rng.randrange(2)
    if kind == "sel":  # SDWA select: 0..6 are defined
        if variant == "a":
            return 6
        if variant == "b":
            return 5
        if variant == "d":
            return 6
        return rng.randrange(7)
    if kind == "dppctrl":
        if variant == "a":
            return 0x0E4
        if variant == "b":
            return 0x143
        if variant == "d":
            return 0x111
        return pick(rng, DPP_CTRL_COMMON) if rng.randrange(4) else rng.randrange(0x200)
    if kind == "imm":
        if variant == "a":
            return min(4, mask)
        if variant == "b":
            return mask
        if variant == "d":
            return min(1, mask)
        r = rng.randrange(4)
        if r == 0:
            return mask
        if r == 1:
            return rng.randrange(min(mask, 16) + 1)
        return rng.randrange(mask + 1)
    raise ValueError(kind)


class Enc:
    """One encoding family of one generation.

    base: (dw0, dw1, ...) with the fixed prefix bits set; op field position;
    fields: (name, dword, lo, width, kind).  `fixed` lists (dword, mask) of
    bits that random variations must not touch (prefix, opcode, markers).
    """

    def __init__(self, name, base, op, ops, fields, fixed, extra=0, label=None):
        self.name = name
        self.base = list(base)
        self.op = op  # list of (dword, lo, width) pieces, low bits first
        self.ops = list(ops)
        self.fields = fields
        self.fixed = fixed
        self.extra = extra  # dwords appended after the encoding (NSA, ...)
        self.label = label or name

    def with_op(self, op):
        w = list(self.base)
        shift = 0
        for (dw, lo, width) in self.op:
            w[dw] |= ((op >> shift) & ((1 << width) - 1)) << lo
            shift += width
        return w

    def candidate(self, op, variant, rng, literal_ix, allowed=None):
        """Words of one candidate.

        Variations: "z" every field at its neutral value; "a" low registers,
        no modifiers; "b" high registers, every flag and modifier set; "c"
        special registers and inline constants; "d" a literal constant
        (first source 0xff plus a literal dword); "r" raw random bits outside
        the prefix/opcode; "s" every field random within its kind.  With
        `allowed`, only the named fields move away from their neutral value
        (LLVM rejects words whose unused fields are not zero).
        """
        w = self.with_op(op)
        self._apply_fields(w, "z", rng)
        if variant == "r":
            for i in range(len(w)):
                fm = 0
                for (dw, mask) in self.fixed:
                    if dw == i:
                        fm |= mask
                w[i] = (w[i] & fm) | (rng.getrandbits(32) & ~fm & 0xFFFFFFFF)
        elif variant != "z":
            self._apply_fields(w, variant, rng, allowed)
        w += [rng.getrandbits(32) for _ in range(self.extra)]
        if variant == "d" or (variant in ("r", "s") and rng.randrange(3) == 0):
            w.append(LITERALS[literal_ix % len(LITERALS)])
        return w

    def probe(self, op, field):
        """The neutral word with only `field` set to its "b" value."""
        w = self.with_op(op)
        rng = random.Random(0)
        self._apply_fields(w, "z", rng)
        self._apply_fields(w, "b", rng, (field,))
        return w + [0] * self.extra

    def _apply_fields(self, w, variant, rng, allowed=None):
        src_ix = 0
        for (name, dw, lo, width, kind) in self.fields:
            ix = src_ix if kind in ("ssrc", "src9") else 0
            if kind in ("ssrc", "src9"):
                src_ix += 1
            if allowed is not None and name not in allowed:
                continue
            if variant == "z":
                v = zero_value(kind)
            else:
                v = field_value(kind, width, "r" if variant == "s" else variant, rng, ix)
            v &= (1 << width) - 1
            w[dw] = (w[dw] & ~(((1 << width) - 1) << lo)) | (v << lo)


def zero_value(kind):
    """Neutral value of a field: 0, or "off"/null for optional SGPR fields."""
    if kind == "saddr":
        return 0x7F
    if kind in ("saddr10", "sdst10"):
        return 0x7D
    if kind == "sel":
        return 6
    return 0


def m(lo, width):
    return ((1 << width) - 1) << lo


def vop_families(gen):
    """VOP1/VOP2/VOPC plain, SDWA and DPP forms."""
    out = []
    vop1 = (0x3F << 25, [(0, 9, 8)], range(256), [("vdst", 0, 17, 8, "vgpr")])
    vop2 = (0, [(0, 25, 6)], range(0x3E), [("vdst", 0, 17, 8, "vgpr"), ("vsrc1", 0, 9, 8, "vgpr")])
    vopc = (0x3E << 25, [(0, 17, 8)], range(256), [("vsrc1", 0, 9, 8, "vgpr")])
    for (fam, (base, op, ops, regs)) in (("VOP1", vop1), ("VOP2", vop2), ("VOPC", vopc)):
        opmask = m(op[0][1], op[0][2])
        fixed_hi = m(25, 7) if fam != "VOP2" else m(31, 1)
        out.append(Enc(fam, [base], op, ops, [("src0", 0, 0, 9, "src9")] + regs,
                       [(0, fixed_hi | opmask | m(0, 9))]))
        # Random variations of plain VOP must keep src0 off the SDWA/DPP markers:
        # handled in candidate filtering below.
        sdwa_fields = [("src0", 1, 0, 8, "vgpr"), ("s0", 1, 23, 1, "flag"),
                       ("src0_sel", 1, 16, 3, "sel"), ("sext0", 1, 19, 1, "flag"),
                       ("neg0", 1, 20, 1, "flag"), ("abs0", 1, 21, 1, "flag")]
        if fam != "VOP1":
            sdwa_fields += [("src1_sel", 1, 24, 3, "sel"), ("sext1", 1, 27, 1, "flag"),
                            ("neg1", 1, 28, 1, "flag"), ("abs1", 1, 29, 1, "flag"),
                            ("s1", 1, 31, 1, "flag")]
        if fam == "VOPC":
            sdwa_fields += [("sdst", 1, 8, 7, "sdst"), ("sd", 1, 15, 1, "flag")]
        else:
            sdwa_fields += [("dst_sel", 1, 8, 3, "sel"), ("dst_unused", 1, 11, 2, "mod"),
                            ("clamp", 1, 13, 1, "flag"), ("omod", 1, 14, 2, "mod")]
        out.append(Enc("SDWA", [base | 0xF9, 0], op, ops, sdwa_fields + regs,
                       [(0, fixed_hi | opmask | m(0, 9))], label="SDWA"))
        dpp_fields = [("src0", 1, 0, 8, "vgpr"), ("dpp_ctrl", 1, 8, 9, "dppctrl"),
                      ("bound_ctrl", 1, 19, 1, "flag"), ("neg0", 1, 20, 1, "flag"),
                      ("abs0", 1, 21, 1, "flag"), ("neg1", 1, 22, 1, "flag"),
                      ("abs1", 1, 23, 1, "flag"), ("bank_mask", 1, 24, 4, "imm"),
                      ("row_mask", 1, 28, 4, "imm")]
        if gen == 10:
            dpp_fields.append(("fi", 1, 18, 1, "flag"))
        out.append(Enc("DPP", [base | 0xFA, 0], op, ops, dpp_fields + regs,
                       [(0, fixed_hi | opmask | m(0, 9))], label="DPP"))
        if gen == 10:
            dpp8_fields = [("src0", 1, 0, 8, "vgpr"), ("sel", 1, 8, 24, "imm")]
            out.append(Enc("DPP8", [base | 0xE9, 0], op, ops, dpp8_fields + regs,
                           [(0, fixed_hi | opmask | m(0, 9))], label="DPP8"))
            out.append(Enc("DPP8", [base | 0xEA, 0], op, ops, dpp8_fields + regs,
                           [(0, fixed_hi | opmask | m(0, 9))], label="DPP8"))
    return out


def vop3_fields():
    return [("vdst", 0, 0, 8, "vgpr"), ("abs", 0, 8, 3, "mod"), ("opsel", 0, 11, 4, "mod"),
            ("clamp", 0, 15, 1, "flag"), ("src0", 1, 0, 9, "src9"), ("src1", 1, 9, 9, "src9"),
            ("src2", 1, 18, 9, "src9"), ("omod", 1, 27, 2, "mod"), ("neg", 1, 29, 3, "mod")]


def vop3p_fields():
    return [("vdst", 0, 0, 8, "vgpr"), ("neg_hi", 0, 8, 3, "mod"), ("opsel", 0, 11, 3, "mod"),
            ("opsel_hi2", 0, 14, 1, "flag"), ("clamp", 0, 15, 1, "flag"),
            ("src0", 1, 0, 9, "src9"), ("src1", 1, 9, 9, "src9"), ("src2", 1, 18, 9, "src9"),
            ("opsel_hi", 1, 27, 2, "mod"), ("neg", 1, 29, 3, "mod")]


def scalar_families():
    return [
        Enc("SOP2", [0x2 << 30], [(0, 23, 7)], range(0x60),
            [("ssrc0", 0, 0, 8, "ssrc"), ("ssrc1", 0, 8, 8, "ssrc"), ("sdst", 0, 16, 7, "sdst")],
            [(0, m(23, 9))]),
        Enc("SOPK", [0xB << 28], [(0, 23, 5)], range(0x1D),
            [("sdst", 0, 16, 7, "sdst"), ("simm16", 0, 0, 16, "imm")], [(0, m(23, 9))]),
        Enc("SOP1", [0x17D << 23], [(0, 8, 8)], range(256),
            [("ssrc0", 0, 0, 8, "ssrc"), ("sdst", 0, 16, 7, "sdst")], [(0, m(23, 9) | m(8, 8))]),
        Enc("SOPC", [0x17E << 23], [(0, 16, 7)], range(128),
            [("ssrc0", 0, 0, 8, "ssrc"), ("ssrc1", 0, 8, 8, "ssrc")], [(0, m(16, 16))]),
        Enc("SOPP", [0x17F << 23], [(0, 16, 7)], range(128),
            [("simm16", 0, 0, 16, "imm")], [(0, m(16, 16))]),
    ]


def gfx9_families(target):
    fam = scalar_families()
    fam.append(Enc("SMEM", [0x30 << 26, 0], [(0, 18, 8)], range(256),
                   [("sbase", 0, 0, 6, "sreg"), ("sdata", 0, 6, 7, "sdst"), ("soe", 0, 14, 1, "flag"),
                    ("nv", 0, 15, 1, "flag"), ("glc", 0, 16, 1, "flag"), ("imm", 0, 17, 1, "flag"),
                    ("offset", 1, 0, 21, "imm"), ("soffset", 1, 25, 7, "sdst")],
                   [(0, m(18, 14))]))
    fam += vop_families(9)
    fam.append(Enc("VOP3", [0x34 << 26, 0], [(0, 16, 10)], range(0x380), vop3_fields(),
                   [(0, m(16, 16))]))
    fam.append(Enc("VOP3P", [0x1A7 << 23, 0], [(0, 16, 7)], range(128), vop3p_fields(),
                   [(0, m(16, 16))]))
    ds = [("offset0", 0, 0, 8, "imm"), ("offset1", 0, 8, 8, "imm"), ("gds", 0, 16, 1, "flag"),
          ("addr", 1, 0, 8, "vgpr"), ("data0", 1, 8, 8, "vgpr"), ("data1", 1, 16, 8, "vgpr"),
          ("vdst", 1, 24, 8, "vgpr")]
    if target == "gfx90a":
        ds.append(("acc", 0, 25, 1, "flag"))
    fam.append(Enc("DS", [0x36 << 26, 0], [(0, 17, 8)], range(256), ds, [(0, m(17, 15))]))
    buf = [("vaddr", 1, 0, 8, "vgpr"), ("vdata", 1, 8, 8, "vgpr"), ("srsrc", 1, 16, 5, "sreg"),
           ("tfe", 1, 23, 1, "flag"), ("soffset", 1, 24, 8, "ssrc"), ("offset", 0, 0, 12, "imm"),
           ("offen", 0, 12, 1, "flag"), ("idxen", 0, 13, 1, "flag"), ("glc", 0, 14, 1, "flag")]
    fam.append(Enc("MUBUF", [0x38 << 26, 0], [(0, 18, 7)], range(128),
                   buf + [("lds", 0, 16, 1, "flag"), ("slc", 0, 17, 1, "flag")], [(0, m(18, 14))]))
    fam.append(Enc("MTBUF", [0x3A << 26, 0], [(0, 15, 4)], range(16),
                   buf + [("dfmt", 0, 19, 4, "imm"), ("nfmt", 0, 23, 3, "imm"),
                          ("slc", 1, 22, 1, "flag")], [(0, m(26, 6) | m(15, 4))]))
    fam.append(Enc("MIMG", [0x3C << 26, 0], [(0, 18, 7)], range(128),
                   [("dmask", 0, 8, 4, "imm"), ("unorm", 0, 12, 1, "flag"), ("glc", 0, 13, 1, "flag"),
                    ("da", 0, 14, 1, "flag"), ("r128", 0, 15, 1, "flag"), ("tfe", 0, 16, 1, "flag"),
                    ("lwe", 0, 17, 1, "flag"), ("slc", 0, 25, 1, "flag"), ("vaddr", 1, 0, 8, "vgpr"),
                    ("vdata", 1, 8, 8, "vgpr"), ("srsrc", 1, 16, 5, "sreg"), ("ssamp", 1, 21, 5, "sreg"),
                    ("d16", 1, 31, 1, "flag")], [(0, m(18, 14))]))
    flat = [("offset", 0, 0, 13, "imm"), ("lds", 0, 13, 1, "flag"), ("glc", 0, 16, 1, "flag"),
            ("slc", 0, 17, 1, "flag"), ("addr", 1, 0, 8, "vgpr"), ("data", 1, 8, 8, "vgpr"),
            ("saddr", 1, 16, 7, "saddr"), ("nv", 1, 23, 1, "flag"), ("vdst", 1, 24, 8, "vgpr")]
    for seg, label in ((0, "FLAT"), (1, "SCRATCH"), (2, "GLOBAL"), (3, "FLAT_SEG3")):
        fields = flat if seg != 0 else [f if f[0] != "saddr" else ("saddr", 1, 16, 7, "sdst")
                                        for f in flat]
        fam.append(Enc(label, [(0x37 << 26) | (seg << 14), 0], [(0, 18, 7)], range(128), fields,
                       [(0, m(18, 14) | m(14, 2))]))
    fam.append(Enc("EXP", [0x31 << 26, 0], [(0, 4, 6)], range(64),
                   [("en", 0, 0, 4, "imm"), ("compr", 0, 10, 1, "flag"), ("done", 0, 11, 1, "flag"),
                    ("vm", 0, 12, 1, "flag"), ("vsrc0", 1, 0, 8, "vgpr"), ("vsrc1", 1, 8, 8, "vgpr"),
                    ("vsrc2", 1, 16, 8, "vgpr"), ("vsrc3", 1, 24, 8, "vgpr")], [(0, m(26, 6) | m(4, 6))]))
    fam.append(Enc("VINTRP", [0x35 << 26], [(0, 16, 2)], range(4),
                   [("vsrc", 0, 0, 8, "vgpr"), ("attrchan", 0, 8, 2, "imm"), ("attr", 0, 10, 6, "imm"),
                    ("vdst", 0, 18, 8, "vgpr")], [(0, m(26, 6) | m(16, 2))]))
    return fam


def gfx10_families(target):
    fam = scalar_families()
    fam.append(Enc("SMEM", [0x3D << 26, 0], [(0, 18, 8)], range(256),
                   [("sbase", 0, 0, 6, "sreg"), ("sdata", 0, 6, 7, "sdst"), ("dlc", 0, 14, 1, "flag"),
                    ("glc", 0, 16, 1, "flag"), ("offset", 1, 0, 21, "imm"), ("soffset", 1, 25, 7, "sdst10")],
                   [(0, m(18, 14))]))
    fam += vop_families(10)
    fam.append(Enc("VOP3", [0x35 << 26, 0], [(0, 16, 10)], range(1024), vop3_fields(),
                   [(0, m(16, 16))]))
    fam.append(Enc("VOP3P", [0x33 << 26, 0], [(0, 16, 7)], range(128), vop3p_fields(),
                   [(0, m(16, 16))]))
    fam.append(Enc("DS", [0x36 << 26, 0], [(0, 18, 8)], range(256),
                   [("offset0", 0, 0, 8, "imm"), ("offset1", 0, 8, 8, "imm"), ("gds", 0, 17, 1, "flag"),
                    ("addr", 1, 0, 8, "vgpr"), ("data0", 1, 8, 8, "vgpr"), ("data1", 1, 16, 8, "vgpr"),
                    ("vdst", 1, 24, 8, "vgpr")], [(0, m(18, 14))]))
    buf = [("vaddr", 1, 0, 8, "vgpr"), ("vdata", 1, 8, 8, "vgpr"), ("srsrc", 1, 16, 5, "sreg"),
           ("slc", 1, 22, 1, "flag"), ("tfe", 1, 23, 1, "flag"), ("soffset", 1, 24, 8, "ssrc"),
           ("offset", 0, 0, 12, "imm"), ("offen", 0, 12, 1, "flag"), ("idxen", 0, 13, 1, "flag"),
           ("glc", 0, 14, 1, "flag"), ("dlc", 0, 15, 1, "flag")]
    fam.append(Enc("MUBUF", [0x38 << 26, 0], [(0, 18, 7)], range(128),
                   buf + [("lds", 0, 16, 1, "flag")], [(0, m(18, 14))]))
    fam.append(Enc("MTBUF", [0x3A << 26, 0], [(0, 16, 3), (1, 21, 1)], range(16),
                   buf + [("format", 0, 19, 7, "imm")], [(0, m(26, 6) | m(16, 3)), (1, m(21, 1))]))
    mimg = [("dim", 0, 3, 3, "imm"), ("dlc", 0, 7, 1, "flag"), ("dmask", 0, 8, 4, "imm"),
            ("unorm", 0, 12, 1, "flag"), ("glc", 0, 13, 1, "flag"), ("r128", 0, 15, 1, "flag"),
            ("tfe", 0, 16, 1, "flag"), ("lwe", 0, 17, 1, "flag"), ("slc", 0, 25, 1, "flag"),
            ("vaddr", 1, 0, 8, "vgpr"), ("vdata", 1, 8, 8, "vgpr"), ("srsrc", 1, 16, 5, "sreg"),
            ("ssamp", 1, 21, 5, "sreg"), ("a16", 1, 30, 1, "flag"), ("d16", 1, 31, 1, "flag")]
    fam.append(Enc("MIMG", [0x3C << 26, 0], [(0, 18, 7), (0, 0, 1)], range(256), mimg,
                   [(0, m(18, 14) | m(0, 3))]))
    for nsa in (1, 2, 3):
        fam.append(Enc("MIMG_NSA", [(0x3C << 26) | (nsa << 1), 0], [(0, 18, 7), (0, 0, 1)],
                       range(256), mimg, [(0, m(18, 14) | m(0, 3))], extra=nsa))
    flat = [("offset", 0, 0, 12, "imm"), ("dlc", 0, 12, 1, "flag"), ("lds", 0, 13, 1, "flag"),
            ("glc", 0, 16, 1, "flag"), ("slc", 0, 17, 1, "flag"), ("addr", 1, 0, 8, "vgpr"),
            ("data", 1, 8, 8, "vgpr"), ("saddr", 1, 16, 7, "saddr10"), ("nv", 1, 23, 1, "flag"),
            ("vdst", 1, 24, 8, "vgpr")]
    for seg, label in ((0, "FLAT"), (1, "SCRATCH"), (2, "GLOBAL"), (3, "FLAT_SEG3")):
        fam.append(Enc(label, [(0x37 << 26) | (seg << 14), 0], [(0, 18, 7)], range(128), flat,
                       [(0, m(18, 14) | m(14, 2))]))
    fam.append(Enc("EXP", [0x3E << 26, 0], [(0, 4, 6)], range(64),
                   [("en", 0, 0, 4, "imm"), ("compr", 0, 10, 1, "flag"), ("done", 0, 11, 1, "flag"),
                    ("vm", 0, 12, 1, "flag"), ("vsrc0", 1, 0, 8, "vgpr"), ("vsrc1", 1, 8, 8, "vgpr"),
                    ("vsrc2", 1, 16, 8, "vgpr"), ("vsrc3", 1, 24, 8, "vgpr")], [(0, m(26, 6) | m(4, 6))]))
    fam.append(Enc("VINTRP", [0x32 << 26], [(0, 16, 2)], range(4),
                   [("vsrc", 0, 0, 8, "vgpr"), ("attrchan", 0, 8, 2, "imm"), ("attr", 0, 10, 6, "imm"),
                    ("vdst", 0, 18, 8, "vgpr")], [(0, m(26, 6) | m(16, 2))]))
    return fam


# ---------------------------------------------------------------------------
# Running llvm-mc
# ---------------------------------------------------------------------------

WARN_RE = re.compile(r"^(?P<file>.*):(?P<line>\d+):(?P<col>\d+): warning: (?P<msg>.*)$")


class Decoded:
    """What llvm-mc made of one block: instructions printed and a failure."""

    __slots__ = ("insts", "fail_at", "crashed")

    def __init__(self):
        self.insts = []  # list of (text, encoding-bytes or None)
        self.fail_at = None  # byte offset of an invalid encoding, if any
        self.crashed = False


def block_line(bs):
    return "[" + " ".join("0x%02x" % b for b in bs) + "]\n"


def parse_inst_line(line):
    """Split one stdout line into (text, encoding bytes or None)."""
    if not line.startswith("\t"):
        raise RuntimeError("unexpected llvm-mc output line: %r" % line)
    body = line[1:]
    enc = None
    k = body.find("; encoding: [")
    if k >= 0:
        e = body[k + len("; encoding: ["):].rstrip()
        if e.endswith("]"):
            e = e[:-1]
        enc = bytes(int(x, 16) for x in e.split(",") if x)
        body = body[:k]
    text = normalise(body)
    return text, enc


def normalise(text):
    """llvm-mc's text after the leading tab, with whitespace runs outside the
    mnemonic kept as printed except tabs (none are printed by the AMDGPU
    printer; mapped to a space for safety) and trailing blanks removed."""
    return text.replace("\t", " ").rstrip()


class Runner:
    def __init__(self, mcpu, opts, workdir):
        self.mcpu = mcpu
        self.opts = opts
        self.workdir = workdir
        self.runs = 0
        self.crashes = 0

    def _invoke(self, blocks, sentinel, show_encoding):
        path = os.path.join(self.workdir, "in.txt")
        with open(path, "w") as f:
            for bs in blocks:
                f.write(block_line(bs))
                if sentinel:
                    f.write(block_line(SENTINEL))
        cmd = [LLVM_MC, "--disassemble", "-triple=" + TRIPLE, "-mcpu=" + self.mcpu] + self.opts
        if show_encoding:
            cmd.append("--show-encoding")
        cmd.append(path)
        self.runs += 1
        p = subprocess.run(cmd, capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def decode(self, blocks, show_encoding=True):
        """Decode each block on its own; returns one Decoded per block."""
        out = []
        for i in range(0, len(blocks), BATCH):
            out += self._decode(blocks[i:i + BATCH], show_encoding)
        return out

    def _decode(self, blocks, show_encoding):
        if not blocks:
            return []
        if len(blocks) == 1:
            return [self._decode_one(blocks[0], show_encoding)]
        rc, stdout, stderr = self._invoke(blocks, True, show_encoding)
        res = None
        if rc in (0, 1):  # 1: some block was invalid
            res = self._parse(blocks, stdout, stderr, sentinel=True)
        else:
            self.crashes += 1
        if res is None:
            h = len(blocks) // 2
            return self._decode(blocks[:h], show_encoding) + self._decode(blocks[h:], show_encoding)
        return res

    def _decode_one(self, bs, show_encoding):
        rc, stdout, stderr = self._invoke([bs], False, show_encoding)
        if rc not in (0, 1) and show_encoding:
            self.crashes += 1
            rc, stdout, stderr = self._invoke([bs], False, False)
        if rc not in (0, 1):
            self.crashes += 1
            d = Decoded()
            d.crashed = True
            return d
        res = self._parse([bs], stdout, stderr, sentinel=False)
        if res is None:
            raise RuntimeError("cannot parse llvm-mc output for a single block %s" % bs)
        return res[0]

    def _parse(self, blocks, stdout, stderr, sentinel):
        per = 2 if sentinel else 1
        res = [Decoded() for _ in blocks]
        for line in stderr.splitlines():
            mt = WARN_RE.match(line)
            if not mt:
                if line.startswith("[") or line.strip() in ("^", "") or line.lstrip().startswith("^"):
                    continue
                raise RuntimeError("unexpected llvm-mc diagnostic: %r" % line)
            msg = mt.group("msg")
            ln = int(mt.group("line")) - 1
            col = int(mt.group("col"))
            if ln % per != 0:
                return None  # a sentinel failed: cannot happen unless out of sync
            b = ln // per
            if msg == "invalid instruction encoding":
                off = (col - 2) // 5
                if (col - 2) % 5 != 0 or b >= len(res):
                    return None
                res[b].fail_at = off
            elif msg == "potentially undefined instruction encoding":
                pass  # SoftFail: the instruction is printed all the same
            else:
                raise RuntimeError("unexpected llvm-mc warning: %r" % line)
        lines = stdout.splitlines()
        if lines and lines[0].strip() == ".text":
            lines = lines[1:]
        insts = [parse_inst_line(line) for line in lines if line.strip()]
        if not sentinel:
            res[0].insts = insts
            return res
        b = 0
        cur = []
        for (text, enc) in insts:
            if text == SENTINEL_TEXT and (enc is None or list(enc) == SENTINEL):
                if b >= len(res):
                    return None
                res[b].insts = cur
                cur = []
                b += 1
            else:
                cur.append((text, enc))
        if b != len(res) or cur:
            return None
        return res


# ---------------------------------------------------------------------------
# Candidate generation
# ---------------------------------------------------------------------------


def to_bytes(words):
    out = []
    for w in words:
        out += [w & 0xFF, (w >> 8) & 0xFF, (w >> 16) & 0xFF, (w >> 24) & 0xFF]
    return out


def words_of(bs):
    return [bs[i] | (bs[i + 1] << 8) | (bs[i + 2] << 16) | (bs[i + 3] << 24)
            for i in range(0, len(bs), 4)]


def plain_vop_ok(enc, words):
    """A plain VOP1/VOP2/VOPC candidate must not carry an SDWA/DPP marker."""
    if enc.name in ("VOP1", "VOP2", "VOPC"):
        return (words[0] & 0x1FF) not in (0xE9, 0xEA, 0xF9, 0xFA)
    return True


def sweep_candidates(name, families, stage, ok_ops):
    """Stage "A": three variations of every opcode (z, a, r).  Stage "B":
    four more (b, c, d, s) for every opcode for which stage A found a valid
    word; `ok_ops` maps (family index, opcode) to the set of fields that may
    be non-neutral (None: all)."""
    out = []
    for fi, enc in enumerate(families):
        for op in enc.ops:
            opkey = (fi, op)
            if stage == "A":
                variants = ["z", "a", "r"]
                allowed = None
            else:
                if opkey not in ok_ops:
                    continue
                variants = ["b", "c", "d", "s"]
                allowed = ok_ops[opkey]
            for vi, var in enumerate(variants):
                rng = random.Random(SEED_SALT + "%s/%s/%d/%d/%s" % (name, enc.name, fi, op, var))
                for _attempt in range(8):
                    w = enc.candidate(op, var, rng, op + vi, allowed)
                    if plain_vop_ok(enc, w):
                        break
                else:
                    continue
                out.append((enc.label, (fi, op, var), w))
    return out


def probe_candidates(families, zero_ok):
    """One word per (opcode whose neutral word is valid, field)."""
    out = []
    for (fi, op) in sorted(zero_ok):
        enc = families[fi]
        for f in enc.fields:
            out.append(((fi, op), f[0], enc.probe(op, f[0])))
    return out


def random_candidates(name, families):
    rng = random.Random(SEED_SALT + "%s/random" % name)
    out = []
    for i in range(RANDOM_PER_TARGET):
        if i % 5 == 0:
            w = [rng.getrandbits(32) for _ in range(5)]
        else:
            enc = pick(rng, families)
            op = pick(rng, enc.ops)
            w = enc.with_op(op)
            for k in range(len(w)):
                mask = 0
                for (dw, fm) in enc.fixed:
                    if dw == k:
                        mask |= fm
                w[k] |= rng.getrandbits(32) & ~mask & 0xFFFFFFFF
            w += [rng.getrandbits(32) for _ in range(enc.extra + 1)]
        out.append(("random", None, w))
    return out


GROUPS = {
    "all": {t[0] for t in TARGETS},
    "gfx9": {"gfx900", "gfx906", "gfx908", "gfx90a"},
    "gfx10": {"gfx1010", "gfx1030", "gfx1010-w64", "gfx1030-w64"},
    "w32": {"gfx1010", "gfx1030"},
    "w64": {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx1010-w64", "gfx1030-w64"},
    "mfma": {"gfx908", "gfx90a"},
    "gfx": {t[0] for t in TARGETS} - {"gfx90a"},
}


def read_golden(path):
    """The hand-picked cases: list of (line number, set of targets, kind, payload)."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or parts[1] not in ("asm", "hex"):
                sys.exit("%s:%d: expected <targets>\\t<asm|hex>\\t<payload>" % (path, n))
            targets = set()
            for tok in parts[0].split(","):
                if tok in GROUPS:
                    targets |= GROUPS[tok]
                elif tok in GROUPS["all"]:
                    targets.add(tok)
                else:
                    sys.exit("%s:%d: unknown target or group %r" % (path, n, tok))
            out.append((n, targets, parts[1], parts[2].strip()))
    return out


def golden_candidates(name, mcpu, opts, golden, workdir):
    """Words of the golden cases for one target; `asm` lines are assembled."""
    mine = [g for g in golden if name in g[1]]
    asm = [g for g in mine if g[2] == "asm"]
    encoded = {}
    if asm:
        path = os.path.join(workdir, "golden.s")
        with open(path, "w") as f:
            for g in asm:
                f.write(g[3] + "\n")
        cmd = [LLVM_MC, "-triple=" + TRIPLE, "-mcpu=" + mcpu] + opts + ["--show-encoding", path]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0 or p.stderr.strip():
            sys.exit("golden cases do not assemble for %s:\n%s" % (name, p.stderr))
        encs = []
        for line in p.stdout.splitlines():
            k = line.find("; encoding: [")
            if k >= 0:
                e = line[k + len("; encoding: ["):].rstrip().rstrip("]")
                encs.append([int(x, 16) for x in e.split(",") if x])
        if len(encs) != len(asm):
            sys.exit("golden cases for %s: %d lines assembled into %d instructions"
                     % (name, len(asm), len(encs)))
        for g, e in zip(asm, encs):
            if len(e) % 4 != 0:
                sys.exit("golden line %d: encoding is not whole dwords" % g[0])
            encoded[g[0]] = words_of(e)
    out = []
    for g in mine:
        if g[2] == "asm":
            w = encoded[g[0]]
        else:
            try:
                w = [int(x, 16) for x in g[3].split()]
            except ValueError:
                sys.exit("golden line %d: bad hex" % g[0])
        out.append(("golden", None, w))
    return out


def first_size(d, nbytes):
    """Size of the first instruction of a block when it is certain."""
    if d.fail_at == 0 or not d.insts:
        return None
    if len(d.insts) == 1:
        return d.fail_at if d.fail_at is not None else nbytes
    return None


def generate_target(name, mcpu, opts, gen, workdir, log, golden):
    families = gfx9_families(name) if gen == 9 else gfx10_families(name)
    runner = Runner(mcpu, opts, workdir)
    gold = golden_candidates(name, mcpu, opts, golden, workdir)

    cand_a = sweep_candidates(name, families, "A", None)
    dec_a = runner.decode([to_bytes(w) for (_l, _k, w) in cand_a])
    any_ok = set()
    zero_ok = set()
    for (label, key, w), d in zip(cand_a, dec_a):
        if d.insts and d.fail_at != 0 and not d.crashed:
            any_ok.add(key[:2])
            if key[2] == "z":
                zero_ok.add(key[:2])
    # Opcodes with no valid word keep only their "z" and "r" variations.
    keep = [i for i, (_l, key, _w) in enumerate(cand_a) if key[2] != "a" or key[:2] in any_ok]
    cand_a = [cand_a[i] for i in keep]
    dec_a = [dec_a[i] for i in keep]
    probes = probe_candidates(families, zero_ok)
    dec_p = runner.decode([to_bytes(w) for (_k, _f, w) in probes], show_encoding=False)
    ok_ops = {k: (None if k not in zero_ok else set()) for k in any_ok}
    for (key, field, _w), d in zip(probes, dec_p):
        if d.insts and d.fail_at != 0 and not d.crashed:
            ok_ops[key].add(field)
    cand_b = sweep_candidates(name, families, "B", ok_ops)
    cands = gold + cand_a + cand_b + random_candidates(name, families)
    decs = runner.decode([to_bytes(w) for (_l, _k, w) in gold]) + dec_a
    decs += runner.decode([to_bytes(w) for (_l, _k, w) in cands[len(decs):]])
    assert len(decs) == len(cands)

    # Size of the first instruction of every accepted candidate.
    results = []  # (label, words consumed or candidate words, text or None)
    unresolved = []
    crashed = 0
    for i, ((label, _key, w), d) in enumerate(zip(cands, decs)):
        bs = to_bytes(w)
        if d.crashed:
            crashed += 1
            continue
        if d.fail_at == 0 or not d.insts:
            results.append([label, w, None])
            continue
        size = first_size(d, len(bs))
        text = d.insts[0][0]
        results.append([label, w, text, size])
        if size is None:
            unresolved.append(len(results) - 1)

    # Resolve sizes by decoding prefixes alone (4, 8, ... bytes).
    trials = []
    for ri in unresolved:
        w = results[ri][1]
        for n in range(1, len(w)):
            trials.append((ri, n))
    tdec = runner.decode([to_bytes(results[ri][1][:n]) for (ri, n) in trials], show_encoding=False)
    for (ri, n), d in zip(trials, tdec):
        r = results[ri]
        if r[3] is not None:
            continue
        if len(d.insts) == 1 and d.fail_at is None and d.insts[0][0] == r[2]:
            r[3] = n * 4
    dropped = 0
    final = []
    for r in results:
        if r[2] is None:
            final.append((r[0], r[1], None))
        elif r[3] is None or r[3] % 4 != 0 or r[3] == 0:
            dropped += 1
        else:
            final.append((r[0], r[1][:r[3] // 4], r[2]))

    # Verify: every accepted vector alone gives exactly one instruction, same text.
    valid = [f for f in final if f[2] is not None]
    vdec = runner.decode([to_bytes(f[1]) for f in valid], show_encoding=False)
    bad = set()
    for f, d in zip(valid, vdec):
        if len(d.insts) != 1 or d.fail_at is not None or d.insts[0][0] != f[2]:
            bad.add(id(f))
    verify_failed = len(bad)
    final = [f for f in final if id(f) not in bad]

    # Deduplicate identical dwords (first occurrence wins; order is deterministic).
    seen = set()
    rows = []
    for (label, w, text) in final:
        k = tuple(w)
        if k in seen:
            continue
        seen.add(k)
        rows.append((label, w, text))
    log("%s: %d candidates, %d llvm-mc runs, %d crashes (%d candidates skipped), "
        "%d sizes unresolved, %d failed verification, %d rows"
        % (name, len(cands), runner.runs, runner.crashes, crashed, dropped, verify_failed, len(rows)))
    return rows


def family_order(rows):
    order = {}
    for (label, _w, _t) in rows:
        order.setdefault(label, len(order))
    return sorted(rows, key=lambda r: order[r[0]])


def write_target(path, name, mcpu, opts, version, rows):
    rows = family_order(rows)
    counts = {}
    for (label, _w, text) in rows:
        c = counts.setdefault(label, [0, 0])
        c[0 if text is not None else 1] += 1
    with open(path, "w", newline="\n") as f:
        f.write("# Decoder differential test vectors for %s. Generated by\n" % name)
        f.write("# sim-tests/vectors/gen_isa_vectors.py; do not edit by hand.\n")
        f.write("# llvm-mc: %s\n" % version)
        f.write("# command: %s\n" % " ".join([LLVM_MC, "--disassemble", "-triple=" + TRIPLE,
                                                "-mcpu=" + mcpu] + opts))
        wave = "64" if (name.endswith("-w64") or name.startswith("gfx9")) else "32"
        f.write("# target: %s wave%s\n" % (mcpu, wave))
        f.write("# format: <enc>\\t<dwords>\\t<text> (or <invalid>: LLVM rejects the first dword)\n")
        f.write("# counts (enc valid/invalid): %s\n"
                % " ".join("%s=%d/%d" % (k, v[0], v[1]) for k, v in counts.items()))
        for (label, w, text) in rows:
            f.write("%s\t%s\t%s\n" % (label, " ".join("%08x" % x for x in w),
                                      text if text is not None else "<invalid>"))
    return counts


def llvm_version():
    try:
        p = subprocess.run([LLVM_MC, "--version"], capture_output=True, text=True)
    except FileNotFoundError:
        return None
    for line in p.stdout.splitlines():
        if "LLVM version" in line:
            return line.strip()
    return p.stdout.strip().splitlines()[0] if p.stdout.strip() else "unknown"


def generate(outdir, only, log):
    version = llvm_version()
    if version is None:
        sys.exit("%s not found: install it with `apt-get install -y llvm-19`" % LLVM_MC)
    os.makedirs(outdir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="isa-vectors-")
    golden = read_golden(os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.txt"))
    jobs = [(t, outdir, os.path.join(work, t[0]), version, golden)
            for t in TARGETS if not only or t[0] in only]
    try:
        # One process per target, as many at a time as there are cores: every target
        # draws from its own seeded generators and writes its own file, so the output does
        # not depend on the order or the parallelism (the log is printed in target order).
        with concurrent.futures.ProcessPoolExecutor(max(1, os.cpu_count() or 1)) as pool:
            for lines in pool.map(generate_one, jobs):
                for line in lines:
                    log(line)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def generate_one(job):
    """generate() for one target in a worker process; returns the log lines."""
    (name, mcpu, opts, gen), outdir, workdir, version, golden = job
    os.makedirs(workdir, exist_ok=True)
    lines = []
    rows = generate_target(name, mcpu, opts, gen, workdir, lines.append, golden)
    counts = write_target(os.path.join(outdir, name + ".txt"), name, mcpu, opts, version, rows)
    lines.append("  " + " ".join("%s=%d/%d" % (k, v[0], v[1]) for k, v in counts.items()))
    return lines


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary directory and fail on any difference")
    ap.add_argument("--out", default=os.path.join(here, "isa"), help="output directory")
    ap.add_argument("--target", action="append", help="only this target (repeatable)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--seed", default="",
                    help="draw a different set of variations and random words (for a held-out "
                         "set written with --out; the committed vectors use none)")
    args = ap.parse_args()
    global SEED_SALT
    SEED_SALT = args.seed + "/" if args.seed else ""

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr)

    if args.check:
        tmp = tempfile.mkdtemp(prefix="isa-vectors-check-")
        try:
            generate(tmp, args.target, log)
            names = sorted(os.listdir(tmp))
            bad = []
            for n in names:
                ref = os.path.join(args.out, n)
                if not os.path.exists(ref) or not filecmp.cmp(ref, os.path.join(tmp, n), shallow=False):
                    bad.append(n)
            if not args.target:
                extra = sorted(set(os.listdir(args.out)) - set(names)) if os.path.isdir(args.out) else []
                bad += ["%s (not generated)" % e for e in extra if e.endswith(".txt")]
            if bad:
                print("isa vectors differ from a fresh generation: %s" % ", ".join(bad), file=sys.stderr)
                sys.exit(1)
            print("isa vectors are up to date (%d files)" % len(names), file=sys.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    else:
        generate(args.out, args.target, log)


if __name__ == "__main__":
    main()

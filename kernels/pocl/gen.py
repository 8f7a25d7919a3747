#!/usr/bin/env python3
"""Runs the OpenCL kernels of kernels/src on PoCL and writes reference files.

Usage: gen.py [--check]

Builds the OpenCL host program (host.c, gcc, -lOpenCL), writes one launch
specification per kernel (deterministic inputs: fixed seeds, fixed special
values), runs the host on PoCL's CPU device and writes
kernels/pocl/ref/<kernel>.txt: the launches, every input buffer, the
initial contents of every output buffer and PoCL's results.
sim-tests/tests/pocl_differential.rs replays these launches on the
simulator and compares the results.

--check regenerates into a temporary directory and exits 1 if anything
differs from the committed files. Needs gcc, ocl-icd-opencl-dev and
pocl-opencl-icd (apt-get install -y gcc ocl-icd-opencl-dev pocl-opencl-icd).
"""

import concurrent.futures
import difflib
import os
import shutil
import struct
import subprocess
import sys
import tempfile

POCL_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(POCL_DIR))
REF_DIR = os.path.join(POCL_DIR, "ref")

# The AMDGPU objects are built with -cl-std=CL2.0 (kernels/tools/build.py).
# PoCL 3.1 rejects vload_half/vstore_half at CL2.0, and at CL1.2 the global
# size must be a multiple of the local size, which every case below keeps;
# so all kernels are built at CL1.2 here. The other clang flags of the
# AMDGPU build (-O2/-O0, -g, -Wall -Werror, path maps) do not change the
# results an OpenCL implementation may produce. Floating-point contraction
# is left at its OpenCL default on both sides (clang: -ffp-contract=on,
# i.e. within one expression); see the test for where it could matter.
OPTIONS = "-cl-std=CL1.2"

SENTINEL32 = 0xDEADBEEF

# The C compiler for host.c (chosen in main).
C_COMPILER = "gcc"


class Gen:
    """xorshift64: a small deterministic generator."""

    def __init__(self, seed):
        self.s = seed

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFFFFFFFFFF
        s ^= s >> 7
        s ^= (s << 17) & 0xFFFFFFFFFFFFFFFF
        self.s = s
        return s

    def u32(self):
        return (self.next() >> 16) & 0xFFFFFFFF

    def unit(self):
        return (self.next() >> 11) / float(1 << 53)

    def uniform(self, lo, hi):
        return lo + (hi - lo) * self.unit()


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def f16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def with_specials(values, specials):
    """values with its first len(specials) elements replaced."""
    out = list(values)
    out[:len(specials)] = specials
    return out


# f32 bit patterns worth adding: signed zeros, infinities, a quiet NaN,
# denormals (smallest, largest), the largest finite value, 1 and its
# neighbours, values whose sum is a rounding tie.
F32_SPECIALS = [
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
    0x00000001, 0x807FFFFF, 0x7F7FFFFF, 0x3F800000, 0x3F800001,
    0x3F7FFFFF, 0x4B800001, 0x33800000, 0xFF7FFFFF, 0x00800000,
    0x80800001,
]


class Case:
    def __init__(self, label, global_size, local_size):
        self.label = label
        self.global_size = global_size
        self.local_size = local_size
        self.buffers = []  # (name, type, count, dir, values or ("fill", v))
        self.args = []  # ("buf", name) or (type, bits)

    def buffer(self, name, typ, direction, values):
        self.buffers.append((name, typ, len(values), direction, values))
        self.args.append(("buf", name))
        return self

    def out(self, name, typ, count, fill, direction="out"):
        self.buffers.append((name, typ, count, direction, ("fill", fill)))
        self.args.append(("buf", name))
        return self

    def scalar(self, typ, bits):
        self.args.append((typ, bits))
        return self

    def local(self, nbytes):
        """A __local pointer argument of nbytes bytes."""
        self.args.append(("local", nbytes))
        return self

    def struct(self, data):
        """A struct by value: its bytes in memory order."""
        self.args.append(("struct", bytes(data)))
        return self

    def render(self):
        width = {"u16": 4, "f16": 4, "u32": 8, "i32": 8, "f32": 8,
                 "u64": 16, "f64": 16}
        lines = ["case " + self.label,
                 "global " + " ".join(map(str, self.global_size)),
                 "local " + " ".join(map(str, self.local_size))]
        for name, typ, count, direction, values in self.buffers:
            w = width[typ]
            if isinstance(values, tuple):
                lines.append("buffer %s %s %d %s fill %0*x" %
                             (name, typ, count, direction, w, values[1]))
            else:
                lines.append("buffer %s %s %d %s init" %
                             (name, typ, count, direction))
                per = 32 // (w // 2)
                for i in range(0, count, per):
                    lines.append(" ".join("%0*x" % (w, v)
                                          for v in values[i:i + per]))
        for a in self.args:
            if a[0] == "buf":
                lines.append("arg buf " + a[1])
            elif a[0] == "local":
                lines.append("arg local %d" % a[1])
            elif a[0] == "struct":
                lines.append("arg struct " + a[1].hex())
            else:
                lines.append("arg %s %0*x" % (a[0], width[a[0]], a[1]))
        lines.append("end")
        return "\n".join(lines) + "\n"


def rounded_up(n, m):
    return (n + m - 1) // m * m


# ---- the kernels ----------------------------------------------------------

def vector_add():
    cases = []
    for label, n, local, seed in [("tail_l128", 1000, 128, 1),
                                  ("partial_waves_l48", 70, 48, 2),
                                  ("groups_of_one", 5, 1, 3)]:
        g = Gen(seed)
        glob = rounded_up(n, local)
        a = [f32_bits(g.uniform(-100, 100)) for _ in range(n)]
        b = [f32_bits(g.uniform(-100, 100)) for _ in range(n)]
        if n >= 2 * len(F32_SPECIALS):
            # every special against every special in the first 256 lanes
            k = len(F32_SPECIALS)
            a = with_specials(a, [F32_SPECIALS[i // k] for i in range(k * k)])
            b = with_specials(b, [F32_SPECIALS[i % k] for i in range(k * k)])
        c = Case(label, [glob], [local])
        c.buffer("a", "f32", "in", a).buffer("b", "f32", "in", b)
        # c spans the whole grid: the tail lanes must leave it alone
        c.out("c", "f32", glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    # arbitrary bit patterns (all exponents, denormals, NaN payloads), and
    # near-cancelling pairs (b close to -a)
    g = Gen(4)
    n = 600
    a = [g.u32() for _ in range(n)]
    b = [g.u32() for _ in range(n)]
    for i in range(300, n):
        x = g.uniform(-1e3, 1e3)
        a[i] = f32_bits(x)
        b[i] = f32_bits(-x * (1.0 + g.uniform(-1e-6, 1e-6)))
    c = Case("bits_and_cancellation_l256", [768], [256])
    c.buffer("a", "f32", "in", a).buffer("b", "f32", "in", b)
    c.out("c", "f32", 768, SENTINEL32)
    c.scalar("u32", n)
    cases.append(c)
    return cases


def saxpy():
    cases = []
    for label, a, n, local, seed, xr, yr in [
            ("a1_75_l64", 1.75, 300, 64, 11, 2000.0, 500.0),
            ("a_m0_3_l128", -0.3, 200, 128, 12, 1e6, 1e3),
            ("a_m0_l32", -0.0, 60, 32, 13, 5000.0, 5000.0),
            ("specials_y_l16", 1.75, 16, 16, 14, 0.0, 0.0),
            ("log_uniform_l256", 0.8125, 1500, 256, 15, 0.0, 0.0)]:
        g = Gen(seed)
        glob = rounded_up(n, local)
        x = [f32_bits(g.uniform(-xr, xr)) for _ in range(n)]
        y = [f32_bits(g.uniform(-yr, yr)) for _ in range(n)]
        if seed == 11:
            # special x: y becomes infinite, NaN, ...; m is clamped
            x = with_specials(x, F32_SPECIALS)
        if seed == 15:
            # magnitudes spread over 1e-6 .. 1e3 (both signs), so that
            # sqrt, floor and the division see many binades
            x = [f32_bits(g.uniform(-1, 1)) for _ in range(n)]
            y = [f32_bits((1 if g.u32() & 1 else -1) *
                          10.0 ** g.uniform(-6, 3)) for _ in range(n)]
        if seed == 14:
            # x = 0: y keeps the special values, so m / (1 + |a|) meets
            # zeros, denormal quotients and the clamp limits
            y = list(reversed(F32_SPECIALS))
        if seed == 12:
            # small magnitudes: m / (1 + |a|) and sqrt of denormals/tiny values
            for i in range(0, 40):
                x[i] = f32_bits(g.uniform(-1e-30, 1e-30))
                y[i] = f32_bits(g.uniform(-1e-36, 1e-36))
        c = Case(label, [glob], [local])
        c.scalar("f32", f32_bits(a))
        c.buffer("x", "f32", "in", x)
        c.buffer("y", "f32", "inout", y)
        c.out("z", "f32", glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def reduce_sum():
    cases = []
    for label, n, local, seed in [("l256", 1000, 256, 3),
                                  ("l64", 300, 64, 4),
                                  ("l16", 100, 16, 5),
                                  ("l2", 9, 2, 6)]:
        g = Gen(seed)
        glob = rounded_up(n, local)
        # full-range values: the sums wrap around
        data = [g.u32() for _ in range(n)]
        c = Case(label, [glob], [local])
        c.buffer("in", "u32", "in", data)
        c.out("partial", "u32", glob // local + 2, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def in_out_cases(seed0, shapes, specials):
    cases = []
    for i, (label, n, local) in enumerate(shapes):
        g = Gen(seed0 + i)
        glob = rounded_up(n, local)
        data = with_specials([g.u32() for _ in range(n)], specials)
        c = Case(label, [glob], [local])
        c.buffer("in", "u32", "in", data)
        c.out("out", "u32", glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def divergence():
    # 27 and 255: long Collatz runs (the 40-step cap); 0: acc = 1 at once.
    specials = [0, 1, 2, 27, 255, 0xFFFFFFFF, 0x80000000, 97, 12, 13]
    return in_out_cases(5, [("l64", 500, 64), ("l32", 90, 32),
                            ("l100", 299, 100)], specials)


def private_array():
    specials = [0, 1, 79, 80, 0xFFFFFFFF, 0x80000000]
    return in_out_cases(9, [("l64", 200, 64), ("l20", 57, 20)], specials)


def atomics():
    cases = []
    for label, n, local, nbins, seed, mod in [
            ("bins37_l128", 700, 128, 37, 13, 1000000),
            ("bins64_l48", 230, 48, 64, 14, None),
            ("bins1_l256", 200, 256, 1, 15, None),
            ("bins5_l8", 60, 8, 5, 16, 100)]:
        g = Gen(seed)
        glob = rounded_up(n, local)
        data = [g.u32() for _ in range(n)]
        if mod:
            data = [v % mod for v in data]
        c = Case(label, [glob], [local])
        c.buffer("in", "u32", "in", data)
        # zeroed as the kernel requires; 3 words past nbins must stay zero
        c.out("bins", "u32", nbins + 3, 0)
        c.out("stats", "u32", 2, 0)
        c.scalar("u32", nbins)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def bitops64():
    specials = [0, 0xFFFFFFFFFFFFFFFF, 1 << 63, 1, 0x00000000FFFFFFFF,
                0xFFFFFFFF00000000, 1000003, 2000006, 0x7FFFFFFFFFFFFFFF,
                0x8000000080000000, 0x0123456789ABCDEF]
    cases = []
    for label, n, local, seed in [("l64", 150, 64, 17), ("l32", 33, 32, 18)]:
        g = Gen(seed)
        glob = rounded_up(n, local)
        data = with_specials([g.next() for _ in range(n)], specials)
        c = Case(label, [glob], [local])
        c.buffer("in", "u64", "in", data)
        c.out("out", "u64", 2 * glob, 0xDEADBEEFDEADBEEF)
        c.out("out32", "u32", glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def fp64_half():
    cases = []
    for label, n, local, seed in [("l64", 130, 64, 19), ("l32", 40, 32, 20),
                                  ("wide_l256", 1000, 256, 21)]:
        g = Gen(seed)
        glob = rounded_up(n, local)
        a = [g.uniform(-1e4, 1e4) * 1.37 for _ in range(n)]
        h = [f16_bits(g.uniform(-300.0, 300.0)) for _ in range(n)]
        if seed == 21:
            # a over many binades (|a * 3| < 2^31), h any finite half
            a = [(1 if g.u32() & 1 else -1) * 10.0 ** g.uniform(-12, 8.3)
                 for _ in range(n)]
            h = []
            while len(h) < n:
                v = g.u32() & 0xFFFF
                if v & 0x7C00 != 0x7C00:
                    h.append(v)
        if seed == 20:
            # signed zeros, tiny and denormal doubles, values near int
            # conversion boundaries, half denormals and the largest half
            # (the last four: y = 1.5 x is tiny or denormal, and so is
            # the quotient)
            a = with_specials(a, [0.0, -0.0, 5e-324, -1e-300, 2.5e-8, 0.1,
                                  -0.5, 1.0 / 3.0, 7e8, -7e8, 65504.0 / 1.5,
                                  1e-5, -2.9e-5, 1e-310, -2e-308, 3e-300,
                                  5e-324])
            h = with_specials(h, [0x0000, 0x8000, 0x0001, 0x83FF, 0x7BFF,
                                  0xFBFF, 0x3C00, 0x3555, 0x0400, 0xC000,
                                  0x0200, 0x8001, 0x7000, 0x0000, 0x8000,
                                  0x0000, 0x8000])
        c = Case(label, [glob], [local])
        c.buffer("a", "f64", "in", [f64_bits(v) for v in a])
        c.buffer("h", "f16", "in", h)
        c.out("out", "f64", glob, 0xDEADBEEFDEADBEEF)
        c.out("hout", "f16", glob, 0xDEAD)
        c.out("iout", "i32", glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def transpose():
    cases = []
    for label, rows, cols, seed in [("r37_c50", 37, 50, 23),
                                    ("r16_c16", 16, 16, 24),
                                    ("r1_c40", 1, 40, 25),
                                    ("r33_c17", 33, 17, 26)]:
        g = Gen(seed)
        # arbitrary bit patterns (NaNs included): a transpose moves bits
        data = [g.u32() for _ in range(rows * cols)]
        c = Case(label, [rounded_up(cols, 16), rounded_up(rows, 16)],
                 [16, 16])
        c.buffer("in", "f32", "in", data)
        c.out("out", "f32", rows * cols + 16, SENTINEL32)
        c.scalar("u32", rows)
        c.scalar("u32", cols)
        cases.append(c)
    return cases


def int_sat():
    # operand pairs at the saturation edges of every width, and random ones
    edges = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000,
             0x7FFFFFFF, 0x80000000, 0xFFFFFFF0, 0xFFFFFFFF, 0x20, 0x0000FFFF,
             0xFFFF0000, 0x40000000, 0x7FC00000, 0xFF800000, 0xBF000001]
    cases = []
    for label, n, local, seed in [("l64", 500, 64, 31), ("l32", 90, 32, 32)]:
        g = Gen(seed)
        glob = rounded_up(n, local)
        pairs = [(x, y) for x in edges for y in edges]
        a = [g.u32() for _ in range(n)]
        b = [g.u32() for _ in range(n)]
        if n >= len(pairs):
            a = with_specials(a, [x for x, _ in pairs])
            b = with_specials(b, [y for _, y in pairs])
        c = Case(label, [glob], [local])
        c.buffer("a", "u32", "in", a).buffer("b", "u32", "in", b)
        c.out("out", "u32", 16 * glob, SENTINEL32)
        c.out("fout", "f32", 4 * glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def workitem():
    # uniform launches only (PoCL runs OpenCL 1.2 here); the non-uniform
    # ones are checked against an exact host computation in
    # crates/sim/tests/kernels.rs
    cases = []
    for label, glob, local in [("d1_l64", [192], [64]),
                               ("d2_l8x4", [24, 8], [8, 4]),
                               ("d3_l4x2x3", [8, 4, 6], [4, 2, 3])]:
        total = 1
        for v in glob:
            total *= v
        c = Case(label, glob, local)
        c.out("out", "u32", 21 * total, SENTINEL32)
        cases.append(c)
    return cases


# ---- the control-flow kernels (kernels/src/cf_*.cl) ------------------------
#
# Their inputs decide which path each lane takes, so they are chosen per
# lane, never per group: random values (or random magnitudes) in every
# lane, with the edge values named in each kernel's header comment in the
# first lanes of the first wave. Three shapes: full waves of 64 and of 32
# lanes, and groups of 100 (a partial wave in every group on both wave
# sizes); n leaves a tail of work-items that return at the bounds check.

CF_SHAPES = [("l64", 500, 64), ("l32", 90, 32), ("l100", 299, 100)]


def cf_cases(seed0, value, specials, outputs=("out",), scalars=(),
             shapes=CF_SHAPES):
    """One case per shape: buffer in (n values from value(g), the first
    ones replaced by specials), the output buffers (sentinel-filled over
    the whole grid), the scalars, then n."""
    cases = []
    for i, (label, n, local) in enumerate(shapes):
        g = Gen(seed0 + i)
        glob = rounded_up(n, local)
        c = Case(label, [glob], [local])
        data = with_specials([value(g) for _ in range(n)], specials)
        c.buffer("in", "u32", "in", data)
        for name in outputs:
            c.out(name, "u32", glob, SENTINEL32)
        for typ, bits in scalars:
            c.scalar(typ, bits)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def any_u32(g):
    return g.u32()


def any_magnitude(g):
    """A random value shifted right by 0..31 bits: every decimal length."""
    return g.u32() >> (g.u32() % 32)


def byte_magnitude(g):
    """A random value shifted right by 0, 8, 16 or 24 bits."""
    return g.u32() >> (8 * (g.u32() % 4))


def regress_v_swap():
    """Two input words per work-item, the first ones special values."""
    cases = []
    for i, (label, n, local) in enumerate(CF_SHAPES):
        g = Gen(900 + i)
        glob = rounded_up(n, local)
        c = Case(label, [glob], [local])
        c.buffer("a", "u32", "in", with_specials(
            [g.u32() for _ in range(n)],
            [0, 1, 2, 7, 8, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF]))
        c.buffer("b", "u32", "in", with_specials(
            [g.u32() for _ in range(n)], [0, 0xFFFFFFFF, 3, 0x80000000]))
        c.out("out", "u32", glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def regress_fdiv_range():
    """Numerator and denominator exponents drawn from the whole double
    range (denormal to huge, both signs), the first lanes the pairs that
    reach each branch of v_div_scale_f64 and v_div_fixup_f64."""
    specials = [
        (132864879.0, 1.32864879e308),   # seed 222: 1/d denormal, q normal
        (1.0, 1.7e308),                  # q denormal
        (3e-15, 5.4e307),                # 1/d and q denormal
        (2.5e-308, 1.2e17),              # q below half the least denormal
        (1e300, 1e-10),                  # q near the top of the range
        (1.7e308, 1e-20),                # q overflows
        (5e-324, 3.0),                   # denormal numerator
        (4e-320, 7e-321),                # both denormal
        (-2.2e-308, 2.75),
        (1.0, 3.0),
        (-0.0, 5.0),
        (7.0, -0.0),
        (0.0, 0.0),
        (float("inf"), 2.0),
        (2.0, float("inf")),
        (float("nan"), 1.0),
    ]
    cases = []
    for label, n, local, seed in [("l64", 400, 64, 960), ("l32", 90, 32, 961)]:
        g = Gen(seed)

        def any_double():
            e = g.u32() % 2046 + 1 if g.u32() % 8 else 0
            hi = (g.u32() & 0x800FFFFF) | (e << 20)
            return struct.unpack("<d", struct.pack("<Q", hi << 32 | g.u32()))[0]
        pairs = [(any_double(), any_double()) for _ in range(n)]
        pairs = with_specials(pairs, specials)
        glob = rounded_up(n, local)
        c = Case(label, [glob], [local])
        c.buffer("a", "f64", "in", [f64_bits(x) for x, _ in pairs])
        c.buffer("b", "f64", "in", [f64_bits(y) for _, y in pairs])
        c.out("q", "f64", glob, 0xDEADBEEFDEADBEEF)
        c.out("r", "f64", glob, 0xDEADBEEFDEADBEEF)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def cf_if_else():
    return cf_cases(41, any_u32, [0, 1, 2, 3, 0xFFFFFFFF, 0xFFFFFFFE,
                                  0x80000000])


def cf_if():
    return cf_cases(44, any_u32, [0, 5, 6, 15, 0xFFFFFFF0, 0xFFFFFFFF])


def cf_nested_if():
    return cf_cases(47, any_u32, [0, 1, 2, 3, 5, 0xFFFFFFFF, 0xFFFFFFFE])


def cf_loop_if():
    # rounds (uniform): 5, 40 (the bit index wraps around), 0 (no
    # iteration at all)
    specials = [0, 0xFFFFFFFF, 0x55555555, 0x80000000, 1]
    cases = []
    for label, rounds, shape, seed in [
            ("r5_l64", 5, ("l64", 500, 64), 50),
            ("r40_l32", 40, ("l32", 90, 32), 51),
            ("r40_l100", 40, ("l100", 299, 100), 52),
            ("r0_l64", 0, ("l64", 100, 64), 53)]:
        c = cf_cases(seed, any_u32, specials, scalars=[("u32", rounds)],
                     shapes=[shape])[0]
        c.label = label
        cases.append(c)
    return cases


def cf_loop_break():
    return cf_cases(54, any_u32, [0, 19, 20, 39, 0xFFFFFFFF, 1],
                    outputs=("out", "iters"))


# Collatz starting values that need 350 to 524 steps to reach 1: they stop
# at cf_while's cap of 300 steps.
CF_WHILE_LONG = [77031, 142587, 156159, 216367, 230631, 410011, 511935,
                 837799]


def cf_while():
    def value(g):
        kind = g.u32() % 8
        if kind == 0:
            return g.u32() % 2  # 0 or 1: no step at all
        if kind == 1:
            return CF_WHILE_LONG[g.u32() % len(CF_WHILE_LONG)]  # the cap
        return g.u32() % 10000  # 0 to 261 steps
    # 27, 97, 871, 6171: long runs; 0xffffffff wraps around in its first step
    return cf_cases(57, value,
                    [0, 1, 2, 27, 97, 871, 77031, 0xFFFFFFFF, 6171],
                    outputs=("out", "last"))


def cf_early_return():
    return cf_cases(60, any_u32, [0, 7, 1, 16, 0xFFFFFFFF, 0x80000000, 5, 13])


def cf_switch():
    return cf_cases(63, any_u32, [0, 1, 2, 3, 4, 5, 6, 7, 0xFFFFFFFF,
                                  0x80000000])


def cf_call():
    return cf_cases(66, any_u32, [0, 8, 0x10, 0x18, 0x50, 0x90, 0xC0, 0xD0,
                                  0x110, 0xFFFFFFFF])


def cf_loop_call():
    return cf_cases(69, any_u32, [0, 24, 23, 1, 0xFFFFFFFF],
                    outputs=("out", "iters"))


def cf_do_while():
    return cf_cases(72, any_magnitude, [0, 9, 10, 99, 100, 999999999,
                                        1000000000, 0xFFFFFFFF])


def cf_else_if():
    return cf_cases(75, byte_magnitude, [0, 0xFF, 0x100, 0xFFFF, 0x10000,
                                         0x10001, 0xFFFFFFFF, 0xFFFFFFFE])


def cf_nested_loops():
    return cf_cases(78, any_u32, [0, 5, 4, 0xFFFFFFFF, 0x66666666])


def cf_ternary():
    return cf_cases(81, any_u32, [0, 1, 2, 3, 0xFFFFFFFF, 0xFFFFFFFE])


def cf_uniform():
    # mode (uniform) 1 and 3 take the then-arm, 2 the else-arm
    specials = [0, 4, 0xFFFFFFFF, 3]
    cases = []
    for mode, shape, seed in [(1, ("l64", 500, 64), 84),
                              (2, ("l32", 90, 32), 85),
                              (3, ("l100", 299, 100), 86),
                              (2, ("l64", 200, 64), 87)]:
        c = cf_cases(seed, any_u32, specials, scalars=[("u32", mode)],
                     shapes=[shape])[0]
        c.label = "mode%d_%s" % (mode, shape[0])
        cases.append(c)
    return cases


# ---- the corpus kernels of issue 10 -----------------------------------------

def u64_magnitude(g):
    """A random 64-bit value shifted right by 0..63 bits."""
    return g.next() >> (g.u32() % 64)


# 64-bit values at the edges of the signed and unsigned ranges of both
# widths (the 32-bit operations use the low halves).
DIV_EDGES = [0, 1, 0xFFFFFFFFFFFFFFFF, 2, 0xFFFFFFFFFFFFFFFE, 7,
             0x80000000, 0xFFFFFFFF80000000, 0x7FFFFFFF, 0xFFFFFFFF,
             0x8000000000000000, 0x7FFFFFFFFFFFFFFF, 0x100000000,
             0xFFFFFFFF00000000, 0x123456789, 0xFFFFFFFFFFFFFFF9]


def int_div():
    cases = []
    pairs = [(x, y) for x in DIV_EDGES for y in DIV_EDGES]
    for i, (label, n, local) in enumerate(CF_SHAPES):
        g = Gen(1000 + i)
        glob = rounded_up(n, local)
        a, b = [], []
        for j in range(n):
            a.append(u64_magnitude(g) if j % 3 else g.next())
            y = g.next()
            if j % 4 == 0:
                y >>= g.u32() % 64
            elif j % 4 == 1:
                # a 32-bit divisor of any size, sign-extended or not
                y = (g.u32() >> (g.u32() % 32)) | (
                    0xFFFFFFFF00000000 if g.u32() & 1 else 0)
            b.append(y)
        if n >= len(pairs):
            a = with_specials(a, [x for x, _ in pairs])
            b = with_specials(b, [y for _, y in pairs])
        c = Case(label, [glob], [local])
        c.buffer("a", "u64", "in", a).buffer("b", "u64", "in", b)
        c.out("out", "u64", 16 * glob, 0xDEADBEEFDEADBEEF)
        c.scalar("u32", n)
        cases.append(c)
    return cases


# floats that round differently in each mode, ties, and the edges of every
# integer range (no NaN: see convert_round.cl)
CONV_F32 = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997,
            -0.49999997, 1e10, -1e10, float("inf"), float("-inf"),
            2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0,
            4294967040.0, 4294967296.0, 255.5, 256.0, -128.5, -129.0,
            127.5, -127.5, 65535.5, 32767.5, -32768.5, -32769.0,
            9.2233715e18, 9.223372e18, -9.223372e18, 1.8446743e19,
            1.8446744e19, 1e-30, -1e-30, 1.4e-45, -0.9999999, 3.4e38,
            -3.4e38, 0.99999994, 1.0000001, -2.9999998, 16777217.0]
CONV_F64 = [0.0, -0.0, 0.5, 1.5, -2.5, 2.5, 2147483647.5, 2147483647.4,
            -2147483648.5, -2147483648.4, 4294967295.5, 4294967296.0,
            -0.5, -1.0000000000000002, 32767.5, -32768.5, -32769.0,
            65535.49, 9.223372036854775e18, 9.3e18, -9.3e18, 1.9e19,
            1.8446744073709550e19, 1e300, -1e300, float("inf"),
            float("-inf"), 5e-324, 1.0000000596046448, 1.00000005960464,
            1.0000000596046449, 3.4028235677973366e38,
            3.4028235677973362e38, 1e-45, 7e-46, -1.401298464324817e-45,
            0.1, -0.1, 16777217.0, -16777219.0]
CONV_U64 = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x1000001, 0x1000003,
            0xFFFFFFFFFFFFFFFF, 0x8000000000000000, 0x7FFFFFFFFFFFFFFF,
            0x20000010000001, 0xFFFFFF7FFFFFFFFF, 0xFFFFFF8000000000,
            0x80000080, 0x80000180, 0xFFFFFFFFFFFFFF00, 0x7FFFFF80]


def any_finite_f32_bits(g):
    while True:
        v = g.u32()
        if v & 0x7F800000 != 0x7F800000:
            return v


def any_finite_f64_bits(g):
    while True:
        v = g.next()
        if v & 0x7FF0000000000000 != 0x7FF0000000000000:
            return v


def convert_round():
    cases = []
    for i, (label, n, local) in enumerate(CF_SHAPES):
        g = Gen(1010 + i)
        glob = rounded_up(n, local)
        f, d, k = [], [], []
        for j in range(n):
            kind = j % 4
            if kind == 0:
                f.append(any_finite_f32_bits(g))
                d.append(any_finite_f64_bits(g))
            elif kind == 1:
                # around the integer ranges, with fractions
                f.append(f32_bits(g.uniform(-5e9, 5e9)))
                d.append(f64_bits(g.uniform(-2e19, 2e19)))
            else:
                # small values: every rounding matters
                f.append(f32_bits(g.uniform(-300, 300)))
                d.append(f64_bits(g.uniform(-70000, 70000)))
            k.append(u64_magnitude(g) if j % 2 else g.next())
        f = with_specials(f, [f32_bits(x) for x in CONV_F32])
        d = with_specials(d, [f64_bits(x) for x in CONV_F64])
        k = with_specials(k, CONV_U64)
        c = Case(label, [glob], [local])
        c.buffer("f", "f32", "in", f).buffer("d", "f64", "in", d)
        c.buffer("k", "u64", "in", k)
        c.out("iout", "u32", 16 * glob, SENTINEL32)
        c.out("lout", "u64", 4 * glob, 0xDEADBEEFDEADBEEF)
        c.out("fout", "f32", 8 * glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


HALF_SPECIALS = [0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0xFBFF,
                 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE55, 0x3C00, 0x3BFF,
                 0x3C01, 0x3555]
# floats between halves: ties, just above/below ties, overflow, underflow
HALF_F32 = [0.0, -0.0, 1.0, 1.0 + 2 ** -11, 1.0 + 2 ** -11 + 2 ** -20,
            1.0 + 3 * 2 ** -11, -(1.0 + 2 ** -11), 65504.0, 65519.0,
            65520.0, 1e6, -1e6, float("inf"), float("-inf"), float("nan"),
            2 ** -24, 2 ** -25, 2 ** -25 + 2 ** -40, 3 * 2 ** -26,
            -(2 ** -26), 2 ** -14 - 2 ** -25, 6.1e-5, -3.0e-8, 1e-30,
            0.1, -0.1, 1.4e-45, 3.14159]


def half_conv():
    cases = []
    for i, (label, n, local) in enumerate(CF_SHAPES):
        g = Gen(1020 + i)
        glob = rounded_up(n, local)
        h = [g.u32() & 0xFFFF for _ in range(4 * n)]
        h = with_specials(h, HALF_SPECIALS)
        f, d = [], []
        for j in range(n):
            if j % 2:
                f.append(g.u32())  # any pattern, NaNs included
                d.append(g.next())
            else:
                e = g.uniform(-28, 17)
                v = (1 if g.u32() & 1 else -1) * 2.0 ** e
                f.append(f32_bits(v))
                d.append(f64_bits(v * (1 + g.uniform(-1e-9, 1e-9))))
        f = with_specials(f, [f32_bits(x) for x in HALF_F32])
        d = with_specials(d, [f64_bits(x) for x in HALF_F32] +
                          [f64_bits(1.0 + 2 ** -11 + 2 ** -50),
                           f64_bits(-(1.0 + 2 ** -11 - 2 ** -50))])
        c = Case(label, [glob], [local])
        c.buffer("h", "f16", "in", h).buffer("f", "f32", "in", f)
        c.buffer("d", "f64", "in", d)
        c.out("fout", "f32", 6 * glob, SENTINEL32)
        c.out("hout", "f16", 16 * glob, 0xDEAD)
        c.scalar("u32", n)
        cases.append(c)
    return cases


VEC_EDGES = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF,
             0x80000000, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x01FF80FE,
             0x8000FFFF, 0x00017FFF]


def vec_int():
    cases = []
    for i, (label, n, local) in enumerate(CF_SHAPES):
        g = Gen(1030 + i)
        glob = rounded_up(n, local)
        data = [g.u32() for _ in range(16 * n)]
        # work-items 0-3: edge words in every position
        edge = [VEC_EDGES[(j * 5 + j // 16) % len(VEC_EDGES)]
                for j in range(64)]
        data = with_specials(data, edge)
        c = Case(label, [glob], [local])
        c.buffer("in", "u32", "in", data)
        c.out("out", "u32", 16 * glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def vec_float():
    cases = []
    k = len(F32_SPECIALS)
    for i, (label, n, local) in enumerate(CF_SHAPES):
        g = Gen(1040 + i)
        glob = rounded_up(n, local)
        a, b = [], []
        for j in range(4 * n):
            if j % 3 == 0:
                a.append(g.u32())
                b.append(g.u32())
            else:
                a.append(f32_bits(g.uniform(-1e4, 1e4)))
                b.append(f32_bits(g.uniform(-100, 100)))
        # every special against every special in the first 64 work-items
        a = with_specials(a, [F32_SPECIALS[j // k] for j in range(k * k)])
        b = with_specials(b, [F32_SPECIALS[j % k] for j in range(k * k)])
        cd = []
        for j in range(2 * n):
            if j % 2:
                cd.append(any_finite_f64_bits(g))
            else:
                cd.append(f64_bits(g.uniform(-1e3, 1e3)))
        cd = with_specials(cd, [f64_bits(x) for x in [
            0.0, -0.0, float("inf"), float("-inf"), float("nan"), 5e-324,
            -1.7976931348623157e308, 1.0, 2.0, -3.0, 1e-310, 4.0]])
        c = Case(label, [glob], [local])
        c.buffer("a", "f32", "in", a).buffer("b", "f32", "in", b)
        c.buffer("c", "f64", "in", cd)
        c.out("fout", "f32", 12 * glob, SENTINEL32)
        c.out("dout", "f64", 4 * glob, 0xDEADBEEFDEADBEEF)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def scan_local():
    cases = []
    for label, n, local, seed in [("l256", 1000, 256, 1050),
                                  ("l64", 300, 64, 1051),
                                  ("l100", 299, 100, 1052),
                                  ("l48", 100, 48, 1053),
                                  ("l1", 3, 1, 1054)]:
        g = Gen(seed)
        glob = rounded_up(n, local)
        data = with_specials([g.u32() for _ in range(n)],
                             [0xFFFFFFFF, 1, 0x80000000, 0x80000000, 0])
        c = Case(label, [glob], [local])
        c.buffer("in", "u32", "in", data)
        c.out("incl", "u32", glob, SENTINEL32)
        c.out("excl", "u32", glob, SENTINEL32)
        c.out("wide", "u64", glob, 0xDEADBEEFDEADBEEF)
        c.out("total", "u32", glob // local + 2, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def matmul_tiled():
    cases = []
    for label, m, k, p, seed in [("m20_k13_p27", 20, 13, 27, 1060),
                                 ("m8_k8_p8", 8, 8, 8, 1061),
                                 ("m1_k30_p5", 1, 30, 5, 1062),
                                 ("m33_k17_p9", 33, 17, 9, 1063)]:
        g = Gen(seed)
        a = [g.u32() for _ in range(m * k)]
        b = [g.u32() for _ in range(k * p)]
        c = Case(label, [rounded_up(p, 8), rounded_up(m, 8)], [8, 8])
        c.buffer("A", "u32", "in", a).buffer("B", "u32", "in", b)
        c.out("C", "u32", m * p + 8, SENTINEL32)
        c.scalar("u32", m).scalar("u32", k).scalar("u32", p)
        cases.append(c)
    return cases


def atomics64():
    cases = []
    for label, n, local, seed in [("l128", 700, 128, 1070),
                                  ("l48", 230, 48, 1071),
                                  ("l256", 200, 256, 1072),
                                  ("l8", 60, 8, 1073),
                                  ("l32", 90, 32, 1074)]:
        g = Gen(seed)
        glob = rounded_up(n, local)
        data = with_specials([g.next() for _ in range(n)],
                             [0, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000,
                              0x7FFFFFFFFFFFFFFF, 0x80000000, 0x7FFFFFFF])
        c = Case(label, [glob], [local])
        c.buffer("in", "u64", "in", data)
        c.buffer("g", "u64", "inout", [0, 0x7FFFFFFFFFFFFFFF,
                                       0x8000000000000000,
                                       0xFFFFFFFFFFFFFFFF, 0, 0, 0, 0])
        c.buffer("gi", "i32", "inout", [0, 0, 0x7FFFFFFF, 0x80000000, 0, 0])
        c.buffer("slots", "u64", "inout", [g.next() for _ in range(glob)])
        c.out("old", "u64", 2 * glob, 0xDEADBEEFDEADBEEF)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def struct_args():
    cases = []
    for i, (label, n, local) in enumerate(CF_SHAPES + [("l1", 5, 1)]):
        g = Gen(1080 + i)
        glob = rounded_up(n, local)
        params = struct.pack("<BBhIQiI4I", g.u32() & 0xFF, g.u32() & 0xFF,
                             -12345 + i, g.u32(), g.next(),
                             -(g.u32() >> 1), [3, 33, 64, 70][i],
                             g.u32(), g.u32(), g.u32(), g.u32())
        assert len(params) == 40
        c = Case(label, [glob], [local])
        c.struct(params)
        c.buffer("in", "u32", "in", with_specials(
            [g.u32() for _ in range(n)], [0, 0xFFFFFFFF, 1, 0x80000000]))
        c.local(4 * local).local(8 * local)
        c.out("out", "u32", 3 * glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def grid3d():
    cases = []
    for label, size, local, seed in [
            ("d3_10x7x5_l4x2x3", [10, 7, 5], [4, 2, 3], 1090),
            ("d3_16x4x4_l16x4x1", [16, 4, 4], [16, 4, 1], 1091),
            ("d3_5x6x7_l1x2x7", [5, 6, 7], [1, 2, 7], 1092),
            ("d2_37x11_l8x4", [37, 11], [8, 4], 1093),
            ("d1_100_l64", [100], [64], 1094)]:
        g = Gen(seed)
        full = (size + [1, 1])[:3]
        total = full[0] * full[1] * full[2]
        c = Case(label, [rounded_up(s, l) for s, l in zip(size, local)],
                 local)
        c.buffer("in", "u32", "in", [g.u32() for _ in range(total)])
        c.out("out", "u32", total + 4, SENTINEL32)
        c.out("info", "u32", total + 4, SENTINEL32)
        for s in full:
            c.scalar("u32", s)
        cases.append(c)
    return cases


def call_chain():
    return cf_cases(1100, any_u32, [0, 1, 95, 96, 0xFFFFFFFF, 0x80000000, 4,
                                    5, 0x10000007, 0xF000000F])


def const_tables():
    cases = []
    for i, (label, n, local) in enumerate(CF_SHAPES):
        g = Gen(1110 + i)
        glob = rounded_up(n, local)
        c = Case(label, [glob], [local])
        c.buffer("in", "u32", "in", with_specials(
            [g.u32() for _ in range(n)],
            [0, 0xFFFFFFFF, 0x12345678, 0xFC000000, 0x03FFFFFF]))
        c.buffer("key", "u32", "in", [g.u32() for _ in range(16)])
        c.out("out", "u32", 3 * glob, SENTINEL32)
        c.scalar("u32", n)
        cases.append(c)
    return cases


def narrow_types():
    cases = []
    for i, (label, n, local) in enumerate(CF_SHAPES):
        g = Gen(1120 + i)
        glob = rounded_up(n, local)
        cb = with_specials([g.u32() & 0xFF for _ in range(rounded_up(n, 4))],
                           [0x00, 0x7F, 0x80, 0xFF, 0x01, 0xFE, 0x81, 0x40])
        words = [cb[j] | cb[j + 1] << 8 | cb[j + 2] << 16 | cb[j + 3] << 24
                 for j in range(0, len(cb), 4)]
        sh = with_specials([g.u32() & 0xFFFF for _ in range(n)],
                           [0x8000, 0x7FFF, 0xFFFF, 0x0000, 0x0001, 0x8001,
                            0xFF80, 0x0080])
        c = Case(label, [glob], [local])
        c.buffer("c", "u32", "in", words)
        c.buffer("s", "u16", "in", sh)
        c.buffer("l", "u64", "in", with_specials(
            [g.next() for _ in range(n)],
            [0, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000]))
        c.out("oc", "u32", glob, SENTINEL32)  # 4 bytes per work-item
        c.out("os", "u16", 2 * glob, 0xDEAD)
        c.out("ow", "u32", glob, SENTINEL32)
        c.out("od", "f64", glob, 0xDEADBEEFDEADBEEF)
        c.scalar("u32", n)
        cases.append(c)
    return cases


KERNELS = {
    "atomics": atomics,
    "atomics64": atomics64,
    "bitops64": bitops64,
    "call_chain": call_chain,
    "const_tables": const_tables,
    "convert_round": convert_round,
    "cf_call": cf_call,
    "cf_do_while": cf_do_while,
    "cf_early_return": cf_early_return,
    "cf_else_if": cf_else_if,
    "cf_if": cf_if,
    "cf_if_else": cf_if_else,
    "cf_loop_break": cf_loop_break,
    "cf_loop_call": cf_loop_call,
    "cf_loop_if": cf_loop_if,
    "cf_nested_if": cf_nested_if,
    "cf_nested_loops": cf_nested_loops,
    "cf_switch": cf_switch,
    "cf_ternary": cf_ternary,
    "cf_uniform": cf_uniform,
    "cf_while": cf_while,
    "divergence": divergence,
    "fp64_half": fp64_half,
    "grid3d": grid3d,
    "half_conv": half_conv,
    "int_div": int_div,
    "int_sat": int_sat,
    "matmul_tiled": matmul_tiled,
    "narrow_types": narrow_types,
    "private_array": private_array,
    "reduce_sum": reduce_sum,
    "scan_local": scan_local,
    "struct_args": struct_args,
    "saxpy": saxpy,
    "transpose": transpose,
    "regress_fdiv_range": regress_fdiv_range,
    "regress_v_swap": regress_v_swap,
    "vec_float": vec_float,
    "vec_int": vec_int,
    "vector_add": vector_add,
    "workitem": workitem,
}


# Kernels of kernels/src without a PoCL reference: PoCL 3.1 has neither
# cl_khr_subgroups, nor the OpenCL C 2.0 work-group functions, nor
# cl_khr_fp16, so it cannot build subgroup_ops, subgroup_ext, workgroup_ops
# and fp16_arith; printf_fmt's result is its printf output, which the
# references here (buffers only) do not record. sim-tests/tests/
# host_checked.rs checks them against an exact host computation (the C
# library's printf for printf_fmt) instead; image_rw (image arguments, which
# this harness does not create) is checked by crates/host/tests/image_kernels.rs,
# and gds_sync (AMD's GWS and ordered-count built-ins, which PoCL does not
# have) by crates/sim/tests/gds_kernels.rs.
# Keep in step with every_kernel_has_a_reference in sim-tests/tests/pocl_differential.rs.
NO_POCL = {"fp16_arith", "gds_sync", "image_rw", "printf_fmt", "subgroup_ext",
           "subgroup_ops", "workgroup_ops"}


def fail(msg):
    sys.stderr.write("gen.py: %s\n" % msg)
    sys.exit(1)


def run(cmd, env=None):
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env=env)
    if proc.returncode != 0:
        fail("command failed (exit %d): %s\n%s%s" % (
            proc.returncode, " ".join(cmd), proc.stdout, proc.stderr))


def generate(out_dir, work):
    sources = sorted(f[:-3] for f in os.listdir(os.path.join(ROOT, "kernels",
                                                             "src"))
                     if f.endswith(".cl") and f[:-3] not in NO_POCL)
    if sources != sorted(KERNELS):
        fail("kernels/src/*.cl (%s) and the kernels of gen.py (%s) differ" %
             (", ".join(sources), ", ".join(sorted(KERNELS))))
    host = os.path.join(work, "pocl_host")
    run([C_COMPILER, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror",
         os.path.join(POCL_DIR, "host.c"), "-lOpenCL", "-o", host])
    cache = os.path.join(work, "pocl-cache")
    os.mkdir(cache)
    env = dict(os.environ, LC_ALL="C", POCL_CACHE_DIR=cache)
    env.pop("POCL_DEVICES", None)
    jobs = []
    for name in sorted(KERNELS):
        spec = os.path.join(work, name + ".spec")
        with open(spec, "w") as f:
            f.write("kernel %s\nsource kernels/src/%s.cl\noptions %s\n" %
                    (name, name, OPTIONS))
            for c in KERNELS[name]():
                f.write("\n" + c.render())
        jobs.append([host, spec, os.path.join(out_dir, name + ".txt")])
    # Each run is one process with its own output file: running them side by
    # side changes nothing in what they write (PoCL's kernel cache is keyed by
    # source and options, and each kernel has its own source).
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        for _ in pool.map(lambda cmd: run(cmd, env), jobs):
            pass


def main(argv):
    check = argv == ["--check"]
    if argv and not check:
        fail("usage: gen.py [--check]")
    global C_COMPILER
    C_COMPILER = next((c for c in ["gcc", "cc", "clang-19"] if shutil.which(c)),
                      None)
    if not C_COMPILER:
        fail("no C compiler (gcc, cc, clang-19) found; apt-get install -y "
             "gcc ocl-icd-opencl-dev pocl-opencl-icd")
    if not os.path.exists("/usr/include/CL/cl.h"):
        fail("OpenCL headers not found; apt-get install -y ocl-icd-opencl-dev "
             "pocl-opencl-icd")
    with tempfile.TemporaryDirectory(prefix="amdsim-pocl-") as work:
        out = os.path.join(work, "ref")
        os.mkdir(out)
        generate(out, work)
        if not check:
            if os.path.isdir(REF_DIR):
                shutil.rmtree(REF_DIR)
            shutil.copytree(out, REF_DIR)
            print("wrote %s (%d files)" % (os.path.relpath(REF_DIR, ROOT),
                                           len(os.listdir(out))))
            return 0
        new = sorted(os.listdir(out))
        old = sorted(os.listdir(REF_DIR)) if os.path.isdir(REF_DIR) else []
        bad = 0
        for name in sorted(set(new) | set(old)):
            if name not in old:
                print("missing from %s: %s" % (REF_DIR, name))
                bad += 1
                continue
            if name not in new:
                print("extra file in %s: %s" % (REF_DIR, name))
                bad += 1
                continue
            with open(os.path.join(out, name)) as f:
                a = f.read().splitlines(keepends=True)
            with open(os.path.join(REF_DIR, name)) as f:
                b = f.read().splitlines(keepends=True)
            if a != b:
                if not bad:
                    sys.stdout.writelines(list(difflib.unified_diff(
                        b, a, "committed/" + name, "regenerated/" + name))[:60])
                print("differs: %s" % name)
                bad += 1
        if bad:
            print("kernels/pocl/ref is out of date (%d files); run "
                  "kernels/pocl/gen.py" % bad)
            return 1
        print("kernels/pocl/ref is up to date (%d files)" % len(new))
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

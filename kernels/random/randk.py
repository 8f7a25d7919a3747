#!/usr/bin/env python3
"""The random-kernel differential: random OpenCL C kernels, compiled by clang-19 for
every target at -O0 -g and -O2, run on amdsim and on PoCL, results compared.

Usage:
    randk.py source SEED               print the kernel of SEED
    randk.py run SEEDS [options]       generate, build, run on both sides, compare

SEEDS is a list of numbers and ranges: "7", "0-19", "3,8,100-103".
Options of run:
    --keep DIR        keep every seed's files (source, spec, PoCL reference, code
                      objects) in DIR/<seed>/ (failing seeds are always kept when
                      --keep is given; without it nothing is kept)
    --targets LIST    comma-separated subset of the eight targets (default: all)
    --opts LIST       comma-separated subset of O0g,O2 (default: both)
    --jobs N          parallel compiler processes (default: the number of cores)
    --source FILE     run FILE instead of the generated kernel, with the seed's launch
                      and inputs (for reducing a failing kernel by hand; one seed)

A seed fully determines the kernel, its launch and its inputs, so any failure is
reproduced by hand with `randk.py run SEED --keep /tmp/rk` and the files it leaves.
Exit status: 0 when every seed matches PoCL on every target and build, 1 when any
differs (or fails to build, run or replay), 2 on a usage error.

What a kernel contains (see Gen below): 32- and 64-bit unsigned and signed integer
arithmetic written so that no operation is undefined in OpenCL C (signed arithmetic
goes through unsigned; divisions are guarded; shifts use OpenCL's masked counts),
integer built-ins (rotate, clz, popcount, mul_hi, mad_hi, add_sat, sub_sat, hadd,
rhadd, abs_diff, min, max, mul24, mad24, upsample, bitselect, saturating conversions),
single-precision floats restricted to correctly rounded operations (+, -, *, fmin,
fmax, fabs, floor, ceil, trunc, rint, conversions with explicit rounding) with
contraction off, double precision with division, sqrt and fma (correctly rounded in
OpenCL), divergent if/else, loops with break and continue, while loops, switch,
early return, noinline functions, a private array indexed at run time, an LDS
exchange between work-items across a barrier and commutative global atomics.

The comparison (sim-tests/src/bin/pocl_replay.rs): integers bit for bit, floats bit
for bit except that any NaN matches any NaN and +0 matches -0 (fmin/fmax of zeros of
different signs may return either).
"""

import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

RANDOM_DIR = os.path.dirname(os.path.abspath(__file__))
KERNELS_DIR = os.path.dirname(RANDOM_DIR)
ROOT = os.path.dirname(KERNELS_DIR)
sys.dont_write_bytecode = True  # no __pycache__ beside the imported scripts
sys.path.insert(0, os.path.join(KERNELS_DIR, "pocl"))
sys.path.insert(0, os.path.join(KERNELS_DIR, "tools"))
import build as kbuild  # noqa: E402  (kernels/tools/build.py: targets, clang flags)
import gen as pocl  # noqa: E402  (kernels/pocl/gen.py: xorshift, cases)

# Wall-clock limits of one PoCL run and of one seed's replays (every build).
POCL_TIMEOUT_S = 120
REPLAY_TIMEOUT_S = 600
OPTS = {"O0g": ["-O0", "-g"], "O2": ["-O2"]}
KERNEL = "rk"
# Values per work-item in the output buffers.
NU = 8   # uint variables
NL = 3   # ulong variables (two uints each)
NF = 3   # float variables
ND = 2   # double variables

# Rounding suffixes of saturating float-to-integer conversions. Not `_rte`: PoCL 3.1
# folds `convert_int_sat_rte` (and the other `_sat_rte` forms) of an out-of-range
# constant into a kernel that stores nothing at all (kernels/random/README.md).
SAT_ROUNDING = ["", "_rtz", "_rtp", "_rtn"]
ATOMICS = ["add", "xor", "or", "and", "min", "max"]
U32_SPECIALS = [0, 1, 2, 3, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFFFF,
                0x10000, 0xFF, 0x100, 0x55555555, 0xAAAAAAAA, 31, 32, 33]


class Gen:
    """One random kernel, a pure function of its seed."""

    def __init__(self, seed):
        self.r = pocl.Gen(0x9E3779B97F4A7C15 ^ (seed * 0x2545F4914F6CDD1D
                                               & 0xFFFFFFFFFFFFFFFF) or 1)
        for _ in range(4):
            self.r.next()
        self.seed = seed
        self.tmp = 0
        self.funcs = []
        self.depth = 0
        # Early returns only after the LDS exchange: its barrier must be reached by
        # every work-item of the group.
        self.may_return = False

    # -- choices --------------------------------------------------------------
    def below(self, n):
        return self.r.u32() % n

    def chance(self, p):
        return self.r.unit() < p

    def pick(self, xs):
        return xs[self.below(len(xs))]

    def fresh(self, prefix):
        self.tmp += 1
        return "%s%d" % (prefix, self.tmp)

    def const32(self):
        if self.chance(0.4):
            return "0x%xu" % self.pick(U32_SPECIALS)
        if self.chance(0.5):
            return "%du" % self.below(64)
        return "0x%08xu" % self.r.u32()

    # -- expressions (every one a well-defined value of its type) ---------------
    def u32(self, d):
        """An expression of type uint."""
        if d <= 0 or self.chance(0.25):
            k = self.below(10)
            if k < 6:
                return "x%d" % self.below(NU)
            if k < 7:
                return "(uint)l%d" % self.below(NL)
            if k < 8:
                return "(uint)(l%d >> %d)" % (self.below(NL), 32)
            return self.const32()
        a = lambda: self.u32(d - 1)  # noqa: E731
        k = self.below(52)
        if k >= 44:
            return self.narrow(d)
        if k < 10:
            op = self.pick(["+", "-", "*", "&", "|", "^", "+", "-", "^", "*"])
            return "(%s %s %s)" % (a(), op, a())
        if k < 12:
            op = self.pick(["<<", ">>"])
            if self.chance(0.5):
                return "(%s %s (%s & 31u))" % (a(), op, a())
            return "(%s %s %s)" % (a(), op, a())  # OpenCL masks the count
        if k < 14:
            y = self.fresh("q")
            op = self.pick(["/", "%"])
            # a guarded division: the divisor is never 0
            return "({ uint %s = %s; %s ? (%s) %s %s : 0x%xu; })" % (
                y, a(), y, a(), op, y, self.r.u32())
        if k < 16:
            # signed division: never by 0, never INT_MIN / -1
            p, q = self.fresh("p"), self.fresh("q")
            op = self.pick(["/", "%"])
            return ("({ int %s = (int)%s, %s = (int)%s; "
                    "(%s == 0 || (%s == -1 && %s == INT_MIN)) ? (uint)%s : "
                    "(uint)(%s %s %s); })") % (p, a(), q, a(), q, q, p, p, p, op, q)
        if k < 18:
            op = self.pick(["<", "<=", ">", ">=", "==", "!="])
            if self.chance(0.5):
                return "(uint)(%s %s %s)" % (a(), op, a())
            return "(uint)((int)%s %s (int)%s)" % (a(), op, a())
        if k < 19:
            return "(%s ? %s : %s)" % (self.cond(d - 1), a(), a())
        if k < 20:
            return "(~%s)" % a()
        if k < 21:
            return "(uint)((int)%s >> (%s & 31u))" % (a(), a())
        if k < 31:
            f = self.pick(["rotate", "mul_hi", "add_sat", "sub_sat", "hadd",
                           "rhadd", "abs_diff", "min", "max", "mad_hi"])
            if f == "mad_hi":
                return "mad_hi(%s, %s, %s)" % (a(), a(), a())
            if self.chance(0.4) and f != "abs_diff":
                return "(uint)%s((int)%s, (int)%s)" % (f, a(), a())
            if f == "abs_diff" and self.chance(0.4):
                # halved: ROCm's abs_diff(int, int) computes max - min with `sub nsw`,
                # so a difference beyond INT_MAX is poison there (the optimiser then
                # folds it into |x - y| with wrap-around)
                return "abs_diff((int)%s >> 1, (int)%s >> 1)" % (a(), a())
            return "%s(%s, %s)" % (f, a(), a())
        if k < 34:
            f = self.pick(["clz", "popcount", "clz"])
            if self.chance(0.3):
                return "(uint)%s((int)%s)" % (f, a())
            return "%s(%s)" % (f, a())
        if k < 35:
            return "mul24(%s & 0xffffffu, %s & 0xffffffu)" % (a(), a())
        if k < 36:
            # operands small enough that x * y + z cannot overflow: ROCm's mad24(int)
            # multiplies and adds with `nsw`
            return "(uint)mad24((int)(%s & 0x7fffu), (int)(%s & 0x7fffu), (int)%s >> 2)" % (
                a(), a(), a())
        if k < 37:
            return "upsample((ushort)%s, (ushort)%s)" % (a(), a())
        if k < 38:
            return "bitselect(%s, %s, %s)" % (a(), a(), a())
        if k < 40:
            t = self.pick(["uchar", "char", "ushort", "short"])
            if self.chance(0.5):
                return "(uint)convert_%s_sat((int)%s)" % (t, a())
            return "(uint)(%s)%s" % (t, a())
        if k < 41:
            t = self.pick(["uint", "int"])
            return "(uint)convert_%s_sat(%s)" % (t, self.u64(d - 1) if t == "uint"
                                                 else "(long)" + self.u64(d - 1))
        if k < 43:
            t, rnd = self.pick(["uint", "int"]), self.pick(SAT_ROUNDING)
            src = self.f32(d - 1) if self.chance(0.6) else self.f64(d - 1)
            return "(uint)SAT(convert_%s_sat%s, %s)" % (t, rnd, src)
        return "(uint)popcount(%s)" % self.u64(d - 1)

    def narrow(self, d):
        """A uint from 8- and 16-bit arithmetic, scalar or in short vectors (the
        16-bit, SDWA and packed instructions). Operands of `+ - *` are converted to
        uint first where C's promotion to int could overflow."""
        a = lambda: self.u32(d - 1)  # noqa: E731
        t = self.pick(["ushort", "short", "uchar", "char"])
        bits = 16 if t.endswith("short") else 8
        k = self.below(8)
        if k < 2:
            op = self.pick(["+", "-", "*", "&", "|", "^"])
            return "(uint)(%s)(%s %s %s)" % (t, a(), op, a())
        if k < 3:
            # the shifted value is promoted to int: non-negative for unsigned types,
            # sign-extended (arithmetic shift) for signed ones
            return "(uint)(%s)((%s)%s >> (%s & %du))" % (t, t, a(), a(), bits - 1)
        if k < 5:
            f = self.pick(["add_sat", "sub_sat", "min", "max", "hadd", "rhadd", "mul_hi",
                           "abs_diff", "rotate"])
            return "(uint)%s((%s)%s, (%s)%s)" % (f, t, a(), t, a())
        if k < 6:
            f = self.pick(["clz", "popcount"])
            return "(uint)%s((%s)%s)" % (f, t, a())
        # two-element vectors: packed 16-bit math (v_pk_*), or byte lanes
        op = self.pick(["+", "-", "*", "&", "^", ">>", "<<", "min", "max", "add_sat",
                        "sub_sat", "hadd", "mul_hi"])
        if op in ("+", "-", "*", "<<"):
            # signed vector arithmetic that overflows is undefined: unsigned elements
            t = t if t.startswith("u") else "u" + t
        vt = t + "2"
        v = self.fresh("v")
        x = "(%s)((%s)%s, (%s)%s)" % (vt, t, a(), t, a())
        y = "(%s)((%s)%s, (%s)%s)" % (vt, t, a(), t, a())
        if op in ("+", "-", "*"):
            # per-element arithmetic on 8/16-bit vectors wraps (no promotion)
            e = "%s %s %s" % (x, op, y)
        elif op in (">>", "<<"):
            e = "%s %s (%s & (%s)%du)" % (x, op, y, vt, bits - 1)
        elif op in ("&", "^"):
            e = "%s %s %s" % (x, op, y)
        else:
            e = "%s(%s, %s)" % (op, x, y)
        mask = (1 << bits) - 1
        return "({ %s %s = %s; (uint)(%s.x & 0x%xu) | (uint)(%s.y & 0x%xu) << %d; })" % (
            vt, v, e, v, mask, v, mask, bits)

    def u64(self, d):
        """An expression of type ulong."""
        if d <= 0 or self.chance(0.3):
            k = self.below(4)
            if k < 2:
                return "l%d" % self.below(NL)
            if k < 3:
                return "(ulong)x%d" % self.below(NU)
            return "0x%016xul" % self.r.next()
        a = lambda: self.u64(d - 1)  # noqa: E731
        k = self.below(20)
        if k < 7:
            op = self.pick(["+", "-", "*", "&", "|", "^", "*"])
            return "(%s %s %s)" % (a(), op, a())
        if k < 9:
            op = self.pick(["<<", ">>"])
            return "(%s %s %s)" % (a(), op, self.u32(d - 1))
        if k < 11:
            y = self.fresh("q")
            op = self.pick(["/", "%"])
            return "({ ulong %s = %s; %s ? (%s) %s %s : 0x%xul; })" % (
                y, a(), y, a(), op, y, self.r.next())
        if k < 12:
            p, q = self.fresh("p"), self.fresh("q")
            return ("({ long %s = (long)%s, %s = (long)%s; "
                    "(%s == 0 || (%s == -1 && %s == LONG_MIN)) ? (ulong)%s : "
                    "(ulong)(%s / %s); })") % (p, a(), q, a(), q, q, p, p, p, q)
        if k < 15:
            f = self.pick(["rotate", "mul_hi", "add_sat", "sub_sat", "min", "max",
                           "hadd"])
            if self.chance(0.4):
                return "(ulong)%s((long)%s, (long)%s)" % (f, a(), a())
            return "%s(%s, %s)" % (f, a(), a())
        if k < 16:
            return "upsample(%s, %s)" % (self.u32(d - 1), self.u32(d - 1))
        if k < 17:
            return "clz(%s)" % a()
        if k < 18:
            return "(ulong)(long)(int)%s" % self.u32(d - 1)
        if k < 19:
            return "(ulong)SAT(convert_long_sat%s, %s)" % (
                self.pick(SAT_ROUNDING), self.f64(d - 1))
        return "(%s ? %s : %s)" % (self.cond(d - 1), a(), a())

    def f32(self, d):
        """An expression of type float, from correctly rounded operations only."""
        if d <= 0 or self.chance(0.3):
            k = self.below(6)
            if k < 4:
                return "f%d" % self.below(NF)
            if k < 5:
                return "convert_float%s(%s)" % (
                    self.pick(["", "_rte", "_rtz", "_rtp", "_rtn"]),
                    self.pick(["x%d" % self.below(NU), "(int)x%d" % self.below(NU),
                               "l%d" % self.below(NL), "(long)l%d" % self.below(NL)]))
            return self.pick(["0.5f", "-1.0f", "3.0f", "1e30f", "-1e-30f", "0.0f",
                              "-0.0f", "1.1754944e-38f", "65504.0f"])
        a = lambda: self.f32(d - 1)  # noqa: E731
        k = self.below(12)
        if k < 5:
            return "(%s %s %s)" % (a(), self.pick(["+", "-", "*", "+", "*"]), a())
        if k < 7:
            return "%s(%s, %s)" % (self.pick(["fmin", "fmax"]), a(), a())
        if k < 9:
            return "%s(%s)" % (self.pick(["fabs", "floor", "ceil", "trunc", "rint"]),
                               a())
        if k < 10:
            return "(-(%s))" % a()
        if k < 11:
            return "convert_float%s(%s)" % (self.pick(["", "_rte", "_rtz", "_rtp", "_rtn"]),
                                            self.f64(d - 1))
        return "(%s ? %s : %s)" % (self.cond(d - 1), a(), a())

    def f64(self, d):
        """An expression of type double, from correctly rounded operations only."""
        if d <= 0 or self.chance(0.3):
            k = self.below(5)
            if k < 3:
                return "g%d" % self.below(ND)
            if k < 4:
                return "convert_double(%s)" % self.pick(
                    ["f%d" % self.below(NF), "(int)x%d" % self.below(NU),
                     "x%d" % self.below(NU), "(long)l%d" % self.below(NL)])
            return self.pick(["0.25", "-3.0", "1e300", "1e-300", "0.0", "-0.0",
                              "2.2250738585072014e-308"])
        a = lambda: self.f64(d - 1)  # noqa: E731
        k = self.below(12)
        if k < 4:
            return "(%s %s %s)" % (a(), self.pick(["+", "-", "*", "*"]), a())
        if k < 5:
            # never a division by zero: fmin/fmax may give either zero for zeros
            # of different signs, and x / -0 is not x / +0
            return "(%s / (fabs(%s) + 1.0))" % (a(), a())
        if k < 6:
            return "sqrt(%s)" % a()
        if k < 7:
            return "fma(%s, %s, %s)" % (a(), a(), a())
        if k < 9:
            return "%s(%s, %s)" % (self.pick(["fmin", "fmax"]), a(), a())
        if k < 11:
            return "%s(%s)" % (self.pick(["fabs", "floor", "ceil", "trunc", "rint"]), a())
        return "(%s ? %s : %s)" % (self.cond(d - 1), a(), a())

    def cond(self, d):
        """A condition: usually different in different lanes."""
        k = self.below(10)
        if k < 4:
            return "((%s & %du) == 0u)" % (self.u32(d), self.pick([1, 2, 3, 4, 7, 8, 16]))
        if k < 6:
            return "(%s %s %s)" % (self.u32(d), self.pick(["<", ">", "<=", "!="]),
                                   self.u32(d))
        if k < 7:
            return "((int)%s < (int)%s)" % (self.u32(d), self.u32(d))
        if k < 8:
            return "(%s %s %s)" % (self.f32(d), self.pick(["<", ">", "==", "!="]),
                                   self.f32(d))
        if k < 9:
            return "(%s < %s)" % (self.u64(d), self.u64(d))
        return "(%s < %s)" % (self.f64(d), self.f64(d))

    # -- statements -------------------------------------------------------------
    def assign(self, ind, d):
        k = self.below(10)
        if k < 6:
            v = "x%d" % self.below(NU)
            op = self.pick(["=", "=", "+=", "^=", "-=", "|="])
            return "%s%s %s %s;" % (ind, v, op, self.u32(d))
        if k < 8:
            return "%sl%d = %s;" % (ind, self.below(NL), self.u64(d))
        if k < 9:
            return "%sf%d = %s;" % (ind, self.below(NF), self.f32(d))
        return "%sg%d = %s;" % (ind, self.below(ND), self.f64(d))

    def block(self, ind, n, depth, in_loop, in_func):
        out = []
        for _ in range(n):
            out += self.stmt(ind, depth, in_loop, in_func)
        return out

    def stmt(self, ind, depth, in_loop, in_func):
        d = 2 + self.below(2)
        if depth >= 3:
            return [self.assign(ind, d)]
        k = self.below(20)
        inner = ind + "    "
        if k < 8:
            return [self.assign(ind, d)]
        if k < 11:
            out = ["%sif %s {" % (ind, self.cond(2))]
            out += self.block(inner, 1 + self.below(3), depth + 1, in_loop, in_func)
            if self.chance(0.6):
                out.append("%s} else {" % ind)
                out += self.block(inner, 1 + self.below(3), depth + 1, in_loop, in_func)
            out.append("%s}" % ind)
            return out
        if k < 13:
            t, i = self.fresh("t"), self.fresh("i")
            out = ["%suint %s = %s & %du;" % (ind, t, self.u32(1), self.pick([3, 7, 15])),
                   "%sfor (uint %s = 0; %s < %s; %s++) {" % (ind, i, i, t, i)]
            out += self.block(inner, 1 + self.below(3), depth + 1, True, in_func)
            if self.chance(0.5):
                out.append("%sif %s break;" % (inner, self.cond(1)))
            if self.chance(0.4):
                out.append("%sif %s continue;" % (inner, self.cond(1)))
            out.append("%s    x%d += %s;" % (ind, self.below(NU), i))
            out.append("%s}" % ind)
            return out
        if k < 14:
            w = self.fresh("w")
            out = ["%suint %s = %s;" % (ind, w, self.u32(1)),
                   "%swhile (%s != 0u) {" % (ind, w)]
            out += self.block(inner, 1 + self.below(2), depth + 1, True, in_func)
            out.append("%s%s >>= 1 + (%s & 1u);" % (inner, w, w))
            out.append("%s}" % ind)
            return out
        if k < 16:
            out = ["%sswitch (%s & 3u) {" % (ind, self.u32(1))]
            for c in range(3):
                out.append("%scase %du: {" % (ind, c))
                out += self.block(inner, 1 + self.below(2), depth + 1, in_loop, in_func)
                out.append("%s}" % ind)
                if self.chance(0.75):
                    out.append("%sbreak;" % inner)
            out.append("%sdefault: {" % ind)
            out += self.block(inner, 1, depth + 1, in_loop, in_func)
            out.append("%s}" % ind)
            out.append("%s}" % ind)
            return out
        if k < 17 and not in_func and self.may_return:
            return ["%sif %s {" % (ind, self.cond(1)),
                    "%sstore(out, fout, dout, gid, x0, x1, x2, x3, x4, x5, x6, x7, "
                    "l0, l1, l2, f0, f1, f2, g0, g1);" % inner,
                    "%sreturn;" % inner, "%s}" % ind]
        if k < 18 and not in_func and len(self.funcs) < 3:
            name = self.function()
            v = self.below(NU)
            return ["%sx%d = %s(x%d, x%d, l%d);" % (ind, v, name, self.below(NU),
                                                    self.below(NU), self.below(NL))]
        if k < 19:
            v = self.below(NU)
            return ["%spriv[%s & 7u] ^= x%d;" % (ind, self.u32(1), self.below(NU)),
                    "%sx%d += priv[%s & 7u];" % (ind, v, self.u32(1))]
        if not in_func:
            # Each operation has its own 16 counters: one operation applied in any
            # order gives one result, two different ones do not.
            k = self.below(len(ATOMICS))
            return ["%satomic_%s(&acc[%du + (%s & 15u)], %s);" % (
                ind, ATOMICS[k], 16 * k, self.u32(1), self.u32(1))]
        return [self.assign(ind, d)]

    def function(self):
        """A noinline function with divergent control flow; returns its name."""
        name = "h%d" % len(self.funcs)
        body = ["__attribute__((noinline))",
                "uint %s(uint a, uint b, ulong c)" % name, "{"]
        body += ["    uint x%d = a ^ 0x%xu;" % (i, self.r.u32()) for i in range(NU)]
        body += ["    x1 = b;", "    ulong l0 = c, l1 = c * 3ul, l2 = (ulong)a << 7;",
                 "    float f0 = convert_float(a), f1 = 1.5f, f2 = convert_float((int)b);",
                 "    double g0 = convert_double(c), g1 = -2.5;",
                 "    uint priv[8] = {a, b, 1u, 2u, 3u, 4u, 5u, 6u};"]
        body += self.block("    ", 3 + self.below(4), 1, False, True)
        body += ["    if ((a & 1u) == 0u)",
                 "        return x0 + x1 + x2 + (uint)l0 + (uint)(l1 >> 32) + "
                 "SAT(convert_uint_sat, f0) + (uint)SAT(convert_long_sat, g0) + priv[b & 7u];",
                 "    return x3 ^ x4 ^ x5 ^ x6 ^ x7 ^ (uint)l2 ^ "
                 "SAT(convert_uint_sat, f1 + f2) ^ (uint)SAT(convert_long_sat, g1);", "}", ""]
        self.funcs.append(body)
        return name

    def kernel(self):
        before = self.block("    ", self.below(6), 0, False, False)
        self.may_return = True
        after = self.block("    ", 3 + self.below(5), 0, False, False)
        lds = ["    lds[lid] = x%d;" % self.below(NU),
               "    barrier(CLK_LOCAL_MEM_FENCE);",
               "    x%d ^= lds[(lid + %du) %% get_local_size(0)];" % (
                   self.below(NU), 1 + self.below(70)),
               "    barrier(CLK_LOCAL_MEM_FENCE);"]
        lines = [
            "// Random kernel, seed %d (kernels/random/randk.py source %d)." % (
                self.seed, self.seed),
            "#pragma OPENCL FP_CONTRACT OFF",
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable",
            "",
            "// A saturating conversion of a float that is not a NaN. OpenCL says NaN",
            "// converts to 0; ROCm's device library clamps with fmax/fmin first, so on",
            "// AMD GPUs a NaN becomes the lower bound (INT_MIN for convert_int_sat).",
            "#define SAT(conv, x) ({ __typeof__(x) t_ = (x); isnan(t_) ? 0 : conv(t_); })",
            "",
            "static void store(__global uint *out, __global float *fout, "
            "__global double *dout, uint gid,",
            "                  uint x0, uint x1, uint x2, uint x3, uint x4, uint x5, "
            "uint x6, uint x7,",
            "                  ulong l0, ulong l1, ulong l2, float f0, float f1, "
            "float f2, double g0, double g1)",
            "{",
            "    uint xs[%d] = {x0, x1, x2, x3, x4, x5, x6, x7, (uint)l0, "
            "(uint)(l0 >> 32), (uint)l1, (uint)(l1 >> 32), (uint)l2, "
            "(uint)(l2 >> 32)};" % (NU + 2 * NL),
            "    for (uint i = 0; i < %du; i++)" % (NU + 2 * NL),
            "        out[gid * %du + i] = xs[i];" % (NU + 2 * NL),
            "    fout[gid * 3u] = f0;",
            "    fout[gid * 3u + 1u] = f1;",
            "    fout[gid * 3u + 2u] = f2;",
            "    dout[gid * 2u] = g0;",
            "    dout[gid * 2u + 1u] = g1;",
            "}",
            "",
        ]
        # The kernel's body is generated first: it decides which functions exist.
        kernel = [
            "__kernel void %s(__global const uint *a, __global const uint *b, "
            "__global const float *fin," % KERNEL,
            "                 __global uint *out, __global float *fout, "
            "__global double *dout,",
            "                 __global uint *acc, uint n)",
            "{",
            "    __local uint lds[256];",
            "    uint gid = get_global_id(0), lid = get_local_id(0);",
            "    uint i0 = min(gid, n - 1u);",
            "    uint x0 = a[i0], x1 = b[i0], x2 = gid, x3 = a[(i0 + 1u) %% n] ^ 0x%xu;"
            % self.r.u32(),
            "    uint x4 = b[(i0 * 7u) %% n], x5 = 0x%xu, x6 = lid, x7 = x0 * 0x9e3779b9u;"
            % self.r.u32(),
            "    ulong l0 = upsample(x0, x1), l1 = (ulong)x1 * 0x%xul, l2 = 0x%016xul;"
            % (self.r.u32(), self.r.next()),
            "    float f0 = fin[i0], f1 = fin[(i0 + 3u) % n], f2 = convert_float((int)x1);",
            "    double g0 = convert_double(fin[(i0 + 5u) % n]) * 3.0, g1 = "
            "convert_double(x0);",
            "    uint priv[8] = {x0, x1, x2, x3, 7u, 11u, 13u, 17u};",
        ]
        kernel += before + lds + after
        kernel += ["    if (gid < n)",
                   "        store(out, fout, dout, gid, x0 ^ priv[x1 & 7u], x1, x2, x3, "
                   "x4, x5, x6, x7, l0, l1, l2, f0, f1, f2, g0, g1);", "}"]
        funcs = [line for f in self.funcs for line in f]
        return "\n".join(lines + funcs + kernel) + "\n"

    def case(self):
        """The launch (global size a multiple of the local size, as PoCL at CL1.2
        needs; n below the global size so that some work-items store nothing)."""
        local = self.pick([64, 32, 48, 100, 128, 256, 20])
        groups = 1 + self.below(4)
        glob = local * groups
        n = max(1, glob - self.below(local))
        vals = [self.r.u32() for _ in range(glob)]
        vals2 = [self.r.u32() for _ in range(glob)]
        for i in range(0, glob, 9):
            vals[i] = self.pick(U32_SPECIALS)
        fl = [pocl.f32_bits(self.r.uniform(-100.0, 100.0)) if self.chance(0.7)
              else self.r.u32() for _ in range(glob)]
        fl = pocl.with_specials(fl, [v for v in pocl.F32_SPECIALS if self.chance(0.5)])
        c = pocl.Case("seed%d" % self.seed, [glob], [local])
        c.buffer("a", "u32", "in", vals)
        c.buffer("b", "u32", "in", vals2)
        c.buffer("fin", "f32", "in", fl)
        c.out("out", "u32", glob * (NU + 2 * NL), pocl.SENTINEL32)
        c.out("fout", "f32", glob * NF, 0x7F800001)
        c.out("dout", "f64", glob * ND, 0x7FF0000000000001)
        c.buffer("acc", "u32", "inout", [self.r.u32() for _ in range(16 * len(ATOMICS))])
        c.scalar("u32", n)
        return c


def source(seed):
    g = Gen(seed)
    text = g.kernel()
    return g, text


def parse_seeds(s):
    seeds = []
    for part in s.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            seeds += list(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def sh(cmd, env=None, timeout=None):
    try:
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "timed out after %d s: %s\n" % (timeout, " ".join(cmd))
    return p.returncode, p.stdout + p.stderr


def prepare(work):
    """Builds the PoCL host and the replay tool once; returns their paths."""
    host = os.path.join(work, "pocl_host")
    rc, out = sh(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror",
                  os.path.join(KERNELS_DIR, "pocl", "host.c"), "-lOpenCL", "-o", host])
    if rc:
        raise SystemExit("randk.py: building the PoCL host failed:\n" + out)
    rc, out = sh(["cargo", "build", "--release", "--quiet", "-p", "amdsim-sim-tests",
                  "--bin", "pocl_replay"])
    if rc:
        raise SystemExit("randk.py: building pocl_replay failed:\n" + out)
    replay = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                          "release", "pocl_replay")
    return host, replay


def build_one(src, target, opt, outdir):
    target_dir, mcpu, _gen, wave64 = target
    obj = os.path.join(outdir, "%s.%s.o" % (target_dir, opt))
    co = os.path.join(outdir, "%s.%s.co" % (target_dir, opt))
    cmd = ["clang-19"] + [f for f in kbuild.CL_FLAGS if f != "-Werror"] + [
        "-Wno-unused-variable", "-Wno-self-assign", "-mcpu=" + mcpu]
    if mcpu.startswith("gfx10"):
        cmd.append("-mwavefrontsize64" if wave64 else "-mno-wavefrontsize64")
    cmd += OPTS[opt] + ["-c", src, "-o", obj]
    rc, out = sh(cmd)
    if rc:
        return None, "clang-19 %s %s failed:\n%s" % (target_dir, opt, out)
    rc, out = sh(["ld.lld-19", "-shared", obj, "-o", co])
    os.remove(obj)
    if rc:
        return None, "ld.lld-19 %s %s failed:\n%s" % (target_dir, opt, out)
    return co, None


def run_seed(seed, work, host, replay, targets, opts, pool, env, override=None):
    d = os.path.join(work, str(seed))
    os.makedirs(d, exist_ok=True)
    g, text = source(seed)
    if override is not None:
        text = override
    src = os.path.join(d, "rk.cl")
    with open(src, "w") as f:
        f.write(text)
    spec = os.path.join(d, "rk.spec")
    with open(spec, "w") as f:
        f.write("kernel %s\nsource %s\noptions -cl-std=CL1.2\n\n" % (KERNEL, src))
        f.write(g.case().render())
    ref = os.path.join(d, "rk.ref.txt")
    pocl_job = pool.submit(sh, [host, spec, ref], env, POCL_TIMEOUT_S)
    builds = [pool.submit(build_one, src, t, o, d) for t in targets for o in opts]
    problems = []
    rc, out = pocl_job.result()
    if rc:
        problems.append("PoCL failed:\n" + out)
    cos = []
    for b in builds:
        co, err = b.result()
        if err:
            problems.append(err)
        else:
            cos.append(co)
    if problems:
        # the generator wrote something an OpenCL compiler rejects: its bug, not a
        # simulator's; shown with the first problem only
        return False, "NOT RUN: " + problems[0][:2000]
    rc, out = sh([replay, ref] + cos, None, REPLAY_TIMEOUT_S)
    return rc == 0, out


def main(argv):
    if len(argv) == 2 and argv[0] == "source":
        sys.stdout.write(source(int(argv[1]))[1])
        return 0
    if len(argv) < 2 or argv[0] != "run":
        sys.stderr.write(__doc__)
        return 2
    seeds = parse_seeds(argv[1])
    keep, targets, opts, override = None, kbuild.TARGETS, list(OPTS), None
    jobs = os.cpu_count() or 1
    i = 2
    while i < len(argv):
        flag = argv[i]
        val = argv[i + 1] if i + 1 < len(argv) else None
        if val is None:
            sys.stderr.write("randk.py: %s needs a value\n" % flag)
            return 2
        if flag == "--keep":
            keep = os.path.abspath(val)
        elif flag == "--targets":
            names = val.split(",")
            targets = [t for t in kbuild.TARGETS if t[0] in names]
            if len(targets) != len(names):
                sys.stderr.write("randk.py: unknown target in %s\n" % val)
                return 2
        elif flag == "--opts":
            opts = val.split(",")
            if any(o not in OPTS for o in opts):
                sys.stderr.write("randk.py: --opts takes O0g,O2\n")
                return 2
        elif flag == "--jobs":
            jobs = max(1, int(val))
        elif flag == "--source":
            with open(val) as f:
                override = f.read()
            if len(seeds) != 1:
                sys.stderr.write("randk.py: --source takes one seed\n")
                return 2
        else:
            sys.stderr.write("randk.py: unknown option %s\n" % flag)
            return 2
        i += 2
    work = tempfile.mkdtemp(prefix="amdsim-randk-")
    try:
        host, replay = prepare(work)
        cache = os.path.join(work, "pocl-cache")
        os.mkdir(cache)
        env = dict(os.environ, LC_ALL="C", POCL_CACHE_DIR=cache)
        env.pop("POCL_DEVICES", None)
        failed = []
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for seed in seeds:
                ok, out = run_seed(seed, work, host, replay, targets, opts, pool, env,
                                   override)
                print("seed %d: %s" % (seed, "ok" if ok else
                                        "NOT RUN" if out.startswith("NOT RUN")
                                        else "DIFFERS"))
                if not ok:
                    failed.append(seed)
                    print("\n".join("    " + line for line in out.splitlines()
                                    if not line.startswith("ok ")))
                if keep:
                    dst = os.path.join(keep, str(seed))
                    if os.path.exists(dst):
                        shutil.rmtree(dst)
                    shutil.copytree(os.path.join(work, str(seed)), dst)
                shutil.rmtree(os.path.join(work, str(seed)))
        print("%d seeds, %d targets x %d builds each: %d differ%s" % (
            len(seeds), len(targets), len(opts), len(failed),
            (" (%s); reproduce with: kernels/random/randk.py run SEED --keep DIR"
             % ",".join(map(str, failed))) if failed else ""))
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

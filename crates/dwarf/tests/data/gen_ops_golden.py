#!/usr/bin/env python3
"""Regenerates ops_dwarfdump19.txt: DWARF expressions (hex) and what llvm-dwarfdump-19
prints for them. Needs llvm-mc-19 and llvm-dwarfdump-19.

Each expression is the DW_AT_location of a DW_TAG_variable in one DWARF 5 unit, in which
a DW_TAG_base_type "uint" (DW_ATE_unsigned, 4 bytes) sits at unit offset 0xd.
"""
import os, subprocess, sys, tempfile

def uleb(v):
    out = []
    while True:
        b = v & 0x7f; v >>= 7
        if v: out.append(b | 0x80)
        else: out.append(b); return out

def sleb(v):
    out = []
    while True:
        b = v & 0x7f; v >>= 7
        if (v == 0 and not b & 0x40) or (v == -1 and b & 0x40):
            out.append(b); return out
        out.append(b | 0x80)

def le(v, n): return list((v & ((1 << (8 * n)) - 1)).to_bytes(n, 'little'))

BT = 0xd
E = []
E.append([0x03] + le(0x1234, 8))
for c in range(0x30, 0x50): E.append([c])
E += [[0x08, 0xff], [0x09, 0xff], [0x0a] + le(0x1234, 2), [0x0b] + le(-2, 2), [0x0c] + le(0xdeadbeef, 4),
      [0x0d] + le(-3, 4), [0x0e] + le(0x1122334455667788, 8), [0x0f] + le(-4, 8), [0x10] + uleb(300),
      [0x11] + sleb(-300), [0x11] + sleb(0), [0x11] + sleb(5)]
for c in [0x06, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20,
          0x21, 0x22, 0x24, 0x25, 0x26, 0x27, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x96, 0x97, 0x9b,
          0x9c, 0x9f, 0xe0]:
    E.append([c])
E += [[0x15, 3], [0x23] + uleb(16), [0x28] + le(0, 2) + [0x30], [0x2f] + le(1, 2) + [0x30] + [0x31],
      [0x31, 0x28] + le(-4, 2)]
for r in [0, 1, 2, 16, 17, 31]: E.append([0x50 + r])
for r, d in [(0, 8), (1, -1), (16, 0), (17, 4), (31, -16)]: E.append([0x70 + r] + sleb(d))
for r in [0, 1, 17, 32, 65, 1088, 1536, 2048, 2560, 3072, 4000]: E.append([0x90] + uleb(r))
for r, d in [(32, 16), (1536, 0), (2560, 16), (2561, -8), (4000, 3)]: E.append([0x92] + uleb(r) + sleb(d))
E += [[0x91] + sleb(0), [0x91] + sleb(8), [0x91] + sleb(-16), [0x93] + uleb(4), [0x9d] + uleb(3) + uleb(5),
      [0x94, 4], [0x95, 2], [0x98] + le(BT, 2), [0x99] + le(BT, 4), [0x9a] + le(BT, 4),
      [0x9e] + uleb(4) + [1, 2, 3, 4], [0xa0] + le(BT, 4) + sleb(-2), [0xa1] + uleb(3), [0xa2] + uleb(4),
      [0xa3] + uleb(1) + [0x51], [0xa3] + uleb(2) + [0x90, 0x21], [0xa4] + uleb(BT) + [4, 1, 0, 0, 0],
      [0xa5] + uleb(33) + uleb(BT), [0xa5] + uleb(2560) + uleb(BT), [0xa6, 4] + uleb(BT), [0xa7, 4] + uleb(BT),
      [0xa8] + uleb(BT), [0xa8] + uleb(0), [0xa9] + uleb(BT), [0xa9] + uleb(0)]
# DW_OP_LLVM_user sub-operations (generation C).
U = 0xe9
E += [[U, 1], [U, 2], [U, 3], [U, 4], [U, 5] + uleb(20), [U, 6], [U, 7] + uleb(17), [U, 8],
      [U, 9] + uleb(33) + sleb(-4), [U, 0x0a], [U, 0x0b] + uleb(64) + uleb(64), [U, 0x0c] + uleb(64) + uleb(64)]
# Composed examples.
E += [[0x91] + sleb(16) + [0x31, 0x16, 0x18],
      [0x90] + uleb(2560) + [U, 3, 0x34, 0x1e, U, 4, 0x93, 4],
      [0x90] + uleb(0) + [U, 0x0b, 8, 8]]

def main(out_path):
    lines = []
    with tempfile.TemporaryDirectory() as d:
        s = ['.section .debug_abbrev,"",@progbits',
             '.byte 1, 0x11, 1, 0, 0',              # compile_unit, children
             '.byte 2, 0x24, 0, 3, 8, 0x3e, 0x0b, 0x0b, 0x0b, 0, 0',  # base_type name/encoding/byte_size
             '.byte 3, 0x34, 0, 2, 0x18, 0, 0',      # variable, location exprloc
             '.byte 0',
             '.section .debug_info,"",@progbits',
             '.long end - start', 'start:', '.short 5', '.byte 1, 8', '.long 0',
             '.byte 1',                                  # offset 0xc: CU
             '.byte 2', '.asciz "uint"', '.byte 7, 4']   # offset 0xd: base type
        for e in E:
            s.append('.byte 3')
            s.append('.uleb128 %d' % len(e))
            s.append('.byte ' + ', '.join(str(b) for b in e))
        s += ['.byte 0', 'end:']
        asm = os.path.join(d, 'ops.s'); obj = os.path.join(d, 'ops.o')
        open(asm, 'w').write('\n'.join(s) + '\n')
        subprocess.check_call(['llvm-mc-19', '-triple', 'amdgcn-amd-amdhsa', '-mcpu=gfx900',
                               '-filetype=obj', asm, '-o', obj])
        dump = subprocess.check_output(['llvm-dwarfdump-19', '--debug-info', obj], text=True)
    texts = []
    for line in dump.splitlines():
        line = line.strip()
        if line.startswith('DW_AT_location'):
            texts.append(line[line.index('(') + 1:line.rindex(')')])
    assert len(texts) == len(E), (len(texts), len(E))
    with open(out_path, 'w') as f:
        f.write('# hex bytes | llvm-dwarfdump-19 text (regenerate: python3 gen_ops_golden.py)\n')
        for e, t in zip(E, texts):
            f.write('%s | %s\n' % (''.join('%02x' % b for b in e), t))

if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'ops_dwarfdump19.txt'))

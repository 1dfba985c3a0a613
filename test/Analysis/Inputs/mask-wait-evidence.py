#!/usr/bin/env python3
"""Independent evidence for the valu-sgpr-valu-mask rule: how AMD's Tensile
generator (hipBLASLt), which writes assembler text and does not run LLVM's
hazard recognizer, spaces a VALU write of a lane mask or carry from its
read. Reads `llvm-objdump -d` output on stdin; counts, for every
v_cmp* -> v_cndmask* on the same SGPR pair / VCC and every
v_add/sub_co -> v_add/subc_co carry, the wait states between them (one
per instruction, N+1 per s_nop N) and how many pairs have an s_nop making
up the distance.
"""
import re
import sys

lines = [l.split('//')[0].strip() for l in sys.stdin if l.startswith('\t')]
mask_w = re.compile(r'^v_cmp\w*\s+(s\[\d+:\d+\]|vcc)')
carry_w = re.compile(r'^v_(add|sub|subrev)_co_u32\w*\s+v\d+,\s*(s\[\d+:\d+\]|vcc)')
carry_r = re.compile(r'^v_(add|sub|subrev)c_co_u32')


def scan(i, reg, is_reader):
    ws, nop = 0, False
    for t in lines[i + 1:i + 8]:
        if t.startswith('s_nop'):
            ws += int(t.split()[1], 0) + 1
            nop = True
            continue
        if is_reader(t) and t.endswith(reg):
            return ws, nop
        ws += 1
    return None


for name, w, rd, g in (
        ('lane mask (v_cmp -> v_cndmask)', mask_w,
         lambda t: t.startswith('v_cndmask'), 1),
        ('carry (v_add_co -> v_addc_co)', carry_w, carry_r.match, 2)):
    pairs = under2 = with_nop = 0
    for i, l in enumerate(lines):
        m = w.match(l)
        if not m:
            continue
        r = scan(i, m.group(g), rd)
        if r is None:
            continue
        pairs += 1
        under2 += r[0] < 2
        with_nop += r[1]
    print('%s: pairs %d, fewer than 2 wait states %d, s_nop in between %d'
          % (name, pairs, under2, with_nop))

#!/usr/bin/env python3
"""Variants of relu.s (asmevo-opt --emit=asm of suite_relu) that are not
simple. Usage: relu_not_simple.py IN.s OUT.s writelane|swap|undecodable

Both put 16 `s_nop 7` after relu's last v_max_f32 (no hazard needs them:
nop-shrink removes them). Then:
  writelane    v_writelane_b32 v3, s6, m0 (M0 set first) before s_endpgm:
               valid hardware code, as compiled AITer kernels hold, which
               the MachineVerifier rejects (an SGPR source with M0 as the
               lane select).
  swap         the same, with M0 set right after relu's s_waitcnt
               vmcnt(0), which sink-waitcnt then moves below it.
  undecodable  a word that does not decode after s_endpgm, inside the
               function."""
import sys

src, dst, kind = sys.argv[1:4]
out = []
nops_done = end_done = False
for line in open(src):
    if kind == 'swap' and line.strip() == 's_waitcnt vmcnt(0)':
        out.append(line)
        out.append('\ts_mov_b32 m0, 0\n')
        continue
    if not end_done and line.strip() == 's_endpgm':
        if kind in ('writelane', 'swap'):
            if kind == 'writelane':
                out.append('\ts_mov_b32 m0, 0\n')
            out.append('\tv_writelane_b32 v3, s6, m0\n')
            out.append(line)
        elif kind == 'undecodable':
            out.append(line)
            out.append('\t.long 0xffffffff\n')
        else:
            sys.exit('relu_not_simple.py: unknown variant %r' % kind)
        end_done = True
        continue
    out.append(line)
    if not nops_done and line.strip() == 'v_max_f32_e32 v2, 0, v2':
        out.extend(['\ts_nop 7\n'] * 16)
        nops_done = True
if not (nops_done and end_done):
    sys.exit('relu_not_simple.py: relu.s does not look as expected')
open(dst, 'w').write(''.join(out))

#!/usr/bin/env python3
"""Deletes every s_waitcnt line of one function of an --emit=asm file (the
lines from its label to the next function's). Usage: drop_waits_in.py IN
OUT FUNCTION NEXT_FUNCTION"""
import sys

src, dst, fn, nxt = sys.argv[1:5]
out, inside, dropped = [], False, 0
for line in open(src):
    if line.startswith(fn + ':'):
        inside = True
    elif line.startswith(nxt + ':'):
        inside = False
    if inside and 's_waitcnt' in line:
        dropped += 1
        continue
    out.append(line)
if not dropped:
    sys.exit('drop_waits_in.py: no s_waitcnt in %s' % fn)
open(dst, 'w').write(''.join(out))

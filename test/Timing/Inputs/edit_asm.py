#!/usr/bin/env python3
"""Hand-made K1 for the sign tests: insert LINE before or after the first
line of IN.s containing PATTERN, or (sub) replace every match of the
regular expression PATTERN by LINE. Usage: edit_asm.py IN OUT
before|after|sub PATTERN LINE"""
import re
import sys

src, dst, where, pat, line = sys.argv[1:6]
if where == 'sub':
    text, n = re.subn(pat, line, open(src).read())
    if not n:
        sys.exit('edit_asm.py: nothing matches %r' % pat)
    open(dst, 'w').write(text)
    sys.exit(0)
out, done = [], False
for l in open(src):
    if not done and pat in l and where == 'before':
        out.append('\t' + line + '\n')
        done = True
        out.append(l)
    elif not done and pat in l:
        out.append(l)
        out.append('\t' + line + '\n')
        done = True
    else:
        out.append(l)
if not done:
    sys.exit('edit_asm.py: no line contains %r' % pat)
open(dst, 'w').write(''.join(out))

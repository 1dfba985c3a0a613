#!/usr/bin/env python3
"""insert-lines.py [--replace] MIR NEEDLE LINE...: copies MIR, inserting the
LINEs (in order, same indentation) before the first instruction line that
contains NEEDLE, or in its place with --replace. Fails when NEEDLE is not
found, so a test cannot pass vacuously."""
import sys
args = sys.argv[1:]
replace = args and args[0] == '--replace'
if replace:
    args = args[1:]
path, needle, lines = args[0], args[1], args[2:]
done = False
out = []
for l in open(path):
    if not done and needle in l and l.startswith('    '):
        out.extend('    ' + x + '\n' for x in lines)
        done = True
        if replace:
            continue
    out.append(l)
if not done:
    sys.exit('insert-lines.py: no instruction contains ' + needle)
sys.stdout.write(''.join(out))

#!/usr/bin/env python3
"""insert-lines.py MIR NEEDLE LINE...: copies MIR, inserting the LINEs (in
order, same indentation) before the first instruction line that contains
NEEDLE. Fails when NEEDLE is not found, so a test cannot pass vacuously."""
import sys
path, needle, lines = sys.argv[1], sys.argv[2], sys.argv[3:]
done = False
out = []
for l in open(path):
    if not done and needle in l and l.startswith('    '):
        out.extend('    ' + x + '\n' for x in lines)
        done = True
    out.append(l)
if not done:
    sys.exit('insert-lines.py: no instruction contains ' + needle)
sys.stdout.write(''.join(out))

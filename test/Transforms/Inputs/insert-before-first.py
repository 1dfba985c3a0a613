#!/usr/bin/env python3
"""Copies a MIR file, inserting LINE (same indentation) before the first
instruction line whose text contains NEEDLE."""
import sys
path, needle, line = sys.argv[1:4]
done = False
for l in open(path):
    if not done and needle in l and l.startswith('    '):
        sys.stdout.write('    ' + line + '\n')
        done = True
    sys.stdout.write(l)

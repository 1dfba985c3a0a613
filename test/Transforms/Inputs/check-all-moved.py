#!/usr/bin/env python3
"""Runs insert-nops on every code object under DIR and checks the result
with utils/check-moved-code.py; prints totals."""
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
checker = os.path.join(here, '..', '..', '..', 'utils', 'check-moved-code.py')
files = []
for d, _, names in os.walk(root):
    files += [os.path.join(d, n) for n in names if n.endswith('.co') or n.endswith('.hsaco')]
tmp = tempfile.mkdtemp()
bad = 0
totals = [0, 0, 0]
for f in sorted(files):
    out, amap = os.path.join(tmp, 'o.co'), os.path.join(tmp, 'o.map')
    r = subprocess.run(['asmevo-opt', f, '-run-pass=insert-nops', '-o', out,
                        '--address-map=' + amap], capture_output=True, text=True)
    if r.returncode != 0:
        print('FAIL (rebuild) %s: %s' % (f, r.stderr.strip()))
        bad += 1
        continue
    r = subprocess.run([sys.executable, checker, f, out, amap], capture_output=True, text=True)
    words = r.stdout.split()
    try:
        totals[0] += int(words[1]); totals[1] += int(words[3]); totals[2] += int(words[5])
    except (IndexError, ValueError):
        pass
    if r.returncode != 0:
        print('FAIL %s' % r.stdout.strip())
        bad += 1
print('branches: %d, pc-relative: %d, entries: %d' % tuple(totals))
print('objects: %d, mismatching: %d' % (len(files), bad))

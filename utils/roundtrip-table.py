#!/usr/bin/env python3
"""The identity round-trip table: for every code object under the given
directories, functions, instructions and, per path (in memory, through
--emit=mir, through --emit=asm), whether .text, descriptors, the metadata
note, section addresses and symbol values are identical ("content") and
whether the whole file is ("file").

Usage: utils/roundtrip-table.py [--opt PATH] DIR...   (markdown on stdout)
"""
import argparse
import os
import re
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument('--opt', default='asmevo-opt')
ap.add_argument('dirs', nargs='+')
args = ap.parse_args()
files = []
for d in args.dirs:
    for root, _, names in os.walk(d):
        files += [os.path.join(root, n) for n in names if n.endswith(('.co', '.hsaco'))]
files.sort()
print('| file | functions | instructions | non-simple | mem | mir | asm |')
print('|---|---|---|---|---|---|---|')
tot = dict(files=0, funcs=0, instrs=0, ok=0, fileid=0)
for f in files:
    r = subprocess.run([args.opt, f, '--roundtrip-check'], capture_output=True, text=True)
    out = r.stdout
    cells = []
    for path in ('mem', 'mir', 'asm'):
        m = re.search(r'^  %s:\n((?:    .*\n)+)' % path, out, re.M)
        if not m:
            cells.append('error')
            continue
        block = m.group(1)
        content = all(re.search(r'%s: identical' % k, block) for k in
                      ('text', 'descriptors', 'metadata_note', 'section_addresses', 'symbol_values'))
        whole = 'file: identical' in block
        cells.append('content+file' if content and whole else 'content' if content else 'DIFFERENT')
    # Instruction counts from the first path's function list.
    first = re.search(r'^  mem:\n((?:    .*\n)+)', out, re.M)
    fl = re.findall(r"instructions: (\d+)", first.group(1)) if first else []
    ns = len(re.findall(r"^    - \{ name: .*reason:", out, re.M))
    n_i = sum(int(x) for x in fl)
    name = os.path.relpath(f)
    print('| %s | %d | %d | %d | %s |' % (name, len(fl), n_i, ns, ' | '.join(cells)))
    tot['files'] += 1
    tot['funcs'] += len(fl)
    tot['instrs'] += n_i
    tot['ok'] += all(c.startswith('content') for c in cells)
    tot['fileid'] += all(c == 'content+file' for c in cells)
print()
print('%(files)d objects, %(funcs)d functions, %(instrs)d instructions; '
      'content identical on all three paths: %(ok)d; whole file identical: %(fileid)d' % tot)

#!/usr/bin/env python3
"""For every kernel with a preload entry in BEFORE (--info of the input),
checks through MAP (--address-map) that an instruction starts at the new
entry+256 and that the first original instruction from there on is the one
that was at the original entry+256 (an edit may put new instructions at the
top of that block: the firmware runs them first).

    check_preload_entries.py BEFORE.yaml AFTER.yaml MAP"""
import re
import sys


def entries(path):
    out = {}
    name = None
    for line in open(path):
        m = re.match(r"^  - name: '(.*)'$", line)
        if m:
            name = m.group(1)
        m = re.match(r"^    entry: 0x([0-9a-f]+)$", line)
        if m and name:
            out[name] = int(m.group(1), 16)
    return out


def preloaded(path):
    names, name = set(), None
    for line in open(path):
        m = re.match(r"^  - name: '(.*)'$", line)
        if m:
            name = m.group(1)
        if line.startswith("    preload_entry: "):
            names.add(name)
    return names


before, after = entries(sys.argv[1]), entries(sys.argv[2])
rows = []
for line in open(sys.argv[3]):
    parts = line.split()
    if len(parts) >= 2 and parts[0].startswith("0x"):
        rows.append((int(parts[0], 16),
                     None if parts[1] == "new" else int(parts[1], 16)))
rows.sort()
starts = {a for a, _ in rows}
status = 0
for name in sorted(preloaded(sys.argv[1])):
    old, new = before[name], after[name]
    got = next((o for a, o in rows if a >= new + 256 and o is not None), None)
    if new + 256 in starts and got == old + 256:
        print("%s: entry 0x%x -> 0x%x, +256 maps to original +256" %
              (name, old, new))
    else:
        print("%s: entry 0x%x -> 0x%x, but +256 %s, first original there %s"
              % (name, old, new,
                 "starts an instruction" if new + 256 in starts
                 else "is inside an instruction",
                 hex(got) if got is not None else "none"))
        status = 1
sys.exit(status)

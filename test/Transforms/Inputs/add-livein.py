#!/usr/bin/env python3
"""add-livein.py MIR BLOCK REG...: copies MIR to stdout with the REGs
("$vgpr7") added to the live-ins of BLOCK ("bb.7"). Fails when the block
or its live-ins line is not found, so a test cannot pass vacuously."""
import sys
path, block, regs = sys.argv[1], sys.argv[2], sys.argv[3:]
out, state = [], 0
for l in open(path):
    if state == 0 and l.strip() == block + ':':
        state = 1
    elif state == 1 and l.strip().startswith('liveins:'):
        l = l.rstrip('\n') + ''.join(', ' + r for r in regs) + '\n'
        state = 2
    out.append(l)
if state != 2:
    sys.exit('add-livein.py: no live-ins line for ' + block)
sys.stdout.write(''.join(out))

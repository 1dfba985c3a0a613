"""Replaces the instructions of one block of a lifted .mir with others.

usage: replace-block.py IN.mir BLOCK BODY OUT.mir
BLOCK is the block's name ("bb.3"); BODY a file of MIR instruction lines
(lines starting with '#' are comments). The block keeps its successors and
live-ins. With BLOCK+ ("bb.3+"), BODY holds whole blocks (labels,
successors, live-ins) that replace BLOCK and every block after it.
"""
import sys

src, block, body, out = sys.argv[1:5]
lines = open(src).read().split('\n')
new = [l for l in open(body).read().split('\n')
       if l.strip() and not l.lstrip().startswith('#')]
tail = block.endswith('+')
block = block.rstrip('+')
start = next(i for i, l in enumerate(lines) if l.strip() == block + ':')
if tail:
    end = next(i for i in range(start, len(lines)) if lines[i].startswith('...'))
    body_lines = [l.rstrip() for l in open(body).read().split('\n')
                  if not l.lstrip().startswith('#')]
    open(out, 'w').write('\n'.join(lines[:start] + body_lines + lines[end:]))
    sys.exit(0)
i = start + 1
while lines[i].strip().startswith(('successors:', 'liveins:')) or \
        not lines[i].strip():
    i += 1
end = i
while not (lines[end].startswith('  bb.') or lines[end].startswith('...')):
    end += 1
result = lines[:i] + ['    ' + l.strip() for l in new] + ['  '] + lines[end:]
open(out, 'w').write('\n'.join(result))

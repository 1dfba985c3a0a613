#!/usr/bin/env python3
"""Counts, over the code objects under DIR, each kind of difference that
asmevo-opt --roundtrip-check lists for the in-memory identity rebuild."""
import collections
import os
import re
import subprocess
import sys

kinds = collections.Counter()
for d, _, names in os.walk(sys.argv[1]):
    for n in sorted(names):
        if not n.endswith(('.co', '.hsaco')):
            continue
        out = subprocess.run(['asmevo-opt', os.path.join(d, n), '--roundtrip-check',
                              '--roundtrip-path=mem'], capture_output=True, text=True).stdout
        block = re.search(r'differences:\n((?:      - .*\n)+)', out)
        for line in (block.group(1).splitlines() if block else []):
            text = line.strip()[3:-1]
            text = re.sub(r"'Linker: [^']*'", 'L', text)
            text = re.sub(r' \(\d+ -> \d+ bytes\)', '', text)
            kinds[text] += 1
for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
    print('%2d %s' % (v, k))
print('total kinds: %d' % len(kinds))

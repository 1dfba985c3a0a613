#!/usr/bin/env python3
"""expect-exit.py CODE CMD...: runs CMD, passes its output through, and fails
unless it exits with CODE (lit's `not` only knows zero and non-zero)."""
import subprocess
import sys

want = int(sys.argv[1])
r = subprocess.run(sys.argv[2:])
if r.returncode != want:
    sys.stderr.write('expected exit %d, got %d\n' % (want, r.returncode))
    sys.exit(1)

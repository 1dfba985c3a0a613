#!/usr/bin/env python3
"""K0 against its identity rebuild for every suite kernel: prints one line
per kernel and a summary; exits non-zero unless every verdict is
`equivalent`.

Usage: identity-suite.py KERNELS_DIR SPECS_DIR WORK_DIR ARCH [ARCH...]
"""
import concurrent.futures
import glob
import os
import subprocess
import sys

kernels, specs, work = sys.argv[1:4]
archs = sys.argv[4:]
os.makedirs(work, exist_ok=True)


def check(job):
    spec, arch = job
    name = os.path.basename(spec)[:-5]
    k0 = os.path.join(kernels, 'suite_%s-%s.co' % (name, arch))
    k1 = os.path.join(work, '%s-%s.co' % (name, arch))
    subprocess.run(['asmevo-opt', k0, '-o', k1], check=True)
    p = subprocess.run(['asmevo-verify', 'check', k0, k1, '--spec', spec],
                       capture_output=True, text=True)
    line = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''
    return name, arch, p.returncode, line.split(':')[0]


jobs = [(s, a) for a in archs
        for s in sorted(glob.glob(os.path.join(specs, '*.yaml')))]
with concurrent.futures.ThreadPoolExecutor(2) as ex:
    results = list(ex.map(check, jobs))
ok = 0
for name, arch, rc, verdict in results:
    print('%-20s %-7s %s' % (name, arch, verdict))
    ok += rc == 0 and verdict == 'equivalent'
print('equivalent: %d/%d' % (ok, len(results)))
sys.exit(0 if ok == len(results) else 1)

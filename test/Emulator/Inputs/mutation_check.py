#!/usr/bin/env python3
"""Mutation check of the emulator's synchronization checks over launch specs.

    mutation_check.py BUILD_DIR ARCH SPEC... [--seeds 0,7,13] [--variants 0,1]
                      [--kinds K,...] [--max-per-kernel N] [--verbose]

For each spec (suite layout: test/kernels/suite/specs/NAME.yaml, kernel
BUILD/test/kernels/suite_NAME-ARCH.co): runs the original under every
interleaving seed and problem size (variant 0 = the spec's sizes, 1 = its
first variant; it must be clean: no violation), then every mutant from
sync_mutants.py the same ways, until one run reports a violation or writes
outputs that differ from the original's under the same seed and size. Prints
one line per surviving mutant and, per mutation kind, killed/total. Exit 1
when the original reports a violation.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
seeds, variants, kinds, verbose, max_per = ['0', '7', '13'], ['0', '1'], None, False, 0
pos = []
while args:
    a = args.pop(0)
    if a == '--seeds':
        seeds = args.pop(0).split(',')
    elif a == '--variants':
        variants = args.pop(0).split(',')
    elif a == '--kinds':
        kinds = args.pop(0).split(',')
    elif a == '--max-per-kernel':
        max_per = int(args.pop(0))
    elif a == '--verbose':
        verbose = True
    else:
        pos.append(a)
build, arch, specs = pos[0], pos[1], pos[2:]
verify = os.path.join(build, 'bin', 'asmevo-verify')
mut = os.path.join(here, 'sync_mutants.py')
tmp = tempfile.mkdtemp(prefix='asmevo-mut-')


def run(co, spec, cfg, budget=400000000):
    seed, variant = cfg[0], cfg[1]
    extra = list(cfg[2:])
    out = os.path.join(tmp, 'out')
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([verify, 'run', co, '--spec', spec, '--interleave', seed,
                        '--variant', variant, '--output-dir', out,
                        '--budget', str(budget)] + extra,
                       capture_output=True, text=True)
    viol = [l for l in r.stdout.splitlines() if l.startswith('violation')]
    h = hashlib.sha256()
    if os.path.isdir(out):
        for f in sorted(os.listdir(out)):
            h.update(f.encode())
            h.update(open(os.path.join(out, f), 'rb').read())
    return r.returncode, viol, h.hexdigest(), r.stdout + r.stderr


stats = {}
bad_original = False
for spec in specs:
    name = os.path.basename(spec)[:-5]
    co = os.path.join(build, 'test', 'kernels', 'suite_%s-%s.co' % (name, arch))
    base = {}
    budget = {}
    cfgs = [(s, v) for v in variants for s in seeds]
    # Kernels with preloaded arguments have two entry points: run the
    # compatibility prologue too.
    a = run(co, spec, ('0', '0'))[3]
    b = run(co, spec, ('0', '0', '--prologue-entry'))[3]
    if re.findall(r' (\d+) instructions,', a) != re.findall(r' (\d+) instructions,', b):
        cfgs.append(('0', '0', '--prologue-entry'))
    for c in cfgs:
        rc, viol, h, log = run(co, spec, c)
        # A mutant that loops gets 20x the original's instructions.
        n = sum(int(m) for m in re.findall(r' (\d+) instructions,', log))
        budget[c] = max(20 * n, 100000)
        if rc != 0 or viol:
            print('%s: ORIGINAL NOT CLEAN (%s): %s' %
                  (name, ' '.join(c), (viol or [log.strip()[-200:]])[0]))
            bad_original = True
        base[c] = h
    lines = subprocess.run([sys.executable, mut, 'list', co], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    count = 0
    for line in lines:
        mid, kind, addr, text = line.split('\t')
        if kinds and kind not in kinds:
            continue
        if max_per and count >= max_per:
            break
        count += 1
        mco = os.path.join(tmp, 'mutant.co')
        subprocess.run([sys.executable, mut, 'write', co, mid, mco], check=True)
        how = None
        for c in cfgs:
            rc, viol, h, log = run(mco, spec, c, budget[c])
            if viol:
                how = 'violation (%s): %s' % (' '.join(c), viol[0][:160])
                break
            if h != base[c]:
                how = 'different outputs (%s)' % ' '.join(c)
                break
            if rc != 0:
                how = 'run failed (%s)' % ' '.join(c)
                break
        k = stats.setdefault(kind, [0, 0])
        k[1] += 1
        if how:
            k[0] += 1
            if verbose:
                print('%s %s %s: killed: %s' % (name, addr, text, how))
        else:
            print('%s %s %s: SURVIVED' % (name, addr, text))
for kind, (killed, total) in sorted(stats.items()):
    print('%-16s killed %d / %d' % (kind, killed, total))
sys.exit(1 if bad_original else 0)

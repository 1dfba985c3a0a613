#!/usr/bin/env python3
"""Times the microbenchmarks of test/kernels/timing with the cycle model and
prints model / published figure for each, marked calibration, validation or
documented (no measurement: the number rests on documented parameters).

Usage: microbench.py ASMEVO_VERIFY KERNEL_DIR SPEC_DIR [--quick]

Per-iteration costs come from two launches (N and 2N iterations) of one
spec: (cycles(2N) - cycles(N)) / N. Exit status 1 when more than two
validation figures are outside 15%.
"""
import json
import subprocess
import sys

verify, kdir, sdir = sys.argv[1:4]
quick = '--quick' in sys.argv


def run(kernel, spec, sets=(), extra=()):
    cmd = [verify, 'time', '%s/timing_%s-gfx942.co' % (kdir, kernel),
           '--spec', '%s/%s.yaml' % (sdir, spec), '--json'] + list(extra)
    for s in sets:
        cmd += ['--set', s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('failed: %s\n%s%s' % (' '.join(cmd), r.stdout, r.stderr))
    return json.loads(r.stdout)['kernels'][0]['report']


def per_iter(kernel, spec, n, sets=()):
    rep = run(kernel, spec, list(sets) + ['%s=%d' % (
        'hops' if spec in ('pointer_chase', 'lds_conflict') else 'iters', n)])
    c = [l['cycles'] for l in rep['launches']]
    return (c[1] - c[0]) / n


rows = []  # (name, kind, model, figure, unit, source)


def add(name, kind, model, figure, unit, source):
    rows.append((name, kind, model, figure, unit, source))


# Pointer chase (calibration: the SC25 latencies set the level latencies).
for name, count, hops, fig in [('L1 (16 KiB)', 4096, 1000, 116),
                               ('L2 (1 MiB)', 262144, 20000, 208),
                               ('Infinity Cache (32 MiB)', 8388608, 300000, 445),
                               ('HBM (512 MiB)', 134217728, 2000, 850)]:
    if quick and count > 262144:
        continue
    add('pointer chase ' + name, 'calibration',
        per_iter('pointer_chase', 'pointer_chase', hops, ['count=%d' % count]),
        fig, 'cyc/hop', 'SC25 CDNA3 artifact gpu-latency.out')

# Streaming (timing sizes from the specs).
if not quick:
    for k, spec, fig, kind, bytes_per in [
            ('stream', 'stream_read', 4.14, 'calibration', 4),
            ('stream', 'stream_triad', 3.95, 'validation', 12)]:
        rep = run(k, spec, extra=['--max-sample', '64'])
        n = {'stream_read': 100663296, 'stream_triad': 33554432}[spec]
        tbs = n * bytes_per / (rep['us'] * 1e-6) / 1e12
        add(spec.replace('_', ' '), kind, tbs, fig, 'TB/s',
            'SC25 artifact gpu-stream.out' + (' (3.9-4.0)' if 'triad' in spec else ''))

# LDS latency with bank conflicts (one wave, dependent ds_read_b32 chain).
lds = {}
for stride in (1, 2, 4, 8, 32):
    lds[stride] = per_iter('lds_conflict', 'lds_conflict', 100,
                           ['stride=%d' % stride])
add('LDS ds_read_b32 latency, no conflict', 'calibration', lds[1], 55,
    'cyc/hop', 'pyhip mem_latency.md (MI308X)')
add('LDS 2-way conflict', 'documented', lds[2], None, 'cyc/hop', '')
add('LDS 4-way conflict latency', 'validation', lds[4], 120, 'cyc/hop',
    'pyhip mem_latency.md (MI308X)')
add('LDS 8-way conflict', 'documented', lds[8], None, 'cyc/hop', '')
add('LDS 32-way (full) conflict latency', 'validation', lds[32], 119,
    'cyc/hop', 'pyhip mem_latency.md (MI308X)')

# VALU, transcendental, MFMA chains, s_nop.
add('v_fma_f32 dependent chain', 'documented',
    per_iter('valu_chain', 'valu_dependent', 100) / 32, None, 'cyc/op', '')
add('v_fma_f32 4 independent chains (clang: v_pk_fma_f32)', 'documented',
    per_iter('valu_chain', 'valu_independent', 100) / 32, None, 'cyc/op', '')
add('v_exp_f32 dependent chain', 'documented',
    per_iter('valu_chain', 'trans_dependent', 100) / 32, None, 'cyc/op', '')
add('v_mfma_f32_32x32x8_f16 dependent chain', 'validation',
    per_iter('mfma_chain', 'mfma_chain', 100) / 4, 32, 'cyc/MFMA',
    'AMD matrix instruction calculator (8 passes)')
add('s_nop 7', 'documented',
    per_iter('nop_loop', 'nop_loop', 100) / 32, None, 'cyc/nop', '')

print('%-50s %-12s %10s %10s %-9s %s' % ('microbenchmark', 'kind', 'model',
                                         'figure', 'unit', 'model/figure'))
outside = 0
for name, kind, model, fig, unit, src in rows:
    if fig is None:
        print('%-50s %-12s %10.1f %10s %-9s (no measurement: rests on '
              'documented parameters)' % (name, kind, model, '-', unit))
        continue
    ratio = model / fig
    verdict = ''
    if kind == 'validation':
        ok = abs(ratio - 1) <= 0.15
        outside += not ok
        verdict = 'within 15%' if ok else 'OUTSIDE 15%'
    print('%-50s %-12s %10.2f %10.2f %-9s %.3f %s  [%s]' % (
        name, kind, model, fig, unit, ratio, verdict, src))
print('validation figures outside 15%%: %d (at most 2 allowed)' % outside)
sys.exit(1 if outside > 2 else 0)

#!/usr/bin/env python3
"""Checks a --timeline file against the --json report of the same run.

Usage: timeline_totals.py TIMELINE.json REPORT.json

The format: a traceEvents list whose events have the fields Perfetto
needs (ph, pid, tid, ts; X slices a dur; async b/e pairs an id), process
and thread names, the model note. The totals: per launch, the stall
slices summed by name and the issue slices summed together equal the
report's wave_cycles."""
import json
import sys

tl = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
print('source: ' + tl['otherData']['source'])
ev = tl['traceEvents']
names = {}
open_async = {}
sums = {}
for e in ev:
    for f in ('ph', 'pid', 'name'):
        assert f in e, 'event without %s: %r' % (f, e)
    ph = e['ph']
    if ph == 'M':
        if e['name'] == 'process_name':
            names[e['pid']] = e['args']['name']
        continue
    assert 'tid' in e and 'ts' in e, e
    if ph == 'X':
        assert e['dur'] > 0 and e['cat'] in ('stall', 'issue'), e
        key = 'issue' if e['cat'] == 'issue' else e['name']
        s = sums.setdefault(e['pid'], {})
        s[key] = s.get(key, 0.0) + e['args']['cycles']
    elif ph == 'b':
        open_async[(e['cat'], e['id'])] = e['ts']
    elif ph == 'e':
        b = open_async.pop((e['cat'], e['id']))
        assert e['ts'] >= b, e
    else:
        sys.exit('unexpected phase ' + ph)
assert not open_async, 'async slices never ended'
launches = [l for k in rep['kernels'] for l in k['report']['launches']]
print('launches: %d, processes: %d' % (len(launches), len(names)))
bad = 0
for pid, l in enumerate(launches):
    print('process %d: %s' % (pid, names[pid]))
    got = sums.get(pid, {})
    for key, want in sorted(l['wave_cycles'].items()):
        have = got.get(key, 0.0)
        ok = abs(have - want) <= 1e-6 * max(1.0, abs(want))
        bad += not ok
        print('  %-20s report %12.1f timeline %12.1f %s' %
              (key, want, have, 'equal' if ok else 'DIFFERENT'))
    extra = set(got) - set(l['wave_cycles'])
    if extra:
        bad += 1
        print('  names not in the report: ' + ', '.join(sorted(extra)))
print('totals equal the report\'s' if not bad else '%d totals differ' % bad)

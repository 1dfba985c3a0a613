#!/usr/bin/env python3
"""Compares `asmevo-verify time --json` reports with the shared L2 on and off.

Usage: l2_sharing.py ON.json OFF.json (shared | same)

shared: the modelled CU's L2 served more lines with sharing on, some of them
fetched by another CU of its XCD, and the Infinity Cache fewer.
same: the two reports model the same time and lines (a one-CU XCD)."""
import json
import sys


def launch(path):
    return json.load(open(path))['kernels'][0]['report']['launches'][0]


on, off, mode = launch(sys.argv[1]), launch(sys.argv[2]), sys.argv[3]
print('on: L2 %d (shared %d), Infinity Cache %d, %d sharer groups' %
      (on['lines']['L2'], on['lines']['L2_shared'],
       on['lines']['infinity_cache'], on['sharer_groups']))
print('off: L2 %d (shared %d), Infinity Cache %d, %d sharer groups' %
      (off['lines']['L2'], off['lines']['L2_shared'],
       off['lines']['infinity_cache'], off['sharer_groups']))
if mode == 'shared':
    ok = (on['lines']['L2_shared'] > 0 and off['lines']['L2_shared'] == 0 and
          on['lines']['L2'] > off['lines']['L2'] and
          on['lines']['infinity_cache'] < off['lines']['infinity_cache'] and
          on['sharer_groups'] > 0 and off['sharer_groups'] == 0)
else:
    ok = on['cycles'] == off['cycles'] and on['lines'] == off['lines']
print('%s: %s' % (mode, 'yes' if ok else 'NO'))

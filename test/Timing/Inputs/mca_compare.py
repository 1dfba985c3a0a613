#!/usr/bin/env python3
"""Second opinion on the cycle model's static block throughput: llvm-mca.

Usage: mca_compare.py ASMEVO_OPT LLVM_OBJDUMP LLVM_MCA CO...

For each code object: `asmevo-opt CO --block-throughput=json` (the model's
cycles per iteration of each block body repeated) and llvm-objdump's text
of the same instructions. The straight-line VALU/SALU/MFMA blocks go, as
one code region each, into a single llvm-mca run (gfx942, 100 iterations);
llvm-mca's cycles per iteration (Total Cycles / Iterations) are in units of
about 4 shader cycles (SISchedule.td: "latency values are 1/(ops/cycle)/4";
its v_fma_f32 is 1, its v_mfma_f32_32x32x8_f16 8), so they are multiplied
by 4. Left out, because llvm-mca models them wrongly for this purpose:
memory instructions and s_waitcnt (fixed latencies, global_* counted on
lgkmcnt), s_nop (1 whatever its count), s_barrier and s_sleep (fixed
guessed latencies), and the quarter-rate and transcendental VALU ops it
gives full rate (v_mul_lo/hi_u32/i32, v_mad_u64_u32/i64_i32, v_rcp, v_rsq,
v_sqrt, v_exp, v_log, v_sin, v_cos). Prints the blocks outside 20% and the
count within it."""
import json
import re
import subprocess
import sys

opt, objdump, mca = sys.argv[1:4]
cos = sys.argv[4:]

SKIP_OPS = re.compile(
    r'^(v_mul_lo_u32|v_mul_hi_u32|v_mul_lo_i32|v_mul_hi_i32|v_mad_u64_u32|'
    r'v_mad_i64_i32|v_rcp|v_rsq|v_sqrt|v_exp|v_log|v_sin|v_cos|s_nop|'
    r's_waitcnt|s_barrier|s_sleep|s_setprio|s_sethalt|s_trap|s_icache|'
    r's_dcache|s_memtime|s_memrealtime|s_getreg|s_setreg)')
LINE = re.compile(r'^\s+(\S.*?)\s*//\s*([0-9A-Fa-f]+):')

regions, model, names, left_out = [], [], [], {}
for co in cos:
    bt = json.loads(subprocess.run([opt, co, '--block-throughput=json'],
                                   check=True, capture_output=True,
                                   text=True).stdout)
    dis = subprocess.run([objdump, '-d', '--mcpu=gfx942', co], check=True,
                         capture_output=True, text=True).stdout
    text = {}
    for l in dis.splitlines():
        m = LINE.match(l)
        if m:
            text[int(m.group(2), 16)] = m.group(1)
    for b in bt['blocks']:
        why = None
        if b['memory'] or b['waitcnt']:
            why = 'memory'
        elif b['barrier']:
            why = 'barrier'
        ins = [text.get(a) for a in b['addrs']]
        if why is None and any(i is None for i in ins):
            why = 'no disassembly'
        if why is None:
            for i in ins:
                if SKIP_OPS.match(i):
                    why = i.split()[0]
                    break
        if why is None and len(ins) < 2:
            why = 'single instruction'
        if why:
            left_out[why] = left_out.get(why, 0) + 1
            continue
        name = 'r%d' % len(regions)
        regions.append('# LLVM-MCA-BEGIN %s\n%s\n# LLVM-MCA-END %s\n' %
                       (name, '\n'.join(ins), name))
        model.append(b['cycles_per_iteration'])
        names.append('%s %s block %d (%d instructions)' %
                     (co.split('/')[-1], b['function'], b['block'],
                      len(ins)))

out = subprocess.run([mca, '-mtriple=amdgcn-amd-amdhsa', '-mcpu=gfx942',
                      '-iterations=100', '-'], input=''.join(regions),
                     capture_output=True, text=True)
if out.returncode:
    sys.exit('llvm-mca failed: ' + out.stderr[:2000])
cycles = [int(x) for x in re.findall(r'^Total Cycles:\s+(\d+)', out.stdout,
                                     re.M)]
iters = [int(x) for x in re.findall(r'^Iterations:\s+(\d+)', out.stdout,
                                    re.M)]
if len(cycles) != len(regions):
    sys.exit('llvm-mca gave %d regions for %d' % (len(cycles), len(regions)))
within, worst = 0, []
for n, m, c, it in zip(names, model, cycles, iters):
    ref = 4.0 * c / it
    r = m / ref if ref else 0
    if abs(r - 1) <= 0.20:
        within += 1
    else:
        worst.append((abs(r - 1), '%s: model %.1f, llvm-mca %.1f cycles/iter '
                      '(ratio %.2f)' % (n, m, ref, r)))
print('left out (llvm-mca models them wrongly, or no block to compare): ' +
      ', '.join('%s %d' % kv for kv in sorted(left_out.items())))
for _, w in sorted(worst, reverse=True):
    print('outside 20%: ' + w)
print('compared %d straight-line VALU/SALU/MFMA blocks of %d code objects' %
      (len(regions), len(cos)))
print('within 20%%: %d of %d (%.1f%%)' %
      (within, len(regions), 100.0 * within / max(1, len(regions))))

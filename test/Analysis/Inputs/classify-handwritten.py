#!/usr/bin/env python3
"""Sort every checker report on AMD's hand-written kernels into a pattern.

The issue asks that no violation be reported on the corpus unless the test
shows why it is genuine.  The reports left on the hand-written objects fall
into a few patterns, each argued once in corpus-handwritten-classes.test.
This script recomputes, for every report (hazards, waitcnt violations and
advisories), the facts those arguments rest on from the llvm-objdump text
alone: opcodes of producer and consumer, the shortest wait-state path
between them, what lies on it, and for s_waitcnt reports the number of
newer operations of the counter on a path where no wait covers the load.
A report that fits no pattern is printed as unclassified, so a new kind of
report fails the test instead of being counted under an old argument.

Usage: classify-handwritten.py --asmevo-opt PATH --objdump PATH --corpus DIR
"""

import argparse
import collections
import heapq
import json
import os
import re
import subprocess
import sys

# Every pattern, by rule, in output order.  A pattern whose count drops to 0
# is still printed, so the test notices when a checker fix removes it.
PATTERNS = {
    'mfma-read': ['straight-no-mfma', 'branch-no-mfma',
                  'straight-mfma-between', 'branch-mfma-between'],
    'mfma-waw': ['also-read', 'write-only'],
    'valu-vgpr-mfma': ['smfmac-tied-acc', 'mfma-srcc'],
    'valu-vgpr-permlane-swap': ['swap-after-swap', 'same-swap-twice'],
    'valu-vgpr-dpp': ['adjacent', 'valu-between', 'barrier-between'],
    'valu-sgpr-valu': ['cmp-cndmask-mask', 'readlane-direct',
                       'readlane-salu-redefined'],
    'valu-sgpr-valu-carry': ['carry-in'],
    'dst-sel-valu-vop3p': ['pk-f32-default-op-sel-hi'],
    'valu-sgpr-vmem': ['readlane-rsrc'],
    'xnack-soft-clause': ['smem-base-overwrite', 'd16-tied-vdst'],
    'waitcnt-read': ['lds-no-wait-counter-full', 'lds-no-wait',
                     'lds-weak-wait', 'vm-straight-margin-1',
                     'vm-straight-margin-2-4', 'vm-straight-margin-over-4',
                     'vm-forward-branch', 'vm-loop-carried'],
    'waitcnt-write-after-write': ['vm-straight-margin-over-4',
                                  'vm-loop-carried'],
    'waitcnt-barrier': ['branch-or-write-before-release', 'lds-read-before-release',
                        'wave-private-lds'],
}

LINE = re.compile(r'^\s+([a-z]\S*)\s*(.*?)\s*//\s*([0-9A-F]+):\s*([0-9A-F ]+)')
REG = re.compile(r'\b([vas])(?:(\d+)|\[(\d+):(\d+)\])')
COUNT = re.compile(r'(vmcnt|lgkmcnt)\((\d+)\)')
VMEM = re.compile(r'(buffer|global|flat|scratch|tbuffer)_')
SMEM = re.compile(r's_(load|buffer_load|store|buffer_store|memtime|memrealtime|'
                  r'atc_probe|dcache|sendmsg|atomic|buffer_atomic|scratch)')
DS_LOAD = re.compile(r'ds_(read|bpermute|permute|swizzle|consume|append)|_rtn_')
DS_LDS_READ = re.compile(r'ds_read')
NO_FALLTHROUGH = ('s_branch', 's_endpgm', 's_setpc_b64', 's_trap')
MAX_COUNT = 64  # more in-flight operations than any counter can name


class Inst:
    """One disassembled instruction."""

    def __init__(self, mnemonic, operands, address, words):
        self.mn = mnemonic
        self.ops = operands
        self.addr = address
        self.words = words

    def operand_list(self):
        return [o.strip() for o in self.ops.split(',')] if self.ops else []

    def wait_states(self):
        """As LLVM's SIInstrInfo::getNumWaitStates: s_nop N is N+1, else 1."""
        if self.mn == 's_nop':
            return (int(self.ops.split()[0], 0) & 0xf) + 1
        return 1

    def branch_target(self):
        """The taken target of a SOPP branch (simm16 in dwords from pc+4)."""
        if not (self.mn == 's_branch' or self.mn.startswith('s_cbranch')):
            return None
        simm = int(self.words[0], 16) & 0xffff
        if simm & 0x8000:
            simm -= 0x10000
        return self.addr + 4 + 4 * simm

    def is_mfma(self):
        return self.mn.startswith(('v_mfma', 'v_smfmac'))

    def counters(self):
        """The s_waitcnt counters this instruction increments."""
        out = set()
        if VMEM.match(self.mn):
            out.add('vmcnt')
        if self.mn.startswith(('flat_', 'ds_')) or SMEM.match(self.mn):
            out.add('lgkmcnt')
        return out

    def is_load(self):
        """Returns a value into a register through a counter."""
        if self.mn.startswith('ds_'):
            return bool(DS_LOAD.search(self.mn))
        if VMEM.match(self.mn):
            return ('_load' in self.mn or '_rtn' in self.mn or
                    ('_atomic' in self.mn and ' glc' in ' ' + self.ops)) and \
                ' lds' not in ' ' + self.ops
        return self.mn.startswith(('s_load', 's_buffer_load'))

    def defs(self):
        """Register slots written (first operand; none for stores)."""
        ops = self.operand_list()
        if not ops:
            return set()
        if self.mn.startswith(('ds_', 'buffer_', 'global_', 'flat_',
                               'scratch_')) and not self.is_load():
            return set()
        if self.mn.startswith(('s_store', 's_buffer_store', 's_waitcnt',
                               's_cmp', 's_cbranch', 's_branch', 's_nop',
                               's_barrier', 's_setvskip')):
            return set()
        return slots(ops[0])

    def uses(self):
        """Register slots read (every operand after the first, or all for
        stores)."""
        ops = self.operand_list()
        if not self.defs():
            return set().union(*[slots(o) for o in ops]) if ops else set()
        return set().union(*[slots(o) for o in ops[1:]]) if ops[1:] else set()

    def waitcnt(self, counter):
        if self.mn != 's_waitcnt':
            return None
        m = re.search(counter + r'\((\d+)\)', self.ops)
        return int(m.group(1)) if m else None


def slots(text):
    """Register slots ('v', n) named in an operand or report string."""
    out = set()
    for m in REG.finditer(text):
        kind, one, lo, hi = m.groups()
        lo, hi = (one, one) if one is not None else (lo, hi)
        out.update((kind, i) for i in range(int(lo), int(hi) + 1))
    return out


class Code:
    """The disassembly of one object with its control-flow edges."""

    def __init__(self, text):
        self.insts = []
        for line in text.splitlines():
            m = LINE.match(line)
            if m:
                mn, ops, addr, enc = m.groups()
                self.insts.append(Inst(mn, ops, int(addr, 16), enc.split()))
        self.index = {i.addr: n for n, i in enumerate(self.insts)}
        self._private = None
        self.preds = collections.defaultdict(list)
        for n in range(len(self.insts)):
            for s in self.succs(n):
                self.preds[s].append(n)

    def succs(self, n):
        """Successor indices of instruction n."""
        inst = self.insts[n]
        out = []
        target = inst.branch_target()
        if target in self.index:
            out.append(self.index[target])
        if inst.mn not in NO_FALLTHROUGH and n + 1 < len(self.insts):
            out.append(n + 1)
        return out

    def falls_through(self, lo, hi):
        """Instructions lo..hi-1 run in address order without a jump."""
        return lo <= hi and all(self.insts[n].mn not in NO_FALLTHROUGH
                                for n in range(lo, hi))

    def wave_private_lds(self):
        """Every DS access of the object addresses lane offset + wave base:
        its address VGPR is a sum of a value computed from v0 (the lane's
        work-item id) and an SGPR computed from v_readfirstlane (the wave),
        with no immediate offset, so each wave touches its own window."""
        if self._private is None:
            memo = {}
            ds = [n for n, i in enumerate(self.insts)
                  if i.mn.startswith(('ds_read', 'ds_write'))]
            self._private = bool(ds) and all(
                'offset:' not in self.insts[n].ops and
                self.origin(n, self.ds_address(n), memo) == {'lane', 'wave'}
                for n in ds)
        return self._private

    def ds_address(self, n):
        ops = self.insts[n].operand_list()
        return min(slots(ops[0] if self.insts[n].mn.startswith('ds_write')
                         else ops[1]))

    def origin(self, n, slot, memo, depth=0):
        """What slot holds before instruction n, on the straight path:
        a set of 'lane' (derived from v0 at entry) and 'wave' (derived from
        v_readfirstlane), or {'unknown'}."""
        key = (n, slot)
        if key in memo:
            return memo[key]
        result = {'unknown'}
        p = n - 1
        while p >= 0 and slot not in self.insts[p].defs() and \
                self.insts[p].mn not in NO_FALLTHROUGH:
            p -= 1
        if p < 0:
            result = {'lane'} if slot == ('v', 0) else {'unknown'}
        elif depth < 32 and self.insts[p].mn not in NO_FALLTHROUGH:
            inst = self.insts[p]
            if inst.mn.startswith('v_readfirstlane'):
                result = {'wave'}
            elif re.match(r'[vs]_(add|sub|mul|lshl|lshr|and|mov|or)', inst.mn):
                result = set()
                for u in sorted(inst.uses()):
                    result |= self.origin(p, u, memo, depth + 1)
        memo[key] = result
        return result

    def shortest_path(self, src, dst):
        """Fewest wait states from src to dst, as the checker's worst-path
        walk: (distance, instructions between, whether it is the
        fall-through path), or None if dst is unreachable."""
        if self.falls_through(src + 1, dst):
            straight = sum(self.insts[n].wait_states()
                           for n in range(src + 1, dst))
        else:
            straight = None
        best = {}
        heap = [(0, 0, s, (src,)) for s in self.succs(src)]
        while heap:
            dist, taken, n, path = heapq.heappop(heap)
            if n in best:
                continue
            best[n] = (dist, path)
            if n == dst:
                break
            if straight is not None and dist > straight:
                break
            for s in self.succs(n):
                jump = 0 if s == n + 1 else 1
                heapq.heappush(heap, (dist + self.insts[n].wait_states(),
                                      taken + jump, s, path + (n,)))
        if straight is not None and (dst not in best or
                                     best[dst][0] >= straight):
            return straight, list(range(src + 1, dst)), True
        if dst not in best:
            return None
        dist, path = best[dst]
        return dist, list(path[1:]), False


def hand_written(corpus):
    """Objects of FEATURES.tsv whose producer is not a compiler."""
    with open(os.path.join(corpus, 'FEATURES.tsv')) as f:
        rows = [line.rstrip('\n').split('\t') for line in f]
    col = rows[0].index('producer')
    return sorted(r[0] for r in rows[1:]
                  if len(r) > col and not r[col].startswith('compiled'))


def run(cmd):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def analyses(text):
    """The JSON objects asmevo-opt printed, one per code object."""
    dec = json.JSONDecoder()
    pos, out = 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        obj, pos = dec.raw_decode(text, pos)
        out.append(obj)


def reports(obj):
    """Every report of one analysed object as (rule, record)."""
    for fn in obj['functions']:
        for h in fn.get('hazards', []) + fn.get('advisories', []):
            yield h['rule'], h
        for v in fn['waitcnt']['violations']:
            yield 'waitcnt-' + v['kind'], v


# ----------------------------------------------------------------- hazards

def classify_hazard(code, rule, rep, same_site):
    """The pattern of a wait-state report, or None."""
    cons = code.index.get(int(rep['address'], 16))
    prod = code.index.get(int(rep['producer_address'], 16))
    if cons is None or prod is None:
        return None
    pi, ci = code.insts[prod], code.insts[cons]
    reg = slots(rep['register'])
    shortest = code.shortest_path(prod, cons)
    if shortest is None:
        return None
    _, path, straight = shortest
    between = [code.insts[n] for n in path]
    if rule == 'mfma-read':
        if not pi.is_mfma() or ci.is_mfma() or not reg & ci.uses():
            return None
        mfma = any(i.is_mfma() for i in between)
        return ('straight-' if straight else 'branch-') + \
            ('mfma-between' if mfma else 'no-mfma')
    if rule == 'mfma-waw':
        if not pi.is_mfma() or not reg & ci.defs():
            return None
        return 'also-read' if same_site else 'write-only'
    if rule == 'valu-vgpr-mfma':
        if pi.is_mfma() or not ci.is_mfma():
            return None
        return 'smfmac-tied-acc' if ci.mn.startswith('v_smfmac') \
            else 'mfma-srcc'
    if rule == 'valu-vgpr-permlane-swap':
        if not ('_swap' in pi.mn and '_swap' in ci.mn):
            return None
        return 'same-swap-twice' if (pi.mn, pi.ops) == (ci.mn, ci.ops) \
            else 'swap-after-swap'
    if rule == 'valu-vgpr-dpp':
        ops = ci.operand_list()
        if '_dpp' not in ci.mn or len(ops) < 2 or not reg & slots(ops[1]):
            return None
        if not between:
            return 'adjacent'
        if any(i.mn == 's_barrier' for i in between):
            return 'barrier-between'
        return 'valu-between' if all(i.mn.startswith('v_')
                                     for i in between) else None
    if rule == 'dst-sel-valu-vop3p':
        # A packed f32 op whose op_sel_hi is the default (nothing written),
        # its result read by the next instruction.
        if re.match(r'v_pk_(add|mul|fma)_f32$', pi.mn) and \
                'op_sel' not in pi.ops and not between and \
                reg & ci.uses():
            return 'pk-f32-default-op-sel-hi'
        return None
    return classify_sgpr(rule, pi, ci, between, reg)


def classify_sgpr(rule, pi, ci, between, reg):
    """Patterns of the VALU-writes-SGPR rules and soft clauses."""
    salu_redef = any(i.mn.startswith('s_') and reg & i.defs()
                     for i in between)
    readlane = pi.mn.startswith(('v_readlane', 'v_readfirstlane'))
    if rule == 'valu-sgpr-valu':
        if pi.mn.startswith('v_cmp') and ci.mn.startswith('v_cndmask'):
            return 'cmp-cndmask-mask'
        if readlane and reg & ci.uses():
            return 'readlane-salu-redefined' if salu_redef \
                else 'readlane-direct'
        return None
    if rule == 'valu-sgpr-valu-carry':
        if re.match(r'v_(add|sub|subrev)_co_', pi.mn) and \
                re.match(r'v_(addc|subb|subbrev)_co_', ci.mn):
            return 'carry-in'
        return None
    if rule == 'valu-sgpr-vmem':
        ops = ci.operand_list()
        if readlane and not salu_redef and ci.mn.startswith('buffer_') and \
                len(ops) > 2 and reg & slots(ops[2]):
            return 'readlane-rsrc'
        return None
    if rule == 'xnack-soft-clause':
        return classify_clause(pi, ci, between)
    return None


def classify_clause(pi, ci, between):
    """A replayed clause reads what a later member overwrote: a base
    address (real), or only a d16 load's own preserved half (tied)."""
    clause = [pi] + between + [ci]
    if any(i.counters() != clause[0].counters() or
           i.mn.startswith('s_nop') for i in clause):
        return None
    bases = set().union(*[i.uses() for i in clause])
    if ci.mn.startswith('s_load') and ci.defs() & bases:
        return 'smem-base-overwrite'
    others = set().union(*[i.uses() - i.defs() for i in clause])
    if '_d16' in ci.mn and not ci.defs() & others:
        return 'd16-tied-vdst'
    return None


# ----------------------------------------------------------------- waitcnt

def witnesses(code, start, slot, counter):
    """Backward search from instruction start for loads of slot that no
    s_waitcnt of counter proves complete.  Yields (k, bound, kind): k newer
    operations of the counter on the path, bound the least N + k' over the
    waits on it (None if none), kind 'straight', 'forward' or 'back'."""
    seen = set()
    stack = [(start, 0, None, 'straight')]
    while stack:
        n, k, bound, kind = stack.pop()
        for p in code.preds[n]:
            edge = kind
            if p != n - 1 or code.insts[p].mn in NO_FALLTHROUGH:
                edge = 'back' if code.insts[p].addr >= code.insts[n].addr \
                    else ('forward' if kind == 'straight' else kind)
            if edge == 'forward' and kind == 'back':
                edge = 'back'
            inst = code.insts[p]
            if slot in inst.defs():
                if inst.is_load() and counter in inst.counters() and \
                        (bound is None or k < bound):
                    yield k, bound, edge
                continue
            nk, nb = k, bound
            wait = inst.waitcnt(counter)
            if wait is not None:
                nb = wait + k if nb is None else min(nb, wait + k)
            if counter in inst.counters():
                nk = min(k + 1, MAX_COUNT)
            if nb is not None and nk >= nb:
                continue
            state = (p, nk, nb, edge)
            if state not in seen:
                seen.add(state)
                stack.append(state)


def classify_waitcnt(code, rep):
    """The pattern of a waitcnt read / write-after-write report."""
    n = code.index.get(int(rep['address'], 16))
    m = COUNT.search(rep['needed'])
    if n is None or not m:
        return None
    counter = m.group(1)
    found = [w for s in sorted(slots(rep['register']))
             for w in witnesses(code, n, s, counter)]
    straight = [w for w in found if w[2] == 'straight']
    if counter == 'lgkmcnt':
        if not straight:
            return None
        # The least covered witness: no wait at all before the most ops.
        k, bound, _ = max(straight, key=lambda w: (w[1] is None, w[0]))
        if bound is not None:
            return 'lds-weak-wait'
        return 'lds-no-wait-counter-full' if k >= 15 else 'lds-no-wait'
    if straight:
        margin = min(b - k if b is not None else MAX_COUNT
                     for k, b, _ in straight)
        return {1: 'vm-straight-margin-1'}.get(
            margin, 'vm-straight-margin-2-4' if margin <= 4
            else 'vm-straight-margin-over-4')
    if any(w[2] == 'back' for w in found):
        return 'vm-loop-carried'
    return 'vm-forward-branch' if found else None


def classify_barrier(code, rep):
    """The pattern of an s_barrier reached with LDS writes in flight.
    The report's lgkmcnt(N) says N newer operations follow the last write;
    walking on, the writes are complete at the first wait that forces them,
    and released at the next barrier after it.  Does a DS read run before
    that release (where another wave could read them unreleased)?"""
    n = code.index.get(int(rep['address'], 16))
    m = COUNT.search(rep['needed'])
    if n is None or code.insts[n].mn != 's_barrier' or not m:
        return None
    if code.wave_private_lds():
        return 'wave-private-lds'
    newer = int(m.group(2))
    complete = reads = False
    seen = set()
    while n not in seen:
        seen.add(n)
        succs = code.succs(n)
        if not succs:
            return None
        n = succs[-1]  # fall through, or the target of an s_branch
        i = code.insts[n]
        if i.mn == 's_barrier' and complete:
            return 'lds-read-before-release' if reads \
                else 'branch-or-write-before-release'
        reads = reads or bool(DS_LDS_READ.match(i.mn))
        wait = i.waitcnt('lgkmcnt')
        complete = complete or (wait is not None and wait <= newer)
        newer += 'lgkmcnt' in i.counters()
    return None


# ----------------------------------------------------------------- driver

def classify_object(path, tools, counts, unclassified):
    """Classify every report of one object into counts."""
    objs = analyses(run([tools.asmevo_opt, path, '--analyze=json']))
    for obj in objs:
        reps = list(reports(obj))
        if not reps:
            continue
        gfx = re.search(r'gfx\w+', obj['target']).group(0)
        code = Code(run([tools.objdump, '-d', '--mcpu=' + gfx, path]))
        read_sites = {(h['address'], h['producer_address'])
                      for rule, h in reps if rule == 'mfma-read'}
        for rule, rep in reps:
            if rule == 'waitcnt-barrier':
                pattern = classify_barrier(code, rep)
            elif rule.startswith('waitcnt-'):
                pattern = classify_waitcnt(code, rep)
            else:
                site = (rep['address'], rep['producer_address'])
                pattern = classify_hazard(code, rule, rep,
                                          site in read_sites)
            if pattern in PATTERNS.get(rule, []):
                counts[rule, pattern] += 1
            else:
                unclassified.append((path, rep['address'], rule))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--asmevo-opt', dest='asmevo_opt', required=True)
    parser.add_argument('--objdump', required=True)
    parser.add_argument('--corpus', required=True)
    tools = parser.parse_args()
    counts = collections.Counter()
    unclassified = []
    for rel in hand_written(tools.corpus):
        classify_object(os.path.join(tools.corpus, rel), tools, counts,
                        unclassified)
    for rule in sorted(PATTERNS):
        for pattern in sorted(PATTERNS[rule]):
            print('pattern %s %s: %d' % (rule, pattern,
                                         counts[rule, pattern]))
    for rule in sorted(PATTERNS):
        print('total %s: %d' % (rule, sum(counts[rule, p]
                                          for p in PATTERNS[rule])))
    print('unclassified: %d' % len(unclassified))
    for path, addr, rule in sorted(unclassified):
        print('unclassified %s %s %s' % (os.path.relpath(path, tools.corpus),
                                        addr, rule))
    return 0


if __name__ == '__main__':
    sys.exit(main())

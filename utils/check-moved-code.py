#!/usr/bin/env python3
"""Independent check that moved code still points where it did.

Given the original code object, a rebuilt one and the address map that
asmevo-opt wrote (--address-map), verify -- instruction for instruction,
without using AsmEvo's own lifter -- that every branch, every
s_getpc_b64-based PC-relative reference and every kernel entry point
(both entries of preload kernels) resolves to the same target as in the
original. Decoding is llvm-objdump's; ELF parsing is done here.

Prints one summary line; exits 1 on any mismatch.
"""
import bisect
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import asmevo_tools  # noqa: E402


def read_elf(path):
    data = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    secs = []
    for i in range(shnum):
        f = struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
        secs.append(dict(name_off=f[0], type=f[1], flags=f[2], addr=f[3],
                         off=f[4], size=f[5], link=f[6], entsize=f[9]))
    strtab = secs[shstrndx]
    for s in secs:
        end = data.index(b'\0', strtab['off'] + s['name_off'])
        s['name'] = data[strtab['off'] + s['name_off']:end].decode()
    syms = []
    for s in secs:
        if s['type'] != 2:  # SHT_SYMTAB
            continue
        st = secs[s['link']]
        for j in range(s['size'] // 24):
            name, info, other, shndx, value, size = struct.unpack_from(
                '<IBBHQQ', data, s['off'] + j * 24)
            end = data.index(b'\0', st['off'] + name)
            syms.append(dict(name=data[st['off'] + name:end].decode(),
                             value=value, size=size, shndx=shndx,
                             type=info & 0xf))
    return data, secs, syms


def section_of(secs, addr):
    for s in secs:
        if s['flags'] & 2 and s['addr'] <= addr < s['addr'] + s['size']:
            return s
    for s in secs:  # one past the end
        if s['flags'] & 2 and s['size'] and addr == s['addr'] + s['size']:
            return s
    return None


INSN = re.compile(r'^\s+(\S+)\s*(.*?)\s*//\s*([0-9A-Fa-f]+):\s*((?:[0-9A-Fa-f]{8}\s*)+)')


def disassemble(path):
    out = subprocess.run([asmevo_tools.tool('llvm-objdump'), '-d', path], capture_output=True,
                         text=True, check=True).stdout
    insns = []
    for line in out.splitlines():
        m = INSN.match(line)
        if not m:
            continue
        words = [int(w, 16) for w in m.group(4).split()]
        insns.append((int(m.group(3), 16), m.group(1), m.group(2), words))
    return insns


def targets(insns, secs):
    """addr -> ('br', target) | ('pc', target)"""
    out = {}
    for i, (addr, mn, ops, words) in enumerate(insns):
        if mn.startswith('s_branch') or mn.startswith('s_cbranch'):
            simm = words[0] & 0xffff
            if simm & 0x8000:
                simm -= 0x10000
            out[addr] = ('br', addr + 4 + simm * 4)
        if mn == 's_getpc_b64':
            reg = re.match(r's\[(\d+):(\d+)\]', ops)
            lo_r, hi_r = int(reg.group(1)), int(reg.group(2))
            lo = hi = None
            lo_at = None
            for a2, mn2, ops2, w2 in insns[i + 1:i + 16]:
                if mn2 == 's_add_u32' and ops2.startswith('s%d, s%d,' % (lo_r, lo_r)) and len(w2) == 2:
                    lo, lo_at = w2[1], a2
                elif mn2 == 's_addc_u32' and ops2.startswith('s%d, s%d,' % (hi_r, hi_r)) and len(w2) == 2 and lo is not None:
                    hi = w2[1]
                    break
            if lo is not None and hi is not None:
                out[lo_at] = ('pc', (addr + 4 + ((hi << 32) | lo)) & (2**64 - 1))
    return out


def main():
    orig_path, new_path, map_path = sys.argv[1:4]
    odata, osecs, osyms = read_elf(orig_path)
    ndata, nsecs, nsyms = read_elf(new_path)
    new2orig = {}
    for line in open(map_path):
        if line.startswith('#'):
            continue
        parts = line.split()
        new2orig[int(parts[0], 16)] = None if parts[1] == 'new' else int(parts[1], 16)
    oins = disassemble(orig_path)
    nins = disassemble(new_path)
    naddrs = sorted(a for a, *_ in nins)
    otg = targets(oins, osecs)
    ntg = targets(nins, nsecs)

    def resolve(naddr):
        """First original instruction at or after a new address."""
        idx = bisect.bisect_left(naddrs, naddr)
        while idx < len(naddrs):
            o = new2orig.get(naddrs[idx])
            if o is not None:
                return o
            idx += 1
        return None

    # Where each original instruction is now, and the block boundaries of
    # both objects: branch targets, and the instruction after a branch or
    # s_endpgm (for the reordering allowance of reordered()).
    orig2new = {o: n for n, o in new2orig.items() if o is not None}
    def boundaries(insns, tg):
        out = {t for _, t in tg.values()}
        for k, (a, mn, _, _) in enumerate(insns[:-1]):
            if mn.startswith(('s_branch', 's_cbranch', 's_endpgm', 's_setpc',
                              's_swappc')):
                out.add(insns[k + 1][0])
        return sorted(out)
    nbounds = boundaries(nins, ntg)
    obounds = boundaries(oins, otg)

    def reordered(ntarget, otarget):
        """A scheduler may move a block's first instruction down within its
        block: the branch still reaches that block when the original target
        is now later in the same new block, and everything before it there
        came from later in the same original block (or was added)."""
        n_o = orig2new.get(otarget)
        if n_o is None or n_o < ntarget:
            return False
        if any(ntarget < b <= n_o for b in nbounds):
            return False
        oend = next((b for b in obounds if b > otarget), None)
        for a in naddrs[bisect.bisect_left(naddrs, ntarget):]:
            if a >= n_o:
                return True
            o = new2orig.get(a)
            if o is not None and (o <= otarget or (oend is not None and o >= oend)):
                return False
        return False

    bad = []
    checked = {'br': 0, 'pc': 0, 'entry': 0}
    for naddr, (kind, ntarget) in ntg.items():
        oaddr = new2orig.get(naddr)
        if oaddr is None:
            continue  # an instruction an edit added
        if oaddr not in otg:
            bad.append('0x%x (orig 0x%x): %s with no counterpart' % (naddr, oaddr, kind))
            continue
        okind, otarget = otg[oaddr]
        checked[kind] += 1
        nsec = section_of(nsecs, ntarget)
        osec = section_of(osecs, otarget)
        if nsec and nsec['flags'] & 4:  # code: through the map
            got = resolve(ntarget)
            if got != otarget and not (kind == 'br' and reordered(ntarget, otarget)):
                bad.append('0x%x (orig 0x%x): %s target 0x%x maps to %s, original 0x%x' % (
                    naddr, oaddr, kind, ntarget, hex(got) if got is not None else None, otarget))
        else:  # data: same section, same offset
            if not nsec or not osec or nsec['name'] != osec['name'] or \
                    ntarget - nsec['addr'] != otarget - osec['addr']:
                bad.append('0x%x (orig 0x%x): data target %s+0x%x vs original %s+0x%x' % (
                    naddr, oaddr, nsec and nsec['name'], ntarget - (nsec['addr'] if nsec else 0),
                    osec and osec['name'], otarget - (osec['addr'] if osec else 0)))
    # Kernel entries, through the descriptors.
    def entries(data, secs, syms):
        res = {}
        for s in syms:
            if s['name'].endswith('.kd') and s['size'] == 64:
                sec = section_of(secs, s['value'])
                off = sec['off'] + s['value'] - sec['addr']
                entry_off, = struct.unpack_from('<q', data, off + 16)
                preload, = struct.unpack_from('<H', data, off + 58)
                res[s['name']] = (s['value'] + entry_off, preload & 0x7f)
        return res
    oent = entries(odata, osecs, osyms)
    nent = entries(ndata, nsecs, nsyms)
    for name, (oe, pre) in oent.items():
        ne, _ = nent.get(name, (None, 0))
        checked['entry'] += 1
        if ne is None or resolve(ne) != oe:
            bad.append('%s: entry 0x%s maps to %s, original 0x%x' % (
                name, '%x' % ne if ne is not None else '?', resolve(ne) if ne is not None else None, oe))
        if pre:
            checked['entry'] += 1
            if ne is None or resolve(ne + 256) != oe + 256:
                bad.append('%s: preload entry +256 maps to %s, original 0x%x' % (
                    name, resolve(ne + 256) if ne is not None else None, oe + 256))
    # Every original instruction of a mapped function appears exactly once.
    seen = [o for o in new2orig.values() if o is not None]
    dup = len(seen) - len(set(seen))
    if dup:
        bad.append('%d original instructions appear more than once in the map' % dup)
    moved = sum(1 for n, o in new2orig.items() if o is not None and n != o)
    print('%s: %d branches, %d pc-relative, %d entries checked; %d instructions moved; %d mismatches' % (
        new_path, checked['br'], checked['pc'], checked['entry'], moved, len(bad)))
    for b in bad[:20]:
        print('  ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

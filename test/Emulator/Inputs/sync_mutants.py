#!/usr/bin/env python3
"""Synchronization mutants of a code object, made by rules that do not use
the emulator: instruction addresses come from llvm-objdump, and the patch is
one 32-bit SOPP word (CDNA3 ISA, SOPP encoding: 0xBF8 | op << 16 | simm16):

  waitcnt-remove   s_waitcnt X        -> s_nop 0
  waitcnt-weaken   s_waitcnt vmcnt(N) -> vmcnt(N+1) (likewise lgkmcnt), one
                   counter at a time, when N is below its maximum
  nop-shorten      s_nop N (N > 0)    -> s_nop N-1
  barrier-remove   s_barrier          -> s_nop 0

    sync_mutants.py list CO             one line per mutant: ID KIND ADDR TEXT
    sync_mutants.py write CO ID OUT     write mutant ID of CO to OUT; an ID
                                        that is not a number is a regular
                                        expression: the first mutant whose
                                        list line matches it
"""
import os
import re
import struct
import subprocess
import sys

SOPP_NOP = 0xBF800000
SOPP_WAITCNT = 0xBF8C0000
SOPP_BARRIER = 0xBF8A0000
LINE = re.compile(r'^\s+(\S+)\s*(.*?)\s*//\s*([0-9A-Fa-f]+):\s*([0-9A-Fa-f ]+?)\s*(<.*>)?$')


def objdump(path):
    tool = os.environ.get('LLVM_OBJDUMP', 'llvm-objdump')
    out = subprocess.run([tool, '-d', path], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            yield int(m.group(3), 16), m.group(1), m.group(2), m.group(4).split()


def waitcnt_fields(imm):
    vm = (imm & 0xF) | ((imm >> 10) & 0x30)
    lgkm = (imm >> 8) & 0xF
    return vm, lgkm


def waitcnt_imm(imm, vm, lgkm):
    imm &= ~(0xF | (0x3 << 14) | (0xF << 8))
    return imm | (vm & 0xF) | ((vm >> 4) << 14) | (lgkm << 8)


def mutants(path):
    out = []
    for addr, mnem, ops, words in objdump(path):
        if len(words) != 1:
            continue
        word = int(words[0], 16)
        text = (mnem + ' ' + ops).strip()
        if mnem == 's_waitcnt':
            out.append(('waitcnt-remove', addr, word, SOPP_NOP, text + ' -> removed'))
            imm = word & 0xFFFF
            vm, lgkm = waitcnt_fields(imm)
            if vm < 63:
                out.append(('waitcnt-weaken', addr, word,
                            SOPP_WAITCNT | waitcnt_imm(imm, vm + 1, lgkm),
                            text + ' -> vmcnt(%d)' % (vm + 1)))
            if lgkm < 15:
                out.append(('waitcnt-weaken', addr, word,
                            SOPP_WAITCNT | waitcnt_imm(imm, vm, lgkm + 1),
                            text + ' -> lgkmcnt(%d)' % (lgkm + 1)))
        elif mnem == 's_nop' and (word & 0xFFFF0000) == SOPP_NOP and word & 0xF:
            n = word & 0xF
            out.append(('nop-shorten', addr, word, SOPP_NOP | (n - 1),
                        text + ' -> s_nop %d' % (n - 1)))
        elif mnem == 's_barrier':
            out.append(('barrier-remove', addr, word, SOPP_NOP, text + ' -> removed'))
    return out


def file_offset(data, addr):
    """File offset of virtual address addr (ELF64 program headers)."""
    phoff, = struct.unpack_from('<Q', data, 32)
    phentsize, phnum = struct.unpack_from('<HH', data, 54)
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from(
            '<IIQQQQ', data, phoff + i * phentsize)
        if p_type == 1 and p_vaddr <= addr < p_vaddr + p_filesz:
            return p_offset + addr - p_vaddr
    raise SystemExit('address 0x%x is not in a loadable segment' % addr)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == 'list':
        for i, (kind, addr, _, _, text) in enumerate(mutants(sys.argv[2])):
            print('%d\t%s\t0x%x\t%s' % (i, kind, addr, text))
        return
    if len(sys.argv) == 5 and sys.argv[1] == 'write':
        muts = mutants(sys.argv[2])
        sel = sys.argv[3]
        if not sel.isdigit():
            lines = ['%d\t%s\t0x%x\t%s' % (i, m[0], m[1], m[4])
                     for i, m in enumerate(muts)]
            hits = [i for i, l in enumerate(lines) if re.search(sel, l)]
            if not hits:
                sys.exit('no mutant matches %r' % sel)
            sel = hits[0]
        kind, addr, old, new, _ = muts[int(sel)]
        data = bytearray(open(sys.argv[2], 'rb').read())
        off = file_offset(data, addr)
        assert struct.unpack_from('<I', data, off)[0] == old
        struct.pack_into('<I', data, off, new)
        open(sys.argv[4], 'wb').write(data)
        return
    sys.exit(__doc__)


if __name__ == '__main__':
    main()

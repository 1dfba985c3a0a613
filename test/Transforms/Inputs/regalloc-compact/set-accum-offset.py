#!/usr/bin/env python3
"""set-accum-offset.py IN OFFSET OUT: IN with its one kernel descriptor's
ACCUM_OFFSET (COMPUTE_PGM_RSRC3 bits 0-5, (offset / 4) - 1) set to OFFSET,
written to OUT; the code object must have a single 64-byte .rodata, the
descriptor, as one-kernel suite objects do."""
import struct
import sys


def main():
    data = bytearray(open(sys.argv[1], 'rb').read())
    offset = int(sys.argv[2])
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)

    def section(i):
        base = shoff + i * shentsize
        name, = struct.unpack_from('<I', data, base)
        off, size = struct.unpack_from('<QQ', data, base + 0x18)
        return name, off, size

    _, stroff, _ = section(shstrndx)
    for i in range(shnum):
        name, off, size = section(i)
        end = data.index(b'\0', stroff + name)
        if data[stroff + name:end] == b'.rodata':
            if size != 64:
                sys.exit('.rodata is not one kernel descriptor')
            rsrc3, = struct.unpack_from('<I', data, off + 44)
            rsrc3 = (rsrc3 & ~0x3f) | (offset // 4 - 1)
            struct.pack_into('<I', data, off + 44, rsrc3)
            open(sys.argv[3], 'wb').write(data)
            return
    sys.exit('no .rodata')


main()

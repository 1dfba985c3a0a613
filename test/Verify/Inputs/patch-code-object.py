#!/usr/bin/env python3
"""Writes a copy of a code object with one descriptor bit flipped or one
metadata note integer changed, for the verifier's tests:
  patch-code-object.py IN OUT --kernel K --bit N       (N: 0..511 of K.kd)
  patch-code-object.py IN OUT --metadata-key .sgpr_count --value V
The metadata key's first occurrence must hold a msgpack positive fixint."""
import argparse
import struct
import sys


def descriptor_offset(data, kernel):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    for s in secs:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[s[6]]
        for off in range(s[4], s[4] + s[5], 24):
            name, _, _, shndx, value, _ = struct.unpack_from("<IBBHQQ", data,
                                                              off)
            start = strtab[4] + name
            sym = data[start:data.index(b"\0", start)].decode()
            if sym == kernel + ".kd":
                sec = secs[shndx]
                return sec[4] + value - sec[3]
    sys.exit("no descriptor symbol %s.kd" % kernel)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--kernel")
    p.add_argument("--bit", type=int)
    p.add_argument("--metadata-key")
    p.add_argument("--value", type=int)
    a = p.parse_args()
    data = bytearray(open(a.input, "rb").read())
    if a.bit is not None:
        off = descriptor_offset(data, a.kernel)
        data[off + a.bit // 8] ^= 1 << (a.bit % 8)
    else:
        key = a.metadata_key.encode()
        at = data.find(bytes([0xA0 | len(key)]) + key)
        if at < 0 or data[at + 1 + len(key)] >= 0x80 or not 0 <= a.value < 128:
            sys.exit("no fixint metadata key %s" % a.metadata_key)
        data[at + 1 + len(key)] = a.value
    open(a.output, "wb").write(data)


main()

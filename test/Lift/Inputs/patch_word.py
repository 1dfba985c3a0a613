#!/usr/bin/env python3
"""Writes a copy of a code object with one 32-bit word replaced:

    patch_word.py IN OUT SYMBOL+OFFSET WORD

SYMBOL is a function symbol; OFFSET and WORD are hex or decimal."""
import os
import struct
import sys

# Imported helpers must not leave __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "utils"))
import mutate_code_object as mco  # noqa: E402

src, dst, where, word = sys.argv[1:5]
name, _, off = where.partition("+")
data = bytearray(open(src, "rb").read())
elf = mco.Elf(data)
value = next(s[1] for s in elf.symbols() if s[0] == name)
pos = elf.file_offset(value + int(off or "0", 0))
struct.pack_into("<I", data, pos, int(word, 0) & 0xffffffff)
open(dst, "wb").write(data)

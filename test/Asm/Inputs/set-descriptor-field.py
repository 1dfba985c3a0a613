#!/usr/bin/env python3
"""Writes a copy of a code object with one field of its first kernel
descriptor changed, for the --emit=asm fallback tests.

    set-descriptor-field.py IN OUT OFFSET FORMAT VALUE [--or]

OFFSET is the byte offset in the 64-byte descriptor, FORMAT a struct format
("<I", "<H", "<B"), VALUE the new value (0x.. allowed); with --or, VALUE is
OR-ed into the field instead.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "utils"))
from mutate_code_object import Elf  # noqa: E402

args = [a for a in sys.argv[1:] if a != "--or"]
if len(args) != 5:
    sys.exit(__doc__)
src, dst, offset, fmt, value = args
data = bytearray(open(src, "rb").read())
kernels = Elf(bytes(data)).kernels()
if not kernels:
    sys.exit("%s: no kernel descriptor" % src)
at = kernels[0][1] + int(offset, 0)
new = int(value, 0)
if "--or" in sys.argv:
    new |= struct.unpack_from(fmt, data, at)[0]
struct.pack_into(fmt, data, at, new)
open(dst, "wb").write(bytes(data))

#!/usr/bin/env python3
"""Writes an uncompressed clang offload bundle from ID=FILE pairs, byte by
byte, for ids that llvm-22's clang-offload-bundler refuses to write or read
(the old "host-x86_64-unknown-linux" of Debian's rocsparse/rocrand).

    make_bundle.py -o OUT [--align N] ID=FILE...   (FILE may be empty: "")
"""
import argparse
import struct

p = argparse.ArgumentParser()
p.add_argument("-o", required=True)
p.add_argument("--align", type=int, default=4096)
p.add_argument("entries", nargs="+")
a = p.parse_args()
entries = []
for e in a.entries:
    ident, _, path = e.partition("=")
    data = open(path, "rb").read() if path else b""
    entries.append((ident.encode(), data))
header = 24 + 8 + sum(24 + len(i) for i, _ in entries)
pos, offsets = header, []
for _, data in entries:
    pos = (pos + a.align - 1) // a.align * a.align
    offsets.append(pos)
    pos += len(data)
out = bytearray(b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(entries)))
for (ident, data), off in zip(entries, offsets):
    out += struct.pack("<QQQ", off, len(data), len(ident)) + ident
for (_, data), off in zip(entries, offsets):
    out += b"\0" * (off - len(out)) + data
open(a.o, "wb").write(out)

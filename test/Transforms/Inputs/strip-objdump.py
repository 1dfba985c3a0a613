#!/usr/bin/env python3
"""Copies llvm-objdump -d output without its file-name line and blank lines,
so the disassembly of two files can be compared with diff."""
import sys
for l in sys.stdin:
    if l.strip() and 'file format' not in l:
        sys.stdout.write(l)

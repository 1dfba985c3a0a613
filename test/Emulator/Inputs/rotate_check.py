#!/usr/bin/env python3
"""Inputs for, and an independent model of, test/kernels/rotate.hip.

  rotate_check.py gen DIR     writes x.bin y.bin x64.bin amt.bin
  rotate_check.py check DIR   compares DIR/out32.bin out64.bin outm.bin
                              with the model; prints one line per output

The model is written from the C source and the ISA text of each builtin
(v_alignbit/alignbyte/perm/lerp/sad/sad_hi/msad/bfe), not from the
emulator. Shift amounts cover 0..31, 32..63 and larger, so rotates by
amounts >= the width are exercised.
"""
import random
import struct
import sys

N = 300
M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1

EDGE = [0, 1, 0x80000000, 0x7FFFFFFF, M32, 0x12345678, 0xDEADBEEF,
        0x00FF00FF, 0xFF00FF00, 0x01010101]


def inputs():
    rnd = random.Random(1234)
    x = [EDGE[i] if i < len(EDGE) else rnd.getrandbits(32) for i in range(N)]
    y = [EDGE[-1 - i] if i < len(EDGE) else rnd.getrandbits(32)
         for i in range(N)]
    x64 = [(x[i] << 32 | y[i]) if i % 3 else rnd.getrandbits(64)
           for i in range(N)]
    # amounts: 0..127 in order for the first 128 elements (every amount
    # below and above 32 and 64), then random 32-bit values.
    amt = [i if i < 128 else rnd.getrandbits(32) for i in range(N)]
    return x, y, x64, amt


def rotl32(v, s):
    s %= 32
    return ((v << s) | (v >> (32 - s))) & M32


def rotl64(v, s):
    s %= 64
    return ((v << s) | (v >> (64 - s))) & M64


def byte(v, k):
    return (v >> (8 * k)) & 0xFF


def perm(s0, s1, sel):
    data = (s0 << 32) | s1
    r = 0
    for k in range(4):
        b = byte(sel, k)
        if b < 8:
            v = (data >> (8 * b)) & 0xFF
        elif b == 8:
            v = 0xFF if s1 >> 15 & 1 else 0
        elif b == 9:
            v = 0xFF if s1 >> 31 & 1 else 0
        elif b == 10:
            v = 0xFF if s0 >> 15 & 1 else 0
        elif b == 11:
            v = 0xFF if s0 >> 31 & 1 else 0
        elif b == 12:
            v = 0
        else:
            v = 0xFF
        r |= v << (8 * k)
    return r


def ubfe(v, off, wd):
    off &= 31
    wd &= 31
    return 0 if wd == 0 else (v >> off) & ((1 << wd) - 1)


def sbfe(v, off, wd):
    off &= 31
    wd &= 31
    if wd == 0:
        return 0
    # The field is taken from the sign-extended source: an offset + width
    # beyond bit 31 reads copies of the sign bit (an arithmetic shift).
    sv = v - (1 << 32) if v >> 31 else v
    f = (sv >> off) & ((1 << wd) - 1)
    if f >> (wd - 1) & 1:
        f -= 1 << wd
    return f & M32


def model32(v, w, s):
    off, wd = s & 31, (s >> 5) & 31
    return [
        rotl32(v, 7),
        rotl32(v, s),
        rotl32(v, -s % 32),
        (((w << 32) | v) >> (s & 31)) & M32,
        (((w << 32) | v) >> (8 * (s & 3))) & M32,
        byte(v, 0) | byte(w, 0) << 8 | byte(v, 2) << 16 | byte(w, 2) << 24,
        ((v >> off) & ((1 << wd) - 1)) if wd else 0,
        (v & 0xFFFF0000) | (w & 0xFFFF),
    ]


def model64(v, s):
    return [rotl64(v, 13), rotl64(v, s), rotl64(v, 64 - 40)]


def media(v, w, s):
    sad = sum(abs(byte(v, k) - byte(w, k)) for k in range(4))
    msad = sum(abs(byte(v, k) - byte(w, k)) for k in range(4) if byte(w, k))
    lerp = 0
    for k in range(4):
        lerp |= ((byte(v, k) + byte(w, k) + (s >> (8 * k) & 1)) >> 1) << (8 * k)
    return [
        (((w << 32) | v) >> (s & 31)) & M32,
        (((w << 32) | v) >> (8 * (s & 3))) & M32,
        perm(w, v, s),
        lerp,
        (sad + s) & M32,
        ((sad << 16) + s) & M32,
        (msad + s) & M32,
        ubfe(v, s & 31, (s >> 5) & 31) ^ sbfe(w, (s >> 10) & 31, (s >> 15) & 31),
    ]


def write(path, fmt, vals):
    with open(path, "wb") as f:
        f.write(struct.pack("<%d%s" % (len(vals), fmt), *vals))


def read(path, fmt):
    data = open(path, "rb").read()
    size = struct.calcsize(fmt)
    return list(struct.unpack("<%d%s" % (len(data) // size, fmt), data))


def main():
    mode, d = sys.argv[1], sys.argv[2]
    x, y, x64, amt = inputs()
    if mode == "gen":
        write(d + "/x.bin", "I", x)
        write(d + "/y.bin", "I", y)
        write(d + "/x64.bin", "Q", x64)
        write(d + "/amt.bin", "I", amt)
        return 0
    bad = 0
    for name, fmt, k, fn in (
            ("out32", "I", 8, lambda i: model32(x[i], y[i], amt[i])),
            ("out64", "Q", 3, lambda i: model64(x64[i], amt[i])),
            ("outm", "I", 8, lambda i: media(x[i], y[i], amt[i]))):
        got = read("%s/%s.bin" % (d, name), fmt)
        mism = 0
        for i in range(N):
            exp = fn(i)
            for j in range(k):
                if got[k * i + j] != exp[j]:
                    if mism < 5:
                        print("%s[%d][%d]: got 0x%x expected 0x%x (x=0x%x "
                              "y=0x%x amt=%d)" % (name, i, j, got[k * i + j],
                                                  exp[j], x[i], y[i], amt[i]))
                    mism += 1
        print("%s: %d values, %d mismatches" % (name, N * k, mism))
        bad += mism
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

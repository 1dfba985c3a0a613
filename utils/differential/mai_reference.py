#!/usr/bin/env python3
"""MFMA (matrix fused multiply-add) instructions against a Python model
written from AMD's documentation of the CDNA2/CDNA3 matrix instructions
(CDNA3 ISA guide, "Matrix Arithmetic Instructions"; AMD's matrix
instruction calculator and the "AMD matrix cores" lab note give the same
register layouts).

D = A * B + C on one wave of 64 lanes, for Blocks independent M x N x K
products per instruction (1 block for the K-accumulating 16x16 and 32x32
shapes, 2 for 32x32x1/x2/x4, 4 for 16x16x1/x2/x4, 16 for 4x4), with
Kl = K * M * Blocks / 64 elements of A and of B per lane (the layouts
of the calculator's gfx9 code):
  - A (M x K): element A[i][k] of block b is in lane
    i + M * (b + Blocks * (k / Kl)), element k % Kl of the lane's packed
    source (element e of a packed source is bits [e*w, e*w + w) of its
    registers, low register first, w the input width);
  - B (K x N): B[k][j] of block b is in lane j + N * (b + Blocks * (k / Kl)),
    element k % Kl;
  - C and D (M x N), one 32-bit element per lane and register:
      4x4:   C[i][j] of block b in register i of lane 4 * b + j;
      16x16: register 4 * b + i % 4 of lane 16 * (i / 4) + j;
      32x32: register 16 * b + 4 * (i / 8) + i % 4 of lane
             32 * ((i / 4) % 2) + j;
      f64 (one element per register pair): 16x16x4 pair i / 4 of lane
             16 * (i % 4) + j; 4x4x4 (4 blocks) pair 0 of lane
             16 * i + 4 * b + j.
  - v_smfmac (gfx942, 4:2 sparse A, D += A * B): A's dense k range of a
    lane as above, of which the lane holds the two values of each group
    of four k (Kl / 2 values); src2 is a VGPR holding the 2-bit position
    of stored value e at bits [2e+1:2e] of index set s (bits
    [Kl*s + Kl - 1 : Kl*s]), s = ABID when CBSZ is 0, else 0 (the
    calculator's README; K[2][31] of v_smfmac_f32_16x16x32_f16 is bits
    [7:4] of lane 50, [31:28] with ABID 3). The cases draw the two
    positions of each group from the six increasing pairs (hipSPARSELt
    requires index0 < index1) and fill the other index sets with random
    bits.
Input formats: f32, f16, bf16 (the _1k forms: 4 per lane pair of
registers), i8 (signed), f64, xf32 (gfx942; f32 registers, two per lane:
how the hardware reduces them to xf32 is not documented, so the values
have 3 significant bits and are exact in any reduced format), and on
gfx942 fp8 (E4M3, bias 8) and bf8 (E5M2,
bias 16) in their FNUZ encodings (no infinities, 0x80 is the only NaN).

The float inputs are chosen so that every product, every partial sum in
any order and the sum with C are exact in f32 (few mantissa bits, a
bounded exponent range; checked per case): the result does not depend on
the hardware's accumulation order or intermediate rounding, which the
documentation does not specify, so rounding (inexact sums), denormal
handling, NaN and infinity propagation are not checked. i8 cases keep
the i32 accumulation within range (wrap-around is not checked).

Every opcode runs in its _vcd form (C and D in VGPRs) and its _acd form
(C and D in AGPRs), each four times: D apart from C; D in the same
registers as C (the accumulate-in-place use); A and B read from AGPRs;
C the inline constant 0 (every element 0, the usual first step of a
K loop); and twice more with the broadcast modifiers set, as AMD's matrix
instruction calculator documents them: CBSZ/ABID on the multi-block
shapes (block b multiplies A block ((b >> CBSZ) << CBSZ) | ABID), BLGP
1-7 (B input lane l reads lane l % 32, 32 + l % 32, (l + 16) % 64, or
16 * (BLGP - 4) + l % 16). BLGP is not set on the fp8/bf8 and xf32 forms:
what it does there is not settled from the documentation, and the
emulator refuses it. On the f64 forms of gfx942 BLGP's bits negate A, B
and C (the calculator's README; LLVM spells it neg:[a,b,c]); gfx90a
disallows it there, and neither takes CBSZ/ABID. The v_smfmac cases
(VGPR and AGPR D, A/B in AGPRs) select every index set with CBSZ 0 and
the first with CBSZ set.

The MC opcodes the kernel contains (from `asmevo-opt --emit=mir`) that
pass every case are written with --write-tested.

Not checked (not settled from the documentation read): the rounding of
inexact sums (accumulation order and intermediate rounding are not
specified; the emulator rounds an exact double sum once and reports the
result as approximated), NaN/infinity/denormal inputs, i32 wrap-around,
EXEC (the emulator writes every lane), the xf32 input reduction, SMFMAC
index pairs that are not increasing (the emulator refuses them).

This model and the emulator's MFMA code (lib/Emulator/ExecMFMA.cpp) have
one author; the independent check is AMD's matrix instruction calculator
(its gfx9 layout functions and README examples), from which both were
written, not one from the other.

Usage: mai_reference.py --clang CLANG --bin BUILD/bin --arch gfx942
                        --work DIR [--write-tested FILE]
"""
import os
import random
import struct
import subprocess
import sys
from fractions import Fraction as Q

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from constfold import mc_opcodes, run, strip_subtarget  # noqa: E402

WAVE = 64

# asm mnemonic, M, N, K, A type, B type, targets[, blocks].
OPS = [
    ("v_mfma_f32_32x32x2f32", 32, 32, 2, "f32", "f32", "both"),
    ("v_mfma_f32_16x16x4f32", 16, 16, 4, "f32", "f32", "both"),
    ("v_mfma_f32_32x32x8f16", 32, 32, 8, "f16", "f16", "both"),
    ("v_mfma_f32_16x16x16f16", 16, 16, 16, "f16", "f16", "both"),
    ("v_mfma_f32_32x32x8bf16_1k", 32, 32, 8, "bf16", "bf16", "both"),
    ("v_mfma_f32_16x16x16bf16_1k", 16, 16, 16, "bf16", "bf16", "both"),
    ("v_mfma_i32_32x32x8i8", 32, 32, 8, "i8", "i8", "gfx90a"),
    ("v_mfma_i32_16x16x16i8", 16, 16, 16, "i8", "i8", "gfx90a"),
    ("v_mfma_i32_32x32x16_i8", 32, 32, 16, "i8", "i8", "gfx942"),
    ("v_mfma_i32_16x16x32_i8", 16, 16, 32, "i8", "i8", "gfx942"),
]
for _a in ("fp8", "bf8"):
    for _b in ("fp8", "bf8"):
        OPS.append(("v_mfma_f32_16x16x32_%s_%s" % (_a, _b), 16, 16, 32,
                    _a, _b, "gfx942"))
        OPS.append(("v_mfma_f32_32x32x16_%s_%s" % (_a, _b), 32, 32, 16,
                    _a, _b, "gfx942"))
# Multi-block shapes: blocks independent products in one instruction.
for _m, _b in ((32, 2), (16, 4), (4, 16)):
    OPS += [
        ("v_mfma_f32_%dx%dx1f32" % (_m, _m), _m, _m, 1, "f32", "f32",
         "both", _b),
        ("v_mfma_f32_%dx%dx4f16" % (_m, _m), _m, _m, 4, "f16", "f16",
         "both", _b),
        ("v_mfma_f32_%dx%dx4bf16_1k" % (_m, _m), _m, _m, 4, "bf16",
         "bf16", "both", _b),
        ("v_mfma_i32_%dx%dx4i8" % (_m, _m), _m, _m, 4, "i8", "i8", "both",
         _b),
        # CDNA2's bf16 forms, two bf16 per lane.
        ("v_mfma_f32_%dx%dx2bf16" % (_m, _m), _m, _m, 2, "bf16", "bf16",
         "gfx90a", _b)]
OPS += [("v_mfma_f32_32x32x4bf16", 32, 32, 4, "bf16", "bf16", "gfx90a"),
        ("v_mfma_f32_16x16x8bf16", 16, 16, 8, "bf16", "bf16", "gfx90a"),
        # f64: one 16x16x4 block, four 4x4x4 blocks (gfx942 spells the
        # latter v_mfma_f64_4x4x4_4b_f64 and accepts this spelling).
        ("v_mfma_f64_16x16x4f64", 16, 16, 4, "f64", "f64", "both"),
        ("v_mfma_f64_4x4x4f64", 4, 4, 4, "f64", "f64", "both", 4),
        # xf32: f32 registers, two per lane.
        ("v_mfma_f32_16x16x8xf32", 16, 16, 8, "f32", "f32", "gfx942"),
        ("v_mfma_f32_32x32x4xf32", 32, 32, 4, "f32", "f32", "gfx942")]
OPS = [op + (1,) if len(op) == 7 else op for op in OPS]
OPS = [op + ("",) for op in OPS]
# Sparse (v_smfmac, gfx942): K is the dense K of A; the A registers hold
# half of it (4:2 structured sparsity), C is D.
SPARSE = [("v_smfmac_f32_16x16x32_%s" % t, 16, 16, 32, t, t, "gfx942", 1,
           "sparse") for t in ("f16", "bf16")]
SPARSE += [("v_smfmac_f32_32x32x16_%s" % t, 32, 32, 16, t, t, "gfx942", 1,
            "sparse") for t in ("f16", "bf16")]
SPARSE += [("v_smfmac_i32_16x16x64_i8", 16, 16, 64, "i8", "i8", "gfx942", 1,
            "sparse"),
           ("v_smfmac_i32_32x32x32_i8", 32, 32, 32, "i8", "i8", "gfx942", 1,
            "sparse")]
for _a in ("fp8", "bf8"):
    for _b in ("fp8", "bf8"):
        SPARSE += [
            ("v_smfmac_f32_16x16x64_%s_%s" % (_a, _b), 16, 16, 64, _a, _b,
             "gfx942", 1, "sparse"),
            ("v_smfmac_f32_32x32x32_%s_%s" % (_a, _b), 32, 32, 32, _a, _b,
             "gfx942", 1, "sparse")]

WIDTH = {"f32": 32, "f16": 16, "bf16": 16, "i8": 8, "fp8": 8, "bf8": 8,
         "f64": 64}


# --- element encodings -------------------------------------------------

def f32_bits(x):
    b = struct.unpack("<I", struct.pack("<f", float(x)))[0]
    if Q(struct.unpack("<f", struct.pack("<I", b))[0]) != Q(x):
        raise ValueError("%s is not exact in f32" % x)
    return b


def f16_bits(x):
    b = struct.unpack("<H", struct.pack("<e", float(x)))[0]
    if Q(struct.unpack("<e", struct.pack("<H", b))[0]) != Q(x):
        raise ValueError("%s is not exact in f16" % x)
    return b


def f64_bits(x):
    b = struct.unpack("<Q", struct.pack("<d", float(x)))[0]
    if Q(struct.unpack("<d", struct.pack("<Q", b))[0]) != Q(x):
        raise ValueError("%s is not exact in f64" % x)
    return b


def bf16_bits(x):
    b = f32_bits(x)
    if b & 0xFFFF:
        raise ValueError("%s is not exact in bf16" % x)
    return b >> 16


def fnuz_value(byte, ebits, mbits):
    """An FNUZ 8-bit float (bias 2^(ebits-1), no infinities, 0x80 NaN)
    as an exact fraction; None for the NaN."""
    if byte == 0x80:
        return None
    bias = 1 << (ebits - 1)
    s, e, m = byte >> 7, (byte >> mbits) & ((1 << ebits) - 1), \
        byte & ((1 << mbits) - 1)
    if e == 0:
        v = Q(m, 1 << mbits) * Q(2) ** (1 - bias)
    else:
        v = Q((1 << mbits) + m, 1 << mbits) * Q(2) ** (e - bias)
    return -v if s else v


F8 = {"fp8": (4, 3), "bf8": (5, 2)}
# The bytes whose value is 0 or of magnitude in [1/4, 16]: products are
# multiples of 2^-10 below 2^8, so 32 of them sum exactly in f32.
F8_CHOICES = {
    t: [(b, fnuz_value(b, *F8[t])) for b in range(256)
        if fnuz_value(b, *F8[t]) is not None and
        (fnuz_value(b, *F8[t]) == 0 or
         Q(1, 4) <= abs(fnuz_value(b, *F8[t])) <= 16)]
    for t in F8}


def pick(ty, rnd):
    """A random element of type ty: (bits, exact value)."""
    if ty == "i8":
        v = rnd.randrange(-128, 128)
        return v & 0xFF, v
    if ty in F8:
        return rnd.choice(F8_CHOICES[ty])
    # m * 2^e with |m| < 8 and e in -2..2: 3 significant bits, products
    # multiples of 2^-4 below 2^8.
    v = Q(rnd.randrange(-7, 8)) * Q(2) ** rnd.randrange(-2, 3)
    enc = {"f32": f32_bits, "f16": f16_bits, "bf16": bf16_bits,
           "f64": f64_bits}[ty]
    return enc(v), v


def pick_c(ty, rnd):
    if ty == "i8":
        v = rnd.randrange(-2 ** 30, 2 ** 30)
        return v & 0xFFFFFFFF, v
    v = Q(rnd.randrange(-2 ** 14, 2 ** 14), 16)
    if ty == "f64":
        return f64_bits(v), v
    return f32_bits(v), v


def exact_in_f32(terms, total):
    """Every partial sum of terms, in any order, is exact in f32: all are
    multiples of the smallest power of two among their denominators and
    their absolute sum stays below 2^24 of that unit."""
    unit = max(t.denominator for t in terms)
    if unit & (unit - 1):
        return False
    return sum(abs(t) for t in terms) * unit < 2 ** 24 and \
        f32_bits(total) is not None


# --- layouts -------------------------------------------------------------

def kl(op):
    """Elements of A (and B) per lane."""
    _, m, _, k = op[:4]
    return k * m * op[7] // WAVE


def a_pos(op, i, k, blk):
    """(lane, element) of A[i][k] of block blk: the k range of a lane is
    Kl long; groups of M lanes hold the blocks in order for the first k
    range, then for the next (the calculator's gfx9 input layout: lane
    M * blk + M * blocks * (k / Kl) + i)."""
    return i + op[1] * (blk + op[7] * (k // kl(op))), k % kl(op)


def b_pos(op, k, j, blk):
    return j + op[2] * (blk + op[7] * (k // kl(op))), k % kl(op)


def cd_pos(op, i, j, blk):
    """(lane, register) of C[i][j] and D[i][j] of block blk."""
    if op[4] == "f64":
        # One row per register pair (index returned) and 16-lane group.
        if op[1] == 4:
            return 16 * i + 4 * blk + j, 0
        return 16 * (i % 4) + j, i // 4
    if op[1] == 4:
        return 4 * blk + j, i
    if op[1] == 16:
        return j + 16 * (i // 4), 4 * blk + i % 4
    return j + 32 * ((i // 4) % 2), 16 * blk + 4 * (i // 8) + i % 4


def nregs(op):
    """Registers per lane of A, of B and of C (= D); sparse A holds half
    of its k range."""
    ra = max(1, kl(op) * WIDTH[op[4]] // 32)
    return (ra // 2 if op[8] else ra, ra,
            op[1] * op[2] * op[7] // WAVE * (2 if op[4] == "f64" else 1))


def pack(elems, width, regs):
    """Per-lane registers from per-lane element lists."""
    out = []
    for lane in elems:
        word = 0
        for e, bits in enumerate(lane):
            word |= bits << (e * width)
        out.append([(word >> (32 * r)) & 0xFFFFFFFF for r in range(regs)])
    return out


def blgp_source(blgp, lane):
    """The lane whose B registers B input lane `lane` reads under BLGP:
    1 broadcasts lanes 0-31 to 32-63, 2 lanes 32-63 to 0-31, 3 rotates
    down by 16 (lane 16's data to lane 0), 4-7 broadcast lane group
    blgp - 4 (of 16 lanes) to the other three."""
    if blgp == 1:
        return lane % 32
    if blgp == 2:
        return 32 + lane % 32
    if blgp == 3:
        return (lane + 16) % 64
    if blgp >= 4:
        return 16 * (blgp - 4) + lane % 16
    return lane


def make_case(op, rnd, c0=False, mods=(0, 0, 0)):
    """Registers of A, B, C per lane (C None when it is the constant 0,
    c0), and the expected D registers. mods = (cbsz, abid, blgp): block b
    multiplies A block ((b >> cbsz) << cbsz) | abid (CBSZ/ABID broadcast)
    by the B data of the lanes blgp_source names; on the f64 forms (gfx942
    only) blgp's bits negate A, B and C instead."""
    if op[8]:
        return make_sparse_case(op, rnd, mods)
    _, m, n, k, ta, tb, _, nblk, _ = op
    cbsz, abid, blgp = mods
    neg = blgp if ta == "f64" else 0
    if neg:
        blgp = 0
    sa, sb, sc = [-1 if neg & bit else 1 for bit in (1, 2, 4)]
    ra, _, rc = nregs(op)
    ea = [[0] * kl(op) for _ in range(WAVE)]
    eb = [[0] * kl(op) for _ in range(WAVE)]
    regs_c = [[0] * rc for _ in range(WAVE)]
    regs_d = [[0] * rc for _ in range(WAVE)]
    va, vb = {}, {}  # (lane, element) -> exact value
    As, Bs, Cs = [], [], []
    for blk in range(nblk):
        A = [[pick(ta, rnd) for _ in range(k)] for _ in range(m)]
        B = [[pick(tb, rnd) for _ in range(n)] for _ in range(k)]
        C = [[(0, 0) if c0 else pick_c(ta, rnd) for _ in range(n)]
             for _ in range(m)]
        As.append(A)
        Bs.append(B)
        Cs.append(C)
        for i in range(m):
            for x in range(k):
                lane, e = a_pos(op, i, x, blk)
                ea[lane][e] = A[i][x][0]
                va[lane, e] = A[i][x][1]
        for x in range(k):
            for j in range(n):
                lane, e = b_pos(op, x, j, blk)
                eb[lane][e] = B[x][j][0]
                vb[lane, e] = B[x][j][1]
    for blk in range(nblk):
        ablk = ((blk >> cbsz) << cbsz) | abid
        for i in range(m):
            for j in range(n):
                terms = []
                for x in range(k):
                    a = sa * va[a_pos(op, i, x, ablk)]
                    lane, e = b_pos(op, x, j, blk)
                    b = sb * vb[blgp_source(blgp, lane), e]
                    terms.append(a * b)
                c = Cs[blk][i][j]
                terms.append(sc * c[1])
                total = sum(terms)
                lane, r = cd_pos(op, i, j, blk)
                if ta == "f64":
                    # Small exact values: every partial sum is exact too.
                    d = f64_bits(total)
                    for h in range(2):
                        regs_c[lane][2 * r + h] = (c[0] >> (32 * h)) & \
                            0xFFFFFFFF
                        regs_d[lane][2 * r + h] = (d >> (32 * h)) & \
                            0xFFFFFFFF
                    continue
                if ta == "i8":
                    assert -2 ** 31 <= total < 2 ** 31
                    d = total & 0xFFFFFFFF
                else:
                    assert exact_in_f32(terms, total)
                    d = f32_bits(total)
                regs_c[lane][r] = c[0]
                regs_d[lane][r] = d
    ins = [pack(ea, WIDTH[ta], ra), pack(eb, WIDTH[tb], ra)]
    return ins + ([] if c0 else [regs_c]), regs_d


def index_set(op, mods):
    """The index set (of 2-bit indices) of the index register an SMFMAC
    reads: ABID when CBSZ is 0, else the first (the calculator's
    README)."""
    return 0 if mods[0] else mods[1]


PAIRS = [(p0, p1) for p0 in range(4) for p1 in range(p0 + 1, 4)]


def make_sparse_case(op, rnd, mods):
    """An SMFMAC case: A (M x K) with two values in each group of four k
    (the pair of positions drawn from the six increasing ones), stored
    packed with their 2-bit positions in the index register's set chosen
    by CBSZ/ABID (the other sets hold random bits); B dense; C = D.
    Returns the A, B, index and C registers and the expected D."""
    _, m, n, k, ta, tb = op[:6]
    ra, rb, rc = nregs(op)
    kll = kl(op)  # dense k per lane
    setoff = kll * index_set(op, mods)
    ea = [[0] * (kll // 2) for _ in range(WAVE)]
    eb = [[0] * kll for _ in range(WAVE)]
    idx = [rnd.getrandbits(32) for _ in range(WAVE)]
    for lane in range(WAVE):
        idx[lane] &= ~(((1 << kll) - 1) << setoff)
    A = [[(0, 0)] * k for _ in range(m)]
    for i in range(m):
        for g in range(k // 4):
            pos = rnd.choice(PAIRS)
            for h, p in enumerate(pos):
                kk = 4 * g + p
                A[i][kk] = pick(ta, rnd)
                lane, e0 = a_pos(op, i, kk, 0)
                e = (e0 // 4) * 2 + h  # stored value index in the lane
                ea[lane][e] = A[i][kk][0]
                idx[lane] |= p << (setoff + 2 * e)
    B = [[pick(tb, rnd) for _ in range(n)] for _ in range(k)]
    for x in range(k):
        for j in range(n):
            lane, e = b_pos(op, x, j, 0)
            eb[lane][e] = B[x][j][0]
    regs_c = [[0] * rc for _ in range(WAVE)]
    regs_d = [[0] * rc for _ in range(WAVE)]
    for i in range(m):
        for j in range(n):
            c = pick_c(ta, rnd)
            terms = [A[i][x][1] * B[x][j][1] for x in range(k)] + [c[1]]
            total = sum(terms)
            if ta == "i8":
                assert -2 ** 31 <= total < 2 ** 31
                d = total & 0xFFFFFFFF
            else:
                assert exact_in_f32(terms, total)
                d = f32_bits(total)
            lane, r = cd_pos(op, i, j, 0)
            regs_c[lane][r] = c[0]
            regs_d[lane][r] = d
    return [pack(ea, WIDTH[ta], ra), pack(eb, WIDTH[tb], rb),
            [[w] for w in idx], regs_c], regs_d


# --- kernel --------------------------------------------------------------

VARIANTS = ("apart", "in place", "agpr ab", "c0")


def bcast_mods(op, count, arch):
    """(cbsz, abid, blgp) for the count-th broadcast case: CBSZ 1 up to
    log2(blocks) with every ABID below 2^CBSZ in turn on multi-block
    shapes, BLGP 1-7 in turn except on the fp8/bf8 and xf32 forms (whose
    BLGP the emulator does not model). The f64 forms take no CBSZ/ABID;
    their BLGP is disallowed on gfx90a and negates A/B/C on gfx942."""
    cbsz = abid = blgp = 0
    if op[4] == "f64":
        return 0, 0, (1 + count % 7 if arch == "gfx942" else 0)
    if op[7] > 1:
        cbsz = 1 + count % (op[7].bit_length() - 1)
        abid = (count // 2) % (1 << cbsz)
    if op[4] not in F8 and op[5] not in F8 and "xf32" not in op[0]:
        blgp = 1 + count % 7
    return cbsz, abid, blgp


# (cbsz, abid) of the sparse cases besides (0, 0): every index set, and a
# nonzero CBSZ (which selects the first set whatever ABID says).
SPARSE_MODS = {16: [(0, 1), (0, 2), (0, 3), (1, 3)], 8: [(0, 1), (2, 1)]}


def forms(arch):
    """(op, cd, variant, (cbsz, abid, blgp)) per instruction: cd is "v"
    (VGPR C/D, _vcd) or "a" (AGPR, _acd); the variant is one of VARIANTS
    or "bcast" (D apart from C, broadcast modifiers set)."""
    out = []
    count = 0
    for op in OPS:
        if op[6] not in ("both", arch):
            continue
        for cd in "va":
            for v in VARIANTS:
                out.append((op, cd, v, (0, 0, 0)))
            for _ in range(2):
                mods = bcast_mods(op, count, arch)
                count += 1
                if any(mods):
                    out.append((op, cd, "bcast", mods))
    for op in SPARSE:
        if op[6] not in ("both", arch):
            continue
        for cd in "va":
            out.append((op, cd, "in place", (0, 0, 0)))
            out.append((op, cd, "agpr ab", (0, 0, 0)))
            for cbsz, abid in SPARSE_MODS[WIDTH[op[4]]]:
                out.append((op, cd, "in place", (cbsz, abid, 0)))
    return out


def ty(n):
    return "i32" if n == 1 else "<%d x i32>" % n


def kernel_ir(fs):
    lines = ['target triple = "amdgcn-amd-amdhsa"',
             "declare i32 @llvm.amdgcn.workitem.id.x()",
             "define amdgpu_kernel void @k(ptr addrspace(1) %out, "
             "ptr addrspace(1) %in) #0 {",
             "  %l = call i32 @llvm.amdgcn.workitem.id.x()"]
    inoff = outoff = 0
    nops = "s_nop 7\\0As_nop 7\\0As_nop 7"
    for x, (op, cd, var, mods) in enumerate(fs):
        ra, rb, rc = nregs(op)
        vals = []
        if op[8]:
            srcs = (("a", ra), ("b", rb), ("k", 1), ("c", rc))
        else:
            srcs = (("a", ra), ("b", rb)) + \
                ((("c", rc),) if var != "c0" else ())
        for name, n in srcs:
            lines.append("  %%o%s%d = mul i32 %%l, %d" % (name, x, n))
            lines.append("  %%p%s%d = add i32 %%o%s%d, %d"
                         % (name, x, name, x, inoff))
            lines.append("  %%g%s%d = getelementptr i32, ptr addrspace(1) "
                         "%%in, i32 %%p%s%d" % (name, x, name, x))
            lines.append("  %%%s%d = load volatile %s, ptr addrspace(1) "
                         "%%g%s%d, align 4" % (name, x, ty(n), name, x))
            vals.append("%s %%%s%d" % (ty(n), name, x))
            inoff += WAVE * n
        ab = "a" if var == "agpr ab" else "v"
        src_c = "$3"
        if op[8]:
            # D += A * B: the index register is src2, C is D.
            cons = "=%s,%s,%s,v,0" % (cd, ab, ab)
        elif var == "in place":
            cons = "=%s,v,v,0" % cd
        elif var == "c0":
            cons, src_c = "=&%s,v,v" % cd, "0"
        else:
            cons = "=&%s,%s,%s,%s" % (cd, ab, ab, cd)
        mod = "".join(" %s:%d" % (f, v) for f, v in
                      zip(("cbsz", "abid", "blgp"), mods) if v)
        if op[4] == "f64" and mods[2]:
            # gfx942's f64 BLGP field is the negation of A, B, C.
            mod = " neg:[%d,%d,%d]" % tuple((mods[2] >> b) & 1
                                            for b in range(3))
        asm = "%s\\0A%s $0, $1, $2, %s%s\\0A%s" % (nops, op[0], src_c, mod,
                                                 nops)
        lines.append('  %%d%d = call %s asm sideeffect "%s", "%s"(%s)'
                     % (x, ty(rc), asm, cons, ", ".join(vals)))
        lines.append("  %%od%d = mul i32 %%l, %d" % (x, rc))
        lines.append("  %%pd%d = add i32 %%od%d, %d" % (x, x, outoff))
        lines.append("  %%gd%d = getelementptr i32, ptr addrspace(1) %%out, "
                     "i32 %%pd%d" % (x, x))
        lines.append("  store volatile %s %%d%d, ptr addrspace(1) %%gd%d, "
                     "align 4" % (ty(rc), x, x))
        outoff += WAVE * rc
    lines += ["  ret void", "}",
              'attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }']
    return "\n".join(lines) + "\n", inoff, outoff


def spec(nin, nout):
    return "\n".join([
        "asmevo-launch: 1", "buffers:",
        "  out: {type: u32, count: %d, role: out}" % nout,
        "  in: {type: u32, count: %d, role: in}" % nin,
        "kernel: k", "grid: [1]", "block: [64]",
        "args: [out, in]"]) + "\n"


def mc_name(op):
    """v_mfma_f32_32x32x8bf16_1k -> V_MFMA_F32_32X32X8BF16_1K (the MC
    stem); the gfx942 spellings drop the underscore before the input type
    of the older ops (v_mfma_i32_32x32x16_i8 -> ..._32X32X16I8)."""
    n = op[0].upper()
    if n.endswith("_I8") and not op[8]:
        n = n[:-3] + "I8"
    return n


def run_kernel(args, fs, cases, work):
    """Builds the kernel of the instructions fs with inputs from cases,
    runs it in the emulator; returns the code object, the run's report
    and the output words (None unless the run is clean)."""
    os.makedirs(work, exist_ok=True)
    ir, nin, nout = kernel_ir(fs)
    words = []
    for ins, _ in cases:
        for regs in ins:
            for lane in regs:
                words += lane
    assert len(words) == nin
    inp = os.path.join(work, "in.bin")
    with open(inp, "wb") as f:
        f.write(struct.pack("<%dI" % nin, *words))
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(spec(nin, nout))
    ll = os.path.join(work, "k.ll")
    co = os.path.join(work, "k.co")
    with open(ll, "w") as f:
        f.write(ir)
    run([args.clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=" + args.arch,
         "-O1", "-nogpulib", ll, "-o", co], "clang")
    od = os.path.join(work, "out")
    cmd = [os.path.join(args.bin, "asmevo-verify"), "run", co, "--spec",
           os.path.join(work, "spec.yaml"), "--output-dir", od,
           "--input", "in=" + inp]
    p = subprocess.run(cmd, capture_output=True, text=True)
    txt = p.stdout + p.stderr
    if "result: clean" not in txt:
        return co, txt, None
    with open(os.path.join(od, "out.bin"), "rb") as f:
        return co, txt, struct.unpack("<%dI" % nout, f.read())


def refusals(args, rnd):
    """The uses the emulator must refuse (not settled by the documents):
    an SMFMAC index pair that is not increasing (all indices 0), BLGP on
    xf32, CBSZ/ABID on the f64 4x4x4 blocks, an SMFMAC ABID naming no
    index set. Each runs alone and must stop as unimplemented, for that
    reason. (gfx90a's assembler rejects BLGP on the f64 forms.)"""
    checks = []
    if args.arch == "gfx942":
        sp = [op for op in SPARSE if op[0].endswith("16x16x32_f16")][0]
        sp8 = [op for op in SPARSE if op[0].endswith("16x16x64_i8")][0]
        xf = [op for op in OPS if op[0] == "v_mfma_f32_16x16x8xf32"][0]
        checks += [("smfmac index pair 0,0", sp, (0, 0, 0), True,
                    "index pair"),
                   ("smfmac abid 2 of 8-bit", sp8, (0, 2, 0), False,
                    "no index set"),
                   ("xf32 blgp 1", xf, (0, 0, 1), False, "blgp")]
    f64 = [op for op in OPS if op[0] == "v_mfma_f64_4x4x4f64"][0]
    checks.append(("f64 cbsz 1", f64, (1, 0, 0), False, "cbsz"))
    bad = 0
    for n, (what, op, mods, zero_idx, why) in enumerate(checks):
        var = "in place" if op[8] else "bcast"
        fs = [(op, "v", var, mods)]
        ins, want = make_case(op, rnd, False, (0, 0, 0))
        if zero_idx:
            ins[2] = [[0] for _ in range(WAVE)]
        _, txt, out = run_kernel(args, fs, [(ins, want)],
                                 os.path.join(args.work, "refuse%d" % n))
        if out is None and any("unimplemented" in line and why in line
                               for line in txt.splitlines()):
            print("refused %s %s" % (args.arch, what))
        else:
            bad += 1
            print("FAIL %s %s: not refused\n%s" % (args.arch, what, txt))
    return bad


def main():
    args = harness.arguments()
    rnd = random.Random(args.seed)
    fs = forms(args.arch)
    cases = [make_case(op, rnd, v == "c0", mods) for op, _, v, mods in fs]
    co, txt, out = run_kernel(args, fs, cases, args.work)
    if out is None:
        raise RuntimeError("run not clean:\n" + txt)
    seq = [m for m in mc_opcodes(args, co)
           if m.startswith("V_MFMA") or m.startswith("V_SMFMAC")]
    if len(seq) != len(fs):
        raise RuntimeError("%d MFMA instructions in the kernel, %d emitted"
                           % (len(seq), len(fs)))
    tested, failed = set(), set()
    off = 0
    for (op, cd, var, mods), mc, (_, want) in zip(fs, seq, cases):
        # SMFMAC has one opcode for VGPR and AGPR destinations.
        form = "" if op[8] else "_acd" if cd == "a" else "_vcd"
        if strip_subtarget(mc) != mc_name(op) + form and \
                not (mc.startswith(mc_name(op) + "_") and
                     mc.endswith(form)):
            raise RuntimeError("%s became %s" % (op[0], mc))
        rc = len(want[0])
        bad = []
        for lane in range(WAVE):
            for r in range(rc):
                got = out[off + lane * rc + r]
                if got != want[lane][r]:
                    bad.append((lane, r, got, want[lane][r]))
        off += WAVE * rc
        what = "%s %s %s" % (op[0], cd, var)
        if any(mods):
            what += " cbsz:%d abid:%d blgp:%d" % mods
        if bad:
            failed.add(mc)
            print("FAIL %s %s (%s): %d of %d elements differ" % (
                args.arch, what, mc, len(bad), WAVE * rc))
            for lane, r, got, exp in bad[:4]:
                print("  lane %d reg %d: emulator=%#010x model=%#010x"
                      % (lane, r, got, exp))
        else:
            tested.add(mc)
            print("ok %s %s (%s)" % (args.arch, what, mc))
    if refusals(args, rnd):
        failed.add("refusals")
    return harness.finish(args, len(fs), tested, failed)


if __name__ == "__main__":
    sys.exit(main())

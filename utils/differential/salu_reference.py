#!/usr/bin/env python3
"""A reference model of documented AMD GPU (GFX9 / CDNA) scalar operations
(SOP1, SOP2, SOPC, SOPK, SOPP and scalar memory), and a differential run
of the emulator against it.

The model is written from the operation descriptions of AMD's CDNA3 ISA
reference guide (chapter 12, "Instructions": SOP2, SOPK, SOP1, SOPC, SOPP,
SMEM), not from the emulator's source, so the two can disagree. Scalar
values are per wave, so every workgroup is one single-lane wave with its
own input tuple (loaded by workgroup id, so the inputs sit in SGPRs). Each
instruction is emitted through inline assembly (the exact opcode and
encoding are fixed), after an `s_nop 7` marker and with SCC set from the
tuple first; its destination registers and SCC (read back through
s_cselect_b32) are copied to VGPRs and stored to the case's output slots.
Control flow (s_branch, s_cbranch_*, s_setpc_b64 ...) is checked by which
path was taken; scalar loads against the buffers' contents; scalar stores
and atomics by the memory they leave behind (and the value they return).

SOPP instructions without an architectural result (s_nop, s_setprio,
s_sleep, s_barrier in a one-wave group ...) are checked to leave SGPRs and
SCC as they were and let the program go on: those are "no effect" cases.

Scalar scratch (S_SCRATCH_*) runs in a kernel of its own with a private
segment, checked against the wave's vector scratch instructions through
the documented dword interleave of the private segment; the GCN branch
stack (S_CBRANCH_I_FORK / G_FORK / JOIN) by the paths taken, the EXEC
each path ran with and the stack entry in SGPRs; cache and translation
hints (S_ATC_PROBE*, S_DCACHE_DISCARD*, S_WAKEUP, S_SETKILL 0) as "no
effect" cases.

Not modelled (so not tested): S_MEMTIME / S_MEMREALTIME (a clock), the
VSKIP-enabling S_SETVSKIP (the emulator refuses it), s_buffer_load ranges
that end inside num_records, s_buffer_store / s_buffer_atomic outside
num_records (undocumented: the emulator refuses them at run time; the
cases here end exactly at num_records).

The MC opcodes (the one after each marker; clang's assembly assembled
again by `llvm-mc --show-inst`) that pass in every wave are written with
--write-tested: the list `asmevo-verify coverage --tested` reads.

Usage: salu_reference.py --clang CLANG --llvm-mc LLVM_MC --bin BUILD/bin
                         --arch gfx942 --work DIR [--write-tested FILE]
"""
import os
import random
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from constfold import run, strip_subtarget  # noqa: E402

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
N = 256         # waves (workgroups of one lane), one input tuple each
TUPLE = 16      # dwords of input per wave (see tuples())
PM_DWORDS = 1024  # the scalar-load source buffer
ST_SLOT = 16    # dwords of store target per store case and wave
PMH = 0x200     # bytes into pm: the base of the negative-offset loads


def sext(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def s32(v):
    return sext(v, 32)


def s64(v):
    return sext(v, 64)


def lo(v):
    return v & M32


def hi(v):
    return (v >> 32) & M32


# --- inputs ------------------------------------------------------------------

EDGES = [0, 1, 2, 31, 32, 33, 63, 64, 65, 127, 0x7FFFFFFF, 0x80000000,
         0x80000001, M32, 0xFFFFFFFE, 0x0000FFFF, 0x00008000, 0x00007FFF,
         0xFFFF8000, 0xFFFF7FFF, 0x00001234, 0xFFFFFEDC, 0x0000FEDC,
         0x12345678, 0xDEADBEEF, 0x00FF00FF, 0xF0F0F0F0, 0x11111111,
         0x40000000, 0x00010000]


def bfe_ctrl(rnd):
    """An S_BFE control word: offset in [5:0], width in [22:16], and
    sometimes junk in the bits the instruction ignores."""
    v = rnd.randrange(64) | (rnd.choice([0, 1, 2, 8, 16, 31, 32, 33, 63,
                                         64, 65, 127,
                                         rnd.randrange(72)]) << 16)
    if rnd.random() < 0.3:
        v |= rnd.getrandbits(32) & 0xFF80FFC0
    return v


def tuples(seed):
    """N tuples of (a, b, c, d, e, m, o, r): a, b, c 32-bit words; d a
    shift amount, bit index or S_BFE control; e the SCC the instruction
    starts with; m a register index 0..3 (M0-relative moves); o a dword
    offset 0..63 (scalar loads); r num_records of the buffer resource."""
    rnd = random.Random(seed)
    out = []

    def small(rnd):
        k = rnd.randrange(3)
        if k == 0:
            return rnd.randrange(128)
        if k == 1:
            return bfe_ctrl(rnd)
        return rnd.choice(EDGES) if rnd.random() < 0.5 else \
            rnd.getrandbits(32)

    for n in range(N):
        if n < len(EDGES) * 4:
            a = EDGES[n % len(EDGES)]
            b = EDGES[(n // len(EDGES) * 7 + n) % len(EDGES)]
        else:
            a = rnd.choice(EDGES) if rnd.random() < 0.3 else \
                rnd.getrandbits(32)
            b = rnd.choice(EDGES) if rnd.random() < 0.3 else \
                rnd.getrandbits(32)
        c = rnd.choice(EDGES) if rnd.random() < 0.3 else rnd.getrandbits(32)
        d = small(rnd)
        if n % 9 == 0:   # equal operands (compares, cmpswap, 64-bit eq)
            b = c = a
            d = a
        if n % 17 == 3:  # all-zero and all-one 64-bit values
            a = b = c = d = (0 if n % 2 else M32)
        e = rnd.randrange(2)
        m = rnd.randrange(4)
        o = rnd.randrange(64)
        r = rnd.choice([0, 4096, 0x10000])
        out.append(dict(a=a, b=b, c=c, d=d, e=e, m=m, o=o, r=r,
                        X=(a << 32) | b, Y=(c << 32) | d, n=n))
    return out


def tuple_words(t):
    return [t["a"], t["b"], t["c"], t["d"], t["e"], t["m"], t["o"], t["r"],
            lo(t["X"]), hi(t["X"]), lo(t["Y"]), hi(t["Y"]), 0, 0, 0, 0]


# --- the cases ---------------------------------------------------------------

# Operands a case may read: 32-bit (one SGPR) and 64-bit (a pair) inputs,
# and pointers (pm: the scalar-load buffer, st: this wave's store slot).
IN32 = "abcdemor"
IN64 = "XY"


class Case:
    """asm: the instruction lines (placeholders {a} ... {X} {Y} {pm}
    {st} {at}); outs: the registers copied out afterwards ("scc" is read
    through s_cselect_b32); tested: the MC opcode (without subtarget
    suffix) expected after each "s_nop 7" marker, in order; model(t):
    the expected outputs. store: (bias, sgpr, slot(t)): the {st} pointer
    is this wave's store slot minus bias dwords (and minus o for the SGPR
    offset forms), slot(t) its expected contents. atomic: (bias, sgpr,
    wide, final(t)): likewise for the {at} slot, final(t) the memory word
    the atomic leaves there."""

    def __init__(self, asm, outs, tested, model, store=None, atomic=None,
                 vclob=False):
        # vclob: the case also uses v[40:45].
        self.asm = asm
        self.outs = outs
        self.tested = tested
        self.model = model
        self.store = store
        self.atomic = atomic
        self.vclob = vclob


SCC_IN = "s_cmp_lg_u32 {e}, 0"
MARK = "s_nop 7"


def scc_of(t, scc):
    return t["e"] if scc is None else int(bool(scc))


def words(v, n):
    return [(v >> (32 * k)) & M32 for k in range(n)]


def ldst(nw):
    return "s40" if nw == 1 else "s[40:%d]" % (39 + nw)


def dst(nw):
    return "s20" if nw == 1 else "s[20:%d]" % (19 + nw)


def alu(mn, srcs, nw, fn, pre=()):
    """One SALU instruction writing s20 (nw dwords), sources from the
    tuple; fn(t) -> (result, scc or None when SCC is left alone)."""
    src = ", ".join("{%s}" % s if s in IN32 + IN64 else s for s in srcs)
    asm = list(pre) + [SCC_IN, MARK, "%s %s%s" % (mn, dst(nw),
                                                 ", " + src if src else "")]
    outs = ["s%d" % (20 + k) for k in range(nw)] + ["scc"]

    def model(t):
        d, scc = fn(t)
        return words(d, nw) + [scc_of(t, scc)]
    return Case(asm, outs, [mn.upper()], model)


def cmpop(mn, srcs, fn):
    """SOPC / S_CMPK: SCC only."""
    asm = [SCC_IN, MARK, "%s %s" % (mn, ", ".join(
        "{%s}" % s if s in IN32 + IN64 else s for s in srcs))]
    return Case(asm, ["scc"], [mn.upper()],
                lambda t: [int(bool(fn(t)))])


def ffbh(v, bits):
    return M32 if v == 0 else bits - v.bit_length()


def ffbl(v):
    return M32 if v == 0 else (v & -v).bit_length() - 1


def flbit_signed(v, bits):
    x = v ^ (((1 << bits) - 1) if v >> (bits - 1) else 0)
    return M32 if x == 0 else bits - x.bit_length()


def brev(v, bits):
    return int("{:0{}b}".format(v, bits)[::-1], 2)


def wqm(v, bits):
    r = 0
    for q in range(0, bits, 4):
        if (v >> q) & 15:
            r |= 15 << q
    return r


def quadmask(v, bits):
    r = 0
    for q in range(bits // 4):
        if (v >> (4 * q)) & 15:
            r |= 1 << q
    return r


def bitrep(v):
    r = 0
    for k in range(32):
        if (v >> k) & 1:
            r |= 3 << (2 * k)
    return r


def bfe_u(v, ctrl, bits):
    # D = (S0 >> S1[4:0] (5:0 for 64 bits)) & ((1 << S1[22:16]) - 1).
    off = ctrl & (bits - 1)
    w = (ctrl >> 16) & 127
    return (v >> off) & ((1 << w) - 1) & ((1 << bits) - 1)


def bfe_i(v, ctrl, bits):
    # The signed form shifts S0.i (arithmetically) and sign-extends the
    # width-bit field: bits of the field above the MSB are sign copies.
    off = ctrl & (bits - 1)
    w = (ctrl >> 16) & 127
    if w == 0:
        return 0
    f = (sext(v, bits) >> off) & ((1 << w) - 1)
    if w < bits:
        f = sext(f, w)
    return f & ((1 << bits) - 1)


def add_ovf(a, b, bits=32):
    s = sext(a, bits) + sext(b, bits)
    return s & ((1 << bits) - 1), int(not (-(1 << (bits - 1)) <= s <
                                            (1 << (bits - 1))))


def sub_ovf(a, b):
    s = s32(a) - s32(b)
    return s & M32, int(not (-2**31 <= s < 2**31))


def absdiff(a, b):
    # "D.i = S0.i - S1.i; if (D.i < 0) D.i = -D.i": 32-bit arithmetic
    # (the guide's examples: absdiff(0x80000000, 1) = 0x7fffffff).
    d = s32((a - b) & M32)
    return (-d if d < 0 else d) & M32


def sop2_cases():
    C = []
    a32 = [
        ("s_add_u32", "ab", lambda t: ((t["a"] + t["b"]) & M32,
                                       (t["a"] + t["b"]) >> 32)),
        ("s_sub_u32", "ab", lambda t: ((t["a"] - t["b"]) & M32,
                                       t["b"] > t["a"])),
        ("s_add_i32", "ab", lambda t: add_ovf(t["a"], t["b"])),
        ("s_sub_i32", "ab", lambda t: sub_ovf(t["a"], t["b"])),
        ("s_addc_u32", "ab", lambda t: (
            (t["a"] + t["b"] + t["e"]) & M32,
            (t["a"] + t["b"] + t["e"]) >> 32)),
        ("s_subb_u32", "ab", lambda t: (
            (t["a"] - t["b"] - t["e"]) & M32,
            t["b"] + t["e"] > t["a"])),
        ("s_min_i32", "ab", lambda t: (
            min(s32(t["a"]), s32(t["b"])) & M32, s32(t["a"]) < s32(t["b"]))),
        ("s_min_u32", "ab", lambda t: (min(t["a"], t["b"]),
                                       t["a"] < t["b"])),
        ("s_max_i32", "ab", lambda t: (
            max(s32(t["a"]), s32(t["b"])) & M32, s32(t["a"]) > s32(t["b"]))),
        ("s_max_u32", "ab", lambda t: (max(t["a"], t["b"]),
                                       t["a"] > t["b"])),
        ("s_cselect_b32", "ab", lambda t: (t["a"] if t["e"] else t["b"],
                                           None)),
        ("s_lshl_b32", "ad", lambda t: (
            (t["a"] << (t["d"] & 31)) & M32,
            (t["a"] << (t["d"] & 31)) & M32)),
        ("s_lshr_b32", "ad", lambda t: (t["a"] >> (t["d"] & 31),
                                        t["a"] >> (t["d"] & 31))),
        ("s_ashr_i32", "ad", lambda t: (
            (s32(t["a"]) >> (t["d"] & 31)) & M32,
            s32(t["a"]) >> (t["d"] & 31))),
        ("s_bfm_b32", "db", lambda t: (
            (((1 << (t["d"] & 31)) - 1) << (t["b"] & 31)) & M32, None)),
        ("s_mul_i32", "ab", lambda t: ((t["a"] * t["b"]) & M32, None)),
        ("s_mul_hi_u32", "ab", lambda t: ((t["a"] * t["b"]) >> 32, None)),
        ("s_mul_hi_i32", "ab", lambda t: (
            ((s32(t["a"]) * s32(t["b"])) >> 32) & M32, None)),
        ("s_bfe_u32", "ad", lambda t: (bfe_u(t["a"], t["d"], 32),
                                       bfe_u(t["a"], t["d"], 32))),
        ("s_bfe_i32", "ad", lambda t: (bfe_i(t["a"], t["d"], 32),
                                       bfe_i(t["a"], t["d"], 32))),
        ("s_absdiff_i32", "ab", lambda t: (absdiff(t["a"], t["b"]),
                                           absdiff(t["a"], t["b"]))),
        ("s_pack_ll_b32_b16", "ab", lambda t: (
            (t["a"] & 0xFFFF) | ((t["b"] & 0xFFFF) << 16), None)),
        ("s_pack_lh_b32_b16", "ab", lambda t: (
            (t["a"] & 0xFFFF) | (t["b"] & 0xFFFF0000), None)),
        ("s_pack_hh_b32_b16", "ab", lambda t: (
            (t["a"] >> 16) | (t["b"] & 0xFFFF0000), None)),
    ]
    for k in (1, 2, 3, 4):
        a32.append(("s_lshl%d_add_u32" % k, "ab",
                    lambda t, k=k: (((t["a"] << k) + t["b"]) & M32,
                                    ((t["a"] << k) + t["b"]) >> 32)))
    for name, fn in (("and", lambda x, y: x & y), ("or", lambda x, y: x | y),
                     ("xor", lambda x, y: x ^ y),
                     ("andn2", lambda x, y: x & ~y),
                     ("orn2", lambda x, y: x | ~y),
                     ("nand", lambda x, y: ~(x & y)),
                     ("nor", lambda x, y: ~(x | y)),
                     ("xnor", lambda x, y: ~(x ^ y))):
        a32.append(("s_%s_b32" % name, "ab",
                    lambda t, fn=fn: (fn(t["a"], t["b"]) & M32,
                                      fn(t["a"], t["b"]) & M32)))
        C.append(alu("s_%s_b64" % name, "XY", 2,
                     lambda t, fn=fn: (fn(t["X"], t["Y"]) & M64,
                                       fn(t["X"], t["Y"]) & M64)))
    for mn, srcs, fn in a32:
        C.append(alu(mn, srcs, 1, fn))
    C.append(alu("s_cselect_b64", "XY", 2,
                 lambda t: (t["X"] if t["e"] else t["Y"], None)))
    C.append(alu("s_lshl_b64", "Xd", 2, lambda t: (
        (t["X"] << (t["d"] & 63)) & M64, (t["X"] << (t["d"] & 63)) & M64)))
    C.append(alu("s_lshr_b64", "Xd", 2, lambda t: (
        t["X"] >> (t["d"] & 63), t["X"] >> (t["d"] & 63))))
    C.append(alu("s_ashr_i64", "Xd", 2, lambda t: (
        (s64(t["X"]) >> (t["d"] & 63)) & M64, s64(t["X"]) >> (t["d"] & 63))))
    C.append(alu("s_bfm_b64", "db", 2, lambda t: (
        (((1 << (t["d"] & 63)) - 1) << (t["b"] & 63)) & M64, None)))
    C.append(alu("s_bfe_u64", "Xd", 2, lambda t: (
        bfe_u(t["X"], t["d"], 64), bfe_u(t["X"], t["d"], 64))))
    C.append(alu("s_bfe_i64", "Xd", 2, lambda t: (
        bfe_i(t["X"], t["d"], 64), bfe_i(t["X"], t["d"], 64))))
    # A literal and an inline constant as sources.
    C.append(alu("s_add_u32", ["{a}", "0x12345678"], 1, lambda t: (
        (t["a"] + 0x12345678) & M32, (t["a"] + 0x12345678) >> 32)))
    C.append(alu("s_xor_b32", ["-16", "{a}"], 1, lambda t: (
        (t["a"] ^ 0xFFFFFFF0), t["a"] ^ 0xFFFFFFF0)))
    return C


def sop1_cases():
    C = []
    one = [
        ("s_mov_b32", "a", 1, lambda t: (t["a"], None)),
        ("s_mov_b64", "X", 2, lambda t: (t["X"], None)),
        ("s_not_b32", "a", 1, lambda t: (~t["a"] & M32, ~t["a"] & M32)),
        ("s_not_b64", "X", 2, lambda t: (~t["X"] & M64, ~t["X"] & M64)),
        ("s_wqm_b32", "a", 1, lambda t: (wqm(t["a"], 32), wqm(t["a"], 32))),
        ("s_wqm_b64", "X", 2, lambda t: (wqm(t["X"], 64), wqm(t["X"], 64))),
        ("s_brev_b32", "a", 1, lambda t: (brev(t["a"], 32), None)),
        ("s_brev_b64", "X", 2, lambda t: (brev(t["X"], 64), None)),
        ("s_bcnt0_i32_b32", "a", 1, lambda t: (
            32 - bin(t["a"]).count("1"), 32 - bin(t["a"]).count("1"))),
        ("s_bcnt0_i32_b64", "X", 1, lambda t: (
            64 - bin(t["X"]).count("1"), 64 - bin(t["X"]).count("1"))),
        ("s_bcnt1_i32_b32", "a", 1, lambda t: (
            bin(t["a"]).count("1"), bin(t["a"]).count("1"))),
        ("s_bcnt1_i32_b64", "X", 1, lambda t: (
            bin(t["X"]).count("1"), bin(t["X"]).count("1"))),
        ("s_ff0_i32_b32", "a", 1, lambda t: (ffbl(~t["a"] & M32), None)),
        ("s_ff0_i32_b64", "X", 1, lambda t: (ffbl(~t["X"] & M64), None)),
        ("s_ff1_i32_b32", "a", 1, lambda t: (ffbl(t["a"]), None)),
        ("s_ff1_i32_b64", "X", 1, lambda t: (ffbl(t["X"]), None)),
        ("s_flbit_i32_b32", "a", 1, lambda t: (ffbh(t["a"], 32), None)),
        ("s_flbit_i32_b64", "X", 1, lambda t: (ffbh(t["X"], 64), None)),
        ("s_flbit_i32", "a", 1, lambda t: (flbit_signed(t["a"], 32), None)),
        ("s_flbit_i32_i64", "X", 1, lambda t: (flbit_signed(t["X"], 64),
                                               None)),
        ("s_sext_i32_i8", "a", 1, lambda t: (sext(t["a"], 8) & M32, None)),
        ("s_sext_i32_i16", "a", 1, lambda t: (sext(t["a"], 16) & M32,
                                              None)),
        ("s_quadmask_b32", "a", 1, lambda t: (quadmask(t["a"], 32),
                                              quadmask(t["a"], 32))),
        ("s_quadmask_b64", "X", 2, lambda t: (quadmask(t["X"], 64),
                                              quadmask(t["X"], 64))),
        ("s_abs_i32", "a", 1, lambda t: (abs(s32(t["a"])) & M32,
                                         abs(s32(t["a"])) & M32)),
        ("s_bitreplicate_b64_b32", "a", 2, lambda t: (bitrep(t["a"]), None)),
    ]
    for mn, srcs, nw, fn in one:
        C.append(alu(mn, srcs, nw, fn))
    # Inline constants: integers sign-extend to the operand's width; the
    # float ones are that width's encoding of the value (ISA 3.4.2
    # "Instruction Inputs": 0.5 ... 4.0 and 1/(2*pi)).
    for k, v32, v64 in (("-1", M32, M64), ("-16", 0xFFFFFFF0,
                                           M64 - 15),
                        ("64", 64, 64), ("0.5", 0x3F000000,
                                         0x3FE0000000000000),
                        ("-4.0", 0xC0800000, 0xC010000000000000),
                        ("0.15915494", 0x3E22F983, None)):
        C.append(alu("s_mov_b32", [k], 1, lambda t, v=v32: (v, None)))
        if v64 is not None:
            C.append(alu("s_mov_b64", [k], 2, lambda t, v=v64: (v, None)))
    # Read-modify-write of the destination: s20 (or s[20:21]) starts as b
    # (Y).
    C.append(alu("s_cmov_b32", "a", 1, lambda t: (
        t["a"] if t["e"] else t["b"], None), pre=["s_mov_b32 s20, {b}"]))
    C.append(alu("s_cmov_b64", "X", 2, lambda t: (
        t["X"] if t["e"] else t["Y"], None), pre=["s_mov_b64 s[20:21], {Y}"]))
    C += saveexec_cases()
    C += movrel_cases()
    return C


def saveexec_cases():
    """EXEC is set to Y (saved in s[24:25] first), the instruction runs
    with source X, then the new EXEC and SCC are read and EXEC restored
    before any vector instruction."""
    C = []
    ops = [("and", lambda s, e: s & e), ("or", lambda s, e: s | e),
           ("xor", lambda s, e: s ^ e), ("andn2", lambda s, e: s & ~e),
           ("orn2", lambda s, e: s | ~e), ("nand", lambda s, e: ~(s & e)),
           ("nor", lambda s, e: ~(s | e)), ("xnor", lambda s, e: ~(s ^ e)),
           ("andn1", lambda s, e: ~s & e), ("orn1", lambda s, e: ~s | e)]
    forms = [("s_%s_saveexec_b64" % n, f, True) for n, f in ops] + \
        [("s_andn1_wrexec_b64", lambda s, e: ~s & e, False),
         ("s_andn2_wrexec_b64", lambda s, e: s & ~e, False)]
    for mn, f, save in forms:
        asm = ["s_mov_b64 s[24:25], exec", "s_mov_b64 exec, {Y}", SCC_IN,
               MARK, "%s s[20:21], {X}" % mn,
               "s_cselect_b32 s57, 1, 0",
               "s_mov_b64 s[22:23], exec", "s_mov_b64 exec, s[24:25]"]

        def model(t, f=f, save=save):
            new = f(t["X"], t["Y"]) & M64
            d = t["Y"] if save else new
            return words(d, 2) + words(new, 2) + [int(new != 0)]
        C.append(Case(asm, ["s20", "s21", "s22", "s23", "s57"],
                      [mn.upper()], model))
    return C


def movrel_cases():
    """s[24:27] = a, b, c, d; M0 = m (or 2 * (m & 1) for the 64-bit
    forms, which address an aligned pair)."""
    C = []
    init = ["s_mov_b32 s24, {a}", "s_mov_b32 s25, {b}",
            "s_mov_b32 s26, {c}", "s_mov_b32 s27, {d}"]

    def regs(t):
        return [t["a"], t["b"], t["c"], t["d"]]
    m32 = ["s_mov_b32 m0, {m}", "s_nop 1"]
    m64 = ["s_and_b32 s28, {m}, 1", "s_lshl_b32 m0, s28, 1", "s_nop 1"]
    C.append(Case(init + m32 + [SCC_IN, MARK, "s_movrels_b32 s20, s24"],
                  ["s20", "scc"], ["S_MOVRELS_B32"],
                  lambda t: [regs(t)[t["m"]], t["e"]]))
    C.append(Case(init + m64 + [SCC_IN, MARK,
                                "s_movrels_b64 s[20:21], s[24:25]"],
                  ["s20", "s21", "scc"], ["S_MOVRELS_B64"],
                  lambda t: regs(t)[2 * (t["m"] & 1):][:2] + [t["e"]]))

    def reld(t, w):
        r = regs(t)
        if w == 1:
            r[t["m"]] = t["a"]
        else:
            k = 2 * (t["m"] & 1)
            r[k:k + 2] = [lo(t["X"]), hi(t["X"])]
        return r + [t["e"]]
    C.append(Case(init + m32 + [SCC_IN, MARK, "s_movreld_b32 s24, {a}"],
                  ["s24", "s25", "s26", "s27", "scc"], ["S_MOVRELD_B32"],
                  lambda t: reld(t, 1)))
    C.append(Case(init + m64 + [SCC_IN, MARK,
                                "s_movreld_b64 s[24:25], {X}"],
                  ["s24", "s25", "s26", "s27", "scc"], ["S_MOVRELD_B64"],
                  lambda t: reld(t, 2)))
    return C


def gpr_idx_cases():
    """VGPR indexing (S_SET_GPR_IDX_*): v[40:43] = a, b, c, d; with
    indexing on, a VALU operand the mode enables reads (writes)
    v[N + M0[7:0]]; off, it reads v[N] again."""
    C = []
    init = ["v_mov_b32 v40, {a}", "v_mov_b32 v41, {b}",
            "v_mov_b32 v42, {c}", "v_mov_b32 v43, {d}",
            "v_mov_b32 v44, {e}"]

    def regs(t):
        return [t["a"], t["b"], t["c"], t["d"]]
    C.append(Case(init + [SCC_IN, MARK,
                          "s_set_gpr_idx_on {m}, gpr_idx(SRC0)",
                          "v_mov_b32 v44, v40", MARK, "s_set_gpr_idx_off",
                          "v_mov_b32 v45, v41"],
                  ["v44", "v45", "scc"],
                  ["S_SET_GPR_IDX_ON", "S_SET_GPR_IDX_OFF"],
                  lambda t: [regs(t)[t["m"]], t["b"], t["e"]], vclob=True))
    C.append(Case(init + ["s_set_gpr_idx_on 3, gpr_idx(SRC0)", SCC_IN, MARK,
                          "s_set_gpr_idx_idx {m}", "v_mov_b32 v44, v40",
                          "s_set_gpr_idx_off"],
                  ["v44", "scc"], ["S_SET_GPR_IDX_IDX"],
                  lambda t: [regs(t)[t["m"]], t["e"]], vclob=True))

    def moded(t):
        r = regs(t)
        r[t["m"]] = t["e"]
        return r + [t["e"]]
    C.append(Case(init + ["s_set_gpr_idx_on {m}, gpr_idx(SRC0)", SCC_IN,
                          MARK, "s_set_gpr_idx_mode gpr_idx(DST)",
                          "v_mov_b32 v40, v44", "s_set_gpr_idx_off"],
                  ["v40", "v41", "v42", "v43", "scc"],
                  ["S_SET_GPR_IDX_MODE"], moded, vclob=True))
    return C


def vskip_cases():
    """S_SETVSKIP with the selected bit clear (VSKIP off): the VALU after
    it runs. (Turning VSKIP on is not modelled by the emulator.)"""
    return [Case(["s_lshl_b32 s24, 1, {d}", "s_andn2_b32 s25, {a}, s24",
                  "v_mov_b32 v44, 1", SCC_IN, MARK, "s_setvskip s25, {d}",
                  "s_nop 0", "v_mov_b32 v44, 2"], ["v44", "scc"],
                 ["S_SETVSKIP"], lambda t: [2, t["e"]], vclob=True)]


def endpgm_cases():
    """Last in their kernel: waves with m == 0 end at S_ENDPGM_SAVED, then
    those with m == 1 at S_ENDPGM; an ended wave stores nothing more (the
    output buffer starts as zeros)."""
    C = []
    for mn, m in (("s_endpgm_saved", 0), ("s_endpgm", 1)):
        C.append(Case(["s_cmp_eq_u32 {m}, %d" % m,
                       "s_cbranch_scc0 .Lend_${:uid}",
                       MARK, mn, ".Lend_${:uid}:", "s_mov_b32 s20, 1"],
                      ["s20"], [mn.upper()],
                      lambda t, m=m: [0 if t["m"] <= m else 1]))
    return C


def bitset_cases():
    """The destination is also read: s20 (s[20:21]) starts as b (Y)."""
    C = []
    C.append(alu("s_bitset0_b32", "d", 1, lambda t: (
        t["b"] & ~(1 << (t["d"] & 31)), None), pre=["s_mov_b32 s20, {b}"]))
    C.append(alu("s_bitset1_b32", "d", 1, lambda t: (
        t["b"] | (1 << (t["d"] & 31)), None), pre=["s_mov_b32 s20, {b}"]))
    C.append(alu("s_bitset0_b64", "d", 2, lambda t: (
        t["Y"] & ~(1 << (t["d"] & 63)), None),
        pre=["s_mov_b64 s[20:21], {Y}"]))
    C.append(alu("s_bitset1_b64", "d", 2, lambda t: (
        t["Y"] | (1 << (t["d"] & 63)), None),
        pre=["s_mov_b64 s[20:21], {Y}"]))
    return C


def pc_cases():
    """The program counter's value is the kernel's load address, unknown
    to the model; differences of it are known: S_GETPC_B64 returns the
    address of the next instruction, S_SETPC_B64 / S_SWAPPC_B64 jump to
    an address made from it, S_CALL_B64 returns the address after it
    (all instructions here are 4 bytes)."""
    C = []
    # Two getpc 8 bytes apart.
    C.append(Case(["s_getpc_b64 s[24:25]", MARK, "s_getpc_b64 s[26:27]",
                   "s_sub_u32 s20, s26, s24", "s_subb_u32 s21, s27, s25"],
                  ["s20", "s21"], ["S_GETPC_B64"], lambda t: [8, 0]))
    # setpc to 12 bytes past the getpc's result: over one s_or (bit 2).
    setpc = ["s_getpc_b64 s[24:25]",          # A: s[24:25] = A + 4
             "s_add_u32 s24, s24, 24",        # A + 4
             "s_addc_u32 s25, s25, 0",        # A + 8
             "s_mov_b32 s20, 1",              # A + 12
             MARK,                            # A + 16
             "%s",                            # A + 20
             "s_or_b32 s20, s20, 2",          # A + 24 (skipped)
             "s_or_b32 s20, s20, 4"]          # A + 28 = target
    C.append(Case([x if x != "%s" else "s_setpc_b64 s[24:25]"
                   for x in setpc], ["s20"], ["S_SETPC_B64"],
                  lambda t: [5]))
    # swappc: also returns A + 24, 20 bytes after the getpc's result.
    C.append(Case([x if x != "%s" else "s_swappc_b64 s[26:27], s[24:25]"
                   for x in setpc] +
                  ["s_sub_u32 s21, s26, s24", "s_subb_u32 s22, s27, s25"],
                  ["s20", "s21", "s22"], ["S_SWAPPC_B64"],
                  lambda t: [5, (-4) & M32, M32]))
    # call: A: getpc (A + 4), A + 4: mov, A + 8: marker, A + 12: the call
    # returns A + 16, 12 past the getpc's, and skips the first s_or.
    C.append(Case(["s_getpc_b64 s[24:25]", "s_mov_b32 s20, 1", MARK,
                   "s_call_b64 s[26:27], .Lcall_${:uid}",
                   "s_or_b32 s20, s20, 2", ".Lcall_${:uid}:",
                   "s_or_b32 s20, s20, 4",
                   "s_sub_u32 s21, s26, s24", "s_subb_u32 s22, s27, s25"],
                  ["s20", "s21", "s22"], ["S_CALL_B64"],
                  lambda t: [5, 12, 0]))
    return C


def sopc_cases():
    C = []
    for ty, conv in (("i32", s32), ("u32", lambda v: v)):
        for p, f in (("eq", lambda x, y: x == y), ("lg", lambda x, y: x != y),
                     ("gt", lambda x, y: x > y), ("ge", lambda x, y: x >= y),
                     ("lt", lambda x, y: x < y), ("le", lambda x, y: x <= y)):
            C.append(cmpop("s_cmp_%s_%s" % (p, ty), "ab",
                           lambda t, f=f, conv=conv: f(conv(t["a"]),
                                                       conv(t["b"]))))
    C.append(cmpop("s_cmp_eq_u64", "XY", lambda t: t["X"] == t["Y"]))
    C.append(cmpop("s_cmp_lg_u64", "XY", lambda t: t["X"] != t["Y"]))
    C.append(cmpop("s_bitcmp0_b32", "ad",
                   lambda t: not (t["a"] >> (t["d"] & 31)) & 1))
    C.append(cmpop("s_bitcmp1_b32", "ad",
                   lambda t: (t["a"] >> (t["d"] & 31)) & 1))
    C.append(cmpop("s_bitcmp0_b64", "Xd",
                   lambda t: not (t["X"] >> (t["d"] & 63)) & 1))
    C.append(cmpop("s_bitcmp1_b64", "Xd",
                   lambda t: (t["X"] >> (t["d"] & 63)) & 1))
    return C


SIMM16 = [0, 1, 2, 0x40, 0x7FFF, 0x8000, 0xFFFF, 0x1234, 0xFEDC, 0x8001]


def sopk_cases():
    C = []
    for k in SIMM16:
        sk = sext(k, 16)
        C.append(alu("s_movk_i32", ["0x%x" % k], 1,
                     lambda t, sk=sk: (sk & M32, None)))
        C.append(alu("s_cmovk_i32", ["0x%x" % k], 1, lambda t, sk=sk: (
            sk & M32 if t["e"] else t["b"], None),
            pre=["s_mov_b32 s20, {b}"]))
        C.append(alu("s_addk_i32", ["0x%x" % k], 1,
                     lambda t, sk=sk: add_ovf(t["b"], sk & M32),
                     pre=["s_mov_b32 s20, {b}"]))
        C.append(alu("s_mulk_i32", ["0x%x" % k], 1,
                     lambda t, sk=sk: ((s32(t["b"]) * sk) & M32, None),
                     pre=["s_mov_b32 s20, {b}"]))
        for p, f in (("eq", lambda x, y: x == y), ("lg", lambda x, y: x != y),
                     ("gt", lambda x, y: x > y), ("ge", lambda x, y: x >= y),
                     ("lt", lambda x, y: x < y), ("le", lambda x, y: x <= y)):
            # The signed forms sign-extend SIMM16, the unsigned ones
            # zero-extend it.
            C.append(cmpop("s_cmpk_%s_i32" % p, ["{a}", "0x%x" % k],
                           lambda t, f=f, sk=sk: f(s32(t["a"]), sk)))
            C.append(cmpop("s_cmpk_%s_u32" % p, ["{a}", "0x%x" % k],
                           lambda t, f=f, k=k: f(t["a"], k)))
    C += hwreg_cases()
    return C


def hwreg_cases():
    """MODE's denormal field [7:4] written and read back (the rounding
    field is left alone: the emulator models round-to-nearest only); MODE
    is saved first and restored after."""
    C = []
    save = ["s_getreg_b32 s58, hwreg(HW_REG_MODE, 0, 32)"]
    rest = ["s_setreg_b32 hwreg(HW_REG_MODE, 0, 32), s58", "s_nop 2"]
    C.append(Case(save + [SCC_IN, MARK,
                          "s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), {a}",
                          "s_nop 2", MARK,
                          "s_getreg_b32 s20, hwreg(HW_REG_MODE, 4, 4)",
                          MARK,
                          "s_getreg_b32 s21, hwreg(HW_REG_MODE, 5, 2)",
                          "s_cselect_b32 s57, 1, 0"] + rest,
                  ["s20", "s21", "s57"],
                  ["S_SETREG_B32", "S_GETREG_B32", "S_GETREG_B32"],
                  lambda t: [t["a"] & 15, (t["a"] >> 1) & 3, t["e"]]))
    for k in (0, 5, 10, 15, 0xFFFFFFF6):
        C.append(Case(save + [SCC_IN, MARK,
                              "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), "
                              "0x%x" % k, "s_nop 2",
                              "s_getreg_b32 s20, hwreg(HW_REG_MODE, 4, 4)",
                              "s_cselect_b32 s57, 1, 0"] + rest,
                      ["s20", "s57"], ["S_SETREG_IMM32_B32"],
                      lambda t, k=k: [k & 15, t["e"]]))
    return C


def branch_cases():
    """s20 starts at 1; the fall-through path ors in 2, the target path
    4. Taken: 5; not taken: 7."""
    C = []

    def br(setup, mn, taken, restore=()):
        asm = ["s_mov_b32 s20, 1"] + list(setup) + [
            MARK, "%s .Lbr_${:uid}" % mn, "s_or_b32 s20, s20, 2",
            ".Lbr_${:uid}:", "s_or_b32 s20, s20, 4"] + list(restore)
        return Case(asm, ["s20"], [mn.upper()],
                    lambda t: [5 if taken(t) else 7])
    C.append(br([], "s_branch", lambda t: True))
    C.append(br([SCC_IN], "s_cbranch_scc0", lambda t: t["e"] == 0))
    C.append(br([SCC_IN], "s_cbranch_scc1", lambda t: t["e"] == 1))
    C.append(br(["s_mov_b64 vcc, {X}"], "s_cbranch_vccz",
                lambda t: t["X"] == 0))
    C.append(br(["s_mov_b64 vcc, {X}"], "s_cbranch_vccnz",
                lambda t: t["X"] != 0))
    exe = ["s_mov_b64 s[24:25], exec", "s_mov_b64 exec, {Y}"]
    back = ["s_mov_b64 exec, s[24:25]"]
    C.append(br(exe, "s_cbranch_execz", lambda t: t["Y"] == 0, back))
    C.append(br(exe, "s_cbranch_execnz", lambda t: t["Y"] != 0, back))
    return C


def noeffect_cases():
    """SOPP instructions with no architectural result: SGPRs, SCC and the
    program's course stay as they were."""
    C = []
    for text in ("s_nop 0", "s_nop 3", "s_setprio 2", "s_setprio 0",
                 "s_sleep 1", "s_barrier", "s_incperflevel 1",
                 "s_decperflevel 1", "s_icache_inv", "s_ttracedata"):
        mn = text.split()[0]
        C.append(Case(["s_mov_b32 s20, {a}", "s_mov_b64 s[22:23], {X}",
                       SCC_IN, MARK, text, "s_cselect_b32 s57, 1, 0"],
                      ["s20", "s22", "s23", "s57"], [mn.upper()],
                      lambda t: [t["a"], lo(t["X"]), hi(t["X"]), t["e"]]))
    return C


# --- scalar memory -----------------------------------------------------------

SIZES = [("dword", 1), ("dwordx2", 2), ("dwordx4", 4), ("dwordx8", 8),
         ("dwordx16", 16)]


def pm_words(seed):
    rnd = random.Random(seed * 7 + 1)
    return [rnd.getrandbits(32) for _ in range(PM_DWORDS)]


def load_cases(pm):
    """s_load_* / s_buffer_load_* of the pm buffer at byte offset
    4 * o + IMM (the SGPR offset carries 4 * o). The buffer forms read
    through a V# (base pm, stride 0, num_records r): out of range reads
    are 0; r is either 0 or covers every access. Negative immediates (21
    bits, signed; not for the buffer forms) read from pmh = pm + PMH."""
    C = []
    offs = ["s_lshl_b32 s59, {o}, 2"]
    for sz, n in SIZES:
        for imm in (0, 0x40, 0x104, -0x40):
            for form in ("IMM", "SGPR", "SGPR_IMM"):
                if form == "SGPR" and imm:
                    continue
                if form == "IMM" and imm == 0:
                    continue   # the IMM form addresses pm + imm only
                for buf in (False, True):
                    if buf and imm < 0:
                        continue
                    mn = "s_%sload_%s" % ("buffer_" if buf else "", sz)
                    base = "s[60:63]" if buf else \
                        "{pmh}" if imm < 0 else "{pm}"
                    pre = list(offs)
                    if buf:
                        pre += ["s_mov_b64 s[60:61], {pm}",
                                "s_and_b32 s61, s61, 0xffff",
                                "s_mov_b32 s62, {r}",
                                "s_mov_b32 s63, 0x27000"]
                    if form == "IMM":
                        text = "%s %s, %s, %s" % (mn, ldst(n), base,
                                                  hex(imm))
                    elif form == "SGPR":
                        text = "%s %s, %s, s59" % (mn, ldst(n), base)
                    else:
                        text = "%s %s, %s, s59 offset:%s" % (
                            mn, ldst(n), base, hex(imm))
                    uses_o = form != "IMM"

                    def model(t, n=n, imm=imm, uses_o=uses_o, buf=buf):
                        off = imm + (4 * t["o"] if uses_o else 0)
                        if buf and off + 4 * n > t["r"]:
                            return [0] * n + [t["e"]]
                        k = (off + (PMH if imm < 0 else 0)) // 4
                        return pm[k:k + n] + [t["e"]]
                    C.append(Case(pre + [SCC_IN, MARK, text, MARK,
                                         "s_waitcnt lgkmcnt(0)"],
                                  ["s%d" % (40 + j) for j in range(n)] +
                                  ["scc"],
                                  ["%s_%s" % (mn.upper(), form),
                                   "S_WAITCNT"], model))
    return C


def vsharp(ptr, end, sgpr):
    """s[60:63] = a V# (stride 0) at ptr whose num_records ends exactly
    at the access's last byte (end bytes past the V# base, plus the SGPR
    offset s59 for the SGPR forms): every dword is in range, the last one
    at the boundary."""
    v = ["s_mov_b64 s[60:61], %s" % ptr, "s_and_b32 s61, s61, 0xffff",
         "s_mov_b32 s63, 0x27000"]
    if sgpr:
        return v + ["s_add_u32 s62, s59, %s" % hex(end)]
    return v + ["s_mov_b32 s62, %s" % hex(end)]


def store_cases():
    """s_store_* / s_buffer_store_* of a, b, c, d (and the X, Y words)
    into this wave's store slot at byte 4 * IMM-dword offsets;
    s_dcache_wb makes them visible. Each case's slot is ST_SLOT dwords
    per wave. The buffer forms address the slot through a V# based at the
    {st} pointer (see vsharp)."""
    C = []
    for sz, n, buf in [(sz, n, buf) for sz, n in SIZES[:3]
                       for buf in (False, True)]:
        for form in ("IMM", "SGPR", "SGPR_IMM", "IMM-", "SGPR_IMM-"):
            if buf and form.endswith("-"):
                continue   # a negative offset is outside any V# range
            mn = "s_%sstore_%s" % ("buffer_" if buf else "", sz)
            # The slot pointer {st} is the slot minus 4 * o for the SGPR
            # forms (the SGPR carries 4 * o), minus 8 more for the
            # IMM forms (offset 8).
            # (The "-" forms have offset -8: the pointer is past the slot.)
            if form == "IMM":
                text, bias = "%s %s, {st}, 0x8" % (mn, dst(n)), 2
            elif form == "IMM-":
                text, bias = "%s %s, {st}, -0x8" % (mn, dst(n)), -2
            elif form == "SGPR":
                text, bias = "%s %s, {st}, s59" % (mn, dst(n)), 0
            elif form == "SGPR_IMM-":
                text, bias = "%s %s, {st}, s59 offset:-0x8" % (mn, dst(n)), -2
            else:
                text, bias = "%s %s, {st}, s59 offset:0x8" % (mn, dst(n)), 2
            sgpr = form.startswith("SGPR")
            form = form.rstrip("-")
            pre = ["s_lshl_b32 s59, {o}, 2", "s_mov_b32 s20, {a}",
                   "s_mov_b32 s21, {b}", "s_mov_b32 s22, {c}",
                   "s_mov_b32 s23, {d}"]
            if buf:
                text = text.replace("{st}", "s[60:63]")
                pre += vsharp("{st}", 4 * bias + 4 * n, sgpr)
            wb = "s_dcache_wb" if n != 2 else "s_dcache_wb_vol"

            def slot(t, n=n):
                return [t["a"], t["b"], t["c"], t["d"]][:n] + \
                    [0] * (ST_SLOT - n)
            c = Case(pre + [SCC_IN, MARK, text, MARK, wb,
                            MARK, "s_waitcnt lgkmcnt(0)"], ["scc"],
                     ["%s_%s" % (mn.upper(), form), wb.upper(),
                      "S_WAITCNT"], lambda t: [t["e"]],
                     store=(bias, sgpr, slot))
            C.append(c)
    # A store, then s_dcache_inv(_vol) and a load of it back.
    for inv in ("s_dcache_inv", "s_dcache_inv_vol"):
        C.append(Case(["s_mov_b32 s20, {a}", "s_mov_b32 s21, {b}",
                       "s_mov_b32 s59, 0",
                       "s_store_dwordx2 s[20:21], {st}, 0x8",
                       "s_dcache_wb", "s_waitcnt lgkmcnt(0)", MARK, inv,
                       "s_load_dwordx2 s[22:23], {st}, 0x8",
                       "s_waitcnt lgkmcnt(0)"], ["s22", "s23"],
                      [inv.upper()], lambda t: [t["a"], t["b"]],
                      store=(2, False, lambda t: [t["a"], t["b"]] +
                             [0] * (ST_SLOT - 2))))
    return C


ATOMICS = [
    # name, fn(mem, src, cmp, bits) -> new memory value
    ("swap", lambda m, s, c, w: s),
    ("cmpswap", lambda m, s, c, w: s if m == c else m),
    ("add", lambda m, s, c, w: (m + s) & ((1 << w) - 1)),
    ("sub", lambda m, s, c, w: (m - s) & ((1 << w) - 1)),
    ("smin", lambda m, s, c, w: m if sext(m, w) <= sext(s, w) else s),
    ("umin", lambda m, s, c, w: min(m, s)),
    ("smax", lambda m, s, c, w: m if sext(m, w) >= sext(s, w) else s),
    ("umax", lambda m, s, c, w: max(m, s)),
    ("and", lambda m, s, c, w: m & s),
    ("or", lambda m, s, c, w: m | s),
    ("xor", lambda m, s, c, w: m ^ s),
    # inc: tmp >= src ? 0 : tmp + 1; dec: tmp == 0 || tmp > src ? src :
    # tmp - 1 (unsigned).
    ("inc", lambda m, s, c, w: 0 if m >= s else m + 1),
    ("dec", lambda m, s, c, w: s if m == 0 or m > s else m - 1),
]


def atomic_init(t, wide):
    """The memory word of a wave's atomic slot before the atomic: c (and
    a above it)."""
    return (t["a"] << 32) | t["c"] if wide else t["c"]


def atomic_src(t, wide):
    # e = 1: the source equals the memory (inc/dec wrap, cmpswap hit).
    if t["e"]:
        return atomic_init(t, wide)
    return (t["d"] << 32) | t["b"] if wide else t["b"]


def atomic_cases():
    """s_atomic_* / s_buffer_atomic_* on this wave's own slot of the at
    buffer (8 bytes per case and wave, initial contents from
    atomic_init); with glc the old value comes back in the data
    registers. The buffer forms address the slot through a V# based at
    the {at} pointer (see vsharp)."""
    C = []
    for name, fn, wide, buf in [(name, fn, wide, buf)
                                for name, fn in ATOMICS
                                for wide in (False, True)
                                for buf in (False, True)]:
        w = 64 if wide else 32
        nw = 2 if wide else 1
        mn = "s_%satomic_%s%s" % ("buffer_" if buf else "", name,
                                  "_x2" if wide else "")
        ndata = nw * (2 if name == "cmpswap" else 1)
        data = dst(ndata)
        # s[20:...] = src (e ? memory : b, d), cmp = (e ? b : memory)
        # for cmpswap: the cmpswap hits when e = 0 here.
        pre = [SCC_IN, "s_cselect_b32 s20, {c}, {b}"]
        pre += ["s_cselect_b32 s21, {a}, {d}"] if wide else []
        if name == "cmpswap":
            if wide:
                pre += ["s_cselect_b32 s22, {b}, {c}",
                        "s_cselect_b32 s23, {d}, {a}"]
            else:
                pre += ["s_cselect_b32 s21, {b}, {c}"]
        pre.append("s_lshl_b32 s59, {o}, 2")
        # (form, byte offset): negative (21-bit signed) offsets for
        # a few of the ops.
        forms = [("IMM", 8), ("SGPR", 0), ("SGPR_IMM", 8)]
        if name in ("add", "cmpswap") and not buf:
            # (A negative offset is outside any V# range.)
            forms += [("IMM", -8), ("SGPR_IMM", -8)]
        for form, off in forms:
            for rtn in (False, True):
                glc = " glc" if rtn else ""
                bias = off // 4
                base = "s[60:63]" if buf else "{at}"
                if form == "IMM":
                    text = "%s %s, %s, %s%s" % (mn, data, base, hex(off),
                                                glc)
                elif form == "SGPR":
                    text = "%s %s, %s, s59%s" % (mn, data, base, glc)
                else:
                    text = "%s %s, %s, s59 offset:%s%s" % (
                        mn, data, base, hex(off), glc)
                mc = "%s_%s%s" % (mn.upper(), form,
                                  "_RTN" if rtn else "")

                def src_cmp(t, wide=wide, name=name):
                    # As the s_cselect_b32s above set them up.
                    m0 = atomic_init(t, wide)
                    s = atomic_src(t, wide)
                    if name != "cmpswap":
                        return m0, s, None
                    b = (t["d"] << 32) | t["b"] if wide else t["b"]
                    return m0, s, (b if t["e"] else m0)

                def model(t, fn=fn, w=w, nw=nw, rtn=rtn, src_cmp=src_cmp):
                    m0, s, c = src_cmp(t)
                    out = words(m0, nw) if rtn else []
                    return out + [t["e"]]

                def final(t, fn=fn, w=w, src_cmp=src_cmp):
                    m0, s, c = src_cmp(t)
                    return fn(m0, s, c, w)
                pre2 = list(pre)
                if buf:
                    pre2 += vsharp("{at}", off + 4 * nw, form != "IMM")
                C.append(Case(pre2 + [SCC_IN, MARK, text, MARK,
                                      "s_waitcnt lgkmcnt(0)"],
                              (["s%d" % (20 + j) for j in range(nw)]
                               if rtn else []) + ["scc"],
                              [mc, "S_WAITCNT"], model,
                              atomic=(bias, form != "IMM", wide,
                                      final)))
    return C


# --- scalar scratch, fork/join, cache hints ----------------------------------

# Dwords per lane of the scratch kernel's private segment (rows 0..64 are
# addressed; an alloca of this size makes the compiler allocate it).
PRIV_DWORDS = 80


def scratch_row_lane(imm):
    """(row, lane) that an S_SCRATCH byte offset moves by: the private
    segment is interleaved by dword across 64 lanes (AMDGPUUsage "Private
    Segment"), so wave byte address A is dword A // 256 of lane
    (A // 4) % 64."""
    return imm // 256, (imm // 4) % 64


def scratch_cases():
    """S_SCRATCH_LOAD_* / S_SCRATCH_STORE_* against the vector scratch
    instructions of the same wave (CDNA4 ISA guide 8.2.1.1: ADDR =
    SGPR[base] + inst_offset + SGPR[soffset] * 64; 12.6: the SGPR offset
    counts 64-byte units, "consistent with other scratch operations").
    The base is FLAT_SCRATCH
    plus 4 * m bytes (lane m); the SGPR offset s59 = 4 * o (row o).

    Scalar store -> vector load: the scalar store writes a, b, c, d (one
    dword per lane, consecutive lanes); with EXEC all ones a
    scratch_load_dword of that row brings every lane's dword, and
    v_readlane of the lanes the model says were written reads them back.
    Vector store -> scalar load: every lane L stores a ^ (L << 16) in
    the row; the scalar load's dword K must be lane (m + lane + K)'s."""
    C = []
    base = ["s_lshl_b32 s26, {m}, 2", "s_add_u32 s24, flat_scratch_lo, s26",
            "s_addc_u32 s25, flat_scratch_hi, 0", "s_lshl_b32 s59, {o}, 2"]
    allx = ["s_mov_b64 s[28:29], exec", "s_mov_b64 exec, -1"]
    back = ["s_mov_b64 exec, s[28:29]"]
    forms = [("IMM", 0x104), ("IMM", 0x8), ("SGPR", 0), ("SGPR_IMM", 0x104),
             ("SGPR_IMM", 0x4)]
    for sz, n in (("dword", 1), ("dwordx2", 2), ("dwordx4", 4)):
        for form, imm in forms:
            drow, dlane = scratch_row_lane(imm)
            sgpr = form != "IMM"
            off = ("s59 offset:%s" % hex(imm)) if form == "SGPR_IMM" else \
                "s59" if form == "SGPR" else hex(imm)
            # s60: the vector side's per-lane byte offset of the row.
            row = ["s_add_u32 s60, s59, %d" % (4 * drow)] if sgpr else \
                ["s_mov_b32 s60, %d" % (4 * drow)]
            # Store, then read lanes m + dlane + K of the row back.
            mn = "s_scratch_store_%s" % sz
            st = ["s_mov_b32 s20, {a}", "s_mov_b32 s21, {b}",
                  "s_mov_b32 s22, {c}", "s_mov_b32 s23, {d}"]
            # (The lane numbers are computed before SCC is set: s_add_u32
            # writes SCC.)
            lanes, rd = [], []
            for k in range(n):
                lanes.append("s_add_u32 s%d, {m}, %d" % (50 + k, dlane + k))
                rd.append("v_readlane_b32 s%d, v40, s%d" % (40 + k, 50 + k))
            asm = base + row + st + lanes + [SCC_IN, MARK,
                                     "%s %s, s[24:25], %s" % (mn, dst(n),
                                                              off),
                                     "s_dcache_wb", "s_waitcnt lgkmcnt(0)"] \
                + allx + ["scratch_load_dword v40, off, s60",
                          "s_waitcnt vmcnt(0)"] + back + rd + ["s_nop 4"]
            C.append(Case(asm, ["s%d" % (40 + k) for k in range(n)] +
                          ["scc"],
                          ["%s_%s" % (mn.upper(), form)],
                          lambda t, n=n: [t["a"], t["b"], t["c"],
                                          t["d"]][:n] + [t["e"]],
                          vclob=True))
            # Lane values, a vector store of the row, then the scalar load.
            mn = "s_scratch_load_%s" % sz
            vals = ["v_mbcnt_lo_u32_b32 v41, -1, 0",
                    "v_mbcnt_hi_u32_b32 v41, -1, v41",
                    "v_lshlrev_b32 v41, 16, v41",
                    "v_xor_b32 v40, {a}, v41"]
            asm = base + row + allx + vals + [
                "scratch_store_dword off, v40, s60", "s_waitcnt vmcnt(0)"] \
                + back + ["s_dcache_inv", SCC_IN, MARK,
                          "%s %s, s[24:25], %s" % (mn, ldst(n), off),
                          "s_waitcnt lgkmcnt(0)"]

            def model(t, n=n, dlane=dlane):
                return [t["a"] ^ ((t["m"] + dlane + k) << 16)
                        for k in range(n)] + [t["e"]]
            C.append(Case(asm, ["s%d" % (40 + k) for k in range(n)] +
                          ["scc"], ["%s_%s" % (mn.upper(), form)], model,
                          vclob=True))
    return C


def popcount(v):
    return bin(v).count("1")


def fork_cases():
    """S_CBRANCH_I_FORK / S_CBRANCH_G_FORK and S_CBRANCH_JOIN (CDNA4 ISA
    guide 4.6 and the opcode pages) with EXEC = Y and mask X: the
    fall-through path records
    EXEC in s[40:41] and sets bit 0 of s47, the target path records it in
    s[42:43] and sets bit 1; both end at the join, after which EXEC is
    copied to s[48:49]. CSP (MODE[31:29]) is set to 5 first, so the branch
    stack entry is s[20:23] (mask in s[20:21], which start as a, b); the
    join's operand is that saved CSP, and CSP is read back after it."""
    C = []
    save = ["s_getreg_b32 s58, hwreg(HW_REG_MODE, 0, 32)",
            "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 29, 3), 5", "s_nop 2",
            "s_getreg_b32 s46, hwreg(HW_REG_MODE, 29, 3)",
            "s_mov_b32 s20, {a}", "s_mov_b32 s21, {b}",
            "s_mov_b64 s[40:41], 0", "s_mov_b64 s[42:43], 0",
            "s_mov_b32 s47, 0", "s_mov_b64 s[44:45], exec"]
    paths = ["s_mov_b64 s[40:41], exec", "s_or_b32 s47, s47, 1",
             "s_branch .Ljoin_${:uid}", ".Ltgt_${:uid}:",
             "s_mov_b64 s[42:43], exec", "s_or_b32 s47, s47, 2",
             ".Ljoin_${:uid}:", MARK, "s_cbranch_join s46",
             "s_mov_b64 s[48:49], exec", "s_mov_b64 exec, s[44:45]",
             "s_getreg_b32 s50, hwreg(HW_REG_MODE, 29, 3)",
             "s_setreg_b32 hwreg(HW_REG_MODE, 0, 32), s58", "s_nop 2"]
    gpc = ["s_getpc_b64 s[26:27]", ".Lpc_${:uid}:",
           "s_add_u32 s26, s26, .Ltgt_${:uid}-.Lpc_${:uid}",
           "s_addc_u32 s27, s27, 0"]
    for mn in ("s_cbranch_i_fork", "s_cbranch_g_fork"):
        text = "%s {X}, .Ltgt_${:uid}" % mn if mn.endswith("i_fork") else \
            "%s {X}, s[26:27]" % mn
        pre = save + (gpc if mn.endswith("g_fork") else [])
        asm = pre + ["s_mov_b64 exec, {Y}", MARK, text] + paths

        def model(t):
            e, x = t["Y"], t["X"]
            pas, fail = x & e, ~x & e & M64
            fall = tgt = 0
            bits = 0
            stack = [t["a"], t["b"]]
            if pas == e:
                tgt, bits, last = e, 2, e
            elif fail == e:
                fall, bits, last = e, 1, e
            elif popcount(fail) < popcount(pas):
                fall, tgt, bits, last = fail, pas, 3, pas
                stack = words(pas, 2)
            else:
                fall, tgt, bits, last = fail, pas, 3, fail
                stack = words(fail, 2)
            return (words(fall, 2) + words(tgt, 2) + [bits] +
                    words(last, 2) + stack + [5])
        C.append(Case(asm, ["s40", "s41", "s42", "s43", "s47", "s48",
                            "s49", "s20", "s21", "s50"],
                      [mn.upper(), "S_CBRANCH_JOIN"], model))
    return C


def hint_cases():
    """Instructions without an architectural result in a compute launch:
    S_ATC_PROBE(_BUFFER) (a translation-cache probe; no counter),
    S_WAKEUP (nothing sleeps), S_SETKILL 0, and S_DCACHE_DISCARD(_X2)
    after the wave's scalar store was written back (s_dcache_wb and a
    wait): the discarded line holds nothing dirty, so memory keeps the
    store and a load of it returns it; SGPRs and SCC are untouched.
    (The _X2 form's second line is the next slot, another wave's or
    case's: on hardware its store could still be dirty when this discard
    runs; the emulator has no scalar cache, so the cases hold there.)"""
    C = []
    keep = ["s_mov_b32 s20, {a}", "s_mov_b64 s[22:23], {X}"]
    kept = ["s20", "s22", "s23", "scc"]

    def kmodel(t):
        return [t["a"], lo(t["X"]), hi(t["X"]), t["e"]]
    vs = ["s_mov_b64 s[60:61], {pm}", "s_and_b32 s61, s61, 0xffff",
          "s_mov_b32 s62, {r}", "s_mov_b32 s63, 0x27000"]
    probes = [("s_atc_probe 3, {pm}, 0x40", "S_ATC_PROBE_IMM"),
              ("s_atc_probe 0, {pm}, s59", "S_ATC_PROBE_SGPR"),
              ("s_atc_probe 7, {pm}, s59 offset:0x40",
               "S_ATC_PROBE_SGPR_IMM"),
              ("s_atc_probe_buffer 3, s[60:63], 0x40",
               "S_ATC_PROBE_BUFFER_IMM"),
              ("s_atc_probe_buffer 1, s[60:63], s59",
               "S_ATC_PROBE_BUFFER_SGPR"),
              ("s_atc_probe_buffer 2, s[60:63], s59 offset:0x40",
               "S_ATC_PROBE_BUFFER_SGPR_IMM"),
              ("s_wakeup", "S_WAKEUP"), ("s_setkill 0", "S_SETKILL")]
    for text, mc in probes:
        C.append(Case(keep + ["s_lshl_b32 s59, {o}, 2"] + vs +
                      [SCC_IN, MARK, text, "s_nop 0"], kept, [mc], kmodel))
    for mn in ("s_dcache_discard", "s_dcache_discard_x2"):
        for form, text in (("IMM", "%s {st}, 0x0"),
                           ("SGPR", "%s {st}, s58"),
                           ("SGPR_IMM", "%s {st}, s58 offset:0x0")):
            asm = keep + ["s_mov_b32 s58, 0", "s_mov_b32 s24, {b}",
                          "s_mov_b32 s25, {c}",
                          "s_store_dwordx2 s[24:25], {st}, 0x0",
                          "s_dcache_wb", "s_waitcnt lgkmcnt(0)", SCC_IN,
                          MARK, text % mn, "s_waitcnt lgkmcnt(0)",
                          "s_load_dwordx2 s[26:27], {st}, 0x0",
                          "s_waitcnt lgkmcnt(0)"]
            C.append(Case(asm, kept + ["s26", "s27"],
                          ["%s_%s" % (mn.upper(), form)],
                          lambda t: kmodel(t) + [t["b"], t["c"]],
                          store=(0, False, lambda t: [t["b"], t["c"]] +
                                 [0] * (ST_SLOT - 2))))
    return C


# --- the kernel --------------------------------------------------------------

# Registers the cases use: s[20:31] for results and scratch, s[40:55]
# for scalar-load results, s56/s57 for SCC, s58/s59 saved MODE and the
# SGPR offset, s[60:63] a V# (s32 is the stack pointer: not used).
CLOBBER = ",~{scc},~{vcc},~{m0}" + "".join(
    ",~{s%d}" % r for r in list(range(20, 32)) + list(range(40, 64)))


def expand(asm):
    """Placeholders to operand numbers; one SGPR (pair) input each."""
    used = []
    for line in asm:
        for p in re.findall(r"\{(\w+)\}", line):
            if p not in used:
                used.append(p)
    return used


def kernel_ir(cases, priv=0, layout=""):
    """priv > 0: the kernel also gets a private segment of priv dwords per
    lane (an alloca the asm never touches, kept by a volatile store)."""
    lines = ([layout] if layout else []) + [
             'target triple = "amdgcn-amd-amdhsa"',
             "declare i32 @llvm.amdgcn.workgroup.id.x()",
             "define amdgpu_kernel void @k(ptr addrspace(1) %out, "
             "ptr addrspace(1) noalias readonly %pin, "
             "ptr addrspace(1) noalias readonly %pm, "
             "ptr addrspace(1) %st, ptr addrspace(1) %at) #0 {",
             "  %g = call i32 @llvm.amdgcn.workgroup.id.x()",
             "  %%gt = mul i32 %%g, %d" % TUPLE,
             "  %%pmh = getelementptr i8, ptr addrspace(1) %%pm, i32 %d" % PMH]
    if priv:
        lines += ["  %%priv = alloca [%d x i32], align 4, addrspace(5)" % priv,
                  "  %gm = and i32 %g, 63",
                  "  %%pp = getelementptr [%d x i32], ptr addrspace(5) "
                  "%%priv, i32 0, i32 %%gm" % priv,
                  "  store volatile i32 %g, ptr addrspace(5) %pp"]
    for j, f in enumerate(IN32 + IN64):
        ty = "i32" if f in IN32 else "i64"
        at = j if f in IN32 else 8 + 2 * (j - len(IN32))
        lines.append("  %%i%s = add i32 %%gt, %d" % (f, at))
        lines.append("  %%in_%s = getelementptr i32, ptr addrspace(1) %%pin, "
                     "i32 %%i%s" % (f, f))
        lines.append("  %%v%s = load %s, ptr addrspace(1) %%in_%s"
                     % (f, ty, f))
    slot = 0
    nst = nat = 0
    for k, c in enumerate(cases):
        used = expand(c.asm)
        nout = len(c.outs)
        ops = {p: "$%d" % (nout + j) for j, p in enumerate(used)}
        args = []
        for p in used:
            if p in IN32:
                args.append("i32 %%v%s" % p)
            elif p in IN64:
                args.append("i64 %%v%s" % p)
            elif p == "pm":
                args.append("ptr addrspace(1) %pm")
            elif p == "pmh":
                args.append("ptr addrspace(1) %pmh")
            elif p in ("st", "at"):
                # This case's slot for this wave, minus the bias dwords
                # and (SGPR forms) minus o dwords.
                if p == "st":
                    bias, sgpr, _ = c.store
                    idx_base = (nst * N, ST_SLOT)
                else:
                    bias, sgpr, _, _ = c.atomic
                    idx_base = (nat * N, 2)
                lines.append("  %%t%d.0 = add i32 %%g, %d" % (k,
                                                               idx_base[0]))
                lines.append("  %%t%d.1 = mul i32 %%t%d.0, %d" % (
                    k, k, idx_base[1]))
                lines.append("  %%t%d.2 = sub i32 %%t%d.1, %d" % (k, k, bias))
                if sgpr:
                    lines.append("  %%t%d.3 = sub i32 %%t%d.2, %%vo" % (k, k))
                else:
                    lines.append("  %%t%d.3 = add i32 %%t%d.2, 0" % (k, k))
                lines.append("  %%t%d.p = getelementptr i32, ptr addrspace(1)"
                             " %%%s, i32 %%t%d.3" % (k, p, k))
                args.append("ptr addrspace(1) %%t%d.p" % k)
            else:
                raise ValueError(p)
        if c.store:
            nst += 1
        if c.atomic:
            nat += 1
        body = []
        for line in c.asm:
            body.append(re.sub(r"\{(\w+)\}", lambda m: ops[m.group(1)],
                               line))
        if "scc" in c.outs:
            body.append("s_cselect_b32 s56, 1, 0")
        for j, o in enumerate(c.outs):
            body.append("v_mov_b32 $%d, %s" % (j, "s56" if o == "scc" else o))
        text = "\\0A".join(body)
        cons = ",".join(["=v"] * nout + ["s"] * len(used)) + CLOBBER
        if c.vclob:
            cons += "".join(",~{v%d}" % r for r in range(40, 46))
        rty = "i32" if nout == 1 else "{%s}" % ", ".join(["i32"] * nout)
        lines.append('  %%r%d = call %s asm sideeffect "%s", "%s"(%s)'
                     % (k, rty, text, cons, ", ".join(args)))
        for j in range(nout):
            if nout == 1:
                v = "%%r%d" % k
            else:
                v = "%%r%d.%d" % (k, j)
                lines.append("  %s = extractvalue %s %%r%d, %d" % (v, rty, k,
                                                                   j))
            lines.append("  %%o%d.%d = add i32 %%g, %d" % (k, j, slot * N))
            lines.append("  %%q%d.%d = getelementptr i32, ptr addrspace(1) "
                         "%%out, i32 %%o%d.%d" % (k, j, k, j))
            lines.append("  store volatile i32 %s, ptr addrspace(1) %%q%d.%d"
                         % (v, k, j))
            slot += 1
    lines += ["  ret void", "}",
              'attributes #0 = { "amdgpu-flat-work-group-size"="1,1" }']
    return "\n".join(lines) + "\n", slot, nst, nat


def spec(nout, nst, nat):
    return "\n".join([
        "asmevo-launch: 1", "buffers:",
        "  out: {type: u32, count: %d, role: out, init: zeros}"
        % max(1, nout * N),
        "  pin: {type: u32, count: %d, role: in}" % (N * TUPLE),
        "  pm: {type: u32, count: %d, role: in}" % PM_DWORDS,
        "  st: {type: u32, count: %d, role: out, init: zeros}"
        % max(1, nst * N * ST_SLOT),
        "  at: {type: u32, count: %d, role: inout}" % max(2, nat * N * 2),
        "kernel: k", "grid: [%d]" % N, "block: [1]",
        "args: [out, pin, pm, st, at]"]) + "\n"


def marked_opcodes(args, ll, flags=()):
    """The MC opcode (without subtarget suffix) after each `s_nop 7`
    marker: clang's assembly for the kernel, assembled again by llvm-mc
    --show-inst (asmevo-opt does not lift every kernel here: indirect
    branches, PC-relative arithmetic)."""
    s = os.path.splitext(ll)[0] + ".s"
    run([args.clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=" + args.arch,
         "-O1", "-nogpulib"] + list(flags) + ["-S", ll, "-o", s],
        "clang -S")
    txt = run([args.llvm_mc, "-triple=amdgcn-amd-amdhsa",
               "-mcpu=" + args.arch, "--show-inst", s, "-o", "-"],
              "llvm-mc --show-inst")
    ms = list(re.finditer(r"<MCInst #\d+ (\w+)", txt))
    out = []
    for k in range(len(ms) - 1):
        ops = txt[ms[k].end():ms[k + 1].start()]
        if ms[k].group(1).startswith("S_NOP") and \
                re.match(r"\s*;\s*<MCOperand Imm:7>", ops):
            out.append(strip_subtarget(ms[k + 1].group(1)))
    return out


def data_layout(args):
    """The target's datalayout line (an alloca needs its address space)."""
    txt = run([args.clang, "-target", "amdgcn-amd-amdhsa",
               "-mcpu=" + args.arch, "-nogpulib", "-S", "-emit-llvm", "-x",
               "c", "/dev/null", "-o", "-"], "clang -emit-llvm")
    m = re.search(r'^target datalayout = ".*"$', txt, re.M)
    return m.group(0) if m else ""


def run_kernel(args, tag, cases, ts, files_extra, priv=0):
    """Builds and runs one kernel of cases; returns (tested, failed,
    number of cases). priv: dwords of private segment per lane; such a
    kernel addresses scratch through FLAT_SCRATCH, which the gfx90a
    prologue sets up only with the enable-flat-scratch target feature
    (gfx942's is architected: initialized by the SPI)."""
    work = os.path.join(args.work, tag)
    os.makedirs(work, exist_ok=True)
    flags = []
    if priv and args.arch == "gfx90a":
        flags = ["-Xclang", "-target-feature", "-Xclang",
                 "+enable-flat-scratch"]
    ir, nout, nst, nat = kernel_ir(cases, priv,
                                   data_layout(args) if priv else "")
    at_init = []
    for c in cases:
        if c.atomic:
            wide = c.atomic[2]
            for t in ts:
                v = atomic_init(t, wide)
                at_init += [lo(v), hi(v) if wide else 0]
    files = {"pin": [w for t in ts for w in tuple_words(t)],
             "at": at_init or [0, 0]}
    files.update(files_extra)
    for name, ws in files.items():
        with open(os.path.join(work, name + ".bin"), "wb") as f:
            f.write(struct.pack("<%dI" % len(ws), *ws))
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(spec(nout, nst, nat))
    ll = os.path.join(work, "k.ll")
    co = os.path.join(work, "k.co")
    with open(ll, "w") as f:
        f.write(ir)
    run([args.clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=" + args.arch,
         "-O1", "-nogpulib"] + flags + [ll, "-o", co], "clang")
    od = os.path.join(work, "out")
    cmd = [os.path.join(args.bin, "asmevo-verify"), "run", co, "--spec",
           os.path.join(work, "spec.yaml"), "--output-dir", od]
    for name in files:
        cmd += ["--input", "%s=%s" % (name, os.path.join(work,
                                                         name + ".bin"))]
    txt = run(cmd, "asmevo-verify run")
    if "result: clean" not in txt:
        raise RuntimeError("run not clean:\n" + txt)

    def read(name, n):
        with open(os.path.join(od, name + ".bin"), "rb") as f:
            data = f.read()
        return struct.unpack("<%dI" % (len(data) // 4), data)[:n]
    out = read("out", nout * N)
    stv = read("st", nst * N * ST_SLOT) if nst else ()
    atv = read("at", nat * N * 2) if nat else ()
    seq = marked_opcodes(args, ll, flags)
    want_seq = [m for c in cases for m in c.tested]
    if len(seq) != len(want_seq):
        raise RuntimeError("%d marked instructions in the kernel, %d "
                           "emitted" % (len(seq), len(want_seq)))
    tested, failed = set(), set()
    slot = ist = iat = 0
    pos = 0
    for c in cases:
        got_mc = seq[pos:pos + len(c.tested)]
        pos += len(c.tested)
        for g, w in zip(got_mc, c.tested):
            if g != w:
                raise RuntimeError("instruction %s is %s, expected %s"
                                   % (c.asm, g, w))
        nout_c = len(c.outs)
        bad = []
        for t in ts:
            n = t["n"]
            want = c.model(t)
            got = [out[(slot + j) * N + n] for j in range(nout_c)]
            if c.store:
                base = (ist * N + n) * ST_SLOT
                want = want + c.store[2](t)
                got = got + list(stv[base:base + ST_SLOT])
            if c.atomic:
                wide, final = c.atomic[2], c.atomic[3]
                base = (iat * N + n) * 2
                v = final(t)
                want = want + [lo(v), hi(v) if wide else 0]
                got = got + list(atv[base:base + 2])
            if got != want:
                bad.append((t, got, want))
        slot += nout_c
        ist += 1 if c.store else 0
        iat += 1 if c.atomic else 0
        text = " / ".join(l for l in c.asm if l != MARK and
                          l != SCC_IN)
        if bad:
            failed.update(c.tested)
            print("FAIL %s %s (%s): %d of %d waves differ" % (
                args.arch, text, ",".join(c.tested), len(bad), N))
            for t, got, want in bad[:4]:
                print("  wave %d: a=%#x b=%#x c=%#x d=%#x e=%d m=%d o=%d "
                      "r=%#x\n    emulator=%s\n    model=   %s" % (
                          t["n"], t["a"], t["b"], t["c"], t["d"], t["e"],
                          t["m"], t["o"], t["r"],
                          " ".join("%#x" % v for v in got),
                          " ".join("%#x" % v for v in want)))
        else:
            tested.update(c.tested)
    return tested, failed, len(cases)


def main():
    args = harness.arguments(("--llvm-mc", dict(required=True)))
    ts = tuples(args.seed)
    pm = pm_words(args.seed)
    cases = (sop2_cases() + sop1_cases() + sopc_cases() + sopk_cases() +
             branch_cases() + noeffect_cases() + load_cases(pm) +
             store_cases() + atomic_cases() + fork_cases() + hint_cases())
    # The S_ENDPGM cases end waves: last.
    cases += (pc_cases() + bitset_cases() + gpr_idx_cases() +
              vskip_cases() + endpgm_cases())
    tested, failed, n = run_kernel(args, "k", cases, ts, {"pm": pm})
    # The scalar scratch cases: a kernel of their own, with scratch.
    t2, f2, n2 = run_kernel(args, "scr", scratch_cases(), ts, {"pm": pm},
                            priv=PRIV_DWORDS)
    tested |= t2
    failed |= f2
    n += n2
    tested -= failed
    for m in sorted(tested):
        print("ok %s %s" % (args.arch, m))
    return harness.finish(args, n, tested, failed, "cases")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""DPP on 64-bit operands, the VOP2 "C" dot products, and the f16/f32
multiply-adds, against Python models of what AMD and LLVM document.

  - 64-bit DPP ("DP ALU DPP", gfx90a/gfx94x): LLVM accepts only
    row_newbcast:N for an instruction with a 64-bit operand
    (AMDGPUBaseInfo.h isLegalDPALU_DPPControl: ROW_NEWBCAST_FIRST..LAST on
    gfx90a), and SIInstrInfo::expandMovDPP64 turns a 64-bit DPP move with
    an illegal control into two 32-bit DPP moves of the halves with the
    same control: the register pair of lane L comes from lane
    (L & ~15) + N, with the 32-bit rules for row_mask, bank_mask and
    bound_ctrl (vmod_reference.py), also under a partial EXEC (a disabled
    source lane is invalid). f64 results are the exact models of
    vmod_reference.py; v_rcp/v_rsq/v_sqrt_f64 are checked against
    trans_reference.py's bound (2^29 ulp, special values exact).
  - V_DOT2C_I32_I16, V_DOT4C_I32_I8, V_DOT8C_I32_I4 (D = D + sum of the
    signed products, modulo 2^32) in e32, e64 and DPP form; V_DOT2C_F32_F16
    and V_DOT2_F32_F16 (D = S0.lo*S1.lo + S0.hi*S1.hi + acc in f32). The
    order and intermediate rounding of the f32 sum are not documented, so
    the f16 inputs are exactly representable small values (at most 5
    significant bits, exponents -2..2, no denormals) and the accumulator
    a multiple of 2^-4 below 2^16: every product and sum is exact in f32,
    so any order and rounding give the same bits.
  - f16 multiply-adds: v_pk_fmac_f16 (e32, e64, DPP, SDWA; fused, each
    half), v_mac_f16 (e32, e64, DPP), v_madak_f16 / v_madmk_f16 (the f16
    literal K), and the gfx8-encoded VOP3 ops of gfx9 v_mad_legacy_f16,
    v_fma_legacy_f16, v_mad_legacy_u16/i16. The high half of D: kept by
    v_mac/madak/madmk_f16, zeroed by the _legacy ops (LLVM's
    GCNSubtarget::zeroesHigh16BitsOfDest, "derived from experimentation":
    the _legacy ops are the gfx8 instructions it lists as zeroing on gfx9,
    at their gfx8 encodings, as Mesa ACO's opcode table also has them).
    Whether the non-fused ones round the product, and how they treat f16
    denormals, is not documented: their factors are small (exact
    products) and the addends keep every result normal, zero, infinite or
    NaN. v_mad_f16 (gfx9 encoding) and v_add_i16 / v_sub_i16 (signed,
    wrapping, or saturating with clamp) are checked with D's high half
    zero beforehand: whether they zero or keep it is not documented.
  - gfx90a's non-fused f32 ops (v_mad_f32, v_mac_f32 e32/e64/DPP,
    v_madak/madmk_f32, v_mad_legacy_f32 with DX9 0 * x = 0): LLVM's
    SIISelLowering says "v_mad_f32 does not support denormals" and forms
    them only with f32 denormals flushed; modelled as denormal sources
    read as zeros of their sign and a denormal result written as a zero
    of its sign, on exact products.

Usage: vop64_reference.py --clang CLANG --bin BUILD/bin --arch gfx942
                          --work DIR [--write-tested FILE]
"""
import os
import random
import struct
import sys
from fractions import Fraction as Q

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import isa_reference as ir  # noqa: E402
import trans_reference as tr  # noqa: E402
import vmod_reference as vm  # noqa: E402

M32 = 0xFFFFFFFF
N = vm.N
WAVE = vm.WAVE
F64 = "f64"
SB64 = 1 << 63

# --- 64-bit DPP -------------------------------------------------------------

# (name, source type, result is 64-bit, model) of the VOP1 ops with a
# 64-bit operand.
UNARY64 = [
    ("v_ceil_f64", F64, True, lambda x: vm.fround_int(F64, x, "ceil")),
    ("v_floor_f64", F64, True, lambda x: vm.fround_int(F64, x, "floor")),
    ("v_trunc_f64", F64, True, lambda x: vm.fround_int(F64, x, "trunc")),
    ("v_rndne_f64", F64, True, lambda x: vm.fround_int(F64, x, "rndne")),
    ("v_fract_f64", F64, True, lambda x: vm.ffract(F64, x)),
    ("v_frexp_mant_f64", F64, True, lambda x: vm.frexp_mant(x, F64)),
    ("v_frexp_exp_i32_f64", F64, False, vm.frexp_exp64),
    ("v_cvt_f32_f64", F64, False, vm.cvt_f32_f64),
    ("v_cvt_i32_f64", F64, False,
     lambda x: vm.f64_int(x, -2**31, 2**31 - 1)),
    ("v_cvt_u32_f64", F64, False, lambda x: vm.f64_int(x, 0, 2**32 - 1)),
    ("v_cvt_f64_f32", "f32", True, vm.cvt_f64_f32),
    ("v_cvt_f64_i32", "i", True, lambda x: vm.fround(Q(ir.s32(x)), F64)),
    ("v_cvt_f64_u32", "i", True, lambda x: vm.fround(Q(x), F64)),
]

# (N of row_newbcast, row_mask, bank_mask, bound_ctrl, neg, abs)
DPP64_CFGS = [(0, 0xF, 0xF, False, False, False),
              (5, 0xF, 0x6, True, True, False),
              (15, 0x5, 0xF, False, False, True),
              (9, 0xB, 0xD, True, True, True)]


def dpp64_text(n, rm, bm, bc):
    return "row_newbcast:%d row_mask:%#x bank_mask:%#x%s" % (
        n, rm, bm, " bound_ctrl:0" if bc else "")


def mods(v, ty, neg, ab):
    if ty == F64:
        if ab:
            v &= ~SB64
        if neg:
            v ^= SB64
        return v
    if ty == "f32":
        return vm.fmods(v, neg, ab, "f32")
    return v


def src_text(ty, neg, ab):
    return vm.src_text(1, "f32", neg, ab, False) if ty != "i" else "$1"


def dpp64_lanes(L, fn, src, wide, n, rm, bm):
    """The N results of a 64-bit DPP op: lane l of each wave reads src of
    lane (l & ~15) + n (always valid: every lane is active); lanes off in
    row_mask/bank_mask keep the old destination (ab for 64-bit results,
    d for 32-bit ones)."""
    res = []
    for k in range(N):
        w, l = k - k % WAVE, k % WAVE
        if not vm.dpp_writes(rm, bm, l):
            res.append(vm.wide_val(L, "ab", k) if wide else L["d"][k])
            continue
        s = w + (l & ~15) + n
        x = vm.wide_val(L, src, s) if src in vm.PAIRS else L[src][s]
        res.append(fn(x))
    return res


def dpp64_forms(arch):
    out = []
    for name, ty, wide, fn in UNARY64:
        for n, rm, bm, bc, neg, ab in DPP64_CFGS:
            if ty == "i":
                neg = ab = False
            src = "cd" if ty == F64 else "c"
            asm = "%s_dpp $0, %s %s" % (name, src_text(ty, neg, ab),
                                        dpp64_text(n, rm, bm, bc))

            def model(L, fn=fn, src=src, wide=wide, n=n, rm=rm, bm=bm,
                      ty=ty, neg=neg, ab=ab):
                return dpp64_lanes(L, lambda x: fn(mods(x, ty, neg, ab)),
                                   src, wide, n, rm, bm)
            out.append(vm.Form(asm, [src], name.upper() + "_dpp", model,
                               wide=wide))
    if arch == "gfx942":
        for n, rm, bm, bc, _, _ in DPP64_CFGS:
            out.append(vm.Form(
                "v_mov_b64_dpp $0, $1 %s" % dpp64_text(n, rm, bm, bc),
                ["cd"], "V_MOV_B64_dpp",
                lambda L, n=n, rm=rm, bm=bm: dpp64_lanes(
                    L, lambda x: x, "cd", True, n, rm, bm), wide=True))
    # v_fmac_f64 (VOP2): D = S0 * S1 + D, S0 through DPP, D = ab.
    for n, rm, bm, bc, neg, ab in DPP64_CFGS:
        t1 = vm.src_text(1, "f32", neg, False, False)
        t2 = vm.src_text(2, "f32", False, ab, False)

        def model(L, n=n, rm=rm, bm=bm, neg=neg, ab=ab):
            res = []
            for k in range(N):
                w, l = k - k % WAVE, k % WAVE
                d = vm.wide_val(L, "ab", k)
                if not vm.dpp_writes(rm, bm, l):
                    res.append(d)
                    continue
                x = mods(vm.wide_val(L, "cd", w + (l & ~15) + n), F64, neg,
                         False)
                y = mods(vm.wide_val(L, "ef", k), F64, False, ab)
                res.append(vm.ffma(F64, x, y, d))
            return res
        out.append(vm.Form("v_fmac_f64_dpp $0, %s, %s %s" % (
            t1, t2, dpp64_text(n, rm, bm, bc)), ["cd", "ef"],
            "V_FMAC_F64_dpp", model, wide=True))
    return out


def dpp64_exec_forms(arch):
    """64-bit DPP under a partial EXEC: a lane with EXEC=0 is not written
    and a source lane with EXEC=0 is invalid (read as 0 with bound_ctrl,
    else the lane is not written), as for 32-bit DPP."""
    out = []
    ex = vm.EXEC_LO | (vm.EXEC_HI << 32)
    pre = ("s_mov_b64 s[12:13], exec\\0As_mov_b32 exec_lo, %#x\\0A"
           "s_mov_b32 exec_hi, %#x\\0As_nop 7\\0A" % (vm.EXEC_LO,
                                                      vm.EXEC_HI))
    post = "\\0As_mov_b64 exec, s[12:13]"
    cases = [("v_ceil_f64", "cd", True, 3, False,
              lambda x, y, d: vm.fround_int(F64, x, "ceil")),
             ("v_ceil_f64", "cd", True, 7, True,
              lambda x, y, d: vm.fround_int(F64, x, "ceil")),
             ("v_cvt_f64_i32", "c", True, 12, True,
              lambda x, y, d: vm.fround(Q(ir.s32(x)), F64)),
             ("v_cvt_i32_f64", "cd", False, 1, True,
              lambda x, y, d: vm.f64_int(x, -2**31, 2**31 - 1)),
             ("v_fmac_f64", "cd", True, 0, True,
              lambda x, y, d: vm.ffma(F64, x, y, d)),
             ("v_fmac_f64", "cd", True, 14, False,
              lambda x, y, d: vm.ffma(F64, x, y, d))]
    if arch == "gfx942":
        cases += [("v_mov_b64", "cd", True, 5, False, lambda x, y, d: x),
                  ("v_mov_b64", "cd", True, 5, True, lambda x, y, d: x)]
    for name, src, wide, n, bc, fn in cases:
        two = name == "v_fmac_f64"
        asm = "%s_dpp $0, $1%s %s" % (name, ", $2" if two else "",
                                      dpp64_text(n, 0xF, 0xF, bc))

        def model(L, src=src, wide=wide, n=n, bc=bc, fn=fn, two=two):
            res = []
            for k in range(N):
                w, l = k - k % WAVE, k % WAVE
                d = vm.wide_val(L, "ab", k) if wide else L["d"][k]
                if not (ex >> l) & 1:
                    res.append(d)
                    continue
                sl = (l & ~15) + n
                if not (ex >> sl) & 1:
                    if not bc:
                        res.append(d)
                        continue
                    x = 0
                else:
                    x = vm.wide_val(L, src, w + sl) if src in vm.PAIRS \
                        else L[src][w + sl]
                y = vm.wide_val(L, "ef", k)
                res.append(fn(x, y, d))
            return res
        out.append(vm.Form(pre + asm + post,
                           [src, "ef"] if two else [src],
                           name.upper() + "_dpp", model, wide=wide,
                           clob=",~{s12},~{s13}"))
    return out


def trans64_forms():
    """v_rcp/v_rsq/v_sqrt_f64 in DPP form, checked within the bound of
    trans_reference.py; lanes not written keep the old value exactly."""
    out = []
    for name in tr.F64_NAMES:
        for n, rm, bm, bc, neg, ab in DPP64_CFGS:
            asm = "%s_dpp $0, %s %s" % (name, src_text(F64, neg, ab),
                                        dpp64_text(n, rm, bm, bc))

            def model(L, name=name, n=n, rm=rm, bm=bm, neg=neg, ab=ab):
                res = []
                for k in range(N):
                    w, l = k - k % WAVE, k % WAVE
                    if not vm.dpp_writes(rm, bm, l):
                        res.append(vm.wide_val(L, "ab", k))
                        continue
                    x = vm.wide_val(L, "cd", w + (l & ~15) + n)
                    res.append(tr.Check(name, mods(x, F64, neg, ab)))
                return res
            out.append(vm.Form(asm, ["cd"], name.upper() + "_dpp", model,
                               wide=True))
    return out


def trans64_inputs(seed):
    rnd = random.Random(seed)
    v = tr.f64_lanes(rnd)
    rnd.shuffle(v)
    ins = {"c": [x & M32 for x in v], "d": [x >> 32 for x in v]}
    for o in "abef":
        ins[o] = [rnd.getrandbits(32) for _ in range(N)]
    return ins


# --- dot products -----------------------------------------------------------

# A dot product's result is read by the store only after the wait states
# the ISA requires (4.5 "Manually Inserted Wait States").
NOP = "\\0As_nop 4"

def idot(a, b, acc, w):
    for k in range(32 // w):
        x = ir.sext((a >> (w * k)) & ((1 << w) - 1), w)
        y = ir.sext((b >> (w * k)) & ((1 << w) - 1), w)
        acc += x * y
    return acc & M32


def f16_small(rnd):
    """An f16 k * 2^e, |k| < 32, e in -2..2 (exact products and sums)."""
    if rnd.random() < 0.08:
        return rnd.choice([0x0000, 0x8000])
    k = rnd.randrange(1, 32)
    x = Q(k) * Q(2) ** rnd.randrange(-2, 3)
    return vm.fround(-x if rnd.random() < 0.5 else x, "f16")


def f32_small(rnd):
    if rnd.random() < 0.08:
        return rnd.choice([0x00000000, 0x80000000])
    x = Q(rnd.randrange(-(1 << 19), 1 << 19), 16)
    return vm.fround(x, "f32", rnd.getrandbits(1))


def fdot2(a, b, c):
    """S0.lo*S1.lo + S0.hi*S1.hi + c, exactly (all finite, exact in f32);
    an exact zero is -0 only when every term is -0."""
    terms = []
    for hi in (0, 1):
        x, y = vm.half(a, hi), vm.half(b, hi)
        v = vm.fval(x, "f16") * vm.fval(y, "f16")
        neg0 = ((x ^ y) >> 15) & 1
        terms.append((v, neg0))
    terms.append((vm.fval(c, "f32"), c >> 31))
    s = sum(t[0] for t in terms)
    zs = 1 if all(t[0] == 0 and t[1] for t in terms) else 0
    return vm.fround(s, "f32", zs)


def dot_forms():
    out = []
    ctrls = vm.dpp_ctrls()
    for name, w in (("v_dot2c_i32_i16", 16), ("v_dot4c_i32_i8", 8),
                    ("v_dot8c_i32_i4", 4), ("v_dot2c_f32_f16", 0)):
        fn = (lambda a, b, d: fdot2(a, b, d)) if w == 0 else \
            (lambda a, b, d, w=w: idot(a, b, ir.s32(d), w))
        for enc in ("e32", "e64"):
            out.append(vm.Form("%s_%s $0, $1, $2%s" % (name, enc, NOP), ["a", "b"],
                               "%s_%s" % (name.upper(), enc),
                               vm.lanewise(fn, ["a", "b", "d"])))
        for c, rm, bm, bc in [
                (ctrls[1], 0xF, 0xF, False), (ctrls[9], 0xF, 0x6, True),
                (ctrls[22], 0x5, 0xF, False), (ctrls[40], 0xB, 0xD, True)]:
            asm = "%s_dpp $0, $1, $2 %s row_mask:%#x bank_mask:%#x%s%s" % (
                name, vm.dpp_text(c), rm, bm, " bound_ctrl:0" if bc else "",
                NOP)

            model = dpp32_model(fn, c, rm, bm, bc)
            out.append(vm.Form(asm, ["a", "b"], name.upper() + "_dpp",
                               model))
    out.append(vm.Form("v_dot2_f32_f16 $0, $1, $2, $3" + NOP, ["a", "b", "e"],
                       "V_DOT2_F32_F16",
                       vm.lanewise(fdot2, ["a", "b", "e"]), tied=False))
    return out


def dot_inputs(seed):
    """a, b: pairs of small f16 values (also fed to the integer dots);
    d, e: small f32 accumulators."""
    rnd = random.Random(seed)
    pk = lambda: f16_small(rnd) | (f16_small(rnd) << 16)
    ins = {"a": [pk() for _ in range(N)], "b": [pk() for _ in range(N)],
           "d": [f32_small(rnd) for _ in range(N)],
           "e": [f32_small(rnd) for _ in range(N)]}
    for o in "cf":
        ins[o] = [rnd.getrandbits(32) for _ in range(N)]
    return ins


def int_dot_forms():
    """The integer dots on full-range words (c, f), accumulator d."""
    out = []
    for name, w in (("v_dot2c_i32_i16", 16), ("v_dot4c_i32_i8", 8),
                    ("v_dot8c_i32_i4", 4)):
        for enc in ("e32", "e64"):
            out.append(vm.Form("%s_%s $0, $1, $2%s" % (name, enc, NOP), ["c", "f"],
                               "%s_%s" % (name.upper(), enc),
                               vm.lanewise(lambda a, b, d, w=w:
                                           idot(a, b, ir.s32(d), w),
                                           ["c", "f", "d"])))
    return out


# --- f16 and f32 multiply-adds ------------------------------------------------

def f16_addend(rnd):
    """An f16 addend: zero, +-inf, NaN, or a normal of magnitude >= 2^-3
    (then a small exact product plus it is a multiple of 2^-13: never a
    denormal unless zero)."""
    k = rnd.random()
    if k < 0.06:
        return rnd.choice([0x0000, 0x8000])
    if k < 0.1:
        return rnd.choice([0x7C00, 0xFC00, 0x7E00, 0x7D01, 0xFE12])
    if k < 0.4:
        return f16_small(rnd)
    return (rnd.getrandbits(1) << 15) | (rnd.randrange(12, 31) << 10) | \
        rnd.getrandbits(10)


def mad16_inputs(seed, dhi):
    """a, b: small f16 pairs (exact products), e: f16 addends in both
    halves, d: an addend in the low half and, with dhi, random high bits
    (zero high bits otherwise); c, f: random words (integer ops)."""
    rnd = random.Random(seed)
    pk = lambda: f16_small(rnd) | (f16_small(rnd) << 16)
    ins = {"a": [pk() for _ in range(N)], "b": [pk() for _ in range(N)],
           "e": [f16_addend(rnd) | (f16_addend(rnd) << 16)
                 for _ in range(N)],
           "d": [f16_addend(rnd) | ((rnd.getrandbits(16) if dhi else 0)
                                    << 16) for _ in range(N)]}
    for o in "cf":
        ins[o] = [rnd.getrandbits(32) for _ in range(N)]
    # Edge integers for the 16-bit integer ops.
    edges = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x8001, 0x7FFE, 0x4000]
    for k, v in enumerate(edges * 2):
        ins["c"][k] = v | (rnd.getrandbits(16) << 16)
        ins["f"][k] = edges[(k * 3 + 1) % len(edges)] | \
            (rnd.getrandbits(16) << 16)
    return ins


def fma16(x, y, z):
    return vm.ffma("f16", x & 0xFFFF, y & 0xFFFF, z & 0xFFFF)


def pk_fmac(a, b, d):
    return fma16(a, b, d) | (fma16(a >> 16, b >> 16, d >> 16) << 16)


def keep_hi(d, r):
    return (d & 0xFFFF0000) | (r & 0xFFFF)


def mad16_forms():
    """f16 multiply-adds on exact products (so fused and non-fused agree)
    with addends that keep every result normal, zero, infinite or NaN."""
    out = []
    L = vm.lanewise
    # v_pk_fmac_f16: fused, each half D.h = S0.h * S1.h + D.h.
    out.append(vm.Form("v_pk_fmac_f16_e32 $0, $1, $2", ["a", "b"],
                       "V_PK_FMAC_F16_e32", L(pk_fmac, ["a", "b", "d"])))
    out.append(vm.Form("v_pk_fmac_f16_e64 $0, $1, $2", ["e", "b"],
                       "V_PK_FMAC_F16_e64", L(pk_fmac, ["e", "b", "d"])))
    ctrls = vm.dpp_ctrls()
    for c, rm, bm, bc in [(ctrls[0], 0xF, 0xF, False),
                          (ctrls[12], 0xF, 0x6, True),
                          (ctrls[40], 0xB, 0xD, False)]:
        for name, fn in (("v_pk_fmac_f16", pk_fmac),
                         ("v_mac_f16", lambda a, b, d:
                          keep_hi(d, fma16(a, b, d)))):
            out.append(vm.Form(
                "%s_dpp $0, $1, $2 %s row_mask:%#x bank_mask:%#x%s" % (
                    name, vm.dpp_text(c), rm, bm,
                    " bound_ctrl:0" if bc else ""), ["a", "b"],
                name.upper() + "_dpp", dpp32_model(fn, c, rm, bm, bc)))
    for s0, s1, ds, du in [(6, 6, 6, 0), (5, 4, 6, 0), (4, 5, 4, 2),
                           (6, 5, 5, 2)]:
        def model(a, b, d, s0=s0, s1=s1, ds=ds, du=du):
            r = pk_fmac(vm.sdwa_sel(a, s0, False), vm.sdwa_sel(b, s1, False),
                        d)
            return vm.sdwa_dst(r, d, ds, du)
        out.append(vm.Form(
            "v_pk_fmac_f16_sdwa $0, $1, $2 dst_sel:%s dst_unused:%s "
            "src0_sel:%s src1_sel:%s" % (vm.SEL[ds], vm.UNUSED[du],
                                         vm.SEL[s0], vm.SEL[s1]),
            ["a", "b"], "V_PK_FMAC_F16_sdwa", L(model, ["a", "b", "d"])))
    # v_mac_f16 (high half of D kept on gfx9).
    mac = lambda a, b, d: keep_hi(d, fma16(a, b, d))
    out.append(vm.Form("v_mac_f16_e32 $0, $1, $2", ["a", "b"],
                       "V_MAC_F16_e32", L(mac, ["a", "b", "d"])))
    out.append(vm.Form("v_mac_f16_e64 $0, -$1, |$2|", ["a", "b"],
                       "V_MAC_F16_e64", L(lambda a, b, d: mac(
                           a ^ 0x8000, b & 0x7FFF, d), ["a", "b", "d"])))
    # v_madak_f16 / v_madmk_f16: K the f16 literal; high half of D kept.
    for k in (0x4A00, 0xD600, 0x6000):  # K as an addend: |K| >= 2^-3
        out.append(vm.Form("v_madak_f16 $0, $1, $2, %#x" % k, ["a", "b"],
                           "V_MADAK_F16", L(lambda a, b, d, k=k: keep_hi(
                               d, fma16(a, b, k)), ["a", "b", "d"])))
    for k in (0x3400, 0xC780, 0x4E00):  # K a small factor
        out.append(vm.Form("v_madmk_f16 $0, $1, %#x, $2" % k, ["a", "e"],
                           "V_MADMK_F16", L(lambda a, e, d, k=k: keep_hi(
                               d, fma16(a, k, e)), ["a", "e", "d"])))
    # The gfx8-encoded VOP3 ops: high half zeroed.
    out.append(vm.Form("v_mad_legacy_f16 $0, $1, $2, $3", ["a", "b", "e"],
                       "V_MAD_LEGACY_F16", L(fma16, ["a", "b", "e"]),
                       tied=False))
    out.append(vm.Form("v_mad_legacy_f16 $0, -$1, $2, |$3|",
                       ["a", "b", "e"], "V_MAD_LEGACY_F16",
                       L(lambda a, b, e: fma16(a ^ 0x8000, b, e & 0x7FFF),
                         ["a", "b", "e"]), tied=False))
    out.append(vm.Form("v_fma_legacy_f16 $0, $1, $2, $3", ["d", "e", "f"],
                       "V_FMA_LEGACY_F16", L(fma16, ["d", "e", "f"]),
                       tied=False))
    out.append(vm.Form("v_fma_legacy_f16 $0, $1, -$2, $3", ["a", "b", "e"],
                       "V_FMA_LEGACY_F16",
                       L(lambda a, b, e: fma16(a, b ^ 0x8000, e),
                         ["a", "b", "e"]), tied=False))
    s16 = lambda v: ir.sext(v & 0xFFFF, 16)
    out.append(vm.Form("v_mad_legacy_u16 $0, $1, $2, $3", ["c", "f", "e"],
                       "V_MAD_LEGACY_U16",
                       L(lambda x, y, z: (x * y + z) & 0xFFFF,
                         ["c", "f", "e"]), tied=False))
    out.append(vm.Form("v_mad_legacy_i16 $0, $1, $2, $3", ["c", "f", "e"],
                       "V_MAD_LEGACY_I16",
                       L(lambda x, y, z: (s16(x) * s16(y) + s16(z)) & 0xFFFF,
                         ["c", "f", "e"]), tied=False))
    return out


def dpp32_model(fn, c, rm, bm, bc):
    """A VOP2 DPP op fn(src0, src1, old) with the 32-bit DPP rules."""
    def model(L):
        res = []
        for k in range(N):
            w, l = k - k % WAVE, k % WAVE
            old = L["d"][k]
            if not vm.dpp_writes(rm, bm, l):
                res.append(old)
                continue
            s = vm.dpp_src_lane(c, l)
            if s is None and not bc:
                res.append(old)
                continue
            x = 0 if s is None else L["a"][w + s]
            res.append(fn(x, L["b"][k], old))
        return res
    return model


def zero_hi_forms():
    """gfx9 VOP3 16-bit ops without destination op_sel whose high half
    (zeroed or kept) is not settled: D starts with a zero high half, so
    both give the same word."""
    out = []
    s16 = lambda v: ir.sext(v & 0xFFFF, 16)
    for name, sub in (("v_add_i16", False), ("v_sub_i16", True)):
        for clamp in (False, True):
            def fn(x, y, d, sub=sub, clamp=clamp):
                v = s16(x) - s16(y) if sub else s16(x) + s16(y)
                if clamp:
                    v = min(max(v, -32768), 32767)
                return v & 0xFFFF
            out.append(vm.Form("%s $0, $1, $2%s" % (
                name, " clamp" if clamp else ""), ["c", "f"], name.upper(),
                vm.lanewise(fn, ["c", "f", "d"])))
    out.append(vm.Form("v_mad_f16 $0, $1, $2, $3", ["a", "b", "e"],
                       "V_MAD_F16",
                       vm.lanewise(lambda a, b, e, d: fma16(a, b, e),
                                   ["a", "b", "e", "d"])))
    out.append(vm.Form("v_mad_f16 $0, $1, -$2, $3 op_sel:[1,0,1,0]",
                       ["a", "b", "e"], "V_MAD_F16",
                       vm.lanewise(lambda a, b, e, d: fma16(
                           a >> 16, b ^ 0x8000, e >> 16),
                           ["a", "b", "e", "d"])))
    return out


def small_f32(rnd):
    """k * 2^e, |k| < 2^11, e in -8..8: products exact in f32."""
    x = Q(rnd.randrange(1, 1 << 11)) * Q(2) ** rnd.randrange(-8, 9)
    return vm.fround(-x if rnd.random() < 0.5 else x, "f32")


def f32_mad_val(rnd, addend):
    k = rnd.random()
    if k < 0.05:
        return rnd.choice([0x00000000, 0x80000000])
    if k < 0.08:
        return rnd.choice([0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00001,
                           0xFFC12345])
    if k < 0.13:
        return rnd.getrandbits(23) | (rnd.getrandbits(1) << 31)  # denormal
    if addend and k < 0.6:
        # |c| >= 2^-20: exact products (multiples of 2^-16) plus it never
        # give a denormal.
        return (rnd.getrandbits(1) << 31) | (rnd.randrange(107, 200) << 23) \
            | rnd.getrandbits(23)
    return small_f32(rnd)


def mad32_inputs(seed):
    rnd = random.Random(seed)
    ins = {o: [f32_mad_val(rnd, o in "cd") for _ in range(N)]
           for o in "abcdef"}
    return ins


def ftz(v):
    return v & 0x80000000 if (v >> 23) & 0xFF == 0 else v


def mad32(a, b, c, legacy=False):
    """V_MAD_F32 with denormal sources and results flushed; exact products
    here, so rounding the product first changes nothing. legacy: DX9
    0 * anything = +0."""
    a, b, c = ftz(a), ftz(b), ftz(c)
    if legacy and (a & 0x7FFFFFFF == 0 or b & 0x7FFFFFFF == 0):
        return ftz(vm.fadd("f32", 0, c))
    return ftz(vm.ffma("f32", a, b, c))


def mad32_forms():
    """gfx90a's non-fused f32 ops."""
    out = []
    L = vm.lanewise
    out.append(vm.Form("v_mad_f32 $0, $1, $2, $3", ["a", "b", "c"],
                       "V_MAD_F32", L(mad32, ["a", "b", "c"]), tied=False))
    out.append(vm.Form("v_mad_f32 $0, -$1, |$2|, -$3", ["a", "b", "c"],
                       "V_MAD_F32", L(lambda a, b, c: mad32(
                           a ^ 0x80000000, b & 0x7FFFFFFF, c ^ 0x80000000),
                           ["a", "b", "c"]), tied=False))
    out.append(vm.Form("v_mad_legacy_f32 $0, $1, $2, $3", ["a", "b", "c"],
                       "V_MAD_LEGACY_F32",
                       L(lambda a, b, c: mad32(a, b, c, True),
                         ["a", "b", "c"]), tied=False))
    out.append(vm.Form("v_mac_f32_e32 $0, $1, $2", ["a", "b"],
                       "V_MAC_F32_e32", L(mad32, ["a", "b", "d"])))
    out.append(vm.Form("v_mac_f32_e64 $0, $1, -$2", ["a", "b"],
                       "V_MAC_F32_e64", L(lambda a, b, d: mad32(
                           a, b ^ 0x80000000, d), ["a", "b", "d"])))
    ctrls = vm.dpp_ctrls()
    for c, rm, bm, bc in [(ctrls[2], 0xF, 0xF, False),
                          (ctrls[20], 0x5, 0xF, True)]:
        out.append(vm.Form(
            "v_mac_f32_dpp $0, $1, $2 %s row_mask:%#x bank_mask:%#x%s" % (
                vm.dpp_text(c), rm, bm, " bound_ctrl:0" if bc else ""),
            ["a", "b"], "V_MAC_F32_dpp", dpp32_model(mad32, c, rm, bm, bc)))
    for k in (0x3F800000, 0xC1200000, 0x00000001):
        out.append(vm.Form("v_madak_f32 $0, $1, $2, %#x" % k, ["a", "b"],
                           "V_MADAK_F32", L(lambda a, b, k=k: mad32(a, b, k),
                                            ["a", "b"]), tied=False))
        out.append(vm.Form("v_madmk_f32 $0, $1, %#x, $2" % k, ["a", "c"],
                           "V_MADMK_F32", L(lambda a, c, k=k: mad32(a, k, c),
                                            ["a", "c"]), tied=False))
    return out


# --- running ----------------------------------------------------------------

def main():
    args = harness.arguments()
    batches = [
        ("dpp64", vm.run_batch, dpp64_forms(args.arch) +
         dpp64_exec_forms(args.arch),
         vm.inputs_for(args.seed, "f64")),
        ("trans64", None, trans64_forms(), trans64_inputs(args.seed + 1)),
        ("dot", vm.run_batch, dot_forms(), dot_inputs(args.seed + 2)),
        ("idot", vm.run_batch, int_dot_forms(),
         vm.inputs_for(args.seed + 3, "i")),
        ("mad16", vm.run_batch, mad16_forms(),
         mad16_inputs(args.seed + 4, True)),
        ("zerohi", vm.run_batch, zero_hi_forms(),
         mad16_inputs(args.seed + 5, False)),
    ]
    if args.arch == "gfx90a":
        batches.append(("mad32", vm.run_batch, mad32_forms(),
                        mad32_inputs(args.seed + 6)))
    tested, failed, total = set(), set(), 0
    for tag, runner, fs, ins in batches:
        if runner is None:
            p, fl, n, _ = tr.run_batch(args, tag, fs, ins)
        else:
            p, fl, n = runner(args, tag, fs, ins)
        tested |= p
        failed |= fl
        total += n
    return harness.finish(args, total, tested, failed)


if __name__ == "__main__":
    sys.exit(main())

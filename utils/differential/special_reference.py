#!/usr/bin/env python3
"""Special-purpose VALU ops against a Python model of AMD's pseudocode.

The ops (CDNA3 ISA guide, VOP1/VOP3 chapters; the RDNA3 guide's pseudocode
states the same operations exactly):
  - V_FREXP_MANT_F16, V_FREXP_EXP_I16_F16 in e32, e64 (neg/abs), SDWA and
    DPP forms: S0 = mant * 2^exp with 0.5 <= |mant| < 1 (denormal sources
    normalised); NaN gives the source quieted and exponent 0, infinities
    the source and 0, zeros the source and 0. The 16-bit result is
    zero-extended in e32/e64/DPP, placed by dst_sel/dst_unused in SDWA.
  - V_SAD_U16: S2 + |S0[15:0] - S1[15:0]| + |S0[31:16] - S1[31:16]|
    (32-bit wrap).
  - V_QSAD_PK_U16_U8 / V_MQSAD_PK_U16_U8: for k = 0..3, D[16k+15:16k] =
    16'B(v_sad_u8 / v_msad_u8(S0[8k+31:8k], S1, S2[16k+15:16k])); V_MSAD_U8
    skips the bytes whose S1 (reference) byte is 0.
  - V_MQSAD_U32_U8: the same with 32-bit accumulators S2[32k+31:32k] and
    results (a VGPR quad).
  - V_TRIG_PREOP_F64: shift = S1[4:0] * 53, plus exponent(S0) - 1077 when
    exponent(S0) > 1077; the 53 bits of 2/PI[1200:0] (the first 1201
    fraction bits of 2/pi, computed here from Machin's formula) starting
    shift bits in, times 2^(-53 - shift), times 2^128 more when
    exponent(S0) >= 1968, rounded toward zero. The guide has no special
    case for NaN or infinite S0 (their exponent is 2047), so none is
    modelled. LLVM's constant folder differs from this text in two places
    (so it is not the oracle here): it returns the quieted NaN for a NaN
    source and 0 once shift >= 1120 (its table stops at 1184 bits).

Usage: special_reference.py --clang CLANG --bin BUILD/bin --arch gfx942
                            --work DIR [--write-tested FILE]
"""
import os
import random
import sys
from fractions import Fraction as Q

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import vmod_reference as vm  # noqa: E402

M32 = 0xFFFFFFFF
N = vm.N
WAVE = vm.WAVE

# --- models -------------------------------------------------------------------


def frexp_mant16(v):
    return vm.frexp_mant(v & 0xFFFF, "f16")


def frexp_exp16(v):
    v &= 0xFFFF
    if vm.is_nan(v, "f16") or vm.is_inf(v, "f16"):
        return 0
    x = abs(vm.fval(v, "f16"))
    if x == 0:
        return 0
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Q(2) ** e > x:
        e -= 1
    return (e + 1) & 0xFFFF  # |S0| = 0.1xxx * 2^(e+1)


def absdiff(x, y):
    return x - y if x > y else y - x


def sad_u16(a, b, c):
    return (c + absdiff(a & 0xFFFF, b & 0xFFFF) +
            absdiff(a >> 16, b >> 16)) & M32


def sad8(win, ref, masked):
    s = 0
    for k in range(4):
        r = (ref >> (8 * k)) & 0xFF
        if masked and r == 0:
            continue
        s += absdiff((win >> (8 * k)) & 0xFF, r)
    return s


def qsad_pk(s0, s1, s2, masked):
    r = 0
    for k in range(4):
        win = (s0 >> (8 * k)) & M32
        acc = (s2 >> (16 * k)) & 0xFFFF
        r |= ((sad8(win, s1, masked) + acc) & 0xFFFF) << (16 * k)
    return r


def mqsad_u32(s0, s1, accs, k):
    return (sad8((s0 >> (8 * k)) & M32, s1, True) + accs[k]) & M32


def two_over_pi_bits(n):
    """floor(2/pi * 2^n): the first n fraction bits of 2/pi."""
    g = n + 64

    def atan_inv(x):
        s, t, k, sg = 0, (1 << g) // x, 1, 1
        while t:
            s += sg * (t // k)
            t //= x * x
            k += 2
            sg = -sg
        return s
    pi = 16 * atan_inv(5) - 4 * atan_inv(239)  # pi * 2^g
    return (1 << (n + g + 1)) // pi


TWO_OVER_PI = two_over_pi_bits(1201)


def f64_toward_zero(x):
    """The f64 bits of a non-negative fraction, rounded toward zero."""
    if x == 0:
        return 0
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Q(2) ** e > x:
        e -= 1
    if e < -1022:
        return int(x / Q(2) ** -1074)  # denormal (or zero)
    m = int(x / Q(2) ** (e - 52))
    return ((e + 1023) << 52) | (m - (1 << 52))


def trig_preop(s0, s1):
    exp = (s0 >> 52) & 0x7FF
    shift = (s1 & 31) * 53
    if exp > 1077:
        shift += exp - 1077
    # Bits [1200 - shift : 1148 - shift] of 2/PI[1200:0], zeros below bit 0.
    lo = 1148 - shift
    seg = TWO_OVER_PI >> lo if lo >= 0 else TWO_OVER_PI << -lo
    seg &= (1 << 53) - 1
    scale = -53 - shift + (128 if exp >= 1968 else 0)
    return f64_toward_zero(Q(seg) * Q(2) ** scale)


def div_fixup(fmt, s0, s1, s2):
    """V_DIV_FIXUP_F32/F64 as the guide's pseudocode (the underflow
    branch, whose UNDERFLOW constant the guide leaves undefined, is kept
    out of the inputs: the emulator refuses it)."""
    sb = vm.sign_bit(fmt)
    neg = (s1 ^ s2) & sb
    if vm.is_nan(s2, fmt):
        return vm.quiet(s2, fmt)
    if vm.is_nan(s1, fmt):
        return vm.quiet(s1, fmt)
    z1, z2 = (s1 & ~sb) == 0, (s2 & ~sb) == 0
    i1, i2 = vm.is_inf(s1, fmt), vm.is_inf(s2, fmt)
    if (z1 and z2) or (i1 and i2):
        return vm.dnan(fmt) | sb  # 0xffc00000 / 0xfff8000000000000
    if z1 or i2:
        return vm.inf_bits(fmt, 1 if neg else 0)
    if i1 or z2:
        return neg
    assert not fixup_underflows(fmt, s1, s2)
    return (s0 & ~sb) | neg


def fixup_underflows(fmt, s1, s2):
    eb, mb = vm.FMT[fmt]
    ex = lambda v: (v >> mb) & ((1 << eb) - 1)  # noqa: E731
    return ex(s2) - ex(s1) < (-150 if fmt == "f32" else -1075)


def norm16(x, signed):
    """f16_to_snorm / f16_to_unorm (and the f32 ones): clamp, scale by
    32767 (65535), round half to even; x a fraction or +-inf."""
    lo = -1 if signed else 0
    x = min(max(x, lo), 1)
    return round(Q(x) * (32767 if signed else 65535)) & 0xFFFF


def fvalue(v, fmt):
    """A non-NaN float as a fraction, infinities as +-10**400."""
    if vm.is_inf(v, fmt):
        return (-1 if v & vm.sign_bit(fmt) else 1) * 10 ** 400
    return vm.fval(v, fmt)


def cvt_norm16(v, signed):
    return norm16(fvalue(v & 0xFFFF, "f16"), signed)


def pknorm(a, b, fmt, signed):
    if fmt == "f16":
        a, b = a & 0xFFFF, b & 0xFFFF
    return norm16(fvalue(a, fmt), signed) | \
        (norm16(fvalue(b, fmt), signed) << 16)


# FNUZ 8-bit formats (CDNA3 ISA 7.2, table 30): (exponent bits, mantissa
# bits, bias); 0x80 is the NaN, there is no infinity and no negative zero.
F8 = {"fp8": (4, 3, 8), "bf8": (5, 2, 16)}


def f8_max(kind):
    eb, mb, bias = F8[kind]
    return (2 - Q(1, 1 << mb)) * Q(2) ** ((1 << eb) - 1 - bias)


def f32_to_f8(v, kind, sat):
    """V_CVT_PK_*8_F32's conversion: round to nearest even; NaN gives NaN;
    infinities and sources beyond the largest value give +-max with
    MODE.FP16_OVFL set, NaN without (the guide's FP16_OVFL table)."""
    eb, mb, bias = F8[kind]
    if vm.is_nan(v, "f32"):
        return 0x80
    s = v >> 31
    if vm.is_inf(v, "f32"):
        return (s << 7) | 0x7F if sat else 0x80
    x = abs(vm.fval(v, "f32"))
    if x > f8_max(kind):
        return (s << 7) | 0x7F if sat else 0x80
    if x == 0:
        return 0
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Q(2) ** e > x:
        e -= 1
    e = max(e, 1 - bias)
    r = round(x / Q(2) ** (e - mb))  # half to even
    if r == 0:
        return 0  # no negative zero
    if r == 1 << (mb + 1):
        r, e = r >> 1, e + 1
    if r * Q(2) ** (e - mb) > f8_max(kind):
        return (s << 7) | 0x7F if sat else 0x80
    if r < 1 << mb:
        return (s << 7) | r  # denormal
    return (s << 7) | ((e + bias) << mb) | (r - (1 << mb))


def f8_ambiguous(v, kind):
    """A finite source above the largest value that rounds to it: the
    guide's table (NaN without FP16_OVFL) and round-to-nearest disagree,
    and the emulator refuses it; kept out of the FP16_OVFL=0 inputs."""
    if vm.is_nan(v, "f32") or vm.is_inf(v, "f32"):
        return False
    eb, mb, bias = F8[kind]
    x = abs(vm.fval(v, "f32"))
    half = Q(2) ** ((1 << eb) - 1 - bias - mb - 1)
    return f8_max(kind) < x < f8_max(kind) + half


def screen_partition(v):
    """V_SCREEN_PARTITION_4SE_B32 from the CDNA2 guide's description, not
    its table: S0[7:0] = {x_min[6:5], y_min[6:5], x_max[6:5], y_max[6:5]}
    of a rectangle in 32-pixel tiles, the SE of tile (x, y) is
    {x[5] ^ y[6], y[5] ^ x[6]}; the result is the mask of the SEs the
    rectangle covers, all four when it spans 3 or more tiles a side."""
    sel = v & 0xFF
    x0, y0, x1, y1 = (sel >> 6) & 3, (sel >> 4) & 3, (sel >> 2) & 3, sel & 3
    dx, dy = (x1 - x0) % 4, (y1 - y0) % 4
    if dx == 3 or dy == 3:
        return 0xF
    m = 0
    for i in range(dx + 1):
        for j in range(dy + 1):
            x, y = (x0 + i) % 4, (y0 + j) % 4
            m |= 1 << ((((x & 1) ^ (y >> 1)) << 1) | ((y & 1) ^ (x >> 1)))
    return m


# --- forms --------------------------------------------------------------------

F16OPS = {"v_frexp_mant_f16": frexp_mant16,
          "v_frexp_exp_i16_f16": frexp_exp16}
NORMOPS = {"v_cvt_norm_i16_f16": lambda v: cvt_norm16(v, True),
           "v_cvt_norm_u16_f16": lambda v: cvt_norm16(v, False)}


def f16_forms(ops=F16OPS):
    out = []
    for name, fn in sorted(ops.items()):
        out.append(vm.Form("%s_e32 $0, $1" % name, ["a"], name.upper() +
                           "_e32", vm.lanewise(lambda a, fn=fn: fn(a),
                                               ["a"]), tied=False))
        for neg, ab in ((True, False), (False, True), (True, True)):
            out.append(vm.Form(
                "%s_e64 $0, %s" % (name, vm.src_text(1, "f16", neg, ab,
                                                     False)),
                ["a"], name.upper() + "_e64",
                vm.lanewise(lambda a, fn=fn, neg=neg, ab=ab:
                            fn(vm.fmods(a & 0xFFFF, neg, ab, "f16")),
                            ["a"]), tied=False))
        for s0, ds, du, neg, ab in ((4, 6, 0, False, False),
                                    (5, 4, 2, True, False),
                                    (4, 5, 1, False, True),
                                    (5, 5, 0, True, True),
                                    (5, 4, 1, False, False),
                                    (4, 5, 2, True, False)):
            asm = "%s_sdwa $0, %s dst_sel:%s dst_unused:%s src0_sel:%s" % (
                name, vm.src_text(1, "f16", neg, ab, False), vm.SEL[ds],
                vm.UNUSED[du], vm.SEL[s0])

            def model(a, d, fn=fn, s0=s0, ds=ds, du=du, neg=neg, ab=ab):
                x = vm.fmods(vm.sdwa_sel(a, s0, False), neg, ab, "f16")
                return vm.sdwa_dst(fn(x), d, ds, du)
            out.append(vm.Form(asm, ["a"], name.upper() + "_sdwa",
                               vm.lanewise(model, ["a", "d"])))
        out += dpp_forms(name, fn)
    return out


def dpp_forms(name, fn):
    out = []
    ctrls = vm.dpp_ctrls()
    masks = [(0xF, 0xF), (0x5, 0xF), (0xF, 0x6), (0xB, 0xD)]
    for j in range(6):
        c = ctrls[(j * 11 + len(name)) % len(ctrls)]
        rm, bm = masks[j % len(masks)]
        bc = j % 2 == 1
        if c[0] == "row_bcast":
            rm &= 0xA if c[1] == 15 else 0xC
        neg, ab = j in (1, 4), j in (2, 4)
        asm = "%s_dpp $0, %s %s row_mask:%#x bank_mask:%#x%s" % (
            name, vm.src_text(1, "f16", neg, ab, False), vm.dpp_text(c),
            rm, bm, " bound_ctrl:0" if bc else "")

        def model(L, c=c, rm=rm, bm=bm, bc=bc, neg=neg, ab=ab, fn=fn):
            res = []
            for n in range(N):
                w, l = n - n % WAVE, n % WAVE
                old = L["d"][n]
                s = vm.dpp_src_lane(c, l)
                if not vm.dpp_writes(rm, bm, l) or (s is None and not bc):
                    res.append(old)
                    continue
                x = 0 if s is None else L["a"][w + s]
                res.append(fn(vm.fmods(x & 0xFFFF, neg, ab, "f16")))
            return res
        out.append(vm.Form(asm, ["a"], name.upper() + "_dpp", model))
    return out


def norm_forms():
    out = f16_forms(NORMOPS)
    for fmt in ("f16", "f32"):
        for sg in ("i16", "u16"):
            name = "v_cvt_pknorm_%s_%s" % (sg, fmt)
            mc = name.upper() + ("_e64" if fmt == "f32" else "")
            for t0, t1 in (("$1", "$2"), ("-$1", "|$2|"), ("|$1|", "-|$2|")):
                def mods(v, t, fmt=fmt):
                    sb = vm.sign_bit(fmt)
                    v = v & ~sb if "|" in t else v
                    return v ^ sb if "-" in t else v

                def model(a, b, t0=t0, t1=t1, fmt=fmt, sg=sg, mods=mods):
                    if fmt == "f16":
                        a, b = a & 0xFFFF, b & 0xFFFF
                    return pknorm(mods(a, t0), mods(b, t1), fmt, sg == "i16")
                out.append(vm.Form("%s $0, %s, %s" % (name, t0, t1),
                                   ["a", "b"], mc,
                                   vm.lanewise(model, ["a", "b"]),
                                   tied=False))
    # V_CLREXCP writes no register: the tied result keeps its old value.
    out.append(vm.Form("v_clrexcp", [], "V_CLREXCP_e32",
                       vm.lanewise(lambda d: d, ["d"])))
    return out


def screen_forms():
    """e32, e64, SDWA (byte and word selects, every dst_unused) and DPP."""
    name = "v_screen_partition_4se_b32"
    out = [vm.Form("%s_e32 $0, $1" % name, ["a"], name.upper() + "_e32",
                   vm.lanewise(screen_partition, ["a"]), tied=False),
           vm.Form("%s_e64 $0, $1" % name, ["a"], name.upper() + "_e64",
                   vm.lanewise(screen_partition, ["a"]), tied=False)]
    for s0, ds, du in ((1, 6, 0), (3, 0, 2), (4, 1, 1), (5, 5, 2),
                       (2, 4, 0)):
        asm = "%s_sdwa $0, $1 dst_sel:%s dst_unused:%s src0_sel:%s" % (
            name, vm.SEL[ds], vm.UNUSED[du], vm.SEL[s0])
        out.append(vm.Form(asm, ["a"], name.upper() + "_sdwa", vm.lanewise(
            lambda a, d, s0=s0, ds=ds, du=du: vm.sdwa_dst(
                screen_partition(vm.sdwa_sel(a, s0, False)), d, ds, du),
            ["a", "d"])))
    for c, rm, bm, bc in ((("quad_perm", (3, 2, 1, 0)), 0xF, 0xF, False),
                          (("row_shr", 2), 0xF, 0xF, True),
                          (("row_mirror", 0), 0x5, 0xB, False),
                          (("wave_rol", 1), 0xF, 0xF, False)):
        asm = "%s_dpp $0, $1 %s row_mask:%#x bank_mask:%#x%s" % (
            name, vm.dpp_text(c), rm, bm, " bound_ctrl:0" if bc else "")

        def model(L, c=c, rm=rm, bm=bm, bc=bc):
            res = []
            for n in range(N):
                w, l = n - n % WAVE, n % WAVE
                s = vm.dpp_src_lane(c, l)
                if not vm.dpp_writes(rm, bm, l) or (s is None and not bc):
                    res.append(L["d"][n])
                    continue
                res.append(screen_partition(0 if s is None
                                            else L["a"][w + s]))
            return res
        out.append(vm.Form(asm, ["a"], name.upper() + "_dpp", model))
    return out


SETOVFL = "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), %d"


def f8_forms():
    out = []
    for kind in ("fp8", "bf8"):
        name = "v_cvt_pk_%s_f32" % kind
        for sat in (False, True):
            for t0, t1, hi in (("$1", "$2", False), ("-$1", "|$2|", True),
                               ("|$1|", "$2", True), ("$1", "-$2", False)):
                asm = "%s $0, %s, %s%s" % (name, t0, t1,
                                           " op_sel:[0,0,1]" if hi else "")
                if sat:
                    asm = (SETOVFL % 1 + "\\0As_nop 7\\0A" + asm + "\\0A" +
                           SETOVFL % 0)

                def model(a, b, d, t0=t0, t1=t1, hi=hi, sat=sat, kind=kind):
                    def mods(v, t):
                        v = v & 0x7FFFFFFF if "|" in t else v
                        return v ^ 0x80000000 if "-" in t else v
                    p = f32_to_f8(mods(a, t0), kind, sat) | \
                        (f32_to_f8(mods(b, t1), kind, sat) << 8)
                    return (d & 0xFFFF) | (p << 16) if hi else \
                        (d & 0xFFFF0000) | p
                out.append(vm.Form(asm, ["a", "b"], name.upper(),
                                   vm.lanewise(model, ["a", "b", "d"])))
    return out


def sad_forms():
    out = [vm.Form("v_sad_u16 $0, $1, $2, $3", ["a", "b", "c"], "V_SAD_U16",
                   vm.lanewise(sad_u16, ["a", "b", "c"]), tied=False)]
    for name, masked in (("v_qsad_pk_u16_u8", False),
                         ("v_mqsad_pk_u16_u8", True)):
        out.append(vm.Form(
            "%s $0, $1, $2, $3" % name, ["ab", "c", "ef"], name.upper(),
            lambda L, masked=masked: [
                qsad_pk(vm.wide_val(L, "ab", n), L["c"][n],
                        vm.wide_val(L, "ef", n), masked) for n in range(N)],
            tied=False, wide=True))
    # The 128-bit result comes back one dword per form.
    for k in range(4):
        asm = ("v_mov_b32 v44, $3\\0Av_mov_b32 v45, $4\\0Av_mov_b32 v46, $5"
               "\\0Av_mov_b32 v47, $6\\0As_nop 7\\0A"
               "v_mqsad_u32_u8 v[40:43], $1, $2, v[44:47]\\0As_nop 1\\0A"
               "v_mov_b32 $0, v%d" % (40 + k))
        out.append(vm.Form(
            asm, ["ab", "c", "d", "e", "f", "a"], "V_MQSAD_U32_U8",
            lambda L, k=k: [
                mqsad_u32(vm.wide_val(L, "ab", n), L["c"][n],
                          [L[o][n] for o in "defa"], k) for n in range(N)],
            clob="," + ",".join("~{v%d}" % r for r in range(40, 48)),
            tied=False))
    return out


def trig_forms():
    out = []
    for t in ("$1", "-$1", "|$1|"):
        def model(L, t=t):
            res = []
            for n in range(N):
                v = vm.wide_val(L, "ab", n)
                v = v & ~(1 << 63) if "|" in t else v
                v = v ^ (1 << 63) if "-" in t else v
                res.append(trig_preop(v, L["c"][n]))
            return res
        out.append(vm.Form("v_trig_preop_f64 $0, %s, $2" % t, ["ab", "c"],
                           "V_TRIG_PREOP_F64", model, tied=False, wide=True))
    return out


def fixup_forms():
    out = []
    for t0, t1 in (("$1", "$2"), ("|$1|", "-$2"), ("-$1", "|$2|")):
        def mods(v, t, fmt):
            sb = vm.sign_bit(fmt)
            v = v & ~sb if "|" in t else v
            return v ^ sb if "-" in t else v

        def m32(a, b, c, t0=t0, t1=t1):
            return div_fixup("f32", mods(a, t0, "f32"), mods(b, t1, "f32"),
                             c)
        out.append(vm.Form("v_div_fixup_f32 $0, %s, %s, $3" % (t0, t1),
                           ["a", "b", "c"], "V_DIV_FIXUP_F32",
                           vm.lanewise(m32, ["a", "b", "c"]), tied=False))

        def m64(L, t0=t0, t1=t1):
            return [div_fixup("f64", mods(vm.wide_val(L, "ab", n), t0, "f64"),
                              mods(vm.wide_val(L, "cd", n), t1, "f64"),
                              vm.wide_val(L, "ef", n)) for n in range(N)]
        out.append(vm.Form("v_div_fixup_f64 $0, %s, %s, $3" % (t0, t1),
                           ["ab", "cd", "ef"], "V_DIV_FIXUP_F64", m64,
                           tied=False, wide=True))
    return out


# --- inputs -------------------------------------------------------------------

F16_EXTRA = [0x0001, 0x0002, 0x0003, 0x01FF, 0x0200, 0x03FF, 0x8001,
             0x8200, 0x0400, 0x07FF, 0x7BFF, 0xFBFF, 0x3555, 0xB555,
             0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFD55, 0x0000, 0x8000]


def inputs_for(seed, kind):
    rnd = random.Random(seed)
    L = {o: [rnd.getrandbits(32) for _ in range(N)] for o in vm.IN}
    if kind == "f16":
        base = list(vm.F16_EDGE) + F16_EXTRA
        while len(base) < N:
            k = rnd.random()
            base.append(rnd.getrandbits(10) | (0x8000 if k < 0.3 else 0)
                        if k < 0.4 else rnd.getrandbits(16))
        rnd.shuffle(base)
        # Both halves carry f16 values: SDWA WORD_1 selects the high one.
        L["a"] = [b | (rnd.choice(base) << 16) for b in base[:N]]
    elif kind == "sad":
        # Bytes often zero (V_MSAD skips them), equal, or extreme.
        def byte():
            return rnd.choice([0, 0, 0xFF, 0x80, 1, rnd.getrandbits(8)])
        for o in vm.IN:
            L[o] = [v if rnd.random() < 0.5 else
                    sum(byte() << (8 * k) for k in range(4))
                    for v in L[o]]
        for n in range(8):  # 16-bit accumulators that wrap
            L["e"][n] = L["f"][n] = 0xFFFFFFFF
            L["c"][n] = 0 if n < 4 else 0xFFFFFFFF
    elif kind == "fixup":
        # f32 in a, b, c (each also the low word of an f64 pair: a-b, c-d,
        # e-f hold f64 values for the f64 forms).
        f32 = lambda: rnd.choice(vm.F32_EDGE) if rnd.random() < 0.5 \
            else rnd.getrandbits(32)  # noqa: E731
        f64 = lambda: rnd.choice(vm.F64_EDGE) if rnd.random() < 0.5 \
            else rnd.getrandbits(64)  # noqa: E731
        for n in range(N):
            while True:
                x, y, z = f32(), f32(), f32()
                if not fixup_underflows("f32", y, z) and \
                        not fixup_underflows("f32", y & 0x7FFFFFFF, z):
                    break
            while True:
                p, q, r = f64(), f64(), f64()
                if not fixup_underflows("f64", q, r):
                    break
            # The f32 forms read a, b, c; the f64 forms a-b, c-d, e-f: the
            # f64 low words are the f32 values of a and c.
            L["a"][n], L["b"][n] = x, y
            L["c"][n], L["d"][n] = z, q >> 32
            L["e"][n], L["f"][n] = r & M32, r >> 32
    elif kind == "norm":
        # f16 (both halves) and f32 values, no NaN (its conversion is not
        # documented: the emulator stops): around +-1, +-0.5, beyond, tiny.
        def f16():
            k = rnd.random()
            if k < 0.3:
                v = rnd.choice([0x0000, 0x8000, 0x3C00, 0xBC00, 0x3800,
                                0xB800, 0x3BFF, 0xBBFF, 0x3C01, 0x7C00,
                                0xFC00, 0x7BFF, 0x0001, 0x83FF, 0x2000,
                                0x1400, 0x3555, 0xB555])
            elif k < 0.7:
                v = (0x3000 + rnd.getrandbits(11)) | \
                    (rnd.getrandbits(1) << 15)
            else:
                v = rnd.getrandbits(16)
            return v if not vm.is_nan(v, "f16") else v & 0x83FF

        def f32():
            k = rnd.random()
            if k < 0.3:
                v = rnd.choice([0, 0x80000000, 0x3F800000, 0xBF800000,
                                0x3F000000, 0xBF000000, 0x3F7FFFFF,
                                0x3F800001, 0x7F800000, 0xFF800000,
                                0x00000001, 0x38000000, 0x37FFFFFF,
                                0x3EFFFFFF, 0x7F7FFFFF])
            elif k < 0.7:
                v = (0x3E000000 + rnd.getrandbits(25)) | \
                    (rnd.getrandbits(1) << 31)
            else:
                v = rnd.getrandbits(32)
            return v if not vm.is_nan(v, "f32") else v & 0x807FFFFF
        # a, b: f16 pairs (the NORM and PKNORM_F16 forms) in the low and
        # high halves; e, f: f32 for PKNORM_F32 -- the f32 forms read a, b
        # too, so a, b hold values that are valid both ways.
        for n in range(N):
            if n % 2:
                L["a"][n], L["b"][n] = f32(), f32()
                for o in "ab":
                    lo, hi = L[o][n] & 0xFFFF, L[o][n] >> 16
                    if vm.is_nan(lo, "f16") or vm.is_nan(hi, "f16"):
                        L[o][n] &= 0x83FF83FF
            else:
                L["a"][n] = f16() | (f16() << 16)
                L["b"][n] = f16() | (f16() << 16)
                for o in "ab":
                    if vm.is_nan(L[o][n], "f32"):
                        L[o][n] &= 0x807FFFFF
    elif kind == "screen":
        pass  # random words: every 8-bit select is likely drawn
    elif kind == "f8":
        def f32():
            k = rnd.random()
            if k < 0.25:
                return rnd.choice(vm.F32_EDGE + [
                    0x43700000, 0xC3700000, 0x47600000, 0x43780000,
                    0x477FFFFF, 0x3B800000, 0x3A800000, 0x37800000,
                    0x36000000, 0x3B000000, 0x43800000, 0x47800000])
            if k < 0.75:  # the fp8 / bf8 ranges, signed
                return (rnd.randrange(0x33000000, 0x48000000) |
                        (rnd.getrandbits(1) << 31))
            return rnd.getrandbits(32)
        for n in range(N):
            for o in "ab":
                while True:
                    v = f32()
                    if not f8_ambiguous(v, "fp8") and \
                            not f8_ambiguous(v, "bf8"):
                        break
                L[o][n] = v
    else:  # trig: f64 S0 in (a, b), segment in c
        vals = list(vm.F64_EDGE) + [
            0x4350000000000000, 0x4340000000000000, 0x7FE0000000000000,
            0x7AF0000000000000, 0x7AEFFFFFFFFFFFFF, 0x7B00000000000000,
            0x4350000000000001, 0x3FF921FB54442D18, 0x4432000000000000]
        while len(vals) < N:
            k = rnd.random()
            if k < 0.5:  # exponents above 1077 (and near 1968)
                e = rnd.choice([rnd.randrange(1060, 2047),
                                rnd.randrange(1960, 1975)])
                vals.append((e << 52) | rnd.getrandbits(52) |
                            (rnd.getrandbits(1) << 63))
            else:
                vals.append(rnd.getrandbits(64))
        rnd.shuffle(vals)
        L["a"] = [v & M32 for v in vals]
        L["b"] = [v >> 32 for v in vals]
        segs = list(range(32)) + [32, 33, 53, 0xFFFFFFE1, 0x80000015]
        L["c"] = [segs[n % len(segs)] if n < 2 * len(segs)
                  else rnd.getrandbits(32) for n in range(N)]
    return L


def main():
    args = harness.arguments()
    groups = [("f16", f16_forms()), ("sad", sad_forms()),
              ("trig", trig_forms()), ("fixup", fixup_forms()),
              ("norm", norm_forms())]
    if args.arch == "gfx942":  # gfx90a has no fp8 conversions
        groups.append(("f8", f8_forms()))
    else:  # the CDNA3 guide does not list it (the emulator refuses it)
        groups.append(("screen", screen_forms()))
    tested, failed, total = set(), set(), 0
    for j, (kind, fs) in enumerate(groups):
        p, fl, n = vm.run_batch(args, kind, fs,
                                inputs_for(args.seed * 100 + j, kind))
        tested |= p
        failed |= fl
        total += n
    return harness.finish(args, total, tested, failed)


if __name__ == "__main__":
    sys.exit(main())

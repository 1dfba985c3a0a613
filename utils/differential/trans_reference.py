#!/usr/bin/env python3
"""The transcendental VALU ops (v_rcp, v_rcp_iflag, v_rsq, v_sqrt, v_exp,
v_log; f16, f32 and f64 where they exist) in their e32, e64 (VOP3), SDWA
and DPP forms, against an oracle that accepts exactly what AMD documents.

The hardware is not correctly rounded, so a bit-for-bit model is wrong;
instead every lane's result must lie within the documented error bound of
the exact value, and special values must be exact. The exact value comes
from exact rational arithmetic (1/x as a fraction; square roots bracketed
by integer square roots) or, for exp2 and log2, from the host's double
precision libm, whose own error (a few double ulps) is taken out of the
bound (the bracket is widened, so the check is never looser).

Documented bounds used:
  - AMD ISA reference guide (RDNA3.5 ISA, VOP1 chapter; the same op
    definitions as CDNA3's): V_EXP_F32, V_LOG_F32, V_RSQ_F32, V_SQRT_F32
    "1ULP accuracy, denormals are flushed"; V_RCP_F32 "1ULP accuracy ...
    Denormals are flushed"; V_RCP_F64, V_RSQ_F64, V_SQRT_F64 "(2**29)ULP
    accuracy and supports denormals"; V_RCP_F16 "0.51ULP accuracy";
    V_SQRT_F16, V_RSQ_F16, V_LOG_F16, V_EXP_F16 "0.51ULP accuracy,
    denormals are supported"; and the functional examples (rcp(+-0) =
    +-inf, rcp(+-inf) = +-0, rsq(-0) = -inf, rsq(-inf) = NaN, sqrt(-0) =
    -0, log(+-0) = -inf, log(1) = 0, log(-1) = NaN, exp(-inf) = 0,
    exp(-0) = 1, exp(+inf) = +inf, ...).
  - LLVM AMDGPUISelLowering.h: "RCP, RSQ - For f32, 1 ULP max error, no
    denormal handling. For f64, max error 2^29 ULP, handles denormals."
    (RCP_IFLAG listed with them: v_rcp_iflag_f32 is checked as v_rcp_f32;
    the guide gives it no bound of its own.)
  - LLVM AMDGPUUsage: llvm.exp2 / llvm.log2 "Hardware provides 1ULP
    accuracy for float, and 0.51ULP for half. Float instruction does not
    natively support denormal inputs."

An ulp is Harrison's: the spacing of the binade below |x| when x is a
power of two (the stricter choice). "Denormals are flushed" is modelled as
a denormal source read as a zero of its sign and a result below the
smallest normal written as a zero of the exact result's sign (or, within
the bound, the smallest normal).

Not fixed by the documentation, so not checked: which NaN an invalid
operation or a NaN source gives (any NaN is accepted; the guide's own
examples show 0xFFC00000), v_rcp_f16 on denormal sources or with a
denormal result (the guide states no denormal behaviour for it).

Left untested: v_sin/v_cos (f16, f32): the guide states no accuracy for
them (only "Denormals are supported. Full range input is supported"); the
1 ULP of LLVM's SIN_HW comment is for SI and an input range of -100 pi to
100 pi, not a statement about gfx9.

Usage: trans_reference.py --clang CLANG --bin BUILD/bin --arch gfx942
                          --work DIR [--write-tested FILE]
"""
import math
import os
import random
import struct
import sys
from fractions import Fraction as Q

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import vmod_reference as vm  # noqa: E402
from constfold import run  # noqa: E402

M32 = 0xFFFFFFFF
N = vm.N
WAVE = vm.WAVE
FMT = vm.FMT

# --- the oracle ----------------------------------------------------------


def bias(fmt):
    return (1 << (FMT[fmt][0] - 1)) - 1


def min_normal(fmt):
    return Q(2) ** (1 - bias(fmt))


def max_finite(fmt):
    eb, mb = FMT[fmt]
    return (2 - Q(1, 1 << mb)) * Q(2) ** bias(fmt)


def is_denorm(v, fmt):
    _, e, m = vm.fparts(v, fmt)
    return e == 0 and m != 0


def is_zero(v, fmt):
    _, e, m = vm.fparts(v, fmt)
    return e == 0 and m == 0


def sign(v, fmt):
    return vm.fparts(v, fmt)[0]


def zero(fmt, s):
    return s << sum(FMT[fmt])


def floor_log2(x):
    """floor(log2(x)) of a positive fraction."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Q(2) ** e > x:
        e -= 1
    return e


def ulp(fmt, x):
    """Harrison's ulp of the real |x| in fmt (denormal spacing below the
    smallest normal, the largest binade's spacing beyond the range)."""
    x = abs(x)
    mb = FMT[fmt][1]
    emin = 1 - bias(fmt)
    if x == 0:
        return Q(2) ** (emin - mb)
    e = floor_log2(x)
    if Q(2) ** e == x:
        e -= 1
    e = min(max(e, emin), bias(fmt))
    return Q(2) ** (e - mb)


class Real:
    """The exact result of a lane: a real known to lie in [lo, hi] (lo and
    hi of the same sign), checked against a bound in ulps."""

    def __init__(self, lo, hi=None):
        self.lo, self.hi = lo, lo if hi is None else hi
        if self.lo > self.hi:
            self.lo, self.hi = self.hi, self.lo


def accepts(fmt, want, bound, ftz, got):
    """Is got (bits of fmt) an acceptable result for want: "nan" (any
    NaN), an int (exact bits) or a Real within bound ulps?"""
    if want == "nan":
        return vm.is_nan(got, fmt)
    if isinstance(want, int):
        return got == want
    if vm.is_nan(got, fmt):
        return False
    neg = want.hi <= 0 and want.lo < 0
    thr = max_finite(fmt) + ulp(fmt, max_finite(fmt)) / 2
    if vm.is_inf(got, fmt):
        # Only where the exact value rounds to infinity.
        return sign(got, fmt) == int(neg) and min(abs(want.lo),
                                                  abs(want.hi)) >= thr
    if ftz and is_denorm(got, fmt):
        return False
    if is_zero(got, fmt):
        tiny = max(abs(want.lo), abs(want.hi)) < min_normal(fmt)
        if ftz and tiny:
            return sign(got, fmt) == int(neg)
        if sign(got, fmt) != int(neg):
            return False
    g = vm.fval(got, fmt)
    for r in (want.lo, want.hi):
        if abs(g - r) > bound * ulp(fmt, r):
            return False
    return True


def flushed(v, fmt, ftz):
    """The source as the op reads it: a denormal is a zero of its sign
    when the op flushes."""
    if ftz and is_denorm(v, fmt):
        return zero(fmt, sign(v, fmt))
    return v


def sqrt_bracket(x, k=120):
    """[lo, hi] around sqrt(x) for a positive fraction x."""
    p, q = x.numerator, x.denominator
    s = math.isqrt(p * q * 4 ** k)
    d = q * 2 ** k
    return Q(s, d), Q(s + 1, d)


def libm_bracket(d):
    """A double libm result widened by 2^-48 relative, which covers the
    few ulps (2^-52 each) glibc's exp2/log2 may be off by."""
    x = Q(d)
    w = abs(x) * Q(1, 1 << 48)
    return Real(x - w, x + w)


def op_rcp(fmt, v):
    if vm.is_nan(v, fmt):
        return "nan"
    s = sign(v, fmt)
    if vm.is_inf(v, fmt):
        return zero(fmt, s)
    if is_zero(v, fmt):
        return vm.inf_bits(fmt, s)
    return Real(1 / vm.fval(v, fmt))


def op_sqrt(fmt, v):
    if vm.is_nan(v, fmt):
        return "nan"
    if is_zero(v, fmt):
        return v
    if sign(v, fmt):
        return "nan"
    if vm.is_inf(v, fmt):
        return v
    lo, hi = sqrt_bracket(vm.fval(v, fmt))
    return Real(lo, hi)


def op_rsq(fmt, v):
    if vm.is_nan(v, fmt):
        return "nan"
    if is_zero(v, fmt):
        return vm.inf_bits(fmt, sign(v, fmt))
    if sign(v, fmt):
        return "nan"
    if vm.is_inf(v, fmt):
        return 0
    lo, hi = sqrt_bracket(vm.fval(v, fmt))
    return Real(1 / hi, 1 / lo)


def op_log(fmt, v):
    if vm.is_nan(v, fmt):
        return "nan"
    if is_zero(v, fmt):
        return vm.inf_bits(fmt, 1)
    if sign(v, fmt):
        return "nan"
    if vm.is_inf(v, fmt):
        return v
    x = vm.fval(v, fmt)
    if x == 1:
        return 0
    e = floor_log2(x)
    if Q(2) ** e == x:
        return vm.fround(Q(e), fmt)  # exact
    # log2(m * 2^e) = e + log2(m), m in [1, 2): the double is accurate
    # relative to the sum, which is what the bound is relative to.
    return libm_bracket(e + math.log2(float(x / Q(2) ** e)))


def op_exp(fmt, v):
    if vm.is_nan(v, fmt):
        return "nan"
    if vm.is_inf(v, fmt):
        return 0 if sign(v, fmt) else v
    x = vm.fval(v, fmt)
    if x == 0:
        return vm.one(fmt)
    n = math.floor(x)
    f = x - n
    if f == 0 and abs(n) < 4000:
        return Real(Q(2) ** n)
    n = max(min(n, 4000), -4000)
    r = libm_bracket(2.0 ** float(f))
    scale = Q(2) ** n
    return Real(r.lo * scale, r.hi * scale)


# name -> (fmt, model, bound in ulps, flushes denormals, lane skip rule)
def rcp16_undocumented(v):
    if is_denorm(v, "f16"):
        return True
    r = op_rcp("f16", v)
    return isinstance(r, Real) and abs(r.lo) < min_normal("f16")


OPS = {
    "v_rcp_f32": ("f32", op_rcp, Q(1), True, None),
    "v_rcp_iflag_f32": ("f32", op_rcp, Q(1), True, None),
    "v_rsq_f32": ("f32", op_rsq, Q(1), True, None),
    "v_sqrt_f32": ("f32", op_sqrt, Q(1), True, None),
    "v_exp_f32": ("f32", op_exp, Q(1), True, None),
    "v_log_f32": ("f32", op_log, Q(1), True, None),
    "v_rcp_f16": ("f16", op_rcp, Q(51, 100), False, rcp16_undocumented),
    "v_rsq_f16": ("f16", op_rsq, Q(51, 100), False, None),
    "v_sqrt_f16": ("f16", op_sqrt, Q(51, 100), False, None),
    "v_exp_f16": ("f16", op_exp, Q(51, 100), False, None),
    "v_log_f16": ("f16", op_log, Q(51, 100), False, None),
    "v_rcp_f64": ("f64", op_rcp, Q(2) ** 29, False, None),
    "v_rsq_f64": ("f64", op_rsq, Q(2) ** 29, False, None),
    "v_sqrt_f64": ("f64", op_sqrt, Q(2) ** 29, False, None),
}


class Check:
    """The acceptable 32-bit (or 64-bit) word of one lane: fixed bits
    outside the result field, and the op's result inside it."""

    def __init__(self, name, src, fixed=0, fmask=None, shift=0,
                 sext=False):
        self.name, self.src = name, src
        self.fixed, self.shift, self.sext = fixed, shift, sext
        fmt = OPS[name][0]
        self.fmask = fmask if fmask is not None else \
            (1 << (16 if fmt == "f16" else 32 if fmt == "f32" else 64)) - 1

    def __call__(self, got):
        fmt, model, bound, ftz, skip = OPS[self.name]
        field = (got >> self.shift) & self.fmask
        width = self.fmask.bit_length()
        rest = got & ~(self.fmask << self.shift)
        fixed = self.fixed
        if self.sext and (field >> (width - 1)) & 1:
            fixed |= M32 & ~((1 << (self.shift + width)) - 1)
        if rest != fixed:
            return False
        v = self.src & ((1 << sum(FMT[fmt]) + 1) - 1)
        if skip and skip(v):
            return True
        want = model(fmt, flushed(v, fmt, ftz))
        return accepts(fmt, want, bound, ftz, field)


def skipped(name, src):
    fmt, _, _, _, skip = OPS[name]
    return bool(skip) and skip(src & ((1 << sum(FMT[fmt]) + 1) - 1))


# --- forms ------------------------------------------------------------------

F32_NAMES = [n for n, o in OPS.items() if o[0] == "f32"]
F16_NAMES = [n for n, o in OPS.items() if o[0] == "f16"]
F64_NAMES = [n for n, o in OPS.items() if o[0] == "f64"]


def plain_forms(names):
    """e32, and e64 with neg / abs / both on the source."""
    out = []
    for name in names:
        ty = OPS[name][0]
        wide = ty == "f64"
        srcs = ["ab"] if wide else ["a"]
        out.append(vm.Form("%s_e32 $0, $1" % name, srcs,
                           name.upper() + "_e32",
                           lanewise_checks(name, srcs[0], lambda v: v),
                           tied=False, wide=wide))
        for neg, ab in ((True, False), (False, True), (True, True)):
            t = vm.src_text(1, ty, neg, ab, False)

            def mod(v, neg=neg, ab=ab, ty=ty):
                return fmods64(v, neg, ab) if ty == "f64" else \
                    vm.fmods(v, neg, ab, ty)
            out.append(vm.Form("%s_e64 $0, %s" % (name, t), srcs,
                               name.upper() + "_e64",
                               lanewise_checks(name, srcs[0], mod),
                               tied=False, wide=wide))
    return out


def fmods64(v, neg, ab):
    sb = 1 << 63
    if ab:
        v &= ~sb
    if neg:
        v ^= sb
    return v


def src_val(L, s, n):
    return vm.wide_val(L, s, n) if s in vm.PAIRS else L[s][n]


def lanewise_checks(name, s, mod):
    return lambda L: [Check(name, mod(src_val(L, s, n))) for n in range(N)]


def sdwa_forms(names):
    """SDWA: the f32 ops read a selected byte / word / dword (a word or
    byte of a float is a small, often denormal, float) and write the
    dword; the f16 ops read a word and write a word field with each
    dst_unused rule."""
    out = []
    for name in names:
        ty = OPS[name][0]
        if ty == "f32":
            cfgs = [(6, 6, 0, False, False), (5, 6, 0, True, False),
                    (4, 6, 0, False, True), (1, 6, 0, True, True),
                    (6, 6, 0, True, False), (3, 6, 0, False, False)]
        else:
            cfgs = [(4, 4, 0, False, False), (5, 5, 2, True, False),
                    (4, 5, 1, False, True), (5, 4, 2, True, True),
                    (5, 6, 0, False, False), (4, 5, 0, True, False)]
        for s0, ds, du, neg, ab in cfgs:
            asm = "%s_sdwa $0, %s dst_sel:%s dst_unused:%s src0_sel:%s" % (
                name, vm.src_text(1, ty, neg, ab, False), vm.SEL[ds],
                vm.UNUSED[du], vm.SEL[s0])

            def model(L, name=name, s0=s0, ds=ds, du=du, neg=neg, ab=ab,
                      ty=ty):
                res = []
                for n in range(N):
                    x = vm.fmods(vm.sdwa_sel(L["a"][n], s0, False), neg, ab,
                                 ty)
                    res.append(dst_check(name, x, L["d"][n], ds, du))
                return res
            out.append(vm.Form(asm, ["a"], name.upper() + "_sdwa", model))
    return out


def dst_check(name, x, old, ds, du):
    if ds == 6:
        return Check(name, x)
    shift = 8 * ds if ds < 4 else 16 * (ds - 4)
    bits = 8 if ds < 4 else 16
    fmask = (1 << bits) - 1
    fixed = old & ~(fmask << shift) & M32 if du == 2 else 0
    return Check(name, x, fixed=fixed, fmask=fmask, shift=shift,
                 sext=du == 1)


def dpp_forms(names):
    """DPP: src0 from another lane (quad_perm, row shifts and rotates, wave
    shifts, mirrors, broadcasts), row/bank masks, bound_ctrl; lanes not
    written keep the old value, exactly."""
    out = []
    ctrls = vm.dpp_ctrls()
    masks = [(0xF, 0xF), (0x5, 0xF), (0xF, 0x6), (0xB, 0xD)]
    ci = 0
    for name in names:
        ty = OPS[name][0]
        for j in range(5):
            c = ctrls[ci % len(ctrls)]
            ci += 5
            rm, bm = masks[(ci + j) % len(masks)]
            bc = j % 2 == 1
            if c[0] == "row_bcast":
                rm &= 0xA if c[1] == 15 else 0xC
            neg, ab = j in (1, 4), j in (2, 4)
            asm = "%s_dpp $0, %s %s row_mask:%#x bank_mask:%#x%s" % (
                name, vm.src_text(1, ty, neg, ab, False), vm.dpp_text(c),
                rm, bm, " bound_ctrl:0" if bc else "")

            def model(L, name=name, c=c, rm=rm, bm=bm, bc=bc, neg=neg,
                      ab=ab, ty=ty):
                res = []
                for n in range(N):
                    w, l = n - n % WAVE, n % WAVE
                    old = L["d"][n]
                    if not vm.dpp_writes(rm, bm, l):
                        res.append(old)
                        continue
                    s = vm.dpp_src_lane(c, l)
                    if s is None and not bc:
                        res.append(old)
                        continue
                    x = 0 if s is None else L["a"][w + s]
                    x = vm.fmods(x, neg, ab, ty)
                    if ty == "f16":
                        # The f16 result is zero-extended, as in e32.
                        res.append(Check(name, x & 0xFFFF, fmask=0xFFFF))
                    else:
                        res.append(Check(name, x))
                return res
            out.append(vm.Form(asm, ["a"], name.upper() + "_dpp", model))
    return out


# --- inputs -----------------------------------------------------------------

def f32_lanes(rnd):
    """Edge values (zeros, denormals, the smallest normal, 1, powers of
    two, the largest finite, infinities, NaNs, negatives), then values
    spread over every exponent, values near 1, and exp2's interesting
    range (-160 .. 140, where results overflow and flush)."""
    out = list(vm.F32_EDGE) + [0x3E800000, 0x40800000, 0x41000000,
                               0xC2FC0000, 0xC3160000, 0x43000000,
                               0x42FE0000, 0xC2FE0000, 0x7E800000, 0xC0000000,
                               0x7E800001, 0x7EFFFFFF, 0x00800001,
                               0x3F800001, 0x3F7FFFFF, 0x807FFFFF]
    while len(out) < N:
        k = rnd.random()
        if k < 0.35:
            out.append(rnd.getrandbits(31) | (rnd.getrandbits(1) << 31
                                              if k < 0.1 else 0))
        elif k < 0.55:
            out.append(0x3F000000 + rnd.getrandbits(24))
        elif k < 0.8:
            x = rnd.uniform(-160.0, 140.0)
            out.append(vm.ir.f32bits(x))
        else:
            out.append(rnd.getrandbits(23))  # denormals
    return out[:N]


def f16_lanes(rnd):
    """f16 values in the low half (edges, then every exponent, near 1,
    exp2's range, denormals); random high halves."""
    base = list(vm.F16_EDGE) + [0x3400, 0x4400, 0x4C00, 0xCC00, 0x4B00,
                                0xCB00, 0xC900, 0x3BFF, 0x3C01, 0x7800,
                                0x7A00, 0x03FF]
    while len(base) < N:
        k = rnd.random()
        if k < 0.45:
            base.append(rnd.getrandbits(15) | (0x8000 if k < 0.1 else 0))
        elif k < 0.65:
            base.append(0x3800 + rnd.getrandbits(11))
        elif k < 0.85:
            base.append(struct.unpack("<H", struct.pack(
                "<e", rnd.uniform(-26.0, 17.0)))[0])
        else:
            base.append(rnd.getrandbits(10))
    return [b | (rnd.getrandbits(16) << 16) for b in base[:N]]


def f64_lanes(rnd):
    out = list(vm.F64_EDGE) + [0x7FE0000000000000, 0x7FD0000000000001,
                               0x000FFFFFFFFFFFFF, 0x0000000000000003,
                               0x4010000000000000, 0x3FF0000000000001]
    while len(out) < N:
        k = rnd.random()
        if k < 0.5:
            out.append(rnd.getrandbits(63) | (rnd.getrandbits(1) << 63
                                              if k < 0.1 else 0))
        elif k < 0.8:
            out.append(0x3FE0000000000000 + rnd.getrandbits(53))
        else:
            out.append(rnd.getrandbits(52))
    return out[:N]


def inputs_for(seed, ty):
    rnd = random.Random(seed)
    d = [rnd.getrandbits(32) for _ in range(N)]
    if ty == "f64":
        v = f64_lanes(rnd)
        ins = {"a": [x & M32 for x in v], "b": [x >> 32 for x in v],
               "d": d}
    else:
        a = f32_lanes(rnd) if ty == "f32" else f16_lanes(rnd)
        rnd.shuffle(a)
        ins = {"a": a, "b": [rnd.getrandbits(32) for _ in range(N)],
               "d": d}
    for o in "cef":
        ins[o] = [rnd.getrandbits(32) for _ in range(N)]
    return ins


# --- running ------------------------------------------------------------------

def run_batch(args, tag, fs, inputs):
    """Builds and runs one kernel of forms, as vmod_reference.run_batch
    does, and checks each lane against its Check (or exact old value)."""
    work = os.path.join(args.work, tag)
    os.makedirs(work, exist_ok=True)
    for o in vm.IN:
        with open(os.path.join(work, "p%s.bin" % o), "wb") as f:
            f.write(struct.pack("<%dI" % N, *inputs[o]))
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(vm.spec(vm.nslots(fs)))
    ll, co = os.path.join(work, "k.ll"), os.path.join(work, "k.co")
    with open(ll, "w") as f:
        f.write(vm.kernel_ir(fs))
    run([args.clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=" + args.arch,
         "-O1", "-nogpulib", ll, "-o", co], "clang")
    od = os.path.join(work, "out")
    cmd = [os.path.join(args.bin, "asmevo-verify"), "run", co, "--spec",
           os.path.join(work, "spec.yaml"), "--output-dir", od]
    for o in vm.IN:
        cmd += ["--input", "p%s=%s" % (o, os.path.join(work, "p%s.bin" % o))]
    txt = run(cmd, "asmevo-verify run")
    if "result: clean" not in txt:
        raise RuntimeError("run not clean:\n" + txt)
    with open(os.path.join(od, "out.bin"), "rb") as f:
        out = struct.unpack("<%dI" % (N * vm.nslots(fs)), f.read())
    seq = vm.after_nop7(args, co)
    if len(seq) != len(fs):
        raise RuntimeError("%s: %d modelled instructions in the kernel, %d "
                           "emitted" % (tag, len(seq), len(fs)))
    passed, failed = set(), set()
    checked = 0
    for f, mc, want, got in vm.emulated(fs, seq, out, inputs):
        bad = []
        for n in range(N):
            w = want[n]
            if isinstance(w, Check):
                ok = w(got[n])
                checked += not skipped(w.name, w.src)
            else:
                ok = got[n] == w
            if not ok:
                bad.append(n)
        if bad:
            failed.add(mc)
            print("FAIL %s %s (%s): %d of %d lanes outside the bound" % (
                args.arch, f.asm.replace("\\0A", "; "), mc, len(bad), N))
            for n in bad[:4]:
                w = want[n]
                src = ("src=%#x" % w.src) if isinstance(w, Check) else \
                    "old=%#x" % w
                print("  lane %d: %s emulator=%#x" % (n, src, got[n]))
        else:
            passed.add(mc)
    return passed, failed, len(fs), checked


def main():
    args = harness.arguments()
    groups = {
        "f32": plain_forms(F32_NAMES) + sdwa_forms(F32_NAMES) +
        dpp_forms(F32_NAMES),
        "f16": plain_forms(F16_NAMES) + sdwa_forms(F16_NAMES) +
        dpp_forms(F16_NAMES),
        "f64": plain_forms(F64_NAMES),
    }
    tested, failed, total, lanes = set(), set(), 0, 0
    for j, (ty, fs) in enumerate(sorted(groups.items())):
        p, fl, n, c = run_batch(args, ty, fs, inputs_for(args.seed + j, ty))
        tested |= p
        failed |= fl
        total += n
        lanes += c
    print("%s: %d lanes checked against the documented bounds"
          % (args.arch, lanes))
    return harness.finish(args, total, tested, failed)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Differential cases: LLVM's constant folder against the emulator.

Each case is one operation written in LLVM IR (arithmetic, conversions,
generic and llvm.amdgcn.* intrinsics LLVM folds). It is compiled twice by
clang -O3 for the target:
  variable: operands loaded from memory, one lane per input tuple -- the
            instruction under test runs in the emulator;
  constant: the same operands as constants, through opt -O3 -- the folder
            computes every result at compile time; the results are read
            from the optimized IR (one volatile store each), so no
            emulated instruction computes them. Every stored value must be
            a constant: an operation the folder left in place fails the
            case ("absent" check; reading the IR rather than the machine
            code also keeps the backend's constant materialisation tricks,
            such as v_bfrev_b32 of an inline constant, out of it).
The variable build runs in the emulator (asmevo-verify run); its outputs
must agree with the folded ones bit for bit, except where a case says the
folder is no model of the hardware: "nan" compares NaN-ness instead of
payloads, and skips tuples with a NaN input the folder declines to fold
(maxnum/minnum of a signaling NaN); "nan-inputs" skips tuples with a NaN
input (the folder's fmed3 picks an operand there, the hardware a min3)
and takes +0 and -0 as equal results (the folder's fmed3 answer with both
zeros among its inputs depends on how instcombine ordered them). Skipped
tuples are counted in the case's line. The case's instruction (by
MC opcode stem, read from asmevo-opt's MachineIR) must be in the variable
build.

usage: constfold.py --clang CLANG --opt OPT --bin ASMEVO_BIN_DIR --arch gfx942
                    --work DIR [--case NAME ...] [--write-tested FILE]
Exit status 0 when every case matches and every presence check holds.
"""
import argparse
import concurrent.futures
import os
import random
import re
import struct
import subprocess
import sys

N = 256  # input tuples per case (4 workgroups of 64 lanes)

SUBTARGETS = ("_vi", "_gfx9", "_gfx90a", "_gfx940", "_gfx950",
              "_gfx6_gfx7", "_si", "_ci")
ENCODINGS = ("_e32", "_e64", "_dpp", "_sdwa", "_opsel", "_vcd", "_acd",
             "_agpr")


def strip_subtarget(name):
    changed = True
    while changed:
        changed = False
        for s in SUBTARGETS:
            if name.endswith(s):
                name = name[:-len(s)]
                changed = True
    return name


def stem(name):
    changed = True
    while changed:
        changed = False
        for s in SUBTARGETS + ENCODINGS:
            if name.endswith(s):
                name = name[:-len(s)]
                changed = True
    return name


# --- values ----------------------------------------------------------------

I32_EDGE = [0, 1, 2, 7, 31, 32, 33, 63, 64, 127, 0x7fffffff, 0x80000000,
            0x80000001, 0xffffffff, 0xfffffffe, 0x12345678, 0xdeadbeef,
            0x00ff00ff, 0xff00ff00, 0x0000ffff, 0x00800000, 0xff800000]
F32_EDGE = [0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000,
            0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000, 0x40200000,
            0xc0200000, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
            0x7fc12345, 0xffc00000, 0x4f000000, 0xcf000000, 0x4f800000,
            0x3effffff, 0x4b800001, 0xc2f6e979, 0x00400000]
F64_EDGE = [0x0, 0x8000000000000000, 0x1, 0x000fffffffffffff,
            0x0010000000000000, 0x3ff0000000000000, 0xbff0000000000000,
            0x3fe0000000000000, 0x4004000000000000, 0x7fefffffffffffff,
            0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
            0xfff8000000000000, 0x41e0000000000000, 0xc1e0000000000000,
            0x3fd5555555555555, 0x4330000000000001]
F16_EDGE = [0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3800,
            0x3e00, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x5640]

TYPES = {
    # IR type: (struct format, bits, edge values, is float)
    "i32": ("I", 32, I32_EDGE, False),
    "float": ("I", 32, F32_EDGE, True),
    "i64": ("Q", 64, [0, 1, 63, 64, 0x7fffffffffffffff, 1 << 63,
                      (1 << 64) - 1, 0x123456789abcdef0], False),
    "double": ("Q", 64, F64_EDGE, True),
    "half": ("H", 16, F16_EDGE, True),
    "i16": ("H", 16, [0, 1, 0x7fff, 0x8000, 0xffff, 0x1234], False),
}
SPEC_TYPE = {"i32": "u32", "float": "u32", "i64": "u64", "double": "u64",
             "half": "u16", "i16": "u16"}
INT_OF = {"i32": "i32", "float": "i32", "i64": "i64", "double": "i64",
          "half": "i16", "i16": "i16"}


def is_nan(ty, v):
    if ty == "float":
        return (v & 0x7f800000) == 0x7f800000 and (v & 0x7fffff) != 0
    if ty == "double":
        return (v >> 52 & 0x7ff) == 0x7ff and (v & ((1 << 52) - 1)) != 0
    if ty == "half":
        return (v & 0x7c00) == 0x7c00 and (v & 0x3ff) != 0
    return False


def is_zero(ty, v):
    return ty in ("float", "double", "half") and \
        (v << 1) & ((1 << TYPES[ty][1]) - 1) == 0


def values(tys, seed, small=None):
    """N tuples: pairs of edge values first, then seeded random ones.
    small[k] (if given) limits operand k to range(small[k]) for random
    draws (shift amounts, bit offsets)."""
    rnd = random.Random(seed)
    edges = [TYPES[t][2] for t in tys]
    out = []
    e0 = edges[0]
    e1 = edges[1] if len(tys) > 1 else [None]
    for a in e0:
        for b in e1:
            if len(out) >= N // 2:
                break
            t = [a] + ([b] if len(tys) > 1 else [])
            for k in range(2, len(tys)):
                t.append(rnd.choice(edges[k]))
            out.append(t)
    while len(out) < N:
        t = []
        for k, ty in enumerate(tys):
            if small and small[k]:
                t.append(rnd.randrange(small[k]))
            elif rnd.random() < 0.25:
                t.append(rnd.choice(edges[k]))
            else:
                t.append(rnd.getrandbits(TYPES[ty][1]))
        out.append(t)
    return out[:N]


# --- cases -----------------------------------------------------------------
# (name, stems the variable build must contain, operand types, result type,
#  IR body over %a %b %c defining %r, compare: "exact" | "nan",
#  random-draw limits per operand or None)

def C(name, stems, tys, rty, body, cmp="exact", small=None):
    return dict(name=name, stems=stems, tys=tys, rty=rty, body=body, cmp=cmp,
                small=small)


CASES = [
    # rotates and funnel shifts (amounts >= 32 included: fshl is modulo)
    C("fshl-rot", ["V_ALIGNBIT_B32"], ["i32", "i32"], "i32",
      "%r = call i32 @llvm.fshl.i32(i32 %a, i32 %a, i32 %b)"),
    C("fshr", ["V_ALIGNBIT_B32"], ["i32", "i32", "i32"], "i32",
      "%r = call i32 @llvm.fshr.i32(i32 %a, i32 %b, i32 %c)"),
    C("ubfe", ["V_BFE_U32"], ["i32", "i32", "i32"], "i32",
      "%r = call i32 @llvm.amdgcn.ubfe.i32(i32 %a, i32 %b, i32 %c)",
      small=[0, 40, 40]),
    C("sbfe", ["V_BFE_I32"], ["i32", "i32", "i32"], "i32",
      "%r = call i32 @llvm.amdgcn.sbfe.i32(i32 %a, i32 %b, i32 %c)",
      small=[0, 40, 40]),
    C("perm", ["V_PERM_B32"], ["i32", "i32", "i32"], "i32",
      "%r = call i32 @llvm.amdgcn.perm(i32 %a, i32 %b, i32 %c)"),
    C("bitreverse", ["V_BFREV_B32"], ["i32"], "i32",
      "%r = call i32 @llvm.bitreverse.i32(i32 %a)"),
    C("ctpop", ["V_BCNT_U32_B32"], ["i32"], "i32",
      "%r = call i32 @llvm.ctpop.i32(i32 %a)"),
    C("ctlz", ["V_FFBH_U32"], ["i32"], "i32",
      "%r = call i32 @llvm.ctlz.i32(i32 %a, i1 false)"),
    C("cttz", ["V_FFBL_B32"], ["i32"], "i32",
      "%r = call i32 @llvm.cttz.i32(i32 %a, i1 false)"),
    # integer arithmetic
    C("add", ["V_ADD_U32"], ["i32", "i32"], "i32", "%r = add i32 %a, %b"),
    C("sub", ["V_SUB_U32"], ["i32", "i32"], "i32", "%r = sub i32 %a, %b"),
    C("mul", ["V_MUL_LO_U32"], ["i32", "i32"], "i32", "%r = mul i32 %a, %b"),
    C("mulhu", ["V_MUL_HI_U32"], ["i32", "i32"], "i32",
      "%x = zext i32 %a to i64\n%y = zext i32 %b to i64\n"
      "%p = mul i64 %x, %y\n%h = lshr i64 %p, 32\n%r = trunc i64 %h to i32"),
    C("mulhs", ["V_MUL_HI_I32"], ["i32", "i32"], "i32",
      "%x = sext i32 %a to i64\n%y = sext i32 %b to i64\n"
      "%p = mul i64 %x, %y\n%h = lshr i64 %p, 32\n%r = trunc i64 %h to i32"),
    C("shl", ["V_LSHLREV_B32"], ["i32", "i32"], "i32",
      "%s = and i32 %b, 31\n%r = shl i32 %a, %s"),
    C("lshr", ["V_LSHRREV_B32"], ["i32", "i32"], "i32",
      "%s = and i32 %b, 31\n%r = lshr i32 %a, %s"),
    C("ashr", ["V_ASHRREV_I32"], ["i32", "i32"], "i32",
      "%s = and i32 %b, 31\n%r = ashr i32 %a, %s"),
    C("smin", ["V_MIN_I32"], ["i32", "i32"], "i32",
      "%r = call i32 @llvm.smin.i32(i32 %a, i32 %b)"),
    C("umax", ["V_MAX_U32"], ["i32", "i32"], "i32",
      "%r = call i32 @llvm.umax.i32(i32 %a, i32 %b)"),
    C("uadd-sat", ["V_ADD_U32"], ["i32", "i32"], "i32",
      "%r = call i32 @llvm.uadd.sat.i32(i32 %a, i32 %b)"),
    C("sadd-sat", ["V_ADD_I32"], ["i32", "i32"], "i32",
      "%r = call i32 @llvm.sadd.sat.i32(i32 %a, i32 %b)"),
    C("ssub-sat", ["V_SUB_I32"], ["i32", "i32"], "i32",
      "%r = call i32 @llvm.ssub.sat.i32(i32 %a, i32 %b)"),
    C("shl64", ["V_LSHLREV_B64"], ["i64", "i64"], "i64",
      "%s = and i64 %b, 63\n%r = shl i64 %a, %s"),
    C("add64", ["V_ADD_CO_U32", "V_ADDC_CO_U32", "V_LSHL_ADD_U64"],
      ["i64", "i64"], "i64", "%r = add i64 %a, %b"),
    C("smax3", ["V_MAX3_I32"], ["i32", "i32", "i32"], "i32",
      "%t = call i32 @llvm.smax.i32(i32 %a, i32 %b)\n"
      "%r = call i32 @llvm.smax.i32(i32 %t, i32 %c)"),
    C("umin3", ["V_MIN3_U32"], ["i32", "i32", "i32"], "i32",
      "%t = call i32 @llvm.umin.i32(i32 %a, i32 %b)\n"
      "%r = call i32 @llvm.umin.i32(i32 %t, i32 %c)"),
    C("smed3", ["V_MED3_I32"], ["i32"], "i32",
      "%t = call i32 @llvm.smax.i32(i32 %a, i32 -100)\n"
      "%r = call i32 @llvm.smin.i32(i32 %t, i32 100)"),
    # 24-bit multiplies: operands masked to 24 bits, products up to 48 bits
    C("mul-u24", ["V_MUL_U32_U24"], ["i32", "i32"], "i32",
      "%x = and i32 %a, 16777215\n%y = and i32 %b, 16777215\n"
      "%r = mul i32 %x, %y"),
    C("mulhi-u24", ["V_MUL_HI_U32_U24"], ["i32", "i32"], "i32",
      "%x = and i32 %a, 16777215\n%y = and i32 %b, 16777215\n"
      "%xx = zext i32 %x to i64\n%yy = zext i32 %y to i64\n"
      "%p = mul i64 %xx, %yy\n%h = lshr i64 %p, 32\n%r = trunc i64 %h to i32"),
    C("mul-i24", ["V_MUL_I32_I24"], ["i32", "i32"], "i32",
      "%x1 = shl i32 %a, 8\n%x = ashr i32 %x1, 8\n"
      "%y1 = shl i32 %b, 8\n%y = ashr i32 %y1, 8\n%r = mul i32 %x, %y"),
    # 16-bit integer
    C("add-i16", ["V_ADD_U16"], ["i16", "i16"], "i16", "%r = add i16 %a, %b"),
    C("mul-i16", ["V_MUL_LO_U16"], ["i16", "i16"], "i16",
      "%r = mul i16 %a, %b"),
    C("umin-i16", ["V_MIN_U16"], ["i16", "i16"], "i16",
      "%r = call i16 @llvm.umin.i16(i16 %a, i16 %b)"),
    C("ashr-i16", ["V_ASHRREV_I16"], ["i16", "i16"], "i16",
      "%s = and i16 %b, 15\n%r = ashr i16 %a, %s"),
    # f16
    C("fadd-f16", ["V_ADD_F16"], ["half", "half"], "half",
      "%r = fadd half %a, %b", "nan"),
    C("fmul-f16", ["V_MUL_F16"], ["half", "half"], "half",
      "%r = fmul half %a, %b", "nan"),
    C("fma-f16", ["V_FMA_F16", "V_FMAC_F16", "V_MAD_F16"],
      ["half", "half", "half"], "half",
      "%r = call half @llvm.fma.f16(half %a, half %b, half %c)", "nan"),
    C("fmax3", ["V_MAX3_F32"], ["float", "float", "float"], "float",
      "%t = call float @llvm.maxnum.f32(float %a, float %b)\n"
      "%r = call float @llvm.maxnum.f32(float %t, float %c)", "nan"),
    # f32 (NaN payloads: the folder picks its own)
    C("fadd", ["V_ADD_F32"], ["float", "float"], "float",
      "%r = fadd float %a, %b", "nan"),
    C("fsub", ["V_SUB_F32"], ["float", "float"], "float",
      "%r = fsub float %a, %b", "nan"),
    C("fmul", ["V_MUL_F32"], ["float", "float"], "float",
      "%r = fmul float %a, %b", "nan"),
    C("fma", ["V_FMA_F32", "V_FMAC_F32"], ["float", "float", "float"], "float",
      "%r = call float @llvm.fma.f32(float %a, float %b, float %c)", "nan"),
    C("fma-acc", ["V_FMAC_F32"], ["float", "float", "float"], "float",
      "%p = call float @llvm.fma.f32(float %a, float %b, float %c)\n"
      "%r = call float @llvm.fma.f32(float %a, float %p, float %c)", "nan"),
    C("maxnum", ["V_MAX_F32"], ["float", "float"], "float",
      "%r = call float @llvm.maxnum.f32(float %a, float %b)", "nan"),
    C("minnum", ["V_MIN_F32"], ["float", "float"], "float",
      "%r = call float @llvm.minnum.f32(float %a, float %b)", "nan"),
    C("fmed3", ["V_MED3_F32"], ["float", "float", "float"], "float",
      "%r = call float @llvm.amdgcn.fmed3.f32(float %a, float %b, float %c)",
      "nan-inputs"),
    C("ldexp", ["V_LDEXP_F32"], ["float", "i32"], "float",
      "%r = call float @llvm.ldexp.f32.i32(float %a, i32 %b)", "nan"),
    C("frexp-mant", ["V_FREXP_MANT_F32"], ["float"], "float",
      "%r = call float @llvm.amdgcn.frexp.mant.f32(float %a)", "nan"),
    C("frexp-exp", ["V_FREXP_EXP_I32_F32"], ["float"], "i32",
      "%r = call i32 @llvm.amdgcn.frexp.exp.i32.f32(float %a)"),
    C("fract", ["V_FRACT_F32"], ["float"], "float",
      "%r = call float @llvm.amdgcn.fract.f32(float %a)", "nan"),
    C("floor", ["V_FLOOR_F32"], ["float"], "float",
      "%r = call float @llvm.floor.f32(float %a)", "nan"),
    C("ceil", ["V_CEIL_F32"], ["float"], "float",
      "%r = call float @llvm.ceil.f32(float %a)", "nan"),
    C("trunc", ["V_TRUNC_F32"], ["float"], "float",
      "%r = call float @llvm.trunc.f32(float %a)", "nan"),
    C("rint", ["V_RNDNE_F32"], ["float"], "float",
      "%r = call float @llvm.rint.f32(float %a)", "nan"),
    C("fptosi-sat", ["V_CVT_I32_F32"], ["float"], "i32",
      "%r = call i32 @llvm.fptosi.sat.i32.f32(float %a)"),
    C("fptoui-sat", ["V_CVT_U32_F32"], ["float"], "i32",
      "%r = call i32 @llvm.fptoui.sat.i32.f32(float %a)"),
    C("sitofp", ["V_CVT_F32_I32"], ["i32"], "float",
      "%r = sitofp i32 %a to float"),
    C("uitofp", ["V_CVT_F32_U32"], ["i32"], "float",
      "%r = uitofp i32 %a to float"),
    C("cvt-pkrtz", ["V_CVT_PKRTZ_F16_F32"], ["float", "float"], "i32",
      "%v = call <2 x half> @llvm.amdgcn.cvt.pkrtz(float %a, float %b)\n"
      "%r = bitcast <2 x half> %v to i32"),
    C("fptrunc-f16", ["V_CVT_F16_F32"], ["float"], "half",
      "%r = fptrunc float %a to half", "nan"),
    C("fpext-f16", ["V_CVT_F32_F16"], ["half"], "float",
      "%r = fpext half %a to float", "nan"),
    # f64
    C("fadd64", ["V_ADD_F64"], ["double", "double"], "double",
      "%r = fadd double %a, %b", "nan"),
    C("fmul64", ["V_MUL_F64"], ["double", "double"], "double",
      "%r = fmul double %a, %b", "nan"),
    C("fma64", ["V_FMA_F64", "V_FMAC_F64"], ["double", "double", "double"], "double",
      "%r = call double @llvm.fma.f64(double %a, double %b, double %c)",
      "nan"),
    C("fpext64", ["V_CVT_F64_F32"], ["float"], "double",
      "%r = fpext float %a to double", "nan"),
    C("fptrunc64", ["V_CVT_F32_F64"], ["double"], "float",
      "%r = fptrunc double %a to float", "nan"),
    # cube map (the folder's rule is the guide's pseudocode: the major
    # axis is z if |z| >= |x|, |y|, else y if |y| >= |x|, else x; NaN never
    # compares >=); NaN-ness only: "-S0" of a NaN is the folder's choice
    C("cubeid", ["V_CUBEID_F32"], ["float", "float", "float"], "float",
      "%r = call float @llvm.amdgcn.cubeid(float %a, float %b, float %c)"),
    C("cubesc", ["V_CUBESC_F32"], ["float", "float", "float"], "float",
      "%r = call float @llvm.amdgcn.cubesc(float %a, float %b, float %c)",
      "nan"),
    C("cubetc", ["V_CUBETC_F32"], ["float", "float", "float"], "float",
      "%r = call float @llvm.amdgcn.cubetc(float %a, float %b, float %c)",
      "nan"),
    C("cubema", ["V_CUBEMA_F32"], ["float", "float", "float"], "float",
      "%r = call float @llvm.amdgcn.cubema(float %a, float %b, float %c)",
      "nan"),
    C("frexp-mant-f16", ["V_FREXP_MANT_F16"], ["half"], "half",
      "%r = call half @llvm.amdgcn.frexp.mant.f16(half %a)", "nan"),
    C("frexp-exp-f16", ["V_FREXP_EXP_I16_F16"], ["half"], "i16",
      "%r = call i16 @llvm.amdgcn.frexp.exp.i16.f16(half %a)"),
]


def compare_cases():
    """Compares as 0/1 results: each predicate becomes one V_CMP opcode, or
    its operand-swapped twin (the backend may commute)."""
    out = []
    ints = {"eq": ("EQ", "EQ"), "ne": ("NE", "NE"), "slt": ("LT", "GT"),
            "sle": ("LE", "GE"), "sgt": ("GT", "LT"), "sge": ("GE", "LE"),
            "ult": ("LT", "GT"), "ule": ("LE", "GE"), "ugt": ("GT", "LT"),
            "uge": ("GE", "LE")}
    for pred, (a, b) in ints.items():
        sg = "U" if pred[0] in "eun" else "I"
        for ty, w in (("i32", "32"), ("i64", "64")):
            if ty == "i64" and pred not in ("eq", "slt", "ugt"):
                continue
            stems = ["V_CMP_%s_%s%s" % (x, t, w) for x in (a, b)
                     for t in ("I", "U") if pred in ("eq", "ne") or t == sg]
            out.append(C("icmp-%s-%s" % (pred, ty), stems, [ty, ty], "i32",
                         "%%c = icmp %s %s %%a, %%b\n"
                         "%%r = zext i1 %%c to i32" % (pred, ty)))
    floats = {"oeq": ("EQ", "EQ"), "one": ("LG", "LG"), "olt": ("LT", "GT"),
              "ole": ("LE", "GE"), "ogt": ("GT", "LT"), "oge": ("GE", "LE"),
              "ord": ("O", "O"), "uno": ("U", "U"), "ueq": ("NLG", "NLG"),
              "une": ("NEQ", "NEQ"), "ult": ("NGE", "NLE"),
              "ule": ("NGT", "NLT"), "ugt": ("NLE", "NGE"),
              "uge": ("NLT", "NGT")}
    for pred, (a, b) in floats.items():
        for ty, w in (("float", "F32"), ("double", "F64"), ("half", "F16")):
            if ty != "float" and pred not in ("oeq", "olt", "uno", "ult"):
                continue
            out.append(C("fcmp-%s-%s" % (pred, ty),
                         ["V_CMP_%s_%s" % (a, w), "V_CMP_%s_%s" % (b, w)],
                         [ty, ty], "i32",
                         "%%c = fcmp %s %s %%a, %%b\n"
                         "%%r = zext i1 %%c to i32" % (pred, ty)))
    out.append(C("select", ["V_CNDMASK_B32"], ["i32", "i32", "i32"], "i32",
                 "%k = icmp ult i32 %c, 100000\n"
                 "%r = select i1 %k, i32 %a, i32 %b"))
    out.append(C("fpclass", ["V_CMP_CLASS_F32"], ["float"], "i32",
                 "%c = call i1 @llvm.is.fpclass.f32(float %a, i32 144)\n"
                 "%r = zext i1 %c to i32"))
    return out


CASES += compare_cases()

# --- IR --------------------------------------------------------------------

OPERANDS = ["a", "b", "c"]


def literal(ty, v):
    """An instruction that materialises constant v of IR type ty."""
    it = INT_OF[ty]
    if ty in ("float", "double", "half"):
        return "bitcast %s %d to %s" % (it, v, ty)
    sv = v - (1 << TYPES[ty][1]) if v >> (TYPES[ty][1] - 1) else v
    return "add %s %d, 0" % (ty, sv)


def rename(body, suffix):
    return re.sub(r"%([A-Za-z_][A-Za-z0-9_]*)", r"%\1" + suffix, body)


def header():
    return ('target triple = "amdgcn-amd-amdhsa"\n'
            "declare i32 @llvm.amdgcn.workitem.id.x()\n"
            "declare i32 @llvm.amdgcn.workgroup.id.x()\n")


def params(case):
    ps = ["ptr addrspace(1) %out"]
    ps += ["ptr addrspace(1) %%p%s" % OPERANDS[k]
           for k in range(len(case["tys"]))]
    return ", ".join(ps)


ATTRS = 'attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }\n'


def variable_ir(case):
    lines = [header(),
             "define amdgpu_kernel void @k(%s) #0 {" % params(case),
             "  %tid = call i32 @llvm.amdgcn.workitem.id.x()",
             "  %grp = call i32 @llvm.amdgcn.workgroup.id.x()",
             "  %g64 = mul i32 %grp, 64",
             "  %i = add i32 %g64, %tid"]
    for k, ty in enumerate(case["tys"]):
        o = OPERANDS[k]
        lines.append("  %%g%s = getelementptr %s, ptr addrspace(1) %%p%s, "
                     "i32 %%i" % (o, ty, o))
        lines.append("  %%%s = load %s, ptr addrspace(1) %%g%s" % (o, ty, o))
    lines += ["  " + l for l in case["body"].split("\n")]
    lines.append("  %%go = getelementptr %s, ptr addrspace(1) %%out, i32 %%i"
                 % case["rty"])
    lines.append("  store %s %%r, ptr addrspace(1) %%go" % case["rty"])
    lines += ["  ret void", "}", ATTRS]
    return "\n".join(lines)


def constant_ir(case, vals):
    lines = [header(),
             "define amdgpu_kernel void @k(%s) #0 {" % params(case),
             "  %tid = call i32 @llvm.amdgcn.workitem.id.x()",
             "  %grp = call i32 @llvm.amdgcn.workgroup.id.x()",
             "  %g64 = mul i32 %grp, 64",
             "  %i = add i32 %g64, %tid",
             "  %first = icmp eq i32 %i, 0",
             "  br i1 %first, label %store, label %done",
             "store:"]
    for n, t in enumerate(vals):
        sfx = "_%d" % n
        for k, ty in enumerate(case["tys"]):
            lines.append("  %%%s%s = %s" % (OPERANDS[k], sfx, literal(ty, t[k])))
        lines += ["  " + l for l in rename(case["body"], sfx).split("\n")]
        lines.append("  %%go%s = getelementptr %s, ptr addrspace(1) %%out, "
                     "i32 %d" % (sfx, case["rty"], n))
        # volatile: one store per result, in order, never merged.
        lines.append("  store volatile %s %%r%s, ptr addrspace(1) %%go%s"
                     % (case["rty"], sfx, sfx))
    lines += ["  br label %done", "done:", "  ret void", "}", ATTRS]
    return "\n".join(lines)


def spec(case):
    s = ["asmevo-launch: 1", "buffers:"]
    s.append("  out: {type: %s, count: %d, role: out}"
             % (SPEC_TYPE[case["rty"]], N))
    for k, ty in enumerate(case["tys"]):
        s.append("  p%s: {type: %s, count: %d, role: in}"
                 % (OPERANDS[k], SPEC_TYPE[ty], N))
    s.append("kernel: k")
    s.append("grid: [%d]" % (N // 64))
    s.append("block: [64]")
    s.append("args: [%s]" % ", ".join(
        ["out"] + ["p" + OPERANDS[k] for k in range(len(case["tys"]))]))
    return "\n".join(s) + "\n"


# --- running ---------------------------------------------------------------

def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s\n%s%s" % (
            what, p.returncode, " ".join(cmd), p.stdout[-2000:],
            p.stderr[-2000:]))
    return p.stdout


def mc_opcodes(args, co):
    """The kernel's instructions in order, as MC opcode names."""
    mir = run([os.path.join(args.bin, "asmevo-opt"), co, "--emit=mir",
               "-o", "-"], "asmevo-opt --emit=mir")
    # MC opcode names carry a lower-case encoding or subtarget suffix
    # (V_ALIGNBIT_B32_opsel_gfx9, S_ENDPGM_vi).
    return re.findall(r"(?:= |^\s+)([A-Z][A-Z0-9_]*(?:_[a-z][a-z0-9]*)+)\b",
                      mir, re.M)


def opcodes(args, co):
    return set(mc_opcodes(args, co))


STORE = re.compile(r"^\s*store volatile (\S+) (\S+), ptr addrspace\(1\)", re.M)


def folded_results(ir, rty):
    """The N stored results of the optimized constant IR, as bit patterns,
    and the stores whose value is not a constant (the folder left an
    operation in place: "absent" fails)."""
    vals, left = [], []
    fmt, bits = TYPES[rty][0], TYPES[rty][1]
    for ty, v in STORE.findall(ir):
        if ty != rty:
            left.append("store of %s" % ty)
            vals.append(None)
            continue
        if v.startswith("%") or v in ("poison", "undef"):
            left.append(v)
            vals.append(None)
            continue
        if rty in ("i32", "i64", "i16"):
            vals.append(int(v) & ((1 << bits) - 1))
        elif rty == "half":
            if v.startswith("0xH"):
                vals.append(int(v[3:], 16))
            else:
                vals.append(struct.unpack("<H", struct.pack("<e", float(v)))[0])
        else:
            if v.startswith("0x"):
                d = struct.unpack("<d", struct.pack("<Q", int(v[2:], 16)))[0]
            else:
                d = float(v)
            if rty == "double":
                vals.append(struct.unpack("<Q", struct.pack("<d", d))[0])
            else:
                vals.append(struct.unpack("<I", struct.pack("<f", d))[0])
    if len(vals) != N:
        left.append("%d stores, expected %d" % (len(vals), N))
        vals += [None] * (N - len(vals))
    return vals[:N], left


def one_case(args, case, seed):
    d = os.path.join(args.work, case["name"])
    os.makedirs(d, exist_ok=True)
    vals = values(case["tys"], seed, case["small"])
    for k, ty in enumerate(case["tys"]):
        with open(os.path.join(d, "p%s.bin" % OPERANDS[k]), "wb") as f:
            f.write(struct.pack("<%d%s" % (N, TYPES[ty][0]),
                                *[t[k] for t in vals]))
    with open(os.path.join(d, "spec.yaml"), "w") as f:
        f.write(spec(case))
    outs, ops = {}, {}
    # The constant build: opt -O3 folds every result; they are read from
    # the optimized IR, so no emulated instruction computes them.
    cll = os.path.join(d, "constant.ll")
    with open(cll, "w") as f:
        f.write(constant_ir(case, vals))
    folded = run([args.opt, "-mtriple=amdgcn-amd-amdhsa", "-mcpu=" + args.arch,
                  "-O3", "-S", cll, "-o", "-"], "opt constant")
    with open(os.path.join(d, "constant.opt.ll"), "w") as f:
        f.write(folded)
    outs["constant"], leaked = folded_results(folded, case["rty"])
    for kind, ir in (("variable", variable_ir(case)),):
        ll = os.path.join(d, kind + ".ll")
        co = os.path.join(d, kind + ".co")
        with open(ll, "w") as f:
            f.write(ir)
        run([args.clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=" + args.arch,
             "-O3", "-nogpulib", ll, "-o", co], "clang " + kind)
        ops[kind] = opcodes(args, co)
        od = os.path.join(d, kind + "-out")
        cmd = [os.path.join(args.bin, "asmevo-verify"), "run", co, "--spec",
               os.path.join(d, "spec.yaml"), "--output-dir", od]
        for k in range(len(case["tys"])):
            cmd += ["--input", "p%s=%s" % (OPERANDS[k],
                                           os.path.join(d, "p%s.bin"
                                                        % OPERANDS[k]))]
        txt = run(cmd, "asmevo-verify run " + kind)
        if "result: clean" not in txt:
            raise RuntimeError("%s run not clean:\n%s" % (kind, txt))
        fmt = TYPES[case["rty"]][0]
        with open(os.path.join(od, "out.bin"), "rb") as f:
            outs[kind] = struct.unpack("<%d%s" % (N, fmt), f.read())
    want = set(case["stems"])
    present = sorted(strip_subtarget(o) for o in ops["variable"]
                     if stem(o) in want)
    mism = []
    skipped = 0
    leaked = [l for l in leaked if l.startswith("store of") or "stores" in l]
    for n in range(N):
        v, c = outs["variable"][n], outs["constant"][n]
        if v == c:
            continue
        nan_in = any(is_nan(ty, t) for ty, t in zip(case["tys"], vals[n]))
        if c is None:
            # The folder declines some NaN inputs (maxnum of a signaling
            # NaN may return either operand or a quiet NaN in LLVM's
            # semantics): nothing to compare against.
            if case["cmp"] != "exact" and nan_in:
                skipped += 1
                continue
            mism.append((n, vals[n], v, -1))
            continue
        if case["cmp"] == "nan-inputs" and nan_in:
            skipped += 1
            continue
        if case["cmp"] == "nan-inputs" and is_zero(case["rty"], v) and \
                is_zero(case["rty"], c):
            # fmed3 with +0 and -0 among its inputs: the folder's answer
            # depends on the order instcombine gives the operands.
            continue
        if case["cmp"] == "nan" and is_nan(case["rty"], v) and \
                is_nan(case["rty"], c):
            continue
        mism.append((n, vals[n], v, c))
    # A result the folder left as an operation is in `mism` (or skipped
    # where the case allows it); what remains in `leaked` is structural.
    return present, leaked, mism, skipped


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang", required=True)
    ap.add_argument("--opt", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case", action="append")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write-tested")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    bad = 0
    tested = set()
    total_vals = 0
    chosen = [(i, c) for i, c in enumerate(CASES)
              if not args.case or c["name"] in args.case]

    def work(ic):
        i, case = ic
        try:
            return one_case(args, case, args.seed * 1000 + i)
        except RuntimeError as e:
            return e

    # Cases are independent; most of their time is process start-up.
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(work, chosen))
    for (i, case), res in zip(chosen, results):
        if isinstance(res, RuntimeError):
            print("case %s %s: ERROR %s" % (case["name"], args.arch, res))
            bad += 1
            continue
        present, leaked, mism, skipped = res
        ok = present and not leaked and not mism
        total_vals += N
        print("case %s %s: %d values, %d mismatches%s; variable build: %s; "
              "constant build: %s%s" % (
                  case["name"], args.arch, N, len(mism),
                  " (%d with NaN inputs not compared)" % skipped
                  if skipped else "",
                  ", ".join(present) if present else "MISSING " +
                  "/".join(case["stems"]),
                  "all folded" if not leaked else "NOT FOLDED " +
                  ", ".join(sorted(set(leaked))[:3]),
                  "" if ok else "  FAIL"))
        for n, t, v, c in mism[:5]:
            print("  [%d] inputs %s: emulator 0x%x, folder 0x%x" % (
                n, " ".join("0x%x" % x for x in t), v, c))
        if ok:
            tested.update(present)
        else:
            bad += 1
    print("%s: %d cases failed, %d values compared" % (args.arch, bad,
                                                       total_vals))
    if args.write_tested:
        with open(args.write_tested, "w") as f:
            for t in sorted(tested):
                f.write(t + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

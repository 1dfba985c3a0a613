#!/usr/bin/env python3
"""A reference model of documented AMD GPU (GFX9 / CDNA) vector integer
operations, and a differential run of the emulator against it.

The model is written from the operation descriptions of AMD's CDNA3 ISA
reference guide (the "Instruction" chapters: VOP1, VOP2, VOP3), not from
the emulator's source, so the two can disagree. One kernel per batch of
opcodes: each instruction is emitted through inline assembly (so the exact
opcode and encoding are fixed, whatever the compiler would choose), reads
per-lane inputs loaded from buffers and stores its result to its own
output slot. The kernel is built with clang, run with
`asmevo-verify run`, and every result is compared bit for bit.

The MC opcodes the kernel contains (from `asmevo-opt --emit=mir`) that
match a modelled instruction and pass on every lane are written with
--write-tested: the list `asmevo-verify coverage --tested` reads.

Usage: isa_reference.py --clang CLANG --bin BUILD/bin --arch gfx942
                        --work DIR [--write-tested FILE]
"""
import math
import os
import random
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from constfold import mc_opcodes, run, strip_subtarget  # noqa: E402

M32 = 0xFFFFFFFF
N = 256  # lanes per case: 4 workgroups of 64


def sext(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def s32(v):
    return sext(v, 32)


def clz32(v):
    return 32 - v.bit_length()


def ffbh_u32(a):
    # "Count leading zeros; -1 (all ones) if the input is zero."
    return M32 if a == 0 else clz32(a)


def ffbl_b32(a):
    # "Bit position of the least significant one; -1 if zero."
    return M32 if a == 0 else (a & -a).bit_length() - 1


def ffbh_i32(a):
    # "Position from the MSB of the first bit that differs from the sign
    # bit; -1 if every bit equals the sign bit (0 and -1)."
    x = a ^ (M32 if a >> 31 else 0)
    return M32 if x == 0 else clz32(x)


def bfrev(a):
    return int("{:032b}".format(a)[::-1], 2)


def u24(v):
    return v & 0xFFFFFF


def i24(v):
    return sext(v, 24)


def med3(a, b, c):
    return sorted([a, b, c])[1]


def f32bits(x):
    """Round a Python float (a double) to f32, nearest even."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def cvt_to_int(a, lo, hi):
    """V_CVT_I32_F32 / V_CVT_U32_F32: truncate toward zero, saturate at
    the range's ends; NaN gives 0."""
    x = f32val(a)
    if x != x:
        return 0
    if x >= hi:
        return hi & M32
    if x <= lo:
        return lo & M32
    return int(x) & M32


def cvt_round(a, bias):
    """V_CVT_FLR_I32_F32 (bias 0) / V_CVT_RPI_I32_F32 (bias 0.5):
    floor(S0 + bias), saturated like V_CVT_I32_F32; exact in a double."""
    x = f32val(a)
    if x != x:
        return 0
    if x in (float("inf"), float("-inf")):
        return 0x7FFFFFFF if x > 0 else 0x80000000
    return min(max(math.floor(x + bias), -2**31), 2**31 - 1) & M32


def frexp_exp(a):
    """The exponent of S0 as m * 2^e with 0.5 <= |m| < 1; 0 for zero,
    infinities and NaN."""
    x = f32val(a)
    if x != x or x in (float("inf"), float("-inf")):
        return 0
    return math.frexp(x)[1] & M32


def cvt_f32_f16(a):
    """Exact; a NaN keeps its sign and payload (shifted to the top of the
    f32 mantissa) and is quieted."""
    h = a & 0xFFFF
    if (h >> 10) & 0x1F == 0x1F and h & 0x3FF:
        return ((h >> 15) << 31) | 0x7FC00000 | ((h & 0x3FF) << 13)
    return f32bits(struct.unpack("<e", struct.pack("<H", h))[0])


# name, number of sources, model(a, b, c) -> 32-bit result.
# Sources are in assembly order (src0, src1, src2); the "rev" forms take
# the shift amount or the subtrahend from src0, as documented.
OPS = [
    ("v_add_u32", 2, lambda a, b, c: (a + b) & M32),
    ("v_sub_u32", 2, lambda a, b, c: (a - b) & M32),
    ("v_subrev_u32", 2, lambda a, b, c: (b - a) & M32),
    ("v_mul_lo_u32", 2, lambda a, b, c: (a * b) & M32),
    ("v_mul_hi_u32", 2, lambda a, b, c: (a * b) >> 32),
    ("v_mul_hi_i32", 2, lambda a, b, c: ((s32(a) * s32(b)) >> 32) & M32),
    ("v_mul_u32_u24", 2, lambda a, b, c: (u24(a) * u24(b)) & M32),
    ("v_mul_hi_u32_u24", 2, lambda a, b, c: (u24(a) * u24(b)) >> 32),
    ("v_mul_i32_i24", 2, lambda a, b, c: (i24(a) * i24(b)) & M32),
    ("v_mul_hi_i32_i24", 2, lambda a, b, c: ((i24(a) * i24(b)) >> 32) & M32),
    ("v_lshlrev_b32", 2, lambda a, b, c: (b << (a & 31)) & M32),
    ("v_lshrrev_b32", 2, lambda a, b, c: b >> (a & 31)),
    ("v_ashrrev_i32", 2, lambda a, b, c: (s32(b) >> (a & 31)) & M32),
    ("v_and_b32", 2, lambda a, b, c: a & b),
    ("v_or_b32", 2, lambda a, b, c: a | b),
    ("v_xor_b32", 2, lambda a, b, c: a ^ b),
    ("v_min_u32", 2, lambda a, b, c: min(a, b)),
    ("v_max_u32", 2, lambda a, b, c: max(a, b)),
    ("v_min_i32", 2, lambda a, b, c: min(s32(a), s32(b)) & M32),
    ("v_max_i32", 2, lambda a, b, c: max(s32(a), s32(b)) & M32),
    ("v_not_b32", 1, lambda a, b, c: ~a & M32),
    ("v_bfrev_b32", 1, lambda a, b, c: bfrev(a)),
    ("v_ffbh_u32", 1, lambda a, b, c: ffbh_u32(a)),
    ("v_ffbl_b32", 1, lambda a, b, c: ffbl_b32(a)),
    ("v_ffbh_i32", 1, lambda a, b, c: ffbh_i32(a)),
    ("v_mov_b32", 1, lambda a, b, c: a),
    ("v_cvt_f32_i32", 1, lambda a, b, c: f32bits(float(s32(a)))),
    ("v_cvt_f32_u32", 1, lambda a, b, c: f32bits(float(a))),
    ("v_cvt_i32_f32", 1, lambda a, b, c: cvt_to_int(a, -2**31, 2**31 - 1)),
    ("v_cvt_u32_f32", 1, lambda a, b, c: cvt_to_int(a, 0, 2**32 - 1)),
    ("v_cvt_f32_ubyte0", 1, lambda a, b, c: f32bits(float(a & 255))),
    ("v_cvt_f32_ubyte1", 1, lambda a, b, c: f32bits(float((a >> 8) & 255))),
    ("v_cvt_f32_ubyte2", 1,
     lambda a, b, c: f32bits(float((a >> 16) & 255))),
    ("v_cvt_f32_ubyte3", 1, lambda a, b, c: f32bits(float(a >> 24))),
    ("v_cvt_f32_f16", 1, lambda a, b, c: cvt_f32_f16(a)),
    ("v_cvt_flr_i32_f32", 1, lambda a, b, c: cvt_round(a, 0.0)),
    ("v_cvt_rpi_i32_f32", 1, lambda a, b, c: cvt_round(a, 0.5)),
    ("v_frexp_exp_i32_f32", 1, lambda a, b, c: frexp_exp(a)),
    # VOP3-only encodings.
    ("v_bcnt_u32_b32", 2, lambda a, b, c: (bin(a).count("1") + b) & M32),
    ("v_bfm_b32", 2,
     lambda a, b, c: (((1 << (a & 31)) - 1) << (b & 31)) & M32),
    ("v_mad_u32_u24", 3, lambda a, b, c: (u24(a) * u24(b) + c) & M32),
    ("v_mad_i32_i24", 3, lambda a, b, c: (i24(a) * i24(b) + s32(c)) & M32),
    ("v_add3_u32", 3, lambda a, b, c: (a + b + c) & M32),
    ("v_xad_u32", 3, lambda a, b, c: ((a ^ b) + c) & M32),
    ("v_lshl_add_u32", 3, lambda a, b, c: ((a << (b & 31)) + c) & M32),
    ("v_add_lshl_u32", 3, lambda a, b, c: ((a + b) << (c & 31)) & M32),
    ("v_lshl_or_b32", 3, lambda a, b, c: ((a << (b & 31)) | c) & M32),
    ("v_and_or_b32", 3, lambda a, b, c: (a & b) | c),
    ("v_or3_b32", 3, lambda a, b, c: a | b | c),
    ("v_min3_u32", 3, lambda a, b, c: min(a, b, c)),
    ("v_max3_u32", 3, lambda a, b, c: max(a, b, c)),
    ("v_med3_u32", 3, lambda a, b, c: med3(a, b, c)),
    ("v_min3_i32", 3, lambda a, b, c: min(s32(a), s32(b), s32(c)) & M32),
    ("v_max3_i32", 3, lambda a, b, c: max(s32(a), s32(b), s32(c)) & M32),
    ("v_med3_i32", 3, lambda a, b, c: med3(s32(a), s32(b), s32(c)) & M32),
    ("v_sad_u32", 3, lambda a, b, c: (abs(a - b) + c) & M32),
]

VOP3_ONLY = {n for n, k, _ in OPS if k == 3} | {"v_bcnt_u32_b32",
                                                "v_bfm_b32",
                                                "v_mul_lo_u32",
                                                "v_mul_hi_u32",
                                                "v_mul_hi_i32"}

EDGES = [0, 1, 2, 31, 32, 33, 63, 64, 0x7FFFFFFF, 0x80000000, 0x80000001,
         M32, 0xFFFFFFFE, 0x00FFFFFF, 0x01000000, 0x00800000, 0xFF800000,
         0x7F800000, 0xFF7FFFFF, 0x00000100, 0xDEADBEEF, 0x12345678,
         # f32 1.0, -1.0, quiet NaN; f16 in the low half: 1.0, -inf, NaN,
         # a denormal, -0.
         0x3F800000, 0xBF800000, 0x7FC00000, 0x00003C00, 0x0000FC00,
         0x00007E00, 0x00000001, 0x00008000, 0x00003C01,
         # f64 high words: +-inf, 1.0, a quiet NaN.
         0x7FF00000, 0xFFF00000, 0x3FF00000, 0x7FF80000]


def inputs(seed):
    """N lanes of (a, b, c): every pair of edge values, then random words,
    random small values (shift amounts in 0..127, so >= 32 too)."""
    rnd = random.Random(seed)
    lanes = []
    for x in EDGES:
        for y in EDGES[:6]:
            lanes.append((x, y, EDGES[(len(lanes) * 7) % len(EDGES)]))
    while len(lanes) < N:
        k = rnd.randrange(3)
        if k == 0:
            lanes.append(tuple(rnd.getrandbits(32) for _ in range(3)))
        elif k == 1:
            lanes.append((rnd.getrandbits(32), rnd.randrange(128),
                          rnd.randrange(128)))
        else:
            lanes.append((rnd.randrange(128), rnd.getrandbits(32),
                          rnd.getrandbits(32)))
    return lanes[:N]


def f32val(v):
    return struct.unpack("<f", struct.pack("<I", v & M32))[0]


def f16val(v):
    return struct.unpack("<e", struct.pack("<H", v & 0xFFFF))[0]


def _nan(x):
    return x != x


# The VOPC predicates, as the ISA guide defines them: integer compares
# read the low 16 or all 32 bits of each source; float compares are IEEE
# (-0 == +0, NaN unordered). The "N" forms are the negations, so they are
# true on unordered inputs.
FCMP = {
    "f": lambda a, b: False, "lt": lambda a, b: a < b,
    "eq": lambda a, b: a == b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "lg": lambda a, b: a < b or a > b, "ge": lambda a, b: a >= b,
    "o": lambda a, b: not _nan(a) and not _nan(b),
    "u": lambda a, b: _nan(a) or _nan(b),
    "nge": lambda a, b: not a >= b,
    "nlg": lambda a, b: not (a < b or a > b),
    "ngt": lambda a, b: not a > b, "nle": lambda a, b: not a <= b,
    "neq": lambda a, b: not a == b, "nlt": lambda a, b: not a < b,
    "tru": lambda a, b: True,
}
ICMP = {
    "f": lambda a, b: False, "lt": lambda a, b: a < b,
    "eq": lambda a, b: a == b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ne": lambda a, b: a != b,
    "ge": lambda a, b: a >= b, "t": lambda a, b: True,
}


def f64val(v):
    return struct.unpack("<d", struct.pack("<Q", v))[0]


CONV = {
    "f64": f64val, "i64": lambda v: sext(v, 64),
    "u64": lambda v: v & ((1 << 64) - 1),
    "f32": f32val, "f16": f16val,
    "i32": s32, "u32": lambda v: v & M32,
    "i16": lambda v: sext(v, 16), "u16": lambda v: v & 0xFFFF,
}


def wide(a, b, c):
    """The 64-bit sources of a lane: (a:b, c:a), high word first."""
    return (a << 32) | b, (c << 32) | a


def _cmp_model(pred, conv, is64):
    if is64:
        return lambda a, b, c: int(bool(pred(*map(conv, wide(a, b, c)))))
    return lambda a, b, c: int(bool(pred(conv(a), conv(b))))


def cmp_ops():
    out = []
    for ty, conv in CONV.items():
        preds = FCMP if ty[0] == "f" else ICMP
        for p, fn in preds.items():
            out.append(("v_cmp_%s_%s" % (p, ty),
                        _cmp_model(fn, conv, ty.endswith("64"))))
    return out


def fclass(v, ebits, mbits):
    """The class bit of v_cmp_class: 0 signalling NaN, 1 quiet NaN, 2 -inf,
    3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf.
    Denormals are classified as such whatever the denormal mode."""
    m = v & ((1 << mbits) - 1)
    e = (v >> mbits) & ((1 << ebits) - 1)
    neg = (v >> (mbits + ebits)) & 1
    if e == (1 << ebits) - 1:
        if m:
            return 1 if m >> (mbits - 1) else 0
        return 2 if neg else 9
    if e == 0:
        k = 4 if m else 5
    else:
        k = 3
    return k if neg else 11 - k


CLASS = [("v_cmp_class_f32", lambda a, b, c: (c >> fclass(a, 8, 23)) & 1),
         ("v_cmp_class_f16",
          lambda a, b, c: (c >> fclass(a & 0xFFFF, 5, 10)) & 1),
         ("v_cmp_class_f64",
          lambda a, b, c: (c >> fclass((a << 32) | b, 11, 52)) & 1)]
CMPS = cmp_ops() + CLASS
# e32 writes VCC, e64 an SGPR pair; either mask becomes 0/1 per lane.
CMP_E32 = ("%s_e32 vcc, $1, $2\\0As_nop 4\\0Av_cndmask_b32_e64 $0, 0, 1, vcc",
           ",~{vcc}")
CMP_E64 = ("%s_e64 s[10:11], $1, $2\\0As_nop 4\\0Av_cndmask_b32_e64 $0, 0, 1, "
           "s[10:11]", ",~{s10},~{s11}")


# cmpx also writes EXEC: saved before, read back as the mask, restored.
CMPX_E32 = ("s_mov_b64 s[12:13], exec\\0As_nop 7\\0A%s_e32 vcc, $1, $2\\0As_nop 4\\0A"
            "s_mov_b64 s[10:11], exec\\0As_mov_b64 exec, s[12:13]\\0A"
            "v_cndmask_b32_e64 $0, 0, 1, s[10:11]",
            ",~{vcc},~{s10},~{s11},~{s12},~{s13}")
CMPX_E64 = ("s_mov_b64 s[12:13], exec\\0As_nop 7\\0A%s_e64 s[14:15], $1, $2\\0As_nop 4\\0A"
            "s_mov_b64 s[10:11], exec\\0As_mov_b64 exec, s[12:13]\\0A"
            "v_cndmask_b32_e64 $0, 0, 1, s[10:11]",
            ",~{s10},~{s11},~{s12},~{s13},~{s14},~{s15}")


def forms():
    """(asm mnemonic, model name) for each instruction in the kernel: the
    e32 form where it exists, and the e64 (VOP3) form of every op."""
    out = []
    for name, _ in CMPS:
        for tmpl, clob in (CMP_E32, CMP_E64):
            out.append((tmpl % name, name, 2, clob))
        x = name.replace("v_cmp_", "v_cmpx_")
        for tmpl, clob in (CMPX_E32, CMPX_E64):
            out.append((tmpl % x, x, 2, clob))
    for name, nsrc, _ in OPS:
        if name not in VOP3_ONLY:
            asm = name + "_e32" if nsrc < 3 else name
            out.append((asm + " " + ops_text(nsrc), name, nsrc, ""))
        asm = name + "_e64" if name not in VOP3_ONLY else name
        out.append((asm + " " + ops_text(nsrc), name, nsrc, ""))
    return out


def ops_text(nsrc):
    return ", ".join("$%d" % j for j in range(nsrc + 1))


def kernel_ir(fs):
    lines = ['target triple = "amdgcn-amd-amdhsa"',
             "declare i32 @llvm.amdgcn.workitem.id.x()",
             "declare i32 @llvm.amdgcn.workgroup.id.x()",
             "define amdgpu_kernel void @k(ptr addrspace(1) %out, "
             "ptr addrspace(1) %pa, ptr addrspace(1) %pb, "
             "ptr addrspace(1) %pc) #0 {",
             "  %tid = call i32 @llvm.amdgcn.workitem.id.x()",
             "  %grp = call i32 @llvm.amdgcn.workgroup.id.x()",
             "  %g64 = mul i32 %grp, 64",
             "  %i = add i32 %g64, %tid"]
    for o in "abc":
        lines.append("  %%g%s = getelementptr i32, ptr addrspace(1) %%p%s, "
                     "i32 %%i" % (o, o))
        lines.append("  %%%s = load volatile i32, ptr addrspace(1) %%g%s"
                     % (o, o))
    lines += ["  %ha = zext i32 %a to i64", "  %hb = zext i32 %b to i64",
              "  %hc = zext i32 %c to i64", "  %ha2 = shl i64 %ha, 32",
              "  %hc2 = shl i64 %hc, 32", "  %x64 = or i64 %ha2, %hb",
              "  %y64 = or i64 %hc2, %ha"]
    for k, (asm, name, nsrc, clob) in enumerate(fs):
        cons = ",".join(["=v"] + ["v"] * nsrc) + clob
        if name.endswith("class_f64"):
            args = "i64 %x64, i32 %c"
        elif "class" in name:
            args = "i32 %a, i32 %c"
        elif name.endswith("64"):
            args = "i64 %x64, i64 %y64"
        else:
            args = ", ".join("i32 %%%s" % "abc"[j] for j in range(nsrc))
        if "s_nop 7" not in asm:
            asm = "s_nop 7\\0A" + asm
        lines.append('  %%r%d = call i32 asm sideeffect "%s", "%s"(%s)'
                     % (k, asm, cons, args))
        lines.append("  %%s%d = add i32 %%i, %d" % (k, k * N))
        lines.append("  %%q%d = getelementptr i32, ptr addrspace(1) %%out, "
                     "i32 %%s%d" % (k, k))
        lines.append("  store volatile i32 %%r%d, ptr addrspace(1) %%q%d"
                     % (k, k))
    lines += ["  ret void", "}",
              'attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }']
    return "\n".join(lines) + "\n"


def spec(nout):
    return "\n".join([
        "asmevo-launch: 1", "buffers:",
        "  out: {type: u32, count: %d, role: out}" % (nout * N),
        "  pa: {type: u32, count: %d, role: in}" % N,
        "  pb: {type: u32, count: %d, role: in}" % N,
        "  pc: {type: u32, count: %d, role: in}" % N,
        "kernel: k", "grid: [%d]" % (N // 64), "block: [64]",
        "args: [out, pa, pb, pc]"]) + "\n"


def mc_base(mc):
    """V_ADD_U32_e32 -> v_add_u32 (the modelled name), and its form."""
    n = strip_subtarget(mc)
    for enc in ("_e32", "_e64", "_opsel"):
        if n.endswith(enc):
            return n[:-len(enc)].lower(), n
    return n.lower(), n


def main():
    args = harness.arguments()
    fs = forms()
    lanes = inputs(args.seed)
    for j, o in enumerate("abc"):
        with open(os.path.join(args.work, "p%s.bin" % o), "wb") as f:
            f.write(struct.pack("<%dI" % N, *[t[j] for t in lanes]))
    with open(os.path.join(args.work, "spec.yaml"), "w") as f:
        f.write(spec(len(fs)))
    ll = os.path.join(args.work, "k.ll")
    co = os.path.join(args.work, "k.co")
    with open(ll, "w") as f:
        f.write(kernel_ir(fs))
    run([args.clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=" + args.arch,
         "-O1", "-nogpulib", ll, "-o", co], "clang")
    od = os.path.join(args.work, "out")
    cmd = [os.path.join(args.bin, "asmevo-verify"), "run", co, "--spec",
           os.path.join(args.work, "spec.yaml"), "--output-dir", od]
    for o in "abc":
        cmd += ["--input", "p%s=%s" % (o, os.path.join(args.work,
                                                      "p%s.bin" % o))]
    txt = run(cmd, "asmevo-verify run")
    if "result: clean" not in txt:
        raise RuntimeError("run not clean:\n" + txt)
    with open(os.path.join(od, "out.bin"), "rb") as f:
        out = struct.unpack("<%dI" % (N * len(fs)), f.read())
    # Which MC opcode each inline-asm instruction became: the kernel's
    # modelled instructions, in program order, one per form.
    models = {n: m for n, _, m in OPS}
    models.update(CMPS)
    models.update((n.replace("v_cmp_", "v_cmpx_"), m) for n, m in CMPS)
    # Each one follows the s_nop 7 its inline assembly puts before it.
    mcs = mc_opcodes(args, co)
    seq = [mc_base(m) for p, m in zip(mcs, mcs[1:])
           if p.startswith("S_NOP")]
    seq = [(b, n) for b, n in seq if b in models]
    if len(seq) != len(fs):
        raise RuntimeError("%d modelled instructions in the kernel, %d "
                           "emitted" % (len(seq), len(fs)))
    tested, failed = set(), set()
    for k, ((asm, name, _, _), (base, mc)) in enumerate(zip(fs, seq)):
        if base != name:
            raise RuntimeError("instruction %d is %s, expected %s"
                               % (k, mc, name))
        bad = []
        for n, (a, b, c) in enumerate(lanes):
            want = models[name](a, b, c)
            got = out[k * N + n]
            if got != want:
                bad.append((n, a, b, c, got, want))
        if bad:
            failed.add(mc)
            print("FAIL %s %s (%s): %d of %d lanes differ" % (
                args.arch, asm, mc, len(bad), N))
            for n, a, b, c, got, want in bad[:4]:
                print("  lane %d: a=%#010x b=%#010x c=%#010x emulator=%#010x "
                      "model=%#010x" % (n, a, b, c, got, want))
        else:
            tested.add(mc)
            print("ok %s %s: %d lanes" % (args.arch, mc, N))
    return harness.finish(args, len(fs), tested, failed)


if __name__ == "__main__":
    sys.exit(main())

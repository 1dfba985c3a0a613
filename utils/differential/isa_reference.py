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
import argparse
import os
import random
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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
    ("v_mov_b32", 1, lambda a, b, c: a),
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
         0x7F800000, 0xFF7FFFFF, 0x00000100, 0xDEADBEEF, 0x12345678]


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


def forms():
    """(asm mnemonic, model name) for each instruction in the kernel: the
    e32 form where it exists, and the e64 (VOP3) form of every op."""
    out = []
    for name, nsrc, _ in OPS:
        if name not in VOP3_ONLY:
            out.append((name + "_e32" if nsrc < 3 else name, name, nsrc))
        if name != "v_mov_b32" or True:
            out.append((name + "_e64" if name not in VOP3_ONLY else name,
                        name, nsrc))
    return out


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
    for k, (asm, _, nsrc) in enumerate(fs):
        ops = ", ".join("$%d" % j for j in range(nsrc + 1))
        cons = ",".join(["=v"] + ["v"] * nsrc)
        args = ", ".join("i32 %%%s" % "abc"[j] for j in range(nsrc))
        lines.append('  %%r%d = call i32 asm sideeffect "s_nop 7\\0A%s %s", "%s"(%s)'
                     % (k, asm, ops, cons, args))
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
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--write-tested")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
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
    # Each one follows the s_nop 7 its inline assembly puts before it.
    mcs = mc_opcodes(args, co)
    seq = [mc_base(m) for p, m in zip(mcs, mcs[1:])
           if p.startswith("S_NOP")]
    seq = [(b, n) for b, n in seq if b in models]
    if len(seq) != len(fs):
        raise RuntimeError("%d modelled instructions in the kernel, %d "
                           "emitted" % (len(seq), len(fs)))
    tested, failed = set(), set()
    for k, ((asm, name, _), (base, mc)) in enumerate(zip(fs, seq)):
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
    tested -= failed
    print("%s: %d instructions, %d opcodes tested, %d failed" % (
        args.arch, len(fs), len(tested), len(failed)))
    if args.write_tested:
        with open(args.write_tested, "w") as f:
            f.write("".join(t + "\n" for t in sorted(tested)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A reference model of documented AMD GPU (GFX9 / CDNA) memory
instructions, and a differential run of the emulator against it.

The model is written from the instruction descriptions and the addressing
chapters of AMD's CDNA3 ISA reference guide ("Vector Memory Buffer
Instructions": buffer addressing and range checking; "Flat Memory
Instructions": global/flat/scratch addressing; "Data Share Operations":
DS addressing, read2/write2, swizzle, permute; the atomic opcode tables)
and LLVM's description of the GFX9 LDS DMA operations, not from the
emulator's source, so the two can disagree. It keeps its own model of the
buffers (global memory, each lane's private memory, each workgroup's LDS)
and applies every instruction to it in program order.

One kernel per group (flat+global, scratch, buffer, DS) and target: every
instruction is emitted through inline assembly (so the opcode, the
addressing mode and the offsets are fixed), preceded by `s_nop 7` as a
marker and followed by a wait. The values it returns are stored to an
output buffer; global memory is an `inout` buffer compared whole; private
memory is read back (16 bytes around each scratch store) and LDS is
written before and read back after every DS instruction (32 bytes per
lane, the whole region). Each global instruction works on its own 4 KiB
region, every lane on its own 16-byte slot in it (lanes are mapped to
slots by a random permutation), so no two lanes touch the same bytes and
atomics have no order to depend on. Inputs are random words plus edge
values; atomic operands are chosen so that about half the lanes compare
equal (cmpswap, cmpst), hit inc/dec's wrap-around or differ by one; float
atomics see only normal numbers (friendly_word).

The format-buffer group (buffer_*_format_*, tbuffer_*_format_*) models
the typed conversions from the documented rules: the data format (from
the descriptor's DATA_FORMAT/NUM_FORMAT for MUBUF, from the instruction's
format field for MTBUF, in LLVM's GFX9 numbering) gives the component
size and count, components lie X first, little-endian; uint/sint extend,
uscaled/sscaled convert the integer to float (exact at these widths),
float16 widens to float32, 32-bit uint/sint/float are the bits; d16
forms keep 16 bits per component, two per register; components the
format lacks read as (0, 0, 0, 1); d16_x and d16_xyz keep bits 31:16 of
their last register (the guide's pseudocode). Stores write the registers'
bits (32-bit components, or d16 halves to 16-bit components), only the
instruction's channels (d16_xyz into 16_16_16_16 leaves W). Not tested
(the emulator refuses them): unorm/snorm, the packed 10/11/2-bit
formats, narrowing or rounding stores, float16 NaN loads, out-of-range
format lanes, DST_SEL other than X,Y,Z,W.

LDS DMA (buffer_load_{ubyte,sbyte,ushort,sshort,dword,format_x} ... lds,
global_load_lds_*, scratch_load_lds_*, every addressing mode): lane l's
return dword -- what the VGPR form returns, bytes and shorts extended,
format_x converted, 0 out of range -- at M0 + instruction offset + 4 * l
(CDNA3/CDNA4 guide 9.1.9 and 10.3). ds_append / ds_consume: the LDS dword
at the offset +/- popcount(EXEC), the old value to every active lane;
ds_condxchg32_rtn_b64 and ds_read/write_addtid_b32 from the guide's
pseudocode.

What the guide leaves open is not tested: unaligned dword accesses,
accesses that straddle num_records inside a dword, the structured-buffer
range check (index vs. bytes: idxen cases stay in range), soffset in
range checks (soffset is 0 on every out-of-range case), the value an
out-of-range atomic returns, float atomics on NaN, denormal or
signed-zero inputs (signed zeros only in ds_cmpst_f32/f64), LDS DMA
instruction offsets that are not multiples of 4 (they misalign the LDS
address), ds_append/consume with GDS (these targets have none).

The MC opcodes that follow a marker (named by LLVM's disassembler,
`llvm-mc -show-inst`) and pass on every lane, with every byte of memory
they change matching, are written with --write-tested: the list
`asmevo-verify coverage --tested` reads. An opcode used by several cases
is tested only if all of them pass.

Usage: mem_reference.py --clang CLANG --mc LLVM-MC --bin BUILD/bin
                        --arch gfx942 --work DIR [--write-tested FILE]
"""
import os
import random
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from constfold import run, strip_subtarget  # noqa: E402

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1
N = 256            # lanes: 4 workgroups of one wave
SLOTS = 256        # 16-byte slots per region
REGION = SLOTS * 16
LW = 32            # input words per lane
OUTW = 4           # result dwords per lane per instruction
LDSW = 8           # LDS dwords read back per lane per DS instruction
PRIV = 256         # private bytes per lane the kernel uses
BIGNR = 0x7FFF0000  # num_records that keeps every lane in range


def sext(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


# ----------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------

def friendly_word(rnd):
    """A dword that is a normal number however it is read: as f32 (exponent
    100..154), its halves as f16 (exponents 11..29) and bf16, and as the
    high word of an f64. Sums of two of them are normal or infinite, never
    denormal or NaN, so float atomics need no flush or NaN rules."""
    hi = (rnd.getrandbits(1) << 15) | (rnd.randrange(100, 155) << 7) | \
        rnd.getrandbits(7)
    lo = (rnd.getrandbits(1) << 15) | (rnd.randrange(11, 30) << 10) | \
        rnd.getrandbits(10)
    return (hi << 16) | lo


EDGES = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF,
         0x80000000, 0x80000001, M32, 0xFFFFFFFE, 0x00FF00FF, 0xDEADBEEF]


def f32val(v):
    return struct.unpack("<f", struct.pack("<I", v & M32))[0]


def f32bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64val(v):
    return struct.unpack("<d", struct.pack("<Q", v & M64))[0]


def f64bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def f16val(v):
    return struct.unpack("<e", struct.pack("<H", v & 0xFFFF))[0]


def f16bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def bf16val(v):
    return f32val((v & 0xFFFF) << 16)


def bf16bits(x):
    """Round to bf16, nearest even (the inputs keep the result finite or
    infinite, never NaN)."""
    b = f32bits(x)  # f32 rounding first is exact for sums of two bf16
    r = b + 0x7FFF + ((b >> 16) & 1)
    return (r >> 16) & 0xFFFF


# The sum of two f32 (f16, bf16) values rounded once to a double and then
# to f32 equals the single rounding: 53 >= 2 * 24 + 2.
def fadd32(a, b):
    return f32bits(f32val(a) + f32val(b))


def pk_add(a, b, val, bits):
    lo = bits(val(a & 0xFFFF) + val(b & 0xFFFF))
    hi = bits(val(a >> 16) + val(b >> 16))
    return lo | (hi << 16)


def fmin64(a, b):
    return f64bits(min(f64val(a), f64val(b)))


def fmax64(a, b):
    return f64bits(max(f64val(a), f64val(b)))


def atomic(op, old, src, cmp, wide):
    """The new memory value of the atomic opcode tables (tmp = MEM[ADDR];
    MEM[ADDR] = ...; RETURN_DATA = tmp)."""
    bits = 64 if wide else 32
    m = (1 << bits) - 1
    s = lambda v: sext(v, bits)  # noqa: E731
    if op == "swap":
        return src
    if op in ("cmpswap", "cmpst"):
        return src if old == cmp else old
    if op == "cmpst_f32":  # a float compare: -0 == +0
        return src if f32val(old) == f32val(cmp) else old
    if op == "cmpst_f64":
        return src if f64val(old) == f64val(cmp) else old
    if op == "add":
        return (old + src) & m
    if op == "sub":
        return (old - src) & m
    if op == "rsub":
        return (src - old) & m
    if op == "smin":
        return old if s(old) < s(src) else src
    if op == "smax":
        return old if s(old) > s(src) else src
    if op == "umin":
        return min(old, src)
    if op == "umax":
        return max(old, src)
    if op == "and":
        return old & src
    if op == "or":
        return old | src
    if op == "xor":
        return old ^ src
    if op == "mskor":
        return (old & ~cmp & m) | src
    if op == "wrap":  # ds_wrap_rtn_b32: cmp = DATA, src = DATA2
        return (old - cmp) & m if old >= cmp else (old + src) & m
    if op == "inc":
        return 0 if old >= src else (old + 1) & m
    if op == "dec":
        return src if old == 0 or old > src else (old - 1) & m
    if op == "add_f32":
        return fadd32(old, src)
    if op == "pk_add_f16":
        return pk_add(old, src, f16val, f16bits)
    if op == "pk_add_bf16":
        return pk_add(old, src, bf16val, bf16bits)
    if op == "add_f64":
        return f64bits(f64val(old) + f64val(src))
    if op == "min_f64":
        return fmin64(old, src)
    if op == "max_f64":
        return fmax64(old, src)
    if op == "min_f32":
        return f32bits(min(f32val(old), f32val(src)))
    if op == "max_f32":
        return f32bits(max(f32val(old), f32val(src)))
    raise ValueError(op)


FLOAT_OPS = {"add_f32", "pk_add_f16", "pk_add_bf16", "add_f64", "min_f64",
             "max_f64", "min_f32", "max_f32"}


# ----------------------------------------------------------------------
# Element kinds
# ----------------------------------------------------------------------

# suffix: (bytes, dwords, signed, d16) with d16 1 = low half, 2 = high half.
LOADS = {
    "ubyte": (1, 1, False, 0), "sbyte": (1, 1, True, 0),
    "ushort": (2, 1, False, 0), "sshort": (2, 1, True, 0),
    "dword": (4, 1, False, 0), "dwordx2": (4, 2, False, 0),
    "dwordx3": (4, 3, False, 0), "dwordx4": (4, 4, False, 0),
    "ubyte_d16": (1, 1, False, 1), "ubyte_d16_hi": (1, 1, False, 2),
    "sbyte_d16": (1, 1, True, 1), "sbyte_d16_hi": (1, 1, True, 2),
    "short_d16": (2, 1, False, 1), "short_d16_hi": (2, 1, False, 2),
}
STORES = {
    "byte": (1, 1, False, 0), "short": (2, 1, False, 0),
    "byte_d16_hi": (1, 1, False, 2), "short_d16_hi": (2, 1, False, 2),
    "dword": (4, 1, False, 0), "dwordx2": (4, 2, False, 0),
    "dwordx3": (4, 3, False, 0), "dwordx4": (4, 4, False, 0),
}
# DS names of the same element kinds.
DS_LOADS = {
    "u8": "ubyte", "i8": "sbyte", "u16": "ushort", "i16": "sshort",
    "b32": "dword", "b64": "dwordx2", "b96": "dwordx3", "b128": "dwordx4",
    "u8_d16": "ubyte_d16", "u8_d16_hi": "ubyte_d16_hi",
    "i8_d16": "sbyte_d16", "i8_d16_hi": "sbyte_d16_hi",
    "u16_d16": "short_d16", "u16_d16_hi": "short_d16_hi",
}
DS_STORES = {
    "b8": "byte", "b16": "short", "b8_d16_hi": "byte_d16_hi",
    "b16_d16_hi": "short_d16_hi", "b32": "dword", "b64": "dwordx2",
    "b96": "dwordx3", "b128": "dwordx4",
}
VMEM_ATOMICS = ["swap", "cmpswap", "add", "sub", "smin", "umin", "smax",
                "umax", "and", "or", "xor", "inc", "dec"]


def load_value(data, elem, init):
    """The register value a load of \\p data (bytes) leaves, from the
    register's previous value \\p init (d16 forms keep the other half)."""
    nb, nd, signed, d16 = elem
    if nb == 4:
        return [int.from_bytes(data[4 * j:4 * j + 4], "little")
                for j in range(nd)]
    v = int.from_bytes(data[:nb], "little")
    if signed:
        v = sext(v, 8 * nb)
    if d16 == 1:
        return [(init[0] & 0xFFFF0000) | (v & 0xFFFF)]
    if d16 == 2:
        return [(init[0] & 0xFFFF) | ((v & 0xFFFF) << 16)]
    return [v & M32]


def store_bytes(elem, data):
    nb, nd, _, d16 = elem
    if nb == 4:
        return b"".join(struct.pack("<I", data[j]) for j in range(nd))
    v = data[0] >> 16 if d16 == 2 else data[0]
    return struct.pack("<I", v & M32)[:nb]


def elem_size(elem):
    return elem[0] * elem[1] if elem[0] == 4 else elem[0]


# ----------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------

class Case:
    """One instruction under test.

    fam: global | flat | scratch | buffer | ds | dslane | lds_dma
    kind: load | store | atomic | lane
    """

    def __init__(self, fam, mnem, kind, **kw):
        self.fam, self.mnem, self.kind = fam, mnem, kind
        self.elem = kw.get("elem")
        self.aop = kw.get("aop")
        self.wide = kw.get("wide", False)
        self.rtn = kw.get("rtn", False)
        self.mode = kw.get("mode", "vaddr")
        self.imm = kw.get("imm", 0)
        self.nr = kw.get("nr", BIGNR)
        self.soff = kw.get("soff", 0)
        self.agpr = kw.get("agpr", False)
        self.extra = kw  # family-specific fields
        self.index = -1
        self.text = ""

    def result_dwords(self):
        if self.fam == "dsx":
            return self.extra["nres"]
        if self.extra.get("fmt") and self.kind == "load":
            return self.extra["regs"]
        if self.fam == "ds" and self.extra.get("two"):
            return 2 * self.elem[1] if self.extra.get("read") else 0
        if self.fam == "scratch" and self.kind == "store":
            return 4  # the 16 bytes around the target, read back
        if self.kind == "load":
            return self.elem[1]
        if self.kind == "atomic":
            return (2 if self.wide else 1) if self.rtn else 0
        if self.kind == "lane":
            return 1
        if self.fam == "ds" and self.extra.get("two"):
            return 2 * self.elem[1] if self.extra.get("read") else 0
        return 0

    def data_bytes(self):
        if self.kind == "atomic":
            return 8 if self.wide else 4
        return elem_size(self.elem)


def lane_target(case, i, lin):
    """Byte offset of lane i's access in the case's region (global), in its
    private memory (scratch) or in its workgroup's LDS (ds)."""
    slot, sub = lin[i][12], lin[i][13]
    if case.kind == "atomic":
        adj = 0
    elif case.elem[0] == 1:
        adj = sub
    elif case.elem[0] == 2:
        adj = sub & 2
    else:
        adj = 0
    return slot + adj


def region_word(k, j, P, key, mask=M32):
    return ((P[j % len(P)] + key) & M32) & mask


def region_mask(case):
    """Float16 format loads see no Inf/NaN halves (exponent MSB clear):
    their conversion of a NaN is not documented."""
    f = case.extra.get("fmt")
    if f and case.kind == "load" and not case.extra.get("d16") and \
            not case.extra.get("nanok") and f[0] in DFMTS and \
            f[1] == NFLOAT and DFMTS[f[0]][0] == 16:
        return 0xBFFFBFFF
    return M32


def keyof(case):
    # Float atomics see the friendly words themselves.
    if case.kind == "atomic" and case.aop in FLOAT_OPS:
        return 0
    return (case.index * 0x9E3779B1 + 0x1234567) & M32


# ----------------------------------------------------------------------
# Inline assembly and IR
# ----------------------------------------------------------------------

def vty(n):
    return "i32" if n == 1 else "<%d x i32>" % n


def sc0(arch):
    return "sc0" if arch == "gfx942" else "glc"


class Emitter:
    def __init__(self, arch):
        self.arch = arch
        self.lines = []
        self.n = 0

    def tmp(self):
        self.n += 1
        return "%%t%d" % self.n

    def emit(self, s):
        self.lines.append("  " + s)

    def vec(self, words):
        """An <n x i32> (or i32) value of lane words (IR values)."""
        if len(words) == 1:
            return words[0]
        cur = "undef"
        for j, w in enumerate(words):
            t = self.tmp()
            self.emit("%s = insertelement <%d x i32> %s, i32 %s, i32 %d"
                      % (t, len(words), cur, w, j))
            cur = t
        return cur

    def addk(self, w, key):
        if key == 0:
            return w
        t = self.tmp()
        self.emit("%s = add i32 %s, %d" % (t, w, sext(key, 32)))
        return t

    def add(self, a, b):
        t = self.tmp()
        self.emit("%s = add i32 %s, %s" % (t, a, b))
        return t

    def extract(self, v, n, j):
        if n == 1:
            return v
        t = self.tmp()
        self.emit("%s = extractelement <%d x i32> %s, i32 %d" % (t, n, v, j))
        return t


def asm_call(em, text, outs, ins, clobbers="", case=None):
    """outs: list of (constraint, type); ins: list of (constraint, type,
    value). Returns the result value (struct members extracted)."""
    cons = [c for c, _ in outs] + [c for c, _, _ in ins]
    if case is not None:
        case.opnds = [(c, t) for c, t in outs] + [(c, t) for c, t, _ in ins]
    cstr = ",".join(cons) + clobbers
    args = ", ".join("%s %s" % (t, v) for _, t, v in ins)
    text = text.replace("\n", "\\0A")
    if not outs:
        em.emit('call void asm sideeffect "%s", "%s"(%s)' % (text, cstr, args))
        return []
    if len(outs) == 1:
        t = em.tmp()
        em.emit('%s = call %s asm sideeffect "%s", "%s"(%s)'
                % (t, outs[0][1], text, cstr, args))
        return [t]
    st = "{" + ", ".join(t for _, t in outs) + "}"
    t = em.tmp()
    em.emit('%s = call %s asm sideeffect "%s", "%s"(%s)'
            % (t, st, text, cstr, args))
    res = []
    for j in range(len(outs)):
        r = em.tmp()
        em.emit("%s = extractvalue %s %s, %d" % (r, st, t, j))
        res.append(r)
    return res


# The wait, and a wait state for the VALU write of store data that the
# compiler's code may do next (it cannot see into the inline assembly).
WAIT = "\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_nop 1"


def gen_case(em, c, arch, L):
    """Emits case c; returns the result value and its dword count (to be
    stored to the output), and an optional LDS read-back value."""
    if c.fam in ("ds", "dslane", "ldsdma", "dsx"):
        return gen_ds(em, c, arch, L)
    k = c.index
    key = keyof(c)
    rb = em.tmp()
    em.emit("%s = getelementptr i8, ptr addrspace(1) %%mem, i64 %d"
            % (rb, k * REGION))
    nres = c.result_dwords()
    init = [L["w%d" % (8 + j)] for j in range(4)]
    # Data operands.
    if c.kind == "atomic":
        if c.aop in FLOAT_OPS:
            src = [L["w24"], L["w25"]] if c.wide else [L["w24"]]
        else:
            src = [em.addk(L["w0"], key)] + (
                [em.addk(L["w1"], key)] if c.wide else [])
        cmp = []
        if c.aop in ("cmpswap", "cmpst", "mskor"):
            if c.aop == "mskor":
                cmp = [L["w4"]]
            else:
                cmp = [em.addk(L["w4"], key)] + (
                    [em.addk(L["w5"], key)] if c.wide else [])
        data_words = src + cmp
    elif c.kind == "store":
        data_words = [L["w%d" % (8 + j)] for j in range(c.elem[1])]
    else:
        data_words = []
    t_off = L["tb"] if (c.kind != "atomic" and c.elem[0] == 1) else \
        L["ts"] if (c.kind != "atomic" and c.elem[0] == 2) else L["slot"]
    if c.fam in ("global", "flat"):
        return gen_flat(em, c, arch, rb, t_off, data_words, init, nres)
    if c.fam == "scratch":
        p_off = L["ptb"] if c.elem[0] == 1 else \
            L["pts"] if c.elem[0] == 2 else L["pslot"]
        return gen_scratch(em, c, arch, p_off, data_words, init, nres, L)
    if c.fam == "buffer":
        return gen_buffer(em, c, arch, rb, t_off, data_words, init, nres, L)
    raise ValueError(c.fam)


def cache_bits(c, arch):
    return " " + sc0(arch) if (c.kind == "atomic" and c.rtn) else ""


def gen_flat(em, c, arch, rb, t_off, data, init, nres):
    """GLOBAL (vaddr 64-bit, or saddr + 32-bit voffset) and FLAT (64-bit
    address; global memory here): address = base + offset."""
    ins, outs = [], []
    o = 1 if nres else 0
    if c.mode == "saddr":
        # The VGPR offset is unsigned: the SGPR base is 4 KiB below the
        # region so that negative instruction offsets need no negative
        # VGPR offset.
        sb = em.tmp()
        em.emit("%s = getelementptr i8, ptr addrspace(1) %s, i64 -4096"
                % (sb, rb))
        ins.append(("v", "i32", em.add(t_off, str(4096 - c.imm))))
        ins.append(("s", "ptr addrspace(1)", sb))
        addr, sbase = "$%d" % o, ", $%d" % (o + 1)
    else:
        tgt = em.tmp()
        em.emit("%s = getelementptr i8, ptr addrspace(1) %s, i32 %s"
                % (tgt, rb, t_off))
        va = em.tmp()
        em.emit("%s = getelementptr i8, ptr addrspace(1) %s, i64 %d"
                % (va, tgt, -c.imm))
        ins.append(("v", "ptr addrspace(1)", va))
        addr, sbase = "$%d" % o, ", off"
    if c.fam == "flat":
        sbase = ""
    offs = " offset:%d" % c.imm if c.imm else ""
    if c.kind == "load":
        outs.append(("=v", vty(c.elem[1])))
        ins.append(("0", vty(c.elem[1]), em.vec(init[:c.elem[1]])))
        text = "%s $0, %s%s%s" % (c.mnem, addr, sbase, offs)
    else:
        dv = "$%d" % (o + len(ins))
        ins.append(("v", vty(len(data)), em.vec(data)))
        if c.kind == "atomic" and c.rtn:
            outs.append(("=&v", vty(nres)))
            text = "%s $0, %s, %s%s%s" % (c.mnem, addr, dv, sbase, offs)
        else:
            text = "%s %s, %s%s%s" % (c.mnem, addr, dv, sbase, offs)
        text += cache_bits(c, arch)
    c.text = text
    res = asm_call(em, "s_nop 7\n" + text + WAIT, outs, ins, case=c)
    return (res[0] if res else None), nres, None


def gen_scratch(em, c, arch, t_off, data, init, nres, L):
    """Scratch: each lane's private memory. Modes: vaddr (address = vaddr
    + offset), saddr (saddr + offset), sv (vaddr + saddr + offset), st
    (offset only). The uniform modes put every lane at the same private
    offset, c.extra["ptgt"]."""
    outs, ins = [], []
    o = 1 if c.kind == "load" else 0
    mode = c.mode
    imm = c.imm
    if mode == "vaddr":
        va = em.add(t_off, str(PBASE_OFF - imm))
        ins.append(("v", "i32", va))
        addr = ["$%d" % o, "off"]
    elif mode == "saddr":
        ins.append(("s", "i32", str(c.extra["ptgt"] - imm)))
        addr = ["off", "$%d" % o]
    elif mode == "sv":
        va = em.add(t_off, str(PBASE_OFF - imm - c.extra["sval"]))
        ins.append(("v", "i32", va))
        ins.append(("s", "i32", str(c.extra["sval"])))
        addr = ["$%d" % o, "$%d" % (o + 1)]
    else:  # st
        imm = c.extra["ptgt"]
        addr = ["off", "off"]
    nxt = o + len(ins)
    offs = " offset:%d" % imm if imm else ""
    if c.kind == "load":
        outs.append(("=v", vty(c.elem[1])))
        ins.append(("0", vty(c.elem[1]), em.vec(init[:c.elem[1]])))
        text = "%s $0, %s, %s%s" % (c.mnem, addr[0], addr[1], offs)
    else:
        ins.append(("v", vty(len(data)), em.vec(data)))
        text = "%s %s, $%d, %s%s" % (c.mnem, addr[0], nxt, addr[1], offs)
    c.text = text
    res = asm_call(em, "s_nop 7\n" + text + WAIT, outs, ins, case=c)
    if c.kind == "store":
        # Read back the aligned 16 bytes the store went to.
        if mode in ("vaddr", "sv"):
            b = em.add(L["pslot"], str(PBASE_OFF))
            bi = em.tmp()
            em.emit("%s = lshr i32 %s, 2" % (bi, b))
        else:
            bi = str((c.extra["ptgt"] & ~15) // 4)
        ws = []
        for j in range(4):
            q = em.add(bi, str(j))
            g = em.tmp()
            em.emit("%s = getelementptr i32, ptr addrspace(5) %%priv, i32 %s"
                    % (g, q))
            v = em.tmp()
            em.emit("%s = load volatile i32, ptr addrspace(5) %s" % (v, g))
            ws.append(v)
        return em.vec(ws), 4, None
    return (res[0] if res else None), nres, None


def scratch_block(c, i, lin):
    if c.mode in ("vaddr", "sv"):
        return PBASE_OFF + (lin[i][12] & 112)
    return c.extra["ptgt"] & ~15


def gen_buffer(em, c, arch, rb, t_off, data, init, nres, L):
    """MUBUF: descriptor base = region - soffset - (idxen: imm), stride 16
    for idxen forms; num_records c.nr."""
    mode = c.mode  # offen | idxen | bothen | offset
    stride = 16 if mode in ("idxen", "bothen") else 0
    soff = c.soff
    ri = em.tmp()
    em.emit("%s = ptrtoint ptr addrspace(1) %s to i64" % (ri, rb))
    b = em.tmp()
    em.emit("%s = sub i64 %s, %d" % (b, ri, soff))
    lo, hi = em.tmp(), em.tmp()
    em.emit("%s = trunc i64 %s to i32" % (lo, b))
    t = em.tmp()
    em.emit("%s = lshr i64 %s, 32" % (t, b))
    em.emit("%s = trunc i64 %s to i32" % (hi, t))
    hi2 = em.tmp()
    em.emit("%s = or i32 %s, %d" % (hi2, hi, stride << 16))
    rs = em.vec([lo, hi2, str(sext(c.nr, 32)),
                 str(c.extra.get("w3", 0x00027000))])
    outs, ins = [], []
    offs = " offset:%d" % c.imm if c.imm else ""
    # Lane address parts.
    vs = []
    if mode == "offen":
        vs = [em.add(t_off, str(-c.imm))]
    elif mode == "idxen":
        vs = [L["slotidx"]]
    elif mode == "bothen":
        # voffset = target - slot - imm (the sub-dword part)
        d = em.tmp()
        em.emit("%s = sub i32 %s, %s" % (d, t_off, L["slot"]))
        vs = [L["slotidx"], em.add(d, str(-c.imm))]
    rtn = c.kind == "atomic" and c.rtn
    o = 1 if (c.kind == "load" or rtn) else 0
    # Operand order: [vdata], [vaddr], srsrc, soffset
    n = o
    if c.kind == "load":
        outs.append(("=v", vty(nres)))
        vd = "$0"
    elif rtn:
        # vdata is also the destination: as wide as the data.
        outs.append(("=v", vty(len(data))))
        vd = "$0"
    else:
        vd = "$%d" % n
        ins.append(("v", vty(len(data)), em.vec(data)))
        n += 1
    if vs:
        ins.append(("v", vty(len(vs)), em.vec(vs)))
        va = "$%d" % n
        n += 1
    else:
        va = "off"
    ins.append(("s", "<4 x i32>", rs))
    sr = "$%d" % n
    n += 1
    sval = str(soff)
    if mode == "offset" and c.kind != "load":
        sval = em.add(L["g16"], str(soff))
    if sval != "0":
        ins.append(("s", "i32", sval))
        so = "$%d" % n
        n += 1
    else:
        so = "0"
    if c.kind == "load":
        ins.append(("0", vty(nres), em.vec(init[:nres])))
    elif rtn:
        ins.append(("0", vty(len(data)), em.vec(data)))
    flags = {"offen": " offen", "idxen": " idxen", "bothen": " idxen offen",
             "offset": ""}[mode]
    if c.extra.get("typed"):
        so += " format:[BUF_DATA_FORMAT_%s,BUF_NUM_FORMAT_%s]" % (
            DFMT_NAMES[c.extra["fmt"][0]], NFMT_NAMES[c.extra["fmt"][1]])
    text = "%s %s, %s, %s, %s%s%s%s" % (c.mnem, vd, va, sr, so, flags, offs,
                                        cache_bits(c, arch))
    pre = ""
    post = ""
    clob = ""
    if mode == "offset" and c.kind != "load":
        # Every lane would hit the same address: only lane 0 of each wave.
        pre = "s_mov_b64 s[40:41], exec\ns_mov_b64 exec, 1\n"
        post = "\ns_mov_b64 exec, s[40:41]"
        clob = ",~{s40},~{s41}"
    c.text = text
    res = asm_call(em, pre + "s_nop 7\n" + text + WAIT + post, outs, ins,
                   clob, case=c)
    if rtn and nres < len(data):
        # The returned value occupies the first dwords of vdata.
        r = res[0]
        if nres == 1:
            r = em.extract(r, len(data), 0)
        else:
            r = em.vec([em.extract(r, len(data), j) for j in range(nres)])
        return r, nres, None
    return (res[0] if res else None), nres, None


# ----------------------------------------------------------------------
# Case lists
# ----------------------------------------------------------------------

def flat_cases(arch):
    out = []
    imms_g = [0, 8, -8, 4092, -4096]
    imms_f = [0, 8, 4092]
    for fam, imms in (("global", imms_g), ("flat", imms_f)):
        modes = ("vaddr", "saddr") if fam == "global" else ("vaddr",)
        for mode in modes:
            for j, (sfx, e) in enumerate(sorted(LOADS.items())):
                out.append(Case(fam, "%s_load_%s" % (fam, sfx), "load",
                                elem=e, mode=mode,
                                imm=imms[j % len(imms)]))
            for j, (sfx, e) in enumerate(sorted(STORES.items())):
                out.append(Case(fam, "%s_store_%s" % (fam, sfx), "store",
                                elem=e, mode=mode,
                                imm=imms[(j + 2) % len(imms)]))
            ats = [(a, w) for a in VMEM_ATOMICS for w in (False, True)]
            ats += [("add_f64", True), ("min_f64", True), ("max_f64", True)]
            if arch == "gfx942" or fam == "global":
                ats += [("add_f32", False), ("pk_add_f16", False)]
            if arch == "gfx942" or fam == "global":
                ats += [("pk_add_bf16", False)]
            for j, (a, w) in enumerate(ats):
                name = "%s_atomic_%s%s" % (fam, a, "_x2" if w and
                                           a not in FLOAT_OPS else "")
                for rtn in (False, True):
                    out.append(Case(fam, name, "atomic", aop=a, wide=w,
                                    rtn=rtn, mode=mode,
                                    imm=imms[(j + rtn) % len(imms)]))
    return out


def scratch_cases(arch):
    out = []
    modes = ["vaddr", "saddr"] + (["sv", "st"] if arch == "gfx942" else [])
    imms = [0, 8, -8, 32]
    for mode in modes:
        for j, (sfx, e) in enumerate(sorted(STORES.items())):
            out.append(Case("scratch", "scratch_store_%s" % sfx, "store",
                            elem=e, mode=mode, imm=imms[j % len(imms)]))
        for j, (sfx, e) in enumerate(sorted(LOADS.items())):
            out.append(Case("scratch", "scratch_load_%s" % sfx, "load",
                            elem=e, mode=mode, imm=imms[(j + 1) % len(imms)]))
    return out


def buffer_variants(mode, size, j, oob_ok):
    """(imm, soffset, num_records) of the j-th case of a mode. Inside a
    slot (idxen, offset-only) the offset keeps the access in the slot."""
    if mode == "offen":
        vs = [(0, 0, BIGNR), (12, 64, BIGNR), (2048, 0, BIGNR)]
    elif mode == "bothen":
        vs = [(0, 0, BIGNR), (0, 64, BIGNR)]
    else:
        al = min(size, 4)
        vs = [(imm, so, BIGNR) for imm in (0, 4, 8, 12) for so in (0, 64)
              if imm + size <= 16 and imm % al == 0]
    return vs[j % len(vs)]


def buffer_cases(arch):
    out = []
    for mode in ("offen", "idxen", "bothen", "offset"):
        def mk(name, kind, j, oob_ok=True, **kw):
            size = 8 if kw.get("wide") else 4 if kind == "atomic" else \
                elem_size(kw["elem"])
            imm, so, nr = buffer_variants(mode, size, j, False)
            out.append(Case("buffer", name, kind, mode=mode, imm=imm,
                            soff=so, nr=nr, **kw))
            if mode == "offen" and oob_ok:
                # Lanes past num_records (and, for x2..x4, one slot with
                # two dwords in range).
                out.append(Case("buffer", name, kind, mode=mode, imm=4 *
                                (j % 2) if size <= 4 else 0, soff=0,
                                nr=REGION - 16 * 37 - 8, **kw))
        for j, (sfx, e) in enumerate(sorted(LOADS.items())):
            mk("buffer_load_%s" % sfx, "load", j, elem=e)
        for j, (sfx, e) in enumerate(sorted(STORES.items())):
            mk("buffer_store_%s" % sfx, "store", j + 1, elem=e)
        ats = [(a, w) for a in VMEM_ATOMICS for w in (False, True)]
        ats += [("add_f64", True), ("min_f64", True), ("max_f64", True),
                ("add_f32", False), ("pk_add_f16", False)]
        for j, (a, w) in enumerate(ats):
            name = "buffer_atomic_%s%s" % (a, "_x2" if w and a not in
                                           FLOAT_OPS else "")
            for rtn in (False, True):
                # The value an out-of-range atomic returns is not
                # documented: only the non-returning forms go out of range.
                mk(name, "atomic", 2 * j + rtn, oob_ok=not rtn, aop=a,
                   wide=w, rtn=rtn)
    return out


# ----------------------------------------------------------------------
# Format (typed) buffers
# ----------------------------------------------------------------------
# LLVM's GFX9 numbering (AMDGPU::MTBUFFormat): dfmt -> (component bits,
# components); nfmt numbers.
DFMTS = {1: (8, 1), 2: (16, 1), 3: (8, 2), 4: (32, 1), 5: (16, 2),
         10: (8, 4), 11: (32, 2), 12: (16, 4), 13: (32, 3), 14: (32, 4)}
DFMT_NAMES = {1: "8", 2: "16", 3: "8_8", 4: "32", 5: "16_16", 10: "8_8_8_8",
              11: "32_32", 12: "16_16_16_16", 13: "32_32_32",
              14: "32_32_32_32"}
NUNORM, NSNORM, NUSCALED, NSSCALED, NUINT, NSINT, NFLOAT = 0, 1, 2, 3, 4, 5, 7
NFMT_NAMES = {NUNORM: "UNORM", NSNORM: "SNORM", NUSCALED: "USCALED",
              NSSCALED: "SSCALED", NUINT: "UINT", NSINT: "SINT",
              NFLOAT: "FLOAT"}
DST_SEL_XYZW = 4 | 5 << 3 | 6 << 6 | 7 << 9
# Loads into 32-bit components: every (dfmt, nfmt) whose conversion is
# exact; d16 loads: those exact in 16 bits.
FMT_LOADS = [(1, NUINT), (1, NSINT), (1, NUSCALED), (1, NSSCALED),
             (2, NUINT), (2, NSINT), (2, NUSCALED), (2, NSSCALED),
             (2, NFLOAT), (3, NUINT), (3, NSSCALED), (4, NUINT), (4, NSINT),
             (4, NFLOAT), (5, NSINT), (5, NUSCALED), (5, NFLOAT),
             (10, NUINT), (10, NSINT), (10, NUSCALED), (10, NSSCALED),
             (11, NUINT), (11, NFLOAT), (12, NSINT), (12, NFLOAT),
             (12, NSSCALED), (13, NUINT), (13, NFLOAT), (14, NSINT),
             (14, NFLOAT)]
FMT_D16_LOADS = [(1, NUINT), (1, NSINT), (1, NUSCALED), (1, NSSCALED),
                 (2, NUINT), (2, NSINT), (2, NFLOAT), (3, NSINT),
                 (3, NUSCALED), (5, NUINT), (5, NFLOAT), (10, NUINT),
                 (10, NSSCALED), (12, NFLOAT), (12, NSINT)]
# Stores: the format whose components are the registers (or d16 halves).
FMT_STORE_DFMT = {(1, False): 4, (2, False): 11, (3, False): 13,
                  (4, False): 14, (1, True): 2, (2, True): 5, (3, True): 12,
                  (4, True): 12}
FMT_COMPS = ["x", "xy", "xyz", "xyzw"]


def raw_elem(dfmt):
    """The untyped element of the format's bytes (its size, alignment)."""
    bits, n = DFMTS[dfmt]
    nb = bits // 8 * n
    return (nb, 1, False, 0) if nb < 4 else (4, nb // 4, False, 0)


def fmt_component(raw, bits, nfmt, d16):
    """One loaded component as the register holds it."""
    s = sext(raw, bits)
    if nfmt == NUINT:
        return raw & 0xFFFF if d16 else raw
    if nfmt == NSINT:
        return s & (0xFFFF if d16 else M32)
    if nfmt in (NUSCALED, NSSCALED):
        v = float(raw if nfmt == NUSCALED else s)
        return f16bits(v) if d16 else f32bits(v)
    if bits == 32 or d16:
        return raw
    return f32bits(f16val(raw))


def fmt_load(c, bts, init):
    dfmt, nfmt = c.extra["fmt"]
    bits, n = DFMTS[dfmt]
    d16, hi, comps = c.extra["d16"], c.extra["hi"], c.extra["comps"]
    one = 1 if nfmt in (NUINT, NSINT) else (0x3C00 if d16 else 0x3F800000)
    cs = []
    for k in range(4):
        if k >= n:
            cs.append(one if k == 3 else 0)
        else:
            raw = int.from_bytes(bts[k * bits // 8:(k + 1) * bits // 8],
                                 "little")
            cs.append(fmt_component(raw, bits, nfmt, d16))
    if hi:
        return [(init[0] & 0xFFFF) | (cs[0] << 16)]
    if d16:
        # d16_x / d16_xyz: the last register's high half is preserved
        # (the guide's pseudocode, "VDATA[31:16].b16 is preserved").
        return [cs[2 * j] | (cs[2 * j + 1] << 16 if 2 * j + 1 < comps
                             else init[j] & 0xFFFF0000)
                for j in range(c.extra["regs"])]
    return cs[:comps]


def fmt_store(c, data):
    """Stores write the registers' bits: 32-bit components, or the d16
    halves (the high half for d16_hi_x)."""
    dfmt = c.extra["fmt"][0]
    bits, n = DFMTS[dfmt]
    if c.extra["hi"]:
        return struct.pack("<H", data[0] >> 16)
    # Only the instruction's channels are written (ChannelOffsetX..):
    # d16_xyz into 16_16_16_16 leaves W alone.
    b = b"".join(struct.pack("<I", data[j]) for j in range(c.extra["regs"]))
    return b[:bits // 8 * min(n, c.extra["comps"])]


def fmtbuf_cases(arch):
    out = []
    ops = []
    for typed in (False, True):
        pre = "tbuffer" if typed else "buffer"
        for kind in ("load", "store"):
            for ci, cn in enumerate(FMT_COMPS):
                comps = ci + 1
                ops.append((kind, "%s_%s_format_%s" % (pre, kind, cn),
                            comps, False, False, typed))
                ops.append((kind, "%s_%s_format_d16_%s" % (pre, kind, cn),
                            comps, True, False, typed))
            if not typed:
                ops.append((kind, "buffer_%s_format_d16_hi_x" % kind,
                            1, True, True, False))
    j = 0
    for mode in ("offen", "idxen", "bothen", "offset"):
        for kind, mnem, comps, d16, hi, typed in ops:
            if kind == "load":
                lst = FMT_D16_LOADS if d16 else FMT_LOADS
                fmts = [lst[(3 * j + t) % len(lst)] for t in range(3)]
            else:
                dfmt = FMT_STORE_DFMT[(comps, d16)]
                fmts = [(dfmt, nf) for nf in (NUINT, NSINT, NFLOAT)]
                fmts = (fmts[j % 3:] + fmts[:j % 3])[:2]
            for t, (dfmt, nfmt) in enumerate(fmts):
                elem = raw_elem(dfmt)
                size = elem_size(elem)
                imm, so, nr = buffer_variants(mode, size, j + t, False)
                w3 = DST_SEL_XYZW | (0x27000 if typed else
                                     (nfmt << 12) | (dfmt << 15))
                regs = (comps + 1) // 2 if d16 else comps
                out.append(Case("buffer", mnem, kind, mode=mode, imm=imm,
                                soff=so, nr=nr, elem=elem, fmt=(dfmt, nfmt),
                                comps=comps, d16=d16, hi=hi, typed=typed,
                                regs=regs, w3=w3))
            j += 1
    return out


# ----------------------------------------------------------------------
# DS (LDS)
# ----------------------------------------------------------------------
# One wave per workgroup; each DS case is one block: every lane writes its
# 32 initial bytes at 32 * lane, the instruction runs, every lane reads its
# 32 bytes back (ds_write_b128 / ds_read_b128, outside the marker). So the
# model starts every case from the same LDS content and sees all of it.

DS_ATOMICS32 = [
    ("add_u32", "add"), ("sub_u32", "sub"), ("rsub_u32", "rsub"),
    ("inc_u32", "inc"), ("dec_u32", "dec"), ("min_i32", "smin"),
    ("max_i32", "smax"), ("min_u32", "umin"), ("max_u32", "umax"),
    ("and_b32", "and"), ("or_b32", "or"), ("xor_b32", "xor"),
    ("mskor_b32", "mskor"), ("cmpst_b32", "cmpst"),
    ("cmpst_f32", "cmpst_f32"), ("wrap_b32", "wrap"),
    ("add_f32", "add_f32"), ("min_f32", "min_f32"), ("max_f32", "max_f32"),
    ("pk_add_f16", "pk_add_f16"), ("pk_add_bf16", "pk_add_bf16"),
]
DS_ATOMICS64 = [
    ("add_u64", "add"), ("sub_u64", "sub"), ("inc_u64", "inc"),
    ("dec_u64", "dec"), ("min_i64", "smin"), ("max_i64", "smax"),
    ("min_u64", "umin"), ("max_u64", "umax"), ("and_b64", "and"),
    ("or_b64", "or"), ("xor_b64", "xor"), ("add_f64", "add_f64"),
    ("min_f64", "min_f64"), ("max_f64", "max_f64"),
    ("cmpst_b64", "cmpst"), ("cmpst_f64", "cmpst_f64"),
    ("mskor_b64", "mskor"), ("rsub_u64", "rsub"),
]
CMP_FORMS = ("cmpst", "mskor", "cmpst_f32", "cmpst_f64", "wrap")
# (offset field, exec mask) of the cross-lane cases.
SWIZZLES = [0x80E4, 0x801B, 0x8055, 0x80C6, 0x041F, 0x401F, 0x0078,
            0x7C00, 0x03E0, 0x1234, 0x2A5F, 0x7FFF, 0x0000]
PARTIAL = 0xF0F0FF00A5A5FFF7


def ds_cases(arch):
    out = []
    imms = [0, 8, 40, 1000]
    for j, (sfx, kind) in enumerate(sorted(DS_LOADS.items())):
        out.append(Case("ds", "ds_read_" + sfx, "load", elem=LOADS[kind],
                        imm=imms[j % 4]))
    for j, (sfx, kind) in enumerate(sorted(DS_STORES.items())):
        out.append(Case("ds", "ds_write_" + sfx, "store",
                        elem=STORES[kind], imm=imms[(j + 1) % 4]))
    for st64 in (False, True):
        for w in (1, 2):
            nm = "2st64" if st64 else "2"
            bits = "b32" if w == 1 else "b64"
            pairs = [(0, 1), (3, 1), (1, 2)] if w == 2 or st64 else \
                [(0, 1), (7, 2), (5, 6)]
            for o0, o1 in pairs:
                for rd in (True, False):
                    for ag in ((False, True) if not rd else (False,)):
                        out.append(Case(
                            "ds", "ds_%s%s_%s" % ("read" if rd else "write",
                                                  nm, bits),
                            "load" if rd else "store",
                            elem=(4, w, False, 0), two=True, read=rd,
                            st64=st64, o0=o0, o1=o1, agpr=ag))
                # ds_wrxchg2*_rtn: write2 that returns what read2 would.
                for ag in (False, True):
                    out.append(Case(
                        "ds", "ds_wrxchg%s_rtn_%s" % (nm, bits), "load",
                        elem=(4, w, False, 0), two=True, read=True,
                        xchg=True, st64=st64, o0=o0, o1=o1, agpr=ag))
    for wide, table in ((False, DS_ATOMICS32), (True, DS_ATOMICS64)):
        for j, (sfx, op) in enumerate(table):
            for rtn in (False, True):
                nm = "ds_" + sfx if not rtn else \
                    "ds_%s_rtn_%s" % tuple(sfx.rsplit("_", 1))
                ags = (False, True) if (rtn or op in CMP_FORMS) \
                    else (False,)
                for ag in ags:
                    out.append(Case("ds", nm, "atomic", aop=op, wide=wide,
                                    rtn=rtn, imm=imms[j % 4], agpr=ag))
    out.append(Case("ds", "ds_wrxchg_rtn_b32", "atomic", aop="swap",
                    rtn=True, imm=8))
    out.append(Case("ds", "ds_wrxchg_rtn_b32", "atomic", aop="swap",
                    rtn=True, imm=0, agpr=True))
    out.append(Case("ds", "ds_wrxchg_rtn_b64", "atomic", aop="swap",
                    wide=True, rtn=True, imm=16))
    out.append(Case("ds", "ds_wrxchg_rtn_b64", "atomic", aop="swap",
                    wide=True, rtn=True, imm=0, agpr=True))
    out.append(Case("ds", "ds_nop", "store", elem=None, nop="ds_nop"))
    # Cache maintenance changes no register and no memory value (emulated
    # memory is coherent); the assembler keeps the target's forms.
    for t in ("buffer_wbl2 sc1", "buffer_inv sc1", "buffer_wbl2",
              "buffer_wbinvl1", "buffer_wbinvl1_vol", "buffer_invl2"):
        out.append(Case("ds", t.split()[0], "store", elem=None, nop=t))
    for j, off in enumerate([0, 4, 256, 0xFFFC]):
        for nm in ("ds_bpermute_b32", "ds_permute_b32"):
            for ag in (False, True):
                out.append(Case("dslane", nm, "lane", imm=off, agpr=ag,
                                exec=PARTIAL if j % 2 else M64))
    # LDS DMA: buffer_load_<size> ... lds writes lane l's return dword
    # (bytes and shorts extended as the VGPR form would) at M0 +
    # inst_offset + 4 * l (M0 = the LDS region here).
    # Instruction offsets stay multiples of 4 (they move the LDS address
    # too); the sub-dword part of the memory address comes from the VGPR.
    dma_elems = [("dword", (0, 8)), ("ubyte", (0, 4)), ("sbyte", (4, 12)),
                 ("ushort", (0, 8)), ("sshort", (12, 4))]
    for sfx, imms in dma_elems:
        e = LOADS[sfx]
        for mode in ("offen", "idxen", "bothen", "offset"):
            for imm, nr in ((imms[0], BIGNR), (imms[1], BIGNR),
                            (imms[0], REGION - 16 * 37 - 8)):
                if nr != BIGNR and mode != "offen":
                    continue
                out.append(Case("ldsdma", "buffer_load_" + sfx, "dma",
                                elem=e, mode=mode, imm=imm, nr=nr, sfx=sfx))
    # buffer_load_format_x ... lds: the converted X component.
    for j, (dfmt, nfmt) in enumerate([(4, NUINT), (1, NSINT), (2, NUSCALED),
                                      (5, NSSCALED), (10, NUINT),
                                      (12, NSINT), (3, NUSCALED),
                                      (11, NFLOAT)]):
        mode = ("offen", "idxen", "bothen", "offset")[j % 4]
        out.append(Case("ldsdma", "buffer_load_format_x", "dma",
                        elem=raw_elem(dfmt), mode=mode, imm=0, nr=BIGNR,
                        fmt=(dfmt, nfmt),
                        w3=DST_SEL_XYZW | (nfmt << 12) | (dfmt << 15)))
    for sfx, imms in dma_elems:
        e = LOADS[sfx]
        for mode, imm in (("vaddr", imms[0]), ("vaddr", 12 + imms[1]),
                          ("saddr", imms[0]), ("saddr", 8 + imms[1])):
            out.append(Case("ldsdma", "global_load_lds_" + sfx, "dma",
                            elem=e, src="global", mode=mode, imm=imm,
                            sfx=sfx))
        # Scratch: the instruction offset is added to the LDS address as
        # well (ISA 10.3: LDS_ADDR = LDSbase + M0 + INST.OFFSET +
        # ThreadID * 4 for every instruction returning data to LDS).
        sub = {1: 3, 2: 2}.get(e[0], 0)
        for mode, imm in (("vaddr", 0), ("vaddr", 8), ("saddr", 0),
                          ("sv", 0), ("sv", 4), ("st", PBASE_OFF + 32),
                          ("st", PBASE_OFF + 48)):
            # st: the instruction offset is the private address.
            pt = imm if mode == "st" else PBASE_OFF + 32 + sub
            out.append(Case("ldsdma", "scratch_load_lds_" + sfx, "dma",
                            elem=e, src="scratch", mode=mode, imm=imm,
                            sval=16, ptgt=pt, sfx=sfx))
    # DS_APPEND / DS_CONSUME at word 0 of lane 13's block (0: consume wraps
    # below zero), lane 5's (0x80000000) and others; full, partial and
    # single-lane EXEC.
    for j, (blk, word, ex) in enumerate([(13, 0, M64), (13, 0, PARTIAL),
                                         (5, 0, M64), (5, 0, 1 << 37),
                                         (40, 3, PARTIAL), (63, 7, M64)]):
        for nm in ("ds_append", "ds_consume"):
            out.append(Case("dsx", nm, "atomic", op=nm[3:], nres=1,
                            imm=1024 + 32 * blk + 4 * word, exec=ex))
    for j, off in enumerate([0, 8, 16, 20]):
        for ag in (False, True):
            out.append(Case("dsx", "ds_condxchg32_rtn_b64", "atomic",
                            op="condxchg", nres=2, imm=off, agpr=ag,
                            exec=PARTIAL if j % 2 else M64))
    for j, off in enumerate([0, 4, 256, 1788]):
        ex = PARTIAL if j % 2 else M64
        out.append(Case("dsx", "ds_read_addtid_b32", "load", op="addtid",
                        nres=1, imm=off, exec=ex))
        out.append(Case("dsx", "ds_write_addtid_b32", "store", op="addtid",
                        nres=0, imm=off, exec=ex))
    for j, off in enumerate(SWIZZLES):
        out.append(Case("dslane", "ds_swizzle_b32", "lane", imm=off,
                        exec=PARTIAL if j % 3 == 1 else M64))
    return out


def ds_slot_addr(c, i, lin):
    """The address register of lane i (before the instruction offset is
    added) is this minus the offset; returns the LDS byte address."""
    w = lin[i]
    lane = i % 64
    if c.kind == "atomic":
        return 32 * lane
    if c.extra.get("two"):
        ws = 4 * c.elem[1]
        if c.extra["st64"]:
            return w[15] * ws
        return w[15] * 32
    nb = elem_size(c.elem)
    sub = w[13] if nb == 1 else (w[13] & 2) if nb == 2 else 0
    half = 16 if nb <= 16 and (w[15] & 1) and nb <= 8 else 0
    return w[15] * 32 + half + sub


def gen_ds(em, c, arch, L):
    f = "a" if c.agpr else "v"
    init = [L["w%d" % (8 + j)] for j in range(4)]
    lane32 = em.tmp()
    em.emit("%s = shl i32 %%tid, 5" % lane32)
    a0 = em.add(lane32, L["ldsbase"])
    outs, ins = [], []
    nres = c.result_dwords()
    pre, post, clob = "", "", ""
    ex = c.extra.get("exec", M64)
    if ex != M64:
        pre = ("s_mov_b64 s[40:41], exec\ns_mov_b32 exec_lo, %#x\n"
               "s_mov_b32 exec_hi, %#x\n" % (ex & M32, ex >> 32))
        post = "\ns_mov_b64 exec, s[40:41]"
        clob = ",~{s40},~{s41}"
    # Operands: $0 result (if any), $R0, $R1 read-back, then inputs.
    if nres:
        outs.append(("=" + f, vty(nres)))
    outs.append(("=&v", "<4 x i32>"))
    outs.append(("=&v", "<4 x i32>"))
    r0, r1 = "$%d" % (len(outs) - 2), "$%d" % (len(outs) - 1)

    def inp(con, ty, val):
        ins.append((con, ty, val))
        return "$%d" % (len(outs) + len(ins) - 1)
    A = inp("v", "i32", a0)
    I0 = inp("v", "<4 x i32>", em.vec([L["w%d" % (16 + j)]
                                       for j in range(4)]))
    I1 = inp("v", "<4 x i32>", em.vec([L["w%d" % (20 + j)]
                                       for j in range(4)]))
    offs = " offset:%d" % c.imm if c.imm else ""
    nb_el = c.elem[0] if c.elem else 4
    t_off = L["tb"] if nb_el == 1 else L["ts"] if nb_el == 2 else L["slot"]
    p_off = L["ptb"] if nb_el == 1 else L["pts"] if nb_el == 2 else \
        L["pslot"]
    sfx = c.extra.get("sfx", "dword")
    if c.fam in ("ldsdma", "dsx") and (c.fam == "ldsdma" or
                                       c.extra["op"] == "addtid"):
        # M0 = the LDS region: the DMA (and addtid) LDS address is M0 +
        # instruction offset + 4 * lane.
        m0 = inp("s", "i32", L["ldsbase"])
        pre += "s_mov_b32 m0, %s\n" % m0
        clob += ",~{m0}"
    if c.fam == "ldsdma" and c.extra.get("src") == "global":
        rb = em.tmp()
        em.emit("%s = getelementptr i8, ptr addrspace(1) %%mem, i64 %d"
                % (rb, c.index * REGION))
        if c.mode == "saddr":
            sb = em.tmp()
            em.emit("%s = getelementptr i8, ptr addrspace(1) %s, i64 -4096"
                    % (sb, rb))
            vo = inp("v", "i32", em.add(t_off, str(4096 - c.imm)))
            sa = inp("s", "ptr addrspace(1)", sb)
            addr = "%s, %s" % (vo, sa)
        else:
            tg, va = em.tmp(), em.tmp()
            em.emit("%s = getelementptr i8, ptr addrspace(1) %s, i32 %s"
                    % (tg, rb, t_off))
            em.emit("%s = getelementptr i8, ptr addrspace(1) %s, i64 %d"
                    % (va, tg, -c.imm))
            addr = "%s, off" % inp("v", "ptr addrspace(1)", va)
        # gfx940 names the forms global_load_lds_<size>; gfx90a writes
        # global_load_<size> ... lds (the same opcodes).
        text = ("global_load_lds_%s %s%s" % (sfx, addr, offs)
                if arch == "gfx942" else
                "global_load_%s %s%s lds" % (sfx, addr, offs))
    elif c.fam == "ldsdma" and c.extra.get("src") == "scratch":
        if c.mode == "vaddr":
            addr = "%s, off" % inp("v", "i32", em.add(
                p_off, str(PBASE_OFF - c.imm)))
        elif c.mode == "saddr":
            addr = "off, %s" % inp("s", "i32", str(c.extra["ptgt"] - c.imm))
        elif c.mode == "st":
            addr = "off, off"
            offs = " offset:%d" % c.imm
        else:
            va = inp("v", "i32", em.add(p_off, str(PBASE_OFF - c.imm -
                                                   c.extra["sval"])))
            addr = "%s, %s" % (va, inp("s", "i32", str(c.extra["sval"])))
        text = ("scratch_load_lds_%s %s%s" % (sfx, addr, offs)
                if arch == "gfx942" else
                "scratch_load_%s %s%s lds" % (sfx, addr, offs))
    elif c.fam == "ldsdma":
        rb = em.tmp()
        em.emit("%s = getelementptr i8, ptr addrspace(1) %%mem, i64 %d"
                % (rb, c.index * REGION))
        ri, lo, hi, t = em.tmp(), em.tmp(), em.tmp(), em.tmp()
        em.emit("%s = ptrtoint ptr addrspace(1) %s to i64" % (ri, rb))
        em.emit("%s = trunc i64 %s to i32" % (lo, ri))
        em.emit("%s = lshr i64 %s, 32" % (t, ri))
        em.emit("%s = trunc i64 %s to i32" % (hi, t))
        stride = 16 if c.mode in ("idxen", "bothen") else 0
        hi2 = em.tmp()
        em.emit("%s = or i32 %s, %d" % (hi2, hi, stride << 16))
        rs = em.vec([lo, hi2, str(sext(c.nr, 32)),
                     str(c.extra.get("w3", 0x00027000))])
        if c.mode == "offen":
            vs = [em.add(t_off, str(-c.imm))]
        elif c.mode == "idxen":
            vs = [L["slotidx"]]
        elif c.mode == "bothen":
            vs = [L["slotidx"], "0"]
        else:
            vs = []
        va = inp("v", vty(len(vs)), em.vec(vs)) if vs else "off"
        sr = inp("s", "<4 x i32>", rs)
        flags = {"offen": " offen", "idxen": " idxen",
                 "bothen": " idxen offen", "offset": ""}[c.mode]
        text = "%s %s, %s, 0%s%s lds" % (c.mnem, va, sr, flags, offs)
    elif c.fam == "dsx":
        op = c.extra["op"]
        if op in ("append", "consume"):
            text = "%s $0 offset:%d" % (c.mnem, c.imm)
            inp("0", "i32", init[0])
        elif op == "condxchg":
            # vaddr = the lane's block + 0..3: ADDR0 = (vaddr + offset) &
            # 0xfff8 drops the sub-dword part.
            ad = inp("v", "i32", em.add(a0, L["w13"]))
            dv = inp(f, "<2 x i32>", em.vec([L["w8"], L["w9"]]))
            text = "%s $0, %s, %s offset:%d" % (c.mnem, ad, dv, c.imm)
            inp("0", "<2 x i32>", em.vec(init[:2]))
        elif c.kind == "load":
            text = "%s $0 offset:%d" % (c.mnem, c.imm)
            inp("0", "i32", init[0])
        else:
            d = inp("v", "i32", L["w8"])
            text = "%s %s offset:%d" % (c.mnem, d, c.imm)
    elif c.fam == "dslane":
        ad = inp("v", "i32", L["w14"]) if c.mnem != "ds_swizzle_b32" else None
        d = inp(f, "i32", L["w8"])
        if c.mnem == "ds_swizzle_b32":
            text = "%s $0, %s offset:%d" % (c.mnem, d, c.imm)
        else:
            text = "%s $0, %s, %s%s" % (c.mnem, ad, d, offs)
        inp("0", "i32", L["w9"])
    elif c.extra.get("nop"):
        text = c.extra["nop"]
    else:
        base = em.tmp()
        w15 = L["w15"]
        if c.kind == "atomic":
            em.emit("%s = add i32 %s, %d" % (base, a0, -c.imm))
        elif c.extra.get("two"):
            ws = 4 * c.elem[1]
            mul = ws if c.extra["st64"] else 32
            t = em.tmp()
            em.emit("%s = mul i32 %s, %d" % (t, w15, mul))
            em.emit("%s = add i32 %s, %s" % (base, t, L["ldsbase"]))
        else:
            nb = elem_size(c.elem)
            t = em.tmp()
            em.emit("%s = shl i32 %s, 5" % (t, w15))
            if nb <= 8:
                h = em.tmp()
                em.emit("%s = and i32 %s, 1" % (h, w15))
                h2 = em.tmp()
                em.emit("%s = shl i32 %s, 4" % (h2, h))
                t = em.add(t, h2)
            if nb == 1:
                t = em.add(t, L["w13"])
            elif nb == 2:
                t = em.add(t, "%s2")
            t = em.add(t, L["ldsbase"])
            em.emit("%s = add i32 %s, %d" % (base, t, -c.imm))
        ad = inp("v", "i32", base)
        if c.kind == "load" and not c.extra.get("two"):
            text = "%s $0, %s%s" % (c.mnem, ad, offs)
            inp("0", vty(nres), em.vec(init[:nres]))
        elif c.extra.get("two"):
            o = " offset0:%d offset1:%d" % (c.extra["o0"], c.extra["o1"])
            w = c.elem[1]
            if c.extra.get("xchg"):
                d0 = inp(f, vty(w), em.vec([L["w8"], L["w9"]][:w]))
                d1 = inp(f, vty(w), em.vec([L["w10"], L["w11"]][:w]))
                text = "%s $0, %s, %s, %s%s" % (c.mnem, ad, d0, d1, o)
                inp("0", vty(nres), em.vec((init * 2)[:nres]))
            elif c.extra["read"]:
                text = "%s $0, %s%s" % (c.mnem, ad, o)
                inp("0", vty(nres), em.vec(init[:nres]))
            else:
                d0 = inp(f, vty(w), em.vec([L["w8"], L["w9"]][:w]))
                d1 = inp(f, vty(w), em.vec([L["w10"], L["w11"]][:w]))
                text = "%s %s, %s, %s%s" % (c.mnem, ad, d0, d1, o)
        elif c.kind == "store":
            d = inp(f, vty(c.elem[1]), em.vec(init[:c.elem[1]]))
            text = "%s %s, %s%s" % (c.mnem, ad, d, offs)
        else:
            w = 2 if c.wide else 1
            if c.aop in FLOAT_OPS:
                src = [L["w24"], L["w25"]][:w]
            else:
                src = [L["w0"], L["w1"]][:w]
            ops = []
            if c.aop in CMP_FORMS:
                ops.append(inp(f, vty(w), em.vec([L["w4"], L["w5"]][:w])))
            ops.append(inp(f, vty(w), em.vec(src)))
            if c.rtn:
                text = "%s $0, %s, %s%s" % (c.mnem, ad, ", ".join(ops), offs)
                inp("0", vty(w), em.vec(init[:w]))
            else:
                text = "%s %s, %s%s" % (c.mnem, ad, ", ".join(ops), offs)
    c.text = text
    block = ("ds_write_b128 %s, %s\nds_write_b128 %s, %s offset:16\n"
             "s_waitcnt lgkmcnt(0)\n%ss_nop 7\n%s\n"
             "s_waitcnt vmcnt(0) lgkmcnt(0)%s\n"
             "ds_read_b128 %s, %s\nds_read_b128 %s, %s offset:16\n"
             "s_waitcnt lgkmcnt(0)\ns_nop 1"
             % (A, I0, A, I1, pre, text, post, r0, A, r1, A))
    res = asm_call(em, block, outs, ins, clob, case=c)
    # For the assembler check: the instruction alone.
    c.opnds = [(cn, t) for cn, t in outs] + [(cn, t) for cn, t, _ in ins]
    r = res[0] if nres else None
    return r, nres, res[-2:]


def swizzle_src(off, lane):
    if off & 0x8000:  # quad permute: offset[2j+1:2j] selects for lane j
        return (lane & ~3) | ((off >> (2 * (lane & 3))) & 3)
    a, o, x = off & 31, (off >> 5) & 31, (off >> 10) & 31
    return (lane & 32) | ((((lane & 31) & a) | o) ^ x)


def region_bytes(c, off, n, P, key):
    """n bytes at byte offset off of case c's global region."""
    w0, w1 = off // 4, (off + n + 3) // 4
    b = b"".join(struct.pack("<I", region_word(c.index, j, P, key))
                 for j in range(w0, w1))
    return b[off - 4 * w0:off - 4 * w0 + n]


def dma_value(c, i, lin, P, key):
    """The dword an LDS DMA writes for lane i: what the VGPR form of the
    load returns (bytes and shorts zero- or sign-extended; a format_x load
    its converted X component); 0 for an out-of-range buffer lane."""
    w = lin[i]
    slot = w[12]
    nb = elem_size(c.elem)
    src = c.extra.get("src")
    if src == "scratch":
        pr = priv_init(w)
        if c.mode in ("saddr", "st"):
            po = c.extra["ptgt"]
        else:
            po = PBASE_OFF + (slot & 112) + lane_target(c, i, lin) - slot
        data = bytes(pr[po:po + nb])
    elif src == "global":
        data = region_bytes(c, lane_target(c, i, lin), nb, P, key)
    else:
        if c.mode == "offset":
            off = c.imm
        elif c.mode == "offen":
            off = lane_target(c, i, lin)
        else:
            off = slot + c.imm
        if not in_range(off, nb, c.nr):
            return 0
        data = region_bytes(c, off, nb, P, key)
    f = c.extra.get("fmt")
    if f:
        bits = DFMTS[f[0]][0]
        raw = int.from_bytes(data[:bits // 8], "little")
        return fmt_component(raw, bits, f[1], False)
    return load_value(data, c.elem, [0])[0]


def model_ds(cases, lin, P):
    """Per DS case: (results[i], LDS read-back words[i])."""
    out = {}
    for c in cases:
        key = keyof(c)
        res, back = [None] * N, [None] * N
        nres = c.result_dwords()
        for g in range(N // 64):
            lanes = range(64 * g, 64 * g + 64)
            lds = bytearray(b"".join(struct.pack("<8I", *lin[i][16:24])
                                     for i in lanes))
            ex = c.extra.get("exec", M64)
            act = [(ex >> (i % 64)) & 1 for i in lanes]
            regs = {}
            if c.fam == "ldsdma":
                for l in range(64):
                    i = 64 * g + l
                    v = dma_value(c, i, lin, P, key)
                    a = c.imm + 4 * l
                    lds[a:a + 4] = struct.pack("<I", v)
            elif c.fam == "dsx":
                op = c.extra["op"]
                if op in ("append", "consume"):
                    # The region starts 1 KiB into LDS (@lds is at 0).
                    a = c.imm - 1024
                    old = struct.unpack("<I", bytes(lds[a:a + 4]))[0]
                    n = bin(ex).count("1")
                    new = (old + n if op == "append" else old - n) & M32
                    lds[a:a + 4] = struct.pack("<I", new)
                for l in range(64):
                    i = 64 * g + l
                    w = lin[i]
                    init = [w[8 + j] for j in range(4)]
                    if not act[l]:
                        regs[l] = init[:nres]
                    elif op in ("append", "consume"):
                        regs[l] = [old]
                    elif op == "condxchg":
                        a0 = (32 * l + 1024 + w[13] + c.imm) & 0xFFF8
                        a0 -= 1024
                        r = []
                        for h in range(2):
                            r.append(struct.unpack("<I", bytes(
                                lds[a0 + 4 * h:a0 + 4 * h + 4]))[0])
                            d = w[8 + h]
                            if d >> 31:
                                lds[a0 + 4 * h:a0 + 4 * h + 4] = struct.pack(
                                    "<I", d & 0x7FFFFFFF)
                        regs[l] = r
                    elif c.kind == "load":
                        a = c.imm + 4 * l
                        regs[l] = [struct.unpack("<I", bytes(
                            lds[a:a + 4]))[0]]
                    else:
                        a = c.imm + 4 * l
                        lds[a:a + 4] = struct.pack("<I", w[8])
            elif c.fam == "dslane":
                data = [lin[i][8] for i in lanes]
                addr = [lin[i][14] for i in lanes]
                tmp = [0] * 64
                if c.mnem == "ds_bpermute_b32":
                    for l in range(64):
                        src = (((addr[l] + c.imm) & M32) >> 2) & 63
                        tmp[l] = data[src] if act[src] else 0
                elif c.mnem == "ds_permute_b32":
                    for l in range(64):
                        if act[l]:
                            tmp[((addr[l] + c.imm) & M32) >> 2 & 63] = \
                                data[l]
                else:
                    for l in range(64):
                        src = swizzle_src(c.imm, l)
                        tmp[l] = data[src] if act[src] else 0
                for l in range(64):
                    regs[l] = [tmp[l] if act[l] else lin[64 * g + l][9]]
            elif c.extra.get("nop"):
                pass
            else:
                for l in range(64):
                    i = 64 * g + l
                    w = lin[i]
                    init = [w[8 + j] for j in range(4)]
                    a = ds_slot_addr(c, i, lin)
                    if c.kind == "load" and c.extra.get("two"):
                        sc = 64 * 4 * c.elem[1] if c.extra["st64"] else \
                            4 * c.elem[1]
                        v = []
                        for o in (c.extra["o0"], c.extra["o1"]):
                            p = a + o * sc
                            v += list(struct.unpack(
                                "<%dI" % c.elem[1],
                                bytes(lds[p:p + 4 * c.elem[1]])))
                        regs[l] = v
                        wd = c.elem[1]
                        if c.extra.get("xchg"):
                            for o, d in ((c.extra["o0"], w[8:8 + wd]),
                                         (c.extra["o1"], w[10:10 + wd])):
                                p = a + o * sc
                                lds[p:p + 4 * wd] = struct.pack("<%dI" % wd,
                                                                *d)
                    elif c.kind == "load":
                        n = elem_size(c.elem)
                        regs[l] = load_value(bytes(lds[a:a + n]), c.elem,
                                             init)
                    elif c.kind == "store" and c.extra.get("two"):
                        sc = 64 * 4 * c.elem[1] if c.extra["st64"] else \
                            4 * c.elem[1]
                        wd = c.elem[1]
                        for o, d in ((c.extra["o0"], w[8:8 + wd]),
                                     (c.extra["o1"], w[10:10 + wd])):
                            p = a + o * sc
                            lds[p:p + 4 * wd] = struct.pack("<%dI" % wd, *d)
                    elif c.kind == "store":
                        bts = store_bytes(c.elem, init)
                        lds[a:a + len(bts)] = bts
                    else:
                        nb = 8 if c.wide else 4
                        if c.aop in FLOAT_OPS:
                            src = w[24] | (w[25] << 32 if c.wide else 0)
                        else:
                            src = w[0] | (w[1] << 32 if c.wide else 0)
                        cmp = w[4] | (w[5] << 32 if c.wide else 0)
                        old = int.from_bytes(lds[a:a + nb], "little")
                        new = atomic(c.aop, old, src, cmp, c.wide)
                        lds[a:a + nb] = new.to_bytes(nb, "little")
                        regs[l] = [old & M32, old >> 32][:nres]
            for l in range(64):
                i = 64 * g + l
                res[i] = regs.get(l, [])[:nres]
                back[i] = list(struct.unpack("<8I", bytes(
                    lds[32 * l:32 * l + 32])))
        out[c.index] = (res, back)
    return out


# ----------------------------------------------------------------------
# The model
# ----------------------------------------------------------------------

def buffer_lane(c, i, lin):
    """(byte offset in the region, offset checked against num_records) of
    lane i, or None when the lane does not access (offset-only stores)."""
    slot = lin[i][12]
    tgt = lane_target(c, i, lin)
    if c.mode == "offset":
        # Loads: every lane at the same place; stores and atomics: lane 0
        # of each wave, at soffset = 16 * workgroup.
        if c.kind != "load" and i % 64:
            return None
        off = c.imm + (16 * (i // 64) if c.kind != "load" else 0)
        return off, c.imm
    if c.mode == "offen":
        return tgt, tgt  # voffset + imm = target (base = region - soffset)
    if c.mode == "idxen":
        # index * 16 + inst_offset
        return slot + c.imm, slot + c.imm
    # bothen: index * 16 + voffset + imm = target
    return tgt, tgt


def in_range(off, size, nr):
    return off + size <= nr


def model(cases, lin, P, arch):
    """Applies every case in order. Returns (mem, results, ldsback):
    results[k][i] is the list of result dwords."""
    mem = bytearray()
    for c in cases:
        key = keyof(c)
        mem += b"".join(struct.pack("<I", region_word(c.index, j, P, key,
                                                      region_mask(c)))
                        for j in range(REGION // 4))
    priv = [priv_init(lin[i]) for i in range(N)]
    results = {}
    for c in cases:
        k = c.index
        key = keyof(c)
        base = k * REGION
        res = [None] * N
        nres = c.result_dwords()
        for i in range(N):
            w = lin[i]
            init = [w[8 + j] for j in range(4)]
            if c.kind == "atomic":
                if c.aop in FLOAT_OPS:
                    src = w[24] | (w[25] << 32 if c.wide else 0)
                else:
                    src = (w[0] + key) & M32
                    if c.wide:
                        src |= ((w[1] + key) & M32) << 32
                cmp = 0
                if c.aop in ("cmpswap",):
                    cmp = (w[4] + key) & M32
                    if c.wide:
                        cmp |= ((w[5] + key) & M32) << 32
                data = [src & M32, src >> 32, cmp & M32, cmp >> 32]
                if c.wide:
                    dreg = [src & M32, src >> 32] + (
                        [cmp & M32, cmp >> 32] if c.aop == "cmpswap" else [])
                else:
                    dreg = [src & M32] + ([cmp] if c.aop == "cmpswap" else [])
            else:
                data = [w[8 + j] for j in range(4)]
            # Where the lane accesses.
            if c.fam in ("global", "flat"):
                acc = [(mem, base + lane_target(c, i, lin))]
                size = c.data_bytes()
                chunks = None
            elif c.fam == "scratch":
                if c.mode in ("saddr", "st"):
                    po = c.extra["ptgt"]
                else:
                    po = PBASE_OFF + (lin[i][12] & 112) + \
                        lane_target(c, i, lin) - lin[i][12]
                acc = [(priv[i], po)]
                size = c.data_bytes()
                chunks = None
            elif c.fam == "buffer":
                bl = buffer_lane(c, i, lin)
                if bl is None:
                    acc = []
                    size = 0
                else:
                    off, chk = bl
                    size = c.data_bytes()
                    acc = [(mem, base + off, chk)]
            if c.fam != "buffer":
                acc = [(m, o, None) for m, o in acc]
            if not acc:
                res[i] = init[:nres] if c.kind == "load" else (
                    dreg[:nres] if c.kind == "atomic" else [])
                continue
            m, o, chk = acc[0]
            if c.kind == "load":
                if chk is None or c.elem[0] != 4:
                    if chk is not None and not in_range(chk, size, c.nr):
                        bts = bytes(size)
                    else:
                        bts = bytes(m[o:o + size])
                else:
                    bts = b"".join(
                        bytes(m[o + 4 * j:o + 4 * j + 4])
                        if in_range(chk + 4 * j, 4, c.nr) else bytes(4)
                        for j in range(c.elem[1]))
                res[i] = fmt_load(c, bts, init) if c.extra.get("fmt") \
                    else load_value(bts, c.elem, init)
            elif c.kind == "store":
                bts = fmt_store(c, data) if c.extra.get("fmt") \
                    else store_bytes(c.elem, data)
                if c.extra.get("fmt"):
                    # Format lanes stay in range (out-of-range ones are
                    # refused); the channels written may be fewer than
                    # the element's.
                    m[o:o + len(bts)] = bts
                elif chk is None or c.elem[0] != 4:
                    if chk is None or in_range(chk, size, c.nr):
                        m[o:o + len(bts)] = bts
                else:
                    for j in range(c.elem[1]):
                        if in_range(chk + 4 * j, 4, c.nr):
                            m[o + 4 * j:o + 4 * j + 4] = bts[4 * j:4 * j + 4]
                res[i] = []
                if c.fam == "scratch":
                    b = scratch_block(c, i, lin)
                    res[i] = list(struct.unpack("<4I", bytes(m[b:b + 16])))
            else:
                nb = 8 if c.wide else 4
                if chk is not None and not in_range(chk, nb, c.nr):
                    # Out of range: nothing written, zero returned.
                    res[i] = [0] * nres
                    continue
                old = int.from_bytes(m[o:o + nb], "little")
                new = atomic(c.aop, old, src, cmp, c.wide)
                m[o:o + nb] = new.to_bytes(nb, "little")
                res[i] = [old & M32, old >> 32][:nres]
        results[k] = res
    return mem, results


PBASE_OFF = 64  # lane targets in private memory start here


def priv_key(j):
    return (j * 0x9E3779B9) & M32


def priv_init(w):
    return bytearray(b"".join(struct.pack("<I", w[16 + j % 16] ^ priv_key(j))
                              for j in range(PRIV // 4)))


# ----------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------

def make_inputs(seed):
    rnd = random.Random(seed)
    P = [friendly_word(rnd) for _ in range(REGION // 4)]
    perm = list(range(SLOTS))
    rnd.shuffle(perm)
    lin = []
    for i in range(N):
        slot = perm[i] * 16
        pw = P[slot // 4:slot // 4 + 4]
        c = i & 3
        if c == 0:
            src = list(pw)
        elif c == 1:
            src = [(x + 1) & M32 for x in pw]
        elif c == 2:
            src = [(x - 1) & M32 for x in pw]
        else:
            src = [rnd.choice(EDGES) if rnd.random() < 0.5
                   else rnd.getrandbits(32) for _ in range(4)]
        cmp = list(pw) if (i >> 2) & 1 == 0 else [rnd.getrandbits(32)
                                                  for _ in range(4)]
        data = [rnd.choice(EDGES) if rnd.random() < 0.25
                else rnd.getrandbits(32) for _ in range(4)]
        if i % 64 == 0:
            wperm = list(range(64))
            rnd.shuffle(wperm)
        # w14: a ds_bpermute address (any 32 bits), w15: the lane's LDS
        # slot, w16..w23: the lane's initial LDS content (the first four
        # words are its global slot's, for the atomics' relations).
        w = src + cmp + data + [slot, rnd.randrange(4),
                                rnd.choice([rnd.getrandbits(32),
                                            rnd.randrange(256)]),
                                wperm[i % 64]]
        w += list(pw) + [rnd.getrandbits(32) for _ in range(4)]
        # Signed zeros that a float compare finds equal and an integer
        # compare does not (ds_cmpst_f32 / _f64).
        if i % 16 == 5:
            w[16], w[4] = 0x80000000, 0
        elif i % 16 == 13:
            w[16], w[17], w[4], w[5] = 0, 0x80000000, 0, 0
        w += [friendly_word(rnd) for _ in range(4)]
        w += [rnd.getrandbits(32) for _ in range(LW - len(w))]
        lin.append(w)
    return P, lin


# ----------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------

def kernel_ir(cases, arch, scratch, ds=False):
    em = Emitter(arch)
    lines = ['target triple = "amdgcn-amd-amdhsa"',
             "@lds = internal addrspace(3) global [4096 x i8] undef, "
             "align 16",
             "declare i32 @llvm.amdgcn.workitem.id.x()",
             "declare i32 @llvm.amdgcn.workgroup.id.x()",
             "define amdgpu_kernel void @k(ptr addrspace(1) %out, "
             "ptr addrspace(1) %lin, ptr addrspace(1) %mem) #0 {"]
    em.emit("%tid = call i32 @llvm.amdgcn.workitem.id.x()")
    em.emit("%grp = call i32 @llvm.amdgcn.workgroup.id.x()")
    em.emit("%g64 = mul i32 %grp, 64")
    em.emit("%i = add i32 %g64, %tid")
    em.emit("%g16 = mul i32 %grp, 16")
    em.emit("%%lb = mul i32 %%i, %d" % LW)
    L = {}
    for j in range(LW):
        em.emit("%%lp%d = add i32 %%lb, %d" % (j, j))
        em.emit("%%lg%d = getelementptr i32, ptr addrspace(1) %%lin, i32 "
                "%%lp%d" % (j, j))
        em.emit("%%w%d = load volatile i32, ptr addrspace(1) %%lg%d"
                % (j, j))
        L["w%d" % j] = "%%w%d" % j
    L["slot"] = "%w12"
    L["g16"] = "%g16"
    em.emit("%tb = add i32 %w12, %w13")
    em.emit("%s2 = and i32 %w13, 2")
    em.emit("%ts = add i32 %w12, %s2")
    em.emit("%slotidx = lshr i32 %w12, 4")
    L["tb"], L["ts"], L["slotidx"] = "%tb", "%ts", "%slotidx"
    # Private target (scratch): bits 4-6 of the slot plus the sub offset.
    em.emit("%pslot = and i32 %w12, 112")
    em.emit("%ptb = add i32 %pslot, %w13")
    em.emit("%pts = add i32 %pslot, %s2")
    L["pslot"], L["ptb"], L["pts"] = "%pslot", "%ptb", "%pts"
    if scratch:
        em.emit("%priv = alloca [64 x i32], align 16, addrspace(5)")
        em.emit("%pv = ptrtoint ptr addrspace(5) %priv to i32")
        # Known private content: word j = w[16 + j % 16] ^ j * 0x9E3779B9.
        for j in range(PRIV // 4):
            x = em.tmp()
            em.emit("%s = xor i32 %%w%d, %d" % (x, 16 + j % 16,
                                                sext(priv_key(j), 32)))
            q = em.tmp()
            em.emit("%s = getelementptr i32, ptr addrspace(5) %%priv, i32 %d"
                    % (q, j))
            em.emit("store volatile i32 %s, ptr addrspace(5) %s" % (x, q))
    # The LDS region of the DS cases starts 1 KiB into the allocation, so
    # that an address minus an instruction offset is never negative.
    em.emit("%ldsb = add i32 ptrtoint (ptr addrspace(3) @lds to i32), 1024")
    L["ldsbase"] = "%ldsb"
    nb = len(cases) * N * OUTW
    for c in cases:
        r, n, back = gen_case(em, c, arch, L)
        for h, v in enumerate(back or []):
            for j in range(4):
                x = em.extract(v, 4, j)
                q = em.tmp()
                em.emit("%s = mul i32 %%i, %d" % (q, LDSW))
                q2 = em.add(q, str(nb + c.index * N * LDSW + 4 * h + j))
                p = em.tmp()
                em.emit("%s = getelementptr i32, ptr addrspace(1) %%out, "
                        "i32 %s" % (p, q2))
                em.emit("store volatile i32 %s, ptr addrspace(1) %s"
                        % (x, p))
        if r is None:
            continue
        for j in range(n):
            x = em.extract(r, n, j)
            q = em.tmp()
            em.emit("%s = mul i32 %%i, %d" % (q, OUTW))
            q2 = em.add(q, str(c.index * N * OUTW + j))
            p = em.tmp()
            em.emit("%s = getelementptr i32, ptr addrspace(1) %%out, i32 %s"
                    % (p, q2))
            em.emit("store volatile i32 %s, ptr addrspace(1) %s" % (x, p))
    if scratch:
        # The private base the model assumes: checked after the run.
        p = em.tmp()
        em.emit("%s = getelementptr i32, ptr addrspace(1) %%out, i32 %d"
                % (p, pv_slot(cases, ds)))
        em.emit("store volatile i32 %pv, ptr addrspace(1) " + p)
    em.emit("ret void")
    feats = ""
    if scratch and arch == "gfx90a":
        feats = ' "target-features"="+enable-flat-scratch"'
    return "\n".join(lines + em.lines + [
        "}", 'attributes #0 = { "amdgpu-flat-work-group-size"="64,64"%s }'
        % feats]) + "\n"


def pv_slot(cases, ds):
    """Where the kernel stores the private base it got (after the results
    and the LDS read-backs)."""
    return len(cases) * N * (OUTW + (LDSW if ds else 0))


def spec(ncases, extra):
    return "\n".join([
        "asmevo-launch: 1", "buffers:",
        "  out: {type: u32, count: %d, role: out, init: zeros}"
        % (ncases * N * OUTW + extra),
        "  lin: {type: u32, count: %d, role: in}" % (N * LW),
        "  mem: {type: u32, count: %d, role: inout}" % (ncases * REGION // 4),
        "kernel: k", "grid: [%d]" % (N // 64), "block: [64]",
        "args: [out, lin, mem]"]) + "\n"


# ----------------------------------------------------------------------
# Assembly check: drop the forms the target's assembler rejects
# ----------------------------------------------------------------------



def text_section(co):
    """The bytes of the code object's .text (ELF64)."""
    with open(co, "rb") as f:
        d = f.read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + j * shentsize)
            for j in range(shnum)]
    names = secs[shstrndx][4]
    for sh in secs:
        nm = d[names + sh[0]:d.index(b"\0", names + sh[0])]
        if nm == b".text":
            return d[sh[4]:sh[4] + sh[5]]
    raise RuntimeError("%s: no .text" % co)


def marked_opcodes(args, co):
    """MC opcode names of the instructions following each `s_nop 7`, as
    LLVM's disassembler (llvm-mc -show-inst) names them."""
    hexs = " ".join("0x%02x" % b for b in text_section(co))
    p = subprocess.run([args.mc, "-triple=amdgcn-amd-amdhsa",
                        "-mcpu=" + args.arch, "-disassemble", "-show-inst"],
                       input=hexs, capture_output=True, text=True)
    seq = re.findall(r"^\t(\S[^;\n]*?)\s*; <MCInst #\d+ (\w+)", p.stdout,
                     re.M)
    return [n for (pt, _), (_, n) in zip(seq, seq[1:])
            if re.match(r"s_nop 7$", pt.strip())]


def norm(mc):
    """GLOBAL_LOAD_DWORD_SADDR_vi -> global_load_dword (the mnemonic)."""
    n = strip_subtarget(mc)
    for s in ("_agpr", "_vi", "_gfx90a", "_gfx940"):
        if n.endswith(s):
            n = n[:-len(s)]
    changed = True
    while changed:
        changed = False
        for s in ("_SADDR", "_RTN", "_OFFEN", "_IDXEN", "_BOTHEN", "_OFFSET",
                  "_SVS", "_ST", "_VE", "_LDS"):
            if n.endswith(s):
                n = n[:-len(s)]
                changed = True
    return n.lower()


def try_assemble(args, cases, work):
    """Builds each case's instruction alone (with registers filled in) and
    returns the cases the assembler accepts for this target."""
    lines = []
    for c in cases:
        lines.append(fill_regs(c))
    s = os.path.join(work, "forms.s")
    with open(s, "w") as f:
        f.write("".join(x + "\n" for x in lines))
    p = subprocess.run([args.clang, "-target", "amdgcn-amd-amdhsa",
                        "-mcpu=" + args.arch, "-c", "-x", "assembler", s,
                        "-o", os.path.join(work, "forms.o")],
                       capture_output=True, text=True)
    bad = set()
    for m in re.finditer(r"forms\.s:(\d+):\d+: error", p.stderr):
        bad.add(int(m.group(1)) - 1)
    return [c for j, c in enumerate(cases) if j not in bad], \
        [(c, lines[j]) for j, c in enumerate(cases) if j in bad]


def fill_regs(c):
    """A stand-alone version of the case's instruction for the assembler:
    each operand becomes a register of its constraint and width."""
    regs = []
    for j, (con, ty) in enumerate(c.opnds):
        con = con.lstrip("=&")
        if con.isdigit():
            regs.append(regs[int(con)])
            continue
        n = 2 if ty.startswith("ptr") else 1 if ty == "i32" else \
            int(re.match(r"<(\d+)", ty).group(1))
        f = con[0]
        base = 10 + 8 * j
        if f == "s":
            base = (base // 4) * 4
        regs.append("%s%d" % (f, base) if n == 1 else
                    "%s[%d:%d]" % (f, base, base + n - 1))
    return re.sub(r"\$(\d+)", lambda m: regs[int(m.group(1))], c.text)


# ----------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------

# Format accesses the emulator must refuse (the documents leave them
# open): (why, the start of its refusal message, case fields).
FMT_REFUSALS = [
    ("unorm", "unorm/snorm", dict(mnem="buffer_load_format_x",
                                  kind="load", fmt=(1, NUNORM))),
    ("snorm", "unorm/snorm", dict(mnem="tbuffer_load_format_xy",
                                  kind="load", fmt=(5, NSNORM))),
    ("packed 2_10_10_10", "data format 9",
     dict(mnem="tbuffer_load_format_xyzw", kind="load", fmt=(9, NUINT))),
    ("narrowing store", "store conversion",
     dict(mnem="tbuffer_store_format_x", kind="store", fmt=(1, NUINT))),
    ("component count", "store of 2 components",
     dict(mnem="buffer_store_format_xy", kind="store", fmt=(4, NUINT),
          elem=(4, 2, False, 0))),
    ("DST_SEL 0", "descriptor DST_SEL",
     dict(mnem="buffer_load_format_x", kind="load", fmt=(4, NFLOAT),
          w3=0x27000)),
    ("out of range", "out-of-range lane",
     dict(mnem="buffer_load_format_x", kind="load", fmt=(4, NUINT),
          nr=REGION - 16 * 37 - 8)),
    ("float16 NaN", "float16 NaN",
     dict(mnem="tbuffer_load_format_x", kind="load", fmt=(2, NFLOAT),
          nanok=True)),
]


def refusal_case(f):
    dfmt, nfmt = f["fmt"]
    typed = f["mnem"].startswith("t")
    comps = FMT_COMPS.index(f["mnem"].rsplit("_", 1)[1]) + 1
    bits, n = DFMTS.get(dfmt, (32, 4))
    nb = bits // 8 * n
    elem = (nb, 1, False, 0) if nb < 4 else (4, nb // 4, False, 0)
    elem = f.get("elem", elem)
    w3 = f.get("w3", DST_SEL_XYZW | (0x27000 if typed else
                                     (nfmt << 12) | (dfmt << 15)))
    return Case("buffer", f["mnem"], f["kind"], mode="offen", imm=0, soff=0,
                nr=f.get("nr", BIGNR), elem=elem, fmt=(dfmt, nfmt),
                comps=comps, d16=False, hi=False, typed=typed, regs=comps,
                w3=w3, nanok=f.get("nanok", False))


def check_refusals(args, work):
    """Each refused form alone in a kernel: the run must stop with the
    emulator's refusal. Returns the MC opcodes that did not."""
    DFMT_NAMES.setdefault(9, "2_10_10_10")
    failed = set()
    for j, (what, msg, f) in enumerate(FMT_REFUSALS):
        c = refusal_case(f)
        c.index = 0
        d = os.path.join(work, "refuse%d" % j)
        os.makedirs(d, exist_ok=True)
        P, lin = make_inputs(args.seed)
        ll, co = os.path.join(d, "k.ll"), os.path.join(d, "k.co")
        with open(ll, "w") as fo:
            fo.write(kernel_ir([c], args.arch, False))
        run([args.clang, "-target", "amdgcn-amd-amdhsa",
             "-mcpu=" + args.arch, "-O1", "-nogpulib", ll, "-o", co],
            "clang")
        with open(os.path.join(d, "lin.bin"), "wb") as fo:
            for w in lin:
                fo.write(struct.pack("<%dI" % LW, *w))
        with open(os.path.join(d, "mem.bin"), "wb") as fo:
            fo.write(b"".join(struct.pack("<I", region_word(
                0, k, P, keyof(c), region_mask(c))) for k in range(REGION // 4)))
        with open(os.path.join(d, "spec.yaml"), "w") as fo:
            fo.write(spec(1, pv_slot([c], False) - N * OUTW + 1))
        p = subprocess.run(
            [os.path.join(args.bin, "asmevo-verify"), "run", co, "--spec",
             os.path.join(d, "spec.yaml"), "--output-dir",
             os.path.join(d, "out"), "--input",
             "lin=" + os.path.join(d, "lin.bin"), "--input",
             "mem=" + os.path.join(d, "mem.bin")],
            capture_output=True, text=True)
        text = p.stdout + p.stderr
        if "format buffer access not modelled: " + msg not in text:
            mc = marked_opcodes(args, co)
            print("FAIL %s refusal (%s): %s\n%s" % (args.arch, what, c.text,
                                                   text[-1500:]))
            failed |= set(strip_subtarget(m) for m in mc)
    return failed


def build_and_run(args, cases, work, scratch, ds=False):
    for k, c in enumerate(cases):
        c.index = k
    P, lin = make_inputs(args.seed)
    ir = kernel_ir(cases, args.arch, scratch, ds)
    ll = os.path.join(work, "k.ll")
    co = os.path.join(work, "k.co")
    with open(ll, "w") as f:
        f.write(ir)
    run([args.clang, "-target", "amdgcn-amd-amdhsa", "-mcpu=" + args.arch,
         "-O1", "-nogpulib", ll, "-o", co], "clang")
    with open(os.path.join(work, "lin.bin"), "wb") as f:
        for w in lin:
            f.write(struct.pack("<%dI" % LW, *w))
    with open(os.path.join(work, "mem.bin"), "wb") as f:
        for c in cases:
            key = keyof(c)
            f.write(b"".join(struct.pack("<I", region_word(c.index, j, P,
                                                           key, region_mask(c)))
                             for j in range(REGION // 4)))
    extra = pv_slot(cases, ds) - len(cases) * N * OUTW + 1
    with open(os.path.join(work, "spec.yaml"), "w") as f:
        f.write(spec(len(cases), extra))
    od = os.path.join(work, "out")
    cmd = [os.path.join(args.bin, "asmevo-verify"), "run", co, "--spec",
           os.path.join(work, "spec.yaml"), "--output-dir", od,
           "--input", "lin=" + os.path.join(work, "lin.bin"),
           "--input", "mem=" + os.path.join(work, "mem.bin")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if "result: clean" not in p.stdout:
        raise RuntimeError("run not clean:\n" + p.stdout[-3000:] +
                           p.stderr[-2000:])
    with open(os.path.join(od, "out.bin"), "rb") as f:
        ob = f.read()
    out = struct.unpack("<%dI" % (len(ob) // 4), ob)
    with open(os.path.join(od, "mem.bin"), "rb") as f:
        gmem = f.read()
    if scratch and out[pv_slot(cases, ds)] != 0:
        raise RuntimeError("the private alloca is at %d, not 0"
                           % out[pv_slot(cases, ds)])
    mcs = marked_opcodes(args, co)
    if len(mcs) != len(cases):
        raise RuntimeError("%d marked instructions in the kernel, %d cases"
                           % (len(mcs), len(cases)))
    if ds:
        md = model_ds(cases, lin, P)
        results = {k: v[0] for k, v in md.items()}
        back = {k: v[1] for k, v in md.items()}
        return compare(args, cases, mcs, out, gmem, bytes(gmem), results,
                       lin, back)
    mem, results = model(cases, lin, P, args.arch)
    return compare(args, cases, mcs, out, gmem, mem, results, lin)


def compare(args, cases, mcs, out, gmem, mem, results, lin, back=None):
    tested, failed = set(), set()
    for c, mc in zip(cases, mcs):
        name = strip_subtarget(mc)
        if norm(mc) != c.mnem:
            raise RuntimeError("case %d (%s) became %s" % (c.index, c.text,
                                                           mc))
        bad = []
        nres = c.result_dwords()
        for i in range(N):
            want = results[c.index][i]
            got = [out[(c.index * N + i) * OUTW + j] for j in range(nres)]
            if got != list(want):
                bad.append("lane %d: emulator %s model %s" % (
                    i, " ".join("%#010x" % x for x in got),
                    " ".join("%#010x" % x for x in want)))
        if back is not None:
            nb = len(cases) * N * OUTW + c.index * N * LDSW
            for i in range(N):
                got = list(out[nb + i * LDSW:nb + (i + 1) * LDSW])
                if got != back[c.index][i]:
                    bad.append("LDS of lane %d: emulator %s model %s" % (
                        i, " ".join("%#010x" % x for x in got),
                        " ".join("%#010x" % x for x in back[c.index][i])))
        lo, hi = c.index * REGION, (c.index + 1) * REGION
        if gmem[lo:hi] != bytes(mem[lo:hi]):
            for j in range(lo, hi, 4):
                if gmem[j:j + 4] != bytes(mem[j:j + 4]):
                    bad.append("memory +%d: emulator %#010x model %#010x" % (
                        j - lo, struct.unpack("<I", gmem[j:j + 4])[0],
                        struct.unpack("<I", bytes(mem[j:j + 4]))[0]))
                    if len(bad) > 8:
                        break
        if bad:
            failed.add(name)
            print("FAIL %s %s (%s): %d differences" % (args.arch, c.text, mc,
                                                       len(bad)))
            for b in bad[:4]:
                print("  " + b)
        else:
            tested.add(name)
    return tested, failed


def main():
    args = harness.arguments(
        ("--mc", dict(required=True, help="llvm-mc (names opcodes)")),
        ("--only", dict(help="families to run (comma-separated)")))
    groups = [("flat", flat_cases(args.arch), False),
              ("scratch", scratch_cases(args.arch), True),
              ("buffer", buffer_cases(args.arch), False),
              ("fmtbuf", fmtbuf_cases(args.arch), False),
              ("ds", ds_cases(args.arch), True)]
    tested, failed = set(), set()
    ninst = 0
    for gname, cases, scratch in groups:
        if args.only and gname not in args.only.split(","):
            continue
        work = os.path.join(args.work, gname)
        os.makedirs(work, exist_ok=True)
        if gname == "scratch":
            for j, c in enumerate(cases):
                adj = {1: 3, 2: 2}.get(c.elem[0], 0)
                c.extra["sval"] = 16 * (j % 3)
                c.extra["ptgt"] = PBASE_OFF + 16 * (j % 8) + adj
        # Text first (the assembler check needs it), then the real build.
        for k, c in enumerate(cases):
            c.index = k
        kernel_ir(cases, args.arch, scratch, gname == "ds")
        cases, bad = try_assemble(args, cases, work)
        for c, line in bad:
            print("skip %s: not accepted by the assembler: %s"
                  % (args.arch, line))
        t, f = build_and_run(args, cases, work, scratch, gname == "ds")
        ninst += len(cases)
        tested |= t
        failed |= f
    if not args.only or "fmtbuf" in args.only.split(","):
        failed |= check_refusals(args, os.path.join(args.work, "fmtbuf"))
    return harness.finish(args, ninst, tested, failed)


if __name__ == "__main__":
    sys.exit(main())

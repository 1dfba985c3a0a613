#!/usr/bin/env python3
"""Mutation test of `asmevo-verify check` over the kernel suite.

    verify-mutants.py --kernels-dir DIR --specs-dir DIR [--work-dir DIR]
                      [--kernels a,b] [--jobs N] [--per-rule N] [--seed N]
                      [--min-kill-rate P] [--max-flagged-equivalent N]
                      [--list-survivors] [--rules r1,r2]

For every suite kernel (gfx942) the MIR of K0 (`asmevo-opt --emit=mir`) is
edited by simple rules that look only at the MIR text and the launch spec,
never at the verifier; each mutant is rebuilt (`asmevo-opt mut.mir -o
mut.co`) and judged by `asmevo-verify check K0 mut.co --spec S`.

Semantic rules (the verifier should say `different` or `violation`):
  imm          the first integer immediate source of a VOP1/VOP2/VOPC (_e32)
               or SALU instruction: +1.0 for an f32/f16 operation, 0 becomes
               1.0f (0x3f800000) for an untyped _B32/_B64 one, +1 otherwise
  swap         the two register sources of a non-commutative VOP2/VOPC e32
               (both VGPRs) or SOP2/SOPC (same width) instruction exchanged
  store        a store (global/flat/buffer/scratch/scalar store, DS write)
               deleted
  waitcnt      an s_waitcnt deleted whose next instruction reads a register
               written by a load of the same block that this s_waitcnt (and
               no earlier one) forces to complete
  nop          a compiler-placed `s_nop N` (N > 0) shortened to `s_nop 0`
  oob          a strict integer V_CMP (lt/gt) of a VGPR against an SGPR
               that the function never sets from an immediate (a run-time
               bound), whose result feeds an S_AND_SAVEEXEC within the next
               3 instructions, made non-strict (`i < n` becomes `i <= n`)
  lastwg       `s_cmp_eq_u32 wgid_x, gridX-1; s_cbranch_scc1 <s_endpgm>` at
               the start of the main entry (gridX from the spec's defaults,
               the workgroup-id SGPR from the descriptor's user SGPR count)
  scale        a 32-bit global/flat store's data multiplied by a scalar
               argument whose default value in the spec is 1 (loaded from the
               kernarg segment into an unused SGPR at the main entry)
  barrier      an s_barrier deleted

Equivalent rewrites (the verifier must say `equivalent`):
  order        two adjacent independent ALU instructions exchanged: disjoint
               register defs/uses (implicit exec/vcc/scc/m0/mode included),
               no memory/waitcnt/nop/branch/barrier/MFMA/lane/DPP/setreg,
               and no register dependence between the pair and any
               instruction within 6 slots before or after it
  rename       a VGPR that appears only as a whole 32-bit register and is not
               a live-in of the kernel entry renamed to a VGPR that appears
               nowhere, below the descriptor's VGPR count
  pad          an `s_nop 0` inserted before an instruction outside the
               preload prologue

Sites are instructions K0 executes (vector ones with a non-empty exec mask)
in the first or last wave of the first or last workgroup at the default size
or the first variant (`asmevo-verify run --trace`; --no-live-only turns this
off): an edit of code the launch never reaches is not a semantic mutant.
Sites are picked with a fixed seed, at most --per-rule per rule and kernel.
A mutant whose code object is byte-identical to K0 is dropped; rebuild
failures are reported, not counted.
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("verify-mutants.py: needs PyYAML (python3-yaml)")

SEMANTIC = ["imm", "swap", "store", "waitcnt", "nop", "oob", "lastwg",
            "scale", "barrier"]
EQUIVALENT = ["order", "rename", "pad"]
VERDICTS = {0: "equivalent", 1: "different", 2: "violation", 3: "unknown"}

# ----------------------------------------------------------------------------
# MIR text model


class Instr:
    """One MIR instruction line, split into what the rules need."""

    def __init__(self, text):
        self.text = text
        body = text.strip()
        m = re.search(r",?\s*pre-instr-symbol <mcsymbol [^>]*>", body)
        self.suffix = body[m.start():] if m else ""
        core = body[:m.start()] if m else body
        self.defs_text = ""
        if re.match(r"^[^=]*\$[^=]*= ", core) and " = " in core:
            self.defs_text, core = core.split(" = ", 1)
        toks = core.split(None, 1)
        # Flags such as nofpexcept/nsw may precede the opcode.
        while toks and not re.match(r"^[A-Z][A-Za-z0-9_]*$", toks[0]):
            toks = toks[1].split(None, 1) if len(toks) > 1 else []
        self.opcode = toks[0] if toks else ""
        self.ops = split_ops(toks[1]) if len(toks) > 1 else []

    @property
    def explicit(self):
        return [o for o in self.ops if not o.startswith("implicit")]

    def defs(self):
        out = set()
        for d in split_ops(self.defs_text):
            out |= reg_units(d)
        for o in self.ops:
            if o.startswith("implicit-def"):
                out |= reg_units(o)
        return out

    def uses(self):
        out = set()
        for o in self.ops:
            if not o.startswith("implicit-def"):
                out |= reg_units(o)
        return out

    def render(self, opcode=None, ops=None, defs_text=None):
        opcode = opcode or self.opcode
        ops = self.ops if ops is None else ops
        defs_text = self.defs_text if defs_text is None else defs_text
        s = "    "
        if defs_text:
            s += defs_text + " = "
        s += opcode
        if ops:
            s += " " + ", ".join(ops)
        if self.suffix:
            s += (", " if ops else " ") + self.suffix.lstrip(", ")
        return s


def split_ops(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


PAIRED = ("vcc", "exec", "flat_scr", "xnack_mask")


def reg_units(op):
    """The 32-bit register units an operand names ($vgpr0_vgpr1 -> 2)."""
    out = set()
    for name in re.findall(r"\$([A-Za-z0-9_]+)", op):
        if name in PAIRED:
            out |= {name + "_lo", name + "_hi"}
        elif re.match(r"^(%s)_(lo|hi)$" % "|".join(PAIRED), name):
            out.add(name)
        else:
            parts = name.split("_")
            if all(re.match(r"^[a-z]+\d+$", p) for p in parts):
                out |= set(parts)
            else:
                out.add(name)
    return out


class Block:
    def __init__(self, header):
        self.header = header          # "  bb.3:" or with attributes
        self.num = int(re.match(r"\s*bb\.(\d+)", header).group(1))
        self.meta = []                # successors:/liveins: lines
        self.instrs = []              # Instr

    def liveins(self):
        for m in self.meta:
            if m.strip().startswith("liveins:"):
                return [x.strip() for x in m.split(":", 1)[1].split(",") if x.strip()]
        return []

    def set_liveins(self, regs):
        line = "    liveins: " + ", ".join(regs)
        for i, m in enumerate(self.meta):
            if m.strip().startswith("liveins:"):
                self.meta[i] = line
                return
        self.meta.append(line)

    def render(self):
        lines = [self.header] + self.meta
        if self.meta:
            lines.append("  ")
        lines += [i.text for i in self.instrs]
        return lines


class Kernel:
    """K0's MIR split into the text around the kernel body and its blocks."""

    def __init__(self, name, mir_text, info):
        self.name = name
        lines = mir_text.split("\n")
        start = None
        for i, l in enumerate(lines):
            if l.startswith("name:") and l.split(":", 1)[1].strip() == name:
                start = i
            if start is not None and l.startswith("body:"):
                body = i + 1
                break
        else:
            raise ValueError("no machine function '%s' in the MIR" % name)
        end = body
        while end < len(lines) and lines[end] != "..." and \
                (lines[end].startswith("  ") or lines[end] == ""):
            end += 1
        self.head, self.tail = lines[:body], lines[end:]
        self.blocks = []
        for l in lines[body:end]:
            if re.match(r"^  bb\.\d+", l):
                self.blocks.append(Block(l))
            elif not l.strip():
                continue
            elif re.match(r"^    (successors|liveins):", l):
                self.blocks[-1].meta.append(l)
            else:
                self.blocks[-1].instrs.append(Instr(l))
        self.info = info
        self.desc = info["kernels"][0]["descriptor"]
        fn = [f for f in info["functions"] if f["name"] == name][0]
        self.entry = int(fn["address"])
        self.main = 0  # index of the block where the preload entry starts
        if int(self.desc.get("preload_length", 0)):
            tag = "asmevo.orig.%x>" % (self.entry + 256)
            for bi, b in enumerate(self.blocks):
                if b.instrs and b.instrs[0].text.endswith(tag):
                    self.main = bi

    def all_instrs(self):
        for bi, b in enumerate(self.blocks):
            for ii, ins in enumerate(b.instrs):
                yield bi, ii, ins

    def render(self, blocks):
        body = []
        for b in blocks:
            body += b.render()
            body.append("  ")
        return "\n".join(self.head + body + self.tail)

    def copy_blocks(self):
        out = []
        for b in self.blocks:
            nb = Block(b.header)
            nb.meta = list(b.meta)
            nb.instrs = list(b.instrs)
            out.append(nb)
        return out

    def text_regs(self):
        regs = set()
        for _, _, i in self.all_instrs():
            regs |= i.defs() | i.uses()
        for b in self.blocks:
            for r in b.liveins():
                regs |= reg_units(r)
        return regs


# ----------------------------------------------------------------------------
# Instruction classes (by MC name)

MEM_RE = re.compile(r"(LOAD|STORE|ATOMIC|^DS_|^BUFFER_|^GLOBAL_|^FLAT_|"
                    r"^SCRATCH_|^S_DCACHE|^S_MEMTIME|^S_MEMREALTIME|^S_BUFFER)")
CTRL_RE = re.compile(r"^(S_BRANCH|S_CBRANCH|S_ENDPGM|S_SETPC|S_SWAPPC|"
                     r"S_CALL|S_TRAP|S_RFE|SI_)")
SPECIAL_RE = re.compile(r"^(S_WAITCNT|S_NOP|S_BARRIER|S_SETPRIO|S_SLEEP|"
                        r"S_SETREG|S_GETREG|S_SET_GPR_IDX|S_SENDMSG|S_ICACHE|"
                        r"S_TTRACE|S_SETHALT|S_SETKILL|S_DENORM|S_ROUND|"
                        r"V_MOVREL|V_READLANE|V_WRITELANE|V_READFIRSTLANE|"
                        r"V_MFMA|V_SMFMAC|V_ACCVGPR|V_INTERP|S_WAKEUP|"
                        r"S_CODE_END|S_INCPERFLEVEL|S_DECPERFLEVEL)")


def is_mem(op):
    return bool(MEM_RE.search(op))


def is_ctrl(op):
    return bool(CTRL_RE.match(op))


def is_plain_alu(ins):
    op = ins.opcode
    return (op.startswith(("V_", "S_")) and not is_mem(op) and
            not is_ctrl(op) and not SPECIAL_RE.match(op) and
            "_dpp" not in op and "_sdwa" not in op and "DPP" not in op)


def counter_of(op):
    """Which waitcnt counter a memory instruction is tracked by (gfx9)."""
    if op.startswith(("S_LOAD", "S_BUFFER", "S_STORE", "S_ATOMIC", "S_SCRATCH")):
        return "smem"
    if op.startswith(("DS_", "S_SENDMSG")):
        return "lgkm"
    if op.startswith(("GLOBAL_", "BUFFER_", "SCRATCH_", "FLAT_")):
        return "vm"
    return None


def waitcnt_fields(imm):
    imm &= 0xFFFF
    return {"vm": (imm & 0xF) | ((imm >> 14) & 3) << 4,
            "exp": (imm >> 4) & 7, "lgkm": (imm >> 8) & 0xF}


def forces(wait_imm, load_op, later_ops):
    """True when s_waitcnt wait_imm must wait for load_op, given the memory
    operations issued after it (in order) before the waitcnt."""
    f = waitcnt_fields(wait_imm)
    c = counter_of(load_op)
    if c == "vm":
        n = sum(1 for o in later_ops if counter_of(o) == "vm")
        return f["vm"] <= n
    if c in ("lgkm", "smem"):
        kinds = [counter_of(o) for o in later_ops]
        n = sum(1 for k in kinds if k in ("lgkm", "smem"))
        # Scalar memory returns out of order: only lgkmcnt(0) is sure.
        if c == "smem" or "smem" in kinds:
            return f["lgkm"] == 0
        return f["lgkm"] <= n
    return False


# ----------------------------------------------------------------------------
# Rules: each returns a list of sites; a site is (description-before,
# description-after, function(blocks) -> blocks) applied to a fresh copy.


def site(before, after, apply, touched):
    """touched: the K0 instructions the edit changes, deletes or sits next
    to; the site counts only when K0 executes all of them (--live-only)."""
    return {"before": before.strip(), "after": after.strip(), "apply": apply,
            "addrs": [orig_addr(i) for i in touched]}


def replace_instr(bi, ii, new_text):
    def apply(blocks):
        blocks[bi].instrs[ii] = Instr(new_text)
        return blocks
    return apply


def delete_instr(bi, ii):
    def apply(blocks):
        del blocks[bi].instrs[ii]
        return blocks
    return apply


def float_kind(op):
    if re.match(r"^V_CVT_F(16|32|64)_[IU]", op):
        return None
    if re.match(r"^V_\w*_F32_", op) and "_F64" not in op:
        return "f32"
    if re.match(r"^V_\w*_F16_", op):
        return "f16"
    return None


def half_to_float(h):
    return struct.unpack("<e", struct.pack("<H", h & 0xFFFF))[0]


def float_to_half(f):
    return struct.unpack("<H", struct.pack("<e", f))[0]


def bumped_imm(op, v):
    kind = float_kind(op)
    if v == 0 and re.search(r"_B(32|64)_", op):
        return 0x3F800000  # untyped bits: 0 becomes 1.0f, visible as either
    if kind == "f32":
        f = struct.unpack("<f", struct.pack("<I", v & 0xFFFFFFFF))[0]
        nb = struct.unpack("<I", struct.pack("<f", f + 1.0))[0]
        return nb - (1 << 32) if v < 0 and nb >= 1 << 31 else nb
    if kind == "f16":
        return float_to_half(half_to_float(v) + 1.0)
    return v + 1


def rule_imm(k, ctx):
    out = []
    for bi, ii, ins in k.all_instrs():
        op = ins.opcode
        if not is_plain_alu(ins) or "_F64" in op:
            continue
        if op.startswith("V_") and "_e32" not in op:
            continue  # VOP3 immediates include modifiers
        if op.startswith("S_") and not op.startswith(
                ("S_MOV", "S_ADD", "S_SUB", "S_MUL", "S_AND", "S_OR", "S_XOR",
                 "S_LSH", "S_ASHR", "S_BFE", "S_BFM", "S_CMP", "S_CSELECT",
                 "S_MIN", "S_MAX", "S_NOT", "S_ANDN2", "S_ORN2", "S_NAND",
                 "S_NOR", "S_XNOR", "S_ABS", "S_CMOV", "S_BREV", "S_SEXT")):
            continue
        ops = list(ins.ops)
        for oi, o in enumerate(ops):
            if re.match(r"^-?\d+$", o):
                v = int(o)
                nv = bumped_imm(op, v)
                if op.startswith("S_") and "K_" in op and not -32768 <= nv <= 65535:
                    break
                ops[oi] = str(nv)
                new = ins.render(ops=ops)
                out.append(site(ins.text, new, replace_instr(bi, ii, new), [ins]))
                break
    return out


NONCOMM = re.compile(r"^[VS]_(SUB|SUBREV|SUBB|SUBBREV|LSHL|LSHR|ASHR|LSHLREV|"
                     r"LSHRREV|ASHRREV|LDEXP|CNDMASK|ANDN2|ORN2|CSELECT|BFE|BFM|"
                     r"CMP_LT|CMP_GT|CMP_LE|CMP_GE|CMP_NLT|CMP_NGT|CMP_NLE|"
                     r"CMP_NGE|CMPK_LT|CMPK_GT)")


def src_positions(ins):
    return [i for i, o in enumerate(ins.ops) if not o.startswith("implicit")]


def width(o):
    return len(reg_units(o))


def rule_swap(k, ctx):
    out = []
    for bi, ii, ins in k.all_instrs():
        op = ins.opcode
        if not NONCOMM.match(op) or not is_plain_alu(ins) or "CMPK" in op:
            continue
        pos = src_positions(ins)
        if len(pos) != 2:
            continue
        a, b = ins.ops[pos[0]], ins.ops[pos[1]]
        ra, rb = a.split()[-1], b.split()[-1]
        if ra == rb:
            continue
        if op.startswith("V_"):
            if "_e32" not in op or not (re.match(r"^\$vgpr\d+$", ra) and
                                         re.match(r"^\$vgpr\d+$", rb)):
                continue
        else:
            if width(a) != width(b) and not (
                    width(a) <= 1 and width(b) <= 1):
                continue
            if width(a) == 0 and width(b) == 0:
                continue
        ops = list(ins.ops)
        ops[pos[0]], ops[pos[1]] = b, a
        new = ins.render(ops=ops)
        out.append(site(ins.text, new, replace_instr(bi, ii, new), [ins]))
    return out


def rule_store(k, ctx):
    out = []
    for bi, ii, ins in k.all_instrs():
        op = ins.opcode
        if ("STORE" in op or op.startswith("DS_WRITE")) and not ins.defs_text:
            out.append(site(ins.text, "(deleted)", delete_instr(bi, ii), [ins]))
    return out


def rule_waitcnt(k, ctx):
    out = []
    for bi, b in enumerate(k.blocks):
        for ii, w in enumerate(b.instrs):
            if not w.opcode.startswith("S_WAITCNT") or ii + 1 >= len(b.instrs):
                continue
            if not re.match(r"^-?\d+$", (w.ops or ["x"])[0]):
                continue
            imm = int(w.ops[0])
            reader = b.instrs[ii + 1]
            read = reader.uses()
            hit = False
            for li in range(ii - 1, -1, -1):
                L = b.instrs[li]
                common = L.defs() & read
                if not common:
                    continue
                if not is_mem(L.opcode) or counter_of(L.opcode) is None:
                    break  # last writer is not a load
                mem_after = [x.opcode for x in b.instrs[li + 1:ii]
                             if is_mem(x.opcode)]
                if not forces(imm, L.opcode, mem_after):
                    break
                # No earlier s_waitcnt between the load and this one forces it.
                earlier = False
                for wi in range(li + 1, ii):
                    x = b.instrs[wi]
                    if x.opcode.startswith("S_WAITCNT") and re.match(
                            r"^-?\d+$", (x.ops or ["x"])[0]):
                        between = [y.opcode for y in b.instrs[li + 1:wi]
                                   if is_mem(y.opcode)]
                        if forces(int(x.ops[0]), L.opcode, between):
                            earlier = True
                if not earlier:
                    hit = True
                break
            if hit:
                out.append(site(w.text, "(deleted; next: %s)" %
                                reader.text.strip(), delete_instr(bi, ii),
                                [w, reader]))
    return out


def rule_nop(k, ctx):
    out = []
    for bi, ii, ins in k.all_instrs():
        if ins.opcode.startswith("S_NOP") and ins.ops and \
                re.match(r"^\d+$", ins.ops[0]) and int(ins.ops[0]) > 0:
            new = ins.render(ops=["0"] + ins.ops[1:])
            out.append(site(ins.text, new, replace_instr(bi, ii, new), [ins]))
    return out


def rule_oob(k, ctx):
    out = []
    const_sgprs = set()
    for _, _, x in k.all_instrs():
        if x.opcode.startswith("S_MOV") and x.explicit and \
                re.match(r"^-?\d+$", x.explicit[0]):
            const_sgprs |= x.defs()
    for bi, b in enumerate(k.blocks):
        for ii, ins in enumerate(b.instrs):
            m = re.match(r"^V_CMP_(LT|GT)_(I32|U32)_(e32|e64)", ins.opcode)
            if not m:
                continue
            # The bound must be a run-time value (like n): an SGPR the
            # function never sets from an immediate.
            bound = [o for o in ins.explicit if re.match(r"^\$sgpr\d+$", o)]
            if len(bound) != 1 or bound[0][1:] in const_sgprs:
                continue
            d = ins.defs() - {"exec_lo", "exec_hi"}
            fed = any(x.opcode.startswith("S_AND_SAVEEXEC") and (x.uses() & d)
                      for x in b.instrs[ii + 1:ii + 4])
            if not fed:
                continue
            strict = {"LT": "LE", "GT": "GE"}[m.group(1)]
            newop = ins.opcode.replace("_%s_" % m.group(1), "_%s_" % strict, 1)
            new = ins.render(opcode=newop)
            out.append(site(ins.text, new, replace_instr(bi, ii, new), [ins]))
    return out


def next_block_numbers(blocks, n):
    top = max(b.num for b in blocks)
    return list(range(top + 1, top + 1 + n))


def add_livein(block, reg):
    li = block.liveins()
    if reg not in li:
        block.set_liveins(li + [reg])


def insertion_point(k, clobber):
    """Where code goes "at the start of the main entry": its first
    instruction, or after it when the kernel preloads arguments (the
    instruction at entry+256 must stay there), provided that one neither
    writes \p clobber nor ends the block."""
    b = k.blocks[k.main]
    if k.main == 0:
        return 0
    first = b.instrs[0]
    if len(b.instrs) < 2 or is_ctrl(first.opcode) or (first.defs() & clobber):
        return None
    return 1


def rule_lastwg(k, ctx):
    d = k.desc
    if not d["workgroup_id_xyz"][0]:
        return []
    gx = ctx["grid"][0]
    if gx < 1:
        return []
    wg = "$sgpr%d" % int(d["user_sgpr_count"])
    main = k.main
    at = insertion_point(k, reg_units(wg) | {"scc"})
    if at is None:
        return []
    before = k.blocks[main].instrs[at].text

    def apply(blocks):
        rest_n, end_n = next_block_numbers(blocks, 2)
        mb = blocks[main]
        rest = Block("  bb.%d:" % rest_n)
        rest.meta = list(mb.meta)
        rest.instrs = mb.instrs[at:]
        for bi in range(main + 1):
            add_livein(blocks[bi], wg)
        mb.meta = ["    successors: %%bb.%d, %%bb.%d" % (end_n, rest_n),
                   "    liveins: " + ", ".join(mb.liveins())]
        mb.instrs = mb.instrs[:at] + [
                     Instr("    S_CMP_EQ_U32_vi %s, %d, implicit-def $scc" %
                           (wg, gx - 1)),
                     Instr("    S_CBRANCH_SCC1_vi %%bb.%d, implicit $scc" % end_n)]
        end = Block("  bb.%d:" % end_n)
        end.instrs = [Instr("    S_ENDPGM_vi 0")]
        return blocks[:main + 1] + [rest] + blocks[main + 1:] + [end]
    after = "S_CMP_EQ_U32_vi %s, %d; S_CBRANCH_SCC1_vi -> S_ENDPGM" % (wg, gx - 1)
    return [site(before, after, apply, [k.blocks[main].instrs[at]])]


def unused_vgprs(k, regs):
    d = k.desc
    limit = (int(d["vgpr_granule"]) + 1) * 8
    # gfx90a/gfx94x: architected VGPRs end at accum_offset (AMDGPUUsage,
    # compute_pgm_rsrc3 ACCUM_OFFSET), AGPRs or not.
    if int(d.get("accum_offset", 0)) > 0:
        limit = min(limit, int(d["accum_offset"]))
    return [i for i in range(limit) if "vgpr%d" % i not in regs]


def unused_sgprs(k, regs):
    return [i for i in range(100) if "sgpr%d" % i not in regs]


def kernarg_sgpr(k):
    props = int(k.desc["kernel_code_properties"])
    if not props & 8:
        return None
    base = (4 if props & 1 else 0) + (2 if props & 2 else 0) + \
        (2 if props & 4 else 0)
    return base


def rule_scale(k, ctx):
    spec, kmeta = ctx["spec"], ctx["kmeta"]
    ka = kernarg_sgpr(k)
    if ka is None:
        return []
    # The explicit arguments, in metadata order, next to the spec's args.
    margs = [a for a in kmeta[".args"]
             if not a[".value_kind"].startswith("hidden_")]
    sargs = spec.get("args") or (spec.get("launches") or [{}])[0].get("args", [])
    scalars = spec.get("scalars", {})
    param = None
    for ma, sa in zip(margs, sargs):
        if isinstance(sa, str) and sa in scalars:
            sc = scalars[sa]
            if sc.get("value") in (1, 1.0) and sc.get("type") in ("i32", "u32", "f32") \
                    and int(ma[".size"]) == 4:
                param = (sa, sc["type"], int(ma[".offset"]))
                break
    if not param:
        return []
    outs = [b["type"] for b in spec.get("buffers", {}).values()
            if b.get("role") in ("out", "inout")]
    if outs and all(t == "f32" for t in outs):
        kind = "f32"
    elif outs and all(t in ("i32", "u32") for t in outs):
        kind = "int"
    else:
        return []
    regs = k.text_regs()
    fv, fs = unused_vgprs(k, regs), unused_sgprs(k, regs)
    if not fv or not fs:
        return []
    vt, st = "$vgpr%d" % fv[0], "$sgpr%d" % fs[0]
    kap = "$sgpr%d_sgpr%d" % (ka, ka + 1)
    main = k.main
    at = insertion_point(k, {"sgpr%d" % ka, "sgpr%d" % (ka + 1)})
    if at is None:
        return []
    out = []
    for bi, ii, ins in k.all_instrs():
        if bi < main or not re.match(r"^(GLOBAL_STORE_DWORD|FLAT_STORE_DWORD)(_SADDR)?_",
                                     ins.opcode):
            continue
        data = ins.ops[1]
        if not re.match(r"^(killed )?\$vgpr\d+$", data):
            continue
        dreg = data.split()[-1]

        def apply(blocks, bi=bi, ii=ii, ins=ins, dreg=dreg):
            mb = blocks[main]
            for x in range(main + 1):
                add_livein(blocks[x], "$sgpr%d" % ka)
                add_livein(blocks[x], "$sgpr%d" % (ka + 1))
            for x in range(main + 1, len(blocks)):
                add_livein(blocks[x], st)
            seq = []
            if param[1] == "f32" or kind == "int":
                pre = []
            else:
                pre = [Instr("    %s = V_CVT_F32_I32_e32_vi %s, implicit $mode, "
                             "implicit $exec" % (vt, st))]
            if kind == "f32":
                src = vt if pre else st
                seq = pre + [Instr("    %s = V_MUL_F32_e32_vi %s, %s, implicit "
                                   "$mode, implicit $exec" % (vt, src, dreg))]
            else:
                seq = [Instr("    %s = V_MUL_LO_U32_vi %s, %s, implicit $exec" %
                             (vt, st, dreg))]
            ops = list(ins.ops)
            ops[1] = vt
            b = blocks[bi]
            b.instrs = b.instrs[:ii] + seq + [Instr(ins.render(ops=ops))] + \
                b.instrs[ii + 1:]
            # lgkmcnt(0) only (vmcnt/expcnt fields at their maximum).
            mb.instrs = mb.instrs[:at] + [
                Instr("    %s = S_LOAD_DWORD_IMM_vi %s, %d, 0" %
                      (st, kap, param[2])),
                Instr("    S_WAITCNT_vi 49279")] + mb.instrs[at:]
            return blocks
        out.append(site(ins.text, "data * %s (%s = %s, %s)" %
                        (param[0], vt, param[0], st), apply, [ins]))
    return out


def rule_barrier(k, ctx):
    return [site(ins.text, "(deleted)", delete_instr(bi, ii), [ins])
            for bi, ii, ins in k.all_instrs() if ins.opcode.startswith("S_BARRIER")]


WINDOW = 6


def strip_kills(text):
    return text.replace("killed ", "")


def rule_order(k, ctx):
    out = []
    for bi, b in enumerate(k.blocks):
        if bi < k.main:
            continue
        n = len(b.instrs)
        for i in range(n - 1):
            A, B = b.instrs[i], b.instrs[i + 1]
            if not (is_plain_alu(A) and is_plain_alu(B)):
                continue
            dA, uA, dB, uB = A.defs(), A.uses(), B.defs(), B.uses()
            if (dA & (uB | dB)) or (dB & uA):
                continue
            lo, hi = max(0, i - WINDOW), min(n, i + 2 + WINDOW)
            if lo != i - WINDOW or hi != i + 2 + WINDOW:
                continue  # keep the whole window inside the block
            near = b.instrs[lo:i] + b.instrs[i + 2:hi]
            if any(x.opcode.startswith(("S_NOP", "V_MFMA", "V_SMFMAC"))
                   for x in near):
                continue
            pd, pu = dA | dB, uA | uB
            if any((x.defs() & (pu | pd)) or (x.uses() & pd) for x in near):
                continue

            def apply(blocks, bi=bi, i=i):
                ins = blocks[bi].instrs
                a, c = ins[i], ins[i + 1]
                ins[i], ins[i + 1] = Instr(strip_kills(c.text)), Instr(strip_kills(a.text))
                return blocks
            out.append(site(A.text + " ; " + B.text.strip(),
                            B.text.strip() + " ; " + A.text.strip(), apply,
                            [A, B]))
    return out


def rule_rename(k, ctx):
    regs = k.text_regs()
    entry_live = set()
    for bi in range(k.main + 1):
        for r in k.blocks[bi].liveins():
            entry_live |= reg_units(r)
    text = "\n".join(i.text for _, _, i in k.all_instrs())
    if re.search(r"V_MOVREL|S_SET_GPR_IDX", text):
        return []
    free = unused_vgprs(k, regs)
    if not free:
        return []
    out = []
    for r in sorted(regs):
        m = re.match(r"^vgpr(\d+)$", r)
        if not m or r in entry_live:
            continue
        # Only whole 32-bit uses: no tuple names it.
        if re.search(r"\$(vgpr\d+_)*%s_|_%s\b" % (r, r), text):
            continue
        src = "$" + r
        dst = "$vgpr%d" % free[zlib.crc32(r.encode()) % len(free)]
        pat = re.compile(re.escape(src) + r"(?![0-9_])")

        def apply(blocks, pat=pat, dst=dst):
            for b in blocks:
                b.meta = [pat.sub(dst, m) for m in b.meta]
                b.instrs = [Instr(pat.sub(dst, i.text)) for i in b.instrs]
            return blocks
        users = [i for _, _, i in k.all_instrs() if pat.search(i.text)]
        out.append(site(src, dst, apply, users))
    return out


def rule_pad(k, ctx):
    out = []
    for bi, b in enumerate(k.blocks):
        if bi < k.main:
            continue
        for ii, ins in enumerate(b.instrs):
            if bi == k.main and ii == 0 and k.main > 0:
                continue

            def apply(blocks, bi=bi, ii=ii):
                blocks[bi].instrs.insert(ii, Instr("    S_NOP_vi 0"))
                return blocks
            out.append(site(ins.text, "S_NOP_vi 0 ; " + ins.text.strip(), apply,
                            [ins]))
    return out


RULES = {"imm": rule_imm, "swap": rule_swap, "store": rule_store,
         "waitcnt": rule_waitcnt, "nop": rule_nop, "oob": rule_oob,
         "lastwg": rule_lastwg, "scale": rule_scale, "barrier": rule_barrier,
         "order": rule_order, "rename": rule_rename, "pad": rule_pad}

# ----------------------------------------------------------------------------
# Spec defaults (enough of docs/launch-spec.md to evaluate the grid)


def eval_expr(e, env):
    if isinstance(e, (int, float)):
        return e
    funcs = {"min": min, "max": max,
             "ceil_div": lambda a, b: -(-a // b),
             "align": lambda a, b: -(-a // b) * b}
    s = str(e).replace("/", "//")
    return int(eval(s, {"__builtins__": {}}, dict(funcs, **env)))


def spec_defaults(spec):
    env = {}
    for name, sc in (spec.get("scalars") or {}).items():
        v = sc.get("value")
        if isinstance(v, str):
            v = eval_expr(v, env)
        env[name] = v
    launch = spec if "kernel" in spec else spec["launches"][0]
    grid = [eval_expr(g, env) for g in launch.get("grid", [1])]
    return env, grid + [1] * (3 - len(grid))


def spec_sizes(spec):
    """(scalars, grid) of the default size and of each variant."""
    out = [spec_defaults(spec)]
    for v in spec.get("variants") or []:
        sp = dict(spec)
        sp["scalars"] = {}
        for n, sc in (spec.get("scalars") or {}).items():
            sc = dict(sc)
            if n in v:
                sc["value"] = v[n]
            sp["scalars"][n] = sc
        out.append(spec_defaults(sp))
    return out


def launch_block(spec):
    launch = spec if "kernel" in spec else spec["launches"][0]
    b = [eval_expr(x, {}) for x in launch.get("block", [1])]
    return b + [1] * (3 - len(b))


ORIG_RE = re.compile(r"asmevo\.orig\.([0-9a-f]+)>")


def orig_addr(ins):
    m = ORIG_RE.search(ins.text)
    return int(m.group(1), 16) if m else None


def live_addresses(args, co, spec_path, spec, outdir):
    """Addresses K0 executes (vector instructions: with a non-empty exec
    mask) in the first and last wave of the first and last workgroup, at the
    default size and the first variant."""
    block = launch_block(spec)
    waves = max(1, -(-block[0] * block[1] * block[2] // 64))
    live = set()
    for variant, (_, grid) in list(enumerate(spec_sizes(spec)))[:2]:
        last = "%d,%d,%d" % tuple(max(0, g - 1) for g in grid)
        for wg in sorted({"0,0,0", last}):
            for w in sorted({0, waves - 1}):
                r = run([args.verify, "run", co, "--spec", spec_path,
                         "--variant=%d" % variant, "--output-dir", outdir,
                         "--trace=%s,%d" % (wg, w)])
                for m in re.finditer(r"^0x([0-9a-f]+) exec=0x([0-9a-f]+)\s+(\S+)",
                                     r.stdout + r.stderr, re.M):
                    a, ex, mn = int(m.group(1), 16), int(m.group(2), 16), m.group(3)
                    if ex or mn.startswith("s_"):
                        live.add(a)
    return live


def site_is_live(k, s, live):
    return all(a in live for a in s.get("addrs", []))


# ----------------------------------------------------------------------------
# Running


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


def make_mutants(args, name, work):
    co = os.path.join(args.kernels_dir, "suite_%s-gfx942.co" % name)
    spec_path = os.path.join(args.specs_dir, name + ".yaml")
    kdir = os.path.join(work, name)
    os.makedirs(kdir, exist_ok=True)
    mir_path = os.path.join(kdir, "k0.mir")
    r = run([args.opt, co, "--emit=mir", "-o", mir_path])
    if r.returncode:
        return [], ["%s: cannot lift: %s" % (name, r.stderr.strip())]
    info = yaml.safe_load(run([args.opt, co, "--info"]).stdout)
    meta = yaml.safe_load(info["metadata"])
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    env, grid = spec_defaults(spec)
    with open(mir_path) as f:
        k = Kernel(name, f.read(), info)
    kmeta = [x for x in meta["amdhsa.kernels"] if x[".name"] == name][0]
    ctx = {"spec": spec, "grid": grid, "env": env, "kmeta": kmeta}
    with open(co, "rb") as f:
        k0_bytes = f.read()
    mutants, problems = [], []
    live = None
    if args.live_only:
        live = live_addresses(args, co, spec_path, spec,
                              os.path.join(kdir, "trace-out"))
    for rule in args.rules:
        sites = RULES[rule](k, ctx)
        if live is not None:
            sites = [s for s in sites if site_is_live(k, s, live)]
        rng = random.Random(args.seed * 1000003 + zlib.crc32(
            ("%s/%s" % (name, rule)).encode()))
        rng.shuffle(sites)
        made = 0
        for si, s in enumerate(sites):
            if made >= args.per_rule:
                break
            tag = "%s.%s.%d" % (name, rule, si)
            mpath = os.path.join(kdir, tag + ".mir")
            opath = os.path.join(kdir, tag + ".co")
            with open(mpath, "w") as f:
                f.write(k.render(s["apply"](k.copy_blocks())))
            r = run([args.opt, mpath, "-o", opath])
            m = {"kernel": name, "rule": rule, "tag": tag, "before": s["before"],
                 "after": s["after"], "co": opath, "k0": co, "spec": spec_path}
            made += 1
            if r.returncode:
                m["verdict"] = "error"
                m["error_kind"] = "rebuild failed"
                m["line"] = (r.stderr.strip().splitlines()
                                                  or ["?"])[0]
                mutants.append(m)
                continue
            with open(opath, "rb") as f:
                if f.read() == k0_bytes:
                    made -= 1  # not a mutant
                    continue
            mutants.append(m)
    return mutants, problems


def check(args, m):
    if m.get("verdict"):
        return m
    t = time.time()
    receipt = m["co"][:-3] + ".json"
    try:
        r = run([args.verify, "check", m["k0"], m["co"], "--spec", m["spec"],
                 "--receipt", receipt], timeout=args.timeout)
    except subprocess.TimeoutExpired:
        m["seconds"] = time.time() - t
        m["verdict"] = "unknown"
        m["line"] = "timeout: no verdict after %ds" % args.timeout
        return m
    m["seconds"] = time.time() - t
    m["verdict"] = VERDICTS.get(r.returncode, "error")
    lines = r.stderr.strip().splitlines()
    m["line"] = lines[-1] if lines else "(exit %d)" % r.returncode
    if m["verdict"] == "error":
        m["error_kind"] = "asmevo-verify exit %d" % r.returncode
        m["line"] = (lines or ["(no output)"])[0]
    return m


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernels-dir", required=True,
                   help="directory with suite_<name>-gfx942.co")
    p.add_argument("--specs-dir", required=True)
    p.add_argument("--work-dir", help="where mutants go (default: a temp dir)")
    p.add_argument("--kernels", help="comma-separated suite kernel names")
    p.add_argument("--rules", default=",".join(SEMANTIC + EQUIVALENT))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--per-rule", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=int, default=120,
                   help="seconds per check; no verdict by then is `unknown`")
    p.add_argument("--min-kill-rate", type=float)
    p.add_argument("--max-flagged-equivalent", type=int)
    p.add_argument("--list-survivors", action="store_true")
    p.add_argument("--equivalent-mutants",
                   help="file of mutants shown to be equivalent programs "
                        "('KERNEL RULE 0xK0ADDR  # why', one per line): "
                        "left out of the kill rate, listed, and an error "
                        "if the verifier finds them different")
    p.add_argument("--no-live-only", dest="live_only", action="store_false",
                   help="also mutate instructions K0 does not execute in the "
                   "traced waves")
    p.add_argument("--opt", default=shutil.which("asmevo-opt") or "asmevo-opt")
    p.add_argument("--verify", default=shutil.which("asmevo-verify") or
                   "asmevo-verify")
    args = p.parse_args()
    args.rules = [r for r in args.rules.split(",") if r]
    for r in args.rules:
        if r not in RULES:
            p.error("unknown rule '%s'" % r)
    if args.kernels:
        names = args.kernels.split(",")
    else:
        names = sorted(f[:-5] for f in os.listdir(args.specs_dir)
                       if f.endswith(".yaml"))
    work = args.work_dir or tempfile.mkdtemp(prefix="verify-mutants.")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    mutants, problems = [], []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as ex:
        for ms, ps in ex.map(lambda n: make_mutants(args, n, work), names):
            mutants += ms
            problems += ps
        mutants = list(ex.map(lambda m: check(args, m), mutants))
    for pr in problems:
        print("error: " + pr)

    cols = ["equivalent", "different", "violation", "unknown", "error"]
    print("%-9s %-10s %7s %9s %9s %10s %7s %6s" %
          ("rule", "kind", "mutants", "different", "violation", "equivalent",
           "unknown", "errors"))
    known = {}
    if args.equivalent_mutants:
        with open(args.equivalent_mutants) as f:
            for line in f:
                line = line.split("#", 1)[0].split()
                if line:
                    known[(line[0], line[1], int(line[2], 16))] = False
    contradicted = []
    for m in mutants:
        for (k, r, a) in known:
            if m["kernel"] == k and m["rule"] == r and \
                    ("asmevo.orig.%x>" % a) in m["before"]:
                known[(k, r, a)] = True
                if m["verdict"] in ("different", "violation"):
                    contradicted.append(m)
                m["known_equivalent"] = True
    tot = {"sem": 0, "killed": 0, "eq": 0, "flagged": 0, "errors": 0,
           "known": 0}
    for rule in args.rules:
        ms = [m for m in mutants if m["rule"] == rule]
        tot["known"] += sum(1 for m in ms if m.get("known_equivalent"))
        ms = [m for m in ms if not m.get("known_equivalent")]
        c = {v: sum(1 for m in ms if m["verdict"] == v) for v in cols}
        kind = "semantic" if rule in SEMANTIC else "equivalent"
        n = len(ms) - c["error"]
        print("%-9s %-10s %7d %9d %9d %10d %7d %6d" %
              (rule, kind, n, c["different"], c["violation"], c["equivalent"],
               c["unknown"], c["error"]))
        tot["errors"] += c["error"]
        if kind == "semantic":
            tot["sem"] += n
            tot["killed"] += c["different"] + c["violation"]
        else:
            tot["eq"] += n
            tot["flagged"] += n - c["equivalent"]
    rate = 100.0 * tot["killed"] / tot["sem"] if tot["sem"] else 100.0
    print("kernels: %d, semantic mutants: %d, killed: %d, kill rate: %.1f%%, "
          "equivalent rewrites: %d, flagged: %d, errors: %d, "
          "time: %.0fs" % (len(names), tot["sem"], tot["killed"], rate,
                            tot["eq"], tot["flagged"], tot["errors"],
                            time.time() - t0))
    if known:
        print("mutants shown equivalent (not counted): %d" % tot["known"])
        for m in mutants:
            if m.get("known_equivalent"):
                print("  known equivalent: %s %s [%s] %s" %
                      (m["kernel"], m["rule"], m["tag"], m["verdict"]))
    if args.list_survivors:
        for m in mutants:
            sem = m["rule"] in SEMANTIC
            if m.get("known_equivalent") or m["verdict"] == "error" or \
                    (sem and m["verdict"] in ("different", "violation")) or \
                    (not sem and m["verdict"] == "equivalent"):
                continue
            print("survivor: %s %s %s [%s]\n  before: %s\n  after:  %s\n  "
                  "verdict: %s" % (m["kernel"], m["rule"], m["verdict"],
                                   m["tag"], m["before"], m["after"], m["line"]))
        for m in mutants:
            if m["verdict"] == "error":
                print("error: %s %s %s [%s]\n  before: %s\n  after:  %s\n"
                      "  %s" % (m["kernel"], m["rule"], m["error_kind"],
                                m["tag"], m["before"], m["after"], m["line"]))
    ok = True
    if args.min_kill_rate is not None and rate < args.min_kill_rate:
        print("FAIL: kill rate %.1f%% < %g%%" % (rate, args.min_kill_rate))
        ok = False
    if args.max_flagged_equivalent is not None and \
            tot["flagged"] > args.max_flagged_equivalent:
        print("FAIL: %d equivalent rewrites flagged > %d" %
              (tot["flagged"], args.max_flagged_equivalent))
        ok = False
    for m in contradicted:
        print("FAIL: %s %s [%s] is listed as equivalent but judged %s: %s" %
              (m["kernel"], m["rule"], m["tag"], m["verdict"], m["line"]))
        ok = False
    if problems:
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

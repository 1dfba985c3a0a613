#!/usr/bin/env python3
"""Writes damaged copies ("mutants") of AMDGPU code objects, offload bundles,
HIP host binaries and AsmEvo .mir files, for the bad-input tests.

    mutate_code_object.py KIND [--seed N] [--count N] -o DIR INPUT...

KIND is one of:
  truncate    the file cut at each sixteenth of its length (1/16 .. 15/16)
  emachine    a wrong e_machine (x86-64, 0, 0xffff)
  note        corrupt NT_AMDGPU_METADATA notes (sizes, msgpack, section size)
  descriptor  corrupt kernel descriptors (entry offset unaligned / outside
              .text / not executable / wrapping, reserved workitem-id 3,
              accum_offset past the VGPRs, descriptor symbol outside the file)
  symbols     corrupt symbols and symbol tables (two functions of one name,
              a function inside the kernel, values/sizes/names out of range,
              bad sh_link, sizes, e_shstrndx, e_shentsize)
  text-words  random 32-bit words written over .text (seeded; --count
              mutants per input, 1 to 8 words each)
  disasm-crash  encodings LLVM 22's AMDGPU disassembler crashes on (VOP3,
              VOP3P with a literal in src0/src1/src2, MUBUF/MTBUF with a
              literal soffset, VOPC-in-VOP3 with a literal SGPR destination,
              SDWA with a reserved select 7; all invalid
              on gfx8/gfx9)
              written over the first instruction of .text, and at +0x100
              (the entry of a kernel with preloaded arguments)
  bundle      corrupt clang offload bundle headers (uncompressed: entry count
              2^63, offsets/sizes/id lengths past the end; compressed: bad
              version, method, sizes, stream bytes) and truncations
  host        corrupt .hip_fatbin sections of a HIP host ELF
  mir         malformed AsmEvo .mir text (syntax errors, a wrong register
              class, an unknown opcode, a branch to a missing block, a
              corrupt embedded image or descriptor, truncations)

Every mutant is written to DIR with a name that says what was done, and a
line is appended to DIR/MANIFEST.tsv:

    <mutant path> TAB <kind> TAB <expect> TAB <needle regex> TAB <what>

<expect> is "error" when any correct reader must reject the mutant, or
"either" when the damage may still decode (the tool must then round-trip it
correctly). <needle regex> is what the error message must also contain besides
the file name (a kernel name, an offset), or empty.

Only the Python standard library is used; the same seed gives the same bytes.
"""

import argparse
import os
import random
import re
import struct
import sys

EM_AMDGPU = 224
EM_X86_64 = 62
SHT_SYMTAB = 2
SHT_NOTE = 7
SHT_DYNSYM = 11
SHF_EXECINSTR = 0x4
NT_AMDGPU_METADATA = 32

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
CCOB_MAGIC = b"CCOB"


class Section:
    def __init__(self, index, name, sh_type, flags, addr, offset, size, link,
                 entsize, header_offset):
        self.index = index
        self.name = name
        self.type = sh_type
        self.flags = flags
        self.addr = addr
        self.offset = offset
        self.size = size
        self.link = link
        self.entsize = entsize
        self.header_offset = header_offset  # file offset of the Shdr


class Elf:
    """A minimal ELF64 little-endian reader: sections and symbols."""

    def __init__(self, data):
        self.data = bytes(data)
        if self.data[:4] != b"\x7fELF" or self.data[4] != 2 or self.data[5] != 1:
            raise ValueError("not an ELF64 little-endian file")
        (self.e_type, self.e_machine) = struct.unpack_from("<HH", self.data, 16)
        self.e_shoff = struct.unpack_from("<Q", self.data, 0x28)[0]
        (self.e_shentsize, self.e_shnum,
         self.e_shstrndx) = struct.unpack_from("<HHH", self.data, 0x3a)
        raw = []
        for i in range(self.e_shnum):
            off = self.e_shoff + i * self.e_shentsize
            (name, sh_type, flags, addr, offset, size, link, _info, _align,
             entsize) = struct.unpack_from("<IIQQQQIIQQ", self.data, off)
            raw.append((name, sh_type, flags, addr, offset, size, link,
                        entsize, off))
        strtab = raw[self.e_shstrndx]
        self.sections = []
        for i, r in enumerate(raw):
            self.sections.append(Section(i, self._str(strtab[4], r[0]), *r[1:]))

    def _str(self, table_offset, index):
        start = table_offset + index
        end = self.data.index(b"\0", start)
        return self.data[start:end].decode("latin-1")

    def section(self, name):
        for s in self.sections:
            if s.name == name:
                return s
        return None

    def section_for_addr(self, addr):
        for s in self.sections:
            if s.flags & 0x2 and s.addr <= addr < s.addr + s.size:
                return s
        return None

    def file_offset(self, addr):
        s = self.section_for_addr(addr)
        if s is None:
            raise ValueError("address 0x%x is in no section" % addr)
        return s.offset + addr - s.addr

    def symbols(self):
        """(name, value, size, info, shndx, file offset of the Sym) tuples of
        .symtab, or of .dynsym when there is no .symtab."""
        tables = [s for s in self.sections if s.type == SHT_SYMTAB]
        if not tables:
            tables = [s for s in self.sections if s.type == SHT_DYNSYM]
        out = []
        for t in tables:
            strtab = self.sections[t.link]
            for i in range(1, t.size // 24):
                off = t.offset + i * 24
                (name, info, _other, shndx, value,
                 size) = struct.unpack_from("<IBBHQQ", self.data, off)
                out.append((self._str(strtab.offset, name), value, size, info,
                            shndx, off))
        return out

    def kernels(self):
        """(kernel name, descriptor file offset, kd symbol file offset)."""
        out = []
        for name, value, _size, info, _shndx, sym_off in self.symbols():
            if info & 0xf == 1 and name.endswith(".kd"):
                out.append((name[:-3], self.file_offset(value), sym_off))
        return out

    def notes(self):
        """(note section, offset of the note header in the file, namesz,
        descsz, type) of every note."""
        out = []
        for s in self.sections:
            if s.type != SHT_NOTE:
                continue
            off = 0
            while off + 12 <= s.size:
                namesz, descsz, ntype = struct.unpack_from(
                    "<III", self.data, s.offset + off)
                out.append((s, s.offset + off, namesz, descsz, ntype))
                off += 12 + align4(namesz) + align4(descsz)
        return out


def align4(v):
    return (v + 3) & ~3


class Writer:
    def __init__(self, outdir, kind):
        self.outdir = outdir
        self.kind = kind
        self.count = 0
        os.makedirs(outdir, exist_ok=True)
        self.manifest = open(os.path.join(outdir, "MANIFEST.tsv"), "a")

    def add(self, source, tag, data, expect, what, needle=""):
        base = os.path.basename(source)
        stem, ext = os.path.splitext(base)
        name = "%s.%s-%s%s" % (stem, self.kind, tag, ext)
        path = os.path.join(self.outdir, name)
        with open(path, "wb") as f:
            f.write(data)
        self.manifest.write("\t".join([path, self.kind, expect, needle,
                                       what]) + "\n")
        self.count += 1

    def close(self):
        self.manifest.close()


def put(data, offset, fmt, *values):
    b = bytearray(data)
    struct.pack_into(fmt, b, offset, *values)
    return bytes(b)


#===----------------------------------------------------------------------===#
# Mutators. Each takes (writer, path, bytes, rng, args).
#===----------------------------------------------------------------------===#

def mutate_truncate(w, path, data, _rng, _args):
    for i in range(1, 16):
        cut = len(data) * i // 16
        w.add(path, "%02dof16" % i, data[:cut], "error",
              "cut at %d/16 (%d of %d bytes)" % (i, cut, len(data)))


def mutate_emachine(w, path, data, _rng, _args):
    for tag, machine in (("x86_64", EM_X86_64), ("none", 0),
                         ("ffff", 0xffff)):
        w.add(path, tag, put(data, 18, "<H", machine), "error",
              "e_machine = %d" % machine)


def metadata_note(elf):
    for sec, off, namesz, descsz, ntype in elf.notes():
        if ntype == NT_AMDGPU_METADATA:
            return sec, off, namesz, descsz
    raise ValueError("no NT_AMDGPU_METADATA note")


def mutate_note(w, path, data, _rng, _args):
    elf = Elf(data)
    sec, off, namesz, descsz = metadata_note(elf)
    desc = off + 12 + align4(namesz)
    # Errors should say where: "note section '.note'+0x..".
    where = r"0x[0-9a-fA-F]+"
    w.add(path, "namesz-huge", put(data, off, "<I", 0xffffffff), "error",
          "metadata note namesz = 0xffffffff", where)
    w.add(path, "descsz-huge", put(data, off + 4, "<I", 0xffffffff), "error",
          "metadata note descsz = 0xffffffff", where)
    w.add(path, "descsz-past-section",
          put(data, off + 4, "<I", sec.offset + sec.size - desc + 4), "error",
          "metadata note descsz runs 4 bytes past the note section", where)
    # Half of the msgpack, and the rest read as further (garbage) notes.
    w.add(path, "descsz-half", put(data, off + 4, "<I", descsz // 2),
          "error", "metadata note descsz halved")
    w.add(path, "msgpack-reserved-byte", put(data, desc, "<B", 0xc1), "error",
          "metadata msgpack starts with the reserved byte 0xc1")
    # A map header promising 2^32-1 entries.
    w.add(path, "msgpack-huge-map", put(data, desc, ">BI", 0xdf, 0xffffffff),
          "error", "metadata msgpack map32 with 2^32-1 entries")
    w.add(path, "section-past-eof",
          put(data, sec.header_offset + 0x20, "<Q", len(data)), "error",
          "note section sh_size reaches past the end of the file")
    w.add(path, "section-offset-huge",
          put(data, sec.header_offset + 0x18, "<Q", 0xfffffffffffffff0),
          "error", "note section sh_offset = 2^64-16")


def text_section(elf):
    s = elf.section(".text")
    if s is None:
        s = next(x for x in elf.sections if x.flags & SHF_EXECINSTR)
    return s


def mutate_descriptor(w, path, data, _rng, _args):
    elf = Elf(data)
    text = text_section(elf)
    kernels = elf.kernels()
    if not kernels:
        raise ValueError("no kernel descriptors")
    name, kd, sym = kernels[0]
    entry_field = kd + 16
    entry = struct.unpack_from("<q", data, entry_field)[0]
    kd_addr = struct.unpack_from("<Q", data, sym + 8)[0]
    rsrc2 = struct.unpack_from("<I", data, kd + 52)[0]
    rsrc3 = struct.unpack_from("<I", data, kd + 44)[0]
    needle = re.escape(name)

    def entry_to(tag, value, what, expect="error"):
        w.add(path, tag, put(data, entry_field, "<q", value), expect,
              "kernel %s: %s" % (name, what), needle)

    entry_to("entry-unaligned", entry + 4, "entry offset + 4 (not aligned)")
    entry_to("entry-past-text",
             text.addr + text.size + 0x10000 - kd_addr,
             "entry offset points 64 KiB past .text")
    entry_to("entry-far", 0x7ffffffffffff000, "entry offset 2^63-4096")
    entry_to("entry-wraps", -0x8000000000000000,
             "entry offset -2^63 (address wraps)")
    entry_to("entry-in-rodata", (kd_addr & ~0xff) - kd_addr,
             "entry offset points at the descriptor's own page (.rodata)")
    # 256-aligned, inside .text, but not where any function starts: may be
    # a legal (if odd) kernel, so either outcome is fine.
    inner = (entry + kd_addr + 0x100)
    if text.addr <= inner < text.addr + text.size:
        entry_to("entry-mid-text", inner - kd_addr,
                 "entry offset + 256 (inside .text)", "either")
    w.add(path, "workitem-id-3", put(data, kd + 52, "<I", rsrc2 | (3 << 11)),
          "error", "kernel %s: ENABLE_VGPR_WORKITEM_ID = 3 (reserved)" % name,
          needle)
    w.add(path, "accum-offset-63",
          put(data, kd + 44, "<I", (rsrc3 & ~0x3f) | 0x3f), "either",
          "kernel %s: accum_offset field 63 (256 VGPRs)" % name, needle)
    w.add(path, "user-sgprs-31",
          put(data, kd + 52, "<I", (rsrc2 & ~(0x1f << 1)) | (31 << 1)),
          "either", "kernel %s: 31 user SGPRs" % name, needle)
    w.add(path, "preload-127",
          put(data, kd + 58, "<H", 127), "either",
          "kernel %s: kernarg_preload length 127" % name, needle)
    w.add(path, "lds-4g", put(data, kd, "<I", 0xffffffff), "error",
          "kernel %s: group_segment_fixed_size 2^32-1" % name, needle)
    w.add(path, "kd-symbol-outside", put(data, sym + 8, "<Q",
                                         0xfffffffffffff000),
          "error", "kernel %s: .kd symbol value 2^64-4096" % name, needle)
    kd_sec = elf.section_for_addr(kd_addr)
    w.add(path, "kd-symbol-at-section-end",
          put(data, sym + 8, "<Q", kd_sec.addr + kd_sec.size - 32), "error",
          "kernel %s: .kd symbol 32 bytes before its section's end" % name,
          needle)


def mutate_symbols(w, path, data, _rng, _args):
    elf = Elf(data)
    syms = elf.symbols()
    funcs = [s for s in syms if s[3] & 0xf == 2]
    if not funcs:
        raise ValueError("no function symbols")
    kname, _kd, _ksym = elf.kernels()[0]
    kfunc = next((s for s in funcs if s[0] == kname), funcs[0])
    name_of = {s[0]: struct.unpack_from("<I", data, s[5])[0] for s in syms}
    tables = [s for s in elf.sections if s.type in (SHT_SYMTAB, SHT_DYNSYM)]
    # Two functions of one name at different addresses (as two static
    # functions of different translation units would be).
    other = next((s for s in funcs if s[1] != kfunc[1]), None)
    if other is not None:
        w.add(path, "dup-func-name",
              put(data, kfunc[5], "<I", name_of[other[0]]), "either",
              "kernel function symbol renamed to '%s'" % other[0])
    # Some other symbol turned into a 4-byte function 8 bytes into the
    # kernel: the kernel's code range then ends there.
    spare = next((s for s in syms
                  if s[0] not in (kname, kname + ".kd") and s[1] != kfunc[1]),
                 None)
    if spare is not None:
        b = put(data, spare[5] + 4, "<B", (2 << 0) | (spare[3] & 0xf0))
        b = put(b, spare[5] + 6, "<H", elf.section_for_addr(kfunc[1]).index)
        w.add(path, "func-inside-kernel",
              put(b, spare[5] + 8, "<QQ", kfunc[1] + 8, 4), "either",
              "symbol '%s' made a 4-byte function at kernel entry + 8" %
              spare[0])
    w.add(path, "func-value-outside",
          put(data, kfunc[5] + 8, "<Q", 0xfffffffffffff000), "either",
          "function '%s' at 2^64-4096" % kfunc[0])
    w.add(path, "func-size-huge",
          put(data, kfunc[5] + 16, "<Q", 1 << 63), "either",
          "function '%s' of size 2^63" % kfunc[0])
    w.add(path, "name-out-of-range", put(data, kfunc[5], "<I", 0xfffffff0),
          "error", "symbol name offset 0xfffffff0")
    for t in tables:
        w.add(path, "%s-link-999" % t.name.lstrip("."),
              put(data, t.header_offset + 0x28, "<I", 999), "error",
              "%s sh_link = 999" % t.name)
        w.add(path, "%s-size-odd" % t.name.lstrip("."),
              put(data, t.header_offset + 0x20, "<Q", t.size - 5), "either",
              "%s sh_size not a multiple of the entry size" % t.name)
        w.add(path, "%s-entsize-0" % t.name.lstrip("."),
              put(data, t.header_offset + 0x38, "<Q", 0), "either",
              "%s sh_entsize = 0" % t.name)
    w.add(path, "shstrndx-huge", put(data, 0x3e, "<H", 0xfff0), "error",
          "e_shstrndx = 0xfff0")
    w.add(path, "shentsize-odd", put(data, 0x3a, "<H", 63), "error",
          "e_shentsize = 63")


def mutate_text_words(w, path, data, rng, args):
    elf = Elf(data)
    text = text_section(elf)
    words = text.size // 4
    for i in range(args.count):
        b = bytearray(data)
        n = rng.randint(1, 8)
        spots = []
        for _ in range(n):
            k = rng.randrange(words)
            v = rng.getrandbits(32)
            struct.pack_into("<I", b, text.offset + 4 * k, v)
            spots.append("+0x%x=0x%08x" % (4 * k, v))
        w.add(path, "%02d" % i, bytes(b), "either",
              ".text " + " ".join(spots))


def mutate_disasm_crash(w, path, data, _rng, _args):
    elf = Elf(data)
    text = text_section(elf)
    for name, lo, hi in [("vop3-src0", 0xd1050007, 0x475200ff),
                         ("vop3-src1", 0xd1050007, 0x0001fe01),
                         ("vop3-src2", 0xd1c10007, 0x03fe0101),
                         ("vopc-e64-sdst", 0xd0c100ff, 0x00022093),
                         ("readlane-sdst", 0xd28900ff, 0x00000101),
                         ("vop3p-src0", 0xd38f0007, 0x180200ff),
                         ("mubuf-soffset", 0xe0500000, 0xff000100),
                         ("mtbuf-soffset", 0xe8000000, 0xff000100),
                         ("sdwa-src1-sel", 0x020000f9, 0x07060601),
                         ("sdwa-dst-sel", 0x7e0002f9, 0x00060701)]:
        for at in (0, 0x100):
            if at + 8 > text.size:
                continue
            b = bytearray(data)
            struct.pack_into("<II", b, text.offset + at, lo, hi)
            w.add(path, name + ("" if at == 0 else "-at-0x%x" % at),
                  bytes(b), "either",
                  ".text +0x%x=0x%08x 0x%08x" % (at, lo, hi))


def bundle_entries(data):
    """(header offset of each entry, offset, size, idlen) of an uncompressed
    bundle."""
    n = struct.unpack_from("<Q", data, 24)[0]
    pos = 32
    out = []
    for _ in range(n):
        off, size, idlen = struct.unpack_from("<QQQ", data, pos)
        out.append((pos, off, size, idlen))
        pos += 24 + idlen
    return out


def mutate_bundle(w, path, data, _rng, _args):
    where = r"(offset |\+)0x[0-9a-fA-F]+"
    if data.startswith(BUNDLE_MAGIC):
        entries = bundle_entries(data)
        last = entries[-1][0]
        w.add(path, "count-2p63", put(data, 24, "<Q", 1 << 63), "error",
              "entry count 2^63", where)
        w.add(path, "count-2p32", put(data, 24, "<Q", 1 << 32), "error",
              "entry count 2^32", where)
        w.add(path, "count-plus-1", put(data, 24, "<Q", len(entries) + 1),
              "error", "entry count one more than there are", where)
        w.add(path, "offset-past-end", put(data, last, "<Q", len(data) + 16),
              "error", "last entry's offset past the end", where)
        w.add(path, "offset-wraps",
              put(data, last, "<Q", 0xfffffffffffffff8), "error",
              "last entry's offset 2^64-8 (offset+size wraps)", where)
        w.add(path, "size-past-end", put(data, last + 8, "<Q", len(data)),
              "error", "last entry's size is the whole file", where)
        w.add(path, "idlen-2p63", put(data, last + 16, "<Q", 1 << 63),
              "error", "last entry's id length 2^63", where)
        w.add(path, "idlen-zero", put(data, entries[0][0] + 16, "<Q", 0),
              "error", "first entry's id length 0", where)
        w.add(path, "payload-in-header", put(data, last, "<Q", 0), "error",
              "last entry's payload at offset 0 (inside the header)", where)
        w.add(path, "magic-only", BUNDLE_MAGIC, "error", "magic only", where)
        w.add(path, "trailing-garbage", data + b"\x00" * 8 + b"garbage!",
              "error", "garbage after the bundle", where)
    elif data.startswith(CCOB_MAGIC):
        version = struct.unpack_from("<H", data, 4)[0]
        w.add(path, "version-99", put(data, 4, "<H", 99), "error",
              "compressed bundle version 99", where)
        w.add(path, "method-99", put(data, 6, "<H", 99), "error",
              "compressed bundle method 99", where)
        if version == 3:
            size_field, usize_field, hash_field, header = 8, 16, 24, 32
            fmt = "<Q"
        elif version == 2:
            size_field, usize_field, hash_field, header = 8, 12, 16, 24
            fmt = "<I"
        else:
            size_field, usize_field, hash_field, header = None, 8, 12, 20
            fmt = "<I"
        big = (1 << 63) if fmt == "<Q" else 0xffffffff
        if size_field is not None:
            w.add(path, "size-huge", put(data, size_field, fmt, big), "error",
                  "compressed bundle total size %#x" % big, where)
            w.add(path, "size-tiny", put(data, size_field, fmt, 4), "error",
                  "compressed bundle total size 4", where)
        w.add(path, "usize-huge", put(data, usize_field, fmt, big), "error",
              "uncompressed size %#x" % big, where)
        usize = struct.unpack_from(fmt, data, usize_field)[0]
        w.add(path, "usize-minus-1", put(data, usize_field, fmt, usize - 1),
              "error", "uncompressed size one short", where)
        w.add(path, "hash-wrong", put(data, hash_field, "<Q", 0x1234), "error",
              "wrong hash", where)
        b = bytearray(data)
        for k in range(header + 16, min(len(b), header + 48)):
            b[k] ^= 0x5a
        w.add(path, "stream-garbled", bytes(b), "error",
              "32 bytes of the compressed stream garbled", where)
    else:
        raise ValueError("not an offload bundle")
    for i in (1, 2, 4, 8, 12, 15):
        cut = len(data) * i // 16
        w.add(path, "cut-%02dof16" % i, data[:cut], "error",
              "bundle cut at %d/16" % i)


def mutate_host(w, path, data, _rng, _args):
    elf = Elf(data)
    fb = elf.section(".hip_fatbin")
    if fb is None:
        raise ValueError("no .hip_fatbin section")
    where = r"\.hip_fatbin"
    w.add(path, "fatbin-count-2p63", put(data, fb.offset + 24, "<Q", 1 << 63),
          "error", ".hip_fatbin bundle entry count 2^63", where)
    w.add(path, "fatbin-magic", put(data, fb.offset, "<4s", b"XXXX"), "error",
          ".hip_fatbin bundle magic overwritten", where)
    w.add(path, "fatbin-size-past-eof",
          put(data, fb.header_offset + 0x20, "<Q", len(data)), "error",
          ".hip_fatbin sh_size past the end of the file")
    w.add(path, "fatbin-offset-huge",
          put(data, fb.header_offset + 0x18, "<Q", 0xfffffffffffffff0),
          "error", ".hip_fatbin sh_offset 2^64-16")
    w.add(path, "fatbin-zeroed",
          data[:fb.offset] + b"\0" * fb.size + data[fb.offset + fb.size:],
          "error", ".hip_fatbin all zero")


def mutate_mir(w, path, data, _rng, _args):
    text = data.decode("latin-1")

    def sub(tag, pattern, repl, what, count=1):
        new, n = re.subn(pattern, repl, text, count=count, flags=re.M)
        if n == 0:
            raise ValueError("%s: pattern %r not found" % (tag, pattern))
        w.add(path, tag, new.encode("latin-1"), "error", what)

    # The first machine instruction with a defined VGPR: give it an SGPR.
    sub("syntax-error", r"^(    \$\w+ = \w+ )", r"\1,, ",
        "stray ',,' in an instruction")
    sub("wrong-regclass", r"^(    )\$vgpr(\d+) = (V_MOV_B32_e32\w*)",
        r"\1$sgpr\2 = \3", "V_MOV_B32 defining an SGPR (wrong register class)")
    sub("unknown-opcode", r"^(    \$\w+ = )V_\w+", r"\1V_NO_SUCH_OPCODE",
        "an unknown opcode name")
    sub("missing-block", r"(S_CBRANCH_\w+ )%bb\.\d+", r"\1%bb.999",
        "a branch to a block that does not exist")
    sub("image-not-elf", r'c"\\7FELF', r'c"\\7FELG',
        "the embedded image does not start with ELF magic")
    sub("image-cut", r'(c"\\7FELF[^"]{0,2000})[^"]*"', r'\1"',
        "the embedded image cut to ~2000 characters")
    sub("descriptor-hex", r'(!\{!"[^"]*", !")[0-9a-f]{10}', r"\1zz",
        "a descriptor in !asmevo.kernels that is not hex")
    sub("bad-yaml", r"^body:( +)\|", r"body:\1[unclosed",
        "a YAML error in a machine function")
    sub("no-image", r"^  @__asmevo\.image = .*$", "",
        "the embedded image removed")
    for i in (1, 4, 8, 12, 15):
        cut = len(data) * i // 16
        w.add(path, "cut-%02dof16" % i, data[:cut], "error",
              ".mir cut at %d/16" % i)


MUTATORS = {
    "truncate": mutate_truncate,
    "emachine": mutate_emachine,
    "note": mutate_note,
    "descriptor": mutate_descriptor,
    "symbols": mutate_symbols,
    "text-words": mutate_text_words,
    "disasm-crash": mutate_disasm_crash,
    "bundle": mutate_bundle,
    "host": mutate_host,
    "mir": mutate_mir,
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kind", choices=sorted(MUTATORS))
    p.add_argument("inputs", nargs="+")
    p.add_argument("-o", "--outdir", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=8,
                   help="mutants per input for text-words")
    args = p.parse_args()
    w = Writer(args.outdir, args.kind)
    for path in args.inputs:
        with open(path, "rb") as f:
            data = f.read()
        # One generator per input, seeded from the seed and the file name,
        # so adding an input does not change the others' mutants.
        rng = random.Random("%d:%s" % (args.seed, os.path.basename(path)))
        try:
            MUTATORS[args.kind](w, path, data, rng, args)
        except (ValueError, struct.error, IndexError, StopIteration) as e:
            sys.exit("mutate_code_object.py: %s: %s" % (path, e))
    w.close()
    print("%s: wrote %d mutants of %d input(s) to %s" %
          (args.kind, w.count, len(args.inputs), args.outdir))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Makes the hostile inputs of test/BadInput/hostile-*.test at test time,
from the project's test kernels, asmevo-opt's outputs or (REQUIRES: corpus)
a corpus file, so nothing derived from a third-party file is kept in the
project. Each subcommand writes OUT:

  set-shtype CO SECTION TYPE OUT      a section's sh_type
  set-shfield OBJ SECTION FIELD V OUT sh_size / sh_addralign / sh_entsize
  msgpack-key CO KIND OUT             the metadata note's first ".name" key
                                      becomes an integer (int), a map (map)
                                      or a list (list) key
  set-byte FILE OFFSET OLD NEW OUT    one byte, which must be OLD
  reloc OBJ FIELD V OUT               the first relocation's r_offset, type
                                      or symbol index
  drop-line FILE TEXT OUT             the lines equal to TEXT removed
  deep-expr SPEC DEPTH OUT            SPEC with buffer y's count nested DEPTH
                                      parentheses deep
  note-uint CO KEY DELTA OUT          the metadata note's first KEY (a small
                                      unsigned value) changed by DELTA
  npy SHAPE DTYPE NBYTES OUT          a .npy file of that shape and dtype
                                      with NBYTES bytes of data
  addrmap MAP KIND OUT                an asmevo-opt address map with one
                                      K0 address past all code (far), a line
                                      repeated (repeat), two lines swapped
                                      (swap), or a pair added outside the
                                      code (extra)
"""

import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils"))
import mutate_code_object as mco  # noqa: E402

SHDR_FIELDS = {"sh_size": (32, "<Q"), "sh_addralign": (48, "<Q"),
               "sh_entsize": (56, "<Q"), "sh_type": (4, "<I")}


def read(p):
    with open(p, "rb") as f:
        return f.read()


def write(p, data):
    with open(p, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def section(elf, name):
    s = elf.section(name)
    if s is None:
        sys.exit("no section %s" % name)
    return s


def set_shfield(path, name, field, value, out):
    data = read(path)
    s = section(mco.Elf(data), name)
    off, fmt = SHDR_FIELDS[field]
    write(out, mco.put(data, s.header_offset + off, fmt, int(value, 0)))


def msgpack_key(path, kind, out):
    data = read(path)
    elf = mco.Elf(data)
    for s, hdr, namesz, descsz, ntype in elf.notes():
        if ntype != 32:  # NT_AMDGPU_METADATA
            continue
        desc = hdr + 12 + mco.align4(namesz)
        at = data.find(b"\xa5.name", desc, desc + descsz)
        if at < 0:
            sys.exit("no .name key in the metadata note")
        new = {"int": 0x7f, "map": 0x81, "list": 0x91}[kind]
        write(out, mco.put(data, at, "<B", new))
        return
    sys.exit("no metadata note")


def set_byte(path, offset, old, new, out):
    data = bytearray(read(path))
    off = int(offset, 0)
    if data[off] != int(old, 0):
        sys.exit("byte 0x%x is 0x%02x, not %s: not the expected file" %
                 (off, data[off], old))
    data[off] = int(new, 0)
    write(out, bytes(data))


def reloc(path, field, value, out):
    data = read(path)
    elf = mco.Elf(data)
    rela = [s for s in elf.sections if s.type == 4]  # SHT_RELA
    if not rela or rela[0].size < 24:
        sys.exit("no relocation")
    off = rela[0].offset
    v = int(value, 0)
    if field == "offset":
        data = mco.put(data, off, "<Q", v)
    else:
        (info,) = struct.unpack_from("<Q", data, off + 8)
        info = (info & ~0xffffffff) | v if field == "type" else \
            (info & 0xffffffff) | (v << 32)
        data = mco.put(data, off + 8, "<Q", info)
    write(out, data)


def drop_line(path, text, out):
    lines = read(path).decode().split("\n")
    kept = [l for l in lines if l.strip() != text]
    if len(kept) == len(lines):
        sys.exit("no line '%s'" % text)
    write(out, "\n".join(kept))


def deep_expr(spec, depth, out):
    d = int(depth)
    text = read(spec).decode()
    expr = '"' + "(" * d + "1024" + ")" * d + '"'
    new, n = re.subn(r"(y: \{type: f32, count: )[^,]+", lambda m: m.group(1) +
                     expr, text)
    if n != 1:
        sys.exit("no buffer y in %s" % spec)
    write(out, new)


def addrmap(path, kind, out):
    lines = read(path).decode().split("\n")
    body = [i for i, l in enumerate(lines)
            if l.strip() and not l.startswith("#")]
    paired = [i for i in body if l_old(lines[i]) != "new"]
    i = paired[len(paired) // 2]
    if kind == "far":
        p = lines[i].split()
        lines[i] = " ".join([p[0], "0xffffffffffffffff"] + p[2:])
    elif kind == "repeat":
        lines.insert(i + 1, lines[i])
    elif kind == "swap":
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    elif kind == "extra":
        p = lines[body[-1]].split()
        lines.insert(body[-1] + 1, " ".join(
            ["0x7fff0000", "0x7fff0000"] + p[2:]))
    write(out, "\n".join(lines))


def note_uint(path, key, delta, out):
    data = read(path)
    k = key.encode()
    at = data.find(bytes([0xa0 | len(k)]) + k)
    if at < 0:
        sys.exit("no key %s" % key)
    v = data[at + 1 + len(k)]
    nv = v + int(delta)
    if v > 0x7f or not 0 <= nv <= 0x7f:
        sys.exit("%s is not a small unsigned value" % key)
    write(out, mco.put(data, at + 1 + len(k), "<B", nv))


def npy(shape, dtype, nbytes, out):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype,
                                                                  shape)
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    data = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode()
    write(out, data + b"\0" * int(nbytes))


def l_old(line):
    p = line.split()
    return p[1] if len(p) > 1 else ""


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "set-shtype":
        set_shfield(args[0], args[1], "sh_type", args[2], args[3])
    elif cmd == "set-shfield":
        set_shfield(*args)
    elif cmd == "msgpack-key":
        msgpack_key(*args)
    elif cmd == "set-byte":
        set_byte(*args)
    elif cmd == "reloc":
        reloc(*args)
    elif cmd == "drop-line":
        drop_line(*args)
    elif cmd == "deep-expr":
        deep_expr(*args)
    elif cmd == "note-uint":
        note_uint(*args)
    elif cmd == "npy":
        npy(*args)
    elif cmd == "addrmap":
        addrmap(*args)
    else:
        sys.exit("unknown subcommand " + cmd)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Sanity of an --address-map: every instruction address of the input's
functions (from the input's --info: address and size of each function, as
decoded by the map's own original addresses) appears exactly once as an
original address, every new address lies in the output's .text, and new
addresses are unique.

    check_address_map.py INPUT.co OUTPUT.co MAP"""
import os
import sys

# Imported helpers must not leave __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "utils"))
import mutate_code_object as mco  # noqa: E402

inp, out, mp = sys.argv[1:4]
text_in = mco.text_section(mco.Elf(open(inp, "rb").read()))
text_out = mco.text_section(mco.Elf(open(out, "rb").read()))
orig, new, inserted = [], [], 0
for line in open(mp):
    if line.startswith("#") or not line.strip():
        continue
    a, o = line.split()[:2]
    new.append(int(a, 16))
    if o == "new":
        inserted += 1
    else:
        orig.append(int(o, 16))
errors = []
if len(set(new)) != len(new):
    errors.append("new addresses repeat")
if len(set(orig)) != len(orig):
    errors.append("original addresses repeat")
for a in new:
    if not text_out.addr <= a < text_out.addr + text_out.size:
        errors.append("new address 0x%x outside .text" % a)
        break
for o in orig:
    if not text_in.addr <= o < text_in.addr + text_in.size:
        errors.append("original address 0x%x outside the input's .text" % o)
        break
if errors:
    print("; ".join(errors))
    sys.exit(1)
print("%d original instructions, each mapped once; %d inserted; all in .text"
      % (len(orig), inserted))

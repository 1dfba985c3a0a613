#!/usr/bin/env python3
"""Runs asmevo-opt over the mutants that utils/mutate_code_object.py wrote
into DIR (listed in DIR/MANIFEST.tsv) and judges each outcome:

  rejected      a non-zero exit below 128, no output file left behind, and
                an error whose first line reads "asmevo-opt: error: <file>..."
                and also names what the manifest asks for (kernel, offset);
                with --one-line the error must be the only line on stderr
  round-tripped exit 0 (allowed only where the manifest says "either"),
                and the output is a correct identity rebuild of the mutant:
                byte-identical when the mutant was linked by the same LLD as
                ours, otherwise .text, descriptors, the metadata note,
                section addresses and symbol values identical
  failed        anything else: a crash (signal, exit > 128, "Stack dump",
                "PLEASE submit", "LLVM ERROR", a sanitizer report), a hang,
                an output file left behind on error, an error that does not
                name the file, or a wrong round trip

--xfail REGEX (repeatable) names mutants known to fail, for bugs reported
but not fixed yet: their failures count as "known", and a run of theirs that
does not fail is an error (XPASS), so the list stays true.

Prints one line per kind with the counts and a line per failure, and exits 1
if anything failed.

    run_mutants.py [--tool asmevo-opt] [--one-line] [--info] [--xfail RE] DIR
"""

import argparse
import collections
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Imported helpers must not leave __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils"))
import mutate_code_object as mco  # noqa: E402

CRASH_MARKERS = ("Stack dump", "PLEASE submit", "LLVM ERROR",
                 "AddressSanitizer", "LeakSanitizer", "UndefinedBehavior",
                 "runtime error:", "Assertion", "UNREACHABLE", "Aborted",
                 "Segmentation fault")


def linkers(elf):
    s = elf.section(".comment")
    if s is None:
        return set()
    parts = elf.data[s.offset:s.offset + s.size].split(b"\0")
    return {p for p in parts if p.startswith(b"Linker: ")}


def content(elf):
    """What an identity rebuild must keep, keyed by what it is."""
    out = {}
    for s in elf.sections:
        if s.flags & 0x2:
            out["section %s" % s.name] = (s.addr, s.size)
    text = mco.text_section(elf)
    out[".text bytes"] = elf.data[text.offset:text.offset + text.size]
    for name, kd, _ in elf.kernels():
        out["descriptor %s" % name] = elf.data[kd:kd + 64]
    for sec, off, namesz, descsz, ntype in elf.notes():
        if ntype == mco.NT_AMDGPU_METADATA:
            d = off + 12 + mco.align4(namesz)
            out["metadata note"] = elf.data[d:d + descsz]
    for name, value, size, _info, _shndx, _ in elf.symbols():
        out["symbol %s" % name] = (value, size)
    return out


def check_round_trip(mutant, output):
    """None if \\p output is a correct identity rebuild of \\p mutant."""
    with open(mutant, "rb") as f:
        old = f.read()
    with open(output, "rb") as f:
        new = f.read()
    if old == new:
        return None
    try:
        eo, en = mco.Elf(old), mco.Elf(new)
    except (ValueError, struct.error, IndexError) as e:
        return "output differs and cannot be compared: %s" % e
    if linkers(eo) and linkers(en) <= linkers(eo):
        return "output differs from an input linked by the same LLD"
    try:
        co, cn = content(eo), content(en)
    except (ValueError, struct.error, IndexError, StopIteration) as e:
        return "output differs and cannot be compared: %s" % e
    for key in sorted(set(co) | set(cn)):
        # LLD 22 pads the RELRO segment to a page with a NOBITS
        # .relro_padding section that older linkers (AMD LLD 17) do not
        # write: no bytes, no symbol, nothing a loader reads.
        if key == "section .relro_padding" and key not in co:
            continue
        if co.get(key) != cn.get(key):
            return "round trip changed %s" % key
    return None


def judge(args, mutant, expect, needle, cmd, output):
    """Returns ("rejected" | "round-tripped" | "failed", reason)."""
    if output and os.path.exists(output):
        os.remove(output)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return "failed", "no answer after %d s" % args.timeout
    err = p.stderr.decode("utf-8", "replace")
    rc = p.returncode
    if rc < 0 or rc > 128:
        return "failed", "crashed (exit %d)" % rc
    markers = CRASH_MARKERS
    if args.recovered_ok and 0 < rc < 128:
        # A fatal error that the crash-recovery context turned into an
        # error exit: LLVM prints "LLVM ERROR: ..." before unwinding.
        markers = [m for m in markers if m != "LLVM ERROR"]
    for m in markers:
        if m in err:
            return "failed", "crash marker %r on stderr (exit %d)" % (m, rc)
    if rc == 0:
        if expect != "either":
            return "failed", "accepted input that must be rejected"
        if "error" in err:
            return "failed", "exit 0 with errors on stderr: %s" % (
                err.strip().split("\n")[0])
        if output is None:
            return "round-tripped", ""
        if not os.path.exists(output):
            return "failed", "exit 0 but no output file"
        why = check_round_trip(mutant, output)
        os.remove(output)
        if why:
            return "failed", why
        return "round-tripped", ""
    if output and os.path.exists(output):
        return "failed", "exit %d but the output file was left behind" % rc
    lines = err.rstrip("\n").split("\n")
    first = lines[0]
    if args.recovered_ok:
        # Diagnostics may come first; the tool's own error line must exist.
        first = next((l for l in lines if l.startswith("asmevo-opt: error: ")),
                     first)
    if not first.startswith("asmevo-opt: error: "):
        return "failed", "exit %d without 'asmevo-opt: error:' first" % rc
    if mutant not in first:
        return "failed", "error does not name the file"
    if needle and not re.search(needle, first):
        return "failed", "error does not name /%s/" % needle
    if args.one_line and len(lines) != 1:
        return "failed", "error takes %d lines, not one" % len(lines)
    return "rejected", ""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--tool", default="asmevo-opt")
    p.add_argument("--one-line", action="store_true",
                   help="the error must be the only line on stderr")
    p.add_argument("--info", action="store_true",
                   help="also run --info on every mutant")
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--recovered-ok", action="store_true",
                   help="accept LLVM diagnostics (and an 'LLVM ERROR' the "
                   "crash-recovery context caught) before the tool's error "
                   "line, for .mir inputs")
    p.add_argument("--xfail", action="append", default=[],
                   help="regex of mutant names known to fail")
    p.add_argument("--verbose", action="store_true",
                   help="print every mutant's outcome")
    args = p.parse_args()

    counts = collections.OrderedDict()
    failures = []
    with open(os.path.join(args.dir, "MANIFEST.tsv")) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for mutant, kind, expect, needle, what in rows:
        runs = [("-o", [args.tool, mutant, "-o", mutant + ".out"],
                 mutant + ".out")]
        if args.info:
            runs.append(("--info", [args.tool, mutant, "--info"], None))
        for mode, cmd, output in runs:
            outcome, why = judge(args, mutant, expect, needle, cmd, output)
            if any(re.search(x, os.path.basename(mutant))
                   for x in args.xfail):
                if outcome == "failed":
                    outcome = "known"
                    print("XFAIL %s (%s) %s: %s" % (mutant, what, mode, why))
                elif mode == "-o":
                    outcome = "failed"
                    why = "XPASS: no longer fails; drop its --xfail"
            key = kind if mode == "-o" else kind + " --info"
            c = counts.setdefault(key, collections.Counter())
            c[outcome] += 1
            if args.verbose:
                print("  %s %s: %s %s" % (outcome, os.path.basename(mutant),
                                          mode, why))
            if outcome == "failed":
                failures.append("FAIL %s (%s) %s: %s" %
                                (mutant, what, mode, why))
    total = collections.Counter()
    for key, c in counts.items():
        total.update(c)
        print("%s: %d mutants: %d rejected, %d round-tripped, %d known, "
              "%d failed" % (key, sum(c.values()), c["rejected"],
                             c["round-tripped"], c["known"], c["failed"]))
    print("total: %d runs: %d rejected, %d round-tripped, %d known, %d failed"
          % (sum(total.values()), total["rejected"], total["round-tripped"],
             total["known"], total["failed"]))
    for line in failures:
        print(line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

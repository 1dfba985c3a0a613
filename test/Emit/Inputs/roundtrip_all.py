#!/usr/bin/env python3
"""Identity round trips over many code objects, with a table.

    roundtrip_all.py [--tool asmevo-opt] [--list FILE] [--glob DIR]
                     [--mode check|cli-mir] [--xfail FILE] [--tmp DIR]
                     [--require-file-identical] [FILE...]

--mode=check   runs `asmevo-opt F --roundtrip-check` (in memory and through
               MIR) and reads its report: text, descriptors, metadata note,
               section addresses and symbol values must be identical, and
               the whole file too when the input was linked by our LLD (or
               always, with --require-file-identical).
--mode=cli-mir does what a user does: `asmevo-opt F --emit=mir -o F.mir`,
               `asmevo-opt F.mir -o F.co`, and compares F.co with F
               (byte-identical for inputs linked by our LLD, otherwise the
               same content as above).

--xfail FILE lists known failures, one "<path suffix> <reason>" a line: those
may fail (reported as XFAIL with their reason) but must not pass (XPASS is a
failure, so the list stays true). Prints a table (file, functions,
instructions, outcome) and "N ok, N failed"; exits 1 on any failure.
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Imported helpers must not leave __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "utils"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "BadInput", "Inputs"))
import run_mutants  # noqa: E402

FIELDS = ("text", "descriptors", "metadata_note", "section_addresses",
          "symbol_values", "file")


def parse_report(text):
    """[(path name, {field: identical?}, same_linker, [(fn, instrs, ok)])]"""
    out = []
    cur = None
    for line in text.splitlines():
        m = re.match(r"^  (\w+):$", line)
        if m and m.group(1) != "non_simple":
            cur = (m.group(1), {}, [False], [])
            out.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"^    (\w+): (identical|different)$", line)
        if m:
            cur[1][m.group(1)] = m.group(2) == "identical"
            continue
        m = re.match(r"^    same_linker: (true|false)$", line)
        if m:
            cur[2][0] = m.group(1) == "true"
            continue
        m = re.match(r"^      - \{ name: '(.*)', instructions: (\d+), "
                     r"identical: (true|false)", line)
        if m:
            cur[3].append((m.group(1), int(m.group(2)),
                           m.group(3) == "true"))
    return out


def run_check(args, path):
    p = subprocess.run([args.tool, path, "--roundtrip-check"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode not in (0, 2):
        return None, 0, 0, "exit %d: %s" % (p.returncode,
                                            err.strip().split("\n")[0])
    reports = parse_report(out)
    if not reports:
        return None, 0, 0, "no report"
    fns = reports[0][3]
    why = []
    for name, fields, same_linker, _ in reports:
        need = FIELDS if (same_linker[0] or args.require_file_identical) \
            else FIELDS[:-1]
        bad = [f for f in need if not fields.get(f, False)]
        if bad:
            why.append("%s: %s different" % (name, ",".join(bad)))
    return not why, len(fns), sum(n for _, n, _ in fns), "; ".join(why)


def run_cli_mir(args, path):
    base = os.path.join(args.tmp, os.path.basename(path))
    mir, out = base + ".mir", base + ".rebuilt"
    for cmd in ([args.tool, path, "--emit=mir", "-o", mir],
                [args.tool, mir, "-o", out]):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            err = p.stderr.decode("utf-8", "replace").strip().split("\n")[0]
            return None, 0, 0, "%s: exit %d: %s" % (
                os.path.basename(cmd[1]), p.returncode, err)
    with open(mir, encoding="latin-1") as f:
        text = f.read()
    fns = len(re.findall(r"^name: ", text, re.M))
    instrs = len(re.findall(r"pre-instr-symbol <mcsymbol asmevo\.orig\.",
                            text))
    if args.require_file_identical:
        with open(path, "rb") as a, open(out, "rb") as b:
            if a.read() != b.read():
                return False, fns, instrs, "file different"
    why = run_mutants.check_round_trip(path, out)
    os.remove(out)
    os.remove(mir)
    return why is None, fns, instrs, why or ""


def main():
    p = argparse.ArgumentParser()
    p.add_argument("files", nargs="*")
    p.add_argument("--tool", default="asmevo-opt")
    p.add_argument("--list", help="file with one input path a line")
    p.add_argument("--glob", action="append", default=[],
                   help="directory searched for *.co and *.hsaco")
    p.add_argument("--mode", choices=("check", "cli-mir"), default="check")
    p.add_argument("--xfail")
    p.add_argument("--tmp", default=".")
    p.add_argument("--require-file-identical", action="store_true")
    args = p.parse_args()

    files = list(args.files)
    if args.list:
        with open(args.list) as f:
            files += [line.strip() for line in f if line.strip()]
    for d in args.glob:
        for root, _dirs, names in os.walk(d):
            files += [os.path.join(root, n) for n in names
                      if n.endswith((".co", ".hsaco"))]
    files.sort()
    xfail = {}
    if args.xfail:
        with open(args.xfail) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    suffix, _, reason = line.partition(" ")
                    xfail[suffix] = reason.strip()
    os.makedirs(args.tmp, exist_ok=True)

    run = run_check if args.mode == "check" else run_cli_mir
    passed = failed = xfailed = 0
    tot_fns = tot_instrs = 0
    rows = []
    for path in files:
        ok, fns, instrs, why = run(args, path)
        tot_fns += fns
        tot_instrs += instrs
        reason = next((r for s, r in xfail.items() if path.endswith(s)), None)
        if reason is not None:
            if ok:
                outcome = "XPASS (remove it from the xfail list)"
                failed += 1
            else:
                outcome = "XFAIL (%s: %s)" % (reason, why)
                xfailed += 1
        elif ok:
            outcome = "identical"
            passed += 1
        else:
            outcome = "FAIL (%s)" % why
            failed += 1
        rows.append((path, fns, instrs, outcome))
    width = max([len(os.path.basename(r[0])) for r in rows] + [4])
    print("%-*s %9s %12s  %s" % (width, "file", "functions", "instructions",
                                 "outcome"))
    for path, fns, instrs, outcome in rows:
        print("%-*s %9d %12d  %s" % (width, os.path.basename(path), fns,
                                     instrs, outcome))
    print("%d files, %d functions, %d instructions: %d identical, %d known "
          "failures" % (len(files), tot_fns, tot_instrs, passed, xfailed))
    print("%d ok, %d failed" % (passed + xfailed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

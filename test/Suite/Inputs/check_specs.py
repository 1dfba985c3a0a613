#!/usr/bin/env python3
"""Consistency of the kernel suite: sources, specs, references, code objects.

    check_specs.py --suite DIR --kernels DIR --tmp DIR

For every test/kernels/suite/<name>.hip: a spec specs/<name>.yaml and a host
reference exist; for the default size and every variant the reference runs
on generated inputs (asmevo-suite-ref --print-launch --expected-dir); the
default size has at least 64 workgroups and there is at least one variant;
the spec's arguments match the explicit kernel arguments of the metadata
(asmevo-opt --info) of both code objects (gfx942, gfx90a) in count, kind
(buffer = global_buffer) and size. Prints one line per kernel and
"N ok, N failed"; exits 1 on any failure.
"""

import argparse
import os
import re
import subprocess
import sys

ARCHS = ("gfx942", "gfx90a")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def metadata_args(info):
    """Explicit (non-hidden) arguments of the one kernel: [(kind, size)]."""
    args, cur, in_args, args_indent = [], None, False, 0
    for line in info.splitlines():
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith(".args:"):
            in_args, args_indent = True, indent
            continue
        if not in_args:
            continue
        if indent <= args_indent and not stripped.startswith("- "):
            break
        if stripped.startswith("- "):
            cur = {}
            args.append(cur)
            stripped = stripped[2:]
        m = re.match(r"(\.[a-z_]+):\s*(\S+)", stripped)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2)
    return [(a.get(".value_kind", "?"), int(a.get(".size", "0")))
            for a in args
            if not a.get(".value_kind", "").startswith("hidden_")]


def parse_launch(text):
    launch = {"args": [], "groups": 0}
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "groups":
            launch["groups"] = int(f[1])
        elif f[0] == "variants":
            launch["variants"] = int(f[1])
        elif f[0] == "arg":
            launch["args"].append((f[1], f[2], int(f[3])))
    return launch


def check_kernel(name, args):
    problems = []
    spec = os.path.join(args.suite, "specs", name + ".yaml")
    if not os.path.exists(spec):
        return ["no spec " + spec], 0
    variants = None
    groups = 0
    launch0 = None
    v = 0
    while variants is None or v <= variants:
        out_dir = os.path.join(args.tmp, "%s-%d" % (name, v))
        rc, out = run(["asmevo-suite-ref", spec, "--variant=%d" % v,
                       "--print-launch", "--expected-dir=" + out_dir])
        if rc != 0:
            problems.append("variant %d: %s" % (v, out.strip()))
            break
        launch = parse_launch(out)
        if v == 0:
            launch0, groups = launch, launch["groups"]
            variants = launch.get("variants", 0)
        v += 1
    if launch0 is None:
        return problems, 0
    if groups < 64:
        problems.append("default size has %d workgroups (< 64)" % groups)
    if variants < 1:
        problems.append("no variant (a second problem size)")
    for arch in ARCHS:
        co = os.path.join(args.kernels, "suite_%s-%s.co" % (name, arch))
        if not os.path.exists(co):
            problems.append("missing " + co)
            continue
        rc, info = run(["asmevo-opt", co, "--info"])
        if rc != 0:
            problems.append("%s: asmevo-opt --info failed" % co)
            continue
        meta = metadata_args(info)
        spec_args = launch0["args"]
        if len(meta) != len(spec_args):
            problems.append("%s: %d explicit arguments, the spec passes %d" %
                            (arch, len(meta), len(spec_args)))
            continue
        for i, ((kind, size), (aname, akind, asize)) in enumerate(
                zip(meta, spec_args)):
            want = "global_buffer" if akind == "buffer" else "by_value"
            if kind != want or size != asize:
                problems.append("%s: argument %d ('%s'): metadata %s/%d, "
                                "spec %s/%d" % (arch, i, aname, kind, size,
                                                akind, asize))
    return problems, groups


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()

    rc, listing = run(["asmevo-suite-ref", "--list"])
    refs = {l.split(":")[0] for l in listing.splitlines() if ":" in l}
    names = sorted(f[:-4] for f in os.listdir(args.suite)
                   if f.endswith(".hip"))
    ok = failed = 0
    for name in names:
        problems, groups = check_kernel(name, args)
        if name not in refs:
            problems.append("no host reference")
        if problems:
            failed += 1
            print("FAIL %-20s %s" % (name, "; ".join(problems)))
        else:
            ok += 1
            print("ok   %-20s %5d groups" % (name, groups))
    for spec in sorted(os.listdir(os.path.join(args.suite, "specs"))):
        if spec.endswith(".yaml") and spec[:-5] not in names:
            failed += 1
            print("FAIL %-20s spec without a source" % spec[:-5])
    print("%d ok, %d failed" % (ok, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

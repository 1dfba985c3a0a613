#!/usr/bin/env python3
"""Runs suite kernels in the emulator and checks them against the host
references.

    run_suite.py --suite DIR --kernels DIR --tmp DIR [--arch A]...
                 [--seeds 1,2,3] [--variants all|0,1] [--interleave]
                 [--only NAME]... [--extra=ARG]...

For every kernel (test/kernels/suite/<name>.hip, or --only), code object
arch (default gfx942 and gfx90a), problem size (the spec's default and
every variant), seed, and -- for kernels built with kernel-argument
preload -- both entry points:

  asmevo-suite-ref SPEC --variant=V --seed=S --write-inputs=IN
  asmevo-verify run CO --spec SPEC --variant=V --input NAME=IN/NAME.npy...
      [--prologue-entry] [--interleave=S] --output-dir=OUT
  asmevo-suite-ref SPEC --variant=V --inputs-dir=IN --check=OUT

A run passes when the emulator reports "result: clean" and every output
matches the reference. Prints one line per run and "N ok, N failed"; exits 1
on any failure.
"""

import argparse
import os
import subprocess
import sys
import time


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def launch_info(spec, variant):
    rc, out = run(["asmevo-suite-ref", spec, "--variant=%d" % variant,
                   "--print-launch"])
    if rc != 0:
        raise RuntimeError(out.strip())
    info = {"inputs": [], "variants": 0}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "buffer" and f[3] in ("in", "inout"):
            info["inputs"].append(f[1])
        elif f and f[0] == "variants":
            info["variants"] = int(f[1])
    return info


def preloads(co):
    rc, out = run(["asmevo-opt", co, "--info"])
    for line in out.splitlines():
        if line.strip().startswith("preload_length:"):
            if int(line.split(":")[1]) > 0:
                return True
    return False


def one_run(args, name, spec, co, variant, seed, prologue, inputs):
    tag = "%s-%s-v%d-s%d%s" % (name, os.path.basename(co).split("-")[-1][:-3],
                               variant, seed, "-prologue" if prologue else "")
    d = os.path.join(args.tmp, tag)
    rc, out = run(["asmevo-suite-ref", spec, "--variant=%d" % variant,
                   "--seed=%d" % seed, "--write-inputs=" + d + "/in"])
    if rc != 0:
        return False, "inputs: " + out.strip(), ""
    cmd = ["asmevo-verify", "run", co, "--spec", spec,
           "--variant=%d" % variant, "--output-dir=" + d + "/out"]
    cmd += ["--input=%s=%s/in/%s.npy" % (b, d, b) for b in inputs]
    if prologue:
        cmd.append("--prologue-entry")
    if args.interleave:
        cmd.append("--interleave=%d" % seed)
    cmd += args.extra
    rc, out = run(cmd)
    stats = ""
    for line in out.splitlines():
        if line.startswith("launch 0"):
            stats = line.split(":", 1)[1].strip()
    if "result: clean" not in out:
        lines = [l for l in out.splitlines()
                 if l.startswith(("violation", "error", "asmevo-verify"))
                 or "error" in l]
        return False, "emulator: " + " | ".join(lines[:3] or [out.strip()[-300:]]), stats
    rc, out = run(["asmevo-suite-ref", spec, "--variant=%d" % variant,
                   "--inputs-dir=" + d + "/in", "--check=" + d + "/out"])
    if rc != 0:
        return False, "reference: " + " | ".join(out.strip().splitlines()[:4]), stats
    worst = [l.split("worst ")[1].split(" of")[0] for l in out.splitlines()
             if "worst " in l]
    return True, ("worst " + max(worst) if worst else "exact"), stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--arch", action="append")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--variants", default="all")
    ap.add_argument("--interleave", action="store_true",
                    help="use the seed as interleaving seed too")
    ap.add_argument("--only", action="append")
    ap.add_argument("--extra", action="append", default=[],
                    help="extra asmevo-verify run argument")
    args = ap.parse_args()
    archs = args.arch or ["gfx942", "gfx90a"]
    seeds = [int(s) for s in args.seeds.split(",")]
    names = args.only or sorted(f[:-4] for f in os.listdir(args.suite)
                                if f.endswith(".hip"))
    ok = failed = 0
    for name in names:
        spec = os.path.join(args.suite, "specs", name + ".yaml")
        info0 = launch_info(spec, 0)
        variants = (range(info0["variants"] + 1) if args.variants == "all"
                    else [int(v) for v in args.variants.split(",")])
        for arch in archs:
            co = os.path.join(args.kernels, "suite_%s-%s.co" % (name, arch))
            entries = [False, True] if preloads(co) else [False]
            for v in variants:
                inputs = launch_info(spec, v)["inputs"]
                for seed in seeds:
                    for prologue in entries:
                        t = time.time()
                        good, msg, stats = one_run(args, name, spec, co, v,
                                                   seed, prologue, inputs)
                        ok += good
                        failed += not good
                        lanes = ""
                        for part in stats.split(","):
                            if part.strip().endswith(" lane-instructions"):
                                lanes = "%.1fM" % (int(part.split()[0]) / 1e6)
                        print("%-4s %-18s %-6s v%d s%d %-8s %6.2fs %8s  %s%s" % (
                            "ok" if good else "FAIL", name, arch, v, seed,
                            "prologue" if prologue else "entry",
                            time.time() - t, lanes, msg,
                            ("  [" + stats + "]") if stats and not good else ""),
                            flush=True)
    print("%d ok, %d failed" % (ok, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

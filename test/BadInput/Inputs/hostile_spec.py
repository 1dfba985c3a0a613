#!/usr/bin/env python3
"""Runs asmevo-verify run (and check) on each hostile launch spec in
SPECDIR against KERNEL, and prints one line per spec: "NAME: refused: <the
error>" when it was refused properly (expect_error.check), "NAME: ran" when
it ran cleanly, or "NAME: FAIL: ..."; then "N failed".

    hostile_spec.py KERNEL SPECDIR TMPDIR
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import expect_error  # noqa: E402
import make_hostile  # noqa: E402

REFUSED = ["kernarg-negative-at", "kernarg-huge-at", "count-int64min-div",
           "count-int64min-mod", "count-mul-overflow", "literal-too-big",
           "count-elements-overflow", "count-2p32", "pointer-offset-outside 4KiB",
           "guard-2p63", "guard-1e12", "init-dev-zero", "grid-huge",
           "grid-work-items-overflow", "pointer-offset-outside",
           "deep-200000", "deep-256", "deep-255"]
CHECKED = ["grid-huge", "guard-2p63", "kernarg-negative-at"]


def main():
    kernel, specdir, tmp = sys.argv[1:4]
    failed = 0
    for depth in (200000, 256, 255):
        make_hostile.deep_expr(os.path.join(specdir, "count-2p32.yaml"),
                               str(depth), os.path.join(tmp, "deep-%d.yaml" %
                                                        depth))
    for entry in REFUSED:
        name, _, budget = entry.partition(" ")
        spec = os.path.join(tmp if name.startswith("deep-") else specdir,
                            name + ".yaml")
        out = os.path.join(tmp, "out-" + name + budget)
        cmd = ["asmevo-verify", "run", kernel, "--spec", spec,
               "--output-dir", out]
        label = name + ".yaml"
        if budget:
            cmd.append("--max-device-memory=" + budget)
            label += " --max-device-memory=" + budget
        if name == "deep-255":
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            ok = p.returncode == 0
            print("%s: %s" % (label, "ran" if ok else "FAIL: exit %d: %s" %
                              (p.returncode, p.stderr.decode()[:2000])))
            failed += not ok
            continue
        # Limits are checked before anything is allocated: seconds, not
        # minutes.
        ok, msg = expect_error.check(cmd, [os.path.basename(spec)], [out],
                                     seconds=20)
        print("%s: %s%s" % (label, "refused: " if ok else "FAIL: ", msg))
        failed += not ok
    for name in CHECKED:
        spec = os.path.join(specdir, name + ".yaml")
        receipt = os.path.join(tmp, "receipt-" + name + ".json")
        cmd = ["asmevo-verify", "check", kernel, kernel, "--spec", spec,
               "--receipt", receipt]
        ok, msg = expect_error.check(cmd, [os.path.basename(spec)],
                                     [receipt], seconds=20)
        print("check %s.yaml: %s%s" % (name, "refused: " if ok else "FAIL: ",
                                       msg))
        failed += not ok
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

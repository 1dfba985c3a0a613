#!/usr/bin/env python3
"""Runs one command on a hostile input and checks that it was refused
properly:

  - the exit status is between 1 and 123 (not 0, not a signal, not a shell
    "command not found" or a sanitizer's 99 when --no-99 is given);
  - stderr is exactly one non-empty line, with no crash marker in it;
  - that line matches every --needle regex (the file, the field);
  - no --no-output path exists afterwards (a directory may exist if empty);
  - it took at most --seconds seconds (a limit checked before allocating
    must not first spend a minute).

    expect_error.py [--needle RE]... [--no-output PATH]... [--seconds N] \
        -- COMMAND ARGS...

Prints "refused: <the line>" and exits 0, or says what was wrong and exits 1.
"""

import argparse
import os
import re
import subprocess
import sys
import time

CRASH_MARKERS = ("Stack dump", "PLEASE submit", "LLVM ERROR",
                 "AddressSanitizer", "LeakSanitizer", "UndefinedBehavior",
                 "runtime error:", "Assertion", "UNREACHABLE", "Aborted",
                 "Segmentation fault")


def check(cmd, needles=(), no_output=(), seconds=60):
    """Runs \p cmd; returns (True, the error line) or (False, why)."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=max(seconds, 1) * 4)
    except subprocess.TimeoutExpired:
        return False, "timed out: %s" % " ".join(cmd)
    took = time.time() - t0
    err = p.stderr.decode("utf-8", "replace")
    lines = [l for l in err.splitlines() if l.strip()]
    problems = []
    if not 1 <= p.returncode <= 123:
        problems.append("exit status %d" % p.returncode)
    if len(lines) != 1:
        problems.append("%d lines on stderr" % len(lines))
    for m in CRASH_MARKERS:
        if m in err:
            problems.append("crash marker '%s'" % m)
    first = lines[0] if lines else ""
    for n in needles:
        if not re.search(n, first):
            problems.append("the error does not match '%s'" % n)
    for o in no_output:
        if os.path.isdir(o) and os.listdir(o):
            problems.append("output left in %s: %s" % (o, os.listdir(o)))
        elif os.path.exists(o) and not os.path.isdir(o):
            problems.append("output file left behind: %s" % o)
    if took > seconds:
        problems.append("took %.1f s (limit %g s)" % (took, seconds))
    if problems:
        return False, "%s: %s\nstderr:\n%s" % (" ".join(cmd),
                                               "; ".join(problems),
                                               err[:4000])
    return True, first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--needle", action="append", default=[])
    ap.add_argument("--no-output", action="append", default=[])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    ok, msg = check(cmd, a.needle, a.no_output, a.seconds)
    print(("refused: " if ok else "FAIL: ") + msg)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

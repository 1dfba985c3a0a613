"""What every differential model script shares: its command line and how it
reports. The models themselves (isa_reference.py, vmod_reference.py,
salu_reference.py, mem_reference.py, mai_reference.py) differ in what they
emit and check; each run ends the same way, so that the lit tests read the
same line and the same list from all of them."""
import argparse
import os


def arguments(*extra):
    """The common options, plus (flag, kwargs) pairs of a script's own;
    parsed, with the work directory created."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--write-tested")
    ap.add_argument("--seed", type=int, default=11)
    for flag, kwargs in extra:
        ap.add_argument(flag, **kwargs)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    return args


def finish(args, count, tested, failed, what="instructions"):
    """Prints "<arch>: N <what>, N opcodes tested, N failed", writes the
    opcodes that passed everywhere (never one that also failed somewhere)
    to --write-tested, and returns the exit code."""
    tested = set(tested) - set(failed)
    print("%s: %d %s, %d opcodes tested, %d failed" % (
        args.arch, count, what, len(tested), len(failed)))
    if args.write_tested:
        with open(args.write_tested, "w") as f:
            f.write("".join(t + "\n" for t in sorted(tested)))
    return 1 if failed else 0

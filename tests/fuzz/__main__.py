"""python -m tests.fuzz [--calls N] [--seed S] [--batch B] [--jobs J] [--kinds K,..] [--families F,..]

Runs a fuzz campaign over the operator registry and prints counts by family and every crash and
wrong answer with a one-line reproducer. Exits 1 when there is any."""

import argparse
import sys
import time

from tests.fuzz.cases import KINDS
from tests.fuzz.report import format_report
from tests.fuzz.runner import run_campaign


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[2])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=250, help="calls per child process")
    parser.add_argument("--jobs", type=int, default=None, help="child processes at a time (default: CPUs)")
    parser.add_argument("--kinds", type=lambda s: s.split(","), help=f"some of {','.join(KINDS)}")
    parser.add_argument("--families", type=lambda s: s.split(","), help="tests/opinfo module names")
    args = parser.parse_args(argv)
    start = time.monotonic()

    def progress(results):
        print(f"\r{len(results)}/{args.calls} calls, {time.monotonic() - start:.0f} s", end="", file=sys.stderr)

    results = run_campaign(args.calls, args.seed, args.batch, args.jobs, args.kinds, args.families, progress)
    print(file=sys.stderr)
    print(format_report(results))
    return 1 if any(r.outcome in ("crash", "wrong") for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

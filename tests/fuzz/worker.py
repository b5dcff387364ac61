"""The child process: generate a batch of cases, then run them, writing each result as it is
known so that the parent can tell which call a crash interrupted.

    python -m tests.fuzz.worker generate SEED CALLS DIR [--kinds K,..] [--families F,..]
    python -m tests.fuzz.worker run DIR START [--only]

`generate` writes DIR/cases.jsonl and runs from the start; `run` runs DIR's cases from START
(`--only`: that one case), appending to DIR/results.jsonl.
"""

import argparse
import json
import os
import resource
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from tests.fuzz.cases import cases
from tests.fuzz.check import run

MEMORY_LIMIT = 3 * 2**30  # bytes of address space a child may add after its imports


def _limit_memory():
    """Cap the address space, so an allocation that wraps around fails instead of paging."""
    vm = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmSize"))
    resource.setrlimit(resource.RLIMIT_AS, (vm + MEMORY_LIMIT, resource.RLIM_INFINITY))


def generate(seed, calls, kinds=None, families=None):
    """`calls` cases drawn by hypothesis from `seed` (fewer if it runs out of new ones)."""
    drawn = []

    @settings(max_examples=calls, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @hypothesis_seed(seed)
    @given(cases(kinds, families))
    def collect(case):
        drawn.append(case)

    collect()
    return drawn[:calls]


def run_cases(directory, start, only=False):
    directory = Path(directory)
    lines = (directory / "cases.jsonl").read_text().splitlines()
    _limit_memory()
    with open(directory / "results.jsonl", "a") as results:
        for i in range(start, start + 1 if only else len(lines)):
            outcome, detail = run(json.loads(lines[i]))
            results.write(json.dumps({"i": i, "outcome": outcome, "detail": detail}) + "\n")
            results.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.worker")
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate")
    gen.add_argument("seed", type=int)
    gen.add_argument("calls", type=int)
    gen.add_argument("dir")
    gen.add_argument("--kinds", type=lambda s: s.split(","))
    gen.add_argument("--families", type=lambda s: s.split(","))
    rerun = sub.add_parser("run")
    rerun.add_argument("dir")
    rerun.add_argument("start", type=int)
    rerun.add_argument("--only", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "generate":
        drawn = generate(args.seed, args.calls, args.kinds, args.families)
        os.makedirs(args.dir, exist_ok=True)
        Path(args.dir, "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in drawn))
        run_cases(args.dir, 0)
    else:
        run_cases(args.dir, args.start, args.only)


if __name__ == "__main__":
    main()

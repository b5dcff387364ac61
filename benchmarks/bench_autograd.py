"""Autograd overhead, torchlite vs PyTorch (when installed), measured in alternation.

    python benchmarks/bench_autograd.py [--repeats 7]

Rows (microseconds, medians; ratio = torchlite / torch in the same run):
  add, no grad           one add on 3-element tensors that do not require grad (fast path)
  add, recording         the same add with an input requiring grad (node creation)
  fwd+bwd chain / op     forward of a chain of 100 adds plus backward, per op
  backward / node        backward alone over a 1,000-node graph, per node
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cases(lib):
    x = lib.tensor([1.0, 2.0, 3.0])
    y = lib.tensor([1.0, 2.0, 3.0])
    xr = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    g = lib.tensor([1.0, 1.0, 1.0])

    def add_plain():
        for _ in range(1000):
            x + y
        return 1000

    def add_rec():
        for _ in range(1000):
            xr + y
        return 1000

    def chain():
        z = xr
        for _ in range(100):
            z = z + xr
        z.backward(g)
        return 100

    def backward_only():
        z = xr
        for _ in range(1000):
            z = z + xr
        t0 = time.perf_counter()
        z.backward(g)
        return (time.perf_counter() - t0) / 1000

    return {"add, no grad": add_plain, "add, recording": add_rec, "fwd+bwd chain / op": chain,
            "backward / node": backward_only}


def run_case(fn) -> float:
    t0 = time.perf_counter()
    r = fn()
    dt = time.perf_counter() - t0
    return r if isinstance(r, float) else dt / r


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args()
    from libraries import single_thread_libraries

    libs = single_thread_libraries()
    all_cases = {name: cases(lib) for name, lib in libs.items()}
    results = {name: {c: [] for c in all_cases[name]} for name in libs}
    for _ in range(args.repeats):
        for c in all_cases["torchlite"]:
            for name in libs:
                results[name][c].append(run_case(all_cases[name][c]))
    print(f"{'case':24s}" + "".join(f"{n:>12s}" for n in libs) + ("       ratio" if "torch" in libs else ""))
    for c in all_cases["torchlite"]:
        med = {n: statistics.median(results[n][c]) * 1e6 for n in libs}
        row = f"{c:24s}" + "".join(f"{med[n]:10.2f}us" for n in libs)
        if "torch" in libs:
            row += f"{med['torchlite'] / med['torch']:12.2f}"
        print(row)


if __name__ == "__main__":
    main()

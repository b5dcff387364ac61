"""What the profiler costs per operator call: with no profiler running (the generated hook's
one branch, Note [Profiler hook]), with one running, and with one recording shapes; PyTorch
beside it when installed.

    python benchmarks/bench_profiler.py [--repeats 7] [--number 20000]

Cases run on shape-(4,) float32 tensors, where per-call overhead dominates. Libraries and modes
alternate within each repeat; the table shows the best of the repeats in us/op (on a shared
machine other work only ever adds time, so the minimum is the steadiest estimate of the cost).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _per_call(fn, number):
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number * 1e6


def _modes(lib):
    """mode -> context manager factory (None: no profiler)."""
    return {
        "off": None,
        "on": lambda: lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU]),
        "on+shapes": lambda: lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], record_shapes=True),
    }


def _cases(lib):
    a, b, m = lib.ones(4), lib.ones(4), lib.ones(4, 4)
    return [("a + b", lambda: a + b), ("a.add_(b)", lambda: a.add_(b)), ("a.sum()", lambda: a.sum()),
            ("a.view(2, 2)", lambda: a.view(2, 2)), ("matmul 4x4", lambda: m @ m)]


def measure(lib, number, repeats):
    """{(case, mode): best us/op}."""
    samples: dict[tuple[str, str], list[float]] = {}
    for _ in range(repeats):
        for name, fn in _cases(lib):
            for mode, make in _modes(lib).items():
                fn()
                if make is None:
                    t = _per_call(fn, number)
                else:
                    with make():
                        t = _per_call(fn, number)
                samples.setdefault((name, mode), []).append(t)
    return {k: min(v) for k, v in samples.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--number", type=int, default=20000)
    args = p.parse_args()
    from libraries import single_thread_libraries

    libs = single_thread_libraries()
    torchlite = libs["torchlite"]
    results = {name: measure(lib, args.number, args.repeats) for name, lib in libs.items()}
    modes = list(_modes(torchlite))
    cols = [f"{lib} {mode}" for lib in libs for mode in modes]
    print(f"us/op, best of {args.repeats}; shape (4,) float32, 1 thread")
    print(f"{'case':<14}" + "".join(f"{c:>20}" for c in cols))
    for name, _ in _cases(torchlite):
        print(f"{name:<14}" + "".join(f"{results[lib][(name, mode)]:>20.3f}" for lib in libs for mode in modes))


if __name__ == "__main__":
    main()

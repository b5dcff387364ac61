"""What the benchmarks share: the libraries they compare, their thread settings, and the timing.

The machine these run on is shared and drifts by up to 30% between runs, so a case is timed for
every library in alternation within one run, after a warm-up call, and reported as the median of
the repeats; only same-run ratios are worth comparing across runs.
"""

from __future__ import annotations

import statistics
import time

import numpy as np


def load_torch():
    """PyTorch when installed, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def set_threads(libs, n: int) -> None:
    """Run every library's intra-op parallel regions on n threads. torchlite and PyTorch may share
    one OpenMP runtime in a process, so both are set each time, never one alone."""
    for lib in libs:
        lib.set_num_threads(n)


def single_thread_libraries():
    import torchlite

    libs = {"torchlite": torchlite}
    torch = load_torch()
    if torch is not None:
        libs["torch"] = torch
    set_threads(libs.values(), 1)
    return libs


def warm_malloc() -> None:
    """Raise glibc's mmap threshold for everyone in this process: one large allocation freed.
    Without it a fresh process mmaps (and page-faults) every 0.1-32 MiB buffer on each call."""
    np.ones(30 << 18, np.float32)


def bind(fn, *args):
    """A zero-argument callable running fn(*args): the form measure() times."""
    return lambda: fn(*args)


def timeit(fn, number: int) -> float:
    """Seconds per call of fn over `number` back-to-back calls."""
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def measure(cases: dict, number: int, repeats: int) -> dict:
    """cases: lib -> zero-arg callable. Returns lib -> median seconds per call."""
    for fn in cases.values():  # warm-up (and first-touch of outputs)
        fn()
    samples: dict[str, list[float]] = {lib: [] for lib in cases}
    for _ in range(repeats):
        for lib, fn in cases.items():  # alternate libraries within each repeat
            samples[lib].append(timeit(fn, number))
    return {lib: statistics.median(v) for lib, v in samples.items()}


def fmt_row(cells, widths):
    return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))

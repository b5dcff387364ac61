"""Side-by-side speed of torchlite, PyTorch (when installed) and NumPy, in one process.

    python benchmarks/bench_ops.py [--threads 1] [--repeats 7] [--quick]

The machine these run on is shared and drifts by up to 30% between runs, so every case is
measured for all libraries in alternation within one run, and the table reports medians and
same-run ratios (torchlite / other). Only the ratios are worth comparing across runs.
Sections: per-op overhead on tiny tensors (us/op), throughput on 16M-element float32 arrays
(GB/s of bytes read + written once), the CPU allocator's effect (allocating vs out=), and
binary pointwise math (hypot, logaddexp, copysign, float_power, gcd) at the same size.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from libraries import fmt_row, load_torch, measure, warm_malloc  # noqa: E402


def overhead_cases(tl, torch):
    """Per-op overhead on shape-(4,) float32 tensors: (name, {lib: callable})."""
    a, b = tl.ones(4), tl.ones(4)
    m = tl.ones(4, 4)
    na, nb, nm = np.ones(4, np.float32), np.ones(4, np.float32), np.ones((4, 4), np.float32)
    cases = [
        ("a + b", {"torchlite": lambda: a + b, "numpy": lambda: na + nb}),
        ("add(a, b)", {"torchlite": lambda: tl.add(a, b), "numpy": lambda: np.add(na, nb)}),
        ("a * b", {"torchlite": lambda: a * b, "numpy": lambda: na * nb}),
        ("a + 1.0", {"torchlite": lambda: a + 1.0, "numpy": lambda: na + 1.0}),
        ("a.add_(b)", {"torchlite": lambda: a.add_(b), "numpy": lambda: np.add(na, nb, out=na)}),
        ("a.sum()", {"torchlite": lambda: a.sum(), "numpy": lambda: na.sum()}),
        ("a.view(2, 2)", {"torchlite": lambda: a.view(2, 2), "numpy": lambda: na.reshape(2, 2)}),
        ("a[0]", {"torchlite": lambda: a[0], "numpy": lambda: na[0]}),
        ("a[1:3]", {"torchlite": lambda: a[1:3], "numpy": lambda: na[1:3]}),
        ("matmul 4x4", {"torchlite": lambda: m @ m, "numpy": lambda: nm @ nm}),
        ("zeros(4)", {"torchlite": lambda: tl.zeros(4), "numpy": lambda: np.zeros(4, np.float32)}),
    ]
    if torch is not None:
        ta, tb, tm = torch.ones(4), torch.ones(4), torch.ones(4, 4)
        torch_fns = [lambda: ta + tb, lambda: torch.add(ta, tb), lambda: ta * tb, lambda: ta + 1.0, lambda: ta.add_(tb),
                     lambda: ta.sum(), lambda: ta.view(2, 2), lambda: ta[0], lambda: ta[1:3], lambda: tm @ tm,
                     lambda: torch.zeros(4)]
        for (_, libs), fn in zip(cases, torch_fns):
            libs["torch"] = fn
    return cases


def throughput_cases(tl, torch, n: int):
    """Large-array cases: (name, bytes moved, {lib: callable})."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    side = round(n**0.5)
    sq = x[: side * side].reshape(side, side)
    row = y[:side].copy()
    out = np.empty_like(x)
    a, b, o = tl.tensor(x), tl.tensor(y), tl.tensor(out)
    A, r = tl.tensor(sq), tl.tensor(row)
    At = A.t()
    nt = np.ascontiguousarray(sq.T).T  # numpy array with transposed strides, same values as sq
    libs_t = None
    if torch is not None:
        ta, tb, to = torch.from_numpy(x.copy()), torch.from_numpy(y.copy()), torch.from_numpy(out.copy())
        tA, tr = torch.from_numpy(sq.copy()), torch.from_numpy(row.copy())
        tAt = tA.t()
        libs_t = (ta, tb, to, tA, tr, tAt)
    f4 = 4
    cases = [
        ("add out= (a+b -> o)", 3 * n * f4,
         {"torchlite": lambda: tl.add(a, b, out=o), "numpy": lambda: np.add(x, y, out=out)}),
        ("add allocating (a+b)", 3 * n * f4, {"torchlite": lambda: a + b, "numpy": lambda: x + y}),
        ("mul out=", 3 * n * f4,
         {"torchlite": lambda: tl.mul(a, b, out=o), "numpy": lambda: np.multiply(x, y, out=out)}),
        ("mul allocating (a*b)", 3 * n * f4, {"torchlite": lambda: a * b, "numpy": lambda: x * y}),
        ("exp out=", 2 * n * f4, {"torchlite": lambda: tl.exp(a, out=o), "numpy": lambda: np.exp(x, out=out)}),
        ("broadcast add (A + row)", 2 * side * side * f4, {"torchlite": lambda: A + r, "numpy": lambda: sq + row}),
        ("non-contiguous add (A.t() + A)", 3 * side * side * f4,
         {"torchlite": lambda: At + A, "numpy": lambda: nt + sq}),
        ("sum", n * f4, {"torchlite": lambda: a.sum(), "numpy": lambda: x.sum()}),
        ("copy (clone)", 2 * n * f4, {"torchlite": lambda: a.clone(), "numpy": lambda: x.copy()}),
    ]
    if libs_t is not None:
        ta, tb, to, tA, tr, tAt = libs_t
        torch_fns = [lambda: torch.add(ta, tb, out=to), lambda: ta + tb, lambda: torch.mul(ta, tb, out=to),
                     lambda: ta * tb, lambda: torch.exp(ta, out=to), lambda: tA + tr, lambda: tAt + tA,
                     lambda: ta.sum(), lambda: ta.clone()]
        for (_, _, libs), fn in zip(cases, torch_fns):
            libs["torch"] = fn
    return cases


def binary_math_cases(tl, torch, n: int):
    """Binary pointwise math on n float32 elements (gcd: int64): (name, bytes moved, {lib: callable})."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    base = np.abs(x) + np.float32(0.5)  # float_power of a negative base to a fractional power is NaN
    i = rng.integers(1, 1000, size=n)
    j = rng.integers(1, 1000, size=n)
    out, iout = np.empty_like(x), np.empty_like(i)
    a, b, p, o = tl.tensor(x), tl.tensor(y), tl.tensor(base), tl.tensor(out)
    ti, tj, tio = tl.tensor(i), tl.tensor(j), tl.tensor(iout)
    f4, f8 = 4, 8
    cases = [
        ("hypot out=", 3 * n * f4,
         {"torchlite": lambda: tl.hypot(a, b, out=o), "numpy": lambda: np.hypot(x, y, out=out)}),
        ("logaddexp out=", 3 * n * f4,
         {"torchlite": lambda: tl.logaddexp(a, b, out=o), "numpy": lambda: np.logaddexp(x, y, out=out)}),
        ("copysign out=", 3 * n * f4,
         {"torchlite": lambda: tl.copysign(a, b, out=o), "numpy": lambda: np.copysign(x, y, out=out)}),
        ("float_power (-> float64)", 2 * n * f4 + n * f8,
         {"torchlite": lambda: tl.float_power(p, b), "numpy": lambda: np.float_power(base, y)}),
        ("gcd int64 out=", 3 * n * f8,
         {"torchlite": lambda: tl.gcd(ti, tj, out=tio), "numpy": lambda: np.gcd(i, j, out=iout)}),
    ]
    if torch is not None:
        ta, tb, tp, to = (torch.from_numpy(v.copy()) for v in (x, y, base, out))
        tti, ttj, ttio = (torch.from_numpy(v.copy()) for v in (i, j, iout))
        torch_fns = [lambda: torch.hypot(ta, tb, out=to), lambda: torch.logaddexp(ta, tb, out=to),
                     lambda: torch.copysign(ta, tb, out=to), lambda: torch.float_power(tp, tb),
                     lambda: torch.gcd(tti, ttj, out=ttio)]
        for (_, _, libs), fn in zip(cases, torch_fns):
            libs["torch"] = fn
    return cases


def print_throughput(name, nbytes, fns, libs, widths, number, repeats):
    res = measure(fns, number, repeats)
    gbs = {k: nbytes / v / 1e9 for k, v in res.items()}
    vt = f"{gbs['torchlite'] / gbs['torch']:.2f}x" if "torch" in gbs else "-"
    print(fmt_row([name, *(f"{gbs[k]:.1f}" for k in libs), vt, f"{gbs['torchlite'] / gbs['numpy']:.2f}x"], widths))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--quick", action="store_true", help="fewer iterations, 4M elements")
    args = p.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torchlite as tl

    torch = load_torch()
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    warm_malloc()

    libs = ["torchlite", "torch", "numpy"] if torch is not None else ["torchlite", "numpy"]
    print(f"threads={args.threads} repeats={args.repeats} torch={'yes ' + torch.__version__ if torch else 'no'}")

    print("\n## Per-op overhead, shape (4,) float32 (us/op, median; ratio = torchlite / other)")
    widths = [16] + [11] * len(libs) + [14, 14]
    print(fmt_row(["case", *libs, "vs torch", "vs numpy"], widths))
    number = 2000 if args.quick else 20000
    for name, fns in overhead_cases(tl, torch):
        res = measure(fns, number, args.repeats)
        us = {k: v * 1e6 for k, v in res.items()}
        vt = f"{us['torchlite'] / us['torch']:.2f}x" if "torch" in us else "-"
        print(fmt_row([name, *(f"{us[k]:.3f}" for k in libs), vt, f"{us['torchlite'] / us['numpy']:.2f}x"], widths))

    n = (4 << 20) if args.quick else (16 << 20)
    print(f"\n## Throughput, {n >> 20}M float32 (GB/s, median; ratio = torchlite / other, higher is better)")
    widths = [32] + [11] * len(libs) + [10, 10]
    print(fmt_row(["case", *libs, "vs torch", "vs numpy"], widths))
    number = 3 if args.quick else 10
    for name, nbytes, fns in throughput_cases(tl, torch, n):
        print_throughput(name, nbytes, fns, libs, widths, number, args.repeats)

    print(f"\n## Binary pointwise math, {n >> 20}M elements (GB/s, median; ratio = torchlite / other)")
    print(fmt_row(["case", *libs, "vs torch", "vs numpy"], widths))
    for name, nbytes, fns in binary_math_cases(tl, torch, n):
        print_throughput(name, nbytes, fns, libs, widths, number, args.repeats)


if __name__ == "__main__":
    main()

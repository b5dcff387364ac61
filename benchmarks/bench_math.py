"""Side-by-side speed of torchlite, PyTorch (when installed) and NumPy for the pointwise math
and statistics of the API-coverage work (issue 13), in one process.

    python benchmarks/bench_math.py [--threads 1] [--repeats 5] [--quick]

Every case is measured for all libraries in alternation within one run (the machine is shared
and drifts between runs); the table reports median milliseconds per call and same-run ratios
torchlite / other (below 1: torchlite is faster). NumPy has no lgamma, digamma, erfinv, logit
or logcumsumexp: those rows compare with PyTorch only.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from libraries import load_torch, fmt_row, measure  # noqa: E402

# name -> (torchlite/torch call on a tensor, NumPy call on an array or None, input domain)
UNARY = {
    "asin": (lambda m, t: m.asin(t), np.arcsin, "unit"),
    "atan": (lambda m, t: m.atan(t), np.arctan, "normal"),
    "asinh": (lambda m, t: m.asinh(t), np.arcsinh, "normal"),
    "atanh": (lambda m, t: m.atanh(t), np.arctanh, "unit"),
    "sinh": (lambda m, t: m.sinh(t), np.sinh, "normal"),
    "log2": (lambda m, t: m.log2(t), np.log2, "positive"),
    "log1p": (lambda m, t: m.log1p(t), np.log1p, "positive"),
    "expm1": (lambda m, t: m.expm1(t), np.expm1, "normal"),
    "exp2": (lambda m, t: m.exp2(t), np.exp2, "normal"),
    "lgamma": (lambda m, t: m.lgamma(t), None, "positive"),
    "digamma": (lambda m, t: m.digamma(t), None, "positive"),
    "erfinv": (lambda m, t: m.erfinv(t), None, "unit"),
    "i0": (lambda m, t: m.i0(t), np.i0, "normal"),
    "sinc": (lambda m, t: m.sinc(t), np.sinc, "normal"),
    "logit": (lambda m, t: m.logit(t), None, "prob"),
    "trunc": (lambda m, t: m.trunc(t), np.trunc, "normal"),
    "square": (lambda m, t: m.square(t), np.square, "normal"),
}


def _domain(kind, rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    if kind == "unit":
        return np.tanh(x) * np.float32(0.99)
    if kind == "positive":
        return np.abs(x) + np.float32(0.1)
    if kind == "prob":
        return (np.tanh(x) + np.float32(1.0001)) / np.float32(2.001)
    return x


def unary_cases(tl, torch, n):
    rng = np.random.default_rng(0)
    out = []
    for name, (call, np_fn, kind) in UNARY.items():
        x = _domain(kind, rng, n)
        a = tl.tensor(x)
        fns = {"torchlite": lambda call=call, a=a: call(tl, a)}
        if torch is not None:
            ta = torch.from_numpy(x.copy())
            fns["torch"] = lambda call=call, ta=ta: call(torch, ta)
        if np_fn is not None:
            fns["numpy"] = lambda np_fn=np_fn, x=x: np_fn(x)
        out.append((name, fns))
    return out


def statistics_cases(tl, torch, n):
    """(name, {lib: callable}) over a (rows, 1024) float32 matrix (NaN-free unless named nan*)."""
    rng = np.random.default_rng(1)
    rows = max(n // 1024, 1)
    x = rng.standard_normal((rows, 1024)).astype(np.float32)
    xn = x.copy()
    xn[rng.random(x.shape) < 0.1] = np.nan
    flat = x.reshape(-1)
    ints = rng.integers(0, 1000, size=n)
    edges = np.sort(rng.standard_normal(1000).astype(np.float32))
    libs = {"torchlite": tl, "numpy": np}
    if torch is not None:
        libs["torch"] = torch

    def arr(lib, v):
        if lib == "numpy":
            return v
        return tl.tensor(v) if lib == "torchlite" else torch.from_numpy(v.copy())

    specs = [
        ("nansum(dim=1)", xn, lambda m, t: m.nansum(t, 1) if m is not np else np.nansum(t, 1)),
        ("nanmean(dim=1)", xn, lambda m, t: m.nanmean(t, 1) if m is not np else np.nanmean(t, 1)),
        ("median(dim=1)", x, lambda m, t: m.median(t, 1) if m is not np else np.median(t, 1)),
        ("quantile(0.3, dim=1)", x, lambda m, t: m.quantile(t, 0.3, dim=1) if m is not np
         else np.quantile(t, 0.3, axis=1)),
        ("cummax(dim=1)", x, lambda m, t: m.cummax(t, 1) if m is not np else np.maximum.accumulate(t, 1)),
        ("logcumsumexp(dim=1)", x, lambda m, t: m.logcumsumexp(t, 1) if m is not np else None),
        ("diff(dim=1)", x, lambda m, t: m.diff(t, dim=1) if m is not np else np.diff(t, axis=1)),
        ("count_nonzero", x, lambda m, t: m.count_nonzero(t)),
        ("histc(100 bins)", flat, lambda m, t: m.histc(t, 100, -3, 3) if m is not np
         else np.histogram(t, 100, (-3, 3))),
        ("bincount", ints, lambda m, t: m.bincount(t)),
        ("searchsorted(1000 edges)", flat, lambda m, t: m.searchsorted(arr_edges[id(m)], t) if m is not np
         else np.searchsorted(edges, t)),
        ("unique(sorted)", ints, lambda m, t: m.unique(t)),
        ("isclose", x, lambda m, t: m.isclose(t, t)),
    ]
    arr_edges = {id(tl): tl.tensor(edges), id(np): edges}
    if torch is not None:
        arr_edges[id(torch)] = torch.from_numpy(edges.copy())
    out = []
    for name, v, call in specs:
        fns = {}
        for lib, mod in libs.items():
            t = arr(lib, v)
            if lib == "numpy" and call(np, t) is None:
                continue
            fns[lib] = lambda call=call, mod=mod, t=t: call(mod, t)
        out.append((name, fns))
    return out


def print_section(title, cases, libs, number, repeats):
    print(f"\n## {title} (ms, median; ratio = torchlite / other, below 1 is faster)")
    widths = [26] + [11] * len(libs) + [10, 10]
    print(fmt_row(["case", *libs, "vs torch", "vs numpy"], widths))
    for name, fns in cases:
        res = {k: v * 1e3 for k, v in measure(fns, number, repeats).items()}
        ratio = {k: f"{res['torchlite'] / res[k]:.2f}x" if k in res else "-" for k in ("torch", "numpy")}
        cells = [f"{res[k]:.3f}" if k in res else "-" for k in libs]
        print(fmt_row([name, *cells, ratio["torch"], ratio["numpy"]], widths))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="fewer iterations, 256K elements")
    args = p.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torchlite as tl

    torch = load_torch()
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    libs = ["torchlite", "torch", "numpy"] if torch is not None else ["torchlite", "numpy"]
    print(f"threads={args.threads} repeats={args.repeats} torch={'yes ' + torch.__version__ if torch else 'no'}")
    n = (256 << 10) if args.quick else (1 << 20)
    number = 2 if args.quick else 5
    print_section(f"Unary math, {n >> 10}K float32", unary_cases(tl, torch, n), libs, number, args.repeats)
    print_section(f"Statistics, {n >> 10}K elements", statistics_cases(tl, torch, n), libs, number, args.repeats)


if __name__ == "__main__":
    main()

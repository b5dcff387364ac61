"""Side-by-side speed of torchlite, PyTorch (when installed) and NumPy for reductions, scans,
sorting and products, in one process.

    python benchmarks/bench_reduce.py [--threads 1] [--repeats 5] [--quick] [--training]

--training times sum(0) (a Linear layer's bias gradient) and sum(-1) of the (N, C) float32 shapes
of training steps instead.

Every case is measured for all libraries in alternation within one run (the machine is shared
and drifts between runs); the table reports medians and same-run ratios torchlite / other.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from libraries import measure  # noqa: E402


def _logsumexp_np(a, axis):
    m = a.max(axis=axis, keepdims=True)
    return np.log(np.exp(a - m).sum(axis=axis)) + m.squeeze(axis)


def cases(tl, torch, n):
    """(name, {lib: callable}) for an (n, n) float32 matrix and friends."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, n)).astype(np.float32)
    libs = {"torchlite": (tl, tl.tensor(x)), "numpy": (np, x)}
    if torch is not None:
        libs["torch"] = (torch, torch.from_numpy(x.copy()))
    out = []

    def add(name, make):
        fns = {}
        for lib, (mod, t) in libs.items():
            fn = make(lib, mod, t)
            if fn is not None:
                fns[lib] = fn
        out.append((name, fns))

    add("var(dim=1)", lambda lib, m, t: (lambda: t.var(axis=1, ddof=1)) if lib == "numpy" else (lambda: t.var(1)))
    add("logsumexp(dim=1)", lambda lib, m, t: (lambda: _logsumexp_np(t, 1)) if lib == "numpy"
        else (lambda: m.logsumexp(t, 1)))
    add("norm (all)", lambda lib, m, t: (lambda: np.linalg.norm(t)) if lib == "numpy" else (lambda: m.norm(t)))
    add("norm(dim=1)", lambda lib, m, t: (lambda: np.linalg.norm(t, axis=1)) if lib == "numpy"
        else (lambda: m.linalg.vector_norm(t, 2, [1])))
    add("cumsum(dim=1) inner", lambda lib, m, t: (lambda: np.cumsum(t, axis=1)) if lib == "numpy"
        else (lambda: m.cumsum(t, 1)))
    add("cumsum(dim=0) outer", lambda lib, m, t: (lambda: np.cumsum(t, axis=0)) if lib == "numpy"
        else (lambda: m.cumsum(t, 0)))
    add("sort(dim=1)", lambda lib, m, t: (lambda: np.sort(t, axis=1, kind="stable")) if lib == "numpy"
        else (lambda: m.sort(t, 1)))
    add("topk(k=10, dim=1)", lambda lib, m, t: None if lib == "numpy" else (lambda: m.topk(t, 10, 1)))
    add("nansum(dim=1)", lambda lib, m, t: (lambda: np.nansum(t, axis=1)) if lib == "numpy"
        else (lambda: m.nansum(t, 1)))
    add("cummax(dim=1)", lambda lib, m, t: (lambda: np.maximum.accumulate(t, axis=1)) if lib == "numpy"
        else (lambda: m.cummax(t, 1)))
    add("quantile(0.3, dim=1)", lambda lib, m, t: (lambda: np.quantile(t, 0.3, axis=1)) if lib == "numpy"
        else (lambda: m.quantile(t, 0.3, 1)))
    seq = np.sort(x[0])

    def searchsorted_case(lib, m, t):
        if lib == "numpy":
            return lambda: np.searchsorted(seq, t)
        s = m.tensor(seq) if lib == "torchlite" else torch.from_numpy(seq.copy())
        return lambda: m.searchsorted(s, t)

    add(f"searchsorted ({n}x{n} in {n})", searchsorted_case)
    ints = rng.integers(0, n, size=(n, n))

    def unique_case(lib, m, _):
        if lib == "numpy":
            return lambda: np.unique(ints, return_counts=True)
        u = m.tensor(ints) if lib == "torchlite" else torch.from_numpy(ints.copy())
        return lambda: m.unique(u, return_counts=True)

    add("unique(return_counts)", unique_case)

    # linear forward + backward: batch 256, 1024 -> 1024
    w = rng.standard_normal((n, n)).astype(np.float32) * 0.01
    b = rng.standard_normal(n).astype(np.float32)
    xb = rng.standard_normal((256, n)).astype(np.float32)

    def linear_case(lib, m, _):
        if lib == "numpy":
            return None
        W = m.tensor(w) if lib == "torchlite" else torch.from_numpy(w.copy())
        W.requires_grad_()
        B = m.tensor(b) if lib == "torchlite" else torch.from_numpy(b.copy())
        B.requires_grad_()
        X = m.tensor(xb) if lib == "torchlite" else torch.from_numpy(xb.copy())

        def run():
            m.nn.functional.linear(X, W, B).sum().backward()
        return run

    add(f"linear fwd+bwd (256x{n})", linear_case)
    a3 = rng.standard_normal((8, 128, 64)).astype(np.float32)
    b3 = rng.standard_normal((8, 64, 128)).astype(np.float32)

    def einsum_case(lib, m, _):
        if lib == "numpy":
            return lambda: np.einsum("bij,bjk->bik", a3, b3, optimize=True)
        A = m.tensor(a3) if lib == "torchlite" else torch.from_numpy(a3)
        Bt = m.tensor(b3) if lib == "torchlite" else torch.from_numpy(b3)
        return lambda: m.einsum("bij,bjk->bik", A, Bt)

    add("einsum bij,bjk->bik", einsum_case)
    return out


TRAINING_SHAPES = [(64, 10), (64, 384), (64, 2048), (256, 10), (256, 384), (256, 2048), (1024, 10),
                   (1024, 384), (1024, 2048), (4096, 10), (4096, 384), (4096, 2048)]


def training_cases(tl, torch):
    """(name, {lib: callable}) for sum(0) and sum(-1) of the TRAINING_SHAPES."""
    rng = np.random.default_rng(0)
    out = []
    for dim in (0, -1):
        for n, c in TRAINING_SHAPES:
            x = rng.standard_normal((n, c)).astype(np.float32)
            a = tl.tensor(x)
            fns = {"torchlite": lambda a=a, d=dim: a.sum(d), "numpy": lambda x=x, d=dim: x.sum(d)}
            if torch is not None:
                b = torch.from_numpy(x.copy())
                fns["torch"] = lambda b=b, d=dim: b.sum(d)
            out.append((f"sum({dim}) {n}x{c}", fns))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--training", action="store_true", help="sum(0) / sum(-1) of training-step shapes")
    args = p.parse_args()
    import torchlite as tl
    try:
        import torch
    except ImportError:
        torch = None
    if args.threads:
        tl.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    n = 256 if args.quick else 1024
    print(f"{'case':28s} {'torchlite':>11s} {'torch':>11s} {'numpy':>11s} {'tl/torch':>9s} {'tl/numpy':>9s}")
    for name, fns in training_cases(tl, torch) if args.training else cases(tl, torch, n):
        t = measure(fns, number=50 if args.training else 3 if not args.quick else 10, repeats=args.repeats)
        cols = [f"{t[lib] * 1e3:9.3f}ms" if lib in t else f"{'-':>11s}" for lib in ("torchlite", "torch", "numpy")]
        ratios = [f"{t['torchlite'] / t[lib]:9.2f}" if lib in t else f"{'-':>9s}" for lib in ("torch", "numpy")]
        print(f"{name:28s} {' '.join(cols)} {' '.join(ratios)}")


if __name__ == "__main__":
    main()

"""Side-by-side speed of torchlite, PyTorch (when installed) and NumPy for torch.linalg's
factorizations and solvers (float32 n x n matrices), in one process.

    python benchmarks/bench_linalg.py [--threads 1] [--repeats 5] [--sizes 64 256 1024]

torchlite calls LAPACK from scipy-openblas32 (Note [LAPACK source], aten/native/Lapack.h); PyTorch
uses its bundled LAPACK (MKL or OpenBLAS) and NumPy its own OpenBLAS. Every case is measured for
all libraries in alternation within one run; the table reports medians and same-run ratios
torchlite / other.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from libraries import load_torch, measure  # noqa: E402


def cases(tl, torch, n):
    """(name, {lib: callable}) for well-conditioned and SPD float32 n x n matrices."""
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((n, n)) / np.sqrt(n) + 2 * np.eye(n)).astype(np.float32)
    spd = (a @ a.T + n * np.eye(n)).astype(np.float32)
    sym = (a + a.T).astype(np.float32)
    b = rng.standard_normal((n, 8)).astype(np.float32)
    mats = {"a": a, "spd": spd, "sym": sym, "b": b}
    libs = {"torchlite": {k: tl.tensor(v) for k, v in mats.items()}, "numpy": mats}
    if torch is not None:
        libs["torch"] = {k: torch.from_numpy(v.copy()) for k, v in mats.items()}
    mods = {"torchlite": tl, "torch": torch, "numpy": np}
    ops = [
        ("solve (n x 8 rhs)", lambda m, t: lambda: m.linalg.solve(t["a"], t["b"])),
        ("inv", lambda m, t: lambda: m.linalg.inv(t["a"])),
        ("det", lambda m, t: lambda: m.linalg.det(t["a"])),
        ("cholesky", lambda m, t: lambda: m.linalg.cholesky(t["spd"])),
        ("qr", lambda m, t: lambda: m.linalg.qr(t["a"])),
        ("svd (reduced)", lambda m, t: lambda: m.linalg.svd(t["a"], full_matrices=False)),
        ("eigh", lambda m, t: lambda: m.linalg.eigh(t["sym"])),
        ("eig (general)", lambda m, t: lambda: m.linalg.eig(t["a"])),
        ("eigvals (general)", lambda m, t: lambda: m.linalg.eigvals(t["a"])),
    ]
    return [(f"{name} n={n}", {lib: make(mods[lib], t) for lib, t in libs.items()}) for name, make in ops]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024])
    args = p.parse_args()
    import torchlite as tl

    torch = load_torch()
    if args.threads:
        tl.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    print(f"{'case':28s} {'torchlite':>11s} {'torch':>11s} {'numpy':>11s} {'tl/torch':>9s} {'tl/numpy':>9s}")
    for n in args.sizes:
        for name, fns in cases(tl, torch, n):
            t = measure(fns, number=max(1, 20 * 64 // n), repeats=args.repeats)
            cols = [f"{t[lib] * 1e3:9.3f}ms" if lib in t else f"{'-':>11s}" for lib in ("torchlite", "torch", "numpy")]
            ratios = [f"{t['torchlite'] / t[lib]:9.2f}" if lib in t else f"{'-':>9s}" for lib in ("torch", "numpy")]
            print(f"{name:28s} {' '.join(cols)} {' '.join(ratios)}")


if __name__ == "__main__":
    main()

"""Side-by-side speed of torchlite, PyTorch (when installed) and NumPy for torch.linalg's
factorizations and solvers (float32 n x n matrices), in one process; with --gemm, for float32
matrix products of the shapes training steps run instead (torchlite's own GEMM, Note [CPU GEMM]).

    python benchmarks/bench_linalg.py [--threads 1] [--repeats 5] [--sizes 64 256 1024]
    python benchmarks/bench_linalg.py --gemm [--threads 2] [--repeats 5] [--only transformer]

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


# (name, m, k, n, layout): "nn" is A @ B; "nt" is A @ B.T with B stored n x k (linear's x @ W.T, its
# forward); "tn" is A.T @ B with A stored k x m (a weight gradient, dy.T @ x).
GEMM_SHAPES = [
    ("run_all small M", 16, 1024, 1024, "nn"),
    ("run_all square", 1024, 1024, 1024, "nn"),
    ("LSTM LM h @ W_hh.T", 32, 256, 1024, "nt"),
    ("LSTM LM grad_gates @ W_hh", 32, 1024, 256, "nn"),
    ("LSTM LM x @ W_ih.T", 1120, 128, 1024, "nt"),
    ("LSTM LM decoder x @ W.T", 1120, 256, 2000, "nt"),
    ("transformer d128 qkv x @ W.T", 1024, 128, 384, "nt"),
    ("transformer d128 ffn-in x @ W.T", 1024, 128, 512, "nt"),
    ("transformer d128 ffn-out x @ W.T", 1024, 512, 128, "nt"),
    ("transformer d128 qkv grad_x", 1024, 384, 128, "nn"),
    ("transformer d128 ffn-in grad_x", 1024, 512, 128, "nn"),
    ("transformer d128 ffn-out grad_x", 1024, 128, 512, "nn"),
    ("transformer d128 qkv grad_W", 384, 1024, 128, "tn"),
    ("transformer d128 ffn-in grad_W", 512, 1024, 128, "tn"),
    ("transformer d128 ffn-out grad_W", 128, 1024, 512, "tn"),
    ("ResNet-18 b1 conv 64ch 32x32", 64, 576, 1024, "nn"),
    ("ResNet-18 b1 conv 128ch 16x16", 128, 1152, 256, "nn"),
    ("ResNet-18 b1 conv 256ch 8x8", 256, 2304, 64, "nn"),
    ("ResNet-18 b1 conv 512ch 4x4", 512, 4608, 16, "nn"),
]


def gemm_cases(tl, torch, only=None):
    """(name, {lib: callable}, multiply-adds) for the float32 products of GEMM_SHAPES whose name
    contains `only`."""
    rng = np.random.default_rng(0)
    out = []
    for name, m, k, n, layout in GEMM_SHAPES:
        if only and only not in name:
            continue
        a = rng.standard_normal((k, m) if layout == "tn" else (m, k), dtype=np.float32)
        b = rng.standard_normal((n, k) if layout == "nt" else (k, n), dtype=np.float32)
        mods = {"torchlite": tl, "numpy": None} if torch is None else {"torchlite": tl, "torch": torch, "numpy": None}
        fns = {}
        for lib, mod in mods.items():
            x, w = (a, b) if mod is None else (mod.from_numpy(a.copy()), mod.from_numpy(b.copy()))
            fns[lib] = {"nn": lambda x=x, w=w: x @ w, "nt": lambda x=x, w=w: x @ w.T,
                        "tn": lambda x=x, w=w: x.T @ w}[layout]
        desc = {"nn": f"{m}x{k}@{k}x{n}", "nt": f"{m}x{k}@({n}x{k}).T", "tn": f"({k}x{m}).T@{k}x{n}"}[layout]
        out.append((f"{name} {desc}", fns, m * k * n))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024])
    p.add_argument("--gemm", action="store_true", help="time matrix products instead of factorizations")
    p.add_argument("--only", default=None, help="with --gemm: only the products whose name contains this")
    args = p.parse_args()
    import torchlite as tl

    torch = load_torch()
    if args.threads:
        tl.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    width = 60 if args.gemm else 28
    print(f"{'case':{width}s} {'torchlite':>11s} {'torch':>11s} {'numpy':>11s} {'tl/torch':>9s} {'tl/numpy':>9s}")
    if args.gemm:  # number: about 20 MFLOP a sample
        rows = [(name, fns, max(1, 10**7 // macs)) for name, fns, macs in gemm_cases(tl, torch, args.only)]
    else:
        rows = [(name, fns, max(1, 20 * 64 // n)) for n in args.sizes for name, fns in cases(tl, torch, n)]
    for name, fns, number in rows:
        t = measure(fns, number=number, repeats=args.repeats)
        cols = [f"{t[lib] * 1e3:9.3f}ms" if lib in t else f"{'-':>11s}" for lib in ("torchlite", "torch", "numpy")]
        ratios = [f"{t['torchlite'] / t[lib]:9.2f}" if lib in t else f"{'-':>9s}" for lib in ("torch", "numpy")]
        print(f"{name:{width}s} {' '.join(cols)} {' '.join(ratios)}")


if __name__ == "__main__":
    main()

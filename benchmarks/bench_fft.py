"""Side-by-side speed of torchlite, PyTorch (when installed) and NumPy for torch.fft, in one
process.

    python benchmarks/bench_fft.py [--threads 1] [--repeats 5]

torchlite runs its own mixed-radix / Bluestein plans (Note [FFT plan], aten/native/cpu/FFTPlan.h);
PyTorch and NumPy both run pocketfft. Inputs are float32 (complex64 for the complex transforms;
NumPy computes in complex128 whatever the input). Every case is measured for all libraries in
alternation within one run; the table reports medians and same-run ratios torchlite / other.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from libraries import load_torch, measure  # noqa: E402


def cases(tl, torch):
    """(name, {lib: callable}, number of calls per timing)."""
    rng = np.random.default_rng(0)

    def cplx(*shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)

    specs = [(f"fft n={n}", "fft", cplx(n)) for n in (256, 1000, 4096, 65536, 1009)]
    specs += [(f"rfft n={n}", "rfft", rng.standard_normal(n).astype(np.float32)) for n in (4096, 65536)]
    specs += [("fft (64, 1024) dim=-1", "fft", cplx(64, 1024)), ("fft2 (256, 256)", "fft2", cplx(256, 256))]
    out = []
    for name, fn, x in specs:
        fns = {"torchlite": (lambda f, t: lambda: f(t))(getattr(tl.fft, fn), tl.tensor(x)),
               "numpy": (lambda f, a: lambda: f(a))(getattr(np.fft, fn), x)}
        if torch is not None:
            fns["torch"] = (lambda f, t: lambda: f(t))(getattr(torch.fft, fn), torch.from_numpy(x.copy()))
        out.append((name, fns, max(1, 200_000 // x.size)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    import torchlite as tl

    torch = load_torch()
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    print(f"{'case':24s} {'torchlite':>11s} {'torch':>11s} {'numpy':>11s} {'tl/torch':>9s} {'tl/numpy':>9s}")
    for name, fns, number in cases(tl, torch):
        t = measure(fns, number=number, repeats=args.repeats)
        cols = [f"{t[lib] * 1e3:9.3f}ms" if lib in t else f"{'-':>11s}" for lib in ("torchlite", "torch", "numpy")]
        ratios = [f"{t['torchlite'] / t[lib]:9.2f}" if lib in t else f"{'-':>9s}" for lib in ("torch", "numpy")]
        print(f"{name:24s} {' '.join(cols)} {' '.join(ratios)}")


if __name__ == "__main__":
    main()

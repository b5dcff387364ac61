"""Activations, erf, dropout and unary math: torchlite vs PyTorch, forward and forward+backward.

    python benchmarks/bench_activations.py [--threads 1] [--repeats 5] [--quick]

gelu (exact and tanh), silu, erf, dropout and the unary math ops (inverse trig and hyperbolic,
logs, gamma family, Bessel I0, logit...) on 1M and 16M float32 elements; ops defined on (-1, 1)
or (0, 1) get inputs in (0, 1). Libraries are
measured in alternation within one run (the machine is shared and drifts); the table gives
median milliseconds per call and the same-run ratio torchlite / torch (lower is better).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from libraries import fmt_row, load_torch, measure, warm_malloc  # noqa: E402


def cases(lib, x):
    """name -> (forward callable, forward+backward callable or None) for one library."""
    F = lib.nn.functional
    unit = x.abs().div(x.abs().max() * 1.01).add(1e-3)  # in (0, 1)
    leaf = x.detach().clone().requires_grad_()
    unit_leaf = unit.detach().clone().requires_grad_()

    def fwd_bwd(fn, inp):
        def run():
            y = fn(inp)
            y.backward(lib.ones_like(y))
            inp.grad = None
        return run

    fns = {
        "gelu": lambda t: F.gelu(t),
        "gelu tanh": lambda t: F.gelu(t, approximate="tanh"),
        "silu": lambda t: F.silu(t),
        "erf": lambda t: lib.erf(t),
        "dropout p=0.5": lambda t: F.dropout(t, 0.5),
        "atan": lambda t: lib.atan(t),
        "sinh": lambda t: lib.sinh(t),
        "asinh": lambda t: lib.asinh(t),
        "sinc": lambda t: lib.sinc(t),
        "i0": lambda t: lib.i0(t),
        "lgamma": lambda t: lib.lgamma(t),
        "digamma": lambda t: lib.digamma(t),
        "polygamma 2": lambda t: lib.polygamma(2, t),
        "frac": lambda t: lib.frac(t),
        "square": lambda t: lib.square(t),
        "deg2rad": lambda t: lib.deg2rad(t),
    }
    unit_fns = {
        "asin": lambda t: lib.asin(t),
        "atanh": lambda t: lib.atanh(t),
        "log2": lambda t: lib.log2(t),
        "log10": lambda t: lib.log10(t),
        "logit": lambda t: lib.logit(t),
        "logit eps": lambda t: lib.logit(t, 0.01),
    }
    out = {name: (lambda fn=fn: fn(x), fwd_bwd(fn, leaf)) for name, fn in fns.items()}
    out.update({name: (lambda fn=fn: fn(unit), fwd_bwd(fn, unit_leaf)) for name, fn in unit_fns.items()})
    out["signbit"] = (lambda: lib.signbit(x), None)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="fewer iterations, 1M elements only")
    args = p.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torchlite as tl

    torch = load_torch()
    if torch is None:
        sys.exit("bench_activations compares with PyTorch, which is not installed")
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    warm_malloc()
    print(f"threads={args.threads} repeats={args.repeats} torch={torch.__version__}")
    widths = [16, 10, 12, 12, 10]
    sizes = [1 << 20] if args.quick else [1 << 20, 16 << 20]
    for n in sizes:
        x = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
        ours, theirs = cases(tl, tl.tensor(x)), cases(torch, torch.from_numpy(x.copy()))
        number = 3 if n > (1 << 20) or args.quick else 10
        print(f"\n## {n >> 20}M float32 (ms per call, median; ratio = torchlite / torch)")
        print(fmt_row(["op", "pass", "torchlite", "torch", "ratio"], widths))
        for name in ours:
            for k, kind in enumerate(("fwd", "fwd+bwd")):
                if ours[name][k] is None:
                    continue
                res = measure({"torchlite": ours[name][k], "torch": theirs[name][k]}, number, args.repeats)
                ms = {lib: v * 1e3 for lib, v in res.items()}
                print(fmt_row([name, kind, f"{ms['torchlite']:.2f}", f"{ms['torch']:.2f}",
                               f"{ms['torchlite'] / ms['torch']:.2f}x"], widths))


if __name__ == "__main__":
    main()

"""Optimizer step time: torchlite (one fused multi-tensor kernel per group) vs PyTorch.

    python benchmarks/bench_optim.py [--threads N] [--repeats 7] [--quick]

A model-like set of 20 float32 parameters totalling about 1M elements (a few big matrices and
many small vectors) with fixed gradients; each case times optimizer.step(). A second table times
the same on 20 parameters of 10 elements (per-step overhead: Python and dispatch). PyTorch runs its
default implementation on CPU (for-loop over tensors), foreach=True, and fused=True where it has
a fused CPU kernel (SGD, Adam, AdamW, Adagrad). All libraries are measured in alternation within
one run (the machine is shared and drifts); the table reports medians and same-run ratios
(torchlite time / other time: below 1 means torchlite is faster). Memory traffic is reported as
GB/s of the bytes a one-pass update must read and write.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from libraries import measure  # noqa: E402

# 20 parameters, ~0.98M elements: an MLP-ish mix of matrices, biases and norms.
SHAPES = [
    (512, 512),
    (512,),
    (512, 512),
    (512,),
    (512, 256),
    (256,),
    (512, 512),
    (256,),
    (256, 128),
    (128,),
    (128, 128),
    (128,),
    (128, 64),
    (64,),
    (64, 64),
    (64,),
    (512,),
    (512,),
    (64, 10),
    (10,),
]

# name, constructor kwargs, state tensors per parameter (for the GB/s figure)
CASES = [
    ("SGD momentum", "SGD", dict(lr=0.01, momentum=0.9), 1),
    ("Adam", "Adam", dict(lr=1e-3), 2),
    ("AdamW amsgrad", "AdamW", dict(lr=1e-3, amsgrad=True), 3),
    ("RMSprop", "RMSprop", dict(lr=1e-3), 1),
    ("Adagrad", "Adagrad", dict(lr=1e-2), 1),
]


def make_step(lib, cls_name, kwargs, arrays, grads, **extra):
    params = [lib.tensor(a, requires_grad=True) for a in arrays]
    for p, g in zip(params, grads):
        p.grad = lib.tensor(g)
    opt = getattr(lib.optim, cls_name)(params, **kwargs, **extra)
    return opt.step


def table(tl, torch, arrays, grads, number, repeats, unit, scale, traffic_of=None) -> None:
    header = f"{'case':16} {'torchlite ' + unit:>14}" + (f" {'GB/s':>6}" if traffic_of else "")
    variants = ["default", "foreach", "fused"] if torch is not None else []
    for v in variants:
        header += f" {'torch ' + v + ' ' + unit:>20} {'ratio':>6}"
    print(header)
    for label, cls_name, kwargs, n_state in CASES:
        cases = {"torchlite": make_step(tl, cls_name, kwargs, arrays, grads)}
        if torch is not None:
            cases["default"] = make_step(torch, cls_name, kwargs, arrays, grads)
            cases["foreach"] = make_step(torch, cls_name, kwargs, arrays, grads, foreach=True)
            try:
                cases["fused"] = make_step(torch, cls_name, kwargs, arrays, grads, fused=True)
                cases["fused"]()
            except (RuntimeError, TypeError, ValueError):
                cases.pop("fused", None)
        times = measure(cases, number, repeats)
        ours = times["torchlite"]
        row = f"{label:16} {ours * scale:14.3f}"
        if traffic_of:
            row += f" {traffic_of(n_state) / ours / 1e9:6.1f}"
        for v in variants:
            if v in times:
                row += f" {times[v] * scale:20.3f} {ours / times[v]:6.2f}"
            else:
                row += f" {'n/a':>20} {'':>6}"
        print(row)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()

    import torchlite as tl
    import torchlite.optim  # noqa: F401

    try:
        import torch
    except ImportError:
        torch = None
    if args.threads:
        tl.set_num_threads(args.threads)
        if torch is not None:
            torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    grads = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
    numel = sum(a.size for a in arrays)
    number = 5 if args.quick else 20
    repeats = 3 if args.quick else args.repeats
    print(
        f"{len(SHAPES)} float32 parameters, {numel} elements; threads: torchlite {tl.get_num_threads()}"
        + (f", torch {torch.get_num_threads()} (torch {torch.__version__})" if torch is not None else "")
    )
    # One pass: read param, grad and state; write param and state.
    table(tl, torch, arrays, grads, number, repeats, "ms", 1e3, lambda n_state: numel * 4 * (3 + 2 * n_state))
    small = [rng.standard_normal(10).astype(np.float32) for _ in SHAPES]
    small_grads = [rng.standard_normal(10).astype(np.float32) for _ in SHAPES]
    print(f"\nper-step overhead: {len(SHAPES)} float32 parameters of 10 elements")
    table(tl, torch, small, small_grads, number * 10, repeats, "us", 1e6)


if __name__ == "__main__":
    main()

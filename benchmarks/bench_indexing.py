"""Indexing operators side by side with PyTorch (when installed) and NumPy, in one process.

    python benchmarks/bench_indexing.py [--threads 1] [--repeats 5] [--quick]

Cases: index_select, x[idx], gather, x[mask], masked_fill, scatter_add, embedding forward and
backward. Every case runs for all libraries in alternation within one run (the machine is
shared and drifts); the table gives medians in ms and same-run ratios (torchlite / other,
lower is better). Only the ratios are worth comparing across runs.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from libraries import load_torch, fmt_row, measure  # noqa: E402


def cases(tl, torch, rows: int, cols: int):
    """(name, {lib: callable}) for each case, on the same data in every library."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    idx = rng.integers(0, rows, rows // 2)
    gidx = rng.integers(0, cols, (rows, cols))
    mask = x > 0.5
    src = rng.standard_normal((rows, cols)).astype(np.float32)
    tok = rng.integers(0, rows, (64, 128))
    gout = rng.standard_normal((64, 128, cols)).astype(np.float32)

    libs = {"torchlite": tl} if torch is None else {"torchlite": tl, "torch": torch}
    data = {}
    for name, lib in libs.items():
        w = lib.tensor(x, requires_grad=False)
        data[name] = dict(x=w, idx=lib.tensor(idx), gidx=lib.tensor(gidx), mask=lib.tensor(mask),
                          src=lib.tensor(src), tok=lib.tensor(tok), gout=lib.tensor(gout),
                          w=lib.tensor(x).requires_grad_())

    def per_lib(fn, np_fn=None):
        out = {name: (lambda d=data[name], lib=lib: fn(lib, d)) for name, lib in libs.items()}
        if np_fn is not None:
            out["numpy"] = np_fn
        return out

    def emb_fwd_bwd(lib, d):
        d["w"].grad = None
        y = lib.nn.functional.embedding(d["tok"], d["w"])
        y.backward(d["gout"])

    def np_scatter_add():
        out = np.zeros_like(x)
        np.add.at(out, (np.arange(rows)[:, None], gidx), src)
        return out

    return [
        ("index_select(x, 0, idx)", per_lib(lambda lib, d: lib.index_select(d["x"], 0, d["idx"]),
                                            lambda: np.take(x, idx, axis=0))),
        ("x[idx]", per_lib(lambda lib, d: d["x"][d["idx"]], lambda: x[idx])),
        ("x[:, idx[:64]]", per_lib(lambda lib, d: d["x"][:, d["idx"][:64] % cols], lambda: x[:, idx[:64] % cols])),
        ("gather(x, 1, gidx)", per_lib(lambda lib, d: lib.gather(d["x"], 1, d["gidx"]),
                                       lambda: np.take_along_axis(x, gidx, 1))),
        ("x[mask]", per_lib(lambda lib, d: d["x"][d["mask"]], lambda: x[mask])),
        ("masked_fill(mask, 0)", per_lib(lambda lib, d: d["x"].masked_fill(d["mask"], 0.0),
                                         lambda: np.where(mask, np.float32(0), x))),
        ("scatter_add(1, gidx, src)", per_lib(lambda lib, d: d["x"].scatter_add(1, d["gidx"], d["src"]),
                                              np_scatter_add)),
        ("x[idx] = 1.0", per_lib(lambda lib, d: d["x"].__setitem__(d["idx"], 1.0))),
        ("embedding fwd+bwd", per_lib(emb_fwd_bwd)),
    ]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="smaller tensors, fewer iterations")
    args = p.parse_args()
    import torchlite as tl

    torch = load_torch()
    tl.set_num_threads(args.threads)
    if torch is not None:
        torch.set_num_threads(args.threads)
    rows, cols = (1024, 256) if args.quick else (4096, 512)
    number = 3 if args.quick else 10
    print(f"threads={args.threads} repeats={args.repeats} x=({rows}, {cols}) float32 "
          f"torch={'yes ' + torch.__version__ if torch else 'no'}")
    print("\n(ms/call, median; ratio = torchlite / other, lower is better)")
    widths = [26, 10, 10, 10, 9, 9]
    print(fmt_row(["case", "torchlite", "torch", "numpy", "vs torch", "vs numpy"], widths))
    for name, fns in cases(tl, torch, rows, cols):
        t = measure(fns, number, args.repeats)
        ms = {k: v * 1e3 for k, v in t.items()}
        cells = [f"{ms[k]:.3f}" if k in ms else "-" for k in ("torchlite", "torch", "numpy")]
        ratios = [f"{ms['torchlite'] / ms[k]:.2f}x" if k in ms else "-" for k in ("torch", "numpy")]
        print(fmt_row([name, *cells, *ratios], widths))


if __name__ == "__main__":
    main()

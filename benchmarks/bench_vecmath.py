"""The vector math layer and half-precision loops: torchlite vs PyTorch and NumPy (issue 15).

    python benchmarks/bench_vecmath.py [--threads 1 2] [--repeats 5] [--size 1048576 ...] [--dtype float32]
                                       [--ops exp tanh ...] [--half]

Each thread count runs in a fresh process (OpenMP reads OMP_NUM_THREADS at start-up). Libraries
are measured in alternation within one run (the machine is shared and drifts); cells are
median milliseconds per call and the same-run ratios torchlite / torch and torchlite / NumPy
(below 1: torchlite is faster). NumPy's ufuncs are single-threaded and it has no erf, sigmoid
or mish: '-' there. --half runs only the float16/bfloat16 rows (elementwise, sum, and a 512^3
matmul); --ops only the named rows. Several sizes separate the kernels' cost (1e5 floats stay in
L2) from the fixed per-call cost (1e3) and from memory traffic and page faults (1e6).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from libraries import bind, fmt_row, load_torch, measure, warm_malloc  # noqa: E402

# name -> (torchlite/torch call, NumPy call or None, input scale: inputs are uniform in +-scale)
UNARY = {
    "exp": (lambda m, t: m.exp(t), np.exp, 10),
    "exp2": (lambda m, t: m.exp2(t), np.exp2, 10),
    "expm1": (lambda m, t: m.expm1(t), np.expm1, 10),
    "log": (lambda m, t: m.log(t), np.log, 0),
    "log2": (lambda m, t: m.log2(t), np.log2, 0),
    "log10": (lambda m, t: m.log10(t), np.log10, 0),
    "log1p": (lambda m, t: m.log1p(t), np.log1p, 0),
    "sin": (lambda m, t: m.sin(t), np.sin, 10),
    "cos": (lambda m, t: m.cos(t), np.cos, 10),
    "tan": (lambda m, t: m.tan(t), np.tan, 10),
    "tanh": (lambda m, t: m.tanh(t), np.tanh, 3),
    "sigmoid": (lambda m, t: m.sigmoid(t), None, 10),
    "erf": (lambda m, t: m.erf(t), None, 3),
    "erfc": (lambda m, t: m.erfc(t), None, 3),
    "erfinv": (lambda m, t: m.erfinv(t), None, 1),
    "atan": (lambda m, t: m.atan(t), np.arctan, 10),
    "asin": (lambda m, t: m.asin(t), np.arcsin, 1),
    "acos": (lambda m, t: m.acos(t), np.arccos, 1),
    "sinh": (lambda m, t: m.sinh(t), np.sinh, 10),
    "cosh": (lambda m, t: m.cosh(t), np.cosh, 10),
    "gelu tanh": (lambda m, t: m.nn.functional.gelu(t, approximate="tanh"), None, 3),
    "silu": (lambda m, t: m.nn.functional.silu(t), None, 10),
    "mish": (lambda m, t: m.nn.functional.mish(t), None, 10),
    "softplus": (lambda m, t: m.nn.functional.softplus(t), None, 10),
}
BINARY = {
    "atan2": (lambda m, a, b: m.atan2(a, b), np.arctan2),
    "pow": (lambda m, a, b: m.pow(a, b), np.power),
}


def run(threads: int, repeats: int, n: int, dtype: str, half_only: bool, ops: list[str] | None) -> None:
    import torchlite as tl

    torch = load_torch()
    if torch is None:
        sys.exit("bench_vecmath compares with PyTorch, which is not installed")
    tl.set_num_threads(threads)
    torch.set_num_threads(threads)
    warm_malloc()
    rng = np.random.default_rng(0)
    u = rng.uniform(-1, 1, n)
    number = max(1, int(4e6 // n))
    widths = [12, 10, 10, 10, 12, 12]
    print(f"\n## threads={threads}, {n} {dtype} elements (ms per call, median of {repeats}; torch {torch.__version__})")
    print(fmt_row(["op", "torchlite", "torch", "numpy", "vs torch", "vs numpy"], widths))

    def row(name, fns):
        ms = {k: v * 1e3 for k, v in measure(fns, number, repeats).items()}
        cells = [name, f"{ms['torchlite']:.3f}", f"{ms['torch']:.3f}", f"{ms['numpy']:.3f}" if "numpy" in ms else "-",
                 f"{ms['torchlite'] / ms['torch']:.2f}x",
                 f"{ms['torchlite'] / ms['numpy']:.2f}x" if "numpy" in ms else "-"]
        print(fmt_row(cells, widths), flush=True)

    if not half_only:
        for name, (call, np_call, scale) in UNARY.items():
            if ops and name not in ops:
                continue
            x = (u * scale if scale else np.abs(u) * 100 + 1e-3).astype(dtype)
            fns = {"torchlite": bind(call, tl, tl.from_numpy(x.copy())),
                   "torch": bind(call, torch, torch.from_numpy(x.copy()))}
            if np_call is not None:
                fns["numpy"] = bind(np_call, x)
            row(name, fns)
        a = (np.abs(u) * 10 + 1e-3).astype(dtype)
        b = (rng.uniform(-1, 1, n) * 4).astype(dtype)
        for name, (call, np_call) in BINARY.items():
            if ops and name not in ops:
                continue
            row(name, {"torchlite": bind(call, tl, tl.from_numpy(a), tl.from_numpy(b)),
                       "torch": bind(call, torch, torch.from_numpy(a), torch.from_numpy(b)),
                       "numpy": bind(np_call, a, b)})
    if ops and not half_only:
        return
    h = u.astype(np.float32)
    for half in ("float16", "bfloat16"):
        la, ta = tl.from_numpy(h).to(getattr(tl, half)), torch.from_numpy(h).to(getattr(torch, half))
        lb, tb = la.flip(0).contiguous(), ta.flip(0).contiguous()
        for op, fn in (("add", lambda x, y: x + y), ("mul", lambda x, y: x * y), ("exp", lambda x, y: x.exp()),
                       ("tanh", lambda x, y: x.tanh()), ("sum", lambda x, y: x.sum())):
            fns = {"torchlite": bind(fn, la, lb), "torch": bind(fn, ta, tb)}
            if half == "float16" and op in ("add", "mul"):
                fns["numpy"] = bind(fn, h.astype(np.float16), h[::-1].astype(np.float16))
            row(f"{half} {op}", fns)
        m = rng.standard_normal((512, 512)).astype(np.float32)
        lm, tm = tl.from_numpy(m).to(getattr(tl, half)), torch.from_numpy(m).to(getattr(torch, half))
        row(f"{half} mm 512", {"torchlite": bind(lambda x: x @ x, lm), "torch": bind(lambda x: x @ x, tm)})


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--size", type=int, nargs="+", default=[1 << 20])
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--half", action="store_true", help="only the float16/bfloat16 rows")
    p.add_argument("--ops", nargs="+", choices=[*UNARY, *BINARY], help="only these unary/binary rows")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        for n in args.size:
            run(args.threads[0], args.repeats, n, args.dtype, args.half, args.ops)
        return
    for t in args.threads:
        env = dict(os.environ, OMP_NUM_THREADS=str(t), MKL_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t))
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "--threads", str(t), "--repeats",
               str(args.repeats), "--size", *map(str, args.size), "--dtype", args.dtype] + ["--half"] * args.half
        if args.ops:
            cmd += ["--ops", *args.ops]
        subprocess.run(cmd, env=env, check=True)


if __name__ == "__main__":
    main()

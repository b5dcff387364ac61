"""The kernels that runtime ISA dispatch covers, per CPU capability, against PyTorch (issue 15).

    python benchmarks/bench_cpu_capability.py [--capabilities default avx2 avx512] [--repeats 7]

Each capability runs in a fresh process with TORCHLITE_CPU_CAPABILITY set (the capability is
chosen once per process), on one thread. Within a process torchlite and PyTorch alternate;
cells are median milliseconds per call of torchlite and the same-run ratio torchlite / torch
(below 1: torchlite is faster). PyTorch always runs its own best capability.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_ops import fmt_row, measure  # noqa: E402
from libraries import single_thread_libraries  # noqa: E402


def cases(m):
    """name -> (zero-arg callable for library m, calls per sample)."""
    g = m.Generator().manual_seed(0)

    def rand(*shape, dtype=m.float32):
        return m.rand(*shape, generator=g, dtype=dtype) * 2 - 1

    small, big = rand(4096), rand(1 << 20)
    small2, big2 = rand(4096), rand(1 << 20)
    rows = rand(1024, 1024)
    a256, b256 = rand(256, 256), rand(256, 256)
    a1k, b1k = rand(1024, 1024), rand(1024, 1024)
    d256, e256 = rand(256, 256, dtype=m.float64), rand(256, 256, dtype=m.float64)
    x, w = rand(8, 64, 32, 32), rand(64, 64, 3, 3)
    F = m.nn.functional
    return {
        "add 4K": (lambda: small + small2, 2000),
        "add 1M": (lambda: big + big2, 50),
        "mul 4K": (lambda: small * small2, 2000),
        "mul 1M": (lambda: big * big2, 50),
        "sum 1M": (lambda: big.sum(), 100),
        "sum(dim=1) 1Kx1K": (lambda: rows.sum(dim=1), 100),
        "exp 1M": (lambda: big.exp(), 20),
        "tanh 1M": (lambda: big.tanh(), 20),
        "exp 1M f64": (lambda: big.double().exp(), 10),
        "matmul 256": (lambda: a256 @ b256, 50),
        "matmul 1024": (lambda: a1k @ b1k, 2),
        "matmul 256 f64": (lambda: d256 @ e256, 20),
        "conv2d 8x64x32x32 3x3": (lambda: F.conv2d(x, w, padding=1), 3),
    }


def child(repeats: int) -> None:
    libs = single_thread_libraries()
    per_lib = {name: cases(lib) for name, lib in libs.items()}
    out = {"capability": libs["torchlite"].backends.cpu.get_cpu_capability(), "rows": {}}
    for row, (_, number) in per_lib["torchlite"].items():
        res = measure({lib: per_lib[lib][row][0] for lib in libs}, number, repeats)
        out["rows"][row] = {lib: t * 1e3 for lib, t in res.items()}
    print(json.dumps(out))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--capabilities", nargs="+", default=["default", "avx2", "avx512"])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.repeats)
        return
    results = []
    for cap in args.capabilities:
        env = dict(os.environ, TORCHLITE_CPU_CAPABILITY=cap, OMP_NUM_THREADS="1")
        cmd = [sys.executable, __file__, "--child", "--repeats", str(args.repeats)]
        results.append(json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout))
    widths = [22] + [22] * len(results)
    print(fmt_row(["ms (torchlite/torch)", *(r["capability"] for r in results)], widths))
    for row in results[0]["rows"]:
        cells = []
        for r in results:
            t = r["rows"][row]
            ratio = f" ({t['torchlite'] / t['torch']:.2f}x)" if "torch" in t else ""
            cells.append(f"{t['torchlite']:.3f}{ratio}")
        print(fmt_row([row, *cells], widths))


if __name__ == "__main__":
    main()

"""Side-by-side speed of torchlite and PyTorch on one CUDA device, in one process.

    python benchmarks/bench_cuda.py [--n 16777216] [--repeats 5]

Needs a GPU (and PyTorch built with CUDA for the comparison column). Each case is timed for both
libraries in alternation, with a device synchronisation around every timed batch; the table
reports medians, torchlite's throughput (GB/s of bytes read + written for the memory-bound cases,
TFLOP/s for the matrix products, steps/s for the training steps) and torchlite / torch.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import torchlite as tl
import torchlite.cuda as tcuda

try:
    import models  # benchmarks/models.py, beside this file when run as a script
except ImportError:
    from benchmarks import models


def _time(fn, sync, number):
    sync()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    sync()
    return (time.perf_counter() - t0) / number


def cases(lib, n):
    """name -> (callable, work, unit): memory-bound cases on float32 vectors of n elements (work =
    bytes moved), matrix products (work = floating-point operations) and training steps (work = 1
    step), all on the GPU."""
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(n).astype(np.float32)
    b_np = rng.standard_normal(n).astype(np.float32)
    m_np = rng.standard_normal((4096, n // 4096)).astype(np.float32)
    a, b = lib.tensor(a_np).to("cuda"), lib.tensor(b_np).to("cuda")
    m = lib.tensor(m_np).to("cuda")
    f = 4 * n
    out = {
        "a + b": (lambda: a + b, 3 * f),
        "a * 2.5": (lambda: a * 2.5, 2 * f),
        "a.add_(b)": (lambda: a.add_(b, alpha=0.0), 3 * f),
        "exp(a)": (lambda: lib.exp(a), 2 * f),
        "tanh(a)": (lambda: lib.tanh(a), 2 * f),
        "gelu(a)": (lambda: lib.nn.functional.gelu(a), 2 * f),
        "clamp(a, -1, 1)": (lambda: lib.clamp(a, -1.0, 1.0), 2 * f),
        "a.sum()": (lambda: a.sum(), f),
        "m.sum(dim=1)": (lambda: m.sum(dim=1), f),
        "m.sum(dim=0)": (lambda: m.sum(dim=0), f),
        "m.amax(dim=1)": (lambda: m.amax(dim=1), f),
        "m.t().contiguous()": (lambda: m.t().contiguous(), 2 * f),
        "a[::2] + b[::2]": (lambda: a[::2] + b[::2], 3 * f // 2),
    }
    out = {name: (fn, work, "GB/s") for name, (fn, work) in out.items()}
    for dtype in ("float32", "float16", "bfloat16"):
        x = lib.randn(4096, 4096, device="cuda", dtype=getattr(lib, dtype))
        out[f"matmul 4096 {dtype}"] = (lambda x=x: x @ x, 2 * 4096**3, "TFLOP/s")
    for step in (models.mlp_step, models.transformer_step, models.resnet18_step):
        out[step.__name__] = (_built_on_first_call(lib, step), 1, "steps/s")
    return out


def _built_on_first_call(lib, make_step):
    """A training step from models.py whose model and batch are made on the GPU (through
    set_default_device) at the first call, the untimed warm-up, where a failure is reported."""
    step = []

    def run():
        if not step:
            lib.set_default_device("cuda")
            try:
                step.append(make_step(lib))
            finally:
                lib.set_default_device("cpu")
        step[0]()
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--number", type=int, default=20)
    args = parser.parse_args()
    if not tcuda.is_available():
        raise SystemExit("bench_cuda.py needs a CUDA device")
    libs = {"torchlite": (tl, tcuda.synchronize)}
    try:
        import torch

        if torch.cuda.is_available():
            libs["torch"] = (torch, torch.cuda.synchronize)
    except ImportError:
        pass
    built = {name: cases(lib, args.n) for name, (lib, _) in libs.items()}
    print(f"{tcuda.get_device_name()}, n = {args.n} float32; medians of {args.repeats} x {args.number} calls")
    print("GEMM: {} ({})".format(*tcuda._gemm_backend()))
    header = f"{'case':<24}{'torchlite us':>14}{'rate':>16}"
    print(header + (f"{'torch us':>12}{'tl/torch':>10}" if "torch" in libs else ""))
    scale = {"GB/s": 1e9, "TFLOP/s": 1e12, "steps/s": 1}
    for case, (_, work, unit) in built["torchlite"].items():
        samples = {name: [] for name in libs}
        try:
            for name in libs:
                built[name][case][0]()  # warm-up
        except Exception as e:  # an operator without a CUDA path: report it and go on
            print(f"{case:<24}failed: {type(e).__name__}: {str(e)[:90]}")
            continue
        for _ in range(args.repeats):
            for name, (_, sync) in libs.items():
                samples[name].append(_time(built[name][case][0], sync, args.number))
        med = {name: statistics.median(s) for name, s in samples.items()}
        rate = f"{work / med['torchlite'] / scale[unit]:.1f} {unit}"
        row = f"{case:<24}{med['torchlite'] * 1e6:>14.1f}{rate:>16}"
        if "torch" in med:
            row += f"{med['torch'] * 1e6:>12.1f}{med['torchlite'] / med['torch']:>10.2f}"
        print(row)

if __name__ == "__main__":
    main()

"""torchlite.compile beside PyTorch: eager and compiled, first call and steady state.

    python benchmarks/bench_compile.py [--quick] [--repeats 5] [--threads N] [--only pointwise]

Workloads: a chain of arithmetic pointwise ops over 4096x1024 float32, the same with exp, sigmoid
and tanh (our fused loops call the eager functors' scalar math; inductor vectorises it), a tanh
GELU chain ending in a sum and a mean over the last dim, a GELU MLP block and a residual +
layer_norm block (inference, no_grad), and a training step of the transformer example's
encoder layer (forward, loss, backward, SGD step). For each: our eager and compiled times and
PyTorch's eager and torch.compile (inductor) times, median milliseconds per call; "first" is
the first call of the compiled callable (capture + code generation + C++ compile), with an
empty kernel cache (a fresh TORCHLITE_CACHE_DIR). If torch.compile fails the row says why.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from libraries import load_torch, fmt_row  # noqa: E402


def pointwise_chain(lib, quick):
    rows = 1024 if quick else 4096
    x, y = lib.randn(rows, 1024), lib.randn(1024)

    def f(x, y):
        a = (x * 2.0 + y).relu() - y * 0.5
        b = lib.clamp(a * x, min=-1.0, max=4.0) / 3
        return lib.where(b > 0.5, b, -a) + x.abs()
    return f, (x, y), True


def transcendental_chain(lib, quick):
    rows = 1024 if quick else 4096
    x, y = lib.randn(rows, 1024), lib.randn(1024)

    def f(x, y):
        a = lib.sigmoid(x * 2.0 + y)
        b = (a - y).relu() * lib.exp(-x.abs())
        return lib.clamp(b, min=0.1) / 3 + lib.tanh(a) * 0.5
    return f, (x, y), True


def reduction_chain(lib, quick):
    rows = 1024 if quick else 4096
    x, y = lib.randn(rows, 1024), lib.randn(1024)

    def f(x, y):
        h = lib.nn.functional.gelu(x * 2.0 + y, approximate="tanh")
        return (h * x).sum(-1), h.mean(-1, keepdim=True)
    return f, (x, y), True


def gelu_mlp(lib, quick):
    d = 256 if quick else 512

    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = lib.nn.Linear(d, 4 * d), lib.nn.Linear(4 * d, d)

        def forward(self, x):
            return x + self.fc2(lib.nn.functional.gelu(self.fc1(x)))
    return Block(), (lib.randn(256, d),), True


def residual_layer_norm(lib, quick):
    d = 256 if quick else 1024

    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.norm = lib.nn.Linear(d, d), lib.nn.LayerNorm(d)

        def forward(self, x, skip):
            h = self.fc(x)
            return self.norm(skip + lib.nn.functional.silu(h) * 0.5 + h.sigmoid())
    return Block(), (lib.randn(512, d), lib.randn(512, d)), True


def transformer_step(lib, quick):
    d, seq = (64, 32) if quick else (128, 64)
    lib.manual_seed(0)
    layer = lib.nn.TransformerEncoderLayer(d, 4, dim_feedforward=4 * d, dropout=0.0, batch_first=True)
    opt = lib.optim.SGD(layer.parameters(), lr=1e-3)
    x = lib.randn(16, seq, d)

    def step(model):
        def run(x):
            opt.zero_grad()
            loss = model(x).square().mean()
            loss.backward()
            opt.step()
            return loss
        return run
    return layer, (x,), step


WORKLOADS = {"pointwise chain": pointwise_chain, "transcendental chain": transcendental_chain,
             "GELU chain + row sums": reduction_chain, "GELU MLP block": gelu_mlp,
             "residual + layer_norm": residual_layer_norm, "transformer train step": transformer_step}


def _time(fn, args, repeats, number):
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(number):
            fn(*args)
        samples.append((time.perf_counter() - t) / number)
    return statistics.median(samples) * 1e3


def _warm_up(fn, args, seconds=0.5):
    """Calls fn for `seconds` first: right after the first call's compile (a g++ run beside the
    process) the first few dozen calls of a fused chain ran up to 2x slower here before settling,
    and "steady" means settled, for both libraries. Not memory: those calls take every output
    from the allocator's cache without a page fault. 2x is one core for both OpenMP threads, and
    under load sched_getcpu shows the two threads on one CPU call after call, likely how the
    scheduler places a worker woken after sleeping through the compile until it rebalances."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        fn(*args)


def run_lib(lib, make, quick, repeats, number):
    """(eager ms, first compiled call ms, steady compiled ms) or an error string for compiled."""
    model, args, train = make(lib, quick)
    wrap = train if callable(train) else (lambda m: m)
    eager = wrap(model)
    ctx = lib.no_grad if train is True else _null
    with ctx():
        eager(*args)
        t_eager = _time(eager, args, repeats, number)
        try:
            compiled = wrap(lib.compile(model))
            t = time.perf_counter()
            compiled(*args)
            first = (time.perf_counter() - t) * 1e3
            _warm_up(compiled, args)
            steady = _time(compiled, args, repeats, number)
        except Exception as e:  # noqa: BLE001 (reported in the table)
            return t_eager, f"failed: {type(e).__name__}: {str(e).splitlines()[0][:60]}", None
    return t_eager, first, steady


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller shapes")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--number", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None,
                        help="threads of both libraries (default: each library's own default)")
    parser.add_argument("--only", default="", help="run the workloads whose name contains this text")
    args = parser.parse_args()
    os.environ["TORCHLITE_CACHE_DIR"] = tempfile.mkdtemp(prefix="torchlite_bench_compile_")
    import torchlite as tl
    torch = load_torch()
    libs = {"torchlite": tl} | ({"torch": torch} if torch is not None else {})
    if args.threads is not None:
        for lib in libs.values():
            lib.set_num_threads(args.threads)
    print(f"threads: {', '.join(f'{n} {lib.get_num_threads()}' for n, lib in libs.items())}; "
          f"load average {os.getloadavg()[0]:.1f}")
    widths = (24, 10, 14, 10, 14)
    header = ["workload / library", "eager ms", "compiled first", "steady ms", "eager/steady"]
    print(fmt_row(header, widths))
    for name, make in ((n, m) for n, m in WORKLOADS.items() if args.only in n):
        for lib_name, lib in libs.items():
            eager, first, steady = run_lib(lib, make, args.quick, args.repeats, args.number)
            if steady is None:
                cells = [f"{name} / {lib_name}", f"{eager:.2f}", first, "", ""]
            else:
                cells = [f"{name} / {lib_name}", f"{eager:.2f}", f"{first / 1e3:.2f} s", f"{steady:.2f}",
                         f"{eager / steady:.2f}x"]
            print(fmt_row(cells, widths), flush=True)


if __name__ == "__main__":
    main()

"""Convolution, pooling, padding and upsampling: torchlite vs PyTorch side by side, float32.

    python benchmarks/bench_conv.py [--threads 1] [--repeats 5] [--quick]
                                    [--blocks | --resnet] [--batches 1,32] [--split]

--blocks times conv2d alone (with bias) on the layer shapes of ResNet-18, VGG-11 and MobileNet
blocks for CIFAR-sized inputs (3x3, 1x1, depthwise, strided) at each of --batches instead of the
default cases. --resnet times one training step (forward, cross-entropy, backward, SGD) of a
ResNet-18 for 32x32 inputs at each of --batches. --split times the three maps of a convolution
apart: the forward, the input gradient and the weight gradient, as autograd calls them (PyTorch's
convolution_backward with one output asked for), on the --blocks shapes with --blocks, else on
run_all.py's conv2d row (32x16x32x32 -> 32, 3x3, padding 1).

Each case runs the same call on both libraries in alternation (see bench_ops.py for why);
the table reports median milliseconds and the ratio torchlite / torch (lower is better).
"fwd+bwd" is the forward pass plus autograd.grad of every input that requires a gradient.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from libraries import load_torch, fmt_row, measure  # noqa: E402
from models import resnet18  # noqa: E402


def _tensors(lib, arrays, grad):
    return [lib.tensor(a, requires_grad=grad) if lib.__name__ == "torchlite"
            else lib.from_numpy(a.copy()).requires_grad_(grad) for a in arrays]


def _runner(lib, fn, arrays, backward):
    """A callable running fn(lib, *inputs), plus the gradients of all inputs (seeded with ones)."""
    inputs = _tensors(lib, arrays, backward)
    if not backward:
        return lambda: fn(lib, *inputs)

    def run():
        y = fn(lib, *inputs)
        lib.autograd.grad(y, inputs, lib.ones_like(y))
    return run


def _cnn(lib, x, w1, b1, w2, b2):
    F = lib.nn.functional
    h = F.max_pool2d(lib.relu(F.conv2d(x, w1, b1, padding=1)), 2)
    return F.max_pool2d(lib.relu(F.conv2d(h, w2, b2, padding=1)), 2)


def cases(quick: bool):
    """(name, arrays, fn(lib, *tensors), backward?) with float32 NumPy inputs."""
    rng = np.random.default_rng(0)
    r = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    n = 8 if quick else 32
    batch = 16 if quick else 64
    conv = (r(n, 16, 32, 32), r(32, 16, 3, 3), r(32))
    pool = (r(n, 32, 32, 32),)
    cnn = (r(batch, 1, 28, 28), r(16, 1, 3, 3), r(16), r(32, 16, 3, 3), r(32))
    cifar = (r(batch, 3, 32, 32), r(32, 3, 3, 3), r(32), r(64, 32, 3, 3), r(64))
    conv3d_in = (r(n // 4, 8, 16, 16, 16), r(16, 8, 3, 3, 3), r(16))
    pool3d = (r(n // 4, 16, 16, 16, 16),)
    conv2d = lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, padding=1)  # noqa: E731
    conv3d = lambda lib, x, w, b: lib.nn.functional.conv3d(x, w, b, padding=1)  # noqa: E731
    n3 = n // 4
    return [
        (f"conv2d {n}x16x32x32 k3 -> 32", conv, conv2d, False),
        (f"conv2d {n}x16x32x32 k3 -> 32", conv, conv2d, True),
        (f"conv2d s2 {n}x16x32x32 k3", conv, lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, stride=2), False),
        (f"max_pool2d {n}x32x32x32 k2", pool, lambda lib, x: lib.nn.functional.max_pool2d(x, 2), False),
        (f"max_pool2d {n}x32x32x32 k2", pool, lambda lib, x: lib.nn.functional.max_pool2d(x, 2), True),
        (f"max_pool2d {n}x32x32x32 k3s2p1", pool,
         lambda lib, x: lib.nn.functional.max_pool2d(x, 3, 2, 1), False),
        (f"conv3d {n3}x8x16x16x16 k3 -> 16", conv3d_in, conv3d, False),
        (f"conv3d {n3}x8x16x16x16 k3 -> 16", conv3d_in, conv3d, True),
        (f"max_pool3d {n3}x16x16x16x16 k2", pool3d, lambda lib, x: lib.nn.functional.max_pool3d(x, 2), False),
        (f"max_pool3d {n3}x16x16x16x16 k2", pool3d, lambda lib, x: lib.nn.functional.max_pool3d(x, 2), True),
        (f"avg_pool2d {n}x32x32x32 k2", pool, lambda lib, x: lib.nn.functional.avg_pool2d(x, 2), False),
        (f"avg_pool2d {n}x32x32x32 k2", pool, lambda lib, x: lib.nn.functional.avg_pool2d(x, 2), True),
        (f"pad reflect {n}x32x32x32 (2,2,2,2)", pool,
         lambda lib, x: lib.nn.functional.pad(x, (2, 2, 2, 2), mode="reflect"), False),
        (f"bilinear x2 {n}x32x32x32", pool,
         lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"), False),
        (f"bilinear x2 {n}x32x32x32", pool,
         lambda lib, x: lib.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"), True),
        (f"CNN {batch}x1x28x28 (conv-relu-pool x2)", cnn, _cnn, False),
        (f"CNN {batch}x1x28x28 (conv-relu-pool x2)", cnn, _cnn, True),
        (f"CNN {batch}x3x32x32 (conv-relu-pool x2)", cifar, _cnn, False),
        (f"CNN {batch}x3x32x32 (conv-relu-pool x2)", cifar, _cnn, True),
    ]


# (label, C_in, size, C_out, kernel, stride, padding, groups)
BLOCK_SHAPES = [
    ("ResNet 3x3", 64, 32, 64, 3, 1, 1, 1),
    ("ResNet 3x3", 128, 16, 128, 3, 1, 1, 1),
    ("ResNet 3x3", 256, 8, 256, 3, 1, 1, 1),
    ("ResNet 3x3", 512, 4, 512, 3, 1, 1, 1),
    ("ResNet 3x3 s2", 64, 32, 128, 3, 2, 1, 1),
    ("ResNet 3x3 s2", 256, 8, 512, 3, 2, 1, 1),
    ("ResNet 1x1 s2 shortcut", 64, 32, 128, 1, 2, 0, 1),
    ("ResNet 1x1 s2 shortcut", 256, 8, 512, 1, 2, 0, 1),
    ("VGG 3x3 stem", 3, 32, 64, 3, 1, 1, 1),
    ("VGG 3x3", 64, 16, 128, 3, 1, 1, 1),
    ("VGG 3x3", 256, 4, 512, 3, 1, 1, 1),
    ("MobileNet 1x1 expand", 32, 16, 192, 1, 1, 0, 1),
    ("MobileNet 1x1 project", 192, 16, 32, 1, 1, 0, 1),
    ("MobileNet depthwise 3x3", 192, 16, 192, 3, 1, 1, 192),
    ("MobileNet depthwise 3x3 s2", 144, 32, 144, 3, 2, 1, 144),
]


def block_cases(batches):
    """conv2d on CNN block shapes: (name, arrays, fn, backward) per batch, forward and fwd+bwd."""
    rng = np.random.default_rng(0)
    r = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    out = []
    for batch in batches:
        for label, c, size, o, k, s, p, g in BLOCK_SHAPES:
            arrays = (r(batch, c, size, size), r(o, c // g, k, k), r(o))
            fn = lambda lib, x, w, b, s=s, p=p, g=g: lib.nn.functional.conv2d(x, w, b, s, p, 1, g)  # noqa: E731
            name = f"{label} {batch}x{c}x{size}x{size}->{o}"
            out += [(name, arrays, fn, False), (name, arrays, fn, True)]
    return out


def _split_maps(lib, x, w, gy, stride, padding, groups):
    """pass -> callable: conv2d's forward, input gradient and weight gradient, each alone."""
    st, pd, dl = [stride] * 2, [padding] * 2, [1, 1]
    if lib.__name__ == "torchlite":
        return {"fwd": lambda: lib.convolution(x, w, None, st, pd, dl, False, [0, 0], groups),
                "input grad": lambda: lib.convolution_backward_input(gy, w, list(x.shape), st, pd, dl, groups),
                "weight grad": lambda: lib.convolution_backward_weight(gy, x, list(w.shape), st, pd, dl, groups)}
    cb = lib.ops.aten.convolution_backward
    return {"fwd": lambda: lib.convolution(x, w, None, st, pd, dl, False, [0, 0], groups),
            "input grad": lambda: cb(gy, x, w, None, st, pd, dl, False, [0, 0], groups, [True, False, False]),
            "weight grad": lambda: cb(gy, x, w, None, st, pd, dl, False, [0, 0], groups, [False, True, False])}


def split_runs(libs, shapes, batches):
    """(name, pass, {lib: callable}) for the three maps of each (label, C_in, size, C_out, kernel,
    stride, padding, groups) shape at each batch size."""
    rng = np.random.default_rng(0)
    for batch in batches:
        for label, c, size, o, k, s, p, g in shapes:
            out = (size + 2 * p - k) // s + 1
            arrays = [rng.standard_normal(shape).astype(np.float32)
                      for shape in ((batch, c, size, size), (o, c // g, k, k), (batch, o, out, out))]
            maps = {lib.__name__: _split_maps(lib, *(lib.tensor(a) if lib.__name__ == "torchlite" else
                                                      lib.from_numpy(a) for a in arrays), s, p, g) for lib in libs}
            for kind in ("fwd", "input grad", "weight grad"):
                yield f"{label} {batch}x{c}x{size}x{size}->{o}", kind, {lib: m[kind] for lib, m in maps.items()}


def resnet_step(lib, batch):
    """A zero-argument training step of ResNet-18 on a fixed random batch."""
    lib.manual_seed(0)
    model = resnet18(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 3, 32, 32)).astype(np.float32)
    t = rng.integers(0, 10, batch)
    x, t = (lib.tensor(x), lib.tensor(t)) if lib.__name__ == "torchlite" else (lib.from_numpy(x), lib.from_numpy(t))

    def step():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), t).backward()
        opt.step()
    return step


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="smaller batches, fewer iterations")
    p.add_argument("--blocks", action="store_true", help="conv2d on CNN block shapes instead")
    p.add_argument("--resnet", action="store_true", help="ResNet-18 training steps instead")
    p.add_argument("--batches", default="1,32", help="batch sizes for --blocks and --resnet")
    p.add_argument("--split", action="store_true", help="forward, input and weight gradient apart")
    args = p.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    import torchlite as tl

    torch = load_torch()
    if torch is None:
        sys.exit("bench_conv.py compares with PyTorch, which is not installed")
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    print(f"threads={args.threads} repeats={args.repeats} torch={torch.__version__}  (ms, median; float32)")
    widths = [48, 12, 12, 11, 10]
    print(fmt_row(["case", "pass", "torchlite", "torch", "ratio"], widths))
    number = 2 if args.quick else 5
    # Generators: each case's inputs exist only while it runs (batch-128 cases are large).
    if args.split:
        shapes = BLOCK_SHAPES if args.blocks else [("conv2d 3x3", 16, 32, 32, 3, 1, 1, 1)]
        runs = split_runs((tl, torch), shapes, batches if args.blocks else [8 if args.quick else 32])
    elif args.resnet:
        runs = ((f"ResNet-18 CIFAR step batch {b}", "train", {lib.__name__: resnet_step(lib, b) for lib in (tl, torch)})
                for b in batches)
        number = 1
    else:
        runs = ((name, "fwd+bwd" if backward else "fwd",
                 {lib.__name__: _runner(lib, fn, arrays, backward) for lib in (tl, torch)})
                for name, arrays, fn, backward in (block_cases(batches) if args.blocks else cases(args.quick)))
    for name, kind, fns in runs:
        res = measure(fns, number, args.repeats)
        ms = {k: v * 1e3 for k, v in res.items()}
        print(fmt_row([name, kind, f"{ms['torchlite']:.3f}", f"{ms['torch']:.3f}",
                       f"{ms['torchlite'] / ms['torch']:.2f}x"], widths))


if __name__ == "__main__":
    main()

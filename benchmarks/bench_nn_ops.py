"""Side-by-side speed of torchlite and PyTorch on the nn ops: softmax, log_softmax,
layer_norm, cross_entropy (forward and forward + backward), batch_norm training (forward +
backward) and grid_sample (bilinear, an affine_grid warp; forward and forward + backward), float32.

    python benchmarks/bench_nn_ops.py [--threads N] [--repeats 5]

The machine is shared and noisy: both libraries are timed in alternation within one run and the
table gives medians and the same-run ratio torchlite / torch (below 1: torchlite is faster).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from libraries import measure  # noqa: E402


def lib_cases(lib, tl):
    """name -> zero-arg callable running one case on `lib` (torchlite or torch)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 1024)).astype(np.float32)
    img = rng.standard_normal((32, 64, 28, 28)).astype(np.float32)
    logits = (rng.standard_normal((512, 1000)) * 5).astype(np.float32)
    target = rng.integers(0, 1000, 512)
    F = lib.nn.functional

    def t(a, grad=False):
        return (lib.tensor(a) if lib is tl else lib.from_numpy(np.array(a))).requires_grad_(grad)

    def backward(fn, *args):
        return lambda: fn(*args).sum().backward()

    xt, xg, tt = t(x), t(x, True), t(target)
    w, b = t(np.ones(1024, np.float32), True), t(np.zeros(1024, np.float32), True)
    lt, lg = t(logits), t(logits, True)
    ig, c = t(img, True), np.ones(64, np.float32)
    wc, bc, rm, rv = t(c, True), t(c * 0, True), t(c * 0), t(c)
    warp_in = rng.standard_normal((8, 16, 64, 64)).astype(np.float32)
    theta = np.tile(np.array([[0.9, -0.2, 0.05], [0.25, 1.1, -0.1]], np.float32), (8, 1, 1))
    gi, gig = t(warp_in), t(warp_in, True)
    grid = F.affine_grid(t(theta), [8, 16, 64, 64], align_corners=False)
    return {
        "softmax fwd [256x1024]": lambda: F.softmax(xt, -1),
        "softmax fwd dim=0": lambda: F.softmax(xt, 0),
        "softmax fwd+bwd": backward(lambda a: F.softmax(a, -1) * a, xg),
        "log_softmax fwd": lambda: F.log_softmax(xt, -1),
        "log_softmax fwd+bwd": backward(lambda a: F.log_softmax(a, -1), xg),
        "layer_norm fwd [256x1024]": lambda: F.layer_norm(xt, (1024,), w, b),
        "layer_norm fwd+bwd": backward(lambda a: F.layer_norm(a, (1024,), w, b), xg),
        "cross_entropy fwd [512x1000]": lambda: F.cross_entropy(lt, tt),
        "cross_entropy fwd+bwd": backward(lambda a: F.cross_entropy(a, tt), lg),
        "batch_norm train fwd+bwd [32x64x28x28]": backward(
            lambda a: F.batch_norm(a, rm, rv, wc, bc, training=True), ig),
        "grid_sample bilinear fwd [8x16x64x64]": lambda: F.grid_sample(gi, grid, align_corners=False),
        "grid_sample bilinear fwd+bwd": backward(lambda a: F.grid_sample(a, grid, align_corners=False), gig),
        "affine_grid [8x2x3 -> 64x64]": lambda: F.affine_grid(t(theta), [8, 16, 64, 64], align_corners=False),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--number", type=int, default=20)
    args = ap.parse_args()
    import torch

    import torchlite as tl
    if args.threads:
        tl.set_num_threads(args.threads)
        torch.set_num_threads(args.threads)
    print(f"threads: torchlite {tl.get_num_threads()}, torch {torch.get_num_threads()}")
    print(f"{'case':42s} {'torchlite ms':>13s} {'torch ms':>10s} {'ratio':>7s}")
    ours, theirs = lib_cases(tl, tl), lib_cases(torch, tl)
    for name in ours:
        r = measure({"torchlite": ours[name], "torch": theirs[name]}, args.number, args.repeats)
        print(f"{name:42s} {r['torchlite'] * 1e3:13.3f} {r['torch'] * 1e3:10.3f} {r['torchlite'] / r['torch']:7.2f}")


if __name__ == "__main__":
    main()

"""The main job for now: train a logistic-regression classifier with torchlite.

Two Gaussian blobs in 8 dimensions, labels 0/1; full-batch gradient descent with the
gradient written out by hand (autograd comes later). The same computation runs in NumPy
alongside, and the script checks both agree, so what it prints is checked, not decorative.

    python examples/logistic_regression.py [--steps 300] [--n 4096]
"""

import argparse
import time

import numpy as np

import torchlite as tl


def make_data(n: int, d: int, seed: int):
    tl.manual_seed(seed)
    half = n // 2
    shift = tl.full((d,), 1.25)
    x0 = tl.randn(half, d) - shift
    x1 = tl.randn(n - half, d) + shift
    x = tl.cat([x0, x1], dim=0)
    y = tl.cat([tl.zeros(half), tl.ones(n - half)])
    return x, y


def train(x, y, steps: int, lr: float):
    n, d = x.shape
    w = tl.zeros(d)
    b = tl.zeros(1)
    losses = []
    for _ in range(steps):
        p = (x @ w + b).sigmoid()  # predicted probability of class 1
        eps = 1e-7
        loss = -(y * (p + eps).log() + (1 - y) * (1 - p + eps).log()).mean()
        grad_logits = (p - y) / n  # d loss / d logits
        w -= lr * (x.t() @ grad_logits)
        b -= lr * grad_logits.sum()
        losses.append(loss.item())
    return w, b, losses


def numpy_reference(x, y, steps: int, lr: float):
    n, d = x.shape
    w = np.zeros(d, np.float32)
    b = np.zeros(1, np.float32)
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p - y) / n
        w -= lr * (x.T @ g)
        b -= lr * g.sum()
    return w, b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--lr", type=float, default=0.5)
    args = ap.parse_args()

    x, y = make_data(args.n, 8, seed=0)
    t0 = time.perf_counter()
    w, b, losses = train(x, y, args.steps, args.lr)
    elapsed = time.perf_counter() - t0
    for step in (0, args.steps // 4, args.steps // 2, args.steps - 1):
        print(f"step {step:4d}  loss {losses[step]:.4f}")
    accuracy = ((x @ w + b > 0).to(tl.float32) == y).to(tl.float32).mean().item()
    print(f"train accuracy {accuracy:.3f}  ({args.steps} steps in {elapsed * 1000:.0f} ms, "
          f"{elapsed / args.steps * 1e6:.0f} us/step)")

    w_ref, _ = numpy_reference(x.numpy(), y.numpy(), args.steps, args.lr)
    err = float(np.abs(w.numpy() - w_ref).max())
    print(f"max |w - w_numpy| = {err:.2e}")
    assert err < 1e-3, "torchlite and NumPy disagree"
    assert accuracy > 0.95, "the classifier did not learn"


if __name__ == "__main__":
    main()

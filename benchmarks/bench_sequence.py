"""Side-by-side speed of torchlite and PyTorch on embedding_bag (sum/mean/max, forward and
forward + backward), ctc_loss (forward and forward + backward) and the recurrent layers (nn.LSTM
and nn.GRU, forward and forward + backward), float32.

    python benchmarks/bench_sequence.py [--threads N] [--repeats 5] [--only SUBSTRING]

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
    F = lib.nn.functional

    def t(a, grad=False):
        return (lib.tensor(a) if lib is tl else lib.from_numpy(np.array(a))).requires_grad_(grad)

    # 10000 x 64 table; 512 bags of 1..40 indices (about 10k lookups).
    table = rng.standard_normal((10000, 64)).astype(np.float32)
    sizes = rng.integers(1, 41, 512)
    idx = rng.integers(0, 10000, int(sizes.sum()))
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    w, wg, it, ot = t(table), t(table, True), t(idx), t(offsets)
    psw = t(rng.random(idx.size).astype(np.float32))
    # CTC: T=100 frames, N=16, C=30 classes, targets of 20..30 labels.
    T, N, C = 100, 16, 30
    logits = rng.standard_normal((T, N, C)).astype(np.float32)
    tg_lens = rng.integers(20, 31, N)
    targets = rng.integers(1, C, (N, 30))
    lp = t(logits)
    lp_sm = lib.log_softmax(lp, 2).detach()
    lg = t(logits, True)
    tt, il, tl_ = t(targets), t(np.full(N, T)), t(tg_lens)

    def recurrent(cls, seq, batch, hidden, backward):
        """One nn.<cls>(hidden, hidden) call on a (seq, batch, hidden) input, the same weights in both
        libraries; backward: also the backward of output.sum() (input and weight gradients)."""
        m = getattr(lib.nn, cls)(hidden, hidden)
        wrng = np.random.default_rng(1)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(t(wrng.uniform(-hidden ** -0.5, hidden ** -0.5, tuple(p.shape)).astype(np.float32)))
        x = t(rng.standard_normal((seq, batch, hidden)).astype(np.float32), backward)
        if not backward:
            return lambda: m(x)
        return lambda: m(x)[0].sum().backward()

    def bag_bwd(mode, **kw):
        return lambda: F.embedding_bag(it, wg, ot, mode=mode, **kw).sum().backward()

    return {
        "embedding_bag sum fwd [10000x64, 512 bags]": lambda: F.embedding_bag(it, w, ot, mode="sum"),
        "embedding_bag mean fwd": lambda: F.embedding_bag(it, w, ot, mode="mean"),
        "embedding_bag max fwd": lambda: F.embedding_bag(it, w, ot, mode="max"),
        "embedding_bag sum + per_sample_weights fwd": lambda: F.embedding_bag(it, w, ot, mode="sum",
                                                                              per_sample_weights=psw),
        "embedding_bag sum fwd+bwd": bag_bwd("sum"),
        "embedding_bag mean fwd+bwd": bag_bwd("mean"),
        "embedding_bag max fwd+bwd": bag_bwd("max"),
        "ctc_loss fwd [T=100, N=16, C=30, S<=30]": lambda: F.ctc_loss(lp_sm, tt, il, tl_),
        "ctc_loss fwd+bwd (with log_softmax)": lambda: F.ctc_loss(lib.log_softmax(lg, 2), tt, il, tl_).backward(),
        "LSTM fwd [seq 50, batch 32, hidden 256]": recurrent("LSTM", 50, 32, 256, False),
        "LSTM fwd+bwd [seq 50, batch 32, hidden 256]": recurrent("LSTM", 50, 32, 256, True),
        "LSTM fwd+bwd [seq 100, batch 64, hidden 512]": recurrent("LSTM", 100, 64, 512, True),
        "GRU fwd+bwd [seq 50, batch 32, hidden 256]": recurrent("GRU", 50, 32, 256, True),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--number", type=int, default=20)
    ap.add_argument("--only", default="", help="run only the cases whose name contains this")
    args = ap.parse_args()
    import torch

    import torchlite as tl
    if args.threads:
        tl.set_num_threads(args.threads)
        torch.set_num_threads(args.threads)
    print(f"threads: torchlite {tl.get_num_threads()}, torch {torch.get_num_threads()}")
    print(f"{'case':46s} {'torchlite ms':>13s} {'torch ms':>10s} {'ratio':>7s}")
    ours, theirs = lib_cases(tl, tl), lib_cases(torch, tl)
    for name in (n for n in ours if args.only in n):
        r = measure({"torchlite": ours[name], "torch": theirs[name]}, args.number, args.repeats)
        print(f"{name:46s} {r['torchlite'] * 1e3:13.3f} {r['torch'] * 1e3:10.3f} {r['torchlite'] / r['torch']:7.2f}")


if __name__ == "__main__":
    main()

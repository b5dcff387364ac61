"""Activation checkpointing: memory kept for backward and step time, with and without it.

    python benchmarks/bench_checkpoint.py [--layers 4] [--batch-size 32] [--context 64] [--repeats 3]

The stack of examples/train_char_transformer.py (pre-norm TransformerEncoderLayers, d_model 128,
4 heads, feed-forward 512, GELU, dropout 0.1) on a batch of 32 sequences of 64 tokens, run plain
and with each layer under torchlite.utils.checkpoint (both variants). "kept" is what the graph
holds for backward after the forward: the bytes of the distinct storages saved by operations
outside checkpoints (seen by a saved_tensors_hooks pack hook) plus the inputs each checkpoint
keeps to rerun its layer. "allocator" is the rise in the CPU allocator's large-block bytes over
the forward (blocks of 1 MiB and more, in 2 MiB pages: a coarser cross-check). Step time is one
forward and backward, median of `--repeats`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torchlite as tl  # noqa: E402
from torchlite.utils.checkpoint import checkpoint  # noqa: E402


def run(layers, x, mode):
    """One forward; returns (loss, bytes kept for backward)."""
    storages = {}

    def pack(t):
        storages[t._storage_id()] = t._storage_nbytes()
        return t

    with tl.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        for layer in layers:
            if mode == "plain":
                x = layer(x)
            else:
                storages[x._storage_id()] = x._storage_nbytes()  # the checkpoint keeps its input
                x = checkpoint(layer, x, use_reentrant=(mode == "reentrant"))
        loss = x.pow(2).mean()
    return loss, sum(storages.values())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--context", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tl.manual_seed(0)
    layers = [tl.nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, dropout=0.1, activation="gelu",
                                            batch_first=True, norm_first=True) for _ in range(args.layers)]
    x = tl.randn(args.batch_size, args.context, 128, requires_grad=True)
    print(f"{args.layers} transformer layers, batch {args.batch_size}x{args.context}x128 float32")
    print(f"{'mode':<14} {'kept MiB':>9} {'allocator MiB':>14} {'step ms':>8}")
    for mode in ("plain", "non-reentrant", "reentrant"):
        times, kept, held = [], 0, 0
        for _ in range(args.repeats):
            before = tl._C._cpu_allocator_stats()["allocated"]
            start = time.perf_counter()
            loss, kept = run(layers, x, mode)
            held = tl._C._cpu_allocator_stats()["allocated"] - before
            loss.backward()
            times.append(time.perf_counter() - start)
        print(f"{mode:<14} {kept / 2**20:>9.1f} {held / 2**20:>14.1f} {statistics.median(times) * 1e3:>8.1f}")


if __name__ == "__main__":
    main()

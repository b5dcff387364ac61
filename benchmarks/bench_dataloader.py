"""DataLoader throughput with worker processes: torchlite beside PyTorch.

    python benchmarks/bench_dataloader.py [--batches 40] [--workers 2] [--batch-size 32] [--repeats 3]

A map-style dataset of image-sized float32 tensors (3x224x224, 588 KiB each) that costs
almost nothing to produce, so the loader's own hand-over from the workers to the main process
is what is measured: default_collate stacking a batch (19 MiB at batch size 32) and the batch
crossing the process boundary. torchlite's workers build each batch in shared memory and send a
handle on it (torchlite.multiprocessing); before that they pickled every batch to bytes, which
the queue then pickled again. Each run iterates one epoch of `--batches` batches (the first,
which waits for the workers to start, is not timed) and touches one element of each batch;
libraries run in alternation and the table gives the median batches per second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make_dataset(lib, n):
    class Images(lib.utils.data.Dataset):
        def __init__(self):
            self.image = lib.rand(3, 224, 224)

        def __len__(self):
            return n

        def __getitem__(self, i):
            return self.image.clone(), i

    return Images()


def batches_per_second(lib, args, workers):
    loader = lib.utils.data.DataLoader(make_dataset(lib, args.batches * args.batch_size), batch_size=args.batch_size,
                                       num_workers=workers)
    it = iter(loader)
    next(it)  # workers started, first batch in
    start = time.perf_counter()
    count = 0
    for images, _ in it:
        float(images[-1, 0, 0, 0])
        count += 1
    return count / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from libraries import single_thread_libraries

    libs = single_thread_libraries()
    cases = [(name, w) for name in libs for w in (0, args.workers)]
    rates = {case: [] for case in cases}
    for _ in range(args.repeats):
        for name, w in cases:
            rates[(name, w)].append(batches_per_second(libs[name], args, w))
    print(f"{args.batches} batches of {args.batch_size}x3x224x224 float32, median of {args.repeats} runs")
    print(f"{'library':<10} {'workers':>7} {'batches/s':>10} {'MiB/s':>8}")
    mib = args.batch_size * 3 * 224 * 224 * 4 / 2**20
    for name, w in cases:
        r = statistics.median(rates[(name, w)])
        print(f"{name:<10} {w:>7} {r:>10.1f} {r * mib:>8.0f}")
    if "torch" in libs:
        median = {case: statistics.median(r) for case, r in rates.items()}
        ratio = median[("torchlite", args.workers)] / median[("torch", args.workers)]
        print(f"torchlite / torch throughput with {args.workers} workers: {ratio:.2f}")


if __name__ == "__main__":
    main()

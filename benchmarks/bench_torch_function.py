"""The cost of the __torch_function__ check on torchlite's Python-level functions.

    python benchmarks/bench_torch_function.py [--repeats 9] [--number 20000]

Each case times the public function (F.relu: checks its arguments, then calls the implementation)
and the implementation it wraps (F.relu.__wrapped__, no check) in alternation, on shape-(4,)
float32 tensors where per-call overhead dominates, and reports the CPU time per call (median of
the repeats) and the difference. Generated bindings (F.linear, `a + b`) check in their C entry
point and have no unchecked form to compare with: their times are the reference for a call that
has no Python frame.
"""

import argparse
import operator
import statistics
import time

import torchlite as tl
import torchlite.nn.functional as F


def _per_call(fn, number):
    t0 = time.process_time()
    for _ in range(number):
        fn()
    return (time.process_time() - t0) / number


def cases():
    x, w, b = tl.randn(4), tl.randn(3, 4), tl.randn(3)
    return [
        ("F.relu", lambda f: lambda: f(x), F.relu),
        ("F.softmax", lambda f: lambda: f(x, -1), F.softmax),
        ("F.linear", lambda f: lambda: f(x, w, b), F.linear),
        ("F.gelu", lambda f: lambda: f(x), F.gelu),
        ("a + b", lambda f: lambda: f(x, x), operator.add),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--number", type=int, default=20000)
    args = p.parse_args()
    tl.set_num_threads(1)
    print("case        checked us  unchecked us  overhead us")
    pointwise = cases()
    for name, call, public in pointwise:
        fns = {"checked": call(public)}
        if hasattr(public, "__wrapped__"):
            fns["unchecked"] = call(public.__wrapped__)
        samples = {k: [] for k in fns}
        for fn in fns.values():
            fn()
        for _ in range(args.repeats):
            for k, fn in fns.items():
                samples[k].append(_per_call(fn, args.number))
        us = {k: statistics.median(v) * 1e6 for k, v in samples.items()}
        unchecked, overhead = "-", "-"
        if "unchecked" in us:
            unchecked, overhead = f"{us['unchecked']:.3f}", f"{us['checked'] - us['unchecked']:.3f}"
        print(f"{name:<12}{us['checked']:>10.3f}  {unchecked:>12}  {overhead:>11}")


if __name__ == "__main__":
    main()

"""Registry entries: fractional_max_pool2d and F.fractional_max_pool2d, with explicit
random_samples so both libraries place the same windows. The NumPy reference recomputes the
window starts in the input's precision."""

import numpy as np

from opinfo.core import OpInfo, SampleInput, rand


def _starts(u, size, out, pool, dtype):
    t = np.dtype(dtype).type
    starts = [0] * out
    if out > 1:
        alpha = t(size - pool) / t(out - 1)
        starts = [int((t(i) + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [0]
    if out > 0:
        starts[-1] = size - pool
    return starts


def np_fractional_max_pool2d(x, kernel_size, output_size, samples):
    (kh, kw), (oh, ow) = kernel_size, output_size
    batched = x.ndim == 4
    xb = x if batched else x[None]
    n, c, h, w = xb.shape
    values = np.empty((n, c, oh, ow), x.dtype)
    indices = np.empty((n, c, oh, ow), np.int64)
    for b in range(n):
        for ch in range(c):
            rows = _starts(samples[b, ch, 1], h, oh, kh, x.dtype)
            cols = _starts(samples[b, ch, 0], w, ow, kw, x.dtype)
            for i, r in enumerate(rows):
                for j, s in enumerate(cols):
                    win = xb[b, ch, r:r + kh, s:s + kw]
                    k = int(np.argmax(win))  # the first maximum, as a strict > scan finds it
                    values[b, ch, i, j] = win.flat[k]
                    indices[b, ch, i, j] = (r + k // kw) * w + s + k % kw
    return (values, indices) if batched else (values[0], indices[0])


def _samples(dtype, rng):
    u = lambda *s: rand(s, dtype, rng, 0.0, 1.0)  # noqa: E731
    yield SampleInput((rand((2, 3, 7, 8), dtype, rng), [2, 2], [4, 5], u(2, 3, 2)))
    yield SampleInput((rand((1, 2, 9, 6), dtype, rng), [3, 2], [3, 3], u(1, 2, 2)))
    yield SampleInput((rand((2, 5, 5), dtype, rng), [2, 3], [4, 1], u(1, 2, 2)))  # unbatched
    yield SampleInput((rand((1, 1, 4, 4), dtype, rng), [2, 2], [1, 1], u(3, 1, 2)))  # extra samples rows
    yield SampleInput((rand((0, 2, 4, 4), dtype, rng), [2, 2], [2, 2], u(0, 2, 2)), grad=False)


def _functional_samples(dtype, rng):
    u = lambda *s: rand(s, dtype, rng, 0.0, 1.0)  # noqa: E731
    yield SampleInput((rand((2, 3, 8, 8), dtype, rng), 3), {"output_size": 4, "_random_samples": u(2, 3, 2)})
    yield SampleInput((rand((1, 2, 10, 9), dtype, rng), (2, 3)),
                      {"output_ratio": (0.5, 0.6), "_random_samples": u(1, 2, 2), "return_indices": True})


OPS = [
    # Gradients for the input only: the samples place the windows, they carry no gradient.
    OpInfo("fractional_max_pool2d", _samples, op=lambda lib, *a: lib._C._nn.fractional_max_pool2d(*a),
           ref=np_fractional_max_pool2d, grad_args=(0,)),
    OpInfo("nn.functional.fractional_max_pool2d", _functional_samples,
           op=lambda lib, *a, **k: lib.nn.functional.fractional_max_pool2d(*a, **k), yaml=False, grad_args=(0,)),
]

"""Registry entries: fractional_max_pool2d/3d and F.fractional_max_pool2d/3d, with explicit
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


def _np_fractional_max_pool(x, kernel_size, output_size, samples):
    """PyTorch's samples order: 2-d (width, height), 3-d (time, height, width)."""
    nd = len(kernel_size)
    batched = x.ndim == nd + 2
    xb = x if batched else x[None]
    n, c, *spatial = xb.shape
    values = np.empty((n, c, *output_size), x.dtype)
    indices = np.empty((n, c, *output_size), np.int64)
    axis_sample = (1, 0) if nd == 2 else (0, 1, 2)
    for b in range(n):
        for ch in range(c):
            starts = [_starts(samples[b, ch, axis_sample[d]], spatial[d], output_size[d], kernel_size[d], x.dtype)
                      for d in range(nd)]
            for pos in np.ndindex(*output_size):
                lo = [starts[d][pos[d]] for d in range(nd)]
                win = xb[(b, ch, *(slice(s, s + k) for s, k in zip(lo, kernel_size)))]
                k = int(np.argmax(win))  # the first maximum, as a strict > scan finds it
                values[(b, ch, *pos)] = win.flat[k]
                where = [s + i for s, i in zip(lo, np.unravel_index(k, win.shape))]
                indices[(b, ch, *pos)] = np.ravel_multi_index(where, spatial)
    return (values, indices) if batched else (values[0], indices[0])


def np_fractional_max_pool2d(x, kernel_size, output_size, samples):
    return _np_fractional_max_pool(x, kernel_size, output_size, samples)


np_fractional_max_pool3d = np_fractional_max_pool2d


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


def _samples3d(dtype, rng):
    u = lambda *s: rand(s, dtype, rng, 0.0, 1.0)  # noqa: E731
    yield SampleInput((rand((2, 2, 6, 7, 5), dtype, rng), [2, 3, 2], [3, 4, 3], u(2, 2, 3)))
    yield SampleInput((rand((2, 5, 6, 4), dtype, rng), [3, 2, 1], [2, 4, 3], u(1, 2, 3)))  # unbatched
    yield SampleInput((rand((0, 2, 4, 4, 4), dtype, rng), [2, 2, 2], [2, 2, 2], u(0, 2, 3)), grad=False)


def _functional_samples3d(dtype, rng):
    u = lambda *s: rand(s, dtype, rng, 0.0, 1.0)  # noqa: E731
    yield SampleInput((rand((2, 2, 6, 6, 6), dtype, rng), 2), {"output_size": 3, "_random_samples": u(2, 2, 3)})
    yield SampleInput((rand((1, 2, 8, 7, 9), dtype, rng), (2, 3, 2)),
                      {"output_ratio": (0.5, 0.4, 0.6), "_random_samples": u(1, 2, 3), "return_indices": True})


OPS = [
    # Gradients for the input only: the samples place the windows, they carry no gradient.
    OpInfo("fractional_max_pool2d", _samples, op=lambda lib, *a: lib._C._nn.fractional_max_pool2d(*a),
           ref=np_fractional_max_pool2d, grad_args=(0,)),
    OpInfo("nn.functional.fractional_max_pool2d", _functional_samples,
           op=lambda lib, *a, **k: lib.nn.functional.fractional_max_pool2d(*a, **k), yaml=False, grad_args=(0,)),
    OpInfo("fractional_max_pool3d", _samples3d, op=lambda lib, *a: lib._C._nn.fractional_max_pool3d(*a),
           ref=np_fractional_max_pool3d, grad_args=(0,)),
    OpInfo("nn.functional.fractional_max_pool3d", _functional_samples3d,
           op=lambda lib, *a, **k: lib.nn.functional.fractional_max_pool3d(*a, **k), yaml=False, grad_args=(0,)),
]

"""Registry entries: mm, bmm, matmul."""

import numpy as np

from opinfo.core import OpInfo, SampleInput, rand


def _mm_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng), rand((3, 4), dtype, rng)))
    yield SampleInput((rand((1, 3), dtype, rng), rand((3, 1), dtype, rng)))
    yield SampleInput((rand((2, 0), dtype, rng), rand((0, 3), dtype, rng)), grad=False)
    yield SampleInput((rand((0, 3), dtype, rng), rand((3, 2), dtype, rng)), grad=False)
    # Across the edges of the CUDA tiled kernel's 64 x 64 x 16 tiles.
    yield SampleInput((rand((70, 20), dtype, rng), rand((20, 65), dtype, rng)), grad=False)


def _bmm_samples(dtype, rng):
    yield SampleInput((rand((2, 2, 3), dtype, rng), rand((2, 3, 2), dtype, rng)))
    yield SampleInput((rand((1, 3, 1), dtype, rng), rand((1, 1, 2), dtype, rng)))
    yield SampleInput((rand((0, 2, 3), dtype, rng), rand((0, 3, 2), dtype, rng)), grad=False)
    yield SampleInput((rand((2, 65, 17), dtype, rng), rand((2, 17, 33), dtype, rng)), grad=False)


def _matmul_samples(dtype, rng):
    shapes = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 2)),
              ((2, 2, 3), (3, 2)), ((3,), (2, 3, 2)), ((2, 1, 2, 3), (2, 3, 2)),
              ((3, 2, 3), (1, 3, 2))]  # the last: one batch of b for all (a stride-0 batch in bmm)
    for a, b in shapes:
        yield SampleInput((rand(a, dtype, rng), rand(b, dtype, rng)))


OPS = [
    OpInfo("mm", _mm_samples, ref=np.matmul, supports_out=True),
    OpInfo("bmm", _bmm_samples, ref=np.matmul, supports_out=True),
    OpInfo("matmul", _matmul_samples, ref=np.matmul, supports_out=True),
]

"""Registry entries: elementwise arithmetic, comparison, logical, bitwise and unary operators."""

import numpy as np

from opinfo.core import OpInfo, SampleInput, positive, rand


def _binary_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng), rand((2, 3), dtype, rng)))
    yield SampleInput((rand((2, 3), dtype, rng), rand((3,), dtype, rng)))  # broadcast
    yield SampleInput((rand((2, 1, 3), dtype, rng), rand((2, 1), dtype, rng)), noncontiguous=True)


def _unary_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng),))
    yield SampleInput((rand((4,), dtype, rng),))


def _positive_samples(dtype, rng):
    yield SampleInput((positive((2, 3), dtype, rng),))


OPS = [
    OpInfo("add", _binary_samples, ref=np.add, supports_out=True, inplace=True),
    OpInfo("exp", _unary_samples, ref=np.exp, supports_out=True, inplace=True),
    OpInfo("log", _positive_samples, ref=np.log, supports_out=True, inplace=True),
]

"""OpInfo and SampleInput: how the operator registry describes one operator.

An entry says how to call the operator, with which sample inputs, and what NumPy reference to
compare with. The call is a lambda taking the library first (`op(lib, *args, **kwargs)`), so
the same lambda runs on torchlite and, when it is installed, on PyTorch. Sample inputs are
NumPy arrays; the harness (tests/test_ops.py) turns them into tensors in several layouts,
runs the forward comparison, the out= and in-place forms, gradcheck/gradgradcheck in float64
and the PyTorch comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

import torchlite as tl
from helpers import NP_DTYPE

FLOATING = (tl.float32, tl.float64)


@dataclass
class SampleInput:
    """One call: NumPy arrays in `args`/`kwargs` (also inside lists) become tensors."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    # Also run with the array arguments laid out non-contiguously (transposed / strided).
    noncontiguous: bool = True
    # Include in gradcheck/gradgradcheck (keep such samples small: finite differences cost
    # two forward calls per input element).
    grad: bool = True
    # Include in the out= test (some overloads, like prod over all dims, have no out= form).
    out: bool = True


@dataclass
class OpInfo:
    name: str  # the YAML base name, e.g. "gather" (covers gather, gather.out, gather_)
    sample_inputs: Callable[[tl.dtype, np.random.Generator], Iterable[SampleInput]]
    ref: Callable | None = None  # NumPy reference: ref(*np_args, **kwargs) -> array or tuple
    op: Callable | None = None  # op(lib, *args, **kwargs); default lib.<name>(*args, **kwargs)
    dtypes: tuple = FLOATING
    covers: tuple[str, ...] = ()  # other YAML base names this entry exercises
    supports_out: bool = False  # lib.<name>(..., out=t) exists
    inplace: bool = False  # args[0].<name>_(*args[1:]) exists
    differentiable: bool = True  # gradcheck in float64 on the floating array arguments
    gradgrad: bool = True
    # Which floating array arguments get requires_grad (indices into the flattened list of
    # floating arrays); None = all of them.
    grad_args: tuple[int, ...] | None = None
    torch: bool = True  # compare with PyTorch when it is installed
    values: bool = True  # False: the op's values are unspecified (empty*); `op` picks what is defined
    # Outputs compared; a random op can say which properties to check in a custom test.
    rtol: float | None = None
    atol: float | None = None
    grad_atol: float = 1e-5
    grad_rtol: float = 1e-3
    # False: a Python-level composition (torchlite/*.py), not an operator of native_functions.yaml
    yaml: bool = True
    # False: the fuzz campaign feeds this op no inf/NaN (tests/fuzz "values" cases). For the FFTs,
    # which outputs become NaN rather than inf depends on the order of the butterflies: NumPy
    # and PyTorch (pocketfft versions) already differ from each other there.
    nonfinite: bool = True

    def call(self, lib, *args, **kwargs):
        if self.op is not None:
            return self.op(lib, *args, **kwargs)
        return getattr(lib, self.name)(*args, **kwargs)


def rand(shape, dtype=tl.float64, rng=None, low=-3.0, high=3.0):
    """A NumPy array of `dtype` (a torchlite dtype) with values in [low, high)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    npd = NP_DTYPE[dtype]
    if dtype == tl.bool:
        return np.asarray(rng.random(shape) > 0.5)
    if np.issubdtype(npd, np.integer):
        return rng.integers(int(np.ceil(low)), int(np.ceil(high)), size=shape).astype(npd)
    return rng.uniform(low, high, size=shape).astype(npd)


def positive(shape, dtype=tl.float64, rng=None, low=0.5, high=3.0):
    return rand(shape, dtype, rng, low, high)

"""Elementwise operators composed from others: fmax and fmin (maximum/minimum that ignore NaN).

The `where` they are built from gives PyTorch's gradients: to input where input >= other (or
other is NaN), else to other.
"""

from torchlite import _C
from torchlite._shape_functions import _write_out

__all__ = ["fmax", "fmin"]

Tensor = _C.Tensor


def _pick(name, input, other, take_input, out):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    result = _C.where(take_input | other.isnan(), input, other)
    return result if out is None else _write_out(result, out)


def fmax(input, other, *, out=None):
    """fmax(input, other, *, out=None): the elementwise maximum, where a NaN loses to a number
    (NaN only where both are NaN).

    >>> torchlite.fmax(torchlite.tensor([1., float('nan')]), torchlite.tensor([float('nan'), 3.]))
    tensor([1., 3.])
    """
    return _pick("fmax", input, other, input >= other, out)


def fmin(input, other, *, out=None):
    """fmin(input, other, *, out=None): the elementwise minimum, where a NaN loses to a number
    (NaN only where both are NaN).

    >>> torchlite.fmin(torchlite.tensor([1., float('nan')]), torchlite.tensor([float('nan'), 3.]))
    tensor([1., 3.])
    """
    return _pick("fmin", input, other, input <= other, out)


def _fmax(self, other):
    return fmax(self, other)


def _fmin(self, other):
    return fmin(self, other)


Tensor.fmax = _fmax
Tensor.fmin = _fmin

"""torch.unique and torch.unique_consecutive: PyTorch's Python calling convention (one tensor, or a
tuple when inverse indices or counts are asked for) over the _unique2, unique_dim and
unique_consecutive operators, which always return all three."""

from torchlite import _C

__all__ = ["unique", "unique_consecutive"]

Tensor = _C.Tensor


def _pick(values, inverse, counts, return_inverse, return_counts):
    if not (return_inverse or return_counts):
        return values
    return (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The unique values of `input` (or its unique slices along `dim`), in ascending order.

    >>> torchlite.unique(torchlite.tensor([3, 1, 3, 2]), return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    if dim is None:
        values, inverse, counts = _C._unique2(input, sorted, return_inverse, return_counts)
    else:
        values, inverse, counts = _C.unique_dim(input, dim, sorted, return_inverse, return_counts)
    return _pick(values, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of equal consecutive values (or slices along `dim`) into one.

    >>> torchlite.unique_consecutive(torchlite.tensor([1, 1, 2, 2, 3, 1]))
    tensor([1, 2, 3, 1])
    """
    values, inverse, counts = _C.unique_consecutive(input, return_inverse, return_counts, dim)
    return _pick(values, inverse, counts, return_inverse, return_counts)


def _unique_method(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """x.unique(...): torchlite.unique(x, ...)."""
    return unique(self, sorted, return_inverse, return_counts, dim)


def _unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
    """x.unique_consecutive(...): torchlite.unique_consecutive(x, ...)."""
    return unique_consecutive(self, return_inverse, return_counts, dim)


Tensor.unique = _unique_method
Tensor.unique_consecutive = _unique_consecutive_method

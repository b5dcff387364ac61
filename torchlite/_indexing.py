"""nonzero(as_tuple=True): the tuple form is Python-level, as in PyTorch (one index tensor per
dimension, the form that `x[x.nonzero(as_tuple=True)]` takes)."""

from torchlite import _C

_nonzero = _C.nonzero
_nonzero_method = _C.Tensor.nonzero


def nonzero(input, *, out=None, as_tuple=False):
    """torch.nonzero: the indices of the non-zero elements, as rows (n, dim) or one tensor per dim."""
    if not as_tuple:
        return _nonzero(input) if out is None else _nonzero(input, out=out)
    if out is not None:
        raise RuntimeError("nonzero(): as_tuple=True does not support out=")
    return tuple(_C.where(input))


def _nonzero_tensor_method(self, *, as_tuple=False):
    return _nonzero_method(self) if not as_tuple else nonzero(self, as_tuple=True)


_C.Tensor.nonzero = _nonzero_tensor_method

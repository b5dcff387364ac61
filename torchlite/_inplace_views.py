"""In-place changes of a tensor's shape: t_, transpose_, swapaxes_, swapdims_, unsqueeze_, squeeze_,
as_strided_, resize_, resize_as_ (and the deprecated out-of-place resize, resize_as), set_, detach_.

The out-of-place view op computes the new sizes and strides (with its own argument checks), and
Tensor._set_geometry gives them to this tensor object (torchlite/csrc/python_tensor.cpp).

Autograd: like PyTorch, these refuse a leaf that requires grad. Unlike PyTorch, they also refuse
a non-leaf tensor of an autograd graph (PyTorch records the view op into its history, which
torchlite's C++ autograd does not offer to Python): call the out-of-place op there.
"""

import warnings

from torchlite import _C
from torchlite.autograd.grad_mode import is_grad_enabled

__all__ = ["as_strided_", "detach_", "resize_as_"]

Tensor = _C.Tensor


def _check_autograd(self, name):
    if self.requires_grad and is_grad_enabled():
        if self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise RuntimeError(f"{name}() on a tensor that is part of an autograd graph is not supported by "
                           f"torchlite; use the out-of-place form")


def _take_geometry(self, name, view):
    """self given the sizes, strides and offset of `view` (a view of self), in place."""
    _check_autograd(self, name)
    self._set_geometry(view.shape, view.stride(), view.storage_offset())
    return self


def _t_(self):
    """x.t_(): x.t(), in place (x has at most 2 dims).

    >>> torchlite.zeros(2, 3).t_().shape
    torchlite.Size([3, 2])
    """
    if self.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return _take_geometry(self, "t_", self.t())


def _transpose_(self, dim0, dim1):
    """x.transpose_(dim0, dim1): x.transpose(dim0, dim1), in place.

    >>> torchlite.zeros(2, 3).transpose_(0, 1).shape
    torchlite.Size([3, 2])
    """
    return _take_geometry(self, "transpose_", self.transpose(dim0, dim1))


def _swapaxes_(self, axis0, axis1):
    """x.swapaxes_(axis0, axis1): an alias of transpose_."""
    return _take_geometry(self, "swapaxes_", self.transpose(axis0, axis1))


def _swapdims_(self, dim0, dim1):
    """x.swapdims_(dim0, dim1): an alias of transpose_."""
    return _take_geometry(self, "swapdims_", self.transpose(dim0, dim1))


def _unsqueeze_(self, dim):
    """x.unsqueeze_(dim): x.unsqueeze(dim), in place.

    >>> torchlite.zeros(2).unsqueeze_(0).shape
    torchlite.Size([1, 2])
    """
    return _take_geometry(self, "unsqueeze_", self.unsqueeze(dim))


def _squeeze_(self, dim=None):
    """x.squeeze_(dim=None): x.squeeze(dim) (all size-1 dims when dim is None), in place.

    >>> torchlite.zeros(2, 1).squeeze_().shape
    torchlite.Size([2])
    """
    return _take_geometry(self, "squeeze_", self.squeeze() if dim is None else self.squeeze(dim))


def _as_strided_(self, size, stride, storage_offset=None):
    """x.as_strided_(size, stride, storage_offset=None): x.as_strided(...), in place.

    >>> torchlite.arange(6.).as_strided_((2, 2), (1, 2)).tolist()
    [[0.0, 2.0], [1.0, 3.0]]
    """
    return _take_geometry(self, "as_strided_", self.as_strided(size, stride, storage_offset))


def _sizes(args):
    if len(args) == 1 and not isinstance(args[0], int):
        return [int(s) for s in args[0]]
    return [int(s) for s in args]


def _resize_(self, *size, memory_format=None):
    """x.resize_(*size, memory_format=None): x given a contiguous shape `size` over its storage,
    in place. The elements already there keep their memory order; a storage too small grows, and
    the new elements are uninitialized.

    >>> torchlite.arange(4.).resize_(2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    if self.requires_grad and is_grad_enabled():
        raise RuntimeError("cannot resize variables that require grad")
    if memory_format not in (None, _C.contiguous_format, _C.preserve_format):
        raise RuntimeError(f"resize_: unsupported memory format {memory_format}")
    size = _sizes(size)
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {size}")
    self._resize_contiguous(size)
    return self


def _resize_as_(self, the_template, *, memory_format=None):
    """x.resize_as_(the_template, *, memory_format=None): x.resize_(the_template.shape).

    >>> torchlite.zeros(2, 3).resize_as_(torchlite.zeros(5)).shape
    torchlite.Size([5])
    """
    return _resize_(self, the_template.shape, memory_format=memory_format)


def resize_as_(input, the_template, *, memory_format=None):
    """resize_as_(input, the_template, *, memory_format=None): input.resize_as_(the_template).

    >>> torchlite.resize_as_(torchlite.zeros(2, 3), torchlite.zeros(5)).shape
    torchlite.Size([5])
    """
    return _resize_(input, the_template.shape, memory_format=memory_format)


def _resize(self, *sizes):
    """x.resize(*sizes): deprecated; x reshaped to sizes, which must hold the same number of elements.

    >>> torchlite.zeros(2, 3).resize(3, 2).shape
    torchlite.Size([3, 2])
    """
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _reshape_same_numel(self, _sizes(sizes))


def _resize_as(self, tensor):
    """x.resize_as(tensor): deprecated; x reshaped to tensor's shape (the same number of elements).

    >>> torchlite.zeros(2, 3).resize_as(torchlite.zeros(6)).shape
    torchlite.Size([6])
    """
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _reshape_same_numel(self, list(tensor.shape))


def _reshape_same_numel(self, sizes):
    numel = 1
    for s in sizes:
        numel *= s
    if numel != self.numel():
        def show(shape):
            return "x".join(str(s) for s in shape)

        raise RuntimeError(f"requested resize to {show(sizes)} ({numel} elements in total), but the given tensor has "
                           f"a size of {show(self.shape)} ({self.numel()} elements). autograd's resize can only "
                           f"change the shape of a given tensor, while preserving the number of elements.")
    return self.contiguous().view(sizes)


def _contiguous_strides(size):
    strides, step = [], 1
    for s in reversed(size):
        strides.append(step)
        step *= max(s, 1)
    return list(reversed(strides))


def _set_(self, source=None, storage_offset=0, size=None, stride=None):
    """x.set_(source=None, storage_offset=0, size=None, stride=None): x made a view of source's
    memory: with source's geometry, or with the given offset, size and stride (contiguous by
    default; the memory grows when too small). With no source, x becomes empty. torchlite has no
    storage objects, so source is a tensor.

    >>> torchlite.zeros(1).set_(torchlite.arange(4.), 1, (2,))
    tensor([1., 2.])
    """
    _check_autograd(self, "set_")
    if source is None:
        source, size = _C.empty(0, dtype=self.dtype, device=self.device), (0,)
    if not isinstance(source, Tensor):
        raise TypeError(f"set_(): source must be a tensor (torchlite has no storage objects), got "
                        f"{type(source).__name__}")
    if size is None:
        storage_offset, size, stride = source.storage_offset(), source.shape, source.stride()
    size = list(size)
    stride = _contiguous_strides(size) if stride is None or len(stride) == 0 else list(stride)
    self._set_source(source, storage_offset, size, stride)
    return self


def as_strided_(input, size, stride, storage_offset=None):
    """as_strided_(input, size, stride, storage_offset=None): input.as_strided_(...): input given
    the view geometry as_strided describes, in place.

    >>> torchlite.as_strided_(torchlite.arange(4.), (2,), (2,)).tolist()
    [0.0, 2.0]
    """
    return _as_strided_(input, size, stride, storage_offset)


def detach_(input):
    """detach_(input): input.detach_(): input detached from the autograd graph, in place.

    >>> torchlite.detach_(torchlite.ones(1)).requires_grad
    False
    """
    return input.detach_()


_METHODS = {"t_": _t_, "transpose_": _transpose_, "swapaxes_": _swapaxes_, "swapdims_": _swapdims_,
            "unsqueeze_": _unsqueeze_, "squeeze_": _squeeze_, "as_strided_": _as_strided_, "resize_": _resize_,
            "resize_as_": _resize_as_, "resize": _resize, "resize_as": _resize_as, "set_": _set_}
for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)

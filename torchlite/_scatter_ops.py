"""Writing values into parts of a tensor, composed from views, copy_ and index_put_:
select_scatter, slice_scatter, diagonal_scatter, as_strided_scatter, index_fill(_),
index_copy(_), index_reduce(_), masked_scatter(_), put(_), fill, Tensor.fill_diagonal_.

The out-of-place forms write into a clone; copy_ into a view of it and index_put_ are
differentiable, so gradients reach both the input and the written values.
"""

import builtins

from torchlite import _C
from torchlite._dtype_info import cpp_dtype_name as _scalar_name
from torchlite._shape_compositions import _wrap_dim, broadcast_shapes, unravel_index
from torchlite._shape_functions import _write_out

__all__ = ["as_strided_scatter", "diagonal_scatter", "fill", "index_copy", "index_fill", "index_reduce",
           "masked_scatter", "put", "select_scatter", "slice_scatter"]

Tensor = _C.Tensor


def _scatter_into(input, src, view):
    """A copy of input with src written into view(copy); src must have the view's shape."""
    result = input.clone()
    part = view(result)
    if src.shape != part.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(part.shape)}")
    part.copy_(src)
    return result


def select_scatter(input, src, dim, index):
    """select_scatter(input, src, dim, index): a copy of input with src written into input.select(dim, index).

    >>> torchlite.select_scatter(torchlite.zeros(2, 2), torchlite.ones(2), 0, 0)
    tensor([[1., 1.],
            [0., 0.]])
    """
    return _scatter_into(input, src, lambda t: t.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None):
    """slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None): a copy of input
    with src written into the slice start:end:step of dim.

    >>> torchlite.slice_scatter(torchlite.zeros(4), torchlite.ones(2), start=2)
    tensor([0., 0., 1., 1.])
    """
    def view(t):
        d = _wrap_dim(dim, t.dim())
        return t[(builtins.slice(None),) * d + (builtins.slice(start, end, step),)]

    result = _scatter_into(input, src, view)
    return result if out is None else _write_out(result, out)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """diagonal_scatter(input, src, offset=0, dim1=0, dim2=1): a copy of input with src written
    into input.diagonal(offset, dim1, dim2).

    >>> torchlite.diagonal_scatter(torchlite.zeros(2, 2), torchlite.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    return _scatter_into(input, src, lambda t: t.diagonal(offset, dim1, dim2))


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """as_strided_scatter(input, src, size, stride, storage_offset=None): a (contiguous) copy of
    input with src written into its as_strided(size, stride, storage_offset) view.

    >>> torchlite.as_strided_scatter(torchlite.zeros(4), torchlite.ones(2), (2,), (2,))
    tensor([1., 0., 1., 0.])
    """
    return _scatter_into(input.contiguous(), src, lambda t: t.as_strided(size, stride, storage_offset))


def _check_index(name, index, expected_name="Expected dtype int64 for index."):
    if index.dtype != _C.int64:
        raise IndexError(f"{name}(): {expected_name}")
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")


def _along(dim, ndim, index):
    """index_put_ indices selecting `index` along dim and everything along the other dims."""
    return [None] * dim + [index.reshape(-1)] if ndim else [index.reshape(-1)]


def _index_fill_(self, dim, index, value):
    """x.index_fill_(dim, index, value): the entries of x at `index` along dim set to value (a
    number or 0-d tensor), in place.

    >>> torchlite.zeros(2, 3).index_fill_(1, torchlite.tensor([0, 2]), 5.)
    tensor([[5., 0., 5.],
            [5., 0., 5.]])
    """
    _check_index("index_fill_", index)
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    dim = _wrap_dim(dim, self.dim())
    values = value.to(self.dtype) if isinstance(value, Tensor) else _C.tensor(value, dtype=self.dtype,
                                                                              device=self.device)
    target = self if self.dim() else self.reshape(1)
    target.index_put_(_along(dim, self.dim(), index), values)
    return self


def index_fill(input, dim, index, value):
    """index_fill(input, dim, index, value): a copy of input with the entries at `index` along
    dim set to value; see Tensor.index_fill_.

    >>> torchlite.index_fill(torchlite.zeros(3), 0, torchlite.tensor([1]), 2.)
    tensor([0., 2., 0.])
    """
    return _index_fill_(input.clone(), dim, index, value)


def _index_copy_(self, dim, index, source):
    """x.index_copy_(dim, index, source): x[..., index[i], ...] = source[..., i, ...] along dim, in place.

    >>> torchlite.zeros(2, 3).index_copy_(1, torchlite.tensor([2]), torchlite.ones(2, 1))
    tensor([[0., 0., 1.],
            [0., 0., 1.]])
    """
    if index.dtype != _C.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_scalar_name(index.dtype)}")
    if index.dim() > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    dim = _wrap_dim(dim, self.dim())
    n = source.shape[dim] if source.dim() else 1
    if index.numel() != n:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
                         f"({n})")
    if source.dtype != self.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_scalar_name(self.dtype)} and (source) {_scalar_name(source.dtype)}")
    size = self.shape[dim] if self.dim() else 1
    if index.numel() and builtins.bool(((index < 0) | (index >= size)).any()):
        bad = index.reshape(-1)[((index < 0) | (index >= size)).reshape(-1)][0].item()
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size {size}")
    target = self if self.dim() else self.reshape(1)
    target.index_put_(_along(dim, self.dim(), index), source if self.dim() else source.reshape(1))
    return self


def index_copy(input, dim, index, source):
    """index_copy(input, dim, index, source): a copy of input with the slices of source written at
    `index` along dim; see Tensor.index_copy_.

    >>> torchlite.index_copy(torchlite.zeros(3), 0, torchlite.tensor([1]), torchlite.ones(1))
    tensor([0., 1., 0.])
    """
    return _index_copy_(input.clone(), dim, index, source)


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """x.index_reduce_(dim, index, source, reduce, *, include_self=True): each slice of source
    along dim reduced ('prod', 'mean', 'amax' or 'amin') into x's slice at index[i], in place.

    >>> torchlite.ones(3).index_reduce_(0, torchlite.tensor([0, 0]), torchlite.tensor([2., 3.]), 'prod')
    tensor([6., 1., 1.])
    """
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
                           f"{reduce}.")
    _check_index("index_reduce_", index, "Expected dtype int64 for index")
    dim = _wrap_dim(dim, self.dim())
    if self.dim() == 0:
        self.reshape(1).scatter_reduce_(0, index.reshape(-1), source.reshape(-1), reduce, include_self=include_self)
        return self
    if source.dim() != self.dim() or index.numel() != source.shape[dim]:
        raise IndexError(f"index_reduce_(): Index should have the same number of elements as the size of source "
                         f"along dim (index: {index.numel()}, source: {list(source.shape)}, dim: {dim})")
    # index_reduce is scatter_reduce with the index repeated across the other dims
    shape = [1] * self.dim()
    shape[dim] = -1
    return self.scatter_reduce_(dim, index.reshape(shape).expand(source.shape), source, reduce,
                                include_self=include_self)


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """index_reduce(input, dim, index, source, reduce, *, include_self=True): a copy of input with
    the slices of source reduced into it; see Tensor.index_reduce_.

    >>> torchlite.index_reduce(torchlite.ones(2), 0, torchlite.tensor([1, 1]), torchlite.tensor([2., 5.]), 'amax')
    tensor([1., 5.])
    """
    result = _index_reduce_(input.clone(), dim, index, source, reduce, include_self=include_self)
    return result if out is None else _write_out(result, out)


def _masked_scatter_(self, mask, source):
    """x.masked_scatter_(mask, source): the entries of x where mask (broadcast to x) is True set to
    the first elements of source, in order, in place.

    >>> torchlite.zeros(4).masked_scatter_(torchlite.tensor([True, False, True, False]), torchlite.tensor([1., 2.]))
    tensor([1., 0., 2., 0.])
    """
    if mask.dtype != _C.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_scalar_name(mask.dtype)}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_scalar_name(self.dtype)} and {_scalar_name(source.dtype)}")
    mask = mask.broadcast_to(self.shape)
    n = builtins.int(mask.sum().item())
    if n > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    target = self if self.dim() else self.reshape(1)
    target.index_put_([mask.reshape(target.shape)], source.reshape(-1).narrow(0, 0, n))
    return self


def masked_scatter(input, mask, source):
    """masked_scatter(input, mask, source): a copy of input (broadcast with mask) with the entries
    where mask is True set to the first elements of source; see Tensor.masked_scatter_.

    >>> torchlite.masked_scatter(torchlite.zeros(3), torchlite.tensor([False, True, True]), torchlite.tensor([7., 8.]))
    tensor([0., 7., 8.])
    """
    return _masked_scatter_(input.expand(broadcast_shapes(input.shape, mask.shape)).clone(), mask, source)


def _put_(self, index, source, accumulate=False):
    """x.put_(index, source, accumulate=False): x, seen as 1-d in row-major order, with the
    entries at index set to (or, accumulate=True, increased by) source's elements, in place.

    >>> torchlite.zeros(2, 2).put_(torchlite.tensor([1, -1]), torchlite.tensor([9., 8.]))
    tensor([[0., 9.],
            [0., 8.]])
    """
    if index.dtype != _C.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_scalar_name(index.dtype)}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_scalar_name(self.dtype)} and source.dtype = {_scalar_name(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    numel = self.numel()
    flat = index.reshape(-1)
    bad = (flat < -numel) | (flat >= numel)
    if flat.numel() and builtins.bool(bad.any()):
        raise IndexError(f"out of range: tried to access index {flat[bad][0].item()} on a tensor of {numel} "
                         f"elements.")
    if flat.numel() == 0:
        return self
    target = self if self.dim() else self.reshape(1)
    target.index_put_(list(unravel_index(flat, target.shape)), source.reshape(-1), accumulate)
    return self


def put(input, index, source, accumulate=False):
    """put(input, index, source, accumulate=False): a copy of input with Tensor.put_ applied.

    >>> torchlite.put(torchlite.zeros(3), torchlite.tensor([0]), torchlite.tensor([4.]))
    tensor([4., 0., 0.])
    """
    return _put_(input.clone(), index, source, accumulate)


def fill(input, value):
    """fill(input, value): a tensor like input filled with value (a number or 0-d tensor).

    >>> torchlite.fill(torchlite.zeros(2), 3.)
    tensor([3., 3.])
    """
    return input.clone().fill_(value)


def _fill_diagonal_(self, fill_value, wrap=False):
    """x.fill_diagonal_(fill_value, wrap=False): the main diagonal of x (2 or more dims of equal
    length; a tall matrix may be 2-d) set to fill_value, in place; with wrap=True the diagonal of a
    tall matrix restarts after every N+1 rows, as in NumPy.

    >>> torchlite.zeros(2, 3).fill_diagonal_(1.)
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    rows, cols = self.shape[0], self.shape[1]
    if self.dim() == 2 and wrap and rows > cols + 1:
        # every (cols + 1)-th element of the row-major order
        flat = _C.arange(0, rows * cols, cols + 1, device=self.device)
        coords = list(unravel_index(flat, (rows, cols)))
    else:
        diag = _C.arange(builtins.min(self.shape), device=self.device)
        coords = [diag] * self.dim()
    self.index_put_(coords, _C.tensor(fill_value, dtype=self.dtype, device=self.device))
    return self


# ---- Tensor methods -----------------------------------------------------------------------------

def _select_scatter(self, src, dim, index):
    return select_scatter(self, src, dim, index)


def _slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    return slice_scatter(self, src, dim, start, end, step)


def _diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
    return diagonal_scatter(self, src, offset, dim1, dim2)


def _as_strided_scatter(self, src, size, stride, storage_offset=None):
    return as_strided_scatter(self, src, size, stride, storage_offset)


def _index_fill(self, dim, index, value):
    return index_fill(self, dim, index, value)


def _index_copy(self, dim, index, source):
    return index_copy(self, dim, index, source)


def _index_reduce(self, dim, index, source, reduce, *, include_self=True):
    return index_reduce(self, dim, index, source, reduce, include_self=include_self)


def _masked_scatter(self, mask, source):
    return masked_scatter(self, mask, source)


def _put(self, index, source, accumulate=False):
    return put(self, index, source, accumulate)


_METHODS = {"select_scatter": _select_scatter, "slice_scatter": _slice_scatter, "diagonal_scatter": _diagonal_scatter,
            "as_strided_scatter": _as_strided_scatter, "index_fill": _index_fill, "index_fill_": _index_fill_,
            "index_copy": _index_copy, "index_copy_": _index_copy_, "index_reduce": _index_reduce,
            "index_reduce_": _index_reduce_, "masked_scatter": _masked_scatter, "masked_scatter_": _masked_scatter_,
            "put": _put, "put_": _put_, "fill_diagonal_": _fill_diagonal_}
for _name, _fn in _METHODS.items():
    _fn.__doc__ = _fn.__doc__ or f"x.{_name}(...): torchlite.{_name}(x, ...)."
    setattr(Tensor, _name, _fn)

"""Shape and indexing functions that PyTorch composes from other operators: atleast_Nd, the
*stack and *split families, fliplr/flipud/rot90, ravel, block_diag, cartesian_prod, combinations,
kron, take_along_dim, repeat_interleave, concat/concatenate, Tensor.reshape_as.

Everything is built from differentiable views and operators (narrow, flip, cat, index_select,
gather, mul, ...), so gradients flow through without a formula of its own.
"""

import builtins
import itertools

import numpy as np

from torchlite import _C

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "cartesian_prod", "column_stack", "combinations",
           "concat", "concatenate", "dsplit", "dstack", "fliplr", "flipud", "hsplit", "hstack", "kron", "ravel",
           "repeat_interleave", "rot90", "row_stack", "take_along_dim", "tensor_split", "vsplit", "vstack"]

Tensor = _C.Tensor


def _write_out(result, out):
    """result written into out= with the out= rules of an operator (resize, cast check): multiplying
    by True keeps every dtype, so mul's out= handling is the plain copy wanted."""
    return _C.mul(result, True, out=out)


def _cat(tensors, dim, out):
    return _C.cat(tensors, dim) if out is None else _C.cat(tensors, dim, out=out)


def _atleast(fn, tensors):
    """PyTorch's calling convention: one tensor in, one out; several (or one sequence) in, a tuple out."""
    if len(tensors) == 1:
        tensors = tensors[0]
    if isinstance(tensors, Tensor):
        return fn(tensors)
    return tuple(fn(t) for t in tensors)


def _1d(t):
    return t.reshape(1) if t.dim() == 0 else t


def _2d(t):
    return t.reshape(1, 1) if t.dim() == 0 else t.unsqueeze(0) if t.dim() == 1 else t


def _3d(t):
    if t.dim() == 0:
        return t.reshape(1, 1, 1)
    if t.dim() == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.dim() == 2 else t


def atleast_1d(*tensors):
    """atleast_1d(*tensors): 0-d tensors as 1-d (views); others unchanged.

    >>> torchlite.atleast_1d(torchlite.tensor(1.))
    tensor([1.])
    """
    return _atleast(_1d, tensors)


def atleast_2d(*tensors):
    """atleast_2d(*tensors): tensors with fewer than 2 dims viewed as (1, n).

    >>> torchlite.atleast_2d(torchlite.ones(2)).shape
    torchlite.Size([1, 2])
    """
    return _atleast(_2d, tensors)


def atleast_3d(*tensors):
    """atleast_3d(*tensors): 0-d as (1, 1, 1), 1-d (n) as (1, n, 1), 2-d (m, n) as (m, n, 1).

    >>> torchlite.atleast_3d(torchlite.ones(2)).shape
    torchlite.Size([1, 2, 1])
    """
    return _atleast(_3d, tensors)


def _nonempty(name, tensors):
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None):
    """hstack(tensors, *, out=None): concatenated column-wise (dim 1; dim 0 for 1-d tensors).

    >>> torchlite.hstack([torchlite.ones(2), torchlite.zeros(1)])
    tensor([1., 1., 0.])
    """
    tensors = atleast_1d(_nonempty("hstack", tensors))
    return _cat(tensors, 0 if tensors[0].dim() == 1 else 1, out)


def vstack(tensors, *, out=None):
    """vstack(tensors, *, out=None): concatenated row-wise after atleast_2d.

    >>> torchlite.vstack([torchlite.ones(2), torchlite.zeros(2)]).shape
    torchlite.Size([2, 2])
    """
    return _cat(atleast_2d(_nonempty("vstack", tensors)), 0, out)


def row_stack(tensors, *, out=None):
    """row_stack(tensors, *, out=None): an alias of vstack.

    >>> torchlite.row_stack([torchlite.ones(2), torchlite.zeros(2)]).shape
    torchlite.Size([2, 2])
    """
    return _cat(atleast_2d(_nonempty("row_stack", tensors)), 0, out)


def dstack(tensors, *, out=None):
    """dstack(tensors, *, out=None): concatenated depth-wise (dim 2) after atleast_3d.

    >>> torchlite.dstack([torchlite.ones(2), torchlite.zeros(2)]).shape
    torchlite.Size([1, 2, 2])
    """
    return _cat(atleast_3d(_nonempty("dstack", tensors)), 2, out)


def column_stack(tensors, *, out=None):
    """column_stack(tensors, *, out=None): 0-d and 1-d tensors as columns (n, 1), then hstack.

    >>> torchlite.column_stack([torchlite.ones(2), torchlite.zeros(2)]).shape
    torchlite.Size([2, 2])
    """
    cols = [t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in _nonempty("column_stack", tensors)]
    return _cat(cols, 1, out)


def concat(tensors, dim=0, *, out=None):
    """concat(tensors, dim=0, *, out=None): an alias of cat.

    >>> torchlite.concat([torchlite.ones(1), torchlite.zeros(1)])
    tensor([1., 0.])
    """
    return _cat(tensors, dim, out)


def concatenate(tensors, dim=0, *, axis=None, out=None):
    """concatenate(tensors, dim=0, *, out=None): an alias of cat; NumPy's name `axis` is accepted
    for dim, as PyTorch's parser accepts it.

    >>> torchlite.concatenate([torchlite.ones(1), torchlite.zeros(1)])
    tensor([1., 0.])
    """
    if axis is not None:
        if dim != 0:
            raise TypeError("concatenate() got both 'dim' and its alias 'axis'")
        dim = axis
    return _cat(tensors, dim, out)


def _is_int(x):
    return isinstance(x, builtins.int) and not isinstance(x, builtins.bool)


def tensor_split(input, indices_or_sections, dim=0):
    """tensor_split(input, indices_or_sections, dim=0): views of input split along dim, into n
    nearly equal parts (an int) or at the given indices (a sequence, or a 0-d/1-d int64 tensor).

    >>> [t.tolist() for t in torchlite.tensor_split(torchlite.arange(5), 2)]
    [[0, 1, 2], [3, 4]]
    """
    if input.dim() == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with "
                           f"{input.dim()} dims")
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections
        if t.device.type != "cpu" or t.dtype != _C.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{t.dtype}" if t.dtype != _C.int64 else
                               "tensor_split expected tensor_indices_or_sections to be on cpu")
        if t.dim() > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {t.dim()} dims")
        indices_or_sections = t.item() if t.dim() == 0 else t.tolist()
    dim = dim + input.dim() if dim < 0 else dim
    n = input.shape[dim]
    if _is_int(indices_or_sections):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        # the first n % sections parts get one element more
        small, extra = divmod(n, sections)
        lengths = [small + 1] * extra + [small] * (sections - extra)
        starts = itertools.accumulate([0] + lengths[:-1])
        return tuple(input.narrow(dim, s, length) for s, length in zip(starts, lengths))
    bounds = [0, *indices_or_sections, None]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        start, stop, _ = slice(lo, hi).indices(n)  # slice semantics: negatives wrap, out of range clamps
        parts.append(input.narrow(dim, start, max(0, stop - start)))
    return tuple(parts)


def _split_along(name, input, indices_or_sections, min_dims, dim):
    if input.dim() < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    if _is_int(indices_or_sections) and (indices_or_sections == 0 or input.shape[dim] % indices_or_sections):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """hsplit(input, indices_or_sections): tensor_split along dim 1 (dim 0 for 1-d input); an int
    must divide the dim exactly.

    >>> [t.shape for t in torchlite.hsplit(torchlite.ones(2, 4), 2)]
    [torchlite.Size([2, 2]), torchlite.Size([2, 2])]
    """
    return _split_along("hsplit", input, indices_or_sections, 1, 0 if input.dim() == 1 else 1)


def vsplit(input, indices_or_sections):
    """vsplit(input, indices_or_sections): tensor_split along dim 0 of an input of 2 or more dims.

    >>> [t.shape for t in torchlite.vsplit(torchlite.ones(4, 2), [1])]
    [torchlite.Size([1, 2]), torchlite.Size([3, 2])]
    """
    return _split_along("vsplit", input, indices_or_sections, 2, 0)


def dsplit(input, indices_or_sections):
    """dsplit(input, indices_or_sections): tensor_split along dim 2 of an input of 3 or more dims.

    >>> [t.shape for t in torchlite.dsplit(torchlite.ones(1, 1, 4), 2)]
    [torchlite.Size([1, 1, 2]), torchlite.Size([1, 1, 2])]
    """
    return _split_along("dsplit", input, indices_or_sections, 3, 2)


def fliplr(input):
    """fliplr(input): input with dim 1 reversed (2 or more dims).

    >>> torchlite.fliplr(torchlite.tensor([[1, 2]]))
    tensor([[2, 1]])
    """
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    """flipud(input): input with dim 0 reversed (1 or more dims).

    >>> torchlite.flipud(torchlite.tensor([1, 2]))
    tensor([2, 1])
    """
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def rot90(input, k=1, dims=(0, 1)):
    """rot90(input, k=1, dims=(0, 1)): input rotated by 90 degrees k times, from dims[0] towards dims[1].

    >>> torchlite.rot90(torchlite.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = (d + input.dim() if d < 0 else d for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip((d0, d1))
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


def ravel(input):
    """ravel(input): input flattened to 1-d (a view when input is contiguous).

    >>> torchlite.ravel(torchlite.ones(2, 2)).shape
    torchlite.Size([4])
    """
    return input.reshape(-1)


def _reshape_as(self, other):
    """x.reshape_as(other): x.reshape(other.shape).

    >>> torchlite.arange(4).reshape_as(torchlite.ones(2, 2)).shape
    torchlite.Size([2, 2])
    """
    return self.reshape(other.shape)


def block_diag(*tensors):
    """block_diag(*tensors): a block-diagonal matrix of the (at most 2-d) tensors, in their promoted dtype.

    >>> torchlite.block_diag(torchlite.ones(1, 1), torchlite.ones(1, 2) * 2)
    tensor([[1., 0., 0.],
            [0., 2., 2.]])
    """
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
    if not tensors:
        return _C.empty((1, 0))
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _C.promote_types(dtype, t.dtype)
    blocks = [t.reshape(1, -1) if t.dim() < 2 else t for t in tensors]
    total = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        # zero padding left and right of each block, then the padded rows stacked
        rows.append(_C.constant_pad_nd(b.to(dtype), [left, total - left - b.shape[1]]))
        left += b.shape[1]
    return _C.cat(rows, 0)


def _check_1d(t):
    if t.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors):
    """cartesian_prod(*tensors): the rows of all combinations of one element from each 1-d tensor.

    >>> torchlite.cartesian_prod(torchlite.tensor([1, 2]), torchlite.tensor([3]))
    tensor([[1, 3],
            [2, 3]])
    """
    for t in tensors:
        _check_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    grids = _C.meshgrid(list(tensors), indexing="ij")
    return _C.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """combinations(input, r=2, with_replacement=False): the length-r combinations of a 1-d tensor's
    elements, as rows, in itertools' order.

    >>> torchlite.combinations(torchlite.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    _check_1d(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return input.index_select(0, _C.from_numpy(idx.reshape(-1)).to(input.device)).reshape(-1, r)


def kron(input, other, *, out=None):
    """kron(input, other, *, out=None): the Kronecker product; the shorter shape gets leading ones.

    >>> torchlite.kron(torchlite.eye(2), torchlite.ones(1, 2))
    tensor([[1., 1., 0., 0.],
            [0., 0., 1., 1.]])
    """
    nd = max(input.dim(), other.dim())
    a_shape = [1] * (nd - input.dim()) + list(input.shape)
    b_shape = [1] * (nd - other.dim()) + list(other.shape)
    # a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then each pair of dims merged
    a = input.reshape([s for d in a_shape for s in (d, 1)])
    b = other.reshape([s for d in b_shape for s in (1, d)])
    shape = [x * y for x, y in zip(a_shape, b_shape)]
    result = (a * b).reshape(shape)
    return result if out is None else _write_out(result, out)


def _broadcast_shape(a, b):
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    shape = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and 1 not in (x, y):
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        shape.append(y if x == 1 else x)
    return shape


def take_along_dim(input, indices, dim=None, *, out=None):
    """take_along_dim(input, indices, dim=None, *, out=None): values of input at the int64 indices
    along dim, input and indices broadcast against each other in the other dims; over the
    flattened input when dim is None.

    >>> torchlite.take_along_dim(torchlite.tensor([[10, 30, 20]]), torchlite.tensor([[0, 2]]), 1)
    tensor([[10, 20]])
    """
    if indices.dtype != _C.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {indices.dtype}")
    if dim is None:
        result = input.reshape(-1).gather(0, indices.reshape(-1))
    else:
        if input.dim() != indices.dim():
            raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of "
                               f"dimensions, but got {input.dim()} dimensions for input, and {indices.dim()} "
                               f"dimensions for indices")
        dim = dim + input.dim() if dim < 0 else dim
        input_shape = list(input.shape)
        input_shape[dim] = indices.shape[dim]
        shape = _broadcast_shape(input_shape, indices.shape)
        indices = indices.broadcast_to(shape)
        shape[dim] = input.shape[dim]
        result = input.broadcast_to(shape).gather(dim, indices)
    return result if out is None else _write_out(result, out)


def _repeat_indices(repeats):
    """repeat_interleave(repeats): i repeated repeats[i] times, in repeats' dtype."""
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    counts = repeats.numpy(force=True)
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    idx = np.repeat(np.arange(len(counts)), counts)
    return _C.tensor(idx, dtype=repeats.dtype, device=repeats.device)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """repeat_interleave(input, repeats, dim=None, *, output_size=None): each element (or slice
    along dim) repeated `repeats` times (an int, or one count per element); the input is flattened
    when dim is None. repeat_interleave(repeats) gives i repeated repeats[i] times.

    >>> torchlite.repeat_interleave(torchlite.tensor([1, 2]), 2)
    tensor([1, 1, 2, 2])
    """
    if repeats is None:
        return _repeat_indices(input)
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = dim + input.dim() if dim < 0 else dim
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if repeats.numel() == 1:
            repeats = repeats.item()
        elif repeats.shape[0] != input.shape[dim]:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats.shape[0]} and input.size(0) = {input.shape[dim]}")
        else:
            return input.index_select(dim, _repeat_indices(repeats).to(_C.int64))
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    # a new dim after `dim`, expanded to `repeats` and merged back: a differentiable view chain
    expanded = input.unsqueeze(dim + 1).expand(*input.shape[:dim + 1], repeats, *input.shape[dim + 1:])
    return expanded.flatten(dim, dim + 1)


# Tensor methods, with PyTorch's method signatures


def _ravel(self):
    return ravel(self)


def _fliplr(self):
    return fliplr(self)


def _flipud(self):
    return flipud(self)


def _hsplit(self, split_size_or_sections):
    return hsplit(self, split_size_or_sections)


def _vsplit(self, split_size_or_sections):
    return vsplit(self, split_size_or_sections)


def _dsplit(self, split_size_or_sections):
    return dsplit(self, split_size_or_sections)


def _tensor_split(self, indices_or_sections, dim=0):
    return tensor_split(self, indices_or_sections, dim)


def _rot90(self, k=1, dims=(0, 1)):
    return rot90(self, k, dims)


def _kron(self, other):
    return kron(self, other)


def _take_along_dim(self, indices, dim=None):
    return take_along_dim(self, indices, dim)


def _repeat_interleave(self, repeats, dim=None, *, output_size=None):
    return repeat_interleave(self, repeats, dim, output_size=output_size)


_METHODS = {"dsplit": _dsplit, "fliplr": _fliplr, "flipud": _flipud, "hsplit": _hsplit, "kron": _kron,
            "ravel": _ravel, "repeat_interleave": _repeat_interleave, "reshape_as": _reshape_as, "rot90": _rot90,
            "take_along_dim": _take_along_dim, "tensor_split": _tensor_split, "vsplit": _vsplit}
for _name, _fn in _METHODS.items():
    _fn.__doc__ = _fn.__doc__ or f"x.{_name}(...): torchlite.{_name}(x, ...)."
    setattr(Tensor, _name, _fn)

"""More compositions of shape, index and product operators: broadcast_shapes, unravel_index,
tensordot, inner, addr, addbmm, isin, msort, diagflat, channel_shuffle, the unsafe_* splits, and the Tensor methods
unfold (the sliding-window view) and sum_to_size.

Like torchlite/_shape_functions.py, everything is built from differentiable views and operators,
so gradients need no formula of their own.
"""

import builtins

from torchlite import _C
from torchlite._creation import as_tensor
from torchlite._shape_functions import _write_out
from torchlite._size import Size
from torchlite.autograd.grad_mode import is_grad_enabled

__all__ = ["addbmm", "addr", "broadcast_shapes", "channel_shuffle", "diagflat", "inner", "isin", "msort",
           "native_channel_shuffle", "tensordot",
           "unravel_index", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"]

Tensor = _C.Tensor


def _is_int(x):
    return isinstance(x, builtins.int) and not isinstance(x, builtins.bool)


def _wrap_dim(dim, ndim):
    """dim wrapped into [0, ndim) (a 0-d tensor counts as 1-d), with PyTorch's IndexError."""
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def broadcast_shapes(*shapes):
    """broadcast_shapes(*shapes): the shape tensors of these shapes broadcast to (an int counts
    as a 1-d shape), without making any tensor.

    >>> torchlite.broadcast_shapes((2, 1), (3,))
    torchlite.Size([2, 3])
    """
    shapes = [(s,) if _is_int(s) else s for s in shapes]
    for s in shapes:
        if not isinstance(s, (tuple, list)) or not builtins.all(_is_int(d) for d in s):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
        if builtins.any(d < 0 for d in s):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
    result = [1] * builtins.max((len(s) for s in shapes), default=0)
    for i, s in enumerate(shapes):
        for k in builtins.range(1, len(s) + 1):
            d = s[-k]
            if d == 1 or d == result[-k]:
                continue
            if result[-k] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {d} at {-k}! Mismatching argument "
                                   f"at index {i} had {tuple(s)}; but expected shape should be broadcastable to "
                                   f"{result}")
            result[-k] = d
    return Size(result)


def unravel_index(indices, shape):
    """unravel_index(indices, shape): the coordinates, one tensor per dim of `shape`, of flat
    (row-major) indices into a tensor of that shape; as in PyTorch, indices are not bounds-checked
    (each coordinate is taken modulo its dim, so -1 is the last element).

    >>> torchlite.unravel_index(torchlite.tensor([4, 1]), (2, 3))
    (tensor([1, 0]), tensor([1, 1]))
    """
    if not isinstance(indices, Tensor):
        indices = _C.tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if _is_int(shape) else tuple(shape)
    if builtins.any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    flat = indices.to(_C.int64)
    coords = []
    for d in reversed(shape):
        coords.append(flat.remainder(d))
        flat = flat.div(d, rounding_mode="floor")
    return tuple(reversed(coords))


def _tensordot_dims(a, b, dims):
    """The contracted dims of a and b, as two lists of non-negative ints."""
    if isinstance(dims, Tensor):
        dims = dims.item() if dims.numel() == 1 else dims.tolist()
    if _is_int(dims):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > builtins.min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(builtins.range(a.dim() - dims, a.dim())), list(builtins.range(dims))
    dims_a, dims_b = ([d] if _is_int(d) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    return [_wrap_dim(d, a.dim()) for d in dims_a], [_wrap_dim(d, b.dim()) for d in dims_b]


def tensordot(a, b, dims=2, out=None):
    """tensordot(a, b, dims=2, out=None): the sum of products of a and b over the last `dims`
    dims of a and the first of b (an int), or over the dims in the two lists dims=(dims_a, dims_b).

    >>> torchlite.tensordot(torchlite.ones(2, 3), torchlite.ones(3, 4), dims=1).shape
    torchlite.Size([2, 4])
    """
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    dims_a, dims_b = _tensordot_dims(a, b, dims)
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                               f"and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in builtins.range(a.dim()) if d not in dims_a]
    free_b = [d for d in builtins.range(b.dim()) if d not in dims_b]
    k = 1
    for d in dims_a:
        k *= a.shape[d]
    # a as (free_a, contracted) times b as (contracted, free_b): one matrix product
    lhs = a.permute(*free_a, *dims_a).reshape(-1, k)
    rhs = b.permute(*dims_b, *free_b).reshape(k, -1)
    result = lhs.mm(rhs).reshape([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])
    return result if out is None else _write_out(result, out)


def inner(input, other, *, out=None):
    """inner(input, other, *, out=None): the sum of products over the last dims of both tensors
    (a product with a 0-d one); the result has the other dims of input, then those of other.

    >>> torchlite.inner(torchlite.tensor([1., 2.]), torchlite.tensor([3., 4.]))
    tensor(11.)
    """
    if input.dim() == 0 or other.dim() == 0:
        result = input * other
    else:
        if input.shape[-1] != other.shape[-1]:
            raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                               f"{list(input.shape)} and {list(other.shape)}")
        result = tensordot(input, other, ([-1], [-1]))
    return result if out is None else _write_out(result, out)


def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product, with PyTorch's rules: input is ignored (NaN included) when
    beta is 0, and integer tensors take integer factors only."""
    if not (product.dtype.is_floating_point or input.dtype.is_floating_point):
        for arg, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, builtins.float):
                raise RuntimeError(f"For integral input tensors, argument {arg} must not be a floating point number.")
    result = product if alpha == 1 else product * alpha
    if beta == 0:
        # input takes part (with a zero gradient, as in PyTorch) but none of its values do
        shape = broadcast_shapes(input.shape, result.shape)
        return _C.where(_C.zeros(shape, dtype=_C.bool, device=result.device), input, result)
    return (input if beta == 1 else input * beta) + result


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """addr(input, vec1, vec2, *, beta=1, alpha=1, out=None): beta * input + alpha * the outer
    product of the 1-d vec1 and vec2 (input broadcast to its shape; ignored when beta is 0).

    >>> torchlite.addr(torchlite.zeros(2, 2), torchlite.tensor([1., 2.]), torchlite.tensor([3., 4.]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    input.expand(vec1.shape[0], vec2.shape[0])  # input must expand to the product's shape (not broadcast past it)
    result = _scaled_sum(input, vec1.unsqueeze(1) * vec2.unsqueeze(0), beta, alpha)
    return result if out is None else _write_out(result, out)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None): beta * input + alpha * the sum
    over the batch of the matrix products batch1[i] @ batch2[i] (3-d tensors).

    >>> torchlite.addbmm(torchlite.zeros(1, 1), torchlite.ones(3, 1, 2), torchlite.ones(3, 2, 1))
    tensor([[6.]])
    """
    for name, b in (("batch1", batch1), ("batch2", batch2)):
        if b.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    product = batch1.bmm(batch2).sum(0)
    input = input.expand(product.shape)  # input may only broadcast to the product's shape, not beyond it
    result = _scaled_sum(input, product, beta, alpha)
    return result if out is None else _write_out(result, out)


def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None):
    """isin(elements, test_elements, *, assume_unique=False, invert=False): for each element,
    whether it occurs in test_elements (either may be a number); the opposite with invert=True.

    >>> torchlite.isin(torchlite.tensor([1, 2, 3]), torchlite.tensor([2, 5]))
    tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): expected `elements` or `test_elements` to be a Tensor, got "
                        f"{type(elements).__name__} and {type(test_elements).__name__}")
    dtype = _C.result_type(elements, test_elements)
    if dtype == _C.bool:
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    like = elements if isinstance(elements, Tensor) else test_elements
    elements = as_tensor(elements, dtype=dtype, device=like.device)
    test = as_tensor(test_elements, dtype=dtype, device=like.device).reshape(-1)
    if test.numel() == 0:
        found = _C.zeros(elements.shape, dtype=_C.bool, device=elements.device)
    else:
        # binary search of each element in the sorted test elements
        ordered = test.sort().values
        pos = _C.searchsorted(ordered, elements.reshape(-1)).clamp(max=ordered.numel() - 1)
        found = (ordered.index_select(0, pos) == elements.reshape(-1)).reshape(elements.shape)
    result = found.logical_not() if invert else found
    return result if out is None else _write_out(result, out)


def msort(input, *, out=None):
    """msort(input, *, out=None): input sorted along dim 0 (values only).

    >>> torchlite.msort(torchlite.tensor([[3, 1], [2, 4]]))
    tensor([[2, 1],
            [3, 4]])
    """
    result = input.sort(0).values
    return result if out is None else _write_out(result, out)


def diagflat(input, offset=0):
    """diagflat(input, offset=0): a square matrix with input's elements (flattened) on the
    offset-th diagonal and zeros elsewhere.

    >>> torchlite.diagflat(torchlite.tensor([1, 2]))
    tensor([[1, 0],
            [0, 2]])
    """
    return _C.diag_embed(input.reshape(-1), offset)


def channel_shuffle(input, groups):
    """channel_shuffle(input, groups): the channels (dim 1) of input, split into groups, reordered
    so that consecutive channels come from different groups (ShuffleNet).

    >>> torchlite.channel_shuffle(torchlite.arange(4.).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and {groups} "
                           f"groups.")
    grouped = input.unflatten(1, (groups, channels // groups))
    return grouped.transpose(1, 2).reshape(input.shape)


native_channel_shuffle = channel_shuffle  # PyTorch's kernel name for the same operation


def unsafe_chunk(input, chunks, dim=0):
    """unsafe_chunk(input, chunks, dim=0): chunk, for code written against PyTorch's variant that
    skips view tracking (torchlite's views need none).

    >>> [t.tolist() for t in torchlite.unsafe_chunk(torchlite.arange(5), 2)]
    [[0, 1, 2], [3, 4]]
    """
    return input.chunk(chunks, dim)


def unsafe_split(tensor, split_size_or_sections, dim=0):
    """unsafe_split(tensor, split_size_or_sections, dim=0): split into parts of an int size (see
    unsafe_chunk for why "unsafe").

    >>> [t.tolist() for t in torchlite.unsafe_split(torchlite.arange(5), 3)]
    [[0, 1, 2], [3, 4]]
    """
    if not _is_int(split_size_or_sections):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size_or_sections).__name__}")
    return tuple(tensor.split(split_size_or_sections, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """unsafe_split_with_sizes(input, split_sizes, dim=0): split into parts of the given sizes
    (see unsafe_chunk for why "unsafe").

    >>> [t.tolist() for t in torchlite.unsafe_split_with_sizes(torchlite.arange(5), [2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    return tuple(input.split(list(split_sizes), dim))


# ---- Tensor methods -----------------------------------------------------------------------------

def _unfold(self, dimension, size, step):
    """x.unfold(dimension, size, step): a view with every window of `size` elements along
    `dimension`, `step` apart, in a new last dim.

    When autograd records x and the windows overlap (step < size), the result is a gathered copy
    instead of a view, because torchlite's as_strided backward does not take overlapping views
    yet; its values and gradients are the same, but writes into it do not reach x.

    >>> torchlite.arange(5).unfold(0, 2, 2)
    tensor([[0, 1],
            [2, 3]])
    """
    dim = _wrap_dim(dimension, self.dim())
    n = self.shape[dim] if self.dim() else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if self.dim() == 0:
        return self.reshape(1)
    windows = (n - size) // step + 1
    if step < size and self.requires_grad and is_grad_enabled():
        starts = _C.arange(windows, device=self.device).mul(step).unsqueeze(1)
        index = (starts + _C.arange(size, device=self.device)).reshape(-1)
        gathered = self.index_select(dim, index).unflatten(dim, (windows, size))
        return gathered.movedim(dim + 1, -1)
    sizes, strides = list(self.shape), list(self.stride())
    sizes[dim] = windows
    strides[dim] *= step
    return self.as_strided(sizes + [size], strides + [self.stride(dim)], self.storage_offset())


def _sum_to_size(self, *size):
    """x.sum_to_size(*size): x summed down to `size`, a shape x can be expanded from.

    >>> torchlite.ones(2, 3).sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
    """
    if len(size) == 1 and not _is_int(size[0]):
        size = tuple(size[0])
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or builtins.any(s != 1 and s != d for s, d in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    dims = list(builtins.range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1]
    result = self.sum(dims, keepdim=True) if dims else self
    return result.reshape(size) if lead else result


def _inplace_result(self, result, sizes):
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"size mismatch, input: {list(self.shape)}, {sizes}")
    return self.copy_(result)


def _addr(self, vec1, vec2, *, beta=1, alpha=1):
    return addr(self, vec1, vec2, beta=beta, alpha=alpha)


def _addr_(self, vec1, vec2, *, beta=1, alpha=1):
    """x.addr_(vec1, vec2, *, beta=1, alpha=1): addr, in place."""
    result = addr(self.clone(), vec1, vec2, beta=beta, alpha=alpha)
    return _inplace_result(self, result, f"v1: {list(vec1.shape)}, v2: {list(vec2.shape)}")


def _addbmm(self, batch1, batch2, *, beta=1, alpha=1):
    return addbmm(self, batch1, batch2, beta=beta, alpha=alpha)


def _addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """x.addbmm_(batch1, batch2, *, beta=1, alpha=1): addbmm, in place."""
    result = addbmm(self.clone(), batch1, batch2, beta=beta, alpha=alpha)
    return _inplace_result(self, result, f"batch1: {list(batch1.shape)}, batch2: {list(batch2.shape)}")


def _unsafe_chunk(self, chunks, dim=0):
    return unsafe_chunk(self, chunks, dim)


def _unsafe_split_with_sizes(self, split_sizes, dim=0):
    return unsafe_split_with_sizes(self, split_sizes, dim)


def _unsafe_split(self, split_size, dim=0):
    return unsafe_split(self, split_size, dim)


def _inner(self, other):
    return inner(self, other)


def _diagflat(self, offset=0):
    return diagflat(self, offset)


def _msort(self):
    return msort(self)


_METHODS = {"unfold": _unfold, "sum_to_size": _sum_to_size, "diagflat": _diagflat, "inner": _inner, "msort": _msort,
            "unsafe_chunk": _unsafe_chunk, "unsafe_split": _unsafe_split,
            "unsafe_split_with_sizes": _unsafe_split_with_sizes, "addr": _addr, "addr_": _addr_, "addbmm": _addbmm,
            "addbmm_": _addbmm_}
for _name, _fn in _METHODS.items():
    _fn.__doc__ = _fn.__doc__ or f"x.{_name}(...): torchlite.{_name}(x, ...)."
    setattr(Tensor, _name, _fn)

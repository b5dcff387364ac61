"""Factories and Tensor methods kept for PyTorch programs that use them: torchlite.range (the
deprecated end-inclusive arange), scalar_tensor, empty_permuted, is_floating_point, is_conj,
is_neg, lu (the deprecated form of linalg.lu_factor); Tensor.new
(legacy constructor), type_as, apply_/map_/map2_ (Python callables, CPU), is_inference,
is_nonzero, is_same_size.
"""

import builtins
import math
import warnings

from torchlite import _C
from torchlite._device import current_device
from torchlite._global_state import is_inference, is_nonzero, is_same_size
from torchlite.linalg import lu_factor_ex
from torchlite._shape_functions import _write_out
from torchlite._tensor_type import _legacy_new

__all__ = ["empty_permuted", "is_conj", "is_distributed", "is_floating_point", "is_neg", "lu", "narrow_copy",
           "nonzero_static", "range", "scalar_tensor", "set_flush_denormal"]

Tensor = _C.Tensor


def _device(device):
    return device if device is not None else current_device()


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """range(start=0, end, step=1, *, out=None, dtype=None, layout=None, device=None,
    requires_grad=False, pin_memory=False): deprecated; start, start + step, ... up to and including end, in the
    default float dtype unless dtype is given. Use arange (which excludes end).

    >>> torchlite.range(1, 3)
    tensor([1., 2., 3.])
    """
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = builtins.int(math.floor((end - start) / step)) + 1
    dtype = dtype if dtype is not None else _C.get_default_dtype()
    # computed in float64 (start + i * step, as PyTorch's kernel does), then cast
    values = _C.arange(n, dtype=_C.float64, device=_device(device)).mul(step).add(start).to(dtype)
    if out is not None:
        return out.resize_(values.shape).copy_(values)
    return values.requires_grad_(requires_grad) if requires_grad else values


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
    requires_grad=False): a 0-d tensor holding s, in the default float dtype unless dtype is given.

    >>> torchlite.scalar_tensor(2)
    tensor(2.)
    """
    if isinstance(s, Tensor):
        s = s.item()
    t = _C.tensor(s, dtype=dtype if dtype is not None else _C.get_default_dtype(), device=_device(device))
    return t.requires_grad_(True) if requires_grad else t


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
    requires_grad=False, pin_memory=False): an uninitialized tensor of shape size whose memory is
    laid out in the dim order physical_layout (outermost first): the permutation of a contiguous
    tensor.

    >>> torchlite.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    (12, 1, 3)
    """
    size, physical_layout = list(size), list(physical_layout)
    if len(size) != len(physical_layout):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(physical_layout)}")
    if sorted(physical_layout) != list(builtins.range(len(size))):
        raise RuntimeError("Duplicate dim not allowed")
    physical = _C.empty([size[d] for d in physical_layout], dtype=dtype, device=_device(device))
    inverse = [physical_layout.index(d) for d in builtins.range(len(size))]
    result = physical.permute(*inverse)
    return result.requires_grad_(True) if requires_grad else result


def is_floating_point(input):
    """is_floating_point(input): whether input's dtype is a floating point one.

    >>> torchlite.is_floating_point(torchlite.ones(1))
    True
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_floating_point(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input.is_floating_point()


def is_conj(input):
    """is_conj(input) -> bool: whether input's conjugate bit is set; always False, since torchlite's
    conj() materialises the conjugate (see Tensor.is_conj)."""
    return input.is_conj()


def is_neg(input):
    """is_neg(input) -> bool: whether input's negative bit is set; always False (no lazy negation)."""
    return input.is_neg()


def lu(A, pivot=True, get_infos=False, out=None):
    """lu(A, pivot=True, get_infos=False, out=None) -> (LU, pivots) or (LU, pivots, infos): the LU
    factorization of a (batch of) square matrices, as linalg.lu_factor_ex computes it. A singular
    matrix does not raise (as in PyTorch): infos says where U has a zero pivot.

    >>> LU, pivots = torchlite.lu(torchlite.tensor([[1., 2.], [3., 4.]]))
    >>> pivots
    tensor([2, 2], dtype=torchlite.int32)
    """
    result = lu_factor_ex(A, pivot=pivot)
    result = tuple(result) if get_infos else tuple(result)[:2]
    if out is None:
        return result
    if len(out) != len(result):
        raise RuntimeError(f"lu: expected {len(result)} out tensors, got {len(out)}")
    return tuple(_write_out(r, o) for r, o in zip(result, out))


def narrow_copy(input, dim, start, length, *, out=None):
    """narrow_copy(input, dim, start, length, *, out=None): input.narrow(...) as a new tensor.

    >>> torchlite.narrow_copy(torchlite.arange(4), 0, 1, 2)
    tensor([1, 2])
    """
    result = input.narrow(dim, start, length).clone()
    return result if out is None else _write_out(result, out)


def nonzero_static(input, *, size, fill_value=-1, out=None):
    """nonzero_static(input, *, size, fill_value=-1, out=None): nonzero(input) with exactly `size`
    rows: truncated, or padded with rows of fill_value.

    >>> torchlite.nonzero_static(torchlite.tensor([1, 0, 2]), size=3)
    tensor([[ 0],
            [ 2],
            [-1]])
    """
    if not isinstance(size, builtins.int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = input.nonzero()
    pad = _C.full((builtins.max(size - found.shape[0], 0), input.dim()), fill_value, dtype=_C.int64,
                  device=input.device)
    return _C.cat([found[:size], pad], 0, out=out)


def is_distributed(input):
    """is_distributed(input): False; torchlite has no distributed tensors."""
    return False


def set_flush_denormal(mode):
    """set_flush_denormal(mode): whether flushing denormal floats to zero could be set; torchlite's
    kernels do not switch the CPU's denormal mode, so this returns False and changes nothing.

    >>> torchlite.set_flush_denormal(True)
    False
    """
    return False


# ---- Tensor methods -----------------------------------------------------------------------------

def _new(self, *args, device=None):
    """x.new(*sizes | data | tensor, *, device=None): legacy constructor: an uninitialized tensor
    of x's dtype and device with these sizes, or one holding data.

    >>> torchlite.ones(1, dtype=torchlite.float64).new([1, 2])
    tensor([1., 2.], dtype=torchlite.float64)
    """
    return _legacy_new(self.dtype, device if device is not None else self.device, args)


def _type_as(self, other):
    """x.type_as(other): x cast to other's dtype (x itself when it already has it).

    >>> torchlite.ones(1).type_as(torchlite.zeros(1, dtype=torchlite.int32))
    tensor([1], dtype=torchlite.int32)
    """
    return self.type(other.type())


_PY_TYPE = {_C.bool: builtins.bool}


def _python_type(dtype):
    return _PY_TYPE.get(dtype, builtins.float if dtype.is_floating_point else builtins.int)


def _apply_elementwise(self, name, others, fn):
    """self[i] = fn(self[i], others[0][i], ...) for every element (others broadcast to self)."""
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    convert = _python_type(self.dtype)
    columns = [self.reshape(-1).tolist()] + [o.broadcast_to(self.shape).reshape(-1).tolist() for o in others]
    values = [convert(fn(*vals)) for vals in zip(*columns)]
    if values:
        self.copy_(_C.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _check_same_type(self, name, other, what):
    if other.dtype != self.dtype or other.device != self.device:
        raise TypeError(f"{name}: expected {self.type()} for {what} (got {other.type()})")


def _apply_(self, callable):
    """x.apply_(callable): each element of x replaced by callable(element), in place (CPU only;
    slow: one Python call per element).

    >>> torchlite.tensor([1., 2.]).apply_(lambda v: v * 10)
    tensor([10., 20.])
    """
    return _apply_elementwise(self, "apply_", [], callable)


def _map_(self, other, callable):
    """x.map_(other, callable): x[i] = callable(x[i], other[i]) with other broadcast to x, in
    place (CPU only; other of x's dtype).

    >>> torchlite.tensor([1., 2.]).map_(torchlite.tensor([3., 4.]), lambda a, b: a * b)
    tensor([3., 8.])
    """
    _check_same_type(self, "map_", other, "'other'")
    return _apply_elementwise(self, "map_", [other], callable)


def _map2_(self, x, y, callable):
    """x.map2_(x2, y2, callable): self[i] = callable(self[i], x2[i], y2[i]), in place (CPU only)."""
    _check_same_type(self, "map2_", x, "argument 'x'")
    _check_same_type(self, "map2_", y, "argument 'y'")
    return _apply_elementwise(self, "map2_", [x, y], callable)


def _narrow_copy(self, dim, start, length):
    return narrow_copy(self, dim, start, length)


def _nonzero_static(self, *, size, fill_value=-1):
    return nonzero_static(self, size=size, fill_value=fill_value)


def _dim_order(self, *, ambiguity_check=False):
    """x.dim_order(*, ambiguity_check=False): the dims from outermost to innermost in memory
    (by decreasing stride; ties keep the dim order); with ambiguity_check=True an error when
    size-1 dims or equal strides leave the order ambiguous.

    >>> torchlite.zeros(2, 3).t().dim_order()
    (1, 0)
    """
    strides = self.stride()
    order = sorted(builtins.range(self.dim()), key=lambda d: -strides[d])
    if ambiguity_check and (1 in self.shape or len(set(strides)) != len(strides)):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given memory "
                           "formats.")
    return tuple(order)


def _const_data_ptr(self):
    """x.const_data_ptr(): the address of x's first element (as data_ptr)."""
    return self.data_ptr()


def _is_set_to(self, tensor):
    """x.is_set_to(tensor): whether x and tensor view the same memory the same way (storage,
    offset, sizes and strides)."""
    return (self._shares_storage(tensor) and self.storage_offset() == tensor.storage_offset()
            and self.shape == tensor.shape and self.stride() == tensor.stride())


def _module_load(self, other, assign=False):
    """x.module_load(other, assign=False): what Module.load_state_dict puts in place of parameter
    x: other (detached) with assign=True, else x with other's values copied in (detached)."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def _is_pinned(self, device=None):
    """x.is_pinned(): whether x lives in page-locked host memory (made by x.pin_memory())."""
    return _C._cuda._is_pinned(self)


def _pin_memory(self, device=None):
    """x.pin_memory(): a copy of the CPU tensor x in page-locked host memory (x itself if it is
    already there), from which copies to a GPU can run asynchronously (non_blocking=True).
    Needs a GPU, as in PyTorch."""
    return self if _C._cuda._is_pinned(self) else _C._cuda._pin_memory(self)


def _record_stream(self, s):
    """x.record_stream(s): x is also used by work queued on the torchlite.cuda.Stream `s`, so the
    caching allocator does not reuse its memory, once freed, before that work is done."""
    _C._cuda._record_stream(self, s.cuda_stream)


def _is_distributed(self):
    return is_distributed(self)


def _is_inference(self):
    return is_inference(self)


def _is_nonzero(self):
    return is_nonzero(self)


def _is_same_size(self, other):
    return is_same_size(self, other)


def _lu(self, pivot=True, get_infos=False):
    return lu(self, pivot, get_infos)


_METHODS = {"new": _new, "lu": _lu, "type_as": _type_as, "apply_": _apply_, "map_": _map_, "map2_": _map2_,
            "is_inference": _is_inference, "is_nonzero": _is_nonzero, "is_same_size": _is_same_size,
            "narrow_copy": _narrow_copy, "nonzero_static": _nonzero_static, "dim_order": _dim_order,
            "const_data_ptr": _const_data_ptr, "is_set_to": _is_set_to, "module_load": _module_load,
            "is_pinned": _is_pinned, "is_distributed": _is_distributed, "record_stream": _record_stream,
            "pin_memory": _pin_memory}
for _name, _fn in _METHODS.items():
    _fn.__doc__ = _fn.__doc__ or f"x.{_name}(...): torchlite.{_name}(x, ...)."
    setattr(Tensor, _name, _fn)
Tensor.is_meta = property(lambda self: False, doc="False: torchlite has no meta tensors.")
Tensor.is_nested = property(lambda self: False, doc="False: torchlite has no nested tensors.")

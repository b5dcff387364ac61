"""Creation functions PyTorch defines in Python or as compositions: as_tensor, asarray, frombuffer,
logspace, the window functions, tril_indices/triu_indices, Tensor.new_tensor and
Tensor.new_empty_strided.

Values that need no gradient (windows, index lists, logspace) are computed in float64 with NumPy
and cast once; tensors that come from NumPy arrays or buffers alias their memory where PyTorch does.
"""

import array
import math

import numpy as np

from torchlite import _C
from torchlite._device import current_device
from torchlite._shape_functions import _write_out

__all__ = ["as_tensor", "asarray", "bartlett_window", "blackman_window", "frombuffer", "hamming_window",
           "hann_window", "kaiser_window", "logspace", "tril_indices", "triu_indices"]

_NUMPY_DTYPE = {_C.bool: np.bool_, _C.uint8: np.uint8, _C.int8: np.int8, _C.int16: np.int16, _C.int32: np.int32,
                _C.int64: np.int64, _C.float16: np.float16, _C.float32: np.float32, _C.float64: np.float64}


def _device(device):
    return current_device() if device is None else device


def _from_numpy(a):
    """A tensor aliasing `a` where from_numpy can (writable arrays), else a copy."""
    return _C.from_numpy(a if a.flags.writeable else a.copy())


def _to(t, dtype, device):
    """t on `device` with `dtype` (None: unchanged), t itself when nothing changes."""
    device = _device(device)
    if device is None:
        return t if dtype is None else t.to(dtype)
    return t.to(device=device, dtype=dtype)


def as_tensor(data, *, dtype=None, device=None):
    """as_tensor(data, *, dtype=None, device=None) -> Tensor: data as a tensor, sharing memory with a
    tensor or NumPy array when dtype and device already match.

    >>> torchlite.as_tensor(numpy.array([1, 2]))
    tensor([1, 2])
    """
    if isinstance(data, _C.Tensor):
        return _to(data, dtype, device)
    if isinstance(data, (np.ndarray, np.generic)):
        return _to(_from_numpy(np.asarray(data)), dtype, device)
    return _C.tensor(data, dtype=dtype, device=_device(device))


def _is_buffer(obj):
    return isinstance(obj, (bytes, bytearray, memoryview, array.array))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor: obj (a
    tensor, NumPy array, buffer, sequence or number) as a tensor. copy=None shares memory when it
    can, copy=True always copies, copy=False raises ValueError where it would have to copy.
    A buffer's bytes are read as `dtype` (the default dtype if None), as frombuffer does.

    >>> torchlite.asarray([1.0, 2.0], dtype=torchlite.float64)
    tensor([1., 2.], dtype=torchlite.float64)
    """
    if isinstance(obj, _C.Tensor):
        t = _to(obj, dtype, device)
        if copy is False and t is not obj:
            raise ValueError(f"can't alias tensor with dtype '{obj.dtype}' into dtype '{t.dtype}'.")
        t = t.clone() if copy and t is obj else t
    elif isinstance(obj, (np.ndarray, np.generic)) or hasattr(obj, "__array_interface__"):
        a = np.asarray(obj)
        if copy is False and (not a.flags.writeable or (dtype is not None and _NUMPY_DTYPE[dtype] != a.dtype)):
            raise ValueError("can't alias the NumPy array without a copy (read-only or another dtype)")
        base = _from_numpy(a)
        t = _to(base, dtype, device)
        t = t.clone() if copy and t is base else t
    elif _is_buffer(obj):
        t = frombuffer(obj, dtype=_C.get_default_dtype() if dtype is None else dtype)
        t = _to(t.clone() if copy else t, None, device)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        t = _C.tensor(obj, dtype=dtype, device=_device(device))
    return t.requires_grad_(True) if requires_grad else t


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor: a 1-D tensor
    over the bytes of an object with the buffer protocol, sharing them (a read-only buffer is copied).

    >>> torchlite.frombuffer(bytearray(b'\\x01\\x02'), dtype=torchlite.uint8)
    tensor([1, 2], dtype=torchlite.uint8)
    """
    mv = memoryview(buffer).cast("B")
    size = _C.empty(0, dtype=dtype).element_size()
    length = mv.nbytes
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({length} bytes)")
    if dtype == _C.bfloat16:  # NumPy has no bfloat16: widen the 16 bits into float32's top half (a copy)
        bits = np.frombuffer(mv, dtype=np.uint16, count=count, offset=offset).astype(np.uint32) << 16
        t = _C.from_numpy(bits.view(np.float32)).to(_C.bfloat16)
    else:
        t = _from_numpy(np.frombuffer(mv, dtype=_NUMPY_DTYPE[dtype], count=count, offset=offset))
    return t.requires_grad_(True) if requires_grad else t


def _finish(values, dtype, device, requires_grad, out=None):
    """float64 NumPy values -> the tensor a factory returns (or writes into out)."""
    t = _C.tensor(values, dtype=_C.float64).to(device=_device(device) or "cpu", dtype=dtype)
    if out is not None:
        return _write_out(t, out)
    return t.requires_grad_(True) if requires_grad else t


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    """logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None,
    device=None, requires_grad=False) -> Tensor: `steps` values base**x, x evenly spaced from start to end.

    >>> torchlite.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None:
        dtype = out.dtype if out is not None else _C.get_default_dtype()
    if not dtype.is_floating_point:  # PyTorch truncates the ends to the integer dtype first
        start, end = int(start), int(end)
    exponents = np.linspace(float(start), float(end), steps) if steps != 1 else np.array([float(start)])
    return _finish(np.power(float(base), exponents), dtype, device, requires_grad, out)


def _window(name, window_length, periodic, dtype, device, requires_grad, fn):
    """The window `fn(n, N)` over n = 0..N-1 (N = window_length, plus one when periodic, the extra
    sample dropped), checked and built as PyTorch's window functions are."""
    if dtype is None:
        dtype = _C.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        return _finish(np.ones(window_length), dtype, device, requires_grad)
    n_total = window_length + 1 if periodic else window_length
    w = fn(np.arange(n_total, dtype=np.float64), n_total)
    return _finish(w[:window_length], dtype, device, requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    """hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
    requires_grad=False) -> Tensor: 0.5 - 0.5 cos(2 pi n / (N - 1)).

    >>> torchlite.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: 0.5 - 0.5 * np.cos(2 * math.pi * n / (N - 1)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None,
                   device=None, pin_memory=False, requires_grad=False):
    """hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
    layout=None, device=None, pin_memory=False, requires_grad=False) -> Tensor:
    alpha - beta cos(2 pi n / (N - 1)).

    >>> torchlite.hamming_window(3, periodic=False)
    tensor([0.0800, 1.0000, 0.0800])
    """
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: alpha - beta * np.cos(2 * math.pi * n / (N - 1)))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
    requires_grad=False) -> Tensor: 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)).

    >>> torchlite.blackman_window(3, periodic=False)
    tensor([-1.4901e-08,  1.0000e+00, -1.4901e-08])
    """
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: 0.42 - 0.5 * np.cos(2 * math.pi * n / (N - 1))
                   + 0.08 * np.cos(4 * math.pi * n / (N - 1)))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
    requires_grad=False) -> Tensor: the triangular window 1 - |2n / (N - 1) - 1|.

    >>> torchlite.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: 1 - np.abs(2 * n / (N - 1) - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    """kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
    device=None, requires_grad=False) -> Tensor: I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta).

    >>> torchlite.kaiser_window(3, periodic=False, beta=0.0)
    tensor([1., 1., 1.])
    """
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: np.i0(beta * np.sqrt(np.clip(1 - (2 * n / (N - 1) - 1) ** 2, 0, None))) / np.i0(beta))


def _tri_indices(name, numpy_fn, row, col, offset, dtype, device, requires_grad):
    dtype = _C.int64 if dtype is None else dtype
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if dtype.is_floating_point or dtype == _C.bool:
        raise NotImplementedError(f'"{name}" not implemented for {dtype}')
    rows, cols = numpy_fn(row, offset, col)
    return _C.tensor(np.stack([rows, cols]).reshape(2, -1), dtype=dtype, device=device, requires_grad=requires_grad)


def tril_indices(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=False,
                 requires_grad=False):
    """tril_indices(row, col, offset=0, *, dtype=None (long), layout=None, device=None, pin_memory=False,
    requires_grad=False)
    -> Tensor: the (2, N) coordinates of the lower triangle of a row x col matrix, row by row.

    >>> torchlite.tril_indices(2, 2)
    tensor([[0, 1, 1],
            [0, 0, 1]])
    """
    return _tri_indices("tril_indices", np.tril_indices, row, col, offset, dtype, device, requires_grad)


def triu_indices(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=False,
                 requires_grad=False):
    """triu_indices(row, col, offset=0, *, dtype=None (long), layout=None, device=None, pin_memory=False,
    requires_grad=False)
    -> Tensor: the (2, N) coordinates of the upper triangle of a row x col matrix, row by row.

    >>> torchlite.triu_indices(2, 2)
    tensor([[0, 0, 1],
            [0, 1, 1]])
    """
    return _tri_indices("triu_indices", np.triu_indices, row, col, offset, dtype, device, requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """x.new_tensor(data, *, dtype=None, device=None, requires_grad=False, layout=None,
    pin_memory=False) -> Tensor: a copy of data, with x's dtype and device unless given.

    >>> torchlite.ones(2, dtype=torchlite.int32).new_tensor([3, 4])
    tensor([3, 4], dtype=torchlite.int32)
    """
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else device
    if isinstance(data, _C.Tensor):
        t = data.detach().to(device=device, dtype=dtype, copy=True)
    else:
        t = _C.tensor(data, dtype=dtype, device=device)
    return t.requires_grad_(True) if requires_grad else t


def _new_empty_strided(self, size, stride, dtype=None, device=None, requires_grad=False, layout=None,
                       pin_memory=False):
    """x.new_empty_strided(size, stride, dtype=None, device=None, requires_grad=False,
    layout=None, pin_memory=False) -> Tensor: uninitialised, with x's dtype and device
    unless given.

    >>> torchlite.ones(1).new_empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    return _C.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                            device=self.device if device is None else device, requires_grad=requires_grad)


_C.Tensor.new_tensor = _new_tensor
_C.Tensor.new_empty_strided = _new_empty_strided

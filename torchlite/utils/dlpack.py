"""DLPack interchange (torch.utils.dlpack): zero-copy exchange of tensors with NumPy, PyTorch, CuPy
and any library that speaks the DLPack protocol, in both directions.

The capsules and the structs behind them are torchlite/csrc/python_dlpack.cpp; this module holds
the protocol's Python side: ``from_dlpack``, ``Tensor.__dlpack__`` with its argument rules (the
stream a CUDA consumer names, requires_grad, the version asked for), ``Tensor.__dlpack_device__``
and ``Tensor.__cuda_array_interface__``.
"""

import enum
from typing import Any

from torchlite import _C
from torchlite.overrides import wrap_torch_function

__all__ = ["DLDeviceType", "from_dlpack"]

Tensor = _C.Tensor


class DLDeviceType(enum.IntEnum):
    """The device types of the DLPack specification."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


to_dlpack = _C._to_dlpack


def _dl_device(device):
    return (DLDeviceType.kDLCUDA, device.index or 0) if device.type == "cuda" else (DLDeviceType.kDLCPU, 0)


def _stream_for_producer(device_index):
    """The `stream` argument a CUDA consumer passes: its current stream, the legacy default
    stream spelt 1 as the protocol asks (0 would be ambiguous)."""
    stream = _C._cuda._current_stream(device_index)
    return 1 if stream == 0 else stream


def from_dlpack(ext_tensor: Any, *, device=None, copy: bool | None = None) -> Tensor:
    """from_dlpack(ext_tensor, *, device=None, copy=None) -> Tensor

    A tensor sharing the memory of ``ext_tensor``: an object with ``__dlpack__`` (a NumPy array, a
    PyTorch or CuPy tensor, ...) or a DLPack capsule. Writes through either side show on the
    other. ``device`` places the result elsewhere (a copy); ``copy=True`` always copies,
    ``copy=False`` never does (an error when it would have to).

    >>> a = torchlite.arange(4)
    >>> b = torchlite.from_dlpack(a)
    >>> b[0] = 7
    >>> a.tolist()
    [7, 1, 2, 3]
    """
    if not hasattr(ext_tensor, "__dlpack__"):
        if device is not None or copy is not None:
            raise ValueError("from_dlpack: device and copy are not supported when ext_tensor is already a DLPack "
                             "capsule")
        return _C._from_dlpack(ext_tensor)

    source = tuple(ext_tensor.__dlpack_device__())
    kwargs = {"max_version": (1, 0)}
    moved = False
    if device is not None:
        device = _C.device(f"cuda:{device}" if isinstance(device, int) else device)
        moved = source != _dl_device(device)
        if moved and copy is False:
            raise ValueError(f"cannot move DLPack tensor from device {source} to {_dl_device(device)} without "
                             "copying. Set copy=None or copy=True.")
        if not moved:
            kwargs["dl_device"] = _dl_device(device)
    if copy is not None:
        kwargs["copy"] = copy
    if source[0] == DLDeviceType.kDLCUDA:
        kwargs["stream"] = _stream_for_producer(source[1])

    # Producers written before DLPack 1.0 reject the newer keywords: drop them one by one.
    for dropped in ("max_version", "copy", "dl_device", None):
        try:
            capsule = ext_tensor.__dlpack__(**kwargs)
            break
        except TypeError:
            if dropped is None:
                raise
            kwargs.pop(dropped, None)
    tensor = _C._from_dlpack(capsule)
    if moved:
        return tensor.to(device)
    if copy and "copy" not in kwargs:  # a producer that could not copy
        return tensor.clone()
    return tensor


def _wait_for_producer(tensor, stream):
    """Orders the consumer's `stream` after the work queued on the tensor's current stream, by the
    protocol's encoding: None or 1 the legacy default stream, 2 the per-thread default stream,
    0 disallowed, anything else a cudaStream_t."""
    if stream == 2:
        raise BufferError("per-thread default stream is not supported.")
    if stream == 0:
        raise ValueError("stream 0 is ambiguous on CUDA: pass 1 for the legacy default stream")
    consumer = 0 if stream in (None, 1) else stream
    producer = _C._cuda._current_stream(tensor.device.index)
    if consumer != producer:
        # Without events, the host waits for the producer's queued work: stronger than an event
        # the consumer's stream would wait on, and as correct.
        _C._cuda._stream_synchronize(producer)


@wrap_torch_function(lambda self, **kwargs: (self,))
def __dlpack__(self, *, stream: Any | None = -1, max_version: tuple[int, int] | None = None,
               dl_device: tuple[enum.IntEnum, int] | None = None, copy: bool | None = None):
    """x.__dlpack__(*, stream=-1, max_version=None, dl_device=None, copy=None) -> PyCapsule

    A DLPack capsule sharing x's memory, for a consumer's ``from_dlpack``. ``stream``: a CUDA
    consumer's stream (-1: no synchronisation; None or 1: the legacy default stream), which waits
    for x's pending work; it must be None or -1 on CPU. ``max_version``: the newest DLPack
    version the consumer reads; (1, x) or later gives a versioned capsule ("dltensor_versioned"),
    None an unversioned one ("dltensor"). ``dl_device``: the (DLDeviceType, index) to export to
    (a copy when it is not x's device). ``copy``: True always copies, False never does.
    """
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError(f"stream must be ``int`` or ``none``, got {type(stream).__name__}")
    if self.is_cuda:
        current = _C._cuda.current_device()
        if self.device.index != current:
            raise BufferError(f"Can't export tensors on a different CUDA device index. Expected: {self.device.index}. "
                              f"Current device: {current}.")
        if stream != -1:
            _wait_for_producer(self, stream)
    elif stream not in (None, -1):
        raise ValueError(f"stream should be None on cpu, got {stream}")
    if max_version is None or max_version[0] < 1:
        return _C._to_dlpack(self, dl_device=dl_device, copy=copy)
    return _C._to_dlpack_versioned(self, dl_device=dl_device, copy=copy)


@wrap_torch_function(lambda self: (self,))
def __dlpack_device__(self) -> tuple[enum.IntEnum, int]:
    """x.__dlpack_device__() -> (DLDeviceType, index): where x's memory is, in DLPack's terms."""
    return _dl_device(self.device)


def _typestr(dtype, itemsize):
    """The array-interface type string: little-endian (CUDA devices are), '|' where bytes have no
    order; bfloat16 as 2 opaque bytes, as ml_dtypes spells it."""
    kind = ("b" if dtype == _C.bool else "V" if dtype == _C.bfloat16 else "c" if dtype.is_complex
            else "f" if dtype.is_floating_point else "i" if dtype.is_signed else "u")
    return f"{'|' if itemsize == 1 else '<'}{kind}{itemsize}"


def _array_interface(tensor, stream):
    """The __cuda_array_interface__ (version 3) dict of `tensor`, whose pending work is queued on
    `stream` (a cudaStream_t; the legacy default stream 0 is spelt 1, as the protocol asks)."""
    if tensor.requires_grad:
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. If gradients aren't "
                           "required, use var.detach() to get Variable that doesn't require grad.")
    itemsize = tensor.element_size()
    # Version 3 asks for no strides (None) on C-contiguous data.
    strides = None if tensor.is_contiguous() else tuple(s * itemsize for s in tensor.stride())
    return {
        "typestr": _typestr(tensor.dtype, itemsize),
        "shape": tuple(tensor.shape),
        "strides": strides,
        "data": (tensor.data_ptr() if tensor.numel() > 0 else 0, False),
        "version": 3,
        "stream": 1 if stream == 0 else stream,
    }


@wrap_torch_function(lambda self: (self,))
def _cuda_array_interface(self):
    # AttributeError, so that hasattr(cpu_tensor, "__cuda_array_interface__") is False.
    if not self.is_cuda:
        raise AttributeError(f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {self.type()} If CUDA "
                             "data is required use tensor.cuda() to copy tensor to device memory.")
    return _array_interface(self, _C._cuda._current_stream(self.device.index))


Tensor.__dlpack__ = __dlpack__
Tensor.__dlpack_device__ = __dlpack_device__
Tensor.__cuda_array_interface__ = property(_cuda_array_interface)

"""torchlite.autocast: automatic mixed precision (PyTorch's torch.autocast / torch.amp.autocast).

Inside `with torchlite.autocast("cpu"):` the operators PyTorch lists run in lower precision or
in float32 whatever their inputs: matmul, linear and convolutions cast their floating inputs to
bfloat16 (float16 on CUDA), losses, norms and linear algebra to float32. Each operator's policy
is in native_functions.yaml (`autocast:`), and the casting happens in C++ when the operator is
called (Note [Autocast] in torchlite/csrc/autocast/autocast_mode.h), below the Python layer and
above autograd, so gradients reach the float32 parameters as float32.
"""

import functools
import warnings

from torchlite import _C

__all__ = ["autocast", "is_autocast_available", "custom_fwd", "custom_bwd"]


# the lower-precision dtypes each device's autocast supports
_SUPPORTED = {"cpu": (_C.bfloat16, _C.float16), "cuda": (_C.float16, _C.bfloat16)}


def is_autocast_available(device_type):
    """Whether autocast can run on `device_type` ("cpu" or "cuda")."""
    return device_type in _SUPPORTED


def _device(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _SUPPORTED:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return _C.device(device_type)


def is_autocast_enabled(device_type="cuda"):
    """is_autocast_enabled(device_type='cuda'): whether autocast is on for that device in this thread."""
    return _C._autocast_is_enabled(_device(device_type))


def set_autocast_enabled(device_type, enabled=None):
    """set_autocast_enabled(device_type, enabled), or the older set_autocast_enabled(enabled) for CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _C._autocast_set_enabled(_device(device_type), bool(enabled))


def get_autocast_dtype(device_type):
    """get_autocast_dtype(device_type): the lower-precision dtype autocast uses on that device."""
    return _C._autocast_get_dtype(_device(device_type))


def set_autocast_dtype(device_type, dtype):
    _C._autocast_set_dtype(_device(device_type), dtype)


def _deprecated(old, new):
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


class autocast:
    """autocast(device_type, dtype=None, enabled=True, cache_enabled=None): a context manager (and
    decorator) under which operators run in mixed precision on `device_type`.

    >>> with torchlite.autocast("cpu"):
    ...     y = torchlite.mm(torchlite.ones(2, 2), torchlite.ones(2, 2))
    >>> y.dtype
    torchlite.bfloat16
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = device_type
        self._device = _device(device_type)
        self.fast_dtype = _C._autocast_get_dtype(self._device) if dtype is None else dtype
        self._enabled = bool(enabled)
        self._cache_enabled = _C.is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        if self._enabled and device_type == "cuda" and not _C._cuda.is_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling", stacklevel=2)
            self._enabled = False
        if self._enabled and self.fast_dtype not in _SUPPORTED[device_type]:
            names = " and ".join(str(d).replace("torchlite.", "torch.") for d in _SUPPORTED[device_type])
            warnings.warn(f"In {device_type} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{device_type.upper()} Autocast only supports dtypes of {names} currently.", stacklevel=2)
            self._enabled = False

    def __enter__(self):
        self._prev = (_C._autocast_is_enabled(self._device), _C._autocast_get_dtype(self._device),
                      _C.is_autocast_cache_enabled())
        _C._autocast_set_enabled(self._device, self._enabled)
        _C._autocast_set_dtype(self._device, self.fast_dtype)
        _C.set_autocast_cache_enabled(self._cache_enabled)
        _C.autocast_increment_nesting()
        return self

    def __exit__(self, *exc):
        if _C.autocast_decrement_nesting() == 0:
            _C.clear_autocast_cache()  # the cached casts of the weights live for the outermost region
        enabled, dtype, cache = self._prev
        _C._autocast_set_enabled(self._device, enabled)
        _C._autocast_set_dtype(self._device, dtype)
        _C.set_autocast_cache_enabled(cache)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def decorated(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)

        return decorated


def _cast(value, device, dtype):
    """Floating tensors on `device` (and inside lists, tuples and dicts) cast to dtype."""
    if isinstance(value, _C.Tensor):
        if value.is_floating_point() and value.device.type == device and value.dtype != _C.float64:
            return value.to(dtype)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, device, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """For the forward of a custom autograd.Function: with cast_inputs, run it in that dtype with
    autocast off (when autocast is on); without, run it under the surrounding autocast state.
    custom_bwd runs the backward under the state the forward saw."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    device = _device(device_type)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._fwd_used_autocast = _C._autocast_is_enabled(device)
        ctx._dtype = _C._autocast_get_dtype(device)
        if cast_inputs is not None and ctx._fwd_used_autocast:
            with autocast(device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """For the backward of a custom autograd.Function: the autocast state of its forward."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type, ctx._dtype, ctx._fwd_used_autocast):
            return bwd(*args, **kwargs)

    return decorate_bwd

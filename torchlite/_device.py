"""The default device: set_default_device / get_default_device and `with torchlite.device(...):`.

Factory functions (zeros, empty, tensor, ...) called without a device= use the default device.
They are C++ bindings that default to the CPU, so the first time a default device is set they
are wrapped, in torchlite and torchlite._C alike (nn modules call _C.empty), by a function that
fills in device=. Until then nothing is wrapped and factory calls cost what they always did.
A factory imported by name (`from torchlite import zeros`) before that first call is unwrapped.
"""

import functools
import sys

from torchlite import _C

__all__ = ["get_default_device", "set_default_device"]

# The factories of _C that take device=; the Python-level ones (logspace, windows, ...) call
# current_device() themselves.
_FACTORIES = ("arange", "empty", "empty_strided", "eye", "full", "linspace", "ones", "rand", "randint",
              "randn", "randperm", "tensor", "zeros")

_default = None  # None: the CPU, and factories are not wrapped
_stack = []  # previous defaults of the `with device:` blocks being run
_wrapped = False


def current_device():
    """The default device, or None when it was never set (the factories' own CPU default)."""
    return _default


def _with_default_device(fn):
    @functools.wraps(fn)
    def factory(*args, **kwargs):
        if _default is not None and kwargs.get("device") is None:
            kwargs["device"] = _default
        return fn(*args, **kwargs)

    return factory


def _wrap_factories():
    global _wrapped
    torchlite = sys.modules["torchlite"]
    for name in _FACTORIES:
        wrapped = _with_default_device(getattr(_C, name))
        setattr(_C, name, wrapped)
        setattr(torchlite, name, wrapped)
    _wrapped = True


def set_default_device(device):
    """set_default_device(device): factories called without device= allocate on `device`
    (a torchlite.device, a string such as 'cuda', or an index of a CUDA device); None resets it.

    >>> torchlite.set_default_device('cpu')
    """
    global _default
    if device is None:
        _default = None
        return
    if isinstance(device, int):
        device = _C.device("cuda", device)
    _default = device if isinstance(device, _C.device) else _C.device(device)
    if not _wrapped:
        _wrap_factories()


def get_default_device():
    """get_default_device() -> torchlite.device: where factories allocate without device=.

    >>> torchlite.get_default_device()
    device(type='cpu')
    """
    return _C.device("cpu") if _default is None else _default


def _enter(self):
    _stack.append(_default)
    set_default_device(self)
    return self


def _exit(self, exc_type, exc, tb):
    set_default_device(_stack.pop())


_C.device.__enter__ = _enter
_C.device.__exit__ = _exit

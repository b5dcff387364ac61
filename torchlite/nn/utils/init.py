"""skip_init: a module instance whose parameters and buffers are left uninitialised."""

import inspect

from torchlite.nn.modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) whose parameter values are unspecified (the caller initialises them).

    PyTorch builds the module on the meta device and then allocates it empty. torchlite has no meta
    device: the module is built on its device directly, so its own initialisation still runs (the
    contract, values not to be relied on, is the same; the time saved is not).
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    return module_cls(*args, **kwargs)

"""The stopgap that lets tracing record calls of torchlite's own functions.

torch.fx records `torch.add(proxy, 1)` through the `__torch_function__` protocol
(Proxy.__torch_function__). Where torchlite's functions do not honour it yet (generated
bindings without the check, Python-level functions without handle_torch_function), a trace
temporarily replaces the public functions of the torchlite namespaces by wrappers that record
the call when a Proxy is among the arguments, as `fx.wrap` does for user functions. Generated
bindings are left alone once they honour the protocol; this module goes away when every
function does.
"""

import contextlib
import functools
import types

import torchlite
from torchlite.fx.node import _public_namespaces

__all__ = ["patch_torchlite_namespaces"]


@functools.cache
def _torch_function_honoured() -> bool:
    class _Probe:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return True
    try:
        return torchlite.neg(_Probe()) is True
    except TypeError:
        return False


# type tests that answer False for a Proxy in torch.fx rather than being recorded
_NOT_RECORDED = frozenset({"is_tensor", "is_storage"})


@functools.cache
def _patch_targets():
    """(namespace, name, function) for every public function of the torchlite namespaces that
    does not already hand Proxy arguments to Proxy.__torch_function__."""
    skip_builtins = _torch_function_honoured()
    targets = []
    for _, namespace in _public_namespaces():
        for name, fn in vars(namespace).items():
            if name.startswith("_") or name in _NOT_RECORDED or \
                    not isinstance(fn, (types.FunctionType, types.BuiltinFunctionType)):
                continue
            if skip_builtins and isinstance(fn, types.BuiltinFunctionType):
                continue
            targets.append((namespace, name, fn))
    return tuple(targets)


class _PatchedFunction:
    """A torchlite function as seen during tracing: it calls the recording wrapper, and compares
    and hashes as the function itself, so `node.target == torchlite.add` and dicts keyed by
    torchlite functions keep working inside a trace or a Transformer."""

    def __init__(self, fn, wrapper):
        functools.update_wrapper(self, fn)
        self._call = wrapper

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def __eq__(self, other):
        return self.__wrapped__ == (other.__wrapped__ if isinstance(other, _PatchedFunction) else other)

    def __hash__(self):
        return hash(self.__wrapped__)


@functools.cache
def _patched_functions(make_wrapper):
    return tuple(_PatchedFunction(fn, make_wrapper(fn)) for _, _, fn in _patch_targets())


@contextlib.contextmanager
def patch_torchlite_namespaces(make_wrapper):
    """Within the block, namespace.name calls make_wrapper(function) for every target."""
    targets = _patch_targets()
    try:
        for (namespace, name, _), patched in zip(targets, _patched_functions(make_wrapper)):
            setattr(namespace, name, patched)
        yield
    finally:
        for namespace, name, fn in targets:
            setattr(namespace, name, fn)

"""torchlite.ops: operators by namespace, as torch.ops. torchlite.ops.<ns>.<name> is a runtime
operator defined with torchlite.library; torchlite.ops.aten.<name> reaches the built-in one."""

import types

import torchlite
from torchlite import _C, library


class _OpNamespace(types.ModuleType):
    def __init__(self, name):
        super().__init__(f"torchlite.ops.{name}")
        self.name = name

    def __getattr__(self, op_name):
        packet = library._packets.get(f"{self.name}::{op_name}")
        if packet is None:
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        return packet


class _BuiltinOp:
    """A built-in operator seen through torchlite.ops.aten: its Python binding, which picks the
    overload from the arguments, so every overload attribute (.default, .Tensor, ...) is that
    same callable."""

    def __init__(self, name, fn):
        self._name, self._fn = name, fn

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __getattr__(self, overload):
        if overload.startswith("_"):
            raise AttributeError(overload)
        return self._fn

    def __repr__(self):
        return f"torchlite.ops.aten.{self._name}"


class _AtenNamespace(_OpNamespace):
    def __getattr__(self, op_name):
        fn = getattr(_C, op_name, None) or getattr(torchlite, op_name, None)
        if not callable(fn) or op_name.startswith("__"):
            raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{op_name}'")
        return _BuiltinOp(op_name, fn)


class _Ops(types.ModuleType):
    def __init__(self):
        super().__init__("torchlite.ops")
        self.aten = _AtenNamespace("aten")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace


ops = _Ops()

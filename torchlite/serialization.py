"""torchlite.save / torchlite.load in PyTorch's checkpoint format, and pickling of tensors.

File format: PyTorch's zip checkpoint (torch.save's default), so that PyTorch's torch.load
(weights_only=True included) reads what torchlite.save writes, and torchlite.load reads what
torch.save writes. A zip archive whose records sit in one top folder ("archive" here; PyTorch
names it after the file), stored uncompressed with the data 64-byte aligned (so they can be mmapped):

    archive/data.pkl            the pickled object, protocol 2; every tensor is a call
                                torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
                                requires_grad, backward_hooks) whose storage is a persistent id
                                ("storage", torch.<Type>Storage, key, location, numel)
    archive/.format_version     b"1"
    archive/.storage_alignment  b"64"
    archive/byteorder           b"little" or b"big": byte order of the storage records
    archive/data/<key>          the raw bytes of one storage, numel elements (bfloat16: its bits)
    archive/version             b"3\\n"

Globals are written under PyTorch's names (torch._utils._rebuild_tensor_v2, torch.FloatStorage,
torch.float16, torch.device, torch.Size, torch._utils._rebuild_parameter, ...) and read back as
torchlite's own functions and objects (the table _torch_globals()); nothing imports torch.
torchlite's earlier format (with an archive/torchlite_format record) was never released and is not
read. PyTorch's legacy non-zip format (_use_new_zipfile_serialization=False) is refused by name.

Note [Shared storages]: tensors that are views of one storage (same storage identity, from
Tensor._storage_id()) refer to one storage record, written once. On load each record becomes one
flat 1-D tensor and every tensor is rebuilt with as_strided over it, so views saved together stay
views of one (new) storage after load: writing through one is visible in the others. The same
tensor object saved twice loads as one object (pickle's memo).

Loading with weights_only=True (the default) uses an Unpickler whose find_class admits only
PyTorch's allowlist (containers, tensors, storages, dtypes, devices, Size, Parameter, bytes, set,
complex) plus what add_safe_globals / safe_globals registered, and never the modules sys, os,
posix, nt; anything else raises pickle.UnpicklingError naming the global and the remedies, and
nothing from the file runs. TORCH_FORCE_WEIGHTS_ONLY_LOAD / TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD
override the default as in PyTorch.

Plain pickling (pickle.dumps(t), multiprocessing queues, copy.deepcopy) goes through
Tensor.__reduce_ex__ / __deepcopy__ below (installed by torchlite._tensor): data travels as a
NumPy array; deepcopy keeps views of one storage sharing one new storage.
"""

from __future__ import annotations

import _compat_pickle
import collections
import contextlib
import io
import os
import pickle
import pickletools
import re
import struct
import sys
import tempfile
import warnings
import zipfile
from typing import IO, Any

import numpy as np

from torchlite import _C
from torchlite._size import Size
from torchlite.autograd.grad_mode import no_grad as _no_grad

__all__ = [
    "save",
    "load",
    "add_safe_globals",
    "get_safe_globals",
    "clear_safe_globals",
    "safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "DEFAULT_PROTOCOL",
]

DEFAULT_PROTOCOL = 2  # PyTorch's; its weights-only unpickler reads only protocol 2's opcodes
_ARCHIVE = "archive"
_STORAGE_ALIGNMENT = 64
# the first pickle of a file in PyTorch's legacy (non-zip) format
_LEGACY_MAGIC = pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)

Tensor = _C.Tensor

_DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                "complex64", "complex128")
_DTYPES = {name: getattr(_C, name) for name in _DTYPE_NAMES}
# NumPy element type of each storage record, without byte order (added from the byteorder record).
_NP_TYPES = {
    "bool": "b1",
    "uint8": "u1",
    "int8": "i1",
    "int16": "i2",
    "int32": "i4",
    "int64": "i8",
    "float16": "f2",
    "bfloat16": "u2",  # bit patterns: NumPy has no bfloat16
    "float32": "f4",
    "float64": "f8",
    "complex64": "c8",
    "complex128": "c16",
}
# PyTorch's typed storage class of each dtype (the storage type in a persistent id)
_STORAGE_CLASSES = {
    "bool": "BoolStorage",
    "uint8": "ByteStorage",
    "int8": "CharStorage",
    "int16": "ShortStorage",
    "int32": "IntStorage",
    "int64": "LongStorage",
    "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage",
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}
# PyTorch dtypes torchlite lacks (unsigned wider than 8 bits, float8/float4, quantized, bits, sub-byte ints)
_TORCH_ONLY_DTYPE = re.compile(r"u?int[1-7]|uint(16|32|64)|complex32|float[48]_\w+|q(u)?int\w+|bits\w+")


def _dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _describe(f) -> str:
    if isinstance(f, (str, bytes, os.PathLike)):
        return repr(os.fsdecode(os.fspath(f)))
    return "the given file object"


# ---------------------------------------------------------------------------------------------
# Tensor <-> NumPy (shared by save, pickling and deepcopy)


def _flat_storage(t: Tensor) -> Tensor:
    """A 1-D tensor over the whole storage of `t` (same dtype, device), sharing its memory."""
    n = t._storage_nbytes() // t.element_size()
    with _no_grad():
        return t.detach().as_strided((n,), (1,), 0)


def _to_array(t: Tensor) -> np.ndarray:
    """Contiguous little/native-endian NumPy copy of `t` (bfloat16 as uint16 bit patterns)."""
    with _no_grad():
        t = t.detach()
        if not t.is_cpu:
            t = t.cpu()
        if t.dtype == _C.bfloat16:
            bits = t.to(_C.float32).numpy().view(np.uint32) >> 16  # float32 from bfloat16 is exact
            return np.require(bits, np.uint16, requirements="C")
        # np.require, not np.ascontiguousarray: that one makes a 0-d array 1-d
        return np.require(t.numpy(), requirements="C")


def _from_array(arr: np.ndarray, dtype_name: str) -> Tensor:
    """Inverse of _to_array: a CPU tensor of dtype `dtype_name` owning (or viewing) `arr`."""
    if dtype_name == "bfloat16":
        bits = np.require(arr, np.uint32, requirements=["C", "W"])  # a new array: arr holds uint16
        bits <<= 16
        return _C.from_numpy(bits.view(np.float32)).to(_C.bfloat16)
    if not arr.flags.writeable or not arr.flags.c_contiguous or not arr.dtype.isnative:
        arr = np.require(arr, dtype=arr.dtype.newbyteorder("="), requirements=["C", "W"])
    return _C.from_numpy(arr)


# ---------------------------------------------------------------------------------------------
# Rebuild functions: what PyTorch's rebuild globals (torch._utils._rebuild_tensor_v2, ...) name
# when a checkpoint is read by torchlite


def _check_int_tuple(what, v, allow_negative=False):
    if not isinstance(v, (tuple, list)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise pickle.UnpicklingError(f"malformed tensor record: {what} must be a tuple of ints, got {v!r}")
    if not allow_negative and any(x < 0 for x in v):
        raise pickle.UnpicklingError(f"malformed tensor record: negative {what} {tuple(v)}")
    return tuple(v)


def _rebuild_tensor(storage, storage_offset, size, stride):
    """A tensor viewing `storage` (a flat 1-D tensor standing for one storage record)."""
    if not isinstance(storage, Tensor) or storage.dim() != 1:
        raise pickle.UnpicklingError(f"malformed tensor record: expected a storage, got {type(storage).__name__}")
    size = _check_int_tuple("size", size)
    stride = _check_int_tuple("stride", stride)
    if len(size) != len(stride):
        raise pickle.UnpicklingError(f"malformed tensor record: size {size} and stride {stride} differ in length")
    if not isinstance(storage_offset, int) or storage_offset < 0:
        raise pickle.UnpicklingError(f"malformed tensor record: storage offset {storage_offset!r}")
    with _no_grad():
        return storage.as_strided(size, stride, storage_offset)  # checks the bounds of the storage


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    # backward_hooks: PyTorch always saves an empty OrderedDict (hooks are not serialized);
    # metadata: PyTorch's internal tensor flags, none of which torchlite has
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    """PyTorch's record for a dtype without a typed storage class: the storage holds raw bytes."""
    if not isinstance(dtype, _C.dtype):
        raise pickle.UnpicklingError(f"malformed tensor record: expected a dtype, got {dtype!r}")
    if storage.dtype != dtype:
        name = _dtype_name(dtype)
        storage = _from_array(_to_array(storage).view(_NP_TYPES[name]), name)
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks)


def _rebuild_from_array(arr, dtype_name, device="cpu", requires_grad=False):
    """Used by Tensor.__reduce_ex__ (plain pickle): data as a NumPy array."""
    t = _from_array(arr, dtype_name)
    if str(device) != "cpu":
        t = t.to(_C.device(device))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _parameter_class():
    """torchlite.nn.Parameter when torchlite.nn exists (it may not be built yet), else None."""
    mod = sys.modules.get("torchlite.nn.parameter")
    if mod is None:
        try:
            import torchlite.nn.parameter as mod  # noqa: PLC0415
        except ImportError:
            return None
    return getattr(mod, "Parameter", None)


def _rebuild_parameter(data, requires_grad=True, backward_hooks=None):
    """nn.Parameter: saved as (_rebuild_parameter, (plain tensor, requires_grad, hooks))."""
    cls = _parameter_class()
    if cls is None:
        raise RuntimeError("this file holds nn.Parameter objects but torchlite.nn.Parameter is not available")
    return cls(data, requires_grad)


def _set_state(obj, state):
    """Python attributes of a tensor, as PyTorch saves them: a dict, or (dict, slots dict)."""
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        obj.__dict__.update(state)
    for k, v in (slots or {}).items():
        setattr(obj, k, v)
    return obj


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_state(_rebuild_parameter(data, requires_grad), state)


def _rebuild_subclass(cls, data, requires_grad, state):
    """Tensor subclasses other than Parameter (weights_only=False, or cls added to the safe globals)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise pickle.UnpicklingError(f"malformed tensor record: {cls!r} is not a Tensor subclass")
    obj = cls(data) if cls is not Tensor else data
    if requires_grad and not obj.requires_grad:
        obj.requires_grad_(True)
    return _set_state(obj, state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """PyTorch's record for a tensor with Python attributes or of a subclass: rebuild, retype, set state."""
    t = func(*args)
    if new_type is not type(t):
        if new_type is _parameter_class():
            return _set_state(new_type(t, t.requires_grad), state)
        return _rebuild_subclass(new_type, t, t.requires_grad, state)
    return _set_state(t, state)


def _get_layout(name):
    """PyTorch pickles a layout as _get_layout("torch.strided")."""
    layout = getattr(_C, str(name).rpartition(".")[2], None)
    if not isinstance(layout, _C.layout):
        raise RuntimeError(f"torchlite.load: the checkpoint holds layout {name!r}, which torchlite does not support")
    return layout


def _is_parameter(t) -> bool:
    mod = sys.modules.get("torchlite.nn.parameter")
    cls = getattr(mod, "Parameter", None) if mod is not None else None
    return cls is not None and isinstance(t, cls)


def _plain(t: Tensor) -> Tensor:
    """A plain Tensor viewing the same memory as `t` (which may be a subclass)."""
    with _no_grad():
        return t.detach()


# ---------------------------------------------------------------------------------------------
# Plain pickling and deepcopy of tensors (installed on Tensor by torchlite._tensor)


def _tensor_reduce_ex(self, protocol):
    state = dict(self.__dict__) if getattr(self, "__dict__", None) else None
    if type(self) is not Tensor:
        if _is_parameter(self):
            return (_rebuild_parameter, (_plain(self), self.requires_grad))
        return (_rebuild_subclass, (type(self), _plain(self), self.requires_grad, state))
    if self.requires_grad and not self.is_leaf:
        raise RuntimeError(
            "Can't pickle a tensor that requires grad and is not a leaf (it has a grad_fn); "
            "call .detach() first, as PyTorch requires"
        )
    args = (_to_array(self), _dtype_name(self.dtype), str(self.device), self.requires_grad)
    return (_rebuild_from_array, args, state) if state else (_rebuild_from_array, args)


def _tensor_deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment. "
            "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm "
            "usage, see https://github.com/pytorch/pytorch/pull/103001"
        )
    if id(self) in memo:
        return memo[id(self)]
    import copy

    key = ("torchlite.storage", self._storage_id(), _dtype_name(self.dtype))
    with _no_grad():
        flat = memo.get(key)
        if flat is None:
            flat = _flat_storage(self).clone()
            memo[key] = flat
            memo.setdefault(id(memo), []).append(self)  # keeps the storage id valid while copying
        new = flat.as_strided(tuple(self.shape), self.stride(), self.storage_offset())
    if type(self) is not Tensor:
        if _is_parameter(self):
            new = type(self)(new, self.requires_grad)
        else:
            new = _rebuild_subclass(type(self), new, self.requires_grad, None)
    elif self.requires_grad:
        new.requires_grad_(True)
    memo[id(self)] = new
    if self.grad is not None:
        new.grad = copy.deepcopy(self.grad, memo)
    d = getattr(self, "__dict__", None)
    if d:
        new.__dict__.update(copy.deepcopy(d, memo))
    return new


# ---------------------------------------------------------------------------------------------
# Globals: PyTorch's names, and the weights_only allowlist


class _StorageType:
    """What a storage class global (torch.FloatStorage, ...) reads as: the dtype of its records."""

    __slots__ = ("dtype_name",)

    def __init__(self, dtype_name):
        self.dtype_name = dtype_name


def _torch_globals() -> dict[str, Any]:
    """PyTorch's global names for what torchlite reads them as; built on first use, since
    nn.Parameter's module imports this one."""
    if _TORCH_GLOBALS:
        return _TORCH_GLOBALS
    g: dict[str, Any] = {
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.serialization._get_layout": _get_layout,
        "torch.Tensor": Tensor,
        "torch.Size": Size,
        "torch.device": _C.device,
        "torch.storage.UntypedStorage": _StorageType("uint8"),
    }
    for name, dtype in _DTYPES.items():
        g[f"torch.{name}"] = dtype
        g[f"torch.{_STORAGE_CLASSES[name]}"] = _StorageType(name)
    param = _parameter_class()
    if param is not None:
        g["torch.nn.parameter.Parameter"] = param
    _TORCH_GLOBALS.update(g)
    return g


_TORCH_GLOBALS: dict[str, Any] = {}


def _latin1_bytes(text: str, encoding: str) -> bytes:
    """What protocol 2 pickles `bytes` as: _codecs.encode(text, "latin1"). Only that encoding is
    let through, so a weights-only file cannot reach the other codecs."""
    if encoding != "latin1":
        raise pickle.UnpicklingError(f"_codecs.encode with encoding {encoding!r} is not allowed")
    return text.encode("latin1")


_PYTHON_SAFE_GLOBALS: dict[str, Any] = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "_codecs.encode": _latin1_bytes,
    "builtins.bytearray": bytearray,
    "builtins.set": set,
    "builtins.complex": complex,
}
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")  # refused even when allowlisted, as in PyTorch
_USER_SAFE_GLOBALS: list = []


def _user_safe_globals() -> dict[str, Any]:
    out = {}
    for item in _USER_SAFE_GLOBALS:
        if isinstance(item, tuple):
            out[item[1]] = item[0]
        else:
            out[f"{item.__module__}.{item.__qualname__}"] = item
    return out


def add_safe_globals(safe_globals: list) -> None:
    """Allows these functions/classes in weights_only loading. An item is the object (named in the
    checkpoint as its {__module__}.{__qualname__}) or a tuple (object, "full.path.in.checkpoint")."""
    for item in safe_globals:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), "
                                 f"but got tuple of length: {len(item)}")
            if type(item[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(item[1])}")
        if item not in _USER_SAFE_GLOBALS:
            _USER_SAFE_GLOBALS.append(item)


def get_safe_globals() -> list:
    """The globals add_safe_globals (or an open safe_globals block) allowed."""
    return list(_USER_SAFE_GLOBALS)


def clear_safe_globals() -> None:
    """Forgets every global add_safe_globals allowed."""
    _USER_SAFE_GLOBALS.clear()


class safe_globals:  # noqa: N801  (PyTorch's name)
    """Context manager: the given globals are allowed for weights_only loading inside the block."""

    def __init__(self, safe_globals: list):
        self.safe_globals = safe_globals
        self._added: list = []

    def __enter__(self):
        self._added = [g for g in self.safe_globals if g not in _USER_SAFE_GLOBALS]
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        for g in self._added:
            _USER_SAFE_GLOBALS.remove(g)


def _python3_name(module: str, name: str) -> tuple[str, str]:
    """Protocol 2 (PyTorch's and our default) writes Python 2 names (__builtin__.set): map them
    as pickle's own find_class does."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _weights_only_global(module: str, name: str):
    full = f"{module}.{name}"
    if module in _BLOCKED_MODULES:
        raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
    for table in (_torch_globals(), _PYTHON_SAFE_GLOBALS, _user_safe_globals()):
        if full in table:
            return table[full]
    shown = name if module == "builtins" else full
    raise pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`torchlite.serialization.add_safe_globals([{shown}])` or the "
        f"`torchlite.serialization.safe_globals([{shown}])` context manager to allowlist this global "
        f"if you trust this class/function."
    )


_UNSAFE_MESSAGE = (
    "Re-running `torchlite.load` with `weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source."
)


def _weights_only_message(error: str) -> str:
    if "was not an allowed global by default" in error:
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, do those "
                f"steps only if you trust the source of the checkpoint.\n\t(1) {_UNSAFE_MESSAGE}\n\t(2) "
                "Alternatively, to load with `weights_only=True` please check the recommended steps in the "
                f"following error message.\n\tWeightsUnpickler error: {error}")
    return f"Weights only load failed. {_UNSAFE_MESSAGE}\n\n{error}"


def _torch_dtype_check(module: str, name: str) -> None:
    if module == "torch" and name not in _DTYPES and _TORCH_ONLY_DTYPE.fullmatch(name):
        raise RuntimeError(f"torchlite.load: the checkpoint holds dtype torch.{name}, which torchlite does not support")


# ---------------------------------------------------------------------------------------------
# save


class _Global:
    """A global written under PyTorch's name (module, name): the object itself is torchlite's."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module = module
        self.name = name

    def __call__(self, *args):  # pickle's save_reduce only accepts a callable
        raise TypeError(f"{self.module}.{self.name} is written to checkpoints by torchlite.save, not called")


_TORCH_NAMES = {key: _Global(*key.rsplit(".", 1)) for key in (
    "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state", "torch._tensor._rebuild_from_type_v2",
    "torch.serialization._get_layout", "torch.Tensor", "torch.Size", "torch.device",
    *(f"torch.{n}" for n in _DTYPE_NAMES), *(f"torch.{c}" for c in _STORAGE_CLASSES.values()))}


class _StorageRef:
    """Placeholder for one storage in data.pkl; becomes a persistent id."""

    __slots__ = ("key", "dtype_name", "location", "numel", "tensor")

    def __init__(self, key, tensor):
        self.key = key
        self.dtype_name = _dtype_name(tensor.dtype)
        self.location = str(tensor.device)
        self.numel = tensor._storage_nbytes() // tensor.element_size()
        self.tensor = tensor  # keeps the storage (and its id) alive until it is written


class _Pickler(pickle._Pickler):
    """The pure-Python pickler: only it lets a global be written under another module's name."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages: dict[tuple[int, str], _StorageRef] = {}

    def save_torch_global(self, obj: _Global):
        if self.proto >= 4:
            self.save(obj.module)
            self.save(obj.name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    dispatch[_Global] = save_torch_global

    def save_dtype(self, obj):
        self.save_torch_global(_TORCH_NAMES[f"torch.{_dtype_name(obj)}"])

    dispatch[_C.dtype] = save_dtype

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            storage_class = _TORCH_NAMES[f"torch.{_STORAGE_CLASSES[obj.dtype_name]}"]
            return ("storage", storage_class, obj.key, obj.location, obj.numel)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if type(obj) is _C.device:
            return (_TORCH_NAMES["torch.device"], (str(obj),))
        if type(obj) is Size:
            return (_TORCH_NAMES["torch.Size"], (tuple(obj),))
        if type(obj) is _C.layout:
            return (_TORCH_NAMES["torch.serialization._get_layout"], (f"torch.{_dtype_name(obj)}",))
        return NotImplemented

    def _reduce_tensor(self, obj):
        plain = _plain(obj) if type(obj) is not Tensor else obj
        state = dict(obj.__dict__) if getattr(obj, "__dict__", None) else None
        if _is_parameter(obj):
            args = (plain, obj.requires_grad, collections.OrderedDict())
            if state:
                return (_TORCH_NAMES["torch._utils._rebuild_parameter_with_state"], (*args, state))
            return (_TORCH_NAMES["torch._utils._rebuild_parameter"], args)
        ident = (plain._storage_id(), _dtype_name(plain.dtype))
        ref = self.storages.get(ident)
        if ref is None:
            ref = self.storages[ident] = _StorageRef(str(len(self.storages)), plain)
        rebuild = _TORCH_NAMES["torch._utils._rebuild_tensor_v2"]
        args = (ref, plain.storage_offset(), tuple(plain.shape), plain.stride(), obj.requires_grad,
                collections.OrderedDict())
        if type(obj) is not Tensor or state:
            new_type = _TORCH_NAMES["torch.Tensor"] if type(obj) is Tensor else type(obj)
            return (_TORCH_NAMES["torch._tensor._rebuild_from_type_v2"], (rebuild, new_type, args, state or {}))
        return (rebuild, args)


def _zip_info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    return info


def _write_storage(zf: zipfile.ZipFile, name: str, ref: _StorageRef) -> None:
    arr = _to_array(_flat_storage(ref.tensor))
    nbytes = arr.nbytes
    zip64 = nbytes > (1 << 30)
    info = _zip_info(name)
    # pad the local header with an extra field (id "FB", as PyTorch's writer) so that the data
    # starts on a multiple of the alignment: a 30-byte fixed header, the name, our field, zipfile's zip64 field
    header = 30 + len(name.encode()) + 4 + (20 if zip64 else 0)
    pad = -(zf.fp.tell() + header) % _STORAGE_ALIGNMENT
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad
    with zf.open(info, "w", force_zip64=zip64) as w:
        if nbytes:
            w.write(memoryview(arr).cast("B"))


def _write_record(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    zf.writestr(_zip_info(name), data)


def _write_archive(obj, fh: IO[bytes], protocol: int, byteorder_record: bool) -> None:
    buf = io.BytesIO()
    pickler = _Pickler(buf, protocol)
    pickler.dump(obj)
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_record(zf, f"{_ARCHIVE}/data.pkl", buf.getvalue())
        _write_record(zf, f"{_ARCHIVE}/.format_version", b"1")
        _write_record(zf, f"{_ARCHIVE}/.storage_alignment", str(_STORAGE_ALIGNMENT).encode())
        if byteorder_record:  # without it, load reads the storages as little-endian
            _write_record(zf, f"{_ARCHIVE}/byteorder", sys.byteorder.encode())
        for ref in pickler.storages.values():
            _write_storage(zf, f"{_ARCHIVE}/data/{ref.key}", ref)
        _write_record(zf, f"{_ARCHIVE}/version", b"3\n")


def _new_file_mode() -> int:
    try:
        with open("/proc/self/status") as s:
            for line in s:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _atomic_write(path, write) -> None:
    """Writes via a temporary file in the same directory, fsynced, then os.replace'd over `path`."""
    path = os.fsdecode(os.fspath(path))
    if os.path.islink(path):
        path = os.path.realpath(path)  # replace the link's target, not the link
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {directory} does not exist.")
    if os.path.isdir(path):
        raise IsADirectoryError(f"torchlite.save: {path!r} is a directory")
    mode = os.stat(path).st_mode & 0o7777 if os.path.exists(path) else _new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def save(obj, f, pickle_module=pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Saves `obj` (tensors, containers of them, state dicts, ...) to a path or a binary file object,
    in PyTorch's checkpoint format (torch.load reads it).

    Writing to a path is atomic: a crash mid-save leaves any existing file untouched.
    """
    if pickle_module is not pickle:
        raise ValueError("torchlite.save supports only the standard pickle module")
    if not _use_new_zipfile_serialization:
        raise ValueError("torchlite.save writes only PyTorch's zip format, not its legacy one "
                         "(_use_new_zipfile_serialization=False)")
    if not isinstance(pickle_protocol, int) or isinstance(pickle_protocol, bool) or pickle_protocol < 2:
        raise ValueError(f"torchlite.save: pickle_protocol must be an int >= 2, got {pickle_protocol!r}")
    if pickle_protocol > pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"torchlite.save: pickle_protocol {pickle_protocol} is above the highest supported "
                         f"({pickle.HIGHEST_PROTOCOL})")
    if isinstance(f, (str, bytes, os.PathLike)):
        _atomic_write(f, lambda fh: _write_archive(obj, fh, pickle_protocol, not _disable_byteorder_record))
    elif hasattr(f, "write"):
        _write_archive(obj, f, pickle_protocol, not _disable_byteorder_record)
        if hasattr(f, "flush"):
            f.flush()
    else:
        raise TypeError(f"torchlite.save: f must be a path (str or os.PathLike) or a writable binary file object, "
                        f"got {type(f).__name__}")


# ---------------------------------------------------------------------------------------------
# load


def _device_of(location) -> Any:
    try:
        return _C.device(str(location))
    except Exception as e:
        raise RuntimeError(f"torchlite.load: invalid storage location {location!r}: {e}") from None


def _default_restore(storage: Tensor, location) -> Tensor:
    dev = _device_of(location)
    if dev.type == "cpu":
        return storage
    if dev.type == "cuda":
        import torchlite.cuda

        if not torchlite.cuda.is_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torchlite.cuda.is_available() is False. "
                "If you are running on a CPU-only machine, please use torchlite.load with "
                "map_location=torchlite.device('cpu') to map your storages to the CPU."
            )
    return storage.to(dev)


def _restore_fn(map_location):
    if map_location is None:
        return _default_restore
    if isinstance(map_location, (str, _C.device)):
        target = str(_device_of(map_location))
        return lambda s, loc: _default_restore(s, target)
    if isinstance(map_location, dict):
        table = {str(k): str(v) for k, v in map_location.items()}
        return lambda s, loc: _default_restore(s, table.get(loc, loc))
    if callable(map_location):
        def restore(s, loc):
            r = map_location(s, loc)
            if r is None:
                return _default_restore(s, loc)
            if not isinstance(r, Tensor):
                raise TypeError(f"torchlite.load: map_location callable must return a storage (tensor) or None, "
                                f"got {type(r).__name__}")
            return r
        return restore
    raise TypeError(f"torchlite.load: map_location must be None, a str, a torchlite.device, a dict or a callable, "
                    f"got {type(map_location).__name__}")


class _Loader:
    """Reads the storage records that data.pkl's persistent ids name."""

    def __init__(self, zf: zipfile.ZipFile, prefix: str, map_location, byteorder: str, mmap_path):
        self.zf = zf
        self.prefix = prefix
        self.restore = _restore_fn(map_location)
        self.order = "<" if byteorder == "little" else ">"
        self.mmap_path = mmap_path
        self.storages: dict[str, Tensor] = {}

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r} in data.pkl")
        _, storage_type, key, location, numel = pid
        cached = self.storages.get(key)
        if cached is not None:
            return cached
        if type(storage_type) is not _StorageType or not isinstance(key, str) or not isinstance(numel, int) \
                or numel < 0:
            raise pickle.UnpicklingError(f"malformed storage record {pid!r} in data.pkl")
        dtype_name = storage_type.dtype_name
        name = f"{self.prefix}data/{key}"
        code = _NP_TYPES[dtype_name]
        npdt = np.dtype(code if code == "b1" else self.order + code)
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            raise RuntimeError(f"torchlite.load: the file has no record {name!r} (truncated or corrupted)") from None
        if info.file_size != numel * npdt.itemsize:
            raise RuntimeError(f"torchlite.load: record {name!r} holds {info.file_size} bytes, expected "
                               f"{numel * npdt.itemsize} ({numel} x {dtype_name}); the file is corrupted")
        arr = self._mapped(info, npdt, numel) if self.mmap_path is not None else None
        if arr is None:
            arr = self._read(info, npdt, numel)
        if not npdt.isnative:
            arr = arr.astype(npdt.newbyteorder("="))
        storage = self.restore(_from_array(arr, dtype_name), location)
        self.storages[key] = storage
        return storage

    def _read(self, info: zipfile.ZipInfo, npdt, numel) -> np.ndarray:
        arr = np.empty(numel, dtype=npdt)
        try:
            with self.zf.open(info) as r:
                view = memoryview(arr).cast("B")
                got = 0
                while got < len(view):
                    n = r.readinto(view[got:])
                    if not n:
                        break
                    got += n
        except zipfile.BadZipFile as e:
            raise RuntimeError(f"torchlite.load: record {info.filename!r} is corrupted: {e}") from None
        if got != len(view):
            raise RuntimeError(f"torchlite.load: record {info.filename!r} is truncated")
        return arr

    def _mapped(self, info: zipfile.ZipInfo, npdt, numel) -> np.ndarray | None:
        """The record mapped copy-on-write from the file (as PyTorch's mmap=True: writes stay private),
        or None where it cannot be (compressed, empty, or not aligned for its dtype)."""
        if info.compress_type != zipfile.ZIP_STORED or numel == 0:
            return None
        self.zf.fp.seek(info.header_offset + 26)
        name_len, extra_len = struct.unpack("<HH", self.zf.fp.read(4))
        offset = info.header_offset + 30 + name_len + extra_len
        if offset % npdt.itemsize:
            return None
        return np.memmap(self.mmap_path, dtype=npdt, mode="c", offset=offset, shape=(numel,))


class _WeightsOnlyUnpickler(pickle.Unpickler):
    def __init__(self, file, loader: _Loader, **pickle_load_args):
        super().__init__(file, encoding=pickle_load_args.get("encoding", "utf-8"))
        self._loader = loader

    def persistent_load(self, pid):
        return self._loader.persistent_load(pid)

    def find_class(self, module, name):
        module, name = _python3_name(module, name)
        _torch_dtype_check(module, name)
        return _weights_only_global(module, name)


def _full_unpickler(pickle_module):
    """An Unpickler of `pickle_module` that reads PyTorch's globals as torchlite's (any other global
    is imported: weights_only=False runs whatever the file names)."""

    class _FullUnpickler(pickle_module.Unpickler):
        def __init__(self, file, loader: _Loader, **pickle_load_args):
            super().__init__(file, **pickle_load_args)
            self._loader = loader

        def persistent_load(self, pid):
            return self._loader.persistent_load(pid)

        def find_class(self, module, name):
            py3_module, py3_name = _python3_name(module, name)
            _torch_dtype_check(py3_module, py3_name)
            full = f"{py3_module}.{py3_name}"
            if full in _torch_globals():
                return _torch_globals()[full]
            return super().find_class(module, name)

    return _FullUnpickler


def _not_ours(desc: str, head: bytes) -> RuntimeError:
    if not head:
        why = "the file is empty (0 bytes)"
    elif head.startswith(b"PK\x03\x04"):
        why = "it is a truncated or corrupted zip archive (the central directory at its end is missing)"
    elif head.startswith(_LEGACY_MAGIC):
        why = ("it is in PyTorch's legacy format (torch.save(..., _use_new_zipfile_serialization=False), or "
               "PyTorch < 1.6), which torchlite does not read: load it with PyTorch and save it again with "
               "torch.save's default format")
    elif len(head) > 1 and head[0] == 0x80 and 2 <= head[1] <= 5:
        why = "it is a plain pickle, not a checkpoint written by torch.save or torchlite.save"
    else:
        why = "it is not a zip archive (a corrupted file, or one written by another program)"
    return RuntimeError(f"torchlite.load: {desc} is not a checkpoint torchlite can read: {why}")


def _find_prefix(zf: zipfile.ZipFile, desc: str) -> str:
    names = zf.namelist()
    pkl = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
    if not pkl:
        raise RuntimeError(f"torchlite.load: {desc} is a zip archive without a data.pkl record: "
                           f"not a checkpoint written by torch.save or torchlite.save")
    prefix = pkl[0][: -len("data.pkl")]
    if prefix + "constants.pkl" in names:
        raise RuntimeError(f"torchlite.load: {desc} is a TorchScript archive (torch.jit.save), which torchlite "
                           f"does not read")
    return prefix


def _read_text(zf: zipfile.ZipFile, name: str, default: str) -> str:
    try:
        return zf.read(name).decode("ascii", "replace").strip()
    except KeyError:
        return default


def _read_data_pkl(zf: zipfile.ZipFile, prefix: str, desc: str) -> bytes:
    try:
        return zf.read(prefix + "data.pkl")
    except zipfile.BadZipFile as e:
        raise RuntimeError(f"torchlite.load: record data.pkl of {desc} is corrupted: {e}") from None


def _open_zip(fh, desc: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(fh)
    except zipfile.BadZipFile as e:
        raise RuntimeError(f"torchlite.load: {desc} is a corrupted zip archive: {e}") from None


def _load_zip(fh, desc: str, map_location, weights_only: bool, pickle_module, mmap_path, pickle_load_args):
    with _open_zip(fh, desc) as zf:
        prefix = _find_prefix(zf, desc)
        byteorder = _read_text(zf, prefix + "byteorder", "little")
        if byteorder not in ("little", "big"):
            raise RuntimeError(f"torchlite.load: {desc} has a malformed byteorder record {byteorder!r}")
        data = _read_data_pkl(zf, prefix, desc)
        loader = _Loader(zf, prefix, map_location, byteorder, mmap_path)
        cls = _WeightsOnlyUnpickler if weights_only else _full_unpickler(pickle_module)
        try:
            return cls(io.BytesIO(data), loader, **pickle_load_args).load()
        except EOFError:
            raise pickle.UnpicklingError(f"torchlite.load: data.pkl of {desc} is truncated") from None
        except pickle.UnpicklingError as e:
            if not weights_only:
                raise
            raise pickle.UnpicklingError(_weights_only_message(str(e))) from None


_TRUE_VALUES = ("1", "y", "yes", "true")


def _resolve_weights_only(weights_only, pickle_module) -> bool:
    """PyTorch's rules: the default is True unless a pickle_module is given; the environment
    variables TORCH_FORCE_WEIGHTS_ONLY_LOAD (always wins) and TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD
    (only when the caller did not pass weights_only) override it."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force:
        return True
    if force_no and not_set:
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the `weights_only` "
                      "argument was not explicitly passed to `torchlite.load`, forcing weights_only=False.",
                      UserWarning, stacklevel=3)
        return False
    return bool(weights_only)


def _load_safetensors(path: str, map_location):
    """torch.load reads a .safetensors path through the safetensors package: so does torchlite.load."""
    if map_location is not None and not isinstance(map_location, (str, _C.device)):
        raise RuntimeError(f"Loading safetensors file with {type(map_location).__name__} map_location is not "
                           f"supported. Use a device string or torchlite.device instead.")
    try:
        from torchlite import safetensors as st  # noqa: PLC0415  (needs the optional safetensors package)
    except ImportError as e:
        raise RuntimeError("Attempting to load a safetensors file but safetensors is not installed. Please install "
                           "it with: pip install safetensors") from e
    return st.load_file(path, device=str(map_location) if map_location is not None else "cpu")


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args: Any) -> Any:
    """Loads an object saved by torchlite.save or PyTorch's torch.save from a path or a binary file object.

    weights_only (default True) refuses any global outside PyTorch's allowlist (containers,
    tensors, dtypes, devices, Size, Parameter, plus add_safe_globals), so loading an untrusted file
    cannot run code. map_location: None (where saved), 'cpu', a torchlite.device, a dict mapping
    saved locations to new ones ({'cuda:0': 'cpu'}), or a callable (storage, location) -> storage
    or None. mmap=True (f a path) maps the storages from the file copy-on-write instead of reading them.
    """
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    _restore_fn(map_location)  # validates it before any file access
    is_path = isinstance(f, (str, bytes, os.PathLike))
    if mmap and not is_path:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if is_path and os.fsdecode(os.fspath(f)).endswith(".safetensors"):
        return _load_safetensors(os.fsdecode(os.fspath(f)), map_location)
    desc = _describe(f)
    args = (map_location, weights_only, pickle_module or pickle, pickle_load_args)
    if is_path:
        with open(f, "rb") as fh:
            return _load_file(fh, desc, *args, mmap_path=os.fspath(f) if mmap else None)
    if not hasattr(f, "read"):
        raise TypeError(f"torchlite.load: f must be a path (str or os.PathLike) or a readable binary file object, "
                        f"got {type(f).__name__}")
    return _load_file(f, desc, *args, mmap_path=None)


def _open_checkpoint(fh, desc):
    """`fh` seekable and at the start of a zip archive (else a clear error naming what it is)."""
    seekable = getattr(fh, "seekable", lambda: False)()
    if not seekable:
        fh = io.BytesIO(fh.read())
    start = fh.tell()
    head = fh.read(len(_LEGACY_MAGIC))
    if isinstance(head, str):
        raise TypeError("torchlite.load: the file object must be opened in binary mode ('rb')")
    fh.seek(start)
    if not head or not zipfile.is_zipfile(fh):
        raise _not_ours(desc, head)
    fh.seek(start)
    return fh


def _load_file(fh, desc, map_location, weights_only, pickle_module, pickle_load_args, mmap_path):
    fh = _open_checkpoint(fh, desc)
    return _load_zip(fh, desc, map_location, weights_only, pickle_module, mmap_path, pickle_load_args)


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals ("module.name") a checkpoint names that weights_only loading would refuse: neither
    allowlisted by default nor added with add_safe_globals. Read statically from data.pkl: nothing runs."""
    desc = _describe(f)
    with contextlib.ExitStack() as stack:
        fh = stack.enter_context(open(f, "rb")) if isinstance(f, (str, bytes, os.PathLike)) else f
        zf = stack.enter_context(_open_zip(_open_checkpoint(fh, desc), desc))
        data = _read_data_pkl(zf, _find_prefix(zf, desc), desc)
    safe = {**_torch_globals(), **_PYTHON_SAFE_GLOBALS, **_user_safe_globals()}
    found = set()
    for op, arg, _ in pickletools.genops(data):
        if op.name in ("GLOBAL", "INST"):
            module, name = _python3_name(*arg.split(" ", 1))
            found.add(f"{module}.{name}")
    return sorted(g for g in found if g not in safe or g.rpartition(".")[0] in _BLOCKED_MODULES)

"""torchlite.save / torchlite.load, and pickling of tensors.

File format (a zip archive, stored uncompressed, like PyTorch's in spirit but not byte-compatible):

    archive/torchlite_format    b"1\\n": the format version; marks the file as ours
    archive/byteorder           b"little" or b"big": byte order of the storage records
    archive/data.pkl            the pickled object; every tensor is a call
                                _rebuild_tensor(storage, offset, size, stride, requires_grad)
                                whose storage is a persistent id ("storage", key, dtype, location,
                                numel) naming the record below
    archive/data/<key>          the raw bytes of one storage (bfloat16: its 16-bit patterns)

Note [Shared storages]: tensors that are views of one storage (same storage identity, from
Tensor._storage_id()) refer to one storage record, written once. On load each record becomes one
flat 1-D tensor and every tensor is rebuilt with as_strided over it, so views saved together stay
views of one (new) storage after load: writing through one is visible in the others. The same
tensor object saved twice loads as one object (pickle's memo).

Loading with weights_only=True (the default) uses an Unpickler whose find_class only admits an
allowlist (containers, torchlite dtypes/devices/Size, the rebuild functions here, and whatever
add_safe_globals registered); anything else raises pickle.UnpicklingError naming the global, and
nothing from the file runs.

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
import sys
import tempfile
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
    "DEFAULT_PROTOCOL",
]

FORMAT_VERSION = 1
DEFAULT_PROTOCOL = 2  # PyTorch's; protocol 2 already pickles everything a checkpoint holds
_ARCHIVE = "archive"
_FORMAT_RECORD = "torchlite_format"

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
            return np.ascontiguousarray(bits.astype(np.uint16))
        return np.ascontiguousarray(t.numpy())


def _from_array(arr: np.ndarray, dtype_name: str) -> Tensor:
    """Inverse of _to_array: a CPU tensor of dtype `dtype_name` owning (or viewing) `arr`."""
    if dtype_name == "bfloat16":
        f32 = (arr.astype(np.uint32) << 16).view(np.float32)
        return _C.from_numpy(np.ascontiguousarray(f32)).to(_C.bfloat16)
    if not arr.flags.writeable or not arr.flags.c_contiguous or not arr.dtype.isnative:
        arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))
        if not arr.flags.writeable:
            arr = arr.copy()
    return _C.from_numpy(arr)


# ---------------------------------------------------------------------------------------------
# Rebuild functions (referenced by name from pickles; all are on the weights_only allowlist)


def _check_int_tuple(what, v, allow_negative=False):
    if not isinstance(v, (tuple, list)) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise pickle.UnpicklingError(f"malformed tensor record: {what} must be a tuple of ints, got {v!r}")
    if not allow_negative and any(x < 0 for x in v):
        raise pickle.UnpicklingError(f"malformed tensor record: negative {what} {tuple(v)}")
    return tuple(v)


def _rebuild_tensor(storage, storage_offset, size, stride, requires_grad=False, *_unused):
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
        t = storage.as_strided(size, stride, storage_offset)  # checks the bounds of the storage
    if requires_grad:
        t.requires_grad_(True)
    return t


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


def _rebuild_parameter(data, requires_grad=True, *_unused):
    """Hook point for nn.Parameter: saved as (_rebuild_parameter, (plain tensor, requires_grad))."""
    cls = _parameter_class()
    if cls is None:
        raise RuntimeError("this file holds nn.Parameter objects but torchlite.nn.Parameter is not available")
    return cls(data, requires_grad)


def _rebuild_subclass(cls, data, requires_grad, state):
    """Tensor subclasses other than Parameter (weights_only=False, or cls added to the safe globals)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise pickle.UnpicklingError(f"malformed tensor record: {cls!r} is not a Tensor subclass")
    obj = cls(data) if cls is not Tensor else data
    if requires_grad and not obj.requires_grad:
        obj.requires_grad_(True)
    if state:
        obj.__dict__.update(state)
    return obj


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
# Safe globals for weights_only loading

_USER_SAFE_GLOBALS: dict[tuple[str, str], Any] = {}


def _latin1_bytes(text: str, encoding: str) -> bytes:
    """What protocol 2 pickles `bytes` as: _codecs.encode(text, "latin1"). Only that encoding is
    let through, so a weights-only file cannot reach the other codecs."""
    if encoding != "latin1":
        raise pickle.UnpicklingError(f"Weights only load failed: _codecs.encode with encoding {encoding!r}")
    return text.encode("latin1")


def _builtin_safe_globals() -> dict[tuple[str, str], Any]:
    g: dict[tuple[str, str], Any] = {
        ("_codecs", "encode"): _latin1_bytes,
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("builtins", "set"): set,
        ("builtins", "frozenset"): frozenset,
        ("builtins", "complex"): complex,
        ("builtins", "bytearray"): bytearray,
        ("builtins", "slice"): slice,
        ("builtins", "range"): range,
        ("torchlite._size", "Size"): Size,
        ("torchlite._C", "device"): _C.device,
        ("torchlite._C", "Size"): Size,
    }
    for fn in (_rebuild_tensor, _rebuild_parameter, _rebuild_from_array):
        g[(__name__, fn.__name__)] = fn
    for name in dir(_C):  # dtypes, layouts, memory formats pickle as globals of torchlite._C
        obj = getattr(_C, name)
        if isinstance(obj, (_C.dtype, _C.layout, _C.memory_format)):
            g[("torchlite._C", name)] = obj
    return g


_BUILTIN_SAFE_GLOBALS = _builtin_safe_globals()


def _global_key(obj) -> tuple[str, str]:
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[1], str):
        module, _, name = obj[1].rpartition(".")
        return module, name
    return obj.__module__, getattr(obj, "__qualname__", obj.__name__)


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes/functions in weights_only loading (items: objects, or (obj, "module.name"))."""
    for item in safe_globals:
        obj = item[0] if isinstance(item, tuple) else item
        _USER_SAFE_GLOBALS[_global_key(item)] = obj


def get_safe_globals() -> list:
    return list(_USER_SAFE_GLOBALS.values())


def clear_safe_globals() -> None:
    _USER_SAFE_GLOBALS.clear()


class safe_globals:  # noqa: N801  (PyTorch's name)
    """Context manager: the given globals are allowed for weights_only loading inside the block."""

    def __init__(self, safe_globals: list):
        self._globals = safe_globals
        self._saved: dict = {}

    def __enter__(self):
        self._saved = dict(_USER_SAFE_GLOBALS)
        add_safe_globals(self._globals)

    def __exit__(self, *exc):
        _USER_SAFE_GLOBALS.clear()
        _USER_SAFE_GLOBALS.update(self._saved)


# ---------------------------------------------------------------------------------------------
# save


class _StorageRef:
    """Placeholder for one storage in data.pkl; becomes a persistent id."""

    __slots__ = ("key", "dtype_name", "location", "numel", "tensor")

    def __init__(self, key, tensor):
        self.key = key
        self.dtype_name = _dtype_name(tensor.dtype)
        self.location = str(tensor.device)
        self.numel = tensor._storage_nbytes() // tensor.element_size()
        self.tensor = tensor  # keeps the storage (and its id) alive until it is written


class _Pickler(pickle.Pickler):
    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages: dict[tuple[int, str], _StorageRef] = {}

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            return ("storage", obj.key, obj.dtype_name, obj.location, obj.numel)
        return None

    def reducer_override(self, obj):
        if not isinstance(obj, Tensor):
            return NotImplemented
        if type(obj) is not Tensor:
            if _is_parameter(obj):
                return (_rebuild_parameter, (_plain(obj), obj.requires_grad))
            state = dict(obj.__dict__) if getattr(obj, "__dict__", None) else None
            return (_rebuild_subclass, (type(obj), _plain(obj), obj.requires_grad, state))
        ident = (obj._storage_id(), _dtype_name(obj.dtype))
        ref = self.storages.get(ident)
        if ref is None:
            ref = self.storages[ident] = _StorageRef(str(len(self.storages)), obj)
        args = (ref, obj.storage_offset(), tuple(obj.shape), obj.stride(), obj.requires_grad)
        state = dict(obj.__dict__) if getattr(obj, "__dict__", None) else None
        return (_rebuild_tensor, args, state) if state else (_rebuild_tensor, args)


def _write_storage(zf: zipfile.ZipFile, name: str, ref: _StorageRef) -> None:
    arr = _to_array(_flat_storage(ref.tensor))
    nbytes = arr.nbytes
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    with zf.open(info, "w", force_zip64=nbytes > (1 << 30)) as w:
        if nbytes:
            w.write(memoryview(arr).cast("B"))


def _write_record(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    zf.writestr(info, data)


def _write_archive(obj, fh: IO[bytes], protocol: int, byteorder_record: bool) -> None:
    buf = io.BytesIO()
    pickler = _Pickler(buf, protocol)
    pickler.dump(obj)
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_record(zf, f"{_ARCHIVE}/{_FORMAT_RECORD}", f"{FORMAT_VERSION}\n".encode())
        if byteorder_record:  # without it, load reads the storages as little-endian
            _write_record(zf, f"{_ARCHIVE}/byteorder", sys.byteorder.encode())
        _write_record(zf, f"{_ARCHIVE}/data.pkl", buf.getvalue())
        for ref in pickler.storages.values():
            _write_storage(zf, f"{_ARCHIVE}/data/{ref.key}", ref)


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
    """Saves `obj` (tensors, containers of them, state dicts, ...) to a path or a binary file object.

    Writing to a path is atomic: a crash mid-save leaves any existing file untouched.
    """
    if pickle_module is not pickle:
        raise ValueError("torchlite.save supports only the standard pickle module")
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
    def __init__(self, zf: zipfile.ZipFile, prefix: str, map_location, byteorder: str):
        self.zf = zf
        self.prefix = prefix
        self.restore = _restore_fn(map_location)
        self.order = "<" if byteorder == "little" else ">"
        self.storages: dict[str, Tensor] = {}

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r} in data.pkl")
        _, key, dtype_name, location, numel = pid
        cached = self.storages.get(key)
        if cached is not None:
            return cached
        if dtype_name not in _DTYPES or not isinstance(key, str) or not isinstance(numel, int) or numel < 0:
            raise pickle.UnpicklingError(f"malformed storage record {pid!r} in data.pkl")
        name = f"{self.prefix}data/{key}"
        npdt = np.dtype(self.order + _NP_TYPES[dtype_name] if _NP_TYPES[dtype_name] != "b1" else "b1")
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            raise RuntimeError(f"torchlite.load: the file has no record {name!r} (truncated or corrupted)") from None
        if info.file_size != numel * npdt.itemsize:
            raise RuntimeError(f"torchlite.load: record {name!r} holds {info.file_size} bytes, expected "
                               f"{numel * npdt.itemsize} ({numel} x {dtype_name}); the file is corrupted")
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
            raise RuntimeError(f"torchlite.load: record {name!r} is corrupted: {e}") from None
        if got != len(view):
            raise RuntimeError(f"torchlite.load: record {name!r} is truncated")
        if not npdt.isnative:
            arr = arr.astype(npdt.newbyteorder("="))
        storage = self.restore(_from_array(arr, dtype_name), location)
        self.storages[key] = storage
        return storage


class _WeightsOnlyUnpickler(pickle.Unpickler):
    def __init__(self, file, loader: _Loader):
        super().__init__(file)
        self._loader = loader

    def persistent_load(self, pid):
        return self._loader.persistent_load(pid)

    def find_class(self, module, name):
        # protocol 2 (PyTorch's and our default) writes Python 2 names (__builtin__.set), which no
        # Python 3 pickle uses: map them as pickle's own find_class does
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        else:
            module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        key = (module, name)
        obj = _BUILTIN_SAFE_GLOBALS.get(key)
        if obj is None:
            obj = _USER_SAFE_GLOBALS.get(key)
        if obj is None:
            raise pickle.UnpicklingError(
                f"Weights only load failed: unsupported global {module}.{name}. torchlite.load(weights_only=True) "
                f"only loads tensors, containers and Python scalars. If you trust the source of this file, load it "
                f"with weights_only=False (which can run arbitrary code), or allow the global with "
                f"torchlite.serialization.add_safe_globals([{name}])."
            )
        return obj


class _FullUnpickler(pickle.Unpickler):
    def __init__(self, file, loader: _Loader):
        super().__init__(file)
        self._loader = loader

    def persistent_load(self, pid):
        return self._loader.persistent_load(pid)


def _not_ours(desc: str, head: bytes) -> RuntimeError:
    if not head:
        why = "the file is empty (0 bytes)"
    elif head.startswith(b"PK\x03\x04"):
        why = "it is a truncated or corrupted zip archive (the central directory at its end is missing)"
    elif len(head) > 1 and head[0] == 0x80 and 2 <= head[1] <= 5:
        why = "it is a plain pickle, not a checkpoint written by torchlite.save"
    else:
        why = "it is not a zip archive (a corrupted file, or one written by another program)"
    return RuntimeError(f"torchlite.load: {desc} is not a torchlite checkpoint: {why}")


def _find_prefix(zf: zipfile.ZipFile, desc: str) -> str:
    names = zf.namelist()
    pkl = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
    if not pkl:
        raise RuntimeError(f"torchlite.load: {desc} is a zip archive without a data.pkl record: "
                           f"not a torchlite checkpoint")
    prefix = pkl[0][: -len("data.pkl")]
    if prefix + _FORMAT_RECORD not in names:
        raise RuntimeError(f"torchlite.load: {desc} was not written by torchlite.save (it has no "
                           f"{_FORMAT_RECORD!r} record; PyTorch's torch.save format is not supported)")
    return prefix


def _read_text(zf: zipfile.ZipFile, name: str, default: str) -> str:
    try:
        return zf.read(name).decode("ascii", "replace").strip()
    except KeyError:
        return default


def _load_zip(fh, desc: str, map_location, weights_only: bool):
    try:
        zf = zipfile.ZipFile(fh)
    except zipfile.BadZipFile as e:
        raise RuntimeError(f"torchlite.load: {desc} is a corrupted zip archive: {e}") from None
    with zf:
        prefix = _find_prefix(zf, desc)
        version = _read_text(zf, prefix + _FORMAT_RECORD, "")
        if not version.isdigit():
            raise RuntimeError(f"torchlite.load: {desc} has a malformed format record {version!r}")
        if int(version) > FORMAT_VERSION:
            raise RuntimeError(f"torchlite.load: {desc} was written by a newer torchlite (format version {version}; "
                               f"this version reads up to {FORMAT_VERSION})")
        byteorder = _read_text(zf, prefix + "byteorder", "little")
        if byteorder not in ("little", "big"):
            raise RuntimeError(f"torchlite.load: {desc} has a malformed byteorder record {byteorder!r}")
        try:
            data = zf.read(prefix + "data.pkl")
        except zipfile.BadZipFile as e:
            raise RuntimeError(f"torchlite.load: record data.pkl of {desc} is corrupted: {e}") from None
        loader = _Loader(zf, prefix, map_location, byteorder)
        cls = _WeightsOnlyUnpickler if weights_only else _FullUnpickler
        try:
            return cls(io.BytesIO(data), loader).load()
        except EOFError:
            raise pickle.UnpicklingError(f"torchlite.load: data.pkl of {desc} is truncated") from None


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap=None,
         **pickle_load_args):
    """Loads an object saved by torchlite.save from a path or a binary file object.

    weights_only (default True) refuses any global outside a small allowlist (containers, tensors,
    dtypes, devices, Size, Parameter, plus add_safe_globals), so loading an untrusted file cannot
    run code. map_location: None (where saved), 'cpu', a torchlite.device, a dict mapping saved
    locations to new ones ({'cuda:0': 'cpu'}), or a callable (storage, location) -> storage or None.
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("torchlite.load supports only the standard pickle module")
    if pickle_load_args:
        raise TypeError(f"torchlite.load got unexpected keyword arguments {sorted(pickle_load_args)}")
    if weights_only is None:
        weights_only = True
    if mmap:
        raise ValueError("torchlite.load: mmap=True is not supported")
    _restore_fn(map_location)  # validates it before any file access
    desc = _describe(f)
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "rb") as fh:
            return _load_file(fh, desc, map_location, weights_only)
    if not hasattr(f, "read"):
        raise TypeError(f"torchlite.load: f must be a path (str or os.PathLike) or a readable binary file object, "
                        f"got {type(f).__name__}")
    return _load_file(f, desc, map_location, weights_only)


def _load_file(fh, desc, map_location, weights_only):
    seekable = getattr(fh, "seekable", lambda: False)()
    if not seekable:
        fh = io.BytesIO(fh.read())
    start = fh.tell()
    head = fh.read(8)
    if isinstance(head, str):
        raise TypeError("torchlite.load: the file object must be opened in binary mode ('rb')")
    fh.seek(start)
    if not head or not zipfile.is_zipfile(fh):
        raise _not_ours(desc, head)
    fh.seek(start)
    return _load_zip(fh, desc, map_location, weights_only)


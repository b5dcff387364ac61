"""safetensors files for torchlite tensors: the API of `safetensors.torch` (save_file, load_file,
save, load), written and read through the `safetensors` package (pip install torchlite[safetensors]).

A .safetensors file is a JSON header (names, dtypes, shapes, byte ranges, optional str->str
metadata) followed by the raw little-endian bytes of each tensor: no pickle, so nothing in it can
run code. The package's NumPy front end has no bfloat16, so tensors go to and from its raw
serialize / deserialize calls, with the bytes of torchlite's NumPy views (bfloat16 as its bits).
"""

from __future__ import annotations

import os

import numpy as np
import safetensors

from torchlite import _C
from torchlite.serialization import _atomic_write, _dtype_name, _from_array, _to_array

__all__ = ["save", "save_file", "load", "load_file"]

# safetensors' dtype codes of the dtypes torchlite has (its format has no complex128)
_DTYPE_OF_CODE = {
    "BOOL": "bool",
    "U8": "uint8",
    "I8": "int8",
    "I16": "int16",
    "I32": "int32",
    "I64": "int64",
    "F16": "float16",
    "BF16": "bfloat16",
    "F32": "float32",
    "F64": "float64",
    "C64": "complex64",
}
_NUMPY_TYPE = {"bfloat16": np.uint16, "bool": np.bool_}


def _byte_span(t) -> tuple[int, int]:
    """The bytes of its storage that a non-empty `t` reaches: [first, last + 1)."""
    size = t.element_size()
    last = t.storage_offset() + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
    return t.storage_offset() * size, (last + 1) * size


def _check_tensors(tensors) -> None:
    """safetensors.torch's rules: a dict of str -> dense tensors, none overlapping another's memory."""
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torchlite.Tensor] but received {type(tensors)}")
    by_storage: dict[int, list[tuple[int, int, str]]] = {}
    for k, v in tensors.items():
        if not isinstance(v, _C.Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torchlite.Tensor but received {type(v)}")
        if v.numel():
            by_storage.setdefault(v._storage_id(), []).append((*_byte_span(v), k))
    failing = []
    for spans in by_storage.values():
        spans.sort()
        group = [spans[0][2]]
        end = spans[0][1]
        for start, stop, k in spans[1:]:
            if start < end:
                group.append(k)
            else:
                if len(group) > 1:
                    failing.append(group)
                group = [k]
            end = max(end, stop)
        if len(group) > 1:
            failing.append(group)
    if failing:
        raise RuntimeError(f"Some tensors share memory, this will lead to duplicate memory on disk and potential "
                           f"differences when loading them again: {failing}. Save clones (t.clone()) of all but one "
                           f"of each group.")
    for k, v in tensors.items():
        if _dtype_name(v.dtype) not in _DTYPE_OF_CODE.values():
            raise ValueError(f"Key `{k}`: the safetensors format has no dtype {v.dtype}")
        if not v.is_contiguous():
            raise ValueError(f"You are trying to save a non contiguous tensor: `{k}` which is not allowed. Call "
                             f"`.contiguous()` on it to pack it before saving.")


def _serialize(tensors, metadata) -> bytes:
    _check_tensors(tensors)
    arrays = []  # keeps every buffer alive while safetensors reads it through its pointer
    specs = {}
    for k, v in tensors.items():
        arr = _to_array(v)
        arr = np.asarray(arr, dtype=arr.dtype.newbyteorder("<"))  # the format is little-endian
        arrays.append(arr)
        specs[k] = safetensors.TensorSpec(dtype=_dtype_name(v.dtype), shape=list(v.shape),
                                          data_ptr=arr.ctypes.data, data_len=arr.nbytes)
    return bytes(safetensors.serialize(specs, metadata=metadata))


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    """The bytes of a .safetensors file holding `tensors` (dense, contiguous, not sharing memory)
    and the optional str -> str `metadata`."""
    return _serialize(tensors, metadata)


def save_file(tensors: dict, filename: str | os.PathLike, metadata: dict | None = None) -> None:
    """Writes `tensors` (and `metadata`) to the .safetensors file `filename`, atomically as torchlite.save."""
    data = _serialize(tensors, metadata)
    _atomic_write(filename, lambda fh: fh.write(data))


def load(data: bytes) -> dict:
    """The tensors of a .safetensors file given as bytes, on the CPU."""
    try:
        records = safetensors.deserialize(data)
    except Exception as e:  # the package's SafetensorError: a truncated or malformed file
        raise RuntimeError(f"torchlite.safetensors: not a valid safetensors file: {e}") from None
    out = {}
    for name, rec in records:
        dtype_name = _DTYPE_OF_CODE.get(rec["dtype"])
        if dtype_name is None:
            raise RuntimeError(f"torchlite.safetensors: tensor {name!r} has dtype {rec['dtype']}, which torchlite "
                               f"does not support")
        npdt = np.dtype(_NUMPY_TYPE.get(dtype_name, dtype_name)).newbyteorder("<")
        arr = np.frombuffer(rec["data"], dtype=npdt).reshape(rec["shape"])
        out[name] = _from_array(arr, dtype_name)
    return out


def load_file(filename: str | os.PathLike, device: str | int = "cpu") -> dict:
    """The tensors of the .safetensors file `filename`, on `device` (a device string, or a CUDA index)."""
    with open(filename, "rb") as fh:
        tensors = load(fh.read())
    dev = _C.device("cuda", device) if isinstance(device, int) else _C.device(device)
    if dev.type == "cpu":
        return tensors
    return {k: v.to(dev) for k, v in tensors.items()}

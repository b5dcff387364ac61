"""default_collate / default_convert: samples -> batches, following PyTorch's rules.

default_collate(batch) looks at the first element and recurses:
  Tensor                 -> torchlite.stack(batch)          (sizes must match)
  NumPy array            -> stack of tensors                (string/object arrays are refused)
  NumPy scalar           -> 1-D tensor of its dtype
  float / int / bool     -> float64 / int64 / bool tensor
  str / bytes            -> the list as is
  Mapping                -> same mapping type, each key collated
  namedtuple             -> same namedtuple, each field collated
  Sequence               -> list of the collated positions  (PyTorch returns tuples as lists too)
anything else is a TypeError naming the type.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, MutableMapping, Sequence

import numpy as np

import torchlite
from torchlite.utils.data._utils.worker import get_worker_info

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_float_fn", "collate_int_fn", "collate_str_fn"]

_np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _array_to_tensor(a: np.ndarray):
    """A tensor with `a`'s values (shares memory when NumPy's layout allows)."""
    if not a.flags.writeable or not a.dtype.isnative or any(s < 0 for s in a.strides):
        a = np.array(a, dtype=a.dtype.newbyteorder("="))
    return torchlite.from_numpy(a)


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def default_convert(data):
    """Converts NumPy arrays/scalars in `data` to tensors, recursing into containers; leaves the rest."""
    elem_type = type(data)
    if isinstance(data, torchlite.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_", "bytes_"):
        if elem_type.__name__ == "ndarray" and _np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data  # arrays of strings or objects stay as they are
        if isinstance(data, (np.ndarray, np.generic)):
            return _array_to_tensor(np.asarray(data))
        return data
    if isinstance(data, Mapping):
        try:
            if isinstance(data, MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if _is_namedtuple(data):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # PyTorch returns a list here too
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, list):
                return [default_convert(d) for d in data]
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map: dict[type | tuple[type, ...], Callable] | None = None):
    """The recursive collation behind default_collate; `collate_fn_map` maps types to collate functions."""
    if not isinstance(batch, Sequence) or isinstance(batch, (str, bytes)):
        batch = list(batch)
    if len(batch) == 0:
        raise ValueError("default_collate: got an empty batch")
    elem = batch[0]
    elem_type = type(elem)

    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type, fn in collate_fn_map.items():
            if isinstance(elem, collate_type):
                return fn(batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, Mapping):
        keys = set(elem)
        for i, d in enumerate(batch):
            if not isinstance(d, Mapping) or set(d) != keys:
                raise RuntimeError(f"default_collate: each dict in the batch should have the same keys; element {i} "
                                   f"has keys {sorted(map(str, d)) if isinstance(d, Mapping) else type(d).__name__}"
                                   f", element 0 has {sorted(map(str, keys))}")
        collated = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        try:
            if isinstance(elem, MutableMapping):
                clone = copy.copy(elem)
                clone.update(collated)
                return clone
            return elem_type(collated)
        except TypeError:
            return collated
    if _is_namedtuple(elem):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, Sequence):
        elem_size = len(elem)
        for i, e in enumerate(batch):
            if not isinstance(e, Sequence) or len(e) != elem_size:
                got = len(e) if isinstance(e, Sequence) else type(e).__name__
                raise RuntimeError(f"each element in list of batch should be of equal size "
                                   f"(element 0 has {elem_size} items, element {i} has {got})")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, list):
                return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def _check_all(batch, kind: type | tuple[type, ...], what: str):
    for i, x in enumerate(batch):
        if not isinstance(x, kind):
            raise TypeError(f"default_collate: element 0 of the batch is {what} but element {i} is "
                            f"{type(x).__name__}")


def collate_tensor_fn(batch, *, collate_fn_map=None):
    _check_all(batch, torchlite.Tensor, "a Tensor")
    elem = batch[0]
    if elem.is_cpu and get_worker_info() is not None:
        # in a worker: build the batch in shared memory, which the main process then maps
        out = torchlite._C._empty_shared([len(batch), *elem.shape], elem.dtype)
        return torchlite.stack(list(batch), 0, out=out)
    return torchlite.stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if _np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    _check_all(batch, np.ndarray, "a NumPy array")
    return collate([_array_to_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _array_to_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return torchlite.tensor(list(batch), dtype=torchlite.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    if all(isinstance(b, bool) for b in batch):
        return torchlite.tensor(list(batch), dtype=torchlite.bool)
    return torchlite.tensor(list(batch), dtype=torchlite.int64)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


def _collate_numpy_generic(batch, *, collate_fn_map=None):
    elem = batch[0]
    if isinstance(elem, np.ndarray):
        return collate_numpy_array_fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, (np.str_, np.bytes_)):
        return batch
    if isinstance(elem, np.generic):
        if _np_str_obj_array_pattern.search(np.asarray(elem).dtype.str) is not None:
            raise TypeError(default_collate_err_msg_format.format(type(elem)))
        return collate_numpy_scalar_fn(batch, collate_fn_map=collate_fn_map)
    raise TypeError(default_collate_err_msg_format.format(type(elem)))


# Order matters: NumPy types come before float/int (np.float64 is a float subclass).
default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    torchlite.Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    np.generic: _collate_numpy_generic,
    float: collate_float_fn,
    int: collate_int_fn,  # bool is an int subclass: all-bool batches give a bool tensor
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stacks a list of samples into a batch (see the module docstring for the rules)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


# PyTorch code sometimes imports these names from the collate module.
string_classes = (str, bytes)
np_str_obj_array_pattern = _np_str_obj_array_pattern

"""DataLoader(pin_memory=True): each batch is copied into page-locked host memory, so that the
training loop's `.to("cuda", non_blocking=True)` copies run asynchronously. Batches are walked
as default_collate builds them: tensors, mappings, named tuples, tuples and lists, and any
object with a pin_memory() method; anything else is passed through."""

from collections.abc import Mapping

from torchlite import Tensor


def pin_memory(data):
    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, str | bytes):
        return data
    if isinstance(data, Mapping):
        pinned = {k: pin_memory(v) for k, v in data.items()}
        try:
            return type(data)(pinned)
        except TypeError:  # a mapping type that cannot be built from a dict
            return pinned
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # named tuple
        return type(data)(*(pin_memory(v) for v in data))
    if isinstance(data, tuple | list):
        return type(data)(pin_memory(v) for v in data)
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data

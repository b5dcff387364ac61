"""torchlite.cuda: device queries and the caching allocator's statistics.

With no GPU (or a build without CUDA) is_available() is False and device_count() is 0;
creating a CUDA tensor then raises a RuntimeError that says why.
"""

from torchlite import _C

_cuda = _C._cuda


def is_available() -> bool:
    return _cuda.is_available()


def device_count() -> int:
    return _cuda.device_count()


def is_built() -> bool:
    """True when torchlite was compiled with CUDA kernels."""
    return _cuda.is_built()


def _index(device) -> int:
    if device is None:
        return _cuda.current_device() if is_available() else 0
    if isinstance(device, int):
        return device
    index = _C.device(str(device)).index if not isinstance(device, _C.device) else device.index
    return 0 if index is None else index


def current_device() -> int:
    return _cuda.current_device()


def set_device(device) -> None:
    _cuda.set_device(_index(device))


def synchronize(device=None) -> None:
    _cuda.synchronize(_index(device))


def get_device_name(device=None) -> str:
    return _cuda.get_device_name(_index(device))


def memory_stats(device=None) -> dict:
    return dict(_cuda.memory_stats(_index(device)))


def memory_allocated(device=None) -> int:
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device=None) -> int:
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device=None) -> int:
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device=None) -> int:
    return memory_stats(device)["reserved_bytes.all.peak"]


def empty_cache() -> None:
    _cuda.empty_cache()


def reset_peak_memory_stats(device=None) -> None:
    _cuda.reset_peak_memory_stats(_index(device))

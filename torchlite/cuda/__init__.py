"""torchlite.cuda: device queries, the current device and stream, and the caching
allocator's statistics (as torch.cuda names them).

With no GPU (or a build without CUDA) is_available() is False and device_count() is 0;
creating a CUDA tensor then raises a RuntimeError that says why, and the memory statistics
are all zero.

Streams: every device has a current stream per thread, initially the default stream.
Kernels and copies are queued on it; `with torchlite.cuda.stream(s):` changes it for a
block. The caching allocator keeps a pool per stream; using a tensor on a stream other
than the one it was allocated on needs a synchronize() first (record_stream is not there).

Matrix products use cuBLAS when the nvidia-cublas wheel (or a system libcublas.so.13) is
there, else a tiled kernel; TORCHLITE_CUBLAS=0 in the environment forces the tiled kernel.
"""

import os
import sys

from torchlite import _C

_cuda = _C._cuda

OutOfMemoryError = _C.OutOfMemoryError  # torch.cuda.OutOfMemoryError is torch.OutOfMemoryError


def is_available() -> bool:
    return _cuda.is_available()


def device_count() -> int:
    return _cuda.device_count()


def is_built() -> bool:
    """True when torchlite was compiled with CUDA kernels."""
    return _cuda.is_built()


_CUBLAS_SONAME = "libcublas.so.13"
# Where the nvidia-cublas wheel puts it under site-packages: nvidia/cu13/lib for CUDA 13,
# nvidia/cublas/lib in the wheels before.
_CUBLAS_WHEEL_DIRS = (("nvidia", "cu13", "lib"), ("nvidia", "cublas", "lib"))


def _cublas_library_candidates(search_path=None, toolkits=None) -> list:
    """The paths cuBLAS is loaded from, in order: the wheel's library in each folder of
    `search_path` (sys.path by default), the bare soname (which the system loader looks up), then
    the library of a CUDA toolkit in `toolkits` ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda by
    default) that the loader's path does not name."""
    if toolkits is None:
        toolkits = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    wheels = [os.path.join(os.path.abspath(entry), *parts, _CUBLAS_SONAME)
              for entry in (sys.path if search_path is None else search_path) for parts in _CUBLAS_WHEEL_DIRS]
    in_toolkits = [os.path.join(root, "lib64", _CUBLAS_SONAME) for root in toolkits if root]
    found = []
    for path in wheels + [_CUBLAS_SONAME] + in_toolkits:
        if path not in found and (path == _CUBLAS_SONAME or os.path.isfile(path)):
            found.append(path)
    return found


def _gemm_backend() -> tuple:
    """The GEMM of the CUDA matrix products now: ("cublas", the library's path), ("tiled", why
    not cuBLAS) or ("none", why) without CUDA. The first call loads cuBLAS."""
    return _cuda._gemm_backend()


if _cuda.is_built():
    _cuda._set_cublas_candidates(_cublas_library_candidates())


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


def get_device_capability(device=None) -> tuple:
    return tuple(_cuda.get_device_capability(_index(device)))


def is_bf16_supported() -> bool:
    return is_available() and get_device_capability()[0] >= 8


def mem_get_info(device=None) -> tuple:
    """(free, total) bytes of device memory, as cudaMemGetInfo reports them."""
    return tuple(_cuda.mem_get_info(_index(device)))


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


def manual_seed(seed) -> None:
    """Seeds the CUDA generators. No CUDA random ops exist yet, so this only checks the seed
    (it is safe to call without a GPU, as in PyTorch)."""
    int(seed)


def manual_seed_all(seed) -> None:
    manual_seed(seed)


# ---- current device ---------------------------------------------------------------------


class device:
    """Context manager that makes `device` the current CUDA device (torch.cuda.device).

    None or a negative index is a no-op, as in PyTorch.
    """

    def __init__(self, device):
        self.idx = -1 if device is None else _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return self
        self.prev_idx = _cuda.current_device()
        if self.prev_idx != self.idx:
            _cuda.set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            _cuda.set_device(self.prev_idx)
        return False


# ---- streams ------------------------------------------------------------------------------


class Stream:
    """A CUDA stream (torch.cuda.Stream). `Stream()` creates a new stream on the current device;
    streams returned by current_stream()/default_stream() wrap existing ones."""

    def __init__(self, device=None, priority=0, *, _handle=None):
        if _handle is not None:
            self.device_index = _index(device)
            self.cuda_stream = _handle
            self._owned = False
            return
        self.device_index = _index(device) if device is not None else _cuda.current_device()
        self.cuda_stream = _cuda._stream_create(self.device_index, priority)
        self._owned = True

    @property
    def device(self):
        return _C.device(f"cuda:{self.device_index}")

    def synchronize(self) -> None:
        _cuda._stream_synchronize(self.cuda_stream)

    def query(self) -> bool:
        return _cuda._stream_query(self.cuda_stream)

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.cuda_stream, self.device_index) == (
            other.cuda_stream,
            other.device_index,
        )

    def __hash__(self):
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self):
        return f"<torchlite.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"

    def __del__(self):
        if getattr(self, "_owned", False) and self.cuda_stream:
            _cuda._stream_destroy(self.cuda_stream)  # never raises


def current_stream(device=None) -> Stream:
    idx = _index(device) if device is not None else _cuda.current_device()
    return Stream(idx, _handle=_cuda._current_stream(idx))


def default_stream(device=None) -> Stream:
    idx = _index(device) if device is not None else _cuda.current_device()
    _cuda._current_stream(idx)  # validates the device
    return Stream(idx, _handle=0)


def set_stream(stream: Stream) -> None:
    if stream is None:
        return
    _cuda._set_current_stream(stream.device_index, stream.cuda_stream)


class StreamContext:
    """Makes `stream` current on its device for a block (torch.cuda.StreamContext)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev = None

    def __enter__(self):
        if self.stream is not None:
            self.prev = current_stream(self.stream.device_index)
            set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            set_stream(self.prev)
        return False


def stream(stream) -> StreamContext:
    return StreamContext(stream)


# ---- test hooks ----------------------------------------------------------------------------


class _HostPool:
    """The caching allocator's pool logic on host memory (tests; works without a GPU)."""

    def __init__(self, memory_limit=0):
        _cuda._test_pool_reset(memory_limit)

    def malloc(self, nbytes, stream=0) -> int:
        return _cuda._test_pool_malloc(nbytes, stream)

    def free(self, ptr) -> None:
        _cuda._test_pool_free(ptr)

    def empty_cache(self) -> None:
        _cuda._test_pool_empty_cache()

    def reset_peak(self) -> None:
        _cuda._test_pool_reset_peak()

    def stats(self) -> dict:
        return dict(_cuda._test_pool_stats())

"""torchlite.cuda: device queries, the current device and stream, and the caching
allocator's statistics (as torch.cuda names them).

With no GPU (or a build without CUDA) is_available() is False and device_count() is 0;
creating a CUDA tensor then raises a RuntimeError that says why, and the memory statistics
are all zero.

Streams: every device has a current stream per thread, initially the default stream.
Kernels and copies are queued on it; `with torchlite.cuda.stream(s):` changes it for a
block; Events order work across streams and time it. The caching allocator keeps a pool per
stream; a tensor used on a stream other than the one it was allocated on is marked with
`tensor.record_stream(s)`, so that its memory is not reused before that stream's work is done.
PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:N" is read as PyTorch reads it.

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


def _library_candidates(soname, search_path=None, toolkits=None) -> list:
    """The paths a CUDA math library (soname: libcublas.so.13) is loaded from, in order (Note [CUDA
    libraries] in aten/cuda/CUDALibraries.h): the NVIDIA wheel's copy in each folder of
    `search_path` (sys.path by default) -- nvidia/cu13/lib for CUDA 13 wheels, nvidia/<library>/lib
    before -- then the bare soname (which the system loader looks up), then the library of a CUDA
    toolkit in `toolkits` ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda by default)."""
    if toolkits is None:
        toolkits = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    library = soname[3:].split(".so")[0]  # libcublas.so.13 -> cublas
    wheels = [os.path.join(os.path.abspath(entry), "nvidia", folder, "lib", soname)
              for entry in (sys.path if search_path is None else search_path) for folder in ("cu13", library)]
    in_toolkits = [os.path.join(root, "lib64", soname) for root in toolkits if root]
    found = []
    for path in wheels + [soname] + in_toolkits:
        if path not in found and (path == soname or os.path.isfile(path)):
            found.append(path)
    return found


if _cuda.is_built():
    # Note [CUDA libraries]: handed over at import, so that no kernel asks Python (the GIL) at first use.
    _cuda._set_library_candidates({soname: _library_candidates(soname) for soname in _cuda._cuda_library_sonames()})


def _gemm_backend() -> tuple:
    """The GEMM of the CUDA matrix products now: ("cublas", the library's path), ("tiled", why
    not cuBLAS) or ("none", why) without CUDA. The first call loads cuBLAS."""
    return _cuda._gemm_backend()


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


def memory_snapshot(mempool_id=None, include_traces=True) -> list:
    """The caching allocator's segments on every device (torch.cuda.memory_snapshot): dicts with
    device, address, total_size, allocated_size, active_size, requested_size, stream,
    segment_type ('small' or 'large') and blocks (address, size, requested_size, state).
    torchlite has one pool per device and records no allocation traces."""
    if mempool_id is not None:
        raise NotImplementedError("torchlite.cuda.memory_snapshot: memory pools (mempool_id) are not supported")
    return _cuda.memory_snapshot()


_SUMMARY_ROWS = (  # (label, memory_stats key, counts bytes)
    ("Allocated memory", "allocated_bytes", True), ("Active memory", "active_bytes", True),
    ("Requested memory", "requested_bytes", True), ("GPU reserved memory", "reserved_bytes", True),
    ("Non-releasable memory", "inactive_split_bytes", True), ("Allocations", "allocation", False),
    ("Active allocs", "active", False), ("GPU reserved segments", "segment", False),
    ("Non-releasable allocs", "inactive_split", False),
)


def _format_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 * 10 or unit == "GiB":
            return f"{n} {unit}"
        n //= 1024
    return f"{n} GiB"  # not reached


def _format_memory_summary(stats: dict, title: str, abbreviated: bool) -> str:
    width = 79
    rule, thick = "|" + "-" * (width - 2) + "|", "|" + "=" * (width - 2) + "|"
    fields = ("current", "peak", "allocated", "freed")

    def row(label, cells):
        return f"| {label:<24}| " + " | ".join(f"{c:>10}" for c in cells) + " |"

    lines = [thick, "|" + title.center(width - 2) + "|", rule,
             "|" + f"CUDA OOMs: {stats['num_ooms']}".center(37) + "|"
             + f"cudaMalloc retries: {stats['num_alloc_retries']}".center(width - 40) + "|", thick,
             row("Metric", ("Cur Usage", "Peak Usage", "Tot Alloc", "Tot Freed")), rule]
    pools = (("all", ""),) if abbreviated else (("all", ""), ("large_pool", "      from large pool"),
                                                ("small_pool", "      from small pool"))
    for label, key, is_bytes in _SUMMARY_ROWS:
        fmt = _format_bytes if is_bytes else str
        for pool, sub in pools:
            lines.append(row(sub or label, [fmt(stats[f"{key}.{pool}.{f}"]) for f in fields]))
        lines.append(rule)
    for label, key in (("Oversize allocations", "oversize_allocations"),
                       ("Oversize GPU segments", "oversize_segments")):
        lines.append(row(label, [str(stats[f"{key}.{f}"]) for f in fields]))
    lines.append(thick)
    return "\n".join(lines) + "\n"


def memory_summary(device=None, abbreviated=False) -> str:
    """A table of the caching allocator's statistics for one device (torch.cuda.memory_summary):
    current, peak, total allocated and total freed bytes and counts, per pool unless abbreviated."""
    idx = _index(device) if is_available() else 0
    return _format_memory_summary(memory_stats(device), f"torchlite CUDA memory summary, device ID {idx}",
                                  abbreviated)


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

    def wait_event(self, event) -> None:
        """Work queued on this stream from now on waits for `event` (no-op if never recorded)."""
        event.wait(self)

    def wait_stream(self, stream) -> None:
        """Work queued on this stream from now on waits for the work queued on `stream` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Records `event` (a new Event when None) on this stream and returns it."""
        event = Event() if event is None else event
        event.record(self)
        return event

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


class Event:
    """A CUDA event (torch.cuda.Event): a marker in a stream's work. Created on the device of the
    stream it is first recorded on."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False, external=False):
        if interprocess or external:
            raise NotImplementedError("torchlite.cuda.Event: interprocess and external events are not supported")
        self.enable_timing, self.blocking = bool(enable_timing), bool(blocking)
        self.cuda_event, self.device_index, self._recorded = 0, None, False

    def record(self, stream=None) -> None:
        stream = current_stream() if stream is None else stream
        if self.device_index is None:
            self.cuda_event = _cuda._event_create(stream.device_index, self.enable_timing, self.blocking)
            self.device_index = stream.device_index
        elif stream.device_index != self.device_index:
            raise RuntimeError(f"Event device {self.device_index} does not match recording stream's device "
                               f"{stream.device_index}.")
        _cuda._event_record(self.cuda_event, stream.cuda_stream)
        self._recorded = True

    def wait(self, stream=None) -> None:
        if self._recorded:
            stream = current_stream() if stream is None else stream
            _cuda._stream_wait_event(stream.cuda_stream, self.cuda_event)

    def query(self) -> bool:
        return not self._recorded or _cuda._event_query(self.cuda_event)

    def synchronize(self) -> None:
        if self._recorded:
            _cuda._event_synchronize(self.cuda_event)

    def elapsed_time(self, end_event) -> float:
        """Milliseconds between this event and `end_event` (both recorded, with enable_timing)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return _cuda._event_elapsed_time(self.cuda_event, end_event.cuda_event)

    def __repr__(self):
        state = f"{self.cuda_event:#x}" if self.cuda_event else "uninitialized"
        return f"<torchlite.cuda.Event {state}>"

    def __del__(self):
        if getattr(self, "cuda_event", 0):
            _cuda._event_destroy(self.cuda_event)  # never raises


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
    """The caching allocator's pool logic on host memory (tests; works without a GPU). Its
    events (record_stream) complete at complete_events() or empty_cache()."""

    def __init__(self, memory_limit=0, alloc_conf=""):
        _cuda._test_pool_reset(memory_limit, alloc_conf)

    def record_stream(self, ptr, stream) -> None:
        _cuda._test_pool_record_stream(ptr, stream)

    def complete_events(self) -> None:
        _cuda._test_pool_complete_events()

    def snapshot(self) -> list:
        return _cuda._test_pool_snapshot()

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

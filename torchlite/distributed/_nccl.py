"""The NCCL side of torchlite.distributed: collectives on CUDA tensors through libnccl, bound with
ctypes. The library comes from the nvidia-nccl-cu13 wheel (`pip install -e ".[nccl]"`), or from
TORCHLITE_NCCL_LIBRARY, or from the system's libnccl.so.2.

A process group that runs CUDA tensors on NCCL makes its NCCL communicator at its first CUDA
collective: group rank 0 creates an ncclUniqueId, the group's MPI communicator (the rendezvous
the ranks already share) broadcasts it, and every rank joins with ncclCommInitRank on its current
CUDA device. Each operation is queued on the current CUDA stream, so it is ordered with the
kernels around it as PyTorch's are; a failing NCCL call raises DistBackendError.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
from pathlib import Path

import torchlite
from torchlite.distributed._mpi import DistBackendError

__all__ = ["Communicator", "is_available", "library_path", "load", "version"]

# ncclDataType_t and ncclRedOp_t values (nccl.h)
_DTYPES = {
    torchlite.int8: 0, torchlite.uint8: 1, torchlite.int32: 2, torchlite.int64: 4, torchlite.float16: 6,
    torchlite.float32: 7, torchlite.float64: 8, torchlite.bfloat16: 9,
}
_OPS = {"SUM": 0, "PRODUCT": 1, "MAX": 2, "MIN": 3, "AVG": 4}


class UniqueId(ctypes.Structure):
    """ncclUniqueId: 128 opaque bytes that rank 0 makes and every rank passes to ncclCommInitRank."""

    _fields_ = [("internal", ctypes.c_ubyte * 128)]


_lib = None


def library_path() -> str:
    """TORCHLITE_NCCL_LIBRARY if set, else the nvidia-nccl wheel's library, else the system's."""
    explicit = os.environ.get("TORCHLITE_NCCL_LIBRARY")
    if explicit:
        return explicit
    try:
        spec = importlib.util.find_spec("nvidia.nccl")
    except ModuleNotFoundError:
        spec = None
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        candidate = Path(folder) / "lib" / "libnccl.so.2"
        if candidate.exists():
            return str(candidate)
    return "libnccl.so.2"


def _declare(lib):
    ptr, num, count = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
    signatures = {
        "ncclGetVersion": [ctypes.POINTER(num)],
        "ncclGetUniqueId": [ctypes.POINTER(UniqueId)],
        "ncclCommInitRank": [ctypes.POINTER(ptr), num, UniqueId, num],
        "ncclCommAbort": [ptr],
        "ncclAllReduce": [ptr, ptr, count, num, num, ptr, ptr],
        "ncclBroadcast": [ptr, ptr, count, num, num, ptr, ptr],
        "ncclAllGather": [ptr, ptr, count, num, ptr, ptr],
        "ncclReduceScatter": [ptr, ptr, count, num, num, ptr, ptr],
        "ncclSend": [ptr, count, num, num, ptr, ptr],
        "ncclRecv": [ptr, count, num, num, ptr, ptr],
    }
    for name, argtypes in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = argtypes, num
    lib.ncclGetErrorString.argtypes, lib.ncclGetErrorString.restype = [num], ctypes.c_char_p
    lib.ncclGetLastError.argtypes, lib.ncclGetLastError.restype = [ptr], ctypes.c_char_p


def load():
    """The loaded libnccl, or a RuntimeError that says how to install it."""
    global _lib
    if _lib is None:
        path = library_path()
        try:
            lib = ctypes.CDLL(path)
            _declare(lib)
        except (OSError, AttributeError) as e:
            raise RuntimeError(f"torchlite.distributed: NCCL could not be loaded from {path} ({e}). CUDA tensors on "
                               "the 'nccl' backend need it: pip install 'torchlite[nccl]' (the nvidia-nccl-cu13 "
                               "wheel), or set TORCHLITE_NCCL_LIBRARY to a libnccl.so.2") from None
        _lib = lib
    return _lib


def is_available() -> bool:
    try:
        load()
    except RuntimeError:
        return False
    return True


def check(result, what, comm=None):
    """Raises DistBackendError for a failed NCCL call (result is its ncclResult_t)."""
    if result != 0:
        lib = load()
        detail = lib.ncclGetLastError(comm)
        reason = lib.ncclGetErrorString(result).decode()
        message = f"torchlite.distributed: {what} failed: NCCL error {result}, {reason}"
        raise DistBackendError(message + (f" ({detail.decode()})" if detail else ""))


def version() -> tuple[int, int, int]:
    code = ctypes.c_int()
    check(load().ncclGetVersion(ctypes.byref(code)), "ncclGetVersion")
    return code.value // 10000, code.value // 100 % 100, code.value % 100


def _dtype(t):
    if t.dtype not in _DTYPES:
        raise ValueError(f"NCCL cannot exchange {t.dtype} tensors")
    return _DTYPES[t.dtype]


def _op(op_name, t):
    if op_name not in _OPS:
        raise ValueError(f"ReduceOp.{op_name} is not supported by NCCL")
    if op_name == "AVG" and not t.dtype.is_floating_point:
        raise ValueError(f"ReduceOp.AVG needs a floating-point tensor on NCCL, got {t.dtype}")
    return _OPS[op_name]


def _ptr(t):
    if not t.is_cuda or not t.is_contiguous():
        raise ValueError("NCCL exchanges contiguous CUDA tensors")
    return ctypes.c_void_p(t.data_ptr())


class Communicator:
    """An NCCL communicator over the ranks of mpi_comm, on this process's current CUDA device."""

    def __init__(self, mpi_comm):
        lib = load()
        if not torchlite.cuda.is_available():
            raise RuntimeError("torchlite.distributed: the 'nccl' backend needs a CUDA GPU, and none is visible")
        uid = UniqueId()
        if mpi_comm.Get_rank() == 0:
            check(lib.ncclGetUniqueId(ctypes.byref(uid)), "ncclGetUniqueId")
        uid = UniqueId.from_buffer_copy(mpi_comm.bcast(bytes(uid), root=0))
        self.device = torchlite.cuda.current_device()
        self.handle = ctypes.c_void_p()
        check(lib.ncclCommInitRank(ctypes.byref(self.handle), mpi_comm.Get_size(), uid, mpi_comm.Get_rank()),
              "ncclCommInitRank")
        self._lib = lib

    def _call(self, name, *args):
        stream = ctypes.c_void_p(torchlite.cuda.current_stream().cuda_stream)
        check(getattr(self._lib, name)(*args, self.handle, stream), name, self.handle)

    def all_reduce(self, t, op_name):
        self._call("ncclAllReduce", _ptr(t), _ptr(t), t.numel(), _dtype(t), _op(op_name, t))

    def broadcast(self, t, root):
        self._call("ncclBroadcast", _ptr(t), _ptr(t), t.numel(), _dtype(t), root)

    def all_gather(self, out, inp):
        self._call("ncclAllGather", _ptr(inp), _ptr(out), inp.numel(), _dtype(inp))

    def reduce_scatter(self, out, inp, op_name):
        self._call("ncclReduceScatter", _ptr(inp), _ptr(out), out.numel(), _dtype(out), _op(op_name, out))

    def send(self, t, peer):
        self._call("ncclSend", _ptr(t), t.numel(), _dtype(t), peer)

    def recv(self, t, peer):
        self._call("ncclRecv", _ptr(t), t.numel(), _dtype(t), peer)

    def abort(self):
        if self.handle:
            self._lib.ncclCommAbort(self.handle)
            self.handle = ctypes.c_void_p()

"""The MPI side of torchlite.distributed: tensors as MPI buffers, reduction types, and Work.

Every exchange is a nonblocking MPI request polled against the group's deadline, so a peer that
never joins makes the call fail with DistBackendError after `timeout` instead of hanging. After a
timeout the communicator is in an unknown state (MPI cannot cancel a started collective), so the
group is marked broken and the whole MPI job is aborted when this process exits.
"""

from __future__ import annotations

import atexit
import os
import time

import numpy as np

import torchlite

__all__ = ["DistBackendError", "DistError", "Work"]


class DistError(RuntimeError):
    """Base of torchlite.distributed's errors (a RuntimeError, as in PyTorch)."""


class DistBackendError(DistError):
    """A communication failed or timed out."""


def mpi():
    """mpi4py.MPI, imported (and MPI initialised) at first use, with a clear error when missing."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise RuntimeError("torchlite.distributed needs mpi4py and an MPI library: pip install "
                           "'torchlite[distributed]' (mpi4py + mpich)") from e
    return MPI


_aborting = False


def _abort_at_exit():
    if _aborting:
        mpi().COMM_WORLD.Abort(1)


atexit.register(_abort_at_exit)  # runs before mpi4py's MPI_Finalize, which would wait on the stuck request


def poll(requests, deadline, timeout_s, what, statuses=None):
    """Tests requests until all complete; past deadline raises DistBackendError and arms the abort.
    For the first 50 ms it spins, yielding the core at each test (a peer rank may be waiting for
    it on a busy machine); longer waits sleep up to 1 ms between tests."""
    MPI = mpi()
    start = time.monotonic()
    while not (MPI.Request.Testall(requests, statuses) if statuses is not None else MPI.Request.Testall(requests)):
        now = time.monotonic()
        if now > deadline:
            global _aborting
            _aborting = True
            raise DistBackendError(
                f"torchlite.distributed: {what} on rank {MPI.COMM_WORLD.Get_rank()} timed out after "
                f"{timeout_s:g} s: a peer never joined it (it died, hangs, or called another collective). "
                "The process group is unusable; the MPI job is aborted when this process exits.")
        if now - start < 0.05:
            os.sched_yield()
        else:
            time.sleep(min(1e-3, (now - start) / 50))


class Work:
    """The handle an async_op=True call returns: wait() blocks until done (or the timeout fails),
    is_completed() asks without blocking. finish runs once on completion (copy-backs, AVG's
    division, float32 staging back to bfloat16/float16)."""

    def __init__(self, requests, group, what, finish=None, outputs=(), status=None, source=None):
        self._requests = list(requests)
        self._source = source  # the group rank a recv comes from, when known without a status (NCCL)
        self._group = group
        self._what = what
        self._finish = finish
        self._outputs = list(outputs)
        self._status = status
        self._done = False
        self._deadline = time.monotonic() + group.timeout.total_seconds()

    def _complete(self):
        self._done = True
        self._requests = []
        if self._finish is not None:
            self._finish()
            self._finish = None

    def is_completed(self) -> bool:
        if not self._done and mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def wait(self, timeout=None) -> bool:
        if not self._done:
            limit = self._group.timeout.total_seconds() if timeout is None else timeout.total_seconds()
            deadline = min(self._deadline, time.monotonic() + limit) if timeout is not None else self._deadline
            self._group.check_usable()
            try:
                poll(self._requests, deadline, limit, self._what,
                     [self._status] if self._status is not None else None)
            except DistBackendError:
                self._group.broken = True
                raise
            self._complete()
        return True

    def result(self):
        self.wait()
        return self._outputs

    def get_future(self):
        """A torchlite.futures.Future of result() (the output tensors), completed as this finishes."""
        from torchlite.futures import Future

        fut = Future()

        def poll():
            if fut._state is None and self.is_completed():
                fut.set_result(self._outputs)

        def block():
            try:
                self.wait()
            except DistBackendError as e:
                fut.set_exception(e)
            else:
                poll()
        fut._poll, fut._block = poll, block
        return fut

    def source_rank(self) -> int:
        """The global rank a recv with src=None received from."""
        self.wait()
        return self._group.ranks[self._source if self._status is None else self._status.Get_source()]


# MPI reduction per ReduceOp name and dtype kind; bool reduces logically (SUM is OR), and AVG is a
# SUM followed by a division here.
_FLOAT_OPS = {"SUM": "SUM", "AVG": "SUM", "MAX": "MAX", "MIN": "MIN", "PRODUCT": "PROD"}
_INT_OPS = {"SUM": "SUM", "MAX": "MAX", "MIN": "MIN", "PRODUCT": "PROD", "BAND": "BAND", "BOR": "BOR", "BXOR": "BXOR"}
_BOOL_OPS = {"SUM": "LOR", "MAX": "LOR", "BOR": "LOR", "MIN": "LAND", "PRODUCT": "LAND", "BAND": "LAND", "BXOR": "LXOR"}
_COMPLEX_OPS = {"SUM": "SUM", "AVG": "SUM", "PRODUCT": "PROD"}


def mpi_op(op_name, dtype):
    if dtype == torchlite.bool:
        table, kind = _BOOL_OPS, "bool"
    elif dtype.is_complex:
        table, kind = _COMPLEX_OPS, "complex"
    elif dtype.is_floating_point:
        table, kind = _FLOAT_OPS, "floating-point"
    else:
        table, kind = _INT_OPS, "integer"
    if op_name not in table:
        raise ValueError(f"ReduceOp.{op_name} is not supported for {kind} tensors ({dtype})")
    return getattr(mpi(), table[op_name])


class _Bits:
    """Exposes a bfloat16 tensor's memory to NumPy as uint16; the array's base keeps it alive."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.__array_interface__ = {"shape": (tensor.numel(),), "typestr": "<u2", "version": 3,
                                    "data": (tensor.data_ptr(), False)}


def as_array(tensor):
    """A flat NumPy array over tensor's memory (no copy) that keeps tensor alive; tensor must be a
    contiguous CPU tensor. bfloat16, which NumPy lacks, comes back as uint16."""
    if tensor.dtype == torchlite.bfloat16:
        return np.asarray(_Bits(tensor)) if tensor.numel() else np.empty(0, np.uint16)
    return tensor.detach().numpy().reshape(-1)


def as_bytes(tensor):
    return as_array(tensor).view(np.uint8)

"""What runs inside a DataLoader worker process, and the messages it exchanges with the main process.

Protocol (one index queue per worker, one shared result queue):
  main -> worker   (epoch, task_idx, index)   fetch `index` (a list of indices when batching)
                   _ResumeIteration(epoch)      new epoch with persistent workers: restart the iterator
                   None                         exit
  worker -> main   (epoch, task_idx, payload)   payload = pickle of the batch, an ExceptionWrapper,
                                                or _IterableDatasetStopIteration (iterable exhausted)
Payloads are pickled in the worker itself, so a batch that cannot be pickled becomes an error
reported for that task instead of being lost in the queue's feeder thread. They are pickled with
multiprocessing's ForkingPickler, so a tensor travels as a handle on shared memory
(torchlite.multiprocessing.reductions), not as a copy of its data; default_collate builds a
worker's batches in shared memory from the start.
"""

from __future__ import annotations

import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler

import numpy as np

import torchlite
from torchlite.utils.data._utils.fetch import create_fetcher

__all__ = ["WorkerInfo", "get_worker_info"]

# How often an idle worker checks whether the main process is shutting down or gone.
_POLL_INTERVAL = 0.5


class WorkerInfo:
    """Inside a worker: id, num_workers, seed and this worker's copy of the dataset."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({items})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The WorkerInfo of the current DataLoader worker process; None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    epoch: int


class KeyErrorMessage(str):
    """KeyError repr()s its message; this keeps the multi-line traceback readable."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process and re-raised there."""

    def __init__(self, exc_info=None, where: str = "in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        exc_type = exc_info[0]
        try:  # the type must be importable by name in the main process
            pickle.loads(pickle.dumps(exc_type))
        except Exception:
            exc_type = RuntimeError
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        # No local variable holds the exception: a frame referring to it would form a reference
        # cycle (exception -> traceback -> frame -> exception) that keeps the DataLoader iterator,
        # and its worker processes, alive until the cyclic GC runs.
        raise self._exception(msg)

    def _exception(self, msg):
        try:
            return self.exc_type(msg)
        except Exception:
            return RuntimeError(msg)


class ManagerWatchdog:
    """Tells a worker whether the process that started it is still alive."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self) -> bool:
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


def _numpy_seed(base_seed: int, worker_id: int):
    return np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32]).generate_state(4)


def _dumps(data, worker_id: int) -> bytes:
    try:
        return bytes(ForkingPickler.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        where = f"in DataLoader worker process {worker_id} while sending a batch to the main process"
        return pickle.dumps(ExceptionWrapper(where=where), protocol=pickle.HIGHEST_PROTOCOL)


def _worker_loop(is_iterable, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn,
                 drop_last, base_seed, init_fn, worker_id, num_workers, persistent_workers):
    global _worker_info
    try:
        torchlite.set_num_threads(1)
        seed = base_seed + worker_id
        random.seed(seed)
        torchlite.manual_seed(seed)
        np.random.seed(_numpy_seed(base_seed, worker_id))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=_POLL_INTERVAL)
            except queue.Empty:
                if done_event.is_set():  # the main process is shutting down (its None may never arrive)
                    break
                continue
            if isinstance(r, _ResumeIteration):
                iteration_end = False
                if init_exception is None:
                    try:
                        fetcher = create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
                    except Exception:
                        init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            epoch, idx, index = r
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if is_iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((epoch, idx, _dumps(data, worker_id)))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()

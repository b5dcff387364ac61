"""torchlite.multiprocessing: Python's multiprocessing, with tensors passed by shared memory.

Everything of the standard module is here (Queue, SimpleQueue, Pool, Process, get_context,
set_start_method, ...); importing torchlite registers the ForkingPickler reduction of
torchlite.multiprocessing.reductions, so tensors put on any multiprocessing queue travel as a
handle on shared memory (the sender's storage moves there in place, as in PyTorch). Adds spawn
and start_processes.
"""

import multiprocessing
from multiprocessing import *  # noqa: F403

from torchlite.multiprocessing.reductions import init_reductions
from torchlite.multiprocessing.spawn import (  # noqa: F401
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
           "ProcessContext", "ProcessRaisedException", "ProcessExitedException", *multiprocessing.__all__]

_sharing_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Only "file_descriptor" (memfd handles passed between processes) is implemented."""
    if new_strategy not in get_all_sharing_strategies():
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{get_all_sharing_strategies()}")


def get_sharing_strategy():
    return _sharing_strategy


def get_all_sharing_strategies():
    return {_sharing_strategy}


init_reductions()

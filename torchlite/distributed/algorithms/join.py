"""The Join context manager: ranks whose inputs run out early keep answering the collectives of
the ranks still training, so that uneven inputs neither hang nor fail.

Each iteration, a rank still training calls Join.notify_join_context (DDP does it in forward),
which all-reduces a 1. A rank that left its loop sits in Join.__exit__: it all-reduces a 0 and,
while the sum says some rank is still training, runs each joinable's main_hook, which mirrors
that iteration's collectives (DDP: all-reduces of zero gradients). When the sum is 0, every
joinable's post_hook runs (DDP: the last rank to join broadcasts the final model).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, NamedTuple

import torchlite
import torchlite.distributed as dist

__all__ = ["Join", "JoinHook", "Joinable"]


class JoinHook:
    """What a joinable does for a joined rank: main_hook once per iteration other ranks still run,
    post_hook(is_last_joiner) once all ranks joined."""

    def main_hook(self) -> None:
        """Mirrors one training iteration's collectives."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Runs once every rank has joined."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(ABC):
    """A class whose collectives can be mirrored by joined ranks (DistributedDataParallel,
    ZeroRedundancyOptimizer)."""

    @abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs) -> JoinHook:
        """The JoinHook that mirrors this joinable's collectives."""

    @property
    @abstractmethod
    def join_device(self):
        """The device the join collectives use."""

    @property
    @abstractmethod
    def join_process_group(self) -> Any:
        """The group the join collectives use."""


class Join:
    """Context manager over joinables (the first one's process group counts the ranks still
    training). throw_on_early_termination raises on every rank as soon as one rank joins."""

    def __init__(self, joinables: list[Joinable], enable: bool = True, throw_on_early_termination: bool = False,
                 **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [joinable.join_hook(**kwargs) for joinable in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        self._process_group = joinables[0].join_process_group
        for i, joinable in enumerate(joinables):
            joinable._join_config = _JoinConfig(enable, throw_on_early_termination, is_first_joinable=i == 0)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self._enable or exc_type is not None:
            return False  # an exception propagates: mirroring collectives would only hide it
        first = True
        is_last_joiner = False
        while True:
            running = self._count_running()
            if running == 0:
                is_last_joiner = first
                break
            if self._throw_on_early_termination:
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
            for hook in self._join_hooks:
                hook.main_hook()
            first = False
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)
        for joinable in self._joinables:
            joinable._join_config = _JoinConfig.construct_disabled_join_config()
        return False

    def _count_running(self) -> int:
        count = torchlite.zeros(1, dtype=torchlite.int64)
        dist.all_reduce(count, group=self._process_group)
        return int(count.item())

    @staticmethod
    def notify_join_context(joinable: Joinable):
        """Called by a rank still training, once per iteration, by the first joinable: the 1 that
        the joined ranks' count sees. With throw_on_early_termination, raises when a rank joined."""
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        ones = torchlite.ones(1, dtype=torchlite.int64)
        work = dist.all_reduce(ones, group=joinable.join_process_group, async_op=True)
        if config.throw_on_early_termination:
            work.wait()
            if int(ones.item()) < dist.get_world_size(joinable.join_process_group):
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return work

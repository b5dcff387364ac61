"""DistributedSampler: the share of a dataset one of num_replicas processes visits each epoch."""

from __future__ import annotations

import math
from collections.abc import Iterator

import torchlite
from torchlite.utils.data._utils import randperm
from torchlite.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Splits the (optionally shuffled) indices of dataset among num_replicas processes; this
    process, number rank, visits every num_replicas-th index from its own. Without drop_last the
    index list is padded by repeating its start so that every replica gets the same count; with
    it, the tail that does not divide evenly is dropped. Every replica must use the same seed, and
    call set_epoch at each epoch's start for a new shuffle.

    num_replicas and rank default to the default process group's world size and rank.
    """

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            if not torchlite.distributed.is_initialized():
                raise RuntimeError("DistributedSampler: pass num_replicas and rank, or call "
                                   "torchlite.distributed.init_process_group first")
            num_replicas = torchlite.distributed.get_world_size() if num_replicas is None else num_replicas
            rank = torchlite.distributed.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:  # the same permutation on every replica: seeded by seed and epoch alone
            g = torchlite.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, g)
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:
            missing = self.total_size - len(indices)
            indices += (indices * math.ceil(missing / len(indices)))[:missing] if missing else []
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch whose shuffle __iter__ gives (the same on every replica)."""
        self.epoch = epoch

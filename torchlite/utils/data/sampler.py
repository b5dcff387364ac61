"""Samplers: which dataset indices (or batches of indices) a DataLoader visits, in what order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

import numpy as np

import torchlite
from torchlite.utils.data._utils import randperm, random_seed

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
]

T_co = TypeVar("T_co", covariant=True)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _generator_or_fresh(generator):
    """PyTorch's rule: without a generator, each epoch seeds a new one from the global generator."""
    if generator is not None:
        return generator
    g = torchlite.Generator()
    g.manual_seed(random_seed())
    return g


class Sampler(Generic[T_co]):
    """Base class: subclasses define __iter__ (and __len__ when they can)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Random order without replacement (a new permutation per epoch), or `num_samples` draws with it."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not _is_int(self.num_samples) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = _generator_or_fresh(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from torchlite.randint(high=n, size=(32,), dtype=torchlite.int64, generator=generator).tolist()
            yield from torchlite.randint(high=n, size=(self.num_samples % 32,), dtype=torchlite.int64,
                                         generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator)
            yield from randperm(n, generator)[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in random order (a new permutation per epoch)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """`num_samples` indices drawn with probabilities proportional to `weights`."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator=None) -> None:
        if not _is_int(num_samples) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        w = np.asarray(weights.tolist() if isinstance(weights, torchlite.Tensor) else weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (weights must be finite, non-negative, "
                               "with a positive sum)")
        if not replacement and num_samples > int((w > 0).sum()):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        self.weights = torchlite.from_numpy(w)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        w = self.weights.numpy()
        u = torchlite.rand(self.num_samples if self.replacement else len(w), generator=self.generator,
                           dtype=torchlite.float64).numpy()
        if self.replacement:  # inverse CDF
            cdf = np.cumsum(w)
            idx = np.searchsorted(cdf, u * cdf[-1], side="right")
            return iter(np.minimum(idx, len(w) - 1).tolist())
        # Without replacement: the num_samples largest keys u^(1/w) (Efraimidis-Spirakis).
        with np.errstate(divide="ignore"):
            keys = np.where(w > 0, np.log(np.maximum(u, 1e-300)) / w, -np.inf)
        return iter(np.argsort(-keys, kind="stable")[: self.num_samples].tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of `sampler` into lists of `batch_size` (the last one shorter unless drop_last)."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not _is_int(batch_size) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        while True:
            batch = [i for _, i in zip(range(self.batch_size), it)]
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size

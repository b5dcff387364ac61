"""Internals of torchlite.utils.data (the layout follows torch.utils.data._utils)."""

from __future__ import annotations

import torchlite

# How often (seconds) waiting workers and the main process check on each other.
MP_STATUS_CHECK_INTERVAL = 5.0


def randperm(n: int, generator=None) -> list[int]:
    """A random permutation of range(n) as a list, drawn from a torchlite Generator."""
    return torchlite.randperm(n, generator=generator).tolist()


def random_seed(generator=None) -> int:
    """A fresh 63-bit seed drawn from `generator` (the global generator when None)."""
    return int(torchlite.empty((), dtype=torchlite.int64).random_(generator=generator).item())

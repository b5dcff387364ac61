"""Internals of torchlite.utils.data (the layout follows torch.utils.data._utils)."""

from __future__ import annotations

import numpy as np

import torchlite

# How often (seconds) waiting workers and the main process check on each other.
MP_STATUS_CHECK_INTERVAL = 5.0


def randperm(n: int, generator=None) -> list[int]:
    """A random permutation of range(n) as a list, drawn from a torchlite Generator."""
    fn = getattr(torchlite, "randperm", None)
    if fn is not None:
        return fn(n, generator=generator).tolist()
    if n == 0:
        return []
    # Until torchlite.randperm exists: sort n uniform float64 keys drawn from the generator.
    keys = torchlite.rand(n, generator=generator, dtype=torchlite.float64).numpy()
    return np.argsort(keys, kind="stable").tolist()


def random_seed(generator=None) -> int:
    """A fresh 63-bit seed drawn from `generator` (the global generator when None)."""
    return int(torchlite.empty((), dtype=torchlite.int64).random_(generator=generator).item())

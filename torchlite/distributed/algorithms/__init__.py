"""torchlite.distributed.algorithms: Join, for training on uneven inputs across ranks."""

from torchlite.distributed.algorithms.join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]

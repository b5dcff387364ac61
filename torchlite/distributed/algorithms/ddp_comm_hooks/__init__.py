"""Communication hooks for DistributedDataParallel.register_comm_hook."""

from torchlite.distributed.algorithms.ddp_comm_hooks import default_hooks

__all__ = ["default_hooks"]

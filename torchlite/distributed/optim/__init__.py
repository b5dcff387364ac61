"""torchlite.distributed.optim: ZeroRedundancyOptimizer, optimizer state sharded across ranks."""

from torchlite.distributed.optim.zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]

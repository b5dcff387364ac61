"""torchlite.distributed.fsdp: FullyShardedDataParallel, parameters sharded across ranks."""

from torchlite.distributed.fsdp.fully_sharded_data_parallel import (
    BackwardPrefetch,
    FullyShardedDataParallel,
    ShardingStrategy,
)

__all__ = ["BackwardPrefetch", "FullyShardedDataParallel", "ShardingStrategy"]

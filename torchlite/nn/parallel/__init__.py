"""torchlite.nn.parallel: DataParallel, data_parallel and DistributedDataParallel."""

from torchlite.nn.parallel.data_parallel import DataParallel, data_parallel
from torchlite.nn.parallel.distributed import DistributedDataParallel

__all__ = ["data_parallel", "DataParallel", "DistributedDataParallel"]

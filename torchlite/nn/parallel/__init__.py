"""torchlite.nn.parallel: DataParallel and data_parallel."""

from torchlite.nn.parallel.data_parallel import DataParallel, data_parallel

__all__ = ["data_parallel", "DataParallel"]

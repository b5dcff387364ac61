"""torchlite.utils.data: datasets, samplers and the DataLoader (PyTorch's torch.utils.data API)."""

from torchlite.utils.data._utils.collate import default_collate, default_convert
from torchlite.utils.data._utils.worker import WorkerInfo, get_worker_info
from torchlite.utils.data.dataloader import DataLoader, _DatasetKind
from torchlite.utils.data.distributed import DistributedSampler
from torchlite.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from torchlite.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "WorkerInfo",
    "_DatasetKind",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]

"""torchlite.nn: modules, parameters, initialisation and utilities (PyTorch's torch.nn)."""

from torchlite.nn.parameter import Parameter  # noqa: F401
from torchlite.nn.modules import *  # noqa: F401, F403

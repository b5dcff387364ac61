"""torchlite.nn: modules, parameters, initialisation and utilities (PyTorch's torch.nn)."""

from torchlite.nn import functional, init  # noqa: F401
from torchlite.nn.modules import *  # noqa: F401, F403
from torchlite.nn.modules.module import Module  # noqa: F401
from torchlite.nn.parameter import Parameter  # noqa: F401
from torchlite.nn import utils  # noqa: F401, E402

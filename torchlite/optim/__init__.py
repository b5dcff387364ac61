"""torchlite.optim: optimizers whose updates run as multi-tensor C++ kernels, and lr schedulers."""

from torchlite.optim import lr_scheduler  # noqa: F401
from torchlite.optim.adagrad import Adagrad
from torchlite.optim.adam import Adam
from torchlite.optim.adamw import AdamW
from torchlite.optim.optimizer import Optimizer
from torchlite.optim.rmsprop import RMSprop
from torchlite.optim.sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]

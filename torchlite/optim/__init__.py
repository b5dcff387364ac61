"""torchlite.optim: optimizers, lr schedulers and stochastic weight averaging (swa_utils)."""

from torchlite.optim import lr_scheduler, swa_utils  # noqa: F401
from torchlite.optim._stateless import swap_in_optimizer_params_and_state
from torchlite.optim.adadelta import Adadelta
from torchlite.optim.adafactor import Adafactor
from torchlite.optim.adagrad import Adagrad
from torchlite.optim.adam import Adam
from torchlite.optim.adamax import Adamax
from torchlite.optim.adamw import AdamW
from torchlite.optim.asgd import ASGD
from torchlite.optim.lbfgs import LBFGS
from torchlite.optim.muon import Muon
from torchlite.optim.nadam import NAdam
from torchlite.optim.optimizer import Optimizer
from torchlite.optim.radam import RAdam
from torchlite.optim.rmsprop import RMSprop
from torchlite.optim.rprop import Rprop
from torchlite.optim.sgd import SGD

__all__ = [
    "ASGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "lr_scheduler",
    "swa_utils",
    "swap_in_optimizer_params_and_state",
]

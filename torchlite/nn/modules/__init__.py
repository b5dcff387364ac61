"""The layer classes of torchlite.nn."""

from torchlite.nn.modules import (  # noqa: F401  (batchnorm: PyTorch's module path)
    activation,
    adaptive,
    batchnorm,
    container,
    conv,
    dropout,
    flatten,
    fold,
    lazy,
    linear,
    linear_cross_entropy_options,
    loss,
    normalization,
    padding,
    pooling,
    rnn,
    sparse,
    transformer,
    vision,
)
from torchlite.nn.modules.activation import *  # noqa: F401, F403
from torchlite.nn.modules.adaptive import *  # noqa: F401, F403
from torchlite.nn.modules.container import *  # noqa: F401, F403
from torchlite.nn.modules.conv import *  # noqa: F401, F403
from torchlite.nn.modules.dropout import *  # noqa: F401, F403
from torchlite.nn.modules.flatten import *  # noqa: F401, F403
from torchlite.nn.modules.fold import *  # noqa: F401, F403
from torchlite.nn.modules.linear import *  # noqa: F401, F403
from torchlite.nn.modules.linear_cross_entropy_options import *  # noqa: F401, F403
from torchlite.nn.modules.loss import *  # noqa: F401, F403
from torchlite.nn.modules.module import Module
from torchlite.nn.modules.normalization import *  # noqa: F401, F403
from torchlite.nn.modules.padding import *  # noqa: F401, F403
from torchlite.nn.modules.pooling import *  # noqa: F401, F403
from torchlite.nn.modules.rnn import *  # noqa: F401, F403
from torchlite.nn.modules.sparse import *  # noqa: F401, F403
from torchlite.nn.modules.transformer import *  # noqa: F401, F403
from torchlite.nn.modules.vision import *  # noqa: F401, F403

__all__ = ["Module"] + [name for m in (activation, adaptive, container, conv, dropout, flatten, fold, linear,
                                       linear_cross_entropy_options, loss,
                                       normalization, padding, pooling, rnn, sparse, transformer, vision)
                        for name in m.__all__]

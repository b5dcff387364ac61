"""torchlite.nn.functional: PyTorch's functional neural-network API.

One module per family; each lists its public names in __all__.
"""

from torchlite.nn.functional.activation import *  # noqa: F401,F403
from torchlite.nn.functional.attention import *  # noqa: F401,F403
from torchlite.nn.functional.conv import *  # noqa: F401,F403
from torchlite.nn.functional.distance import *  # noqa: F401,F403
from torchlite.nn.functional.dropout import *  # noqa: F401,F403
from torchlite.nn.functional.linear import *  # noqa: F401,F403
from torchlite.nn.functional.loss import *  # noqa: F401,F403
from torchlite.nn.functional.normalization import *  # noqa: F401,F403
from torchlite.nn.functional.pooling import *  # noqa: F401,F403
from torchlite.nn.functional.softmax import *  # noqa: F401,F403
from torchlite.nn.functional.sparse import *  # noqa: F401,F403
from torchlite.nn.functional.vision import *  # noqa: F401,F403
from torchlite._distance import pdist  # noqa: F401,E402  (torch.pdist, also here as in PyTorch)
from torchlite._shape_compositions import channel_shuffle, native_channel_shuffle  # noqa: F401,E402
from torchlite.nn.functional.attention import _canonical_mask, _none_or_dtype  # noqa: F401,E402  (PyTorch's F.* helpers)

import sys  # noqa: E402

from torchlite.overrides import _make_overridable  # noqa: E402

# The functions written in Python honour __torch_function__ as the generated operators do. (The
# submodules by sys.modules: F.linear, F.softmax and F.dropout name functions.)
_make_overridable(globals(), [sys.modules[f"{__name__}.{m}"] for m in (
    "activation", "attention", "conv", "distance", "dropout", "linear", "loss", "normalization", "pooling", "softmax",
    "sparse", "vision")], names=("channel_shuffle", "native_channel_shuffle", "pdist"))

"""torchlite.nn.utils: gradient clipping, parameter/vector conversion, parametrizations, pruning,
layer fusion and stateless calls (PyTorch's torch.nn.utils)."""

from torchlite.nn.utils import rnn  # noqa: F401
from torchlite.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401

# clip_grad, parametrize, pruning, fusion, functional_call and the hook-based weight/spectral norms
from torchlite.nn.utils import clip_grad, fusion, memory_format, parametrizations, parametrize, stateless  # noqa: F401
from torchlite.nn.utils.clip_grad import (  # noqa: F401
    clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
)
from torchlite.nn.utils.fusion import (  # noqa: F401
    fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights,
)
from torchlite.nn.utils.init import skip_init  # noqa: F401
from torchlite.nn.utils.memory_format import (  # noqa: F401
    convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format,
)
from torchlite.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from torchlite.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: F401

__all__ = ["parameters_to_vector", "rnn", "vector_to_parameters"]
__all__ += [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
    "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format", "fuse_conv_bn_eval",
    "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "parametrizations", "parametrize",
    "remove_spectral_norm", "remove_weight_norm", "skip_init", "spectral_norm", "stateless", "weight_norm",
]

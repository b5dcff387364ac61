"""torchlite.nn.utils: gradient clipping and parameter/vector conversion."""

from torchlite.nn.utils import rnn  # noqa: F401
from torchlite.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401

# clip_grad, parametrize, pruning, fusion, functional_call and the hook-based weight/spectral norms
from torchlite.nn.utils import clip_grad  # noqa: F401
from torchlite.nn.utils.clip_grad import (  # noqa: F401
    clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
)

__all__ = ["clip_grads_with_norm_", "get_total_norm", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]

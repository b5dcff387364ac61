"""torchlite.nn.functional: embedding, embedding_bag and one_hot."""

import warnings

from torchlite import _C
from torchlite.autograd.grad_mode import no_grad

__all__ = ["embedding", "embedding_bag", "one_hot"]

_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Rescale in place the rows of weight that input looks up whose norm exceeds max_norm."""
    if weight.dim() != 2:
        raise RuntimeError(f"Expected 2-dimensional tensor, but got {weight.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for embedding_renorm_)")
    used = _C.zeros(weight.shape[0], dtype=_C.bool, device=weight.device)
    used[input.reshape(-1)] = True
    rows = used.nonzero()[:, 0]
    picked = weight[rows]
    norms = picked.abs().pow(norm_type).sum(1).pow(1.0 / norm_type)
    scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    weight[rows] = picked * scale.unsqueeze(1)
    return weight


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows of `weight` looked up by the integer tensor `input` (shape input.shape + (dim,))."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        with no_grad():
            _embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _C.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of rows of `weight`: a 2-D `input` is one bag per row; a 1-D
    `input` is cut into bags at `offsets`. Returns a (bags, embedding_dim) tensor."""
    if weight.dtype == _C.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
                      "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
                         f"then it must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = _C.arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        with no_grad():
            _embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    return _C.embedding_bag(weight, input, offsets, scale_grad_by_freq, _BAG_MODES[mode], sparse, per_sample_weights,
                            include_last_offset, padding_idx)[0]


def one_hot(tensor, num_classes=-1):
    """Long tensor of shape tensor.shape + (num_classes,), 1 at each value's position."""
    return _C._nn.one_hot(tensor, num_classes)

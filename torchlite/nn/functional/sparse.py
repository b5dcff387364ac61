"""torchlite.nn.functional: embedding and one_hot."""

from torchlite import _C
from torchlite.autograd.grad_mode import no_grad

__all__ = ["embedding", "one_hot"]


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Rescale in place the rows of weight that input looks up whose norm exceeds max_norm."""
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


def one_hot(tensor, num_classes=-1):
    """Long tensor of shape tensor.shape + (num_classes,), 1 at each value's position."""
    return _C._nn.one_hot(tensor, num_classes)

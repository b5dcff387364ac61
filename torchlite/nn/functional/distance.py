"""torchlite.nn.functional: cosine_similarity and pairwise distances."""

import math

from torchlite import _C

__all__ = ["cosine_similarity", "pairwise_distance"]


def _broadcast(a, b):
    """a and b expanded to their common (broadcast) shape."""
    a, b = _C.broadcast_tensors([a, b])  # raises PyTorch's "The size of tensor a (3) must match ..."
    return a, b


def _vector_norm(x, p, dim, keepdim=False, min_norm=0.0):
    """The p-norm of x along dim, floored at min_norm (before the root, so that a zero vector has a
    zero gradient rather than NaN)."""
    a = x.abs()
    if p == math.inf:
        return a.amax(dim, keepdim=keepdim).clamp_min(min_norm)
    if p == -math.inf:
        return a.amin(dim, keepdim=keepdim).clamp_min(min_norm)
    if p == 0:
        return (a != 0).to(x.dtype).sum(dim, keepdim=keepdim).clamp_min(min_norm)
    if p == 1:
        return a.sum(dim, keepdim=keepdim).clamp_min(min_norm)
    if p == 2:
        return (x * x).sum(dim, keepdim=keepdim).clamp_min(min_norm * min_norm).sqrt()
    return a.pow(p).sum(dim, keepdim=keepdim).clamp_min(min_norm ** p).pow(1.0 / p)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    # Each vector is divided by its norm (floored at eps) before the dot product, as in PyTorch.
    x1, x2 = _broadcast(x1, x2)
    n1 = _vector_norm(x1, 2, dim, keepdim=True, min_norm=eps)
    n2 = _vector_norm(x2, 2, dim, keepdim=True, min_norm=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    diff = x1 - x2 + eps
    return _vector_norm(diff, p, -1 if diff.dim() > 0 else 0, keepdim=keepdim)

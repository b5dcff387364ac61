"""Distances and norms composed from differentiable operators: cdist, pdist, dist, renorm(_),
frobenius_norm, norm_except_dim, and torchlite.cosine_similarity / pairwise_distance (those of
torchlite.nn.functional).

A p-norm has an infinite derivative at zero (the root); PyTorch defines the gradient of a zero
distance as zero, and so do these, by taking the root only of the positive sums.
"""

import math
import warnings

from torchlite import _C
from torchlite._creation import triu_indices
from torchlite._shape_compositions import _wrap_dim
from torchlite._scatter_ops import _scalar_name
from torchlite._shape_functions import _write_out
from torchlite.nn.functional.distance import cosine_similarity, pairwise_distance

__all__ = ["cdist", "cosine_similarity", "dist", "frobenius_norm", "norm_except_dim", "pairwise_distance", "pdist",
           "renorm"]

Tensor = _C.Tensor


def _root(s, p):
    """s ** (1 / p) for sums s >= 0 (or NaN), with a zero gradient where s == 0."""
    nonzero = s != 0
    r = s.where(nonzero, _C.ones_like(s)).pow(1.0 / p)
    return r.where(nonzero, _C.zeros_like(r))


def _norm_last(diff, p):
    """The p-norm of diff along its last dim (p >= 0, inf allowed)."""
    a = diff.abs()
    if p == math.inf:
        return a.amax(-1) if diff.shape[-1] else a.sum(-1)
    if p == 0:
        return (a != 0).to(diff.dtype).sum(-1)
    if p == 1:
        return a.sum(-1)
    return _root((diff * diff if p == 2 else a.pow(p)).sum(-1), p)


def _check_float(name, t, which=""):
    if not t.dtype.is_floating_point:
        raise RuntimeError(f"{name} only supports floating-point dtypes{which}{_scalar_name(t.dtype) if which else ''}")


_COMPUTE_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'): the p-norm
    distance between each row of x1 (..., P, M) and each row of x2 (..., R, M): (..., P, R), the
    batch dims broadcast. For p=2 the mm modes compute it as |a|^2 + |b|^2 - 2 a.b (faster for
    many rows, less exact): always, never, or when P or R exceeds 25 (the default).

    >>> torchlite.cdist(torchlite.tensor([[0., 0.]]), torchlite.tensor([[3., 4.], [0., 1.]]))
    tensor([[5., 1.]])
    """
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    _check_float("cdist", x1, ", X1 got: ")
    _check_float("cdist", x2, ", X2 got: ")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(x1.dtype)} but found {_scalar_name(x2.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    rows1, rows2 = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == _COMPUTE_MODES[0] and (rows1 > 25 or rows2 > 25)))
    if use_mm:
        # |a - b|^2 = |a|^2 + |b|^2 - 2 a.b; rounding can make it slightly negative
        sq1 = (x1 * x1).sum(-1, keepdim=True)
        sq2 = (x2 * x2).sum(-1).unsqueeze(-2)
        return _root((sq1 + sq2 - 2 * x1.matmul(x2.transpose(-2, -1))).clamp_min(0), 2)
    return _norm_last(x1.unsqueeze(-2) - x2.unsqueeze(-3), p)


def pdist(input, p=2):
    """pdist(input, p=2): the p-norm distances between the rows of the 2-d input, for each pair
    i < j in row-major order (N * (N - 1) / 2 values).

    >>> torchlite.pdist(torchlite.tensor([[0., 0.], [3., 4.], [0., 1.]]))
    tensor([5.0000, 1.0000, 4.2426])
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    _check_float("pdist", input)
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    pairs = triu_indices(input.shape[0], input.shape[0], 1, device=input.device)
    return _norm_last(input.index_select(0, pairs[0]) - input.index_select(0, pairs[1]), p)


def dist(input, other, p=2):
    """dist(input, other, p=2): the p-norm of input - other (broadcast), over all elements.

    >>> torchlite.dist(torchlite.tensor([3., 4.]), torchlite.zeros(2))
    tensor(5.)
    """
    diff = input - other
    if not diff.dtype.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_scalar_name(diff.dtype)} instead.")
    flat = diff.reshape(-1)
    if p == -math.inf:
        return flat.abs().amin() if flat.numel() else flat.abs().sum()
    return _norm_last(flat, p)


def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """frobenius_norm(input, dim, keepdim=False, *, out=None): deprecated; the 2-norm of input over
    the dims `dim` (linalg.vector_norm(input, 2, dim, keepdim)).

    >>> torchlite.frobenius_norm(torchlite.ones(2, 2), (0, 1))
    tensor(2.)
    """
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in "
                  "a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    dims = [dim] if isinstance(dim, int) else list(dim)
    result = _root((input * input).sum(dims, keepdim=keepdim), 2)
    return result if out is None else _write_out(result, out)


def norm_except_dim(v, pow=2, dim=0):
    """norm_except_dim(v, pow=2, dim=0): the pow-norm of each slice of v along dim, shaped to
    broadcast against v (size 1 in the other dims); of all of v when dim is -1 (what weight_norm uses).

    >>> torchlite.norm_except_dim(torchlite.ones(2, 3), 2, 0)
    tensor([[1.7321],
            [1.7321]])
    """
    if dim == -1:
        return _norm_last(v.reshape(-1), pow)
    dim = _wrap_dim(dim, v.dim())
    shape = [1] * v.dim()
    shape[dim] = v.shape[dim]
    return _norm_last(v.movedim(dim, 0).reshape(v.shape[dim], -1), pow).reshape(shape)


def _renorm_factor(input, p, dim, maxnorm):
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    dim = _wrap_dim(dim, input.dim())
    # the norm of each slice along dim: the other dims moved last and flattened
    norms = _norm_last(input.movedim(dim, 0).reshape(input.shape[dim], -1), p)
    shape = [1] * input.dim()
    shape[dim] = -1
    norms = norms.reshape(shape)
    # PyTorch's rule: slices over maxnorm are scaled by maxnorm / (norm + 1e-7)
    return (maxnorm / (norms + 1e-7)).where(norms > maxnorm, _C.ones_like(norms))


def renorm(input, p, dim, maxnorm, *, out=None):
    """renorm(input, p, dim, maxnorm, *, out=None): input with each slice along dim whose p-norm
    exceeds maxnorm scaled down to norm maxnorm.

    >>> torchlite.renorm(torchlite.tensor([[3., 4.], [0.3, 0.4]]), 2, 0, 1.)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    result = input * _renorm_factor(input, p, dim, maxnorm)
    return result if out is None else _write_out(result, out)


def _renorm(self, p, dim, maxnorm):
    return renorm(self, p, dim, maxnorm)


def _renorm_(self, p, dim, maxnorm):
    """x.renorm_(p, dim, maxnorm): renorm, in place."""
    x = self.clone()  # what the factor's backward saves must not be the tensor overwritten here
    return self.copy_(x * _renorm_factor(x, p, dim, maxnorm))


def _dist(self, other, p=2):
    return dist(self, other, p)


_METHODS = {"renorm": _renorm, "renorm_": _renorm_, "dist": _dist}
for _name, _fn in _METHODS.items():
    _fn.__doc__ = _fn.__doc__ or f"x.{_name}(...): torchlite.{_name}(x, ...)."
    setattr(Tensor, _name, _fn)

"""Helpers shared by the distributions: argument broadcasting, probs <-> logits, lazily
computed parameters, and packing of lower-triangular matrices."""

import numbers
from functools import update_wrapper

import torchlite
from torchlite.nn import functional as F

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant

__all__ = [
    "broadcast_all",
    "logits_to_probs",
    "clamp_probs",
    "probs_to_logits",
    "lazy_property",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]


def broadcast_all(*values):
    """Broadcast tensors and numbers together. Numbers become tensors of the first tensor's
    dtype and device (of the default dtype when every value is a number).

    >>> [v.shape for v in broadcast_all(torchlite.zeros(2, 1), 3.0, torchlite.ones(3))]
    [torchlite.Size([2, 3]), torchlite.Size([2, 3]), torchlite.Size([2, 3])]
    """
    if not all(isinstance(v, (torchlite.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    first = next((v for v in values if isinstance(v, torchlite.Tensor)), None)
    options = ({"dtype": torchlite.get_default_dtype()} if first is None
               else {"dtype": first.dtype, "device": first.device})
    tensors = [v if isinstance(v, torchlite.Tensor) else torchlite.tensor(v, **options) for v in values]
    return torchlite.broadcast_tensors(*tensors)


def _standard_normal(shape, dtype, device):
    return torchlite.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum over the last `dim` dimensions of value."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: the sigmoid of log-odds when is_binary, otherwise a softmax
    over the last dimension (unnormalised log-probabilities)."""
    if is_binary:
        return torchlite.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    """probs clamped to [eps, 1 - eps] (eps of probs' dtype), so that their logits are finite.

    >>> clamp_probs(torchlite.tensor([0.0, 1.0], dtype=torchlite.float64))
    tensor([2.2204e-16, 1.0000e+00], dtype=torchlite.float64)
    """
    eps = torchlite.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities: log-odds when is_binary, otherwise log-probabilities."""
    clamped = clamp_probs(probs)
    if is_binary:
        return torchlite.log(clamped) - torchlite.log1p(-clamped)
    return torchlite.log(clamped)


class lazy_property:
    """A method computed on first access and then stored on the instance (a non-data
    descriptor), under grad mode so that the stored value keeps its graph."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torchlite.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property looks like on the class: a property for documentation tools, and a
    lazy_property for Distribution's argument validation (which skips lazy arguments)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag, device):
    arange = torchlite.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The elements of mat's (batched) lower triangle, from diagonal `diag` down, in row order."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The (batched) D x D lower-triangular matrix whose triangle from diagonal `diag` down holds
    vec's elements in row order (the inverse of tril_matrix_to_vec)."""
    # D is the positive root of D**2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 len = 0
    b = 1 + 2 * diag
    n = (-b + (b * b + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > torchlite.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat


def _probs_or_logits(probs, logits):
    """The one parameter given (ValueError unless exactly one is)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if probs is not None else ("logits", logits)

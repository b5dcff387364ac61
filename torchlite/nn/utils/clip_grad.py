"""Gradient clipping: by total norm (clip_grad_norm_) or elementwise (clip_grad_value_)."""

import math

from torchlite import _C
from torchlite._C import Tensor
from torchlite.autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"]


def _vector_norm(t, p):
    """The p-norm of all elements of `t` (a 0-dim tensor), p in [0, inf]."""
    a = t.abs()
    if p == math.inf:
        return a.amax() if a.numel() else _C.zeros((), dtype=t.dtype, device=t.device)
    if p == -math.inf:
        return a.amin()
    if p == 0:
        return (a != 0).sum().to(t.dtype)
    if p == 1:
        return a.sum()
    if p == 2:
        return (a * a).sum().sqrt()
    return a.pow(p).sum().pow(1.0 / p)


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients of `parameters` in place so their joint norm is at most max_norm.

    Returns the total norm of the gradients (before clipping), as a 0-dim tensor.
    """
    grads = _grads(parameters)
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if not grads:
        return _C.tensor(0.0)
    device = grads[0].device
    with no_grad():
        norms = [_vector_norm(g, norm_type).to(device) for g in grads]
        total_norm = _vector_norm(_C.stack(norms), norm_type)
        if error_if_nonfinite and not math.isfinite(total_norm.item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               "so it cannot be clipped. To disable this error and scale the gradients by the "
                               "non-finite norm anyway, set `error_if_nonfinite=False`")
        clip_coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(clip_coef.to(g.device, g.dtype))
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of clip_grad_norm_."""
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element of `parameters` to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)

"""Gradient clipping: by total norm (clip_grad_norm_, or get_total_norm then clip_grads_with_norm_)
or elementwise (clip_grad_value_)."""

import math
import types
import warnings

from torchlite import _C
from torchlite._C import Tensor
from torchlite.autograd.grad_mode import no_grad
from torchlite.linalg import vector_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]


def _by_device_and_dtype(tensors):
    groups = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups.items()


def _use_foreach(foreach, device):
    """Whether to call the _foreach kernels (CPU only in torchlite) for tensors on `device`."""
    supported = device.type == "cpu"
    if foreach and not supported:
        raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")
    return supported if foreach is None else foreach


def _as_list(tensors):
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (the norm of all their elements as one vector), a 0-dim tensor."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _C.tensor(0.0)
    first_device = tensors[0].device
    # torchlite's _foreach_norm kernel takes ord > 0 or +-inf; other orders go tensor by tensor
    foreach_ord = norm_type > 0 or math.isinf(norm_type)
    with no_grad():
        norms = []
        for (device, _), group in _by_device_and_dtype(tensors):
            if _use_foreach(foreach, device) and foreach_ord:
                norms.extend(_C._foreach_norm(group, norm_type))
            else:
                norms.extend(vector_norm(t, norm_type) for t in group)
        total_norm = vector_norm(_C.stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and not math.isfinite(total_norm.item()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total_norm


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients of `parameters` in place by min(max_norm / (total_norm + 1e-6), 1)."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for (device, _), group in _by_device_and_dtype(grads):
            if _use_foreach(foreach, device):
                _C._foreach_mul_(group, coef.to(device))
            else:
                coef_on_device = coef.to(device)
                for g in group:
                    g.mul_(coef_on_device)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients of `parameters` in place so their joint norm is at most max_norm.

    Returns the total norm of the gradients (before clipping), as a 0-dim tensor.
    """
    if isinstance(parameters, types.GeneratorType):
        parameters = list(parameters)
        if not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    parameters = _as_list(parameters)
    total_norm = get_total_norm([p.grad for p in parameters if p.grad is not None], norm_type, error_if_nonfinite,
                                foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element of `parameters` to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with no_grad():
        for (device, _), group in _by_device_and_dtype([p.grad for p in _as_list(parameters) if p.grad is not None]):
            _use_foreach(foreach, device)  # refuses foreach=True where no foreach kernel exists, as PyTorch
            for g in group:
                g.clamp_(min=-clip_value, max=clip_value)

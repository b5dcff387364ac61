"""torchlite.nn.functional: batch/layer/group normalisation and normalize."""

import numbers

from torchlite import _C
from torchlite.nn.functional.distance import _vector_norm

__all__ = ["batch_norm", "group_norm", "layer_norm", "normalize", "rms_norm"]

# Machine epsilon per floating dtype name: rms_norm's default eps, as torch.finfo(dtype).eps.
_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


def _verify_batch_size(size):
    count = size[0]
    for s in size[2:]:
        count *= s
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        _verify_batch_size(list(input.shape))
    return _C.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    return _C.layer_norm(input, list(normalized_shape), weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    if num_groups > 0 and input.shape[1] % num_groups == 0:
        _verify_batch_size([input.shape[0] * input.shape[1] // num_groups, num_groups] + list(input.shape[2:]))
    return _C.group_norm(input, num_groups, weight, bias, eps, False)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    if tuple(input.shape[input.dim() - len(normalized_shape):]) != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    if eps is None:
        eps = _EPS[str(input.dtype).split(".")[-1]]
    dims = tuple(range(-len(normalized_shape), 0))
    y = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return y * weight if weight is not None else y


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    result = input / _vector_norm(input, p, dim, keepdim=True, min_norm=eps)
    if out is None:
        return result
    return out.copy_(result)

"""torchlite.nn.functional: batch/layer/group/instance/RMS/local-response normalisation and normalize."""

import numbers

from torchlite import _C
from torchlite._dtype_info import cpp_dtype_name
from torchlite.autograd.grad_mode import no_grad
from torchlite.nn.functional.distance import _vector_norm

__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "local_response_norm", "normalize", "rms_norm"]

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


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if use_input_stats:
        count = 1
        for s in input.shape[2:]:
            count *= s
        if count == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.size()}")
    return _instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def _instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps):
    """Batch norm over a (1, N * C, *) view: each (sample, channel) pair is its own channel. The
    running statistics, repeated per sample, come back averaged over the batch."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    n, c = input.shape[0], input.shape[1]
    repeat = lambda t: None if t is None else t.repeat(n)  # noqa: E731
    mean_nc, var_nc = repeat(running_mean), repeat(running_var)
    out = _C.batch_norm(input.reshape([1, n * c] + list(input.shape[2:])), repeat(weight), repeat(bias), mean_nc,
                        var_nc, use_input_stats, momentum, eps, False)
    if use_input_stats:
        with no_grad():
            for stat, stat_nc in ((running_mean, mean_nc), (running_var, var_nc)):
                if stat is not None:
                    stat.copy_(stat_nc.view(n, c).mean(0))
    return out.view(input.shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of input^2 over `size` neighbouring channels) ** beta; the window
    is zero-padded at the channel ends and always divides by `size`."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    if not (input.is_floating_point() or input.is_complex() or input.dtype == _C.int64):
        # PyTorch averages the window with avg_pool, which has no kernel for these dtypes
        pool = "avg_pool2d" if input.dim() == 3 else "avg_pool3d_out_frame"
        raise NotImplementedError(f'"{pool}" not implemented for \'{cpp_dtype_name(input.dtype)}\'')
    if input.numel() == 0:
        return input
    channels = input.shape[1]
    sq = input * input
    pad_shape = list(input.shape)
    pad_shape[1] = size // 2
    padded = _C.cat([sq.new_zeros(pad_shape), sq, sq.new_zeros(pad_shape[:1] + [(size - 1) // 2] + pad_shape[2:])], 1)
    window = padded.narrow(1, 0, channels)
    for i in range(1, size):
        window = window + padded.narrow(1, i, channels)
    # an int64 window is averaged as avg_pool averages integers: truncated
    mean = window.div(size, rounding_mode="trunc") if input.dtype == _C.int64 else window / size
    return input / (mean * alpha + k).pow(beta)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    result = input / _vector_norm(input, p, dim, keepdim=True, min_norm=eps)
    if out is None:
        return result
    return out.copy_(result)

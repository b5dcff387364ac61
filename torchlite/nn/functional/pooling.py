"""torchlite.nn.functional: pooling.

Max pooling returns (values, indices) from the *_with_indices operators; the indices are flat
positions within each input plane, as in PyTorch."""

import math

from torchlite import _C
from torchlite.nn.modules.utils import _ntuple, _pair, _triple

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool2d_with_indices", "max_pool3d",
           "max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _stride(stride):
    # stride=None (or []) means the kernel size, as the operators' `stride=[]` default does.
    return [] if stride is None else stride


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _C.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _C.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _C._nn.max_pool2d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _C.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _C._nn.max_pool3d_with_indices(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _C.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


avg_pool1d = _C.avg_pool1d  # as in PyTorch, the operator itself (stride=() or None: kernel_size)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _C._nn.avg_pool2d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                             divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _C._nn.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                             divisor_override)


def _lp_pool(avg_pool, input, norm_type, kernel_size, nd, stride, ceil_mode):
    """(sum over each window of x^p)^(1/p): the window mean of x^p times the window size; the sign
    and relu keep a negative mean (odd p) from a fractional power, as PyTorch does."""
    kernel = _ntuple(nd, "kernel_size")(kernel_size)
    out = avg_pool(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    return (out.sign() * out.abs().relu()).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(avg_pool1d, input, norm_type, kernel_size, 1, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(avg_pool2d, input, norm_type, kernel_size, 2, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(avg_pool3d, input, norm_type, kernel_size, 3, stride, ceil_mode)


def _output_size(input, output_size, nd):
    """output_size as a list of nd ints; None entries keep the input's size."""
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * nd
    if len(sizes) != nd:
        raise ValueError(f"output_size must be an int or a tuple of {nd} values, but got {output_size!r}")
    return [input.shape[input.dim() - nd + i] if s is None else s for i, s in enumerate(sizes)]


def adaptive_avg_pool1d(input, output_size):
    return _C.adaptive_avg_pool1d(input, _output_size(input, output_size, 1))


def adaptive_avg_pool2d(input, output_size):
    return _C._nn.adaptive_avg_pool2d(input, _output_size(input, output_size, 2))


def adaptive_avg_pool3d(input, output_size):
    return _C._nn.adaptive_avg_pool3d(input, _output_size(input, output_size, 3))


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _C.adaptive_max_pool1d(input, _output_size(input, output_size, 1))


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = adaptive_max_pool1d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _C._nn.adaptive_max_pool2d(input, _output_size(input, output_size, 2))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = adaptive_max_pool2d_with_indices(input, output_size)
    return out if return_indices else out[0]


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _C._nn.adaptive_max_pool3d(input, _output_size(input, output_size, 3))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    out = adaptive_max_pool3d_with_indices(input, output_size)
    return out if return_indices else out[0]


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """The spatial size max unpooling restores: the size the pooling came from by default, or
    `output_size` (its trailing dims), which must lie within a stride of that size."""
    nd = len(kernel_size)
    default = [(input.shape[input.dim() - nd + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(nd)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for d in range(nd):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _unpool_args(nd, kernel_size, stride, padding):
    expand = _ntuple(nd, "_unpool")
    kernel = expand(kernel_size)
    return kernel, expand(stride) if stride is not None else kernel, expand(padding)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel, stride, padding = _unpool_args(1, kernel_size, stride, padding)
    size = _unpool_output_size(input, kernel, stride, padding, output_size)
    # as 2-d with a trailing width of 1: the flat indices are unchanged
    return _C._nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), [*size, 1]).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel, stride, padding = _unpool_args(2, kernel_size, stride, padding)
    return _C._nn.max_unpool2d(input, indices, _unpool_output_size(input, kernel, stride, padding, output_size))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    kernel, stride, padding = _unpool_args(3, kernel_size, stride, padding)
    size = _unpool_output_size(input, kernel, stride, padding, output_size)
    return _C._nn.max_unpool3d(input, indices, size, stride, padding)
def _fractional_max_pool(nd, input, kernel_size, output_size, output_ratio, _random_samples):
    """fractional_max_pool{nd}d's (values, indices); `_random_samples` (N, C, nd) in [0, 1) fixes the
    windows (drawn when None)."""
    name = f"fractional_max_pool{nd}d"
    expand = _pair if nd == 2 else _triple
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nd == 2 and isinstance(output_ratio, (list, tuple)) and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = expand(output_ratio)
        output_size = [int(input.size(d - nd) * ratio[d]) for d in range(nd)]
    if _random_samples is None:
        batch = 1 if input.dim() == nd + 1 else input.size(0)
        _random_samples = _C.rand(batch, input.size(-nd - 1), nd, dtype=input.dtype, device=input.device)
    op = _C._nn.fractional_max_pool2d if nd == 2 else _C._nn.fractional_max_pool3d
    return op(input, expand(kernel_size), expand(output_size), _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """(values, indices); `_random_samples` (N, C, 2) in [0, 1) fixes the windows (drawn when None)."""
    return _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """(values, indices); `_random_samples` (N, C, 3) in [0, 1) fixes the windows (drawn when None)."""
    return _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]

"""torchlite.nn.functional: convolutions.

Thin wrappers over the generated operators (padding="same"/"valid" is the operators' str
overload, as in PyTorch)."""

from torchlite import _C

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _C.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)

"""Folding an eval-mode BatchNorm into the convolution or linear layer before it."""

import copy

from torchlite import _C
from torchlite.nn.parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _check_eval(layer, bn):
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` whose output equals bn(conv(x)) with bn's running statistics."""
    _check_eval(conv, bn)
    fused_conv = copy.deepcopy(conv)
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias, transpose)
    return fused_conv


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The (weight, bias) Parameters of a convolution followed by batch norm (output channels in dim 0,
    or dim 1 when `transpose`)."""
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    conv_b = _C.zeros_like(bn_rm) if conv_b is None else conv_b
    bn_w = _C.ones_like(bn_rm) if bn_w is None else bn_w
    bn_b = _C.zeros_like(bn_rm) if bn_b is None else bn_b
    bn_var_rsqrt = _C.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
    fused_w = (conv_w * (bn_w * bn_var_rsqrt).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` whose output equals bn(linear(x)) with bn's running statistics."""
    _check_eval(linear, bn)
    # bn's channels must broadcast against the linear's output features to keep its shapes
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    fused_linear = copy.deepcopy(linear)
    fused_linear.weight, fused_linear.bias = fuse_linear_bn_weights(
        fused_linear.weight, fused_linear.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused_linear


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The (weight, bias) Parameters of a linear layer followed by batch norm."""
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    linear_b = _C.zeros_like(bn_rm) if linear_b is None else linear_b
    bn_scale = bn_w * _C.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * bn_scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * bn_scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)

"""torchlite.nn.functional: activation functions.

Each function calls its operator (torchlite._C._nn for the nn operators, as torch._C._nn);
`inplace=True` calls the in-place operator and returns the input."""

from torchlite import _C
from torchlite._dtype_info import cpp_dtype_name

__all__ = ["celu", "celu_", "elu", "elu_", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh",
           "hardtanh_", "leaky_relu", "leaky_relu_", "logsigmoid", "mish", "prelu", "relu", "relu_", "relu6", "rrelu",
           "rrelu_", "selu", "selu_", "sigmoid", "silu", "softplus", "softshrink", "softsign", "tanh", "tanhshrink",
           "threshold", "threshold_"]


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    return _C._nn.relu6_(input) if inplace else _C._nn.relu6(input)


def gelu(input, approximate="none"):
    return _C._nn.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return _C._nn.silu_(input) if inplace else _C._nn.silu(input)


def elu(input, alpha=1.0, inplace=False):
    return _C._nn.elu_(input, alpha) if inplace else _C._nn.elu(input, alpha)


def elu_(input, alpha=1.0):
    return _C._nn.elu_(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _C._nn.leaky_relu_(input, negative_slope) if inplace else _C._nn.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return _C._nn.leaky_relu_(input, negative_slope)


def softplus(input, beta=1.0, threshold=20.0):
    return _C._nn.softplus(input, beta, threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _C._nn.hardtanh_(input, min_val, max_val) if inplace else _C._nn.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def logsigmoid(input):
    return _C._nn.log_sigmoid(input)


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def threshold(input, threshold, value, inplace=False):
    return _C.threshold_(input, threshold, value) if inplace else _C.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return _C.threshold_(input, threshold, value)


hardshrink = _C.hardshrink  # as in PyTorch, the operator itself (with out=)


def softshrink(input, lambd=0.5):
    return _C._nn.softshrink(input, lambd)


def tanhshrink(input):
    return input - input.tanh()


def softsign(input):
    return input / (input.abs() + 1)


def selu(input, inplace=False):
    return _C.selu_(input) if inplace else _C.selu(input)


def selu_(input):
    return _C.selu_(input)


def celu(input, alpha=1.0, inplace=False):
    return _C.celu_(input, alpha) if inplace else _C.celu(input, alpha)


def celu_(input, alpha=1.0):
    return _C.celu_(input, alpha)


def hardsigmoid(input, inplace=False):
    return _C._nn.hardsigmoid_(input) if inplace else _C._nn.hardsigmoid(input)


def hardswish(input, inplace=False):
    return _C._nn.hardswish_(input) if inplace else _C._nn.hardswish(input)


def mish(input, inplace=False):
    return _C._nn.mish_(input) if inplace else _C._nn.mish(input)


def glu(input, dim=-1):
    """a * sigmoid(b), a and b the two halves of `input` along `dim`."""
    if not input.is_floating_point():  # a * sigmoid(b) would silently become a float of an integer input
        raise NotImplementedError(f'"glu_cpu" not implemented for \'{cpp_dtype_name(input.dtype)}\'')
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + input.dim() if dim < 0 else dim
    if d < 0 or d >= input.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.dim()}, {input.dim() - 1}], "
                         f"but got {dim})")
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


def prelu(input, weight):
    """max(0, x) + weight * min(0, x); a weight of several values holds one per channel (dim 1)."""
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {cpp_dtype_name(input.dtype)} and "
                           f"{cpp_dtype_name(weight.dtype)}")
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if input.dim() != weight.dim():
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)
    return _C.where(input > 0, input, weight * input)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    return _rrelu(input, lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu(input, lower, upper, training, True, generator)


def _rrelu(input, lower, upper, training, inplace, generator=None):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training and is
    (lower + upper) / 2 in eval mode."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        slope = (lower + upper) / 2
        return _C._nn.leaky_relu_(input, slope) if inplace else _C._nn.leaky_relu(input, slope)
    slopes = _C.empty_like(input).uniform_(lower, upper, generator=generator).masked_fill_(input > 0, 1.0)
    return input.mul_(slopes) if inplace else input * slopes


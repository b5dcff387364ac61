"""torchlite.nn.functional: activation functions.

Each function calls its operator (torchlite._C._nn for the nn operators, as torch._C._nn);
`inplace=True` calls the in-place operator and returns the input."""

from torchlite import _C

__all__ = ["elu", "elu_", "gelu", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "logsigmoid", "relu",
           "relu_", "relu6", "sigmoid", "silu", "softplus", "tanh"]


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

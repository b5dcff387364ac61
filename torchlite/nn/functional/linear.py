"""torchlite.nn.functional: linear (and bilinear) layers."""

from torchlite import _C

__all__ = ["bilinear", "linear"]

# y = x W^T + b: one addmm when there is a bias (aten/native/LinearAlgebra.cpp).
linear = _C._nn.linear
# y = x1^T W x2 + b, per output feature.
bilinear = _C.bilinear

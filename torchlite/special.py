"""torchlite.special: PyTorch's torch.special names over torchlite's operators.

Most are the operators themselves under scipy-style names (expit is sigmoid, gammaln is lgamma,
multigammaln is mvlgamma); i1 is the special_i1 operator; ndtr, ndtri, entr and round with
`decimals` are compositions."""

import math

import torchlite as _tl
from torchlite import _C

__all__ = [
    "digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i1", "log1p",
    "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc",
    "softmax",
]

digamma = psi = _tl.digamma
erf = _tl.erf
erfc = _tl.erfc
erfinv = _tl.erfinv
exp2 = _tl.exp2
expit = _tl.sigmoid
expm1 = _tl.expm1
gammaln = _tl.lgamma
i0 = _tl.i0
i1 = _C._special.special_i1
log1p = _tl.log1p
logit = _tl.logit
logsumexp = _tl.logsumexp
multigammaln = _tl.mvlgamma
polygamma = _tl.polygamma
sinc = _tl.sinc


def softmax(input, dim, *, dtype=None):
    return _tl.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _tl.log_softmax(input, dim, dtype=dtype)


def ndtr(input, *, out=None):
    """The standard normal CDF, erfc(-x / sqrt(2)) / 2 (erfc keeps the lower tail accurate)."""
    return _tl.mul(_tl.erfc(input.mul(-1 / math.sqrt(2))), 0.5, out=out)


def ndtri(input, *, out=None):
    """The inverse of ndtr: sqrt(2) erfinv(2p - 1)."""
    return _tl.mul(_tl.erfinv(input.mul(2).sub(1)), math.sqrt(2), out=out)


def entr(input, *, out=None):
    """-x log(x) elementwise: 0 at 0, -inf for negative x."""
    value = _tl.where(input == 0, 0.0, input.neg().mul(input.log()))
    return _tl.where(input < 0, _tl.full_like(value, -math.inf), value, out=out)


def round(input, *, decimals=0, out=None):
    """Round half to even to `decimals` places: round(x * 10^d) / 10^d, as PyTorch computes it."""
    if decimals == 0:
        return _tl.round(input, out=out)
    if decimals > 0:
        scale = 10.0 ** decimals
        return _tl.div(_tl.round(input.mul(scale)), scale, out=out)
    scale = 10.0 ** -decimals
    return _tl.mul(_tl.round(input.div(scale)), scale, out=out)

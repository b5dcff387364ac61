"""torchlite.special: PyTorch's torch.special names over torchlite's operators.

Most are the operators themselves under scipy-style names (expit is sigmoid, gammaln is lgamma,
multigammaln is mvlgamma); the special_* operators (i1, i0e, the Bessel functions, zeta,
gammainc, the orthogonal polynomials...) appear without their prefix; ndtr, ndtri, entr and round
with `decimals` are compositions."""

import math
import sys

import torchlite as _tl
from torchlite import _C
from torchlite.overrides import _make_overridable

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
    "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
    "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
    "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l", "legendre_polynomial_p",
    "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1",
    "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
    "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
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
airy_ai = _C._special.special_airy_ai
bessel_j0 = _C._special.special_bessel_j0
bessel_j1 = _C._special.special_bessel_j1
bessel_y0 = _C._special.special_bessel_y0
bessel_y1 = _C._special.special_bessel_y1
chebyshev_polynomial_t = _C._special.special_chebyshev_polynomial_t
chebyshev_polynomial_u = _C._special.special_chebyshev_polynomial_u
chebyshev_polynomial_v = _C._special.special_chebyshev_polynomial_v
chebyshev_polynomial_w = _C._special.special_chebyshev_polynomial_w
erfcx = _C._special.special_erfcx
gammainc = _C._special.special_gammainc
gammaincc = _C._special.special_gammaincc
hermite_polynomial_h = _C._special.special_hermite_polynomial_h
hermite_polynomial_he = _C._special.special_hermite_polynomial_he
i0e = _C._special.special_i0e
i1e = _C._special.special_i1e
laguerre_polynomial_l = _C._special.special_laguerre_polynomial_l
legendre_polynomial_p = _C._special.special_legendre_polynomial_p
log_ndtr = _C._special.special_log_ndtr
modified_bessel_i0 = _C._special.special_modified_bessel_i0
modified_bessel_i1 = _C._special.special_modified_bessel_i1
modified_bessel_k0 = _C._special.special_modified_bessel_k0
modified_bessel_k1 = _C._special.special_modified_bessel_k1
scaled_modified_bessel_k0 = _C._special.special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _C._special.special_scaled_modified_bessel_k1
shifted_chebyshev_polynomial_t = _C._special.special_shifted_chebyshev_polynomial_t
shifted_chebyshev_polynomial_u = _C._special.special_shifted_chebyshev_polynomial_u
shifted_chebyshev_polynomial_v = _C._special.special_shifted_chebyshev_polynomial_v
shifted_chebyshev_polynomial_w = _C._special.special_shifted_chebyshev_polynomial_w
spherical_bessel_j0 = _C._special.special_spherical_bessel_j0
xlog1py = _C._special.special_xlog1py
xlogy = _C._special.special_xlogy
zeta = _C._special.special_zeta
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


# The functions written in Python honour __torch_function__ as the generated operators do.
_make_overridable(globals(), [sys.modules[__name__]])

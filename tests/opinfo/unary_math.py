"""Registry entries: unary math (issue 13): inverse trig and hyperbolic functions, log2/log10,
frac, logit, sinc, the gamma family, Bessel I0/I1, sign helpers and PyTorch's aliases.

References are NumPy, or series written here (lgamma, digamma, polygamma, i1) where NumPy
has none."""

import math

import numpy as np

import torchlite as tl
from opinfo.core import FLOATING, OpInfo, SampleInput, rand
from opinfo.elementwise import _unary, _unary_op

WITH_INT = (*FLOATING, tl.int64)


def _lgamma(x):
    return np.vectorize(math.lgamma, otypes=[np.float64])(x).astype(x.dtype)


def _hurwitz_zeta(s, q, terms=64):
    """sum_k (q + k)^-s: a direct sum, then the integral, half a term and two Bernoulli terms."""
    q = np.asarray(q, dtype=np.float64)
    total = sum((q + k) ** -s for k in range(terms))
    a = q + terms
    return (total + a ** (1 - s) / (s - 1) + 0.5 * a ** -s + s * a ** (-s - 1) / 12
            - s * (s + 1) * (s + 2) * a ** (-s - 3) / 720)


def _digamma(x):
    """psi(x) = psi(x + 64) - sum_{k < 64} 1/(x + k), then the asymptotic series at x + 64."""
    x64 = np.asarray(x, dtype=np.float64)
    a = x64 + 64
    z = 1 / (a * a)
    asym = np.log(a) - 0.5 / a - z / 12 + z * z / 120 - z ** 3 / 252
    return (asym - sum(1 / (x64 + k) for k in range(64))).astype(np.asarray(x).dtype)


def _polygamma(n, x):
    if n == 0:
        return _digamma(x)
    return ((-1) ** (n + 1) * math.factorial(n) * _hurwitz_zeta(n + 1, x)).astype(x.dtype)


def _mvlgamma(x, p):
    return (sum(_lgamma(x.astype(np.float64) - j / 2) for j in range(p))
            + p * (p - 1) / 4 * math.log(math.pi)).astype(x.dtype)


def _i1(x):
    h = np.asarray(x, dtype=np.float64) / 2
    return sum(h ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1)) for k in range(40)).astype(x.dtype)


def _logit(x, eps=None):
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


def _logit_samples(dtype, rng):
    yield from _unary(0.05, 0.95)(dtype, rng)
    yield SampleInput((rand((2, 3), dtype, rng, 0.2, 0.8),), {"eps": 0.1})
    # Clamped values: no gradient test at the clamp's kinks.
    yield SampleInput((rand((3, 4), dtype, rng, -0.5, 1.5),), {"eps": 0.25}, grad=False)


def _polygamma_samples(dtype, rng):
    for n in range(4):
        yield SampleInput((n, rand((2, 3), dtype, rng, 0.5, 4.0)))
    yield SampleInput((2, rand((3,), dtype, rng, -2.9, -2.1)))  # negative, between poles
    yield SampleInput((1, rand((0, 3), dtype, rng, 0.5, 4.0)), grad=False)


def _mvlgamma_samples(dtype, rng):
    for p in (1, 2, 3):
        yield SampleInput((rand((2, 3), dtype, rng, 1.5, 5.0), p))
    yield SampleInput((rand((), dtype, rng, 1.5, 5.0), 4))


OPS = [
    _unary_op("asin", np.arcsin, low=-0.9, high=0.9),
    _unary_op("acos", np.arccos, low=-0.9, high=0.9),
    _unary_op("atan", np.arctan),
    _unary_op("sinh", np.sinh),
    _unary_op("cosh", np.cosh),
    _unary_op("asinh", np.arcsinh),
    _unary_op("acosh", np.arccosh, low=1.1, high=4.0),
    _unary_op("atanh", np.arctanh, low=-0.9, high=0.9),
    _unary_op("arcsin", np.arcsin, low=-0.9, high=0.9),
    _unary_op("arccos", np.arccos, low=-0.9, high=0.9),
    _unary_op("arctan", np.arctan),
    _unary_op("arcsinh", np.arcsinh),
    _unary_op("arccosh", np.arccosh, low=1.1, high=4.0),
    _unary_op("arctanh", np.arctanh, low=-0.9, high=0.9),
    _unary_op("log2", np.log2, low=0.5),
    _unary_op("log10", np.log10, low=0.5),
    _unary_op("frac", lambda x: x - np.trunc(x)),
    _unary_op("fix", np.fix, dtypes=WITH_INT),
    _unary_op("negative", np.negative, dtypes=WITH_INT),
    _unary_op("square", np.square, dtypes=WITH_INT),
    _unary_op("deg2rad", np.deg2rad, low=-360.0, high=360.0),
    _unary_op("rad2deg", np.rad2deg),
    # Not compared for gradients: PyTorch's sgn gradient is a ZeroTensor, which .numpy() refuses;
    # sgn is sign here, whose zero gradient the elementwise registry checks.
    _unary_op("sgn", np.sign, dtypes=WITH_INT, differentiable=False),
    _unary_op("signbit", np.signbit, dtypes=WITH_INT, inplace=False, differentiable=False),
    _unary_op("positive", np.positive, dtypes=WITH_INT, inplace=False, out=False),
    _unary_op("sinc", np.sinc),
    _unary_op("i0", np.i0),
    OpInfo("special_i1", _unary(), ref=_i1, op=lambda lib, *a, **kw: lib.special.i1(*a, **kw)),
    _unary_op("lgamma", _lgamma, low=0.5, high=4.0),
    _unary_op("digamma", _digamma, low=0.5, high=4.0),
    OpInfo("logit", _logit_samples, ref=_logit, supports_out=True, inplace=True),
    OpInfo("polygamma", _polygamma_samples, ref=_polygamma, supports_out=True),
    OpInfo("mvlgamma", _mvlgamma_samples, ref=_mvlgamma, supports_out=True, inplace=True),
]

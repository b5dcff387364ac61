"""Registry entries: torch.special's functions (Bessel and scaled Bessel functions, erfcx,
log_ndtr, xlog1py, zeta, the incomplete gamma functions, the orthogonal polynomials) and the
pointwise fmax, fmin and frexp.

SciPy is not a dependency, so the references are NumPy evaluations of other formulas: Bessel
functions from their integral representations (trapezoid rules on periodic or doubly infinite
integrands converge geometrically; Gauss-Legendre elsewhere), erfcx and log_ndtr from math.erfc,
the polynomials from numpy.polynomial, zeta from its Euler-Maclaurin sum, P(a, x) from its
series. Edge values, out= forms of the torch.special names and the accuracy against PyTorch over
wide ranges are in tests/test_special.py."""

import math

import numpy as np
from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre

import torchlite as tl
from helpers import NP_DTYPE
from opinfo.core import FLOATING, OpInfo, SampleInput, rand
from opinfo.unary_math import _hurwitz_zeta

_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(60)


def _gauss(f, a, b, panels=40):
    """Composite 60-point Gauss-Legendre rule of f over [a, b] (arrays broadcast against x)."""
    edges = np.linspace(a, b, panels + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        mid, half = (hi + lo) / 2, (hi - lo) / 2
        total = total + half * sum(w * f(mid + half * t) for t, w in zip(_GL_NODES, _GL_WEIGHTS))
    return total


def _float64(x):
    return np.asarray(x, dtype=np.float64)


def _like(x, value):
    """value in x's dtype when x is floating, else in the default float32."""
    return np.asarray(value).astype(x.dtype if np.asarray(x).dtype.kind == "f" else np.float32)


def _bessel_j(n, x):
    """J_n(x) = (1/2pi) int_0^2pi cos(n t - x sin t) dt: the trapezoid rule is exact to rounding
    once it has more points than |x| + n + 40."""
    t = np.linspace(0, 2 * np.pi, 257)[:-1]
    x64 = _float64(x)[..., None]
    return _like(x, np.cos(n * t - x64 * np.sin(t)).mean(axis=-1))


def _bessel_y(n, x):
    """Y_n(x) = (1/pi) int_0^pi sin(x sin t - n t) dt - (1/pi) int_0^inf (e^(nt) + (-1)^n e^(-nt))
    e^(-x sinh t) dt (DLMF 10.9.7)."""
    x64 = _float64(x)
    first = _gauss(lambda t: np.sin(x64 * np.sin(t) - n * t), 0.0, np.pi, panels=8)
    top = np.arcsinh(60.0 / x64.min()) if x64.size else 1.0
    second = _gauss(lambda t: (np.exp(n * t) + (-1) ** n * np.exp(-n * t)) * np.exp(-x64 * np.sinh(t)), 0.0, top)
    return _like(x, (first - second) / np.pi)


def _bessel_k(n, x, scaled=False):
    """K_n(x) = (1/2) int_-inf^inf e^(-x cosh t) cosh(n t) dt, by the trapezoid rule (geometric
    convergence for an analytic integrand on the line); e^x folded in when scaled."""
    t = np.linspace(-12, 12, 2401)
    x64 = _float64(x)[..., None]
    shift = x64 if scaled else 0.0
    vals = np.exp(-x64 * np.cosh(t) + shift) * np.cosh(n * t)
    return _like(x, vals.sum(axis=-1) * (t[1] - t[0]) / 2)


def _bessel_i(n, x, scaled=False):
    """I_n(x) = (1/pi) int_0^pi e^(x cos t) cos(n t) dt (trapezoid on the periodic integrand)."""
    t = np.linspace(0, 2 * np.pi, 257)[:-1]
    x64 = _float64(x)[..., None]
    shift = np.abs(x64) if scaled else 0.0
    return _like(x, (np.exp(x64 * np.cos(t) - shift) * np.cos(n * t)).mean(axis=-1))


def _airy_ai(x):
    """Ai(x) = sqrt(x/3) K_{1/3}(zeta) / pi for x > 0 and Ai(-z) = sqrt(z)/3 (J_{1/3} + J_{-1/3})(zeta),
    zeta = (2/3)|x|^(3/2) (DLMF 9.6.1, 9.6.6), with J_nu from DLMF 10.9.6 by Gauss-Legendre."""
    x64 = _float64(x)
    z = np.abs(x64)
    zeta = np.maximum(2 / 3 * z ** 1.5, 1e-300)
    t = np.linspace(-12, 12, 2401)
    k13 = (np.exp(-zeta[..., None] * np.cosh(t)) * np.cosh(t / 3)).sum(axis=-1) * (t[1] - t[0]) / 2

    def j(nu):
        first = _gauss(lambda u: np.cos(nu * u - zeta * np.sin(u)), 0.0, np.pi, panels=8) / np.pi
        second = _gauss(lambda u: np.exp(-zeta * np.sinh(u) - nu * u), 0.0, 8.0) * np.sin(nu * np.pi) / np.pi
        return first - second

    neg = np.sqrt(z) / 3 * (j(1 / 3) + j(-1 / 3))
    pos = np.sqrt(z / 3) * k13 / np.pi
    return _like(x, np.where(x64 > 0, pos, neg))


_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _erfcx(x):
    x64 = _float64(x)
    return _like(x, np.exp(x64 * x64) * _erfc(x64))


def _log_ndtr(x):
    return _like(x, np.log(_erfc(-_float64(x) / math.sqrt(2)) / 2))


def _xlog1py(x, y):
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x == 0, 0.0, x * np.log1p(_float64(y)))
    return r.astype(np.result_type(x, y, np.float32))


def _zeta(s, q):
    s, q = np.asarray(s), np.asarray(q)
    return _hurwitz_zeta(_float64(s)[...], _float64(q)).astype(np.result_type(s, q, np.float32))


def _igamma(a, x, upper=False):
    """P(a, x) = x^a e^-x sum_n x^n / Gamma(a + n + 1): positive terms, summed in float64."""
    a64, x64 = np.broadcast_arrays(_float64(a), _float64(x))
    lg = np.vectorize(math.lgamma, otypes=[np.float64])
    total = sum(np.exp(a64 * np.log(x64) - x64 + n * np.log(x64) - lg(a64 + n + 1)) for n in range(400))
    return (1 - total if upper else total).astype(np.result_type(a, x))


def _poly(module, shift=False):
    def ref(x, n):
        x, n = np.asarray(x), np.asarray(n)
        out = np.empty(np.broadcast_shapes(x.shape, n.shape))
        xb, nb = np.broadcast_to(_float64(x), out.shape), np.broadcast_to(_float64(n), out.shape)
        for idx in np.ndindex(out.shape):
            # Truncated as PyTorch does; NaN and out-of-int64 degrees count as negative.
            deg = int(nb[idx]) if -1 < nb[idx] < 9.2e18 else -1
            xv = 2 * xb[idx] - 1 if shift else xb[idx]
            out[idx] = module.eval(xv, deg) if deg >= 0 else 0.0
        return out.astype(np.result_type(x, n, np.float32))
    return ref


class _Cheb:
    """Chebyshev polynomials of the four kinds in the basis of the first kind."""

    def __init__(self, kind):
        self.kind = kind

    def eval(self, x, n):
        # U_n = sum over T_k with the parity of n (T_0 halved); V_n = U_n - U_{n-1};
        # W_n = U_n + U_{n-1}.
        def u(m):
            if m < 0:
                return 0.0
            c = np.zeros(m + 1)
            c[m % 2::2] = 2.0
            if m % 2 == 0:
                c[0] = 1.0
            return chebyshev.chebval(x, c)
        if self.kind == "t":
            return chebyshev.chebval(x, [0.0] * n + [1.0])
        if self.kind == "u":
            return u(n)
        return u(n) - u(n - 1) if self.kind == "v" else u(n) + u(n - 1)


class _Basis:
    """The degree-n member of a numpy.polynomial basis, through its `*val` function."""

    def __init__(self, val):
        self.val = val

    def eval(self, x, n):
        return self.val(x, [0.0] * n + [1.0])


_BASES = {"hermite_polynomial_h": _Basis(hermite.hermval), "hermite_polynomial_he": _Basis(hermite_e.hermeval),
          "laguerre_polynomial_l": _Basis(laguerre.lagval), "legendre_polynomial_p": _Basis(legendre.legval)}


def _special(name):
    return lambda lib, *a, **kw: getattr(lib.special, name)(*a, **kw)


def _unary_samples(low, high):
    def samples(dtype, rng):
        yield SampleInput((rand((2, 3), dtype, rng, low, high),))
        yield SampleInput((rand((5,), dtype, rng, low, high),))
        yield SampleInput((rand((0, 3), dtype, rng, low, high),), grad=False)
        yield SampleInput((rand((), dtype, rng, low, high),))
    return samples


def _special_unary(name, ref, low, high, differentiable=False, rtol=None, atol=None, dtypes=FLOATING):
    return OpInfo("special_" + name, _unary_samples(low, high), ref=ref, op=_special(name), dtypes=dtypes,
                  differentiable=differentiable, rtol=rtol, atol=atol)


def _poly_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng, -1.5, 1.5)
    degrees = np.array([0, 1, 2, 3, 5, 7, 10, 12], dtype=NP_DTYPE[dtype])
    yield SampleInput((x((8,)), degrees))
    yield SampleInput((x((3, 1)), degrees))  # broadcast
    yield SampleInput((x((2, 3)), 4))  # n_scalar
    yield SampleInput((x((2, 3)), np.array(-1.0, dtype=NP_DTYPE[dtype])))  # negative degree: 0
    yield SampleInput((x((0, 3)), 3), grad=False)


def _binary_samples(a_range, b_range, scalar):
    def samples(dtype, rng):
        a = lambda s: rand(s, dtype, rng, *a_range)
        b = lambda s: rand(s, dtype, rng, *b_range)
        yield SampleInput((a((2, 3)), b((2, 3))))
        yield SampleInput((a((2, 3)), b((3,))))
        yield SampleInput((a((2, 1, 3)), b((2, 1))))
        yield SampleInput((a((0, 3)), b((3,))), grad=False)
        if scalar is not None:
            yield SampleInput((a((2, 3)), scalar))
    return samples


def _xlog1py_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng, -2, 3).round()  # exact zeros
    yield SampleInput((x((2, 3)), rand((2, 3), dtype, rng, -0.5, 3)))
    yield SampleInput((x((2, 3)), rand((3,), dtype, rng, -0.5, 3)))
    yield SampleInput((x((2, 3)), 1.5))  # other_scalar
    yield SampleInput((x((0, 3)), rand((3,), dtype, rng, -0.5, 3)), grad=False)


def _xlogy_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng, -2, 3).round()
    yield SampleInput((x((2, 3)), rand((2, 3), dtype, rng, 0.5, 3)))
    yield SampleInput((x((2, 3)), 2.5))  # other_scalar


def _fminmax_samples(dtype, rng):
    yield from _binary_samples((-3, 3), (-3, 3), None)(dtype, rng)
    if dtype in FLOATING:
        a = np.array([1.0, np.nan, 2.0, np.nan, -1.0], dtype=NP_DTYPE[dtype])
        b = np.array([np.nan, 3.0, -1.0, np.nan, 4.0], dtype=a.dtype)
        yield SampleInput((a, b), grad=False)


def _frexp_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng, -100, 100),))
    yield SampleInput((np.array([0.0, -0.0, 1.0, -0.75, 1e-30, 3e20, np.inf, -np.inf, np.nan],
                                dtype=NP_DTYPE[dtype]),), grad=False)
    yield SampleInput((rand((0,), dtype, rng),), grad=False)


def _frexp_ref(x):
    m, e = np.frexp(x)
    finite = np.isfinite(x)
    return np.where(finite, m, x).astype(x.dtype), np.where(finite, e, 0).astype(np.int32)


_POLYS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w"]


OPS = [
    _special_unary("i0e", lambda x: _bessel_i(0, x, scaled=True), -8, 8, differentiable=True),
    _special_unary("i1e", lambda x: _bessel_i(1, x, scaled=True), -8, 8, differentiable=True),
    _special_unary("erfcx", _erfcx, -2, 6, differentiable=True),
    _special_unary("log_ndtr", _log_ndtr, -6, 4, differentiable=True),
    _special_unary("bessel_j0", lambda x: _bessel_j(0, x), -30, 30, atol=1e-6),
    _special_unary("bessel_j1", lambda x: _bessel_j(1, x), -30, 30, atol=1e-6),
    _special_unary("bessel_y0", lambda x: _bessel_y(0, x), 0.1, 30, atol=1e-6),
    _special_unary("bessel_y1", lambda x: _bessel_y(1, x), 0.1, 30, atol=1e-6),
    _special_unary("modified_bessel_i0", lambda x: _bessel_i(0, x), -8, 8),
    _special_unary("modified_bessel_i1", lambda x: _bessel_i(1, x), -8, 8),
    _special_unary("modified_bessel_k0", lambda x: _bessel_k(0, x), 0.05, 12),
    _special_unary("modified_bessel_k1", lambda x: _bessel_k(1, x), 0.05, 12),
    _special_unary("scaled_modified_bessel_k0", lambda x: _bessel_k(0, x, scaled=True), 0.05, 40),
    _special_unary("scaled_modified_bessel_k1", lambda x: _bessel_k(1, x, scaled=True), 0.05, 40),
    # PyTorch computes float32 Airy in float32 (relative error ~2e-5 at small x, more as x grows
    # negative); ours runs in double: these tolerances are PyTorch's error.
    _special_unary("airy_ai", _airy_ai, -6, 4, rtol=1e-4, atol=1e-5),
    _special_unary("spherical_bessel_j0", lambda x: _like(x, np.sinc(_float64(x) / np.pi)), -20, 20),
    OpInfo("special_xlog1py", _xlog1py_samples, ref=_xlog1py, op=_special("xlog1py")),
    # xlogy(x, y) = xlog1py(x, y - 1); its gradient is xlogy's, checked in the xlogy entry.
    OpInfo("special_xlogy", _xlogy_samples, ref=lambda x, y: _xlog1py(x, _float64(y) - 1).astype(
        np.result_type(x, y, np.float32)), op=_special("xlogy")),
    # The Scalar overloads are in tests/test_special.py: gradients here are for q (the second array).
    OpInfo("special_zeta", _binary_samples((1.5, 6), (0.5, 4), None), ref=_zeta, op=_special("zeta"), grad_args=(1,)),
    OpInfo("igamma", _binary_samples((0.2, 6), (0.1, 8), None), ref=_igamma, supports_out=True, inplace=True,
           grad_args=(1,), atol=1e-6, covers=("special_gammainc",)),
    OpInfo("igammac", _binary_samples((0.2, 6), (0.1, 8), None), ref=lambda a, x: _igamma(a, x, upper=True),
           supports_out=True, inplace=True, grad_args=(1,), atol=1e-6, covers=("special_gammaincc",)),
    *(OpInfo("special_" + n, _poly_samples, ref=_poly(_Cheb(n[-1])), op=_special(n), differentiable=False)
      for n in _POLYS),
    *(OpInfo("special_shifted_" + n, _poly_samples, ref=_poly(_Cheb(n[-1]), shift=True), op=_special("shifted_" + n),
             differentiable=False)
      for n in _POLYS),
    # float32 Hermite values near a zero come out of a recurrence over values ~1e6: rtol 1e-4.
    *(OpInfo("special_" + n, _poly_samples, ref=_poly(b), op=_special(n), differentiable=False,
             rtol=1e-4 if n.startswith("hermite") else None)
      for n, b in _BASES.items()),
    OpInfo("fmax", _fminmax_samples, ref=np.fmax, supports_out=True, dtypes=(*FLOATING, tl.int64, tl.bool)),
    OpInfo("fmin", _fminmax_samples, ref=np.fmin, supports_out=True, dtypes=(*FLOATING, tl.int64, tl.bool)),
    # out=(mantissa, exponent) is tested in tests/test_special.py (the registry's out= test builds
    # plain tuples, which the named tuple type does not take).
    OpInfo("frexp", _frexp_samples, ref=_frexp_ref),
]

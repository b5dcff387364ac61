"""torch.special beyond the registry (tests/opinfo/special.py): values at the edges, identities
that pin the functions down without SciPy, the out= forms and Scalar overloads of the
torch.special names, errors, and the accuracy against PyTorch over wide ranges (skipped without
PyTorch). The tolerances are the worst errors measured against PyTorch 2.13, rounded up."""

import math

import numpy as np
import pytest

import torchlite as tl
from helpers import TORCH

S = tl.special
inf, nan = math.inf, math.nan


def _t(values, dtype=tl.float64):
    return tl.tensor(values, dtype=dtype)


def _close(got, expected, rtol=1e-12, atol=0.0):
    np.testing.assert_allclose(got.numpy(), np.asarray(expected, dtype=np.float64), rtol=rtol, atol=atol,
                               equal_nan=True)


# ---- edges ------------------------------------------------------------------------------------

EDGES = [  # name, inputs, expected (PyTorch's values, or the mathematical limit where noted)
    ("i0e", [-inf, 0.0, inf, nan], [0.0, 1.0, 0.0, nan]),
    ("i1e", [-inf, 0.0, inf, nan], [-0.0, 0.0, 0.0, nan]),
    ("erfcx", [-inf, 0.0, inf, nan, -30.0], [inf, 1.0, 0.0, nan, inf]),
    ("log_ndtr", [-inf, 0.0, inf, nan], [-inf, -math.log(2), -0.0, nan]),
    ("bessel_y0", [-1.0, 0.0, nan], [nan, -inf, nan]),
    ("bessel_y1", [-1.0, 0.0, nan], [nan, -inf, nan]),
    ("bessel_j0", [0.0, nan], [1.0, nan]),
    ("bessel_j1", [0.0, nan], [0.0, nan]),
    ("modified_bessel_k0", [-1.0, 0.0, inf, nan], [nan, inf, 0.0, nan]),
    ("modified_bessel_k1", [-1.0, 0.0, inf, nan], [nan, inf, 0.0, nan]),
    ("scaled_modified_bessel_k0", [-1.0, 0.0, inf, nan], [nan, inf, 0.0, nan]),
    ("scaled_modified_bessel_k1", [-1.0, 0.0, inf, nan], [nan, inf, 0.0, nan]),
    ("spherical_bessel_j0", [-inf, 0.0, inf, nan], [0.0, 1.0, 0.0, nan]),
    ("airy_ai", [0.0, nan], [0.35502805388781723926, nan]),
    # PyTorch gives NaN at infinity for these; the limits are 0. (I0 and I1 at infinity stay NaN
    # as torch.i0 gives.)
    ("bessel_j0", [inf, -inf], [0.0, 0.0]),
    ("bessel_y0", [inf], [0.0]),
    ("modified_bessel_i0", [inf, -inf, 0.0], [nan, nan, 1.0]),
    ("airy_ai", [inf, -inf], [0.0, 0.0]),
]


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
@pytest.mark.parametrize("name,x,expected", EDGES)
def test_edges(name, x, expected, dtype):
    got = getattr(S, name)(_t(x, dtype))
    assert got.dtype == dtype
    _close(got, expected, rtol=1e-6 if dtype == tl.float32 else 1e-12)
    number = ~np.isnan(np.asarray(expected))
    assert list(np.signbit(got.numpy())[number]) == list(np.signbit(np.asarray(expected))[number])


def test_zeta_and_incomplete_gamma_edges():
    _close(S.zeta(_t([inf, 2.0, 2.0, 2.5, 0.5, 1.0]), _t([1.0, inf, -2.0, -2.5, 1.0, 1.0])),
           [1.0, nan, inf, nan, nan, inf])
    a, x = _t([0.0, 0.0, 1.0, inf, inf, 1.0, -1.0]), _t([0.0, 1.0, 0.0, 1.0, inf, inf, 1.0])
    _close(tl.igamma(a, x), [nan, 1.0, 0.0, 0.0, nan, 1.0, nan])
    _close(tl.igammac(a, x), [nan, 0.0, 1.0, 1.0, nan, 0.0, nan])


def test_polynomial_edges():
    x = _t([-1.0, 1.0])
    # At -1: T_n = (-1)^n, U_n = (-1)^n (n + 1), V_n = (-1)^n (2n + 1), W_n = (-1)^n; at 1: 1, n + 1, 1, 2n + 1.
    for n, (t, u, v) in enumerate([(1, 1, 1), (-1, -2, -3), (1, 3, 5), (-1, -4, -7)]):
        _close(S.chebyshev_polynomial_t(x, n), [t, 1])
        _close(S.chebyshev_polynomial_u(x, n), [u, n + 1])
        _close(S.chebyshev_polynomial_v(x, n), [v, 1])
        _close(S.chebyshev_polynomial_w(x, n), [(-1) ** n, 2 * n + 1])
    # Degrees are truncated; negative and NaN degrees give 0, as in PyTorch.
    _close(S.legendre_polynomial_p(_t([0.5, 0.5, 0.5]), _t([3.7, -1.0, nan])), [-0.4375, 0.0, 0.0])
    _close(S.laguerre_polynomial_l(_t([0.0, 0.0]), _t([5.0, -1.0])), [1.0, 0.0])
    # High degrees overflow: NaN beyond PyTorch's cap (float32 past 128).
    assert math.isnan(S.hermite_polynomial_h(_t([0.5], tl.float32), 200).item())


# ---- identities -------------------------------------------------------------------------------

X = np.concatenate([np.linspace(-40, 40, 801), [1e-8, -1e-8, 1e-3]])


def test_scaled_bessel_identities():
    x = _t(X)
    _close(S.i0e(x), np.exp(-np.abs(X)) * tl.i0(x).numpy(), rtol=1e-14)
    _close(S.i1e(x), np.exp(-np.abs(X)) * S.i1(x).numpy(), rtol=1e-14)
    pos = _t(np.linspace(0.01, 40, 400))
    _close(S.scaled_modified_bessel_k0(pos), S.modified_bessel_k0(pos).numpy() * np.exp(pos.numpy()), rtol=1e-14)
    # The Wronskian I0 K1 + I1 K0 = 1/x ties the K functions to the I functions.
    w = S.modified_bessel_i0(pos) * S.modified_bessel_k1(pos) + S.modified_bessel_i1(pos) * S.modified_bessel_k0(pos)
    _close(w, 1 / pos.numpy(), rtol=1e-13)


def test_bessel_jy_wronskian():
    # J1 Y0 - J0 Y1 = 2 / (pi x), across the three methods (series, recurrence, asymptotic).
    x = np.linspace(0.05, 60, 2000)
    t = _t(x)
    w = S.bessel_j1(t) * S.bessel_y0(t) - S.bessel_j0(t) * S.bessel_y1(t)
    _close(w, 2 / (np.pi * x), rtol=1e-12)


def test_erfcx_and_log_ndtr_closed_forms():
    x = np.linspace(-5, 5, 101)
    _close(S.erfcx(_t(x)), np.exp(x * x) * np.vectorize(math.erfc)(x), rtol=1e-13)
    erfc = np.vectorize(math.erfc)
    upper = np.log1p(-erfc(x / math.sqrt(2)) / 2)  # log of a value near 1: through log1p
    _close(S.log_ndtr(_t(x)), np.where(x > 0, upper, np.log(erfc(-x / math.sqrt(2)) / 2)), rtol=1e-13)
    # Far in the lower tail log Phi(x) ~ -x^2/2 - log(-x sqrt(2 pi)) - 1/x^2 + 5/(2x^4).
    xs = np.array([-1e3, -1e5])
    _close(S.log_ndtr(_t(xs)), -xs ** 2 / 2 - np.log(-xs * math.sqrt(2 * math.pi)) - 1 / xs ** 2, rtol=1e-14)


def test_zeta_known_values():
    _close(S.zeta(_t([2.0, 4.0, 6.0]), 1.0), [math.pi ** 2 / 6, math.pi ** 4 / 90, math.pi ** 6 / 945], rtol=1e-14)
    _close(S.zeta(2.0, _t([0.5])), [math.pi ** 2 / 2], rtol=1e-14)  # self_scalar


def test_incomplete_gamma_closed_forms():
    x = np.concatenate([np.linspace(0.01, 30, 300), [50.0, 100.0]])
    _close(tl.igamma(_t(np.ones_like(x)), _t(x)), -np.expm1(-x), rtol=1e-13)
    _close(tl.igammac(_t(np.ones_like(x)), _t(x)), np.exp(-x), rtol=1e-12)
    erf = np.vectorize(math.erf)
    _close(S.gammainc(_t(np.full_like(x, 0.5)), _t(x)), erf(np.sqrt(x)), rtol=1e-13)
    _close(S.gammaincc(_t(np.full_like(x, 0.5)), _t(x)), np.vectorize(math.erfc)(np.sqrt(x)), rtol=1e-11)


# ---- torch.special forms ----------------------------------------------------------------------

UNARY = ["airy_ai", "i0e", "i1e", "erfcx", "log_ndtr", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
         "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
         "scaled_modified_bessel_k1", "spherical_bessel_j0"]
BINARY = ["xlog1py", "xlogy", "zeta", "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
          "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
          "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
          "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_out_and_integer_inputs(name):
    f = getattr(S, name)
    x = _t([0.5, 1.5, 2.5])
    out = tl.empty(0, dtype=tl.float64)
    assert f(x, out=out) is out
    _close(out, f(x).numpy(), rtol=0)
    # Integers compute in the default float dtype.
    ints = f(tl.tensor([1, 2, 3]))
    assert ints.dtype == tl.float32
    _close(ints, f(_t([1.0, 2.0, 3.0], tl.float32)).numpy(), rtol=0)


@pytest.mark.parametrize("name", BINARY)
def test_binary_scalar_overloads_and_out(name):
    f = getattr(S, name)
    a, b = _t([1.5, 2.5, 3.0]), _t([2.0, 3.0, 4.0])
    full = f(a, b).numpy()
    _close(f(1.5, b), f(_t([1.5, 1.5, 1.5]), b).numpy(), rtol=0)
    _close(f(a, 3.0), f(a, _t([3.0, 3.0, 3.0])).numpy(), rtol=0)
    for args in ((a, b), (1.5, b), (a, 3.0)):
        out = tl.empty(0, dtype=tl.float64)
        assert f(*args, out=out) is out
        _close(out, f(*args).numpy(), rtol=0)
    assert f(a, b).shape == full.shape
    assert f(tl.tensor([1, 2]), tl.tensor([2, 3])).dtype == tl.float32


def test_gammainc_out_and_methods():
    a, x = _t([0.5, 2.0]), _t([1.0, 3.0])
    out = tl.empty(0, dtype=tl.float64)
    assert S.gammainc(a, x, out=out) is out
    _close(out, tl.igamma(a, x).numpy(), rtol=0)
    assert S.gammaincc(a, x, out=out) is out
    _close(out, a.igammac(x).numpy(), rtol=0)
    b = a.clone()
    assert b.igamma_(x) is b
    _close(b, a.igamma(x).numpy(), rtol=0)


def test_frexp_forms():
    x = _t([0.0, 1.5, -3.0, 1e-310])
    m, e = x.frexp()
    assert m.dtype == tl.float64 and e.dtype == tl.int32
    _close(m * tl.pow(2.0, e.double()), x.numpy())
    r = tl.frexp(x)
    assert r.mantissa is not None and r.exponent.dtype == tl.int32
    # out=(x, e) overwrites x with the mantissa after the exponent was read from it.
    e_out = tl.empty(0, dtype=tl.int32)
    y = x.clone()
    tl.frexp(y, out=(y, e_out))
    _close(y, m.numpy(), rtol=0)
    assert e_out.tolist() == e.tolist()


# ---- errors and gradients ---------------------------------------------------------------------

def test_errors():
    with pytest.raises(RuntimeError, match="only supports floating-point dtypes"):
        tl.frexp(tl.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="exponent to have int dtype"):
        tl.frexp(_t([1.0]), out=(tl.empty(1, dtype=tl.float64), tl.empty(1, dtype=tl.int64)))
    with pytest.raises(RuntimeError, match="mantissa to have dtype"):
        tl.frexp(_t([1.0]), out=(tl.empty(1, dtype=tl.float32), tl.empty(1, dtype=tl.int32)))
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        tl.igamma(tl.tensor([1, 2]), tl.tensor([1, 2]))


def test_gradients_where_pytorch_has_none():
    x = _t([0.5, 1.5]).requires_grad_()
    for name in ["bessel_j0", "modified_bessel_k0", "spherical_bessel_j0", "modified_bessel_i0"]:
        assert not getattr(S, name)(x).requires_grad
    assert not S.chebyshev_polynomial_t(x, 3).requires_grad
    assert not S.legendre_polynomial_p(0.5, x).requires_grad
    # zeta and igamma are differentiable in their second argument only.
    y = S.zeta(x.add(2), _t([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="not implemented"):
        y.sum().backward()


# ---- accuracy against PyTorch -------------------------------------------------------------------

def _grid(lo, hi, n=4001):
    return np.linspace(lo, hi, n)


def _geom(lo, hi, n=2001):
    return np.geomspace(lo, hi, n)


# name: (points, float64 (rtol, atol), float32 (rtol, atol)). Against mpmath at 30 digits our
# worst relative error is ~2e-15 in float64 (airy_ai: 5e-12 of the amplitude near x = -7, where
# its series and asymptotic expansion meet) and ~1e-6 in float32; PyTorch's own error is larger
# for the Bessel J/Y (up to 2e-6 near x = 5 in float64, 6e-4 at large x in float32) and Airy
# (1e-5 near x = -2): those tolerances are PyTorch's error, not ours.
ACCURACY = {
    "i0e": (np.concatenate([_grid(-50, 50), _geom(1e-6, 700)]), (5e-15, 0), (2e-6, 0)),
    "i1e": (np.concatenate([_grid(-50, 50), _geom(1e-6, 700)]), (5e-15, 0), (2e-6, 0)),
    "modified_bessel_i0": (_grid(-80, 80), (5e-15, 0), (2e-6, 0)),
    "modified_bessel_i1": (_grid(-80, 80), (5e-15, 0), (2e-6, 0)),
    "erfcx": (np.concatenate([_grid(-9, 50), _geom(1e-6, 1e6)]), (2e-14, 0), (6e-6, 0)),
    "log_ndtr": (np.concatenate([_grid(-40, 10), -_geom(1e-6, 1e5)]), (2e-14, 0), (1e-6, 0)),
    "bessel_j0": (np.concatenate([_grid(0, 60), _geom(1e-6, 1e4)]), (1e-5, 1e-6), (2e-3, 5e-6)),
    "bessel_j1": (np.concatenate([_grid(0, 60), _geom(1e-6, 1e4)]), (1e-5, 1e-6), (2e-3, 5e-6)),
    "bessel_y0": (np.concatenate([_grid(0.01, 60), _geom(1e-6, 1e4)]), (1e-5, 1e-6), (2e-3, 5e-6)),
    "bessel_y1": (np.concatenate([_grid(0.01, 60), _geom(1e-6, 1e4)]), (1e-5, 1e-6), (2e-3, 5e-6)),
    "modified_bessel_k0": (np.concatenate([_grid(0.001, 80), _geom(1e-6, 700)]), (2e-14, 0), (5e-6, 1e-37)),
    "modified_bessel_k1": (np.concatenate([_grid(0.001, 80), _geom(1e-6, 700)]), (2e-14, 0), (5e-6, 1e-37)),
    "scaled_modified_bessel_k0": (np.concatenate([_grid(0.001, 80), _geom(1e-6, 1e6)]), (2e-14, 0), (5e-6, 0)),
    "scaled_modified_bessel_k1": (np.concatenate([_grid(0.001, 80), _geom(1e-6, 1e6)]), (2e-14, 0), (5e-6, 0)),
    "airy_ai": (np.concatenate([_grid(-30, 30), _geom(1e-6, 100), -_geom(1e-6, 1e3)]), (3e-5, 5e-6), (3e-3, 2e-4)),
    "spherical_bessel_j0": (np.concatenate([_grid(-30, 30), _geom(1e-6, 1e3)]), (1e-14, 1e-16), (2e-6, 1e-7)),
}


@pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(ACCURACY))
def test_accuracy_against_torch(name, dtype):
    points, tol64, tol32 = ACCURACY[name]
    x = points.astype(dtype)
    ours = getattr(S, name)(tl.tensor(x)).numpy()
    theirs = getattr(TORCH.special, name)(TORCH.from_numpy(x)).numpy()
    rtol, atol = tol64 if dtype == "float64" else tol32
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)

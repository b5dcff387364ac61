"""Unary math (issue 13) beyond the registry: domain edges against PyTorch, dtype rules,
errors, polygamma_ and torchlite.special."""

import math

import numpy as np
import pytest

import torchlite as tl
from helpers import TORCH

needs_torch = pytest.mark.skipif(TORCH is None, reason="PyTorch is not installed")

EDGES = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -2.5, 1e-30, 30.0, 100.0, 800.0,
         math.inf, -math.inf, math.nan]
FLOAT_OPS = ["asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10", "frac",
             "sinc", "i0", "lgamma", "digamma", "logit", "deg2rad", "rad2deg", "square", "sgn", "fix", "negative"]


def _same(ours, theirs, rtol=1e-6):
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=0, equal_nan=True)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", FLOAT_OPS)
def test_domain_edges_match_torch(name, dtype):
    x = np.array(EDGES, dtype=dtype)
    _same(getattr(tl, name)(tl.tensor(x)), getattr(TORCH, name)(TORCH.from_numpy(x)),
          rtol=1e-5 if dtype == "float32" else 1e-12)


@needs_torch
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_polygamma_matches_torch(n):
    x = np.array([0.1, 0.5, 1.0, 2.5, 7.0, 30.0, -0.5, -1.5, -2.25, math.inf, math.nan])
    _same(tl.polygamma(n, tl.tensor(x)), TORCH.polygamma(n, TORCH.from_numpy(x)), rtol=1e-8)  # PyTorch's trigamma: ~5e-10


@needs_torch
def test_i0_i1_signbit_logit_eps_match_torch():
    x = np.array([0.0, -0.0, 0.3, -4.0, 12.0, 29.9, 30.1, -45.0, 700.0, -700.0, 720.0, math.nan])
    t = TORCH.from_numpy(x)
    _same(tl.i0(tl.tensor(x)), TORCH.i0(t), rtol=1e-13)
    _same(tl.special.i1(tl.tensor(x)), TORCH.special.i1(t), rtol=1e-13)
    assert tl.signbit(tl.tensor(x)).tolist() == TORCH.signbit(t).tolist()
    y = np.array([-1.0, 0.0, 0.05, 0.5, 0.97, 1.0, 2.0, math.nan])
    for eps in (None, 0.1, -1.0):
        _same(tl.logit(tl.tensor(y), eps), TORCH.logit(TORCH.from_numpy(y), eps), rtol=1e-13)


@needs_torch
@pytest.mark.parametrize("name", ["asin", "atanh", "log2", "sinc", "i0", "lgamma", "digamma", "logit",
                                  "deg2rad", "rad2deg", "square", "sgn", "fix", "negative", "signbit"])
@pytest.mark.parametrize("dtype", [tl.int64, tl.uint8, tl.bool])
def test_integer_and_bool_dtypes_match_torch(name, dtype):
    x = tl.tensor([0, 1, 2, 3]).to(dtype)
    t = TORCH.tensor([0, 1, 2, 3]).to(getattr(TORCH, str(dtype).split(".")[1]))
    try:
        expected = getattr(TORCH, name)(t)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            getattr(tl, name)(x)
        return
    got = getattr(tl, name)(x)
    assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    _same(got.double(), expected.double())


def test_errors():
    with pytest.raises(RuntimeError, match="negative n"):
        tl.polygamma(-1, tl.ones(2))
    with pytest.raises(RuntimeError, match="greater than or equal to 1"):
        tl.mvlgamma(tl.ones(2), 0)
    with pytest.raises(RuntimeError, match=r"greater than \(p-1\)/2"):
        tl.mvlgamma(tl.tensor([0.5, 3.0]), 2)
    with pytest.raises(RuntimeError, match="bool tensor"):
        tl.positive(tl.tensor([True]))
    with pytest.raises(RuntimeError, match="bool tensor"):
        tl.negative(tl.tensor([True]))
    with pytest.raises(RuntimeError):
        tl.frac(tl.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.tensor([1, 2]).polygamma_(1)
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.tensor([1, 2]).asin_()


def test_positive_returns_self_and_polygamma_inplace():
    x = tl.tensor([1.0, -2.0])
    assert tl.positive(x) is x
    y = tl.tensor([0.5, 2.0], dtype=tl.float64)
    expected = tl.polygamma(2, y)
    assert y.polygamma_(2) is y
    np.testing.assert_array_equal(y.numpy(), expected.numpy())


def test_polygamma_inplace_gradient():
    leaf = tl.tensor([0.7, 1.9], dtype=tl.float64, requires_grad=True)
    y = leaf.clone()
    y.polygamma_(1)
    (g,) = tl.autograd.grad(y.sum(), leaf)
    np.testing.assert_allclose(g.numpy(), tl.polygamma(2, leaf.detach()).numpy())


def test_special_i1_out_and_method_forms():
    x = tl.tensor([0.5, -1.5, 3.0], dtype=tl.float64)
    out = tl.empty(0, dtype=tl.float64)
    assert tl.special.i1(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), tl.special.i1(x).numpy())
    np.testing.assert_allclose(x.polygamma(1).numpy(), tl.polygamma(1, x).numpy())
    np.testing.assert_allclose(x.abs().mvlgamma(1).numpy(), tl.lgamma(x.abs()).numpy())


@needs_torch
@pytest.mark.parametrize("name,args", [
    ("expit", ()), ("logit", ()), ("exp2", ()), ("expm1", ()), ("log1p", ()), ("erf", ()), ("erfc", ()),
    ("gammaln", ()), ("digamma", ()), ("psi", ()), ("i0", ()), ("i1", ()), ("sinc", ()), ("ndtr", ()),
    ("entr", ()), ("round", ()), ("softmax", (0,)), ("log_softmax", (0,)), ("logsumexp", (0,)),
])
def test_special_matches_torch(name, args):
    x = np.array([-3.0, -0.7, 0.0, 0.2, 0.5, 0.999, 2.75])
    ours = getattr(tl.special, name)(tl.tensor(x), *args)
    theirs = getattr(TORCH.special, name)(TORCH.from_numpy(x), *args)
    _same(ours, theirs, rtol=1e-12)


@needs_torch
def test_special_composites_match_torch():
    x = np.array([-3.0, -0.7, 0.0, 0.2, 0.5, 2.75, 1234.5678])
    t = TORCH.from_numpy(x)
    for d in (-2, -1, 1, 2):
        _same(tl.special.round(tl.tensor(x), decimals=d), TORCH.special.round(t, decimals=d), rtol=1e-12)
    p = np.array([0.01, 0.3, 0.5, 0.9])
    _same(tl.special.ndtri(tl.tensor(p)), TORCH.special.ndtri(TORCH.from_numpy(p)), rtol=1e-10)
    y = np.array([1.5, 2.0, 4.0])
    _same(tl.special.multigammaln(tl.tensor(y), 3), TORCH.special.multigammaln(TORCH.from_numpy(y), 3), rtol=1e-12)
    _same(tl.special.polygamma(3, tl.tensor(y)), TORCH.special.polygamma(3, TORCH.from_numpy(y)), rtol=1e-12)
    out = tl.empty(0, dtype=tl.float64)
    assert tl.special.ndtr(tl.tensor(x), out=out) is out
    _same(out, TORCH.special.ndtr(t), rtol=1e-12)

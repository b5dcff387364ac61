"""Activations and pointwise math beyond the registry (tests/opinfo/math_activation.py): the
nn.functional wrappers with inplace=, the out= and in-place forms of the nn operators, clamp
with tensor bounds, special values, dtypes and error paths."""

import math

import numpy as np
import pytest

import torchlite as tl
from helpers import assert_close
from torchlite.autograd import gradcheck, gradgradcheck
from torchlite.nn import functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(shape=(3, 4), low=-3.0, high=3.0, dtype=np.float64, seed=0):
    a = np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)
    return tl.tensor(a), torch.from_numpy(a.copy())


ACTIVATIONS = [
    ("relu", {}), ("relu6", {}), ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("elu", {}),
    ("elu", {"alpha": 0.3}), ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("softplus", {}),
    ("softplus", {"beta": 2.0, "threshold": 4.0}), ("hardtanh", {}), ("hardtanh", {"min_val": -2.0, "max_val": 0.5}),
    ("logsigmoid", {}), ("tanh", {}), ("sigmoid", {}),
]


@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=[f"{n}-{k}" for n, k in ACTIVATIONS])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_functional_matches_torch(name, kw, dtype):
    x, tx = _pair(low=-8, high=8, dtype=dtype)
    x.requires_grad_()
    tx.requires_grad_()
    y, ty = getattr(F, name)(x, **kw), getattr(TF, name)(tx, **kw)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    assert_close(y, ty.detach().numpy(), rtol=tol, atol=tol)
    g = np.random.default_rng(1).standard_normal(ty.shape).astype(dtype)
    y.backward(tl.tensor(g))
    ty.backward(torch.from_numpy(g))
    assert_close(x.grad, tx.grad.numpy(), rtol=tol, atol=tol)


INPLACE = ["relu", "relu6", "silu", "elu", "leaky_relu", "hardtanh"]


@pytest.mark.parametrize("name", INPLACE)
def test_functional_inplace(name):
    x, tx = _pair()
    expected = getattr(TF, name)(tx).numpy()
    y = getattr(F, name)(x, inplace=True)
    assert y is x
    assert_close(x, expected)


@pytest.mark.parametrize("name", ["silu", "elu", "leaky_relu", "hardtanh"])
def test_inplace_activation_backward(name):
    # The in-place op saves what its formula needs before overwriting the input.
    x, tx = _pair()
    leaf, tleaf = x.clone().requires_grad_(), tx.clone().requires_grad_()
    getattr(F, name)(leaf * 1, inplace=True).sum().backward()
    getattr(TF, name)(tleaf * 1, inplace=True).sum().backward()
    assert_close(leaf.grad, tleaf.grad.numpy())


@pytest.mark.parametrize("name,args", [("gelu", ()), ("silu", ()), ("elu", (1.0, 1.0, 1.0)), ("leaky_relu", (0.1,)),
                                       ("softplus", (1.0, 20.0)), ("hardtanh", (-1.0, 1.0))])
def test_nn_out_form(name, args):
    x, tx = _pair()
    out = tl.empty(0, dtype=tl.float64)
    result = getattr(tl._C._nn, name)(x, *args, out=out)
    assert result is out
    assert_close(out, getattr(torch._C._nn, name)(tx, *args).numpy())


def test_gelu_float32_accuracy():
    # Note [Vectorisable erf]: a few ulp over the whole range, saturating to 0 and x.
    a = np.linspace(-10, 10, 20001, dtype=np.float32)
    for approximate in ("none", "tanh"):
        got = F.gelu(tl.tensor(a), approximate=approximate).numpy()
        ref = TF.gelu(torch.from_numpy(a).double(), approximate=approximate).numpy()
        np.testing.assert_allclose(got, ref, rtol=2e-6, atol=1e-6)  # 1 + erf cancels for x << 0
    got = tl.erf(tl.tensor(a)).numpy()
    np.testing.assert_allclose(got, torch.erf(torch.from_numpy(a).double()).numpy(), rtol=1e-6, atol=1e-7)


def test_activation_special_values():
    x = tl.tensor([float("nan"), float("inf"), -float("inf"), 0.0, 100.0, -100.0])
    tx = torch.tensor(x.numpy())
    for name in ("gelu", "silu", "elu", "leaky_relu", "softplus", "hardtanh", "relu6", "logsigmoid"):
        got, want = getattr(F, name)(x).numpy(), getattr(TF, name)(tx).numpy()
        if name == "gelu":  # PyTorch 2.13's float32 CPU gelu gives nan at +inf; the limit is +inf
            assert got[1] == np.inf
            got, want = np.delete(got, 1), np.delete(want, 1)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30, err_msg=name)


def test_activation_half_precision():
    a = np.random.default_rng(0).uniform(-4, 4, size=(64,)).astype(np.float32)
    for name in ("gelu", "silu", "elu", "leaky_relu", "softplus", "hardtanh"):
        got = getattr(F, name)(tl.tensor(a).to(tl.bfloat16)).float().numpy()
        ref = getattr(TF, name)(torch.from_numpy(a).to(torch.bfloat16)).float().numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-2, atol=1e-2, err_msg=name)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_third_order(approximate):
    x = tl.tensor(np.linspace(-2, 2, 7)).requires_grad_()
    g = lambda t: tl._C._nn.gelu_backward(t * 1.5, t, approximate=approximate)
    assert gradgradcheck(g, (x,))


def test_activation_errors():
    x = tl.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(x, approximate="fast")
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.gelu(tl.tensor([1, 2]))
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(RuntimeError, match="negative slope which is not supported"):
        tl._C._nn.leaky_relu_backward(x, x, -0.1, True)
    with pytest.raises(RuntimeError, match="negative slope which is not supported"):
        tl._C._nn.elu_backward(x, -1.0, 1.0, 1.0, True, x)
    with pytest.raises(TypeError):
        F.silu(x, True, True)


# ---- pointwise math -----------------------------------------------------------------------------

def test_erfinv_edges():
    x = tl.tensor([-1.0, 1.0, 1.5, float("nan"), 0.0, 0.5], dtype=tl.float64)
    np.testing.assert_array_equal(tl.erfinv(x).numpy()[:5], torch.erfinv(torch.tensor(x.numpy())).numpy()[:5])
    assert_close(tl.erf(tl.erfinv(x[5:])), [0.5], rtol=1e-15, atol=0)
    y = tl.erfinv(tl.tensor([1, 0]))  # integers promote to float
    assert y.dtype == tl.float32 and y.tolist() == [math.inf, 0.0]


def test_fmod_and_atan2_against_torch():
    a = tl.tensor([5.5, -5.5, 5.5, -5.5, 0.0])
    b = tl.tensor([2.0, 2.0, -2.0, -2.0, 3.0])
    ta, tb = torch.tensor(a.numpy()), torch.tensor(b.numpy())
    assert_close(tl.fmod(a, b), torch.fmod(ta, tb).numpy())
    assert_close(a.fmod(1.5), ta.fmod(1.5).numpy())
    assert_close(tl.atan2(a, b), torch.atan2(ta, tb).numpy())
    ints = tl.tensor([7, -7, 7, -7])
    assert tl.fmod(ints, 3).tolist() == [1, -1, 1, -1] and tl.fmod(ints, 3).dtype == tl.int64
    assert tl.fmod(ints, 2.5).dtype == tl.float32
    assert tl.atan2(ints, ints).dtype == tl.float32


def test_atan2_gradient_at_the_origin_against_torch():
    # No derivative at (0, 0): PyTorch gives 0 there, so a gradient through it stays finite.
    y, x = [0.0, 1.0, -0.0, 2.0], [0.0, 0.0, 0.0, -3.0]
    grads = []
    for lib in (tl, torch):
        a = lib.tensor(y, dtype=lib.float64, requires_grad=True)
        b = lib.tensor(x, dtype=lib.float64, requires_grad=True)
        lib.atan2(a, b).sum().backward()
        grads.append((np.asarray(a.grad.tolist()), np.asarray(b.grad.tolist())))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_array_equal(grads[0][1], grads[1][1])


@pytest.mark.parametrize("name,args", [("hardswish", ()), ("hardsigmoid", ()), ("relu6", ()), ("hardtanh", (-0.5, 0.5)),
                                       ("relu", ()), ("leaky_relu", (0.1,)), ("threshold", (0.5, -1.0)),
                                       ("softshrink", (0.5,)), ("hardshrink", (0.5,)), ("elu", ()), ("celu", ()),
                                       ("selu", ()), ("softplus", (2.0, 5.0))])
def test_activation_gradients_at_their_kinks_against_torch(name, args):
    # Where the derivative jumps, PyTorch picks one side; a user comparing gradients expects the same.
    x = [-6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5, 3.0, 6.0, -0.0, 0.25]
    grads = []
    for lib in (tl, torch):
        t = lib.tensor(x, dtype=lib.float64, requires_grad=True)
        getattr(lib.nn.functional, name)(t, *args).sum().backward()
        grads.append(t.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-7, atol=0)  # PyTorch scales hardsigmoid by a float 1/6


def test_fmod_errors():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tl.fmod(tl.tensor([1, 2]), 0)
    assert math.isnan(tl.fmod(tl.tensor([1.0]), 0.0).item())


def test_lerp_errors_and_exact_ends():
    a, b = tl.tensor([1.0, -2.0]), tl.tensor([3.0, 5.0])
    assert tl.lerp(a, b, 0.0).tolist() == [1.0, -2.0] and tl.lerp(a, b, 1.0).tolist() == [3.0, 5.0]
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        tl.lerp(a, b.double(), 0.5)
    with pytest.raises(RuntimeError, match="for `weight`"):
        tl.lerp(a, b, tl.tensor([0.5], dtype=tl.float64))


def test_addcdiv_integer_error():
    i = tl.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        tl.addcdiv(i, i, i)


def test_addcmul_addcdiv_inplace_and_promotion():
    a, b, c = tl.tensor([1.0, 2.0]), tl.tensor([3.0, 4.0]), tl.tensor([2.0, 8.0])
    assert a.clone().addcmul_(b, c, value=0.5).tolist() == [4.0, 18.0]
    assert a.clone().addcdiv_(b, c, value=2).tolist() == [4.0, 3.0]
    assert tl.addcmul(tl.tensor([1, 2]), tl.tensor([1, 2]), tl.tensor([1.0, 2.0])).dtype == tl.float32


def test_nan_to_num_dtypes():
    x = tl.tensor([float("nan"), float("inf"), -float("inf"), 1.0])
    assert tl.nan_to_num(x).tolist() == [0.0, np.finfo(np.float32).max, np.finfo(np.float32).min, 1.0]
    h = tl.nan_to_num(x.to(tl.float16)).float().tolist()
    assert h == [0.0, 65504.0, -65504.0, 1.0]
    y = x.clone()
    assert tl.nan_to_num_(y, nan=2.0) is y and y[0].item() == 2.0
    assert tl.nan_to_num(tl.tensor([3, 4])).tolist() == [3, 4]


def test_classification_ops():
    x = tl.tensor([float("nan"), float("inf"), -float("inf"), 1.0])
    assert x.isnan().tolist() == [True, False, False, False]
    assert x.isinf().tolist() == [False, True, True, False]
    assert x.isfinite().tolist() == [False, False, False, True]
    assert x.isposinf().tolist() == [False, True, False, False]
    assert x.isneginf().tolist() == [False, False, True, False]
    assert x.to(tl.float16).isinf().tolist() == [False, True, True, False]
    assert tl.tensor([1, 2]).isfinite().tolist() == [True, True]


# ---- clamp with tensor bounds ---------------------------------------------------------------------

CLAMP_CASES = [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), None), ((3, 4), None, (3, 1)), ((3, 1), (4,), (3, 4))]


@pytest.mark.parametrize("shapes", CLAMP_CASES)
def test_clamp_tensor_matches_torch(shapes):
    rng = np.random.default_rng(0)
    arrays = [None if s is None else rng.uniform(-2, 2, size=s) for s in shapes]
    ours = [None if a is None else tl.tensor(a).requires_grad_() for a in arrays]
    theirs = [None if a is None else torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    y, ty = tl.clamp(*ours), torch.clamp(*theirs)
    assert_close(y, ty.detach().numpy())
    y.sum().backward()
    ty.sum().backward()
    for o, t in zip(ours, theirs):
        if o is not None:
            assert_close(o.grad, t.grad.numpy())
    present = [i for i, o in enumerate(ours) if o is not None]

    def fn(*xs):
        args = [None, None, None]
        for i, t in zip(present, xs):
            args[i] = t
        return tl.clamp(*args)

    assert gradcheck(fn, tuple(ours[i].detach().requires_grad_() for i in present))


def test_clamp_tensor_forms():
    x = tl.tensor([-2.0, 0.5, 3.0])
    lo, hi = tl.tensor([-1.0, 1.0, -1.0]), tl.tensor([1.0, 2.0, 2.0])
    assert x.clamp(lo, hi).tolist() == [-1.0, 1.0, 2.0]
    assert tl.clamp_min(x, lo).tolist() == [-1.0, 1.0, 3.0] and x.clamp_max(hi).tolist() == [-2.0, 0.5, 2.0]
    out = tl.empty(0)
    assert tl.clamp(x, min=lo, out=out) is out and out.tolist() == [-1.0, 1.0, 3.0]
    assert tl.clamp(x, max=hi, out=out) is out and out.tolist() == [-2.0, 0.5, 2.0]
    y = x.clone()
    assert y.clamp_(lo, hi) is y and y.tolist() == [-1.0, 1.0, 2.0]
    y = x.clone()
    assert y.clamp_min_(lo) is y and y.tolist() == [-1.0, 1.0, 3.0]
    assert math.isnan(tl.clamp(x, tl.tensor(float("nan"))).tolist()[0])  # NaN bounds propagate
    assert tl.clamp(x, tl.tensor(2.0), tl.tensor(1.0)).tolist() == [1.0, 1.0, 1.0]  # max wins
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        tl.clamp(x, None, None)

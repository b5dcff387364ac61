"""Compiled calls: the generator's decisions (tests/test_codegen.py checks its model) as the built
extension carries them out. The bool[N] type is exercised through the fused norm backward ops,
whose output_mask selects the gradients they compute."""

import itertools

import numpy as np
import pytest

import torchlite as tl
from helpers import assert_close

MASKS = list(itertools.product([True, False], repeat=3))
EPS = 1e-5


def _rand(*shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def _numeric_grad(f, arrays, i, h=1e-6):
    """d f / d arrays[i] by central differences (f returns a float)."""
    a = arrays[i]
    grad = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        old = a[idx]
        a[idx] = old + h
        hi = f(*arrays)
        a[idx] = old - h
        lo = f(*arrays)
        a[idx] = old
        grad[idx] = (hi - lo) / (2 * h)
    return grad


def _check_masked(got, expected, mask):
    """Asked-for gradients equal `expected`; the others are None."""
    for g, e, wanted in zip(got, expected, mask):
        if wanted and e is not None:
            assert_close(g, e, rtol=1e-6, atol=1e-6)
        else:
            assert g is None


# ---- layer norm -----------------------------------------------------------------------------------

def _layer_norm_vjp(x, w, b, g):
    """sum(g * native_layer_norm(x, [N], w, b)[0]) as a function of x, w, b, for finite differences."""
    def f(x, w, b):
        out = tl.native_layer_norm(tl.tensor(x), [x.shape[-1]], tl.tensor(w), tl.tensor(b), EPS)[0]
        return float((out.numpy() * g).sum())
    return [_numeric_grad(f, [x, w, b], i) for i in range(3)]


@pytest.mark.parametrize("mask", MASKS)
def test_layer_norm_backward_mask_against_finite_differences(mask):
    x, w, b, g = _rand(4, 6, seed=0), _rand(6, seed=1), _rand(6, seed=2), _rand(4, 6, seed=3)
    _, mean, rstd = tl.native_layer_norm(tl.tensor(x), [6], tl.tensor(w), tl.tensor(b), EPS)
    got = tl.native_layer_norm_backward(tl.tensor(g), tl.tensor(x), [6], mean, rstd, tl.tensor(w), tl.tensor(b),
                                        list(mask))
    _check_masked(got, _layer_norm_vjp(x, w, b, g), mask)


def test_layer_norm_backward_without_affine():
    x, g = _rand(3, 5, seed=4), _rand(3, 5, seed=5)
    _, mean, rstd = tl.native_layer_norm(tl.tensor(x), [5], None, None, EPS)
    gx, gw, gb = tl.native_layer_norm_backward(tl.tensor(g), tl.tensor(x), [5], mean, rstd, None, None,
                                               (True, True, True))
    # No weight or bias: no gradient for them, whatever the mask asks.
    assert gw is None and gb is None
    expected = _layer_norm_vjp(x, np.ones(5), np.zeros(5), g)[0]
    assert_close(gx, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mask", MASKS)
def test_layer_norm_backward_mask_against_torch(mask):
    torch = pytest.importorskip("torch")
    x, w, b, g = _rand(2, 3, 4, seed=6), _rand(3, 4, seed=7), _rand(3, 4, seed=8), _rand(2, 3, 4, seed=9)
    tx, tw, tb, tg = (torch.from_numpy(a) for a in (x, w, b, g))
    _, tmean, trstd = torch.native_layer_norm(tx, [3, 4], tw, tb, EPS)
    expected = torch.ops.aten.native_layer_norm_backward(tg, tx, [3, 4], tmean, trstd, tw, tb, list(mask))
    _, mean, rstd = tl.native_layer_norm(tl.tensor(x), [3, 4], tl.tensor(w), tl.tensor(b), EPS)
    got = tl.native_layer_norm_backward(tl.tensor(g), tl.tensor(x), [3, 4], mean, rstd, tl.tensor(w), tl.tensor(b),
                                        list(mask))
    _check_masked(got, [None if e is None else e.numpy() for e in expected], mask)


# ---- batch norm -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mask", MASKS)
def test_batch_norm_backward_mask_against_finite_differences(mask):
    x, w, b, g = _rand(4, 3, 2, seed=10), _rand(3, seed=11), _rand(3, seed=12), _rand(4, 3, 2, seed=13)

    def f(x, w, b):
        out = tl.native_batch_norm(tl.tensor(x), tl.tensor(w), tl.tensor(b), None, None, True, 0.1, EPS)[0]
        return float((out.numpy() * g).sum())

    _, save_mean, save_invstd = tl.native_batch_norm(tl.tensor(x), tl.tensor(w), tl.tensor(b), None, None, True,
                                                     0.1, EPS)
    got = tl.native_batch_norm_backward(tl.tensor(g), tl.tensor(x), tl.tensor(w), None, None, save_mean, save_invstd,
                                        True, EPS, list(mask))
    _check_masked(got, [_numeric_grad(f, [x, w, b], i) for i in range(3)], mask)


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("mask", MASKS)
def test_batch_norm_backward_mask_against_torch(mask, train):
    torch = pytest.importorskip("torch")
    x, w, g = _rand(5, 3, 4, seed=14), _rand(3, seed=15), _rand(5, 3, 4, seed=16)
    rm, rv = _rand(3, seed=17), np.abs(_rand(3, seed=18)) + 0.5
    tx, tw, tg, trm, trv = (torch.from_numpy(a.copy()) for a in (x, w, g, rm, rv))
    # Evaluation mode reads the running statistics: PyTorch's forward returns empty saved ones.
    _, tsm, tsi = torch.native_batch_norm(tx, tw, None, trm, trv, train, 0.1, EPS)
    expected = torch.ops.aten.native_batch_norm_backward(tg, tx, tw, trm, trv, tsm, tsi, train, EPS, list(mask))
    lrm, lrv = tl.tensor(rm.copy()), tl.tensor(rv.copy())
    _, sm, si = tl.native_batch_norm(tl.tensor(x), tl.tensor(w), None, lrm, lrv, train, 0.1, EPS)
    got = tl.native_batch_norm_backward(tl.tensor(g), tl.tensor(x), tl.tensor(w), lrm, lrv, sm, si, train, EPS,
                                        list(mask))
    _check_masked(got, [None if e is None else e.numpy() for e in expected], mask)


# ---- the bool[N] binding ---------------------------------------------------------------------------

def _layer_norm_args():
    x = tl.tensor(_rand(2, 3, seed=19))
    _, mean, rstd = tl.native_layer_norm(x, [3], None, None, EPS)
    return (tl.ones(2, 3, dtype=tl.float64), x, [3], mean, rstd, None, None)


@pytest.mark.parametrize("mask", [(True, False, True), [True, False, True]])
def test_bool_list_takes_a_list_or_tuple(mask):
    gx, gw, gb = tl.native_layer_norm_backward(*_layer_norm_args(), mask)
    assert gx is not None and gw is None and gb is None
    gx, _, _ = tl.native_layer_norm_backward(*_layer_norm_args(), output_mask=mask)
    assert gx is not None


@pytest.mark.parametrize("mask, message", [
    ([True, False], "must be tuple of 3 bools, but got 2 elements"),
    ((True, False, True, True), "must be tuple of 3 bools, but got 4 elements"),
    ([1, 0, 1], "must be tuple of 3 bools, but found element of type int at pos 0"),
    ([True, None, True], "must be tuple of 3 bools, but found element of type NoneType at pos 1"),
    ("abc", "must be tuple of 3 bools, not str"),
    (None, "must be tuple of 3 bools, not NoneType"),
    (True, "must be tuple of 3 bools, not bool"),
])
def test_bool_list_errors_name_the_argument(mask, message):
    with pytest.raises(TypeError, match=r"native_layer_norm_backward\(\): argument 'output_mask' \(position 8\) "
                       + message):
        tl.native_layer_norm_backward(*_layer_norm_args(), mask)
    with pytest.raises(TypeError, match=r"argument 'output_mask' " + message):
        tl.native_layer_norm_backward(*_layer_norm_args(), output_mask=mask)


# ---- other generated bindings ----------------------------------------------------------------------

def test_generated_overloads_as_called():
    a, b = tl.ones(2, 3), tl.full((2, 3), 2.0)
    out = tl.empty(2, 3)
    # add.Tensor with its out= variant merged in; add.Scalar as the second overload.
    assert tl.add(a, b, alpha=2, out=out) is out
    assert_close(out, np.full((2, 3), 5.0, dtype=np.float32))
    assert_close(tl.add(a, 1.5), np.full((2, 3), 2.5, dtype=np.float32))
    assert a.add_(b) is a
    # int lists as *args or one sequence; named returns as a named tuple.
    assert tl.zeros(2, 3).shape == tl.zeros((2, 3)).shape == (2, 3)
    assert a.view(3, 2).shape == a.view((3, 2)).shape == (3, 2)
    values, indices = tl.max(tl.tensor([[1.0, 3.0], [4.0, 2.0]]), 1)
    assert tl.max(tl.tensor([[1.0, 3.0]]), 1).indices.tolist() == [1]
    assert values.tolist() == [3.0, 4.0] and indices.tolist() == [1, 0]

"""Random sampling ops (bernoulli, multinomial, randperm) and dropout: distribution properties
within statistical tolerances, determinism under manual_seed / generator=, and error paths."""

import numpy as np
import pytest

import torchlite as tl
from helpers import assert_close
from torchlite.autograd import gradcheck, gradgradcheck
from torchlite.nn import functional as F

N = 200_000  # draws for frequency checks: standard error of a proportion <= 0.0012


def _same(a, b):
    return a.dtype == b.dtype and np.array_equal(a.detach().numpy(), b.detach().numpy())


# ---- bernoulli ----------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.0, 0.2, 0.5, 1.0])
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.int64, tl.bool])
def test_bernoulli_float_p(p, dtype):
    x = tl.empty(N, dtype=dtype).bernoulli_(p)
    v = x.double().numpy()
    assert x.dtype == dtype and set(np.unique(v)) <= {0.0, 1.0}
    assert abs(v.mean() - p) < 0.006


def test_bernoulli_tensor_p_and_functional_forms():
    probs = tl.tensor([0.0, 0.1, 0.7, 1.0])
    draws = tl.bernoulli(probs.expand(N // 4, 4)).numpy()
    assert draws.dtype == np.float32
    np.testing.assert_allclose(draws.mean(0), probs.numpy(), atol=0.01)
    assert abs(tl.bernoulli(tl.zeros(N), 0.3).numpy().mean() - 0.3) < 0.006
    assert abs(tl.zeros(N).bernoulli(0.3).numpy().mean() - 0.3) < 0.006
    out = tl.empty(N // 4, 4).bernoulli_(probs)  # p broadcast to self
    np.testing.assert_allclose(out.numpy().mean(0), probs.numpy(), atol=0.01)
    t = tl.empty((3, 4)).t()  # non-contiguous self
    assert t.bernoulli_(0.5) is t and set(np.unique(t.numpy())) <= {0.0, 1.0}
    assert tl.bernoulli(tl.empty(0, 3)).shape == (0, 3)


def test_bernoulli_is_seeded():
    tl.manual_seed(5)
    a = tl.bernoulli(tl.full((1000,), 0.5))
    tl.manual_seed(5)
    b = tl.bernoulli(tl.full((1000,), 0.5))
    assert _same(a, b)
    g1, g2 = tl.Generator().manual_seed(3), tl.Generator().manual_seed(3)
    assert _same(tl.empty(1000).bernoulli_(0.5, generator=g1), tl.empty(1000).bernoulli_(0.5, generator=g2))


def test_bernoulli_errors():
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5"):
        tl.empty(3).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
        tl.bernoulli(tl.tensor([0.5, -0.1]))


def test_bernoulli_has_zero_gradient():
    p = tl.tensor([0.3, 0.6], requires_grad=True)
    tl.bernoulli(p).sum().backward()
    assert p.grad.tolist() == [0.0, 0.0]


# ---- multinomial --------------------------------------------------------------------------------

def test_multinomial_with_replacement_frequencies():
    p = tl.tensor([1.0, 0.0, 3.0, 6.0])  # unnormalised
    s = tl.multinomial(p, N, replacement=True)
    assert s.dtype == tl.int64 and s.shape == (N,)
    freq = np.bincount(s.numpy(), minlength=4) / N
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.3, 0.6], atol=0.006)
    assert freq[1] == 0.0


def test_multinomial_without_replacement():
    p = tl.tensor([[0.1, 0.0, 0.2, 0.3, 0.4], [1.0, 1.0, 1.0, 1.0, 0.0]])
    s = p.multinomial(3)
    assert s.shape == (2, 3)
    for row, probs in zip(s.numpy(), p.numpy()):
        assert len(set(row)) == 3 and all(probs[c] > 0 for c in row)
    # The first draw follows p; the full draw of every non-zero category is a permutation.
    firsts = np.array([tl.multinomial(p[0], 1).item() for _ in range(4000)])
    np.testing.assert_allclose(np.bincount(firsts, minlength=5) / 4000, [0.1, 0.0, 0.2, 0.3, 0.4], atol=0.03)
    assert sorted(tl.multinomial(p[0], 4).tolist()) == [0, 2, 3, 4]


def test_multinomial_is_seeded():
    p = tl.rand(3, 10)
    tl.manual_seed(11)
    a = tl.multinomial(p, 5)
    tl.manual_seed(11)
    assert _same(a, tl.multinomial(p, 5))
    g = tl.Generator().manual_seed(1)
    b = tl.multinomial(p, 5, True, generator=g)
    assert _same(b, tl.multinomial(p, 5, True, generator=tl.Generator().manual_seed(1)))


@pytest.mark.parametrize("probs,n,replacement,match", [
    ([0.5, -0.1], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
    ([0.5, float("nan")], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
    ([0.5, float("inf")], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
    ([0.0, 0.0], 1, True, r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
    ([0.5, 0.5], 3, False, "cannot sample n_sample > prob_dist.size"),
    ([0.5, 0.0, 0.0], 2, False, "not enough non-negative category to sample"),
    ([0.5, 0.5], 0, True, "cannot sample n_sample <= 0 samples"),
    ([[[0.5]]], 1, True, "prob_dist must be 1 or 2 dim"),
])
def test_multinomial_errors(probs, n, replacement, match):
    with pytest.raises(RuntimeError, match=match):
        tl.multinomial(tl.tensor(probs), n, replacement)


def test_multinomial_integer_input_error():
    with pytest.raises(RuntimeError, match="multinomial only supports floating-point dtypes"):
        tl.multinomial(tl.tensor([1, 2]), 1)


# ---- randperm -----------------------------------------------------------------------------------

def test_randperm():
    p = tl.randperm(1000)
    assert p.dtype == tl.int64 and sorted(p.tolist()) == list(range(1000))
    assert p.tolist() != list(range(1000))
    assert tl.randperm(10, dtype=tl.float32).dtype == tl.float32
    assert tl.randperm(0).shape == (0,) and tl.randperm(1).tolist() == [0]
    tl.manual_seed(2)
    a = tl.randperm(50)
    tl.manual_seed(2)
    assert _same(a, tl.randperm(50))
    g = tl.Generator().manual_seed(4)
    assert _same(tl.randperm(50, generator=g), tl.randperm(50, generator=tl.Generator().manual_seed(4)))
    # every position is uniform over the values
    firsts = np.array([tl.randperm(4)[0].item() for _ in range(4000)])
    np.testing.assert_allclose(np.bincount(firsts, minlength=4) / 4000, [0.25] * 4, atol=0.03)
    with pytest.raises(RuntimeError, match="n must be non-negative"):
        tl.randperm(-1)


# ---- dropout ------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_statistics(p):
    x = tl.ones(N)
    y = F.dropout(x, p).numpy()
    kept = y != 0
    assert abs(1 - kept.mean() - p) < 0.006
    np.testing.assert_allclose(y[kept], 1 / (1 - p), rtol=1e-6)
    assert abs(y.mean() - 1.0) < 0.03


def test_dropout_identity_and_edges():
    x = tl.randn(4, 5)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert tl.dropout(x, 0.5, False) is x
    assert F.dropout(x, 1.0).abs().sum().item() == 0.0
    assert F.dropout(tl.empty(0, 3), 0.5).shape == (0, 3)
    xt = x.t()  # non-contiguous input
    y = F.dropout(xt, 0.5)
    kept = y.numpy() != 0
    np.testing.assert_allclose(y.numpy()[kept], 2 * xt.numpy()[kept], rtol=1e-6)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            F.dropout(x, bad)


def test_dropout_is_seeded_and_gradient_uses_the_mask():
    x = tl.randn(100, 10, dtype=tl.float64)
    tl.manual_seed(7)
    a = F.dropout(x, 0.3)
    tl.manual_seed(7)
    leaf = x.clone().requires_grad_()
    b = F.dropout(leaf, 0.3)
    assert _same(a, b)
    b.backward(tl.ones_like(b))
    mask = (b != 0).double()
    assert_close(leaf.grad, (mask / 0.7).numpy())
    assert b.grad_fn.name() == "NativeDropoutBackward0"


def test_native_dropout_forms():
    x = tl.randn(3, 4)
    out, mask = tl.native_dropout(x, 0.5, False)
    assert _same(out, x) and mask.dtype == tl.bool and bool(mask.all())
    out, mask = tl.native_dropout(x, 0.5, True)
    assert mask.dtype == tl.bool and _same(out, x * mask * 2.0)
    g = tl.randn(3, 4, dtype=tl.float64, requires_grad=True)
    assert gradcheck(lambda t: tl.native_dropout_backward(t, mask, 2.0), (g,))
    assert gradgradcheck(lambda t: tl.native_dropout_backward(t, mask, 2.0), (g,))
    x64 = tl.randn(3, 4, dtype=tl.float64, requires_grad=True)
    tl.manual_seed(1)
    fn = lambda t: (tl.manual_seed(1), tl.native_dropout(t, 0.4, True)[0])[1]
    assert gradcheck(fn, (x64,)) and gradgradcheck(fn, (x64,))
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
        tl.native_dropout(x, 2.0, True)


def test_dropout_inplace():
    x = tl.ones(1000)
    y = F.dropout(x, 0.5, inplace=True)
    assert y is x and set(np.unique(x.numpy())) <= {0.0, 2.0}


@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (4, 8, 5)), (F.dropout1d, (8, 5)), (F.dropout2d, (4, 8, 3, 3)),
                                      (F.dropout3d, (2, 8, 2, 2, 2)), (F.dropout3d, (8, 2, 2, 2))])
def test_channel_dropout_zeroes_whole_channels(fn, shape):
    x = tl.ones(*shape)
    y = fn(x, 0.5).numpy()
    unbatched = (fn is F.dropout1d and len(shape) == 2) or (fn is F.dropout3d and len(shape) == 4)
    per_channel = y.reshape(shape[0] if unbatched else shape[0] * shape[1], -1)
    assert all(len(set(c)) == 1 and c[0] in (0.0, 2.0) for c in per_channel)
    assert fn(x, 0.5, training=False) is x


def test_channel_dropout_errors():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
        F.dropout1d(tl.ones(2, 3, 4, 5))
    with pytest.raises(ValueError, match="dropout probability"):
        F.dropout2d(tl.ones(2, 3, 4, 5), 1.5)


def test_alpha_dropout_keeps_mean_and_variance():
    x = tl.randn(N, dtype=tl.float64)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1.0) < 0.02
    assert F.alpha_dropout(x, 0.2) is x  # training defaults to False
    # Channel-wise: on zeros, a kept channel is k a p, a dropped one k a (p - 1), everywhere.
    p, k = 0.5, 1.7580993408473766
    a = ((k * k * p + 1) * (1 - p)) ** -0.5
    z = F.feature_alpha_dropout(tl.zeros(20, 30, 4, dtype=tl.float64), p, training=True).numpy().reshape(600, 4)
    kept = np.isclose(z, k * a * p).all(1)
    assert (kept | np.isclose(z, k * a * (p - 1)).all(1)).all() and 0.3 < kept.mean() < 0.7


# ---- out= forms: the same draws as the functional form under the same seed ---------------------

@pytest.mark.parametrize("name,call", [
    ("bernoulli", lambda p, **kw: tl.bernoulli(p, **kw)),
    ("multinomial", lambda p, **kw: tl.multinomial(p, 3, True, **kw)),
])
def test_random_out_forms_draw_what_the_functional_form_draws(name, call):
    p = tl.tensor([[0.1, 0.5, 0.9, 0.3]])
    tl.manual_seed(7)
    expected = call(p)
    tl.manual_seed(7)
    out = tl.empty(0, dtype=expected.dtype)
    assert call(p, out=out) is out
    assert _same(out, expected)


def test_randint_out_keeps_outs_dtype():
    tl.manual_seed(1)
    expected = tl.randint(2, 9, (50,))
    tl.manual_seed(1)
    out = tl.empty(0, dtype=tl.float32)
    assert tl.randint(2, 9, (50,), out=out) is out
    np.testing.assert_array_equal(out.numpy(), expected.numpy().astype(np.float32))
    g = tl.Generator().manual_seed(4)
    a = tl.randint(5, (10,), generator=g, out=tl.empty(10, dtype=tl.int64))
    g.manual_seed(4)
    assert _same(a, tl.randint(5, (10,), generator=g))
    assert tl.randint(5, (3,)).dtype == tl.int64 and tl.randperm(3).dtype == tl.int64  # dtype=None: long

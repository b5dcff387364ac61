"""nn.init: gains, fans, distributions of the initialisers and of the layers' default init."""

import math

import numpy as np
import pytest

import torchlite as torch
from torchlite import nn
from torchlite.nn import init


def stats(t):
    a = t.detach().double().numpy()
    return a.mean(), a.std(), a.min(), a.max()


@pytest.mark.parametrize("name,param,expected", [
    ("linear", None, 1), ("conv2d", None, 1), ("conv_transpose2d", None, 1), ("sigmoid", None, 1),
    ("tanh", None, 5 / 3), ("relu", None, math.sqrt(2)), ("leaky_relu", None, math.sqrt(2 / (1 + 0.01**2))),
    ("leaky_relu", 0.2, math.sqrt(2 / 1.04)), ("leaky_relu", 3, math.sqrt(2 / 10)), ("selu", None, 0.75),
])
def test_calculate_gain(name, param, expected):
    assert init.calculate_gain(name, param) == pytest.approx(expected)


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


@pytest.mark.parametrize("shape,fans", [
    ((5, 3), (3, 5)), ((8, 4, 3, 3), (36, 72)), ((6, 2, 5), (10, 30)), ((2, 3, 1, 1, 4), (12, 8)),
])
def test_fan_in_fan_out(shape, fans):
    assert init._calculate_fan_in_and_fan_out(torch.empty(shape)) == fans
    assert init._calculate_correct_fan(torch.empty(shape), "fan_in") == fans[0]
    assert init._calculate_correct_fan(torch.empty(shape), "FAN_OUT") == fans[1]


def test_fan_errors():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(torch.empty(4))
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_normal_(torch.empty(3, 3), mode="fan_avg")


def test_uniform_normal_constant():
    t = torch.empty(200, 250)
    assert init.uniform_(t, -2.0, 3.0) is t
    mean, std, lo, hi = stats(t)
    assert lo >= -2.0 and hi <= 3.0 and mean == pytest.approx(0.5, abs=0.03)
    init.normal_(t, 1.0, 2.0)
    mean, std, _, _ = stats(t)
    assert mean == pytest.approx(1.0, abs=0.03) and std == pytest.approx(2.0, rel=0.02)
    init.constant_(t, 0.25)
    assert stats(t)[2] == stats(t)[3] == 0.25
    init.ones_(t)
    assert stats(t)[0] == 1.0
    init.zeros_(t)
    assert stats(t)[3] == 0.0
    e = init.eye_(torch.empty(3, 4))
    np.testing.assert_array_equal(e.numpy(), np.eye(3, 4))


def test_init_works_on_parameters_without_recording_grad():
    p = nn.Parameter(torch.empty(10, 10))
    init.kaiming_uniform_(p)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_trunc_normal():
    t = init.trunc_normal_(torch.empty(100000), mean=0.5, std=1.0, a=-1.0, b=1.5)
    mean, std, lo, hi = stats(t)
    assert lo >= -1.0 and hi <= 1.5
    # moments of N(0.5, 1) truncated to [-1, 1.5]
    alpha, beta = -1.5, 1.0
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
    z = cdf(beta) - cdf(alpha)
    m = 0.5 + (phi(alpha) - phi(beta)) / z
    var = 1 + (alpha * phi(alpha) - beta * phi(beta)) / z - ((phi(alpha) - phi(beta)) / z) ** 2
    assert mean == pytest.approx(m, abs=0.01) and std == pytest.approx(math.sqrt(var), rel=0.02)


@pytest.mark.parametrize("shape", [(300, 400), (64, 32, 3, 3)])
def test_xavier(shape):
    t = torch.empty(shape)
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(t)
    std = 1.5 * math.sqrt(2.0 / (fan_in + fan_out))
    init.xavier_uniform_(t, gain=1.5)
    _, s, lo, hi = stats(t)
    bound = math.sqrt(3) * std
    assert -bound <= lo and hi <= bound and lo < -0.95 * bound and hi > 0.95 * bound
    assert s == pytest.approx(std, rel=0.03)
    init.xavier_normal_(t, gain=1.5)
    mean, s, _, _ = stats(t)
    assert s == pytest.approx(std, rel=0.03) and abs(mean) < 0.05 * std


@pytest.mark.parametrize("mode,nonlinearity,a", [("fan_in", "leaky_relu", 0), ("fan_out", "relu", 0),
                                                 ("fan_in", "leaky_relu", math.sqrt(5))])
def test_kaiming(mode, nonlinearity, a):
    t = torch.empty(64, 32, 3, 3)
    fan = 32 * 9 if mode == "fan_in" else 64 * 9
    std = init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    init.kaiming_uniform_(t, a=a, mode=mode, nonlinearity=nonlinearity)
    _, s, lo, hi = stats(t)
    bound = math.sqrt(3) * std
    assert -bound <= lo and hi <= bound and s == pytest.approx(std, rel=0.03)
    init.kaiming_normal_(t, a=a, mode=mode, nonlinearity=nonlinearity)
    assert stats(t)[1] == pytest.approx(std, rel=0.03)


def test_kaiming_zero_element_warns():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(torch.empty(0, 3))


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 2, 2)])
def test_orthogonal(shape):
    t = init.orthogonal_(torch.empty(shape), gain=2.0)
    m = t.numpy().reshape(shape[0], -1)
    rows, cols = m.shape
    gram = m @ m.T if rows <= cols else m.T @ m
    np.testing.assert_allclose(gram, 4.0 * np.eye(min(rows, cols)), atol=1e-5)


def test_seeded_init_is_reproducible():
    torch.manual_seed(123)
    a = nn.Linear(20, 30)
    torch.manual_seed(123)
    b = nn.Linear(20, 30)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    g = torch.Generator()
    g.manual_seed(5)
    x = init.uniform_(torch.empty(10), generator=g)
    g.manual_seed(5)
    y = init.uniform_(torch.empty(10), generator=g)
    np.testing.assert_array_equal(x.numpy(), y.numpy())


# ------------------------------------------------------------------------- layer defaults
def _uniform_bound_ok(t, bound):
    _, s, lo, hi = stats(t)
    assert -bound <= lo and hi <= bound
    assert s == pytest.approx(bound / math.sqrt(3), rel=0.05)


def test_linear_default_init():
    m = nn.Linear(400, 300)
    _uniform_bound_ok(m.weight, 1 / math.sqrt(400))
    lo, hi = stats(m.bias)[2:]
    assert -1 / 20 <= lo and hi <= 1 / 20


def test_conv_default_init():
    m = nn.Conv2d(16, 64, 5)
    fan_in = 16 * 25
    _uniform_bound_ok(m.weight, 1 / math.sqrt(fan_in))
    lo, hi = stats(m.bias)[2:]
    assert -1 / math.sqrt(fan_in) <= lo and hi <= 1 / math.sqrt(fan_in)
    t = nn.ConvTranspose2d(16, 8, 3)
    # PyTorch computes the transposed conv's fan_in from weight.size(1) = out_channels / groups.
    _uniform_bound_ok(t.weight, 1 / math.sqrt(8 * 9))


def test_embedding_norm_mha_default_init():
    e = nn.Embedding(1000, 64, padding_idx=3)
    mean, std, _, _ = stats(e.weight)
    assert abs(mean) < 0.02 and std == pytest.approx(1.0, rel=0.03)
    assert float(e.weight[3].abs().sum()) == 0.0
    bn = nn.BatchNorm1d(7)
    assert stats(bn.weight)[2] == 1.0 and stats(bn.bias)[3] == 0.0
    assert stats(bn.running_var)[2] == 1.0 and int(bn.num_batches_tracked) == 0
    ln = nn.LayerNorm((4, 5))
    assert stats(ln.weight)[:2] == (1.0, 0.0) and stats(ln.bias)[:2] == (0.0, 0.0)
    mha = nn.MultiheadAttention(64, 4)
    bound = math.sqrt(6 / (64 + 3 * 64))
    lo, hi = stats(mha.in_proj_weight)[2:]
    assert -bound <= lo and hi <= bound and hi > 0.9 * bound
    assert stats(mha.in_proj_bias)[3] == 0.0 and stats(mha.out_proj.bias)[3] == 0.0
    _uniform_bound_ok(mha.out_proj.weight, 1 / 8)


@pytest.mark.parametrize("shape,groups", [((4, 4, 3), 1), ((6, 2, 3, 3), 2), ((3, 5, 1, 3, 3), 1)])
def test_dirac_is_the_identity_convolution(shape, groups):
    w = init.dirac_(torch.empty(shape), groups=groups)
    spatial = len(shape) - 2
    x = torch.randn(1, shape[1] * groups, *([5] * spatial))
    conv = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d}.get(spatial)
    if conv is not None:  # channels a group passes through come out unchanged
        y = conv(x, w, padding=shape[-1] // 2, groups=groups)
        out_per_group, passed = shape[0] // groups, min(shape[0] // groups, shape[1])
        for g in range(groups):
            for d in range(passed):
                np.testing.assert_array_equal(y[0, g * out_per_group + d].numpy(), x[0, g * shape[1] + d].numpy())
    assert w.sum().item() == groups * min(shape[0] // groups, shape[1])
    with pytest.raises(ValueError, match="3, 4, or 5 dimensions"):
        init.dirac_(torch.empty(2, 2))


def test_sparse_zeroes_a_fraction_of_each_column():
    torch.manual_seed(0)
    w = init.sparse_(torch.empty(10, 6), sparsity=0.3, std=0.5)
    zeros_per_column = (w == 0).sum(0)
    assert zeros_per_column.tolist() == [3] * 6  # ceil(0.3 * 10), rows chosen at random
    assert 0.2 < w[w != 0].std().item() < 1.0
    with pytest.raises(ValueError, match="2 dimensions"):
        init.sparse_(torch.empty(3), 0.1)


@pytest.mark.parametrize("old,args", [("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("eye", ()),
                                      ("xavier_uniform", ()), ("xavier_normal", ()), ("kaiming_uniform", ()),
                                      ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,))])
def test_deprecated_names_warn_and_fill(old, args):
    torch.manual_seed(3)
    expected = getattr(init, old + "_")(torch.empty(4, 4), *args)
    torch.manual_seed(3)
    with pytest.warns(FutureWarning, match=f"nn.init.{old}` is now deprecated"):
        got = getattr(init, old)(torch.empty(4, 4), *args)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())

"""The random nn functions (rrelu, the dropout family), in-place forms, the torch.* names with
ATen's signatures and the modules of the activations, norms and losses that compose operators
(registry entries: tests/opinfo/nn_compositions.py and math_activation.py)."""

import numpy as np
import pytest

import torchlite as tl
from helpers import TORCH

F = tl.nn.functional


def _x(*shape, seed=0):
    return tl.tensor(np.random.default_rng(seed).standard_normal(shape))


# ---- rrelu -----------------------------------------------------------------------------------

def test_rrelu_training_draws_slopes_in_range():
    x = -tl.rand(20000, dtype=tl.float64) - 0.1
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y / x).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.005  # U(0.1, 0.3)
    assert abs(slopes.std() - 0.2 / np.sqrt(12)) < 0.005
    pos = tl.rand(100, dtype=tl.float64) + 0.1
    assert tl.equal(F.rrelu(pos, training=True), pos)


def test_rrelu_eval_and_generator_and_grad():
    x = _x(3, 4)
    assert tl.allclose(F.rrelu(x, 0.1, 0.3), F.leaky_relu(x, 0.2))
    g1, g2 = tl.Generator().manual_seed(3), tl.Generator().manual_seed(3)
    assert tl.equal(tl.rrelu(x, training=True, generator=g1), tl.rrelu(x, training=True, generator=g2))
    xr = x.clone().requires_grad_()
    y = F.rrelu(xr, training=True)
    y.sum().backward()
    assert tl.allclose(xr.grad, y.detach() / x)  # the gradient is the slope drawn


def test_rrelu_inplace_and_module():
    x = -tl.ones(5)
    assert F.rrelu_(x, training=True) is x and bool(((x <= -0.125) & (x >= -1 / 3)).all())
    m = tl.nn.RReLU(0.1, 0.3)
    assert repr(m) == "RReLU(lower=0.1, upper=0.3)"
    m.eval()
    assert tl.allclose(m(-tl.ones(3)), -0.2 * tl.ones(3))


# ---- dropout family --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["alpha_dropout", "feature_alpha_dropout", "feature_dropout"])
def test_torch_dropouts(name):
    x = tl.ones(200, 50, 2, dtype=tl.float64)
    fn, fn_ = getattr(tl, name), getattr(tl, name + "_")
    assert fn(x, 0.5, False) is x and fn(x, 0.0, True) is x
    y = fn(x, 0.3, True)
    assert y.shape == x.shape
    if name.startswith("feature"):  # one value per (sample, channel)
        assert tl.equal(y[..., 0], y[..., 1])
    if "alpha" in name:  # keeps a unit-variance input's mean and variance
        z = fn(_x(400, 50, 2), 0.3, True)
        assert abs(z.mean().item()) < 0.05 and abs(z.var().item() - 1) < 0.1
    else:
        kept = (y != 0).double().mean().item()
        assert abs(kept - 0.7) < 0.05 and tl.allclose(y[y != 0], tl.full([1], 1 / 0.7, dtype=tl.float64))
    x2 = x.clone()
    assert fn_(x2, 0.3, True) is x2
    assert tl.equal(fn(x, 1.0, True), tl.zeros_like(x))
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        fn(x, 1.5, True)


def test_dropout_inplace_and_modules():
    x = tl.ones(1000, dtype=tl.float64)
    assert tl.dropout_(x, 0.5, True) is x and set(np.unique(x.numpy())) <= {0.0, 2.0}
    for cls in (tl.nn.AlphaDropout, tl.nn.FeatureAlphaDropout, tl.nn.Dropout3d):
        m = cls(0.2)
        assert repr(m) == f"{cls.__name__}(p=0.2, inplace=False)"
        inp = _x(2, 3, 4, 4, 2)
        assert m(inp).shape == inp.shape
        m.eval()
        assert m(inp) is inp


# ---- activations -----------------------------------------------------------------------------

@pytest.mark.parametrize("name,args", [("selu", ()), ("celu", (0.7,)), ("threshold", (0.2, -1.0)),
                                       ("hardsigmoid", ()), ("hardswish", ()), ("mish", ())])
def test_functional_inplace(name, args):
    x = _x(3, 4)
    expected = getattr(F, name)(x, *args)
    y = x.clone()
    assert getattr(F, name)(y, *args, inplace=True) is y and tl.allclose(y, expected)
    if hasattr(F, name + "_"):
        y = x.clone()
        assert getattr(F, name + "_")(y, *args) is y and tl.allclose(y, expected)


def test_threshold_of_integers():
    assert tl.threshold(tl.tensor([1, 2, 3]), 2, -1).tolist() == [-1, -1, 3]


def test_prelu_module_weight_gradient():
    m = tl.nn.PReLU(3)
    x = _x(2, 3, 4).float()
    m(x).sum().backward()
    xn = x.numpy()
    assert np.allclose(m.weight.grad.numpy(), np.where(xn > 0, 0, xn).sum((0, 2)))


# ---- norms -----------------------------------------------------------------------------------

@pytest.mark.skipif(TORCH is None, reason="needs PyTorch")
@pytest.mark.parametrize("cls,shape", [("InstanceNorm1d", (2, 3, 5)), ("InstanceNorm2d", (2, 3, 4, 4)),
                                       ("InstanceNorm3d", (2, 3, 2, 2, 3)), ("InstanceNorm1d", (3, 5))])
def test_instance_norm_modules_match_torch(cls, shape):
    data = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    for kw in ({}, {"affine": True, "track_running_stats": True, "momentum": None}):
        a, b = getattr(TORCH.nn, cls)(3, **kw), getattr(tl.nn, cls)(3, **kw)
        assert repr(a) == repr(b)
        for _ in range(2):
            assert np.allclose(a(TORCH.tensor(data)).detach().numpy(), b(tl.tensor(data)).detach().numpy(), atol=1e-5)
        if kw:
            assert np.allclose(a.running_mean.numpy(), b.running_mean.numpy(), atol=1e-6)
            assert np.allclose(a.running_var.numpy(), b.running_var.numpy(), atol=1e-6)
            a.eval(), b.eval()
            assert np.allclose(a(TORCH.tensor(data)).detach().numpy(), b(tl.tensor(data)).detach().numpy(), atol=1e-5)


def test_local_response_norm_module_and_torch_rms_norm():
    m = tl.nn.LocalResponseNorm(3, alpha=0.5)
    assert repr(m) == "LocalResponseNorm(3, alpha=0.5, beta=0.75, k=1.0)"
    x = _x(2, 4, 3)
    assert tl.allclose(m(x), F.local_response_norm(x, 3, alpha=0.5))
    assert F.local_response_norm(tl.empty(0, 3, 2), 2).shape == (0, 3, 2)
    assert tl.allclose(tl.rms_norm(x, [3]), F.rms_norm(x, [3]))


# ---- losses ----------------------------------------------------------------------------------

def test_torch_losses_take_integer_reductions():
    a, b, t = _x(3, 4), _x(3, 4, seed=1), tl.tensor([1.0, -1.0, 1.0], dtype=tl.float64)
    cases = [(tl.margin_ranking_loss, F.margin_ranking_loss, (a, b, t.unsqueeze(1).expand(3, 4)), (0.2,)),
             (tl.hinge_embedding_loss, F.hinge_embedding_loss, (a, t.unsqueeze(1).expand(3, 4)), (0.5,)),
             (tl.cosine_embedding_loss, F.cosine_embedding_loss, (a, b, t), (0.1,)),
             (tl.triplet_margin_loss, F.triplet_margin_loss, (a, b, _x(3, 4, seed=2)), (0.7,))]
    for torch_fn, f_fn, args, extra in cases:
        for code, name in enumerate(("none", "mean", "sum")):
            assert tl.allclose(torch_fn(*args, *extra, reduction=code), f_fn(*args, *extra, reduction=name))
    p = tl.poisson_nll_loss(a, b.abs(), True, False, 1e-8, 2)
    assert tl.allclose(p, F.poisson_nll_loss(a, b.abs(), reduction="sum"))


def test_loss_modules():
    a, b, c = _x(3, 4), _x(3, 4, seed=1), _x(3, 4, seed=2)
    s = tl.tensor([1.0, -1.0, 1.0], dtype=tl.float64)
    s4 = s.unsqueeze(1).expand(3, 4)
    target = tl.tensor([0, 3, 1])
    labels = tl.tensor([[0, 2, -1, 1], [3, -1, 0, 0], [1, 0, 2, 3]])
    cases = [
        (tl.nn.MarginRankingLoss(margin=0.2), (a, b, s4), F.margin_ranking_loss(a, b, s4, 0.2)),
        (tl.nn.HingeEmbeddingLoss(margin=0.5, reduction="sum"), (a, s4), F.hinge_embedding_loss(a, s4, 0.5, reduction="sum")),
        (tl.nn.CosineEmbeddingLoss(0.1), (a, b, s), F.cosine_embedding_loss(a, b, s, 0.1)),
        (tl.nn.TripletMarginLoss(p=1.0, swap=True), (a, b, c), F.triplet_margin_loss(a, b, c, p=1.0, swap=True)),
        (tl.nn.TripletMarginWithDistanceLoss(distance_function=F.l1_loss, margin=2.0), (a, b, c),
         F.triplet_margin_with_distance_loss(a, b, c, distance_function=F.l1_loss, margin=2.0)),
        (tl.nn.PoissonNLLLoss(full=True), (a, b.abs()), F.poisson_nll_loss(a, b.abs(), full=True)),
        (tl.nn.GaussianNLLLoss(eps=1e-3), (a, b, c.abs()), F.gaussian_nll_loss(a, b, c.abs(), eps=1e-3)),
        (tl.nn.MultiMarginLoss(p=2, reduction="none"), (a, target), F.multi_margin_loss(a, target, p=2, reduction="none")),
        (tl.nn.MultiLabelMarginLoss(), (a, labels), F.multilabel_margin_loss(a, labels)),
        (tl.nn.MultiLabelSoftMarginLoss(weight=c.abs()[0]), (a, (b > 0).double()),
         F.multilabel_soft_margin_loss(a, (b > 0).double(), weight=c.abs()[0])),
        (tl.nn.SoftMarginLoss(size_average=False), (a, s4), F.soft_margin_loss(a, s4, reduction="sum")),
    ]
    for module, args, expected in cases:
        assert tl.allclose(module(*args), expected), type(module).__name__


@pytest.mark.skipif(TORCH is None, reason="needs PyTorch")
def test_loss_module_reprs_match_torch():
    for name, args in [("MarginRankingLoss", ()), ("TripletMarginLoss", ()), ("GaussianNLLLoss", ()),
                       ("MultiMarginLoss", ()), ("PoissonNLLLoss", ()), ("TripletMarginWithDistanceLoss", ())]:
        assert repr(getattr(tl.nn, name)(*args)) == repr(getattr(TORCH.nn, name)(*args))


def test_gaussian_nll_var_shapes_and_float():
    x, t = _x(3, 4), _x(3, 4, seed=1)
    var = _x(3, 1, seed=2).abs()
    assert tl.allclose(F.gaussian_nll_loss(x, t, var.squeeze(1)), F.gaussian_nll_loss(x, t, var))
    assert tl.allclose(F.gaussian_nll_loss(x, t, 0.5), F.gaussian_nll_loss(x, t, tl.full_like(x, 0.5)))


def test_gumbel_softmax_samples_and_straight_through_gradient():
    tl.manual_seed(0)
    logits = tl.tensor([[2.0, 0.0, -1.0]] * 4000, requires_grad=True)
    soft = tl.nn.functional.gumbel_softmax(logits, tau=0.5)
    assert tuple(soft.shape) == (4000, 3)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), 1.0, rtol=1e-6)
    # The argmax of logits + Gumbel noise is a draw from softmax(logits).
    freq = np.bincount(soft.argmax(-1).numpy(), minlength=3) / 4000
    np.testing.assert_allclose(freq, np.exp([2.0, 0.0, -1.0]) / np.exp([2.0, 0.0, -1.0]).sum(), atol=0.03)
    hard = tl.nn.functional.gumbel_softmax(logits, tau=0.5, hard=True)
    assert set(np.unique(hard.detach().numpy())) <= {0.0, 1.0} and (hard.sum(-1) == 1).all()
    (hard * tl.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert logits.grad.abs().sum().item() > 0  # the soft sample's gradient flows through the one-hot

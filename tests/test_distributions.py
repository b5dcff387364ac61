"""torchlite.distributions against torch.distributions: every family is built with the same
parameters in both libraries and compared method by method (log_prob, cdf, icdf, entropy,
moments, mode, support enumeration, shapes, expand), its samples are checked for shape and
for their mean (seeded, so the bound cannot flake), reparameterised samples for their
gradient, and bad parameters or values for PyTorch's ValueError."""

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest

import torchlite as tl
from torchlite.distributions import constraints

torch = pytest.importorskip("torch")

def _t(lib, dtype="float64"):
    """lib.tensor in float64 (integer-valued lists too), or the dtype named."""
    return lambda data: lib.tensor(data, dtype=getattr(lib, dtype))


@dataclass
class Case:
    name: str
    make: object  # (distributions module, tensor maker) -> a distribution
    value: list = None  # a value in the support (for log_prob, cdf)
    q: list = field(default_factory=lambda: [0.2, 0.7])  # probabilities for icdf
    bad: object = None  # (D, t) -> a distribution with invalid parameters (ValueError)
    bad_value: list = None  # a value outside the support (ValueError from log_prob)
    moments: bool = True  # whether the sample mean converges to .mean
    dtype: str = "float64"
    # whether d rsample / d params averages to d mean / d params (PyTorch's formulas, which we
    # follow, are constant in the parameters in places: ContinuousBernoulli's Taylor region,
    # GeneralizedPareto at concentration 0)
    rsample_grad: bool = True
    rtol: float = None  # when our values are closer to exact than PyTorch's approximations


CASES = [
    Case("Normal", lambda D, t: D.Normal(t([0.5, -1.0]), t([1.0, 2.0])), value=[0.1, 3.0],
         bad=lambda D, t: D.Normal(t([0.0]), t([-1.0]))),
    Case("Normal-scalar", lambda D, t: D.Normal(0.5, 2.0), value=1.5),
    Case("Uniform", lambda D, t: D.Uniform(t([0.0, -2.0]), t([1.0, 3.0])), value=[0.5, 2.9],
         bad=lambda D, t: D.Uniform(t([1.0]), t([0.0])), bad_value=[1.5, 0.0]),
    Case("Exponential", lambda D, t: D.Exponential(t([0.5, 3.0])), value=[0.2, 4.0],
         bad=lambda D, t: D.Exponential(t([0.0])), bad_value=[-1.0, 1.0]),
    Case("Laplace", lambda D, t: D.Laplace(t([0.0, 1.0]), t([1.0, 0.5])), value=[-0.3, 2.0],
         bad=lambda D, t: D.Laplace(t([0.0]), t([0.0]))),
    Case("Cauchy", lambda D, t: D.Cauchy(t([0.0, 1.0]), t([1.0, 0.5])), value=[-0.3, 2.0],
         bad=lambda D, t: D.Cauchy(t([0.0]), t([-2.0])), moments=False),
    Case("Gamma", lambda D, t: D.Gamma(t([2.0, 0.5]), t([1.0, 3.0])), value=[1.5, 0.2],
         bad=lambda D, t: D.Gamma(t([0.0]), t([1.0])), bad_value=[-1.0, 1.0]),
    Case("Chi2", lambda D, t: D.Chi2(t([3.0, 0.7])), value=[2.0, 0.1], bad=lambda D, t: D.Chi2(t([-1.0]))),
    Case("Beta", lambda D, t: D.Beta(t([2.0, 0.5]), t([3.0, 0.8])), value=[0.3, 0.9],
         bad=lambda D, t: D.Beta(t([2.0]), t([0.0])), bad_value=[1.5, 0.5]),
    Case("Beta-scalar", lambda D, t: D.Beta(2.0, 3.0), value=0.3),
    Case("Dirichlet", lambda D, t: D.Dirichlet(t([[1.0, 2.0, 3.0], [0.5, 0.6, 0.7]])),
         value=[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], bad=lambda D, t: D.Dirichlet(t([1.0, -1.0])),
         bad_value=[[0.2, 0.3, 0.6], [0.1, 0.1, 0.8]]),
    Case("Bernoulli", lambda D, t: D.Bernoulli(t([0.3, 0.5, 0.9])), value=[1.0, 0.0, 1.0],
         bad=lambda D, t: D.Bernoulli(t([1.5])), bad_value=[0.5, 0.0, 1.0]),
    Case("Bernoulli-logits", lambda D, t: D.Bernoulli(logits=t([-1.0, 2.0])), value=[0.0, 1.0]),
    Case("Categorical", lambda D, t: D.Categorical(t([[0.2, 0.3, 0.5], [1.0, 1.0, 2.0]])), value=[2.0, 0.0],
         bad=lambda D, t: D.Categorical(t([0.5, -0.5])), bad_value=[3.0, 0.0], moments=False),
    Case("Categorical-logits", lambda D, t: D.Categorical(logits=t([[0.0, -1.0, 2.0]])), value=[1.0], moments=False),
    Case("OneHotCategorical", lambda D, t: D.OneHotCategorical(t([[0.2, 0.3, 0.5], [1.0, 1.0, 2.0]])),
         value=[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], bad_value=[[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]),
    Case("OneHotCategoricalStraightThrough",
         lambda D, t: D.OneHotCategoricalStraightThrough(logits=t([[0.0, -1.0, 2.0]])), value=[[0.0, 1.0, 0.0]]),
    Case("Poisson", lambda D, t: D.Poisson(t([2.0, 0.5])), value=[3.0, 0.0],
         bad=lambda D, t: D.Poisson(t([-1.0])), bad_value=[1.5, 0.0]),
    Case("Binomial", lambda D, t: D.Binomial(t([10.0, 10.0]), t([0.3, 0.7])), value=[4.0, 10.0],
         bad=lambda D, t: D.Binomial(t([2.5]), t([0.5])), bad_value=[11.0, 1.0]),
    Case("Binomial-logits", lambda D, t: D.Binomial(t([5.0, 8.0]), logits=t([0.5, -1.0])), value=[2.0, 8.0]),
    Case("Multinomial", lambda D, t: D.Multinomial(5, t([0.2, 0.3, 0.5])), value=[1.0, 2.0, 2.0],
         bad_value=[1.0, -2.0, 2.0]),
    Case("Geometric", lambda D, t: D.Geometric(t([0.3, 0.8])), value=[2.0, 0.0],
         bad=lambda D, t: D.Geometric(t([1.5]))),
    Case("Geometric-logits", lambda D, t: D.Geometric(logits=t([0.3, -2.0])), value=[1.0, 5.0]),
    Case("NegativeBinomial", lambda D, t: D.NegativeBinomial(t([3.0, 5.5]), t([0.4, 0.7])), value=[2.0, 7.0],
         bad=lambda D, t: D.NegativeBinomial(t([3.0]), t([1.0]))),
    Case("StudentT", lambda D, t: D.StudentT(t([3.0, 1.5, 0.8]), t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5])),
         value=[0.5, -2.0, 1.0], bad=lambda D, t: D.StudentT(t([0.0])), moments=False),
    Case("StudentT-df5", lambda D, t: D.StudentT(t([5.0, 9.0]), t([0.0, 1.0]), t([1.0, 2.0])), value=[0.5, -2.0]),
    Case("StudentT-scalar", lambda D, t: D.StudentT(t([5.0, 9.0])), value=[0.5, -2.0]),
    Case("FisherSnedecor", lambda D, t: D.FisherSnedecor(t([3.0, 1.5, 6.0]), t([5.0, 3.0, 9.0])),
         value=[0.5, 2.0, 1.0], bad=lambda D, t: D.FisherSnedecor(t([0.0]), t([1.0])), moments=False),
    Case("FisherSnedecor-moments", lambda D, t: D.FisherSnedecor(t([6.0, 10.0]), t([12.0, 20.0])), value=[0.5, 2.0]),
    Case("ContinuousBernoulli", lambda D, t: D.ContinuousBernoulli(t([0.2, 0.4995, 0.9])), value=[0.3, 0.5, 0.99],
         q=[0.2, 0.5, 0.7], bad_value=[1.2, 0.5, 0.5], rsample_grad=False),
    Case("ContinuousBernoulli-logits", lambda D, t: D.ContinuousBernoulli(logits=t([-2.0, 0.0005, 1.0])),
         value=[0.3, 0.5, 0.99], q=[0.2, 0.5, 0.7], rsample_grad=False),
    Case("ContinuousBernoulli-stable", lambda D, t: D.ContinuousBernoulli(t([0.2, 0.7])), value=[0.3, 0.99]),
    Case("GeneralizedPareto", lambda D, t: D.GeneralizedPareto(t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5]),
                                                               t([0.2, 0.0, -0.3])), value=[0.5, 2.0, -0.5],
         q=[0.2, 0.5, 0.7], bad=lambda D, t: D.GeneralizedPareto(0.0, -1.0, 0.0), bad_value=[0.5, 0.0, 1.0],
         dtype="float32", rsample_grad=False),  # PyTorch's log_prob compares with a float32 zero: no float64
    Case("Independent", lambda D, t: D.Independent(D.Normal(t([[0.0, 1.0], [2.0, 3.0]]), t([[1.0, 2.0], [0.5, 1.0]])), 1),
         value=[[0.1, 0.2], [0.3, 0.4]]),
    Case("Independent-discrete", lambda D, t: D.Independent(D.Bernoulli(t([0.2, 0.6])), 0), value=[1.0, 0.0]),
    Case("MixtureSameFamily", lambda D, t: D.MixtureSameFamily(D.Categorical(t([[0.2, 0.8], [0.5, 0.5]])),
                                                               D.Normal(t([[-1.0, 1.0], [0.0, 3.0]]), t([[1.0, 0.5], [2.0, 1.0]]))),
         value=[0.3, -1.0]),
    Case("MixtureSameFamily-mvn", lambda D, t: D.MixtureSameFamily(
        D.Categorical(t([0.3, 0.7])), D.MultivariateNormal(t([[0.0, 1.0], [2.0, -1.0]]), t([[1.0, 0.3], [0.3, 2.0]]))),
        value=[[0.1, 0.2], [1.0, 2.0]]),
    Case("MultivariateNormal-cov", lambda D, t: D.MultivariateNormal(t([[0.0, 1.0], [2.0, -1.0]]),
                                                                     t([[2.0, 0.5], [0.5, 1.0]])),
         value=[[0.3, 0.1], [1.0, 2.0]], bad=lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), t([[1.0, 2.0], [2.0, 1.0]]))),
    Case("MultivariateNormal-precision", lambda D, t: D.MultivariateNormal(t([0.0, 1.0, 2.0]), precision_matrix=t(
        [[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 3.0]])), value=[[0.3, 0.1, 0.5]]),
    Case("MultivariateNormal-tril", lambda D, t: D.MultivariateNormal(t([0.0, 1.0]), scale_tril=t(
        [[[1.0, 0.0], [0.5, 2.0]], [[0.3, 0.0], [-1.0, 1.0]]])), value=[0.3, 0.1],
         bad=lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), scale_tril=t([[1.0, 1.0], [0.0, 1.0]]))),
    Case("VonMises", lambda D, t: D.VonMises(t([0.0, 1.0, -2.0]), t([0.5, 4.0, 30.0])), value=[0.3, -2.0, 3.0],
         bad=lambda D, t: D.VonMises(t([0.0]), t([0.0])), moments=False,
         rtol=1e-6),  # PyTorch's Bessel functions are polynomial fits (2e-7), ours i0e/i1e
    Case("Wishart", lambda D, t: D.Wishart(t([4.0, 3.5]), t([[2.0, 0.5], [0.5, 1.0]])),
         value=[[[1.0, 0.2], [0.2, 2.0]], [[3.0, -1.0], [-1.0, 1.0]]],
         bad=lambda D, t: D.Wishart(t(4.0), t([[1.0, 2.0], [2.0, 1.0]])), bad_value=[[[1.0, 2.0], [2.0, 1.0]]] * 2),
    Case("Wishart-tril", lambda D, t: D.Wishart(t(5.0), scale_tril=t([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [0.1, 0.2, 0.5]])),
         value=[[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.0]]),
    Case("LKJCholesky", lambda D, t: D.LKJCholesky(2, t([0.5, 2.0])), value=[[1.0, 0.0], [0.6, 0.8]],
         bad=lambda D, t: D.LKJCholesky(3, t([-1.0])), bad_value=[[1.0, 0.0], [0.6, 0.7]], moments=False),
    Case("LKJCholesky-3", lambda D, t: D.LKJCholesky(3, t(1.5)), value=[[1.0, 0.0, 0.0], [0.6, 0.8, 0.0],
                                                                        [0.0, 0.6, 0.8]], moments=False),
    Case("LowRankMultivariateNormal", lambda D, t: D.LowRankMultivariateNormal(
        t([[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]]), t([[1.0, 0.0], [0.5, 2.0], [0.0, 1.0]]), t([1.0, 0.5, 2.0])),
        value=[[0.3, 0.1, 0.5], [1.0, 2.0, 3.0]], bad=lambda D, t: D.LowRankMultivariateNormal(
            t([0.0]), t([[0.5]]), t([-1.0]))),
]
IDS = [c.name for c in CASES]
METHODS = ["log_prob", "cdf", "icdf", "entropy", "mean", "variance", "stddev", "mode", "enumerate_support",
           "perplexity"]


def _pair(case):
    return case.make(tl.distributions, _t(tl, case.dtype)), case.make(torch.distributions, _t(torch, case.dtype))


def _as_np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _call(dist, method, case, t):
    attr = getattr(type(dist), method)
    if isinstance(attr, property):
        return getattr(dist, method)
    if method in ("log_prob", "cdf"):
        return getattr(dist, method)(t(case.value))
    if method == "icdf":
        return dist.icdf(t(case.q))
    return getattr(dist, method)()


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("method", METHODS)
def test_method_matches_torch(case, method):
    ours, ref = _pair(case)
    try:
        expected = _call(ref, method, case, _t(torch, case.dtype))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            _call(ours, method, case, _t(tl, case.dtype))
        return
    got = _call(ours, method, case, _t(tl, case.dtype))
    assert tuple(got.shape) == tuple(expected.shape) and str(got.dtype)[10:] == str(expected.dtype)[6:]
    tol = case.rtol or (1e-9 if expected.dtype == torch.float64 else 1e-6)
    np.testing.assert_allclose(_as_np(got), _as_np(expected), rtol=tol, atol=tol * 1e-3)


# PyTorch 2.13's Wishart.rsample tests its samples for being non-singular the wrong way round: it
# warns and redraws every good sample (ours warns only for a singular one)
@pytest.mark.filterwarnings("ignore:Singular sample detected")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_shapes_and_expand(case):
    ours, ref = _pair(case)
    assert tuple(ours.batch_shape) == tuple(ref.batch_shape)
    assert tuple(ours.event_shape) == tuple(ref.event_shape)
    assert ours.has_rsample == ref.has_rsample and ours.has_enumerate_support == ref.has_enumerate_support
    for sample_shape in [(), (3,), (2, 4)]:
        assert tuple(ours.sample(sample_shape).shape) == tuple(ref.sample(sample_shape).shape)
        if ours.has_rsample:
            assert tuple(ours.rsample(sample_shape).shape) == tuple(ref.rsample(sample_shape).shape)
    batch = (5,) + tuple(ref.batch_shape)
    ours_e, ref_e = ours.expand(batch), ref.expand(batch)
    assert type(ours_e) is type(ours) and ours_e.batch_shape == batch
    k = len(ref.batch_shape) + len(ref.event_shape)  # a sample dimension before the batch, if value has one
    values = [_t(lib, case.dtype)(case.value) for lib in (tl, torch)]
    values = [v.unsqueeze(v.dim() - k) if v.dim() >= k else v for v in values]
    np.testing.assert_allclose(_as_np(ours_e.log_prob(values[0])), _as_np(ref_e.log_prob(values[1])),
                               rtol=case.rtol or 1e-6)
    assert tuple(ours_e.sample((2,)).shape) == tuple(ref_e.sample((2,)).shape)
    assert repr(ours).replace("torchlite", "torch") == repr(ref)


@pytest.mark.parametrize("case", [c for c in CASES if c.moments], ids=[c.name for c in CASES if c.moments])
def test_sample_mean(case):
    tl.manual_seed(0)
    ours, _ = _pair(case)
    n = 20000
    samples = ours.sample((n,))
    # 6 standard errors: with a fixed seed this is deterministic, and far from the edge
    bound = 6 * ours.stddev / math.sqrt(n)
    assert bool(((samples.mean(0) - ours.mean).abs() <= bound).all())


@pytest.mark.parametrize("case", [c for c in CASES if c.bad], ids=[c.name for c in CASES if c.bad])
def test_bad_parameters_raise(case):
    with pytest.raises(ValueError, match="Expected parameter"):
        case.bad(torch.distributions, _t(torch, case.dtype))
    with pytest.raises(ValueError, match="Expected parameter"):
        case.bad(tl.distributions, _t(tl, case.dtype))


@pytest.mark.parametrize("case", [c for c in CASES if c.bad_value], ids=[c.name for c in CASES if c.bad_value])
def test_value_outside_support_raises(case):
    ours, ref = _pair(case)
    with pytest.raises(ValueError, match="support"):
        ref.log_prob(_t(torch, case.dtype)(case.bad_value))
    with pytest.raises(ValueError, match="support"):
        ours.log_prob(_t(tl, case.dtype)(case.bad_value))


def test_value_shape_is_checked():
    d = tl.distributions.Normal(tl.zeros(3), tl.ones(3))
    with pytest.raises(ValueError, match="broadcastable"):
        d.log_prob(tl.zeros(4))
    with pytest.raises(ValueError, match="must be a Tensor"):
        d.log_prob(0.0)


def test_validation_can_be_turned_off():
    d = tl.distributions.Normal(tl.tensor([0.0]), tl.tensor([-1.0]), validate_args=False)
    assert d.scale.item() == -1.0
    tl.distributions.Distribution.set_default_validate_args(False)
    try:
        tl.distributions.Exponential(tl.tensor([-1.0]))
    finally:
        tl.distributions.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        tl.distributions.Distribution.set_default_validate_args(2)


RSAMPLE_CASES = [c for c in CASES if c.moments and c.rsample_grad and c.make(tl.distributions, _t(tl)).has_rsample
                 and not c.name.endswith("-scalar")]


@pytest.mark.parametrize("case", RSAMPLE_CASES, ids=[c.name for c in RSAMPLE_CASES])
def test_rsample_gradient_matches_the_mean_gradient(case):
    """E[d x / d theta] = d E[x] / d theta: the gradient of the mean of many reparameterised samples
    approaches the gradient of the analytic mean."""
    leaves = []

    def t(data):
        leaves.append(tl.tensor(data, dtype=tl.float64, requires_grad=True))
        return leaves[-1]

    tl.manual_seed(0)
    dist = case.make(tl.distributions, t)
    sampled = tl.autograd.grad(dist.rsample((20000,)).mean(0).sum(), leaves, retain_graph=True)
    exact = tl.autograd.grad(dist.mean.sum(), leaves, materialize_grads=True)
    for got, want in zip(sampled, exact):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0.05, atol=0.03)  # ~3 standard errors


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_samples_are_seeded(case):
    ours, _ = _pair(case)
    tl.manual_seed(3)
    a = ours.sample((5,))
    tl.manual_seed(3)
    b = ours.sample((5,))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_von_mises_samples():
    loc, kappa = np.array([0.0, 3.0, -2.0]), np.array([0.5, 4.0, 30.0])
    tl.manual_seed(0)
    x = tl.distributions.VonMises(tl.tensor(loc), tl.tensor(kappa)).sample((N_DRAWS,))
    assert bool(((x >= -math.pi) & (x < math.pi)).all())
    # the mean resultant vector points at loc with length I1(kappa) / I0(kappa)
    c, s = tl.cos(x).mean(0).numpy(), tl.sin(x).mean(0).numpy()
    np.testing.assert_allclose(np.arctan2(s, c), loc, atol=0.03)
    ratio = torch.special.i1e(torch.tensor(kappa)) / torch.special.i0e(torch.tensor(kappa))
    np.testing.assert_allclose(np.hypot(c, s), ratio.numpy(), atol=0.01)


def test_wishart_samples_do_not_warn():
    d = tl.distributions.Wishart(tl.tensor([4.0, 3.5]), tl.tensor([[2.0, 0.5], [0.5, 1.0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert d.rsample((20,)).shape == (20, 2, 2, 2)


def test_lkj_cholesky_samples_are_correlation_factors():
    tl.manual_seed(0)
    d = tl.distributions.LKJCholesky(4, tl.tensor([0.5, 3.0]))
    L = d.sample((500,))
    assert L.shape == (500, 2, 4, 4) and bool(constraints.corr_cholesky.check(L).all())
    # the marginal of an off-diagonal correlation is Beta(eta - 1 + dim/2, same) on [-1, 1]: variance 1 / (2 eta + dim - 1)
    r = (L @ L.mT)[..., 0, 1]
    np.testing.assert_allclose(r.var(0).numpy(), 1 / (2 * np.array([0.5, 3.0]) + 3), rtol=0.2)


def test_normal_rsample_gradient():
    loc = tl.tensor([0.5, -1.0], dtype=tl.float64, requires_grad=True)
    scale = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    tl.manual_seed(0)
    x = tl.distributions.Normal(loc, scale).rsample((4,))
    (x * x).sum().backward()
    eps = ((x - loc) / scale).detach()
    np.testing.assert_allclose(loc.grad.numpy(), (2 * x.detach()).sum(0).numpy())
    np.testing.assert_allclose(scale.grad.numpy(), (2 * x.detach() * eps).sum(0).numpy())


CONSTRAINT_VALUES = [
    ("boolean", [0.0, 1.0, 0.5]), ("nonnegative_integer", [0.0, 2.0, -1.0, 1.5]), ("positive_integer", [0.0, 3.0]),
    ("real", [0.0, math.inf, math.nan]), ("positive", [0.0, 1.0]), ("nonnegative", [0.0, -1.0]),
    ("unit_interval", [0.0, 1.0, 1.1]), ("simplex", [[0.5, 0.5], [0.4, 0.4]]), ("one_hot", [[0.0, 1.0], [1.0, 1.0]]),
    ("real_vector", [[0.0, math.nan], [1.0, 2.0]]), ("lower_triangular", [[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [0, 1]]]),
    ("lower_cholesky", [[[1.0, 0.0], [2.0, 3.0]], [[1.0, 0.0], [2.0, -3.0]]]),
    ("corr_cholesky", [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.7]]]),
    ("square", [[1.0, 2.0], [3.0, 4.0]]), ("symmetric", [[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [3.0, 1.0]]]),
    ("positive_semidefinite", [[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    ("positive_definite", [[[2.0, 1.0], [1.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]]]),
]


@pytest.mark.parametrize("name,value", CONSTRAINT_VALUES, ids=[c[0] for c in CONSTRAINT_VALUES])
def test_constraint_checks_match_torch(name, value):
    ours = getattr(constraints, name)
    ref = getattr(torch.distributions.constraints, name)
    assert (ours.event_dim, ours.is_discrete, repr(ours)) == (ref.event_dim, ref.is_discrete, repr(ref))
    np.testing.assert_array_equal(ours.check(_t(tl)(value)).numpy(), ref.check(_t(torch)(value)).numpy())


@pytest.mark.parametrize("build", [
    lambda C: C.interval(0.0, 2.0), lambda C: C.half_open_interval(0.0, 2.0), lambda C: C.greater_than(1.0),
    lambda C: C.greater_than_eq(1.0), lambda C: C.less_than(1.0), lambda C: C.integer_interval(0, 2),
    lambda C: C.multinomial(3), lambda C: C.independent(C.positive, 1),
    lambda C: C.cat([C.positive, C.real], dim=-1, lengths=[1, 2]), lambda C: C.stack([C.positive, C.real, C.boolean], -1),
    lambda C: C.MixtureSameFamilyConstraint(C.positive),
], ids=["interval", "half_open", "gt", "ge", "lt", "integer_interval", "multinomial", "independent", "cat", "stack",
        "mixture"])
def test_parameterised_constraints_match_torch(build):
    value = [[0.0, 1.0, 2.0], [1.0, -1.0, 0.5]]
    ours, ref = build(constraints), build(torch.distributions.constraints)
    assert (ours.event_dim, ours.is_discrete) == (ref.event_dim, ref.is_discrete)
    assert repr(ours).replace("torchlite", "torch") == repr(ref)
    np.testing.assert_array_equal(ours.check(_t(tl)(value)).numpy(), ref.check(_t(torch)(value)).numpy())


def test_dependent_constraints():
    assert constraints.is_dependent(constraints.dependent)
    assert constraints.is_dependent(tl.distributions.Uniform.support)
    assert tl.distributions.Uniform.support.event_dim == 0
    with pytest.raises(NotImplementedError):
        constraints.dependent.event_dim  # noqa: B018
    assert constraints.dependent(is_discrete=True, event_dim=1).event_dim == 1
    with pytest.raises(ValueError, match="dependent"):
        constraints.dependent.check(tl.zeros(1))


def test_utils_match_torch():
    from torch.distributions import utils as ref
    from torchlite.distributions import utils as ours

    x = [[0.2, 0.3, 0.5], [1e-30, 0.5, 1.0]]
    for fn, args in [("probs_to_logits", ()), ("probs_to_logits", (True,)), ("logits_to_probs", ()),
                     ("logits_to_probs", (True,)), ("clamp_probs", ())]:
        np.testing.assert_allclose(getattr(ours, fn)(_t(tl)(x), *args).numpy(),
                                   getattr(ref, fn)(_t(torch)(x), *args).numpy(), rtol=1e-12)
    for diag in (-1, 0, 1):
        m = np.arange(16.0).reshape(1, 4, 4)
        v = ours.tril_matrix_to_vec(tl.tensor(m), diag)
        np.testing.assert_array_equal(v.numpy(), ref.tril_matrix_to_vec(torch.tensor(m), diag).numpy())
        np.testing.assert_array_equal(ours.vec_to_tril_matrix(v, diag).numpy(),
                                      ref.vec_to_tril_matrix(torch.tensor(v.numpy()), diag).numpy())
    with pytest.raises(ValueError, match="cannot be expressed"):
        ours.vec_to_tril_matrix(tl.zeros(5))
    a, b = ours.broadcast_all(tl.zeros(2, 1, dtype=tl.float64), 3)
    assert a.shape == (2, 1) and b.dtype == tl.float64 and b.shape == (2, 1)
    with pytest.raises(ValueError, match="Number"):
        ours.broadcast_all("x")


# ---- the samplers (torchlite._standard_gamma, _sample_dirichlet, binomial) ---------------------

N_DRAWS = 100_000


def _within(samples, mean, var, k=6):
    """Sample means within k standard errors of the analytic mean (seeded: deterministic)."""
    got = samples.double().mean(0).numpy()
    np.testing.assert_array_less(np.abs(got - mean), k * np.sqrt(var / samples.shape[0]) + 1e-12)


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_standard_gamma_moments(dtype):
    alpha = np.array([0.05, 0.3, 1.0, 4.5, 300.0])
    tl.manual_seed(0)
    x = tl._standard_gamma(tl.tensor(alpha, dtype=dtype).expand(N_DRAWS, 5))
    assert x.dtype == dtype and bool((x > 0).all())
    _within(x, alpha, alpha)
    _within(x * x, alpha * (alpha + 1), alpha * (alpha + 1) * (4 * alpha + 6))  # E[x^2], Var[x^2]


def test_standard_gamma_edges():
    x = tl._standard_gamma(tl.tensor([0.0, -1.0, math.nan, math.inf]))
    np.testing.assert_array_equal(x.numpy(), torch._standard_gamma(torch.tensor([0.0, -1.0, math.nan, math.inf])))
    assert tl._standard_gamma(tl.ones(0, 3)).shape == (0, 3)


def test_sampler_seeding_and_generator():
    for sample in (lambda g: tl._standard_gamma(tl.full((50,), 2.0), generator=g),
                   lambda g: tl._sample_dirichlet(tl.ones(10, 3), generator=g),
                   lambda g: tl.binomial(tl.full((50,), 30.0), tl.full((50,), 0.4), generator=g)):
        tl.manual_seed(7)
        a = sample(None)
        tl.manual_seed(7)
        np.testing.assert_array_equal(a.numpy(), sample(None).numpy())
        g1, g2 = tl.Generator().manual_seed(1), tl.Generator().manual_seed(1)
        np.testing.assert_array_equal(sample(g1).numpy(), sample(g2).numpy())
        assert not np.array_equal(sample(g1).numpy(), sample(tl.Generator().manual_seed(2)).numpy())


def test_sample_dirichlet_moments():
    alpha = np.array([[0.2, 1.0, 3.0], [50.0, 50.0, 1e-3]])
    tl.manual_seed(0)
    x = tl._sample_dirichlet(tl.tensor(alpha).expand(N_DRAWS, 2, 3))
    np.testing.assert_allclose(x.sum(-1).numpy(), 1.0, rtol=1e-12)
    total = alpha.sum(-1, keepdims=True)
    mean = alpha / total
    _within(x, mean, mean * (1 - mean) / (total + 1))
    assert tl._sample_dirichlet(tl.ones(())).item() == 1.0


@pytest.mark.parametrize("count,prob", [(5.0, 0.3), (50.0, 0.2), (1000.0, 0.7), (7.0, 0.9), (1e6, 0.5), (40.0, 0.02)])
def test_binomial_moments(count, prob):
    tl.manual_seed(0)
    k = tl.binomial(tl.full((N_DRAWS,), count, dtype=tl.float64), tl.full((N_DRAWS,), prob, dtype=tl.float64))
    assert bool((k == k.floor()).all()) and bool(((k >= 0) & (k <= count)).all())
    var = count * prob * (1 - prob)
    _within(k[:, None], count * prob, var)
    _within(((k - count * prob) ** 2)[:, None], var, 2 * var * var + var * (1 - 6 * prob * (1 - prob)))


def test_binomial_edges_match_torch():
    count, prob = [10.0, 0.0, 5.0, 100.0, -3.0, 4.0, 2.0], [0.5, 0.5, 1.0, 0.0, 0.5, 1.5, math.nan]
    got = tl.binomial(tl.tensor(count), tl.tensor(prob)).numpy()
    want = torch.binomial(torch.tensor(count), torch.tensor(prob)).numpy()
    np.testing.assert_array_equal(got[1:], want[1:])
    assert tl.binomial(tl.tensor([10.0, 3.0]), tl.tensor([0.5])).shape == (2,)  # broadcast


def test_reparameterisation_gradients_match_torch():
    a = np.array([0.05, 0.5, 1.0, 2.0, 10.0, 100.0, 1000.0, 1e5])
    x = np.array([1e-20, 0.3, 1.0, 2.5, 9.0, 110.0, 980.0, 1e5 + 300])
    np.testing.assert_allclose(tl._standard_gamma_grad(tl.tensor(a), tl.tensor(x)).numpy(),
                               torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy(), rtol=2e-3)
    xs, alpha, total = [0.3, 0.5, 0.9, 0.01, 0.999, 0.5], [1.0, 2.0, 3.0, 0.5, 5.0, 100.0], [3.0, 4.0, 5.0, 10.0, 5.5, 200.0]
    np.testing.assert_allclose(tl._dirichlet_grad(*map(tl.tensor, (xs, alpha, total))).numpy(),
                               torch._dirichlet_grad(*map(torch.tensor, (xs, alpha, total))).numpy(), rtol=2e-3)


def test_standard_gamma_backward():
    alpha = tl.tensor([0.5, 3.0], dtype=tl.float64, requires_grad=True)
    x = tl._standard_gamma(alpha)
    x.sum().backward()
    np.testing.assert_allclose(alpha.grad.numpy(), tl._standard_gamma_grad(alpha.detach(), x.detach()).numpy())
    assert x.grad_fn.name() == "StandardGammaBackward0"
    count = tl.tensor([3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="not implemented"):
        tl.binomial(count, tl.tensor([0.5])).sum().backward()


# ---- kl_divergence -------------------------------------------------------------------------------

def _normal(D, t):
    return D.Normal(t([0.5, -1.0, 2.0]), t([1.0, 2.0, 0.5]))


def _mvn(D, t, shift=0.0):
    return D.MultivariateNormal(t([[0.0 + shift, 1.0], [2.0, -1.0 - shift]]), t([[2.0, 0.5 + shift], [0.5 + shift, 1.0]]))


def _lowrank(D, t, shift=0.0):
    return D.LowRankMultivariateNormal(t([[0.0, 1.0], [2.0 + shift, -1.0]]), t([[1.0], [0.5 + shift]]), t([1.0, 0.5]))


KL_PAIRS = {
    "Normal-Normal": (_normal, lambda D, t: D.Normal(t([0.0, 1.0, 2.0]), t([2.0, 1.0, 1.5]))),
    "Bernoulli-Bernoulli": (lambda D, t: D.Bernoulli(t([0.3, 0.0, 1.0, 0.5])),
                            lambda D, t: D.Bernoulli(t([0.6, 0.2, 1.0, 0.0]))),
    "Beta-Beta": (lambda D, t: D.Beta(t([2.0, 0.5]), t([3.0, 0.8])), lambda D, t: D.Beta(t([1.0, 4.0]), t([1.0, 2.0]))),
    "Binomial-Binomial": (lambda D, t: D.Binomial(t([10.0, 12.0]), t([0.3, 0.5])),
                          lambda D, t: D.Binomial(t([10.0, 10.0]), t([0.6, 0.5]))),
    "Categorical-Categorical": (lambda D, t: D.Categorical(t([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])),
                                lambda D, t: D.Categorical(t([[0.1, 0.1, 0.8], [0.3, 0.0, 0.7]]))),
    "OneHot-OneHot": (lambda D, t: D.OneHotCategorical(t([0.2, 0.3, 0.5])),
                      lambda D, t: D.OneHotCategorical(logits=t([0.0, 1.0, -1.0]))),
    "ContinuousBernoulli-ContinuousBernoulli": (lambda D, t: D.ContinuousBernoulli(t([0.2, 0.7])),
                                                lambda D, t: D.ContinuousBernoulli(t([0.6, 0.4]))),
    "Dirichlet-Dirichlet": (lambda D, t: D.Dirichlet(t([[1.0, 2.0, 3.0]])), lambda D, t: D.Dirichlet(t([0.5, 0.5, 4.0]))),
    "Exponential-Exponential": (lambda D, t: D.Exponential(t([0.5, 3.0])), lambda D, t: D.Exponential(t([2.0, 1.0]))),
    "Gamma-Gamma": (lambda D, t: D.Gamma(t([2.0, 0.5]), t([1.0, 3.0])), lambda D, t: D.Gamma(t([1.0, 4.0]), t([2.0, 2.0]))),
    "Chi2-Chi2": (lambda D, t: D.Chi2(t([3.0])), lambda D, t: D.Chi2(t([5.0]))),
    "Geometric-Geometric": (lambda D, t: D.Geometric(t([0.3, 0.8])), lambda D, t: D.Geometric(t([0.5, 0.1]))),
    "Laplace-Laplace": (lambda D, t: D.Laplace(t([0.0, 1.0]), t([1.0, 0.5])), lambda D, t: D.Laplace(t([1.0, 1.0]), t([2.0, 1.0]))),
    "Poisson-Poisson": (lambda D, t: D.Poisson(t([2.0, 0.5])), lambda D, t: D.Poisson(t([1.0, 3.0]))),
    "Uniform-Uniform": (lambda D, t: D.Uniform(t([0.0, 0.0]), t([1.0, 2.0])), lambda D, t: D.Uniform(t([-1.0, 0.5]), t([2.0, 3.0]))),
    "Cauchy-Cauchy": (lambda D, t: D.Cauchy(t([0.0, 1.0]), t([1.0, 0.5])), lambda D, t: D.Cauchy(t([1.0, 1.0]), t([2.0, 1.0]))),
    "MVN-MVN": (_mvn, lambda D, t: _mvn(D, t, 0.3)),
    "MVN-MVN-broadcast": (lambda D, t: D.MultivariateNormal(t([0.0, 1.0]), scale_tril=t([[1.0, 0.0], [0.5, 2.0]])), _mvn),
    "LowRank-LowRank": (_lowrank, lambda D, t: _lowrank(D, t, 0.4)),
    "MVN-LowRank": (_mvn, _lowrank),
    "LowRank-MVN": (_lowrank, _mvn),
    "Independent-Independent": (lambda D, t: D.Independent(_normal(D, t), 1),
                                lambda D, t: D.Independent(D.Normal(t([0.0, 0.0, 0.0]), t([1.0, 1.0, 1.0])), 1)),
    "Bernoulli-Poisson": (lambda D, t: D.Bernoulli(t([0.3, 0.9])), lambda D, t: D.Poisson(t([1.0, 3.0]))),
    "Poisson-Binomial": (lambda D, t: D.Poisson(t([1.0])), lambda D, t: D.Binomial(t([3.0]), t([0.5]))),
    "Beta-ContinuousBernoulli": (lambda D, t: D.Beta(t([2.0, 0.5]), t([3.0, 0.8])),
                                 lambda D, t: D.ContinuousBernoulli(t([0.3, 0.8]))),
    "Beta-Exponential": (lambda D, t: D.Beta(t([2.0]), t([3.0])), lambda D, t: D.Exponential(t([2.0]))),
    "Beta-Gamma": (lambda D, t: D.Beta(t([2.0]), t([3.0])), lambda D, t: D.Gamma(t([2.0]), t([3.0]))),
    "Beta-Normal": (lambda D, t: D.Beta(t([2.0]), t([3.0])), lambda D, t: D.Normal(t([0.5]), t([2.0]))),
    "Beta-Uniform": (lambda D, t: D.Beta(t([2.0, 2.0]), t([3.0, 3.0])), lambda D, t: D.Uniform(t([0.0, 0.1]), t([1.0, 1.0]))),
    "ContinuousBernoulli-Exponential": (lambda D, t: D.ContinuousBernoulli(t([0.3])), lambda D, t: D.Exponential(t([2.0]))),
    "ContinuousBernoulli-Normal": (lambda D, t: D.ContinuousBernoulli(t([0.3])), lambda D, t: D.Normal(t([0.5]), t([2.0]))),
    "ContinuousBernoulli-Uniform": (lambda D, t: D.ContinuousBernoulli(t([0.3, 0.3])),
                                    lambda D, t: D.Uniform(t([-0.5, 0.1]), t([1.5, 1.0]))),
    "Exponential-Gamma": (lambda D, t: D.Exponential(t([2.0])), lambda D, t: D.Gamma(t([2.0]), t([3.0]))),
    "Exponential-Normal": (lambda D, t: D.Exponential(t([2.0])), lambda D, t: D.Normal(t([0.5]), t([2.0]))),
    "Exponential-Uniform": (lambda D, t: D.Exponential(t([2.0])), lambda D, t: D.Uniform(t([0.0]), t([2.0]))),
    "Gamma-Exponential": (lambda D, t: D.Gamma(t([2.0]), t([3.0])), lambda D, t: D.Exponential(t([2.0]))),
    "Gamma-Normal": (lambda D, t: D.Gamma(t([2.0]), t([3.0])), lambda D, t: D.Normal(t([0.5]), t([2.0]))),
    "Laplace-Normal": (lambda D, t: D.Laplace(t([0.0, 1.0]), t([1.0, 0.5])), lambda D, t: D.Normal(t([0.5, 1.0]), t([2.0, 1.0]))),
    "Normal-Laplace": (lambda D, t: D.Normal(t([0.5, 1.0]), t([2.0, 1.0])), lambda D, t: D.Laplace(t([0.0, 1.0]), t([1.0, 0.5]))),
    "Normal-Gamma": (_normal, lambda D, t: D.Gamma(t([2.0, 1.0, 1.0]), t([3.0, 1.0, 1.0]))),
    "Uniform-Beta": (lambda D, t: D.Uniform(t([0.2, 0.0]), t([0.6, 1.5])), lambda D, t: D.Beta(t([2.0, 2.0]), t([3.0, 3.0]))),
    "Uniform-ContinuousBernoulli": (lambda D, t: D.Uniform(t([0.2, 0.0]), t([0.6, 1.5])),
                                    lambda D, t: D.ContinuousBernoulli(t([0.3, 0.3]))),
    "Uniform-Exponential": (lambda D, t: D.Uniform(t([0.2, -1.0]), t([0.6, 1.5])), lambda D, t: D.Exponential(t([2.0, 1.0]))),
    "Uniform-Gamma": (lambda D, t: D.Uniform(t([0.2, -1.0]), t([0.6, 1.5])), lambda D, t: D.Gamma(t([2.0, 1.0]), t([3.0, 1.0]))),
    "Uniform-Normal": (lambda D, t: D.Uniform(t([0.2, -1.0]), t([0.6, 1.5])), lambda D, t: D.Normal(t([0.5, 1.0]), t([2.0, 1.0]))),
    "Wishart-Wishart (Bregman)": (lambda D, t: D.Wishart(t(4.0), t([[2.0, 0.5], [0.5, 1.0]])),
                                  lambda D, t: D.Wishart(t(3.0), t([[1.0, 0.2], [0.2, 1.0]]))),
    "StudentT-StudentT (none)": (lambda D, t: D.StudentT(t([3.0])), lambda D, t: D.StudentT(t([4.0]))),
    "Poisson-Exponential (no Bregman across families)": (lambda D, t: D.Poisson(t([1.0])), lambda D, t: D.Exponential(t([1.0]))),
}


@pytest.mark.parametrize("pair", list(KL_PAIRS), ids=list(KL_PAIRS))
def test_kl_divergence_matches_torch(pair):
    make_p, make_q = KL_PAIRS[pair]
    try:
        expected = torch.distributions.kl_divergence(make_p(torch.distributions, _t(torch)),
                                                     make_q(torch.distributions, _t(torch)))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            tl.distributions.kl_divergence(make_p(tl.distributions, _t(tl)), make_q(tl.distributions, _t(tl)))
        return
    got = tl.distributions.kl_divergence(make_p(tl.distributions, _t(tl)), make_q(tl.distributions, _t(tl)))
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(_as_np(got), _as_np(expected), rtol=1e-9, atol=1e-12)


def test_kl_dispatch_picks_the_most_specific_pair_and_warns_when_ambiguous():
    D = tl.distributions

    class P(D.Normal):
        pass

    class Q(D.Normal):
        pass

    p, q = P(0.0, 1.0), Q(1.0, 1.0)
    assert D.kl_divergence(p, q).item() == 0.5  # inherits (Normal, Normal)
    D.register_kl(P, D.Normal)(lambda p, q: tl.tensor(1.0))
    D.register_kl(D.Normal, Q)(lambda p, q: tl.tensor(2.0))
    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(P, Q\). Please register_kl\(P, Q\)"):
        assert D.kl_divergence(p, q).item() == 1.0  # the more specific p wins
    D.register_kl(P, Q)(lambda p, q: tl.tensor(3.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert D.kl_divergence(p, q).item() == 3.0
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type StudentT"):
        D.kl_divergence(D.StudentT(2.0), D.Normal(0.0, 1.0))
    assert "Normal` and :class:`~torchlite.distributions.Normal" in D.kl_divergence.__doc__


BREGMAN_ENTROPY = [
    lambda D, t: D.Normal(t([0.5, -1.0]), t([1.0, 2.0])), lambda D, t: D.Gamma(t([2.0, 0.5]), t([1.0, 3.0])),
    lambda D, t: D.Exponential(t([0.5, 3.0])), lambda D, t: D.Bernoulli(t([0.3, 0.8])),
    lambda D, t: D.ContinuousBernoulli(t([0.2, 0.7])), lambda D, t: D.Wishart(t(4.0), t([[2.0, 0.5], [0.5, 1.0]])),
]


@pytest.mark.parametrize("make", BREGMAN_ENTROPY, ids=["Normal", "Gamma", "Exponential", "Bernoulli",
                                                       "ContinuousBernoulli", "Wishart"])
def test_exponential_family_entropy_by_autograd(make):
    """ExponentialFamily's Bregman-divergence entropy agrees with each family's closed form."""
    d = make(tl.distributions, _t(tl))
    np.testing.assert_allclose(tl.distributions.ExponentialFamily.entropy(d).detach().numpy(),
                               d.entropy().numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("pair", ["Normal-Normal", "Gamma-Gamma", "Beta-Beta", "Dirichlet-Dirichlet", "Poisson-Poisson",
                                  "Exponential-Exponential", "ContinuousBernoulli-ContinuousBernoulli"])
def test_exponential_family_kl_by_autograd(pair):
    """The generic (ExponentialFamily, ExponentialFamily) KL agrees with each closed form."""
    from torchlite.distributions.kl import _kl_expfamily_expfamily

    p, q = (make(tl.distributions, _t(tl)) for make in KL_PAIRS[pair])
    np.testing.assert_allclose(_kl_expfamily_expfamily(p, q).detach().numpy(),
                               tl.distributions.kl_divergence(p, q).numpy(), rtol=1e-8, atol=1e-12)


def _distribution_modules():
    import importlib
    import pkgutil

    return [importlib.import_module(f"torchlite.distributions.{m.name}")
            for m in pkgutil.iter_modules(tl.distributions.__path__)]


@pytest.mark.parametrize("module", _distribution_modules(), ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_docstring_examples(module):
    import doctest

    result = doctest.testmod(module, extraglobs={"torchlite": tl}, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_distribution_base_behaviour():
    D = tl.distributions
    d = D.Normal(tl.zeros(2), tl.ones(2))
    with pytest.warns(FutureWarning, match=r"sample\(\(n,\)\)"):
        assert d.sample_n(3).shape == (3, 2)
    np.testing.assert_allclose(d.perplexity().numpy(), np.exp(d.entropy().numpy()), rtol=1e-6)
    assert d._extended_shape((4,)) == (4, 2) and isinstance(d._extended_shape([4]), tl.Size)

    class NoConstraints(D.Distribution):
        pass

    with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
        NoConstraints(validate_args=True)

    class CustomInit(D.Normal):
        def __init__(self):
            super().__init__(0.0, 1.0)

    with pytest.raises(NotImplementedError, match="must also define a custom .expand"):
        CustomInit().expand((2,))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Bernoulli(tl.tensor(0.5), tl.tensor(0.0))
    with pytest.raises(ValueError, match="at least one-dimensional"):
        D.Categorical(tl.tensor(0.5))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix"):
        D.MultivariateNormal(tl.zeros(2))
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        D.Independent(d, 2)
    with pytest.raises(ValueError, match="does not equal"):
        D.MixtureSameFamily(D.Categorical(tl.ones(3)), d)

"""torchlite.distributions transforms, constraint_registry, TransformedDistribution and the
families built from transforms, each against PyTorch on the same inputs: values, log-Jacobians,
shapes, caching, gradients, the constraint registries, the families' statistics and KL pairs,
and the errors PyTorch raises."""

import math

import numpy as np
import pytest

import torchlite as tl
import torchlite.distributions as tld
from torchlite.autograd import gradcheck
from torchlite.distributions import constraints, transforms as T

torch = pytest.importorskip("torch")
tdist = torch.distributions

RNG = np.random.default_rng(0)


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _close(got, expected, rtol=1e-6, atol=1e-8):
    got, expected = _np(got), _np(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)


def _pair(a, requires_grad=False):
    """The same float64 values as a torchlite and a torch tensor."""
    a = np.asarray(a, dtype=np.float64)
    return (
        tl.tensor(a, dtype=tl.float64).requires_grad_(requires_grad),
        torch.tensor(a, dtype=torch.float64).requires_grad_(requires_grad),
    )


def _lib(D):
    return tl if D is tld else torch


def _t(D, values):
    return _lib(D).tensor(values, dtype=_lib(D).float64)


# ---- transforms ---------------------------------------------------------------------------------

# name -> (factory(D), input shape, input kind); D is torchlite.distributions or torch.distributions.
TRANSFORMS = {
    "exp": (lambda D: D.ExpTransform(), (3, 4), "real"),
    "power": (lambda D: D.PowerTransform(_t(D, [0.5, 2.0, -1.5, 3.0])), (3, 4), "positive"),
    "power_scalar": (lambda D: D.PowerTransform(2.5), (3,), "positive"),
    "sigmoid": (lambda D: D.SigmoidTransform(), (3, 4), "real"),
    "tanh": (lambda D: D.TanhTransform(), (3, 4), "real"),
    "softplus": (lambda D: D.SoftplusTransform(), (3, 4), "real"),
    "abs": (lambda D: D.AbsTransform(), (3, 4), "real"),
    "affine_scalar": (lambda D: D.AffineTransform(1.5, -2.0), (3, 4), "real"),
    "affine_tensor": (lambda D: D.AffineTransform(_t(D, [0.0, 1.0, 2.0, 3.0]), _t(D, [1.0, -2.0, 0.5, 3.0])),
                      (3, 4), "real"),
    "affine_event": (lambda D: D.AffineTransform(0.5, _t(D, [[1.0, 2.0], [-3.0, 4.0]]), event_dim=2),
                     (3, 2, 2), "real"),
    "affine_broadcast": (lambda D: D.AffineTransform(_t(D, [[0.0], [1.0]]), 2.0), (4,), "real"),
    "softmax": (lambda D: D.SoftmaxTransform(), (3, 4), "real"),
    "stick_breaking": (lambda D: D.StickBreakingTransform(), (3, 4), "real"),
    "lower_cholesky": (lambda D: D.LowerCholeskyTransform(), (2, 3, 3), "real"),
    "positive_definite": (lambda D: D.PositiveDefiniteTransform(), (2, 3, 3), "real"),
    "corr_cholesky": (lambda D: D.CorrCholeskyTransform(), (2, 6), "real"),
    "reshape": (lambda D: D.ReshapeTransform((4,), (2, 2)), (3, 4), "real"),
    "independent": (lambda D: D.IndependentTransform(D.ExpTransform(), 1), (3, 4), "real"),
    "compose": (lambda D: D.ComposeTransform([D.ExpTransform(), D.AffineTransform(1.0, 2.0),
                                              D.StickBreakingTransform()]), (3, 4), "real"),
    "compose_event": (lambda D: D.ComposeTransform([D.ExpTransform(), D.ReshapeTransform((4,), (2, 2)),
                                                    D.AffineTransform(1.0, 3.0)]), (3, 4), "real"),
    "identity": (lambda D: D.identity_transform, (3, 4), "real"),
    "cat": (lambda D: D.CatTransform([D.ExpTransform(), D.identity_transform, D.SigmoidTransform()], dim=1,
                                     lengths=[1, 2, 1]), (3, 4), "real"),
    "cat_event": (lambda D: D.CatTransform([D.IndependentTransform(D.ExpTransform(), 1),
                                            D.AffineTransform(0.0, 2.0, event_dim=1)], dim=-1, lengths=[1, 3]),
                  (3, 4), "real"),
    "stack": (lambda D: D.StackTransform([D.ExpTransform(), D.TanhTransform(), D.SigmoidTransform(),
                                          D.identity_transform], dim=1), (3, 4), "real"),
    "inverse_exp": (lambda D: D.ExpTransform().inv, (3, 4), "positive"),
    "inverse_sigmoid": (lambda D: D.SigmoidTransform().inv, (3, 4), "unit"),
    "cdf_normal": (lambda D: D.CumulativeDistributionTransform(D.Normal(_t(D, [0.0, 1.0]), _t(D, [1.0, 2.0]))),
                   (3, 2), "real"),
}

NOT_INVERTIBLE_LADJ = {"abs", "softmax", "lower_cholesky", "positive_definite"}


def _input(name):
    _, shape, kind = TRANSFORMS[name]
    x = RNG.standard_normal(shape)
    if kind == "positive":
        x = np.exp(x)
    elif kind == "unit":
        x = 1 / (1 + np.exp(-x))
    return x


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_matches_torch(name):
    make = TRANSFORMS[name][0]
    t, r = make(tld), make(tdist)
    x, xr = _pair(_input(name))
    y, yr = t(x), r(xr)
    _close(y, yr)
    _close(t.inv(y), r.inv(yr))
    if name not in NOT_INVERTIBLE_LADJ:
        _close(t.log_abs_det_jacobian(x, y), r.log_abs_det_jacobian(xr, yr))
    assert tuple(t.forward_shape(tl.Size(x.shape))) == tuple(r.forward_shape(xr.shape))
    assert tuple(t.inverse_shape(tl.Size(y.shape))) == tuple(r.inverse_shape(yr.shape))
    assert t.domain.event_dim == r.domain.event_dim
    assert t.codomain.event_dim == r.codomain.event_dim
    assert t.bijective == r.bijective
    assert type(t.domain).__name__ == type(r.domain).__name__
    assert type(t.codomain).__name__ == type(r.codomain).__name__
    try:
        expected_sign = r.sign
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            t.sign
    else:
        _close(t.sign, expected_sign)
    # Equal to a fresh copy where PyTorch's is (some compare by identity only).
    assert (t == make(tld)) == (r == make(tdist))
    assert (t.inv == make(tld).inv) == (r.inv == make(tdist).inv)
    assert t.inv.inv is t
    assert repr(t).split("(")[0] == repr(r).split("(")[0]


def test_transform_equality():
    assert T.ExpTransform() != T.SigmoidTransform()
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
    assert T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.AffineTransform(tl.tensor([1.0, 2.0]), 2.0) != T.AffineTransform(tl.tensor([1.0, 3.0]), 2.0)
    assert T.PowerTransform(tl.tensor(2.0)) != T.PowerTransform(tl.tensor(3.0))
    assert T.ComposeTransform([T.ExpTransform()]) == T.ComposeTransform([T.ExpTransform()])
    assert T.ExpTransform().inv != T.ExpTransform()
    # Transforms without __eq__ compare by identity, as PyTorch's.
    c = T.CorrCholeskyTransform()
    assert c == c and c != T.CorrCholeskyTransform()


@pytest.mark.parametrize("name", ["exp", "sigmoid", "tanh", "affine_tensor", "compose", "cat", "stack",
                                  "independent", "reshape", "power", "stick_breaking", "inverse_exp"])
def test_transform_caching(name):
    make = TRANSFORMS[name][0]
    cached = make(tld).with_cache(1)
    assert cached.with_cache(1) is cached
    x, _ = _pair(_input(name))
    y = cached(x)
    # Cached: the inverse of the last output is the very input, and the output is reused.
    assert cached.inv(y) is x
    assert cached(x) is y
    uncached = make(tld)
    assert uncached.with_cache(0) is uncached
    y0 = uncached(x)
    assert uncached.inv(y0) is not x and uncached(x) is not y0


def test_caching_keeps_exact_values_where_the_inverse_loses_them():
    # tanh(20) rounds to 1.0, whose atanh is inf; the cache returns the original x instead.
    x = tl.tensor([20.0], dtype=tl.float64)
    assert math.isinf(T.TanhTransform().inv(T.TanhTransform()(x)).item())
    cached = T.TanhTransform(cache_size=1)
    assert cached.inv(cached(x)).item() == 20.0


def test_cache_size_and_with_cache_errors():
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)

    class Scaled(T.Transform):
        def __init__(self, factor, cache_size=0):
            super().__init__(cache_size=cache_size)
            self.factor = factor

    with pytest.raises(NotImplementedError, match="with_cache is not implemented"):
        Scaled(2.0).with_cache(1)
    with pytest.raises(NotImplementedError):
        T.Transform()(tl.ones(2))
    with pytest.raises(ValueError, match="event_dim"):
        T.CorrCholeskyTransform().event_dim


@pytest.mark.parametrize("bad", [
    lambda: T.ReshapeTransform((4,), (3,)),
    lambda: T.ReshapeTransform((4,), (2, 2)).forward_shape(tl.Size([3, 5])),
    lambda: T.ReshapeTransform((4,), (2, 2)).inverse_shape(tl.Size([2])),
    lambda: T.StickBreakingTransform().forward_shape(tl.Size([])),
    lambda: T.SoftmaxTransform().inverse_shape(tl.Size([])),
    lambda: T.CorrCholeskyTransform().forward_shape(tl.Size([4])),
    lambda: T.CorrCholeskyTransform().inverse_shape(tl.Size([3, 4])),
    lambda: T.IndependentTransform(T.ExpTransform(), 2)(tl.ones(3)),
])
def test_transform_bad_shapes_raise_value_error(bad):
    with pytest.raises(ValueError):
        bad()


def test_cat_and_stack_check_their_sizes():
    with pytest.raises(AssertionError):
        T.CatTransform([T.ExpTransform()], dim=0, lengths=[2])(tl.ones(3))
    with pytest.raises(AssertionError):
        T.StackTransform([T.ExpTransform(), T.ExpTransform()], dim=0)(tl.ones(3))
    with pytest.raises(AssertionError):
        T.CatTransform([T.ExpTransform()], lengths=[1, 2])
    with pytest.raises(AssertionError):
        T.StackTransform([T.ExpTransform(), "exp"])


# Gradients: the forward map and the log-Jacobian, by finite differences.
GRAD_TRANSFORMS = ["exp", "power", "sigmoid", "tanh", "softplus", "affine_tensor", "affine_event", "softmax",
                   "stick_breaking", "lower_cholesky", "positive_definite", "corr_cholesky", "compose", "cat",
                   "stack"]


@pytest.mark.parametrize("name", GRAD_TRANSFORMS)
def test_transform_gradcheck(name):
    t = TRANSFORMS[name][0](tld)
    x, _ = _pair(_input(name), requires_grad=True)
    assert gradcheck(lambda x: t(x), (x,))
    if name not in NOT_INVERTIBLE_LADJ:
        assert gradcheck(lambda x: t.log_abs_det_jacobian(x, t(x)), (x,))


@pytest.mark.parametrize("name", ["stick_breaking", "corr_cholesky", "sigmoid", "affine_tensor"])
def test_inverse_gradients_match_torch(name):
    make = TRANSFORMS[name][0]
    t, r = make(tld), make(tdist)
    y = t(_pair(_input(name))[0]).detach().requires_grad_(True)
    yr = torch.tensor(_np(y)).requires_grad_(True)
    (t.inv(y) ** 2).sum().backward()
    (r.inv(yr) ** 2).sum().backward()
    _close(y.grad, yr.grad, rtol=1e-6, atol=1e-10)


# ---- constraint_registry ------------------------------------------------------------------------

def _constraints(C, L):
    return {
        "real": C.real,
        "positive": C.positive,
        "nonnegative": C.nonnegative,
        "greater_than": C.greater_than(-2.0),
        "greater_than_eq": C.greater_than_eq(L.tensor([1.0, 2.0, 3.0, 4.0], dtype=L.float64)),
        "less_than": C.less_than(3.0),
        "interval": C.interval(-1.0, 3.0),
        "unit_interval": C.unit_interval,
        "half_open_interval": C.half_open_interval(2.0, 5.0),
        "simplex": C.simplex,
        "lower_cholesky": C.lower_cholesky,
        "positive_definite": C.positive_definite,
        "positive_semidefinite": C.positive_semidefinite,
        "corr_cholesky": C.corr_cholesky,
        "independent": C.independent(C.positive, 1),
        "real_vector": C.real_vector,
        "cat": C.cat([C.positive, C.real], dim=1, lengths=[2, 2]),
        "stack": C.stack([C.positive, C.unit_interval, C.real, C.greater_than(1.0)], dim=1),
    }


# PyTorch registers no bijection onto these.
TRANSFORM_ONLY = {"lower_cholesky", "positive_definite", "positive_semidefinite"}


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("cname", sorted(_constraints(constraints, tl)))
def test_constraint_registry_maps_into_the_support(registry, cname):
    c = _constraints(constraints, tl)[cname]
    cr = _constraints(tdist.constraints, torch)[cname]
    ours, theirs = getattr(tld, registry), getattr(tdist, registry)
    if registry == "biject_to" and cname in TRANSFORM_ONLY:
        with pytest.raises(NotImplementedError, match="Cannot transform"):
            ours(c)
        return
    t, r = ours(c), theirs(cr)
    assert repr(t) == repr(r)  # the same kind of transform (and parts) as PyTorch picks
    # Unconstrained input of the shape the transform takes (6 -> a 4x4 corr Cholesky factor).
    shape = r.inverse_shape(torch.Size([5, 4, 4])) if cname in ("corr_cholesky", "lower_cholesky",
                                                                "positive_definite", "positive_semidefinite") \
        else torch.Size([5, 4])
    x, xr = _pair(RNG.standard_normal(tuple(shape)) * 2)
    y = t(x)
    _close(y, r(xr))
    assert bool(c.check(y).all())
    if t.bijective:
        _close(t.inv(y), xr)
        _close(t.log_abs_det_jacobian(x, y), r.log_abs_det_jacobian(xr, r(xr)))


def test_constraint_registry_errors_and_custom_registration():
    with pytest.raises(NotImplementedError, match="Cannot transform _IntegerInterval constraints"):
        tld.biject_to(constraints.integer_interval(0, 3))
    with pytest.raises(TypeError, match="Expected constraint"):
        tld.transform_to.register(int, lambda c: T.ExpTransform())
    registry = tld.constraint_registry.ConstraintRegistry()
    registry.register(constraints.positive)(lambda c: T.SoftplusTransform())
    assert registry(constraints.positive) == T.SoftplusTransform()
    with pytest.raises(NotImplementedError):
        registry(constraints.real)


# ---- TransformedDistribution ----------------------------------------------------------------------

def _base_and_transforms(D):
    L = _lib(D)
    base = D.Normal(L.tensor([[0.0, 1.0, -1.0]], dtype=L.float64), L.tensor([1.0, 0.5, 2.0], dtype=L.float64))
    return base, [D.AffineTransform(1.0, L.tensor([[2.0], [-3.0]], dtype=L.float64)), D.ExpTransform()]


def test_transformed_distribution_matches_torch():
    d = tld.TransformedDistribution(*_base_and_transforms(tld))
    r = tdist.TransformedDistribution(*_base_and_transforms(tdist))
    # The affine scale broadcast the (1, 3) base to (2, 3).
    assert tuple(d.batch_shape) == tuple(r.batch_shape) == (2, 3)
    assert tuple(d.base_dist.batch_shape) == (2, 3)
    assert tuple(d.sample((4,)).shape) == (4, 2, 3)
    v, vr = _pair(np.exp(RNG.standard_normal((4, 2, 3))))
    _close(d.log_prob(v), r.log_prob(vr))
    # Decreasing along one row: the cdf is mirrored, as PyTorch's _monotonize_cdf.
    _close(d.cdf(v), r.cdf(vr))
    p, pr = _pair(RNG.uniform(0.05, 0.95, (4, 2, 3)))
    _close(d.icdf(p), r.icdf(pr))
    assert type(d.support).__name__ == type(r.support).__name__
    e = d.expand((5, 2, 3))
    assert tuple(e.batch_shape) == (5, 2, 3) and tuple(e.sample().shape) == (5, 2, 3)


def test_transformed_distribution_event_dims_follow_the_transforms():
    # A vector transform on a scalar base makes an Independent base with one event dim.
    d = tld.TransformedDistribution(tld.Normal(tl.zeros(3, 4), tl.ones(3, 4)), [T.StickBreakingTransform()])
    r = tdist.TransformedDistribution(tdist.Normal(torch.zeros(3, 4), torch.ones(3, 4)),
                                      [tdist.StickBreakingTransform()])
    assert tuple(d.batch_shape) == (3,) and tuple(d.event_shape) == (5,)
    assert type(d.base_dist).__name__ == "Independent"
    v = r.sample((2,))
    _close(d.log_prob(tl.tensor(v.numpy())), r.log_prob(v), rtol=1e-5)
    d2 = tld.TransformedDistribution(tld.Normal(tl.zeros(3, 4), tl.ones(3, 4)), [T.ReshapeTransform((4,), (2, 2))])
    assert tuple(d2.batch_shape) == (3,) and tuple(d2.event_shape) == (2, 2)


def test_transformed_distribution_rsample_gradients():
    loc = tl.tensor([0.5, -1.0], dtype=tl.float64, requires_grad=True)
    d = tld.TransformedDistribution(tld.Normal(loc, 1.0), [T.AffineTransform(0.0, 3.0), T.ExpTransform()])
    y = d.rsample((3,))
    y.sum().backward()
    # y = exp(3 (loc + eps)): dy/dloc = 3 y.
    _close(loc.grad, (3 * y).detach().sum(0))
    assert not d.sample().requires_grad


@pytest.mark.parametrize("bad, error", [
    (lambda: tld.TransformedDistribution(tld.Normal(0.0, 1.0), "exp"), ValueError),
    (lambda: tld.TransformedDistribution(tld.Normal(0.0, 1.0), [T.ExpTransform(), "exp"]), ValueError),
    (lambda: tld.TransformedDistribution(tld.Normal(0.0, 1.0), [T.StickBreakingTransform()]), ValueError),
])
def test_transformed_distribution_bad_arguments(bad, error):
    with pytest.raises(error):
        bad()


# ---- families ------------------------------------------------------------------------------------

def _families(D):
    L = _lib(D)

    def t(v):
        return L.tensor(v, dtype=L.float64)

    return {
        "LogNormal": lambda: D.LogNormal(t([0.0, 0.5, -1.0]), t([1.0, 0.3, 2.0])),
        "Gumbel": lambda: D.Gumbel(t([0.0, 0.5, -1.0]), t([1.0, 0.3, 2.0])),
        "Gumbel_scalar": lambda: D.Gumbel(0.5, 2.0),
        "HalfNormal": lambda: D.HalfNormal(t([1.0, 0.3, 2.0])),
        "HalfCauchy": lambda: D.HalfCauchy(t([1.0, 0.3, 2.0])),
        "Pareto": lambda: D.Pareto(t([1.0, 0.3, 2.0]), t([3.0, 0.5, 2.5])),
        "Weibull": lambda: D.Weibull(t([1.0, 0.3, 2.0]), t([3.0, 0.5, 1.5])),
        "Kumaraswamy": lambda: D.Kumaraswamy(t([1.0, 0.3, 2.0]), t([3.0, 0.5, 1.5])),
        "LogisticNormal": lambda: D.LogisticNormal(t([[0.0, 0.5, -1.0]]), t([1.0, 0.3, 2.0])),
        "InverseGamma": lambda: D.InverseGamma(t([1.0, 2.5, 4.0]), t([3.0, 0.5, 1.5])),
        "RelaxedBernoulli": lambda: D.RelaxedBernoulli(t(0.7), probs=t([0.2, 0.5, 0.9])),
        "RelaxedBernoulli_logits": lambda: D.RelaxedBernoulli(t([0.5, 1.0, 2.0]), logits=t([-1.0, 0.0, 2.0])),
        "LogitRelaxedBernoulli": lambda: D.relaxed_bernoulli.LogitRelaxedBernoulli(t(0.7), logits=t([-1.0, 0.0, 2.0])),
        "RelaxedOneHotCategorical": lambda: D.RelaxedOneHotCategorical(t(0.5), probs=t([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
        "ExpRelaxedCategorical": lambda: D.relaxed_categorical.ExpRelaxedCategorical(t(0.5), logits=t([0.0, 1.0, -1.0, 0.5])),
    }


FAMILIES = sorted(_families(tdist))


def _values_in_support(name, r):
    """Points where both log_probs are defined: a torch sample, clipped off the edges."""
    torch.manual_seed(0)
    v = r.sample((4,))
    if name == "Pareto":
        v = v.clamp(max=1e6)
    return tl.tensor(v.numpy()), v


@pytest.mark.parametrize("name", FAMILIES)
def test_family_matches_torch(name):
    d, r = _families(tld)[name](), _families(tdist)[name]()
    assert tuple(d.batch_shape) == tuple(r.batch_shape) and tuple(d.event_shape) == tuple(r.event_shape)
    assert tuple(d.sample((2, 5)).shape) == tuple(r.sample((2, 5)).shape)
    assert bool(d.support.check(d.sample((20,))).all())
    v, vr = _values_in_support(name, r)
    _close(d.log_prob(v), r.log_prob(vr), rtol=1e-6, atol=1e-9)
    for stat in ("mean", "variance", "mode", "stddev", "entropy", "cdf", "icdf"):
        try:
            expected = getattr(r, stat)
            if callable(expected):
                expected = expected(vr) if stat == "cdf" else expected(torch.full_like(vr, 0.3)) \
                    if stat == "icdf" else expected()
        except NotImplementedError:
            continue
        got = getattr(d, stat)
        if callable(got):
            got = got(v) if stat == "cdf" else got(tl.full_like(v, 0.3)) if stat == "icdf" else got()
        _close(got, expected, rtol=1e-6, atol=1e-9)
    e, er = d.expand((2,) + tuple(d.batch_shape)), r.expand((2,) + tuple(r.batch_shape))
    assert type(e) is type(d) and tuple(e.batch_shape) == tuple(er.batch_shape)
    _close(e.log_prob(v[:1]), er.log_prob(vr[:1]), rtol=1e-6, atol=1e-9)
    assert d.has_rsample == r.has_rsample


@pytest.mark.parametrize("name", ["LogNormal", "Gumbel", "Pareto", "Weibull", "Kumaraswamy", "LogisticNormal",
                                  "HalfNormal", "HalfCauchy"])
def test_family_rsample_gradients_match_torch(name):
    """Push the same base draw through both sets of transforms and compare parameter gradients."""
    params = {
        "LogNormal": ([0.0, 0.5], [1.0, 0.3]), "Gumbel": ([0.0, 0.5], [1.0, 0.3]),
        "Pareto": ([1.0, 0.3], [3.0, 0.5]), "Weibull": ([1.0, 0.3], [3.0, 0.5]),
        "Kumaraswamy": ([1.0, 0.3], [3.0, 0.5]), "LogisticNormal": ([0.0, 0.5], [1.0, 0.3]),
        "HalfNormal": ([1.0, 0.3],), "HalfCauchy": ([1.0, 0.3],),
    }[name]
    pairs = [_pair(p, requires_grad=True) for p in params]
    d = getattr(tld, name)(*[p for p, _ in pairs])
    r = getattr(tdist, name)(*[p for _, p in pairs])
    tl.manual_seed(3)
    y = d.rsample((4,))
    tl.manual_seed(3)
    u = d.base_dist.rsample((4,)).detach()
    assert y.requires_grad
    # Same noise for torch: the base draw's cdf value, mapped back through torch's base icdf (for
    # these location-scale bases that is the pathwise map, so the gradients agree).
    base, base_r = d.base_dist, r.base_dist
    if name == "LogisticNormal":
        base, base_r = base.base_dist, base_r.base_dist
    yr = base_r.icdf(torch.tensor(base.cdf(u).detach().numpy()))
    for t in r.transforms:
        yr = t(yr)
    _close(y, yr, rtol=1e-6)
    y.sum().backward()
    yr.sum().backward()
    for (p, pr) in pairs:
        _close(p.grad, pr.grad, rtol=1e-6, atol=1e-10)


def test_relaxed_and_inverse_gamma_rsample_gradients():
    rate = tl.tensor([0.5, 2.0], dtype=tl.float64, requires_grad=True)
    y = tld.InverseGamma(tl.tensor([2.0, 3.0], dtype=tl.float64), rate).rsample((3,))
    y.sum().backward()
    # y = rate / G with G free of rate.
    _close(rate.grad, (y / rate).detach().sum(0))
    logits = tl.tensor([[0.0, 1.0, -1.0]], dtype=tl.float64, requires_grad=True)
    s = tld.RelaxedOneHotCategorical(tl.tensor(0.5, dtype=tl.float64), logits=logits).rsample((5,))
    _close(s.sum(-1), np.ones((5, 1)))
    (s[..., 0]).sum().backward()
    assert logits.grad is not None and bool(tl.isfinite(logits.grad).all()) and logits.grad.abs().sum().item() > 0
    probs = tl.tensor([0.3, 0.6], dtype=tl.float64, requires_grad=True)
    b = tld.RelaxedBernoulli(tl.tensor(0.5, dtype=tl.float64), probs=probs).rsample((5,))
    b.sum().backward()
    assert bool((probs.grad > 0).all())


@pytest.mark.parametrize("name", ["LogNormal", "Gumbel", "HalfNormal", "Weibull", "InverseGamma",
                                  "RelaxedOneHotCategorical"])
def test_family_log_prob_gradients_match_torch(name):
    d, r = _families(tld)[name](), _families(tdist)[name]()
    v, vr = _values_in_support(name, r)
    v.requires_grad_(True)
    vr.requires_grad_(True)
    d.log_prob(v).sum().backward()
    r.log_prob(vr).sum().backward()
    _close(v.grad, vr.grad, rtol=1e-6, atol=1e-9)


BAD_FAMILY_INPUTS = {
    "lognormal_scale": lambda: tld.LogNormal(0.0, -1.0),
    "gumbel_scale": lambda: tld.Gumbel(tl.tensor([0.0]), tl.tensor([0.0])),
    "halfnormal_scale": lambda: tld.HalfNormal(-1.0),
    "pareto_alpha": lambda: tld.Pareto(1.0, -2.0),
    "weibull_concentration": lambda: tld.Weibull(tl.tensor([1.0]), tl.tensor([-1.0])),
    "kumaraswamy_concentration": lambda: tld.Kumaraswamy(0.0, 1.0),
    "inverse_gamma_concentration": lambda: tld.InverseGamma(-1.0, 1.0),
    "relaxed_bernoulli_probs": lambda: tld.RelaxedBernoulli(tl.tensor(0.5), probs=tl.tensor([1.5])),
    "relaxed_bernoulli_both": lambda: tld.RelaxedBernoulli(tl.tensor(0.5), probs=0.5, logits=0.0),
    "logit_relaxed_bernoulli_neither": lambda: tld.relaxed_bernoulli.LogitRelaxedBernoulli(tl.tensor(0.5)),
    "relaxed_categorical_probs": lambda: tld.RelaxedOneHotCategorical(tl.tensor(0.5), probs=tl.tensor([-0.5, 1.5])),
    "lognormal_value": lambda: tld.LogNormal(0.0, 1.0).log_prob(tl.tensor([-1.0])),
    "halfcauchy_value": lambda: tld.HalfCauchy(1.0).log_prob(tl.tensor([-1.0])),
    "pareto_value": lambda: tld.Pareto(tl.tensor([2.0]), tl.tensor([1.0])).log_prob(tl.tensor([1.0])),
}


@pytest.mark.parametrize("case", sorted(BAD_FAMILY_INPUTS))
def test_family_bad_inputs_raise_value_error(case):
    with pytest.raises(ValueError):
        BAD_FAMILY_INPUTS[case]()


# ---- KL divergences ------------------------------------------------------------------------------

def _kl_pairs(D):
    L = _lib(D)

    def t(v):
        return L.tensor(v, dtype=L.float64)

    return {
        "gumbel_gumbel": lambda: (D.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])), D.Gumbel(t([0.5, -1.0]), t([2.0, 0.5]))),
        "halfnormal_halfnormal": lambda: (D.HalfNormal(t([1.0, 2.0])), D.HalfNormal(t([0.5, 3.0]))),
        "pareto_pareto": lambda: (D.Pareto(t([1.0, 2.0]), t([3.0, 2.0])), D.Pareto(t([0.5, 3.0]), t([2.0, 4.0]))),
        "lognormal_lognormal": lambda: (D.LogNormal(t([0.0, 1.0]), t([1.0, 2.0])), D.LogNormal(t([0.5, -1.0]), t([2.0, 0.5]))),
        "exponential_gumbel": lambda: (D.Exponential(t([1.0, 2.0])), D.Gumbel(t([0.5, -1.0]), t([2.0, 0.5]))),
        "gamma_gumbel": lambda: (D.Gamma(t([1.0, 2.0]), t([2.0, 0.5])), D.Gumbel(t([0.5, -1.0]), t([2.0, 0.5]))),
        "normal_gumbel": lambda: (D.Normal(t([0.0, 1.0]), t([1.0, 2.0])), D.Gumbel(t([0.5, -1.0]), t([2.0, 0.5]))),
        "uniform_gumbel": lambda: (D.Uniform(t([0.0, 1.0]), t([1.0, 2.0])), D.Gumbel(t([0.5, -1.0]), t([2.0, 0.5]))),
        "gumbel_normal": lambda: (D.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])), D.Normal(t([0.5, -1.0]), t([2.0, 0.5]))),
        "gumbel_exponential": lambda: (D.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])), D.Exponential(t([2.0, 0.5]))),
        "pareto_exponential": lambda: (D.Pareto(t([1.0, 2.0]), t([3.0, 0.5])), D.Exponential(t([2.0, 0.5]))),
        "pareto_gamma": lambda: (D.Pareto(t([1.0, 2.0]), t([3.0, 0.5])), D.Gamma(t([2.0, 0.5]), t([1.0, 3.0]))),
        "pareto_normal": lambda: (D.Pareto(t([1.0, 2.0]), t([3.0, 1.5])), D.Normal(t([2.0, 0.5]), t([1.0, 3.0]))),
        "pareto_uniform": lambda: (D.Pareto(t([1.0, 2.0]), t([3.0, 1.5])), D.Uniform(t([0.0, 0.5]), t([1.0, 3.0]))),
        "uniform_pareto": lambda: (D.Uniform(t([1.0, 2.5]), t([2.0, 3.0])), D.Pareto(t([0.5, 3.0]), t([2.0, 4.0]))),
        "exponential_pareto": lambda: (D.Exponential(t([1.0, 2.0])), D.Pareto(t([0.5, 3.0]), t([2.0, 4.0]))),
        "normal_pareto": lambda: (D.Normal(t([0.0, 1.0]), t([1.0, 2.0])), D.Pareto(t([0.5, 3.0]), t([2.0, 4.0]))),
        "gamma_pareto": lambda: (D.Gamma(t([1.0, 2.0]), t([2.0, 0.5])), D.Pareto(t([0.5, 3.0]), t([2.0, 4.0]))),
        "beta_pareto": lambda: (D.Beta(t([1.0, 2.0]), t([2.0, 0.5])), D.Pareto(t([0.5, 3.0]), t([2.0, 4.0]))),
        "gumbel_beta": lambda: (D.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])), D.Beta(t([1.0, 2.0]), t([2.0, 0.5]))),
    }


@pytest.mark.parametrize("pair", sorted(_kl_pairs(tdist)))
def test_kl_divergence_matches_torch(pair):
    p, q = _kl_pairs(tld)[pair]()
    pr, qr = _kl_pairs(tdist)[pair]()
    _close(tld.kl_divergence(p, q), tdist.kl_divergence(pr, qr), rtol=1e-6, atol=1e-10)


def test_kl_transformed_needs_equal_transforms():
    p = tld.TransformedDistribution(tld.Normal(0.0, 1.0), [T.ExpTransform()])
    q = tld.TransformedDistribution(tld.Normal(0.0, 1.0), [T.SigmoidTransform()])
    with pytest.raises(NotImplementedError):
        tld.kl_divergence(p, q)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["sigmoid", "stick_breaking", "corr_cholesky", "tanh", "softplus"])
def test_transform_extremes_clamp_like_torch(name, dtype):
    # Saturated inputs: the outputs are clamped into the open codomain by the dtype's tiny/eps.
    make = TRANSFORMS[name][0]
    t, r = make(tld), make(tdist)
    x = np.array([[-200.0, -30.0, 0.0, 30.0, 200.0, 15.0]])
    xt, xr = tl.tensor(x, dtype=getattr(tl, dtype)), torch.tensor(x, dtype=getattr(torch, dtype))
    y, yr = t(xt), r(xr)
    _close(y, yr, rtol=1e-5, atol=0)
    _close(t.inv(y), r.inv(yr), rtol=1e-5, atol=1e-6)

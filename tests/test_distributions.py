"""torchlite.distributions against torch.distributions: every family is built with the same
parameters in both libraries and compared method by method (log_prob, cdf, icdf, entropy,
moments, mode, support enumeration, shapes, expand), its samples are checked for shape and
for their mean (seeded, so the bound cannot flake), reparameterised samples for their
gradient, and bad parameters or values for PyTorch's ValueError."""

import math
from dataclasses import dataclass, field

import numpy as np
import pytest

import torchlite as tl
from torchlite.distributions import constraints

torch = pytest.importorskip("torch")

def _t(lib):
    """lib.tensor in float64 (and integer-valued lists stay float64 too)."""
    return lambda data: lib.tensor(data, dtype=lib.float64)


@dataclass
class Case:
    name: str
    make: object  # (distributions module, tensor maker) -> a distribution
    value: list = None  # a value in the support (for log_prob, cdf)
    q: list = field(default_factory=lambda: [0.2, 0.7])  # probabilities for icdf
    bad: object = None  # (D, t) -> a distribution with invalid parameters (ValueError)
    bad_value: list = None  # a value outside the support (ValueError from log_prob)
    moments: bool = True  # whether the sample mean converges to .mean


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
]
IDS = [c.name for c in CASES]
METHODS = ["log_prob", "cdf", "icdf", "entropy", "mean", "variance", "stddev", "mode"]


def _pair(case):
    return case.make(tl.distributions, _t(tl)), case.make(torch.distributions, _t(torch))


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
        expected = _call(ref, method, case, _t(torch))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            _call(ours, method, case, _t(tl))
        return
    got = _call(ours, method, case, _t(tl))
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(_as_np(got), _as_np(expected), rtol=1e-9, atol=1e-12)


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
    np.testing.assert_allclose(_as_np(ours_e.mean), _as_np(ref_e.mean), rtol=1e-9)
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
        case.bad(torch.distributions, _t(torch))
    with pytest.raises(ValueError, match="Expected parameter"):
        case.bad(tl.distributions, _t(tl))


@pytest.mark.parametrize("case", [c for c in CASES if c.bad_value], ids=[c.name for c in CASES if c.bad_value])
def test_value_outside_support_raises(case):
    ours, ref = _pair(case)
    with pytest.raises(ValueError, match="support"):
        ref.log_prob(_t(torch)(case.bad_value))
    with pytest.raises(ValueError, match="support"):
        ours.log_prob(_t(tl)(case.bad_value))


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

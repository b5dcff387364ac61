"""The samplers behind torchlite.distributions: _standard_gamma, _sample_dirichlet and binomial
(shapes here; their distributions, seeding and gradients are tested in
tests/test_distributions.py), and the reparameterisation gradients _standard_gamma_grad and
_dirichlet_grad against a central difference of the regularised incomplete gamma / beta
functions' power series (PyTorch's values come from fitted approximations that agree to about
1e-3; tests/test_distributions.py compares with them)."""

import math

import numpy as np

from opinfo.core import OpInfo, SampleInput, positive, rand

_N = np.arange(4000.0)  # series terms: enough for x < 40 (gamma) and x < 0.95 (beta) to 1e-16
_lgamma = np.vectorize(math.lgamma)


def _gamma_cdf(a, x):
    """P(a, x) = sum_n e^-x x^(a+n) / Gamma(a+n+1)."""
    return np.exp((a + _N) * math.log(x) - x - _lgamma(a + _N + 1)).sum()


def _beta_cdf(x, a, b):
    """I_x(a, b) = sum_n x^(a+n) (1-x)^b Gamma(a+b+n) / (Gamma(a+n+1) Gamma(b))."""
    return np.exp((a + _N) * math.log(x) + b * math.log1p(-x) + _lgamma(a + b + _N) - _lgamma(a + _N + 1)
                  - math.lgamma(b)).sum()


def _gamma_grad_one(a, x, h=1e-6):
    """-(dP/da) / (dP/dx): the derivative of the quantile at a fixed level."""
    density = math.exp((a - 1) * math.log(x) - x - math.lgamma(a))
    return -(_gamma_cdf(a + h, x) - _gamma_cdf(a - h, x)) / (2 * h) / density


def _dirichlet_grad_one(x, a, total, h=1e-6):
    """(dx/da at a fixed quantile and fixed b) / (1 - x) for x ~ Beta(a, b = total - a)."""
    b = total - a
    density = math.exp((a - 1) * math.log(x) + (b - 1) * math.log1p(-x) - math.lgamma(a) - math.lgamma(b)
                       + math.lgamma(total))
    return -(_beta_cdf(x, a + h, b) - _beta_cdf(x, a - h, b)) / (2 * h) / density / (1 - x)


def _elementwise(fn):
    def ref(*arrays):
        out = np.vectorize(lambda *v: fn(*map(float, v)), otypes=[float])(*np.broadcast_arrays(*arrays))
        return np.asarray(out, dtype=arrays[0].dtype)
    return ref


def _gamma_grad_samples(dtype, rng):
    yield SampleInput((positive((2, 3), dtype, rng, 1.0, 6.0), positive((2, 3), dtype, rng, 0.2, 8.0)))
    yield SampleInput((positive((3,), dtype, rng, 1.0, 3.0), positive((2, 1), dtype, rng, 0.5, 4.0)))  # broadcast
    yield SampleInput((positive((0, 2), dtype, rng), positive((0, 2), dtype, rng)))


def _dirichlet_grad_samples(dtype, rng):
    # x above and below the mode, alpha and total - alpha >= 1
    alpha = positive((2, 3), dtype, rng, 1.0, 4.0)
    yield SampleInput((rand((2, 3), dtype, rng, 0.05, 0.95), alpha, alpha + positive((2, 3), dtype, rng, 1.0, 4.0)))
    yield SampleInput((rand((4,), dtype, rng, 0.05, 0.95), np.asarray(2.0, dtype=alpha.dtype),
                       np.asarray(5.0, dtype=alpha.dtype)))


def _concentration_samples(dtype, rng):
    yield SampleInput((positive((3, 4), dtype, rng, 0.1, 5.0),))
    yield SampleInput((positive((0, 2), dtype, rng),))


def _binomial_samples(dtype, rng):
    count = np.floor(positive((3, 4), dtype, rng, 0.0, 30.0))
    yield SampleInput((count, rand((3, 4), dtype, rng, 0.0, 1.0)))
    yield SampleInput((count, rand((4,), dtype, rng, 0.0, 1.0)))  # broadcast


def _random(name, samples):
    return OpInfo(name, samples, differentiable=False, torch=False)


OPS = [
    _random("_standard_gamma", _concentration_samples),
    _random("_sample_dirichlet", _concentration_samples),
    _random("binomial", _binomial_samples),
    OpInfo("_standard_gamma_grad", _gamma_grad_samples, ref=_elementwise(_gamma_grad_one), differentiable=False,
           torch=False, rtol=1e-4, atol=1e-6),
    OpInfo("_dirichlet_grad", _dirichlet_grad_samples, ref=_elementwise(_dirichlet_grad_one), differentiable=False,
           torch=False, rtol=1e-4, atol=1e-6),
]

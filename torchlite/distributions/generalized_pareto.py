import math

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalised Pareto distribution of location `loc`, scale `scale` and shape
    `concentration` (exponential for concentration 0, bounded above for a negative one).

    >>> GeneralizedPareto(0.0, 1.0, 0.0).cdf(torchlite.tensor(1.0))
    tensor(0.6321)

    Args:
        loc (float or Tensor): the location.
        scale (float or Tensor): the scale.
        concentration (float or Tensor): the shape.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration"))

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _safe_concentration(self):
        """(concentration == 0, the concentration with its zeros replaced by 1): the zero case
        takes the exponential formula, and the other branch must stay finite beside it."""
        zero = torchlite.isclose(self.concentration, torchlite.zeros_like(self.concentration))
        return zero, torchlite.where(zero, torchlite.ones_like(self.concentration), self.concentration)

    def rsample(self, sample_shape=torchlite.Size()):
        u = torchlite.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, conc = self._safe_concentration()
        y = 1 / conc + torchlite.ones_like(z)
        nonzero = torchlite.where(y == 0, y, y * torchlite.log1p(conc * z))
        return -self.scale.log() - torchlite.where(zero, z, nonzero)

    def log_survival_function(self, value):
        """log(1 - cdf(value))."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        zero, conc = self._safe_concentration()
        return torchlite.where(zero, -z, -torchlite.log1p(conc * z) / conc)

    def log_cdf(self, value):
        """log(cdf(value))."""
        return torchlite.log1p(-torchlite.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return torchlite.exp(self.log_cdf(value))

    def icdf(self, value):
        zero, conc = self._safe_concentration()
        log_u = torchlite.log1p(-value)
        return torchlite.where(zero, self.loc - self.scale * log_u,
                               self.loc + self.scale / conc * torchlite.expm1(-conc * log_u))

    @property
    def mean(self):
        valid = self.concentration < 1
        conc = torchlite.where(valid, self.concentration, 0.5)
        return torchlite.where(valid, self.loc + self.scale / (1 - conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        conc = torchlite.where(valid, self.concentration, 0.25)
        return torchlite.where(valid, self.scale**2 / ((1 - conc) ** 2 * (1 - 2 * conc)), math.nan)

    def entropy(self):
        return torchlite.broadcast_to(torchlite.log(self.scale) + self.concentration + 1, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = torchlite.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)

"""HalfCauchy: ``|X|`` for ``X ~ Cauchy(0, scale)``."""

import math

import torchlite as torch
from torchlite.distributions import constraints
from torchlite.distributions.cauchy import Cauchy
from torchlite.distributions.half_normal import _fold_log_prob
from torchlite.distributions.transformed_distribution import TransformedDistribution
from torchlite.distributions.transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    r"""Half-Cauchy distribution with scale ``scale``.

    >>> HalfCauchy(1.0).icdf(torchlite.tensor(0.5))
    tensor(1.)
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return torch.full(
            self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device
        )

    @property
    def mode(self):
        return torch.zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = torch.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        return _fold_log_prob(self, value)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)

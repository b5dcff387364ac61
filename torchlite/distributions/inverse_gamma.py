"""InverseGamma: ``1 / X`` for ``X ~ Gamma(concentration, rate)``."""

import math

import torchlite as torch
from torchlite.distributions import constraints
from torchlite.distributions.gamma import Gamma
from torchlite.distributions.transformed_distribution import TransformedDistribution
from torchlite.distributions.transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    r"""Inverse-gamma distribution with shape ``concentration`` and scale ``rate``.

    >>> InverseGamma(torchlite.tensor(3.0), torchlite.tensor(2.0)).mean
    tensor(1.)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    # Moments that do not exist (concentration <= 1, <= 2) are inf, as PyTorch's.
    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return torch.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a = self.concentration
        result = self.rate.square() / ((a - 1).square() * (a - 2))
        return torch.where(a > 2, result, math.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()

"""Weibull: ``scale * E ** (1 / concentration)`` for ``E ~ Exponential(1)``."""

import torchlite as torch
from torchlite.distributions import constraints
from torchlite.distributions.exponential import Exponential
from torchlite.distributions.transformed_distribution import TransformedDistribution
from torchlite.distributions.transforms import AffineTransform, PowerTransform
from torchlite.distributions.utils import broadcast_all, euler_constant

__all__ = ["Weibull"]


def _weibull_transforms(concentration_reciprocal, scale):
    return [PowerTransform(exponent=concentration_reciprocal), AffineTransform(loc=0, scale=scale)]


class Weibull(TransformedDistribution):
    r"""Two-parameter Weibull distribution.

    >>> Weibull(torchlite.tensor([1.0]), torchlite.tensor([2.0])).cdf(torchlite.tensor([1.0]))
    tensor([0.6321])
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(torch.ones_like(self.scale), validate_args=validate_args)
        transforms = _weibull_transforms(self.concentration_reciprocal, self.scale)
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        # The transforms hold the parameters, so they are rebuilt at the new shape.
        transforms = _weibull_transforms(new.concentration_reciprocal, new.scale)
        base_dist = self.base_dist.expand(batch_shape)
        super(Weibull, new).__init__(base_dist, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * torch.exp(torch.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        return self.scale.pow(2) * (
            torch.exp(torch.lgamma(1 + 2 * self.concentration_reciprocal))
            - torch.exp(2 * torch.lgamma(1 + self.concentration_reciprocal))
        )

    def entropy(self):
        return (
            euler_constant * (1 - self.concentration_reciprocal)
            + torch.log(self.scale * self.concentration_reciprocal)
            + 1
        )

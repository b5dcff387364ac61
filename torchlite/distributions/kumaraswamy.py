"""Kumaraswamy: ``(1 - U ** (1/b)) ** (1/a)`` for uniform U."""

import math

import torchlite as torch
from torchlite.distributions import constraints
from torchlite.distributions.transformed_distribution import TransformedDistribution
from torchlite.distributions.transforms import AffineTransform, PowerTransform
from torchlite.distributions.uniform import Uniform
from torchlite.distributions.utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    # E[X^n] = b * B(1 + n/a, b)
    arg1 = 1 + n / a
    log_value = torch.lgamma(arg1) + torch.lgamma(b) - torch.lgamma(arg1 + b)
    return b * torch.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    r"""Kumaraswamy distribution on (0, 1) with concentrations ``a`` (``concentration1``)
    and ``b`` (``concentration0``).

    >>> Kumaraswamy(torchlite.tensor(2.0), torchlite.tensor(2.0)).mean
    tensor(0.5333)
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(
            torch.full_like(self.concentration0, 0),
            torch.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        # Only a, b >= 1 have an interior mode.
        return torch.where((b < 1) | (a < 1), math.nan, log_mode).exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - torch.pow(self.mean, 2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = torch.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - torch.log(self.concentration1) - torch.log(self.concentration0)

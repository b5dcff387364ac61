import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace (double exponential) distribution of location `loc` and scale `scale`.

    >>> Laplace(0.0, 1.0).cdf(torchlite.tensor(0.0))
    tensor(0.5000)

    Args:
        loc (float or Tensor): the mean.
        scale (float or Tensor): the scale.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2**0.5) * self.scale

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        # u in (-1, 1): log1p(-|u|) stays finite
        u = self.loc.new_empty(shape).uniform_(torchlite.finfo(self.loc.dtype).eps - 1, 1)
        return self.loc - self.scale * u.sign() * torchlite.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -torchlite.log(2 * self.scale) - torchlite.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        centred = value - self.loc
        return 0.5 - 0.5 * centred.sign() * torchlite.expm1(-centred.abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * torchlite.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + torchlite.log(2 * self.scale)

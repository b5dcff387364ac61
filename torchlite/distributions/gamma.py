import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.exp_family import ExponentialFamily
from torchlite.distributions.utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution of shape `concentration` and inverse scale `rate`. Samples are
    reparameterised (the gradient of torchlite._standard_gamma).

    >>> Gamma(torchlite.tensor([2.0]), torchlite.tensor([1.0])).mean
    tensor([2.])

    Args:
        concentration (float or Tensor): the shape (alpha).
        rate (float or Tensor): the rate, 1 / scale (beta).
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        value = torchlite._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=torchlite.finfo(value.dtype).tiny)  # a large rate may round it to 0
        return value

    def log_prob(self, value):
        value = torchlite.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (torchlite.xlogy(self.concentration, self.rate) + torchlite.xlogy(self.concentration - 1, value)
                - self.rate * value - torchlite.lgamma(self.concentration))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return torchlite.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        return (self.concentration - torchlite.log(self.rate) + torchlite.lgamma(self.concentration)
                + (1.0 - self.concentration) * torchlite.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return torchlite.lgamma(x + 1) + (x + 1) * torchlite.log(-y.reciprocal())

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.exp_family import ExponentialFamily
from torchlite.distributions.utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The Poisson distribution of rate `rate`: P(k) = rate^k e^-rate / k!.

    >>> Poisson(torchlite.tensor([2.0])).log_prob(torchlite.tensor([1.0]))
    tensor([-1.3069])

    Args:
        rate (Number, Tensor): the rate.
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            return torchlite.poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (torchlite.log(self.rate),)

    def _log_normalizer(self, x):
        return torchlite.exp(x)

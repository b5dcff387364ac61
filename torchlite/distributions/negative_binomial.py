import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.binomial import _init_count_and_param
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.gamma import Gamma
from torchlite.distributions.utils import lazy_property, logits_to_probs, probs_to_logits
from torchlite.nn import functional as F

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """The negative binomial distribution: the number of successes of Bernoulli(`probs`) trials
    before `total_count` failures (total_count may be any positive real).

    >>> NegativeBinomial(3.0, torchlite.tensor([0.5])).mean
    tensor([3.])

    Args:
        total_count (float or Tensor): the number of failures that stops the trials.
        probs (Tensor): the success probability of each trial, in [0, 1).
        logits (Tensor): its log-odds.
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        _init_count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(NegativeBinomial, batch_shape, _instance, ("total_count", "probs", "logits"))

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self):
        return self.total_count * torchlite.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torchlite.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        # the Poisson rate whose mixture is this distribution
        return Gamma(concentration=self.total_count, rate=torchlite.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            return torchlite.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalised = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalisation = (-torchlite.lgamma(self.total_count + value) + torchlite.lgamma(1.0 + value)
                             + torchlite.lgamma(self.total_count))
        # total_count = value = 0 has probability 1
        log_normalisation = log_normalisation.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalised - log_normalisation

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.utils import _probs_or_logits
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    """max(x, 0) with gradient 1/2 at 0 (PyTorch's, so the gradient at logits 0 matches)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


def _init_count_and_param(dist, total_count, probs, logits):
    """Set total_count (in the parameter's dtype) and probs or logits, broadcast together."""
    name, param = _probs_or_logits(probs, logits)
    total_count, dist._param = broadcast_all(total_count, param)
    dist.total_count = total_count.type_as(dist._param)
    setattr(dist, name, dist._param)


class Binomial(Distribution):
    """The binomial distribution: the number of successes in `total_count` independent
    Bernoulli(`probs`) trials. total_count broadcasts with probs / logits.

    >>> Binomial(10, torchlite.tensor([0.5])).log_prob(torchlite.tensor([5.0]))
    tensor([-1.4020])

    Args:
        total_count (int or Tensor): the number of trials.
        probs (Tensor): the success probability of each trial.
        logits (Tensor): its log-odds.
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _init_count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Binomial, batch_shape, _instance, ("total_count", "probs", "logits"))

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        with torchlite.no_grad():
            return torchlite.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_choose = (torchlite.lgamma(self.total_count + 1) - torchlite.lgamma(value + 1)
                      - torchlite.lgamma(self.total_count - value + 1))
        # n log(1 + e^logits), kept finite for large |logits|
        log_normaliser = self.total_count * (_clamp_by_zero(self.logits)
                                             + torchlite.log1p(torchlite.exp(-torchlite.abs(self.logits))))
        return value * self.logits + log_choose - log_normaliser

    def _homogeneous_count(self, what):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(torchlite.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = self._homogeneous_count("enumerate_support")
        values = torchlite.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values

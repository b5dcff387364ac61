import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.utils import _probs_or_logits
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits
from torchlite.nn.functional import binary_cross_entropy_with_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """The geometric distribution: the number of failures before the first success in
    Bernoulli(`probs`) trials (support 0, 1, 2, ...).

    >>> Geometric(torchlite.tensor([0.25])).mean
    tensor([3.])

    Args:
        probs (Number, Tensor): the success probability of each trial, in (0, 1].
        logits (Number, Tensor): its log-odds.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        name, param = _probs_or_logits(probs, logits)
        (value,) = broadcast_all(param)
        setattr(self, name, value)
        super().__init__(value.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0
            if not valid.all():
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                                 f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                                 f"invalid values:\n{self.probs.detach()[~valid]}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Geometric, batch_shape, _instance, ("probs", "logits"))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torchlite.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        tiny = torchlite.finfo(self.probs.dtype).tiny
        with torchlite.no_grad():
            u = self.probs.new_empty(shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone(memory_format=torchlite.contiguous_format)
        probs[(probs == 1) & (value == 0)] = 0  # 0 * log(0) counts as 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs

import math

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.binomial import Binomial
from torchlite.distributions.categorical import Categorical
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The multinomial distribution: the counts of each of K categories in `total_count`
    independent categorical draws. log_prob does not need total_count (any count vector is
    scored); sample does.

    >>> Multinomial(4, torchlite.tensor([1.0, 1.0])).log_prob(torchlite.tensor([2.0, 2.0]))
    tensor(-0.9808)

    Args:
        total_count (int): the number of draws.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalised).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = torchlite.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=torchlite.Size()):
        sample_shape = torchlite.Size(sample_shape)
        draws = self._categorical.sample(torchlite.Size((self.total_count,)) + sample_shape)
        draws = draws.permute(*range(1, draws.dim()), 0)  # the draws last, to count them per category
        counts = torchlite.zeros(self._extended_shape(sample_shape), dtype=draws.dtype, device=draws.device)
        counts.scatter_add_(-1, draws, torchlite.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        n = torchlite.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - torchlite.lgamma(n + 1)
        # sum over categories of E[log x_i!], each x_i binomial
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = torchlite.exp(self._binomial.log_prob(support))
        term2 = (binomial_probs * torchlite.lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone(memory_format=torchlite.contiguous_format)
        logits[(value == 0) & (logits == -math.inf)] = 0  # 0 * log 0 counts as 0
        return torchlite.lgamma(value.sum(-1) + 1) - torchlite.lgamma(value + 1).sum(-1) + (logits * value).sum(-1)

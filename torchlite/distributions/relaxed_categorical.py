"""Relaxed (Concrete / Gumbel-softmax) one-hot categorical, in log space and on the simplex."""

import torchlite as torch
from torchlite.distributions import constraints
from torchlite.distributions.categorical import Categorical
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.transformed_distribution import _EMPTY_SHAPE, TransformedDistribution
from torchlite.distributions.transforms import ExpTransform
from torchlite.distributions.utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    r"""The log of a RelaxedOneHotCategorical sample: ``log_softmax((logits + G) /
    temperature)`` with Gumbel noise G. Give exactly one of ``probs`` and ``logits``.

    >>> ExpRelaxedCategorical(torchlite.tensor(1.0), logits=torchlite.zeros(3)).sample((4,)).shape
    torchlite.Size([4, 3])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    # The samples really lie on a submanifold (their exps sum to 1).
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = torch.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(
            batch_shape, self.event_shape, validate_args=False
        )
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=_EMPTY_SHAPE):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(torch.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # log((K-1)!) + (K-1) log(temperature): the density's normaliser.
        log_scale = torch.full_like(self.temperature, float(k)).lgamma() - self.temperature.log().mul(
            -(k - 1)
        )
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    r"""A continuous relaxation of OneHotCategorical on the simplex: the exp of an
    ExpRelaxedCategorical; reparameterizable.

    >>> RelaxedOneHotCategorical(torchlite.tensor(0.5), probs=torchlite.tensor([0.2, 0.8])).sample((3,)).shape
    torchlite.Size([3, 2])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs

"""Relaxed (Concrete / Gumbel-softmax) Bernoulli, on logits and on (0, 1)."""

import torchlite as torch
from torchlite.distributions import constraints
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.transformed_distribution import _EMPTY_SHAPE, TransformedDistribution
from torchlite.distributions.transforms import SigmoidTransform
from torchlite.distributions.utils import (
    _probs_or_logits,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Distribution):
    r"""The logit of a RelaxedBernoulli sample: ``(logit(U) + logits) / temperature``
    for uniform U. Give exactly one of ``probs`` and ``logits``.

    >>> LogitRelaxedBernoulli(torchlite.tensor(1.0), logits=torchlite.tensor([0.0])).log_prob(torchlite.tensor([0.0]))
    tensor([-1.3863])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        name, param = _probs_or_logits(probs, logits)
        (self._param,) = broadcast_all(param)
        setattr(self, name, self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(LogitRelaxedBernoulli, batch_shape, _instance, ("probs", "logits"))
        new.temperature = self.temperature
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def rsample(self, sample_shape=_EMPTY_SHAPE):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(torch.rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / (
            self.temperature
        )

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    r"""A continuous relaxation of Bernoulli on (0, 1): the sigmoid of a
    LogitRelaxedBernoulli; reparameterizable.

    >>> RelaxedBernoulli(torchlite.tensor(0.5), probs=torchlite.tensor([0.3])).sample((2,)).shape
    torchlite.Size([2, 1])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
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

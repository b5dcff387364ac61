import math

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.utils import _probs_or_logits
from torchlite.distributions.exp_family import ExponentialFamily
from torchlite.distributions.utils import (broadcast_all, clamp_probs, lazy_property, logits_to_probs,
                                           probs_to_logits)
from torchlite.nn.functional import binary_cross_entropy_with_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019): density
    proportional to probs^x (1 - probs)^(1 - x). Near probs = 1/2 (the interval `lims`) its
    normaliser and moments are Taylor expansions, whose closed forms are 0/0 there.

    >>> ContinuousBernoulli(torchlite.tensor([0.5])).mean
    tensor([0.5000])

    Args:
        probs (Number, Tensor): the parameter, in (0, 1).
        logits (Number, Tensor): its log-odds.
        lims (tuple of float): the interval around 1/2 evaluated by Taylor expansion.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        name, param = _probs_or_logits(probs, logits)
        (self._param,) = broadcast_all(param)
        if name == "probs":
            if validate_args is not None and not self.arg_constraints["probs"].check(self._param).all():
                raise ValueError("The parameter probs has invalid values")
            self._param = clamp_probs(self._param)
        setattr(self, name, self._param)
        self._lims = lims
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._lims = self._lims
        return new

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self):
        return torchlite.max(torchlite.le(self.probs, self._lims[0]), torchlite.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        """probs, with those in the unstable region moved to its edge (their closed forms are
        computed, finite, and then replaced by the Taylor expansion)."""
        return torchlite.where(self._outside_unstable_region(), self.probs,
                               self._lims[0] * torchlite.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(probs), C the normalising constant."""
        cut = self._cut_probs()
        below_half = torchlite.where(torchlite.le(cut, 0.5), cut, torchlite.zeros_like(cut))
        above_half = torchlite.where(torchlite.ge(cut, 0.5), cut, torchlite.ones_like(cut))
        log_norm = torchlite.log(torchlite.abs(torchlite.log1p(-cut) - torchlite.log(cut))) - torchlite.where(
            torchlite.le(cut, 0.5), torchlite.log1p(-2.0 * below_half), torchlite.log(2.0 * above_half - 1.0))
        x = torchlite.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torchlite.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        closed = cut / (2.0 * cut - 1.0) + 1.0 / (torchlite.log1p(-cut) - torchlite.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torchlite.pow(x, 2)) * x
        return torchlite.where(self._outside_unstable_region(), closed, taylor)

    @property
    def stddev(self):
        return torchlite.sqrt(self.variance)

    @property
    def variance(self):
        cut = self._cut_probs()
        closed = (cut * (cut - 1.0) / torchlite.pow(1.0 - 2.0 * cut, 2)
                  + 1.0 / torchlite.pow(torchlite.log1p(-cut) - torchlite.log(cut), 2))
        x = torchlite.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return torchlite.where(self._outside_unstable_region(), closed, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=torchlite.Size()):
        u = torchlite.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        closed = (torchlite.pow(cut, value) * torchlite.pow(1.0 - cut, 1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        inside = torchlite.where(self._outside_unstable_region(), closed, value)
        return torchlite.where(torchlite.le(value, 0.0), torchlite.zeros_like(value),
                               torchlite.where(torchlite.ge(value, 1.0), torchlite.ones_like(value), inside))

    def icdf(self, value):
        cut = self._cut_probs()
        closed = ((torchlite.log1p(-cut + value * (2.0 * cut - 1.0)) - torchlite.log1p(-cut))
                  / (torchlite.log(cut) - torchlite.log1p(-cut)))
        return torchlite.where(self._outside_unstable_region(), closed, value)

    def entropy(self):
        log_probs0 = torchlite.log1p(-self.probs)
        log_probs1 = torchlite.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C as a function of the natural parameter (the logits)."""
        outside = torchlite.max(torchlite.le(x, self._lims[0] - 0.5), torchlite.gt(x, self._lims[1] - 0.5))
        cut = torchlite.where(outside, x, (self._lims[0] - 0.5) * torchlite.ones_like(x))
        log_norm = torchlite.log(torchlite.abs(torchlite.special.expm1(cut))) - torchlite.log(torchlite.abs(cut))
        taylor = 0.5 * x + torchlite.pow(x, 2) / 24.0 - torchlite.pow(x, 4) / 2880.0
        return torchlite.where(outside, log_norm, taylor)

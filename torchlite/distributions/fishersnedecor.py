import math

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.gamma import Gamma
from torchlite.distributions.utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The Fisher-Snedecor (F) distribution with `df1` and `df2` degrees of freedom: the ratio of
    two chi-squared variables, each over its degrees of freedom.

    >>> FisherSnedecor(torchlite.tensor([2.0]), torchlite.tensor([6.0])).mean
    tensor([1.5000])

    Args:
        df1 (float or Tensor): the numerator's degrees of freedom.
        df2 (float or Tensor): the denominator's degrees of freedom.
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(FisherSnedecor, batch_shape, _instance, ("df1", "df2"))
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        return new

    @property
    def mean(self):
        df2 = self.df2.clone(memory_format=torchlite.contiguous_format)
        df2[df2 <= 2] = math.nan
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        mode[self.df1 <= 2] = math.nan
        return mode

    @property
    def variance(self):
        df2 = self.df2.clone(memory_format=torchlite.contiguous_format)
        df2[df2 <= 4] = math.nan
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=torchlite.Size(())):
        shape = self._extended_shape(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = torchlite.finfo(x2.dtype).tiny
        x2.clamp_(min=tiny)
        y = x1 / x2
        y.clamp_(min=tiny)
        return y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        half1, half2, ratio = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        log_norm = (half1 + half2).lgamma() - half1.lgamma() - half2.lgamma()
        return log_norm + half1 * ratio.log() + (half1 - 1) * torchlite.log(value) - (half1 + half2) * torchlite.log1p(
            ratio * value)

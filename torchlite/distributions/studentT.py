import math

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.chi2 import Chi2
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with `df` degrees of freedom, location `loc` and scale `scale`.

    >>> StudentT(torchlite.tensor([2.0])).log_prob(torchlite.tensor([0.0]))
    tensor([-1.0397])

    Args:
        df (float or Tensor): the degrees of freedom.
        loc (float or Tensor): the location. Default: 0.
        scale (float or Tensor): the scale. Default: 1.
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self):
        m = self.loc.clone(memory_format=torchlite.contiguous_format)
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        m = self.df.clone(memory_format=torchlite.contiguous_format)
        finite = self.df > 2
        m[finite] = self.scale[finite].pow(2) * self.df[finite] / (self.df[finite] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def rsample(self, sample_shape=torchlite.Size()):
        # a normal divided by the root of a chi-squared over its degrees of freedom
        x = _standard_normal(self._extended_shape(sample_shape), dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * torchlite.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + torchlite.lgamma(0.5 * self.df)
                    - torchlite.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * torchlite.log1p(y**2.0 / self.df) - log_norm

    def entropy(self):
        log_beta = torchlite.lgamma(0.5 * self.df) + math.lgamma(0.5) - torchlite.lgamma(0.5 * (self.df + 1))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (torchlite.digamma(0.5 * (self.df + 1)) - torchlite.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + log_beta)

import math

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.beta import Beta
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution over lower Cholesky factors of dim x dim correlation matrices, with
    density of the correlation matrix proportional to det(M)^(concentration - 1). Sampled by the
    onion method (Lewandowski, Kurowicka and Joe, 2009; Ghosh and Henderson's variant).

    >>> LKJCholesky(3, 0.5).sample().shape
    torchlite.Size([3, 3])

    Args:
        dim (int): the matrices' size, at least 2.
        concentration (float or Tensor): the shape parameter (eta).
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # row i's squared norm off the diagonal is Beta(i / 2, concentration + (dim - 2 - i) / 2)
        # (row 0 has none: its Beta is a placeholder)
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = torchlite.arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = torchlite.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), torchlite.Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(LKJCholesky, batch_shape, _instance, ("concentration",), event_shape=())
        new.dim = self.dim
        new._beta = self._beta.expand(new.batch_shape + (self.dim,))
        return new

    def sample(self, sample_shape=torchlite.Size()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        # each row's off-diagonal part: a uniform direction scaled to norm sqrt(y)
        u = torchlite.randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
        u_sphere = u / u.norm(dim=-1, keepdim=True)
        u_sphere[..., 0, :].fill_(0.0)
        w = torchlite.sqrt(y) * u_sphere
        diag = torchlite.clamp(1 - torchlite.sum(w**2, dim=-1), min=torchlite.finfo(w.dtype).tiny).sqrt()
        return w + torchlite.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # in terms of the Cholesky factor L: prod_i L_ii^(dim - i + 2 (concentration - 1)), i >= 2
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torchlite.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalised = torchlite.sum(order * diag.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_normaliser = 0.5 * dm1 * math.log(math.pi) + torchlite.mvlgamma(alpha - 0.5, dm1) - torchlite.lgamma(
            alpha) * dm1
        return unnormalised - log_normaliser

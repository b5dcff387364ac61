import math

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.multivariate_normal import _batch_mahalanobis, _batch_mv
from torchlite.distributions.utils import _standard_normal, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _batch_capacitance_tril(W, D):
    """The Cholesky factor of the capacitance I + W^T D^-1 W (m x m, m the rank)."""
    m = W.size(-1)
    K = torchlite.matmul(W.mT / D.unsqueeze(-2), W)
    return torchlite.linalg.cholesky(K + torchlite.eye(m, dtype=K.dtype, device=K.device))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """log det(W W^T + D) by the matrix determinant lemma: log det(capacitance) + log det(D)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x by the Woodbury identity:
    x^T D^-1 x - (W^T D^-1 x)^T capacitance^-1 (W^T D^-1 x)."""
    Wt_Dinv_x = _batch_mv(W.mT / D.unsqueeze(-2), x)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(Distribution):
    """The multivariate normal distribution whose covariance has low-rank-plus-diagonal form
    `cov_factor @ cov_factor.mT + diag(cov_diag)`; log_prob and entropy cost O(n m^2), m the rank.

    >>> m = LowRankMultivariateNormal(torchlite.zeros(2), torchlite.tensor([[1.0], [0.0]]), torchlite.ones(2))
    >>> m.variance
    tensor([2., 1.])

    Args:
        loc (Tensor): the mean, shape batch_shape + event_shape.
        cov_factor (Tensor): the low-rank factor, shape batch_shape + event_shape + (rank,).
        cov_diag (Tensor): the diagonal part, shape batch_shape + event_shape.
    """

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = torchlite.broadcast_tensors(loc.unsqueeze(-1), cov_factor,
                                                                           cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, cov_diag "
                             f"{cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(LowRankMultivariateNormal, batch_shape, _instance, ("loc", "cov_diag"))
        new.cov_factor = self.cov_factor.expand(new.batch_shape + self.event_shape + self.cov_factor.shape[-1:])
        for name in ("_unbroadcasted_cov_factor", "_unbroadcasted_cov_diag", "_capacitance_tril"):
            setattr(new, name, getattr(self, name))
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag).expand(
            self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        # D^(1/2) chol(I + D^(-1/2) W W^T D^(-1/2)): the factor stays well conditioned for a small D
        n = self._event_shape[0]
        sqrt_diag = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / sqrt_diag
        K = torchlite.matmul(scaled, scaled.mT) + torchlite.eye(n, dtype=scaled.dtype, device=scaled.device)
        return (sqrt_diag * torchlite.linalg.cholesky(K)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return (torchlite.matmul(W, W.mT) + torchlite.diag_embed(self._unbroadcasted_cov_diag)).expand(
            self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # Woodbury: D^-1 - D^-1 W capacitance^-1 W^T D^-1
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = torchlite.linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        return (torchlite.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A).expand(
            self._matrix_shape())

    def rsample(self, sample_shape=torchlite.Size()):
        shape = self._extended_shape(sample_shape)
        eps_W = _standard_normal(shape[:-1] + self.cov_factor.shape[-1:], dtype=self.loc.dtype, device=self.loc.device)
        eps_D = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def _log_det(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                     self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                       value - self.loc, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self):
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)

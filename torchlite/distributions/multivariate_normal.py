import math

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Batched matrix-vector product (the batch dimensions broadcast)."""
    return torchlite.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """The squared Mahalanobis distance x^T (L L^T)^-1 x = |L^-1 x|^2 for a lower-triangular L,
    over the broadcast batch dimensions of bL[..., :, :] and bx[..., :]."""
    batch = torchlite.broadcast_shapes(bL.shape[:-2], bx.shape[:-1])
    n = bx.size(-1)
    solved = torchlite.linalg.solve_triangular(bL.expand(batch + (n, n)), bx.expand(batch + (n,)).unsqueeze(-1),
                                               upper=False)
    return solved.squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1 without inverting P: with J the reversal permutation,
    chol(J P J) = J U^-T J gives P = U U^T for an upper-triangular U, so P^-1 = U^-T U^-1 and
    its lower factor is U^-T, found by a triangular solve."""
    Lf = torchlite.linalg.cholesky(torchlite.flip(P, (-2, -1)))
    L_inv = torchlite.transpose(torchlite.flip(Lf, (-2, -1)), -2, -1)
    eye = torchlite.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return torchlite.linalg.solve_triangular(L_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution of mean `loc` and one of: a positive-definite
    `covariance_matrix`, its inverse `precision_matrix`, or the lower-triangular Cholesky factor
    `scale_tril` of the covariance (the cheapest: the others are factored once).

    >>> m = MultivariateNormal(torchlite.zeros(2), torchlite.eye(2))
    >>> m.log_prob(torchlite.zeros(2))
    tensor(-1.8379)

    Args:
        loc (Tensor): the mean.
        covariance_matrix (Tensor): the covariance.
        precision_matrix (Tensor): the inverse covariance.
        scale_tril (Tensor): the lower Cholesky factor of the covariance, with a positive diagonal.
    """

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {name: m for name, m in (("covariance_matrix", covariance_matrix),
                                         ("precision_matrix", precision_matrix), ("scale_tril", scale_tril))
                 if m is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        ((name, matrix),) = given.items()
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = torchlite.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = torchlite.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(MultivariateNormal, batch_shape, _instance,
                                  ("covariance_matrix", "scale_tril", "precision_matrix"),
                                  event_shape=self.event_shape + self.event_shape)
        new.loc = self.loc.expand(new.batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return torchlite.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return torchlite.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=torchlite.Size()):
        eps = _standard_normal(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)

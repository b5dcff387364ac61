import math
import numbers
import warnings

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.chi2 import Chi2
from torchlite.distributions.exp_family import ExponentialFamily
from torchlite.distributions.multivariate_normal import _precision_to_scale_tril
from torchlite.distributions.utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function: sum_{i<p} digamma(x - i/2)."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = torchlite.arange(p, dtype=x.dtype, device=x.device).div(2)
    return torchlite.digamma(x.unsqueeze(-1) - halves.expand(x.shape + (-1,))).sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution over positive-definite p x p matrices, with `df` degrees of
    freedom and scale given by one of `covariance_matrix`, `precision_matrix` or `scale_tril`
    (its lower Cholesky factor). Samples are drawn by Bartlett's decomposition.

    >>> Wishart(torchlite.tensor(3.0), torchlite.eye(2)).mean
    tensor([[3., 0.],
            [0., 3.]])

    Args:
        df (float or Tensor): the degrees of freedom, above p - 1.
        covariance_matrix (Tensor): the positive-definite scale matrix.
        precision_matrix (Tensor): its inverse.
        scale_tril (Tensor): its lower Cholesky factor.
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = {name: m for name, m in (("covariance_matrix", covariance_matrix),
                                         ("precision_matrix", precision_matrix), ("scale_tril", scale_tril))
                 if m is not None}
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        ((name, param),) = given.items()
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = torchlite.Size(param.shape[:-2])
            self.df = torchlite.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = torchlite.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}.")
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df "
                          "< ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = param
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = torchlite.linalg.cholesky(param)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(param)
        self._set_chi2()

    def _set_chi2(self):
        """The Bartlett factor's squared diagonal: chi-squared with df - i degrees of freedom."""
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        offsets = torchlite.arange(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype,
                                   device=self._unbroadcasted_scale_tril.device)
        self._dist_chi2 = Chi2(df=self.df.unsqueeze(-1) - offsets.expand(self._batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._expand_params(Wishart, batch_shape, _instance,
                                  ("covariance_matrix", "scale_tril", "precision_matrix"))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(new.batch_shape + self.event_shape)
        new.df = self.df.expand(new.batch_shape)
        new._set_chi2()
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.transpose(-2, -1)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        identity = torchlite.eye(self._event_shape[-1], device=L.device, dtype=L.dtype)
        return torchlite.cholesky_solve(identity, L).expand(self._matrix_shape())

    def _df_as_matrix(self, x):
        return x.view(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._df_as_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return self._df_as_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self._df_as_matrix(self.df) * (V.pow(2) + torchlite.einsum("...i,...j->...ij", diag_V, diag_V))

    def _bartlett_sampling(self, sample_shape=torchlite.Size()):
        """L A A^T L^T with A lower triangular: sqrt(chi2(df - i)) on its diagonal, standard
        normals below it."""
        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = diag.clamp(min=torchlite.finfo(diag.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        i, j = torchlite.tril_indices(p, p, offset=-1)
        noise[..., i, j] = torchlite.randn(torchlite.Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,),
                                           dtype=noise.dtype, device=noise.device)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=torchlite.Size(), max_try_correction=None):
        """A reparameterised sample; a sample that rounding made singular is redrawn up to
        max_try_correction (default 10) times, with a warning."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = torchlite.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        singular = ~self.support.check(sample)
        if self._batch_shape:
            singular = singular.amax(self._batch_dims)
        if singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                redrawn = self._bartlett_sampling(singular[singular].shape)
                sample[singular] = redrawn
                still = ~self.support.check(redrawn)
                if self._batch_shape:
                    still = still.amax(self._batch_dims)
                singular[singular.clone()] = still
                if not singular.any():
                    break
        return sample

    def _log_det_scale(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        trace = torchlite.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * (p * _LOG_2 / 2 + self._log_det_scale()) - torchlite.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * torchlite.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        return ((p + 1) * (p * _LOG_2 / 2 + self._log_det_scale()) + torchlite.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        return -self.precision_matrix / 2, (self.df - self._event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-torchlite.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + torchlite.mvlgamma(y + (p + 1) / 2, p=p))

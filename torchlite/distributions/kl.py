"""kl_divergence(p, q) and register_kl: the KL divergence between two distributions, found by
the (most specific) registered pair of their types."""

import math
import warnings
from functools import total_ordering

import torchlite
from torchlite.distributions.bernoulli import Bernoulli
from torchlite.distributions.beta import Beta
from torchlite.distributions.binomial import Binomial
from torchlite.distributions.categorical import Categorical
from torchlite.distributions.cauchy import Cauchy
from torchlite.distributions.continuous_bernoulli import ContinuousBernoulli
from torchlite.distributions.dirichlet import Dirichlet
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.exp_family import ExponentialFamily
from torchlite.distributions.exponential import Exponential
from torchlite.distributions.gamma import Gamma
from torchlite.distributions.geometric import Geometric
from torchlite.distributions.independent import Independent
from torchlite.distributions.laplace import Laplace
from torchlite.distributions.lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                                                 _batch_lowrank_mahalanobis)
from torchlite.distributions.multivariate_normal import MultivariateNormal, _batch_mahalanobis
from torchlite.distributions.normal import Normal
from torchlite.distributions.one_hot_categorical import OneHotCategorical
from torchlite.distributions.poisson import Poisson
from torchlite.distributions.uniform import Uniform
from torchlite.distributions.utils import _sum_rightmost
from torchlite.distributions.utils import euler_constant as _euler_gamma

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}  # (type_p, type_q) -> function, as registered
_KL_MEMOIZE = {}  # (type(p), type(q)) -> the function dispatch chose


def register_kl(type_p, type_q):
    """Decorator registering fun(p, q) as the KL divergence of a p of type `type_p` (or a
    subclass) from a q of type `type_q`. When several registered pairs match, the most specific
    one wins; if the two orders (most specific p first, most specific q first) disagree, a
    RuntimeWarning asks for the pair to be registered explicitly.

        @register_kl(Normal, Normal)
        def kl_normal_normal(p, q):
            ...

    Args:
        type_p (type): a subclass of Distribution.
        type_q (type): a subclass of Distribution.
    """
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new pair can change what dispatch picks
        return fun

    return decorator


@total_ordering
class _Match:
    """A registered type pair, ordered lexicographically by subclass relation: the smaller pair
    is the more specific one."""

    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    if left_fun is not _KL_REGISTRY[right_p, right_q]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
                      f"register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], batched over the batch shape.

    >>> D = torchlite.distributions
    >>> kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 1.0))
    tensor(0.5000)

    Args:
        p (Distribution): the distribution the expectation is over.
        q (Distribution): the other one.

    Raises:
        NotImplementedError: when no registered pair matches the two types.
    """
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _KL_MEMOIZE[type(p), type(q)] = _dispatch_kl(type(p), type(q))
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor):
    return torchlite.full_like(tensor, math.inf)


def _x_log_x(tensor):
    return torchlite.special.xlogy(tensor, tensor)  # 0 at 0


def _batch_trace_XXT(bmat):
    """trace(X X^T) of each matrix of the batch: the sum of its squares."""
    return bmat.reshape(bmat.shape[:-2] + (-1,)).pow(2).sum(-1)


def _log_det_tril(L):
    return L.diagonal(dim1=-2, dim2=-1).log().sum(-1)


# ---- the same family ---------------------------------------------------------------------------

@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    softplus = torchlite.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    total_p = p.concentration1 + p.concentration0
    total_q = q.concentration1 + q.concentration0
    log_beta_q = q.concentration1.lgamma() + q.concentration0.lgamma() - total_q.lgamma()
    log_beta_p = p.concentration1.lgamma() + p.concentration0.lgamma() - total_p.lgamma()
    return (log_beta_q - log_beta_p + (p.concentration1 - q.concentration1) * torchlite.digamma(p.concentration1)
            + (p.concentration0 - q.concentration0) * torchlite.digamma(p.concentration0)
            + (total_q - total_p) * torchlite.digamma(total_p))


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    # Binomials with different counts have different supports
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    larger = p.total_count > q.total_count
    kl[larger] = _infinite_like(kl[larger])
    return kl


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + torchlite.log1p(-p.probs)
            - q._cont_bern_log_norm() - torchlite.log1p(-q.probs))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    total_p = p.concentration.sum(-1)
    total_q = q.concentration.sum(-1)
    t1 = total_p.lgamma() - total_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    log_x_mean = p.concentration.digamma() - total_p.digamma().unsqueeze(-1)  # E_p[log x_i]
    return t1 - t2 + ((p.concentration - q.concentration) * log_x_mean).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normaliser between the natural parameters."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_params = [param.detach().requires_grad_() for param in p._natural_params]
    q_params = q._natural_params
    p_log_norm = p._log_normalizer(*p_params)
    grads = torchlite.autograd.grad(p_log_norm.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - p_log_norm
    for p_param, q_param, g in zip(p_params, q_params, grads):
        result = result - _sum_rightmost((q_param - p_param) * g, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    return (q.concentration * (p.rate / q.rate).log() + torchlite.lgamma(q.concentration)
            - torchlite.lgamma(p.concentration)
            + (p.concentration - q.concentration) * torchlite.digamma(p.concentration)
            + (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - torchlite.log1p(-q.probs) / p.probs - q.logits


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_abs_diff / q.scale + scale_ratio * torchlite.exp(-loc_abs_diff / p.scale) - 1


def _check_event_shapes(p, q, what):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with different event shapes cannot be computed")


def _lowrank_q_terms(p, q):
    """log det(Sigma_q) and q's Mahalanobis distance of p's mean, and A = chol(C_q)^-1 W_q^T D_q^-1
    (C_q q's capacitance), for the trace of Sigma_q^-1 Sigma_p by Woodbury."""
    log_det_q = _batch_lowrank_logdet(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q._capacitance_tril)
    mahalanobis = _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q.loc - p.loc,
                                             q._capacitance_tril)
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    A = torchlite.linalg.solve_triangular(q._capacitance_tril, qWt_qDinv, upper=False)
    return log_det_q, mahalanobis, A


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    _check_event_shapes(p, q, "Low Rank Multivariate Normals")
    log_det_q, mahalanobis, A = _lowrank_q_terms(p, q)
    log_det_p = _batch_lowrank_logdet(p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, p._capacitance_tril)
    # trace(Sigma_q^-1 Sigma_p), Sigma_p = W_p W_p^T + D_p
    trace = ((p._unbroadcasted_cov_diag / q._unbroadcasted_cov_diag).sum(-1)
             + _batch_trace_XXT(p._unbroadcasted_cov_factor * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
             - _batch_trace_XXT(A * p._unbroadcasted_cov_diag.sqrt().unsqueeze(-2))
             - _batch_trace_XXT(A.matmul(p._unbroadcasted_cov_factor)))
    return 0.5 * (log_det_q - log_det_p + trace + mahalanobis - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    log_det_q, mahalanobis, A = _lowrank_q_terms(p, q)
    L = p._unbroadcasted_scale_tril
    trace = (_batch_trace_XXT(L * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
             - _batch_trace_XXT(A.matmul(L)))
    return 0.5 * (log_det_q - 2 * _log_det_tril(L) + trace + mahalanobis - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    log_det_p = _batch_lowrank_logdet(p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag, p._capacitance_tril)
    mahalanobis = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    batch = torchlite.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2], p._unbroadcasted_cov_factor.shape[:-2])
    n = p.event_shape[0]
    q_tril = q._unbroadcasted_scale_tril.expand(batch + (n, n))
    p_factor = p._unbroadcasted_cov_factor.expand(batch + (n, p.cov_factor.size(-1)))
    p_sqrt_diag = torchlite.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    trace = (_batch_trace_XXT(torchlite.linalg.solve_triangular(q_tril, p_factor, upper=False))
             + _batch_trace_XXT(torchlite.linalg.solve_triangular(q_tril, p_sqrt_diag, upper=False)))
    return 0.5 * (2 * _log_det_tril(q._unbroadcasted_scale_tril) - log_det_p + trace + mahalanobis - n)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    _check_event_shapes(p, q, "Multivariate Normals")
    half_log_det_ratio = _log_det_tril(q._unbroadcasted_scale_tril) - _log_det_tril(p._unbroadcasted_scale_tril)
    batch = torchlite.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2], p._unbroadcasted_scale_tril.shape[:-2])
    n = p.event_shape[0]
    # trace(Sigma_q^-1 Sigma_p) = |L_q^-1 L_p|_F^2
    trace = _batch_trace_XXT(torchlite.linalg.solve_triangular(q._unbroadcasted_scale_tril.expand(batch + (n, n)),
                                                               p._unbroadcasted_scale_tril.expand(batch + (n, n)),
                                                               upper=False))
    mahalanobis = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    return half_log_det_ratio + 0.5 * (trace + mahalanobis - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log()


# ---- across families ---------------------------------------------------------------------------
# p's support not inside q's: infinite

@register_kl(Exponential, Beta)
@register_kl(Exponential, ContinuousBernoulli)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p, q):
    return _infinite_like(p.rate)


@register_kl(Gamma, Beta)
@register_kl(Gamma, ContinuousBernoulli)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p, q):
    return _infinite_like(p.concentration)


@register_kl(Laplace, Beta)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Uniform)
def _kl_laplace_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Normal, Beta)
@register_kl(Normal, ContinuousBernoulli)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Uniform)
def _kl_normal_infinity(p, q):
    return _infinite_like(p.loc)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    return _infinite_like(p.rate)


# cross entropies in closed form, minus p's entropy

@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() - p.mean * q.logits - torchlite.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    total = p.concentration1 + p.concentration0
    log_x_mean = p.concentration1.digamma() - total.digamma()  # E_p[log x]
    return (-p.entropy() + q.concentration.lgamma() - q.concentration * q.rate.log()
            - (q.concentration - 1) * log_x_mean + q.rate * p.concentration1 / total)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    total = p.concentration1 + p.concentration0
    mean = p.concentration1 / total
    var_normal = q.scale.pow(2)
    second_moment_half = (mean * (1 - mean) / (total + 1) + mean.pow(2)) * 0.5
    return (-p.entropy() + 0.5 * (var_normal * 2 * math.pi).log()
            + (second_moment_half - q.loc * mean + q.loc.pow(2) * 0.5) / var_normal)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    result[(q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)] = math.inf
    return result


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - torchlite.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t2 = 0.5 * (math.log(2.0 * math.pi) + torchlite.square(q.loc / q.scale)) + torchlite.log(q.scale)
    t3 = (p.variance + torchlite.square(p.mean) - 2.0 * q.loc * p.mean) / (2.0 * torchlite.square(q.scale))
    return -p.entropy() + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    outside = torchlite.max(torchlite.ge(q.low, p.support.lower_bound), torchlite.le(q.high, p.support.upper_bound))
    return torchlite.where(outside, torchlite.ones_like(result) * math.inf, result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    return (-q.concentration * torchlite.log(ratio) + ratio + q.concentration.lgamma()
            + q.concentration * _euler_gamma - (1 + _euler_gamma))


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * torchlite.log(rate_sqr * var_normal * 2 * math.pi)
    return t1 - 1 + (rate_sqr.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var_normal


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    t1 = 0.5 * torchlite.log(beta_sqr * var_normal * 2 * math.pi) - p.concentration - p.concentration.lgamma()
    t2 = 0.5 * (p.concentration.pow(2) + p.concentration) / beta_sqr
    t3 = q.loc * p.concentration / p.rate
    return t1 + (p.concentration - 1) * p.concentration.digamma() + (t2 - t3 + 0.5 * q.loc.pow(2)) / var_normal


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    scale_sqr_var_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * torchlite.log(2 * scale_sqr_var_ratio / math.pi)
    return (-t1 + scale_sqr_var_ratio + (0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)) / var_normal - 1)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    # E_p|x - q.loc|: the mean of a folded normal
    t2 = math.sqrt(2 / math.pi) * p.scale * torchlite.exp(-0.5 * loc_diff_scale_ratio.pow(2))
    t3 = loc_diff * torchlite.erf(math.sqrt(0.5) * loc_diff_scale_ratio)
    return -torchlite.log(scale_ratio) + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    log_beta_q = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    result = t3 + log_beta_q - torchlite.log(width) - t2
    result[(p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)] = math.inf
    return result


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() - p.mean * q.logits - torchlite.log1p(-q.probs) - q._cont_bern_log_norm()
    outside = torchlite.max(torchlite.ge(p.high, q.support.upper_bound), torchlite.le(p.low, q.support.lower_bound))
    return torchlite.where(outside, torchlite.ones_like(result) * math.inf, result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponetial(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    result[p.low < q.support.lower_bound] = math.inf
    return result


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = -width.log() + t2 + t3 + q.rate * (p.high + p.low) / 2
    result[p.low < q.support.lower_bound] = math.inf
    return result


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


def _add_kl_info():
    """Append the registered pairs to kl_divergence's docstring."""
    rows = ["KL divergence is currently implemented for the following distribution pairs:"]
    for p, q in sorted(_KL_REGISTRY, key=lambda pair: (pair[0].__name__, pair[1].__name__)):
        rows.append(f"* :class:`~torchlite.distributions.{p.__name__}` and "
                    f":class:`~torchlite.distributions.{q.__name__}`")
    kl_divergence.__doc__ += "\n\t".join(rows)

"""torchlite.distributions: parameterisable probability distributions and sampling functions,
as torch.distributions.

Each distribution scores values (`log_prob`, `cdf`, `entropy`, ...) and draws samples; those
with `has_rsample` draw reparameterised samples (`rsample`) through which gradients flow to the
parameters (the pathwise estimator), and `log_prob` of a `sample` gives the score-function
(REINFORCE) estimator.
"""

from torchlite.distributions import constraints  # noqa: F401  (a submodule, as in PyTorch)
from torchlite.distributions.bernoulli import Bernoulli
from torchlite.distributions.beta import Beta
from torchlite.distributions.binomial import Binomial
from torchlite.distributions.categorical import Categorical
from torchlite.distributions.cauchy import Cauchy
from torchlite.distributions.chi2 import Chi2
from torchlite.distributions.continuous_bernoulli import ContinuousBernoulli
from torchlite.distributions.dirichlet import Dirichlet
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.exp_family import ExponentialFamily
from torchlite.distributions.exponential import Exponential
from torchlite.distributions.fishersnedecor import FisherSnedecor
from torchlite.distributions.gamma import Gamma
from torchlite.distributions.generalized_pareto import GeneralizedPareto
from torchlite.distributions.geometric import Geometric
from torchlite.distributions.independent import Independent
from torchlite.distributions.kl import _add_kl_info, kl_divergence, register_kl
from torchlite.distributions.laplace import Laplace
from torchlite.distributions.lkj_cholesky import LKJCholesky
from torchlite.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from torchlite.distributions.mixture_same_family import MixtureSameFamily
from torchlite.distributions.multinomial import Multinomial
from torchlite.distributions.multivariate_normal import MultivariateNormal
from torchlite.distributions.negative_binomial import NegativeBinomial
from torchlite.distributions.normal import Normal
from torchlite.distributions.one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from torchlite.distributions.poisson import Poisson
from torchlite.distributions.studentT import StudentT
from torchlite.distributions.uniform import Uniform
from torchlite.distributions.von_mises import VonMises
from torchlite.distributions.wishart import Wishart

# Transforms, the constraint registries and the families built from transforms (branch disttf).
from torchlite.distributions import transforms  # noqa: F401  (a submodule, as in PyTorch)
from torchlite.distributions.constraint_registry import biject_to, transform_to
from torchlite.distributions.transforms import *  # noqa: F403
from torchlite.distributions.transforms import __all__ as _transforms_all
from torchlite.distributions.transformed_distribution import TransformedDistribution
from torchlite.distributions.gumbel import Gumbel
from torchlite.distributions.half_cauchy import HalfCauchy
from torchlite.distributions.half_normal import HalfNormal
from torchlite.distributions.inverse_gamma import InverseGamma
from torchlite.distributions.kumaraswamy import Kumaraswamy
from torchlite.distributions.log_normal import LogNormal
from torchlite.distributions.logistic_normal import LogisticNormal
from torchlite.distributions.pareto import Pareto
from torchlite.distributions.relaxed_bernoulli import RelaxedBernoulli
from torchlite.distributions.relaxed_categorical import RelaxedOneHotCategorical
from torchlite.distributions.weibull import Weibull
from torchlite.distributions import transformed_kl  # noqa: F401  (registers their KL pairs)

_add_kl_info()
del _add_kl_info

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ContinuousBernoulli",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Independent",
    "LKJCholesky",
    "Laplace",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Poisson",
    "StudentT",
    "Uniform",
    "VonMises",
    "Wishart",
    "kl_divergence",
    "register_kl",
]
# disttf: transforms, registries and transform-based families.
__all__ += [
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "InverseGamma",
    "Kumaraswamy",
    "LogNormal",
    "LogisticNormal",
    "Pareto",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "TransformedDistribution",
    "Weibull",
    "biject_to",
    "transform_to",
] + _transforms_all

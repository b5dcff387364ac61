"""torchlite.distributions: parameterisable probability distributions and sampling functions,
as torch.distributions.

Each distribution scores values (`log_prob`, `cdf`, `entropy`, ...) and draws samples; those
with `has_rsample` draw reparameterised samples (`rsample`) through which gradients flow to the
parameters (the pathwise estimator), and `log_prob` of a `sample` gives the score-function
(REINFORCE) estimator.
"""

from torchlite.distributions import constraints  # noqa: F401  (a submodule, as in PyTorch)
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.cauchy import Cauchy
from torchlite.distributions.exp_family import ExponentialFamily
from torchlite.distributions.exponential import Exponential
from torchlite.distributions.laplace import Laplace
from torchlite.distributions.normal import Normal
from torchlite.distributions.uniform import Uniform

__all__ = [
    "Cauchy",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Laplace",
    "Normal",
    "Uniform",
]

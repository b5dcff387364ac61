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

# Transforms, the constraint registries and the families built from transforms (branch disttf).
from torchlite.distributions import transforms  # noqa: F401  (a submodule, as in PyTorch)
from torchlite.distributions.constraint_registry import biject_to, transform_to
from torchlite.distributions.transforms import *  # noqa: F403
from torchlite.distributions.transforms import __all__ as _transforms_all

__all__ = [
    "Cauchy",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Laplace",
    "Normal",
    "Uniform",
]
# disttf: transforms, registries and transform-based families.
__all__ += ["biject_to", "transform_to"] + _transforms_all

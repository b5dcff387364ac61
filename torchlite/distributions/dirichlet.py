import torchlite
from torchlite.autograd import Function
from torchlite.autograd.function import once_differentiable
from torchlite.distributions import constraints
from torchlite.distributions.exp_family import ExponentialFamily
from torchlite.nn import functional as F

__all__ = ["Dirichlet"]


class _Dirichlet(Function):
    """A Dirichlet sample, differentiable in the concentration: each coordinate is a
    Beta(alpha_i, total - alpha_i) sample (torchlite._dirichlet_grad), and the normalisation
    sum(x) = 1 projects the incoming gradient."""

    @staticmethod
    def forward(ctx, concentration):
        x = torchlite._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = torchlite._dirichlet_grad(x, concentration, total)
        return grad * (grad_output - (x * grad_output).sum(-1, True))


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex of the last dimension, of concentration
    `concentration`.

    >>> Dirichlet(torchlite.tensor([1.0, 3.0])).mean
    tensor([0.2500, 0.7500])

    Args:
        concentration (Tensor): the concentration (alpha), at least one-dimensional.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Dirichlet, batch_shape, _instance, ("concentration",))

    def rsample(self, sample_shape=()):
        return _Dirichlet.apply(self.concentration.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (torchlite.xlogy(self.concentration - 1.0, value).sum(-1) + torchlite.lgamma(self.concentration.sum(-1))
                - torchlite.lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        # every concentration below 1: the density is largest at the corner of the largest one
        corner = (self.concentration < 1).all(dim=-1)
        mode[corner] = F.one_hot(mode[corner].argmax(dim=-1), shifted.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        total = self.concentration.sum(-1)
        return (torchlite.lgamma(self.concentration).sum(-1) - torchlite.lgamma(total)
                - (k - total) * torchlite.digamma(total)
                - ((self.concentration - 1.0) * torchlite.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - torchlite.lgamma(x.sum(-1))

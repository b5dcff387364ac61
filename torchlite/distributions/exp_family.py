"""ExponentialFamily: distributions of density exp(<t(x), theta> - F(theta) + k(x))."""

import torchlite
from torchlite.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions, whose density is
    p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)) with natural parameters theta,
    sufficient statistic t, log normaliser F and carrier measure k. A subclass gives
    `_natural_params`, `_log_normalizer` and `_mean_carrier_measure`; the entropy (and the
    Bregman-divergence KL between two members of one family) then follow by autograd."""

    @property
    def _natural_params(self):
        """The natural parameters, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """F(theta) at the given natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """E[k(x)], which the entropy needs."""
        raise NotImplementedError

    def entropy(self):
        """The entropy F(theta) - <theta, grad F(theta)> - E[k(x)]."""
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_norm = self._log_normalizer(*params)
        grads = torchlite.autograd.grad(log_norm.sum(), params, create_graph=True)
        result = result + log_norm
        for param, grad in zip(params, grads):
            result = result - (param * grad).reshape(self._batch_shape + (-1,)).sum(-1)
        return result

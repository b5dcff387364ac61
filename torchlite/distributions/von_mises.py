import math

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.distribution import Distribution
from torchlite.distributions.utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _log_i0(x):
    """log I0(x) for x >= 0, from the exponentially scaled Bessel function (exact to rounding;
    PyTorch evaluates Abramowitz and Stegun's polynomial fits, within about 2e-7)."""
    return torchlite.special.i0e(x).log() + x


def _log_i1(x):
    return torchlite.special.i1e(x).log() + x


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best and Fisher's (1979) wrapped-Cauchy rejection sampler: draws until every element of x
    is accepted, then centres the angles on loc in [-pi, pi)."""
    done = torchlite.zeros(x.shape, dtype=torchlite.bool, device=loc.device)
    while not done.all():
        u1, u2, u3 = torchlite.rand((3,) + tuple(x.shape), dtype=loc.dtype, device=loc.device).unbind()
        z = torchlite.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        x = torchlite.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
        done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """The von Mises distribution on the circle: density exp(concentration cos(x - loc)) /
    (2 pi I0(concentration)), angles in radians. Samples lie in [-pi, pi).

    >>> VonMises(torchlite.tensor([0.0]), torchlite.tensor([1.0])).log_prob(torchlite.tensor([0.0]))
    tensor([-1.0738])

    Args:
        loc (Tensor): the mean angle.
        concentration (Tensor): the concentration (kappa).
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, torchlite.Size(), validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(VonMises, batch_shape, _instance, ("loc", "concentration"))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.concentration * torchlite.cos(value - self.loc) - math.log(2 * math.pi) - _log_i0(
            self.concentration)

    # the sampler runs in float64 whatever the parameters' dtype (its acceptance test is fragile)
    @lazy_property
    def _loc(self):
        return self.loc.to(torchlite.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(torchlite.double)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        r = (1 + rho**2) / (2 * rho)
        return torchlite.where(kappa < 1e-5, 1 / kappa + kappa, r)  # r's series for small kappa

    def sample(self, sample_shape=torchlite.Size()):
        with torchlite.no_grad():
            x = torchlite.empty(self._extended_shape(sample_shape), dtype=self._loc.dtype, device=self.loc.device)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r, x).to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance 1 - I1(kappa) / I0(kappa)."""
        return 1 - (_log_i1(self.concentration) - _log_i0(self.concentration)).exp()

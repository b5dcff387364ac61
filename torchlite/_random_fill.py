"""In-place sampling from more distributions, by transforming uniform_ / normal_ samples:
Tensor.exponential_, geometric_, cauchy_, log_normal_ (inverse-CDF and exp transforms).

The samples come from torchlite's generator (an mt19937_64), so their values differ from
PyTorch's for the same seed; their distribution is the same.
"""

import math

from torchlite import _C

Tensor = _C.Tensor


def _uniform(self, generator):
    """Uniform samples in [0, 1) shaped like self, in self's dtype (float64 for integer self)."""
    dtype = self.dtype if self.dtype.is_floating_point else _C.float64
    return _C.empty(self.shape, dtype=dtype, device=self.device).uniform_(generator=generator)


def _check_floating(self, name):
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {self.dtype}")


def _exponential_(self, lambd=1, *, generator=None):
    """x.exponential_(lambd=1, *, generator=None): x filled with samples of the exponential
    distribution of rate lambd (float dtypes).

    >>> bool((torchlite.empty(5).exponential_() >= 0).all())
    True
    """
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    _check_floating(self, "Exponential")
    u = _uniform(self, generator)
    return self.copy_(u.neg().log1p().div(-lambd))  # the inverse CDF; 1 - u is never 0


def _geometric_(self, p, *, generator=None):
    """x.geometric_(p, *, generator=None): x filled with samples of the geometric distribution
    (the number of Bernoulli(p) trials up to the first success: 1, 2, ...).

    >>> bool((torchlite.empty(5).geometric_(0.5) >= 1).all())
    True
    """
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = _uniform(self, generator)
    return self.copy_(u.neg().log1p().div(math.log1p(-p)).ceil().clamp_min(1))


def _cauchy_(self, median=0, sigma=1, *, generator=None):
    """x.cauchy_(median=0, sigma=1, *, generator=None): x filled with samples of the Cauchy
    distribution (float dtypes).

    >>> torchlite.empty(3).cauchy_().shape
    torchlite.Size([3])
    """
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    _check_floating(self, "Cauchy")
    u = _uniform(self, generator)
    return self.copy_(u.sub(0.5).mul(math.pi).tan().mul(sigma).add(median))


def _log_normal_(self, mean=1, std=2, *, generator=None):
    """x.log_normal_(mean=1, std=2, *, generator=None): x filled with exp of samples of the normal
    distribution N(mean, std) (float dtypes).

    >>> bool((torchlite.empty(5).log_normal_() > 0).all())
    True
    """
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f'"log_normal_cpu" not implemented for \'{self.dtype}\'')
    return self.normal_(mean, std, generator=generator).exp_()


for _name, _fn in {"exponential_": _exponential_, "geometric_": _geometric_, "cauchy_": _cauchy_,
                   "log_normal_": _log_normal_}.items():
    setattr(Tensor, _name, _fn)

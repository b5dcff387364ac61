"""Sampling composed from uniform_ / normal_ samples: torchlite.normal, and the in-place
Tensor.exponential_, geometric_, cauchy_, log_normal_ (inverse-CDF and exp transforms); and
torchlite.poisson, drawn by NumPy's sampler seeded from torchlite's generator.

The samples come from torchlite's generator (an mt19937_64), so their values differ from
PyTorch's for the same seed; their distribution is the same.
"""

import math
import numbers

import numpy as np

from torchlite import _C
from torchlite._device import current_device
from torchlite._shape_compositions import broadcast_shapes
from torchlite._shape_functions import _write_out

__all__ = ["normal", "poisson"]

Tensor = _C.Tensor


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """normal(mean, std, *, generator=None, out=None) with tensors mean and/or std (broadcast), or
    normal(mean, std, size, *, generator=None, out=None, dtype=None, device=None, ...) with numbers:
    samples of N(mean, std). Differentiable in tensor mean and std (the sample is mean + std * e
    with e ~ N(0, 1)).

    >>> torchlite.normal(0., 1., (2, 3)).shape
    torchlite.Size([2, 3])
    """
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if not tensors:
        if size is None:
            raise TypeError("normal(): with numbers mean and std, the size argument is required")
        if not (isinstance(mean, numbers.Real) and isinstance(std, numbers.Real)):
            raise TypeError(f"normal(): mean and std must be tensors or numbers, got {type(mean).__name__} and "
                            f"{type(std).__name__}")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        result = _C.empty(size, dtype=dtype, device=device if device is not None else current_device())
        result.normal_(mean, std, generator=generator)
        if requires_grad:
            result.requires_grad_(True)
        return result if out is None else _write_out(result, out)
    if size is not None:
        raise TypeError("normal(): size is only taken with numbers mean and std")
    dtype = tensors[0].dtype if len(tensors) == 1 else _C.promote_types(mean.dtype, std.dtype)  # numbers don't count
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"normal_kernel_cpu" not implemented for \'{dtype}\'')
    if isinstance(std, Tensor):
        if std.numel() and bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    shape = broadcast_shapes(*(t.shape for t in tensors))
    noise = _C.empty(shape, dtype=dtype, device=tensors[0].device).normal_(generator=generator)
    result = mean + std * noise
    return result if out is None else _write_out(result, out)


def poisson(input, generator=None):
    """poisson(input, generator=None): a sample of the Poisson distribution of rate input[i] for
    each element (float dtypes), with a zero gradient as in PyTorch. NumPy's sampler draws them,
    seeded from the (given or default) torchlite generator, so manual_seed makes them reproducible.

    >>> torchlite.poisson(torchlite.zeros(2))
    tensor([0., 0.])
    """
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"poisson_cpu" not implemented for \'{input.dtype}\'')
    rates = input.detach().numpy(force=True)
    if not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if not np.isfinite(rates).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be finite")
    seed = _C.empty((), dtype=_C.int64).random_(generator=generator).item()
    counts = np.random.default_rng(seed).poisson(rates)
    sample = _C.tensor(counts, dtype=input.dtype, device=input.device)
    # input takes part, with a zero gradient (PyTorch's PoissonBackward), but none of its values do
    return _C.where(_C.zeros(sample.shape, dtype=_C.bool, device=sample.device), input, sample)


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

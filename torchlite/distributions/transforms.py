"""Invertible transforms with log-Jacobians, as torch.distributions.transforms.

Each transform maps its ``domain`` constraint onto its ``codomain``; bijective ones
also give ``log|dy/dx|`` so TransformedDistribution can change variables.
"""

import functools
import math
import numbers
import operator

import torchlite as torch
import torchlite.nn.functional as F
from torchlite.distributions import constraints
from torchlite.distributions.utils import (
    _sum_rightmost,
    broadcast_all,
    lazy_property,
    tril_matrix_to_vec,
    vec_to_tril_matrix,
)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]

class Transform:
    """Base of invertible maps ``x -> y`` with a computable log-det-Jacobian.

    Subclasses implement ``_call`` and/or ``_inverse`` (and ``log_abs_det_jacobian``
    when bijective). With ``cache_size=1`` the latest ``(x, y)`` pair is remembered,
    so ``t.inv(t(x))`` returns ``x`` itself (exact, and keeps the autograd graph).
    """

    bijective = False

    def __init__(self, cache_size=0):
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 1:
            self._cached_x_y = None, None
        elif cache_size != 0:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    def __getstate__(self):
        # The inverse points back at self; pickling it would recurse.
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform; ``t.inv.inv is t``."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        """Sign of the Jacobian determinant (for bijective univariate transforms)."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log|dy/dx|`` given an input and its output."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        """Output shape for an input of ``shape`` (unchanged by default)."""
        return shape

    def inverse_shape(self, shape):
        """Input shape for an output of ``shape`` (unchanged by default)."""
        return shape


class _InverseTransform(Transform):
    """The inverse of one transform; reached through ``Transform.inv``."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __repr__(self):
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x):
        # The forward transform owns the cache, so both directions share it.
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


def _composed_event_dim(first, others):
    # Walk a chain of (constraint_in, constraint_out) pairs tracking the event rank,
    # which can only grow to the largest rank any part needs.
    event_dim = first
    for c_in, c_out in others:
        event_dim = max(event_dim + c_out.event_dim - c_in.event_dim, c_out.event_dim)
    return event_dim


class ComposeTransform(Transform):
    """Applies ``parts`` in order; each part does its own caching."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = _composed_event_dim(
            self.parts[-1].codomain.event_dim,
            [(p.codomain, p.domain) for p in reversed(self.parts)],
        )
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = _composed_event_dim(
            self.parts[0].domain.event_dim, [(p.domain, p.codomain) for p in self.parts]
        )
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        if self._inv is None:
            self._inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv._inv = self
        return self._inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return torch.zeros_like(x)
        # Intermediate values; free when the parts cache.
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x_in, y_out in zip(self.parts, xs[:-1], xs[1:]):
            ladj = part.log_abs_det_jacobian(x_in, y_out)
            terms.append(_sum_rightmost(ladj, event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{self.__class__.__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Treats ``reinterpreted_batch_ndims`` rightmost batch dims of ``base_transform``
    as event dims: values are unchanged, the log-Jacobian is summed over them."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(
            self.base_transform.codomain, self.reinterpreted_batch_ndims
        )

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}({self.base_transform!r}, "
            f"{self.reinterpreted_batch_ndims})"
        )

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


def _replace_event_shape(shape, old, new):
    # (*batch, *old) -> (*batch, *new), checking the trailing part really is `old`.
    if len(shape) < len(old):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(old)
    if shape[cut:] != old:
        raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {old}")
    return shape[:cut] + new


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dims to ``out_shape`` (unit Jacobian)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = torch.Size(in_shape)
        self.out_shape = torch.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y):
        batch_shape = y.shape[: y.dim() - len(self.out_shape)]
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[: x.dim() - len(self.in_shape)])

    def forward_shape(self, shape):
        return _replace_event_shape(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return _replace_event_shape(shape, self.out_shape, self.in_shape)


class ExpTransform(Transform):
    r"""``y = exp(x)``.

    >>> ExpTransform()(torchlite.tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183])
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


def _param_shape(param):
    return getattr(param, "shape", ())


class PowerTransform(Transform):
    r"""``y = x ** exponent`` on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return self.exponent.eq(other.exponent).all().item()

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, _param_shape(self.exponent))

    inverse_shape = forward_shape


def _clamp_to_open_unit_interval(p):
    # Keep probabilities away from 0 and 1 so their logs stay finite.
    finfo = torch.finfo(p.dtype)
    return torch.clamp(p, min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    r"""``y = sigmoid(x)``, inverse ``x = logit(y)``."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    def _call(self, x):
        return _clamp_to_open_unit_interval(torch.sigmoid(x))

    def _inverse(self, y):
        y = _clamp_to_open_unit_interval(y)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(Transform):
    r"""``y = log(1 + exp(x))`` (linear past x > 20, as F.softplus)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(Transform):
    r"""``y = tanh(x)``; the inverse does not clamp at +-1 (use ``cache_size=1``)."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return torch.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) written without cancellation for large |x|.
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(Transform):
    r"""``y = |x|`` (not bijective; the inverse picks the positive root)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


def _param_equal(a, b):
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    return bool((a == b).all().item())


class AffineTransform(Transform):
    r"""``y = loc + scale * x`` elementwise; ``event_dim`` is the rank of one event."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        return (
            isinstance(other, AffineTransform)
            and _param_equal(self.loc, other.loc)
            and _param_equal(self.scale, other.scale)
        )

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Number):
            scale = float(self.scale)
            return 1 if scale > 0 else -1 if scale < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = x.shape
        if isinstance(self.scale, numbers.Number):
            result = torch.full_like(x, math.log(abs(self.scale)))
        else:
            result = torch.abs(self.scale).log()
        if self.event_dim:
            result = result.view(result.size()[: -self.event_dim] + (-1,)).sum(-1)
            shape = shape[: -self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, _param_shape(self.loc), _param_shape(self.scale))

    inverse_shape = forward_shape


def _check_event_ndim(shape, ndim):
    if len(shape) < ndim:
        raise ValueError("Too few dimensions on input")


class CorrCholeskyTransform(Transform):
    r"""Maps a real vector of length ``D*(D-1)/2`` to the Cholesky factor of a D x D
    correlation matrix: the vector fills the strict lower triangle row by row, each row
    goes through tanh and a signed stick-breaking so that it has unit norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = torch.finfo(x.dtype).eps
        r = vec_to_tril_matrix(torch.tanh(x).clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # Row i, column j: r_ij * sqrt(prod_{k<j} (1 - r_ik^2)); the diagonal closes the
        # row to unit norm.
        remaining = (1 - r**2).sqrt().cumprod(-1)
        r = r + torch.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * F.pad(remaining[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        # Undo the stick-breaking: divide by the norm left before each entry, then atanh.
        left = F.pad((1 - torch.cumsum(y * y, dim=-1))[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # Domain and codomain differ in dimension: this is the log-det of x -> the
        # strict lower triangle of y.  diag=-2 picks the norms left before each entry.
        left = 1 - (y * y).cumsum(dim=-1)
        stick_breaking_logdet = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        _check_event_ndim(shape, 1)
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        _check_event_ndim(shape, 2)
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)


class SoftmaxTransform(Transform):
    r"""Real vectors to the simplex by ``exp`` and normalising (not bijective)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        _check_event_ndim(shape, 1)
        return shape

    inverse_shape = forward_shape


def _stick_breaking_offset(x):
    # log(K - k) for k = 0..K-1 centres each logit so that x = 0 maps to the uniform point.
    return (x.shape[-1] + 1 - x.new_ones(x.shape[-1]).cumsum(-1)).log()


class StickBreakingTransform(Transform):
    """Real vectors of length K to the simplex of K + 1 entries by stick-breaking:
    each sigmoid takes a share of what is left of the stick (bijective).

    >>> StickBreakingTransform()(torchlite.zeros(2))
    tensor([0.3333, 0.3333, 0.3333])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        z = _clamp_to_open_unit_interval(torch.sigmoid(x - _stick_breaking_offset(x)))
        left = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(left, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        # What is left of the stick; clamped positive since rounding can push it to 0.
        left = torch.clamp(1 - y_crop.cumsum(-1), min=torch.finfo(y.dtype).tiny)
        return y_crop.log() - left.log() + _stick_breaking_offset(y_crop)

    def log_abs_det_jacobian(self, x, y):
        x = x - _stick_breaking_offset(x)
        # 1 - sigmoid(x) = exp(-x) * sigmoid(x)
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        _check_event_ndim(shape, 1)
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        _check_event_ndim(shape, 1)
        return shape[:-1] + (shape[-1] - 1,)


def _map_diagonal(m, fn):
    # Strict lower triangle kept, diagonal replaced by fn(diagonal).
    return m.tril(-1) + fn(m.diagonal(dim1=-2, dim2=-1)).diag_embed()


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with a positive (exp) diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return _map_diagonal(x, torch.exp)

    def _inverse(self, y):
        return _map_diagonal(y, torch.log)


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive-definite ones: ``L @ L.mT`` of LowerCholeskyTransform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(torch.linalg.cholesky(y))


def _check_tseq(tseq, cache_size):
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")
    if cache_size:
        tseq = [t.with_cache(cache_size) for t in tseq]
    return list(tseq)


def _check_split(value, name, dim, length, what):
    if not (-value.dim() <= dim < value.dim()):
        raise AssertionError(f"dim {dim} out of range for {name} with {value.dim()} dimensions")
    if value.size(dim) != length:
        raise AssertionError(f"{name}.size({dim}) = {value.size(dim)} must equal {what} {length}")


class CatTransform(Transform):
    """Applies ``tseq[i]`` to the i-th block (``lengths[i]`` long) of ``dim``, as torch.cat
    splits it."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        transforms = _check_tseq(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = transforms
        self.lengths = [1] * len(transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})"
            )
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _blocks(self, value, name):
        _check_split(value, name, self.dim, self.length, "length")
        start = 0
        for length in self.lengths:
            yield value.narrow(self.dim, start, length)
            start = start + length

    def _call(self, x):
        ys = [t(xb) for t, xb in zip(self.transforms, self._blocks(x, "x"))]
        return torch.cat(ys, dim=self.dim)

    def _inverse(self, y):
        xs = [t.inv(yb) for t, yb in zip(self.transforms, self._blocks(y, "y"))]
        return torch.cat(xs, dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = []
        blocks = zip(self.transforms, self._blocks(x, "x"), self._blocks(y, "y"))
        for t, xb, yb in blocks:
            terms.append(_sum_rightmost(t.log_abs_det_jacobian(xb, yb), self.event_dim - t.event_dim))
        # If `dim` is a batch dim the per-block terms line up along it; if it lies inside
        # the event they were all summed over it and just add up.
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim = dim + self.event_dim
        if dim < 0:
            return torch.cat(terms, dim=dim)
        return sum(terms)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies ``tseq[i]`` to slice i along ``dim``, as torch.stack builds it."""

    def __init__(self, tseq, dim=0, cache_size=0):
        transforms = _check_tseq(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.transforms = transforms
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z, name):
        _check_split(z, name, self.dim, len(self.transforms), "len(transforms)")
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        ys = [t(xs) for xs, t in zip(self._slice(x, "x"), self.transforms)]
        return torch.stack(ys, dim=self.dim)

    def _inverse(self, y):
        xs = [t.inv(ys) for ys, t in zip(self._slice(y, "y"), self.transforms)]
        return torch.stack(xs, dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        slices = zip(self._slice(x, "x"), self._slice(y, "y"), self.transforms)
        return torch.stack([t.log_abs_det_jacobian(xs, ys) for xs, ys, t in slices], dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)`` onto the unit interval (e.g. to build copulas)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

"""Numerical calculus and binning composed from other operators: trapz, gradient, histogram,
histogramdd.

gradient is built from differentiable slicing and arithmetic (so it has gradients itself);
the histograms count with bucketize and index_add, like NumPy's.
"""

import builtins
import collections
import numbers

from torchlite import _C
from torchlite._shape_compositions import _wrap_dim
from torchlite._shape_functions import _write_out

__all__ = ["gradient", "histogram", "histogramdd", "trapz"]

Tensor = _C.Tensor


def trapz(y, x=None, *, dx=1, dim=-1):
    """trapz(y, x=None, *, dim=-1) or trapz(y, *, dx=1, dim=-1): an alias of trapezoid.

    >>> torchlite.trapz(torchlite.tensor([1., 3.]), dx=2.)
    tensor(4.)
    """
    if x is not None:
        if dx != 1:
            raise TypeError("trapz() takes either x or dx, not both")
        return _C.trapezoid(y, x, dim=dim)
    return _C.trapezoid(y, dx=dx, dim=dim)


# ---- gradient -----------------------------------------------------------------------------------

def _gradient_dims(input, spacing, dim):
    """(dims, spacing per dim): spacing is a number or a 1-d coordinate tensor for each dim."""
    if dim is None:
        dims = list(builtins.range(input.dim()))
        what = "since dim argument was not given, but got a list of length"
    else:
        dims = [dim] if isinstance(dim, builtins.int) else list(dim)
        dims = [_wrap_dim(d, input.dim()) for d in dims]
        if len(set(dims)) != len(dims):
            raise RuntimeError("torch.gradient expected each dim to appear once")
        what = "but got a list of length"
    if isinstance(spacing, (numbers.Number, Tensor)) and not (isinstance(spacing, Tensor) and spacing.dim() > 0):
        spacing = [spacing.item() if isinstance(spacing, Tensor) else spacing] * len(dims)
    elif isinstance(spacing, Tensor):
        raise TypeError("gradient(): spacing must be a number, a list of numbers or a list of 1-d tensors, "
                        "not a tensor")
    spacing = list(spacing)
    if len(spacing) != len(dims):
        expected = f"'self.dim() = {input.dim()}'" if dim is None else f"'len(dim) = {len(dims)}'"
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                           f"to {expected}, {what} {len(spacing)}")
    for d, s in zip(dims, spacing):
        if isinstance(s, Tensor) and (s.dim() != 1 or s.shape[0] != input.shape[d]):
            raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and to have the same "
                               f"number of elements as dimension {d} of the input, but got shape "
                               f"{list(s.shape)}")
    return dims, spacing


def _gradient_along(f, d, h, edge_order):
    """df/dx along dim d of f: central differences inside, one-sided ones (of edge_order) at the ends."""
    n = f.shape[d]

    def part(start, length):
        return f.narrow(d, start, length)

    if isinstance(h, Tensor):
        shape = [1] * f.dim()
        shape[d] = -1
        steps = (h[1:] - h[:-1]).reshape(shape)  # x[i+1] - x[i]
        hl, hr = steps.narrow(d, 0, n - 2), steps.narrow(d, 1, n - 2)
        # the second-order formula for unequal steps hl (left) and hr (right)
        inner = (hl * hl * part(2, n - 2) - hr * hr * part(0, n - 2) + (hr * hr - hl * hl) * part(1, n - 2)) / (
            hl * hr * (hl + hr))
        h0, h1 = steps.narrow(d, 0, 1), steps.narrow(d, n - 2, 1)
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / h0
            last = (part(n - 1, 1) - part(n - 2, 1)) / h1
        else:
            a0, a1 = h0, steps.narrow(d, 1, 1)
            first = (-(2 * a0 + a1) / (a0 * (a0 + a1)) * part(0, 1) + (a0 + a1) / (a0 * a1) * part(1, 1)
                     - a0 / (a1 * (a0 + a1)) * part(2, 1))
            b0, b1 = steps.narrow(d, n - 3, 1), h1
            last = (b1 / (b0 * (b0 + b1)) * part(n - 3, 1) - (b0 + b1) / (b0 * b1) * part(n - 2, 1)
                    + (2 * b1 + b0) / (b1 * (b0 + b1)) * part(n - 1, 1))
    else:
        inner = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / h
            last = (part(n - 1, 1) - part(n - 2, 1)) / h
        else:
            first = (-1.5 * part(0, 1) + 2 * part(1, 1) - 0.5 * part(2, 1)) / h
            last = (0.5 * part(n - 3, 1) - 2 * part(n - 2, 1) + 1.5 * part(n - 1, 1)) / h
    return _C.cat([first, inner, last], d)


def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """gradient(input, *, spacing=None, dim=None, edge_order=1): the derivative of the sampled
    function input along each dim in `dim` (all by default), one tensor per dim: central
    differences inside, one-sided ones of edge_order (1 or 2) at the ends. spacing is the sample
    distance (a number, one per dim; None is 1) or the sample coordinates (a 1-d tensor per dim).

    >>> torchlite.gradient(torchlite.tensor([1., 2., 4.]))
    (tensor([1.0000, 1.5000, 2.0000]),)
    """
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    spacing = 1 if spacing is None else spacing
    dims, spacing = _gradient_dims(input, spacing, dim)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    if not input.dtype.is_floating_point:
        input = input.to(_C.get_default_dtype())
    return tuple(_gradient_along(input, d, h.to(input.dtype) if isinstance(h, Tensor) else h, edge_order)
                 for d, h in zip(dims, spacing))


# ---- histograms ---------------------------------------------------------------------------------

histogram_result = collections.namedtuple("histogram", ["hist", "bin_edges"])
histogramdd_result = collections.namedtuple("histogramdd", ["hist", "bin_edges"])


def _bin_edges(sample, bins, rng, d, name):
    """The bin edges of column d of sample: the given tensor, or bins equal-width bins over rng
    (or over the column's min..max; widened by 0.5 each way when that is one value)."""
    if isinstance(bins, Tensor):
        if bins.dtype != sample.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {sample.dtype} and bins for dimension {d} with dtype {bins.dtype}")
        if bins.dim() != 1 or bins.numel() < 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension and at least 1 element, "
                               f"but got {bins.dim()} dimensions and {bins.numel()} elements for dimension {d}")
        return bins
    if bins <= 0:
        raise RuntimeError(f"{name}(): bins must be > 0, but got {bins} for dimension {d}")
    if rng is not None:
        lo, hi = builtins.float(rng[0]), builtins.float(rng[1])
    elif sample.shape[0]:
        lo, hi = sample[:, d].min().item(), sample[:, d].max().item()
    else:
        lo, hi = 0.0, 1.0  # PyTorch's range for no values
    if not (abs(lo) != float("inf") and abs(hi) != float("inf") and lo == lo and hi == hi):
        raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{_num(lo)}, {_num(hi)}] is not finite")
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {_num(lo)} max {_num(hi)} for "
                           f"dimension {d}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _C.linspace(lo, hi, bins + 1, dtype=sample.dtype, device=sample.device)


def _num(x):
    return builtins.int(x) if x == x and abs(x) != float("inf") and x == builtins.int(x) else x


def _histogramdd(name, input, bins, range, weight, density):
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"histogramdd" not implemented for \'{input.dtype}\'')
    if input.dim() < 1:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 1 dimension")
    k = input.shape[-1]
    sample = input.reshape(-1, k)
    per_dim = bins if isinstance(bins, (list, tuple)) else [bins] * k
    if len(per_dim) != k:
        raise RuntimeError(f"torch.histogramdd: expected {k} sequences of bin edges for each of the {k} dimensions "
                           f"of the input, but got {len(per_dim)}")
    if range is not None and len(range) != 2 * k:
        raise RuntimeError(f"torch.histogramdd: for a {k}-dimensional histogram range should have {2 * k} elements, "
                           f"but got {len(range)}")
    edges = [_bin_edges(sample, b, None if range is None else range[2 * d:2 * d + 2], d, name)
             for d, b in enumerate(per_dim)]
    counts = [e.numel() - 1 for e in edges]
    # a flat bin number per sample; samples outside the edges (or NaN) are dropped
    flat = _C.zeros(sample.shape[0], dtype=_C.int64, device=input.device)
    inside = _C.ones(sample.shape[0], dtype=_C.bool, device=input.device)
    for d, e in enumerate(edges):
        x = sample[:, d]
        idx = _C.bucketize(x, e, right=True) - 1
        idx = idx.where(x != e[-1], _C.full_like(idx, counts[d] - 1))  # the last bin is closed on the right
        inside = inside & (x >= e[0]) & (x <= e[-1])
        flat = flat * counts[d] + idx.clamp(0, builtins.max(counts[d] - 1, 0))
    w = _C.ones(sample.shape[0], dtype=input.dtype, device=input.device) if weight is None else weight.reshape(-1)
    w = w.where(inside, _C.zeros_like(w))
    total = 1
    for c in counts:
        total *= c
    hist = _C.zeros(total, dtype=input.dtype, device=input.device).index_add(0, flat, w).reshape(counts)
    if density:
        volume = _C.ones(counts, dtype=input.dtype, device=input.device)
        for d, e in enumerate(edges):
            shape = [1] * k
            shape[d] = -1
            volume = volume * (e[1:] - e[:-1]).reshape(shape)
        hist = hist / (hist.sum() * volume)
    return hist, edges


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """histogram(input, bins=100, *, range=None, weight=None, density=False, out=None): the histogram
    of input's values as (hist, bin_edges): bins equal-width bins over range (default: the values'
    min..max), or the given bin edges (a 1-d tensor); each value counts weight (default 1); with
    density=True hist is normalized to integrate to 1.

    >>> torchlite.histogram(torchlite.tensor([1., 2., 1.]), 2).hist
    tensor([2., 1.])
    """
    if weight is not None and weight.shape != input.shape:
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                           "input tensor excluding its innermost dimension")
    hist, (edges,) = _histogramdd("torch.histogram", input.reshape(-1, 1), [bins], range, weight, density)
    if out is not None:
        hist_out, edges_out = out
        return histogram_result(_write_out(hist, hist_out), _write_out(edges, edges_out))
    return histogram_result(hist, edges)


def histogramdd(input, bins, *, range=None, weight=None, density=False, out=None):
    """histogramdd(input, bins, *, range=None, weight=None, density=False, out=None): the
    D-dimensional histogram of the rows of input (..., D): bins is a count for all dims, a count
    per dim, or a bin-edge tensor per dim; range holds (min, max) per dim, flattened.

    >>> torchlite.histogramdd(torchlite.tensor([[0., 0.], [1., 1.]]), [2, 2]).hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    if weight is not None and weight.shape != input.shape[:-1]:
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                           "input tensor excluding its innermost dimension")
    hist, edges = _histogramdd("torch.histogramdd", input, bins, range, weight, density)
    return histogramdd_result(hist, edges)


def _histogram(self, bins, *, range=None, weight=None, density=False):
    return histogram(self, bins, range=range, weight=weight, density=density)


Tensor.histogram = _histogram

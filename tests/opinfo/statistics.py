"""Registry entries: NaN-ignoring reductions, count_nonzero, aminmax, cummax/cummin,
logcumsumexp, nanmedian, quantile/nanquantile, diff, trapezoid, cov/corrcoef, isclose/allclose/
equal, searchsorted/bucketize, histc, bincount, unique/unique_consecutive."""

import numpy as np

import torchlite as tl
from opinfo.core import FLOATING, OpInfo, SampleInput, rand


def _axis(dim):
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


def _with_nans(a, every=4):
    """a copy of a float array with every `every`-th element NaN (integers are returned as they are)."""
    if a.dtype.kind != "f":
        return a
    a = a.copy()
    a.reshape(-1)[1::every] = np.nan
    return a


# ---- NaN-ignoring reductions, count_nonzero, aminmax --------------------------------------------

def _nan_reduce_samples(dtype, rng):
    x = lambda s: _with_nans(rand(s, dtype, rng))
    yield SampleInput((x((2, 3)),))
    yield SampleInput((x((2, 3, 2)), 1))
    yield SampleInput((x((2, 3)), -1, True))
    yield SampleInput((x((2, 3, 2)), (0, 2)))
    yield SampleInput((x(()),))


def _np_nan_reduce(fn):
    def ref(x, dim=None, keepdim=False):
        return fn(x, axis=_axis(dim), keepdims=keepdim)
    return ref


def _count_nonzero_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng, -1, 2) * (rand(s, dtype, rng, -1, 2) != 0)
    yield SampleInput((x((3, 4)),))
    yield SampleInput((x((3, 4)), 1))
    yield SampleInput((x((2, 3, 4)), (0, 2)))
    yield SampleInput((x((0, 3)), 0))


def _aminmax_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng)
    yield SampleInput((x((2, 3)),))
    yield SampleInput((x((2, 3, 2)),), {"dim": 1})
    yield SampleInput((x((2, 3)),), {"dim": 0, "keepdim": True})
    yield SampleInput((x((2, 3)),), {"keepdim": True})


def _np_aminmax(x, dim=None, keepdim=False):
    if dim is None and keepdim:
        return np.amin(x, keepdims=True), np.amax(x, keepdims=True)
    return np.amin(x, axis=dim, keepdims=keepdim), np.amax(x, axis=dim, keepdims=keepdim)


# ---- scans ---------------------------------------------------------------------------------------

def _scan_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng)
    yield SampleInput((x((3, 4)), 0))
    yield SampleInput((x((3, 4)), 1))
    yield SampleInput((x((2, 3, 4)), -2))
    yield SampleInput((x(()), 0))
    yield SampleInput((x((0, 3)), 1), grad=False)


def _cum_extreme_samples(dtype, rng):
    # Not the empty sample: PyTorch's gradient for it is a tensor that requires grad.
    yield from (s for s in _scan_samples(dtype, rng) if s.grad)
    ties = rand((3, 6), dtype, rng, -2, 2).round()
    yield SampleInput((ties, 1), grad=False)  # ties move the index forward
    if dtype.is_floating_point:
        yield SampleInput((_with_nans(rand((2, 6), dtype, rng), 5), 1), grad=False)


def _np_cum_extreme(is_max):
    def ref(x, dim):
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        xs = np.moveaxis(x, dim, -1)
        vals, idx = np.empty_like(xs), np.zeros(xs.shape, np.int64)
        for pos in np.ndindex(xs.shape[:-1]):
            row = xs[pos]
            for i, v in enumerate(row):
                best = vals[pos][i - 1] if i else v
                take = i == 0 or np.isnan(v) or (not np.isnan(best) and (v >= best if is_max else v <= best))
                vals[pos][i] = v if take else best
                idx[pos][i] = i if take else idx[pos][i - 1]
        return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
    return ref


def _logcumsumexp_samples(dtype, rng):
    yield from _scan_samples(dtype, rng)
    yield SampleInput((rand((2, 5), dtype, rng, -300, 300), 1), grad=False)  # exp would overflow
    yield SampleInput((np.array([-np.inf, -np.inf, 0.0, np.inf], dtype=rand((1,), dtype).dtype), 0), grad=False)


def _np_logcumsumexp(x, dim):
    return x.copy() if x.ndim == 0 else np.logaddexp.accumulate(x, axis=dim)


# ---- nanmedian and quantiles ---------------------------------------------------------------------

def _nanmedian_samples(dtype, rng):
    x = lambda s: _with_nans(rand(s, dtype, rng), 4)  # no column all NaN
    yield SampleInput((x((2, 5)),))
    yield SampleInput((x((3, 5)), 1))
    yield SampleInput((x((4, 3)), 0, True))
    if dtype.is_floating_point:
        all_nan = rand((2, 3), dtype, rng)
        all_nan[0] = np.nan
        yield SampleInput((all_nan, 1), grad=False)


def _np_nanmedian(x, dim=None, keepdim=False):
    def row_median(row):
        order = [i for i in np.argsort(row, kind="stable") if not np.isnan(row[i])]
        if not order:
            return row[0], 0
        k = order[(len(order) - 1) // 2]
        return row[k], k
    if dim is None:
        return np.asarray(row_median(x.reshape(-1))[0])
    xs = np.moveaxis(x, dim, -1)
    vals, idx = np.empty(xs.shape[:-1], x.dtype), np.empty(xs.shape[:-1], np.int64)
    for pos in np.ndindex(xs.shape[:-1]):
        vals[pos], idx[pos] = row_median(xs[pos])
    if keepdim:
        vals, idx = np.expand_dims(vals, dim), np.expand_dims(idx, dim)
    return vals, idx


def _quantile_samples(nans):
    def samples(dtype, rng):
        x = lambda s: _with_nans(rand(s, dtype, rng), 3) if nans else rand(s, dtype, rng)
        q = lambda s: rand(s, dtype, rng, 0, 1)
        yield SampleInput((x((3, 5)), 0.3))
        yield SampleInput((x((3, 5)), q((4,)), 1))
        yield SampleInput((x((3, 5)), q(()), 0, True))
        yield SampleInput((x((2, 4)), q((2,))), {"keepdim": True})
        yield SampleInput((x((3, 5)), np.array([0.0, 1.0], x((1,)).dtype), 1))
        for method in ("lower", "higher", "nearest", "midpoint"):
            yield SampleInput((x((3, 5)), q((3,)), 1), {"interpolation": method})
        if not nans:
            yield SampleInput((_with_nans(rand((3, 5), dtype, rng), 7), 0.5, 1), grad=False)
    return samples


def _np_quantile(fn):
    def ref(x, q, dim=None, keepdim=False, interpolation="linear"):
        return np.asarray(fn(x, q, axis=dim, keepdims=keepdim, method=interpolation)).astype(x.dtype)
    return ref


# ---- diff and the trapezoid rule ------------------------------------------------------------------

def _diff_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng)
    yield SampleInput((x((5,)),))
    yield SampleInput((x((3, 4)), 2, 0))
    yield SampleInput((x((3, 4)), 1, -1, x((3, 1)), x((3, 2))))
    yield SampleInput((x((3, 4)), 5, 1))  # more differences than values: empty
    yield SampleInput((x((2, 3)), 0))


def _np_diff(x, n=1, dim=-1, prepend=None, append=None):
    kw = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    return np.diff(x, n, axis=dim, **kw)


def _trapezoid_samples(dtype, rng):
    y = lambda s: rand(s, dtype, rng)
    yield SampleInput((y((5,)),))
    yield SampleInput((y((3, 4)),), {"dx": 0.5})
    yield SampleInput((y((3, 4)), np.sort(rand((3,), dtype, rng))), {"dim": 0})
    yield SampleInput((y((3, 4)), np.sort(rand((3, 4), dtype, rng), axis=1)))
    yield SampleInput((y((3, 0)),), grad=False)


def _np_trapezoid(y, x=None, *, dx=1, dim=-1):
    return np.asarray(np.trapezoid(y, x, dx=dx, axis=dim))


def _np_cumulative_trapezoid(y, x=None, *, dx=1, dim=-1):
    y = np.moveaxis(y, dim, -1)
    if x is not None:
        x = np.moveaxis(x, dim, -1) if x.ndim > 1 else x
        dx = np.diff(x, axis=-1)
    areas = (y[..., 1:] + y[..., :-1]) * dx / 2
    return np.moveaxis(np.cumsum(areas, axis=-1), -1, dim)


# ---- cov and corrcoef -----------------------------------------------------------------------------

def _cov_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng)
    yield SampleInput((x((3, 6)),))
    yield SampleInput((x((6,)),))
    yield SampleInput((x((2, 6)),), {"correction": 0})
    yield SampleInput((x((2, 5)),), {"fweights": np.array([1, 2, 0, 3, 1])})
    yield SampleInput((x((2, 5)),), {"aweights": rand((5,), dtype, rng, 0.5, 2), "correction": 2})
    yield SampleInput((x((2, 5)),), {"fweights": np.array([2, 1, 1, 3, 1]), "aweights": rand((5,), dtype, rng, 0.5, 2)})


def _np_cov(x, correction=1, fweights=None, aweights=None):
    return np.cov(x, ddof=correction, fweights=fweights, aweights=aweights)


def _corrcoef_samples(dtype, rng):
    yield SampleInput((rand((3, 6), dtype, rng),))
    yield SampleInput((rand((6,), dtype, rng),))


# ---- closeness ------------------------------------------------------------------------------------

def _close_samples(dtype, rng):
    a = rand((4, 5), dtype, rng)
    b = a.copy()
    if a.dtype.kind == "f":
        b.reshape(-1)[::3] += 1e-6
        b.reshape(-1)[1::3] += 1e-3
        a.reshape(-1)[2::7] = np.nan
        b.reshape(-1)[2::7] = np.nan
    else:
        b.reshape(-1)[::3] += 1
    yield SampleInput((a, b))
    yield SampleInput((a, b), {"rtol": 1e-3, "atol": 1e-3})
    yield SampleInput((a, b), {"equal_nan": True})
    yield SampleInput((a, b), {"rtol": 0.0, "atol": 0.0})
    yield SampleInput((a, a.copy()), {"equal_nan": True})


def _equal_samples(dtype, rng):
    a = rand((3, 4), dtype, rng)
    yield SampleInput((a, a.copy()))
    b = a.copy()
    b[1, 2] += 1
    yield SampleInput((a, b))
    yield SampleInput((a, a[:, :2].copy()))


def _np_equal(a, b):
    return a.shape == b.shape and bool(np.array_equal(a, b))


# ---- searching and counting -----------------------------------------------------------------------

def _searchsorted_samples(dtype, rng):
    seq = np.sort(rand((6,), dtype, rng))
    vals = rand((2, 4), dtype, rng)
    vals[0, :2] = seq[1:3]  # exact hits: left and right differ
    yield SampleInput((seq, vals))
    yield SampleInput((seq, vals), {"right": True})
    yield SampleInput((seq, vals), {"side": "right", "out_int32": True})
    yield SampleInput((np.sort(rand((2, 5), dtype, rng), axis=1), vals))
    unsorted = rand((6,), dtype, rng)
    yield SampleInput((unsorted, vals), {"sorter": np.argsort(unsorted, kind="stable")})
    yield SampleInput((seq, rand((0,), dtype, rng)))


def _np_searchsorted(seq, v, *, out_int32=False, right=False, side=None, sorter=None):
    side = side or ("right" if right else "left")
    if seq.ndim == 1:
        return np.searchsorted(seq, v, side=side, sorter=sorter)
    out = np.empty(v.shape, np.int64)
    for pos in np.ndindex(v.shape[:-1]):
        out[pos] = np.searchsorted(seq[pos], v[pos], side=side)
    return out


def _bucketize_samples(dtype, rng):
    bounds = np.sort(rand((5,), dtype, rng))
    x = rand((3, 4), dtype, rng)
    x[0, :2] = bounds[:2]
    yield SampleInput((x, bounds))
    yield SampleInput((x, bounds), {"right": True, "out_int32": True})


def _np_bucketize(x, bounds, *, out_int32=False, right=False):
    return np.searchsorted(bounds, x, side="right" if right else "left")


def _histc_samples(dtype, rng):
    x = lambda s: rand(s, dtype, rng)
    yield SampleInput((x((20,)),))
    yield SampleInput((x((4, 5)), 7))
    yield SampleInput((x((30,)), 4, -1, 1))
    yield SampleInput((np.full((3,), 2.0, x((1,)).dtype), 4))  # one value: the range widens by 1
    yield SampleInput((x((0,)), 3))


def _np_histc(x, bins=100, min=0, max=0):
    lo, hi = min, max
    if lo == hi and x.size:
        lo, hi = x.min(), x.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(x, bins, range=(lo, hi))[0].astype(x.dtype)


def _bincount_samples(dtype, rng):
    idx = rng.integers(0, 6, size=12)
    yield SampleInput((idx,))
    yield SampleInput((idx,), {"minlength": 10})
    yield SampleInput((idx, rng.uniform(0, 1, 12)))
    yield SampleInput((np.zeros(0, np.int64),), {"minlength": 3})


def _np_bincount(x, weights=None, minlength=0):
    return np.bincount(x, weights, minlength)


# ---- unique -----------------------------------------------------------------------------------------

def _unique_samples(dtype, rng):
    x = rand((4, 5), dtype, rng, -2, 3).round()
    yield SampleInput((x,), noncontiguous=True)
    yield SampleInput((x,), {"return_inverse": True, "return_counts": True})
    yield SampleInput((x,), {"return_counts": True})
    rows = np.concatenate([x[:2], x[:1], x[2:]])
    yield SampleInput((rows,), {"dim": 0, "return_inverse": True, "return_counts": True})
    yield SampleInput((rows,), {"dim": 1, "return_inverse": True})
    yield SampleInput((x[:0],))


def _np_unique(x, sorted=True, return_inverse=False, return_counts=False, dim=None):
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim)
    inverse = inverse.reshape(x.shape if dim is None else (-1,))
    extra = ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return (values, *extra) if extra else values


def _unique_consecutive_samples(dtype, rng):
    x = rand((12,), dtype, rng, 0, 3).round()
    yield SampleInput((x,))
    yield SampleInput((x.reshape(3, 4),), {"return_inverse": True, "return_counts": True})
    rows = np.repeat(rand((3, 2), dtype, rng).round(), [2, 1, 3], axis=0)
    yield SampleInput((rows,), {"dim": 0, "return_inverse": True, "return_counts": True})


def _np_unique_consecutive(x, return_inverse=False, return_counts=False, dim=None):
    rows = x.reshape(-1, 1) if dim is None else np.moveaxis(x, dim, 0).reshape(x.shape[dim], -1)
    starts = [i for i in range(len(rows)) if i == 0 or not np.array_equal(rows[i], rows[i - 1])]
    counts = np.diff(starts + [len(rows)])
    inverse = np.repeat(np.arange(len(starts)), counts)
    if dim is None:
        values, inverse = x.reshape(-1)[starts], inverse.reshape(x.shape)
    else:
        values = np.moveaxis(np.moveaxis(x, dim, 0)[starts], 0, dim)
    extra = ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return (values, *extra) if extra else values


INTS = (*FLOATING, tl.int64)

# aminmax, cummax, cummin: their out= forms (a pair of tensors) are tested in tests/test_statistics.py,
# as the generic out= test rebuilds one named tuple per result.

OPS = [
    OpInfo("nansum", _nan_reduce_samples, ref=_np_nan_reduce(np.nansum), dtypes=INTS, supports_out=True),
    OpInfo("nanmean", _nan_reduce_samples, ref=_np_nan_reduce(np.nanmean), supports_out=True),
    OpInfo("count_nonzero", _count_nonzero_samples, ref=lambda x, dim=None: np.count_nonzero(x, axis=_axis(dim)),
           dtypes=(*INTS, tl.bool), differentiable=False),
    OpInfo("aminmax", _aminmax_samples, ref=_np_aminmax, dtypes=INTS),
    OpInfo("cummax", _cum_extreme_samples, ref=_np_cum_extreme(True), dtypes=INTS),
    OpInfo("cummin", _cum_extreme_samples, ref=_np_cum_extreme(False), dtypes=INTS),
    OpInfo("logcumsumexp", _logcumsumexp_samples, ref=_np_logcumsumexp, supports_out=True),
    OpInfo("nanmedian", _nanmedian_samples, ref=_np_nanmedian, dtypes=INTS),
    OpInfo("quantile", _quantile_samples(False), ref=_np_quantile(np.quantile), supports_out=True, grad_args=(0,)),
    OpInfo("nanquantile", _quantile_samples(True), ref=_np_quantile(np.nanquantile), supports_out=True,
           grad_args=(0,)),
    OpInfo("diff", _diff_samples, ref=_np_diff, dtypes=(*INTS, tl.bool), supports_out=True),
    OpInfo("trapezoid", _trapezoid_samples, ref=_np_trapezoid, dtypes=INTS),
    OpInfo("cumulative_trapezoid", _trapezoid_samples, ref=_np_cumulative_trapezoid, dtypes=INTS),
    OpInfo("cov", _cov_samples, ref=_np_cov),
    OpInfo("corrcoef", _corrcoef_samples, ref=np.corrcoef),
    OpInfo("isclose", _close_samples, ref=np.isclose, dtypes=INTS, differentiable=False),
    OpInfo("allclose", _close_samples, ref=lambda *a, **k: bool(np.allclose(*a, **k)), dtypes=INTS,
           differentiable=False),
    OpInfo("equal", _equal_samples, ref=_np_equal, dtypes=(*INTS, tl.bool), differentiable=False),
    # nonfinite=False: a NaN among the boundaries leaves them unsorted, where the result is
    # unspecified (NumPy, PyTorch and torchlite each give another answer).
    OpInfo("searchsorted", _searchsorted_samples, ref=_np_searchsorted, dtypes=INTS, supports_out=True,
           differentiable=False, nonfinite=False),
    OpInfo("bucketize", _bucketize_samples, ref=_np_bucketize, dtypes=INTS, supports_out=True,
           differentiable=False, nonfinite=False),
    OpInfo("histc", _histc_samples, ref=_np_histc, supports_out=True, differentiable=False),
    OpInfo("bincount", _bincount_samples, ref=_np_bincount, dtypes=(tl.int64,), differentiable=False),
    OpInfo("_unique2", _unique_samples, op=lambda lib, *a, **k: lib.unique(*a, **k), ref=_np_unique,
           dtypes=INTS, covers=("unique_dim",), differentiable=False),
    OpInfo("unique_consecutive", _unique_consecutive_samples, ref=_np_unique_consecutive, dtypes=INTS,
           differentiable=False),
]

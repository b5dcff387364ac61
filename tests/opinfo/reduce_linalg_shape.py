"""Registry entries: matrix/vector products (addmm, baddbmm, addmv, mv, dot, vdot, outer/ger,
linear, bilinear, einsum), reductions and scans, shape ops."""

import dataclasses
import numpy as np

import torchlite as tl
from helpers import NP_DTYPE
from opinfo.core import FLOATING, OpInfo, SampleInput, rand

# ---- products ---------------------------------------------------------------------------------


def _np_addmm(self, m1, m2, beta=1, alpha=1):
    prod = alpha * (m1 @ m2)
    return prod if beta == 0 else beta * self + prod


def _addmm_samples(dtype, rng):
    yield SampleInput((rand((2, 4), dtype, rng), rand((2, 3), dtype, rng), rand((3, 4), dtype, rng)))
    yield SampleInput((rand((4,), dtype, rng), rand((2, 3), dtype, rng), rand((3, 4), dtype, rng)),
                      {"beta": 0.5, "alpha": 2.0})
    yield SampleInput((rand((1, 1), dtype, rng), rand((1, 3), dtype, rng), rand((3, 1), dtype, rng)), {"beta": 0})
    yield SampleInput((rand((2, 0), dtype, rng), rand((2, 3), dtype, rng), rand((3, 0), dtype, rng)), grad=False)


def _baddbmm_samples(dtype, rng):
    yield SampleInput((rand((2, 2, 4), dtype, rng), rand((2, 2, 3), dtype, rng), rand((2, 3, 4), dtype, rng)))
    yield SampleInput((rand((4,), dtype, rng), rand((2, 1, 3), dtype, rng), rand((2, 3, 4), dtype, rng)),
                      {"beta": -1.5, "alpha": 0.5})


def _addmv_samples(dtype, rng):
    yield SampleInput((rand((2,), dtype, rng), rand((2, 3), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((rand((1,), dtype, rng), rand((4, 3), dtype, rng), rand((3,), dtype, rng)),
                      {"beta": 2, "alpha": -1})
    yield SampleInput((rand((0,), dtype, rng), rand((0, 3), dtype, rng), rand((3,), dtype, rng)), grad=False)


def _mv_samples(dtype, rng):
    yield SampleInput((rand((2, 3), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((rand((1, 1), dtype, rng), rand((1,), dtype, rng)))
    yield SampleInput((rand((3, 0), dtype, rng), rand((0,), dtype, rng)), grad=False)


def _vec_pair_samples(dtype, rng):
    yield SampleInput((rand((4,), dtype, rng), rand((4,), dtype, rng)))
    yield SampleInput((rand((1,), dtype, rng), rand((1,), dtype, rng)))
    yield SampleInput((rand((0,), dtype, rng), rand((0,), dtype, rng)), grad=False)


def _outer_samples(dtype, rng):
    yield SampleInput((rand((3,), dtype, rng), rand((4,), dtype, rng)))
    yield SampleInput((rand((1,), dtype, rng), rand((0,), dtype, rng)), grad=False)


def _np_linear(x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


def _linear_samples(dtype, rng):
    yield SampleInput((rand((4, 5), dtype, rng), rand((3, 5), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((rand((2, 2, 5), dtype, rng), rand((3, 5), dtype, rng), rand((3,), dtype, rng)))
    yield SampleInput((rand((2, 5), dtype, rng), rand((3, 5), dtype, rng)))
    yield SampleInput((rand((5,), dtype, rng), rand((3, 5), dtype, rng), rand((1,), dtype, rng)))
    yield SampleInput((rand((0, 5), dtype, rng), rand((3, 5), dtype, rng), rand((3,), dtype, rng)), grad=False)


def _np_bilinear(x1, x2, w, b=None):
    y = np.einsum("...i,oij,...j->...o", x1, w, x2)
    return y if b is None else y + b


def _bilinear_samples(dtype, rng):
    yield SampleInput((rand((3, 2), dtype, rng), rand((3, 4), dtype, rng), rand((5, 2, 4), dtype, rng),
                       rand((5,), dtype, rng)))
    yield SampleInput((rand((2, 1, 2), dtype, rng), rand((2, 1, 3), dtype, rng), rand((2, 2, 3), dtype, rng)))


_EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),  # matmul
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),  # batched matmul
    ("ik,jk", [(2, 3), (4, 3)]),  # implicit output: a @ b.T
    ("ij->ji", [(2, 3)]),
    ("ii", [(3, 3)]),  # trace
    ("ii->i", [(3, 3)]),  # diagonal
    ("i,j->ij", [(3,), (2,)]),  # outer
    ("ijk->", [(2, 3, 2)]),
    ("ij->j", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),  # ellipsis with broadcasting
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 2), (2, 2)]),  # bilinear: three operands
    ("i, i ->", [(4,), (4,)]),  # dot, with spaces
    ("ij,ij->ij", [(2, 1), (2, 3)]),  # broadcasting size-1 dim
    ("i,j->", [(2,), (0,)]),
]


def _einsum_samples(dtype, rng):
    for eq, shapes in _EINSUM:
        yield SampleInput((eq, [rand(s, dtype, rng) for s in shapes]), grad=0 not in sum(shapes, ()))


def _np_einsum(eq, operands):
    # NumPy does not broadcast size-1 labelled dims: expand them first.
    sizes = {}
    terms = eq.replace(" ", "").split("->")[0].split(",")
    for t, a in zip(terms, operands):
        if "." not in t:
            for c, n in zip(t, a.shape):
                sizes[c] = max(sizes.get(c, 1), n) if n else 0
    ops = []
    for t, a in zip(terms, operands):
        ops.append(a if "." in t else np.broadcast_to(a, [sizes[c] for c in t]))
    return np.einsum(eq.replace(" ", ""), *ops)


# ---- reductions and scans -------------------------------------------------------------------


def _np_var(a, dim=None, unbiased=None, keepdim_=None, *, correction=1, keepdim=False, fn=np.var):
    if unbiased is not None:  # var(x, dim, unbiased, keepdim): the legacy positional form
        correction, keepdim = int(unbiased), bool(keepdim_)
    axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
    n = a.size if axis is None else int(np.prod([a.shape[d] for d in np.atleast_1d(axis)]))
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.sum((a - a.mean(axis=axis, keepdims=True)) ** 2, axis=axis, keepdims=keepdim) / max(n - correction, 0)
    return np.sqrt(v) if fn is np.std else v


def _var_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng),))
    yield SampleInput((rand((3, 4), dtype, rng), 1))
    yield SampleInput((rand((3, 4), dtype, rng), 0, False, True))  # dim, unbiased, keepdim (var.out)
    yield SampleInput((rand((2, 3, 4), dtype, rng), [0, 2]), {"correction": 0, "keepdim": True})
    yield SampleInput((rand((5,), dtype, rng),), {"correction": 2})
    yield SampleInput((rand((3, 1), dtype, rng), -1), {"keepdim": True}, grad=False)  # nan: 1 - correction
    yield SampleInput((rand((0, 3), dtype, rng), 1), grad=False)


def _var_mean_ref(fn):
    def ref(a, dim=None, unbiased=None, keepdim_=None, **kw):
        if unbiased is not None:  # the legacy positional (dim, unbiased, keepdim) form
            kw = {"correction": int(unbiased), "keepdim": bool(keepdim_)}
        axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
        return _np_var(a, dim, fn=fn, **kw), a.mean(axis=axis, keepdims=kw.get("keepdim", False))
    return ref


def _np_logsumexp(a, dim, keepdim=False):
    axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
    m = np.max(a, axis=axis, keepdims=True) if a.size else 0
    m = np.where(np.isinf(m), 0, m)
    r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return r if keepdim else np.squeeze(r, axis=axis)


def _logsumexp_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng), 1))
    yield SampleInput((rand((2, 3, 4), dtype, rng), [0, 2], True))
    yield SampleInput((rand((3, 4), dtype, rng, low=500, high=600), -1))  # would overflow exp
    yield SampleInput((np.array([[-np.inf, -np.inf], [1.0, np.inf]], dtype=rand((1,), dtype).dtype), 1), grad=False)
    yield SampleInput((rand((0, 4), dtype, rng), 0), grad=False)


def _np_vector_norm(a, ord=2, dim=None, keepdim=False, dtype=None):
    axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
    x = np.abs(a)
    if ord == np.inf:
        return x.max(axis=axis, keepdims=keepdim)
    if ord == -np.inf:
        return x.min(axis=axis, keepdims=keepdim)
    if ord == 0:
        return (x != 0).sum(axis=axis, keepdims=keepdim).astype(a.dtype)
    return (x ** ord).sum(axis=axis, keepdims=keepdim) ** (1.0 / ord)


def _vector_norm_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng),))
    yield SampleInput((rand((3, 4), dtype, rng), 1, [1]))
    yield SampleInput((rand((2, 3, 4), dtype, rng), np.inf, [0, 2], True))
    yield SampleInput((rand((3, 4), dtype, rng), -np.inf, [0]))
    yield SampleInput((rand((3, 4), dtype, rng), 3.5, [1]))
    yield SampleInput((rand((3, 4), dtype, rng), 0.5, None, True))
    yield SampleInput((rand((0, 4), dtype, rng), 2, [0]), grad=False)


def _np_cumsum(a, dim, dtype=None):
    return np.cumsum(a, axis=dim) if a.ndim else a.copy()


def _np_cumprod(a, dim, dtype=None):
    return np.cumprod(a, axis=dim) if a.ndim else a.copy()


def _scan_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng), 1))
    yield SampleInput((rand((3, 4), dtype, rng), 0))
    yield SampleInput((rand((2, 3, 4), dtype, rng), -2))
    yield SampleInput((rand((), dtype, rng), 0))
    yield SampleInput((rand((0, 3), dtype, rng), 0), grad=False)


def _cumprod_samples(dtype, rng):
    yield from _scan_samples(dtype, rng)
    zeros = rand((3, 5), dtype, rng)
    zeros[0, 1] = 0  # one zero
    zeros[1, 0] = zeros[1, 3] = 0  # two zeros
    # First-order gradients at zeros: tests/test_reduce_linalg_shape.py (gradgrad there is not exact).
    yield SampleInput((zeros, 1), noncontiguous=False, grad=False)


def _sort_key(a, dim, descending):
    """Stable: ties keep their order in both directions, and NaN sorts above everything. Descending
    is the ascending sort of the reversed array, reversed (negating would wrap unsigned values)."""
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    return a.shape[dim] - 1 - np.flip(np.argsort(np.flip(a, dim), axis=dim, kind="stable"), dim)


def _np_sort(a, dim=-1, descending=False, stable=None):
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    idx = _sort_key(a, dim, descending)
    return np.take_along_axis(a, idx, dim), idx


def _sort_samples(dtype, rng):
    yield SampleInput((rand((3, 5), dtype, rng),))
    yield SampleInput((rand((3, 5), dtype, rng), 0, True))
    yield SampleInput((np.array([3, 1, 2, 1, 3, 2], dtype=rand((1,), dtype).dtype),), {"descending": True},
                      grad=False)  # ties: the stable order
    yield SampleInput((rand((2, 3, 4), dtype, rng),), {"dim": 1, "stable": True})
    yield SampleInput((rand((), dtype, rng),))
    yield SampleInput((rand((0, 3), dtype, rng),), grad=False)


def _argsort_samples(dtype, rng):
    # argsort(x, dim, descending) has no out= in PyTorch either: only the keyword form has one
    for s in _sort_samples(dtype, rng):
        yield dataclasses.replace(s, out=len(s.args) == 1)


def _np_topk(a, k, dim=-1, largest=True, sorted=True):
    v, i = _np_sort(a, dim, largest)
    sl = [slice(None)] * a.ndim
    sl[dim] = slice(0, k)
    return v[tuple(sl)], i[tuple(sl)]


def _topk_samples(dtype, rng):
    yield SampleInput((rand((3, 5), dtype, rng), 2))
    yield SampleInput((rand((4, 3), dtype, rng), 3, 0, False))
    yield SampleInput((rand((2, 3, 4), dtype, rng), 1), {"dim": 1, "largest": False})
    yield SampleInput((rand((3, 5), dtype, rng), 0), grad=False)


def _np_kthvalue(a, k, dim=-1, keepdim=False):
    v, i = _np_sort(a, dim)
    v, i = np.take(v, k - 1, axis=dim), np.take(i, k - 1, axis=dim)
    return (np.expand_dims(v, dim), np.expand_dims(i, dim)) if keepdim else (v, i)


def _kthvalue_samples(dtype, rng):
    yield SampleInput((rand((3, 5), dtype, rng), 2))
    yield SampleInput((rand((4, 3), dtype, rng), 4, 0, True))
    yield SampleInput((rand((2, 3, 4), dtype, rng), 1, 1))


def _np_median(a, dim=None, keepdim=False):
    if dim is None:
        return np.sort(a.ravel())[(a.size - 1) // 2] if a.size else np.array(np.nan, a.dtype)
    return _np_kthvalue(a, (a.shape[dim] - 1) // 2 + 1, dim, keepdim)


def _median_samples(dtype, rng):
    yield SampleInput((rand((3, 5), dtype, rng),), out=False)  # the whole-tensor form has no out=
    yield SampleInput((rand((3, 4), dtype, rng), 1))
    yield SampleInput((rand((4, 3), dtype, rng), 0, True))
    yield SampleInput((rand((2, 3, 4), dtype, rng), -1))


def _np_mode(a, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest of equally frequent ones; NaNs equal) and
    the index of its last occurrence."""
    rows = np.moveaxis(np.atleast_1d(a), dim if a.ndim else 0, -1)
    values, indices = np.empty(rows.shape[:-1], a.dtype), np.empty(rows.shape[:-1], np.int64)
    for idx in np.ndindex(rows.shape[:-1]):
        row = rows[idx]
        keys = [("nan",) if isinstance(v, float) and np.isnan(v) else (v,) for v in row.tolist()]
        best = min(set(keys), key=lambda k: (-keys.count(k), k == ("nan",), k))
        last = max(i for i, k in enumerate(keys) if k == best)
        values[idx], indices[idx] = row[last], last
    if a.ndim == 0:
        return values.reshape(()), indices.reshape(())
    return (np.expand_dims(values, dim), np.expand_dims(indices, dim)) if keepdim else (values, indices)


def _mode_samples(dtype, rng):
    def repeated(shape):  # few distinct values, so there are modes and ties
        return rng.integers(0, 3, size=shape).astype(NP_DTYPE[dtype])

    yield SampleInput((repeated((3, 7)),), grad=False)
    yield SampleInput((repeated((4, 5)), 0, True), grad=False)
    yield SampleInput((repeated((2, 3, 6)), 1), grad=False)
    yield SampleInput((rand((3, 4), dtype, rng),))  # distinct values: the mode is the minimum
    yield SampleInput((rand((), dtype, rng),))


# ---- shape ------------------------------------------------------------------------------------


def _diagonal_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng),))
    yield SampleInput((rand((3, 4), dtype, rng),), {"offset": 1})
    yield SampleInput((rand((3, 4), dtype, rng),), {"offset": -2})
    yield SampleInput((rand((2, 3, 4), dtype, rng),), {"offset": 1, "dim1": 2, "dim2": 0})
    yield SampleInput((rand((2, 3, 4), dtype, rng),), {"dim1": -1, "dim2": 1})
    yield SampleInput((rand((3, 4), dtype, rng),), {"offset": 5})
    yield SampleInput((rand((0, 4), dtype, rng),))


def _np_diagonal(a, offset=0, dim1=0, dim2=1):
    return np.diagonal(a, offset, dim1, dim2)


def _one(*cases):
    """Samples: (shape, args, kwargs) per case."""
    def samples(dtype, rng):
        for shape, args, kwargs in cases:
            yield SampleInput((rand(shape, dtype, rng), *args), kwargs, grad=0 not in shape)
    return samples


def _np_roll(a, shifts, dims=()):
    return np.roll(a, shifts, axis=dims if dims != () else None)


def _np_tri(fn):
    def ref(a, diagonal=0):
        return fn(a, diagonal)
    return ref


def _np_diag_embed(a, offset=0, dim1=-2, dim2=-1):
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    idx = np.arange(a.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., rows, cols] = a
    return np.moveaxis(out, (-2, -1), (dim1, dim2)) if (dim1, dim2) != (-2, -1) else out


def _np_meshgrid(tensors, indexing="ij"):
    return tuple(np.meshgrid(*tensors, indexing=indexing))


def _meshgrid_samples(dtype, rng):
    yield SampleInput(([rand((3,), dtype, rng), rand((2,), dtype, rng)],))
    yield SampleInput(([rand((3,), dtype, rng), rand((2,), dtype, rng), rand((4,), dtype, rng)],), {"indexing": "xy"})
    yield SampleInput(([rand((3,), dtype, rng), rand((0,), dtype, rng)],), {"indexing": "ij"}, grad=False)


def _broadcast_tensors_samples(dtype, rng):
    yield SampleInput(([rand((3, 1), dtype, rng), rand((2, 1, 4), dtype, rng), rand((), dtype, rng)],))
    yield SampleInput(([rand((0, 1), dtype, rng), rand((3,), dtype, rng)],), grad=False)


OPS = [
    OpInfo("addmm", _addmm_samples, ref=_np_addmm, supports_out=True, inplace=True),
    OpInfo("baddbmm", _baddbmm_samples, ref=_np_addmm, supports_out=True, inplace=True),
    OpInfo("addmv", _addmv_samples, ref=_np_addmm, supports_out=True, inplace=True),
    OpInfo("mv", _mv_samples, ref=np.matmul, supports_out=True),
    OpInfo("dot", _vec_pair_samples, ref=np.dot, supports_out=True),
    OpInfo("vdot", _vec_pair_samples, ref=np.vdot, supports_out=True),
    OpInfo("outer", _outer_samples, ref=np.outer, supports_out=True),
    OpInfo("ger", _outer_samples, ref=np.outer, supports_out=True),
    OpInfo("linear", _linear_samples, ref=_np_linear, op=lambda lib, *a: lib.nn.functional.linear(*a)),
    OpInfo("bilinear", _bilinear_samples, ref=_np_bilinear, op=lambda lib, *a: lib.nn.functional.bilinear(*a)),
    OpInfo("einsum", _einsum_samples, ref=_np_einsum),
    OpInfo("diagonal", _diagonal_samples, ref=_np_diagonal, covers=("diagonal_backward",)),
    OpInfo("var", _var_samples, ref=_np_var, supports_out=True),
    OpInfo("std", _var_samples, ref=lambda a, *d, **kw: _np_var(a, *d, fn=np.std, **kw), supports_out=True),
    OpInfo("var_mean", _var_samples, ref=_var_mean_ref(np.var)),
    OpInfo("std_mean", _var_samples, ref=_var_mean_ref(np.std)),
    OpInfo("logsumexp", _logsumexp_samples, ref=_np_logsumexp, supports_out=True),
    OpInfo("linalg_vector_norm", _vector_norm_samples, ref=_np_vector_norm,
           op=lambda lib, *a, **kw: lib.linalg.vector_norm(*a, **kw)),
    OpInfo("cumsum", _scan_samples, ref=_np_cumsum, supports_out=True, inplace=True),
    OpInfo("cumprod", _cumprod_samples, ref=_np_cumprod, supports_out=True, inplace=True),
    OpInfo("sort", _sort_samples, ref=_np_sort, supports_out=True),
    OpInfo("argsort", _argsort_samples, ref=lambda *a, **kw: _np_sort(*a, **kw)[1], differentiable=False,
           supports_out=True),
    OpInfo("topk", _topk_samples, ref=_np_topk, supports_out=True),
    OpInfo("kthvalue", _kthvalue_samples, ref=_np_kthvalue, supports_out=True),
    OpInfo("median", _median_samples, ref=_np_median, supports_out=True),
    OpInfo("mode", _mode_samples, ref=_np_mode, dtypes=(*FLOATING, tl.int64), supports_out=True),
    OpInfo("flip", _one(((2, 3, 4), ([0, 2],), {}), ((3,), ([-1],), {}), ((2, 3), ([],), {}), ((0, 2), ([0],), {})),
           ref=lambda a, dims: np.flip(a, tuple(dims)) if dims else a.copy()),
    OpInfo("repeat", _one(((2, 3), ((2, 1),), {}), ((3,), ((2, 2),), {}), ((2, 1), ((1, 0),), {})),
           op=lambda lib, x, r: x.repeat(*r), ref=lambda a, r: np.tile(a, r)),
    OpInfo("tile", _one(((2, 3), ((2,),), {}), ((3,), ((2, 2),), {})), ref=lambda a, r: np.tile(a, r)),
    OpInfo("roll", _one(((2, 5), (2, 1), {}), ((2, 5), ((1, -3), (0, 1)), {}), ((2, 3), (4,), {}),
                        ((0, 3), (1, 0), {})), ref=_np_roll),
    OpInfo("tril", _one(((3, 4), (), {}), ((2, 3, 4), (1,), {}), ((4, 3), (-1,), {})), ref=_np_tri(np.tril),
           supports_out=True, inplace=True),
    OpInfo("triu", _one(((3, 4), (), {}), ((2, 3, 4), (1,), {}), ((4, 3), (-2,), {})), ref=_np_tri(np.triu),
           supports_out=True, inplace=True),
    OpInfo("diag", _one(((3,), (), {}), ((3,), (1,), {}), ((3, 4), (), {}), ((3, 4), (-1,), {}), ((0,), (), {})),
           ref=lambda a, d=0: np.diag(a, d), supports_out=True),
    OpInfo("diag_embed", _one(((2, 3), (), {}), ((3,), (1,), {}), ((2, 3), (-1, 0, 2), {})), ref=_np_diag_embed),
    OpInfo("trace", _one(((3, 4), (), {}), ((1, 1), (), {})), ref=np.trace),
    OpInfo("broadcast_to", _one(((3, 1), ((2, 3, 4),), {}), ((), ((2,),), {})), ref=np.broadcast_to),
    OpInfo("broadcast_tensors", _broadcast_tensors_samples, ref=lambda ts: tuple(np.broadcast_arrays(*ts)),
           op=lambda lib, ts: lib.broadcast_tensors(*ts)),
    OpInfo("meshgrid", _meshgrid_samples, ref=_np_meshgrid, op=lambda lib, ts, **kw: lib.meshgrid(*ts, **kw)),
]

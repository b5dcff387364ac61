"""Registry entries for the Python-level compositions (torchlite/_shape_compositions.py,
_scatter_ops.py, _distance.py, _numerical.py): not YAML operators (yaml=False), but run through
the same forward / out= / in-place / gradcheck / PyTorch tests."""

import numpy as np

import torchlite as tl
from opinfo.core import FLOATING, OpInfo, SampleInput, rand

WITH_INT = (*FLOATING, tl.int64)


def _low_rank_samples(dtype, rng):
    """(A, q) with A of rank 2 (a batch too), q >= 2."""
    for shape, q in (((6, 5), 3), ((2, 4, 7), 2)):
        left, right = rand((*shape[:-1], 2), dtype, rng), rand((*shape[:-2], 2, shape[-1]), dtype, rng)
        yield SampleInput((left @ right, q), noncontiguous=False)
    yield SampleInput((rand((5, 2), dtype, rng) @ rand((2, 4), dtype, rng), 3), {"M": rand((4,), dtype, rng)},
                      noncontiguous=False)


def _svd_lowrank_check(lib, A, usv):
    """The singular values and the reconstruction error |U diag(S) V^H - A| (zero)."""
    U, S, V = usv
    return S, (U * S.unsqueeze(-2) @ V.transpose(-2, -1) - A).abs()


def _np_lowrank_ref(A, q):
    return np.linalg.svd(A, compute_uv=False)[..., :q], np.zeros(A.shape, A.dtype)


def _py(name, samples, **kw):
    return OpInfo(name, samples, yaml=False, **kw)


def _arrays(*cases):
    """samples from cases of (shapes, extra args, kwargs); each shape becomes an array of the dtype."""
    def samples(dtype, rng):
        for shapes, extra, kwargs in cases:
            yield SampleInput(tuple(rand(s, dtype, rng) for s in shapes) + tuple(extra), dict(kwargs))
    return samples


def _contiguous(shapes, extra):
    """one sample whose arrays stay contiguous (the op's result depends on the input's strides)"""
    def samples(dtype, rng):
        yield SampleInput(tuple(rand(s, dtype, rng) for s in shapes) + extra, noncontiguous=False)
    return samples


def _index(*values):
    return np.array(values, dtype=np.int64)


def _slice_scatter_ref(x, src, dim=0, start=None, end=None, step=1):
    out = x.copy()
    out[(slice(None),) * dim + (slice(start, end, step),)] = src
    return out


def _diagonal_scatter_ref(x, src, offset=0):
    out = x.copy()
    rows = np.arange(src.shape[-1]) + max(-offset, 0)
    out[rows, rows + offset] = src
    return out


def _index_fill_ref(x, dim, index, value):
    out = x.copy()
    out[(slice(None),) * dim + (index,)] = value
    return out


def _index_copy_ref(x, dim, index, src):
    out = x.copy()
    out[(slice(None),) * dim + (index,)] = src
    return out


def _masked_scatter_ref(x, mask, src):
    out = np.broadcast_to(x, np.broadcast_shapes(x.shape, mask.shape)).copy()
    m = np.broadcast_to(mask, out.shape)
    out[m] = src.reshape(-1)[:m.sum()]
    return out


def _put_ref(x, index, src, accumulate=False):
    out = x.copy().reshape(-1)
    if accumulate:
        np.add.at(out, index.reshape(-1), src.reshape(-1))
    else:
        out[index.reshape(-1)] = src.reshape(-1)
    return out.reshape(x.shape)


def _cdist_ref(a, b, p=2.0, **_):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == np.inf:
        return d.max(-1)
    return (d ** p).sum(-1) ** (1 / p)


def _pdist_ref(x, p=2):
    i, j = np.triu_indices(x.shape[0], 1)
    return _cdist_ref(x[i][:, None], x[j][:, None], p)[:, 0, 0]


def _renorm_ref(x, p, dim, maxnorm):
    other = tuple(d for d in range(x.ndim) if d != dim)
    norms = (np.abs(x) ** p).sum(other, keepdims=True) ** (1 / p)
    return x * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


def _unfold_ref(x, dim, size, step):
    return np.lib.stride_tricks.sliding_window_view(x, size, axis=dim)[(slice(None),) * dim + (slice(None, None, step),)]


def _gradient_ref(x, spacing=1, dim=None, edge_order=1):
    dims = range(x.ndim) if dim is None else [dim]
    g = np.gradient(x, spacing, axis=tuple(dims), edge_order=edge_order)
    return tuple(g) if isinstance(g, (list, tuple)) else (g,)


OPS = [
    # shape and products
    _py("tensordot", _arrays(([(2, 3, 4), (3, 4, 5)], (), {}), ([(2, 3), (4, 3)], (), {"dims": ([1], [1])}),
                              ([(2, 3), (3, 2)], (), {"dims": 1})),
        ref=lambda a, b, dims=2: np.tensordot(a, b, dims), supports_out=True),
    _py("inner", _arrays(([(2, 3), (4, 3)], (), {}), ([(3,), (3,)], (), {}), ([(2, 3), ()], (), {})),
        ref=np.inner, supports_out=True),
    _py("addr", _arrays(([(2, 3), (2,), (3,)], (), {}), ([(3,), (2,), (3,)], (), {"beta": 0.5, "alpha": 2.0}),
                         ([(2, 3), (2,), (3,)], (), {"beta": 0})),
        ref=lambda x, a, b, beta=1, alpha=1: (beta * x if beta else 0) + alpha * np.outer(a, b),
        supports_out=True, inplace=True),
    _py("addbmm", _arrays(([(2, 3), (4, 2, 5), (4, 5, 3)], (), {}), ([(3,), (2, 2, 5), (2, 5, 3)], (), {"beta": 2.0})),
        ref=lambda x, a, b, beta=1: beta * x + (a @ b).sum(0), supports_out=True, inplace=True),
    _py("channel_shuffle", _arrays(([(2, 4, 3)], (2,), {}), ([(1, 6, 2, 2)], (3,), {})),
        ref=lambda x, g: x.reshape(x.shape[0], g, -1, *x.shape[2:]).swapaxes(1, 2).reshape(x.shape), dtypes=WITH_INT),
    # No PyTorch comparison: its native_channel_shuffle has no derivative (here it is channel_shuffle's).
    _py("native_channel_shuffle", _arrays(([(2, 6, 2)], (3,), {}),),
        ref=lambda x, g: x.reshape(x.shape[0], g, -1, *x.shape[2:]).swapaxes(1, 2).reshape(x.shape), dtypes=WITH_INT,
        torch=False),
    _py("diagflat", _arrays(([(2, 2)], (), {}), ([(3,)], (-1,), {})), ref=np.diagflat, dtypes=WITH_INT),
    _py("msort", _arrays(([(4, 3)], (), {}),), ref=lambda x: np.sort(x, 0), supports_out=True),
    _py("unsafe_chunk", _arrays(([(5, 2)], (2,), {}),), ref=lambda x, c: tuple(np.array_split(x, c))),
    _py("unsafe_split", _arrays(([(5, 2)], (2,), {}),), ref=lambda x, s: tuple(np.split(x, [2, 4]))),
    _py("unsafe_split_with_sizes", _arrays(([(2, 5)], ([1, 4], 1), {}),),
        ref=lambda x, sizes, dim: tuple(np.split(x, [1], 1))),
    _py("unfold", _arrays(([(2, 5, 3)], (1, 2, 1), {}), ([(7,)], (0, 3, 2), {})),
        op=lambda lib, x, *a: x.unfold(*a), ref=_unfold_ref, dtypes=WITH_INT),
    _py("sum_to_size", _arrays(([(2, 3, 4)], ((3, 1),), {}),),
        op=lambda lib, x, size: x.sum_to_size(size), ref=lambda x, size: x.sum((0, 2)).reshape(size)),
    # writing into parts of a tensor
    _py("select_scatter", _arrays(([(3, 4), (3,)], (1, 2), {}),),
        ref=lambda x, s, dim, i: _index_copy_ref(x, dim, i, s)),
    _py("slice_scatter", _arrays(([(4, 5), (4, 2)], (1, 1, None, 2), {}), ([(4, 5), (2, 5)], (), {"start": 2})),
        ref=_slice_scatter_ref, supports_out=True),
    _py("diagonal_scatter", _arrays(([(3, 4), (3,)], (1,), {}), ([(3, 3), (3,)], (), {})),
        ref=_diagonal_scatter_ref),
    # torch=False: PyTorch 2.13's gradient for input is grad inside the written view and 0 outside
    # (as_strided_scatter_backward), the reverse of the derivative; gradcheck holds torchlite to the latter
    _py("as_strided_scatter", _contiguous(((3, 4), (2, 2)), ((2, 2), (1, 4), 1)),
        ref=lambda x, s, size, stride, off: _put_ref(x, np.array([1, 5, 2, 6]), s), torch=False),
    _py("index_fill", _arrays(([(3, 4)], (1, _index(0, 2), -1.5), {}),), ref=_index_fill_ref, inplace=True,
        dtypes=WITH_INT),
    _py("index_copy", _arrays(([(3, 4), (3, 2)], (), {}),),
        op=lambda lib, x, s: lib.index_copy(x, 1, lib.tensor([3, 0]), s),
        ref=lambda x, s: _index_copy_ref(x, 1, [3, 0], s)),
    _py("index_reduce", _arrays(([(3, 4), (3, 3)], (), {})),
        op=lambda lib, x, s: tuple(lib.index_reduce(x, 1, lib.tensor([2, 0, 2], device=x.device), s, r, include_self=inc)
                                   for r in ("prod", "mean", "amax", "amin") for inc in (True, False))),
    _py("masked_scatter", _arrays(([(3, 4)], (np.array([True, False, True, True]),), {}),
                                   ([(4,)], (np.array([[True], [False]]),), {})),
        op=lambda lib, x, m, *s: lib.masked_scatter(x, m, lib.arange(12, dtype=x.dtype, device=x.device).reshape(3, 4) * 0.5 + x.sum()),
        ref=lambda x, m: _masked_scatter_ref(x, m, np.arange(12, dtype=x.dtype) * 0.5 + x.sum())),
    _py("put", _arrays(([(3, 4), (3,)], (), {}), ([(3, 4), (3,)], (), {"accumulate": True})),
        op=lambda lib, x, s, **kw: lib.put(x, lib.tensor([[1, -1, 1]] if kw else [1, -1, 5], device=x.device), s, **kw),
        ref=lambda x, s, **kw: _put_ref(x, np.array([1, 11, 1] if kw else [1, 11, 5]), s, **kw)),
    _py("fill_diagonal_", _arrays(([(3, 3)], (), {}), ([(7, 3)], (), {"wrap": True}), ([(2, 2, 2)], (), {})),
        op=lambda lib, x, **kw: x.clone().fill_diagonal_(4.0, **kw), dtypes=WITH_INT),
    # distances and norms
    _py("cdist", _arrays(([(3, 2), (4, 2)], (), {}), ([(2, 3, 2), (1, 4, 2)], (1.0,), {}),
                          ([(3, 2), (4, 2)], (3.0,), {}), ([(3, 2), (4, 2)], (np.inf,), {}),
                          ([(3, 2), (4, 2)], (), {"compute_mode": "use_mm_for_euclid_dist"})),
        ref=_cdist_ref, rtol=1e-5),
    _py("pdist", _arrays(([(4, 3)], (), {}), ([(4, 3)], (1.0,), {}), ([(4, 3)], (np.inf,), {})), ref=_pdist_ref),
    _py("dist", _arrays(([(2, 3), (3,)], (), {}), ([(2, 3), (2, 3)], (3,), {}), ([(2, 3), (3,)], (np.inf,), {})),
        ref=lambda a, b, p=2: _cdist_ref((a - b).reshape(1, -1), np.zeros((1, a.size)), p)[0, 0]),
    _py("renorm", _arrays(([(3, 4)], (2, 0, 2.0), {}), ([(3, 4)], (1, 1, 3.0), {})), ref=_renorm_ref,
        supports_out=True, inplace=True),
    _py("pairwise_distance", _arrays(([(3, 4), (3, 4)], (), {}),),
        ref=lambda a, b: np.sqrt(((a - b + 1e-6) ** 2).sum(-1))),
    _py("cosine_similarity", _arrays(([(3, 4), (3, 4)], (), {}),),
        ref=lambda a, b: (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)),
    _py("norm_except_dim", _arrays(([(3, 4)], (2, 0), {}), ([(3, 4)], (2, -1), {}), ([(3, 4)], (3, 1), {})),
        ref=lambda v, p, dim: (np.abs(v) ** p).sum() ** (1 / p) if dim == -1 else
        ((np.abs(v) ** p).sum(1 - dim, keepdims=True) ** (1 / p))),
    _py("frobenius_norm", _arrays(([(3, 4)], ((0, 1),), {}), ([(3, 4)], (1, True), {})),
        ref=lambda x, dim, keepdim=False: np.sqrt((x * x).sum(dim, keepdims=keepdim)), supports_out=True),
    # randomized low-rank factorizations: exact (up to rounding) for a matrix of rank <= q
    _py("svd_lowrank", _low_rank_samples,
        op=lambda lib, A, q, **kw: _svd_lowrank_check(lib, A - kw.get("M", 0), lib.svd_lowrank(A, q, **kw)),
        ref=lambda A, q, **kw: _np_lowrank_ref(A - kw.get("M", 0), q), differentiable=False),
    _py("pca_lowrank", _low_rank_samples,
        op=lambda lib, A, q, **kw: _svd_lowrank_check(lib, A - A.mean(-2, keepdim=True), lib.pca_lowrank(A, q)),
        ref=lambda A, q, **kw: _np_lowrank_ref(A - A.mean(-2, keepdims=True), q), differentiable=False),
    # predicates and control flow
    _py("is_conj", _arrays(([(2, 3)], (), {}),), ref=lambda x: False, differentiable=False),
    _py("is_neg", _arrays(([(2, 3)], (), {}),), ref=lambda x: False, differentiable=False),
    _py("cond", _arrays(([(2, 3)], (), {}),),
        op=lambda lib, x: (lib.cond(x.sum() > 0, lambda a: a * 2, lambda a: a - 1, (x,)),
                           lib.cond(False, lambda a: a * 2, lambda a: a.sin(), [x])),
        ref=lambda x: (x * 2 if x.sum() > 0 else x - 1, np.sin(x))),
    # calculus and binning
    _py("trapz", _arrays(([(3, 4)], (), {}), ([(3, 4)], (), {"dx": 0.5, "dim": 0}), ([(3, 4), (4,)], (), {})),
        ref=lambda y, x=None, dx=1, dim=-1: np.trapezoid(y, x, dx, dim)),
    _py("gradient", _arrays(([(4, 5)], (), {}), ([(4, 5)], (), {"spacing": 2.0, "dim": 1, "edge_order": 2}),
                             ([(6,)], (), {"edge_order": 2})),
        ref=_gradient_ref),
    _py("histogram", _arrays(([(20,)], (5,), {}), ([(3, 4)], (4,), {"range": (-1.0, 1.0), "density": True})),
        ref=lambda x, bins, range=None, density=False: np.histogram(x, bins, range, density=density),
        differentiable=False),
]

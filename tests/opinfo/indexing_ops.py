"""Registry entries: indexing operators (index_select, gather, scatter and its reductions,
index_add, masked_fill, masked_select, take, nonzero, argwhere, index, index_put, embedding,
one_hot). The NumPy references loop over index positions, independently of the kernels."""

import numpy as np

import torchlite as tl
from opinfo.core import FLOATING, OpInfo, SampleInput, positive, rand

WITH_INT = (*FLOATING, tl.int64)


def _coords(index_shape):
    return [tuple(p) for p in np.ndindex(*index_shape)]


# ---- NumPy references ----------------------------------------------------------------------------

def np_index_select(x, dim, index):
    if x.ndim == 0:
        return x.copy()
    return np.take(x, index.reshape(-1), axis=dim)


def np_gather(x, dim, index, sparse_grad=False):
    x1 = x.reshape(1) if x.ndim == 0 else x
    out = np.empty(index.shape, dtype=x.dtype)
    for p in _coords(index.shape):
        q = list(p) if p else [0]
        q[dim] = index[p]
        out[p] = x1[tuple(q)]
    return out


def _np_reduce(cur, v, reduce):
    if reduce in ("sum", "add", "mean"):
        return cur + v
    if reduce in ("prod", "multiply"):
        return cur * v
    if reduce == "amax":
        return max(cur, v)
    if reduce == "amin":
        return min(cur, v)
    return v


def np_scatter(x, dim, index, src, reduce=None, include_self=True):
    out = x.copy()
    scattered = {}
    for p in _coords(index.shape):
        q = list(p)
        q[dim] = index[p]
        q = tuple(q)
        v = src[p] if isinstance(src, np.ndarray) else src
        if not include_self and q not in scattered:
            out[q] = v
        else:
            out[q] = _np_reduce(out[q], v, reduce)
        scattered[q] = scattered.get(q, 1 if include_self else 0) + 1
    if reduce == "mean":
        for q, n in scattered.items():
            out[q] = out[q] / n if out.dtype.kind == "f" else out[q] // n
    return out


def np_scatter_reduce(x, dim, index, src, reduce, include_self=True):
    return np_scatter(x, dim, index, src, reduce, include_self)


def np_index_add(x, dim, index, source, alpha=1):
    if x.ndim == 0:
        return x + alpha * source
    out = x.copy()
    dim = dim % x.ndim
    for i, j in enumerate(index.reshape(-1)):
        sl = (slice(None),) * dim
        out[sl + (j,)] += alpha * np.take(source, i, axis=dim)
    return out


def np_masked_fill(x, mask, value):
    return np.where(mask, np.asarray(value, dtype=x.dtype), x).astype(x.dtype)


def np_masked_select(x, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


# ---- samples --------------------------------------------------------------------------------------

def _int(rng, high, shape):
    return rng.integers(0, high, size=shape).astype(np.int64)


def _index_select_samples(dtype, rng):
    yield SampleInput((rand((4, 3), dtype, rng), 0, np.array([3, 0, 3, 1])))
    yield SampleInput((rand((2, 5, 3), dtype, rng), 1, np.array([4, 0])))
    yield SampleInput((rand((2, 5, 3), dtype, rng), -1, np.array([2, 2, 0, 1])))
    yield SampleInput((rand((3, 2), dtype, rng), 0, np.array([], dtype=np.int64)))  # size-0 index
    yield SampleInput((rand((0, 2), dtype, rng), 1, np.array([1])))
    yield SampleInput((rand((1, 3), dtype, rng), 0, np.array(0)))  # 0-dim index
    yield SampleInput((rand((), dtype, rng), 0, np.array([0])), noncontiguous=False)


def _gather_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng), 1, _int(rng, 4, (3, 5))))
    yield SampleInput((rand((3, 4), dtype, rng), 0, _int(rng, 3, (2, 4))))
    yield SampleInput((rand((2, 3, 4), dtype, rng), -1, _int(rng, 4, (2, 2, 3))))
    yield SampleInput((rand((3, 4), dtype, rng), 1, _int(rng, 4, (0, 2))))
    yield SampleInput((rand((1, 4), dtype, rng), 1, _int(rng, 4, (1, 1))))
    yield SampleInput((rand((3, 4), dtype, rng), 0, _int(rng, 3, (3, 4))), {"sparse_grad": False})


def _unique_index(rng, target, dim, index_shape):
    """An index of index_shape whose values along `dim` are distinct (a deterministic scatter)."""
    idx = np.empty(index_shape, dtype=np.int64)
    moved = np.moveaxis(idx, dim, -1)
    for p in np.ndindex(*moved.shape[:-1]):
        moved[p] = rng.permutation(target)[: moved.shape[-1]]
    return idx


def _scatter_samples(dtype, rng):
    yield SampleInput((rand((3, 5), dtype, rng), 1, _unique_index(rng, 5, 1, (3, 2)), rand((3, 2), dtype, rng)))
    yield SampleInput((rand((4, 3), dtype, rng), 0, _unique_index(rng, 4, 0, (3, 2)), rand((3, 2), dtype, rng)))
    yield SampleInput((rand((2, 3, 4), dtype, rng), -1, _unique_index(rng, 4, 2, (2, 2, 3)),
                       rand((2, 2, 3), dtype, rng)))
    yield SampleInput((rand((3, 5), dtype, rng), 1, _unique_index(rng, 5, 1, (0, 2)), rand((0, 2), dtype, rng)))
    yield SampleInput((rand((3, 5), dtype, rng), 1, _unique_index(rng, 5, 1, (2, 3)), 1.5))  # value overload


def _scatter_ref(x, dim, index, src, reduce=None):
    return np_scatter(x, dim, index, src, reduce)


def _scatter_add_samples(dtype, rng):
    yield SampleInput((rand((3, 5), dtype, rng), 1, _int(rng, 5, (3, 4)), rand((3, 4), dtype, rng)))
    yield SampleInput((rand((4, 3), dtype, rng), 0, _int(rng, 4, (6, 2)), rand((6, 2), dtype, rng)))
    yield SampleInput((rand((2, 3, 4), dtype, rng), -1, _int(rng, 4, (2, 2, 3)), rand((2, 2, 3), dtype, rng)))
    yield SampleInput((rand((3, 5), dtype, rng), 1, _int(rng, 5, (0, 4)), rand((0, 4), dtype, rng)))
    yield SampleInput((rand((1, 1), dtype, rng), 1, _int(rng, 1, (1, 1)), rand((1, 1), dtype, rng)))


def _scatter_reduce_samples(dtype, rng):
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            # positive values, distinct between and within x and src: prod has no zeros and amax/amin
            # no ties (smooth gradients)
            x = rng.permutation(np.arange(1, 16)).reshape(3, 5).astype(np.float64) / 4 + 0.5 + 1 / 16
            src = rng.permutation(np.arange(16, 28)).reshape(3, 4).astype(np.float64) / 8
            if dtype != tl.float64:
                x, src = x.astype(np.float32), src.astype(np.float32)
            yield SampleInput((x, 1, _int(rng, 5, (3, 4)), src, reduce), {"include_self": include_self})
    yield SampleInput((positive((4, 2), dtype, rng), 0, _int(rng, 4, (3, 2)), positive((3, 2), dtype, rng), "sum"))


def _index_add_samples(dtype, rng):
    yield SampleInput((rand((5, 3), dtype, rng), 0, np.array([0, 4, 2, 0]), rand((4, 3), dtype, rng)))
    yield SampleInput((rand((2, 5, 3), dtype, rng), 1, np.array([1, 1]), rand((2, 2, 3), dtype, rng)),
                      {"alpha": 2.5 if dtype != tl.int64 else 3})
    yield SampleInput((rand((2, 3), dtype, rng), -1, np.array([2]), rand((2, 1), dtype, rng)))
    yield SampleInput((rand((3, 2), dtype, rng), 0, np.array([], dtype=np.int64), rand((0, 2), dtype, rng)))
    yield SampleInput((rand((4,), dtype, rng), 0, np.array(3), rand((1,), dtype, rng)))  # 0-dim index
    yield SampleInput((rand((), dtype, rng), 0, np.array([0]), rand((), dtype, rng)), noncontiguous=False)


def _masked_fill_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng), rng.random((3, 4)) > 0.5, 2.5))
    yield SampleInput((rand((3, 4), dtype, rng), rng.random((4,)) > 0.5, -1.0))  # mask broadcasts
    yield SampleInput((rand((3, 4), dtype, rng), rng.random((3, 4)) > 0.5, rand((), dtype, rng)))  # Tensor value
    yield SampleInput((rand((4,), dtype, rng), rng.random((3, 4)) > 0.5, 0.0))  # self broadcasts
    yield SampleInput((rand((0, 3), dtype, rng), np.zeros((0, 3), bool), 1.0))
    yield SampleInput((rand((1, 1), dtype, rng), np.ones((1, 1), bool), rand((), dtype, rng)))


def _masked_select_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng), rng.random((3, 4)) > 0.5))
    yield SampleInput((rand((3, 4), dtype, rng), rng.random((4,)) > 0.5))
    yield SampleInput((rand((4,), dtype, rng), rng.random((2, 4)) > 0.5))
    yield SampleInput((rand((0, 4), dtype, rng), np.zeros((0, 4), bool)))
    yield SampleInput((rand((2, 3), dtype, rng), np.zeros((2, 3), bool)))


def _take_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng), np.array([[0, 11], [-1, 5], [5, 5]])))
    yield SampleInput((rand((2, 3), dtype, rng), np.array(4)))
    yield SampleInput((rand((5,), dtype, rng), np.array([], dtype=np.int64)))
    yield SampleInput((rand((), dtype, rng), np.array([0, -1, 0])), noncontiguous=False)


def _nonzero_samples(dtype, rng):
    yield SampleInput((rand((3, 4), dtype, rng, low=-1, high=2).round(),))
    yield SampleInput((rand((2, 3, 2), dtype, rng, low=-1, high=2).round(),))
    yield SampleInput((rand((5,), dtype, rng, low=-1, high=2).round(),))
    yield SampleInput((rand((0, 3), dtype, rng),))
    yield SampleInput((np.array(2.0).astype(rand((), dtype, rng).dtype),), noncontiguous=False)


# ---- advanced indexing: x[key] with the key's tensors as array arguments ------------------------

def _key(pattern, tensors):
    """The index tuple: "T" takes the next tensor, ":" is a full slice, "..." an Ellipsis."""
    it = iter(tensors)
    conv = {"T": lambda: next(it), ":": lambda: slice(None), "...": lambda: Ellipsis, "1:": lambda: slice(1, None)}
    return tuple(conv[p]() if isinstance(p, str) else p for p in pattern)


def _getitem(lib, x, *tensors, pattern):
    return x[_key(pattern, tensors)]


def _np_getitem(x, *arrays, pattern):
    return x[_key(pattern, arrays)]


def _index_samples(dtype, rng):
    x = rand((4, 3, 5), dtype, rng)
    yield SampleInput((x, np.array([3, 0, 3])), {"pattern": ("T",)})
    yield SampleInput((x, np.array([[0, 1], [2, 0]])), {"pattern": (":", "T")})  # 2-d index in place of dim 1
    yield SampleInput((x, np.array([1, 2]), np.array([4, 0])), {"pattern": (":", "T", "T")})  # adjacent
    yield SampleInput((x, np.array([1, 2]), np.array([[4], [0]])), {"pattern": ("T", ":", "T")})  # separated: first
    yield SampleInput((x, np.array([0, 2]), np.array([1])), {"pattern": ("...", "T", "T")})  # broadcast
    yield SampleInput((x, np.array([2, -1])), {"pattern": (None, "1:", "T")})
    yield SampleInput((x, np.array([1, 0]), np.array([0, 4])), {"pattern": ("T", 1, "T")})  # int separates
    yield SampleInput((x, rng.random((4, 3)) > 0.5), {"pattern": ("T",)})  # mask over two dims
    yield SampleInput((x, rng.random(5) > 0.5), {"pattern": (":", 0, "T")})
    yield SampleInput((x, np.array([], dtype=np.int64)), {"pattern": (":", "T")})  # size 0
    yield SampleInput((rand((1, 1), dtype, rng), np.array([0, 0, 0])), {"pattern": ("T",)})


def _index_put_call(lib, x, values, *tensors, accumulate=False):
    return x.index_put(tuple(tensors), values, accumulate)


def _np_index_put(x, values, *arrays, accumulate=False):
    out = x.copy()
    if accumulate:
        np.add.at(out, tuple(arrays), values)
    else:
        out[tuple(arrays)] = values
    return out


def _index_put_samples(dtype, rng):
    x = rand((4, 3), dtype, rng)
    yield SampleInput((x, rand((2, 3), dtype, rng), np.array([3, 0])))
    yield SampleInput((x, rand((3,), dtype, rng), np.array([1, 1, 2]), np.array([0, 2, 2])), {"accumulate": True})
    yield SampleInput((x, rand((), dtype, rng), np.array([0, 2]), np.array([1, 1])), {"accumulate": True})
    yield SampleInput((x, rand((3,), dtype, rng), np.array([2]), np.array([0, 1, 2])))  # indices broadcast
    yield SampleInput((x, rand((1, 3), dtype, rng), np.array([1, 3, 1])), {"accumulate": True})  # values broadcast
    yield SampleInput((x, rand((0, 3), dtype, rng), np.array([], dtype=np.int64)))


def _embedding_samples(dtype, rng):
    w = rand((6, 3), dtype, rng)
    yield SampleInput((w, _int(rng, 6, (2, 4))))
    # padding_idx and scale_grad_by_freq change the gradient on purpose: compared with PyTorch only
    yield SampleInput((w, np.array([1, 4, 1, 0]), 1), grad=False)
    yield SampleInput((w, np.array([[5, 2, 5], [5, 0, 1]]), -1, True), grad=False)
    yield SampleInput((w, np.array(3)))
    yield SampleInput((w, np.zeros((0, 2), np.int64)))


def _np_embedding(w, i, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return w[i]


def _np_embedding_backward(g, i, num_weights, padding_idx, scale_grad_by_freq):
    flat = i.reshape(-1)
    g2 = g.reshape(flat.size, g.shape[-1])
    out = np.zeros((num_weights, g2.shape[1]), dtype=g.dtype)
    counts = np.bincount(flat, minlength=num_weights)
    for k, j in enumerate(flat):
        if j != padding_idx:
            out[j] += g2[k] / (counts[j] if scale_grad_by_freq else 1)
    return out


def _embedding_backward_samples(dtype, rng):
    yield SampleInput((rand((2, 4, 3), dtype, rng), _int(rng, 6, (2, 4)), 6, -1, False))
    yield SampleInput((rand((4, 3), dtype, rng), np.array([1, 4, 1, 0]), 5, 1, False))
    yield SampleInput((rand((2, 3, 2), dtype, rng), np.array([[5, 2, 5], [5, 0, 1]]), 6, 2, True))
    yield SampleInput((rand((0, 3), dtype, rng), np.zeros((0,), np.int64), 4, -1, False))


def _one_hot_samples(dtype, rng):
    yield SampleInput((np.array([0, 3, 1, 3]),))
    yield SampleInput((_int(rng, 4, (2, 3)), 6))
    yield SampleInput((np.array(2), 3), noncontiguous=False)
    yield SampleInput((np.zeros((0,), np.int64), 2))


def _np_one_hot(x, num_classes=-1):
    n = x.max() + 1 if num_classes == -1 else num_classes
    return (x[..., None] == np.arange(n)).astype(np.int64)


OPS = [
    OpInfo("index_select", _index_select_samples, ref=np_index_select, dtypes=WITH_INT, supports_out=True),
    OpInfo("gather", _gather_samples, ref=np_gather, dtypes=WITH_INT, supports_out=True),
    OpInfo("scatter", _scatter_samples, ref=_scatter_ref, dtypes=WITH_INT, supports_out=True, inplace=True),
    OpInfo("scatter_add", _scatter_add_samples, ref=lambda *a: np_scatter(*a, reduce="sum"), dtypes=WITH_INT,
           supports_out=True, inplace=True),
    OpInfo("scatter_reduce", _scatter_reduce_samples, ref=np_scatter_reduce, supports_out=True, inplace=True),
    OpInfo("index_add", _index_add_samples, ref=np_index_add, dtypes=WITH_INT, supports_out=True, inplace=True),
    OpInfo("masked_fill", _masked_fill_samples, ref=np_masked_fill, dtypes=WITH_INT, inplace=True),
    OpInfo("masked_select", _masked_select_samples, ref=np_masked_select, dtypes=WITH_INT, supports_out=True),
    OpInfo("take", _take_samples, ref=lambda x, i: x.reshape(-1)[i], dtypes=WITH_INT, supports_out=True),
    OpInfo("nonzero", _nonzero_samples, ref=np.argwhere, dtypes=WITH_INT, supports_out=True, differentiable=False),
    OpInfo("argwhere", _nonzero_samples, ref=np.argwhere, dtypes=WITH_INT, differentiable=False),
    OpInfo("index", _index_samples, op=_getitem, ref=_np_getitem, dtypes=WITH_INT),
    OpInfo("index_put", _index_put_samples, op=_index_put_call, ref=_np_index_put, dtypes=WITH_INT),
    OpInfo("embedding", _embedding_samples, ref=_np_embedding),
    OpInfo("embedding_dense_backward", _embedding_backward_samples, ref=_np_embedding_backward,
           torch=False),  # not exposed as torch.embedding_dense_backward
    OpInfo("one_hot", _one_hot_samples, op=lambda lib, x, *a: lib.nn.functional.one_hot(x, *a), ref=_np_one_hot,
           dtypes=(tl.int64,), differentiable=False),
]

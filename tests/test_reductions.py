"""Reductions vs NumPy (and PyTorch when installed): values, dtypes, dims/keepdim, layouts,
out=, empty tensors and error paths."""

import numpy as np
import pytest

import torchlite as tl
from helpers import NP_DTYPE, assert_close, random_array

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

LAYOUTS = ["contiguous", "transposed", "sliced"]
DTYPES = [tl.float32, tl.float64, tl.float16, tl.int32, tl.int64, tl.uint8, tl.bool]
SHAPE = (3, 4, 5)


def make(a, layout="contiguous"):
    """`a` as a torchlite tensor in the given layout (built with as_strided: same values)."""
    a = np.asarray(a)
    if layout == "contiguous" or a.ndim == 0:
        return tl.tensor(a)
    if layout == "transposed":
        t = tl.tensor(np.ascontiguousarray(a.T))
        return t.as_strided(a.shape, tuple(reversed(t.stride())))
    if layout == "sliced":
        t = tl.tensor(np.ascontiguousarray(np.repeat(a, 2, axis=-1)))
        st = list(t.stride())
        st[-1] *= 2
        return t.as_strided(a.shape, st)
    raise ValueError(layout)


def to_torch(a):
    return torch.from_numpy(np.ascontiguousarray(a))


TORCH_DTYPE = {}
if torch is not None:
    TORCH_DTYPE = {getattr(tl, n): getattr(torch, n)
                   for n in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]}


def check_torch(got, expected_torch):
    """Same dtype, shape and values as PyTorch."""
    if torch is None:
        return
    assert TORCH_DTYPE[got.dtype] == expected_torch.dtype, (got.dtype, expected_torch.dtype)
    exp = expected_torch.float() if expected_torch.dtype == torch.float16 else expected_torch
    assert_close(got, exp.numpy(), check_dtype=False, rtol=1e-3 if got.dtype == tl.float16 else None,
                 atol=1e-2 if got.dtype == tl.float16 else None)


def np_axis(dim):
    if dim is None or dim == ():
        return None
    return dim


def sum_dtype(npd):
    return np.int64 if np.issubdtype(npd, np.integer) or npd == np.bool_ else npd


# ---- sum / mean / prod / amax / amin ------------------------------------------------------

SUM_DIMS = [None, 0, -1, (0, 2), (1,), (), (-1, 0, 1)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sum(dtype, layout):
    a = random_array(SHAPE, dtype)
    t = make(a, layout)
    npd = NP_DTYPE[dtype]
    for dim in SUM_DIMS:
        for keepdim in (False, True):
            if dim is None:
                got = t.sum() if not keepdim else tl.sum(t, (0, 1, 2), keepdim=True)
                ax = None
            else:
                got = tl.sum(t, dim, keepdim=keepdim)
                ax = np_axis(dim)
            exp = a.astype(np.float64).sum(axis=ax, keepdims=keepdim).astype(sum_dtype(npd))
            assert_close(got, exp, rtol=2e-3 if dtype == tl.float16 else None,
                         atol=2e-2 if dtype == tl.float16 else None)
            if torch is not None:
                ta = to_torch(a)
                texp = ta.sum() if (dim is None and not keepdim) else ta.sum((0, 1, 2) if dim is None else dim,
                                                                             keepdim=keepdim)
                check_torch(got, texp)


def test_sum_dtype_arg_and_method():
    a = random_array(SHAPE, tl.int32)
    t = make(a)
    assert_close(t.sum(dtype=tl.float64), np.float64(a.sum()))
    assert_close(t.sum(1, dtype=tl.int32), a.sum(1).astype(np.int32))
    assert_close(make(a.astype(np.float32)).sum(dtype=tl.float64), a.astype(np.float64).sum())
    assert t.sum(0).dtype == tl.int64
    assert make(a.astype(np.bool_)).sum().dtype == tl.int64


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.float16])
def test_mean(dtype, layout):
    a = random_array(SHAPE, dtype)
    t = make(a, layout)
    for dim in SUM_DIMS:
        for keepdim in (False, True):
            got = t.mean() if dim is None else tl.mean(t, dim, keepdim=keepdim)
            kd = keepdim and dim is not None
            exp = a.astype(np.float64).mean(axis=np_axis(dim), keepdims=kd).astype(NP_DTYPE[dtype])
            assert_close(got, exp, rtol=2e-3 if dtype == tl.float16 else None)
            if torch is not None:
                ta = to_torch(a)
                check_torch(got, ta.mean() if dim is None else ta.mean(dim, keepdim=keepdim))


def test_mean_dtype_and_errors():
    a = random_array(SHAPE, tl.int64)
    assert_close(make(a).mean(dtype=tl.float64), a.mean())
    assert_close(make(a.astype(np.float32)).mean(1, dtype=tl.float64), a.astype(np.float64).mean(1))
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype. Input dtype"):
        make(a).mean()
    with pytest.raises(RuntimeError, match="Optional dtype must be either a floating point"):
        make(a.astype(np.float32)).mean(dtype=tl.int64)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.int32, tl.int64, tl.uint8, tl.bool])
def test_prod(dtype, layout):
    rng = np.random.default_rng(1)
    if dtype in (tl.float32, tl.float64):
        a = rng.uniform(0.5, 1.5, SHAPE).astype(NP_DTYPE[dtype])
    else:
        a = random_array(SHAPE, dtype, low=0, high=3)
    t = make(a, layout)
    npd = NP_DTYPE[dtype]
    assert_close(t.prod(), np.prod(a.astype(np.float64)).astype(sum_dtype(npd)))
    for dim in (0, -1, 1):
        for keepdim in (False, True):
            got = tl.prod(t, dim, keepdim=keepdim)
            exp = np.prod(a.astype(np.float64), axis=dim, keepdims=keepdim).astype(sum_dtype(npd))
            assert_close(got, exp)
            if torch is not None:
                check_torch(got, to_torch(a).prod(dim, keepdim=keepdim))


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_amax_amin(op, dtype, layout):
    a = random_array(SHAPE, dtype)
    t = make(a, layout)
    npf = np.max if op == "amax" else np.min
    for dim in [(), 0, -1, (0, 2), (2, 1)]:
        for keepdim in (False, True):
            got = getattr(tl, op)(t, dim, keepdim=keepdim)
            assert_close(got, npf(a, axis=np_axis(dim), keepdims=keepdim))
            if torch is not None:
                check_torch(got, getattr(torch, op)(to_torch(a), dim, keepdim=keepdim))


# ---- max / min (whole, and dim with indices) and argmax / argmin ------------------------------


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_min(op, dtype, layout):
    a = random_array(SHAPE, dtype)
    t = make(a, layout)
    npf, npa = (np.max, np.argmax) if op == "max" else (np.min, np.argmin)
    whole = getattr(t, op)()
    assert whole.dim() == 0
    assert_close(whole, npf(a))
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            r = getattr(tl, op)(t, dim, keepdim=keepdim)
            values, indices = r
            assert r.values is values and r.indices is indices
            assert type(r).__module__ == "torchlite.return_types"
            assert type(r).__name__ == op
            assert_close(values, npf(a, axis=dim, keepdims=keepdim))
            exp_i = npa(a, axis=dim)
            if keepdim:
                exp_i = np.expand_dims(exp_i, dim)
            assert_close(indices, exp_i.astype(np.int64))
            if torch is not None:
                tv, _ = getattr(torch, op)(to_torch(a), dim, keepdim=keepdim)
                check_torch(values, tv)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.float16, tl.int32, tl.uint8, tl.bool])
def test_argmax_argmin(op, dtype, layout):
    a = random_array(SHAPE, dtype)
    t = make(a, layout)
    npf = getattr(np, op)
    assert_close(getattr(t, op)(), np.int64(npf(a)))
    k = getattr(tl, op)(t, keepdim=True)
    assert tuple(k.shape) == (1, 1, 1) and k.item() == npf(a)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            got = getattr(tl, op)(t, dim, keepdim=keepdim)
            exp = npf(a, axis=dim)
            if keepdim:
                exp = np.expand_dims(exp, dim)
            assert_close(got, exp.astype(np.int64))


def test_nan_propagation():
    a = np.array([[1.0, np.nan, 3.0, np.nan], [4.0, 2.0, 0.0, 1.0]], dtype=np.float32)
    t = make(a)
    assert np.isnan(t.max().item()) and np.isnan(t.min().item())
    assert_close(t.amax(1), np.array([np.nan, 4.0], np.float32))
    assert_close(t.argmax(1), np.array([1, 0]))
    assert_close(t.argmin(1), np.array([1, 2]))
    v, i = t.max(1)
    assert_close(i, np.array([1, 0]))
    assert_close(tl.argmax(t, 0), np.array([1, 0, 0, 0]))  # outer-dim path, NaN wins


def test_ties_first_index():
    a = np.array([[1, 3, 3, 0], [2, 2, 2, 2]], dtype=np.int64)
    t = make(a)
    assert_close(t.max(1).indices, np.array([1, 0]))
    assert_close(t.argmin(1), np.array([3, 0]))
    assert_close(tl.argmax(make(a.T.copy()), 0), np.array([1, 0]))
    long = np.zeros((2, 300), np.float32)
    long[0, [100, 200]] = 5
    long[1, [63, 64, 299]] = -1
    assert_close(make(long).argmax(1), np.array([100, 0]))
    assert_close(make(long).argmin(1), np.array([0, 63]))
    assert_close(make(long).max(1).indices, np.array([100, 0]))


# ---- all / any ---------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["all", "any"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [tl.bool, tl.float32, tl.int32, tl.uint8, tl.float16])
def test_all_any(op, dtype, layout):
    rng = np.random.default_rng(3)
    a = (rng.random(SHAPE) > 0.3).astype(NP_DTYPE[dtype]) * random_array(SHAPE, dtype, low=1, high=4)
    a = a.astype(NP_DTYPE[dtype])
    a[0] = 1  # some rows all non-zero
    a[1, 0] = 0
    t = make(a, layout)
    npf = getattr(np, op)
    out_np = np.uint8 if dtype == tl.uint8 else np.bool_
    assert_close(getattr(t, op)(), np.asarray(npf(a)).astype(out_np))
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            got = getattr(tl, op)(t, dim, keepdim=keepdim)
            assert_close(got, npf(a, axis=dim, keepdims=keepdim).astype(out_np))
            if torch is not None:
                check_torch(got, getattr(torch, op)(to_torch(a), dim, keepdim=keepdim))


# ---- out= ----------------------------------------------------------------------------------------


def test_out_variants():
    a = random_array((4, 6), tl.float32)
    t = make(a)
    o = tl.empty(1)  # wrong shape: resized
    r = tl.sum(t, 1, out=o)
    assert r is o and tuple(o.shape) == (4,)
    assert_close(o, a.sum(1))
    o64 = tl.empty(6, dtype=tl.float64)  # no dtype=: out's dtype is used
    tl.sum(t, 0, out=o64)
    assert_close(o64, a.astype(np.float64).sum(0))
    o = tl.empty(())
    tl.sum(t, out=o)
    assert_close(o, np.float32(a.sum()), rtol=1e-5)
    o = tl.empty((4, 1))
    tl.mean(t, 1, keepdim=True, out=o)
    assert_close(o, a.mean(1, keepdims=True))
    o = tl.empty(4)
    tl.amax(t, 1, out=o)
    assert_close(o, a.max(1))
    oi = tl.empty(6, dtype=tl.int64)
    tl.argmax(t, 0, out=oi)
    assert_close(oi, a.argmax(0))
    # max.dim_max / min.dim_min kernels through the binding's keyword names (see below).
    v, i = tl.empty(4), tl.empty(4, dtype=tl.int64)
    r = tl.max(t, 1, out=(v, i))
    assert r[0] is v and r[1] is i
    assert_close(v, a.max(1))
    assert_close(i, a.argmax(1))
    v, i = tl.empty(6), tl.empty(6, dtype=tl.int64)
    tl.min(t, 0, out=(v, i))
    assert_close(v, a.min(0))
    assert_close(i, a.argmin(0))
    o = tl.empty(())
    tl.max(t, out=o)
    assert_close(o, np.float32(a.max()))
    ob = tl.empty(4, dtype=tl.bool)
    tl.any(t, 1, out=ob)
    assert_close(ob, np.any(a, 1))
    ai = random_array((4, 6), tl.int64, low=1, high=3)
    op = tl.empty(6, dtype=tl.int64)
    tl.prod(make(ai), 0, out=op)
    assert_close(op, ai.prod(0))
    # out= into a non-contiguous view
    base = tl.zeros(4, 2) if hasattr(tl, "zeros") else tl.tensor(np.zeros((4, 2), np.float32))
    col = base.as_strided((4,), (2,))
    tl.sum(t, 1, out=col)
    assert_close(base, np.stack([a.sum(1), np.zeros(4, np.float32)], 1))


def test_max_min_out_tuple():
    """PyTorch spells multi-output out= as one tuple: torch.max(t, 1, out=(values, indices))."""
    a = random_array((4, 6), tl.float32)
    v, i = tl.empty(4), tl.empty(4, dtype=tl.int64)
    r = tl.max(make(a), 1, out=(v, i))
    assert r[0] is v and r[1] is i
    assert_close(v, a.max(1))
    assert_close(i, a.argmax(1))


def test_out_dtype_errors():
    t = make(random_array((4, 6), tl.float32))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        tl.sum(t, 0, dtype=tl.float64, out=tl.empty(6))
    with pytest.raises(RuntimeError, match="Expected the dtype for input and out to match"):
        tl.amax(t, 0, out=tl.empty(6, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        tl.argmax(t, 0, out=tl.empty(6))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        tl.max(t, 0, out=(tl.empty(6), tl.empty(6)))
    with pytest.raises(RuntimeError, match="all only supports bool tensor for result"):
        tl.all(t, 0, out=tl.empty(6))


# ---- empty tensors, 0-dim, errors ---------------------------------------------------------------


def test_empty_tensors():
    e = make(np.zeros((0, 3), np.float32))
    assert_close(e.sum(), np.float32(0))
    assert_close(tl.sum(e, 0), np.zeros(3, np.float32))
    assert_close(tl.sum(e, 1), np.zeros(0, np.float32))
    assert_close(e.prod(), np.float32(1))
    assert_close(tl.prod(e, 0), np.ones(3, np.float32))
    assert np.isnan(e.mean().item())
    assert_close(e.all(), np.bool_(True))
    assert_close(e.any(), np.bool_(False))
    assert_close(tl.amax(e, 1), np.zeros(0, np.float32))
    assert tuple(tl.max(e, 1).values.shape) == (0,)
    with pytest.raises(RuntimeError, match="max\\(\\): Expected reduction dim to be specified for input.numel\\(\\) == 0"):
        e.max()
    with pytest.raises(RuntimeError, match="min\\(\\): Expected reduction dim to be specified"):
        e.min()
    with pytest.raises(RuntimeError, match="amax\\(\\): Expected reduction dim to be specified"):
        e.amax()
    with pytest.raises(IndexError, match="max\\(\\): Expected reduction dim 0 to have non-zero size"):
        e.max(0)
    with pytest.raises(IndexError, match="argmax\\(\\): Expected reduction dim to be specified"):
        e.argmax()
    with pytest.raises(IndexError, match="argmin\\(\\): Expected reduction dim 0 to have non-zero size"):
        e.argmin(0)


def test_zero_dim():
    s = make(np.float32(2.5))
    assert_close(s.sum(), np.float32(2.5))
    assert_close(tl.sum(s, 0), np.float32(2.5))
    assert_close(tl.sum(s, -1, keepdim=True), np.float32(2.5))
    assert_close(s.max(), np.float32(2.5))
    v, i = s.max(0)
    assert_close(v, np.float32(2.5))
    assert_close(i, np.int64(0))
    assert_close(s.argmax(), np.int64(0))
    assert_close(s.argmax(0), np.int64(0))
    assert_close(s.prod(), np.float32(2.5))
    assert_close(s.all(), np.bool_(True))


def test_dim_errors():
    t = make(random_array(SHAPE, tl.float32))
    for f in [lambda: tl.sum(t, 3), lambda: tl.sum(t, (0, -4)), lambda: t.max(5), lambda: t.argmax(-4),
              lambda: tl.amax(t, 3), lambda: tl.prod(t, 3), lambda: tl.all(t, 3), lambda: tl.mean(t, 7)]:
        with pytest.raises(IndexError, match="Dimension out of range"):
            f()
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        tl.sum(t, (0, -3))
    with pytest.raises(RuntimeError, match="appears multiple times"):
        tl.amax(t, (1, 1))


# ---- engine paths: large inputs (parallel, chunked, outer-dim) --------------------------------


def test_large_float_sum_precision():
    x = np.random.default_rng(0).random(1 << 24, dtype=np.float32)
    got = make(x).sum().item()
    exp = x.astype(np.float64).sum()
    assert abs(got - exp) / exp < 1e-5
    assert abs(got - np.sum(x)) / exp < 1e-5


@pytest.mark.parametrize("layout", LAYOUTS)
def test_large_paths(layout):
    a = random_array((300, 517), tl.float32)
    t = make(a, layout)
    assert_close(tl.sum(t, 0), a.astype(np.float64).sum(0).astype(np.float32), rtol=1e-4, atol=1e-3)
    assert_close(tl.sum(t, 1), a.astype(np.float64).sum(1).astype(np.float32), rtol=1e-4, atol=1e-3)
    assert_close(tl.amax(t, 0), a.max(0))
    assert_close(tl.amin(t, 1), a.min(1))
    assert_close(t.argmax(0), a.argmax(0))
    assert_close(t.argmin(1), a.argmin(1))
    assert_close(tl.max(t, 0).values, a.max(0))
    assert_close(t.mean(), np.float32(a.astype(np.float64).mean()), rtol=1e-5, atol=1e-6)
    v = random_array((300001,), tl.float64)
    assert_close(make(v).sum(), v.sum(), rtol=1e-10)
    assert_close(make(v).amax(), v.max())
    assert_close(make(v).argmin(), v.argmin())


def test_three_dim_mixed_reductions():
    a = random_array((6, 70, 90), tl.float64)
    t = make(a, "transposed")
    for dim in [(0, 2), (1,), (0, 1), (2,), (0,)]:
        assert_close(tl.sum(t, dim), a.sum(axis=dim), rtol=1e-10)
        assert_close(tl.amax(t, dim, keepdim=True), a.max(axis=dim, keepdims=True))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(64, 10), (257, 3), (1025, 31), (4096, 10), (130, 384), (1024, 33), (3, 2048)])
def test_training_shapes_sum_in_row_order(shape, threads):
    # Bias gradients (sum(0)) and row sums (sum(-1)): a float32 sum accumulates each output in
    # double, in index order, on every path and thread count (Note [Reduction engine]); short
    # rows (fewer than the accumulators) and a last group of fewer than four rows included.
    a = random_array(shape, tl.float32)
    t = make(a)
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        col, row, mean0 = tl.sum(t, 0), tl.sum(t, 1), t.mean(0)
    finally:
        tl.set_num_threads(before)
    # cumsum is sequential: its last entry is the in-order double sum.
    np.testing.assert_array_equal(col.numpy(), np.cumsum(a.astype(np.float64), 0)[-1].astype(np.float32))
    if shape[1] < 32:
        np.testing.assert_array_equal(row.numpy(), np.cumsum(a.astype(np.float64), 1)[:, -1].astype(np.float32))
    assert_close(row, a.astype(np.float64).sum(1).astype(np.float32), rtol=1e-5, atol=1e-5)
    assert_close(mean0, a.astype(np.float64).mean(0).astype(np.float32), rtol=1e-5, atol=1e-6)
    if torch is not None:
        assert_close(row, torch.from_numpy(a).sum(1).numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_short_rows_last_dim(layout):
    # sum/prod/amax over a last dim shorter than the accumulators, rows not a multiple of four.
    for dtype in [tl.float64, tl.int64, tl.int32, tl.bool]:
        a = random_array((7, 5, 6), dtype)
        t = make(a, layout)
        assert_close(tl.sum(t, -1), a.sum(-1))
        assert_close(tl.amax(t, -1), a.max(-1))
        assert_close(tl.prod(t, -1), a.prod(-1))

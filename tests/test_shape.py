"""View and shape ops: permute, transpose, t, movedim, swapaxes, expand(_as), squeeze,
unsqueeze, flatten, unflatten, narrow, reshape, view(_as), cat and stack — values, shapes and
strides vs NumPy, storage sharing for views (views never copy and share the version counter),
out= forms and error messages."""

import numpy as np
import pytest

import torchlite as tl
from helpers import TORCH, ALL_DTYPES, LAYOUTS, assert_close, make_tensor, random_array




def np_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def base_array(shape=(2, 3, 4), dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


def assert_view_of(v, base):
    """v views base's memory: same storage, writes through and shares the version counter."""
    assert v._shares_storage(base)
    before = base._version
    if v.numel():
        for d in range(v.dim()):  # in-place ops refuse expanded views: write one copy of each element
            if v.stride(d) == 0:
                v = v.narrow(d, 0, 1)
        v.add_(0)
        assert base._version > before and v._version == base._version


# ---- permute / transpose / t / movedim ------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dims", [(0, 1, 2), (2, 0, 1), (1, 0, 2), (-1, -3, -2)])
def test_permute(layout, dims):
    a = base_array()
    x = make_tensor(a, layout)
    p = x.permute(*dims)
    e = np.transpose(a, dims)
    assert_close(p, e)
    assert_view_of(p, x)
    assert tl.permute(x, dims).shape == e.shape
    if layout == "contiguous":
        assert p.stride() == np_strides(e)


def test_permute_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"input.dim\(\) = 2 is not equal to len\(dims\) = 1"):
        x.permute(0)
    with pytest.raises(RuntimeError, match="duplicate dims are not allowed"):
        x.permute(0, 0)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        x.permute(0, 2)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_transpose_t_swapaxes(layout):
    a = base_array()
    x = make_tensor(a, layout)
    assert_close(x.transpose(0, 2), np.swapaxes(a, 0, 2))
    assert_close(tl.transpose(x, -1, 1), np.swapaxes(a, -1, 1))
    assert_close(x.swapaxes(0, 1), np.swapaxes(a, 0, 1))
    assert_close(tl.swapdims(x, 2, 0), np.swapaxes(a, 2, 0))
    assert_view_of(x.transpose(1, 2), x)
    m = make_tensor(a[0], layout)
    assert_close(m.t(), a[0].T)
    assert_close(tl.t(m), a[0].T)
    assert_view_of(m.t(), m)
    assert_close(m.T, a[0].T)
    assert_close(x.mT, np.swapaxes(a, -1, -2))


def test_t_small_and_errors():
    v = tl.tensor([1.0, 2.0])
    assert v.t().shape == (2,) and v.t()._shares_storage(v)
    s = tl.tensor(3.0)
    assert s.t().shape == () and s.transpose(0, -1).shape == ()
    with pytest.raises(RuntimeError, match=r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D"):
        tl.zeros(2, 2, 2).t()
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.zeros(2, 3).transpose(0, 2)


@pytest.mark.parametrize(
    "src, dst", [(0, 2), (-1, 0), ((0, 1), (2, 0)), ((0,), (-1,)), ((2, 0), (0, 1)), ((), ())]
)
def test_movedim(src, dst):
    a = base_array()
    x = tl.tensor(a)
    m = tl.movedim(x, src, dst)
    assert_close(m, np.moveaxis(a, src, dst))
    assert m._shares_storage(x)
    assert_close(x.movedim(src, dst), np.moveaxis(a, src, dst))
    assert_close(tl.moveaxis(x, src, dst), np.moveaxis(a, src, dst))


def test_movedim_errors():
    x = tl.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="should contain the same number of dims"):
        x.movedim((0, 1), (0,))
    with pytest.raises(RuntimeError, match="repeated dim in `source`"):
        x.movedim((0, 0), (1, 2))
    with pytest.raises(RuntimeError, match="repeated dim in `destination`"):
        x.movedim((0, 1), (2, 2))


# ---- expand ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "shape, target",
    [((3, 1), (3, 4)), ((1,), (5,)), ((), (2, 3)), ((2, 1, 3), (4, 2, 5, 3)), ((3, 1), (-1, 4)), ((1, 3), (0, 3)),
     ((2, 3), (2, 3))],
)
def test_expand(shape, target):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    x = tl.tensor(a)
    e = x.expand(*target)
    np_target = tuple(s if t == -1 else t for s, t in zip((1,) * (len(target) - len(shape)) + shape, target))
    ref = np.broadcast_to(a, np_target)
    assert_close(e, ref)
    assert e._shares_storage(x)
    assert tuple(x.expand(target).shape) == np_target  # tuple form
    # broadcast dims have stride 0 (for non-empty results, like NumPy's broadcast_to)
    if ref.size:
        assert e.stride() == np_strides(ref)
    assert_close(x.expand_as(tl.zeros(np_target)), ref)


def test_expand_noncontiguous_and_writes_through():
    base = tl.tensor(base_array((4, 3)))
    col = base[:, 1:2]  # (4, 1), stride (3, 1)
    e = col.expand(2, 4, 5)
    assert e.stride() == (0, 3, 0)
    assert_close(e, np.broadcast_to(base_array((4, 3))[:, 1:2], (2, 4, 5)))
    assert_view_of(e, base)


def test_expand_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"expand\(torch.FloatTensor\{\[2, 3\]\}, size=\[3\]\): the number of sizes "
                                           r"provided \(1\) must be greater or equal to the number of dimensions in "
                                           r"the tensor \(2\)"):
        x.expand(3)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match the existing size \(3\) "
                                           r"at non-singleton dimension 1.  Target sizes: \[2, 4\].  Tensor sizes: "
                                           r"\[2, 3\]"):
        x.expand(2, 4)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(-1\) isn't allowed in a leading, "
                                           r"non-existing dimension 0"):
        x.expand(-1, 2, 3)
    with pytest.raises(RuntimeError, match="must match the existing size"):
        x.expand(2, -2)
    with pytest.raises(RuntimeError, match="must be greater or equal"):
        x.expand_as(tl.zeros(5))


# ---- squeeze / unsqueeze --------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1, 3, 1, 2), (1,), (), (2, 3), (1, 1)])
def test_squeeze_all(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = tl.tensor(a)
    s = x.squeeze()
    assert_close(s, np.squeeze(a))
    assert s._shares_storage(x)
    assert_close(tl.squeeze(x), np.squeeze(a))


def test_squeeze_dim_and_dims():
    a = base_array((1, 3, 1, 2))
    x = tl.tensor(a)
    assert_close(x.squeeze(0), a[0])
    assert_close(x.squeeze(-2), a[:, :, 0])
    assert_close(x.squeeze(1), a)  # not size 1: unchanged
    assert_close(x.squeeze((0, 2)), np.squeeze(a, (0, 2)))
    assert_close(x.squeeze((0, 1)), np.squeeze(a, 0))
    assert_close(tl.squeeze(x, [-4, -2]), np.squeeze(a, (0, 2)))
    assert x.squeeze(()).shape == x.shape
    s = tl.tensor(5.0)
    assert s.squeeze(0).shape == () and s.squeeze(-1).shape == () and s.squeeze((0,)).shape == ()
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.squeeze(4)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        x.squeeze((0, -4))


def test_squeeze_strides_noncontiguous():
    base = tl.tensor(base_array((3, 1, 4)))
    v = base.permute(2, 1, 0)  # (4, 1, 3), strides (1, 4, 4)
    s = v.squeeze(1)
    assert s.shape == (4, 3) and s.stride() == (1, 4)
    assert_view_of(s, base)


def test_unsqueeze():
    a = base_array((2, 3))
    x = tl.tensor(a)
    for d in range(-3, 3):
        u = x.unsqueeze(d)
        assert_close(u, np.expand_dims(a, d))
        assert u._shares_storage(x)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.unsqueeze(3)


# ---- flatten / unflatten / narrow -----------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("start, end", [(0, -1), (1, 2), (0, 1), (1, 1), (-2, -1)])
def test_flatten(layout, start, end):
    a = base_array()
    x = make_tensor(a, layout)
    f = x.flatten(start, end)
    s, e = start % 3, end % 3
    shape = a.shape[:s] + (int(np.prod(a.shape[s:e + 1])),) + a.shape[e + 1:]
    assert_close(f, a.reshape(shape))
    if x.is_contiguous():
        assert f._shares_storage(x)
    assert_close(tl.flatten(x, start_dim=start, end_dim=end), a.reshape(shape))


def test_flatten_special_cases():
    s = tl.tensor(2.0)
    assert s.flatten().shape == (1,) and s.flatten()._shares_storage(s)
    x = tl.zeros(2, 3)
    assert x.flatten().shape == (6,)
    assert x.t().flatten().tolist() == [0.0] * 6
    with pytest.raises(RuntimeError, match="flatten\\(\\) has invalid args: start_dim cannot come after end_dim"):
        x.flatten(1, 0)


@pytest.mark.parametrize("dim, sizes", [(1, (2, 2)), (1, (-1, 2)), (0, (1, 2)), (-1, (4, 1)), (1, (1, 4, 1))])
def test_unflatten(dim, sizes):
    a = base_array((2, 4))
    x = tl.tensor(a)
    u = x.unflatten(dim, sizes)
    d = dim % 2
    inner = list(sizes)
    if -1 in inner:
        inner[inner.index(-1)] = a.shape[d] // -int(np.prod(inner))
    shape = a.shape[:d] + tuple(inner) + a.shape[d + 1:]
    assert_close(u, a.reshape(shape))
    assert u._shares_storage(x)
    assert_close(tl.unflatten(x.t(), 0, (2, 2)), a.T.reshape(2, 2, 2))


def test_unflatten_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"unflatten: Provided sizes \[2, 2\] don't multiply up to the size of dim 1 "
                                           r"\(3\) in the input tensor"):
        x.unflatten(1, (2, 2))
    with pytest.raises(RuntimeError, match="unflatten: sizes must be non-empty"):
        x.unflatten(1, ())
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.unflatten(1, (-1, -1))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim, start, length", [(0, 0, 1), (1, 1, 2), (2, -3, 2), (-1, 0, 4), (1, 3, 0), (2, 4, 0)])
def test_narrow(layout, dim, start, length):
    a = base_array()
    x = make_tensor(a, layout)
    n = x.narrow(dim, start, length)
    st = start % a.shape[dim] if start < 0 else start
    assert_close(n, np.take(a, range(st, st + length), axis=dim))
    assert_view_of(n, x)
    assert_close(tl.narrow(x, dim, start, length), np.take(a, range(st, st + length), axis=dim))


def test_narrow_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of \[-3, 3\], but got 4\)"):
        x.narrow(1, 4, 1)
    with pytest.raises(RuntimeError, match=r"start \(1\) \+ length \(3\) exceeds dimension size \(3\)."):
        x.narrow(1, 1, 3)
    with pytest.raises(RuntimeError, match=r"narrow\(\): length must be non-negative."):
        x.narrow(1, 1, -1)
    with pytest.raises(RuntimeError, match=r"narrow\(\) cannot be applied to a 0-dim tensor."):
        tl.tensor(1.0).narrow(0, 0, 1)


# ---- reshape / view -------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(24,), (4, 6), (-1, 2), (2, 3, 2, 2), (4, -1, 3), (1, 24, 1)])
def test_reshape(layout, shape):
    a = base_array()
    x = make_tensor(a, layout)
    r = x.reshape(*shape)
    assert_close(r, a.reshape(shape))
    assert_close(tl.reshape(x, shape), a.reshape(shape))
    if x.is_contiguous():
        assert r._shares_storage(x)  # a view whenever possible
        assert r.stride() == np_strides(a.reshape(shape))


def test_reshape_views_or_copies():
    base = tl.tensor(base_array((4, 6)))
    t = base.t()  # (6, 4)
    r = t.reshape(24)  # cannot be a view
    assert not r._shares_storage(base)
    assert_close(r, base_array((4, 6)).T.reshape(24))
    s = t.reshape(6, 2, 2)  # splitting the last dim can be a view
    assert s._shares_storage(base)
    v = base[:, ::2].reshape(4, 3, 1)
    assert v._shares_storage(base)
    e = tl.zeros(0, 3)
    assert e.reshape(3, 0, 5).shape == (3, 0, 5)
    assert tl.tensor(7.0).reshape(()).shape == () and tl.tensor(7.0).reshape(1, 1).shape == (1, 1)
    assert tl.tensor([7.0]).reshape(()).item() == 7.0


def test_reshape_view_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"shape '\[4, 2\]' is invalid for input of size 6"):
        x.reshape(4, 2)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.reshape(-1, -1)
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        x.t().view(6)
    with pytest.raises(RuntimeError, match=r"shape '\[5\]' is invalid for input of size 6"):
        x.view_as(tl.zeros(5))


def test_view_as():
    a = base_array((2, 6))
    x = tl.tensor(a)
    v = x.view_as(tl.empty(3, 4, dtype=tl.int8))
    assert v.dtype == tl.float32 and v.shape == (3, 4) and v._shares_storage(x)
    assert_close(v, a.reshape(3, 4))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_views_keep_dtype(dtype):
    a = random_array((2, 3), dtype)
    x = tl.tensor(a) if dtype != tl.bfloat16 else tl.tensor(a).to(tl.bfloat16)
    for v in (x.t(), x.permute(1, 0), x.expand(2, 2, 3), x.reshape(3, 2), x.flatten(), x.unsqueeze(0).squeeze(0),
              x.narrow(1, 0, 2), x.movedim(0, 1)):
        assert v.dtype == dtype and v._shares_storage(x)


# ---- cat / stack ----------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_cat(layout, dim):
    rng = np.random.default_rng(0)
    shapes = [[2, 3, 4], [2, 3, 4], [2, 3, 4]]
    for s, extra in zip(shapes, (1, 2, 3)):
        s[dim] = extra
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ts = [make_tensor(a, layout) for a in arrays]
    r = tl.cat(ts, dim)
    assert_close(r, np.concatenate(arrays, dim))
    assert r.is_contiguous()
    assert_close(tl.cat(ts, dim=dim), np.concatenate(arrays, dim))
    assert_close(tl.cat(tuple(ts), dim), np.concatenate(arrays, dim))


@pytest.mark.parametrize(
    "dtypes",
    [(tl.int32, tl.float32), (tl.uint8, tl.int8), (tl.bool, tl.int64), (tl.float16, tl.float64),
     (tl.int16, tl.bool, tl.float32), (tl.bfloat16, tl.float16)],
)
def test_cat_type_promotion(dtypes):
    parts = [tl.ones(2, 2, dtype=dt) for dt in dtypes]
    r = tl.cat(parts)
    expected = dtypes[0]
    for dt in dtypes[1:]:
        expected = tl.promote_types(expected, dt)
    assert r.dtype == expected and r.shape == (2 * len(dtypes), 2)
    if TORCH is not None:
        tp = [TORCH.ones(2, 2, dtype=getattr(TORCH, str(dt).split(".")[-1])) for dt in dtypes]
        assert str(TORCH.cat(tp).dtype).split(".")[-1] == str(r.dtype).split(".")[-1]


def test_cat_values_across_dtypes():
    a = tl.tensor([[1, 2]], dtype=tl.int32)
    b = tl.tensor([[0.5, 1.5]])
    assert tl.cat([a, b]).tolist() == [[1.0, 2.0], [0.5, 1.5]]
    assert tl.cat([a, b], 1).tolist() == [[1.0, 2.0, 0.5, 1.5]]


def test_cat_empty_rules():
    x = tl.ones(2, 3)
    legacy = tl.empty(0)  # 1-D empty tensors are skipped whatever their shape
    assert tl.cat([x, legacy]).shape == (2, 3)
    assert tl.cat([legacy, x, legacy], 1).shape == (2, 3)
    assert tl.cat([legacy, legacy]).shape == (0,)
    assert tl.cat([legacy.long(), x]).dtype == tl.float32
    assert tl.cat([tl.empty(0, dtype=tl.float64), x]).dtype == tl.float64  # still promotes
    # empty tensors with matching other dims take part normally
    assert tl.cat([tl.zeros(0, 3), x]).shape == (2, 3)
    assert tl.cat([tl.zeros(2, 0), x], 1).shape == (2, 3)
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        tl.cat([tl.zeros(0, 2), x])
    assert tl.cat([x]).tolist() == x.tolist() and not tl.cat([x])._shares_storage(x)


def test_cat_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(ValueError, match=r"torch.cat\(\): expected a non-empty list of Tensors"):
        tl.cat([])
    with pytest.raises(RuntimeError, match=r"zero-dimensional tensor \(at position 1\) cannot be concatenated"):
        tl.cat([x, tl.tensor(1.0)])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 1. Expected size 2 but "
                                           "got size 3 for tensor number 1 in the list."):
        tl.cat([x, tl.zeros(3, 3)], 1)
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 2 and 1"):
        tl.cat([x, tl.zeros(3)])
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        tl.cat([x, x], 2)


def test_cat_out():
    x = tl.tensor([[1.0, 2.0]])
    out = tl.empty(0)
    r = tl.cat([x, x], out=out)
    assert r is out and out.tolist() == [[1, 2], [1, 2]]
    o64 = tl.zeros(2, 2, dtype=tl.float64)
    tl.cat([x, x.int()], out=o64)  # float32 -> float64 is a safe cast
    assert o64.dtype == tl.float64 and o64.tolist() == [[1, 2], [1, 2]]
    base = tl.zeros(2, 2)
    tl.cat([x, x], out=base.t())  # a non-contiguous out of the right shape is written in place
    assert base.tolist() == [[1, 1], [2, 2]]
    with pytest.raises(TypeError, match=r"torch.cat\(\): input types can't be cast to the desired output type Long"):
        tl.cat([x, x], out=tl.zeros(2, 2, dtype=tl.int64))
    y = tl.zeros(2, 2)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        tl.cat([y[:1], y[1:]], out=y)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack(dim):
    arrays = [base_array((2, 3)) + i for i in range(3)]
    ts = [tl.tensor(a) for a in arrays]
    r = tl.stack(ts, dim)
    assert_close(r, np.stack(arrays, dim))
    ts_nc = [make_tensor(a, "transposed") for a in arrays]
    assert_close(tl.stack(ts_nc, dim=dim), np.stack(arrays, dim))
    out = tl.empty(1)
    assert tl.stack(ts, dim, out=out) is out
    assert_close(out, np.stack(arrays, dim))


def test_stack_promotion_and_errors():
    assert tl.stack([tl.ones(2, dtype=tl.int32), tl.ones(2)]).dtype == tl.float32
    assert tl.stack([tl.tensor(1.0), tl.tensor(2.0)]).tolist() == [1.0, 2.0]  # 0-dim inputs are fine
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        tl.stack([])
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 "
                                           r"and \[2, 4\] at entry 1"):
        tl.stack([tl.zeros(2, 3), tl.zeros(2, 4)])
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 4\)"):
        tl.stack([tl.zeros(2, 3)], 4)


@pytest.mark.skipif(TORCH is None, reason="PyTorch not installed")
def test_shape_ops_match_torch():
    a = base_array((2, 1, 3, 1))
    x, tx = tl.tensor(a), TORCH.from_numpy(a.copy())
    checks = [
        lambda m: m.permute(3, 1, 0, 2), lambda m: m.transpose(0, 2), lambda m: m.squeeze(),
        lambda m: m.squeeze(1), lambda m: m.expand(4, 2, 5, 3, 2), lambda m: m.flatten(1),
        lambda m: m.narrow(2, 1, 2), lambda m: m.unsqueeze(-1), lambda m: m.movedim(0, -1),
        lambda m: m.unflatten(2, (3, 1)), lambda m: m.reshape(3, -1), lambda m: m.permute(2, 0, 1, 3).reshape(6),
    ]
    for f in checks:
        r, tr = f(x), f(tx)
        assert tuple(r.shape) == tuple(tr.shape)
        assert r.stride() == tr.stride(), (r.shape, r.stride(), tr.stride())
        np.testing.assert_array_equal(r.numpy(), tr.numpy())


# ---- split / chunk / unbind -----------------------------------------------------------------

def _check_pieces(pieces, expected, base):
    assert isinstance(pieces, tuple) and len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        assert_close(p, e)
        assert p._shares_storage(base)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("size, dim", [(2, 0), (3, 1), (1, 1), (5, 1), (4, -1), (10, 0)])
def test_split_int(layout, size, dim):
    a = base_array((4, 5))
    x = make_tensor(a, layout)
    n = a.shape[dim]
    expected = [np.take(a, range(i, min(i + size, n)), axis=dim) for i in range(0, n, size)]
    _check_pieces(x.split(size, dim), expected, x)
    _check_pieces(tl.split(x, size, dim=dim), expected, x)


@pytest.mark.parametrize("sizes, dim", [((1, 3), 0), ((2, 0, 3), 1), ((5,), -1), ((0, 4), 0)])
def test_split_sizes(sizes, dim):
    a = base_array((4, 5))
    x = tl.tensor(a)
    bounds = np.cumsum((0,) + sizes)
    expected = [np.take(a, range(bounds[i], bounds[i + 1]), axis=dim) for i in range(len(sizes))]
    _check_pieces(x.split(list(sizes), dim), expected, x)
    _check_pieces(tl.split(x, sizes, dim), expected, x)
    _check_pieces(x.split_with_sizes(sizes, dim=dim), expected, x)
    _check_pieces(tl.split_with_sizes(x, list(sizes), dim), expected, x)


@pytest.mark.parametrize("n, chunks", [(6, 3), (5, 2), (5, 3), (2, 5), (1, 1), (7, 7), (0, 3)])
def test_chunk_vs_torch_rules(n, chunks):
    a = np.arange(2 * n, dtype=np.float32).reshape(2, n)
    x = tl.tensor(a)
    pieces = x.chunk(chunks, 1)
    step = -(-n // chunks) if n else 0
    if n == 0:
        expected = [a[:, 0:0]] * chunks
    else:
        expected = [a[:, i:i + step] for i in range(0, n, step)]
    _check_pieces(pieces, expected, x)
    assert len(tl.chunk(x, chunks, dim=-1)) == len(expected)
    if TORCH is not None:
        assert [tuple(p.shape) for p in TORCH.from_numpy(a).chunk(chunks, 1)] == [tuple(p.shape) for p in pieces]


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unbind(dim):
    a = base_array((2, 3))
    x = tl.tensor(a)
    pieces = x.unbind(dim)
    _check_pieces(pieces, [np.take(a, i, axis=dim) for i in range(a.shape[dim])], x)
    assert len(tl.unbind(x, dim=dim)) == a.shape[dim]
    assert tl.zeros(0, 2).unbind() == ()


def test_split_chunk_unbind_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0, but got dimension size "
                                           "of 3"):
        x.split(0, 1)
    with pytest.raises(RuntimeError, match=r"split expects split_size be non-negative, but got split_size=-1"):
        x.split(-1)
    with pytest.raises(RuntimeError, match=r"split_with_sizes expects split_sizes to sum exactly to 3 \(input "
                                           r"tensor's size at dimension 1\), but got split_sizes=\[1, 1\]"):
        x.split([1, 1], 1)
    with pytest.raises(RuntimeError, match="only non-negative entries"):
        x.split([4, -1], 1)
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        x.chunk(0)
    with pytest.raises(RuntimeError, match="chunk expects at least a 1-dimensional tensor"):
        tl.tensor(1.0).chunk(1)
    with pytest.raises(IndexError, match="(?i)dimension specified as 0 but tensor has no dimensions"):
        tl.tensor(1.0).unbind()
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.unbind(2)

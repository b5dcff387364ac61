"""Basic indexing: Tensor.__getitem__ / __setitem__ with ints, slices, None, Ellipsis, bools
and tuples of them (advanced indexing: tests/test_advanced_indexing.py) — values, shapes and strides vs NumPy, views sharing storage and the
version counter, assignment of scalars and broadcast tensors, and the error paths."""

import numpy as np
import pytest

import torchlite as tl
from helpers import ALL_DTYPES, LAYOUTS, NP_DTYPE, assert_close, make_tensor, random_array

E = Ellipsis

GETITEM_CASES = [
    0, -1, 2, -4,
    (1, 2), (-1, -1, -1), (0, slice(None), 3),
    slice(None), slice(1, 3), slice(-3, -1), slice(None, None, 2), slice(1, None, 3), slice(-100, 100),
    slice(5, 1), slice(3, 3), slice(-1, None), slice(None, -1), slice(10, None),
    (slice(None), slice(1, None, 2)), (slice(None, None, 3), slice(None), slice(-2, None)),
    None, (None, 0), (0, None), (None, None, slice(1, 3)), (slice(None), None, 1),
    E, (E, 0), (0, E), (E, 1, 2), (1, E, 2), (0, E, slice(1, 3)), (E, None), (None, E, None), (1, 2, 3, E),
    (E, slice(None, None, 2), None), (slice(1, 2), E, None, 0),
    (0, 1, 2), (-4, -3, -4), (slice(None), slice(None), slice(None)),
]


def case_id(c):
    return repr(c).replace("slice", "s").replace("Ellipsis", "...")


@pytest.mark.parametrize("index", GETITEM_CASES, ids=case_id)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_getitem_vs_numpy(index, layout):
    a = np.arange(4 * 3 * 5, dtype=np.float32).reshape(4, 3, 5)
    x = make_tensor(a, layout)
    r = x[index]
    e = a[index]
    assert_close(r, e)
    assert r._shares_storage(x)
    if layout == "contiguous":  # strides agree wherever a dim has more than one element
        got = [st for st, n in zip(r.stride(), e.shape) if n > 1]
        assert got == [st // a.itemsize for st, n in zip(e.strides, e.shape) if n > 1]


@pytest.mark.parametrize("index", GETITEM_CASES[:20], ids=case_id)
def test_getitem_strides_match_torch(index):
    torch = pytest.importorskip("torch")
    a = np.arange(4 * 3 * 5, dtype=np.float32).reshape(4, 3, 5)
    r, tr = tl.tensor(a)[index], torch.from_numpy(a)[index]
    assert tuple(r.shape) == tuple(tr.shape)
    assert r.stride() == tr.stride()
    assert r.storage_offset() == tr.storage_offset()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_getitem_dtypes(dtype):
    a = random_array((3, 4), dtype)
    x = tl.tensor(a) if dtype != tl.bfloat16 else tl.tensor(a).to(tl.bfloat16)
    assert x[1].dtype == dtype and x[:, ::2].dtype == dtype and x[None, ..., 0].dtype == dtype
    if dtype != tl.bfloat16:
        assert_close(x[1, 2:], a[1, 2:])
        assert x[2, 3].item() == a[2, 3].item()


def test_getitem_bool_and_integer_like_indices():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    x = tl.tensor(a)
    assert x[True].shape == (1, 2, 3) and not x[True]._shares_storage(x)  # an advanced index, as in PyTorch
    assert x[False].shape == (0, 2, 3)
    assert x[None, True].shape == (1, 1, 2, 3)
    assert x[0, True].shape == (1, 3)
    assert_close(x[np.int64(1)], a[1])
    assert_close(x[np.int32(-1), np.uint8(2)], a[-1, 2])
    assert_close(x[tl.tensor(1)], a[1])  # 0-dim integer tensor reads as an int
    assert_close(x[1, tl.tensor(2)], a[1, 2])
    assert_close(x[tl.tensor(0):tl.tensor(2), np.int64(1):], a[0:2, 1:])


def test_getitem_zero_dim():
    s = tl.tensor(3.5)
    assert s[...].item() == 3.5 and s[...].shape == ()
    assert s[None].shape == (1,) and s[..., None].shape == (1,)
    assert s[()].shape == ()
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor. Use `tensor.item\\(\\)` in Python"):
        s[0]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        s[..., 0]
    with pytest.raises(IndexError, match="slice\\(\\) cannot be applied to a 0-dim tensor"):
        s[:]


def test_getitem_returns_new_view_objects():
    x = tl.zeros(2, 3)
    for v in (x[...], x[:], x[()], x[0], x[None]):
        assert v is not x and v._shares_storage(x)


def test_views_share_version_counter_and_write_through():
    base = tl.zeros(4, 5)
    v = base[1:3, ::2]
    assert v.shape == (2, 3) and v.stride() == (5, 2) and v.storage_offset() == 5
    v0 = base._version
    v.fill_(7.0)
    assert base._version == v._version and base._version > v0
    expected = np.zeros((4, 5), np.float32)
    expected[1:3, ::2] = 7
    assert_close(base, expected)
    w = base[2][3]  # chained indexing stays a view
    assert w.storage_offset() == 13
    base[2, 3] = -1.0
    assert w.item() == -1.0


@pytest.mark.parametrize(
    "index, exc, msg",
    [
        (5, IndexError, "index 5 is out of bounds for dimension 0 with size 4"),
        (-5, IndexError, "index -5 is out of bounds for dimension 0 with size 4"),
        ((0, 3), IndexError, "index 3 is out of bounds for dimension 1 with size 3"),
        ((E, 5), IndexError, "index 5 is out of bounds for dimension 2 with size 5"),
        ((slice(None), -4), IndexError, "index -4 is out of bounds for dimension 1 with size 3"),
        ((0, 0, 0, 0), IndexError, "too many indices for tensor of dimension 3"),
        ((E, 0, 0, 0, 0), IndexError, "too many indices for tensor of dimension 3"),
        ((slice(None),) * 4, IndexError, "too many indices for tensor of dimension 3"),
        ((None, 0, 0, 0, None, 0), IndexError, "too many indices for tensor of dimension 3"),
        (slice(None, None, 0), ValueError, "slice step cannot be zero"),
        (slice(None, None, -1), ValueError, "step must be greater than zero"),
        ((0, slice(3, 0, -2)), ValueError, "step must be greater than zero"),
        ((E, E), IndexError, "an index can only have a single ellipsis"),
        (1.5, IndexError, r"only integers, slices \(`:`\), ellipsis \(`...`\), None and long or byte Variables are "
                          r"valid indices \(got float\)"),
        ("a", IndexError, "got str"),
        ({0: 1}, IndexError, "got dict"),
        (2**70, ValueError, "Overflow"),
        (slice(0.5, 2), TypeError, "slice indices must be integers"),
    ],
    ids=lambda v: case_id(v) if not isinstance(v, type) else v.__name__,
)
def test_getitem_errors(index, exc, msg):
    x = tl.zeros(4, 3, 5)
    with pytest.raises(exc, match=msg):
        x[index]


def test_getitem_float_tensor_index_rejected():
    # Tensor and list indices are advanced indexing (tests/test_advanced_indexing.py).
    x = tl.zeros(4)
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[tl.tensor(1.0)]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[tl.tensor([0.0, 1.0])]


def test_huge_slice_bounds_clamp():
    a = np.arange(10)
    x = tl.tensor(a)
    assert_close(x[: 2**70], a)
    assert_close(x[-(2**70):3], a[:3])
    assert_close(x[2**62:], a[10:])
    assert_close(x[:: 2**70], a[:: 2**70])


# ---- __setitem__ ----------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    "index", [0, -1, (1, 2), slice(1, 3), (slice(None), 0), (E, 1), (slice(None, None, 2), E, slice(1, None, 2)),
              (None, 1), E, (0, None, slice(None))],
    ids=case_id,
)
def test_setitem_scalar(layout, index):
    a = np.arange(4 * 6, dtype=np.float64).reshape(4, 6)
    x = make_tensor(a.copy(), layout)
    v0 = x._version
    x[index] = -2.5
    e = a.copy()
    e[index] = -2.5
    assert_close(x, e)
    assert x._version > v0


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("value", [1, 0.0, True, 3.75, np.float32(2.0), np.int64(1)])
def test_setitem_scalar_kinds_and_dtypes(dtype, value):
    x = tl.zeros(3, 2, dtype=dtype)
    x[1] = value
    e = np.zeros((3, 2), NP_DTYPE.get(dtype, np.float32))
    e[1] = value
    assert_close(x.to(tl.float32) if dtype == tl.bfloat16 else x, e.astype(np.float32) if dtype == tl.bfloat16 else e)


@pytest.mark.parametrize(
    "index, value_shape",
    [(0, (5,)), (0, (1,)), (0, ()), (slice(1, 3), (2, 5)), (slice(1, 3), (5,)), (slice(1, 3), (2, 1)),
     ((slice(None), 2), (4,)), ((E, slice(0, 2)), (4, 1)), (0, (1, 5)), (0, (1, 1, 5)), (E, (1, 4, 5))],
    ids=case_id,
)
def test_setitem_broadcast_tensor(index, value_shape):
    a = np.zeros((4, 5), np.float32)
    x = tl.tensor(a.copy())
    val = np.arange(1, 1 + int(np.prod(value_shape)), dtype=np.float32).reshape(value_shape)
    x[index] = tl.tensor(val)
    e = a.copy()
    e[index] = val
    assert_close(x, e)


def test_setitem_converts_dtype_and_noncontiguous_value():
    x = tl.zeros(2, 3, dtype=tl.int32)
    x[0] = tl.tensor([1.9, -2.9, 3.5])  # float -> int truncates like a cast
    assert x.tolist() == [[1, -2, 3], [0, 0, 0]]
    y = tl.zeros(3, 2)
    src = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).t()  # (3, 2), non-contiguous
    y[...] = src
    assert y.tolist() == [[1, 4], [2, 5], [3, 6]]
    z = tl.zeros(4)
    z[::2] = tl.tensor([8.0, 9.0])
    assert z.tolist() == [8, 0, 9, 0]
    b = tl.tensor([True, False])
    b[0] = 0
    assert b.tolist() == [False, False]


def test_setitem_self_overlapping_rows():
    y = tl.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y[0] = y[1]
    assert y.tolist() == [[3, 4, 5], [3, 4, 5]]


def test_setitem_writes_through_views():
    base = tl.zeros(3, 4)
    v = base.t()  # (4, 3)
    v[1:3, 0] = 5.0
    v[-1] = tl.tensor([1.0, 2.0, 3.0])
    e = np.zeros((3, 4), np.float32)
    e[0, 1:3] = 5
    e[:, -1] = [1, 2, 3]
    assert_close(base, e)
    s = tl.tensor(1.0)
    s[...] = 4
    assert s.item() == 4.0
    s[()] = tl.tensor(6.0)
    assert s.item() == 6.0


def test_setitem_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match="must be greater or equal to the number of dimensions"):
        x[0] = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(3\) must match the existing size \(4\)"):
        x[0] = tl.zeros(4)
    with pytest.raises(TypeError, match="can't assign a str to a torch.FloatTensor"):
        x[0] = "a"
    with pytest.raises(TypeError, match="can't assign a NoneType to a torch.LongTensor"):
        tl.zeros(2, dtype=tl.int64)[0] = None
    with pytest.raises(TypeError, match="can't assign a list"):
        x[0] = [1, 2, 3]
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        x[2] = 1.0
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1] = 1.0
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0] = 1.0
    with pytest.raises(ValueError, match="overflow"):
        x[0] = 2**70
    assert x.tolist() == [[0.0] * 3] * 2  # nothing was written

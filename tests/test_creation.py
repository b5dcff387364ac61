"""Creation and random ops: zeros/ones/full(_like), empty_like, new_*, arange, linspace, eye,
zero_/fill_, rand/randn/randint(_like), uniform_/normal_/random_ — values, dtypes, shapes,
out= forms, reproducibility under seeds and generators, and error paths."""

import numpy as np
import pytest

import torchlite as tl
from helpers import TORCH, ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, NP_DTYPE, assert_close, to_numpy


needs_torch = pytest.mark.skipif(TORCH is None, reason="PyTorch not installed")


def torch_dtype(dt):
    return getattr(TORCH, str(dt).split(".")[-1])


# ---- zeros / ones / full --------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 0, 4), (1, 2, 3, 1)])
@pytest.mark.parametrize("fn, npfn", [(tl.zeros, np.zeros), (tl.ones, np.ones)])
def test_zeros_ones_shapes(fn, npfn, shape):
    t = fn(shape)
    assert t.dtype == tl.float32 and t.shape == shape and t.is_contiguous()
    assert_close(t, npfn(shape, np.float32))
    if shape:
        assert_close(fn(*shape), npfn(shape, np.float32))  # varargs form
        assert_close(fn(list(shape)), npfn(shape, np.float32))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zeros_ones_dtypes(dtype):
    z, o = tl.zeros(2, 3, dtype=dtype), tl.ones((2, 3), dtype=dtype)
    assert z.dtype == dtype and o.dtype == dtype
    npd = NP_DTYPE.get(dtype, np.float32)
    assert_close(z, np.zeros((2, 3), npd))
    assert_close(o, np.ones((2, 3), npd))


def test_zeros_scalar_int_size_and_device():
    assert tl.zeros(4).shape == (4,)
    assert tl.zeros((), dtype=tl.int64).item() == 0
    t = tl.ones(2, device="cpu")
    assert t.device == tl.device("cpu")
    t = tl.zeros(2, device=tl.device("cpu"), dtype=tl.float64)
    assert t.dtype == tl.float64


@pytest.mark.parametrize(
    "value, dtype", [(3, tl.int64), (3.0, tl.float32), (True, tl.bool), (-2.5, tl.float32), (0, tl.int64)]
)
def test_full_infers_dtype(value, dtype):
    t = tl.full((2, 2), value)
    assert t.dtype == dtype
    assert t.tolist() == [[value, value], [value, value]]
    if TORCH is not None:
        assert str(TORCH.full((2,), value).dtype).split(".")[-1] == str(dtype).split(".")[-1]


def test_full_default_dtype_follows_set_default_dtype():
    old = tl.get_default_dtype()
    try:
        tl.set_default_dtype(tl.float64)
        assert tl.full((1,), 1.5).dtype == tl.float64
        assert tl.zeros(1).dtype == tl.float64
        assert tl.arange(0.0, 1.0).dtype == tl.float64
    finally:
        tl.set_default_dtype(old)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_full_explicit_dtype(dtype):
    t = tl.full([3], 1, dtype=dtype)
    assert t.dtype == dtype
    assert_close(t, np.ones(3, NP_DTYPE.get(dtype, np.float32)))
    assert tl.full((2,), 2.75, dtype=tl.int32).tolist() == [2, 2]  # converted like a cast


def test_zeros_ones_full_out():
    out = tl.empty(5)
    r = tl.zeros((2, 3), out=out)
    assert r is out and out.shape == (2, 3) and out.tolist() == [[0.0] * 3] * 2
    tl.ones((4,), out=out)
    assert out.tolist() == [1.0] * 4
    o64 = tl.empty(0, dtype=tl.int64)
    tl.full((2,), 7, out=o64)
    assert o64.dtype == tl.int64 and o64.tolist() == [7, 7]


def test_factory_errors():
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        tl.zeros(2, -1)
    with pytest.raises(RuntimeError, match="negative dimension"):
        tl.full((-1,), 2)
    with pytest.raises((TypeError, RuntimeError)):  # TODO(bindings): int_list_from_args raises RuntimeError
        tl.zeros("a")
    with pytest.raises((TypeError, RuntimeError)):
        tl.ones(2.5)


# ---- *_like and new_* -----------------------------------------------------------------------


LIKE_INPUTS = {
    "contiguous": lambda: tl.tensor(np.arange(24, dtype=np.float64).reshape(2, 3, 4)),
    "permuted": lambda: tl.tensor(np.arange(24, dtype=np.float64).reshape(2, 3, 4)).permute(2, 0, 1),
    "permuted_sliced": lambda: tl.tensor(np.arange(24, dtype=np.float64).reshape(2, 3, 4)).permute(2, 0, 1)[::2],
    "sliced": lambda: tl.tensor(np.arange(24, dtype=np.float64).reshape(2, 3, 4))[:, :, ::2],
    "expanded": lambda: tl.zeros(3, 1, dtype=tl.float64).expand(3, 4),
    "transposed": lambda: tl.zeros(4, 3, dtype=tl.float64).t(),
}
EXPECTED_LIKE_STRIDES = {  # what PyTorch gives (preserve_format)
    "contiguous": (12, 4, 1),
    "permuted": (1, 12, 4),
    "permuted_sliced": (1, 6, 2),
    "sliced": (6, 2, 1),
    "expanded": (4, 1),
    "transposed": (1, 3),
}


@pytest.mark.parametrize("layout", list(LIKE_INPUTS))
def test_like_factories_preserve_layout(layout):
    x = LIKE_INPUTS[layout]()
    for fn in (tl.empty_like, tl.zeros_like, tl.ones_like, tl.rand_like, tl.randn_like,
               lambda t: tl.full_like(t, 2), lambda t: tl.randint_like(t, 5)):
        y = fn(x)
        assert y.shape == x.shape and y.dtype == x.dtype
        assert y.stride() == EXPECTED_LIKE_STRIDES[layout], (fn, y.stride())
        assert not y._shares_storage(x)
    c = tl.zeros_like(x, memory_format=tl.contiguous_format)
    assert c.is_contiguous()


def test_like_values_and_dtype_override():
    x = tl.tensor([[1.5, 2.5], [3.5, 4.5]])
    assert_close(tl.zeros_like(x), np.zeros((2, 2), np.float32))
    assert_close(tl.ones_like(x, dtype=tl.int32), np.ones((2, 2), np.int32))
    assert_close(tl.full_like(x, 7), np.full((2, 2), 7, np.float32))  # keeps x's dtype
    assert_close(tl.full_like(x, 7, dtype=tl.int64), np.full((2, 2), 7, np.int64))
    assert_close(tl.full_like(x.long(), 2.9), np.full((2, 2), 2, np.int64))
    assert tl.empty_like(x, dtype=tl.float16).dtype == tl.float16
    assert tl.zeros_like(x, device="cpu").device == tl.device("cpu")
    e = tl.empty_like(tl.tensor(1.0))
    assert e.shape == () and e.dtype == tl.float32


def test_new_factories():
    x = tl.tensor([1, 2, 3], dtype=tl.int16)
    assert x.new_zeros(2, 3).dtype == tl.int16 and x.new_zeros((2, 3)).tolist() == [[0] * 3] * 2
    assert x.new_ones([2]).tolist() == [1, 1]
    assert x.new_full((2,), 5).tolist() == [5, 5] and x.new_full((2,), 5).dtype == tl.int16
    assert x.new_empty(4, dtype=tl.float64).dtype == tl.float64
    assert x.new_empty((0,)).shape == (0,)


# ---- arange ---------------------------------------------------------------------------------

ARANGE_CASES = [
    ((5,), {}),
    ((0,), {}),
    ((2, 7), {}),
    ((2, 7, 2), {}),
    ((7, 2, -2), {}),
    ((0, 1, 0.25), {}),
    ((5.0,), {}),
    ((-1.5, 3.7, 1.1), {}),
    ((1, 2.5, 0.5), {}),
    ((0, 10, 3), {"dtype": tl.float32}),
    ((0, 10, 3), {"dtype": tl.float64}),
    ((0.5, 3), {"dtype": tl.int64}),
    ((0.5, 3), {"dtype": tl.int32}),
    ((10, 0, -3), {"dtype": tl.int8}),
    ((0, 5), {"dtype": tl.float16}),
    ((0, 2, 0.3), {"dtype": tl.float64}),
    ((3, 3), {}),
    ((-5, 5, 1), {"dtype": tl.int16}),
]


@pytest.mark.parametrize("args, kwargs", ARANGE_CASES)
def test_arange_vs_numpy(args, kwargs):
    t = tl.arange(*args, **kwargs)
    float_args = any(isinstance(a, float) for a in args)
    dtype = kwargs.get("dtype", tl.float32 if float_args else tl.int64)
    assert t.dtype == dtype and t.dim() == 1
    if dtype in (tl.float32, tl.float64, tl.float16) or not float_args:
        expected = np.arange(*args, dtype=np.float64)
        assert_close(t, expected.astype(NP_DTYPE[dtype]), rtol=1e-6, atol=1e-6)
    if TORCH is not None:
        tkw = {"dtype": torch_dtype(kwargs["dtype"])} if "dtype" in kwargs else {}
        ref = TORCH.arange(*args, **tkw)
        assert str(ref.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_array_equal(to_numpy(t), ref.float().numpy() if ref.dtype == TORCH.float16 else ref.numpy())


def test_arange_out():
    out = tl.empty(2, dtype=tl.int32)
    r = tl.arange(0, 10, 3, out=out)
    assert r is out and out.tolist() == [0, 3, 6, 9] and out.dtype == tl.int32
    tl.arange(4, out=out)
    assert out.tolist() == [0, 1, 2, 3]
    f = tl.empty(0, dtype=tl.float64)
    tl.arange(0, 1, 0.5, out=f)
    assert f.tolist() == [0.0, 0.5]


@pytest.mark.parametrize(
    "args, msg",
    [
        ((0, 5, 0), "step must be nonzero"),
        ((0, 5, -1), "upper bound and lower bound inconsistent with step sign"),
        ((5, 0, 1), "upper bound and lower bound inconsistent with step sign"),
        ((0, float("nan")), "unsupported range: 0 -> nan"),
        ((0, float("inf")), "unsupported range: 0 -> inf"),
    ],
)
def test_arange_errors(args, msg):
    with pytest.raises(RuntimeError, match=msg):
        tl.arange(*args)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tl.arange(0, 5, 0.4, dtype=tl.int64)  # the step truncates to 0


# ---- linspace -------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "start, end, steps, dtype",
    [
        (0, 1, 5, None),
        (-1, 1, 7, tl.float64),
        (0, 10, 4, tl.int64),
        (0, 10, 5, tl.int32),
        (3, 3, 1, None),
        (0, 1, 0, None),
        (10, -10, 6, None),
        (-1, 1, 7, tl.float16),
        (0, 1, 100, tl.float32),
        (2, 5, 2, tl.uint8),
    ],
)
def test_linspace(start, end, steps, dtype):
    kw = {"dtype": dtype} if dtype else {}
    t = tl.linspace(start, end, steps, **kw)
    dt = dtype or tl.float32
    assert t.dtype == dt and t.shape == (steps,)
    npd = NP_DTYPE[dt]
    if np.issubdtype(npd, np.floating):
        assert_close(t, np.linspace(start, end, steps).astype(npd))
    if TORCH is not None:
        ref = TORCH.linspace(start, end, steps, **({"dtype": torch_dtype(dtype)} if dtype else {}))
        np.testing.assert_array_equal(to_numpy(t), ref.numpy())


def test_linspace_out_and_errors():
    out = tl.empty(1, dtype=tl.float64)
    r = tl.linspace(0, 1, 3, out=out)
    assert r is out and out.tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        tl.linspace(0, 1, -1)


# ---- eye ------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, m", [(0, None), (1, None), (3, None), (2, 3), (4, 2), (0, 3), (3, 0)])
@pytest.mark.parametrize("dtype", [None, tl.int32, tl.bool, tl.float64])
def test_eye(n, m, dtype):
    kw = {"dtype": dtype} if dtype else {}
    t = tl.eye(n, **kw) if m is None else tl.eye(n, m, **kw)
    dt = dtype or tl.float32
    assert t.dtype == dt
    assert_close(t, np.eye(n, m, dtype=NP_DTYPE[dt]))


def test_eye_out_and_errors():
    out = tl.zeros(5, 5)
    r = tl.eye(2, 3, out=out)
    assert r is out and out.tolist() == [[1, 0, 0], [0, 1, 0]]
    # a non-contiguous out is written in place
    base = tl.full((3, 3), 9.0)
    tl.eye(3, out=base.t())
    assert base.tolist() == np.eye(3).tolist()
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        tl.eye(-1)
    with pytest.raises(RuntimeError, match="m must be greater or equal to 0, got -2"):
        tl.eye(2, -2)


# ---- zero_ / fill_ --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zero_and_fill_tensor(dtype):
    x = tl.ones(2, 3, dtype=dtype)
    v0 = x._version
    assert x.zero_() is x and x._version > v0
    assert_close(x, np.zeros((2, 3), NP_DTYPE.get(dtype, np.float32)))
    r = x.fill_(tl.tensor(1))
    assert r is x
    assert_close(x, np.ones((2, 3), NP_DTYPE.get(dtype, np.float32)))
    assert tl.zero_(x) is x
    assert_close(x, np.zeros((2, 3), NP_DTYPE.get(dtype, np.float32)))


def test_zero_and_fill_on_views():
    base = tl.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    base[:, 1].zero_()
    base.t()[0].fill_(tl.tensor(-1.0))  # column 0 through a transposed view
    expected = np.arange(12, dtype=np.float32).reshape(3, 4)
    expected[:, 1] = 0
    expected[:, 0] = -1
    assert_close(base, expected)
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1 dim"):
        base.fill_(tl.tensor([1.0, 2.0]))


# ---- random ---------------------------------------------------------------------------------

def test_rand_shapes_dtypes_and_range():
    t = tl.rand(1000, 10)
    assert t.shape == (1000, 10) and t.dtype == tl.float32
    a = t.numpy()
    assert a.min() >= 0 and a.max() < 1
    assert abs(a.mean() - 0.5) < 0.01
    assert tl.rand((2, 3), dtype=tl.float64).dtype == tl.float64
    assert tl.rand(()).shape == ()
    assert tl.rand(0).shape == (0,)
    for dt in (tl.float16, tl.bfloat16):
        h = to_numpy(tl.rand(1000, dtype=dt))
        assert h.min() >= 0 and h.max() <= 1


def test_randn_statistics():
    tl.manual_seed(0)
    a = tl.randn(100_000).numpy().astype(np.float64)
    assert abs(a.mean()) < 0.02 and abs(a.std() - 1) < 0.02
    # tails of a normal: about 4.55% beyond 2 sigma
    assert 0.04 < np.mean(np.abs(a) > 2) < 0.051
    d = tl.randn(50_000, dtype=tl.float64).numpy()
    assert d.dtype == np.float64 and abs(d.mean()) < 0.03


def test_normal_uniform_inplace():
    tl.manual_seed(1)
    x = tl.empty(100_000, dtype=tl.float64)
    v0 = x._version
    assert x.normal_(3.0, 2.0) is x and x._version > v0
    a = x.numpy()
    assert abs(a.mean() - 3) < 0.05 and abs(a.std() - 2) < 0.05
    assert x.uniform_(-2, 5) is x
    a = x.numpy()
    assert a.min() >= -2 and a.max() < 5 and abs(a.mean() - 1.5) < 0.05
    f = tl.empty(200_000).uniform_(-2, 5).numpy()  # float32 rounding never reaches `to`
    assert f.min() >= -2 and f.max() < 5
    x.normal_(mean=1.0, std=0.0)
    assert (x.numpy() == 1.0).all()
    x.uniform_(**{"from": 2.0, "to": 2.0})
    assert (x.numpy() == 2.0).all()


def test_random_on_noncontiguous_matches_logical_order():
    base = tl.zeros(4, 6)
    view = base.t()  # non-contiguous
    tl.manual_seed(7)
    view.uniform_()
    tl.manual_seed(7)
    ref = tl.empty(6, 4).uniform_()
    assert_close(view, ref.numpy())
    assert_close(base, ref.numpy().T)
    # strided slice: only the selected elements change
    base = tl.zeros(10)
    base[::2].normal_()
    a = base.numpy()
    assert (a[1::2] == 0).all() and (a[::2] != 0).all()


@pytest.mark.parametrize(
    "make",
    [
        lambda **g: tl.rand(3, 4, **g),
        lambda **g: tl.randn((5,), **g),
        lambda **g: tl.randint(0, 100, (6,), **g),
        lambda **g: tl.randint(50, (2, 2), **g),
        lambda **g: tl.rand_like(tl.zeros(3), **g),
        lambda **g: tl.randn_like(tl.zeros(2, 2, dtype=tl.float64), **g),
        lambda **g: tl.randint_like(tl.zeros(4), 10, **g),
        lambda **g: tl.randint_like(tl.zeros(4, dtype=tl.int32), -5, 5, **g),
        lambda **g: tl.empty(8).normal_(**g),
        lambda **g: tl.empty(8).uniform_(**g),
        lambda **g: tl.empty(8, dtype=tl.int64).random_(**g),
        lambda **g: tl.empty(8, dtype=tl.int64).random_(7, **g),
        lambda **g: tl.empty(8, dtype=tl.int64).random_(-3, 3, **g),
    ],
)
def test_reproducibility(make):
    tl.manual_seed(123)
    a = make().tolist()
    b = make().tolist()
    tl.manual_seed(123)
    assert make().tolist() == a
    assert make().tolist() == b
    assert a != b or len(a) == 0

    g = tl.Generator().manual_seed(5)
    c = make(generator=g).tolist()
    g.manual_seed(5)
    tl.manual_seed(999)  # the default generator does not matter when one is passed
    assert make(generator=g).tolist() == c
    # an explicit generator does not advance the default one
    tl.manual_seed(123)
    make(generator=tl.Generator())
    assert make().tolist() == a


def test_generator_object():
    g = tl.Generator()
    assert g.manual_seed(42) is g and g.initial_seed() == 42
    assert tl.manual_seed(3).initial_seed() == 3 and tl.initial_seed() == 3
    g2 = tl.Generator().manual_seed(42)
    assert tl.rand(5, generator=g).tolist() == tl.rand(5, generator=g2).tolist()
    assert tl.rand(2, 3, generator=None).shape == (2, 3)


@pytest.mark.parametrize("dtype", [tl.int64, tl.int32, tl.int16, tl.int8, tl.uint8, tl.float32, tl.float64])
def test_randint_range_and_dtype(dtype):
    tl.manual_seed(0)
    t = tl.randint(-3 if dtype != tl.uint8 else 0, 4, (20_000,), dtype=dtype)
    assert t.dtype == dtype
    a = to_numpy(t)
    lo = -3 if dtype != tl.uint8 else 0
    assert set(np.unique(a).tolist()) == set(range(lo, 4))
    counts = np.bincount((a - lo).astype(np.int64))
    assert counts.min() > 0.8 * counts.mean()


def test_randint_defaults_and_like():
    assert tl.randint(10, (3,)).dtype == tl.int64
    assert tl.randint(1, 2, (5,)).tolist() == [1] * 5
    assert tl.randint(3, size=(2,)).shape == (2,)
    x = tl.zeros(2, 3)
    r = tl.randint_like(x, 10)
    assert r.dtype == tl.float32 and r.shape == (2, 3)
    a = r.numpy()
    assert ((a >= 0) & (a < 10) & (a == np.floor(a))).all()
    assert tl.randint_like(x, 3, 4, dtype=tl.int64).tolist() == [[3] * 3] * 2


@pytest.mark.parametrize("dtype", [tl.bool, *INT_DTYPES, *FLOAT_DTYPES])
def test_random_full_range(dtype):
    t = tl.empty(2000, dtype=dtype).random_()
    a = to_numpy(t).astype(np.float64)
    hi = {tl.bool: 1, tl.float32: 2**24, tl.float64: 2**53}.get(dtype)
    if hi is None:
        hi = np.iinfo(NP_DTYPE[dtype]).max
    assert a.min() >= 0 and a.max() <= hi
    assert len(np.unique(a)) > 1


def test_random_errors():
    with pytest.raises(NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"):
        tl.rand(2, dtype=tl.int64)
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Int'"):
        tl.randn(2, dtype=tl.int32)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.zeros(2, dtype=tl.bool).uniform_()
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        tl.zeros(2).normal_(0, -1)
    with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range, but found from=1 > to=0"):
        tl.zeros(2).uniform_(1, 0)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got from=5 >= to=3"):
        tl.randint(5, 3, (2,))
    with pytest.raises(RuntimeError, match="from=0 >= to=0"):
        tl.randint(0, (2,))
    with pytest.raises(RuntimeError, match="from=5 >= to=3"):
        tl.zeros(2).random_(5, 3)
    with pytest.raises(RuntimeError, match="out of bounds for int8"):
        tl.zeros(2, dtype=tl.int8).random_(0, 1000)
    with pytest.raises(TypeError):
        tl.rand(2, generator="not a generator")


def test_random_on_empty_tensors():
    assert tl.rand(0, 3).shape == (0, 3)
    assert tl.empty(0).normal_().shape == (0,)
    assert tl.randint(5, (0,)).shape == (0,)


def test_empty_out_resizes_and_keeps_out():
    out = tl.zeros(2, dtype=tl.int32)
    assert tl.empty((3, 4), out=out) is out and out.shape == (3, 4) and out.dtype == tl.int32
    assert tl.empty(2, 5, out=out).shape == (2, 5)

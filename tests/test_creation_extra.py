"""Creation functions composed in Python, against PyTorch: as_tensor, asarray, frombuffer,
logspace, the windows, tril/triu_indices, Tensor.new_tensor and Tensor.new_empty_strided."""

import array

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")


def _name(dtype):
    return str(dtype).split(".")[-1]


def _same(ours, theirs, rtol=1e-7, atol=0.0):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert _name(ours.dtype) == _name(theirs.dtype)
    np.testing.assert_allclose(ours.float().numpy(), theirs.float().numpy(), rtol=rtol, atol=atol)


DATA = [[1, 2], [[1.5], [2.5]], 3, 2.5, True, [], np.arange(6, dtype=np.int16).reshape(2, 3), np.array(1.5, dtype=np.float32), np.int64(3),
        np.zeros((0, 2))]


@pytest.mark.parametrize("data", DATA)
@pytest.mark.parametrize("dtype", [None, "float64", "int32"])
def test_as_tensor_and_asarray(data, dtype):
    kw = {} if dtype is None else {"dtype": getattr(tl, dtype)}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    _same(tl.as_tensor(data, **kw), torch.as_tensor(data, **tkw))
    _same(tl.asarray(data, **kw), torch.asarray(data, **tkw))


def test_as_tensor_shares_memory_when_it_can():
    a = np.arange(3.0)
    t = tl.as_tensor(a)
    a[0] = 7.0
    assert t[0].item() == 7.0
    assert tl.as_tensor(a, dtype=tl.float32)[0].item() == 7.0
    x = tl.ones(2)
    assert tl.as_tensor(x) is x and tl.as_tensor(x, dtype=tl.float64) is not x


def test_asarray_copy_rules():
    x = tl.ones(2)
    assert tl.asarray(x) is x
    assert not tl.asarray(x, copy=True)._shares_storage(x)
    with pytest.raises(ValueError, match="can't alias"):
        tl.asarray(x, dtype=tl.int64, copy=False)
    with pytest.raises(ValueError, match="can't alias"):
        tl.asarray([1, 2], copy=False)
    a = np.arange(3.0)
    shared, copied = tl.asarray(a), tl.asarray(a, copy=True)
    a[1] = 9.0
    assert shared[1].item() == 9.0 and copied[1].item() == 1.0
    assert tl.asarray([1.0], requires_grad=True).requires_grad


@pytest.mark.parametrize("buf", [bytearray(b"\x00\x00\x80\x3f\x00\x00\x00\x40"), array.array("f", [1.0, 2.0, 3.0, 4.0])])
def test_asarray_reads_buffers_as_the_dtype(buf):
    _same(tl.asarray(buf), torch.asarray(buf))
    _same(tl.asarray(buf, dtype=tl.uint8), torch.asarray(buf, dtype=torch.uint8))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "bool"])
@pytest.mark.parametrize("count,offset", [(-1, 0), (2, 0), (1, 8), (-1, 16)])
def test_frombuffer(dtype, count, offset):
    buf = bytearray(np.arange(32, dtype=np.uint8).tobytes())
    if dtype == "bool":
        buf = bytearray(b"\x00\x01" * 16)
    ours = tl.frombuffer(buf, dtype=getattr(tl, dtype), count=count, offset=offset)
    theirs = torch.frombuffer(buf, dtype=getattr(torch, dtype), count=count, offset=offset)
    _same(ours, theirs)


def test_frombuffer_shares_writable_buffers():
    buf = bytearray(8)
    t = tl.frombuffer(buf, dtype=tl.int32)
    buf[0] = 5
    assert t.tolist() == [5, 0]
    assert tl.frombuffer(b"\x01\x02", dtype=tl.uint8, requires_grad=False).tolist() == [1, 2]
    assert tl.frombuffer(bytearray(4), dtype=tl.float32, requires_grad=True).requires_grad


@pytest.mark.parametrize("kw", [dict(buffer=b"abc", dtype="int32"), dict(buffer=bytearray(8), dtype="int32", offset=9),
                                dict(buffer=bytearray(8), dtype="int32", count=5), dict(buffer=bytearray(0), dtype="int32"),
                                dict(buffer=bytearray(8), dtype="int32", offset=2), dict(buffer=bytearray(8), dtype="int32",
                                                                                          offset=-1)])
@pytest.mark.filterwarnings("ignore:The given buffer is not writable")
def test_frombuffer_errors(kw):
    for m in (tl, torch):
        with pytest.raises(ValueError):
            m.frombuffer(**{**kw, "dtype": getattr(m, kw["dtype"])})


@pytest.mark.parametrize("start,end,steps,base", [(0, 2, 3, 10.0), (-1, 1, 5, 2.0), (1, 1, 1, 10.0), (0, 3, 0, 10.0),
                                                  (2.5, -1.5, 4, 3.0), (0, 1, 2, 0.5)])
@pytest.mark.parametrize("dtype", [None, "float64", "int64", "float32"])
def test_logspace(start, end, steps, base, dtype):
    kw = {} if dtype is None else {"dtype": getattr(tl, dtype)}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    _same(tl.logspace(start, end, steps, base, **kw), torch.logspace(start, end, steps, base, **tkw), rtol=1e-6)
    out = tl.empty(5, dtype=tl.float64)
    assert tl.logspace(start, end, steps, base, out=out) is out
    _same(out, torch.logspace(start, end, steps, base, out=torch.empty(5, dtype=torch.float64)), rtol=1e-6)


def test_logspace_errors_and_requires_grad():
    for m in (tl, torch):
        with pytest.raises(RuntimeError, match="non-negative"):
            m.logspace(0, 1, -1)
    assert tl.logspace(0, 1, 3, requires_grad=True).requires_grad


WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", [None, "float64", "float16"])
def test_windows(name, n, periodic, dtype):
    kw = {} if dtype is None else {"dtype": getattr(tl, dtype)}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    # PyTorch computes in the window's dtype, torchlite in float64 and rounds once: float16 differs by an ulp
    low = dtype == "float16"
    _same(getattr(tl, name)(n, periodic, **kw), getattr(torch, name)(n, periodic, **tkw), rtol=1e-2 if low else 1e-5,
          atol=2e-3 if low else 1e-6)


def test_window_parameters():
    _same(tl.hamming_window(6, False, 0.5, 0.4), torch.hamming_window(6, False, 0.5, 0.4), rtol=1e-5, atol=1e-7)
    _same(tl.kaiser_window(7, False, 5.0), torch.kaiser_window(7, False, 5.0), rtol=1e-5, atol=1e-7)
    _same(tl.kaiser_window(7, True, 0.0), torch.kaiser_window(7, True, 0.0))
    w = tl.hann_window(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf


@pytest.mark.parametrize("name", WINDOWS)
def test_window_errors(name):
    for m in (tl, torch):
        with pytest.raises(RuntimeError, match="non-negative window_length"):
            getattr(m, name)(-1)
        with pytest.raises(RuntimeError, match="floating point"):
            getattr(m, name)(3, dtype=m.int64)


@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (3, 4, 1), (4, 3, -1), (0, 3, 0), (3, 0, 0), (2, 5, -4), (3, 3, 7)])
@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_tri_indices(row, col, offset, name):
    _same(getattr(tl, name)(row, col, offset), getattr(torch, name)(row, col, offset))
    _same(getattr(tl, name)(row, col, offset, dtype=tl.int32), getattr(torch, name)(row, col, offset, dtype=torch.int32))


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_tri_indices_errors(name):
    for m in (tl, torch):
        with pytest.raises(RuntimeError, match="row must be non-negative"):
            getattr(m, name)(-1, 3)
        with pytest.raises(RuntimeError, match="col must be non-negative"):
            getattr(m, name)(3, -1)
        with pytest.raises(NotImplementedError):
            getattr(m, name)(3, 3, dtype=m.float32)


@pytest.mark.parametrize("data", [[1, 2], 2.5, [[True]], []])
@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_new_tensor(data, dtype):
    x, y = tl.ones(1, dtype=getattr(tl, dtype)), torch.ones(1, dtype=getattr(torch, dtype))
    _same(x.new_tensor(data), y.new_tensor(data))
    _same(x.new_tensor(data, dtype=tl.int16), y.new_tensor(data, dtype=torch.int16))
    assert x.new_tensor(data, dtype=tl.float32, requires_grad=True).requires_grad


def test_new_tensor_copies_a_tensor_and_detaches():
    x = tl.ones(2, requires_grad=True)
    t = x.new_tensor(x)
    assert not t.requires_grad and not t._shares_storage(x)


@pytest.mark.parametrize("size,stride", [((2, 3), (1, 2)), ((0, 2), (2, 1)), ((), ()), ((3,), (2,))])
def test_new_empty_strided(size, stride):
    x = tl.ones(1, dtype=tl.int16)
    t = x.new_empty_strided(size, stride)
    want = torch.ones(1, dtype=torch.int16).new_empty_strided(size, stride)
    assert t.shape == tuple(want.shape) and t.stride() == want.stride() and t.dtype == tl.int16
    assert x.new_empty_strided(size, stride, dtype=tl.float64, requires_grad=True).requires_grad


def test_creation_follows_the_default_device():
    with tl.device("cpu"):
        assert tl.hann_window(3).device.type == "cpu"
        assert tl.logspace(0, 1, 2).device.type == "cpu"
        assert tl.as_tensor([1]).device.type == "cpu"


FACTORY_OUT = [
    ("zeros", (2, 3), {}), ("ones", ((4,),), {}), ("full", ((2,), 7), {}), ("eye", (2, 3), {}),
    ("eye", (3,), {}), ("linspace", (0, 1, 5), {}), ("arange", (1, 7, 2), {}), ("arange", (4,), {}),
]


@pytest.mark.parametrize("name,args,kwargs", FACTORY_OUT)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_factory_out_matches_pytorch(name, args, kwargs, dtype):
    """A factory given out= writes (and resizes) out and returns it, dtype= must agree with out's,
    and requires_grad= applies to out: PyTorch's factory bindings."""
    out, tout = tl.empty(0, dtype=getattr(tl, dtype)), torch.empty(0, dtype=getattr(torch, dtype))
    r = getattr(tl, name)(*args, out=out, **kwargs)
    assert r is out
    _same(out, getattr(torch, name)(*args, out=tout, **kwargs))
    # the dtype and device asked for are out's: fine; another dtype: PyTorch's error
    getattr(tl, name)(*args, out=out, dtype=getattr(tl, dtype), device="cpu")
    other = "float64" if dtype == "int64" else "int64"
    with pytest.raises(RuntimeError) as ours:
        getattr(tl, name)(*args, out=out, dtype=getattr(tl, other))
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch, name)(*args, out=tout, dtype=getattr(torch, other))
    assert str(ours.value) == str(theirs.value).splitlines()[0]
    if dtype == "float32":
        assert getattr(tl, name)(*args, out=tl.empty(0), requires_grad=True).requires_grad


def test_factory_option_defaults_are_pytorchs():
    """layout=strided, pin_memory=False and memory_format=preserve/contiguous_format, given
    explicitly, are the defaults; rounding_mode=None and generator=None too."""
    x = tl.arange(6.0).reshape(2, 3)
    assert tl.zeros(2, layout=tl.strided, pin_memory=False).tolist() == [0.0, 0.0]
    assert tl.empty(2, 3, memory_format=tl.contiguous_format).is_contiguous()
    t = x.t()
    for like in (tl.empty_like, tl.zeros_like, tl.ones_like, tl.rand_like, tl.randn_like):
        assert like(t, memory_format=tl.preserve_format).stride() == like(t).stride() == torch.empty_like(
            torch.arange(6.0).reshape(2, 3).t()).stride()
    assert tl.clone(x, memory_format=tl.preserve_format).tolist() == x.tolist()
    assert tl.div(x, 4, rounding_mode=None).tolist() == (x / 4).tolist()
    g = tl.Generator().manual_seed(3)
    a = tl.rand(3, generator=g)
    assert tl.rand(3, generator=tl.Generator().manual_seed(3)).tolist() == a.tolist()
    assert tl.rand(3, generator=None).shape == (3,)

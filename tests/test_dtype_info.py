"""Conversions and dtypes at the Python level: finfo/iinfo, can_cast, is_complex/is_signed,
Tensor.type and the short casts, the legacy constructors, the default device, set_printoptions."""

import math

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def _name(dtype):
    return str(dtype).split(".")[-1]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_pytorch(name):
    ours, theirs = tl.finfo(getattr(tl, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)


def test_finfo_defaults_to_the_default_dtype():
    assert tl.finfo().dtype == "float32"
    tl.set_default_dtype(tl.float64)
    try:
        assert tl.finfo().dtype == "float64"
    finally:
        tl.set_default_dtype(tl.float32)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_pytorch(name):
    ours, theirs = tl.iinfo(getattr(tl, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("call", [lambda m: m.finfo(m.int32), lambda m: m.iinfo(m.float32),
                                  lambda m: m.iinfo(m.bool), lambda m: m.finfo("float32"),
                                  lambda m: m.can_cast(m.float32, 1), lambda m: m.is_complex(3)])
def test_dtype_info_errors_are_type_errors(call):
    with pytest.raises(TypeError):
        call(torch)
    with pytest.raises(TypeError):
        call(tl)


@pytest.mark.parametrize("src", DTYPES)
@pytest.mark.parametrize("dst", DTYPES)
def test_can_cast_matches_pytorch(src, dst):
    assert tl.can_cast(getattr(tl, src), getattr(tl, dst)) == torch.can_cast(getattr(torch, src), getattr(torch, dst))


@pytest.mark.parametrize("name", DTYPES)
def test_is_signed_and_is_complex(name):
    x, y = tl.ones(2, dtype=getattr(tl, name)), torch.ones(2, dtype=getattr(torch, name))
    assert tl.is_signed(x) == x.is_signed() == torch.is_signed(y)
    assert tl.is_complex(x) == x.is_complex() == torch.is_complex(y)
    assert tl.promote_types(getattr(tl, name), tl.int8) == getattr(tl, _name(torch.promote_types(y.dtype, torch.int8)))


@pytest.mark.parametrize("name", DTYPES)
def test_type_string_and_short_casts(name):
    x, y = tl.zeros((2, 0)).to(getattr(tl, name)), torch.zeros((2, 0)).to(getattr(torch, name))
    assert x.type() == y.type()
    for cast in ("byte", "char", "short", "int", "long", "half", "bfloat16", "float", "double", "bool"):
        assert _name(getattr(x, cast)().dtype) == _name(getattr(y, cast)().dtype), cast
        assert getattr(x, cast)().shape == (2, 0)


@pytest.mark.parametrize("target", ["torch.IntTensor", "torchlite.DoubleTensor", "torch.HalfTensor", "torch.BoolTensor"])
def test_type_converts(target):
    x = tl.tensor([[1.5, -2.0]])
    y = torch.tensor([[1.5, -2.0]])
    got = x.type(target)
    want = y.type(target.replace("torchlite.", "torch."))
    assert _name(got.dtype) == _name(want.dtype)
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    assert x.type(tl.float64).dtype == tl.float64
    assert x.type(tl.IntTensor).dtype == tl.int32
    assert x.type(tl.float32) is x  # already that type: no copy


def test_type_rejects_unknown_names():
    with pytest.raises(ValueError, match="invalid type: 'foo'"):
        tl.ones(1).type("foo")
    with pytest.raises(ValueError):
        torch.ones(1).type("foo")


def test_short_cast_keeps_gradients():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    x.double().sum().backward()
    assert x.grad.dtype == tl.float32 and x.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("args", [(), (2, 3), (0,), ([1, 2],), ([[1.5], [2.5]],), ((3, 4),)])
def test_legacy_tensor_constructor(args):
    ours, theirs = tl.Tensor(*args), torch.Tensor(*args)
    assert ours.shape == tuple(theirs.shape) and _name(ours.dtype) == _name(theirs.dtype)
    if not all(isinstance(a, int) for a in args):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert tl.Tensor(tl.Size([2, 1])).shape == (2, 1)


@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
                                  "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"])
def test_legacy_types(name):
    ours, theirs = getattr(tl, name), getattr(torch, name)
    a, b = ours([1, 0, 1]), theirs([1, 0, 1])
    assert _name(a.dtype) == _name(b.dtype)
    np.testing.assert_array_equal(a.float().numpy(), b.float().numpy())
    assert ours(2, 3).shape == (2, 3) and ours().shape == (0,)
    assert isinstance(a, ours) and isinstance(a, tl.Tensor)
    assert a.type() == b.type() == f"torch.{name}"
    other = tl.DoubleTensor if name != "DoubleTensor" else tl.FloatTensor
    assert not isinstance(a, other)


def test_legacy_constructor_errors():
    for m in (torch, tl):
        with pytest.raises(TypeError):
            m.Tensor(3.0)
        with pytest.raises(TypeError):
            m.FloatTensor(m.ones(2, dtype=m.int64))
        with pytest.raises(RuntimeError, match="negative dimension"):
            m.Tensor(-1)
    x = tl.ones(2)
    alias = tl.FloatTensor(x)
    alias[0] = 5.0
    assert x[0].item() == 5.0


def test_tensor_subclass_constructor():
    class MyTensor(tl.Tensor):
        pass

    t = MyTensor([1.0, 2.0])
    assert type(t) is MyTensor and t.tolist() == [1.0, 2.0]


def test_default_device_and_context_manager():
    assert tl.get_default_device() == tl.device("cpu")
    with tl.device("cpu") as d:
        assert d == tl.device("cpu") and tl.get_default_device() == tl.device("cpu")
        assert tl.zeros(2).device.type == "cpu"
    tl.set_default_device("cpu")
    try:
        assert tl.ones(1).device == tl.device("cpu")
    finally:
        tl.set_default_device(None)
    assert tl.get_default_device() == tl.device("cpu")


@pytest.mark.skipif(tl.cuda.is_available(), reason="checks the CPU-only build's error")
def test_default_device_reaches_factories():
    # Where CUDA is not built, a factory sent to the default device 'cuda' fails exactly as one
    # given device='cuda' explicitly: the default was passed on. An explicit device still wins.
    with pytest.raises(Exception) as explicit:
        tl.zeros(2, device="cuda")
    with tl.device("cuda"):
        with pytest.raises(type(explicit.value)):
            tl.zeros(2)
        with pytest.raises(type(explicit.value)):
            tl.nn.Linear(2, 2)
        assert tl.zeros(2, device="cpu").device.type == "cpu"
    assert tl.zeros(2).device.type == "cpu"


@pytest.fixture
def printoptions():
    yield
    tl.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


VALUES = [[1.123456789, -2.5, 3.0], [1.0, 10000.0], [1e-5, 1.0], [0.5] * 30, list(range(2000)),
          [[1.5, 2.25]] * 40, [math.nan, 1.0, math.inf], [math.nan, -math.inf], [0.0, 10.5], [3.0], 2.5, []]


@pytest.mark.parametrize("options", [dict(precision=2), dict(precision=6), dict(threshold=5), dict(edgeitems=1, threshold=3),
                                     dict(linewidth=20), dict(sci_mode=True), dict(sci_mode=False), dict(profile="short"),
                                     dict(profile="full", linewidth=40), dict(profile="short", precision=5)])
@pytest.mark.parametrize("values", VALUES)
def test_set_printoptions_matches_pytorch(printoptions, options, values):
    tl.set_printoptions(**options)
    torch.set_printoptions(**options)
    want = repr(torch.tensor(values)).replace("torch.", "torchlite.")
    assert repr(tl.tensor(values)) == want
    for ints in ([[-1, 200]] * 40, [True, False] * 600, []):
        assert repr(tl.tensor(ints)) == repr(torch.tensor(ints)).replace("torch.", "torchlite.")


def test_set_printoptions_profile_resets(printoptions):
    tl.set_printoptions(precision=1, threshold=2)
    tl.set_printoptions(profile="default")
    assert repr(tl.tensor([1.12345, 2.0, 3.0])) == "tensor([1.1235, 2.0000, 3.0000])"
    with pytest.raises(ValueError):
        tl.set_printoptions(profile="long")


def test_infos_compare_by_dtype():
    assert tl.finfo(tl.float32) == tl.finfo() and tl.finfo(tl.float32) != tl.finfo(tl.float64)
    assert tl.iinfo(tl.int8) == tl.iinfo(tl.int8) and tl.iinfo(tl.int8) != tl.finfo(tl.float32)
    assert len({tl.iinfo(tl.int8), tl.iinfo(tl.int8), tl.iinfo(tl.uint8)}) == 2

"""DLPack interchange (torchlite/utils/dlpack.py, torchlite/csrc/python_dlpack.cpp): zero-copy
round trips with NumPy and PyTorch in both directions, the capsule protocol, lifetimes, and the
array-interface dict of CUDA tensors (built here from a CPU tensor: no GPU needed)."""

import ctypes
import gc
import weakref

import numpy as np
import pytest

import torchlite
from torchlite.utils.dlpack import DLDeviceType, _array_interface, from_dlpack, to_dlpack

torch = pytest.importorskip("torch")

# Every torchlite dtype with its NumPy and PyTorch names (NumPy has no bfloat16).
DTYPES = [("bool", "bool"), ("uint8", "uint8"), ("int8", "int8"), ("int16", "int16"), ("int32", "int32"),
          ("int64", "int64"), ("float16", "float16"), ("float32", "float32"), ("float64", "float64"),
          ("complex64", "complex64"), ("complex128", "complex128"), ("bfloat16", None)]


def _sample(name, shape=(3, 4)):
    return (torchlite.arange(12) % 5).reshape(3, 4)[: shape[0], : shape[1]].to(getattr(torchlite, name))


# The structs of the DLPack specification, laid out independently of the C++ side.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


def _struct(capsule, name, kind):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return kind.from_address(get(capsule, name))


def _capsule_name(capsule):
    return repr(capsule).split('"')[1]


class _Producer:
    """A producer as old libraries wrote them: __dlpack__ takes only `stream`."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, stream=None):
        return to_dlpack(self.tensor)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


# ---- NumPy ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [d for d, n in DTYPES if n])
def test_numpy_consumes_torchlite_zero_copy(name):
    t = _sample(name)
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(name) and a.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(a, t.numpy())
    a[0, 0] = 1
    t[0, 1] = 1
    assert t[0, 0].item() == 1 and a[0, 1] == 1


@pytest.mark.parametrize("name", [d for d, n in DTYPES if n])
def test_torchlite_consumes_numpy_zero_copy(name):
    a = (np.arange(12) % 5).reshape(3, 4).astype(name)
    t = torchlite.from_dlpack(a)
    assert t.dtype == getattr(torchlite, name) and t.data_ptr() == a.ctypes.data
    np.testing.assert_array_equal(t.numpy(), a)
    t[0, 0] = 1
    a[0, 1] = 1
    assert a[0, 0] == 1 and t[0, 1].item() == 1


def test_numpy_rejects_bfloat16():
    with pytest.raises((BufferError, RuntimeError, TypeError)):
        np.from_dlpack(torchlite.ones(2, dtype=torchlite.bfloat16))


@pytest.mark.parametrize("view", [lambda x: x.t(), lambda x: x[1:, 2:], lambda x: x[:, ::2], lambda x: x[1],
                                  lambda x: x[0, 1], lambda x: x[:0], lambda x: x[:, :1].expand(3, 5)])
def test_views_keep_their_geometry(view):
    base = torchlite.arange(12.0).reshape(3, 4)
    t = view(base)
    a = np.from_dlpack(t)
    assert a.shape == tuple(t.shape)
    if t.numel():
        assert a.ctypes.data == t.data_ptr()
        assert a.strides == tuple(s * 4 for s in t.stride())
    np.testing.assert_array_equal(a, t.numpy())
    back = torchlite.from_dlpack(a)
    assert back.shape == t.shape
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_numpy_views_keep_their_geometry():
    base = np.arange(24.0).reshape(4, 6)
    for a in (base.T, base[1:, 2:], base[::2, 1::3], np.broadcast_to(base[0], (3, 6)), base[2, 3, ...], base[:0]):
        t = torchlite.from_dlpack(a)
        assert tuple(t.shape) == a.shape
        assert t.stride() == tuple(s // 8 for s in a.strides) or a.size == 0
        np.testing.assert_array_equal(t.numpy(), a)
        if a.size:
            assert t.data_ptr() == a.ctypes.data


def test_readonly_numpy_array_is_shared_as_pytorch_does():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = torchlite.from_dlpack(a)
    assert t.data_ptr() == a.ctypes.data == torch.from_dlpack(a).data_ptr()


def test_negative_strides_raise():
    with pytest.raises(ValueError, match="negative strides"):
        torchlite.from_dlpack(np.arange(4.0)[::-1])


def test_unsupported_dtype_raises():
    with pytest.raises(RuntimeError, match="unsupported dtype"):
        torchlite.from_dlpack(np.arange(4, dtype=np.uint16))


# ---- PyTorch --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [d for d, _ in DTYPES])
def test_pytorch_round_trips_zero_copy(name):
    t = _sample(name)
    x = torch.from_dlpack(t)
    assert x.dtype == getattr(torch, name) and x.data_ptr() == t.data_ptr()
    assert x.tolist() == t.tolist()
    x[0, 0] = 1
    assert t[0, 0].item() == 1
    back = torchlite.from_dlpack(x)
    assert back.dtype == t.dtype and back.data_ptr() == t.data_ptr()
    y = (torch.arange(12) % 5).reshape(3, 4).to(getattr(torch, name))
    z = torchlite.from_dlpack(y)
    assert z.data_ptr() == y.data_ptr() and z.dtype == t.dtype
    z[0, 1] = 1
    assert y[0, 1].item() == 1


def test_pytorch_views_and_zero_dim():
    t = torchlite.arange(24.0).reshape(2, 3, 4)
    for view in (t.permute(2, 0, 1), t[:, 1:, ::3], t[1, 2, 3], t[0, :1].expand(5, 4)):
        x = torch.from_dlpack(view)
        assert x.shape == tuple(view.shape) and x.stride() == view.stride() and x.data_ptr() == view.data_ptr()
        y = torchlite.from_dlpack(x)
        assert y.stride() == view.stride() and y.data_ptr() == view.data_ptr()
    assert torchlite.from_dlpack(torch.tensor(2.5)).item() == 2.5


def test_pytorch_capsules_both_kinds():
    assert torchlite.from_dlpack is from_dlpack  # as torch.from_dlpack is torch.utils.dlpack.from_dlpack
    t = torchlite.arange(4)
    legacy = torch.utils.dlpack.from_dlpack(to_dlpack(t))
    versioned = torch.from_dlpack(t.__dlpack__(max_version=(1, 0)))
    assert legacy.data_ptr() == versioned.data_ptr() == t.data_ptr()
    assert torchlite.from_dlpack(torch.utils.dlpack.to_dlpack(legacy)).data_ptr() == t.data_ptr()


def test_dlpack_device_matches_pytorch():
    assert torchlite.ones(1).__dlpack_device__() == torch.ones(1).__dlpack_device__() == (DLDeviceType.kDLCPU, 0)
    assert [(e.name, e.value) for e in DLDeviceType] == [(e.name, e.value) for e in torch.utils.dlpack.DLDeviceType]


# ---- the capsule protocol -------------------------------------------------------------------


@pytest.mark.parametrize("name", [d for d, _ in DTYPES])
def test_versioned_capsule_layout(name):
    t = _sample(name)[:, 1:]
    capsule = t.__dlpack__(max_version=(1, 3))
    assert _capsule_name(capsule) == "dltensor_versioned"
    m = _struct(capsule, b"dltensor_versioned", _DLManagedTensorVersioned)
    dl = m.dl_tensor
    assert (m.version.major, m.flags) == (1, 0)
    assert (dl.device.device_type, dl.device.device_id, dl.ndim, dl.byte_offset) == (1, 0, 2, 0)
    assert dl.data == t.data_ptr()
    assert [dl.shape[i] for i in range(2)] == [3, 3] and [dl.strides[i] for i in range(2)] == [4, 1]
    code = {torchlite.bool: 6, torchlite.uint8: 1, torchlite.bfloat16: 4}.get(
        t.dtype, 5 if t.dtype.is_complex else 2 if t.dtype.is_floating_point else 0)
    assert (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (code, 8 * t.element_size(), 1)


def test_capsule_kind_follows_max_version():
    t = torchlite.ones(2)
    assert _capsule_name(t.__dlpack__()) == "dltensor"
    assert _capsule_name(t.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert _capsule_name(t.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
    m = _struct(to_dlpack(t), b"dltensor", _DLManagedTensor)
    assert m.dl_tensor.data == t.data_ptr() and m.dl_tensor.ndim == 1


def test_capsule_consumed_twice_raises():
    capsule = to_dlpack(torchlite.arange(3))
    assert torchlite.from_dlpack(capsule).tolist() == [0, 1, 2]
    assert _capsule_name(capsule) == "used_dltensor"
    with pytest.raises(RuntimeError, match="consumed only once"):
        torchlite.from_dlpack(capsule)
    versioned = torchlite.arange(3).__dlpack__(max_version=(1, 0))
    torch.from_dlpack(versioned)
    assert _capsule_name(versioned) == "used_dltensor_versioned"
    with pytest.raises(RuntimeError, match="consumed only once"):
        torchlite.from_dlpack(versioned)


def test_newer_major_version_is_refused_and_the_capsule_kept():
    t = torchlite.arange(3)
    capsule = t.__dlpack__(max_version=(1, 0))
    m = _struct(capsule, b"dltensor_versioned", _DLManagedTensorVersioned)
    m.version.major = 2
    with pytest.raises(BufferError, match="unsupported version 2"):
        torchlite.from_dlpack(capsule)
    m.version.major = 1
    assert torchlite.from_dlpack(capsule).data_ptr() == t.data_ptr()


def test_byte_offset_is_honoured():
    t = torchlite.arange(6.0)
    capsule = t.__dlpack__(max_version=(1, 0))
    dl = _struct(capsule, b"dltensor_versioned", _DLManagedTensorVersioned).dl_tensor
    dl.data, dl.byte_offset = t.data_ptr() - 16, 16
    assert torchlite.from_dlpack(capsule).data_ptr() == t.data_ptr()


def test_copy_argument():
    t = torchlite.arange(4.0)
    copied = t.__dlpack__(max_version=(1, 0), copy=True)
    m = _struct(copied, b"dltensor_versioned", _DLManagedTensorVersioned)
    assert m.flags == 2 and m.dl_tensor.data != t.data_ptr()
    assert torchlite.from_dlpack(copied).tolist() == t.tolist()
    assert torchlite.from_dlpack(t.__dlpack__(copy=False)).data_ptr() == t.data_ptr()
    assert torchlite.from_dlpack(t.__dlpack__(dl_device=(DLDeviceType.kDLCPU, 0))).data_ptr() == t.data_ptr()
    with pytest.raises(ValueError, match="without copying"):
        t.__dlpack__(dl_device=(DLDeviceType.kDLCUDA, 0), copy=False)
    with pytest.raises(BufferError, match="Unsupported device_type: 3"):
        t.__dlpack__(dl_device=(DLDeviceType.kDLCUDAHost, 0))
    a = np.arange(4.0)
    assert torchlite.from_dlpack(a, copy=True).data_ptr() != a.ctypes.data
    assert torchlite.from_dlpack(a, copy=False, device="cpu").data_ptr() == a.ctypes.data
    with pytest.raises(ValueError, match="capsule"):
        torchlite.from_dlpack(to_dlpack(t), copy=True)


def test_producer_without_newer_keywords():
    t = torchlite.arange(3)
    assert torchlite.from_dlpack(_Producer(t)).data_ptr() == t.data_ptr()
    copied = torchlite.from_dlpack(_Producer(t), copy=True)
    assert copied.data_ptr() != t.data_ptr() and copied.tolist() == [0, 1, 2]


def test_stream_argument_on_cpu():
    t = torchlite.ones(2)
    for stream in (None, -1):
        assert torchlite.from_dlpack(t.__dlpack__(stream=stream)).data_ptr() == t.data_ptr()
    with pytest.raises(ValueError, match="stream should be None on cpu"):
        t.__dlpack__(stream=1)
    with pytest.raises(TypeError, match="stream must be"):
        t.__dlpack__(stream="1")


def test_bad_inputs_raise():
    with pytest.raises(BufferError, match="require gradient"):
        torchlite.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(TypeError, match="expected a DLPack capsule"):
        torchlite.from_dlpack([1, 2])
    with pytest.raises(TypeError):
        torchlite.ones(2).__dlpack__(None)


def test_imported_storage_cannot_grow():
    t = torchlite.from_dlpack(np.arange(4.0))
    with pytest.raises(RuntimeError, match="not resizable"):
        t.resize_(100)


# ---- lifetimes ------------------------------------------------------------------------------


def test_consumer_outlives_producer():
    t = torchlite.arange(1000.0)
    a = np.from_dlpack(t)
    x = torch.from_dlpack(t[10:])
    del t
    gc.collect()
    torchlite.ones(1000) * 3  # reuses freed memory, were the storage gone
    assert a[999] == 999.0 and x[0].item() == 10.0
    source = np.arange(1000.0)
    imported = torchlite.from_dlpack(source)
    del source
    gc.collect()
    assert imported[999].item() == 999.0


def test_deleters_release_the_memory():
    # A NumPy array, lent to torchlite, exported by torchlite to PyTorch: the array lives exactly
    # as long as the last consumer.
    source = np.arange(8.0)
    alive = weakref.ref(source)
    x = torch.from_dlpack(torchlite.from_numpy(source))
    del source
    gc.collect()
    assert alive() is not None
    del x
    gc.collect()
    assert alive() is None
    # An unconsumed capsule frees what it holds when collected.
    source = np.arange(8.0)
    alive = weakref.ref(source)
    capsule = torchlite.from_numpy(source).__dlpack__(max_version=(1, 0))
    del source
    gc.collect()
    assert alive() is not None
    del capsule
    gc.collect()
    assert alive() is None
    # A tensor imported from NumPy releases the array when it goes.
    source = np.arange(8.0)
    alive = weakref.ref(source)
    t = torchlite.from_dlpack(source)[2:]
    del source
    gc.collect()
    assert alive() is not None
    del t
    gc.collect()
    assert alive() is None


# ---- __cuda_array_interface__ ---------------------------------------------------------------


def test_cuda_array_interface_needs_a_cuda_tensor():
    t = torchlite.ones(2)
    assert not hasattr(t, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match="non-CUDA tensor type: torch.FloatTensor"):
        t.__cuda_array_interface__  # noqa: B018


@pytest.mark.parametrize("name", [d for d, n in DTYPES if n])
def test_array_interface_dict_matches_numpy(name):
    t = _sample(name)
    for view in (t, t[:, 1::2]):
        got = _array_interface(view, 0)
        want = view.numpy().__array_interface__
        assert got["typestr"] == want["typestr"] and got["shape"] == want["shape"]
        assert got["data"] == (view.data_ptr(), False) and got["strides"] == want["strides"]
        assert got["version"] == 3 and got["stream"] == 1
    assert _array_interface(t, 1234)["stream"] == 1234


def test_array_interface_edge_cases():
    assert _array_interface(torchlite.ones(2, dtype=torchlite.bfloat16), 0)["typestr"] == "<V2"
    assert _array_interface(torchlite.ones(0), 0)["data"] == (0, False)
    with pytest.raises(RuntimeError, match="requires grad"):
        _array_interface(torchlite.ones(2, requires_grad=True), 0)


# ---- CUDA (skipped without a GPU) -----------------------------------------------------------

needs_cuda = pytest.mark.skipif(not torchlite.cuda.is_available(), reason="no CUDA device")


@needs_cuda
def test_cuda_capsules_and_streams():
    t = torchlite.arange(6.0).reshape(2, 3).cuda()
    assert t.__dlpack_device__() == (DLDeviceType.kDLCUDA, t.device.index)
    for stream in (None, 1, -1):
        back = torchlite.from_dlpack(t.__dlpack__(stream=stream, max_version=(1, 0)))
        assert back.data_ptr() == t.data_ptr() and back.device == t.device
    with pytest.raises(BufferError, match="per-thread"):
        t.__dlpack__(stream=2)
    with pytest.raises(ValueError, match="ambiguous"):
        t.__dlpack__(stream=0)
    on_cpu = torchlite.from_dlpack(t.__dlpack__(dl_device=(DLDeviceType.kDLCPU, 0)))
    assert on_cpu.is_cpu and on_cpu.tolist() == t.tolist()
    assert torchlite.from_dlpack(t, device="cpu").tolist() == t.tolist()


@needs_cuda
def test_cuda_array_interface():
    t = torchlite.arange(6.0).reshape(2, 3).cuda()
    cai = t.t().__cuda_array_interface__
    assert cai["data"] == (t.data_ptr(), False) and cai["shape"] == (3, 2) and cai["strides"] == (4, 12)
    assert cai["typestr"] == "<f4" and cai["version"] == 3 and cai["stream"] != 0


@needs_cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="PyTorch without CUDA")
def test_cuda_pytorch_round_trip():
    t = torchlite.arange(6.0).reshape(2, 3).cuda()
    x = torch.from_dlpack(t[:, 1:])
    assert x.is_cuda and x.data_ptr() == t[:, 1:].data_ptr() and x.stride() == (3, 1)
    x[0, 0] = 9
    assert t[0, 1].item() == 9
    y = torch.arange(4.0, device="cuda")
    z = torchlite.from_dlpack(y)
    assert z.is_cuda and z.data_ptr() == y.data_ptr() and z.tolist() == [0.0, 1.0, 2.0, 3.0]

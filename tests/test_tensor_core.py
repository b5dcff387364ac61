"""The Tensor object itself: dtypes, devices, metadata, NumPy interop, tensor(), copy/convert,
type promotion, version counters, the CPU allocator, and CUDA errors without a GPU."""

import gc

import numpy as np
import pytest
from helpers import ALL_DTYPES, NP_DTYPE, assert_close

import torchlite as tl


def test_dtype_objects():
    assert repr(tl.float32) == "torchlite.float32"
    assert tl.float is tl.float32 and tl.double is tl.float64 and tl.long is tl.int64
    assert tl.float16.is_floating_point and not tl.int32.is_floating_point
    assert tl.int64.itemsize == 8 and tl.bfloat16.itemsize == 2
    assert tl.get_default_dtype() == tl.float32


def test_device_objects():
    d = tl.device("cuda:1")
    assert d.type == "cuda" and d.index == 1 and str(d) == "cuda:1"
    assert repr(tl.device("cpu")) == "device(type='cpu')"
    assert tl.device("cuda", 0) == tl.device("cuda:0")
    assert tl.device("cpu") != tl.device("cuda")
    with pytest.raises(RuntimeError, match="device type"):
        tl.device("tpu")


def test_metadata():
    t = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.shape == (2, 3) and isinstance(t.shape, tl.Size) and t.size() == tl.Size([2, 3])
    assert t.size(1) == 3 and t.size(-1) == 3 and t.stride() == (3, 1) and t.stride(0) == 3
    assert t.dim() == t.ndim == 2 and t.numel() == 6 and t.element_size() == 4
    assert t.is_contiguous() and t.device == tl.device("cpu") and not t.is_cuda
    assert t.dtype == tl.float32 and t.is_floating_point()
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        t.size(2)
    assert len(t) == 2 and [r.tolist() for r in t] == [[1, 2, 3], [4, 5, 6]]


@pytest.mark.parametrize(
    "data, dtype",
    [([1, 2, 3], tl.int64), ([1.0, 2], tl.float32), ([True, False], tl.bool), (3.5, tl.float32),
     ([[1, 2], [3, 4]], tl.int64), ([], tl.float32), ([[True, 2], [3, 4.5]], tl.float32)],
)
def test_tensor_from_data_infers_dtype(data, dtype):
    t = tl.tensor(data)
    assert t.dtype == dtype
    assert_close(t, np.array(data, dtype=NP_DTYPE[dtype]))


def test_tensor_from_data_errors():
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1 \\(got 1\\)"):
        tl.tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="new\\(\\): invalid data type 'str'"):
        tl.tensor(["a"])  # PyTorch: ValueError("too many dimensions 'str'")


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d != tl.bfloat16])
def test_numpy_roundtrip_zero_copy(dtype):
    a = np.arange(12).reshape(3, 4).astype(NP_DTYPE[dtype])
    t = tl.from_numpy(a)
    assert t.dtype == dtype and t.shape == (3, 4)
    back = t.numpy()
    assert np.shares_memory(back, a)
    np.testing.assert_array_equal(back, a)


def test_from_numpy_shares_memory_and_keeps_array_alive():
    a = np.zeros(5, np.float32)
    t = tl.from_numpy(a)
    t[1] = 7
    assert a[1] == 7
    del a
    gc.collect()
    assert t.tolist() == [0, 7, 0, 0, 0]


def test_from_numpy_non_contiguous_and_errors():
    a = np.arange(20, dtype=np.float64).reshape(4, 5)[:, ::2]
    t = tl.from_numpy(a)
    assert t.stride() == (5, 2)
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(ValueError, match="negative"):
        tl.from_numpy(np.arange(3.0)[::-1])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type"):
        tl.from_numpy(np.array(["x"]))
    with pytest.raises(TypeError, match="bfloat16"):
        tl.tensor([1.0]).to(tl.bfloat16).numpy()


def test_array_protocol():
    t = tl.tensor([[1, 2], [3, 4]])
    np.testing.assert_array_equal(np.asarray(t), [[1, 2], [3, 4]])


def test_repr_matches_torch_style():
    assert repr(tl.tensor([1.0, 2.5])) == "tensor([1.0000, 2.5000])"
    assert repr(tl.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(tl.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(tl.tensor([1, 2]).to(tl.int32)) == "tensor([1, 2], dtype=torchlite.int32)"
    assert repr(tl.tensor([True, False])) == "tensor([ True, False])"
    assert repr(tl.tensor(3.0)) == "tensor(3.)"
    assert repr(tl.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ALL_DTYPES)
def test_to_dtype_matches_numpy_casts(src, dst):
    vals = np.array([0, 1, 2, 5, 100], dtype=np.float64)
    t = tl.tensor(vals).to(src).to(dst)
    expected = vals.astype(NP_DTYPE.get(src, np.float32)).astype(NP_DTYPE.get(dst, np.float32))
    if src == tl.bool or dst == tl.bool:
        expected = vals.astype(bool).astype(NP_DTYPE.get(dst, np.float32))
    assert t.dtype == dst
    assert_close(t, expected, check_dtype=False)


def test_to_returns_self_when_nothing_changes_and_copies_on_request():
    t = tl.tensor([1.0, 2.0])
    assert t.to(tl.float32) is t and t.to("cpu") is t
    c = t.to(tl.float32, copy=True)
    assert c is not t and not c._shares_storage(t)
    assert t.to(dtype=tl.float64).dtype == tl.float64
    assert t.to(tl.tensor([1]).to(tl.int32)).dtype == tl.int32


def test_clone_contiguous_copy_():
    base = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    col = base[:, 1]
    assert not col.is_contiguous()
    c = col.contiguous()
    assert c.is_contiguous() and c.tolist() == [2.0, 5.0] and not c._shares_storage(base)
    assert base.contiguous() is base
    k = base.clone()
    k[0, 0] = 9
    assert base[0, 0].item() == 1.0
    dst = tl.empty(2, 3)
    dst.copy_(tl.tensor([1, 2, 3]))  # broadcasts and converts int -> float
    assert dst.tolist() == [[1, 2, 3], [1, 2, 3]]
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        tl.empty(3).copy_(tl.empty(2, 3))


def test_views_share_storage_and_version_counter():
    t = tl.tensor([1.0, 2.0, 3.0, 4.0])
    v = t.view(2, 2)
    assert v._shares_storage(t)
    before = t._version
    v.add_(1)
    assert t._version == v._version == before + 1
    assert t.tolist() == [2, 3, 4, 5]
    tl.add(t, t, out=t)
    assert t._version == before + 2


@pytest.mark.parametrize("a", ALL_DTYPES)
@pytest.mark.parametrize("b", ALL_DTYPES)
def test_promotion_matches_torch(a, b):
    torch = pytest.importorskip("torch")
    got = tl.promote_types(a, b)
    ta, tb = getattr(torch, str(a).split(".")[1]), getattr(torch, str(b).split(".")[1])
    assert str(got).split(".")[1] == str(torch.promote_types(ta, tb)).split(".")[1]


@pytest.mark.parametrize(
    "dtype, other, expected",
    [(tl.int32, 2, tl.int32), (tl.int32, 2.5, tl.float32), (tl.uint8, True, tl.uint8), (tl.bool, 1, tl.int64),
     (tl.bool, 1.5, tl.float32), (tl.float16, 2.5, tl.float16), (tl.int64, 1.0, tl.float32)],
)
def test_python_scalars_are_weak(dtype, other, expected):
    t = tl.tensor([1, 0]).to(dtype)
    assert (t + other).dtype == expected


def test_zero_dim_tensors_promote_by_category():
    i32 = tl.tensor([1, 2]).to(tl.int32)
    assert (i32 + tl.tensor(5)).dtype == tl.int32  # same category: dimensioned wins
    assert (i32 + tl.tensor(5.0).to(tl.float64)).dtype == tl.float64  # higher category: 0-dim counts


def test_out_dtype_and_resize_rules():
    a = tl.tensor([1.0, 2.0])
    out = tl.empty(5)
    tl.add(a, a, out=out)
    assert out.shape == (2,) and out.tolist() == [2, 4]
    out64 = tl.empty(2).to(tl.float64)
    tl.add(a, a, out=out64)
    assert out64.dtype == tl.float64 and out64.tolist() == [2, 4]
    with pytest.raises(RuntimeError, match="result type torchlite.float32 can't be cast to the desired output type"):
        tl.add(a, a, out=tl.tensor([0, 0]))


def test_cpu_allocator_reuses_large_blocks():
    stats0 = tl._C._cpu_allocator_stats()
    for _ in range(3):
        t = tl.empty(4 << 20)  # 16 MiB: a large block
        del t
    stats1 = tl._C._cpu_allocator_stats()
    assert stats1["cache_hits"] >= stats0["cache_hits"] + 2
    assert stats1["cached"] >= 16 << 20
    tl._C._cpu_allocator_empty_cache()
    assert tl._C._cpu_allocator_stats()["cached"] == 0


def test_tensor_data_is_64_byte_aligned():
    # Small blocks are aligned by hand inside a malloc'd block: check many live ones at once, of
    # sizes around the C allocator's size classes, and that writing all of them corrupts nothing.
    kept = []
    for n in (0, 1, 3, 4, 5, 15, 16, 17, 63, 64, 65, 250, 257, 1000, 4096, 1 << 17, 1 << 20):
        for _ in range(3):
            t = tl.full((n,), float(n))
            assert t.data_ptr() % 64 == 0 or n == 0
            kept.append(t)
    for t in kept:
        assert bool((t == float(t.numel())).all())


def test_cuda_unavailable_behaviour():
    if tl.cuda.is_available():
        pytest.skip("a GPU is present")
    assert tl.cuda.device_count() == 0
    with pytest.raises(RuntimeError, match="CUDA"):
        tl.empty(2, device="cuda")
    with pytest.raises(RuntimeError, match="CUDA"):
        tl.tensor([1.0]).to("cuda")


def test_arithmetic_with_a_numpy_array_does_not_crash():
    # The Number caster took an ndarray's refused __index__ as a value and crashed; now the Tensor
    # overloads decline it and NumPy computes `tensor op array` (PyTorch wraps that result back
    # into a Tensor through __array_wrap__; torchlite leaves NumPy's array).
    x = tl.arange(3, dtype=tl.float64)
    np.testing.assert_array_equal(np.asarray(x * np.full(3, 2.0)), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(x + np.array([1])), [1.0, 2.0, 3.0])

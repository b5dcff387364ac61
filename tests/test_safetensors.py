"""torchlite.safetensors: .safetensors files, checked against the safetensors package's own readers
(and safetensors.torch both ways where PyTorch is installed)."""

import os

import numpy as np
import pytest

import torchlite as tl

safetensors = pytest.importorskip("safetensors", reason="needs the safetensors package (torchlite[safetensors])")
from torchlite import safetensors as ts  # noqa: E402

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64"]


def sample(name, shape=(2, 3)):
    rng = np.random.default_rng(0)
    data = rng.standard_normal(shape) * 4
    if name == "complex64":
        data = data + 1j * rng.standard_normal(shape)
    return tl.from_numpy(np.asarray(data)).to(getattr(tl, name))


def same(a, b):
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    assert a.to(tl.complex128).tolist() == b.to(tl.complex128).tolist()


@pytest.mark.parametrize("name", DTYPES)
def test_roundtrip_every_dtype(name):
    t = sample(name)
    out = ts.load(ts.save({"t": t, "scalar": sample(name, ())}))
    same(out["t"], t)
    same(out["scalar"], sample(name, ()))


def test_save_file_load_file_and_metadata(tmp_path):
    p = tmp_path / "model.safetensors"
    tensors = {"w": sample("float32"), "b": sample("bfloat16", (4,)), "empty": tl.ones(0, 2), "n": tl.arange(3)}
    ts.save_file(tensors, p, metadata={"format": "pt", "epoch": "3"})
    assert os.listdir(tmp_path) == ["model.safetensors"]  # no temporary file left behind
    out = ts.load_file(p)
    assert sorted(out) == sorted(tensors)
    for k in tensors:
        same(out[k], tensors[k])
    with safetensors.safe_open(p, framework="np") as f:  # the package's own reader
        assert f.metadata() == {"format": "pt", "epoch": "3"} and sorted(f.keys()) == sorted(tensors)
        np.testing.assert_array_equal(f.get_tensor("w"), tensors["w"].numpy())
    same(tl.load(p)["b"], tensors["b"])  # torchlite.load dispatches a .safetensors path, as torch.load
    assert ts.load_file(p, device="cpu")["n"].tolist() == [0, 1, 2]


def test_views_of_disjoint_parts_are_fine_and_loaded_writable():
    base = tl.arange(6.0)
    out = ts.load(ts.save({"lo": base[:3], "hi": base[3:]}))
    assert out["lo"].tolist() == [0.0, 1.0, 2.0] and out["hi"].tolist() == [3.0, 4.0, 5.0]
    out["lo"][0] = 9.0
    assert out["lo"][0].item() == 9.0


def test_refusals():
    base = tl.arange(6.0)
    with pytest.raises(RuntimeError, match=r"share memory.*\['a', 'b'\]"):
        ts.save({"a": base, "b": base[2:4]})
    with pytest.raises(ValueError, match="non contiguous tensor: `t`"):
        ts.save({"t": base.reshape(2, 3).t()})
    with pytest.raises(ValueError, match="no dtype torchlite.complex128"):
        ts.save({"c": tl.ones(1, dtype=tl.complex128)})
    with pytest.raises(ValueError, match="Expected a dict"):
        ts.save([base])
    with pytest.raises(ValueError, match="Key `x` is invalid"):
        ts.save({"x": 1.0})


def test_corrupt_and_foreign_files(tmp_path):
    data = ts.save({"w": tl.ones(10)})
    with pytest.raises(RuntimeError, match="not a valid safetensors file"):
        ts.load(data[: len(data) - 8])
    with pytest.raises(RuntimeError, match="not a valid safetensors file"):
        ts.load(b"\x00" * 3)
    u16 = np.arange(3, dtype=np.uint16)
    spec = safetensors.TensorSpec(dtype="uint16", shape=[3], data_ptr=u16.ctypes.data, data_len=u16.nbytes)
    with pytest.raises(RuntimeError, match="tensor 'u' has dtype U16, which torchlite does not support"):
        ts.load(bytes(safetensors.serialize({"u": spec})))


def test_atomic_save_file_keeps_old_file(tmp_path):
    p = tmp_path / "a.safetensors"
    ts.save_file({"v": tl.ones(2)}, p)
    before = p.read_bytes()
    with pytest.raises(RuntimeError, match="share memory"):
        base = tl.ones(4)
        ts.save_file({"a": base, "b": base[1:]}, p)
    assert p.read_bytes() == before


@pytest.mark.parametrize("name", DTYPES)
def test_safetensors_torch_both_ways(name, tmp_path):
    torch = pytest.importorskip("torch")
    import safetensors.torch as st

    t = sample(name)
    p = tmp_path / "t.safetensors"
    ts.save_file({"t": t}, p, metadata={"who": "torchlite"})
    theirs = st.load_file(p)["t"]
    assert theirs.dtype == getattr(torch, name)
    assert theirs.to(torch.complex128).tolist() == t.to(tl.complex128).tolist()
    st.save_file({"t": theirs.flip(0).contiguous()}, p)
    mine = ts.load_file(p)["t"]
    assert mine.to(tl.complex128).tolist() == theirs.flip(0).to(torch.complex128).tolist()
    assert torch.load(p)["t"].dtype == theirs.dtype  # torch.load reads the file torchlite read

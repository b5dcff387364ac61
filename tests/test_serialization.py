"""torchlite.save / torchlite.load, and pickling / deepcopy of tensors."""

import collections
import copy
import io
import os
import pickle
import sys
import zipfile

import numpy as np
import pytest

import torchlite as tl
from torchlite import serialization


def roundtrip(obj, **load_kwargs):
    buf = io.BytesIO()
    tl.save(obj, buf)
    buf.seek(0)
    return tl.load(buf, **load_kwargs)


ALL = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.float16, tl.bfloat16, tl.float32, tl.float64]


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_tensor_roundtrip_dtypes(dtype):
    x = (tl.arange(12, dtype=tl.float64).reshape(3, 4) * 1.5 - 4).to(dtype)
    y = roundtrip(x)
    assert y.dtype == dtype and tuple(y.shape) == (3, 4)
    assert y.to(tl.float64).tolist() == x.to(tl.float64).tolist()


def test_nested_containers_and_scalars():
    od = collections.OrderedDict([("w", tl.ones(2, 3)), ("b", tl.zeros(3))])
    obj = {
        "sd": od,
        "list": [tl.tensor([1, 2]), 3, 4.5, True, None, "text", b"raw"],
        "tuple": (tl.tensor(7.0), {"nested": [tl.tensor([True, False])]}),
        "set": {1, 2},
        "complex": 1 + 2j,
        "dtype": tl.float16,
        "device": tl.device("cpu"),
        "size": tl.Size([2, 3]),
        "empty": tl.empty(0),
    }
    out = roundtrip(obj)
    assert type(out["sd"]) is collections.OrderedDict and list(out["sd"]) == ["w", "b"]
    assert out["sd"]["w"].tolist() == [[1.0] * 3] * 2
    assert out["list"][1:] == [3, 4.5, True, None, "text", b"raw"]
    assert out["list"][0].dtype == tl.int64
    assert out["tuple"][0].item() == 7.0 and out["tuple"][1]["nested"][0].tolist() == [True, False]
    assert out["set"] == {1, 2} and out["complex"] == 1 + 2j
    assert out["dtype"] == tl.float16 and out["device"] == tl.device("cpu")
    assert type(out["size"]) is tl.Size and out["size"] == (2, 3)
    assert out["empty"].numel() == 0


def test_views_share_storage_after_load():
    base = tl.arange(12.0).reshape(3, 4)
    row = base[1]
    col = base.transpose(0, 1)[2]  # non-contiguous view
    out = roundtrip({"base": base, "row": row, "col": col})
    assert out["row"].storage_offset() == 4 and out["col"].stride() == (4,)
    assert out["row"]._shares_storage(out["base"]) and out["col"]._shares_storage(out["base"])
    out["base"][1, 2] = 100.0
    assert out["row"][2].item() == 100.0 and out["col"][1].item() == 100.0
    assert base[1, 2].item() == 6.0  # the original is untouched
    # one storage record for all three
    buf = io.BytesIO()
    tl.save({"base": base, "row": row, "col": col}, buf)
    names = zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
    assert sum(n.startswith("archive/data/") for n in names) == 1


def test_same_tensor_object_loads_as_one_object():
    t = tl.ones(3)
    out = roundtrip([t, t, {"again": t}])
    assert out[0] is out[1] is out[2]["again"]


def test_slice_saves_whole_storage_but_keeps_offset():
    x = tl.arange(10.0)[3:6]
    y = roundtrip(x)
    assert y.tolist() == [3.0, 4.0, 5.0] and y.storage_offset() == 3


def test_requires_grad_preserved_and_leaf():
    w = tl.ones(2, 2).requires_grad_()
    out = roundtrip({"w": w, "b": tl.zeros(2)})
    assert out["w"].requires_grad and out["w"].is_leaf and not out["b"].requires_grad
    (out["w"] * 2).sum().backward()
    assert out["w"].grad.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_optimizer_style_state_dict():
    sd = {
        "state": {0: {"step": tl.tensor(3.0), "exp_avg": tl.ones(4)}, 1: {"momentum_buffer": None}},
        "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "weight_decay": 0, "amsgrad": False,
                          "params": [0, 1], "foreach": None}],
    }
    out = roundtrip(sd)
    assert out["param_groups"] == sd["param_groups"]
    assert out["state"][0]["step"].item() == 3.0 and out["state"][1] == {"momentum_buffer": None}


def test_save_load_path_and_pathlike(tmp_path):
    p = tmp_path / "ckpt.pt"
    tl.save({"a": tl.ones(3)}, p)
    assert tl.load(p)["a"].tolist() == [1.0, 1.0, 1.0]
    tl.save([1, 2], str(p))  # overwrite via str path
    assert tl.load(str(p)) == [1, 2]
    assert not [f for f in os.listdir(tmp_path) if f != "ckpt.pt"]  # no temp files left
    with open(p, "rb") as fh:
        assert tl.load(fh) == [1, 2]


def test_save_file_object_unseekable_load():
    class Unseekable(io.RawIOBase):
        def __init__(self, data):
            self._b = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, b):
            return self._b.readinto(b)

    buf = io.BytesIO()
    tl.save({"x": tl.arange(5)}, buf)
    assert tl.load(Unseekable(buf.getvalue()))["x"].tolist() == [0, 1, 2, 3, 4]


def test_atomic_save_failure_keeps_old_file(tmp_path, monkeypatch):
    p = tmp_path / "model.pt"
    tl.save({"v": tl.tensor([1.0, 2.0])}, p)
    before = p.read_bytes()
    calls = []

    def failing_write(zf, name, ref):
        calls.append(name)
        if len(calls) == 2:
            raise OSError("disk full (simulated)")
        return original(zf, name, ref)

    original = serialization._write_storage
    monkeypatch.setattr(serialization, "_write_storage", failing_write)
    with pytest.raises(OSError, match="disk full"):
        tl.save({"a": tl.ones(1000), "b": tl.zeros(1000)}, p)
    assert p.read_bytes() == before
    assert tl.load(p)["v"].tolist() == [1.0, 2.0]
    assert os.listdir(tmp_path) == ["model.pt"]

    monkeypatch.setattr(serialization, "_write_storage", original)
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError("crash before rename")))
    with pytest.raises(OSError, match="crash before rename"):
        tl.save({"new": tl.ones(2)}, p)
    assert p.read_bytes() == before and os.listdir(tmp_path) == ["model.pt"]


def test_save_unpicklable_object_keeps_old_file(tmp_path):
    p = tmp_path / "m.pt"
    tl.save(1, p)
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        tl.save({"f": lambda: 0}, p)
    assert tl.load(p) == 1


def test_save_missing_parent_dir(tmp_path):
    with pytest.raises(RuntimeError, match="Parent directory .* does not exist"):
        tl.save(1, tmp_path / "nope" / "x.pt")


def test_save_bad_arguments():
    with pytest.raises(TypeError, match="must be a path"):
        tl.save(1, 123)
    with pytest.raises(ValueError, match="pickle_protocol"):
        tl.save(1, io.BytesIO(), pickle_protocol=1)


class Evil:
    """Unpickling this runs a shell command (creates a marker file)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_weights_only_refuses_malicious_pickle(tmp_path):
    marker = tmp_path / "pwned"
    p = tmp_path / "evil.pt"
    tl.save({"x": tl.ones(1), "evil": Evil(marker)}, p)
    with pytest.raises(pickle.UnpicklingError, match=r"(?s)`weights_only` set to `False`.*unsupported GLOBAL "
                                                     r"posix.system whose module posix is blocked"):
        tl.load(p)
    assert not marker.exists()
    with serialization.safe_globals([os.system]), pytest.raises(pickle.UnpicklingError, match="is blocked"):
        tl.load(p, weights_only=True)  # a blocked module stays blocked, as in PyTorch
    assert not marker.exists()
    assert serialization.get_unsafe_globals_in_checkpoint(p) == ["posix.system"]
    out = tl.load(p, weights_only=False)  # the user trusts it: full pickle
    assert marker.exists() and out["x"].tolist() == [1.0]


class EvalCall:
    def __reduce__(self):
        return (eval, ("1 + 1",))


def test_weights_only_error_names_the_global_and_the_remedy():
    buf = io.BytesIO()
    tl.save([EvalCall()], buf)
    with pytest.raises(pickle.UnpicklingError) as e:
        tl.load(io.BytesIO(buf.getvalue()))
    msg = str(e.value)
    assert msg.startswith("Weights only load failed. This file can still be loaded")
    assert "Unsupported global: GLOBAL eval was not an allowed global by default" in msg
    assert "`torchlite.serialization.add_safe_globals([eval])`" in msg
    assert "`torchlite.serialization.safe_globals([eval])` context manager" in msg
    assert tl.load(io.BytesIO(buf.getvalue()), weights_only=False) == [2]


class OtherCodec:
    def __reduce__(self):
        import codecs
        return (codecs.encode, ("aGk=", "base64"))


def test_protocol_2_bytes_load_and_only_latin1_is_let_through():
    buf = io.BytesIO()
    tl.save({"b": b"\x00\xffraw", "s": {1, 2}}, buf)  # protocol 2: _codecs.encode, __builtin__.set
    assert tl.load(io.BytesIO(buf.getvalue())) == {"b": b"\x00\xffraw", "s": {1, 2}}
    buf = io.BytesIO()
    tl.save(OtherCodec(), buf)
    with pytest.raises(pickle.UnpicklingError, match="_codecs.encode with encoding 'base64' is not allowed"):
        tl.load(io.BytesIO(buf.getvalue()))


class Point:
    def __init__(self, x):
        self.x = x


POINT = f"{Point.__module__}.Point"


def test_safe_globals():
    buf = io.BytesIO()
    tl.save(Point(3), buf)
    with pytest.raises(pickle.UnpicklingError, match=f"add_safe_globals\\(\\[{POINT}\\]\\)"):
        tl.load(io.BytesIO(buf.getvalue()))
    assert serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue())) == [POINT]
    with serialization.safe_globals([Point]):
        assert serialization.get_safe_globals() == [Point]
        assert tl.load(io.BytesIO(buf.getvalue())).x == 3
        assert serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue())) == []
    assert serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        tl.load(io.BytesIO(buf.getvalue()))
    serialization.add_safe_globals([Point])
    try:
        with serialization.safe_globals([Point]):  # leaving the block keeps what was added before it
            pass
        assert Point in serialization.get_safe_globals()
        assert tl.load(io.BytesIO(buf.getvalue())).x == 3
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []


def test_safe_globals_under_another_name():
    buf = io.BytesIO()
    tl.save(Point(4), buf)
    with serialization.safe_globals([(Point, "elsewhere.Point")]), pytest.raises(pickle.UnpicklingError):
        tl.load(io.BytesIO(buf.getvalue()))  # the checkpoint names it POINT, not elsewhere.Point
    with serialization.safe_globals([(Point, POINT)]):
        assert tl.load(io.BytesIO(buf.getvalue())).x == 4
    with pytest.raises(ValueError, match="tuple of length 2"):
        serialization.add_safe_globals([(Point, POINT, 1)])
    with pytest.raises(TypeError, match="str of callable full path"):
        serialization.add_safe_globals([(Point, Point)])
    assert serialization.get_safe_globals() == []


@pytest.mark.parametrize("env, weights_only, loads", [
    ({}, None, False),
    ({}, False, True),
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "1"}, False, False),  # forcing weights_only overrides the argument
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "true"}, None, True),
    ({"TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "YES"}, True, False),  # ...but not an explicit weights_only=True
    ({"TORCH_FORCE_WEIGHTS_ONLY_LOAD": "0", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "y"}, None, True),
])
def test_weights_only_environment_variables(monkeypatch, env, weights_only, loads):
    for name in ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    buf = io.BytesIO()
    tl.save(Point(5), buf)
    load = lambda: tl.load(io.BytesIO(buf.getvalue()), weights_only=weights_only)  # noqa: E731
    if not loads:
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            load()
    elif weights_only is None:
        with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected"):
            assert load().x == 5
    else:
        assert load().x == 5


def test_both_environment_variables_set(monkeypatch):
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(RuntimeError, match="Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD`"):
        tl.load(io.BytesIO(b""))


def test_pickle_module_means_full_pickle():
    buf = io.BytesIO()
    tl.save(Point(6), buf)
    assert tl.load(io.BytesIO(buf.getvalue()), pickle_module=pickle).x == 6  # PyTorch's default then
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        tl.load(io.BytesIO(buf.getvalue()), pickle_module=pickle, weights_only=True)
    assert tl.load(io.BytesIO(buf.getvalue()), weights_only=False, encoding="latin1").x == 6
    buf = io.BytesIO()
    tl.save([1], buf)
    with pytest.warns(UserWarning, match="pickle_load_args only works if `weights_only=False`"):
        assert tl.load(io.BytesIO(buf.getvalue()), encoding="latin1") == [1]


def test_empty_file(tmp_path):
    p = tmp_path / "empty.pt"
    p.write_bytes(b"")
    with pytest.raises(RuntimeError, match="empty"):
        tl.load(p)


def test_truncated_file(tmp_path):
    p = tmp_path / "t.pt"
    tl.save({"a": tl.ones(100)}, p)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(RuntimeError, match="truncated"):
        tl.load(p)


def test_corrupted_storage_record_crc():
    buf = io.BytesIO()
    tl.save(tl.arange(64, dtype=tl.int64), buf)
    data = bytearray(buf.getvalue())
    i = data.find((5).to_bytes(8, "little") + (6).to_bytes(8, "little"))
    data[i] ^= 0xFF
    with pytest.raises(RuntimeError, match="corrupted"):
        tl.load(io.BytesIO(bytes(data)))


@pytest.mark.parametrize("payload, match", [
    (np.random.default_rng(0).bytes(200), "not a zip archive"),
    (pickle.dumps({"a": 1}), "plain pickle"),
])
def test_foreign_files(payload, match):
    with pytest.raises(RuntimeError, match=match):
        tl.load(io.BytesIO(payload))


def test_zip_without_our_records():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(RuntimeError, match="without a data.pkl"):
        tl.load(io.BytesIO(buf.getvalue()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:  # the least a PyTorch checkpoint holds
        zf.writestr("any_name/data.pkl", pickle.dumps([1, "a"], protocol=2))
    assert tl.load(io.BytesIO(buf.getvalue())) == [1, "a"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pickle.dumps(1))
        zf.writestr("archive/constants.pkl", pickle.dumps(()))
    with pytest.raises(RuntimeError, match="TorchScript archive"):
        tl.load(io.BytesIO(buf.getvalue()))


def test_pytorch_legacy_format_refused():
    legacy = serialization._LEGACY_MAGIC + pickle.dumps(1001, protocol=2) + pickle.dumps({}, protocol=2)
    with pytest.raises(RuntimeError, match="PyTorch's legacy format"):
        tl.load(io.BytesIO(legacy))
    with pytest.raises(ValueError, match="legacy"):
        tl.save(1, io.BytesIO(), _use_new_zipfile_serialization=False)


def test_records_are_aligned_for_mmap():
    buf = io.BytesIO()
    tl.save({"a": tl.ones(3), "b": tl.arange(5), "c": tl.zeros(0), "d": tl.tensor([True])}, buf)
    data = buf.getvalue()
    zf = zipfile.ZipFile(io.BytesIO(data))
    assert zf.read("archive/byteorder") == sys.byteorder.encode() and zf.read("archive/version") == b"3\n"
    for info in zf.infolist():
        if info.filename.startswith("archive/data/"):
            name_len, extra_len = int.from_bytes(data[info.header_offset + 26:][:2], "little"), \
                int.from_bytes(data[info.header_offset + 28:][:2], "little")
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0, info.filename


def test_mmap_load(tmp_path):
    p = tmp_path / "m.pt"
    base = tl.arange(12.0).reshape(3, 4)
    tl.save({"base": base, "row": base[1], "i": tl.arange(3), "e": tl.ones(0)}, p)
    before = p.read_bytes()
    out = tl.load(p, mmap=True)
    assert out["base"].tolist() == base.tolist() and out["i"].tolist() == [0, 1, 2] and out["e"].numel() == 0
    out["base"][1, 0] = -1.0  # copy-on-write: visible through the view, never written to the file
    assert out["row"][0].item() == -1.0 and p.read_bytes() == before
    with pytest.raises(ValueError, match="must be a file path in order to use the mmap"):
        tl.load(io.BytesIO(before), mmap=True)


def write_raw_checkpoint(records_pickle, storages, location="cuda:0"):
    """A checkpoint as written on a CUDA machine: float32 storage records tagged with `location`."""

    class P(serialization._Pickler):
        def persistent_id(self, obj):
            if isinstance(obj, tuple) and obj and obj[0] == "__storage__":
                return ("storage", serialization._TORCH_NAMES["torch.FloatStorage"], obj[1], location, obj[2])
            return None

    pkl = io.BytesIO()
    P(pkl, 2).dump(records_pickle)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/byteorder", "little")
        zf.writestr("archive/data.pkl", pkl.getvalue())
        for key, arr in storages.items():
            zf.writestr(f"archive/data/{key}", arr.tobytes())
    return buf.getvalue()


class _Rebuild:
    """Pickles as torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)."""

    def __init__(self, *args):
        self.args = args

    def __reduce__(self):
        return (serialization._TORCH_NAMES["torch._utils._rebuild_tensor_v2"], (*self.args, collections.OrderedDict()))


def cuda_checkpoint():
    arr = np.arange(6, dtype=np.float32)
    obj = {"w": _Rebuild(("__storage__", "0", 6), 0, (2, 3), (3, 1), False)}
    return write_raw_checkpoint(obj, {"0": arr})


@pytest.mark.parametrize("map_location", [
    "cpu",
    tl.device("cpu"),
    {"cuda:0": "cpu"},
    lambda storage, loc: storage,
], ids=["str", "device", "dict", "callable"])
def test_map_location_cuda_record_to_cpu(map_location):
    out = tl.load(io.BytesIO(cuda_checkpoint()), map_location=map_location)
    assert out["w"].device == tl.device("cpu") and out["w"].tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.skipif(tl.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_record_without_map_location():
    with pytest.raises(RuntimeError, match="map_location=torchlite.device\\('cpu'\\)"):
        tl.load(io.BytesIO(cuda_checkpoint()))
    with pytest.raises(RuntimeError, match="cuda.is_available"):  # a dict that does not cover cuda:0
        tl.load(io.BytesIO(cuda_checkpoint()), map_location={"cuda:1": "cpu"})


def test_map_location_callable_sees_location_and_none_means_default():
    seen = []
    out = tl.load(io.BytesIO(cuda_checkpoint()), map_location=lambda s, loc: seen.append(loc) or s)
    assert seen == ["cuda:0"] and out["w"].shape == (2, 3)
    buf = io.BytesIO()
    tl.save(tl.ones(2), buf)
    buf.seek(0)
    assert tl.load(buf, map_location=lambda s, loc: None).tolist() == [1.0, 1.0]


def test_map_location_bad_type():
    with pytest.raises(TypeError, match="map_location"):
        tl.load(io.BytesIO(b"x"), map_location=3)


def test_malformed_records_refused():
    bad_stride = {"w": _Rebuild(("__storage__", "0", 6), 0, (2, 3), (3, 10), False)}
    with pytest.raises(RuntimeError, match="out of bounds"):
        tl.load(io.BytesIO(write_raw_checkpoint(bad_stride, {"0": np.zeros(6, np.float32)}, "cpu")))
    neg = {"w": _Rebuild(("__storage__", "0", 6), 0, (2, 3), (-3, 1), False)}
    with pytest.raises(pickle.UnpicklingError, match="negative stride"):
        tl.load(io.BytesIO(write_raw_checkpoint(neg, {"0": np.zeros(6, np.float32)}, "cpu")))
    short = {"w": _Rebuild(("__storage__", "0", 6), 0, (6,), (1,), False)}
    with pytest.raises(RuntimeError, match="holds 8 bytes, expected 24"):
        tl.load(io.BytesIO(write_raw_checkpoint(short, {"0": np.zeros(2, np.float32)}, "cpu")))
    missing = {"w": _Rebuild(("__storage__", "7", 6), 0, (6,), (1,), False)}
    with pytest.raises(RuntimeError, match="no record"):
        tl.load(io.BytesIO(write_raw_checkpoint(missing, {}, "cpu")))


def test_parameter_roundtrip_if_nn_present():
    nn = pytest.importorskip("torchlite.nn")
    p = nn.Parameter(tl.ones(2, 2))
    out = roundtrip({"p": p})
    assert type(out["p"]) is nn.Parameter and out["p"].requires_grad
    assert out["p"].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_pickle_plain_tensor():
    x = tl.arange(6.0).reshape(2, 3).transpose(0, 1)
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == x.tolist() and y.dtype == x.dtype
    b = tl.tensor([1.5, -2.25]).to(tl.bfloat16)
    assert pickle.loads(pickle.dumps(b)).to(tl.float32).tolist() == [1.5, -2.25]
    for dtype in (tl.float32, tl.bfloat16):  # 0-d stays 0-d
        z = pickle.loads(pickle.dumps(tl.tensor(2.5, dtype=dtype)))
        assert z.shape == () and z.dtype == dtype and z.item() == 2.5
    r = tl.ones(2).requires_grad_()
    assert pickle.loads(pickle.dumps(r)).requires_grad
    with pytest.raises(RuntimeError, match="not a leaf"):
        pickle.dumps(r * 2)
    z = pickle.loads(pickle.dumps(tl.ones(3)))
    z[0] = 5.0  # writable after unpickling
    assert z.tolist() == [5.0, 1.0, 1.0]


def test_deepcopy_tensor_keeps_views_and_grad():
    base = tl.arange(6.0)
    view = base[2:4]
    base.requires_grad_()
    base.grad = tl.ones(6)
    c = copy.deepcopy({"b": base, "v": view})
    assert c["b"].requires_grad and c["b"].grad.tolist() == [1.0] * 6
    with tl.no_grad():
        c["b"][2] = 42.0
    assert c["v"][0].item() == 42.0 and base[2].item() == 2.0
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(base * 2)


def test_state_dict_values_match_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    arrays = {"w": rng.standard_normal((3, 4)).astype(np.float32), "n": np.arange(5, dtype=np.int64)}
    out = roundtrip({k: tl.from_numpy(v.copy()) for k, v in arrays.items()})
    for k, v in arrays.items():
        assert torch.equal(torch.from_numpy(out[k].numpy()), torch.from_numpy(v))


def test_module_and_optimizer_state_dicts_if_present():
    nn = pytest.importorskip("torchlite.nn")
    optim = pytest.importorskip("torchlite.optim")
    m = nn.Linear(3, 2)
    opt = optim.Adam(m.parameters(), lr=0.1)
    (m.weight.sum() * 2 + m.bias.sum()).backward()
    opt.step()
    out = roundtrip({"model": m.state_dict(), "optim": opt.state_dict(), "epoch": 3})
    m2 = nn.Linear(3, 2)
    m2.load_state_dict(out["model"])
    assert m2.weight.tolist() == m.weight.tolist() and m2.bias.tolist() == m.bias.tolist()
    opt2 = optim.Adam(m2.parameters(), lr=0.5)
    opt2.load_state_dict(out["optim"])
    assert opt2.state_dict()["param_groups"][0]["lr"] == 0.1
    s1, s2 = opt.state_dict()["state"], opt2.state_dict()["state"]
    assert s1.keys() == s2.keys()
    for k in s1:
        for name, v in s1[k].items():
            w = s2[k][name]
            assert (w.tolist() if isinstance(w, tl.Tensor) else w) == (v.tolist() if isinstance(v, tl.Tensor) else v)
    whole = roundtrip(m, weights_only=False)  # a whole module needs full pickle
    assert type(whole) is nn.Linear and whole.weight.tolist() == m.weight.tolist()
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL torchlite.nn.modules.linear.Linear"):
        roundtrip(m)


def test_save_through_symlink_and_bytes_path(tmp_path):
    target = tmp_path / "real.pt"
    link = tmp_path / "link.pt"
    tl.save(1, target)
    link.symlink_to(target)
    tl.save(2, os.fsencode(str(link)))
    assert link.is_symlink() and tl.load(target) == 2


class Tagged(tl.Tensor):
    """A Tensor subclass with a Python attribute."""


def test_tensor_subclass_needs_safe_globals():
    t = Tagged(tl.arange(3.0))
    t.tag = "mine"
    buf = io.BytesIO()
    tl.save({"t": t}, buf)
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {Tagged.__module__}.Tagged was not an allowed"):
        tl.load(io.BytesIO(buf.getvalue()))
    with serialization.safe_globals([Tagged]):
        out = tl.load(io.BytesIO(buf.getvalue()))["t"]
    assert type(out) is Tagged and out.tag == "mine" and out.tolist() == [0.0, 1.0, 2.0]


def test_untyped_storage_record_reinterpreted_by_rebuild_tensor_v3():
    """PyTorch's record for a dtype with no typed storage class: raw bytes plus the dtype."""

    class Rebuild3:
        def __reduce__(self):
            storage = ("__raw__",)
            return (serialization._Global("torch._utils", "_rebuild_tensor_v3"),
                    (storage, 1, (2,), (1,), False, collections.OrderedDict(), tl.float32))

    class P(serialization._Pickler):
        def persistent_id(self, obj):
            if obj == ("__raw__",):
                return ("storage", serialization._Global("torch.storage", "UntypedStorage"), "0", "cpu", 12)
            return None

    pkl = io.BytesIO()
    P(pkl, 2).dump(Rebuild3())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pkl.getvalue())
        zf.writestr("archive/data/0", np.array([1.5, -2.0, 4.25], "<f4").tobytes())
    out = tl.load(io.BytesIO(buf.getvalue()))
    assert out.dtype == tl.float32 and out.tolist() == [-2.0, 4.25]


def test_safetensors_path_without_the_package(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "safetensors", None)  # as if not installed
    monkeypatch.delitem(sys.modules, "torchlite.safetensors", raising=False)
    monkeypatch.delattr(tl, "safetensors", raising=False)
    with pytest.raises(RuntimeError, match="safetensors is not installed"):
        tl.load(tmp_path / "m.safetensors")
    with pytest.raises(RuntimeError, match="dict map_location is not supported"):
        tl.load(tmp_path / "m.safetensors", map_location={"cuda:0": "cpu"})

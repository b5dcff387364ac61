"""Checkpoints across the border: torchlite.load reads torch.save's files, and PyTorch's
torch.load(weights_only=True) reads torchlite.save's."""

import collections
import io
import os
import pickle

import numpy as np
import pytest

import torchlite as tl

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]


def torch_to_tl(obj, **load_kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return tl.load(io.BytesIO(buf.getvalue()), **load_kwargs)


def tl_to_torch(obj):
    buf = io.BytesIO()
    tl.save(obj, buf)
    return torch.load(io.BytesIO(buf.getvalue()), weights_only=True)


def values(t):
    """A tensor of either library as a NumPy array (bfloat16 widened to float32)."""
    if t.dtype in (torch.bfloat16, tl.bfloat16):
        t = t.float()
    return t.detach().numpy()


# ---------------------------------------------------------------------------------------------
# the example scripts' models, built in either library


def digits_cnn(lib):
    nn = lib.nn

    class DigitsCNN(nn.Module):  # examples/train_digits_cnn.py
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            )
            self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 4 * 4, 128), nn.ReLU(),
                                            nn.Linear(128, 10))

        def forward(self, x):
            return self.classifier(self.features(x))

    return DigitsCNN(), np.random.default_rng(1).standard_normal((4, 1, 8, 8)).astype(np.float32)


def char_transformer(lib, vocab=20, context=16, d_model=32, heads=4, layers=2):
    nn = lib.nn

    class CharTransformer(nn.Module):  # examples/train_char_transformer.py
        def __init__(self):
            super().__init__()
            self.tokens = nn.Embedding(vocab, d_model)
            self.positions = nn.Embedding(context, d_model)
            layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model, dropout=0.1,
                                               activation="gelu", batch_first=True, norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(d_model)
            self.head = nn.Linear(d_model, vocab)
            self.register_buffer("causal", lib.triu(lib.full((context, context), float("-inf")), 1),
                                 persistent=False)

        def forward(self, idx):
            t = idx.shape[1]
            x = self.tokens(idx) + self.positions(lib.arange(t))
            x = self.encoder(x, mask=self.causal[:t, :t])
            return self.head(self.norm(x))

    return CharTransformer(), np.random.default_rng(2).integers(0, vocab, (3, context))


def randomize(model, lib, seed):
    """Non-default values for every parameter and buffer (BatchNorm's running stats included)."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for name, t in model.state_dict().items():
            if t.dtype == lib.float32:
                v = rng.uniform(0.5, 1.5, tuple(t.shape)) if "running_var" in name else rng.standard_normal(tuple(t.shape)) * 0.2
                t.copy_(lib.from_numpy(v.astype(np.float32)))
            else:
                t.fill_(int(rng.integers(1, 100)))


@pytest.mark.parametrize("build", [digits_cnn, char_transformer], ids=["digits_cnn", "char_transformer"])
@pytest.mark.parametrize("direction", ["torch_to_torchlite", "torchlite_to_torch"])
def test_example_model_state_dict_crosses(build, direction, tmp_path):
    src_lib, dst_lib = (torch, tl) if direction == "torch_to_torchlite" else (tl, torch)
    src, x = build(src_lib)
    dst, _ = build(dst_lib)
    randomize(src, src_lib, seed=0)
    path = tmp_path / "model.pt"
    src_lib.save(src.state_dict(), path)
    sd = dst_lib.load(path, weights_only=True)
    assert list(sd) == list(src.state_dict())
    dst.load_state_dict(sd)
    src.eval()
    dst.eval()
    with src_lib.no_grad(), dst_lib.no_grad():
        want = src(src_lib.from_numpy(x)).numpy()
        got = dst(dst_lib.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def adam_run(lib, steps, state=None):
    """A Linear trained with Adam for `steps` steps on fixed data, from `state` (model, optim) if given."""
    lib.manual_seed(0)
    model = lib.nn.Linear(4, 3)
    opt = lib.optim.Adam(model.parameters(), lr=0.05, betas=(0.8, 0.99), weight_decay=0.01, amsgrad=True)
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optim"])
    rng = np.random.default_rng(3)
    for _ in range(steps):
        x = lib.from_numpy(rng.standard_normal((5, 4)).astype(np.float32))
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        opt.step()
    return model, opt


@pytest.mark.parametrize("src_lib, dst_lib", [(torch, tl), (tl, torch)], ids=["torch_to_torchlite", "torchlite_to_torch"])
def test_adam_state_dict_crosses_and_training_resumes(src_lib, dst_lib):
    model, opt = adam_run(src_lib, 3)
    buf = io.BytesIO()
    src_lib.save({"model": model.state_dict(), "optim": opt.state_dict()}, buf)
    state = dst_lib.load(io.BytesIO(buf.getvalue()), weights_only=True)
    st = state["optim"]["state"][0]
    assert isinstance(st["step"], dst_lib.Tensor) and st["step"].item() == 3.0
    assert sorted(st) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
    np.testing.assert_array_equal(values(st["exp_avg"]), values(opt.state_dict()["state"][0]["exp_avg"]))
    assert state["optim"]["param_groups"][0]["betas"] == (0.8, 0.99)
    assert state["optim"]["param_groups"][0]["params"] == [0, 1]
    resumed, _ = adam_run(dst_lib, 2, state)  # two more steps in the other library...
    model.train()
    rng = np.random.default_rng(3)
    for _ in range(2):  # ...and in the source library on the same data
        x = src_lib.from_numpy(rng.standard_normal((5, 4)).astype(np.float32))
        opt.zero_grad()
        (model(x) ** 2).mean().backward()
        opt.step()
    np.testing.assert_allclose(values(resumed.weight), values(model.weight), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# tensors, dtypes, views, containers


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_both_ways(name):
    rng = np.random.default_rng(4)
    data = rng.standard_normal((3, 4)) * 5
    if name.startswith("complex"):
        data = data + 1j * rng.standard_normal((3, 4))
    t = torch.from_numpy(data).to(getattr(torch, name))
    got = torch_to_tl({"t": t, "view": t[1:, ::2]})
    assert got["t"].dtype == getattr(tl, name) and got["view"].dtype == getattr(tl, name)
    np.testing.assert_array_equal(values(got["t"]), values(t))
    np.testing.assert_array_equal(values(got["view"]), values(t[1:, ::2]))
    back = tl_to_torch(got)
    assert back["t"].dtype == t.dtype
    assert torch.equal(back["t"], t) and torch.equal(back["view"], t[1:, ::2])
    assert back["view"].stride() == t[1:, ::2].stride() and back["view"].storage_offset() == 4


def test_views_keep_sharing_storage_both_ways():
    base = torch.arange(12.0)
    obj = {"base": base, "mat": base.view(3, 4), "col": base.view(3, 4)[:, 2], "tail": base[5:]}
    got = torch_to_tl(obj)
    assert got["col"].stride() == (4,) and got["col"].storage_offset() == 2 and got["tail"].storage_offset() == 5
    got["base"][6] = -1.0
    assert got["mat"][1, 2].item() == -1.0 and got["col"][1].item() == -1.0 and got["tail"][1].item() == -1.0
    back = tl_to_torch(got)
    ptrs = {back[k].untyped_storage().data_ptr() for k in back}
    assert len(ptrs) == 1 and back["col"].tolist() == [2.0, -1.0, 10.0]
    back["base"][10] = 7.0
    assert back["col"][2].item() == 7.0


def test_same_tensor_twice_stays_one_object():
    t = tl.ones(2)
    back = tl_to_torch([t, t])
    assert back[0] is back[1]
    again = torch_to_tl(back)
    assert again[0] is again[1]


def test_nested_containers_both_ways():
    def make(lib):
        od = collections.OrderedDict([("w", lib.ones(2, 3)), ("b", lib.zeros(3))])
        od._metadata = collections.OrderedDict([("", {"version": 1})])
        return {
            "sd": od,
            "list": [lib.tensor([1, 2]), 3, -4.5, True, None, "text", b"raw", 2**70],
            "tuple": (lib.tensor(7.0), {"nested": [lib.tensor([True, False])], 5: (1, 2)}),
            "set": {1, 2},
            "complex": 1 + 2j,
            "dtype": lib.float16,
            "device": lib.device("cpu"),
            "size": lib.Size([2, 3]),
            "empty": lib.empty(0, 3),
        }

    for src_lib, dst_lib, cross in [(torch, tl, torch_to_tl), (tl, torch, tl_to_torch)]:
        out = cross(make(src_lib))
        assert type(out["sd"]) is collections.OrderedDict and list(out["sd"]) == ["w", "b"]
        assert out["sd"]._metadata == {"": {"version": 1}}
        assert out["sd"]["w"].tolist() == [[1.0] * 3] * 2
        assert out["list"][1:] == [3, -4.5, True, None, "text", b"raw", 2**70]
        assert out["list"][0].dtype == dst_lib.int64 and out["list"][0].tolist() == [1, 2]
        assert out["tuple"][0].item() == 7.0 and out["tuple"][1][5] == (1, 2)
        assert out["tuple"][1]["nested"][0].tolist() == [True, False]
        assert out["set"] == {1, 2} and out["complex"] == 1 + 2j
        assert out["dtype"] == dst_lib.float16 and out["device"] == dst_lib.device("cpu")
        assert type(out["size"]) is dst_lib.Size and out["size"] == (2, 3)
        assert tuple(out["empty"].shape) == (0, 3)


def test_requires_grad_and_parameters_both_ways():
    obj = {"p": torch.nn.Parameter(torch.ones(2)), "frozen": torch.nn.Parameter(torch.ones(1), requires_grad=False),
           "leaf": torch.zeros(2, requires_grad=True), "plain": torch.zeros(2)}
    got = torch_to_tl(obj)
    assert type(got["p"]) is tl.nn.Parameter and got["p"].requires_grad
    assert type(got["frozen"]) is tl.nn.Parameter and not got["frozen"].requires_grad
    assert type(got["leaf"]) is tl.Tensor and got["leaf"].requires_grad and got["leaf"].is_leaf
    assert not got["plain"].requires_grad
    (got["p"] * 3).sum().backward()
    assert got["p"].grad.tolist() == [3.0, 3.0]
    back = tl_to_torch(got)
    assert type(back["p"]) is torch.nn.Parameter and back["p"].requires_grad
    assert type(back["frozen"]) is torch.nn.Parameter and not back["frozen"].requires_grad
    assert type(back["leaf"]) is torch.Tensor and back["leaf"].requires_grad and not back["plain"].requires_grad


def test_tensor_attributes_cross():
    t = torch.ones(2)
    t.note = "kept"
    got = torch_to_tl(t, weights_only=True)
    assert got.note == "kept" and got.tolist() == [1.0, 1.0]
    assert tl_to_torch(got).note == "kept"


def test_big_endian_file_is_byteswapped():
    buf = io.BytesIO()
    torch.save({"x": torch.arange(4, dtype=torch.int32)}, buf)
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:  # the same checkpoint as a big-endian machine writes it
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("/byteorder"):
                data = b"big"
            elif "/data/" in info.filename:
                data = np.frombuffer(data, "<i4").astype(">i4").tobytes()
            dst.writestr(info.filename, data)
    assert tl.load(io.BytesIO(out.getvalue()))["x"].tolist() == [0, 1, 2, 3]


def test_torch_file_on_disk_with_mmap(tmp_path):
    p = tmp_path / "weights.pt"  # PyTorch names the archive's folder after the file: "weights/"
    torch.save({"w": torch.arange(6.0).view(2, 3), "i": torch.arange(3)}, p)
    out = tl.load(p, mmap=True)
    assert out["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and out["i"].tolist() == [0, 1, 2]
    assert torch.load(p, mmap=True)["w"].sum().item() == 15.0  # and our file mmaps in PyTorch
    tl.save(out, p)
    assert torch.load(p, mmap=True, weights_only=True)["w"].sum().item() == 15.0


# ---------------------------------------------------------------------------------------------
# what is refused


def test_dtype_torchlite_lacks_is_named():
    with pytest.raises(RuntimeError, match="dtype torch.uint16, which torchlite does not support"):
        torch_to_tl({"u": torch.tensor([1, 2], dtype=torch.uint16)})


def test_torch_legacy_format_refused():
    buf = io.BytesIO()
    torch.save({"a": torch.ones(2)}, buf, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="PyTorch's legacy format"):
        tl.load(io.BytesIO(buf.getvalue()))


class Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_malicious_checkpoint_refused_by_both(tmp_path):
    marker = tmp_path / "pwned"
    for lib in (torch, tl):
        p = tmp_path / f"{lib.__name__}.pt"
        lib.save({"x": lib.ones(1), "evil": Evil(marker)}, p)
        for reader in (torch, tl):
            with pytest.raises(pickle.UnpicklingError, match="posix.system"):
                reader.load(p, weights_only=True)
            with pytest.raises(pickle.UnpicklingError, match="posix.system"):
                reader.load(p)
    assert not marker.exists()


class Point:
    def __init__(self, x):
        self.x = x


def test_safe_globals_for_a_torch_checkpoint():
    buf = io.BytesIO()
    torch.save({"pt": Point(1), "t": torch.ones(1)}, buf)
    name = f"{Point.__module__}.Point"
    assert tl.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue())) == [name]
    assert torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue())) == [name]
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {name} was not an allowed global"):
        tl.load(io.BytesIO(buf.getvalue()))
    with tl.serialization.safe_globals([Point]):
        out = tl.load(io.BytesIO(buf.getvalue()))
    assert out["pt"].x == 1 and type(out["t"]) is tl.Tensor

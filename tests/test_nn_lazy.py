"""Lazy modules (LazyLinear, LazyConv*/LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*), their
UninitializedParameter/UninitializedBuffer placeholders, and nn.Buffer, against PyTorch."""

import copy
import pickle

import numpy as np
import pytest

import torchlite as tl
from torchlite import nn
from torchlite.nn.modules.lazy import LazyModuleMixin

torch = pytest.importorskip("torch")

LAZY = [
    ("nn.LazyLinear(3)", (2, 5)),
    ("nn.LazyLinear(3, bias=False)", (4, 2, 5)),
    ("nn.LazyConv1d(4, 3, padding=1)", (2, 3, 7)),
    ("nn.LazyConv2d(4, 3, stride=2, groups=2)", (2, 6, 7, 7)),
    ("nn.LazyConv3d(2, 2, bias=False)", (3, 4, 4, 4)),
    ("nn.LazyConvTranspose1d(4, 3, groups=2)", (2, 6, 5)),
    ("nn.LazyConvTranspose2d(3, 2, stride=2, output_padding=1)", (1, 2, 4, 4)),
    ("nn.LazyConvTranspose3d(2, 2)", (1, 3, 3, 3, 3)),
    ("nn.LazyBatchNorm1d()", (4, 3)),
    ("nn.LazyBatchNorm1d(bias=False)", (4, 3, 2)),
    ("nn.LazyBatchNorm2d(affine=False)", (2, 3, 4, 4)),
    ("nn.LazyBatchNorm3d(track_running_stats=False)", (2, 3, 2, 2, 2)),
    ("nn.LazyInstanceNorm1d(affine=True)", (2, 3, 5)),
    ("nn.LazyInstanceNorm2d()", (2, 3, 4, 4)),
    ("nn.LazyInstanceNorm3d(affine=True, track_running_stats=False)", (2, 3, 2, 2, 2)),
]


@pytest.mark.parametrize("expr,shape", LAZY)
def test_lazy_module_becomes_its_eager_class(expr, shape):
    ref = eval(expr, {"nn": torch.nn})
    mine = eval(expr, {"nn": nn})
    assert repr(mine) == repr(ref)
    assert list(mine.state_dict()) == list(ref.state_dict())
    assert mine.has_uninitialized_params() == ref.has_uninitialized_params()
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ref(torch.tensor(x))
    mine(tl.tensor(x))
    assert type(mine).__name__ == type(ref).__name__
    assert repr(mine) == repr(ref)
    mine.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    for (name, a), (_, b) in zip(mine.state_dict().items(), ref.state_dict().items()):
        assert type(a) is tl.Tensor, name
        assert tuple(a.shape) == tuple(b.shape), name
    assert all(type(p) is nn.Parameter for p in mine.parameters())
    x2 = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(mine(tl.tensor(x2)).detach().numpy(), ref(torch.tensor(x2)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)


def test_lazy_linear_gradients_and_initialisation():
    m = nn.LazyLinear(4)
    x = tl.randn(3, 6, requires_grad=True)
    m(x).sum().backward()
    bound = 1 / np.sqrt(6)
    assert m.weight.shape == (4, 6) and float(m.weight.abs().max()) <= bound
    np.testing.assert_allclose(m.weight.grad.numpy(), np.broadcast_to(x.detach().numpy().sum(0), (4, 6)), rtol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(m.weight.detach().numpy().sum(0), (3, 6)),
                               rtol=1e-5)


def test_lazy_module_loads_a_state_dict_before_its_first_forward():
    ref = nn.Linear(4, 3)
    m = nn.LazyLinear(3)
    m.load_state_dict(ref.state_dict())
    assert type(m) is nn.LazyLinear and m.weight.shape == (3, 4)
    x = tl.randn(2, 4)
    assert tl.equal(m(x), ref(x)) and type(m) is nn.Linear
    bn = nn.LazyBatchNorm1d()
    src = nn.BatchNorm1d(3)
    src.running_mean.fill_(2.0)
    bn.load_state_dict(src.state_dict())
    bn(tl.randn(4, 3))
    assert type(bn.running_mean) is tl.Tensor and bn.running_mean.shape == (3,)


def test_lazy_state_dict_keeps_placeholders():
    m = nn.LazyConv2d(3, 2)
    sd = m.state_dict()
    assert isinstance(sd["weight"], nn.UninitializedParameter) and repr(sd["weight"]) == "<UninitializedParameter>"


def test_uninitialized_placeholders():
    p = nn.UninitializedParameter(requires_grad=False, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        p.shape  # noqa: B018
    with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized"):
        p.share_memory_()
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is nn.UninitializedParameter and not q.requires_grad
    assert type(copy.deepcopy(p)) is nn.UninitializedParameter
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.dtype == tl.float64 and not p.requires_grad
    b = nn.UninitializedBuffer()
    assert isinstance(b, nn.Buffer) and b.persistent
    b.materialize(4)
    assert b.shape == (4,)


@pytest.mark.parametrize("call,exc,match", [
    (lambda: nn.LazyConv2d(4, 3, groups=2)(tl.randn(1, 3, 5, 5)), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.LazyConv2d(4, 3)(tl.randn(5, 5)), RuntimeError, "Expected 3D \\(unbatched\\) or 4D \\(batched\\) input"),
    (lambda: nn.LazyBatchNorm2d()(tl.randn(2, 3)), ValueError, "expected 4D input"),
    (lambda: LazyModuleMixin.initialize_parameters(nn.Linear(1, 1)), NotImplementedError,
     "initialize_parameters is not implemented"),
])
def test_lazy_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_buffer_registers_on_assignment():
    m = nn.Module()
    m.a = nn.Buffer(tl.ones(2))
    m.b = nn.Buffer(tl.zeros(1), persistent=False)
    ref = torch.nn.Module()
    ref.a = torch.nn.Buffer(torch.ones(2))
    ref.b = torch.nn.Buffer(torch.zeros(1), persistent=False)
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in ref.named_buffers()] == ["a", "b"]
    assert list(m.state_dict()) == list(ref.state_dict()) == ["a"]
    t = tl.ones(2, requires_grad=True)
    buf = nn.Buffer(t)
    assert type(buf) is tl.Tensor and buf.requires_grad and buf.grad_fn is None and isinstance(buf, nn.Buffer)
    assert not isinstance(tl.ones(1), nn.Buffer)
    m.a = nn.Buffer(tl.zeros(3), persistent=False)  # re-registering changes persistence
    assert list(m.state_dict()) == []
    m.c = tl.ones(1)  # a plain tensor stays a plain attribute
    assert "c" not in dict(m.named_buffers())

"""The smaller nn additions against PyTorch: Hardtanh's deprecated aliases, Container, CrossMapLRN2d,
NLLLoss2d, SyncBatchNorm, DataParallel/data_parallel, factory_kwargs, linear_cross_entropy and
LinearCrossEntropyLoss, conv_tbc and assert_int_or_pair."""

import numpy as np
import pytest

import torchlite as tl
from torchlite import nn
from torchlite.nn import functional as F

torch = pytest.importorskip("torch")


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _both(x, requires_grad=True):
    return torch.tensor(x, requires_grad=requires_grad), tl.tensor(x, requires_grad=requires_grad)


def _close(a, b, atol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=atol, rtol=1e-7)


def test_hardtanh_deprecated_aliases():
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        m = nn.Hardtanh(min_value=-2.0)
    with pytest.warns(FutureWarning, match="`max_value` is deprecated"):
        m2 = nn.Hardtanh(max_value=0.5)
    assert (m.min_val, m.max_val, m2.min_val, m2.max_val) == (-2.0, 1.0, -1.0, 0.5)
    assert tl.equal(m2(tl.tensor([-3.0, 0.2, 3.0])), tl.tensor([-1.0, 0.2, 0.5]))
    with pytest.raises(AssertionError, match="must be greater than min_val"), pytest.warns(FutureWarning):
        nn.Hardtanh(min_value=2.0)


def test_container_registers_and_warns():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = nn.Container(a=nn.Linear(2, 3), b=nn.ReLU())
    assert [n for n, _ in c.named_children()] == ["a", "b"]
    assert list(c.state_dict()) == ["a.weight", "a.bias"]


@pytest.mark.parametrize("channels,size", [(7, 3), (7, 5), (3, 5), (8, 4), (5, 2)])
def test_cross_map_lrn2d(channels, size):
    x = randn(2, channels, 3, 4)
    (t, m) = _both(x)
    ref, mine = torch.nn.CrossMapLRN2d(size, 0.3, 0.75, 1.5), nn.CrossMapLRN2d(size, 0.3, 0.75, 1.5)
    assert repr(mine) == repr(ref)
    a, b = ref(t), mine(m)
    _close(b, a)
    w = randn(*a.shape, seed=1)
    (a * torch.tensor(w)).sum().backward()
    (b * tl.tensor(w)).sum().backward()
    _close(m.grad, t.grad)  # PyTorch's hand-written backward, reproduced


def test_cross_map_lrn2d_needs_4d():
    with pytest.raises(ValueError, match="Expected input to be 4D, got 3D"):
        nn.CrossMapLRN2d(3)(tl.randn(2, 3, 4))


def test_nll_loss_2d():
    x = randn(2, 3, 4, 5)
    target = np.random.default_rng(1).integers(0, 3, (2, 4, 5))
    target[0, 0, 0] = 1
    t, m = _both(x)
    w = randn(3, seed=2) ** 2
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        a = torch.nn.NLLLoss2d(torch.tensor(w), ignore_index=1)(t, torch.tensor(target))
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        b = nn.NLLLoss2d(tl.tensor(w), ignore_index=1)(m, tl.tensor(target))
    _close(b, a)
    a.backward()
    b.backward()
    _close(m.grad, t.grad)


def test_sync_batch_norm_is_batch_norm_without_a_process_group():
    x = randn(4, 3, 2, 5)
    for training in (True, False):
        torch.manual_seed(0)
        ref = torch.nn.SyncBatchNorm(3, momentum=0.3).double().train(training)
        mine = nn.SyncBatchNorm(3, momentum=0.3).double().train(training)
        mine.load_state_dict({k: tl.tensor(v.numpy()) for k, v in ref.state_dict().items()})
        t, m = _both(x)
        a, b = ref(t), mine(m)
        _close(b, a)
        a.sum().backward()
        b.sum().backward()
        _close(m.grad, t.grad)
        _close(mine.running_mean, ref.running_mean)
        _close(mine.running_var, ref.running_var)
    assert repr(mine) == repr(ref)
    with pytest.raises(ValueError, match="expected at least 2D input \\(got 1D input\\)"):
        nn.SyncBatchNorm(3)(tl.randn(3))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        nn.SyncBatchNorm(0)(tl.randn(3, 0))


def test_convert_sync_batchnorm():
    net = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3), nn.Sequential(nn.BatchNorm1d(4)))
    net[1].running_mean.fill_(0.5)
    net.eval()
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    ref = torch.nn.SyncBatchNorm.convert_sync_batchnorm(
        torch.nn.Sequential(torch.nn.Conv2d(2, 3, 1), torch.nn.BatchNorm2d(3),
                            torch.nn.Sequential(torch.nn.BatchNorm1d(4))))
    assert repr(conv) == repr(ref)
    assert conv[1].weight is net[1].weight and tl.equal(conv[1].running_mean, tl.full((3,), 0.5))
    assert not conv[1].training and isinstance(conv[2][0], nn.SyncBatchNorm)
    bn = nn.BatchNorm1d(2)
    assert isinstance(nn.SyncBatchNorm.convert_sync_batchnorm(bn), nn.SyncBatchNorm)


def test_data_parallel_without_gpus_runs_the_module():
    if tl.cuda.is_available():
        pytest.skip("checks the no-GPU behaviour")
    inner = nn.Linear(3, 2)
    dp = nn.DataParallel(inner)
    ref = torch.nn.DataParallel(torch.nn.Linear(3, 2))
    assert dp.module is inner and dp.device_ids == [] and repr(dp) == repr(ref)
    assert list(dp.state_dict()) == list(ref.state_dict()) == ["module.weight", "module.bias"]
    x = tl.randn(4, 3)
    assert tl.equal(dp(x), inner(x))
    assert nn.parallel.DataParallel is nn.DataParallel
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        nn.parallel.data_parallel(inner, x)


def test_factory_kwargs():
    assert nn.factory_kwargs(None) == {}
    got = nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": tl.float64}})
    assert got == {"device": "cpu", "dtype": tl.float64}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        nn.factory_kwargs({"devices": "cpu"})
    with pytest.raises(TypeError, match="dtype specified twice"):
        nn.factory_kwargs({"dtype": tl.float32, "factory_kwargs": {"dtype": tl.float64}})


LCE = [
    ((5, 4), (3, 4), "index", {}),
    ((4,), (3, 4), "index", {"reduction": "sum", "label_smoothing": 0.2}),
    ((5, 4), (3, 4), "index", {"bias": True, "weight": True, "ignore_index": 1}),
    ((5, 4), (3, 4), "probs", {"reduction": "none", "bias": True}),
    ((5, 4), (3, 2, 4), "index", {"bias": True, "reduction": "none"}),
    ((5, 4), (3, 2, 4), "probs", {"weight": True, "label_smoothing": 0.1}),
]


@pytest.mark.parametrize("in_shape,w_shape,target,kw", LCE)
def test_linear_cross_entropy(in_shape, w_shape, target, kw):
    x, w = randn(*in_shape), randn(*w_shape, seed=1)
    classes, out = w_shape[0], w_shape[1:-1]
    batch = in_shape[:-1]
    rng = np.random.default_rng(2)
    if target == "index":
        tgt = rng.integers(0, classes, (*batch, *out))
    else:
        tgt = rng.dirichlet(np.ones(classes), size=(*batch, *out))
        tgt = np.moveaxis(tgt, -1, len(batch))
    results = []
    for lib, fn in ((torch, torch.nn.functional.linear_cross_entropy), (tl, F.linear_cross_entropy)):
        xs, ws = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        extra = {k: v for k, v in kw.items() if k not in ("bias", "weight")}
        if kw.get("bias"):
            extra["linear_bias"] = lib.tensor(randn(classes, *out, seed=3), requires_grad=True)
        if kw.get("weight"):
            extra["weight"] = lib.tensor(randn(classes, seed=4) ** 2)
        loss = fn(xs, ws, lib.tensor(tgt), **extra)
        loss.sum().backward()
        results.append([loss, xs.grad, ws.grad] + ([extra["linear_bias"].grad] if kw.get("bias") else []))
    for a, b in zip(results[1], results[0]):
        _close(a, b)


def test_linear_cross_entropy_loss_module():
    torch.manual_seed(0)
    ref = torch.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True, label_smoothing=0.1).double()
    mine = nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True, label_smoothing=0.1).double()
    assert repr(mine) == repr(ref)
    mine.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x = randn(5, 4)
    tgt = np.random.default_rng(1).integers(0, 3, (5, 2))
    a = ref(torch.tensor(x), torch.tensor(tgt))
    b = mine(tl.tensor(x), tl.tensor(tgt))
    _close(b, a)
    a.backward()
    b.backward()
    _close(mine.linear.weight.grad, ref.linear.weight.grad)
    _close(mine.linear.bias.grad, ref.linear.bias.grad)


def test_linear_cross_entropy_options():
    opts = nn.LinearCrossEntropyOptions(batch_chunk_size=2, chunking_method=None)
    x, w, tgt = tl.randn(5, 4), tl.randn(3, 4), tl.tensor([0, 1, 2, 1, 0])
    assert tl.allclose(F.linear_cross_entropy(x, w, tgt, options=opts), F.cross_entropy(x @ w.t(), tgt))
    with pytest.warns(UserWarning, match="``options`` ignored"):
        F.linear_cross_entropy(x, w, tgt, label_smoothing=0.1, options=opts)
    for kw, match in (({"acc_policy": "x"}, "invalid acc_policy"), ({"chunking_method": "aspect"}, "chunking_method"),
                      ({"batch_chunk_size": 0}, "batch_chunk_size"), ({"acc_dtype": tl.int32}, "acc_dtype")):
        with pytest.raises(ValueError, match=match):
            nn.LinearCrossEntropyOptions(**kw)


@pytest.mark.parametrize("call,match", [
    (lambda: F.linear_cross_entropy(tl.randn(2, 3, 4), tl.randn(5, 4), tl.tensor([1, 2])), "dimensionality 1 or 2"),
    (lambda: F.linear_cross_entropy(tl.randn(2, 4), tl.randn(4), tl.tensor([1, 2])), "at least 2"),
    (lambda: F.linear_cross_entropy(tl.randn(2, 4), tl.randn(5, 3), tl.tensor([1, 2])), "in_features"),
    (lambda: F.linear_cross_entropy(tl.randn(2, 4), tl.randn(5, 4), tl.tensor([1, 2]), linear_bias=tl.randn(4)),
     "expected linear_bias shape"),
    (lambda: F.linear_cross_entropy(tl.randn(4), tl.randn(5, 2, 4), tl.tensor(1)), "requires batched input"),
    (lambda: F.linear_cross_entropy(tl.randn(2, 4), tl.randn(5, 4), tl.rand(2, 5), ignore_index=1),
     "ignore_index cannot be specified"),
    (lambda: nn.LinearCrossEntropyLoss(4, 3, weight=tl.ones(4)), "expected weight shape"),
    (lambda: nn.LinearCrossEntropyLoss(4, 3, label_smoothing=1.5), "label_smoothing to be in range"),
])
def test_linear_cross_entropy_bad_inputs(call, match):
    with pytest.raises(RuntimeError, match=match):
        call()


def test_conv_tbc_and_assert_int_or_pair():
    x, w, b = randn(6, 2, 3), randn(3, 3, 4, seed=1), randn(4, seed=2)
    a = torch.nn.functional.conv_tbc(torch.tensor(x), torch.tensor(w), torch.tensor(b), 1)
    _close(F.conv_tbc(tl.tensor(x), tl.tensor(w), tl.tensor(b), 1), a)
    F.assert_int_or_pair(3, "k", "{} must be int or pair")
    F.assert_int_or_pair((1, 2), "k", "{} must be int or pair")
    with pytest.raises(AssertionError, match="k must be int or pair"):
        F.assert_int_or_pair((1, 2, 3), "k", "{} must be int or pair")

"""torchlite.utils.checkpoint: both variants give PyTorch's gradients, rerun dropout with the
forward's mask, keep fewer tensors alive, and raise PyTorch's warnings and errors."""

import warnings

import numpy as np
import pytest

import torchlite as tl
from torchlite.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

torch = pytest.importorskip("torch")

VARIANTS = [True, False]


def _block(lib, dropout=0.0):
    """A pre-norm transformer block's worth of layers, seeded identically in both libraries."""
    lib.manual_seed(0)
    layer = lib.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=dropout, batch_first=True,
                                           norm_first=True)
    layers = lib.nn.Sequential(layer, lib.nn.Linear(8, 8), lib.nn.GELU(), lib.nn.Linear(8, 8))
    return layers.double()


def _copy_weights(src, dst):
    with torch.no_grad():
        for p, q in zip(src.parameters(), dst.parameters()):
            q.copy_(torch.tensor(np.asarray(p.detach().tolist())))


def _grads(lib, model, x, run):
    x = x.detach().requires_grad_()
    out = run(model, x)
    (out * out).sum().backward()
    return [np.asarray(t.grad.tolist()) for t in (x, *model.parameters())]


def _inputs():
    data = np.random.default_rng(0).standard_normal((2, 5, 8))
    return tl.tensor(data, dtype=tl.float64), torch.tensor(data, dtype=torch.float64)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_checkpoint_gradients_match_pytorch(use_reentrant):
    xt, xr = _inputs()
    mt, mr = _block(tl), _block(torch)
    _copy_weights(mt, mr)

    def run_tl(m, x):
        return checkpoint(m, x, use_reentrant=use_reentrant)

    def run_torch(m, x):
        return torch.utils.checkpoint.checkpoint(m, x, use_reentrant=use_reentrant)

    for a, b in zip(_grads(tl, mt, xt, run_tl), _grads(torch, mr, xr, run_torch)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_checkpoint_sequential_matches_pytorch(use_reentrant):
    xt, xr = _inputs()
    mt, mr = _block(tl), _block(torch)
    _copy_weights(mt, mr)
    gt = _grads(tl, mt, xt, lambda m, x: checkpoint_sequential(m, 2, x, use_reentrant=use_reentrant))
    gr = _grads(torch, mr, xr,
                lambda m, x: torch.utils.checkpoint.checkpoint_sequential(m, 2, x, use_reentrant=use_reentrant))
    for a, b in zip(gt, gr):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_dropout_recomputes_the_forward_mask(use_reentrant):
    x, _ = _inputs()
    model = _block(tl, dropout=0.5)
    tl.manual_seed(1)
    plain = _grads(tl, model, x, lambda m, x: m(x))
    model.zero_grad()
    tl.manual_seed(1)
    ckpt = _grads(tl, model, x, lambda m, x: checkpoint(m, x, use_reentrant=use_reentrant))
    for a, b in zip(plain, ckpt):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    # without the RNG state the rerun draws other masks: the gradients differ
    model.zero_grad()
    tl.manual_seed(1)
    other = _grads(tl, model, x, lambda m, x: checkpoint(m, x, use_reentrant=use_reentrant, preserve_rng_state=False))
    assert not all(np.allclose(a, b) for a, b in zip(plain, other))


def test_non_reentrant_keeps_no_activations_and_supports_grad_and_kwargs():
    saved = []
    x = tl.randn(4, 4, dtype=tl.float64, requires_grad=True)
    w = tl.randn(4, 4, dtype=tl.float64, requires_grad=True)

    def f(a, *, scale):
        return (a @ w).tanh().exp() * scale

    with tl.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        y = checkpoint(f, x, scale=2.0, use_reentrant=False)
    assert saved == []  # every saved tensor went to the checkpoint's placeholders
    gx, gw = tl.autograd.grad(y.sum(), (x, w), retain_graph=True)
    ex, ew = tl.autograd.grad(f(x, scale=2.0).sum(), (x, w))
    np.testing.assert_allclose(gx.tolist(), ex.tolist(), rtol=1e-12)
    np.testing.assert_allclose(gw.tolist(), ew.tolist(), rtol=1e-12)
    # a second pass over the retained graph recomputes again
    gx2, = tl.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(gx2.tolist(), ex.tolist(), rtol=1e-12)


def test_use_reentrant_not_given_warns_and_bad_arguments_raise():
    x = tl.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint(lambda a: a * 2, x)
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant"):
        checkpoint_sequential([tl.nn.Identity()], 1, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda a, scale: a * scale, x, scale=2, use_reentrant=True)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(lambda a: a, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(lambda a: a, x, use_reentrant=False, determinism_check="strict")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="None of the inputs have requires_grad=True"):
            checkpoint(lambda a: a * 2, tl.ones(2), use_reentrant=True)


def test_reentrant_refuses_autograd_grad():
    x = tl.ones(3, requires_grad=True)
    y = checkpoint(lambda a: (a * a).sum(), x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="incompatible with .grad\\(\\)"):
        tl.autograd.grad(y, x)


def test_nondeterministic_rerun_raises_checkpoint_error():
    calls = []

    def f(a):
        calls.append(1)
        return (a[: len(calls)] ** 2).sum()  # the rerun saves a tensor of another shape

    x = tl.ones(4, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=False, debug=True)
    with pytest.raises(CheckpointError, match="different metadata(.|\n)*during the recomputation"):
        y.backward()


def test_context_fn_wraps_the_forward_and_the_recomputation():
    entered = []

    def context_fn():
        class Ctx:
            def __init__(self, name):
                self.name = name

            def __enter__(self):
                entered.append(self.name)

            def __exit__(self, *exc):
                return False

        return Ctx("forward"), Ctx("recompute")

    x = tl.ones(3, requires_grad=True)
    y = checkpoint(lambda a: (a.exp() * a).sum(), x, use_reentrant=False, context_fn=context_fn)
    assert entered == ["forward"]
    y.backward()
    assert entered == ["forward", "recompute"]
    np.testing.assert_allclose(x.grad.tolist(), (np.e * 2 * np.ones(3)).tolist(), rtol=1e-6)

"""Tensor.register_post_accumulate_grad_hook and the global module hooks of
torch.nn.modules.module, run side by side with PyTorch."""

import numpy as np
import pytest

import torchlite as tl
from torchlite.nn.modules import module as tl_module

torch = pytest.importorskip("torch")
torch_module = torch.nn.modules.module


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2)).double()


def _same_weights(src, dst):
    with torch.no_grad():
        for p, q in zip(src.parameters(), dst.parameters()):
            q.copy_(torch.tensor(np.asarray(p.detach().tolist())))


# ---- post accumulate grad hooks ------------------------------------------------------------

def _optimizer_in_backward(lib, model, batches):
    """Each parameter is stepped by its own SGD as soon as its gradient is accumulated."""
    optimizers = {p: lib.optim.SGD([p], lr=0.1, momentum=0.9) for p in model.parameters()}

    def step(p):
        optimizers[p].step()
        optimizers[p].zero_grad()

    handles = [p.register_post_accumulate_grad_hook(step) for p in model.parameters()]
    for x in batches:
        model(lib.tensor(x)).pow(2).sum().backward()
    for h in handles:
        h.remove()
    return [np.asarray(p.detach().tolist()) for p in model.parameters()]


def test_optimizer_in_backward_matches_pytorch():
    batches = list(np.random.default_rng(0).standard_normal((3, 5, 4)))
    mt, mr = _mlp(tl), _mlp(torch)
    _same_weights(mt, mr)
    for a, b in zip(_optimizer_in_backward(tl, mt, batches), _optimizer_in_backward(torch, mr, batches)):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    assert all(p.grad is None for p in mt.parameters())  # zero_grad ran inside the hooks


@pytest.mark.parametrize("lib", [tl, torch], ids=["torchlite", "torch"])
def test_post_accumulate_grad_hook_sees_the_accumulated_grad(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = w.register_post_accumulate_grad_hook(lambda p: seen.append((p is w, p.grad.tolist())))
    (w * 3).sum().backward()
    (w * 2).sum().backward()
    handle.remove()
    (w * 1).sum().backward()
    assert seen == [(True, [3.0, 3.0]), (True, [5.0, 5.0])]


@pytest.mark.parametrize("lib", [tl, torch], ids=["torchlite", "torch"])
def test_post_accumulate_grad_hook_errors(lib):
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        lib.ones(2).register_post_accumulate_grad_hook(lambda p: None)
    w = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be registered on non-leaf tensors"):
        (w * 2).register_post_accumulate_grad_hook(lambda p: None)


def test_post_accumulate_grad_hook_must_return_none():
    w = tl.ones(2, requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda p: p)
    with pytest.raises(RuntimeError, match="should return None"):
        w.sum().backward()


# ---- global module hooks -------------------------------------------------------------------

def _log_global_hooks(lib, mod):
    """Runs forward and backward of a small model under every global hook; returns the log."""
    log = []
    name = lambda m: type(m).__name__  # noqa: E731
    handles = [
        mod.register_module_forward_pre_hook(lambda m, a: log.append(("pre", name(m)))),
        mod.register_module_forward_hook(lambda m, a, o: log.append(("fwd", name(m), tuple(o.shape)))),
        mod.register_module_full_backward_pre_hook(lambda m, go: log.append(("bwd_pre", name(m),
                                                                             tuple(go[0].shape)))),
        mod.register_module_full_backward_hook(lambda m, gi, go: log.append(
            ("bwd", name(m), tuple(None if g is None else tuple(g.shape) for g in gi)))),
    ]
    try:
        model = _mlp(lib)
        model[0].register_forward_hook(lambda m, a, o: log.append(("own_fwd", name(m))))
        x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        model(x).sum().backward()
    finally:
        for h in handles:
            h.remove()
    model(x)  # removed: nothing more is logged
    return log


def test_global_forward_and_backward_hooks_match_pytorch():
    assert _log_global_hooks(tl, tl_module) == _log_global_hooks(torch, torch_module)


def test_global_forward_hook_always_call_and_kwargs():
    def run(lib, mod):
        log = []
        handle = mod.register_module_forward_hook(lambda m, args, out: log.append((type(m).__name__, out is None)),
                                                  always_call=True)
        try:
            lin = lib.nn.Linear(2, 2)
            lin(lib.ones(1, 2))
            with pytest.raises(RuntimeError):
                lin(lib.ones(1, 3))
        finally:
            handle.remove()
        return log

    assert run(tl, tl_module) == run(torch, torch_module) == [("Linear", False), ("Linear", True)]

    def run_kwargs(lib, mod):
        seen = []
        handle = mod.register_module_forward_hook(lambda m, args, kwargs, out: seen.append(sorted(kwargs)),
                                                  with_kwargs=True)
        try:
            lib.nn.MultiheadAttention(4, 1, batch_first=True)(*[lib.ones(1, 2, 4)] * 3, need_weights=False)
        finally:
            handle.remove()
        return seen

    assert run_kwargs(tl, tl_module) == run_kwargs(torch, torch_module)


def test_registration_hooks_can_replace_what_is_registered():
    def run(lib, mod):
        log, made = [], []

        def param_hook(m, name, p):
            log.append(("param", name))
            made.append(lib.nn.Parameter(p.detach().clone()))
            return made[-1]

        handles = [
            mod.register_module_parameter_registration_hook(param_hook),
            mod.register_module_buffer_registration_hook(lambda m, n, b: log.append(("buffer", n))),
            mod.register_module_module_registration_hook(lambda m, n, s: log.append(("module", n))),
        ]
        try:
            net = lib.nn.Sequential(lib.nn.BatchNorm1d(2))
            net.extra = lib.nn.Linear(2, 2)
        finally:
            for h in handles:
                h.remove()
        lib.nn.Linear(1, 1)  # removed: not logged
        return log, [p is q for p, q in zip(net.parameters(), made)]

    tl_result = run(tl, tl_module)
    assert tl_result == run(torch, torch_module)
    assert all(tl_result[1]) and len(tl_result[1]) == 4

"""Every torchlite optimizer against PyTorch's: 20 steps on the same parameters and gradients
(float64), state_dicts that cross to PyTorch and back, LBFGS on Rosenbrock, signatures, option
errors, swap_in_optimizer_params_and_state and swa_utils."""

import inspect

import numpy as np
import pytest

import torchlite as tl
import torchlite.optim as optim
from torchlite.optim import lr_scheduler, swa_utils

torch = pytest.importorskip("torch")

SHAPES = [(4, 3), (5,), (2, 3, 2)]
MATRICES = [(4, 3), (3, 5)]  # Muon takes 2-D parameters only

CONFIGS = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True)),
    ("Adadelta", dict(lr=0.5, foreach=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.02, betas=(0.8, 0.9), weight_decay=0.1, maximize=True, foreach=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01, maximize=True)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, foreach=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.1, maximize=True)),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, decoupled_weight_decay=True, foreach=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1, maximize=True, foreach=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05), maximize=True, foreach=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=1.5, weight_decay=0.1, maximize=True)),
    ("Adafactor", dict(lr=0.05, foreach=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1, foreach=True)),
    ("Adam", dict(lr=0.05, amsgrad=True, maximize=True, foreach=False)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.05, amsgrad=True, foreach=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1, foreach=False)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, foreach=True)),
]
# Muon's Newton-Schulz iteration runs in bfloat16 in both; a float32 sum that lands on the other side
# of a bfloat16 rounding boundary moves an update by up to lr * 2^-7 (lr=0.02, 20 steps).
MUON_TOL = dict(rtol=0, atol=20 * 0.02 * 2**-7)
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in CONFIGS]


def _data(steps, shapes=SHAPES):
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s) for s in shapes]
    grads = [[rng.standard_normal(s) for s in shapes] for _ in range(steps)]
    return init, grads


def _run(lib, name, kwargs, init, grads, params=None, opt=None, state_dict=None):
    """Runs `name` from `init` (or on `params`) over `grads`; loads `state_dict` first if given."""
    if params is None:
        params = [lib.tensor(a.copy(), requires_grad=True) for a in init]
    if opt is None:
        opt = getattr(lib.optim, name)(params, **kwargs)
    if state_dict is not None:
        opt.load_state_dict(state_dict)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = lib.tensor(g.copy())
        opt.step()
    return params, opt


def _close(ours, theirs, rtol=1e-11, atol=1e-13):
    for p, tp in zip(ours, theirs):
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_twenty_steps_match_torch(name, kwargs):
    init, grads = _data(20)
    params, opt = _run(tl, name, kwargs, init, grads)
    t_params, t_opt = _run(torch, name, kwargs, init, grads)
    # PyTorch's foreach ASGD computes eta from the float32 step tensor in float32 (its single-tensor
    # path, which torchlite follows, in double): agreement to float32 rounding there.
    _close(params, t_params, **(dict(rtol=1e-6) if name == "ASGD" and kwargs.get("foreach") else {}))
    for p, tp in zip(params, t_params):
        assert set(opt.state[p]) == set(t_opt.state[tp])
        if "step" in t_opt.state[tp]:
            assert opt.state[p]["step"].dtype == tl.float32 and float(opt.state[p]["step"]) == 20


FOREACH_KERNELS = [c for c in CONFIGS if c[1].get("foreach") and c[0] != "Adafactor"]


@pytest.mark.parametrize("name,kwargs", FOREACH_KERNELS, ids=[c[0] for c in FOREACH_KERNELS])
def test_foreach_kernels_float32_and_strided(name, kwargs):
    # float32 parameters (the kernels compute in float), one of them a transposed view, in two
    # groups: PyTorch's foreach path gives the same values to float32 rounding.
    init, grads = _data(10)
    init = [a.astype(np.float32) for a in init]

    def run(lib):
        base = lib.tensor(init[0].T.copy(), requires_grad=True)
        params = [base.detach().T.requires_grad_(), *(lib.tensor(a, requires_grad=True) for a in init[1:])]
        opt = getattr(lib.optim, name)([{"params": params[:1]}, {"params": params[1:], "lr": 0.02}], **kwargs)
        for step_grads in grads:
            for p, g in zip(params, step_grads):
                p.grad = lib.tensor(g.astype(np.float32))
            opt.step()
        return params

    params, t_params = run(tl), run(torch)
    assert params[0].dtype == tl.float32 and not params[0].is_contiguous()
    _close(params, t_params, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted({c[0] for c in FOREACH_KERNELS if getattr(optim, c[0]).__dict__.get(
    "_fused_kernel")}))
def test_foreach_runs_one_kernel_call_per_group(name, monkeypatch):
    # foreach=True must reach the optimizer's multi-tensor kernel, not fall back to the
    # per-parameter path (which gives the same values, so the parity tests cannot tell)
    from torchlite import _C

    kernel = getattr(optim, name)._fused_kernel
    calls = []
    original = getattr(_C, kernel)
    monkeypatch.setattr(_C, kernel, lambda *a, **k: calls.append(len(a[0])) or original(*a, **k))
    params = [tl.nn.Parameter(tl.randn(3)), tl.nn.Parameter(tl.randn(2, 2))]
    opt = getattr(optim, name)(params, foreach=True)
    for p in params:
        p.grad = tl.ones_like(p)
    opt.step()
    assert calls == [2]


@pytest.mark.parametrize("kwargs", [dict(lr=0.02), dict(lr=0.02, momentum=0.9, nesterov=False, weight_decay=0.01),
                                    dict(lr=0.02, adjust_lr_fn="match_rms_adamw", ns_steps=3)])
def test_muon_matches_torch(kwargs):
    init, grads = _data(20, MATRICES)
    params, _ = _run(tl, "Muon", kwargs, init, grads)
    t_params, _ = _run(torch, "Muon", kwargs, init, grads)
    _close(params, t_params, **MUON_TOL)


def _to_torch(v):
    if isinstance(v, tl.Tensor):
        return torch.from_numpy(v.numpy().copy())
    if isinstance(v, dict):
        return {k: _to_torch(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_to_torch(x) for x in v]
    return v


def _to_tl(v):
    if isinstance(v, torch.Tensor):
        return tl.tensor(v.numpy().copy())
    if isinstance(v, dict):
        return {k: _to_tl(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_to_tl(x) for x in v]
    return v


@pytest.mark.parametrize("name,kwargs", [c for c in CONFIGS if "foreach" not in c[1]] + [("Muon", dict(lr=0.02))],
                         ids=[i for c, i in zip(CONFIGS, IDS) if "foreach" not in c[1]] + ["Muon"])
def test_state_dict_crosses_to_torch_and_back(name, kwargs):
    shapes = MATRICES if name == "Muon" else SHAPES
    init, grads = _data(10, shapes)
    # torchlite -> torch: 5 steps here, then 5 more in PyTorch from the saved state.
    params, opt = _run(tl, name, kwargs, init, grads[:5])
    sd = opt.state_dict()
    t_ref, t_ref_opt = _run(torch, name, kwargs, init, grads[:5])
    tsd = t_ref_opt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert sorted(sd["state"]) == sorted(tsd["state"])
    for k, s in tsd["state"].items():
        assert set(sd["state"][k]) == set(s)
        for key, v in s.items():
            assert isinstance(sd["state"][k][key], tl.Tensor) == isinstance(v, torch.Tensor), key
            if isinstance(v, torch.Tensor):
                assert str(sd["state"][k][key].dtype).split(".")[-1] == str(v.dtype).split(".")[-1], key
    # Loading casts the state tensors other than 'step' to the parameter's dtype (so a float32
    # mu_product or eta becomes float64 here): both sides continue from a loaded copy.
    t_params = [torch.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    t_params, _ = _run(torch, name, kwargs, None, grads[5:], params=t_params,
                       opt=getattr(torch.optim, name)(t_params, **kwargs), state_dict=_to_torch(sd))
    params = [tl.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    params, _ = _run(tl, name, kwargs, None, grads[5:], params=params,
                     opt=getattr(optim, name)(params, **kwargs), state_dict=sd)
    tol = MUON_TOL if name == "Muon" else {}
    _close(params, t_params, **tol)
    # torch -> torchlite.
    new = [tl.tensor(p.detach().numpy().copy(), requires_grad=True) for p in t_ref]
    new, _ = _run(tl, name, kwargs, None, grads[5:], params=new,
                  opt=getattr(optim, name)(new, **kwargs), state_dict=_to_tl(tsd))
    t_ref, _ = _run(torch, name, kwargs, None, grads[5:], params=t_ref,
                    opt=getattr(torch.optim, name)(t_ref, **kwargs), state_dict=tsd)
    _close(new, t_ref, **tol)


def _rosenbrock(lib, x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2 + (x[2] - 0.5) ** 2


@pytest.mark.parametrize("kwargs", [dict(), dict(line_search_fn="strong_wolfe"),
                                    dict(lr=0.5, max_iter=5, history_size=3),
                                    dict(max_iter=7, history_size=4, line_search_fn="strong_wolfe")])
def test_lbfgs_matches_torch(kwargs):
    def run(lib):
        x = lib.tensor([-1.2, 1.0, 2.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.LBFGS([x], **kwargs)

        def closure():
            opt.zero_grad()
            loss = _rosenbrock(lib, x)
            loss.backward()
            return loss

        losses = [float(opt.step(closure).detach()) for _ in range(4)]
        return x, losses, opt.state[x]["func_evals"], opt.state[x]["n_iter"]

    x, losses, evals, iters = run(tl)
    tx, t_losses, t_evals, t_iters = run(torch)
    # Rosenbrock's valley is ill-conditioned: rounding differences of the dot products grow over
    # the iterations (to ~1e-7 relative by the last steps). The last loss is near 0 (2e-10),
    # where an ulp of the O(1) terms it is made of (4e-16; with or without fused multiply-adds)
    # is already 2e-6 of it: hence an absolute tolerance too.
    np.testing.assert_allclose(losses, t_losses, rtol=1e-6, atol=1e-14)
    _close([x], [tx], rtol=1e-6, atol=1e-9)
    assert (evals, iters) == (t_evals, t_iters)


def test_lbfgs_quadratic_converges():
    a = np.diag([1.0, 4.0, 9.0])
    x = tl.tensor([1.0, 1.0, 1.0], dtype=tl.float64, requires_grad=True)
    opt = optim.LBFGS([x], line_search_fn="strong_wolfe")
    aa = tl.tensor(a)

    def closure():
        opt.zero_grad()
        loss = (x @ aa @ x) / 2 - x.sum()
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), 1 / np.diag(a), rtol=1e-5)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [x]}, {"params": [tl.zeros(1, requires_grad=True)]}])
    x.detach().fill_(0.0)
    bad = optim.LBFGS([x], line_search_fn="armijo")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        bad.step(closure)


def _public_classes():
    names = [n for n in torch.optim.__all__ if n not in ("SparseAdam", "lr_scheduler", "swa_utils")]
    return names


@pytest.mark.parametrize("name", _public_classes())
def test_optimizer_signatures_and_defaults_match_torch(name):
    ours, theirs = inspect.signature(getattr(optim, name)), inspect.signature(getattr(torch.optim, name))
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in theirs.parameters.values()]
    if name in ("Optimizer", "swap_in_optimizer_params_and_state"):
        return
    shape = (2, 2)
    kw = {"lr": 0.1} if name == "SGD" else {}
    o = getattr(optim, name)([tl.zeros(shape, requires_grad=True)], **kw)
    to = getattr(torch.optim, name)([torch.zeros(shape, requires_grad=True)], **kw)
    assert o.defaults == to.defaults


@pytest.mark.parametrize("module", ["lr_scheduler", "swa_utils"])
def test_scheduler_and_swa_signatures_match_torch(module):
    theirs_mod, ours_mod = getattr(torch.optim, module), getattr(optim, module)
    for name in theirs_mod.__all__:
        ours, theirs = getattr(ours_mod, name), getattr(theirs_mod, name)
        assert [(p.name, p.default) for p in inspect.signature(ours).parameters.values()] == \
            [(p.name, p.default) for p in inspect.signature(theirs).parameters.values()], name


BAD_OPTIONS = [
    ("Adadelta", dict(lr=-1.0)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(eps=-1.0)),
    ("Adadelta", dict(weight_decay=-1.0)), ("Adamax", dict(betas=(1.0, 0.9))), ("Adamax", dict(eps=-1.0)),
    ("NAdam", dict(momentum_decay=-1.0)), ("NAdam", dict(betas=(0.9, -0.1))), ("RAdam", dict(lr=-0.1)),
    ("RAdam", dict(weight_decay=-1.0)), ("ASGD", dict(lr=-1.0)), ("ASGD", dict(weight_decay=-1.0)),
    ("Rprop", dict(etas=(1.1, 1.2))), ("Rprop", dict(lr=-1.0)), ("Adafactor", dict(lr=-1.0)),
    ("Adafactor", dict(beta2_decay=0.5)), ("Adafactor", dict(eps=(-1.0, 1e-3))), ("Adafactor", dict(d=0.5)),
    ("Adafactor", dict(weight_decay=-1.0)), ("Muon", dict(lr=-1.0)), ("Muon", dict(momentum=-1.0)),
    ("Muon", dict(adjust_lr_fn="other")), ("LBFGS", dict(lr=-1.0)), ("Adam", dict(lr=-1.0)),
]


@pytest.mark.parametrize("name,kwargs", BAD_OPTIONS, ids=[f"{n}-{k}" for n, kw in BAD_OPTIONS for k in kw])
def test_bad_options_raise_like_torch(name, kwargs):
    with pytest.raises(ValueError) as info:
        getattr(optim, name)([tl.zeros((2, 2), requires_grad=True)], **kwargs)
    with pytest.raises(ValueError) as t_info:
        getattr(torch.optim, name)([torch.zeros((2, 2), requires_grad=True)], **kwargs)
    assert str(info.value) == str(t_info.value)


def test_bad_parameters_and_unsupported_options():
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        optim.Muon([tl.zeros(3, requires_grad=True)])
    with pytest.raises(RuntimeError, match="differentiable=True"):
        optim.NAdam([tl.zeros(3, requires_grad=True)], differentiable=True)
    p = tl.zeros(2, dtype=tl.complex128, requires_grad=True)
    opt = optim.Adamax([p])
    p.grad = tl.ones(2, dtype=tl.complex128)
    with pytest.raises(RuntimeError, match="complex"):
        opt.step()


def test_swap_in_optimizer_params_and_state():
    init, grads = _data(4)
    params, opt = _run(tl, "NAdam", dict(lr=0.01), init, grads[:2])
    saved = opt.state_dict()
    before = [p.detach().numpy().copy() for p in params]
    other = {f"p{i}": tl.tensor(a.copy(), requires_grad=True) for i, a in enumerate(init)}
    other_opt_state = {"state": {k: {n: v.clone() for n, v in s.items()} for k, s in saved["state"].items()},
                       "param_groups": [dict(g, lr=0.05) for g in saved["param_groups"]]}
    with optim.swap_in_optimizer_params_and_state(opt, other, other_opt_state):
        assert opt.param_groups[0]["lr"] == 0.05
        for p, g in zip(other.values(), grads[2]):
            p.grad = tl.tensor(g.copy())
        opt.step()
    # The live optimizer is back as it was; the swapped-in tensors moved.
    assert opt.param_groups[0]["lr"] == 0.01 and opt.param_groups[0]["params"][0] is params[0]
    np.testing.assert_array_equal(params[0].detach().numpy(), before[0])
    assert float(other_opt_state["state"][0]["step"]) == 3 and float(saved["state"][0]["step"]) == 2
    t_params = [torch.tensor(a.copy(), requires_grad=True) for a in init]
    t_opt = torch.optim.NAdam(t_params, lr=0.01)
    t_state = _to_torch(other_opt_state)
    t_state["state"] = _to_torch(saved)["state"]
    t_other = {f"p{i}": torch.tensor(a.copy(), requires_grad=True) for i, a in enumerate(init)}
    _run(torch, "NAdam", {}, init, grads[:2], params=t_params, opt=t_opt)
    with torch.optim.swap_in_optimizer_params_and_state(t_opt, t_other, t_state):
        for p, g in zip(t_other.values(), grads[2]):
            p.grad = torch.tensor(g.copy())
        t_opt.step()
    _close(list(other.values()), list(t_other.values()))
    with pytest.raises(RuntimeError, match="different number of parameter groups"):
        with optim.swap_in_optimizer_params_and_state(opt, other, {"state": {}, "param_groups": []}):
            pass
    with pytest.raises(RuntimeError, match="requires initialized optimizer state"):
        with optim.swap_in_optimizer_params_and_state(optim.NAdam(list(other.values())), other, saved):
            pass


# ---- swa_utils ------------------------------------------------------------------------------------

def _models(lib, bn=True):
    lib.manual_seed(0)
    layers = [lib.nn.Linear(3, 4)] + ([lib.nn.BatchNorm1d(4)] if bn else []) + [lib.nn.Linear(4, 2)]
    return lib.nn.Sequential(*layers)


def _copy_weights(src, dst):
    with torch.no_grad():
        for (_, a), (_, b) in zip(src.state_dict().items(), dst.state_dict().items()):
            b.copy_(torch.from_numpy(a.numpy().copy()))


@pytest.mark.parametrize("kind", ["swa", "ema", "ema_multi", "swa_multi", "swa_buffers"])
def test_averaged_model_matches_torch(kind):
    fns = {
        "swa": dict(), "ema": dict(avg_fn="get_ema_avg_fn", args=(0.9,)),
        "ema_multi": dict(multi_avg_fn="get_ema_multi_avg_fn", args=(0.8,)),
        "swa_multi": dict(multi_avg_fn="get_swa_multi_avg_fn", args=()), "swa_buffers": dict(use_buffers=True),
    }[kind]
    model, t_model = _models(tl), _models(torch)
    t_model = t_model.double()
    model = model.double()
    _copy_weights(model, t_model)

    def make(mod, m):
        kw = {}
        for key in ("avg_fn", "multi_avg_fn"):
            if key in fns:
                kw[key] = getattr(mod, fns[key])(*fns["args"])
        if "use_buffers" in fns:
            kw["use_buffers"] = True
        return mod.AveragedModel(m, **kw)

    avg, t_avg = make(swa_utils, model), make(torch.optim.swa_utils, t_model)
    rng = np.random.default_rng(1)
    for _ in range(4):
        for (_, p), (_, tp) in zip(model.named_parameters(), t_model.named_parameters()):
            step = rng.standard_normal(tuple(p.shape))
            with tl.no_grad():
                p.add_(tl.tensor(step))
            with torch.no_grad():
                tp.add_(torch.tensor(step))
        x = rng.standard_normal((5, 3))
        model(tl.tensor(x))  # train-mode batch norm moves the running stats (buffers)
        t_model(torch.tensor(x))
        avg.update_parameters(model)
        t_avg.update_parameters(t_model)
    assert int(avg.n_averaged) == int(t_avg.n_averaged) == 4
    for (k, v), (tk, tv) in zip(avg.state_dict().items(), t_avg.state_dict().items()):
        assert k == tk
        np.testing.assert_allclose(v.numpy(), tv.numpy(), rtol=1e-12, atol=1e-14)


def test_avg_fn_errors():
    with pytest.raises(ValueError, match="Invalid decay value"):
        swa_utils.get_ema_avg_fn(1.5)
    with pytest.raises(ValueError, match="Invalid decay value"):
        swa_utils.get_ema_multi_avg_fn(-0.1)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(_models(tl), avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())


def test_update_bn_matches_torch():
    model, t_model = _models(tl).double(), _models(torch).double()
    _copy_weights(model, t_model)
    rng = np.random.default_rng(2)
    batches = [rng.standard_normal((6, 3)) for _ in range(3)]
    model.eval()
    t_model.eval()
    swa_utils.update_bn([tl.tensor(b) for b in batches], model)
    torch.optim.swa_utils.update_bn([(torch.tensor(b), 0) for b in batches], t_model)
    assert not model.training
    for (k, v), (_, tv) in zip(model.state_dict().items(), t_model.state_dict().items()):
        np.testing.assert_allclose(v.numpy(), tv.numpy(), rtol=1e-12, atol=1e-14, err_msg=k)
    assert model[1].momentum == 0.1
    swa_utils.update_bn([tl.zeros(2, 3)], _models(tl, bn=False))  # no batch norm: nothing to do


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.01), dict(swa_lr=[0.02, 0.005], anneal_epochs=4,
                                                            anneal_strategy="linear"),
                                    dict(swa_lr=0.05, anneal_epochs=0)])
def test_swalr_matches_torch(kwargs):
    def lrs(lib):
        p = [lib.zeros(1, requires_grad=True), lib.zeros(1, requires_grad=True)]
        opt = lib.optim.SGD([{"params": [p[0]], "lr": 0.1}, {"params": [p[1]], "lr": 0.2}])
        sched = lib.optim.swa_utils.SWALR(opt, **kwargs)
        out = [sched.get_last_lr()]
        for _ in range(15):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out, sched.state_dict()

    (ours, sd), (theirs, tsd) = lrs(tl), lrs(torch)
    assert ours == theirs
    assert "anneal_func" not in sd and sd["_anneal_strategy"] == tsd["_anneal_strategy"]


def test_swalr_errors():
    opt = optim.SGD([tl.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)
    with pytest.raises(ValueError, match="swa_lr must have the same length"):
        swa_utils.SWALR(opt, swa_lr=[0.1, 0.2])


def test_scheduler_errors():
    opt = optim.SGD([tl.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="Expected positive integer T_0"):
        lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="Expected integer T_mult >= 1"):
        lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=0)
    with pytest.raises(ValueError, match="mode is invalid"):
        lr_scheduler.CyclicLR(opt, 0.1, 1.0, mode="sine")
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        lr_scheduler.CyclicLR(optim.Adagrad([tl.zeros(1, requires_grad=True)]), 0.1, 1.0)
    with pytest.raises(ValueError, match="expects at least one scheduler"):
        lr_scheduler.ChainedScheduler([])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        lr_scheduler.ChainedScheduler([lr_scheduler.ReduceLROnPlateau(opt)])
